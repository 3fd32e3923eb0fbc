"""`Layer`: the building block, a `mt.Module`. Weights are made lazily by `build` on the first call, then `call` runs.

Each call runs inside `mt.name_scope(layer.name)`, so tape records carry the layer's
name ("my_model/dense_1") and a visualizer can group them by layer. Layers, modules and
variables assigned as attributes (also inside lists and dicts) are tracked: that is
how `model.trainable_variables` finds every weight without being told. Called on the
symbolic tensors of `keras.Input`, a layer records itself into a functional graph.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

import numpy as np

from minitape import name_scope
from minitape.engine.tensor import Tensor
from minitape.engine.variables import Variable
from minitape.keras import backend, constraints, initializers, masking, regularizers, symbolic
from minitape.namespaces.module import Module, ModuleNameScope
from minitape.ops.api import add_n
from minitape.ops.math_ops import cast
from minitape.values.convert import convert_to_tensor
from minitape.values.dtypes import as_dtype
from minitape.values.tensor_like import TensorLike


class Layer(Module):
    """Subclass and define `build(input_shape)` (make weights with `add_weight`) and `call(inputs)`."""

    autocast = True  # cast floating inputs (integers too, in minitape's own layers) to its dtype; Embedding: off
    # put before the layer's name in its weights' names: a wrapping layer sets it ('lstm/' gives
    # 'lstm/lstm_cell/kernel:0', the name Keras gives an LSTM's weight); '' for a layer on its own
    weight_prefix = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A subclass's own `build` is wrapped to set `built = True`, as Keras does: after a manual
        `layer.build(shape)` the first call must not build again (new random weights, `set_weights` lost)."""
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_sets_built", False):

            @functools.wraps(build)
            def build_then_mark_built(self: Layer, *args: Any, **kw: Any) -> Any:
                result = build(self, *args, **kw)
                self.built = True
                return result

            build_then_mark_built._sets_built = True  # type: ignore[attr-defined]
            cls.build = build_then_mark_built
        if cls.__module__.startswith("minitape.keras.layers") and "__init__" in cls.__dict__:
            cls.__init__ = _recording_arguments(cls.__dict__["__init__"])

    def __init__(
        self,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
        input_shape: Any = None,
        input_dim: int | None = None,
        activity_regularizer: Any = None,
        **kwargs: Any,
    ) -> None:
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if kwargs:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) {sorted(kwargs)}")
        # Keras names are unique per session and need not be identifiers, so Module's check is skipped
        self._name = name or backend.unique_name(backend.snake_case(type(self).__name__))
        self._module_scope = ModuleNameScope(self._name)
        self.trainable = trainable
        self._dtype = as_dtype(dtype).name if dtype is not None else None
        self._own_weights: list[Variable] = []
        self._regularized: list[tuple[Variable, Any]] = []
        self._call_losses: list[Any] = []
        self.activity_regularizer = regularizers.get(activity_regularizer)
        self.built = False
        self._input_shape_arg = None if input_shape is None else (None, *tuple(input_shape))
        self._output_shape: Any = None  # of the last call, batch axis as None: for summary()

    # ---- configuration ------------------------------------------------------------------------------
    def get_config(self) -> dict:
        """What rebuilds this layer with `from_config`: Keras 3's base keys (its dtype is a name here, not a policy).

        A built-in layer adds every argument of its constructor, as given or defaulted (objects such as
        initializers stay objects: the config rebuilds the layer, it is not JSON). Your own layer whose __init__
        takes more arguments adds them: `config = super().get_config(); config.update(...)`.
        """
        base = {
            "name": self.name,
            "trainable": self.trainable,
            "dtype": self.dtype,
            "activity_regularizer": self.activity_regularizer,
        }
        if type(self).__module__.startswith("minitape.keras.layers"):  # a built-in layer: every argument of its
            base.update({k: v for k, v in vars(self).get("_given_arguments", {}).items() if k not in base})  # call
        return base

    @classmethod
    def from_config(cls, config: dict) -> Any:
        """A new layer from `get_config()`'s dict: `cls(**config)`, as in Keras 3."""
        try:
            return cls(**config)
        except TypeError as error:
            raise TypeError(
                f"{cls.__name__}.from_config: {error}. Keras calls cls(**config): make __init__ accept every key of "
                "get_config() (pass name, trainable, dtype on with **kwargs to super().__init__), or override "
                "from_config"
            ) from error

    # ---- identity and dtype ------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> str:
        """The dtype of the weights and of the computation: `dtype=` if given, else `backend.floatx()`."""
        return self._dtype or backend.floatx()

    @property
    def output_shape(self) -> Any:
        if self._output_shape is None:
            raise AttributeError(f'The layer "{self.name}" has never been called and thus has no defined output shape.')
        return self._output_shape

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"

    # ---- in a functional model ---------------------------------------------------------------------
    @property
    def input(self) -> Any:
        """The symbolic input of this layer's first call on KerasTensors (the functional API)."""
        return self._first_node("input").inputs

    @property
    def output(self) -> Any:
        """The symbolic output of this layer's first call on KerasTensors: e.g. to build a feature extractor."""
        return self._first_node("output").outputs

    def _first_node(self, what: str) -> Any:
        node = vars(self).get("_inbound_node")
        if node is None:
            raise AttributeError(
                f'Layer "{self.name}" has no {what} yet: it has not been called on a keras.Input (functional API)'
            )
        return node

    # ---- weights -----------------------------------------------------------------------------------
    def add_weight(
        self,
        name: Any = None,
        shape: Any = None,
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool = True,
        constraint: Any = None,
        **kwargs: Any,
    ) -> Variable:
        """A new Variable named '<layer>/<name>' (e.g. 'dense/kernel'), initialised by `initializer`.

        As in Keras the name is optional (`add_weight(shape=..., initializer=...)`), the default initializer
        is 'glorot_uniform' ('zeros' for integer dtypes), and a regularizer's penalty joins `layer.losses`.
        """
        unknown = set(kwargs) - {"use_resource", "synchronization", "aggregation", "autocast", "partitioner"}
        if unknown:
            raise TypeError(f"{type(self).__name__}.add_weight: unexpected keyword argument(s) {sorted(unknown)}")
        if shape is None and isinstance(name, (tuple, list)):  # Keras 3 puts shape first: add_weight((3, 4))
            name, shape = None, name
        shape = () if shape is None else tuple(int(n) for n in shape)
        dtype = as_dtype(dtype or self.dtype)
        if initializer is None:
            initializer = "glorot_uniform" if dtype.is_floating else "zeros"
        if name is None:
            name = f"variable_{len(self._own_weights)}" if self._own_weights else "variable"
        value = initializers.get(initializer)(shape, dtype=dtype)  # as Keras: mt.random.normal works too
        with name_scope(f"{self.weight_prefix}{self.name}/"):  # 'dense/kernel', whatever scope it is built in
            variable = Variable(value, trainable=trainable, name=name, dtype=dtype)
        self._own_weights.append(variable)
        backend.note_layer_weight(variable)
        regularizer = regularizers.get(regularizer)
        if regularizer is not None:
            self._regularized.append((variable, regularizer))
            backend.note_regularized_weight()
        constraint = constraints.get(constraint)
        if constraint is not None:
            constraints.register(variable, constraint)
        return variable

    def add_variable(self, *args: Any, **kwargs: Any) -> Variable:
        """Keras 3's `add_variable(shape, initializer, ...)`: `add_weight` with the shape first.

        Keras 2's `add_variable` took the name first (`add_variable("w", shape=[2])`); Keras 3 reads that name as
        the shape and fails, and so does minitape, with the Keras 3 spelling in the error.
        """
        if args and isinstance(args[0], str):
            given = args[0]
            raise TypeError(
                f"{type(self).__name__}.add_variable takes the shape first, as in Keras 3: "
                f"add_variable(shape, initializer, name={given!r}); Keras 2's add_variable({given!r}, shape=...) "
                f"is written add_weight(name={given!r}, shape=...) in Keras 3"
            )
        return self._add_variable(*args, **kwargs)

    def _add_variable(
        self,
        shape: Any = None,
        initializer: Any = None,
        dtype: Any = None,
        trainable: bool = True,
        autocast: bool = True,
        regularizer: Any = None,
        constraint: Any = None,
        name: str | None = None,
        **kwargs: Any,
    ) -> Variable:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.add_variable: unexpected keyword argument(s) {sorted(kwargs)}")
        return self.add_weight(
            name=name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
            trainable=trainable, constraint=constraint,
        )  # fmt: skip

    def add_loss(self, loss: Any) -> None:
        """Add a scalar (e.g. a penalty computed in `call`) to `layer.losses`; `fit` adds them to the loss.

        Losses added during a call are cleared when the next outermost call starts, as in Keras.
        """
        if not callable(loss) and not isinstance(loss, TensorLike):
            loss = convert_to_tensor(loss)
        if not self._call_losses:
            backend.note_loss_owner(self)
        self._call_losses.append(loss)

    def add_metric(self, value: Any, name: str | None = None, aggregation: Any = None) -> None:
        """Keras 2's `add_metric` is gone in Keras 3 (TensorFlow 2.21's Keras fails on it too): say what replaced it."""
        raise NotImplementedError(
            f"{type(self).__name__}.add_metric: Keras 3 has no add_metric (Keras 2's). Track the value with a "
            f"metric instead: make self.tracker = keras.metrics.Mean(name={name or 'value'!r}) in __init__ and call "
            "self.tracker.update_state(value) in call(), then read self.tracker.result(); or log it from your own "
            "train_step"
        )

    def clear_losses(self) -> None:
        self._call_losses = []

    @property
    def losses(self) -> list[Any]:
        """The `add_loss` losses of the last call and the weight regularizers' penalties, of this layer and below.

        The penalties are computed when read, from the weights' current values: read them inside the tape.
        """
        out: list[Any] = []
        if not backend.losses_may_exist():  # the usual case: no regularizer, no add_loss: skip the walk
            return out
        for layer in self._self_and_sublayers():
            out += [loss() if callable(loss) else loss for loss in layer._call_losses]
            for variable, regularizer in layer._regularized:
                with name_scope(layer.name):
                    out.append(regularizer(variable))
        return out

    def _self_and_sublayers(self) -> list[Layer]:
        found = [self]
        for module in self.submodules:
            if isinstance(module, Layer) and all(module is not f for f in found):
                found.append(module)
        return found

    def _tracked(self) -> list[Any]:
        """Modules and Variables among the attributes, in assignment order, looking inside lists, tuples and dicts.

        Walked again at every call (`trainable_variables` in each training step), so nothing a user assigns or
        appends is missed: the numbers and strings of a layer's settings are passed over first."""
        found = []
        stack = [v for k, v in reversed(vars(self).items()) if type(v) not in _LEAVES and k not in _BOOKKEEPING]
        while stack:
            value = stack.pop()
            if isinstance(value, (Module, Variable)):
                found.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(reversed(value))
            elif isinstance(value, dict):
                stack.extend(reversed(list(value.values())))
        return found

    def _variables(self, want_trainable: bool | None) -> list[Variable]:
        """The variables in Keras 3's order, kept if their trainability (the layers' and their own) is wanted."""
        found: list[tuple[Variable, bool]] = []
        self._collect(found, set(), set(), True)
        return [v for v, trainable in found if want_trainable is None or trainable == want_trainable]

    def _collect(self, found: list, seen: set, visited: set, parent_trainable: bool) -> None:
        """Keras 3's order: this layer's own variables (trainable ones first, each group in creation order),
        then each sublayer's, in the order they were assigned. Freezing a layer does not move its weights."""
        visited.add(id(self))  # identity only guards against cycles; it never decides an order
        trainable = parent_trainable and self.trainable
        own, sublayers = self._own_and_sublayers()
        for variable in own:
            if id(variable) not in seen:
                seen.add(id(variable))
                found.append((variable, trainable and variable.trainable))
        for layer in sublayers:
            if id(layer) not in visited:
                layer._collect(found, seen, visited, trainable)

    def _own_and_sublayers(self) -> tuple[list[Variable], list[Layer]]:
        """This layer's own variables (not its sublayers'), trainable ones first, each group in creation order,
        as Keras 3 lists them for the layer (and writes them to a `.weights.h5` file); and its sublayers."""
        own: dict[int, Variable] = {}  # by id: `self.kernel = self.add_weight(...)` is tracked twice
        sublayers: list[Layer] = []
        for item in self._tracked():
            if isinstance(item, Layer):
                sublayers.append(item)
            elif isinstance(item, Variable):
                own.setdefault(id(item), item)
            else:  # a Module: its variables
                for v in item.variables:
                    own.setdefault(id(v), v)
        frozen = [v for v in own.values() if not v.trainable]
        if not frozen:
            return list(own.values()), sublayers
        return [v for v in own.values() if v.trainable] + frozen, sublayers

    @property
    def variables(self) -> list[Variable]:
        """Every variable of this layer and its sublayers, in Keras 3's order: layer by layer, and in each
        layer its trainable weights, then its non-trainable ones (Dense kernel, bias; BatchNormalization
        gamma, beta, moving_mean, moving_variance; ...). `get_weights` and `set_weights` use this order."""
        return self._variables(None)

    @property
    def trainable_variables(self) -> list[Variable]:
        """The variables `fit` and your train_step update: those of trainable layers, created trainable."""
        return self._variables(True)

    @property
    def non_trainable_variables(self) -> list[Variable]:
        """The rest (moving statistics, a frozen layer's weights), in `variables` order."""
        return self._variables(False)

    weights = variables
    trainable_weights = trainable_variables
    non_trainable_weights = non_trainable_variables

    def get_weights(self) -> list[np.ndarray]:
        return [v.numpy() for v in self.variables]

    def set_weights(self, weights: list) -> None:
        variables = self.variables
        if len(weights) != len(variables):
            raise ValueError(f'layer "{self.name}" has {len(variables)} weights, but {len(weights)} were given')
        for v, w in zip(variables, weights):
            v.assign(np.asarray(w))

    def count_params(self) -> int:
        """How many numbers the weights hold; an unbuilt layer is refused, as in Keras 3 (its count is not final)."""
        if not self.built:
            raise ValueError(
                f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. You can build "
                "it manually via: `layer.build(input_shape)`, or call it on a batch of data first"
            )
        return int(sum(np.prod(v.shape, dtype=np.int64) for v in self.variables))

    @property
    def layers(self) -> list[Layer]:
        """The sublayers assigned as attributes (directly or in lists and dicts)."""
        out: list[Layer] = []
        for item in self._tracked():
            if isinstance(item, Layer) and all(item is not o for o in out):
                out.append(item)
        return out

    # ---- calling -----------------------------------------------------------------------------------
    def build(self, input_shape: tuple) -> None:
        """Create the weights, now that the input shape is known. The default makes none."""
        self.built = True

    def _build_from_call(self, input_shape: Any) -> None:
        self.build(input_shape)

    def call(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return inputs

    def check_input(self, shape: tuple) -> None:
        """Raise a clear ValueError if this layer cannot take an input of `shape`. Override per layer."""

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if "_name" not in vars(self):
            raise RuntimeError(
                f"{type(self).__name__}.__init__ must call super().__init__() before the layer is used "
                "(that is where the layer gets its name and its weight tracking)"
            )
        if symbolic.any_symbolic(inputs, args):
            return symbolic.call_layer(self, inputs, args, kwargs)
        # as Keras 3: a mask given in the call, else the Keras masks of the inputs, which a call taking `mask`
        # receives (read before _convert: a cast input is a new tensor, without the mask)
        previous_mask = kwargs.get("mask")
        if previous_mask is None:
            previous_mask = masking.masks_of(inputs)
            if previous_mask is not None and takes_mask(self.call):
                kwargs["mask"] = previous_mask
        inputs = self._convert(inputs)
        training = kwargs.pop("training", None)
        if training is None:  # None here too: no call said, so each layer's call takes its own default,
            training = backend.current_training()  # as in Keras 3 (False for Dropout, True for RandomFlip)
        if _takes(self.call, "training"):
            kwargs["training"] = _default_training(self.call) if training is None else bool(training)
        state = backend.call_state()  # per thread; updated inline: context managers cost time on every call
        if state.depth == 0 and state.loss_owners:  # an outermost call forgets the losses of the previous one
            backend.clear_call_losses(self)
        state.depth += 1
        try:
            with name_scope(self.name):
                if isinstance(inputs, TensorLike):
                    self.check_input(tuple(inputs.shape))
                if not self.built:
                    self._build_from_call(_shape_of(inputs))
                    self.built = True
                state.stack.append(None if training is None else bool(training))
                try:
                    outputs = self.call(inputs, *args, **kwargs)
                finally:
                    state.stack.pop()
                if self.activity_regularizer is not None:
                    self._add_activity_penalty(outputs)
        finally:
            state.depth -= 1
        if previous_mask is not None or type(self).compute_mask is not Layer.compute_mask:
            masking.set_masks(self, inputs, outputs, previous_mask)
        if isinstance(outputs, TensorLike):
            self._output_shape = (None, *tuple(outputs.shape)[1:])
        return outputs

    # ---- masking -----------------------------------------------------------------------------------
    @property
    def supports_masking(self) -> bool:
        """Does this layer pass masks on (with `compute_mask`)? Set it True in your layer's __init__ when each
        output step belongs to the input step of the same index; a layer with its own `compute_mask` does."""
        given = vars(self).get("_supports_masking")
        return given if given is not None else type(self).compute_mask is not Layer.compute_mask

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self._supports_masking = bool(value)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The mask of this layer's output: the input's (`previous_mask`) unchanged, unless a layer says otherwise
        (Embedding(mask_zero=True) and Masking make one; a layer that drops the steps returns None)."""
        return previous_mask

    def _add_activity_penalty(self, outputs: Any) -> None:
        """The activity regularizer's penalty on each output, divided by its batch size as Keras 3 does
        (so the penalty does not grow with the batch), joins `layer.losses`."""
        penalties = []
        for output in _flat_tensors(outputs):
            penalty = self.activity_regularizer(output)
            if len(output.shape) and output.shape[0]:
                penalty = penalty / float(output.shape[0])
            penalties.append(penalty)
        if penalties:
            self.add_loss(add_n(penalties) if len(penalties) > 1 else penalties[0])

    def _convert(self, inputs: Any) -> Any:
        """Arrays and numbers become tensors; floating inputs are cast to the layer's dtype (Keras' autocast).

        Integers are cast too where the `call` is minitape's own (Keras 3's layers cast them inside their calls,
        minitape's here); a `call` you write gets them as they are, as in Keras 3 (indices stay indices)."""
        if isinstance(inputs, (list, tuple)):
            return type(inputs)(self._convert(x) for x in inputs)
        if isinstance(inputs, dict):
            return {k: self._convert(v) for k, v in inputs.items()}
        ours = _minitapes_call(type(self))
        if isinstance(inputs, TensorLike):
            castable = inputs.dtype.is_floating or (ours and inputs.dtype.is_integer)
            if self.autocast and castable and inputs.dtype.name != self.dtype:
                return cast(inputs, self.dtype)
            return inputs
        array = np.asarray(inputs)
        if self.autocast and array.dtype.kind in ("fiub" if ours else "f"):
            return Tensor(array.astype(np.dtype(self.dtype), copy=False))
        return convert_to_tensor(inputs)

    def compute_output_shape(self, input_shape: tuple) -> tuple:
        raise NotImplementedError(f"{type(self).__name__} does not compute output shapes without a call")


_LEAVES = frozenset({str, int, float, bool, type(None)})  # attribute values that hold nothing to track

# Layer attributes that hold no weights or sublayers of their own (or only ones found elsewhere): not walked
_BOOKKEEPING = frozenset(
    {"_regularized", "_call_losses", "_module_scope", "_inbound_node", "_graph", "_output_shape", "_given_arguments"}
    | {"_states"}  # a stateful RNN's carried states: Variables, but not weights (Keras 3 leaves them out too)
)


def _recording_arguments(init: Any) -> Any:
    """A built-in layer's __init__ that first keeps the arguments of the call (defaults filled in), for
    get_config: the outermost class's own, since a subclass's __init__ runs before its parents'."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def init_keeping_arguments(self: Layer, *args: Any, **kwargs: Any) -> None:
        if "_given_arguments" not in vars(self):
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            given: dict[str, Any] = {}
            for name, value in list(bound.arguments.items())[1:]:
                kind = signature.parameters[name].kind
                if kind is inspect.Parameter.VAR_KEYWORD:
                    given.update(value)
                elif kind is not inspect.Parameter.VAR_POSITIONAL:
                    given[name] = value
            object.__setattr__(self, "_given_arguments", given)
        init(self, *args, **kwargs)

    return init_keeping_arguments


def _flat_tensors(outputs: Any) -> list[Any]:
    if isinstance(outputs, TensorLike):
        return [outputs]
    if isinstance(outputs, (list, tuple)):
        return [o for x in outputs for o in _flat_tensors(x)]
    if isinstance(outputs, dict):
        return [o for k in sorted(outputs) for o in _flat_tensors(outputs[k])]
    return []


def _shape_of(inputs: Any) -> Any:
    if isinstance(inputs, TensorLike):
        return tuple(inputs.shape)
    if isinstance(inputs, (list, tuple)):
        return [_shape_of(x) for x in inputs]
    if isinstance(inputs, dict):
        return {k: _shape_of(v) for k, v in inputs.items()}
    return None


_TAKES: dict = {}


@functools.cache
def _minitapes_call(layer_type: type) -> bool:
    """Is this layer type's `call` one of minitape's layers' (not one a user wrote)?"""
    return layer_type.call.__module__.startswith("minitape.")


def _takes(method: Any, argument: str) -> bool:
    """Does `method` accept `argument` (or **kwargs)? Cached per function: inspect is slow."""
    fn = getattr(method, "__func__", method)
    if fn not in _TAKES:
        params = inspect.signature(fn).parameters.values()
        _TAKES[fn] = any(p.name == argument or p.kind is p.VAR_KEYWORD for p in params)
    return _TAKES[fn]


def _default_training(method: Any) -> Any:
    """The default of `method`'s `training` argument (None if it has none): what a call nobody gave a `training`
    passes. Cached per function, as `_takes` is."""
    fn = getattr(method, "__func__", method)
    if fn not in _DEFAULTS:
        parameter = inspect.signature(fn).parameters.get("training")
        has_default = parameter is not None and parameter.default is not inspect.Parameter.empty
        _DEFAULTS[fn] = parameter.default if has_default else None
    return _DEFAULTS[fn]


_DEFAULTS: dict = {}
_TAKES_MASK: dict = {}


def takes_mask(method: Any) -> bool:
    """Does `method` name a `mask` argument (not only **kwargs)? Keras 3 passes the input's mask to such a call."""
    fn = getattr(method, "__func__", method)
    if fn not in _TAKES_MASK:
        _TAKES_MASK[fn] = "mask" in inspect.signature(fn).parameters
    return _TAKES_MASK[fn]


def incompatible(layer: Layer, shape: tuple, expected: str, fix: str = "", which: str = "0") -> ValueError:
    """The error for an input a layer cannot take: names the layer, what it expected, and the shape it got.

    `which` names the input of a layer that takes several ('1 (value)' for an attention layer's second)."""
    message = (
        f'Input {which} of layer "{layer.name}" ({type(layer).__name__}) is incompatible with the layer: expected '
        f"{expected}, but received an input of shape {tuple(shape)}."
    )
    return ValueError(message + (f" {fix}" if fix else ""))


def is_positive_int(value: Any) -> bool:
    """A Python int above 0, as Keras 3 asks of a layer's sizes (2.5, '3' and numpy's int64 are refused there)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0

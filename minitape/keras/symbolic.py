"""The functional API: `keras.Input` gives a symbolic `KerasTensor`; calling layers on it records a graph.

A KerasTensor has a shape (None where any size fits, e.g. the batch axis) and a dtype,
but no value. Calling a layer on one runs the layer once on placeholder values (to build
its weights and learn its output shape) and returns new KerasTensors that remember the
call (a `Node`). `Model(inputs, outputs)` then replays those calls, in order, on real tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitape as mt
from minitape.engine.tensor import Tensor
from minitape.keras import backend, masking
from minitape.values import nest
from minitape.values.dtypes import DType, as_dtype
from minitape.values.tensor_like import TensorLike


class Node:
    """One recorded layer call: the layer, its arguments (KerasTensors among them) and its symbolic outputs."""

    def __init__(self, layer: Any, inputs: Any, args: tuple = (), kwargs: dict | None = None) -> None:
        self.layer, self.inputs, self.args, self.kwargs = layer, inputs, args, kwargs or {}
        self.outputs: Any = None

    def parents(self) -> list[KerasTensor]:
        """The KerasTensors this call reads, in argument order."""
        leaves = nest.flatten([self.inputs, list(self.args), self.kwargs])
        return [x for x in leaves if isinstance(x, KerasTensor)]


class KerasTensor:
    """A symbolic tensor: a shape and a dtype, the input or output of a layer in a functional model."""

    def __init__(self, shape: tuple, dtype: Any = "float32", name: str | None = None, node: Node | None = None):
        self.shape = tuple(None if n is None else int(n) for n in shape)
        self._dtype: DType = as_dtype(dtype)
        self.name = name or backend.unique_name("keras_tensor")
        self.node = node  # the layer call that made it; None for the output of keras.Input
        self.input_layer: Any = None  # for keras.Input: its InputLayer

    @property
    def dtype(self) -> str:
        """The dtype's name, 'float32', as Keras 3's KerasTensor gives it (a string, equal to mt.float32)."""
        return self._dtype.name

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"<KerasTensor shape={self.shape}, dtype={self.dtype}, sparse=False, name={self.name}>"

    def _no_value(self, what: str) -> TypeError:
        return TypeError(
            f"{self!r} is symbolic: it has a shape and a dtype but no value, so it cannot {what}. "
            "To apply an mt op to it in a functional model, wrap the op in a layer, e.g. "
            "keras.layers.Lambda(lambda t: mt.nn.relu(t))(x); to compute values, build "
            "keras.Model(inputs, outputs) and call the model on data."
        )

    def numpy(self) -> Any:
        raise self._no_value("become a numpy array")

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise self._no_value("become a numpy array")

    def __bool__(self) -> bool:
        raise self._no_value("be used as a Python bool")

    def __hash__(self) -> int:
        return id(self)

    # Arithmetic on symbolic tensors becomes a Lambda layer, as Keras wraps ops on KerasTensors.
    def _op(self, fn: Any, other: Any = None, unary: bool = False) -> KerasTensor:
        from minitape.keras.layers.core import Lambda

        # as Keras 3's ops on KerasTensors: the result has no mask, and no warning says the mask was dropped
        if unary:
            return Lambda(fn, mask=_no_mask)(self)
        if isinstance(other, KerasTensor):
            return Lambda(lambda pair: fn(pair[0], pair[1]), mask=_no_mask)([self, other])
        return Lambda(lambda x: fn(x, other), mask=_no_mask)(self)

    def __add__(self, other: Any) -> KerasTensor:
        return self._op(lambda a, b: a + b, other)

    def __radd__(self, other: Any) -> KerasTensor:
        return self._op(lambda a, b: b + a, other)

    def __sub__(self, other: Any) -> KerasTensor:
        return self._op(lambda a, b: a - b, other)

    def __rsub__(self, other: Any) -> KerasTensor:
        return self._op(lambda a, b: b - a, other)

    def __mul__(self, other: Any) -> KerasTensor:
        return self._op(lambda a, b: a * b, other)

    def __rmul__(self, other: Any) -> KerasTensor:
        return self._op(lambda a, b: b * a, other)

    def __truediv__(self, other: Any) -> KerasTensor:
        return self._op(lambda a, b: a / b, other)

    def __neg__(self) -> KerasTensor:
        return self._op(lambda a: -a, unary=True)

    def __getitem__(self, key: Any) -> KerasTensor:
        return self._op(lambda a: a[key], unary=True)


def _no_mask(inputs: Any, mask: Any) -> None:
    return None


def any_symbolic(inputs: Any, args: tuple) -> bool:
    """Is any argument of a layer call a KerasTensor? Cheap for the usual case of one real tensor."""
    if isinstance(inputs, KerasTensor):
        return True
    if isinstance(inputs, (TensorLike, np.ndarray)) and not args:
        return False
    return any(isinstance(x, KerasTensor) for x in nest.flatten([inputs, list(args)]))


# An unknown size other than the batch's (a sequence's steps, an image's height) becomes one of these: large
# enough for valid convolutions and pooling to fit, and far enough apart that strides do not merge them.
FREE_LENGTHS = {2: 64, 3: 97}


def _placeholder(kt: KerasTensor, free_size: int) -> Tensor:
    """A real tensor standing in for `kt`: an unknown batch size becomes `free_size`, other unknown sizes
    `FREE_LENGTHS[free_size]`; ones (zeros for integers)."""
    shape = tuple(
        n if n is not None else free_size if i == 0 else FREE_LENGTHS[free_size] for i, n in enumerate(kt.shape)
    )
    fill = np.ones if kt._dtype.is_floating else np.zeros
    tensor = Tensor(fill(shape, dtype=kt._dtype.as_numpy_dtype))
    mask = getattr(kt, "_keras_mask", None)
    if mask is not None:  # a masked input: the layer sees a mask too (every step kept), and passes it on or not
        tensor._keras_mask = Tensor(np.ones(tuple(shape[: len(mask.shape)]), dtype=bool))
    return tensor


def _run_on_placeholders(layer: Any, inputs: Any, args: tuple, kwargs: dict, free_size: int) -> Any:
    def fill(x: Any) -> Any:
        return _placeholder(x, free_size) if isinstance(x, KerasTensor) else x

    kwargs = {k: nest.map_structure(fill, v) for k, v in kwargs.items()}  # e.g. an RNN's initial_state
    return layer(nest.map_structure(fill, inputs), *nest.map_structure(fill, list(args)), **kwargs)


def call_layer(layer: Any, inputs: Any, args: tuple, kwargs: dict) -> Any:
    """`layer(keras_tensor)`: build the layer on placeholders and return symbolic outputs remembering the call."""
    node = Node(layer, inputs, args, kwargs)
    batch_known = all(kt.shape and kt.shape[0] is not None for kt in node.parents())
    stateful = getattr(layer, "stateful", False)
    if stateful and not batch_known:
        raise ValueError(
            f'{type(layer).__name__} "{layer.name}" is stateful, so it needs to know its batch size: give it to '
            "the input, keras.Input(shape=..., batch_size=32)"
        )
    try:
        first = _run_on_placeholders(layer, inputs, args, kwargs, 2)
        unknown = any(None in kt.shape[1:] for kt in node.parents())
        second = _run_on_placeholders(layer, inputs, args, kwargs, 3) if unknown else first
    except Exception as error:
        shapes = ", ".join(str(kt.shape) for kt in node.parents())
        raise type(error)(
            f'{error}\n(while calling layer "{layer.name}" ({type(layer).__name__}) on symbolic inputs of shape '
            f"{shapes}, where None is any size)"
        ) from error
    if stateful:  # the placeholder runs moved its states: a sequence starts from zeros
        layer.reset_states()
    # what add_loss kept from the placeholder runs is no loss of the model (Keras 3: a new model's losses are its
    # weight regularizers' only, and add_loss losses come with the first real call)
    backend.clear_call_losses(layer)

    def symbolic_output(a: Any, b: Any) -> KerasTensor:
        shape = [None if m != n else m for m, n in zip(a.shape, b.shape)]
        if shape and not batch_known:
            shape[0] = None
        output = KerasTensor(tuple(shape), a.dtype, node=node)
        mask = masking.get_mask(a)
        if mask is not None:  # as Keras 3: a symbolic output shows the mask the layer will give it
            other = masking.get_mask(b)
            other = mask if other is None else other
            mask_shape = tuple(None if m != n else m for m, n in zip(mask.shape, other.shape))
            output._keras_mask = KerasTensor(mask_shape if batch_known else (None, *mask_shape[1:]), "bool")
        return output

    flat_first, flat_second = nest.flatten(first), nest.flatten(second)
    node.outputs = nest.pack_sequence_as(first, [symbolic_output(a, b) for a, b in zip(flat_first, flat_second)])
    outputs = node.outputs
    if "_inbound_node" not in vars(layer):
        layer._inbound_node = node  # layer.input / layer.output refer to the first call, as in Keras
    if isinstance(outputs, KerasTensor):
        layer._output_shape = outputs.shape
    else:
        layer._output_shape = nest.map_structure(lambda kt: kt.shape, outputs)
    return outputs


class Graph:
    """The layer calls between some Input KerasTensors and some output KerasTensors, in an order that can run."""

    def __init__(self, inputs: Any, outputs: Any) -> None:
        self.inputs, self.outputs = inputs, outputs
        self.flat_inputs = nest.flatten(inputs)
        self.flat_outputs = nest.flatten(outputs)
        for kt in self.flat_inputs + self.flat_outputs:
            if not isinstance(kt, KerasTensor):
                raise TypeError(
                    f"Model(inputs, outputs): every input and output must be a KerasTensor (from keras.Input or "
                    f"a layer called on one), got {type(kt).__name__} {kt!r}"
                )
        for kt in self.flat_inputs:
            if kt.node is not None:
                raise ValueError(f"Model inputs must come from keras.Input(...); {kt!r} is the output of a layer")
        self.nodes = self._order()

    def _order(self) -> list[Node]:
        """Depth-first from the outputs: each call after the calls it reads from."""
        known = {id(kt) for kt in self.flat_inputs}
        ordered: list[Node] = []
        done: set = set()
        for output in self.flat_outputs:
            stack: list[tuple[Any, bool]] = [(output, False)]
            while stack:
                kt, expanded = stack.pop()
                node = kt.node
                if node is None:
                    if id(kt) not in known:
                        raise ValueError(
                            f"Graph disconnected: the outputs depend on {kt!r} (Input '{kt.name}'), which is not "
                            "among the model's inputs. Pass every keras.Input the outputs use to Model(inputs=...)."
                        )
                    continue
                if id(node) in done:
                    continue
                if expanded:
                    done.add(id(node))
                    ordered.append(node)
                    continue
                stack.append((kt, True))
                stack.extend((parent, False) for parent in reversed(node.parents()))
        return ordered

    def layers(self) -> list[Any]:
        """InputLayers first, then each called layer once, as Keras 3 lists them: the farthest from the outputs
        first (depth: the most calls between a call and an output), calls equally far in the order found above."""
        depth = dict.fromkeys(map(id, self.nodes), 0)
        for node in reversed(self.nodes):  # a call comes after the calls it reads: its depth is final here
            for parent in node.parents():
                if parent.node is not None:
                    depth[id(parent.node)] = max(depth[id(parent.node)], depth[id(node)] + 1)
        by_depth = sorted(range(len(self.nodes)), key=lambda k: -depth[id(self.nodes[k])])  # stable: ties keep order
        found: list[Any] = [kt.input_layer for kt in self.flat_inputs if kt.input_layer is not None]
        for node in (self.nodes[k] for k in by_depth):
            if all(node.layer is not f for f in found):
                found.append(node.layer)
        return found

    def run(self, inputs: Any, training: Any, owner: str = "functional") -> Any:
        """Replay the recorded calls on real tensors: `inputs` in the structure of the model's inputs."""
        values: dict[int, Any] = {}
        for index, (kt, value) in enumerate(zip(self.flat_inputs, self._flatten_given(inputs, owner))):
            values[id(kt)] = checked_input(value, kt.shape, f"Input {index} with name '{kt.name}'", owner)

        def value_of(x: Any) -> Any:
            return values[id(x)] if isinstance(x, KerasTensor) else x

        for node in self.nodes:
            kwargs = nest.map_structure(value_of, node.kwargs)
            kwargs.setdefault("training", training)
            result = node.layer(
                nest.map_structure(value_of, node.inputs), *nest.map_structure(value_of, list(node.args)), **kwargs
            )
            for kt, value in zip(nest.flatten(node.outputs), nest.flatten(result)):
                values[id(kt)] = value
        return nest.map_structure(value_of, self.outputs)

    def _flatten_given(self, inputs: Any, owner: str) -> list[Any]:
        if isinstance(inputs, dict) and not isinstance(self.inputs, dict):
            names = [kt.name for kt in self.flat_inputs]
            missing = [n for n in names if n not in inputs]
            if missing:
                raise ValueError(f"The model's inputs are named {names}; the dict given lacks {missing}")
            return [inputs[n] for n in names]
        if len(self.flat_inputs) == 1:
            return [one_input(inputs, self.flat_inputs[0].shape, owner)]
        flat = nest.flatten(inputs)
        if len(flat) != len(self.flat_inputs):
            raise ValueError(
                f"The model expects {len(self.flat_inputs)} input(s) "
                f"{[kt.shape for kt in self.flat_inputs]}, but it received {len(flat)}"
            )
        return flat


def one_input(value: Any, shape: tuple, owner: str) -> Any:
    """The value given to a model that takes one input: a list there is refused with what to do, where Keras 3
    either fails with words about positional arguments or silently keeps the list's first array."""
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, (list, tuple)) for v in value) and len({len(v) for v in value}) > 1:
            what = "a ragged list (its rows differ in length), which cannot be one tensor: pad the rows to one length"
        else:
            what = f"a list of {len(value)} values: stack them into one array first (np.stack, or np.array(rows))"
        raise ValueError(f'Model "{owner}" takes one input{_of_shape(shape)}, but received {what}')
    if isinstance(value, dict):
        raise ValueError(f'Model "{owner}" takes one input{_of_shape(shape)}, but received a dict {sorted(value)}')
    return value


def _of_shape(shape: Any) -> str:
    return "" if shape is None else f", of shape {tuple(shape)}"


def checked_input(value: Any, shape: tuple, which: str, owner: str) -> Any:
    """A model's input, its rank adjusted as Keras 3 allows, then checked against the declared shape as Keras 3's
    input spec does: a model built for (None, 4) refuses (5, 2, 4) instead of running Dense on the last axis."""
    value = adjust_rank(value, shape)
    found = tuple(getattr(value, "shape", None) or np.shape(value))
    fits = len(found) == len(shape) and all(want is None or want == got for want, got in zip(shape, found))
    if not fits:
        raise ValueError(
            f"{which} of layer '{owner}' is incompatible with the layer: expected shape={tuple(shape)}, found "
            f"shape={found}"
        )
    return value


def adjust_rank(value: Any, shape: tuple) -> Any:
    """Keras 3's one leniency about a declared input shape: a missing last axis of size 1 is added (x of shape
    (n,) for keras.Input((1,)) becomes (n, 1)), and an extra one of size 1 is dropped."""
    rank = len(getattr(value, "shape", ()))
    if shape and rank == len(shape) - 1 and shape[-1] == 1:
        return mt.expand_dims(value, -1)
    if shape and rank == len(shape) + 1 and value.shape[-1] == 1:
        return mt.squeeze(value, -1)
    return value

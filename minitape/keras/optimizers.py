"""Optimizers: SGD, Adam, AdamW, RMSprop, Nadam, Adagrad, Adamax, Adadelta, with Keras 3's update rules and defaults.

`apply_gradients(zip(grads, vars))` updates the variables.

Updates are plain numpy arithmetic on the variables' values: they are not part of
any gradient, so recording them on a tape would only cost time. Each rule runs in place
with numpy's `out=`: the slots and a few scratch arrays per optimizer (sized for its largest
update) hold every intermediate, in the order of operations of the textbook formula, so
the numbers are those of the formula written with temporaries. Variables updated together
keep their slots end to end and the rule runs once over all of them (`_group_of`). A
variable's array is overwritten only when nothing else holds it (`Variable.update_in_place`);
otherwise the new value goes into one fresh array, as TensorFlow's reads keep their value.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.tensor import Tensor
from minitape.engine.variables import Variable
from minitape.function.trace import VARIABLE_ON_LATER_TRACE, runs_each_call
from minitape.keras import backend, constraints, schedules, unsupported
from minitape.values.convert import constant

__all__ = [
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Nadam",
    "Optimizer",
    "RMSprop",
    "get",
    "schedules",
]

_NO_GRADIENTS_HELP = (
    "Usual causes: the forward pass ran outside the `with tf.GradientTape() as tape:` block; a value was "
    "converted to numpy (.numpy(), np.* functions) on the way to the loss, which cuts the tape; the loss does "
    "not depend on these variables (e.g. the wrong model's variables were passed); or the loss was computed "
    "from integer tensors. `tape.explain(loss, variables)` says which one for each variable."
)


def _warn_missing(names: list[str], stacklevel: int = 4) -> None:
    """apply_gradients' warning for the variables whose gradient is None, pointing at the caller's line
    (`stacklevel` frames up)."""
    warnings.warn(
        f"Gradients do not exist for variables {names} when minimizing the loss: they are not updated. "
        "If they should be, check that the loss depends on them inside the tape "
        "(`tape.explain(loss, variables)` tells why a gradient is None).",
        stacklevel=stacklevel,
    )


_ONE_STEP = Tensor(np.ones((), np.int64))  # what each update adds to `iterations`
_EMA_SETTINGS = frozenset({"use_ema", "ema_momentum", "ema_overwrite_frequency"})  # accepted while use_ema is off
_KERAS2_NAMES = {"lr": "learning_rate"}  # Keras 2's spelling -> Keras 3's


def _check_keywords(kind: str, kwargs: dict) -> None:
    """Keras 3's rules for the keywords it no longer has: `decay` is ignored with its warning, anything else
    unknown (Keras 2's `lr` among them) is its ValueError, with the Keras 3 spelling where there is one. EMA
    of the weights is refused when switched on: minitape has none."""
    if kwargs.pop("decay", None) is not None:
        warnings.warn("Argument `decay` is no longer supported and will be ignored.", stacklevel=3)
    if kwargs.get("use_ema"):
        raise ValueError(f"{kind}: use_ema=True asks for an EMA of the weights, which minitape does not keep")
    unknown = {k: v for k, v in kwargs.items() if k not in _EMA_SETTINGS}
    if unknown:
        renamed = [f"`{k}` is `{_KERAS2_NAMES[k]}` in Keras 3" for k in unknown if k in _KERAS2_NAMES]
        hint = f" ({'; '.join(renamed)}: e.g. {kind}(learning_rate=0.01))" if renamed else ""
        raise ValueError(f"Argument(s) not recognized: {unknown}{hint}")


def _check_learning_rate(value: Any) -> None:
    """Keras 3 takes a number, a schedule or a callable; a string, None or a bool is its ValueError."""
    is_number = isinstance(value, (int, float, np.number, Variable)) and not isinstance(value, (bool, np.bool_))
    if not (is_number or isinstance(value, schedules.LearningRateSchedule) or callable(value)):
        raise ValueError(
            "Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or a callable (that "
            "takes in the current iteration value and returns the corresponding learning rate value). Received "
            f"instead: learning_rate={value!r}"
        )


class Optimizer:
    """Base class: subclasses define `_step_numbers(step, lr)`, `_update(grad, slots, numbers)` and the slot names
    they need.

    `iterations` is an int64 Variable counting the updates made; `learning_rate` may be a number, a
    `schedules.LearningRateSchedule` (called with `iterations` before each update) or a callable of no
    arguments. At most one of `clipnorm`, `clipvalue`, `global_clipnorm` clips the gradients first.
    `weight_decay` is Keras 3's decoupled weight decay: before each update, w -= lr * weight_decay * w.
    """

    _slot_names: tuple[str, ...] = ()

    def __init__(
        self,
        learning_rate: Any = 0.001,
        name: str | None = None,
        clipnorm: float | None = None,
        clipvalue: float | None = None,
        global_clipnorm: float | None = None,
        weight_decay: float | None = None,
        **kwargs: Any,
    ) -> None:
        _check_keywords(type(self).__name__, kwargs)
        _check_learning_rate(learning_rate)
        if weight_decay is not None and not weight_decay >= 0:
            raise ValueError(f"{type(self).__name__}: weight_decay must be a number >= 0, got {weight_decay!r}")
        if sum(c is not None for c in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                f"{type(self).__name__}: only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set; "
                f"received clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}"
            )
        for what, value in (("clipnorm", clipnorm), ("clipvalue", clipvalue), ("global_clipnorm", global_clipnorm)):
            if value is not None and not value > 0:
                raise ValueError(f"{type(self).__name__}: {what} must be a positive number, got {value!r}")
        self._learning_rate: Any = None
        self.learning_rate = learning_rate
        self.name = name or backend.snake_case(type(self).__name__)
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        self.weight_decay = weight_decay
        self.iterations = Variable(np.int64(0), trainable=False, name="iteration", dtype="int64")
        self._slots: dict = {}  # variable id -> {slot name: numpy array}
        self._buffers: dict = {}  # (dtype, 0 to 2) -> the scratch arrays of `_scratch`
        self._views: dict = {}  # (shape, dtype, 0 to 2) -> a view of a scratch array: see `_scratch`
        self._groups: dict = {}  # variable ids -> the _Group of their slots, see `_group_of`
        self._numbers: tuple = ()  # (dtype, step, lr, the numbers of `_step_numbers` as scalars of dtype)
        self._built_for: dict | None = None  # the variables of the first update, by id (Keras 3's build)
        self._variable_facts: dict = {}  # variable id -> (shape, numpy dtype): see `_shape_and_dtype`
        # a checkpoint's slots restored before this optimizer made them: position in Keras 3's `_variables` ->
        # (array, callback that marks it restored); see `_fill_restored_slots`
        self._restored_slots: dict = {}

    @property
    def learning_rate(self) -> Any:
        """A float32 Variable (`.numpy()`, `.assign(0.01)`), or with a schedule its value for the next update."""
        if isinstance(self._learning_rate, Variable):
            return self._learning_rate
        return constant(self.current_learning_rate(), dtype="float32")

    @learning_rate.setter
    def learning_rate(self, value: Any) -> None:
        """A number is assigned to the learning-rate Variable, as in Keras; a schedule or callable replaces it."""
        if isinstance(value, schedules.LearningRateSchedule) or (callable(value) and not isinstance(value, Variable)):
            self._learning_rate = value
        elif isinstance(self._learning_rate, Variable):
            self._learning_rate.assign(np.float32(np.asarray(value)))
        else:
            self._learning_rate = Variable(np.float32(np.asarray(value)), trainable=False, name="learning_rate")

    lr = learning_rate

    def current_learning_rate(self) -> float:
        """The learning rate the next update uses: a schedule is evaluated at the current `iterations`."""
        lr = self._learning_rate
        if isinstance(lr, schedules.LearningRateSchedule):
            return float(np.asarray(lr(self.iterations.numpy())))
        if callable(lr) and not isinstance(lr, Variable):
            return float(np.asarray(lr()))
        return float(lr)

    def _traced_form(self, grads_and_vars: list, name: str | None = None, **kwargs: Any) -> tuple:
        """What a traced graph calls at every run in place of apply_gradients, once this trace's call passed its
        checks: `_apply_traced` with the variables and which gradients are None, fixed by the trace."""
        variables = tuple(v for g, v in grads_and_vars if g is not None)
        grads = [g for g, _ in grads_and_vars if g is not None]
        missing = [v.name for g, v in grads_and_vars if g is None]
        return self._apply_traced, (variables, grads, missing), {}

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None, **kwargs: Any) -> Variable:
        """Update each variable by its gradient. Pairs whose gradient is None are skipped, with a warning.

        An optimizer's first update builds its state (TensorFlow's slot variables), so, as in TensorFlow, a
        `tf.function` may give it its first update only in its first trace.
        """
        if state.tracers and not self.built and not all(tracer.allow_variables for tracer in state.tracers):
            raise ValueError(VARIABLE_ON_LATER_TRACE)
        return self._apply_gradients(grads_and_vars, name, **kwargs)

    # its numpy update runs again at every call of a traced train step, as `_apply_traced`
    @runs_each_call(changes_state=True, replayed_as=_traced_form)
    def _apply_gradients(self, grads_and_vars: Any, name: str | None = None, **kwargs: Any) -> Variable:
        pairs = list(grads_and_vars)
        for _, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(
                    f"{type(self).__name__}.apply_gradients takes (gradient, variable) pairs; got "
                    f"{type(v).__name__} in the variable position. Pass zip(grads, model.trainable_variables)."
                )
        if not pairs:
            return self.iterations
        self._check_known([v for _, v in pairs])
        missing = [v.name for g, v in pairs if g is None]
        if len(missing) == len(pairs):
            raise ValueError(f"No gradients provided for any variable: {missing}. {_NO_GRADIENTS_HELP}")
        if missing:
            _warn_missing(missing, stacklevel=5)  # above apply_gradients and runs_each_call's wrapper
        variables, grads = [], []
        for g, v in pairs:
            if g is not None:
                variables.append(v)
                grads.append(self._gradient_array(g, v))
        return self._apply(variables, grads)

    @runs_each_call(changes_state=True, arrays=True)
    def _apply_traced(self, variables: tuple, grads: list, missing: list) -> Variable:
        """apply_gradients as a traced graph runs it at every call, on the gradients' arrays: which variables
        get a gradient was fixed at tracing, where their types were checked; what may change between calls (the
        optimizer's build, the gradients' shapes, the settings) is checked and read again."""
        self._check_known(variables)
        if missing:
            _warn_missing(missing)
        return self._apply(variables, [self._gradient_array(g, v) for g, v in zip(grads, variables)])

    # the graph view and the messages name it as the call the user wrote
    _apply_traced.__qualname__ = "Optimizer.apply_gradients"

    def _apply(self, variables: Any, grads: list[np.ndarray]) -> Variable:
        """The update itself, for the variables and their gradients as arrays of their dtypes."""
        lr = self.current_learning_rate()
        step = int(self.iterations) + 1  # Keras' local_step: 1 on the first update
        self._before_step(step)
        grads = self._clip(grads)
        group = self._group_of(variables, grads)
        if group is None:
            for v, grad in zip(variables, grads):
                v.update_in_place(functools.partial(self._step, v, grad, step, lr))
                constraints.apply(v)
        else:
            self._group_step(group, variables, grads, step, lr)
        self.iterations.assign_add(_ONE_STEP)  # as Keras 3 counts: iterations.assign_add(1)
        return self.iterations

    def _gradient_array(self, gradient: Any, variable: Variable) -> np.ndarray:
        """The gradient as an array of the variable's dtype, checked against its shape."""
        grad = gradient if type(gradient) is np.ndarray else backend.to_numpy(gradient)
        shape, dtype = self._shape_and_dtype(variable)
        if grad.shape != shape:
            raise ValueError(
                f"{type(self).__name__}: the gradient for {variable.name} has shape {grad.shape}, but the variable "
                f"has shape {shape}"
            )
        return grad.astype(dtype, copy=False)

    def _shape_and_dtype(self, variable: Variable) -> tuple[tuple, type]:
        """The variable's shape now and its numpy dtype. Both are kept for a variable whose shape is fully defined:
        neither can change (an assign of another shape or dtype is refused or cast); one declared with a size left
        open (`shape=[None, 3]`) is asked for its value's shape at every update."""
        known = self._variable_facts.get(variable.id)
        if known is not None:
            return known
        shape, dtype = variable.shape, variable.dtype.as_numpy_dtype
        if not shape.is_fully_defined():
            return np.shape(variable.numpy()), dtype
        facts = self._variable_facts[variable.id] = (tuple(shape), dtype)
        return facts

    @property
    def built(self) -> bool:
        return self._built_for is not None

    def build(self, variables: Any) -> None:
        """Bind the optimizer to `variables`, as its first update does: it refuses any other variable afterwards."""
        self._built_for = {v.id: v for v in variables}

    def _check_known(self, variables: list) -> None:
        known = self._built_for
        if known is None:
            self.build(variables)
            return
        for v in variables:
            if v.id not in known:
                raise ValueError(
                    f"Unknown variable: {backend.describe_variable(v)}. This optimizer can only be called for the "
                    "variables it was originally built with. When working with a new set of variables, you should "
                    "recreate a new optimizer instance: make a new optimizer for each model, e.g. "
                    f"keras.optimizers.{type(self).__name__}()"
                )

    def apply(self, grads: Any, trainable_variables: Any = None) -> Variable:
        """Keras 3's form of `apply_gradients`: the gradients and the variables as two lists in one order."""
        if trainable_variables is None:
            raise ValueError(
                f"{type(self).__name__}.apply(grads, trainable_variables): pass the variables too, "
                "e.g. optimizer.apply(grads, model.trainable_weights)"
            )
        grads, variables = list(grads), list(trainable_variables)
        if len(grads) != len(variables):
            raise ValueError(
                f"{type(self).__name__}.apply: {len(grads)} gradient(s) for {len(variables)} variable(s); "
                "give one gradient per variable, in the same order (tape.gradient(loss, variables) does)"
            )
        return self.apply_gradients(zip(grads, variables))

    def _new_slots(self, value: np.ndarray) -> dict[str, np.ndarray]:
        return {n: np.zeros_like(value) for n in self._slot_names}

    def _step(self, variable: Variable, grad: np.ndarray, step: int, lr: float, value: np.ndarray,
              out: np.ndarray) -> None:  # fmt: skip
        """One variable's update, written into `out` (which may be `value` itself)."""
        slots = self._slots.get(variable.id)
        if slots is None:
            slots = self._slots[variable.id] = self._new_slots(value)
            if self._restored_slots:
                self._fill_restored_slots(variable, slots)
        combine, delta = self._update(grad, slots, self._numbers_for(value.dtype, step, lr))
        self._finish(combine, delta, lr, value, out)

    def _finish(self, combine: Any, delta: np.ndarray, lr: float, value: np.ndarray, out: np.ndarray) -> None:
        """out = value - delta (or + delta, as `combine` says), after the weight decay if there is one."""
        if self.weight_decay:  # decoupled from the gradient, as Keras 3 applies it, before the update
            decay = np.multiply(value, np.asarray(self.weight_decay * lr, value.dtype), out=self._scratch(value, 2))
            value = np.subtract(value, decay, out=out)
        combine(value, delta, out=out)

    # ---- one update for many variables -------------------------------------------------------------------------
    # numpy spends about half a microsecond on each call whatever the array's size, and a rule makes a dozen calls
    # per variable: for a model's small arrays (biases, small kernels) that is most of the update. So the slots of
    # the variables of a first update are made in one array per slot name (each variable's slots are views of
    # it), and while later updates come for the same variables, the rule runs once on all of them, their
    # gradients put end to end; only the last operation (value - delta) is made per variable. Element by element
    # the operations are the same, so the numbers are those of one variable at a time, bit for bit.
    def _group_of(self, variables: list[Variable], grads: list[np.ndarray]) -> _Group | None:
        """The group these variables' slots were made in, if they were made together; else None. The gradients
        have the variables' shapes and dtypes (`_gradient_array`): they stand for the values here."""
        key = tuple(v.id for v in variables)
        group = self._groups.get(key)
        if group is not None:
            return group if group.fits(grads) else None
        if len(variables) < 2 or len(set(key)) < len(key) or any(k in self._slots for k in key):
            return None
        if any(g.dtype != grads[0].dtype for g in grads):
            return None
        group = self._groups[key] = _Group(variables, grads, [self._new_slots(g) for g in grads])
        for k, slots in zip(key, group.views):
            self._slots[k] = slots
        if self._restored_slots:
            for variable, slots in zip(variables, group.views):
                self._fill_restored_slots(variable, slots)
        return group

    def slot_position(self, variable: Variable, slot_index: int) -> int:
        """Where a slot sits in Keras 3's list of an optimizer's variables (its checkpoint key `_variables/N`):
        after `iterations` and the learning rate, each variable's slots, in the order the optimizer was built."""
        first = 1 + isinstance(self._learning_rate, Variable)
        return first + list(self._built_for).index(variable.id) * len(self._slot_names) + slot_index

    def _fill_restored_slots(self, variable: Variable, slots: dict) -> None:
        """Copy into slots just made the values a checkpoint restored for them before they existed."""
        for j, name in enumerate(self._slot_names):
            entry = self._restored_slots.pop(self.slot_position(variable, j), None)
            if entry is None:
                continue
            value, mark_restored = entry
            if value.shape != slots[name].shape:
                raise ValueError(
                    f"Received incompatible tensor with shape {value.shape} when attempting to restore the "
                    f"{name!r} slot of variable {variable.name} with shape {slots[name].shape}."
                )
            slots[name][...] = value
            mark_restored()

    def _group_step(self, group: _Group, variables: list, grads: list, step: int, lr: float) -> None:
        grad = np.concatenate([g.ravel() for g in grads], out=group.grad)
        combine, delta = self._update(grad, group.slots, self._numbers_for(grad.dtype, step, lr))
        for v, part, constrained in zip(variables, group.split(delta), group.constrained):
            v.update_in_place(functools.partial(self._finish, combine, part, lr))
            if constrained:
                constraints.apply(v)

    def _numbers_for(self, dtype: np.dtype, step: int, lr: float) -> tuple:
        """This step's numbers (`_step_numbers`) as scalars of the variables' dtype, made once per step and dtype.

        numpy casts a Python float to the array's dtype before an operation (NEP 50), so the results are those of
        the Python floats, bit for bit; but an in-place operation takes a scalar of the array's dtype about twice
        as fast, which counts for the small arrays of biases. Made again whenever the step or the learning rate
        changes, so nothing a user sets between steps is missed."""
        cached = self._numbers
        if cached and cached[1] == step and cached[2] == lr and (cached[0] is dtype or cached[0] == dtype):
            return cached[3]
        numbers = tuple(dtype.type(x) for x in self._step_numbers(step, lr))
        self._numbers = (dtype, step, lr, numbers)
        return numbers

    def _step_numbers(self, step: int, lr: float) -> tuple[float, ...]:
        """The Python floats `_update` needs at this step (its hyperparameters, read at every step)."""
        raise NotImplementedError

    def _scratch(self, like: np.ndarray, which: int) -> np.ndarray:
        """Scratch array `which` (0 or 1 in `_update`, 2 for the weight decay) of `like`'s shape and dtype: a view
        of a buffer the optimizer keeps for its largest update, so a step allocates nothing for its intermediates
        (the views are kept too)."""
        key = (like.shape, like.dtype, which)
        view = self._views.get(key)
        if view is None:
            buffer = self._buffers.get((like.dtype, which))
            if buffer is None or buffer.size < like.size:
                buffer = self._buffers[(like.dtype, which)] = np.empty(like.size, like.dtype)
                self._views = {}  # views of the smaller buffer it replaces
            view = self._views[key] = buffer[: like.size].reshape(like.shape)
        return view

    def _before_step(self, step: int) -> None:
        """State shared by all variables, updated once per step (Nadam's momentum schedule)."""

    def _clip(self, grads: list[np.ndarray]) -> list[np.ndarray]:
        """Keras' clipping: each gradient by its own norm, all by their global norm, or each value."""
        if self.clipnorm is not None:
            return [g * (self.clipnorm / max(float(np.sqrt(np.sum(g * g))), self.clipnorm)) for g in grads]
        if self.global_clipnorm is not None:
            norm = float(np.sqrt(sum(float(np.sum(g * g)) for g in grads)))
            return [g * (self.global_clipnorm / max(norm, self.global_clipnorm)) for g in grads]
        if self.clipvalue is not None:
            return [np.clip(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def minimize(self, loss: Any, var_list: Any, tape: Any = None) -> Variable:
        """Take the gradient of `loss` (a callable, or a tensor recorded on `tape`) and apply it."""
        from minitape.engine.tape import GradientTape

        var_list = list(var_list() if callable(var_list) else var_list)
        if callable(loss):
            with GradientTape() as tape:
                value = loss()
        elif tape is None:
            raise ValueError("minimize: pass the tape that recorded the loss tensor, or pass the loss as a callable")
        else:
            value = loss
        return self.apply_gradients(zip(tape.gradient(value, var_list), var_list))

    def _update(self, grad: np.ndarray, slots: dict, numbers: tuple) -> tuple[Any, np.ndarray]:
        """Update the slots in place and give (np.subtract or np.add, delta): the new value is combine(value, delta).
        `numbers` are those of `_step_numbers`, as scalars of the gradient's dtype. The value is not an argument:
        the rule may run on several variables' gradients end to end (`_group_step`)."""
        raise NotImplementedError

    @property
    def variables(self) -> list[Any]:
        """The optimizer's state: `iterations`, the learning rate, then each variable's slots (numpy arrays)."""
        rate = [self._learning_rate] if isinstance(self._learning_rate, Variable) else []
        return [self.iterations, *rate] + [a for slots in self._slots.values() for a in slots.values()]

    def get_config(self) -> dict:
        rate = self._learning_rate
        # float32 holds about 7 significant digits: show 0.01, not 0.009999999776482582
        config = {"learning_rate": float(f"{float(rate):.7g}") if isinstance(rate, Variable) else rate}
        return {**config, **{k: v for k, v in vars(self).items() if not k.startswith("_") and k != "iterations"}}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items() if v is not None and k != "name")
        return f"{type(self).__name__}({args})"


class _Group:
    """Variables whose slots live end to end in one array per slot name, and a buffer for their gradients."""

    def __init__(self, variables: list[Variable], grads: list[np.ndarray], slots: list[dict]) -> None:
        # a variable's constraint is given when it is made (`constraint=`, or add_weight's), never after
        self.constrained = [constraints.of(v) is not None for v in variables]
        self.parts, start = [], 0  # (start, end, shape) of each variable in the arrays
        for g in grads:
            self.parts.append((start, start + g.size, g.shape))
            start += g.size
        self.slots = {name: np.concatenate([s[name].ravel() for s in slots]) for name in slots[0]}
        self.views = [{name: a[p[0] : p[1]].reshape(p[2]) for name, a in self.slots.items()} for p in self.parts]
        self.grad = np.empty(start, grads[0].dtype)
        self._split: tuple = (None, [])  # the last array `split` cut, and its pieces

    def split(self, flat: np.ndarray) -> list[np.ndarray]:
        """`flat` (one number per element of the group) cut into the variables' shapes: views, kept while the
        rule gives the same array (a scratch array or a slot, the same from step to step)."""
        if self._split[0] is not flat:
            self._split = (flat, [flat[start:end].reshape(shape) for start, end, shape in self.parts])
        return self._split[1]

    def fits(self, grads: list[np.ndarray]) -> bool:
        """Whether the variables (their gradients here) still have the shapes and dtype the group was made for."""
        dtype = self.grad.dtype
        return all(g.shape == p[2] and g.dtype == dtype for g, p in zip(grads, self.parts))


class SGD(Optimizer):
    """w -= lr * g; with momentum: v = momentum * v - lr * g, w += v (Nesterov: w += momentum * v - lr * g)."""

    def __init__(
        self, learning_rate: Any = 0.01, momentum: float = 0.0, nesterov: bool = False, name: str = "SGD", **kw: Any
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        if isinstance(momentum, (bool, str)) or not 0 <= momentum <= 1:
            raise ValueError(f"`momentum` must be a float between [0, 1]. Received: momentum={momentum!r}")
        self.momentum, self.nesterov = momentum, nesterov
        self._slot_names = ("momentum",) if momentum else ()

    def _step_numbers(self, step, lr):
        return lr, self.momentum

    def _update(self, grad, slots, numbers):
        lr, momentum = numbers
        scaled = np.multiply(grad, lr, out=self._scratch(grad, 0))  # lr * g
        if not self.momentum:
            return np.subtract, scaled
        velocity = slots["momentum"]
        velocity *= momentum
        velocity -= scaled
        if self.nesterov:
            ahead = np.multiply(velocity, momentum, out=self._scratch(grad, 1))
            ahead -= scaled
            return np.add, ahead
        return np.add, velocity


class Adam(Optimizer):
    """Adaptive moments: m and v are running means of g and g^2; the step is lr * m_hat / (sqrt(v_hat) + eps).

    With `amsgrad=True` the denominator uses the running maximum of v instead of v.
    """

    _slot_names = ("m", "v")

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str = "adam",
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        self.beta_1, self.beta_2, self.epsilon, self.amsgrad = beta_1, beta_2, epsilon, amsgrad
        self._slot_names = ("m", "v", "v_hat") if amsgrad else ("m", "v")

    def _step_numbers(self, step, lr):
        b1, b2 = self.beta_1, self.beta_2
        # the bias correction folded into the step, computed in Python floats (math.sqrt, not np.sqrt, whose
        # float64 scalar would turn the float32 product into float64), then a scalar of the variable's dtype
        step_size = lr * math.sqrt(1 - b2**step) / (1 - b1**step)
        return b1, 1 - b1, b2, 1 - b2, step_size, self.epsilon

    def _update(self, grad, slots, numbers):
        b1, one_minus_b1, b2, one_minus_b2, step_size, epsilon = numbers
        m, v = slots["m"], slots["v"]
        work, other = self._scratch(grad, 0), self._scratch(grad, 1)
        m *= b1
        m += np.multiply(grad, one_minus_b1, out=work)
        v *= b2
        np.square(grad, out=work)
        v += np.multiply(work, one_minus_b2, out=work)
        if self.amsgrad:  # AMSGrad (Reddi et al. 2018): divide by the largest v so far, so steps never grow
            v = np.maximum(slots["v_hat"], v, out=slots["v_hat"])
        denominator = np.sqrt(v, out=work)
        denominator += epsilon
        np.multiply(m, step_size, out=other)
        return np.subtract, np.divide(other, denominator, out=other)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter 2019): before each update w -= lr * weight_decay * w,
    apart from the gradient, so the decay is not rescaled by Adam's denominator. Keras 3's default is 0.004."""

    def __init__(
        self,
        learning_rate: Any = 0.001,
        weight_decay: float = 0.004,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str = "adamw",
        **kw: Any,
    ) -> None:
        if weight_decay is None:
            raise ValueError("AdamW: weight_decay must be a number (Keras 3's default is 0.004), not None")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, name, weight_decay=weight_decay, **kw)


class RMSprop(Optimizer):
    """Divide the gradient by a running root-mean-square of its recent values: lr * g / sqrt(rms + eps).

    With `centered=True` the running mean of g is subtracted: lr * g / sqrt(rms - mean_g^2 + eps).
    """

    _slot_names = ("rms", "momentum")

    def __init__(
        self,
        learning_rate: Any = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        centered: bool = False,
        name: str = "rmsprop",
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        self.rho, self.momentum, self.epsilon, self.centered = rho, momentum, epsilon, centered
        if centered:
            self._slot_names = ("rms", "momentum", "average_gradient")

    def _step_numbers(self, step, lr):
        return self.rho, 1 - self.rho, self.epsilon, lr, self.momentum

    def _update(self, grad, slots, numbers):
        rho, one_minus_rho, epsilon, lr, momentum = numbers
        rms = slots["rms"]
        work, other = self._scratch(grad, 0), self._scratch(grad, 1)
        rms *= rho
        np.multiply(grad, one_minus_rho, out=work)
        rms += np.multiply(work, grad, out=work)
        denominator = np.add(rms, epsilon, out=work)  # Keras 3 (and tf.keras >= 2.11): eps inside the sqrt
        if self.centered:  # divide by an estimate of the variance of g, not of its second moment
            average = slots["average_gradient"]
            average *= rho
            average += np.multiply(grad, one_minus_rho, out=other)
            denominator -= np.square(average, out=other)
        np.sqrt(denominator, out=denominator)
        step_ = np.divide(np.multiply(grad, lr, out=other), denominator, out=other)
        if self.momentum:
            step_ = slots["momentum"]
            step_ *= momentum
            step_ += other
        return np.subtract, step_


class Nadam(Optimizer):
    """Adam with Nesterov momentum (Dozat 2015), with Keras' momentum schedule u_t = b1 (1 - 0.96^t / 2)."""

    _slot_names = ("m", "v")

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        name: str = "nadam",
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon
        self.u_product = 1.0  # the product u_1 ... u_t, shared by all variables

    def _u(self, step: int) -> float:
        return self.beta_1 * (1.0 - 0.5 * 0.96**step)

    def _before_step(self, step: int) -> None:
        self.u_product *= self._u(step)

    def _step_numbers(self, step, lr):
        u_t, u_next, product = self._u(step), self._u(step + 1), self.u_product
        return (1 - self.beta_1, 1 - self.beta_2, u_next, 1 - product * u_next, 1 - u_t, 1 - product,
                1 - self.beta_2**step, self.epsilon, lr)  # fmt: skip

    def _update(self, grad, slots, numbers):
        one_minus_b1, one_minus_b2, u_next, m_scale, one_minus_u_t, g_scale, v_scale, epsilon, lr = numbers
        m, v = slots["m"], slots["v"]
        work, other = self._scratch(grad, 0), self._scratch(grad, 1)
        _move_toward(m, grad, one_minus_b1, work)
        _move_toward(v, np.square(grad, out=other), one_minus_b2, work)
        m_hat = np.multiply(m, u_next, out=work)
        m_hat /= m_scale
        np.multiply(grad, one_minus_u_t, out=other)
        m_hat += np.divide(other, g_scale, out=other)
        denominator = np.divide(v, v_scale, out=other)  # v_hat
        np.sqrt(denominator, out=denominator)
        denominator += epsilon
        m_hat *= lr
        return np.subtract, np.divide(m_hat, denominator, out=work)


class Adagrad(Optimizer):
    """Each weight's step shrinks with the sum of its squared gradients: lr * g / sqrt(acc + eps)."""

    _slot_names = ("accumulator",)

    def __init__(
        self,
        learning_rate: Any = 0.001,
        initial_accumulator_value: float = 0.1,
        epsilon: float = 1e-7,
        name: str = "adagrad",
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        self.initial_accumulator_value, self.epsilon = initial_accumulator_value, epsilon

    def _new_slots(self, value: np.ndarray) -> dict[str, np.ndarray]:
        return {"accumulator": np.full_like(value, self.initial_accumulator_value)}

    def _step_numbers(self, step, lr):
        return self.epsilon, lr

    def _update(self, grad, slots, numbers):
        epsilon, lr = numbers
        work, other = self._scratch(grad, 0), self._scratch(grad, 1)
        accumulator = slots["accumulator"]
        accumulator += np.square(grad, out=work)
        denominator = np.sqrt(np.add(accumulator, epsilon, out=work), out=work)
        return np.subtract, np.divide(np.multiply(grad, lr, out=other), denominator, out=other)


class Adamax(Optimizer):
    """Adam with the infinity norm: u = max(b2 * u, |g|), step lr * m / ((1 - b1^t) (u + eps))."""

    _slot_names = ("m", "u")

    def __init__(
        self,
        learning_rate: Any = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        name: str = "adamax",
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def _step_numbers(self, step, lr):
        return 1 - self.beta_1, self.beta_2, self.epsilon, 1 - self.beta_1**step, lr

    def _update(self, grad, slots, numbers):
        one_minus_b1, b2, epsilon, correction, lr = numbers
        m, u = slots["m"], slots["u"]
        work, other = self._scratch(grad, 0), self._scratch(grad, 1)
        _move_toward(m, grad, one_minus_b1, work)
        u *= b2
        np.maximum(u, np.abs(grad, out=work), out=u)
        denominator = np.add(u, epsilon, out=work)
        denominator *= correction
        return np.subtract, np.divide(np.multiply(m, lr, out=other), denominator, out=other)


class Adadelta(Optimizer):
    """Steps scaled by the ratio of running RMS of past steps to running RMS of gradients (Zeiler 2012)."""

    _slot_names = ("accumulated_grad", "accumulated_delta_var")

    def __init__(
        self, learning_rate: Any = 0.001, rho: float = 0.95, epsilon: float = 1e-7, name: str = "adadelta", **kw: Any
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        self.rho, self.epsilon = rho, epsilon

    def _step_numbers(self, step, lr):
        return self.rho, 1 - self.rho, self.epsilon, lr

    def _update(self, grad, slots, numbers):
        rho, one_minus_rho, eps, lr = numbers
        accumulated, delta_var = slots["accumulated_grad"], slots["accumulated_delta_var"]
        delta, other = self._scratch(grad, 0), self._scratch(grad, 1)
        accumulated *= rho
        accumulated += np.multiply(np.square(grad, out=other), one_minus_rho, out=other)
        np.negative(np.sqrt(np.add(delta_var, eps, out=delta), out=delta), out=delta)
        delta *= grad
        delta /= np.sqrt(np.add(accumulated, eps, out=other), out=other)
        delta_var *= rho
        delta_var += np.multiply(np.square(delta, out=other), one_minus_rho, out=other)
        return np.add, np.multiply(delta, lr, out=delta)


def _move_toward(average: np.ndarray, target: np.ndarray, rate: float, work: np.ndarray) -> None:
    """average += (target - average) * rate, in place (`work` holds the difference; it may be `target`)."""
    np.subtract(target, average, out=work)
    work *= rate
    average += work


_BY_NAME = {
    "sgd": SGD,
    "adam": Adam,
    "adamw": AdamW,
    "rmsprop": RMSprop,
    "nadam": Nadam,
    "adagrad": Adagrad,
    "adamax": Adamax,
    "adadelta": Adadelta,
}


def get(identifier: Any) -> Optimizer:
    """An optimizer from a name ('adam', 'sgd', 'nadam', ..., any case) or an Optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Unknown optimizer: {identifier!r}. Use one of {sorted(_BY_NAME)}, or an Optimizer object.")


__getattr__ = unsupported.module_getattr("keras.optimizers")  # a left-out name says what to use instead

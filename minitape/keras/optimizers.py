"""Optimizers: SGD (with momentum), Adam, RMSprop. `apply_gradients(zip(grads, vars))` updates the variables.

Updates are plain numpy arithmetic on the variables' values: they are not part of
any gradient, so recording them on a tape would only cost time.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minitape.keras import backend
from minitape.variables import Variable

_NO_GRADIENTS_HELP = (
    "Usual causes: the forward pass ran outside the `with tf.GradientTape() as tape:` block; a value was "
    "converted to numpy (.numpy(), np.* functions) on the way to the loss, which cuts the tape; the loss does "
    "not depend on these variables (e.g. the wrong model's variables were passed); or the loss was computed "
    "from integer tensors. `tape.explain(loss, variables)` says which one for each variable."
)


class Optimizer:
    """Base class: subclasses define `_update(value, grad, slots, step)` and the slot names they need."""

    _slot_names: tuple[str, ...] = ()

    def __init__(self, learning_rate: float = 0.001, name: str = "Optimizer", **kwargs: Any) -> None:
        unknown = set(kwargs) - {"clipnorm", "clipvalue", "global_clipnorm"}
        if unknown:
            raise TypeError(f"{type(self).__name__}: unexpected keyword argument(s) {sorted(unknown)}")
        self.learning_rate = learning_rate
        self.name = name
        self.clipnorm = kwargs.get("clipnorm")
        self.clipvalue = kwargs.get("clipvalue")
        self.iterations = 0
        self._slots: dict = {}  # variable ref -> {slot name: numpy array}

    @property
    def lr(self) -> float:
        return self.learning_rate

    def apply_gradients(self, grads_and_vars: Any, name: str | None = None, **kwargs: Any) -> int:
        """Update each variable by its gradient. Pairs whose gradient is None are skipped, with a warning."""
        pairs = list(grads_and_vars)
        for _, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(
                    f"{type(self).__name__}.apply_gradients takes (gradient, variable) pairs; got "
                    f"{type(v).__name__} in the variable position. Pass zip(grads, model.trainable_variables)."
                )
        if not pairs:
            return self.iterations
        missing = [v.name for g, v in pairs if g is None]
        if len(missing) == len(pairs):
            raise ValueError(f"No gradients provided for any variable: {missing}. {_NO_GRADIENTS_HELP}")
        if missing:
            warnings.warn(
                f"Gradients do not exist for variables {missing} when minimizing the loss: they are not updated. "
                "If they should be, check that the loss depends on them inside the tape "
                "(`tape.explain(loss, variables)` tells why a gradient is None).",
                stacklevel=2,
            )
        self.iterations += 1
        lr = float(self.learning_rate(self.iterations) if callable(self.learning_rate) else self.learning_rate)
        for g, v in pairs:
            if g is None:
                continue
            grad = backend.to_numpy(g)
            if grad.shape != v._value.shape:
                raise ValueError(
                    f"{type(self).__name__}: the gradient for {v.name} has shape {grad.shape}, but the variable "
                    f"has shape {v._value.shape}"
                )
            grad = self._clip(grad.astype(v._value.dtype, copy=False))
            slots = self._slots.get(v.ref())
            if slots is None:
                slots = self._slots[v.ref()] = {n: np.zeros_like(v._value) for n in self._slot_names}
            new = self._update(v._value, grad, slots, self.iterations, lr)
            v.assign(new.astype(v._value.dtype, copy=False))
        return self.iterations

    def _clip(self, grad: np.ndarray) -> np.ndarray:
        if self.clipvalue is not None:
            grad = np.clip(grad, -self.clipvalue, self.clipvalue)
        if self.clipnorm is not None:
            norm = float(np.sqrt(np.sum(grad * grad)))
            if norm > self.clipnorm:
                grad = grad * (self.clipnorm / norm)
        return grad

    def minimize(self, loss: Any, var_list: Any, tape: Any = None) -> int:
        """Take the gradient of `loss` (a callable, or a tensor recorded on `tape`) and apply it."""
        from minitape.tape import GradientTape

        var_list = list(var_list() if callable(var_list) else var_list)
        if callable(loss):
            with GradientTape() as tape:
                value = loss()
        elif tape is None:
            raise ValueError("minimize: pass the tape that recorded the loss tensor, or pass the loss as a callable")
        else:
            value = loss
        return self.apply_gradients(zip(tape.gradient(value, var_list), var_list))

    def _update(self, value: np.ndarray, grad: np.ndarray, slots: dict, step: int, lr: float) -> np.ndarray:
        raise NotImplementedError

    def variables(self) -> list[np.ndarray]:
        return [a for slots in self._slots.values() for a in slots.values()]

    def get_config(self) -> dict:
        return {k: v for k, v in vars(self).items() if not k.startswith("_") and k != "iterations"}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items() if v is not None and k != "name")
        return f"{type(self).__name__}({args})"


class SGD(Optimizer):
    """w -= lr * g; with momentum: v = momentum * v - lr * g, w += v (Nesterov: w += momentum * v - lr * g)."""

    def __init__(
        self, learning_rate: float = 0.01, momentum: float = 0.0, nesterov: bool = False, name: str = "SGD", **kw: Any
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        if not 0 <= momentum <= 1:
            raise ValueError(f"SGD: momentum must be in [0, 1], got {momentum!r}")
        self.momentum, self.nesterov = momentum, nesterov
        self._slot_names = ("momentum",) if momentum else ()

    def _update(self, value, grad, slots, step, lr):
        if not self.momentum:
            return value - lr * grad
        velocity = slots["momentum"] = self.momentum * slots["momentum"] - lr * grad
        return value + (self.momentum * velocity - lr * grad if self.nesterov else velocity)


class Adam(Optimizer):
    """Adaptive moments: m and v are running means of g and g^2; the step is lr * m_hat / (sqrt(v_hat) + eps)."""

    _slot_names = ("m", "v")

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta_1: float = 0.9,
        beta_2: float = 0.999,
        epsilon: float = 1e-7,
        amsgrad: bool = False,
        name: str = "Adam",
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        if amsgrad:
            raise NotImplementedError("Adam(amsgrad=True) is not supported by minitape")
        self.beta_1, self.beta_2, self.epsilon = beta_1, beta_2, epsilon

    def _update(self, value, grad, slots, step, lr):
        b1, b2 = self.beta_1, self.beta_2
        m, v = slots["m"], slots["v"]
        m *= b1
        m += (1 - b1) * grad
        v *= b2
        v += (1 - b2) * np.square(grad)
        step_size = lr * np.sqrt(1 - b2**step) / (1 - b1**step)  # bias correction folded into the step
        denominator = np.sqrt(v)
        denominator += self.epsilon
        return value - step_size * m / denominator


class RMSprop(Optimizer):
    """Divide the gradient by a running root-mean-square of its recent values."""

    _slot_names = ("rms", "momentum")

    def __init__(
        self,
        learning_rate: float = 0.001,
        rho: float = 0.9,
        momentum: float = 0.0,
        epsilon: float = 1e-7,
        name: str = "RMSprop",
        **kw: Any,
    ) -> None:
        super().__init__(learning_rate, name, **kw)
        self.rho, self.momentum, self.epsilon = rho, momentum, epsilon

    def _update(self, value, grad, slots, step, lr):
        slots["rms"] = self.rho * slots["rms"] + (1 - self.rho) * grad * grad
        step_ = lr * grad / (np.sqrt(slots["rms"]) + self.epsilon)
        if self.momentum:
            step_ = slots["momentum"] = self.momentum * slots["momentum"] + step_
        return value - step_


_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop}


def get(identifier: Any) -> Optimizer:
    """An optimizer from a name ('adam', 'sgd', 'rmsprop', any case) or an Optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    raise ValueError(f"Unknown optimizer: {identifier!r}. Use one of {sorted(_BY_NAME)}, or an Optimizer object.")

"""Every exercise's check: the solution passes in any reasonable form, and typical wrong answers get the sentence
that says why they are wrong. The check never raises and never prints a traceback."""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minitape as mt

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))

from lesson_tools import check, exercise_keys, run_solution, verdict  # noqa: E402
from lesson_tools.checking import RUN_SOLUTIONS  # noqa: E402

Case = tuple[Any, dict[str, Any]]  # an answer and the evidence passed with it (tape=, target=, sources=, x=)


# ---- the lessons' solutions, each returning (answer, evidence) ------------------------------------------
def solution_0_1() -> Case:
    x = mt.Variable(2.0)
    with mt.GradientTape() as tape:
        y = x**2 + 3 * x
    return tape.gradient(y, x), {"tape": tape, "target": y, "sources": x}


def gradient_1_2(variables: bool = True) -> Case:
    x, y = (mt.Variable(1.0), mt.Variable(2.0)) if variables else (mt.constant(1.0), mt.constant(2.0))
    with mt.GradientTape() as tape:
        g = x**2 * y + mt.sin(x)
    return tape.gradient(g, [x, y]), {"tape": tape, "target": g, "sources": [x, y]}


def gradient_3_1(watch: bool = True) -> Case:
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        if watch:
            tape.watch(x)
        y = x**3
    return tape.gradient(y, x), {"tape": tape, "target": y, "sources": x}


def gradient_3_2(watch_b: bool = True, only_b: bool = True) -> Case:
    a, b = mt.Variable(4.0), mt.Variable(5.0)
    with mt.GradientTape(watch_accessed_variables=not only_b) as tape:
        if watch_b:
            tape.watch(b)
        f = a * b
    return tuple(tape.gradient(f, [a, b])), {"tape": tape, "target": f, "sources": [a, b]}


def gradient_3_3(inside: bool = True) -> Case:
    params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}
    x = mt.constant([3.0, 1.0])
    with mt.GradientTape() as tape:
        if inside:
            loss = (mt.reduce_sum(params["w"] * x) + params["b"] - 1.0) ** 2
    if not inside:
        loss = (mt.reduce_sum(params["w"] * x) + params["b"] - 1.0) ** 2
    return tape.gradient(loss, params), {"tape": tape, "target": loss, "sources": params}


def gradient_4_1(watch: bool = True) -> Case:
    x = mt.constant(1.0)
    with mt.GradientTape(persistent=True) as tape:
        if watch:
            tape.watch(x)
        u = mt.sin(x)
        v = u**2
    return [tape.gradient(v, x), tape.gradient(u, x)], {"tape": tape, "target": v, "sources": x}


def solution_4_2() -> Case:
    x = mt.constant(np.zeros(1000))
    with mt.GradientTape() as tape:
        tape.watch(x)
        mt.tanh(mt.tanh(mt.tanh(x)))
    return tape.stats().saved_tensors, {}


def gradient_5_1(inner_gradient_inside: bool = True) -> Case:
    x = mt.Variable(1.0)
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            y = x * mt.sin(x)
        if inner_gradient_inside:
            dy_dx = inner.gradient(y, x)
    if not inner_gradient_inside:
        dy_dx = inner.gradient(y, x)
    return outer.gradient(dy_dx, x), {"tape": outer, "target": dy_dx, "sources": x}


def gradient_5_2(outer_watch: bool = True) -> Case:
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as outer:
        if outer_watch:
            outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            g = x[0] ** 3 + x[0] * x[1] ** 2
        grad = inner.gradient(g, x)
    return outer.jacobian(grad, x), {"tape": outer, "target": grad, "sources": x}


def loop_6_1(in_place: bool = True, watch_tensor: bool = False) -> Case:
    x = mt.Variable(2.0, name="x")
    answer = []
    for _ in range(2):
        with mt.GradientTape() as tape:
            if watch_tensor:
                tape.watch(x)
            y = x * x
        answer.append(tape.gradient(y, x))
        if in_place:
            x.assign_add(1.0)
        else:
            x = x + 1.0
    return answer, {"x": x}


def gradient_6_2(zero: bool = True) -> Case:
    w, extra = mt.Variable(1.0), mt.Variable([0.5, 0.5])
    with mt.GradientTape() as tape:
        y = w * 3.0
    return tape.gradient(y, [w, extra], unconnected_gradients="zero" if zero else "none"), {}


def explanation_6_3() -> Any:
    scale = mt.Variable(2.0, name="scale")
    values = mt.constant([3.0, 4.0])
    with mt.GradientTape() as tape:
        norm = mt.sqrt(mt.reduce_sum(values * values))
        y = mt.reduce_sum(values / mt.stop_gradient(norm * scale))
    return tape.explain(y, scale)


def f_7_1(x: Any) -> Any:
    return x * mt.stop_gradient(x * x)


@mt.custom_gradient
def clip_7_2(x: Any) -> Any:
    def grad(upstream: Any) -> Any:
        return mt.clip_by_value(upstream, -1.0, 1.0)

    return mt.identity(x), grad


def sqrt_nan_7_3() -> str:
    z = mt.constant(0.0)
    with pytest.raises(mt.errors.InvalidArgumentError) as error:
        with mt.debugging.check_numerics_scope():
            with mt.GradientTape() as tape:
                tape.watch(z)
                y = mt.sqrt(z) * 0.0
            tape.gradient(y, z)
    assert "Sqrt" in str(error.value)
    return "Sqrt"


def solution_8_1() -> Case:
    layer = mt.keras.layers.Dense(3)
    layer(np.zeros((1, 4), dtype="float32"))
    return (len(layer.trainable_variables), sum(int(np.prod(v.shape)) for v in layer.trainable_variables)), {}


def make_sgd_step(
    returns: Callable[[Any], Any] = lambda loss: loss, sign: float = -1.0, reduce=mt.reduce_mean, loss_inside=True
) -> Callable:
    """The solution, or a slip: the step added (sign=1), the sum of the errors, the loss computed after the tape."""

    def sgd_step(model: Any, x: Any, y: Any, learning_rate: float) -> Any:
        with mt.GradientTape() as tape:
            if loss_inside:
                loss = reduce(mt.square(model(x) - y))
        if not loss_inside:
            loss = reduce(mt.square(model(x) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        for variable, gradient in zip(model.trainable_variables, gradients):
            variable.assign_add(sign * learning_rate * gradient)
        return returns(loss)

    return sgd_step


def jvp_9_1(inside: bool = True) -> Case:
    x = mt.constant([0.5, 1.0, 1.5])
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, -1.0, 2.0])) as acc:
        if inside:
            h = mt.reduce_sum(x**2 * mt.cos(x))
    if not inside:
        h = mt.reduce_sum(x**2 * mt.cos(x))
    return acc.jvp(h), {}


def vjp_9_2(watch: bool = True, weights: bool = True) -> Case:
    x = mt.constant([2.0, 3.0])
    with mt.GradientTape() as tape:
        if watch:
            tape.watch(x)
        y = mt.stack([x[0] * x[1], mt.sin(x[0])])
    weights_ = mt.constant([2.0, -1.0]) if weights else None
    return tape.gradient(y, x, output_gradients=weights_), {"tape": tape, "target": y, "sources": x}


def hvp_9_3() -> Case:
    x = mt.constant([1.0, 0.0])
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, 2.0])) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            f = x[0] ** 2 * x[1] + mt.exp(x[1])
        g = tape.gradient(f, x)
    return acc.jvp(g), {"tape": tape, "target": f, "sources": x}


def hvp_9_3_g_outside() -> Case:
    """The tape inside the accumulator, but g = tape.gradient(f, x) after the accumulator's block."""
    x = mt.constant([1.0, 0.0])
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, 2.0])) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            f = x[0] ** 2 * x[1] + mt.exp(x[1])
    g = tape.gradient(f, x)
    return acc.jvp(g), {"tape": tape, "target": f, "sources": x}


def hvp_9_3_nested_the_wrong_way() -> Case:
    """The accumulator inside the tape: g is computed after the accumulator's block."""
    x = mt.constant([1.0, 0.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, 2.0])) as acc:
            f = x[0] ** 2 * x[1] + mt.exp(x[1])
    g = tape.gradient(f, x)
    return acc.jvp(g), {"tape": tape, "target": f, "sources": x}


def unwatched_9_3() -> Case:
    x = mt.constant([1.0, 0.0])
    with mt.GradientTape() as tape:
        f = x[0] ** 2 * x[1] + mt.exp(x[1])
    return None, {"tape": tape, "target": f, "sources": x}


# lesson 10 (backpropagation through time): the RNN of its section 1, h_t = tanh(x_t W + h_{t-1} U + b)
def rnn_step_10(x_t: Any, h: Any, W: Any, U: Any, b: Any) -> Any:
    return mt.tanh(x_t @ W + h @ U + b)


def lesson_rnn_10() -> tuple:
    """xs, W, U, b, h0 and the target, drawn as the lesson draws them."""
    rng = np.random.default_rng(10)
    xs = mt.constant(rng.normal(size=(12, 1, 2)), dtype=mt.float32)
    W = mt.Variable(rng.normal(0.0, 0.5, (2, 3)), dtype=mt.float32, name="W")
    U = mt.Variable(rng.normal(0.0, 0.5, (3, 3)), dtype=mt.float32, name="U")
    b = mt.Variable(mt.zeros(3), name="b")
    return xs, W, U, b, mt.zeros((1, 3)), mt.constant([[0.5, -0.5, 0.25]])


def per_step(h_prev: Any, h: Any, g: Any, g_last: Any) -> Any:
    """Step t's contribution to dL/dU: h_{t-1}ᵀ δ_t, with δ_t = dL/dh_t * (1 - h_t²)."""
    return mt.transpose(h_prev) @ (g * (1 - h * h))


def contributions_10_1(rule: Callable = per_step) -> Case:
    """The per-step contributions from dL/dh_t, each computed by `rule(h_{t-1}, h_t, dL/dh_t, dL/dh_T)`."""
    xs, W, U, b, h0, target = lesson_rnn_10()
    with mt.GradientTape(persistent=True) as tape:
        h, states = h0, []
        for x_t in xs:
            h = rnn_step_10(x_t, h, W, U, b)
            states.append(h)
        loss = mt.reduce_sum((h - target) ** 2)
    dL_dh = tape.gradient(loss, states)
    previous = [h0, *states[:-1]]
    return [rule(h_prev, h, g, dL_dh[-1]) for h_prev, h, g in zip(previous, states, dL_dh)], {}


def copies_10_1() -> list:
    """The contributions the way section 3 gets them: the gradient of each step's own copy of U."""
    xs, W, U, b, h0, target = lesson_rnn_10()
    with mt.GradientTape() as tape:
        h, copies = h0, []
        for x_t in xs:
            copies.append(mt.identity(U))
            h = rnn_step_10(x_t, h, W, copies[-1], b)
        loss = mt.reduce_sum((h - target) ** 2)
    return tape.gradient(loss, copies)


def total_10_1() -> Any:
    xs, W, U, b, h0, target = lesson_rnn_10()
    with mt.GradientTape() as tape:
        h = h0
        for x_t in xs:
            h = rnn_step_10(x_t, h, W, U, b)
        loss = mt.reduce_sum((h - target) ** 2)
    return tape.gradient(loss, U)


def truncated_10_2(
    cut: Callable[[int, int, int], bool] = lambda t, k, steps: t % k == 0 and t < steps,
    keep: Callable[[Any], Any] = mt.stop_gradient,
) -> Callable:
    """truncated_rnn, cutting after step t (counting from 1) when `cut(t, k, T)`; a slip replaces `keep`."""

    def truncated_rnn(xs: Any, h0: Any, W: Any, U: Any, b: Any, k: int) -> Any:
        h = h0
        for t, x_t in enumerate(xs, start=1):
            h = rnn_step_10(x_t, h, W, U, b)
            if cut(t, k, len(xs)):
                h = keep(h)
        return h

    return truncated_rnn


def truncated_before_the_step_10_2(xs: Any, h0: Any, W: Any, U: Any, b: Any, k: int) -> Any:
    """Also right: cut before the steps t = 0, k, 2k, ... (counting from 0): h_0 is a constant anyway."""
    h = h0
    for t in range(len(xs)):
        if t % k == 0:
            h = mt.stop_gradient(h)
        h = rnn_step_10(xs[t], h, W, U, b)
    return h


def unassigned_stop_10_2(xs: Any, h0: Any, W: Any, U: Any, b: Any, k: int) -> Any:
    h = h0
    for t, x_t in enumerate(xs, start=1):
        h = rnn_step_10(x_t, h, W, U, b)
        if t % k == 0 and t < len(xs):
            mt.stop_gradient(h)  # the cut tensor is dropped: h still carries the gradient
    return h


def lesson_weights_10_2(xs: Any, h0: Any, W: Any, U: Any, b: Any, k: int) -> Any:
    """Runs on the lesson's own W, U, b (globals) instead of those it is given."""
    _, W_lesson, U_lesson, b_lesson, _, _ = lesson_rnn_10()
    return truncated_10_2()(xs, h0, W_lesson, U_lesson, b_lesson, k)


def state_gradient_ratio_10_3(U: Any, xs: Any) -> float:
    """Section 4's state_gradient_norms (W_long, b_long drawn as the lesson draws them): norms[0] / norms[-1]."""
    rng = np.random.default_rng(4)
    np.linalg.qr(rng.normal(size=(8, 8)))
    W_long = mt.Variable(rng.normal(0.0, 0.5, (2, 8)), dtype=mt.float32, name="W")
    b_long = mt.Variable(mt.zeros(8), name="b")
    h0 = mt.zeros((1, 8))
    with mt.GradientTape() as tape:
        tape.watch(h0)
        h, states = h0, []
        for x_t in xs:
            h = rnn_step_10(x_t, h, W_long, U, b_long)
            states.append(h)
        loss = mt.reduce_sum(h)
    norms = [float(mt.norm(g)) for g in tape.gradient(loss, [h0, *states])]
    return norms[0] / norms[-1]


def xs_long_10_3() -> Any:
    rng = np.random.default_rng(4)
    rng.normal(size=(8, 8))
    rng.normal(0.0, 0.5, (2, 8))
    return mt.constant(rng.normal(size=(30, 1, 2)), dtype=mt.float32)


U_TEST = np.full((8, 8), 0.15, dtype=np.float32)
RHO_10_3 = float(np.max(np.abs(np.linalg.eigvals(U_TEST))))


def spectral_10_3() -> Case:
    U_test = mt.constant(U_TEST)
    radius = mt.constant(np.max(np.abs(np.linalg.eigvals(U_test.numpy()))))
    ratio = mt.constant(state_gradient_ratio_10_3(U_test, mt.zeros((30, 1, 2))))
    return (radius, ratio), {}


# lesson 02 (autodiff by hand) computes with plain Python floats, not a tape: no tape evidence to pass
Z = 0.6 * -1.5 + 0.2  # the neuron of 2.1: y = tanh(w x + b) at x = -1.5, w = 0.6, b = 0.2
DY_DZ = 1 - math.tanh(Z) ** 2


def pencil_2_1() -> Case:
    return [mt.constant(DY_DZ * -1.5), mt.constant(DY_DZ)], {}


def division_rule_2_2(number: Callable[[float], Any] = float, sign: float = -1.0) -> Callable:
    """RULES["div"] as the lesson's tape wants it: (a / b, (d/da, d/db)), each number made by `number`."""
    return lambda a, b: (number(a / b), (number(1 / b), number(sign * a / b**2)))


class Dual:
    """The lesson's Dual, without division; the classes below add the student's __truediv__."""

    def __init__(self, value: Any, tangent: Any = 0.0) -> None:
        self.value, self.tangent = value, tangent


def dual_class_2_3(tangent_rule: Callable, number: Callable[[float], Any] = float) -> type:
    """A Dual subclass whose division takes its tangent from `tangent_rule(a, da, b, db)`."""

    class DualWithDivision(Dual):
        def __truediv__(self, other: Dual) -> Dual:
            a, da, b, db = (float(v) for v in (self.value, self.tangent, other.value, other.tangent))
            return DualWithDivision(number(a / b), number(tangent_rule(a, da, b, db)))

    return DualWithDivision


def quotient_rule(a: float, da: float, b: float, db: float) -> float:
    return (da * b - a * db) / b**2


class TemplateDual(Dual):
    def __truediv__(self, other: Dual) -> Any: ...


class DualWithoutReturn(Dual):
    def __truediv__(self, other: Dual) -> Any:
        DualWithoutReturn(self.value / other.value, quotient_rule(self.value, self.tangent, other.value, other.tangent))


def rule_without_return_2_2(a: float, b: float) -> Any:
    (a / b, (1 / b, -a / b**2))  # computed, then dropped: no return


def returning(form: Callable[[Any], Any], fn: Callable) -> Callable:
    """The same finite-difference function, returning its array in another form."""
    return lambda f, w, h: form(fn(f, w, h))


def forward_difference(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    base, grad = f(w), np.empty(len(w))
    for i in range(len(w)):
        nudged = np.array(w, dtype=float)
        nudged[i] += h
        grad[i] = (f(nudged) - base) / h
    return grad


def central_difference(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    grad = np.empty(len(w))
    for i in range(len(w)):
        up, down = np.array(w, dtype=float), np.array(w, dtype=float)
        up[i] += h
        down[i] -= h
        grad[i] = (f(up) - f(down)) / (2 * h)
    return grad


def forward_difference_in_place(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    base, grad = f(w), np.empty(len(w))
    for i in range(len(w)):
        w[i] += h  # the classic slip: no copy
        grad[i] = (f(w) - base) / h
    return grad


def undivided(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    """forward_difference without the division by h."""
    return forward_difference(f, w, h) * h


def no_return(f: Callable, w: np.ndarray, h: float) -> None:
    forward_difference(f, w, h)


def template(*args: Any) -> Any: ...


@mt.custom_gradient
def template_7_2(x: Any) -> Any: ...


@mt.custom_gradient
def unclipped_7_2(x: Any) -> Any:
    return mt.identity(x), lambda upstream: upstream


@mt.custom_gradient
def clips_x_7_2(x: Any) -> Any:
    return mt.identity(x), lambda upstream: mt.clip_by_value(x, -1.0, 1.0)


@mt.custom_gradient
def constant_7_2(x: Any) -> Any:
    return mt.identity(x), lambda upstream: mt.constant(1.0)


@mt.custom_gradient
def halves_7_2(x: Any) -> Any:
    return mt.identity(x), lambda upstream: upstream / 2.0


def undecorated_7_2(x: Any) -> Any:  # @mt.custom_gradient forgotten
    return mt.identity(x), lambda upstream: mt.clip_by_value(upstream, -1.0, 1.0)


@mt.custom_gradient
def returns_nothing_7_2(x: Any) -> Any:
    mt.identity(x)  # computes, but forgets to return (value, grad)


def with_optimizer(model: Any, x: Any, y: Any, learning_rate: float) -> Any:
    optimizer = mt.keras.optimizers.SGD(learning_rate)
    with mt.GradientTape() as tape:
        loss = mt.reduce_mean(mt.square(model(x) - y))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


def no_update(model: Any, x: Any, y: Any, learning_rate: float) -> Any:
    with mt.GradientTape() as tape:
        loss = mt.reduce_mean(mt.square(model(x) - y))
    tape.gradient(loss, model.trainable_variables)
    return loss


# ---- answer forms ---------------------------------------------------------------------------------------
def as_numpy(answer: Any) -> Any:
    """Every tensor in the answer replaced by its numpy value (an array, or a numpy scalar)."""
    if isinstance(answer, dict):
        return {k: as_numpy(v) for k, v in answer.items()}
    if isinstance(answer, (list, tuple)):
        return type(answer)(as_numpy(v) for v in answer)
    return answer.numpy() if hasattr(answer, "numpy") else answer


def as_float(answer: Any) -> Any:
    """Every tensor in the answer replaced by Python floats (a float, or nested lists of floats)."""
    if isinstance(answer, dict):
        return {k: as_float(v) for k, v in answer.items()}
    if isinstance(answer, (list, tuple)):
        return type(answer)(as_float(v) for v in answer)
    if answer is None:
        return None
    return np.asarray(as_numpy(answer), dtype=float).tolist()


# key -> a function giving the right answers: (form name, answer, evidence)
SOLUTIONS: dict[str, Callable[[], list[tuple[str, Any, dict]]]] = {}


def forms(key: str) -> Callable:
    """Register a solution: the tensor answer it returns is also tried as numpy and as floats."""

    def register(solve: Callable[[], Case]) -> Callable:
        def cases() -> list[tuple[str, Any, dict]]:
            answer, evidence = solve()
            return [
                ("tensor", answer, evidence),
                ("numpy", as_numpy(answer), evidence),
                ("float", as_float(answer), evidence),  # the tape vouches that the number was computed
            ]

        SOLUTIONS[key] = cases
        return solve

    return register


forms("0.1")(solution_0_1)
forms("1.2")(gradient_1_2)
forms("3.1")(gradient_3_1)
forms("3.2")(gradient_3_2)
forms("3.3")(gradient_3_3)
forms("4.1")(gradient_4_1)
forms("5.1")(gradient_5_1)
forms("5.2")(gradient_5_2)
forms("6.2")(gradient_6_2)
forms("9.1")(jvp_9_1)
forms("9.2")(vjp_9_2)
forms("9.3")(hvp_9_3)
forms("10.1")(contributions_10_1)
forms("10.3")(spectral_10_3)
SOLUTIONS["1.1"] = lambda: [
    ("numpy", forward_difference, {}),
    ("tensor", returning(mt.constant, forward_difference), {}),
    ("float", returning(lambda a: a.tolist(), forward_difference), {}),
]
forms("2.1")(pencil_2_1)
SOLUTIONS["2.1 as one array"] = lambda: [("numpy array", np.array([DY_DZ * -1.5, DY_DZ]), {})]
SOLUTIONS["2.1 by pencil, five digits"] = lambda: [("floats", [-0.95211, 0.63474], {})]
SOLUTIONS["2.1 by pencil, three digits"] = lambda: [("floats", [-0.952, 0.635], {}), ("two", [-0.95, 0.635], {})]
SOLUTIONS["2.2"] = lambda: [
    ("float", division_rule_2_2(), {}),
    ("numpy", division_rule_2_2(np.float64), {}),
    ("tensor", division_rule_2_2(mt.constant), {}),
    ("one array of derivatives", lambda a, b: (a / b, np.array([1 / b, -a / b**2])), {}),
]
SOLUTIONS["2.3"] = lambda: [
    ("float", dual_class_2_3(quotient_rule), {}),
    ("numpy", dual_class_2_3(quotient_rule, np.float64), {}),
    ("tensor", dual_class_2_3(quotient_rule, mt.constant), {}),
]
SOLUTIONS["1.3"] = lambda: [
    ("numpy", central_difference, {}),
    ("tensor", returning(lambda a: mt.constant(a, dtype=mt.float64), central_difference), {}),
    ("float", returning(lambda a: a.tolist(), central_difference), {}),
]
SOLUTIONS["1.2 as one array"] = lambda: [("numpy array", np.array(as_numpy(gradient_1_2()[0])), gradient_1_2()[1])]
SOLUTIONS["3.1 as scalars"] = lambda: [
    ("numpy float32 scalar", np.float32(12.0), gradient_3_1()[1]),
    ("numpy float64 scalar", np.float64(12.0), gradient_3_1()[1]),
    ("0-d array", np.array(12.0), gradient_3_1()[1]),
    ("int", 12, gradient_3_1()[1]),
]
SOLUTIONS["4.2"] = lambda: [
    ("int", solution_4_2()[0], {}),
    ("tensor", mt.constant(3.0), {}),
    ("numpy", np.int64(3), {}),
    ("float", 3.0, {}),
]
SOLUTIONS["5.3"] = lambda: [("letter", "B", {}), ("lower case", "b", {}), ("spaces", " B ", {})]
SOLUTIONS["6.1"] = lambda: [
    (form, convert(loop_6_1()[0]), {"x": loop_6_1()[1]["x"]}) for form, convert in FORMS.items()
]
SOLUTIONS["6.3"] = lambda: [
    ("kind", explanation_6_3().reasons[0].kind, {}),
    ("reason", explanation_6_3().reasons[0], {}),
]
SOLUTIONS["7.1"] = lambda: [("function", f_7_1, {})]
SOLUTIONS["7.2"] = lambda: [("function", clip_7_2, {})]
SOLUTIONS["7.3"] = lambda: [("name", sqrt_nan_7_3(), {}), ("lower case", "sqrt", {})]
SOLUTIONS["8.1"] = lambda: [
    ("ints", solution_8_1()[0], {}),
    ("tensor", (mt.constant(2), mt.constant(15)), {}),
    ("numpy", np.array([2, 15]), {}),
    ("float", (2.0, 15.0), {}),
]
SOLUTIONS["8.2"] = lambda: [
    ("tensor", make_sgd_step(), {}),
    ("numpy", make_sgd_step(lambda loss: loss.numpy()), {}),
    ("float", make_sgd_step(float), {}),
]
SOLUTIONS["10.1 as one array"] = lambda: [("numpy (12, 3, 3)", np.stack(as_numpy(contributions_10_1()[0])), {})]
SOLUTIONS["10.1 from copies of U"] = lambda: [("tensors", copies_10_1(), {})]
SOLUTIONS["10.2"] = lambda: [
    ("function", truncated_10_2(), {}),
    ("cut before the step, counting from 0", truncated_before_the_step_10_2, {}),
]
FORMS = {"tensor": lambda a: a, "numpy": as_numpy, "float": as_float}


@pytest.fixture(autouse=True)
def _fresh_keras() -> None:
    mt.keras.backend.clear_session()


@pytest.mark.parametrize("key", sorted(SOLUTIONS))
def test_the_solution_passes_in_every_form(key: str) -> None:
    exercise = key.split()[0]
    cases = SOLUTIONS[key]()
    said = [(form, verdict(exercise, answer, **evidence)) for form, answer, evidence in cases]
    failures = [(form, text) for form, text in said if not text.startswith(f"Exercise {exercise}: correct!")]
    assert not failures, failures


def test_every_exercise_has_solutions_and_wrong_answers() -> None:
    keys = {k for k in exercise_keys() if not k.startswith("11.")}  # lesson 11's: test_lesson11_checks.py
    assert keys == {k.split()[0] for k in SOLUTIONS}
    for key in keys:
        wrong = [case for case in WRONG if case[0] == key]
        kinds = {type(case[1]) for case in wrong}
        assert len(wrong) >= 3, f"{key}: only {len(wrong)} wrong answers tested"
        assert str in kinds and any(case[1] is None for case in wrong), f"{key}: test a string and None"


# (key, wrong answer, evidence, words the message must contain): each a typical slip of a student
WRONG: list[tuple[str, Any, dict, str]] = [
    ("0.1", "7", {}, "is the string '7': text in quotes, not a number"),
    ("0.1", None, {}, "Your code ran and produced None. Pass your tape along"),
    ("0.1", 8.0, {}, "is 8, which is not the right value"),
    ("0.1", 10.0, {}, "10 is the value of y"),
    ("0.1", 7.0001, {}, "close, but off by 1.0e-04"),
    ("1.1", template, {}, "the body of forward_difference is still `...`"),
    ("1.1", None, {}, "pass it without calling it"),
    ("1.1", "forward_difference", {}, "pass it without calling it"),
    ("1.1", forward_difference_in_place, {}, "changed the w it was given: copy w"),
    ("1.1", no_return, {}, "returned None: end it with `return`"),
    ("1.1", undivided, {}, "is [1.974561e-07, -1.438277e-07, 1.284025e-07]: about h times too small. Did you divide"),
    ("1.2", "[4.54, 1]", {}, "not the string '[4.54, 1]'"),
    ("1.2", None, {}, "answer should be a list of two gradients, [dg/dx, dg/dy], not None"),
    ("1.2", ["4.5403", "1"], {}, "dg/dx is the string '4.5403'"),
    ("1.2", [1.0, 4.5403023], {}, "in the wrong order"),
    ("1.2", [4.54, 1.0], {}, "close, but off by"),
    ("1.3", None, {}, "pass it without calling it"),
    ("1.3", "central_difference", {}, "pass it without calling it"),
    ("1.3", template, {}, "the body of central_difference is still `...`"),
    ("1.3", forward_difference, {}, "the size a one-sided (forward) difference has"),
    ("2.1", "[-1.1797, 0.78645]", {}, "answer should be a list of two numbers, [dy_dw, dy_db], not the string"),
    ("2.1", None, {}, "answer should be a list of two numbers, [dy_dw, dy_db], not None"),
    ("2.1", ["-1.1797", "0.78645"], {}, "dy_dw is the string '-1.1797': text in quotes"),
    ("2.1", DY_DZ, {}, "answer should be a list of two numbers, [dy_dw, dy_db], not a float"),
    ("2.1", [-1.5 * math.tanh(Z), math.tanh(Z)], {}, "dy_db is tanh(z), the neuron's output"),
    ("2.1", [-1.5, 1.0], {}, "dy_db is 1, which is dz/db alone"),
    ("2.1", [DY_DZ * 0.6, DY_DZ], {}, "that dy_dw is dy/dx (dy/dz times w)"),
    ("2.1", [DY_DZ * 1.5, DY_DZ], {}, "dy_dw has the wrong sign"),
    ("2.1", [DY_DZ, DY_DZ * -1.5], {}, "in the wrong order: the list is [dy_dw, dy_db]"),
    ("2.1", [-0.93, 0.635], {}, "dy_dw is -0.93: close, but off by more than rounding to 3 digits"),
    ("2.1", [-0.95211, 0.62], {}, "dy_db is 0.62: close, but off by more than rounding to 3 digits"),
    ("2.1", [-0.95211, 0.5], {}, "dy_db is 0.5; it equals dy/dz, since dz/db = 1"),
    ("2.2", "lambda a, b: a / b", {}, 'RULES["div"] should be a function of the two values a and b (a lambda), not'),
    ("2.2", None, {}, 'RULES["div"] should be a function of the two values a and b (a lambda), not None'),
    ("2.2", 0.5, {}, "not a float"),
    ("2.2", lambda a, b: ..., {}, 'the body of RULES["div"] is still `...`'),
    ("2.2", division_rule_2_2(sign=1.0), {}, "d(a/b)/db has the wrong sign"),
    ("2.2", lambda a, b: (a / b, (b, -a / b**2)), {}, "d(a/b)/da is 3; it should be 1/b = 0.333333"),
    (
        "2.2",
        lambda a, b: (a / b, (1 / b, -1 / b**2)),
        {},
        "d(a/b)/db is -1/b², the derivative of 1/b: the factor a is missing",
    ),
    ("2.2", lambda a, b: a / b, {}, 'RULES["div"](6, 3) returned a float; the rule returns a pair'),
    ("2.2", rule_without_return_2_2, {}, 'RULES["div"](6, 3) returned None'),
    ("2.2", lambda a: (a, (1, 1)), {}, 'calling RULES["div"](6, 3) raised TypeError'),
    ("2.3", "DualWithDivision", {}, "pass the class DualWithDivision itself"),
    ("2.3", None, {}, 'check("2.3", DualWithDivision), not None'),
    ("2.3", Dual(1.0, 1.0), {}, "not a Dual"),
    ("2.3", TemplateDual, {}, "the body of __truediv__ is still `...`"),
    ("2.3", Dual, {}, "Dual has no __truediv__"),
    ("2.3", dual_class_2_3(lambda a, da, b, db: (da * b + a * db) / b**2), {}, "a + where the quotient rule has a -"),
    ("2.3", dual_class_2_3(lambda a, da, b, db: da * b - a * db), {}, "without the division by b²"),
    ("2.3", dual_class_2_3(lambda a, da, b, db: da / b), {}, "Dual(6.0, 1.0) / Dual(3.0, 2.0) has tangent 0.333333"),
    ("2.3", DualWithoutReturn, {}, "__truediv__ must end with `return DualWithoutReturn(value, tangent)`"),
    ("2.3", type("Plain", (Dual,), {"__truediv__": lambda self, other: 2.0}), {}, "is a float, which has no .value"),
    ("3.1", "12", {}, "the string '12': text in quotes, not a number"),
    ("3.1", None, {}, "Pass your tape along"),
    ("3.1", Ellipsis, {}, "is still `...`: nothing is written yet"),
    ("3.1", 8.0, {}, "8 is x³ itself"),
    ("3.1", 12.001, {}, "close, but off by 1.0e-03"),
    ("3.1", mt.Variable(12.0), {}, "is a mt.Variable, a source itself"),
    ("3.1", [12.0], {}, "your gradient has shape (1,), but it should have shape ()"),
    ("3.2", "(None, 4)", {}, "answer should be a pair (df_da, df_db), not the string"),
    ("3.2", None, {}, "not None"),
    ("3.2", (5.0, 4.0), {}, "df_da is 5, but it should be None"),
    ("3.2", (None, 5.0), {}, "df_db is 5, the value of b: the derivative of f = a·b along b is a = 4"),
    ("3.3", "{'w': [3, 1], 'b': 1}", {}, "should be a dict with the keys 'w' and 'b'"),
    ("3.3", None, {}, "should be a dict with the keys 'w' and 'b', like params, not None"),
    ("3.3", [[3.0, 1.0], 1.0], {}, "pass params itself as the sources"),
    ("3.3", {"w": [3.0, 1.0], "b": "1"}, {}, "the gradient for 'b' is the string '1'"),
    (
        "3.3",
        {"w": [1.5, 0.5], "b": 0.5},
        {},
        "the gradient for 'w' is [1.5, 0.5], half the right value: a factor 2 is missing",
    ),
    ("4.1", "[0.9093, 0.5403]", {}, "a list of two gradients, [dv_dx, du_dx], not the string"),
    ("4.1", None, {}, "not None"),
    ("4.1", [np.cos(1.0), np.sin(2.0)], {}, "in the wrong order"),
    ("4.1", [0.9093, 0.5403], {}, "close, but off by"),
    ("4.2", "3", {}, "the string '3': text in quotes"),
    ("4.2", None, {}, "put a whole number in it"),
    ("4.2", 5, {}, "the tape keeps fewer than 5 tensor(s)"),
    ("4.2", 3.5, {}, "Tensors come whole"),
    ("5.1", "0.2391", {}, "the string '0.2391'"),
    ("5.1", None, {}, "Pass your tape along"),
    ("5.1", np.sin(1.0) + np.cos(1.0), {}, "that is the first derivative"),
    ("5.1", 0.2391, {}, "close, but off by"),
    ("5.2", "[[6, 4], [4, 2]]", {}, "the string '[[6, 4], [4, 2]]'"),
    ("5.2", None, {}, "Pass your tape along"),
    ("5.2", [3.0 + 4.0, 4.0], {}, "your answer is the gradient of g, shape (2,)"),
    ("5.2", [6.0 + 4.0, 4.0 + 2.0], {}, "the Hessian's two rows added up: that is what outer.gradient gives"),
    ("5.2", [1.0, 1.0], {}, "your answer has shape (2,), a vector; the Hessian is a matrix"),
    ("5.2", [[6.0, 4.0], [4.0, 3.0]], {}, "which is not the right value"),
    ("5.3", None, {}, "answer with a letter in quotes"),
    ("5.3", "C", {}, "place C is where the line is now, after both blocks: the outer tape has stopped recording"),
    ("5.3", "A", {}, "in place A the second derivative works, but the inner tape then records its own backward ops"),
    ("5.3", "D", {}, "one letter, 'A', 'B' or 'C'"),
    ("5.3", 3, {}, "answer with a letter in quotes"),
    ("6.1", "[4, 6]", {}, "not the string '[4, 6]'"),
    ("6.1", None, {}, "not None"),
    ("6.1", [4.0, 6.0], {}, 'pass x too, so the check can see what your loop made of it: check("6.1", answer, x=x)'),
    ("6.2", "[3, [0, 0]]", {}, "not the string"),
    ("6.2", None, {}, "not None"),
    ("6.2", [3.0, None], {}, "dy/dextra is still None (y does not use extra)"),
    ("6.2", [3.0, 0.0], {}, "dy/dextra has shape (), but it should have shape (2,)"),
    ("6.3", "no_path", {}, "'no_path' is not what explain() says for scale"),
    ("6.3", explanation_6_3(), {}, "answer is the whole explanation"),
    ("6.3", None, {}, "answer should be a string like 'no_path', not None"),
    ("6.3", 0, {}, "answer should be a string like 'no_path', not an int"),
    ("7.1", "x * x * x", {}, "pass it without calling it"),
    ("7.1", None, {}, "pass it without calling it"),
    ("7.1", template, {}, "the body of f is still `...`"),
    ("7.1", lambda x: x**3, {}, "the gradient at x = 2 is 12 = 3x²: nothing was stopped"),
    ("7.1", lambda x: mt.stop_gradient(x**3), {}, "the gradient of f is None: all three factors"),
    ("7.1", lambda x: x.numpy() ** 3, {}, "f(x) returned a float32: return a tensor"),
    ("7.2", "clip", {}, "pass it without calling it"),
    ("7.2", None, {}, "pass it without calling it"),
    ("7.2", template_7_2, {}, "the body of clip_gradient is still `...`"),
    ("7.2", unclipped_7_2, {}, "the gradient is the upstream gradient unchanged: it was not clipped to [-1, 1]"),
    ("7.2", clips_x_7_2, {}, "your grad clips x, the function's input"),
    ("7.2", constant_7_2, {}, "the gradient is 1 whatever the upstream gradient is"),
    ("7.2", halves_7_2, {}, "the gradient of 5 * clip_gradient(x) at x = 3 is 2.5, not the upstream 5 clipped"),
    ("7.2", undecorated_7_2, {}, "without @mt.custom_gradient on the line above `def clip_gradient`"),
    ("7.2", returns_nothing_7_2, {}, "must return two things, the value and the grad function"),
    ("7.3", None, {}, 'an op\'s name as a string, like "Mul", not None'),
    ("7.3", "RealDiv", {}, "RealDiv is the op that computed the NaN"),
    ("7.3", "Exp", {}, "'Exp' is not the op named after 'in the backward pass of'"),
    ("8.1", "(2, 15)", {}, "not the string '(2, 15)'"),
    ("8.1", None, {}, "not None"),
    ("8.1", ("2", "15"), {}, "the number of variables is the string '2'"),
    ("8.1", (2, 12), {}, "12 numbers is the kernel alone: every trainable variable counts."),
    ("8.1", (2, 9), {}, "9 numbers? Add up the sizes of all the layer's trainable variables."),
    ("8.1", (1, 15), {}, "1 variable(s)? Look at layer.trainable_variables."),
    ("8.2", "sgd_step", {}, "pass it without calling it"),
    ("8.2", None, {}, "pass it without calling it"),
    ("8.2", template, {}, "the body of sgd_step is still `...`"),
    ("8.2", with_optimizer, {}, "sgd_step uses SGD, apply_gradients, optimizers: the exercise asks for the update by"),
    ("8.2", make_sgd_step(lambda loss: None), {}, "sgd_step returned None: return the loss."),
    ("8.2", no_update, {}, "after 3 steps the weights have not changed"),
    ("8.2", make_sgd_step(sign=1.0), {}, "the weights moved up the gradient, so the loss grows: subtract"),
    ("8.2", make_sgd_step(reduce=mt.reduce_sum), {}, "your steps follow the sum of the squared errors"),
    ("8.2", make_sgd_step(loss_inside=False), {}, "a gradient is None (so calling sgd_step(model, x, y, 0.05) raised"),
    ("9.1", "-3.546", {}, "the string '-3.546'"),
    ("9.1", None, {}, "acc.jvp(h) is None: the accumulator did not follow h back to x"),
    ("9.1", [1.0, 2.0, 3.0], {}, "your answer has 3 entries"),
    ("9.1", mt.constant([1.0, -1.0, 2.0]), {}, "your answer is u itself, the tangent you gave x: acc.jvp(x)"),
    ("9.1", -3.546, {}, "close, but off by"),
    ("9.2", "[6.4, 4]", {}, "the string '[6.4, 4]'"),
    ("9.2", None, {}, "Pass your tape along"),
    ("9.2", [3.0 + np.cos(2.0), 2.0], {}, "that is vᵀJ for v = (1, 1), the default"),
    ("9.3", "[4, 4]", {}, "the string '[4, 4]'"),
    ("9.3", None, {}, "acc.jvp(g) is None: g carries no tangent"),
    ("9.3", [0.0, 2.0], {}, "that is the gradient g"),
    ("9.3", [4.0, 3.0], {}, "which is not the right value"),
    ("10.1", "[[0, 0, 0], [0, 0, 0], [0, 0, 0]]", {}, "contributions is the string"),
    ("10.1", None, {}, "contributions is None"),
    ("10.1", total_10_1(), {}, "that is the whole gradient dL/dU, one matrix"),
    ("10.1", contributions_10_1()[0][1:], {}, "11 entries: one per step means 12, step 1's too"),
    ("10.1", contributions_10_1()[0][::-1], {}, "in reverse order: contributions[0] should be step 1's"),
    (
        "10.1",
        contributions_10_1(lambda hp, h, g, gT: mt.transpose(hp) @ g)[0],
        {},
        "the tanh's derivative is missing",
    ),
    (
        "10.1",
        contributions_10_1(lambda hp, h, g, gT: mt.transpose(hp) @ (g * (1 - mt.tanh(h) ** 2)))[0],
        {},
        "h_t is already tanh(a_t), so the derivative is 1 - h_t²",
    ),
    (
        "10.1",
        contributions_10_1(lambda hp, h, g, gT: mt.transpose(hp) @ (g * (1 - hp * hp)))[0],
        {},
        "you multiplied by 1 - h_{t-1}²",
    ),
    (
        "10.1",
        contributions_10_1(lambda hp, h, g, gT: mt.transpose(h) @ (g * (1 - h * h)))[0],
        {},
        "step t multiplies U by the state it received, the previous one",
    ),
    (
        "10.1",
        contributions_10_1(lambda hp, h, g, gT: mt.transpose(g * (1 - h * h)) @ hp)[0],
        {},
        "your contributions are transposed",
    ),
    (
        "10.1",
        contributions_10_1(lambda hp, h, g, gT: mt.transpose(hp) @ (gT * (1 - h * h)))[0],
        {},
        "you used dL/dh_T at every step",
    ),
    ("10.1", contributions_10_1(lambda hp, h, g, gT: g * (1 - h * h))[0], {}, "contributions[0] has shape (1, 3)"),
    ("10.1", [c * 1.001 for c in contributions_10_1()[0]], {}, "close, but off by"),
    ("10.2", "truncated_rnn", {}, "pass it without calling it"),
    ("10.2", None, {}, "pass it without calling it"),
    ("10.2", template, {}, "the body of truncated_rnn is still `...`"),
    ("10.2", truncated_10_2(lambda t, k, steps: False), {}, "with k = 4 all 12 steps contribute: nothing was cut"),
    ("10.2", unassigned_stop_10_2, {}, "Is the result of mt.stop_gradient assigned"),
    ("10.2", truncated_10_2(lambda t, k, steps: t < steps), {}, "only step 12 contributes: you cut after every step"),
    ("10.2", truncated_10_2(lambda t, k, steps: t % k == 0), {}, "with k = 4 no step gets any gradient"),
    (
        "10.2",
        truncated_10_2(keep=mt.zeros_like),
        {},
        "you reset the state to zeros at the cuts, so the network forgets",
    ),
    (
        "10.2",
        truncated_10_2(lambda t, k, steps: (t - 1) % k == 0),
        {},
        "with k = 4 the gradient reaches steps 10 to 12. Cutting after steps 4, 8, ... should leave steps 9 to 12",
    ),
    (
        "10.2",
        lambda xs, h0, W, U, b, k: truncated_10_2()(xs, h0, W, U, b, 4),
        {},
        "with k = 5 the gradient reaches steps 9 to 12",
    ),
    ("10.2", lesson_weights_10_2, {}, "Does truncated_rnn run rnn_step with the xs, h0, W, U and b it is given"),
    ("10.2", lambda xs, h0, W, U, b, k: [truncated_10_2()(xs, h0, W, U, b, k)], {}, "return only the last one"),
    ("10.2", lambda xs, h0, W, U, b, k: truncated_10_2()(xs, h0, W, U, b, k).numpy(), {}, "a numpy value has left"),
    ("10.3", "explodes", {}, "'explodes' is your prediction: keep it in mind"),
    ("10.3", "(1.2, 237.4)", {}, "answer should be a pair (radius, ratio), not the string"),
    ("10.3", None, {}, "answer should be a pair (radius, ratio), not None"),
    ("10.3", (0.15, RHO_10_3**30), {}, "radius is 0.15, the largest entry of U_test"),
    ("10.3", (np.linalg.eigvals(U_TEST), RHO_10_3**30), {}, "radius has 8 entries: the eigenvalues themselves"),
    ("10.3", (np.max(np.linalg.eigvals(U_TEST + 0j)), RHO_10_3**30), {}, "radius is a complex number"),
    ("10.3", (RHO_10_3, RHO_10_3**-30), {}, "your ratio is upside down"),
    ("10.3", (RHO_10_3, RHO_10_3**29), {}, "that is the growth over 29 steps"),
    ("10.3", (RHO_10_3, RHO_10_3**30 * np.sqrt(8)), {}, "that is ||dL/dh_0|| itself"),
    ("10.3", (RHO_10_3, RHO_10_3), {}, "that is the factor of one step"),
    (
        "10.3",
        (RHO_10_3, state_gradient_ratio_10_3(mt.constant(U_TEST), xs_long_10_3() * 1e-4)),
        {},
        "near, but not the measurement from rest",
    ),
    (
        "10.3",
        (RHO_10_3, state_gradient_ratio_10_3(mt.constant(U_TEST), xs_long_10_3())),
        {},
        "on your inputs the gradient vanished, so they were not zeros",
    ),
]

# Wrong answers that only the student's own tape (or x, in 5.1) can explain: (key, case builder, words expected)
FORGOT: list[tuple[str, Callable[[], Case], str]] = [
    ("0.1", lambda: _forgot_0_1(), "You forgot to watch x: "),
    ("1.2", lambda: gradient_1_2(variables=False), "You forgot to watch x: "),
    ("3.1", lambda: gradient_3_1(watch=False), "You forgot to watch x: "),
    ("3.2", lambda: gradient_3_2(watch_b=False), "You forgot to watch b: "),
    ("3.3", lambda: gradient_3_3(inside=False), "Your tape says, for w: the target was computed after"),
    ("4.1", lambda: gradient_4_1(watch=False), "You forgot to watch x: "),
    ("5.1", lambda: gradient_5_1(inner_gradient_inside=False), "computed after the with block ended"),
    ("5.2", lambda: gradient_5_2(outer_watch=False), "You forgot to watch x: "),
    ("6.1", lambda: loop_6_1(in_place=False), "after your loop x is a Tensor, no longer a mt.Variable"),
    ("6.1", lambda: loop_6_1(in_place=False, watch_tensor=True), "(watching it only hides that)"),
    ("6.2", lambda: gradient_6_2(zero=False), "ask for zeros with unconnected_gradients='zero'"),
    ("9.1", lambda: jvp_9_1(inside=False), "acc.jvp(h) is None"),
    ("9.2", lambda: vjp_9_2(watch=False), "You forgot to watch x: "),
    ("9.3", unwatched_9_3, "You forgot to watch x: "),
    ("9.3", hvp_9_3_g_outside, "acc.jvp(g) is None: g carries no tangent"),
    ("9.3", hvp_9_3_nested_the_wrong_way, "acc.jvp(g) is None: g carries no tangent"),
    ("0.1", lambda: _sign_error_0_1(), "Your y is -2, but x² + 3x at x = 2 is 10: check how y is computed."),
    ("3.1", lambda: (12.0, gradient_3_1(watch=False)[1]), "has the right value, but your tape gives no gradient"),
    ("3.2", lambda: ((None, 4.0), gradient_3_2(only_b=False)[1]), "your tape still watches a"),
    ("0.1", lambda: (7.0, _forgot_0_1()[1]), "You forgot to watch x: "),
]


def _sign_error_0_1() -> Case:
    x = mt.Variable(2.0)
    with mt.GradientTape() as tape:
        y = x**2 - 3 * x
    return tape.gradient(y, x), {"tape": tape, "target": y, "sources": x}


def _forgot_0_1() -> Case:
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        y = x**2 + 3 * x
    return tape.gradient(y, x), {"tape": tape, "target": y, "sources": x}


def says(said: str, words: str) -> bool:
    """`words` are in the message, with a capital when they open it (after "not yet.")."""
    return words in said or f"not yet. {words[0].upper()}{words[1:]}" in said


@pytest.mark.parametrize(("key", "answer", "evidence", "words"), WRONG, ids=[w[0] for w in WRONG])
def test_a_wrong_answer_gets_its_reason(key: str, answer: Any, evidence: dict, words: str) -> None:
    said = verdict(key, answer, **evidence)
    assert says(said, words), said
    assert said.startswith(f"Exercise {key}: not yet. ") and "\nHint: " in said, said


@pytest.mark.parametrize(("key", "build", "words"), FORGOT, ids=[w[0] for w in FORGOT])
def test_the_students_tape_explains_a_none_or_a_typed_answer(key: str, build: Callable[[], Case], words: str) -> None:
    answer, evidence = build()
    said = verdict(key, answer, **evidence)
    assert said.startswith(f"Exercise {key}: not yet. ") and says(said, words), said


@pytest.mark.parametrize("key", exercise_keys())
def test_not_written_is_told_apart_from_none(key: str) -> None:
    said = verdict(key, ...)
    assert "is still `...`: nothing is written yet" in said, said
    assert "nothing is written yet" not in verdict(key, None), key


ODD_ANSWERS = [None, ..., "", "abc", "1e3", True, 3, -2.5, float("nan"), [], [None, None], {"w": None}, object()]
ODD_ANSWERS += [np.array(["a", "b"]), np.zeros((7, 7)), lambda *args: None, lambda *args: 1 / 0, mt.constant([1, 2])]


@pytest.mark.parametrize("key", exercise_keys())
def test_never_a_traceback(key: str, capsys: pytest.CaptureFixture) -> None:
    for answer in ODD_ANSWERS:
        for evidence in ({}, {"tape": "tape", "target": 1, "sources": None}, {"nonsense": 1}):
            check(key, answer, **evidence)
    out = capsys.readouterr()
    assert "Traceback" not in out.out and not out.err
    assert out.out.startswith("Exercise")


def test_check_wraps_its_lines_between_words(capsys: pytest.CaptureFixture) -> None:
    """A browser would break a long line mid-word: check() folds it at about 90 characters, between words."""
    answer, evidence = _forgot_0_1()
    check("0.1", answer, **evidence)
    printed = capsys.readouterr().out
    said = verdict("0.1", answer, **evidence)
    assert max(len(line) for line in said.splitlines()) > 90 >= max(len(line) for line in printed.splitlines())
    assert printed.split() == said.split(), "only line breaks may differ"
    assert said.startswith("Exercise 0.1: not yet. Your derivative is None.")


def test_solutions_run_only_when_the_lessons_are_built_or_tested(monkeypatch, capsys) -> None:
    """On a student's Run All a solution cell only defines solution_N_M(): it must not replace their answer."""
    ran = []
    monkeypatch.delenv(RUN_SOLUTIONS, raising=False)
    run_solution(lambda: ran.append(1))
    assert not ran and "call <lambda>() to see it checked" in capsys.readouterr().out
    monkeypatch.setenv(RUN_SOLUTIONS, "1")
    run_solution(lambda: ran.append(1))
    assert ran == [1]


def test_unknown_exercise_and_evidence_are_named() -> None:
    assert "There is no exercise '9.9'" in verdict("9.9", 1.0)
    said = verdict("3.1", 12.0, tap=1)
    assert "does not take tap; it takes tape=..., target=..., sources=..." in said, said


def test_a_pencil_answer_near_the_right_one_is_not_given_the_right_one() -> None:
    """2.1's "close" messages say what is off, not the answer's digits."""
    for answer in ([-0.93, 0.635], [-0.95211, 0.62]):
        said = verdict("2.1", answer)
        assert "close" in said and "0.952" not in said.replace("0.95211", "") and "0.6347" not in said, said

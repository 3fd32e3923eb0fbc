"""Feedback that finds the slip: for every exercise, the right answer and at least four typical wrong answers,
each computed the way a student would get it (a sign slip, a missing factor or chain-rule term, an unreduced
sum or mean, the wrong tape, a transposed shape, a number typed by hand), and the sentence that names it."""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

import minitape as mt

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "notebooks"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from lesson_tools import verdict  # noqa: E402
from lesson_tools.lesson10 import _contribution_variants  # noqa: E402
from test_lesson11_checks import _branch_free, _counter_after_five_calls, _python_branch  # noqa: E402

Case = tuple[Any, dict[str, Any]]


def taped(make: Callable, *values: float, watch: bool = True, persistent: bool = False) -> Callable:
    """A case builder: `make(*sources)` computes (answer builder, target) on a tape over constants `values`."""

    def build() -> Case:
        sources = [mt.constant(v) for v in values]
        with mt.GradientTape(persistent=persistent) as tape:
            if watch:
                for s in sources:
                    tape.watch(s)
            target, answer = make(tape, *sources)
        given = sources[0] if len(sources) == 1 else sources
        return answer(tape, target, given), {"tape": tape, "target": target, "sources": given}

    return build


def grad_of(expression: Callable) -> Callable:
    """A taped case whose answer is tape.gradient(target, sources) for target = expression(*sources)."""
    return lambda tape, *xs: (expression(*xs), lambda t, y, s: t.gradient(y, s))


def typed(answer: Any) -> Callable:
    return lambda: (answer, {})


def plain(answer: Any) -> Callable:
    return lambda: (answer, {})


# ---- 1.1, 1.3: finite differences written by a student ---------------------------------------------------
def forward(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    w = np.array(w, dtype=float)
    return np.array([(f(w + h * np.eye(len(w))[i]) - f(w)) / h for i in range(len(w))])


def forward_reversed(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    return -forward(f, w, h)


def forward_all_at_once(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    w = np.array(w, dtype=float)
    return np.full(len(w), (f(w + h) - f(w)) / h)


def no_return(f: Callable, w: np.ndarray, h: float) -> None:
    central(f, w, h)  # the student forgot `return`


def central(f: Callable, w: np.ndarray, h: float, divisor: float = 2.0) -> np.ndarray:
    w = np.array(w, dtype=float)
    e = np.eye(len(w))
    return np.array([(f(w + h * e[i]) - f(w - h * e[i])) / (divisor * h) for i in range(len(w))])


# ---- 2.2, 2.3: a division rule and a dual number with a slip ----------------------------------------------
def dual_class(tangent: Callable) -> type:
    class Dual:
        def __init__(self, value: float, tangent_part: float) -> None:
            self.value, self.tangent = value, tangent_part

        def __truediv__(self, other: Dual) -> Dual:
            a, da, b, db = self.value, self.tangent, other.value, other.tangent
            return Dual(a / b, tangent(a, da, b, db))

    return Dual


# ---- 3.3: the linear model with its loss written three ways --------------------------------------------------
def linear_3_3(loss: Callable) -> Callable:
    def build() -> Case:
        params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}
        x = mt.constant([3.0, 1.0])
        with mt.GradientTape() as tape:
            value = loss(params["w"], params["b"], x)
        return tape.gradient(value, params), {"tape": tape, "target": value, "sources": params}

    return build


def only_b_3_2() -> Case:
    a, b = mt.Variable(4.0), mt.Variable(5.0)
    with mt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        f = a * b
    return tuple(tape.gradient(f, [a, b])), {"tape": tape, "target": f, "sources": [a, b]}


def persistent_4_1(answer: Callable) -> Callable:
    """4.1: u = sin x, v = u² on a persistent tape at x = 1; `answer(tape, x, u, v)` is what the student passes."""

    def build() -> Case:
        x = mt.constant(1.0)
        with mt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            u = mt.sin(x)
            v = u**2
        return answer(tape, x, u, v), {"tape": tape, "target": v, "sources": x}

    return build


def in_place_forward(f: Callable, w: np.ndarray, h: float) -> np.ndarray:
    base = f(w)
    result = []
    for i in range(len(w)):
        w[i] += h
        result.append((f(w) - base) / h)
    return np.array(result)


def nested(second: Callable, watch_outer: bool = True) -> Callable:
    """5.1/5.2: nested tapes at x; `second(outer, inner_grad, x)` gives the answer."""

    def build() -> Case:
        x = mt.constant([1.0, 2.0])
        with mt.GradientTape() as outer:
            if watch_outer:
                outer.watch(x)
            with mt.GradientTape() as inner:
                inner.watch(x)
                g = x[0] ** 3 + x[0] * x[1] ** 2
            grad = inner.gradient(g, x)
        return second(outer, grad, x), {"tape": outer, "target": grad, "sources": x}

    return build


def second_derivative(f: Callable) -> Callable:
    def build() -> Case:
        x = mt.constant(1.0)
        with mt.GradientTape() as outer:
            outer.watch(x)
            with mt.GradientTape() as inner:
                inner.watch(x)
                y = f(x)
            dy_dx = inner.gradient(y, x)
        return outer.gradient(dy_dx, x), {"tape": outer, "target": dy_dx, "sources": x}

    return build


def loop_6_1(update: Callable, steps: tuple = (0, 1)) -> Callable:
    def build() -> Case:
        x = mt.Variable(2.0)
        grads = []
        for _ in steps:
            with mt.GradientTape() as tape:
                y = x * x
            grads.append(tape.gradient(y, x))
            x = update(x)
        return grads, {"x": x}

    return build


def in_place(x: Any) -> Any:
    x.assign_add(1.0)
    return x


def clip(grad: Callable, decorate: bool = True) -> Callable:
    def clip_gradient(x: Any) -> Any:
        return mt.identity(x), lambda upstream: grad(upstream, x)

    return mt.custom_gradient(clip_gradient) if decorate else clip_gradient


def stopped(count: int) -> Callable:
    def f(x: Any) -> Any:
        factors = [mt.stop_gradient(x) if i < count else x for i in range(3)]
        return factors[0] * factors[1] * factors[2]

    return f


def sgd(rate: float = 1.0, reduce: Callable = mt.reduce_mean) -> Callable:
    def sgd_step(model: Any, x: Any, y: Any, learning_rate: float) -> Any:
        with mt.GradientTape() as tape:
            loss = reduce(mt.square(model(x) - y))
        for variable, gradient in zip(model.trainable_variables, tape.gradient(loss, model.trainable_variables)):
            variable.assign_sub(rate * learning_rate * gradient)
        return loss

    return sgd_step


def with_optimizer(model: Any, x: Any, y: Any, learning_rate: float) -> Any:
    optimizer = mt.keras.optimizers.SGD(learning_rate)
    with mt.GradientTape() as tape:
        loss = mt.reduce_mean(mt.square(model(x) - y))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
    return loss


def jvp_9_1(h: Callable, tangent: Any = (1.0, -1.0, 2.0), read: Callable = lambda acc, x, h: acc.jvp(h)) -> Callable:
    def build() -> Case:
        x = mt.constant([0.5, 1.0, 1.5])
        with mt.autodiff.ForwardAccumulator(x, mt.constant(tangent)) as acc:
            value = h(x)
        return read(acc, x, value), {}

    return build


def vjp_9_2(weights: Any) -> Callable:
    def build() -> Case:
        x = mt.constant([2.0, 3.0])
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = mt.stack([x[0] * x[1], mt.sin(x[0])])
        kwargs = {} if weights is None else {"output_gradients": mt.constant(weights)}
        return tape.gradient(y, x, **kwargs), {"tape": tape, "target": y, "sources": x}

    return build


def hvp_9_3(v: Any, read_gradient: bool = False) -> Callable:
    def build() -> Case:
        x = mt.constant([1.0, 0.0])
        with mt.autodiff.ForwardAccumulator(x, mt.constant(v)) as acc:
            with mt.GradientTape() as tape:
                tape.watch(x)
                f = x[0] ** 2 * x[1] + mt.exp(x[1])
            g = tape.gradient(f, x)
        return (g if read_gradient else acc.jvp(g)), {"tape": tape, "target": f, "sources": x}

    return build


def contributions(index: int) -> Callable:
    """10.1: the right contributions (index None) or the checker's slip number `index`, as a list of tensors."""

    def build() -> Case:
        right, slips = _contribution_variants()
        chosen = right if index < 0 else slips[index][0]
        return [mt.constant(m, dtype=mt.float32) for m in chosen], {}

    return build


def truncated(cut: Callable) -> Callable:
    """10.2: an RNN that applies `cut(h, t, k)` after each step t."""

    def truncated_rnn(xs: Any, h0: Any, W: Any, U: Any, b: Any, k: int) -> Any:
        h, steps = h0, int(xs.shape[0])
        for t in range(1, steps + 1):
            h = mt.tanh(xs[t - 1] @ W + h @ U + b)
            h = cut(h, t, k, steps)
        return h

    return plain(truncated_rnn)


RHO = 8 * float(np.float32(0.15))

# (exercise, slip, builder giving (answer, evidence), the words its message must contain)
CASES: list[tuple[str, str, Callable[[], Case], str]] = [
    ("0.1", "right", taped(grad_of(lambda x: x**2 + 3 * x), 2.0), "correct! dy/dx = 2x + 3 = 7"),
    ("0.1", "sign", taped(grad_of(lambda x: x**2 - 3 * x), 2.0), "1 is 2x - 3: the derivative of y = x² - 3x"),
    ("0.1", "missing term", taped(grad_of(lambda x: x**2), 2.0), "the derivative of 3x, which is 3, is missing"),
    ("0.1", "missing term", taped(grad_of(lambda x: 3 * x), 2.0), "the 2x from x² is missing from dy/dx"),
    ("0.1", "the value", typed(10.0), "10 is the value of y = x² + 3x at x = 2"),
    ("0.1", "typed", typed(7.0), "check cannot see a tape: pass it along"),
    ("1.1", "right", plain(forward), "correct!"),
    ("1.1", "sign", plain(forward_reversed), "the gradient with the wrong sign. Subtract f(w) from f(w + h e_i)"),
    ("1.1", "all at once", plain(forward_all_at_once), "You added h to every entry of w at once"),
    ("1.1", "not divided", plain(lambda f, w, h: forward(f, w, h) * h), "about h times too small. Did you divide"),
    ("1.1", "in place", plain(in_place_forward), "changed the w it was given: copy w"),
    ("1.2", "right", taped(grad_of(lambda x, y: x**2 * y + mt.sin(x)), 1.0, 2.0), "correct! dg/dx = 2xy + cos x"),
    ("1.2", "sign", taped(grad_of(lambda x, y: x**2 * y - mt.sin(x)), 1.0, 2.0), "dg/dx has -cos x where it needs"),
    ("1.2", "factor", taped(grad_of(lambda x, y: x**2 + mt.sin(x)), 1.0, 2.0), "the factor y of x²y is missing"),
    ("1.2", "term", taped(grad_of(lambda x, y: x**2 * y), 1.0, 2.0), "the term cos x, from sin x, is missing"),
    ("1.2", "order", typed([1.0, 4 + math.cos(1.0)]), "in the wrong order"),
    ("1.2", "typed", typed([4.5403023, 1.0]), "A number typed by hand is not accepted"),
    ("1.3", "right", plain(central), "correct! Its error shrinks like h²"),
    ("1.3", "divided by h", plain(lambda f, w, h: central(f, w, h, 1.0)), "twice the gradient: the two steps span 2h"),
    ("1.3", "sign", plain(lambda f, w, h: -central(f, w, h)), "the gradient with the wrong sign"),
    ("1.3", "forward", plain(forward), "the size a one-sided (forward) difference has"),
    ("1.3", "no return", plain(no_return), "returned None: end it with `return`"),
    ("2.1", "right", typed([-0.952, 0.635]), "correct!"),
    ("2.1", "order", typed([0.635, -0.952]), "the two numbers are in the wrong order"),
    ("2.1", "output", typed([-0.952, math.tanh(-0.7)]), "dy_db is tanh(z), the neuron's output"),
    ("2.1", "chain rule", typed([-0.952, 1.0]), "which is dz/db alone; the chain rule multiplies"),
    ("2.1", "sign", typed([0.952, 0.635]), "dy_dw has the wrong sign"),
    ("2.1", "dy/dx", typed([0.635 * 0.6, 0.635]), "that dy_dw is dy/dx (dy/dz times w)"),
    ("2.1", "chain rule, w", typed([-1.5, 0.635]), "dy_dw is x, which is dz/dw alone"),
    ("2.2", "right", plain(lambda a, b: (a / b, (1 / b, -a / b**2))), "correct!"),
    ("2.2", "sign", plain(lambda a, b: (a / b, (1 / b, a / b**2))), "d(a/b)/db has the wrong sign"),
    ("2.2", "factor", plain(lambda a, b: (a / b, (1 / b, -1 / b**2))), "the factor a is missing"),
    ("2.2", "swapped", plain(lambda a, b: (a / b, (-a / b**2, 1 / b))), "the two local derivatives are swapped"),
    ("2.2", "value", plain(lambda a, b: (b / a, (1 / b, -a / b**2))), "not a / b = 2"),
    ("2.3", "right", plain(dual_class(lambda a, da, b, db: (da * b - a * db) / b**2)), "correct!"),
    ("2.3", "plus", plain(dual_class(lambda a, da, b, db: (da * b + a * db) / b**2)), "has a + where the quotient"),
    ("2.3", "no b²", plain(dual_class(lambda a, da, b, db: da * b - a * db)), "without the division by b²"),
    ("2.3", "sign", plain(dual_class(lambda a, da, b, db: (a * db - da * b) / b**2)), "the tangent has the wrong sign"),
    ("2.3", "b once", plain(dual_class(lambda a, da, b, db: (da * b - a * db) / b)), "divided by b once"),
    ("3.1", "right", taped(grad_of(lambda x: x**3), 2.0), "correct! d(x³)/dx = 3x² = 12"),
    ("3.1", "the value", typed(8.0), "8 is x³ itself at x = 2"),
    ("3.1", "factor", taped(grad_of(lambda x: x**3 / 3), 2.0), "the exponent 3 of x³ did not come down"),
    ("3.1", "power", taped(grad_of(lambda x: 3 * x**2 / 2), 2.0), "the power of x is one too low"),
    ("3.1", "unwatched", taped(grad_of(lambda x: x**3), 2.0, watch=False), "You forgot to watch x: "),
    ("3.1", "typed", typed(12.0), "A number typed by hand is not accepted"),
    ("3.2", "right", only_b_3_2, "correct! df_da is None (a was never watched) and df_db = a = 4"),
    ("3.2", "both watched", taped(grad_of(lambda a, b: a * b), 4.0, 5.0), "df_da is 5, but it should be None"),
    ("3.2", "value of b", typed((None, 5.0)), "df_db is 5, the value of b"),
    ("3.2", "f itself", typed((None, 20.0)), "df_db is 20, f = a·b itself"),
    ("3.2", "typed", typed((None, 4.0)), "check cannot see a tape: pass it along"),
    ("3.2", "sign", typed((None, -4.0)), "the right size, the wrong sign"),
    ("3.3", "right", linear_3_3(lambda w, b, x: (mt.reduce_sum(w * x) + b - 1.0) ** 2), "correct! The residual is 0.5"),
    (
        "3.3",
        "unreduced",
        linear_3_3(lambda w, b, x: mt.reduce_sum((w * x + b - 1.0) ** 2)),
        "your loss was not reduced",
    ),
    ("3.3", "mean", linear_3_3(lambda w, b, x: (mt.reduce_mean(w * x) + b - 1.0) ** 2), "your w·x is a mean"),
    ("3.3", "the - 1", linear_3_3(lambda w, b, x: (mt.reduce_sum(w * x) + b) ** 2), "your loss leaves out the - 1"),
    ("3.3", "factor", linear_3_3(lambda w, b, x: (mt.reduce_sum(w * x) + b - 1.0) ** 2 / 2), "a factor 2 is missing"),
    ("3.3", "typed", typed({"w": [3.0, 1.0], "b": 1.0}), "A number typed by hand is not accepted"),
    ("4.1", "right", persistent_4_1(lambda t, x, u, v: [t.gradient(v, x), t.gradient(u, x)]), "correct!"),
    ("4.1", "chain rule", persistent_4_1(lambda t, x, u, v: [t.gradient(v, u), t.gradient(u, x)]), "dv/du alone"),
    ("4.1", "value", persistent_4_1(lambda t, x, u, v: [v, t.gradient(u, x)]), "dv_dx is sin² x, the value of v"),
    ("4.1", "order", persistent_4_1(lambda t, x, u, v: [t.gradient(u, x), t.gradient(v, x)]), "in the wrong order"),
    ("4.1", "du value", persistent_4_1(lambda t, x, u, v: [t.gradient(v, x), u]), "du_dx is sin x, the value of u"),
    ("4.1", "typed", typed([math.sin(2.0), math.cos(1.0)]), "A number typed by hand is not accepted"),
    ("4.2", "right", typed(3), "correct! Three: each tanh keeps its output"),
    ("4.2", "x too", typed(4), "4 counts x too"),
    ("4.2", "inputs and outputs", typed(6), "6 counts each tanh's input and output"),
    ("4.2", "the result", typed(1), "1 is the final result alone"),
    ("4.2", "nothing", typed(0), "0 would mean a backward pass without any forward value"),
    ("4.2", "a string", typed("3"), "text in quotes, not a number"),
    ("5.1", "right", second_derivative(lambda x: x * mt.sin(x)), "correct! d²/dx² (x sin x) = 2 cos x - x sin x"),
    ("5.1", "first", typed(math.sin(1.0) + math.cos(1.0)), "that is the first derivative, sin x + x cos x"),
    ("5.1", "product rule", typed(math.cos(1.0) - math.sin(1.0)), "one cos x is missing"),
    ("5.1", "the function", typed(math.sin(1.0)), "the function itself: nothing was differentiated"),
    ("5.1", "2 cos x", typed(-math.sin(1.0)), "the product rule's 2 cos x is missing"),
    ("5.2", "right", nested(lambda outer, grad, x: outer.jacobian(grad, x)), "correct! H = [[6 x0, 2 x1]"),
    ("5.2", "gradient", nested(lambda outer, grad, x: outer.gradient(grad, x)), "the Hessian's two rows added up"),
    ("5.2", "inner", nested(lambda outer, grad, x: grad), "the gradient of g, shape (2,)"),
    ("5.2", "outer tape", nested(lambda o, g, x: o.jacobian(g, x), watch_outer=False), "outer.watch(x)"),
    ("5.2", "diagonal", typed([[6.0, 0.0], [0.0, 2.0]]), "the mixed term ∂²g/∂x0∂x1 = 2 x1 = 4"),
    ("5.2", "factor", typed([[3.0, 4.0], [4.0, 2.0]]), "the second derivative of x0³ is 6 x0, not 3 x0"),
    ("5.3", "right", typed("B"), "correct! Place B: after the inner block, inside the outer one"),
    ("5.3", "C", typed("C"), "place C is where the line is now"),
    ("5.3", "A", typed("A"), "the inner tape then records its own backward ops too"),
    ("5.3", "not a letter", typed("D"), "answer with one letter"),
    ("5.3", "not a string", typed(2), "answer with a letter in quotes"),
    ("6.1", "right", loop_6_1(in_place), "correct! 4 then 6"),
    ("6.1", "a tensor", loop_6_1(lambda x: x + 1.0), "no longer a mt.Variable"),
    ("6.1", "no update", loop_6_1(lambda x: x), "the second gradient is 4 again"),
    ("6.1", "early update", lambda: ([6.0, 6.0], {"x": mt.Variable(4.0)}), "x was increased before the first step"),
    ("6.1", "x not passed", typed([4.0, 6.0]), "pass x too"),
    ("6.2", "right", typed([3.0, [0.0, 0.0]]), "correct!"),
    ("6.2", "still None", typed([3.0, None]), "dy/dextra is still None"),
    ("6.2", "scalar zero", typed([3.0, 0.0]), "dy/dextra has shape (), but it should have shape (2,)"),
    ("6.2", "no tape", typed([None, [0.0, 0.0]]), "compute y = w * 3.0 inside the tape"),
    ("6.2", "sign", typed([-3.0, [0.0, 0.0]]), "the right size, the wrong sign"),
    ("6.3", "right", typed("stop_gradient"), "correct!"),
    ("6.3", "wrong kind", typed("no_path"), "'no_path' is not what explain() says for scale"),
    ("6.3", "not a string", typed(3), "answer should be a string like 'no_path'"),
    ("6.3", "None", typed(None), "answer should be a string"),
    ("6.3", "whole explanation", typed(SimpleNamespace(reasons=[])), "answer is the whole explanation"),
    ("7.1", "right", plain(stopped(2)), "correct! Value x³, gradient x²"),
    ("7.1", "nothing stopped", plain(stopped(0)), "nothing was stopped"),
    ("7.1", "all stopped", plain(stopped(3)), "all three factors are inside stop_gradient"),
    ("7.1", "one stopped", plain(stopped(1)), "one factor is stopped, two are not"),
    ("7.1", "numpy", plain(lambda x: x.numpy() ** 3), "return a tensor computed from x"),
    ("7.2", "right", plain(clip(lambda u, x: mt.clip_by_value(u, -1.0, 1.0))), "correct!"),
    ("7.2", "unclipped", plain(clip(lambda u, x: u)), "the upstream gradient unchanged"),
    ("7.2", "clips x", plain(clip(lambda u, x: mt.clip_by_value(x, -1.0, 1.0))), "your grad clips x"),
    ("7.2", "[0, 1]", plain(clip(lambda u, x: mt.clip_by_value(u, 0.0, 1.0))), "clip to [-1, 1], not [0, 1]"),
    ("7.2", "no decorator", plain(clip(lambda u, x: u, decorate=False)), "Add the decorator"),
    ("7.3", "right", typed("Sqrt"), "correct!"),
    ("7.3", "the NaN's op", typed("Mul"), "Mul is the op that computed the NaN"),
    ("7.3", "division", typed("RealDiv"), "RealDiv is the op that computed the NaN"),
    ("7.3", "another op", typed("Exp"), "'Exp' is not the op named after"),
    ("7.3", "not a string", typed(3), "answer should be an op's name as a string"),
    ("8.1", "right", typed((2, 15)), "correct!"),
    ("8.1", "kernel", typed((2, 12)), "12 numbers is the kernel alone"),
    ("8.1", "bias", typed((2, 3)), "3 numbers is the bias alone"),
    ("8.1", "shape added", typed((2, 7)), "7 is 4 + 3, the kernel's shape added up"),
    ("8.1", "bias per input", typed((2, 16)), "16 counts a bias per input"),
    ("8.1", "upside down", typed((15, 2)), "the pair is upside down"),
    ("8.2", "right", plain(sgd()), "correct! 3 steps of gradient descent"),
    ("8.2", "sign", plain(sgd(-1.0)), "subtract the step, not add"),
    ("8.2", "sum", plain(sgd(1.0, mt.reduce_sum)), "your steps follow the sum of the squared errors"),
    ("8.2", "twice", plain(sgd(2.0)), "is the learning rate counted twice?"),
    ("8.2", "optimizer", plain(with_optimizer), "without an optimizer"),
    ("9.1", "right", jvp_9_1(lambda x: mt.reduce_sum(x**2 * mt.cos(x))), "correct!"),
    ("9.1", "unreduced", jvp_9_1(lambda x: x**2 * mt.cos(x)), "your h is still the vector x**2 * mt.cos(x)"),
    (
        "9.1",
        "sum outside",
        jvp_9_1(lambda x: x**2 * mt.cos(x), read=lambda acc, x, h: acc.jvp(mt.reduce_sum(h))),
        "acc.jvp(h) is None",
    ),
    (
        "9.1",
        "ones",
        jvp_9_1(lambda x: mt.reduce_sum(x**2 * mt.cos(x)), (1.0, 1.0, 1.0)),
        "the accumulator's tangent was ones",
    ),
    ("9.1", "u itself", jvp_9_1(lambda x: x, read=lambda acc, x, h: acc.jvp(x)), "your answer is u itself"),
    (
        "9.1",
        "sign",
        typed(
            float(
                np.sum(
                    (
                        2 * np.array([0.5, 1, 1.5]) * np.cos([0.5, 1, 1.5])
                        + np.array([0.5, 1, 1.5]) ** 2 * np.sin([0.5, 1, 1.5])
                    )
                    * [1, -1, 2]
                )
            )
        ),
        "the derivative of cos x is -sin x",
    ),
    (
        "9.1",
        "primal",
        jvp_9_1(lambda x: mt.reduce_sum(x**2 * mt.cos(x)), read=lambda acc, x, h: h),
        "that is h(x) itself",
    ),
    ("9.2", "right", vjp_9_2([2.0, -1.0]), "correct!"),
    ("9.2", "default", vjp_9_2(None), "that is vᵀJ for v = (1, 1), the default"),
    ("9.2", "sign", vjp_9_2([2.0, 1.0]), "your VJP adds the second row: v = (2, 1)"),
    ("9.2", "factor", vjp_9_2([2.0, -2.0]), "weights the two rows with (2, -2)"),
    ("9.2", "typed", typed([6.0 - math.cos(2.0), 4.0]), "A number typed by hand is not accepted"),
    ("9.3", "right", hvp_9_3([1.0, 2.0]), "correct!"),
    ("9.3", "gradient", hvp_9_3([1.0, 2.0], read_gradient=True), "that is the gradient g = (2 x0 x1, x0² + e^x1)"),
    ("9.3", "ones", hvp_9_3([1.0, 1.0]), "uses the tangent (1, 1)"),
    ("9.3", "a column", hvp_9_3([0.0, 1.0]), "that is H's second column alone"),
    ("9.3", "sign", hvp_9_3([-1.0, -2.0]), "the right size, the wrong sign"),
    ("10.1", "right", contributions(-1), "correct! 12 contributions, adding up to dL/dU"),
    ("10.1", "reversed", contributions(0), "your contributions are in reverse order"),
    ("10.1", "tanh's derivative", contributions(1), "the tanh's derivative is missing"),
    ("10.1", "tanh twice", contributions(2), "you used 1 - tanh(h_t)²"),
    ("10.1", "previous state", contributions(3), "you multiplied by 1 - h_{t-1}²"),
    ("10.1", "h_t", contributions(4), "your contributions use h_t"),
    ("10.1", "transposed", contributions(5), "your contributions are transposed"),
    ("10.1", "dL/dh_T", contributions(6), "you used dL/dh_T at every step"),
    ("10.2", "right", truncated(lambda h, t, k, T: mt.stop_gradient(h) if t % k == 0 and t < T else h), "correct!"),
    ("10.2", "nothing cut", truncated(lambda h, t, k, T: h), "nothing was cut"),
    (
        "10.2",
        "reset",
        truncated(lambda h, t, k, T: mt.zeros_like(h) if t % k == 0 and t < T else h),
        "you reset the state",
    ),
    (
        "10.2",
        "every step",
        truncated(lambda h, t, k, T: mt.stop_gradient(h) if t < T else h),
        "you cut after every step",
    ),
    (
        "10.2",
        "output cut",
        truncated(lambda h, t, k, T: mt.stop_gradient(h) if t % k == 0 or t == T else h),
        "the state you return is cut too",
    ),
    ("10.3", "right", typed((RHO, RHO**30)), "correct!"),
    ("10.3", "upside down", typed((RHO, RHO**-30)), "your ratio is upside down"),
    ("10.3", "29 steps", typed((RHO, RHO**29)), "that is the growth over 29 steps"),
    ("10.3", "one step", typed((RHO, RHO)), "that is the factor of one step"),
    ("10.3", "an entry", typed((0.15, RHO**30)), "radius is 0.15, the largest entry of U_test"),
    ("10.3", "not divided", typed((RHO, RHO**30 * math.sqrt(8))), "that is ||dL/dh_0|| itself"),
    ("11.1", "right", typed(5), "correct! 5 traces"),
    ("11.1", "the calls", typed(7), "7 is the number of calls"),
    ("11.1", "2 and 2.0", typed(6), "2 and 2.0 are equal Python values"),
    ("11.1", "int32", typed(4), "mt.constant(3) is an int32 tensor"),
    ("11.1", "values as tensors", typed(3), "Python numbers are not tensors"),
    ("11.2", "right", lambda: (_counter_after_five_calls(True), {}), "correct! 5: the assign_add is a step"),
    (
        "11.2",
        "Python counter",
        lambda: (_counter_after_five_calls(False), {}),
        "a Python side effect (calls += 1) runs while the function is traced",
    ),
    ("11.2", "not called", lambda: (mt.Variable(0), {}), "the counter is still 0"),
    ("11.2", "counted twice", typed(10), "it should count each call once"),
    ("11.2", "typed", typed("5"), "the string '5'"),
    ("11.3", "right", plain(_branch_free), "correct! one graph for every sign"),
    ("11.3", "Python if", plain(_python_branch), "traced 2 times for four scalar float32 calls"),
    ("11.3", "no branch", plain(lambda x: x * x), "g(-3.0) gives 9, but it should be 3"),
    ("11.3", "absolute value", plain(lambda x: mt.abs(x)), "g(2.0) gives 2, but it should be 4"),
    ("11.3", "called", typed(mt.constant(4.0)), "pass it without calling it"),
]


@pytest.fixture(autouse=True)
def _fresh_keras() -> None:
    mt.keras.backend.clear_session()


@pytest.mark.parametrize(("key", "slip", "build", "words"), CASES, ids=[f"{c[0]} {c[1]}" for c in CASES])
def test_the_slip_is_named(key: str, slip: str, build: Callable[[], Case], words: str) -> None:
    answer, evidence = build()
    said = verdict(key, answer, **evidence)
    assert words in said or f"not yet. {words[0].upper()}{words[1:]}" in said, said
    if slip == "right":
        assert said.startswith(f"Exercise {key}: correct!") or "correct!" not in words, said
    else:
        assert said.startswith(f"Exercise {key}: not yet. "), said


def test_every_exercise_has_its_right_answer_and_four_slips() -> None:
    from lesson_tools import exercise_keys

    slips = Counter(key for key, slip, _, _ in CASES if slip != "right")
    rights = {key for key, slip, _, _ in CASES if slip == "right"}
    assert rights == set(exercise_keys())
    assert all(slips[key] >= 4 for key in exercise_keys()), {k: slips[k] for k in exercise_keys() if slips[k] < 4}


def test_a_plain_wrong_number_is_told_it_is_none_of_the_usual_slips() -> None:
    answer, evidence = taped(grad_of(lambda x, y: x**3 * y), 1.0, 2.0)()
    said = verdict("1.2", answer, **evidence)
    assert "which is not the right value, and not one of the usual slips" in said, said

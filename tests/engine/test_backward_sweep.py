"""The one backward sweep: the same numbers and dtypes whether an observer listens or not, rules see tensors.

Every op's gradient is computed with and without an observer and compared exactly; rules get tensors
(`op.x`, the upstream gradients) in every sweep; numpy's warnings stay off inside the sweep only.
"""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import minitape as mt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ops"))  # the op tables of tests/ops, shared
from test_op_gradients import ARRAY_OPS, BINARY, NN, SHAPES, UNARY  # noqa: E402

from minitape.engine.backprop import Observer
from minitape.engine.context import state


class Counting(Observer):
    """A listener that only counts (and checks that it hears tensors)."""

    def __init__(self) -> None:
        self.rules = 0

    def rule(self, op, upstream) -> None:
        self.rules += 1
        assert all(isinstance(g, mt.Tensor) for g in upstream), "an observer hears tensors"


def both_ways(fn, *values):
    """(gradients unobserved, gradients observed, rules the observer heard) of sum(fn(*values))."""
    sources = [mt.constant(v) for v in values]
    results = []
    for observer in (None, Counting()):
        with mt.GradientTape() as tape:
            tape.watch(sources)
            out = fn(*sources)
        results.append(tape.gradient(out, sources, observer=observer))
    return results[0], results[1], observer.rules


def assert_same(bare, observed):
    assert len(bare) == len(observed)
    for b, o in zip(bare, observed):
        assert (b is None) == (o is None)
        if b is not None:
            assert type(b) is mt.Tensor and b.dtype == o.dtype and b.shape == o.shape
            np.testing.assert_array_equal(b.numpy(), o.numpy())


CASES = (
    [(f"unary-{u[0]}", u[1], [u[2](*SHAPES["matrix"])]) for u in UNARY]
    + [(f"binary-{b[0]}", b[1], [b[2](2, 3), b[3](3)]) for b in BINARY]
    + [(f"array-{a[0]}", a[1], [a[2]]) for a in ARRAY_OPS]
    + [(f"nn-{n[0]}", n[1], [np.linspace(-2.0, 2.0, 20).reshape(4, 5)]) for n in NN]
    + [(f"float16-{u[0]}", u[1], [u[2](*SHAPES["vector"]).astype(np.float16)]) for u in UNARY[:12]]
    + [(f"float32-{b[0]}", b[1], [b[2](2, 3).astype(np.float32), b[3](3).astype(np.float32)]) for b in BINARY]
)


@pytest.mark.parametrize("name,fn,values", CASES, ids=[c[0] for c in CASES])
def test_every_op_gives_the_same_gradient_unobserved_and_observed(name, fn, values):
    bare, observed, heard = both_ways(lambda *xs: mt.nest.flatten(fn(*xs)), *values)
    assert heard > 0
    assert_same(bare, observed)


def test_a_float32_mlp_step_gives_the_same_gradients_and_dtypes():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 5)).astype(np.float32)
    w1, b1 = rng.standard_normal((5, 7)).astype(np.float32), np.zeros(7, np.float32)
    w2, b2 = rng.standard_normal((7, 3)).astype(np.float32), np.zeros(3, np.float32)
    labels = np.array([0, 2, 1, 1, 0, 2, 2, 1])

    def loss(w1, b1, w2, b2):
        hidden = mt.nn.relu(x @ w1 + b1)
        logits = hidden @ w2 + b2
        return mt.reduce_mean(mt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))

    bare, observed, _ = both_ways(loss, w1, b1, w2, b2)
    assert_same(bare, observed)
    assert {g.dtype for g in bare} == {mt.float32}


def test_a_users_rule_gets_tensors_and_may_use_their_methods():
    seen = []

    @mt.custom_gradient
    def scaled(x):
        def grad(dy):
            seen.append((type(dy), dy.shape.as_list(), dy.dtype))
            return dy * float(dy.numpy().sum())

        return x * 1.0, grad

    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.sin(scaled(x))
    expected = np.cos([1.0, 2.0]) * np.cos([1.0, 2.0]).sum()
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-6)
    assert seen == [(mt.Tensor, [2], mt.float32)]


def test_a_rule_that_opens_its_own_tape_gets_tensors_it_can_watch():
    @mt.custom_gradient
    def cube(x):
        def grad(dy):
            with mt.GradientTape() as inner:
                inner.watch(x)
                y = x * x * x
            return dy * inner.gradient(y, x)

        return x * x * x, grad

    x = mt.constant([1.0, -2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        z = mt.exp(cube(x) * 0.1)
    expected = np.exp(np.array([1.0, -8.0]) * 0.1) * 0.1 * 3 * np.array([1.0, 4.0])
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), expected, rtol=1e-6)


def test_the_thread_state_is_restored_after_a_sweep_that_fails():
    @mt.custom_gradient
    def broken(x):
        return x * 1.0, lambda dy: 1 / 0

    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.sin(broken(mt.exp(x)))
    with pytest.raises(ZeroDivisionError):
        tape.gradient(y, x)
    assert state.backward_of is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(RuntimeWarning):
            np.array([1.0]) / np.array([0.0])  # numpy's warnings are back on


def test_numpy_warnings_stay_quiet_in_the_sweep_and_come_back_after():
    x = mt.constant([0.0, 1.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.sqrt(x)  # its gradient divides by sqrt(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tape.gradient(y, x).numpy()[0] == np.inf
        with pytest.raises(RuntimeWarning):
            np.array([1.0]) / np.array([0.0])  # the student's own numpy warns again


def test_a_numerics_check_sees_the_backward_ops_by_name():
    x = mt.constant([0.0, 1.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.sqrt(x)
    mt.debugging.enable_check_numerics()
    try:
        with pytest.raises(mt.errors.InvalidArgumentError, match="Sqrt"):
            tape.gradient(y, x)
    finally:
        mt.debugging.disable_check_numerics()


def test_rules_get_tensors_in_every_sweep():
    """`op.x`, `op.y`, `op.z` and the upstream gradient are tensors whether anyone listens or not."""
    seen = []

    def rule(op, g):
        seen.append({type(v) for v in (op.x, op.y, op.z, g)})
        return g * op.y, g * op.x

    times = mt.defop("SweepTestTimes", lambda a, b: a * b, rule, keep="both")
    x, y = mt.constant([1.0, 2.0]), mt.constant([3.0, 4.0])
    for observer in (None, Counting()):
        with mt.GradientTape() as tape:
            tape.watch([x, y])
            z = times(x, y)
        dx, dy = tape.gradient(z, [x, y], observer=observer)
        np.testing.assert_array_equal(dx.numpy(), [3.0, 4.0])
        np.testing.assert_array_equal(dy.numpy(), [1.0, 2.0])
    assert seen == [{mt.Tensor}, {mt.Tensor}]


def test_gradients_meeting_at_a_tensor_are_summed_by_the_engines_addn():
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            y = mt.reduce_sum(mt.sin(x) + mt.exp(x))  # x feeds two ops: two contributions meet at x
        dy = inner.gradient(y, x)
    assert "AddN" in [op.type for op in outer.records if op.backward_of is None]
    np.testing.assert_allclose(dy.numpy(), np.cos([1.0, 2.0]) + np.exp([1.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(outer.gradient(dy, x).numpy(), -np.sin([1.0, 2.0]) + np.exp([1.0, 2.0]), rtol=1e-6)


NUMPY_WITHOUT_ITS_PRIVATE_API = """
import sys, types, warnings
import numpy as np
real = sys.modules["numpy._core._ufunc_config"]
sys.modules["numpy._core._ufunc_config"] = types.ModuleType("moved")  # a numpy that moved its private names
import minitape as mt
sys.modules["numpy._core._ufunc_config"] = real
from minitape.engine import context
assert context.quiet_numpy is context._errstate_quiet
x = mt.constant([0.0, 1.0])
with warnings.catch_warnings():
    warnings.simplefilter("error")
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.sqrt(x) + mt.math.log(x)
    print(y.numpy()[0], tape.gradient(y, x).numpy()[0])
    try:
        np.array([1.0]) / np.array([0.0])
    except RuntimeWarning:
        print("numpy warns again")
"""


def test_without_numpys_private_error_state_the_public_errstate_keeps_ops_quiet():
    result = subprocess.run([sys.executable, "-c", NUMPY_WITHOUT_ITS_PRIVATE_API], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == ["-inf inf", "numpy warns again"]

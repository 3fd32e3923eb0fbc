"""Property tests: random shapes, broadcasting, axes and slices; gradients keep input shapes and match
finite differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import minitape as mt
from minitape.aids.check_gradients import check_gradients

pytestmark = pytest.mark.filterwarnings("error")
FEW = settings(max_examples=25, deadline=None, derandomize=True, database=None)
seeds = st.integers(0, 2**32 - 1)


def values(seed, shape, low=0.5, high=1.5, signed=True):
    """Random values of `shape` at least `low` away from zero (away from every kink and pole)."""
    rng = np.random.default_rng(seed)
    magnitude = rng.uniform(low, high, shape)
    return magnitude * rng.choice([-1.0, 1.0], shape) if signed else magnitude


BINARY = {
    "add": (lambda a, b: a + b, True),
    "subtract": (lambda a, b: a - b, True),
    "multiply": (lambda a, b: a * b, True),
    "divide": (lambda a, b: a / b, True),
    "pow": (lambda a, b: mt.pow(a, b), False),  # base positive
    "maximum": (mt.maximum, True),
    "where": (lambda a, b: mt.where(a > b, a, b * b), True),
}


@FEW
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
    op=st.sampled_from(sorted(BINARY)),
    seed=seeds,
)
def test_binary_op_gradients_have_the_input_shapes_and_match_finite_differences(shapes, op, seed):
    fn, signed = BINARY[op]
    a = values(seed, shapes.input_shapes[0], signed=signed)
    b = values(seed + 1, shapes.input_shapes[1]) + 0.01  # no ties for maximum and where
    ta, tb = mt.constant(a), mt.constant(b)
    with mt.GradientTape() as tape:
        tape.watch([ta, tb])
        y = fn(ta, tb)
    assert y.shape == shapes.result_shape
    ga, gb = tape.gradient(y, [ta, tb])
    assert ga.shape == a.shape and gb.shape == b.shape
    check_gradients(fn, [a, b])


REDUCTIONS = {
    "sum": (mt.reduce_sum, np.sum),
    "mean": (mt.reduce_mean, np.mean),
    "max": (mt.reduce_max, np.max),
    "min": (mt.reduce_min, np.min),
    "prod": (mt.reduce_prod, np.prod),
    "logsumexp": (mt.reduce_logsumexp, lambda x, axis, keepdims: np.log(np.sum(np.exp(x), axis, keepdims=keepdims))),
}


@st.composite
def shape_and_axes(draw):
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=3))
    rank = len(shape)
    if rank == 0 or draw(st.booleans()):
        return shape, None
    axes = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank, unique_by=lambda a: a % rank))
    return shape, axes[0] if len(axes) == 1 and draw(st.booleans()) else axes


@FEW
@given(case=shape_and_axes(), op=st.sampled_from(sorted(REDUCTIONS)), keepdims=st.booleans(), seed=seeds)
def test_reductions_over_random_axes(case, op, keepdims, seed):
    shape, axis = case
    fn, reference = REDUCTIONS[op]
    n = int(np.prod(shape, dtype=int))
    # distinct values so max and min have one winner
    x = (np.random.default_rng(seed).permutation(n) / max(n, 1) + 0.5).reshape(shape)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    y = fn(mt.constant(x), axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(y.numpy(), reference(x, axis=np_axis, keepdims=keepdims), rtol=1e-12)
    check_gradients(lambda t: fn(t, axis=axis, keepdims=keepdims), [x])


@st.composite
def shape_and_key(draw):
    shape = draw(array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    key = []
    for n in shape[: draw(st.integers(1, len(shape)))]:
        # ints and slices: TensorFlow refuses an index list inside x[...] (mt.gather picks entries instead)
        if draw(st.booleans()):
            key.append(draw(st.integers(-n, n - 1)))
        else:
            start = draw(st.none() | st.integers(-n, n))
            stop = draw(st.none() | st.integers(-n, n))
            step = draw(st.none() | st.sampled_from([-2, -1, 1, 2]))
            key.append(slice(start, stop, step))
    return shape, tuple(key)


@FEW
@given(case=shape_and_key(), seed=seeds)
def test_indexing_routes_each_gradient_back_to_its_element(case, seed):
    shape, key = case
    x = values(seed, shape)
    weights = np.random.default_rng(seed + 1).normal(size=np.asarray(x[key]).shape)
    t = mt.constant(x)
    with mt.GradientTape() as tape:
        tape.watch(t)
        y = mt.reduce_sum(t[key] * weights)
    assert y.numpy() == pytest.approx(np.sum(x[key] * weights))
    expected = np.zeros_like(x)
    np.add.at(expected, key, weights)  # repeated indices accumulate
    np.testing.assert_allclose(tape.gradient(y, t).numpy(), expected)


@FEW
@given(shape=array_shapes(min_dims=1, max_dims=4, min_side=1, max_side=3), data=st.data())
def test_transpose_and_reshape_gradients_undo_the_move(shape, data):
    perm = data.draw(st.permutations(range(len(shape))))
    x = values(data.draw(seeds), shape)

    def moved(t):
        return mt.reshape(mt.transpose(t, perm=perm), [-1]) * np.arange(1.0, x.size + 1)

    check_gradients(moved, [x], order=2)


@FEW
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
    scale=st.floats(-3, 3, allow_nan=False),
    seed=seeds,
)
def test_gradients_are_linear_in_the_target(shapes, scale, seed):
    a = values(seed, shapes.input_shapes[0])
    b = values(seed + 1, shapes.input_shapes[1])
    ta, tb = mt.constant(a), mt.constant(b)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch([ta, tb])
        f = mt.reduce_sum(mt.sin(ta * tb))
        g = mt.reduce_sum(mt.exp(ta) + tb)
        combined = f * scale + g
    for source in (ta, tb):
        lhs = tape.gradient(combined, source).numpy()
        rhs = tape.gradient(f, source).numpy() * scale + tape.gradient(g, source).numpy()
        np.testing.assert_allclose(lhs, rhs, rtol=1e-12, atol=1e-12)


@FEW
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
    op=st.sampled_from(sorted(BINARY)),
    seed=seeds,
)
def test_forward_mode_agrees_with_reverse_mode(shapes, op, seed):
    fn, signed = BINARY[op]
    a = values(seed, shapes.input_shapes[0], signed=signed)
    b = values(seed + 1, shapes.input_shapes[1]) + 0.01
    rng = np.random.default_rng(seed + 2)
    va, vb = rng.normal(size=a.shape), rng.normal(size=b.shape)
    weights = rng.normal(size=shapes.result_shape)
    ta, tb = mt.constant(a), mt.constant(b)
    with mt.autodiff.ForwardAccumulator([ta, tb], [mt.constant(va), mt.constant(vb)]) as acc:
        with mt.GradientTape() as tape:
            tape.watch([ta, tb])
            y = fn(ta, tb)
    ga, gb = tape.gradient(y, [ta, tb], output_gradients=mt.constant(weights))
    # <w, J v> from forward mode equals <J^T w, v> from reverse mode
    forward = float(np.sum(acc.jvp(y).numpy() * weights))
    reverse = float(np.sum(ga.numpy() * va) + np.sum(gb.numpy() * vb))
    assert forward == pytest.approx(reverse, rel=1e-10, abs=1e-12)

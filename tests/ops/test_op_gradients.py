"""Every differentiable op against central finite differences, in float64, over scalar, vector, matrix and
broadcasting shapes; second derivatives for the smooth ones."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

pytestmark = pytest.mark.filterwarnings("error")  # no op may warn on valid input
rng = np.random.default_rng(1234)


def signed(*shape):
    """Values of both signs, at least 0.3 away from zero (the kink of abs, relu, sign)."""
    return rng.uniform(0.3, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


def positive(*shape):
    return rng.uniform(0.5, 2.0, shape)


def distinct(*shape):
    """Values with no ties, so max/min/sort-like ops have a unique answer."""
    n = int(np.prod(shape, dtype=int))
    return (rng.permutation(n) * 0.37 - 0.5 * n * 0.37 + 0.05).reshape(shape)


SHAPES = {"scalar": (), "vector": (3,), "matrix": (2, 3)}
BROADCASTS = {
    "matrix+row": ((2, 3), (3,)),
    "column+row": ((2, 1), (1, 3)),
    "scalar+matrix": ((), (2, 3)),
    "rank3+matrix": ((2, 1, 3), (4, 3)),
}

# ---- elementwise unary ops: (name, function, input maker, smooth) ------------------------------------
UNARY = [
    ("negative", mt.negative, signed, True),
    ("neg_operator", lambda x: -x, signed, True),
    ("exp", mt.exp, signed, True),
    ("log", mt.math.log, positive, True),
    ("log1p", mt.math.log1p, positive, True),
    ("sin", mt.sin, signed, True),
    ("cos", mt.math.cos, signed, True),
    ("tan", mt.math.tan, lambda *s: signed(*s) * 0.8, True),
    ("tanh", mt.tanh, signed, True),
    ("sigmoid", mt.math.sigmoid, signed, True),
    ("nn_sigmoid", mt.nn.sigmoid, signed, True),
    ("square", mt.square, signed, True),
    ("sqrt", mt.sqrt, positive, True),
    ("rsqrt", mt.rsqrt, positive, True),
    ("reciprocal", mt.math.reciprocal, signed, True),
    ("identity", mt.identity, signed, True),
    ("softplus", mt.nn.softplus, signed, True),
    ("math_softplus", mt.math.softplus, lambda *s: signed(*s) * 20, True),
    ("pow_const", lambda x: x**3, signed, True),
    ("rpow", lambda x: 2.0**x, signed, True),
    ("pow_fractional", lambda x: mt.math.pow(x, 2.5), positive, True),
    ("rsub", lambda x: 1.0 - x, signed, True),
    ("rdiv", lambda x: 1.0 / x, signed, True),
    ("abs", mt.abs, signed, False),
    ("abs_operator", abs, signed, False),
    ("relu", mt.nn.relu, signed, False),
    ("leaky_relu", mt.nn.leaky_relu, signed, False),
    ("elu", mt.nn.elu, signed, False),
    ("silu", mt.nn.silu, signed, True),
    ("swish", lambda x: mt.nn.swish(x, beta=2.0), signed, True),
    ("l2_loss", mt.nn.l2_loss, signed, True),
    ("norm", mt.norm, signed, True),
    ("clip_by_value", lambda x: mt.clip_by_value(x, -0.9, 0.8), signed, False),
    ("clip_by_norm_active", lambda x: mt.clip_by_norm(x, 0.2), signed, True),
    ("clip_by_norm_inactive", lambda x: mt.clip_by_norm(x, 100.0), signed, True),
]


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("name,fn,make,smooth", UNARY, ids=[u[0] for u in UNARY])
def test_unary(name, fn, make, smooth, shape):
    check_gradients(fn, [make(*shape)], order=2 if smooth else 1)


# ---- binary ops: each over equal shapes and every broadcast pair --------------------------------------
BINARY = [
    ("add", mt.add, signed, signed),
    ("add_operator", lambda a, b: a + b, signed, signed),
    ("subtract", mt.subtract, signed, signed),
    ("sub_operator", lambda a, b: a - b, signed, signed),
    ("multiply", mt.multiply, signed, signed),
    ("mul_operator", lambda a, b: a * b, signed, signed),
    ("divide", mt.divide, signed, signed),
    ("div_operator", lambda a, b: a / b, signed, signed),
    ("pow", mt.pow, positive, signed),
    ("pow_operator", lambda a, b: a**b, positive, signed),
    ("maximum", mt.maximum, distinct, lambda *s: distinct(*s) + 0.11),
    ("minimum", mt.math.minimum, distinct, lambda *s: distinct(*s) + 0.11),
    ("squared_difference", mt.math.squared_difference, signed, signed),
    ("where", lambda a, b: mt.where(a > b, a * b, a - b), distinct, lambda *s: distinct(*s) + 0.11),
]
BINARY_SMOOTH = {"maximum": False, "minimum": False, "where": False}


def _binary_shapes():
    same = {f"same_{k}": (v, v) for k, v in SHAPES.items()}
    both = {**same, **BROADCASTS, **{k + "_swapped": (b, a) for k, (a, b) in BROADCASTS.items()}}
    return list(both.values()), list(both.keys())


@pytest.mark.parametrize("shapes", _binary_shapes()[0], ids=_binary_shapes()[1])
@pytest.mark.parametrize("name,fn,make_a,make_b", BINARY, ids=[b[0] for b in BINARY])
def test_binary(name, fn, make_a, make_b, shapes):
    a, b = make_a(*shapes[0]), make_b(*shapes[1])
    order = 2 if BINARY_SMOOTH.get(name, True) else 1
    check_gradients(fn, [a, b], order=order)
    # each gradient has its input's shape, even when broadcasting grew the output
    ta, tb = mt.constant(a), mt.constant(b)
    with mt.GradientTape() as tape:
        tape.watch([ta, tb])
        y = fn(ta, tb)
    ga, gb = tape.gradient(y, [ta, tb])
    assert ga.shape == a.shape and gb.shape == b.shape
    assert ga.dtype == gb.dtype == mt.float64


# ---- reductions over every axis form, with and without keepdims -------------------------------------
REDUCTIONS = [
    ("reduce_sum", mt.reduce_sum, signed, True),
    ("reduce_mean", mt.reduce_mean, signed, True),
    ("math_reduce_mean", mt.math.reduce_mean, signed, True),
    ("reduce_max", mt.reduce_max, distinct, False),
    ("reduce_min", mt.reduce_min, distinct, False),
    ("reduce_prod", mt.reduce_prod, signed, True),
    ("reduce_logsumexp", mt.reduce_logsumexp, signed, True),
    ("reduce_variance", mt.math.reduce_variance, signed, True),
    ("math_reduce_logsumexp", mt.math.reduce_logsumexp, lambda *s: signed(*s) * 30, True),
]
AXES = [None, 0, 1, -1, 2, (0, 2), [0, 1, 2], (-1, 0)]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=[str(a) for a in AXES])
@pytest.mark.parametrize("name,fn,make,smooth", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reduction(name, fn, make, smooth, axis, keepdims):
    x = make(2, 3, 4)
    out = fn(mt.constant(x), axis=axis, keepdims=keepdims)
    np_axis = tuple(axis) if isinstance(axis, list) else axis
    reference = {"reduce_max": np.max, "reduce_min": np.min, "reduce_prod": np.prod}.get(name)
    if reference is not None:
        np.testing.assert_allclose(out.numpy(), reference(x, axis=np_axis, keepdims=keepdims))
    check_gradients(lambda t: fn(t, axis=axis, keepdims=keepdims), [x], order=2 if smooth else 1)


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
@pytest.mark.parametrize("name,fn,make,smooth", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reduction_over_all_axes_of_small_shapes(name, fn, make, smooth, shape):
    check_gradients(fn, [make(*shape)], order=2 if smooth else 1)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)], ids=str)
def test_reduce_std_away_from_zero_spread(axis):
    # one value per reduced set has zero spread, where the derivative of sqrt is infinite: keep sets of 2+
    x = distinct(3, 4)
    np.testing.assert_allclose(mt.math.reduce_std(x, axis=axis).numpy(), np.std(x, axis=axis))
    check_gradients(lambda t: mt.math.reduce_std(t, axis=axis, keepdims=True), [x], order=2)


@pytest.mark.parametrize(
    "x",
    [
        [[1.0, 0.0, 2.0], [3.0, 0.5, -1.5]],  # one zero in a row
        [[1.0, 0.0, 2.0], [0.0, 0.0, 4.0]],  # two zeros in a row
        [[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]],  # all zeros, and two zeros with one non-zero
    ],
    ids=["one_zero", "two_zeros", "all_zeros"],
)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reduce_prod_with_zeros(x, axis):
    x = np.array(x)
    check_gradients(lambda t: mt.reduce_prod(t, axis=axis), [x], order=2)
    t = mt.constant(x)
    with mt.GradientTape() as tape:
        tape.watch(t)
        y = mt.reduce_prod(t, axis=axis)
    grad = tape.gradient(y, t).numpy()
    assert np.all(np.isfinite(grad))
    # the product of the other elements, computed the slow way
    expected = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        others = x.copy()
        others[index] = 1.0
        if axis is None:
            expected[index] = np.prod(others)
        else:
            line = list(index)
            line[axis] = slice(None)
            expected[index] = np.prod(others[tuple(line)])
    np.testing.assert_array_equal(grad, expected)


def test_reduce_max_splits_the_gradient_among_ties():
    x = mt.constant([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_max(x, axis=1)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])


# ---- array ops: indexing, slicing, gather, joins, reshapes -------------------------------------------
X = signed(3, 4)
ARRAY_OPS = [
    ("index_int", lambda x: x[1], X),
    ("index_negative", lambda x: x[-1, 2], X),
    ("slice", lambda x: x[1:], X),
    ("slice_step", lambda x: x[:, ::2], X),
    ("slice_reverse", lambda x: x[::-1, 1:3], X),
    ("ellipsis", lambda x: x[..., 0], X),
    ("newaxis", lambda x: x[None, 1, mt.newaxis], X),
    ("gather_repeated", lambda x: mt.gather(x, np.array([0, 0, 2])), X),
    ("gather_columns", lambda x: mt.gather(x, [3, 0, 3], axis=1), X),
    ("gather_nd_pairs", lambda x: mt.gather_nd(x, [[0, 1], [2, 1], [2, 3]]), X),
    ("bool_mask", lambda x: x[np.array([True, False, True])], X),
    ("tensor_index", lambda x: x[mt.constant(2)], X),
    ("gather_axis0", lambda x: mt.gather(x, [2, 0, 2]), X),
    ("gather_axis1", lambda x: mt.gather(x, mt.constant([[1, 1], [3, 0]]), axis=1), X),
    ("gather_negative_axis", lambda x: mt.gather(x, [0, 3], axis=-1), X),
    ("gather_vector", lambda x: mt.gather(x[0], [3, 3, 1]), X),
    ("concat_axis0", lambda x: mt.concat([x, x * x, x[:1]], axis=0), X),
    ("concat_axis1", lambda x: mt.concat([x, mt.sin(x)], axis=1), X),
    ("concat_axis_minus1", lambda x: mt.concat([x[:, :1], x], axis=-1), X),
    ("stack_axis0", lambda x: mt.stack([x, x * x]), X),
    ("stack_axis1", lambda x: mt.stack([x, 2.0 * x, x], axis=1), X),
    ("stack_axis_minus1", lambda x: mt.stack([x, mt.exp(x)], axis=-1), X),
    ("unstack", lambda x: mt.unstack(x), X),  # check_gradients takes a list of outputs
    ("unstack_weighted", lambda x: mt.stack([u * (i + 1.0) for i, u in enumerate(mt.unstack(x))]), X),
    ("dict_of_outputs", lambda x: {"square": x**2, "sum": mt.reduce_sum(x)}, X),
    ("unstack_axis1", lambda x: mt.add_n([u * u for u in mt.unstack(x, axis=1)]), X),
    ("reshape", lambda x: mt.reshape(x, (2, -1)) * np.arange(1.0, 7.0), X),
    ("reshape_vector", lambda x: mt.reshape(x, [-1]) ** 2, X),
    ("transpose", lambda x: mt.transpose(x) @ x, X),
    ("transpose_perm", lambda x: mt.transpose(mt.reshape(x, (2, 3, 2)), perm=[1, 2, 0]) ** 3, X),
    ("expand_dims", lambda x: mt.expand_dims(x, 1) * x, X),
    ("squeeze", lambda x: mt.squeeze(x[:1]) ** 2, X),
    ("tile", lambda x: mt.tile(x, [2, 3]) ** 2, X),
    ("tile_rank1", lambda x: mt.tile(x[0], [3]) ** 2, X),
    ("pad", lambda x: mt.pad(x, [[1, 2], [0, 1]]) ** 2, X),
    ("pad_value", lambda x: mt.exp(mt.pad(x, [[0, 1], [2, 0]], constant_values=1.5)), X),
    ("broadcast_to", lambda x: mt.broadcast_to(x[0], (2, 4)) ** 2, X),
    ("where_broadcast", lambda x: mt.where(mt.constant([True, False, True, False]), x, x[0] ** 2), X),
    ("where_scalar_branch", lambda x: mt.where(x > 0.0, x**2, mt.constant(0.0, mt.float64)), X),
    ("iterate", lambda x: mt.stack([row**2 for row in x]), X),
    ("tf_slice", lambda x: mt.slice(x, [1, 0], [2, -1]) ** 2, X),
    ("scatter_add_repeated", lambda x: mt.tensor_scatter_nd_add(x, [[0, 1], [2, 3], [0, 1]], x[1, :3] ** 2), X),
    ("scatter_sub_rows", lambda x: mt.tensor_scatter_nd_sub(x**2, [[2], [0]], mt.sin(x[:2])), X),
    ("scatter_update", lambda x: mt.tensor_scatter_nd_update(x, [[1, 1], [2, 0]], x[0, :2] * 3.0) ** 2, X),
    ("scatter_max", lambda x: mt.tensor_scatter_nd_max(x, [[0, 0], [1, 2], [2, 3]], x[1, :3] + 0.37) ** 2, X),
    ("scatter_min", lambda x: mt.tensor_scatter_nd_min(x, [[0, 0], [1, 2], [2, 3]], x[1, :3] + 0.37) ** 2, X),
    ("scatter_nd", lambda x: mt.scatter_nd([[1], [3], [1]], x[:, 0] ** 2, [5]), X),
]


@pytest.mark.parametrize("name,fn,x", ARRAY_OPS, ids=[a[0] for a in ARRAY_OPS])
def test_array_op(name, fn, x):
    check_gradients(fn, [x], order=2)


# ---- matmul ----------------------------------------------------------------------------------------
MATMUL = [
    ("matrix", (2, 3), (3, 4)),
    ("vector_as_matrix", (1, 3), (3, 1)),
    ("batched", (5, 2, 3), (5, 3, 4)),
    ("broadcast_left", (2, 3), (5, 3, 4)),
    ("broadcast_right", (5, 2, 3), (3, 4)),
    ("broadcast_batch", (5, 1, 2, 3), (4, 3, 2)),
]


@pytest.mark.parametrize("name,sa,sb", MATMUL, ids=[m[0] for m in MATMUL])
def test_matmul(name, sa, sb):
    a, b = signed(*sa), signed(*sb)
    check_gradients(mt.matmul, [a, b], order=2)
    check_gradients(lambda p, q: p @ q, [a, b], order=1)
    np.testing.assert_allclose(mt.matmul(a, b).numpy(), a @ b)


def test_matmul_with_a_numpy_array_on_the_left():
    w = mt.Variable(signed(3, 2))
    x = signed(4, 3)
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(x @ w)
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), x.T @ np.ones((4, 2)))


# ---- einsum --------------------------------------------------------------------------------------
EINSUM = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output: the letters used once
    ("ii->i", [(3, 3)]),
    ("ii->", [(3, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ijk->k", [(2, 3, 4)]),
    ("i,j->ij", [(2,), (3,)]),
    ("ij,ij->i", [(2, 3), (2, 3)]),
    (",i->i", [(), (3,)]),
    ("bxby->bxy", [(2, 3, 2, 4)]),  # TensorFlow's batch-jacobian example
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e[0] for e in EINSUM])
def test_einsum(equation, shapes):
    args = [signed(*s) for s in shapes]
    np.testing.assert_allclose(mt.einsum(equation, *args).numpy(), np.einsum(equation, *args))
    check_gradients(lambda *t: mt.einsum(equation, *t), args, order=2)


@pytest.mark.parametrize("axes", [1, 0, ([1, 2], [1, 0]), [[2], [0]], ([-1], [0])], ids=str)
def test_tensordot(axes):
    a, b = signed(2, 3, 4), signed(4, 3, 5)
    np.testing.assert_allclose(mt.tensordot(a, b, axes).numpy(), np.tensordot(a, b, axes))
    check_gradients(lambda p, q: mt.tensordot(p, q, axes), [a, b], order=2)


# ---- casts between floating types: the gradient comes back in the source's dtype --------------------
@pytest.mark.parametrize("source", [mt.float16, mt.float32, mt.float64])
@pytest.mark.parametrize("target", [mt.float16, mt.float32, mt.float64])
def test_cast_float_to_float(source, target):
    x = mt.constant([0.5, -1.25, 2.0], dtype=source)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.cast(x, target) ** 2)
    g = tape.gradient(y, x)
    assert y.dtype == target and g.dtype == source
    np.testing.assert_array_equal(g.numpy(), [1.0, -2.5, 4.0])


def test_cast_float64_to_float64_passes_finite_differences():
    check_gradients(lambda x: mt.cast(x, mt.float64) * x, [signed(3)], order=2)


# ---- neural-network ops -----------------------------------------------------------------------------
LOGITS = signed(4, 5) * 2
LABELS = np.array([0, 4, 2, 2])
PROBS = rng.dirichlet(np.ones(5), size=4)
BITS = rng.integers(0, 2, size=(4, 5)).astype(np.float64)
NN = [
    ("softmax", lambda x: mt.nn.softmax(x)),
    ("softmax_axis0", lambda x: mt.nn.softmax(x, axis=0)),
    ("log_softmax", lambda x: mt.nn.log_softmax(x)),
    ("log_softmax_axis0", lambda x: mt.nn.log_softmax(x, axis=0)),
    ("sparse_softmax_cross_entropy", lambda x: mt.nn.sparse_softmax_cross_entropy_with_logits(labels=LABELS, logits=x)),
    ("softmax_cross_entropy", lambda x: mt.nn.softmax_cross_entropy_with_logits(labels=PROBS, logits=x)),
    ("sigmoid_cross_entropy", lambda x: mt.nn.sigmoid_cross_entropy_with_logits(labels=BITS, logits=x)),
    ("reduce_logsumexp_rows", lambda x: mt.reduce_logsumexp(x, axis=1)),
    ("mlp", lambda x: mt.reduce_mean(mt.nn.tanh(x @ mt.transpose(x)) ** 2)),
]


@pytest.mark.parametrize("name,fn", NN, ids=[n[0] for n in NN])
def test_nn_op(name, fn):
    check_gradients(fn, [LOGITS], order=2)


def test_softmax_of_a_vector_and_large_logits():
    check_gradients(mt.nn.softmax, [signed(6)], order=2)
    big = np.array([[1000.0, 999.0, -1000.0]])
    probs = mt.nn.softmax(big).numpy()
    assert np.all(np.isfinite(probs)) and probs.sum() == pytest.approx(1.0)
    check_gradients(mt.nn.log_softmax, [big], order=2)


def test_cross_entropies_match_their_definitions():
    logits = mt.constant(LOGITS)
    log_probs = LOGITS - np.log(np.exp(LOGITS).sum(axis=1, keepdims=True))
    sparse = mt.nn.sparse_softmax_cross_entropy_with_logits(labels=LABELS, logits=logits)
    np.testing.assert_allclose(sparse.numpy(), -log_probs[np.arange(4), LABELS])
    dense = mt.nn.softmax_cross_entropy_with_logits(labels=PROBS, logits=logits)
    np.testing.assert_allclose(dense.numpy(), -(PROBS * log_probs).sum(axis=1))
    sigmoid = 1 / (1 + np.exp(-LOGITS))
    binary = mt.nn.sigmoid_cross_entropy_with_logits(labels=BITS, logits=logits)
    np.testing.assert_allclose(binary.numpy(), -(BITS * np.log(sigmoid) + (1 - BITS) * np.log(1 - sigmoid)))
    # d(cross-entropy)/dlogits = softmax - one_hot: TensorFlow's closed form
    with mt.GradientTape() as tape:
        tape.watch(logits)
        loss = mt.reduce_sum(mt.nn.sparse_softmax_cross_entropy_with_logits(labels=LABELS, logits=logits))
    probs = np.exp(log_probs)
    np.testing.assert_allclose(tape.gradient(loss, logits).numpy(), probs - np.eye(5)[LABELS])


# ---- fan-out: a value used twice accumulates both contributions -------------------------------------
def test_fan_out_accumulates_every_use():
    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        a = x * 2.0  # used three times below
        y = a * a + mt.sin(a) + a
    # y = 4x^2 + sin(2x) + 2x -> 8x + 2cos(2x) + 2
    assert tape.gradient(y, x).numpy() == pytest.approx(24.0 + 2 * np.cos(6.0) + 2.0, rel=1e-6)

    v = mt.Variable([1.0, 2.0])
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(v * v) + mt.reduce_sum(v) + v[0] * v[1]  # v read four times
    np.testing.assert_allclose(tape.gradient(y, v).numpy(), [2.0 + 1.0 + 2.0, 4.0 + 1.0 + 1.0])

    check_gradients(lambda t: t * t * t + mt.exp(t) * t, [signed(3)], order=2)

    def reused(t):
        return mt.concat([t, t, t[::-1]], axis=0) * mt.gather(t, [0, 1, 2, 2, 1, 0, 0, 0, 0])

    check_gradients(reused, [signed(3)], order=2)


# ---- the checker itself catches wrong rules, at either order -----------------------------------------
def test_check_gradients_catches_a_wrong_first_and_second_derivative():
    @mt.custom_gradient
    def wrong_first(x):
        return x * x, lambda dy: dy * 3.0 * x  # should be 2x

    @mt.custom_gradient
    def wrong_second(x):
        return x * x * x, lambda dy: dy * 3.0 * mt.stop_gradient(x) ** 2  # right value, no second derivative

    x = positive(3)
    with pytest.raises(AssertionError, match="derivative order 1"):
        check_gradients(wrong_first, [x])
    check_gradients(wrong_second, [x], order=1)
    with pytest.raises(AssertionError, match="derivative order 2"):
        check_gradients(wrong_second, [x], order=2)


def test_sigmoid_and_softplus_are_accurate_in_both_tails():
    z = mt.constant([-80.0, -20.0, 0.0, 20.0, 100.0])
    expected = 1 / (1 + np.exp(-np.array([-80.0, -20.0, 0.0, 20.0, 100.0])))
    np.testing.assert_allclose(mt.sigmoid(z).numpy(), expected, rtol=1e-6)  # float32 keeps e^-20 and e^-80
    with mt.GradientTape() as tape:
        tape.watch(z)
        y = mt.nn.softplus(z)
    np.testing.assert_allclose(y.numpy(), np.logaddexp(0, z.numpy()), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, z).numpy(), expected, rtol=1e-6)
    assert np.isfinite(mt.math.log(mt.sigmoid(mt.constant(-80.0))).numpy())

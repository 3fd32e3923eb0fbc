"""Tensors, variables and the tape as a TensorFlow 2 user sees them: dtypes, reprs, operators, creation, memory."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import minitape as mt


# ---- dtypes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value,dtype",
    [
        (1.5, mt.float32),
        ([1, 2.5], mt.float32),
        (3, mt.int32),
        ([[1, 2]], mt.int32),
        (True, mt.bool),
        (np.float64(1.0), mt.float64),
        (np.arange(3), mt.int64),
        (np.ones(2, np.float16), mt.float16),
        (np.ones(2, np.int32), mt.int32),
    ],
)
def test_dtype_defaults_follow_tensorflow(value, dtype):
    assert mt.constant(value).dtype == dtype
    assert mt.convert_to_tensor(value).dtype == dtype
    assert mt.Variable(value).dtype == dtype


def test_explicit_dtype_and_python_numbers_joining_a_tensor():
    assert mt.constant(1, dtype=mt.float64).dtype == mt.float64
    x = mt.constant([1.0, 2.0], dtype=mt.float64)
    assert (x * 2).dtype == mt.float64 and (2.5 + x).dtype == mt.float64
    assert (mt.constant(3.0, dtype=mt.float16) * 2).dtype == mt.float16
    assert mt.constant([1, 2], dtype="float32").dtype == mt.float32


@pytest.mark.parametrize("dtype", [mt.float16, mt.float32, mt.float64])
def test_gradient_keeps_the_source_dtype(dtype):
    x = mt.constant([1.0, 2.0], dtype=dtype)
    v = mt.Variable([3.0, 4.0], dtype=dtype)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_sum(x * v + mt.exp(x) * 0.5)
    gx, gv = tape.gradient(y, [x, v])
    assert gx.dtype == dtype and gv.dtype == dtype
    np.testing.assert_allclose(gx.numpy(), [3.0 + 0.5 * np.e, 4.0 + 0.5 * np.e**2], rtol=2e-3)
    np.testing.assert_array_equal(gv.numpy(), [1.0, 2.0])


# ---- repr and print form -------------------------------------------------------------------------
def test_repr_and_print_form():
    w1, w2 = mt.Variable(5.0), mt.Variable(3.0)
    with mt.GradientTape() as tape:
        f = 3 * w1**2 + 2 * w1 * w2
    dw1, dw2 = tape.gradient(f, [w1, w2])
    assert repr(dw1) == "<mt.Tensor: shape=(), dtype=float32, numpy=36.0>"
    assert repr(dw2) == "<mt.Tensor: shape=(), dtype=float32, numpy=10.0>"
    assert str(dw1) == "mt.Tensor(36.0, shape=(), dtype=float32)"
    vector = mt.constant([1.0, 2.0])
    assert repr(vector) == "<mt.Tensor: shape=(2,), dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert str(vector) == "mt.Tensor([1. 2.], shape=(2,), dtype=float32)"
    matrix = mt.constant([[1, 2], [3, 4]])
    expected = "<mt.Tensor: shape=(2, 2), dtype=int32, numpy=\narray([[1, 2],\n       [3, 4]], dtype=int32)>"
    assert repr(matrix) == expected
    assert str(matrix) == "mt.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    v = mt.Variable([1.0, 2.0], name="v")
    assert repr(v) == "<mt.Variable 'v:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>"
    assert str(mt.TensorShape((2, 3))) == "(2, 3)" and repr(mt.TensorShape((2,))) == "TensorShape([2])"


# ---- operators and Python conversions ------------------------------------------------------------
def test_operators_compute_like_numpy():
    a = mt.constant([3.0, -2.0, 0.5])
    b = mt.constant([2.0, 4.0, -1.0])
    na, nb = a.numpy(), b.numpy()
    cases = {
        "+": (a + b, na + nb),
        "-": (a - b, na - nb),
        "*": (a * b, na * nb),
        "/": (a / b, na / nb),
        "//": (a // b, na // nb),
        "%": (a % b, np.mod(na, nb)),
        "**": (mt.abs(a) ** b, np.abs(na) ** nb),
        "neg": (-a, -na),
        "abs": (abs(a), np.abs(na)),
        "radd": (1.0 + a, 1.0 + na),
        "rsub": (1.0 - a, 1.0 - na),
        "rmul": (2.0 * a, 2.0 * na),
        "rdiv": (1.0 / a, 1.0 / na),
        "rpow": (2.0**a, 2.0**na),
        "numpy_left": (na * b, na * nb),
        "<": (a < b, na < nb),
        "<=": (a <= b, na <= nb),
        ">": (a > b, na > nb),
        ">=": (a >= b, na >= nb),
        "==": (a == b, na == nb),
        "!=": (a != b, na != nb),
    }
    for name, (got, expected) in cases.items():
        assert isinstance(got, mt.Tensor), name
        np.testing.assert_allclose(got.numpy(), expected, err_msg=name)
    m = mt.constant([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal((m @ m).numpy(), m.numpy() @ m.numpy())
    mask = mt.constant([True, False])
    np.testing.assert_array_equal((mask & ~mask).numpy(), [False, False])
    np.testing.assert_array_equal((mask | ~mask).numpy(), [True, True])


def test_integer_division_follows_tensorflow():
    assert (mt.constant(3) / mt.constant(2)).dtype == mt.float64  # true division of ints gives float64
    assert float(mt.constant(3) / 2) == 1.5 and float(3 / mt.constant(2)) == 1.5
    np.testing.assert_array_equal((mt.range(4) / 4).numpy(), [0.0, 0.25, 0.5, 0.75])
    assert int(mt.constant(7) // 2) == 3 and int(mt.constant(-7) % 3) == 2  # floor division and modulo
    assert (mt.constant(3.0) / 2).dtype == mt.float32
    assert mt.reduce_mean(mt.constant([1, 2])).numpy() == 1  # an integer mean stays an integer, as in TF


def test_scalars_convert_to_python_so_if_works():
    x = mt.constant(2.0)
    branch = "positive" if x > 0.0 else "negative"
    assert branch == "positive"
    assert float(x) == 2.0 and int(mt.constant(3)) == 3 and not bool(mt.constant(0.0))
    assert bool(mt.Variable(1.0) > 0.5)
    assert [0, 10, 20][mt.constant(1)] == 10
    with pytest.raises(ValueError, match="ambiguous"):
        bool(mt.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="only a scalar tensor"):
        float(mt.constant([1.0, 2.0]))
    with pytest.raises(TypeError, match="integer"):
        [0, 1][mt.constant(1.0)]
    assert len(mt.constant([1, 2, 3])) == 3
    assert [int(t) for t in mt.constant([4, 5])] == [4, 5]


def test_tensors_are_unhashable_but_have_refs():
    a, b = mt.constant(1.0), mt.Variable(1.0)
    with pytest.raises(TypeError, match="ref"):
        hash(a)
    table = {a.ref(): "a", b.ref(): "b"}
    assert table[a.ref()] == "a" and table[b.ref()] == "b" and a.ref().deref() is a


def test_indexing_values_match_numpy():
    n = np.arange(24.0).reshape(2, 3, 4)
    x = mt.constant(n)
    keys = [1, -1, (0, 2), slice(1, None), (Ellipsis, 1), (None, 1), (1, slice(None, None, -2))]
    for key in keys:
        np.testing.assert_array_equal(x[key].numpy(), n[key], err_msg=str(key))
    np.testing.assert_array_equal(x[n > 20].numpy(), n[n > 20])
    np.testing.assert_array_equal(x[mt.constant(1)].numpy(), n[1])


# ---- creation -------------------------------------------------------------------------------------
def test_creation_functions():
    assert mt.zeros((2, 3)).shape == (2, 3) and mt.zeros((2, 3)).dtype == mt.float32
    assert mt.ones((2, 2)).numpy().sum() == 4.0
    assert mt.ones(3, dtype=mt.int32).dtype == mt.int32
    np.testing.assert_array_equal(mt.fill([2, 2], 7.0).numpy(), np.full((2, 2), 7.0))
    np.testing.assert_array_equal(mt.zeros_like(mt.constant([1, 2])).numpy(), [0, 0])
    assert mt.ones_like(mt.constant([1.0, 2.0], dtype=mt.float64)).dtype == mt.float64
    np.testing.assert_array_equal(mt.range(5).numpy(), np.arange(5))
    assert mt.range(5).dtype == mt.int32
    np.testing.assert_array_equal(mt.range(1, 10, 3).numpy(), [1, 4, 7])
    assert mt.range(0.0, 1.0, 0.25).dtype == mt.float32
    np.testing.assert_array_equal(mt.eye(3).numpy(), np.eye(3))
    assert mt.eye(2, batch_shape=[4]).shape == (4, 2, 2)
    lin = mt.linspace(-10.0, 10.0, 201)
    assert lin.shape == (201,) and lin.dtype == mt.float32 and float(lin[100]) == 0.0


def test_random_set_seed_makes_runs_repeat():
    mt.random.set_seed(42)
    first = [mt.random.normal((3, 2)).numpy(), mt.random.uniform((4,)).numpy()]
    mt.random.set_seed(42)
    second = [mt.random.normal((3, 2)).numpy(), mt.random.uniform((4,)).numpy()]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], mt.random.normal((3, 2)).numpy())
    ints = mt.random.uniform((100,), minval=2, maxval=5, dtype=mt.int32)
    assert ints.dtype == mt.int32 and set(np.unique(ints.numpy())) <= {2, 3, 4}
    assert mt.random.normal((2,), dtype=mt.float64).dtype == mt.float64


def test_where_with_one_argument_gives_indices():
    indices = mt.where(mt.constant([[True, False], [False, True]]))
    assert indices.dtype == mt.int64
    np.testing.assert_array_equal(indices.numpy(), [[0, 0], [1, 1]])
    np.testing.assert_array_equal(mt.where([True, False], x=[1.0, 2.0], y=[3.0, 4.0]).numpy(), [1.0, 4.0])
    with pytest.raises(ValueError, match="both x and y"):
        mt.where([True], x=[1.0])


def test_one_hot_and_its_axis():
    labels = mt.constant([[0, 2], [1, 1]])
    expected = np.eye(3, dtype=np.float32)[labels.numpy()]
    np.testing.assert_array_equal(mt.one_hot(labels, 3).numpy(), expected)
    np.testing.assert_array_equal(mt.one_hot(labels, 3, axis=0).numpy(), np.moveaxis(expected, -1, 0))
    np.testing.assert_array_equal(mt.one_hot(labels, 3, axis=1).numpy(), np.moveaxis(expected, -1, 1))
    assert mt.one_hot([1], 2, on_value=5, off_value=-1, dtype=mt.int32).numpy().tolist() == [[-1, 5]]


def test_cast():
    x = mt.constant([1.7, -1.7, 0.0])
    np.testing.assert_array_equal(mt.cast(x, mt.int32).numpy(), [1, -1, 0])  # truncation, as in TensorFlow
    assert mt.cast(x, mt.float64).dtype == mt.float64
    np.testing.assert_array_equal(mt.cast(x, mt.bool).numpy(), [True, True, False])
    assert mt.cast(mt.constant([1, 0]), "float16").dtype == mt.float16


# ---- variables ------------------------------------------------------------------------------------
def test_variable_state_and_attributes():
    v = mt.Variable(1.0, name="counter")
    assert v.name == "counter:0" and v.trainable and v.shape == () and v.dtype == mt.float32
    handle = v.assign(3.0)  # TensorFlow's eager assign returns a second handle on v, named 'UnreadVariable'
    assert handle is not v and handle.name == "UnreadVariable" and handle.numpy() == 3.0
    v.assign_add(2.0)
    v.assign_sub(0.5)
    assert v.numpy() == 4.5 and handle.numpy() == 4.5  # the handle reads v when it is used
    handle.assign_add(1.0)
    assert v.numpy() == 5.5 and v.assign(4.5, read_value=False) is None  # as in TensorFlow
    frozen = mt.Variable(2.0, trainable=False)
    assert not frozen.trainable and frozen.name == "Variable:0"
    w = mt.Variable(mt.random.normal((3, 2)), name="w")
    b = mt.Variable(mt.zeros(2, dtype=mt.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    y = x @ w + b
    assert y.shape == (1, 2)
    read = w.read_value()
    w.assign(mt.zeros((3, 2)))
    assert np.any(read.numpy() != 0)  # a value read earlier keeps the old value
    assert mt.Variable(lambda: mt.ones(2)).shape == (2,)
    assert mt.Variable(np.zeros(3), dtype=mt.float32).dtype == mt.float32


def test_assign_add_inside_a_training_loop():
    w = mt.Variable([1.0, -2.0])
    for _ in range(50):
        with mt.GradientTape() as tape:
            loss = mt.reduce_sum(w**2)
        w.assign_sub(0.1 * tape.gradient(loss, w))
    assert np.all(np.abs(w.numpy()) < 1e-4)


# ---- the tape's lifetime ---------------------------------------------------------------------------
def test_a_persistent_tape_answers_many_questions():
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = mt.reduce_sum(mt.sin(y))
    for _ in range(5):
        np.testing.assert_allclose(tape.gradient(z, x).numpy(), np.cos([1.0, 4.0]) * [2.0, 4.0], rtol=1e-6)
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0])
    assert tape.jacobian(y, x).shape == (2, 2)
    tape.reset()
    assert tape.gradient(z, x) is None


def test_del_tape_frees_what_it_saved():
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        hidden = mt.exp(x)  # Exp saves its output
        y = mt.reduce_sum(hidden)
    saved = weakref.ref(hidden._value)  # what the record keeps: the array
    del hidden
    gc.collect()
    assert saved() is not None
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), np.exp([1.0, 2.0]), rtol=1e-6)
    del tape
    assert saved() is None


def test_a_used_non_persistent_tape_drops_its_saved_tensors():
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        hidden = mt.exp(x)
        y = mt.reduce_sum(hidden)
    saved = weakref.ref(hidden._value)  # what the record keeps: the array
    del hidden
    tape.gradient(y, x)
    gc.collect()
    assert saved() is None  # the tape object lives on, its saved tensors do not


def test_a_chain_of_100000_ops_differentiates_without_recursion():
    x = mt.constant(1.0, dtype=mt.float64)
    factor = mt.constant(1.00001, dtype=mt.float64)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for _ in range(100_000):
            y = y * factor
    assert tape.gradient(y, x).numpy() == pytest.approx(1.00001**100_000, rel=1e-9)


# ---- structures, weights and unusual sources -----------------------------------------------------
def test_nested_targets_and_sources():
    a, b = mt.Variable(1.0), mt.Variable([1.0, 2.0])
    c = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(c)
        targets = {"first": a * c, "rest": (mt.reduce_sum(b * b), [a * b])}
    grads = tape.gradient(targets, {"a": a, "pair": (b, [c])})
    assert set(grads) == {"a", "pair"} and isinstance(grads["pair"], tuple) and isinstance(grads["pair"][1], list)
    assert grads["a"].numpy() == 3.0 + 3.0  # c + sum(b)
    np.testing.assert_array_equal(grads["pair"][0].numpy(), [2.0 + 1.0, 4.0 + 1.0])  # 2b + a
    assert grads["pair"][1][0].numpy() == 1.0


def test_output_gradients_weight_each_target():
    x = mt.constant([1.0, 2.0, 3.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        s = mt.reduce_sum(x)
    weighted = tape.gradient(y, x, output_gradients=mt.constant([1.0, 0.0, -1.0]))
    np.testing.assert_array_equal(weighted.numpy(), [2.0, 0.0, -6.0])
    weighted = tape.gradient([y, s], x, output_gradients=[mt.constant([1.0, 1.0, 1.0]), mt.constant(10.0)])
    np.testing.assert_array_equal(weighted.numpy(), [12.0, 14.0, 16.0])
    # None in output_gradients means ones for that target
    np.testing.assert_array_equal(tape.gradient([y, s], x, output_gradients=[None, 2.0]).numpy(), [4.0, 6.0, 8.0])


def test_intermediate_tensors_and_the_target_as_sources():
    x = mt.constant(2.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        h = x * x
        y = mt.sin(h)
    dh, dy, dx = tape.gradient(y, [h, y, x])
    assert dh.numpy() == pytest.approx(np.cos(4.0))
    assert dy.numpy() == 1.0
    assert dx.numpy() == pytest.approx(np.cos(4.0) * 4.0)
    # a source on the path before watch() was called is still a fine source once it is watched
    assert tape.gradient(h, h).numpy() == 1.0


# ---- TensorFlow guide snippets, with only the import changed ------------------------------------------
def test_guide_introduction_to_gradients():
    import minitape as tf

    w = tf.Variable(tf.random.normal((3, 2)), name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    assert dl_dw.shape == w.shape
    grad = tape.gradient(loss, {"w": w, "b": b})
    np.testing.assert_allclose(grad["b"].numpy(), dl_db.numpy())
    np.testing.assert_allclose(dl_db.numpy(), y.numpy()[0], rtol=1e-6)  # d mean(y^2) / db = 2y / 2

    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2 = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    assert grad[0].numpy() == 6.0 and grad[1:] == [None, None, None]
    assert [var.name for var in tape.watched_variables()] == ["x0:0"]

    x0, x1 = tf.Variable(0.0), tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.softplus(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)
    grad = tape.gradient(ys, {"x0": x0, "x1": x1})
    assert grad["x0"] is None and grad["x1"].numpy() == pytest.approx(0.9999546)

    x = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sigmoid(x)
    dy_dx = tape.gradient(y, x)
    np.testing.assert_allclose(dy_dx.numpy(), (y * (1 - y)).numpy(), rtol=1e-6)

    x = tf.constant(1.0)
    v0, v1 = tf.Variable(2.0), tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    assert dv0.numpy() == 1.0 and dv1 is None and tape.gradient(result, x) is None


def test_guide_advanced_automatic_differentiation():
    import minitape as tf

    x0, x1 = tf.constant(0.0), tf.constant(0.0)
    with tf.GradientTape() as tape0, tf.GradientTape() as tape1:
        tape0.watch(x0)
        tape1.watch(x1)
        y = tf.math.sin(x0) + tf.nn.sigmoid(x1)
        ys = tf.reduce_sum(y)
    assert tape0.gradient(ys, x0).numpy() == 1.0 and tape1.gradient(ys, x1).numpy() == 0.25

    x, y = tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    assert grad["x"].numpy() == 4.0 and grad["y"] is None
    with tf.GradientTape() as t:
        y_sq = y * y
        t.reset()
        z = x * x + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    assert grad["x"].numpy() == 4.0 and grad["y"] is None
    with tf.GradientTape() as t:
        z = tf.stop_gradient(x * x) + y * y
    grad = t.gradient(z, {"x": x, "y": y})
    assert grad["x"] is None and grad["y"].numpy() == 6.0

    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)

        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = clip_gradients(v)
    assert t.gradient(output, v).numpy() == 0.5

    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    assert (dy_dx.numpy(), t2.gradient(dy_dx, x).numpy()) == (3.0, 6.0)

    x = tf.linspace(-10.0, 10.0, 200 + 1)
    delta = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        y = tf.nn.sigmoid(x + delta)
    assert tape.jacobian(y, delta).shape == (201,)
    assert int(tf.reduce_prod(tf.Variable(tf.ones((5, 10))).shape)) == 50

    x = tf.random.normal([7, 5])
    w1, w2 = tf.Variable(tf.random.normal([5, 10])), tf.Variable(tf.random.normal([10, 10]))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.nn.relu(x @ w1)
        y = tf.nn.elu(y @ w2)
    j = tape.jacobian(y, x)
    jb = tape.batch_jacobian(y, x)
    assert j.shape == (7, 10, 7, 5) and jb.shape == (7, 10, 5)
    j_select = tf.einsum("bxby->bxy", j)
    assert float(tf.reduce_max(abs(j_select - jb))) == 0.0
    j_sum = tf.reduce_sum(j, axis=2)
    assert float(tf.reduce_max(abs(j_sum - jb))) == 0.0

    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)
    with tf.GradientTape() as tape:
        new_image = tf.image.adjust_contrast(image, delta)
    with pytest.raises(LookupError, match="^gradient registry has no entry for: AdjustContrastv2$"):
        tape.gradient(new_image, [image, delta])


def test_a_scalar_variable_stays_an_array_after_assign_add():
    v = mt.Variable(1.0)
    v.assign_add(mt.constant(1.0))
    assert np.asarray(v).shape == () and float(np.asarray(v)) == 2.0

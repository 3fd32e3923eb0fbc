"""TensorFlow's values and errors for inputs that used to give a silently wrong answer (issue 9, item 1),
and the small parts of the TensorFlow surface that tutorials lean on (dtypes, conversion, format, function).

Each expected value or error is the one TensorFlow documents or raises for the same call.
"""

import warnings

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients
from minitape.values.errors import InvalidArgumentError


def message_of(exception, fn):
    with pytest.raises(exception) as info:
        fn()
    return str(info.value)


# ---- the list ----------------------------------------------------------------------------
def test_a_bool_mean_is_refused_and_says_to_cast():
    pred, labels = mt.constant([1, 2, 3]), mt.constant([1, 0, 3])
    text = message_of(InvalidArgumentError, lambda: mt.reduce_mean(pred == labels))
    assert "reduce_mean" in text and "bool" in text and "mt.cast" in text
    assert mt.reduce_mean(mt.cast(pred == labels, mt.float32)).numpy() == pytest.approx(2 / 3)
    for reduce in (mt.reduce_sum, mt.reduce_prod):
        with pytest.raises(InvalidArgumentError, match="bool"):
            reduce(mt.constant([True, False]))


def test_sigmoid_cross_entropy_refuses_labels_of_another_shape():
    text = message_of(
        ValueError, lambda: mt.nn.sigmoid_cross_entropy_with_logits(labels=mt.ones(4), logits=mt.ones((4, 1)))
    )
    assert "same shape" in text and "[4, 1]" in text and "[4]" in text
    loss = mt.nn.sigmoid_cross_entropy_with_logits(labels=mt.ones((4, 1)), logits=mt.zeros((4, 1)))
    np.testing.assert_allclose(loss.numpy(), np.full((4, 1), np.log(2)), rtol=1e-6)


def test_softmax_cross_entropy_refuses_labels_of_another_shape():
    text = message_of(
        ValueError, lambda: mt.nn.softmax_cross_entropy_with_logits(labels=mt.ones(4), logits=mt.ones((4, 3)))
    )
    assert "sparse_softmax_cross_entropy_with_logits" in text


def test_expand_dims_accepts_minus_rank_minus_one_to_rank_only():
    v = mt.ones(3)
    assert mt.expand_dims(v, 1).shape == (3, 1) and mt.expand_dims(v, -2).shape == (1, 3)
    for axis in (5, 2, -3):
        text = message_of(InvalidArgumentError, lambda axis=axis: mt.expand_dims(v, axis))
        assert f"axis {axis}" in text and "[-2, 1]" in text


def test_squeeze_refuses_an_axis_out_of_range_or_not_of_size_one():
    x = mt.ones((1, 3))
    assert "axis 2 is out of range" in message_of(InvalidArgumentError, lambda: mt.squeeze(x, axis=2))
    assert "size 3, not 1" in message_of(InvalidArgumentError, lambda: mt.squeeze(x, axis=1))
    assert mt.squeeze(x, axis=-2).shape == (3,) and mt.squeeze(x, axis=[0]).shape == (3,)


def test_gather_refuses_negative_and_too_large_indices():
    x = mt.constant([1.0, 2.0, 3.0])
    text = message_of(InvalidArgumentError, lambda: mt.gather(x, [0, -1]))
    assert "index -1" in text and "[0, 3)" in text and "negative" in text
    assert "index 3" in message_of(InvalidArgumentError, lambda: mt.gather(x, [3]))
    assert "axis 1" in message_of(InvalidArgumentError, lambda: mt.gather(x, [0], axis=1))
    np.testing.assert_array_equal(mt.gather(x, [2, 0]).numpy(), [3.0, 1.0])


@pytest.mark.parametrize("method", ["assign", "assign_add", "assign_sub"])
def test_assign_refuses_a_broadcastable_value_of_another_shape(method):
    v = mt.Variable([1.0, 2.0, 3.0])
    text = message_of(ValueError, lambda: getattr(v, method)(mt.constant([1.0])))
    assert method.title().replace("_", "") + "VariableOp" in text and "(3,)" in text and "(1,)" in text
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])  # unchanged
    getattr(v, method)([1.0, 1.0, 1.0])  # the same shape still works


def test_integer_floor_division_and_modulo_by_zero_raise():
    a, zero = mt.constant(7), mt.constant(0)
    assert "division by zero" in message_of(InvalidArgumentError, lambda: a // zero)
    assert "division by zero" in message_of(InvalidArgumentError, lambda: a % zero)
    assert int(mt.constant(-7) // mt.constant(2)) == -4 and int(mt.constant(-7) % mt.constant(2)) == 1  # floor
    assert float(mt.constant(7.0) // mt.constant(0.0)) == np.inf  # floats give inf, as in TensorFlow
    assert float(mt.constant(7) / mt.constant(0)) == np.inf  # int / int divides as float64


def test_bool_arithmetic_is_refused():
    t = mt.constant(True)
    for fn in (lambda: t + t, lambda: t * t, lambda: t - t, lambda: mt.maximum(t, t)):
        assert "bool" in message_of(InvalidArgumentError, fn)
    assert bool(mt.logical_or(t, t))


def test_leaky_relu_with_alpha_above_one_is_where_not_max():
    x = mt.constant([-1.0, 1.0])
    np.testing.assert_array_equal(mt.nn.leaky_relu(x, alpha=2.0).numpy(), [-2.0, 1.0])
    np.testing.assert_array_equal(mt.nn.leaky_relu(x).numpy(), np.float32([-0.2, 1.0]))  # TensorFlow's default alpha
    check_gradients(lambda t: mt.nn.leaky_relu(t, alpha=2.0), [mt.constant([-1.5, 0.7, 2.0], mt.float64)])


def test_negative_integer_power_names_the_real_reason():
    text = message_of(InvalidArgumentError, lambda: mt.constant(2) ** -1)
    assert "negative integer powers" in text and "broadcast" not in text
    assert float(mt.constant(2.0) ** -1) == 0.5


def test_jacobian_of_an_empty_target_is_zeros_of_its_shape():
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x[:0] * 2.0
    j = tape.jacobian(y, x)
    assert j.shape == (0, 2) and j.dtype == mt.float32
    with mt.GradientTape() as tape:
        tape.watch(x)
        unconnected = mt.zeros((0,))
    assert tape.jacobian(unconnected, x) is None


def test_a_huge_jacobian_warns_before_it_starts():
    x = mt.zeros((2**15,), mt.float64)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warning stops it before the 32768 backward passes
        with pytest.raises(ResourceWarning, match="8.0 GiB"):
            tape.jacobian(y, x)


# ---- forward mode and jacobians, from TensorFlow's own tests --------------------------------------
def test_nested_accumulators_give_a_third_derivative():
    x, one = mt.constant(2.0, mt.float64), mt.constant(1.0, mt.float64)
    with mt.autodiff.ForwardAccumulator(x, one) as outer:
        with mt.autodiff.ForwardAccumulator(x, one) as middle:
            with mt.autodiff.ForwardAccumulator(x, one) as inner:
                y = x**4
            first = inner.jvp(y)
        second = middle.jvp(first)
    assert float(first) == 32.0 and float(second) == 48.0 and float(outer.jvp(second)) == 48.0  # 4x^3, 12x^2, 24x


def test_a_tape_inside_an_accumulator_and_the_reverse():
    x, one = mt.constant(2.0, mt.float64), mt.constant(1.0, mt.float64)
    with mt.autodiff.ForwardAccumulator(x, one) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = x**3
        g = tape.gradient(y, x)
    assert float(g) == 12.0 and float(acc.jvp(g)) == 12.0  # 3x^2, 6x
    with mt.GradientTape() as tape:
        tape.watch(x)
        with mt.autodiff.ForwardAccumulator(x, one) as acc:
            y = x**3
        jvp = acc.jvp(y)
    assert float(jvp) == 12.0 and float(tape.gradient(jvp, x)) == 12.0


def test_an_accumulator_cannot_be_reentered_nor_watch_a_tensor_twice():
    x = mt.constant(1.0)
    acc = mt.autodiff.ForwardAccumulator(x, mt.constant(1.0))
    with acc:
        with pytest.raises(ValueError, match="already recording"):
            with acc:
                pass
    with pytest.raises(ValueError, match="more than once"):
        mt.autodiff.ForwardAccumulator([x, x], [mt.constant(1.0), mt.constant(1.0)])


def test_batch_jacobian_checks_shapes_and_gives_zeros_when_unconnected():
    s = mt.constant(np.ones((2, 4)))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(s)
        y = s * 2.0
    for target, source in ((y, mt.ones((3, 4))), (mt.ones(2), s), (y, mt.ones(2))):
        with pytest.raises(ValueError, match="first .batch. dimension"):
            tape.batch_jacobian(target, source)
    unconnected = tape.batch_jacobian(mt.ones((2, 3), mt.float32), s)
    assert unconnected.shape == (2, 3, 4) and unconnected.dtype == mt.float32 and not unconnected.numpy().any()
    np.testing.assert_array_equal(tape.batch_jacobian(y, s).numpy(), np.broadcast_to(2 * np.eye(4), (2, 4, 4)))


def test_custom_gradient_converts_a_python_number_argument():
    @mt.custom_gradient
    def scaled(a, b):
        return a * b, lambda dy: (dy * b, dy * a)

    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = scaled(x, 3.0)
    assert float(tape.gradient(y, x)) == 3.0


# ---- the sweep: axes everywhere --------------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda x: mt.argmax(x, axis=2),
        lambda x: mt.argmin(x, axis=-3),
        lambda x: mt.nn.softmax(x, axis=2),
        lambda x: mt.nn.log_softmax(x, axis=-3),
        lambda x: mt.reduce_mean(x, axis=2),
        lambda x: mt.concat([x, x], axis=2),
        lambda x: mt.stack([x, x], axis=3),
        lambda x: mt.unstack(x, axis=2),
        lambda x: mt.one_hot([0, 1], 3, axis=2),
    ],
)
def test_every_axis_argument_is_checked(call):
    with pytest.raises(ValueError, match="axis"):
        call(mt.ones((2, 3)))


def test_one_hot_of_an_out_of_range_index_is_a_row_of_off_values_as_tensorflow():
    np.testing.assert_array_equal(mt.one_hot([-1, 3, 1], 3).numpy(), [[0, 0, 0], [0, 0, 0], [0, 1, 0]])


# ---- dtypes and conversion -------------------------------------------------------------------------
def test_small_integer_dtypes_divide_as_tensorflow_s_truediv_table():
    image = mt.constant(np.array([[0, 255]], np.uint8))
    assert image.dtype == mt.uint8
    scaled = image / 255
    assert scaled.dtype == mt.float32 and scaled.numpy().tolist() == [[0.0, 1.0]]
    for dtype, result in ((mt.int8, mt.float32), (mt.int16, mt.float32), (mt.uint16, mt.float32)):
        assert (mt.constant([4], dtype) / mt.constant([2], dtype)).dtype == result
    assert (mt.constant([4]) / mt.constant([2])).dtype == mt.float64
    assert (mt.constant([4], mt.int64) / 2).dtype == mt.float64
    assert "same dtype" in message_of(TypeError, lambda: mt.constant([4], mt.uint8) / mt.constant([2]))


def test_dtype_limits_as_tensorflow():
    assert (mt.uint8.min, mt.uint8.max, mt.int8.min, mt.int16.max, mt.uint16.max) == (0, 255, -128, 32767, 65535)
    assert mt.uint8.is_unsigned and not mt.int8.is_unsigned and mt.int16.size == 2 and mt.float32.max > 3e38
    assert mt.cast(mt.constant([1.9, -1.9]), mt.int8).numpy().tolist() == [1, -1]  # towards zero, as TF


def test_reduce_mean_of_integers_stays_integer_and_truncates():
    mean = mt.reduce_mean(mt.constant([1, 2]))
    assert mean.dtype == mt.int32 and int(mean) == 1
    assert int(mt.reduce_mean(mt.constant([-1, -2]))) == -1  # towards zero, as C++ integer division


def test_numpy_operands_keep_their_dtype_and_python_numbers_join_them():
    product = mt.math.multiply(np.ones([3, 3]), 42)
    assert product.dtype == mt.float64 and product.numpy().tolist() == [[42.0] * 3] * 3
    assert mt.add(2, np.float64(1.5)).dtype == mt.float64
    assert mt.subtract(np.arange(3, dtype=np.float16), 1).dtype == mt.float16
    assert (mt.constant(1.0) * np.array(2.0)).dtype == mt.float32  # a tensor's dtype wins


def test_format_specs_work_on_scalar_tensors_and_variables():
    loss, v = mt.constant(0.123456), mt.Variable(2.5)
    assert f"{loss:.4f}" == "0.1235" and f"{v:.1f}" == "2.5" and f"{mt.constant(7):>3d}" == "  7"
    # no spec: the numpy value's text, as TensorFlow's f"{t}" (a vector as numpy prints it); a variable's repr
    assert f"{loss}" == "0.12345600128173828" and f"loss {mt.constant([1.5, 2.0])}" == "loss [1.5 2. ]"
    assert f"{mt.constant(1200)}" == "1200" and f"{v}" == repr(v)


def test_function_returns_tensors_for_python_numbers():
    @mt.function
    def cube(x):
        return x**3

    result = cube(2)
    assert isinstance(result, mt.Tensor) and int(result) == 8 and result.dtype == mt.int32
    pair = mt.function(lambda: (1.5, None))()
    assert isinstance(pair[0], mt.Tensor) and pair[0].dtype == mt.float32 and pair[1] is None
    assert float(mt.function(reduce_retracing=True)(lambda x: x + 1)(mt.constant(1.0))) == 2.0


def test_python_ints_join_int64_and_uint8_tensors_and_never_wrap_around():
    assert (mt.constant([1], mt.int64) * 2).dtype == mt.int64
    assert (mt.constant([1], mt.uint8) + 2).numpy().tolist() == [3]
    assert "outside [0, 255]" in message_of(TypeError, lambda: mt.constant([1], mt.uint8) + 300)
    assert "outside" in message_of(TypeError, lambda: mt.constant(300, mt.uint8))


# ---- boolean_mask, dropout, config ---------------------------------------------------------------------
def test_boolean_mask_as_tensorflow_documents():
    assert mt.boolean_mask(mt.constant([0, 1, 2, 3]), [True, False, True, False]).numpy().tolist() == [0, 2]
    rows = mt.boolean_mask(mt.constant([[1, 2], [3, 4], [5, 6]]), np.array([True, False, True]))
    assert rows.numpy().tolist() == [[1, 2], [5, 6]]
    cube = np.arange(24).reshape(2, 3, 4)
    mask = np.array([[True, False, True, False], [False, True, True, True], [False, False, False, True]])
    np.testing.assert_array_equal(mt.boolean_mask(mt.constant(cube), mask, axis=1).numpy(), cube[:, mask])
    assert "[2]" in message_of(ValueError, lambda: mt.boolean_mask(mt.ones(3), [True, False]))
    assert "bool" in message_of(TypeError, lambda: mt.boolean_mask(mt.ones(3), [1, 0, 1]))


def test_boolean_mask_gradient_goes_to_the_selected_entries():
    x = mt.constant([[1.0, 2.0], [3.0, 4.0]], mt.float64)
    mask = mt.constant([[True, False], [False, True]])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.boolean_mask(x, mask) ** 2)
    assert tape.gradient(y, x).numpy().tolist() == [[2.0, 0.0], [0.0, 8.0]]
    check_gradients(lambda t: mt.boolean_mask(t, mask) ** 3, [x], order=2)


def test_dropout_scales_the_kept_entries_and_repeats_with_a_seed():
    x = mt.ones([3, 5])
    out = mt.nn.dropout(x, rate=0.8, seed=1).numpy()
    assert set(np.unique(out)) <= {0.0, 5.0} and out.dtype == np.float32  # 1 / (1 - 0.8)
    np.testing.assert_array_equal(mt.nn.dropout(x, 0.5, seed=4).numpy(), mt.nn.dropout(x, 0.5, seed=4).numpy())
    rows = mt.nn.dropout(x, 0.5, noise_shape=[3, 1], seed=2).numpy()
    assert all(len(set(row)) == 1 for row in rows)  # a whole row kept or dropped
    assert mt.nn.dropout(x, 0.0) is x
    assert "[0, 1)" in message_of(ValueError, lambda: mt.nn.dropout(x, 1.0))
    assert "floating-point" in message_of(ValueError, lambda: mt.nn.dropout(mt.constant([1, 2]), 0.5))
    v = mt.Variable([1.0, 2.0, 3.0, 4.0])
    with mt.GradientTape() as tape:
        y = mt.nn.dropout(v, 0.5, seed=3)
        total = mt.reduce_sum(y)
    np.testing.assert_array_equal(tape.gradient(total, v).numpy(), y.numpy() / v.numpy())


def test_config_and_device_are_harmless():
    assert len(mt.config.list_physical_devices("GPU")) == 0
    (cpu,) = mt.config.list_physical_devices()
    assert cpu.device_type == "CPU" and cpu.name == "/physical_device:CPU:0"
    mt.config.experimental.set_memory_growth(cpu, True)
    mt.config.set_visible_devices([], "GPU")
    mt.config.run_functions_eagerly(True)
    assert mt.config.functions_run_eagerly()
    mt.config.run_functions_eagerly(False)  # TensorFlow's default: functions are traced
    assert not mt.config.functions_run_eagerly()
    with mt.device("/CPU:0"):
        assert float(mt.constant(2.0) * 3.0) == 6.0
    with pytest.warns(UserWarning, match="no GPU"):
        with mt.device("/GPU:0"):
            pass


# ---- the sweep: more inputs numpy would answer and TensorFlow refuses --------------------------------
def test_pad_needs_one_pair_per_axis():
    text = message_of(InvalidArgumentError, lambda: mt.pad(mt.ones((2, 3)), [[1, 1]]))
    assert "[2, 3]" in text and "give 2 pairs" in text  # numpy would pad both axes with the one pair
    assert mt.pad(mt.ones((2, 3)), [[1, 1], [0, 2]]).shape == (4, 5)


def test_unary_arithmetic_refuses_bool():
    t = mt.constant([True, False])
    for fn in (mt.abs, mt.square, mt.negative, mt.sign, mt.reciprocal):
        assert "bool" in message_of(InvalidArgumentError, lambda fn=fn: fn(t))


def test_one_hot_needs_integer_indices_and_where_a_bool_condition():
    assert "integers" in message_of(TypeError, lambda: mt.one_hot(mt.constant([1.0, 2.0]), 3))
    assert "bool" in message_of(TypeError, lambda: mt.where(mt.constant([1, 0]), 1.0, 2.0))
    assert mt.where(mt.constant([True, False]), 1.0, 2.0).numpy().tolist() == [1.0, 2.0]


def test_argmax_gives_int64_unless_output_type_says_otherwise():
    x = mt.constant([[1.0, 5.0], [7.0, 2.0]])
    assert mt.argmax(x, axis=1).dtype == mt.int64 and mt.argmax(x, axis=1).numpy().tolist() == [1, 0]
    assert mt.argmin(x, axis=0, output_type=mt.int32).dtype == mt.int32


def test_integer_variance_std_and_logsumexp_are_refused():
    for fn in (mt.math.reduce_variance, mt.math.reduce_std):
        assert "floating-point" in message_of(TypeError, lambda fn=fn: fn(mt.constant([1, 2])))
    assert "floating-point" in message_of(InvalidArgumentError, lambda: mt.reduce_logsumexp(mt.constant([1, 2])))
    assert float(mt.math.reduce_variance(mt.constant([1.0, 2.0]))) == 0.25


def test_reprs_put_an_array_on_its_own_line_only_when_it_takes_several():
    # TensorFlow's rule: the numpy text starts a new line only if it has more than one line
    assert str(mt.constant([[2, 3]])) == "mt.Tensor([[2 3]], shape=(1, 2), dtype=int32)"
    assert str(mt.constant([[1, 2], [3, 4]])) == "mt.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), dtype=int32)"
    assert repr(mt.constant([[2, 3]])).endswith("numpy=array([[2, 3]], dtype=int32)>")
    assert repr(mt.Variable([[1.0, 2.0], [3.0, 4.0]])).endswith(
        "numpy=\narray([[1., 2.],\n       [3., 4.]], dtype=float32)>"
    )


def test_a_tensor_compared_with_none_is_not_equal_as_in_tensorflow():
    t = mt.constant([1.0, 2.0])
    assert (t == None) is False and (t != None) is True  # noqa: E711 - the comparison under test
    assert mt.Variable(1.0) != None  # noqa: E711


def test_python_floats_never_become_integer_tensors_as_in_tensorflow():
    # TF 2.21: tf.constant(2.0, tf.int32), tf.convert_to_tensor(2.0, tf.int32), tf.Variable(2.0, dtype=tf.int32) and
    # tf.constant([1.0, 2.0], tf.int32) raise "TypeError: Cannot convert 2.0 to EagerTensor of dtype int32"
    for make in (
        lambda: mt.constant(2.0, mt.int32),
        lambda: mt.convert_to_tensor(2.0, mt.int32),
        lambda: mt.Variable(2.0, dtype=mt.int32),
        lambda: mt.constant([1, 2.0], mt.int64),
    ):
        message = message_of(TypeError, make)
        assert "Python floats do not become integers" in message and "mt.cast(" in message
    # numpy floats convert when no fraction is lost (TF 2.21 gives 2 and [1]); a fraction is refused, where TF
    # truncates silently
    assert mt.constant(np.float32(2.0), mt.int32).numpy() == 2
    assert mt.constant(np.array([1.0]), mt.int32).numpy().tolist() == [1]
    assert "without losing the fraction" in message_of(TypeError, lambda: mt.constant(np.array([1.5]), mt.int32))
    assert mt.constant([], mt.int32).shape == (0,)  # an empty list holds no float
    assert float(mt.cast(2.0, mt.int32)) == 2  # what the message suggests works

"""Mismatches a differential test against TensorFlow 2.21 found in tape semantics and conversion, fixed.

Each expected value, dtype or error is the one TensorFlow 2.21 gives for the same code (noted per test);
TensorFlow itself is not imported.
"""

import numpy as np
import pytest

import minitape as mt


# ---- mt.function returns tensors, never live variables --------------------------------------------
def test_a_function_returning_assign_add_returns_the_value_at_that_moment():
    v = mt.Variable(1)

    @mt.function
    def step():
        return v.assign_add(1)

    a, b = step(), step()
    assert type(a) is mt.Tensor and (int(a), int(b)) == (2, 3)  # TensorFlow: 2 and 3, both tensors


def test_a_function_returning_a_variable_in_a_structure_returns_snapshots():
    v = mt.Variable(1.0)
    out = mt.function(lambda: {"v": v, "l": [v]})()
    v.assign(5.0)
    assert float(out["v"]) == 1.0 and float(out["l"][0]) == 1.0  # TensorFlow: 1.0, 1.0
    assert type(out["v"]) is mt.Tensor


def test_a_function_method_on_a_module_binds_and_returns_snapshots():
    class Counter(mt.Module):
        def __init__(self):
            super().__init__()
            self.count = None

        @mt.function
        def __call__(self):
            if self.count is None:
                self.count = mt.Variable(0)
            return self.count.assign_add(1)

    counter = Counter()
    assert [int(counter()), int(counter())] == [1, 2]  # TensorFlow: 1, 2


def test_the_read_of_a_returned_variable_is_differentiable():
    w = mt.Variable(3.0)
    with mt.GradientTape() as tape:
        y = mt.function(lambda: w)() * 2.0
    assert float(tape.gradient(y, w)) == 2.0


def test_function_keeps_the_python_function_and_refuses_the_compiler_ir_with_a_reason():
    def double(x):
        return x * 2

    f = mt.function(double)
    assert f.python_function is double and f.__name__ == "double"
    with pytest.raises(AttributeError, match="experimental_get_compiler_ir.*no XLA IR"):
        f.experimental_get_compiler_ir  # noqa: B018
    with pytest.raises(AttributeError, match="'Function' object has no attribute 'nothing'"):
        f.nothing  # noqa: B018


# ---- numpy views cannot change a tensor or a variable ------------------------------------------------
def test_np_asarray_of_a_tensor_is_a_read_only_view():
    t = mt.constant([1.0, 2.0])
    for view in (np.asarray(t), np.array(t, copy=False)):
        assert not view.flags.writeable  # TensorFlow: read-only too
        with pytest.raises(ValueError, match="read-only"):
            view[0] = 100.0
        with pytest.raises(ValueError, match="read-only"):
            view += 1
    assert t.numpy().tolist() == [1.0, 2.0]


def test_a_watched_tensor_keeps_its_value_and_gradient_after_np_asarray():
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError):
        np.asarray(x)[0] = 10.0
    assert tape.gradient(y, x).numpy().tolist() == [2.0, 4.0]  # TensorFlow: [2, 4]


def test_copies_stay_writable_and_independent():
    t = mt.constant([1.0, 2.0])
    for copy in (np.array(t), t.numpy(), np.asarray(t, dtype=np.float64)):
        assert copy.flags.writeable
        copy[0] = 100.0
    assert t.numpy().tolist() == [1.0, 2.0]


def test_np_asarray_of_a_variable_is_a_writable_copy():
    v = mt.Variable([1.0, 2.0])
    array = np.asarray(v)
    array[0] = 100.0  # TensorFlow: allowed, and the variable keeps [1, 2]
    v.numpy()[1] = 100.0
    assert v.numpy().tolist() == [1.0, 2.0]


# ---- conversion dtypes: a tensor's dtype wins in a list, then the first number ---------------------------
F64 = mt.constant(1.0, mt.float64)


@pytest.mark.parametrize(
    ("make", "dtype", "values"),
    [  # TensorFlow 2.21 gives each of these dtypes
        (lambda: mt.constant([np.float64(1.0), 2.0]), "float64", [1.0, 2.0]),
        (lambda: mt.constant([2.0, np.float64(1.0)]), "float32", [2.0, 1.0]),
        (lambda: mt.constant([np.float32(1.0), np.float64(2.0)]), "float32", [1.0, 2.0]),
        (lambda: mt.constant([np.float16(1.0), 2.0]), "float16", [1.0, 2.0]),
        (lambda: mt.constant([1, np.float64(2.0)]), "float32", [1.0, 2.0]),
        (lambda: mt.constant([np.int64(1), 2.0]), "float32", [1.0, 2.0]),
        (lambda: mt.constant([np.array([1.0, 2.0]), [3, 4]]), "float64", [[1.0, 2.0], [3.0, 4.0]]),
        (lambda: mt.constant([np.array([1, 2]), [3.0, 4.0]]), "float32", [[1.0, 2.0], [3.0, 4.0]]),
        (lambda: mt.constant([np.array(2.0), 1.0]), "float64", [2.0, 1.0]),
        (lambda: mt.constant([np.int64(1), 2]), "int32", [1, 2]),  # ints are int32 unless too big
        (lambda: mt.constant([1, 2**31]), "int64", [1, 2**31]),
        (lambda: mt.constant(2**31), "int64", 2**31),
        (lambda: mt.convert_to_tensor([F64, 2.0]), "float64", [1.0, 2.0]),
        (lambda: mt.convert_to_tensor([2.0, F64]), "float64", [2.0, 1.0]),
        (lambda: mt.convert_to_tensor([[F64, 1.0], [2.0, 3.0]]), "float64", [[1.0, 1.0], [2.0, 3.0]]),
        (lambda: mt.convert_to_tensor([mt.constant(2.0), np.float64(3.0)]), "float32", [2.0, 3.0]),
        (lambda: mt.convert_to_tensor([mt.constant(4, mt.int64), 2]), "int64", [4, 2]),
        (lambda: mt.Variable([F64, 2.0]), "float64", [1.0, 2.0]),
        (lambda: mt.Variable([np.float64(1.0), 2.0]), "float64", [1.0, 2.0]),
    ],
)
def test_list_conversion_dtypes_follow_tensorflow(make, dtype, values):
    t = make()
    assert t.dtype.name == dtype and t.numpy().tolist() == values


def test_a_list_of_tensors_of_two_dtypes_is_refused_with_the_fix():
    from minitape.values.errors import InvalidArgumentError

    for pair in ([F64, mt.constant(2.0)], [mt.constant(3), mt.constant(4, mt.int64)]):
        with pytest.raises(InvalidArgumentError, match="dtypes .* and .*mt.cast"):  # TensorFlow: Pack refuses
            mt.convert_to_tensor(pair)
    with pytest.raises(TypeError, match="2.5"):  # TensorFlow: cannot convert 2.5 to int32
        mt.convert_to_tensor([mt.constant(3), 2.5])


def test_a_list_holding_tensors_is_packed_so_gradients_flow_as_in_tensorflow():
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.convert_to_tensor([x, x * x, 1.0])
    assert y.numpy().tolist() == [2.0, 4.0, 1.0]
    assert float(tape.gradient(y, x)) == 5.0  # TensorFlow: 5.0 (1 + 2x)


# ---- range and linspace dtypes ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("make", "dtype"),
    [  # TensorFlow 2.21 gives each of these dtypes
        (lambda: mt.range(5), "int32"),
        (lambda: mt.range(5.0), "float32"),
        (lambda: mt.range(np.int64(3)), "int64"),
        (lambda: mt.range(1, np.int64(4)), "int64"),
        (lambda: mt.range(np.int64(1), 4.0), "float32"),  # the widest: int32 < int64 < float16 < float32 < float64
        (lambda: mt.range(1, np.float64(3.0)), "float64"),
        (lambda: mt.range(np.float16(3)), "float16"),
        (lambda: mt.range(mt.constant(3, mt.int64)), "int64"),
        (lambda: mt.range(0, 1, 0.25), "float32"),
        (lambda: mt.range(0, 3, dtype=mt.float64), "float64"),
        (lambda: mt.linspace(0, 1, 3), "float64"),  # int ends: float64
        (lambda: mt.linspace(mt.constant(0), 1, 3), "float64"),
        (lambda: mt.linspace(0.0, 1, 3), "float32"),
        (lambda: mt.linspace(mt.constant(0.0, mt.float64), 1, 3), "float64"),
    ],
)
def test_range_and_linspace_dtypes_follow_tensorflow(make, dtype):
    assert make().dtype.name == dtype


def test_range_refuses_a_fraction_for_an_int_dtype_and_linspace_takes_arrays():
    with pytest.raises(TypeError, match="2.5"):  # TensorFlow: cannot convert 2.5 to int32
        mt.range(0, 2.5, dtype=mt.int32)
    assert mt.range(0, 1, 0.25).numpy().tolist() == [0.0, 0.25, 0.5, 0.75]
    assert mt.linspace(0, 1, 3).numpy().tolist() == [0.0, 0.5, 1.0]
    assert mt.linspace([0.0, 1.0], [1.0, 2.0], mt.constant(3)).numpy().tolist() == [[0, 1], [0.5, 1.5], [1, 2]]


# ---- integer sources: None, or zeros of their dtype with unconnected_gradients="zero" ----------------------
def test_zero_unconnected_gradients_of_int_sources_are_int_zeros():
    v, x, i = mt.Variable([1, 2]), mt.constant(2.0), mt.constant([1, 2])
    with pytest.warns(UserWarning, match="floating"):
        with mt.GradientTape(persistent=True) as tape:
            tape.watch([x, i])
            y = x * x
    with pytest.warns(UserWarning, match="floating"):
        grads = tape.gradient(y, [x, v, i], unconnected_gradients="zero")
    assert [g.dtype.name for g in grads] == ["float32", "int32", "int32"]  # TensorFlow: 4.0, int zeros
    assert float(grads[0]) == 4.0 and grads[1].numpy().tolist() == [0, 0] and grads[2].numpy().tolist() == [0, 0]
    with pytest.warns(UserWarning, match="floating"):
        assert tape.gradient(y, [v, i]) == [None, None]  # TensorFlow: None without "zero"
    with pytest.warns(UserWarning, match="floating"):
        jac = tape.jacobian(y, [v, i], unconnected_gradients=mt.UnconnectedGradients.ZERO)
    assert [j.dtype.name for j in jac] == ["int32", "int32"] and [tuple(j.shape) for j in jac] == [(2,), (2,)]


def test_a_connected_int_source_is_none_or_int_zeros():
    i = mt.constant([1, 2])
    with pytest.warns(UserWarning, match="floating"):
        with mt.GradientTape(persistent=True) as tape:
            tape.watch(i)
            y = mt.cast(i, mt.float32) * 2.0
        assert tape.gradient(y, i) is None  # TensorFlow: None
        assert tape.gradient(y, i, unconnected_gradients="zero").numpy().tolist() == [0, 0]  # TensorFlow: int zeros


def test_an_int_variable_read_in_a_tape_is_watched_as_in_tensorflow():
    v, frozen = mt.Variable(3), mt.Variable(3, trainable=False)
    with mt.GradientTape() as tape:
        y = v * v + frozen
    assert [w is v for w in tape.watched_variables()] == [True]  # TensorFlow lists the trainable int variable
    with pytest.warns(UserWarning, match="floating"):
        assert tape.gradient(y, v) is None  # and gives it no gradient


# ---- forward mode through custom_gradient differentiates the forward computation ---------------------------
@mt.custom_gradient
def double_with_gradient_7(x):
    return x * 2.0, lambda dy: dy * 7.0


def test_forward_mode_through_a_custom_gradient_uses_the_forward_computation():
    double = double_with_gradient_7
    x = mt.constant(1.0)
    with mt.autodiff.ForwardAccumulator(x, mt.constant(1.0)) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = double(x)
    assert float(acc.jvp(y)) == 2.0  # TensorFlow: 2.0 (d(2x)/dx), not grad_fn's 7
    assert float(tape.gradient(y, x)) == 7.0  # reverse mode still uses grad_fn


def test_forward_mode_carries_the_tangent_of_an_input_returned_unchanged():
    @mt.custom_gradient
    def halve_gradient(y):
        return y, lambda dy: dy * 0.5

    x = mt.constant(1.0)
    with mt.autodiff.ForwardAccumulator(x, mt.constant(3.0)) as acc:
        y = halve_gradient(x * x)
    assert float(acc.jvp(y)) == 6.0  # TensorFlow: 6.0


def test_forward_over_reverse_through_a_custom_gradient():
    double = double_with_gradient_7
    x = mt.constant(1.0)
    with mt.autodiff.ForwardAccumulator(x, mt.constant(1.0)) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            y = double(x * x)
        g = tape.gradient(y, x)
    assert (float(g), float(acc.jvp(g))) == (14.0, 14.0)  # TensorFlow: 14.0, 14.0


# ---- variables declared with sizes left open --------------------------------------------------------------
def test_a_variable_of_unknown_shape_takes_values_of_any_shape():
    w = mt.Variable(mt.zeros((2, 3)), shape=mt.TensorShape(None))
    w.assign(mt.ones((4,)))
    assert w.numpy().tolist() == [1.0] * 4 and w.value().shape == (4,)  # TensorFlow: [1, 1, 1, 1]
    assert w.shape.rank is None and str(w.shape) == "<unknown>" and "shape=<unknown>" in repr(w)
    with pytest.raises(ValueError, match="unknown rank"):
        w.shape.as_list()


def test_a_variable_with_an_open_size_takes_values_that_fit_its_declared_shape():
    w = mt.Variable(mt.zeros((2, 3)), shape=[None, 3])
    w.assign(mt.ones((5, 3)))
    assert w.shape.as_list() == [None, 3] and w.numpy().shape == (5, 3)  # TensorFlow: [None, 3], a (5, 3) value
    with pytest.raises(ValueError, match=r"\(5, 4\) does not fit .* declared shape \(None, 3\)"):
        w.assign(mt.ones((5, 4)))
    with pytest.raises(ValueError, match="shapes must be equal"):  # TensorFlow: assign_add keeps the shape
        w.assign_add(mt.ones((2, 3)))
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(w * w)
    assert tape.gradient(y, w).numpy().tolist() == [[2.0] * 3] * 5
    assert tape_jacobian_shape(w) == (5, 3, 5, 3)


def tape_jacobian_shape(w):
    with mt.GradientTape() as tape:
        y = w * 2.0
    return tuple(tape.jacobian(y, w).shape)


def test_a_declared_shape_that_does_not_fit_or_cannot_be_read_is_refused_with_the_fix():
    with pytest.raises(ValueError, match=r"\(2, 3\) does not fit the declared shape \(None, 4\)"):
        mt.Variable(mt.zeros((2, 3)), shape=[None, 4])
    with pytest.raises(TypeError, match=r"shape= takes a list of sizes, None for a size"):
        mt.Variable(mt.zeros((2, 3)), shape="abc")
    assert mt.Variable(mt.zeros((2, 3)), shape=[2, 3]).shape == (2, 3)


# ---- slice assignment is refused with what to do instead ------------------------------------------------
@pytest.mark.parametrize("update", [lambda v: v[1].assign(10.0), lambda v: v[1:3].assign([5.0, 6.0])])
def test_assigning_into_a_variable_slice_says_what_to_do_instead(update):
    v = mt.Variable([1.0, 2.0, 3.0])
    with pytest.raises(AttributeError, match=r"no assign\(\).*v.scatter_nd_update\(\[\[1\]\], \[10.0\]\)"):
        update(v)
    v.scatter_nd_update([[1]], [10.0])  # the way the message gives
    assert v.numpy().tolist() == [1.0, 10.0, 3.0]  # TensorFlow's v[1].assign(10.) gives the same


def test_a_tensor_has_no_assign_and_other_missing_names_stay_plain():
    t = mt.constant([1.0])
    assert not hasattr(t, "assign") and not hasattr(t, "assign_add")
    with pytest.raises(AttributeError, match=r"assign_sub\(\)"):
        t.assign_sub(1.0)
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'nothing'"):
        t.nothing  # noqa: B018


# ---- py_function, init_scope, saturate_cast, and the names left out ----------------------------------------
def test_py_function_is_eager_and_differentiable_through_the_ops_it_runs():
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.py_function(lambda a: a * a * 3.0, [x], mt.float32)
    assert (float(y), float(tape.gradient(y, x))) == (12.0, 12.0)  # TensorFlow: 12.0, 12.0
    pair = mt.py_function(lambda a: (a, a * 2), [x], [mt.float32, mt.float32])
    assert [float(t) for t in pair] == [2.0, 4.0]
    assert mt.py_function(lambda a: 2.5, [x], mt.float64).dtype == mt.float64  # TensorFlow: float64 2.5
    assert mt.py_function(lambda: None, [], []) == []


def test_py_function_refuses_what_tensorflow_refuses_with_the_fix():
    x = mt.constant(2.0)
    with pytest.raises(ValueError, match="float64.*float32.*mt.cast"):  # TensorFlow: conversion requested float32
        mt.py_function(lambda a: mt.cast(a, mt.float64), [x], mt.float32)
    with pytest.raises(TypeError, match="needs Tout"):
        mt.py_function(lambda a: a, [x], None)
    with pytest.raises(TypeError, match=r"as a list, e.g. mt.py_function\(f, \[x\]"):
        mt.py_function(lambda a: a, x, mt.float32)
    with pytest.raises(ValueError, match="2 values but Tout names one dtype"):
        mt.py_function(lambda a: (a, a), [x], mt.float32)


def test_init_scope_pauses_tapes_and_accumulators_as_in_tensorflow():
    x = mt.constant(2.0)
    with mt.autodiff.ForwardAccumulator(x, mt.constant(1.0)) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            with mt.init_scope():
                lifted = x * x
            kept = x * 3.0
    assert float(tape.gradient([lifted, kept], x)) == 3.0  # TensorFlow: 3.0, only the op outside the scope
    assert acc.jvp(lifted) is None  # TensorFlow: None


def test_saturate_cast_clamps_as_tensorflow_does():
    def cast(values, source, target):
        return mt.dtypes.saturate_cast(mt.constant(values, source), target).numpy().tolist()

    assert cast([300.0, -5.0, 1.7], mt.float32, mt.uint8) == [255, 0, 1]  # each value is TensorFlow's
    assert cast([3e9, -3e9], mt.float32, mt.int32) == [2147483520, -2147483648]
    assert cast([-1, 70000], mt.int32, mt.uint16) == [0, 65535]
    assert cast([1e300], mt.float64, mt.float32) == [float(np.finfo(np.float32).max)]
    assert cast([2**40], mt.int64, mt.float16) == [65504.0]
    with pytest.raises(TypeError, match="use mt.cast for bool"):
        mt.dtypes.saturate_cast(mt.constant([True]), mt.int32)
    x = mt.constant([0.5, 300.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.dtypes.saturate_cast(x, mt.float16)
    assert tape.gradient(y, x).numpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    ("get", "name"),
    [
        (lambda: mt.dtypes.qint8, "tf.dtypes.qint8: there are no quantized dtypes"),
        (lambda: mt.dtypes.complex64, "tf.dtypes.complex64: there are no complex dtypes"),
        (lambda: mt.dtypes.double, "tf.dtypes.double: use mt.float64"),
        (lambda: mt.types, "tf.types: there are no type protocols"),
        (lambda: mt.function(abs).experimental_get_compiler_ir, "tf.function.experimental_get_compiler_ir"),
    ],
)
def test_names_left_out_say_so_and_what_to_use(get, name):
    with pytest.raises(AttributeError, match=f"minitape has no {name}"):
        get()
    assert mt.dtypes.cast(mt.constant(1.5), mt.int32).numpy() == 1


def test_len_of_a_variable_with_an_open_first_size_says_what_to_use():
    v = mt.Variable(mt.zeros((2, 3)), shape=[None, 3])
    with pytest.raises(TypeError, match=r"declared None.*mt.shape\(v\)\[0\]"):
        len(v)
    assert int(mt.shape(v)[0]) == 2 and len(mt.Variable(mt.zeros((2, 3)))) == 2

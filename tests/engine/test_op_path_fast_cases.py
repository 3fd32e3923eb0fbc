"""The engine's fast paths (execute.py, operation.py, dtypes.py) behave exactly like the general paths they skip."""

from __future__ import annotations

import gc
import warnings

import numpy as np
import pytest

import minitape as mt
from minitape.engine import record as signatures
from minitape.engine.record import DTYPES, WHERE
from minitape.values.errors import InvalidArgumentError


def test_a_one_shot_tape_releases_records_it_shares_without_touching_the_other_tapes_copy():
    x = mt.constant(np.arange(3.0))
    with mt.GradientTape(persistent=True) as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            with mt.name_scope("block"):
                y = mt.sin(x) * 2.0
    shared = outer.records[-1]
    assert inner.records[-1] == shared and inner.records[-1].record is shared.record  # one tuple, two tapes
    inner.gradient(y, x)
    released = inner.records[-1]
    assert released != shared and released.saved_tensors() == []
    for attr in ("type", "attrs", "input_ids", "output_ids", "input_shapes", "output_shapes", "where", "scope"):
        assert getattr(released, attr) == getattr(shared, attr), attr
    assert [t.id for t in shared.inputs] == [released.input_ids[0], released.input_ids[1]]  # the outer tape keeps them
    assert np.allclose(outer.gradient(y, x).numpy(), 2 * np.cos(np.arange(3.0)))


def test_records_are_tuples_the_garbage_collector_stops_scanning():
    x = mt.constant(np.arange(3.0))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.sin(x) * 2.0, axis=0)
    for _ in range(3):  # a tuple is let go once its items are: shapes, then the tuple of shapes, then the record
        gc.collect()
    scanned = {id(o) for o in gc.get_objects()}  # what the collector walks on each full collection
    tracked = {op.type: id(op.record) in scanned for op in tape.records}
    assert tracked == {"Sin": False, "Mul": False, "Sum": True}  # only attrs (a dict) keep a record scanned
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 2 * np.cos(np.arange(3.0)))


def test_records_of_one_signature_share_one_tuple_of_shapes_and_dtypes(monkeypatch):
    x = mt.constant(np.arange(3.0))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.sin(mt.sin(x))
        z = mt.sin(mt.cast(x, mt.float32))
    first, second, _, third = tape.records
    assert first.input_shapes is second.input_shapes and first.record[DTYPES] is second.record[DTYPES]
    assert third.input_dtypes == (mt.float32,) and first.input_dtypes == (mt.float64,)  # a dtype is a signature too
    assert y.shape == z.shape == (3,) and tape.gradient(y, x) is not None
    monkeypatch.setattr(signatures, "_LIMIT", 2)  # a program of ever new shapes keeps the table bounded
    monkeypatch.setattr(signatures, "_SIGNATURES", {})  # empty: earlier tests may have met these shapes already
    for n in range(1, 8):
        signatures.shapes_and_dtypes([np.ones(n), np.ones(n)], 1)
        assert len(signatures._SIGNATURES) <= 2


def test_the_records_of_a_loop_share_one_place_and_still_name_their_line():
    x = mt.constant(np.arange(3.0))
    with mt.GradientTape() as tape:
        tape.watch(x)
        for _ in range(3):
            x = mt.sin(x)  # one line, three records
        mt.cos(x)
    *loop, after = tape.records
    assert loop[0].record[WHERE] is loop[1].record[WHERE] is loop[2].record[WHERE]
    assert loop[0].where[1] + 1 == after.where[1] and loop[0].where[0] == __file__


def test_equal_code_in_two_files_is_two_places():
    source = "def f(x):\n    return mt.sin(x)\n"  # Python's code objects compare equal without their file name
    first, second = {"mt": mt}, {"mt": mt}
    exec(compile(source, "first_file.py", "exec"), first)
    exec(compile(source, "second_file.py", "exec"), second)
    x = mt.constant([1.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        first["f"](x)
        second["f"](x)
    assert [op.where for op in tape.records] == [("first_file.py", 2), ("second_file.py", 2)]


def test_ops_make_no_numpy_warnings_and_leave_the_users_numpy_settings_alone():
    x = mt.constant([0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isneginf(mt.math.log(x).numpy()[0])
        assert np.isnan((x / 0.0).numpy()[0])
    before = np.geterr()
    with np.errstate(divide="raise"):
        assert np.isneginf(mt.math.log(x).numpy()[0])  # the op still gives -inf, as TensorFlow does
        with pytest.raises(FloatingPointError):
            np.log(np.zeros(1))  # and the user's own setting is back in force
    assert np.geterr() == before


def test_a_python_number_takes_the_dtype_of_the_tensor_it_meets():
    x64 = mt.constant([1.0, 2.0], dtype=mt.float64)
    assert (x64 * 2).dtype == mt.float64
    assert (0.1 * x64).numpy()[0] == 0.1
    x32 = mt.constant([1.0, 2.0])
    assert (x32 * 0.1).dtype == mt.float32
    assert (x32 * 0.1).numpy()[0] == np.float32(0.1)
    i32 = mt.constant([1, 2])
    assert (i32 * 3).dtype == mt.int32
    with pytest.raises(TypeError, match="Mul: input 1: cannot convert 2.5 to a tensor of dtype int32"):
        i32 * 2.5
    with pytest.raises(TypeError, match="Mul: input 1"):
        x32 * 10**400


def test_tensors_of_different_dtypes_are_refused_with_both_names():
    with pytest.raises(InvalidArgumentError, match="AddV2 cannot combine tensors of dtypes float32 and float64"):
        mt.constant([1.0]) + mt.constant([1.0], dtype=mt.float64)


def test_a_dtype_in_the_middle_of_three_tensors_is_checked_too():
    # the first and last agree, the middle one does not: numpy would concatenate and cast back quietly
    a32, b64 = mt.constant([1.0]), mt.constant([2.0], dtype=mt.float64)
    with pytest.raises(InvalidArgumentError, match="ConcatV2 cannot combine tensors of dtypes float32 and float64"):
        mt.concat([a32, b64, a32], axis=0)
    with pytest.raises(InvalidArgumentError, match="Einsum cannot combine"):
        mt.einsum("i,i,i->", a32, b64, a32)


def test_dtypes_come_from_numpy_dtypes_of_any_byte_order():
    assert mt.as_dtype(np.dtype(">f8")) is mt.float64
    assert mt.as_dtype(np.dtype("uint8")) is mt.uint8
    assert mt.as_dtype(np.dtype("bool")) is mt.bool
    assert mt.float32.is_floating and not mt.int32.is_floating and mt.int64.is_integer and mt.bool.is_bool
    with pytest.raises(TypeError, match="complex128 is not supported"):
        mt.as_dtype(np.dtype("complex128"))


def test_a_reduction_to_a_scalar_still_gives_an_array_of_the_input_dtype():
    x = mt.constant(np.arange(4, dtype=np.float32))
    total = mt.reduce_sum(x)
    assert type(total._value) is np.ndarray and total._value.dtype == np.float32 and total.shape == ()


_twice_and_thrice = mt.defop(
    "FastPathsTwiceAndThrice",
    lambda a: (2 * a, 3 * a),
    lambda op, g2, g3: g2 * 2.0 + g3 * 3.0,
    keep="nothing",
    n_outputs=2,
)


def test_the_backward_pass_gives_a_zero_gradient_to_an_unused_output_of_a_multi_output_op():
    x = mt.constant([1.0, 2.0], dtype=mt.float64)
    with mt.GradientTape() as tape:
        tape.watch(x)
        twice, _ = _twice_and_thrice(x)
        y = mt.reduce_sum(twice)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 2.0])


@pytest.mark.parametrize("variable_first", [False, True])
def test_a_tensor_meeting_a_variable_on_either_side_reads_it_on_the_tape_and_checks_both_dtypes(variable_first):
    x, w = mt.constant(np.ones((2, 2), np.float32)), mt.Variable(np.ones((2, 2), np.float32))
    with mt.GradientTape() as tape:
        y = w @ x if variable_first else x @ w
    assert [r.type for r in tape.records] == ["ReadVariableOp", "MatMul"]
    np.testing.assert_array_equal(tape.gradient(y, w).numpy(), np.full((2, 2), 2.0, np.float32))
    wide = mt.constant(np.ones((2, 2)))  # float64
    with pytest.raises(InvalidArgumentError, match="MatMul cannot combine tensors of dtypes float32 and float64"):
        _ = w @ wide if variable_first else wide @ w
    with pytest.raises(InvalidArgumentError, match="AddV2 cannot combine tensors of dtypes float32 and float64"):
        mt.Variable([1.0]) + mt.constant([1.0], dtype=mt.float64)


def test_an_optimizers_update_of_a_scalar_variable_keeps_an_array_and_is_seen_by_the_tape():
    v = mt.Variable(1.0)
    with mt.GradientTape() as tape:
        v.read_value()  # the tape watches what it has seen read
        v.assign_sub(mt.constant(0.25))
    assert type(v.numpy()) is np.float32 and v.numpy() == 0.75
    assert type(v.read_value()._value) is np.ndarray and float(v * 2.0) == 1.5  # a 0-d array, as every op expects
    assert [r.type for r in tape.records] == ["ReadVariableOp", "AssignSubVariableOp"]
    with pytest.raises(ValueError, match=r"cannot update a variable of shape \(\) with a value of shape \(1,\)"):
        v.assign_sub(mt.constant([0.25]))


def test_a_bias_gradient_sums_the_leading_axes_as_finite_differences_say():
    rng = np.random.default_rng(3)
    x, b = rng.standard_normal((4, 2, 3)), mt.Variable(rng.standard_normal(3))
    weights = rng.standard_normal((4, 2, 3))

    def loss(bias: np.ndarray) -> float:
        return float(np.sum(np.tanh(x + bias) * weights))

    with mt.GradientTape() as tape:
        y = mt.reduce_sum(mt.tanh(mt.constant(x) + b) * weights)
    got, eps = tape.gradient(y, b).numpy(), 1e-6
    numeric = [(loss(b.numpy() + eps * e) - loss(b.numpy() - eps * e)) / (2 * eps) for e in np.eye(3)]
    assert got.shape == (3,)
    np.testing.assert_allclose(got, numeric, rtol=1e-6)


def test_gradient_answers_a_flat_list_of_sources_with_a_new_list_and_nested_ones_in_their_structure():
    a, b = mt.Variable(1.0), mt.Variable(2.0)
    sources = [a, b]
    with mt.GradientTape(persistent=True) as tape:
        y = a * b
    grads = tape.gradient(y, sources)
    assert type(grads) is list and grads is not sources and [float(g) for g in grads] == [2.0, 1.0]
    nested = tape.gradient(y, [a, (b,), {"a": a}])
    assert float(nested[1][0]) == 1.0 and float(nested[2]["a"]) == 2.0 and type(nested[1]) is tuple


def test_a_one_shot_tape_keeps_a_record_that_held_nothing_as_it_was_and_releases_the_others():
    x = mt.constant(np.arange(3.0))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.exp(x) + x)  # Exp keeps its output; AddV2 and Sum keep nothing
    before = [op.record for op in tape.records]
    tape.gradient(y, x)
    after = [op.record for op in tape.records]
    assert [op.type for op in tape.records] == ["Exp", "AddV2", "Sum"]
    assert after[0] is not before[0] and tape.records[0].saved_tensors() == []
    assert after[1] is before[1] and after[2] is before[2]  # nothing to let go of: not copied
    assert all(op.saved_tensors() == [] for op in tape.records)


@pytest.mark.parametrize(
    ("shape", "axis", "keepdims"),
    [((5,), None, False), ((2, 3), None, False), ((2, 3), None, True), ((2, 3), 1, False), ((2, 3, 4), (0, 2), False)],
)
def test_the_mean_gradient_spreads_dy_over_the_input_as_finite_differences_say(shape, axis, keepdims):
    rng = np.random.default_rng(5)
    x0 = rng.standard_normal(shape)
    out_shape = np.mean(x0, axis=axis, keepdims=keepdims).shape
    weights = rng.standard_normal(out_shape)

    def loss(x: np.ndarray) -> float:
        return float(np.sum(np.mean(np.sin(x), axis=axis, keepdims=keepdims) * weights))

    x = mt.constant(x0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.reduce_sum(mt.reduce_mean(mt.sin(x), axis=axis, keepdims=keepdims) * weights)
    got, eps = tape.gradient(y, x).numpy(), 1e-6
    steps = np.eye(x0.size).reshape((x0.size, *shape))
    numeric = np.array([(loss(x0 + eps * e) - loss(x0 - eps * e)) / (2 * eps) for e in steps]).reshape(shape)
    assert got.shape == shape
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-9)

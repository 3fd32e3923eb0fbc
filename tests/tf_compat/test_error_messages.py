"""Bad input gets an error of the right type whose message names the op, the shapes or types, and a fix."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt


def raises(exception, fn, *fragments):
    """Run fn; check the exception type and that every fragment appears in its message."""
    with pytest.raises(exception) as info:
        fn()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    return message


def watched_square():
    x = mt.constant(2.0)
    tape = mt.GradientTape()
    with tape:
        tape.watch(x)
        y = x * x
    return tape, x, y


# ---- shapes and dtypes of op inputs -----------------------------------------------------------------
@pytest.mark.parametrize(
    "fn,op",
    [
        (lambda: mt.constant([1.0, 2.0]) + mt.constant([1.0, 2.0, 3.0]), "AddV2"),
        (lambda: mt.multiply(mt.ones((2, 3)), mt.ones((3, 2))), "Mul"),
        (lambda: mt.ones((4,)) - mt.ones((3,)), "Sub"),
        (lambda: mt.maximum(mt.ones((2,)), mt.ones((5,))), "Maximum"),
    ],
)
def test_mismatched_shapes_name_the_op_and_both_shapes(fn, op):
    message = raises(mt.errors.InvalidArgumentError, fn, op, "do not broadcast", "reshape")
    assert message.count("[") >= 2  # both shapes are shown


def test_mismatched_shapes_in_shape_ops():
    raises(ValueError, lambda: mt.reshape(mt.ones((2, 3)), (4,)), "Reshape", "[2, 3]", "(4,)", "6 values")
    raises(
        ValueError,
        lambda: mt.concat([mt.ones((2, 3)), mt.ones((2, 2))], axis=0),
        "ConcatV2",
        "float32[2, 3]",
        "float32[2, 2]",
    )
    raises(ValueError, lambda: mt.stack([mt.ones(2), mt.ones(3)]), "stack", "[2], [3]", "mt.concat")
    raises(ValueError, lambda: mt.transpose(mt.ones((2, 3)), perm=[0]), "transpose", "[0]", "[2, 3]", "exactly once")
    raises(ValueError, lambda: mt.tile(mt.ones((2, 3)), [2]), "tile", "[2]", "[2, 3]", "give 2 multiples")
    raises(ValueError, lambda: mt.reduce_sum(mt.ones(3), axis=2), "Sum", "axis 2", "rank 1")
    raises(ValueError, lambda: mt.gather(mt.ones(3), [5]), "GatherV2", "index 5", "[0, 3)")
    raises(ValueError, lambda: mt.Variable(1.0).assign([1.0, 2.0]), "AssignVariableOp", "(2,)", "()")


def test_matmul_inner_dimensions():
    for fn in (lambda: mt.matmul(mt.ones((2, 3)), mt.ones((2, 3))), lambda: mt.ones((2, 3)) @ mt.ones((2, 3))):
        raises(mt.errors.InvalidArgumentError, fn, "MatMul", "float32[2, 3]", "inner dimensions", "transpose_b=True")
    raises(ValueError, lambda: mt.matmul(mt.ones(3), mt.ones((3, 1))), "MatMul", "rank 2", "reshape a vector")


def test_dtype_mismatch_names_both_dtypes_and_the_cast():
    a, b = mt.constant([1.0, 2.0]), mt.constant([1.0, 2.0], dtype=mt.float64)
    raises(mt.errors.InvalidArgumentError, lambda: a + b, "AddV2", "float32", "float64", "mt.cast")
    raises(mt.errors.InvalidArgumentError, lambda: a @ mt.ones((2, 2), mt.float64)[0:2], "MatMul", "float64")
    where = lambda: mt.where(mt.constant([True, False]), a, b)  # noqa: E731
    raises(mt.errors.InvalidArgumentError, where, "SelectV2", "float32", "float64")
    raises(TypeError, lambda: mt.cast(a, "complex64"), "complex64", "mt.float32")
    raises(TypeError, lambda: mt.constant(1.5, dtype=mt.int32), "1.5", "int32")
    raises(TypeError, lambda: a + "text", "AddV2", "str")


def test_what_tensorflow_holds_and_minitape_does_not_is_named_with_a_way_round():
    # the tensor guide's strings, complex numbers and ragged lists: a sentence each, not numpy's internals
    text = raises(TypeError, lambda: mt.constant("Gray wolf"), "dtype string", "not text", "process strings in Python")
    assert "str288" not in text  # numpy's name for a 72-character unicode array
    raises(TypeError, lambda: mt.Variable([5 + 4j, 6 + 1j]), "complex128", "real and imaginary parts")
    ragged = [[1, 2], [3]]
    for make in (mt.constant, mt.Variable, lambda v: mt.constant(v, dtype=mt.float32)):
        raises(ValueError, lambda make=make: make(ragged), "non-rectangular", "[[1, 2], [3]]", "Pad the rows")
    raises(TypeError, lambda: mt.ones((2,)) + ragged, "AddV2", "input 1", "non-rectangular")


@pytest.mark.parametrize(
    "fn,op",
    [(mt.exp, "Exp"), (mt.sqrt, "Sqrt"), (mt.math.log, "Log"), (mt.sigmoid, "Sigmoid"), (mt.nn.softmax, "Softmax")],
)
def test_float_only_ops_refuse_integers_instead_of_truncating(fn, op):
    raises(mt.errors.InvalidArgumentError, lambda: fn(mt.constant([1, 2])), op, "int32", "mt.cast(x, mt.float32)")


def test_labels_of_the_wrong_kind():
    logits = mt.ones((2, 3))
    sparse = mt.nn.sparse_softmax_cross_entropy_with_logits
    raises(ValueError, lambda: sparse(labels=[0, 5], logits=logits), "sparse_softmax", "label 5", "[0, 3)")
    raises(ValueError, lambda: sparse(labels=[0, 1, 2], logits=logits), "sparse_softmax", "(3,)", "(2, 3)")
    raises(ValueError, lambda: sparse(labels=[0.0, 1.0], logits=logits), "sparse_softmax", "integers")


# ---- the tape -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [3.0, "x", np.ones(2)])
def test_watch_of_a_non_tensor(bad):
    tape = mt.GradientTape()
    with tape:
        raises(ValueError, lambda: tape.watch(bad), "watch()", f"not {type(bad).__name__}", "mt.constant")


def test_watch_of_a_none_inside_a_list_names_it():
    tape = mt.GradientTape()
    with tape:
        raises(ValueError, lambda: tape.watch([mt.constant(1.0), None]), "not NoneType")


def test_reentering_a_recording_tape():
    tape = mt.GradientTape()
    with tape:

        def enter_again():
            with tape:
                pass

        raises(ValueError, enter_again, "already recording", "new GradientTape")
    with tape:  # once the block has closed, entering again is fine
        pass


def test_output_gradients_of_the_wrong_structure_or_shape():
    x = mt.constant(2.0)
    tape = mt.GradientTape(persistent=True)
    with tape:
        tape.watch(x)
        y = x * mt.ones(3)
    two = [mt.ones(3), mt.ones(3)]
    raises(ValueError, lambda: tape.gradient(y, x, output_gradients=two), "1 target(s)", "2 output gradient(s)")
    raises(ValueError, lambda: tape.gradient(y, x, output_gradients=mt.ones(2)), "(2,)", "(3,)", "must match")
    raises(ValueError, lambda: tape.gradient([y, y], x, output_gradients=[mt.ones(3)]), "2 target(s)")


@pytest.mark.parametrize("bad", ["zeros", "None", 0, None])
def test_unknown_unconnected_gradients(bad):
    tape, x, y = watched_square()
    raises(ValueError, lambda: tape.gradient(y, x, unconnected_gradients=bad), "'none' or 'zero'", repr(bad))


def test_sources_and_targets_of_the_wrong_type():
    tape, x, y = watched_square()
    raises(ValueError, lambda: tape.gradient(y, 3.0), "sources must be tensors", "float")
    tape, x, y = watched_square()
    raises(ValueError, lambda: tape.gradient("loss", x), "targets must be tensors", "str")


def test_stop_recording_outside_the_block():
    tape = mt.GradientTape()

    def pause():
        with tape.stop_recording():
            pass

    raises(ValueError, pause, "stop_recording()", "inside its with block")


def test_batch_jacobian_needs_a_common_batch_axis():
    x = mt.ones((2,))
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = mt.ones((3, 2)) * x
    raises(ValueError, lambda: tape.batch_jacobian(y, x), "batch_jacobian", "(3, 2)", "(2,)")


# ---- custom gradients and the registry -----------------------------------------------------------------
def test_custom_gradient_returning_the_wrong_number_of_gradients():
    @mt.custom_gradient
    def product(a, b):
        return a * b, lambda dy: dy * b  # forgot the gradient for b

    a, b = mt.constant(1.0), mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch([a, b])
        y = product(a, b)
    raises(ValueError, lambda: tape.gradient(y, [a, b]), "product", "1 gradient(s)", "2 tensor argument(s)")


def test_custom_gradient_reading_variables_needs_the_variables_argument():
    v = mt.Variable(2.0)

    @mt.custom_gradient
    def scaled(x):
        return x * v, lambda dy: dy * v

    x = mt.constant(1.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        raises(TypeError, lambda: scaled(x), "scaled", "variables", "Variable:0")


def test_a_gradient_rule_with_the_wrong_shape_or_count():
    square_op = mt.defop("ErrorsSquare", np.square, lambda op, g: [g, g])
    wrong_shape = mt.defop("ErrorsWrongShape", np.square, lambda op, g: mt.reduce_sum(g))
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = square_op(x)
        b = wrong_shape(x)
    raises(ValueError, lambda: tape.gradient(a, x), "ErrorsSquare", "2 gradient(s)", "1 input(s)")
    raises(ValueError, lambda: tape.gradient(b, x), "ErrorsWrongShape", "shape ()", "shape (2,)")


def test_register_gradient_twice_for_one_name():
    @mt.RegisterGradient("ErrorsTwice")
    def first(op, g):
        return g

    def second():
        @mt.RegisterGradient("ErrorsTwice")
        def again(op, g):
            return g

    raises(KeyError, second, "ErrorsTwice", "already registered")
    raises(KeyError, lambda: mt.no_gradient("Mul"), "Mul", "already registered")
    raises(TypeError, lambda: mt.RegisterGradient(3), "string")


def test_forward_accumulator_tangent_must_match_its_primal():
    raises(
        ValueError,
        lambda: mt.autodiff.ForwardAccumulator(mt.constant(1.0), mt.constant([1.0, 2.0])),
        "tangent",
        "float32[2]",
        "float32[]",
    )
    raises(ValueError, lambda: mt.autodiff.ForwardAccumulator([mt.constant(1.0)], []), "1 primal(s)", "0 tangent(s)")


def test_bool_of_a_vector_says_how_to_reduce():
    raises(ValueError, lambda: bool(mt.constant([1.0, -1.0]) > 0), "(2,)", "reduce_all")


# ---- axes -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("axis", [1.5, True, [0, 1.0], np.float32(1.0)])
@pytest.mark.parametrize(
    "reduce,op", [(mt.reduce_sum, "Sum"), (mt.reduce_mean, "Mean"), (mt.reduce_max, "Max"), (mt.reduce_any, "Any")]
)
def test_an_axis_that_is_not_a_whole_number_is_refused_not_truncated(reduce, op, axis):
    x = mt.ones((2, 3)) if op != "Any" else mt.ones((2, 3)) > 0
    raises(mt.errors.InvalidArgumentError, lambda: reduce(x, axis=axis), op, "[2, 3]", "whole numbers", "axis=1")


@pytest.mark.parametrize("find,op", [(mt.argmax, "ArgMax"), (mt.argmin, "ArgMin")])
def test_argmax_takes_one_whole_axis_a_python_numpy_or_tensor_int(find, op):
    x = mt.constant([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    expected = np.argmax if op == "ArgMax" else np.argmin
    for axis in (None, 0, 1, -1, np.int64(1), mt.constant(1)):
        want = expected(x.numpy(), axis=0 if axis is None else int(axis))
        np.testing.assert_array_equal(find(x, axis=axis).numpy(), want)
    raises(mt.errors.InvalidArgumentError, lambda: find(x, axis=1.5), op, "whole number", "1.5")
    raises(mt.errors.InvalidArgumentError, lambda: find(x, axis=True), op, "whole number", "True")
    raises(mt.errors.InvalidArgumentError, lambda: find(x, axis=mt.constant(1.0)), op, "whole number", "1.0")
    raises(mt.errors.InvalidArgumentError, lambda: find(x, axis=[0]), op, "one whole number", "[0]", "one axis")
    raises(mt.errors.InvalidArgumentError, lambda: find(x, axis=2), op, "out of range", "rank 2")

"""Calling one traced graph (`ConcreteFunction`): its arguments bound to the traced signature as TensorFlow binds
them, its signature printed as TensorFlow prints it. The messages are TensorFlow 2.21's (`tf.` written `mt.`)."""

import pytest

import minitape as mt


def _double():
    @mt.function
    def double(a):
        return a + a

    return double


def test_a_call_by_position_or_keyword_and_a_python_number_converted():
    concrete = _double().get_concrete_function(mt.constant(1))
    assert concrete(mt.constant(3)).numpy() == 6
    assert concrete(a=mt.constant(4)).numpy() == 8
    assert concrete(5).numpy() == 10  # TensorFlow converts a number to the traced dtype too
    assert concrete.inference_fn(mt.constant(6)).numpy() == 12


def test_a_tensor_of_another_dtype_is_refused_as_tensorflow_refuses_it():
    concrete = _double().get_concrete_function(mt.constant(1))
    # TF 2.21: cannot compute __inference_double_6 as input #0(zero-based) was expected to be a int32 tensor but
    # is a float tensor [Op:__inference_double_6] (its number is a counter of the process's functions)
    expected = (
        "cannot compute __inference_double as input #0(zero-based) was expected to be a int32 tensor but is a "
        "float tensor [Op:__inference_double]"
    )
    with pytest.raises(mt.errors.InvalidArgumentError) as error:
        concrete(mt.constant(1.5))
    assert str(error.value) == expected


def test_a_tensor_of_another_shape_is_refused_since_the_graph_is_exact_for_its_shapes():
    concrete = _double().get_concrete_function(mt.constant(1))
    # TensorFlow's graph takes shape (2,) here (its graph has no fixed sizes); minitape's would compute wrong
    # shapes silently, so it refuses with TensorFlow's binding error
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(2,\), dtype=mt\.int32, name=None\) to "):
        concrete(mt.constant([1, 2]))


def test_wrong_arguments_fall_back_to_the_flat_signature_then_say_both_reasons():
    concrete = _double().get_concrete_function(mt.constant(1))
    spec = "TensorSpec(shape=(), dtype=mt.int32, name=None)"
    with pytest.raises(TypeError) as error:
        concrete(mt.constant(1), 2)
    # TF 2.21's message, word for word but for tf. -> mt.
    assert str(error.value) == (
        "Binding inputs to tf.function failed due to `too many positional arguments`. Received args: "
        f"(<mt.Tensor: shape=(), dtype=int32, numpy=1>, 2) and kwargs: {{}} for signature: (a: {spec}) -> {spec}.\n"
        "Fallback to flat signature also failed due to: double(a) takes 1 positional arguments, got 2."
    )
    with pytest.raises(TypeError, match=r"missing a required argument: 'a'(?s:.*)got unexpected keyword arguments: b"):
        concrete(b=mt.constant(1))


def test_a_python_argument_must_be_the_traced_value_and_tensors_alone_are_the_flat_call():
    @mt.function
    def scale(x, factor):
        return x * factor

    concrete = scale.get_concrete_function(mt.constant(2.0), factor=3)
    assert concrete(mt.constant(4.0)).numpy() == 12.0  # the flat signature: the tensors alone
    assert concrete(mt.constant(4.0), factor=3).numpy() == 12.0
    with pytest.raises(TypeError, match=r"`Can not cast 4 to Literal\[3\]`(?s:.*)scale\(x\) got unexpected keyword"):
        concrete(mt.constant(4.0), factor=4)


def test_function_type_and_the_signatures_of_every_trace():
    double = _double()
    double(mt.constant(1))
    double([1, 2.5])
    double(mt.constant(1.0))
    concrete = double.get_concrete_function(mt.constant(1))
    spec = "TensorSpec(shape=(), dtype=mt.int32, name=None)"
    assert str(concrete.function_type) == f"(a: {spec}) -> {spec}"
    blocks = double.pretty_printed_concrete_signatures().split("\n\n")
    assert len(blocks) == 3 and all(b.startswith("Input Parameters:\n  a (POSITIONAL_OR_KEYWORD): ") for b in blocks)
    # TF 2.21 prints a list argument by its items' tracing types, and the result list's as TensorSpecs
    assert "a (POSITIONAL_OR_KEYWORD): List[Literal[1], Literal[2.5]]" in blocks[1]
    assert "List[TensorSpec(shape=(), dtype=mt.int32, name=None), TensorSpec(shape=(), dtype=mt.float32" in blocks[1]
    assert "TensorSpec(shape=(), dtype=mt.float32, name=None)\nCaptures:\n  None" in blocks[2]


def test_a_dict_and_a_tuple_print_as_tensorflow_prints_their_tracing_types():
    @mt.function
    def first(pair, options):
        return pair[0]

    first((1, 2.5), {"k": 1, "j": True})
    text = first.pretty_printed_concrete_signatures()
    # TF 2.21: Tuple[Literal[1], Literal[2.5]] and Dict[['k', Literal[1]], ['j', Literal[True]]]
    assert "pair (POSITIONAL_OR_KEYWORD): Tuple[Literal[1], Literal[2.5]]" in text
    assert "options (POSITIONAL_OR_KEYWORD): Dict[['k', Literal[1]], ['j', Literal[True]]]" in text


def test_a_graph_has_no_graph_def_and_says_where_its_steps_are():
    graph = _double().get_concrete_function(mt.constant(1)).graph
    with pytest.raises(AttributeError, match=r"no FuncGraph\.as_graph_def: .*`steps`"):
        graph.as_graph_def()
    with pytest.raises(AttributeError, match="'Graph' object has no attribute 'nodes'"):
        graph.nodes  # noqa: B018

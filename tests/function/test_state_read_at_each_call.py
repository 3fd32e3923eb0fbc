"""What a traced graph must read again at every call, as TensorFlow's graph does: the next element of a dataset
iterator made outside the function, a `py_function`'s Python code, and the bounds of `mt.range`; and
`mt.config.run_functions_eagerly`, which makes every call plain Python."""

import numpy as np
import pytest

import minitape as mt


def test_a_dataset_iterator_from_outside_gives_its_next_element_at_each_call(capsys):
    @mt.function
    def consume(iterator):
        mt.print("Value:", next(iterator))

    iterator = iter(mt.data.Dataset.from_tensor_slices([1, 2, 3]))
    for _ in range(3):
        consume(iterator)
    # TF 2.21 prints Value: 1, 2 and 3 (the guide's good_consume_next), and raises at the end of the data
    assert capsys.readouterr().err == "Value: 1\nValue: 2\nValue: 3\n"  # mt.print writes to stderr, as tf.print
    assert consume.experimental_get_tracing_count() == 1
    with pytest.raises(mt.errors.OutOfRangeError, match="End of sequence"):
        consume(iterator)


def test_get_next_twice_in_one_graph_and_a_python_loop_over_the_iterator_inside_the_trace():
    @mt.function
    def pair(iterator):
        return iterator.get_next() + iterator.get_next()

    iterator = iter(mt.data.Dataset.range(6))
    assert [int(pair(iterator)) for _ in range(3)] == [1, 5, 9]

    @mt.function
    def total(iterator):
        result = mt.constant(0, mt.int64)
        for x in iterator:  # ends at the end of the data while tracing, as a Python loop does
            result += x
        return result

    assert int(total(iter(mt.data.Dataset.range(4)))) == 6


def test_a_python_list_iterator_is_read_once_as_tensorflow_reads_it(capsys):
    @mt.function
    def buggy_consume_next(iterator):
        mt.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    for _ in range(3):
        buggy_consume_next(iterator)
    assert capsys.readouterr().err == "Value: 1\n" * 3  # TF 2.21 prints the same: a Python value is traced in


def test_py_function_runs_its_python_code_at_every_call_and_as_a_decorator(capsys):
    @mt.py_function(Tout=mt.float32)
    def py_plus(x, y):
        print("Executing eagerly.")
        return x + y

    @mt.function
    def wrapper(x, y):
        print("Tracing.")
        return py_plus(x, y)

    assert wrapper(mt.constant(1.0), mt.constant(2.0)).numpy() == 3.0
    assert wrapper(mt.constant(1.0), mt.constant(5.0)).numpy() == 6.0
    # TF 2.21 prints these (the guide's cells 33 and 34)
    assert capsys.readouterr().out == "Tracing.\nExecuting eagerly.\nExecuting eagerly.\n"
    x = mt.Variable(3.0)
    with mt.GradientTape() as tape:
        y = mt.py_function(lambda a: a * a, [x], mt.float32)
    assert tape.gradient(y, x).numpy() == 6.0
    plus = mt.py_function(lambda a, b: a + b, Tout=mt.int32)  # TensorFlow's form without inp
    assert plus(mt.constant(2), mt.constant(3)).numpy() == 5


def test_range_with_traced_bounds_replays_only_for_those_bounds(capsys):
    @mt.function
    def count_to(n):
        for i in mt.range(1, n + 1):
            mt.print(i)

    count_to(mt.constant(2))
    count_to(mt.constant(4))
    count_to(mt.constant(2))
    # the loop unrolls for the range it saw: a graph made for n=2 must not run for n=4
    assert capsys.readouterr().err.split() == ["1", "2", "1", "2", "3", "4", "1", "2"]
    assert count_to.experimental_get_tracing_count() == 2


@pytest.fixture
def _eager_functions():
    yield
    mt.config.run_functions_eagerly(False)


@pytest.mark.usefixtures("_eager_functions")
def test_run_functions_eagerly_runs_the_python_function_at_every_call(capsys):
    @mt.function
    def f(x):
        print("running")
        return x * 2

    assert not mt.config.functions_run_eagerly()
    f(mt.constant(1.0))
    f(mt.constant(2.0))
    mt.config.run_functions_eagerly(True)
    assert mt.config.functions_run_eagerly()
    np.testing.assert_array_equal(f(mt.constant(3.0)).numpy(), 6.0)
    f(mt.constant(4.0))
    assert capsys.readouterr().out == "running\n" * 3
    assert f.experimental_get_tracing_count() == 1
    mt.config.run_functions_eagerly(False)
    f(mt.constant(5.0))
    assert capsys.readouterr().out == ""

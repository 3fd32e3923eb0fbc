"""`mt.executing_eagerly()` and `mt.inside_function()` say whether code runs while a function is traced, as
TensorFlow's do: teaching code prints them to show when Python runs in graph mode."""

import threading

import minitape as mt


def test_what_tensorflow_prints_eagerly_at_tracing_in_init_scope_and_run_eagerly():
    # TF 2.21 prints, for the same program:
    #   True False / tracing: False True / init_scope: True True / tracing: True False / init_scope: True False
    seen = [(mt.executing_eagerly(), mt.inside_function())]

    @mt.function
    def f(x):
        seen.append(("tracing", mt.executing_eagerly(), mt.inside_function()))
        with mt.init_scope():
            seen.append(("init_scope", mt.executing_eagerly(), mt.inside_function()))
        return x + 1

    f(mt.constant(1))
    f(mt.constant(2))  # replayed: its Python does not run
    mt.config.run_functions_eagerly(True)
    try:
        f(mt.constant(3))
    finally:
        mt.config.run_functions_eagerly(False)
    assert seen == [
        (True, False),
        ("tracing", False, True),
        ("init_scope", True, True),
        ("tracing", True, False),
        ("init_scope", True, False),
    ]
    assert mt.executing_eagerly() and not mt.inside_function()  # back outside


def test_a_trace_in_one_thread_is_not_seen_from_another():
    in_other_thread = []
    started, finish = threading.Event(), threading.Event()

    def other():
        started.wait(5)
        in_other_thread.append((mt.executing_eagerly(), mt.inside_function()))
        finish.set()

    @mt.function
    def g(x):
        started.set()
        finish.wait(5)  # the other thread looks while this one traces
        with mt.init_scope():
            pass
        return x * 2

    worker = threading.Thread(target=other)
    worker.start()
    g(mt.constant(1.0))
    worker.join(5)
    assert in_other_thread == [(True, False)]

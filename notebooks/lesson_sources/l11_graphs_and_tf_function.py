"""Lesson 11: graphs and tf.function."""

from nb import code, md, raises, solution, volatile

NAME = "11_graphs_and_tf_function.ipynb"
TITLE = "Graphs and tf.function"

CELLS = [
    md(r"""
    # Lesson 11 · Graphs and `tf.function`

    **Learning goals.** After this lesson you can
    - say what `@tf.function` does: it runs your Python function once per input signature to *trace* a graph, and
      later calls run the graph, not your Python code;
    - predict when a function traces again (a new shape, a new dtype, a new Python value), and read
      `experimental_get_tracing_count()`;
    - tell a Python side effect (`print`, `calls += 1`: at tracing only) from an op of the graph (`tf.print`,
      `v.assign_add`: at every call);
    - read a traced training step's graph: its forward ops, the gradient ops the tape added, the assigns;
    - explain what happens to an `if` on a tensor, and write a branch that stays inside the graph;
    - measure what the graph buys on a training step.

    Eager code (every lesson so far) runs each op the moment Python reaches it, and the tape records it. That is
    easy to read and to debug, and it costs Python's overhead on every op. TensorFlow's answer is
    `@tf.function`: record the ops once, then replay the recording. minitape does the same, with `mt.function`:
    the recording is a list of numpy calls with numbered slots for their inputs and outputs.
    """),
    code("""
    import time
    import warnings

    import numpy as np

    import minitape as mt
    from lesson_tools import check
    from minitape.function.view import GraphView
    """),
    md(r"""
    ## 1. Tracing: Python runs once, the graph every time

    A Python `print` is Python: it runs while the function is traced. `mt.print` (TensorFlow's `tf.print`) is an op
    of the graph: it runs at every call (it writes to standard error, so its lines show apart). While tracing, a
    tensor has no value yet, and prints as graph mode prints it, by name.
    """),
    code("""
    @mt.function
    def double(x):
        print("Tracing with", x)
        mt.print("Executing with", x)
        return x * 2


    print(double(mt.constant(1.0)))
    print(double(mt.constant(2.0)))
    print(double(mt.constant([1.0, 2.0])))
    print("traced", double.experimental_get_tracing_count(), "times")
    """),
    md(r"""
    The second call had the same signature as the first (a float32 scalar), so it replayed the graph: no
    "Tracing with" line, but `mt.print` printed. A vector is a new shape, so the third call traced again.

    TensorFlow's rules for the signature (the *cache key*):
    - a tensor (or a numpy array) counts by its **shape and dtype**, not its values;
    - a Python value counts by **value**: `double(2)` and `double(3)` trace twice, and `double(2.0)` replays
      `double(2)`'s graph, since `2 == 2.0`;
    - other objects (a model, an optimizer, a variable) count by identity.

    Passing Python numbers that change at every call retraces at every call. TensorFlow warns after five traces
    in the last ten calls, and so does minitape:
    """),
    volatile("""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for step in range(6):
            double(step)  # a Python int: one graph per value
    print(caught[0].message)
    assert double.experimental_get_tracing_count() == 2 + 6
    """),
    md(r"""
    `input_signature` fixes the signature once and for all: a call that does not fit is refused, with TensorFlow's
    message.
    """),
    raises("""
    scale = mt.function(lambda x: x * 3.0, input_signature=[mt.TensorSpec(shape=[2], dtype=mt.float32)])
    print(scale(mt.constant([1.0, 2.0])))
    scale(mt.constant([1, 2]))  # int32: refused
    """),
    md(r"""
    ## 2. What a graph cannot do: values and new variables

    Inside the traced function a tensor's value does not exist yet (in TensorFlow; minitape traces on the real
    values, but keeps TensorFlow's rules so that what you learn carries over). `.numpy()` raises as graph mode
    does, and so does `np.asarray`: a value computed in numpy would be frozen into the graph as a constant.
    """),
    raises("""
    @mt.function
    def to_numpy(x):
        return x.numpy() * 2

    to_numpy(mt.constant(1.0))
    """),
    md(r"""
    A variable belongs to the state of the program, not to one call: `tf.function` lets a function create its
    variables on the first trace only (the usual pattern: `if self.v is None: self.v = tf.Variable(...)`).
    Side effects follow the same logic. A Python counter counts traces; a variable's `assign_add` is a step of
    the graph and counts calls:
    """),
    code("""
    python_calls = 0
    graph_calls = mt.Variable(0)


    @mt.function
    def step(x):
        global python_calls
        python_calls += 1  # Python: runs while tracing
        graph_calls.assign_add(1)  # an op of the graph: runs at every call
        return x + 1.0


    for _ in range(3):
        step(mt.constant(0.0))
    print("python_calls:", python_calls, " graph_calls:", int(graph_calls))
    """),
    md(r"""
    ## 3. The graph of a training step

    Trace a whole training step: the forward pass, the loss, `tape.gradient` and the updates. The tape inside is
    traced too: the ops its gradient rules run are recorded in the same graph. `GraphView` draws it: inputs as
    ovals, forward ops in blue, the gradient ops in orange (each naming the op whose rule ran it), variable reads
    and assigns in green, in one frame per name scope (the model, its layers).
    """),
    code("""
    keras = mt.keras
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])


    @mt.function
    def train_step(x, y):
        with mt.GradientTape() as tape:
            loss = mt.reduce_mean(mt.square(model(x) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        for variable, gradient in zip(model.trainable_variables, gradients):
            variable.assign_sub(0.1 * gradient)
        return loss


    x_batch = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    y_batch = np.random.default_rng(1).normal(size=(16, 3)).astype(np.float32)
    print("loss:", float(train_step(x_batch, y_batch)))
    view = GraphView(train_step)
    print(view.summary())
    """),
    volatile("""
    view  # the drawing (Graphviz lays it out)
    """),
    md(r"""
    Read it from the inputs `x` and `y`: `MatMul`, `AddV2`, `Relu` in the first layer's frame, the second layer,
    then `Sub`, `Square`, `Mean`: the loss. The orange ops are the backward pass, from the loss back to each
    layer's kernel and bias, and each ends in a `Mul` by the learning rate and an `AssignSub`. (The gradient of
    `Mean`, $1/n$ for each entry, depends on no input: tracing computed it once, and the graph keeps it as a
    constant.) There is no tape at replay time: the backward pass is part of the graph, and later calls just run
    it.

    ## 4. Python control flow on tensors

    An `if` on a tensor asks for its value in Python. TensorFlow's AutoGraph rewrites such an `if` into a `tf.cond`
    that holds both branches in one graph. minitape keeps your Python code as it is and records a **guard**
    instead: the graph replays only while the condition goes the way it went at tracing; for the other way, the
    function is traced again, and both graphs are kept. The results are right either way; the count of traces
    (and the Python prints) show the difference:
    """),
    code("""
    @mt.function
    def bend(x):
        if x > 0:
            print("tracing the x > 0 branch")
            return x * x
        print("tracing the other branch")
        return -x


    for value in [2.0, -3.0, 0.5, -0.5]:
        print(value, "->", float(bend(mt.constant(value))))
    print("traced", bend.experimental_get_tracing_count(), "times")
    """),
    md(r"""
    A `while` on a tensor is guarded at every turn: the graph unrolls the turns taken at tracing, and a value that
    needs another number of turns traces again. To keep one graph whatever the values, choose inside the graph:
    `mt.where(condition, a, b)` computes both sides and picks per element (exercise 11.3).

    ## 5. The speed-up

    A replay skips everything eager execution does around each numpy call: converting the inputs, checking dtypes,
    wrapping the results in tensors, recording them on the tape, walking the tape backwards. Time the same training
    step both ways (the numbers depend on the machine; the test checks only that the graph is faster):
    """),
    volatile("""
    def seconds_per_step(step, repeats=200):
        step(x_batch, y_batch)  # the first call traces
        start = time.perf_counter()
        for _ in range(repeats):
            step(x_batch, y_batch)
        return (time.perf_counter() - start) / repeats


    eager_time = seconds_per_step(train_step.python_function)
    graph_time = seconds_per_step(train_step)
    print(f"eager: {eager_time * 1e6:6.0f} µs per step")
    print(f"graph: {graph_time * 1e6:6.0f} µs per step ({eager_time / graph_time:.1f}x faster)")
    assert graph_time < eager_time
    """),
    md(r"""
    The replay gives the same numbers as eager execution, bit for bit: it runs the same numpy calls in the same
    order. Only the bookkeeping around them is gone.

    ## Exercises

    **Exercise 11.1.** How many times does `double2` trace for these seven calls? Predict first, then store your
    number in `answer` (you may check it with `double2.experimental_get_tracing_count()` afterwards).
    """),
    code("""
    @mt.function
    def double2(x):
        return x * 2


    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the retracing warning would give the answer away
        for argument in [mt.constant(1.0), mt.constant(5.0), mt.constant([1.0, 2.0]), mt.constant(3), 2, 2.0, 3]:
            double2(argument)

    answer = ...  # your prediction: a number

    check("11.1", answer)
    """),
    solution("""
    answer = 5  # float32 scalar, float32 vector, int32 scalar, the value 2 (== 2.0), the value 3

    check("11.1", answer)
    """),
    md(r"""
    **Exercise 11.2.** This function means to count its calls, but the count stays at 1. Rewrite it so that
    `counter` is a `mt.Variable` made outside the function and incremented inside it; call it five times and store
    the counter's value in `answer`.
    """),
    code("""
    counter = 0


    @mt.function
    def counted(x):
        global counter
        counter += 1
        return x * 2


    for _ in range(5):
        counted(mt.constant(1.0))

    answer = ...  # your code here: the count after five calls, from a variable

    check("11.2", answer)
    """),
    solution("""
    counter = mt.Variable(0)


    @mt.function
    def counted(x):
        counter.assign_add(1)
        return x * 2


    for _ in range(5):
        counted(mt.constant(1.0))
    answer = counter

    check("11.2", answer)
    """),
    md(r"""
    **Exercise 11.3.** Write `g(x)` ($x^2$ for $x > 0$, $-x$ otherwise, for a scalar tensor $x$) so that one graph
    serves every sign: the check traces it with `mt.function` and calls it with 2, -3, 0.5 and -0.5. Pass the
    function itself (not decorated, not called).
    """),
    code("""
    def g(x):
        ...  # your code here


    check("11.3", g)
    """),
    solution("""
    def g(x):
        return mt.where(x > 0, x * x, -x)


    check("11.3", g)
    """),
    md(r"""
    ## Summary

    - `mt.function` (TensorFlow's `tf.function`) traces the Python function once per signature: tensors by shape
      and dtype, Python values by value, other objects by identity; later calls replay the recorded graph.
    - Python side effects happen while tracing; ops (`mt.print`, `assign_add`) happen at every call. Inside, a
      tensor has no value for Python: `.numpy()` raises, and variables are created on the first trace only.
    - A traced training step holds its backward pass and its updates: the tape's work is done once, at tracing.
    - An `if` or `while` on a tensor is guarded in minitape (one graph per path, each replayed only when its
      conditions hold); `mt.where` keeps the choice inside one graph, as TensorFlow's `tf.cond` does.
    - The replay runs the same numpy calls without eager execution's bookkeeping: same results, less time.

    Back to the [start page](00_start_here.ipynb).
    """),
]

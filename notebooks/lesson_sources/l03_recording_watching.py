"""Lesson 03: what a tape records and what it watches."""

from nb import code, md, solution, volatile

NAME = "03_recording_and_watching.ipynb"
TITLE = "Recording and watching"

CELLS = [
    md(r"""
    # Lesson 3 · Recording and watching

    **Learning goals.** After this lesson you can
    - say which operations a tape records: only those run inside its `with` block on a **watched** input;
    - tell what is watched automatically (trainable variables) and what must be watched by hand (tensors);
    - switch automatic watching off with `watch_accessed_variables=False`;
    - pass sources and targets as lists and dicts, take gradients with respect to a layer's variables and with
      respect to intermediate results;
    - look at a tape's records, and at the tape itself in the visualizer;
    - predict which variables get a gradient when Python control flow (`if`/`else`) picks what is computed.

    **The rule.** Inside `with mt.GradientTape() as tape:`, an op is recorded when one of its inputs is watched.
    Its outputs are then watched too, so the record grows along every path that starts at a watched value.
    `tape.gradient(target, sources)` follows those records backwards from `target`.
    """),
    code("""
    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md("""
    ## 1. Variables are watched, constants are not

    A `mt.Variable` holds a model's parameters: trainable variables are watched as soon as they are read inside the
    block. A tensor made with `mt.constant` is just a value: unless you `watch` it, its gradient is `None`.
    """),
    code("""
    w = mt.Variable(2.0, name="w")
    c = mt.constant(2.0)
    with mt.GradientTape() as tape:
        y = w * w + c * c

    dw, dc = tape.gradient(y, [w, c])
    print("dy/dw =", dw)
    print("dy/dc =", dc)
    """),
    code("""
    with mt.GradientTape() as tape:
        tape.watch(c)  # now c's ops are recorded too
        y = w * w + c * c

    dw, dc = tape.gradient(y, [w, c])
    print("dy/dw =", dw)
    print("dy/dc =", dc)
    """),
    md(r"""
    A variable created with `trainable=False` is not watched automatically either (think of a counter, or the
    running mean of a batch-normalisation layer).
    """),
    code("""
    frozen = mt.Variable(2.0, trainable=False, name="frozen")
    with mt.GradientTape() as tape:
        y = frozen * w
    print(tape.gradient(y, [frozen, w]))
    print("watched:", [v.name for v in tape.watched_variables()])
    """),
    md(r"""
    ### A classic: a sum, then a square

    The example every `GradientTape` tutorial starts with. $x$ is a $2 \times 2$ tensor of ones (a constant, so it
    is watched by hand), $y = \sum_{ij} x_{ij} = 4$, and $z = y^2 = 16$. By the chain rule,
    $\frac{\partial z}{\partial x_{ij}} = \frac{dz}{dy} \cdot \frac{\partial y}{\partial x_{ij}} = 2y \cdot 1 = 8$
    for every entry: the gradient has the shape of $x$, and an intermediate result like $y$ is a valid source too.
    """),
    code("""
    x = mt.ones((2, 2))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.reduce_sum(x)
        z = mt.square(y)  # the same as y * y

    print("y =", float(y), " z =", float(z))
    print("dz/dx =", tape.gradient(z, x))
    print("dz/dy =", tape.gradient(z, y))
    del tape
    """),
    md("""
    ## 2. What is on the tape?

    A tape is a list of records, one per op, in the order the ops ran. minitape lets you look: `tape.records` is a
    read-only tuple of them (TensorFlow keeps its tape internal; this view is minitape's, for learning). Each record
    names its op type (`record.type`) and the ids of its input and output tensors (`record.input_ids`,
    `record.output_ids`; printed `#n`, numbered in creation order). Reading a variable is an op too
    (`ReadVariableOp`). This is the list `gradient()` walks backwards; `tape.stats()` sums it up.
    """),
    code("""
    x = mt.Variable(3.0, name="x")
    with mt.GradientTape() as tape:
        a = x * x
        b = mt.sin(a)
        y = a + b

    for record in tape.records:
        print(record)
    print(tape.stats())
    """),
    md("""
    ### The same tape, drawn

    `widgets.TapeView(tape, target, sources)` draws the records as a graph: the variable `x` on the left, one node
    per op, the target `y` on the right. Press ▶ to replay the forward pass (each op lights up with the value it
    produced), then the backward pass: from the seed $1$ at `y`, each step multiplies by an op's local derivative,
    and where `a` fans out (into `Sin` and into the sum) the two contributions are added. Click a node for its
    value, gradient, shape and dtype. The view needs the records, so record on a persistent tape (or create the
    view before calling `gradient`).
    """),
    volatile("""
    from minitape import widgets

    with mt.GradientTape(persistent=True) as tape:
        a = x * x
        b = mt.sin(a)
        y = a + b

    view = widgets.TapeView(tape, y, [x])
    assert view.n_steps > len(tape.records)  # forward steps, then backward steps
    view
    """),
    md("""
    ## 3. Watching only what you ask for

    `watch_accessed_variables=False` turns automatic watching off: only what you `watch` is recorded. Useful when
    you want the gradient with respect to a few variables of a large model.
    """),
    code("""
    w1, w2 = mt.Variable(5.0, name="w1"), mt.Variable(3.0, name="w2")
    with mt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w1)
        f = 3 * w1**2 + 2 * w1 * w2

    print(tape.gradient(f, {"w1": w1, "w2": w2}))
    print("watched:", [v.name for v in tape.watched_variables()])
    """),
    md(r"""
    Only `w1` was watched: its gradient is $6 w_1 + 2 w_2 = 36$, and `w2` gets `None`. Note the result: a `dict`
    of sources gives a `dict` of gradients.

    ## 4. Sources and targets as structures

    Sources can be nested lists, tuples and dicts; the result has the same structure. A list of targets (or a
    non-scalar target) gives the gradient of their **sum**.
    """),
    code("""
    params = {"slope": mt.Variable(2.0), "offsets": [mt.Variable(1.0), mt.Variable(-1.0)]}
    with mt.GradientTape() as tape:
        first = params["slope"] * 3.0 + params["offsets"][0]
        second = params["slope"] * params["offsets"][1]

    grads = tape.gradient([first, second], params)  # d(first + second)/d(each parameter)
    print(grads)
    """),
    md(r"""
    ## 5. A layer's trainable variables

    A layer owns its variables. `mt.keras.layers.Dense(units)` computes $y = \mathrm{activation}(x W + b)$, with a
    kernel $W$ and a bias $b$ created the first time it is called. Its `trainable_variables` are exactly the sources
    a training step needs.
    """),
    code("""
    mt.keras.utils.set_random_seed(0)
    layer = mt.keras.layers.Dense(2, activation="relu")
    x = mt.constant([[1.0, 2.0, 3.0]])

    with mt.GradientTape() as tape:
        y = layer(x)
        loss = mt.reduce_mean(y**2)

    for variable, gradient in zip(layer.trainable_variables, tape.gradient(loss, layer.trainable_variables)):
        print(f"{variable.name:16s} shape {tuple(variable.shape)}  gradient shape {tuple(gradient.shape)}")
    """),
    md(r"""
    ## 6. Gradients of intermediate results

    Any tensor computed on the tape is a valid source. With $a = x^2$ and $y = \sin a + a$,
    $\frac{\partial y}{\partial a} = \cos a + 1$. Asking for several sources in one call runs a single backward pass.
    """),
    code("""
    x = mt.Variable(1.0)
    with mt.GradientTape() as tape:
        a = x * x
        y = mt.sin(a) + a

    dy_da, dy_dx = tape.gradient(y, [a, x])
    print(f"dy/da = {float(dy_da):.6f}, expected cos(1) + 1 = {np.cos(1.0) + 1:.6f}")
    print(f"dy/dx = {float(dy_dx):.6f}, expected 2x (cos(1) + 1) = {2 * (np.cos(1.0) + 1):.6f}")
    """),
    md(r"""
    ## 7. Control flow: the tape records the branch that ran

    A Python `if`, `for` or `while` is not an op: the tape never sees it. It sees only the ops that actually ran.
    So the gradient follows the branch that was taken, and a variable used only in the other branch gets `None`.
    Here $x = 1 > 0$ picks `result = v0`, whose derivative with respect to `v0` is $1$; `v1` was never touched.
    With $x = -1$ the other branch runs, `result = v1**2`, and $\frac{d}{dv_1} v_1^2 = 2 v_1 = 4$.
    """),
    code("""
    for x_value in [1.0, -1.0]:
        x = mt.constant(x_value)
        v0, v1 = mt.Variable(2.0, name="v0"), mt.Variable(2.0, name="v1")
        with mt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            if x > 0.0:
                result = v0
            else:
                result = v1**2
        dv0, dv1 = tape.gradient(result, [v0, v1])
        print(f"x = {x_value:4}: d result/d v0 = {dv0}, d result/d v1 = {dv1}, d result/d x = {tape.gradient(result, x)}")
    print(tape.explain(result, [v0, x]))
    del tape
    """),
    md(r"""
    The condition `x > 0.0` was recorded (it is an op, `Greater`), but a comparison has no gradient: the result
    does not change when `x` moves a little, so the gradient with respect to `x` is `None` in both cases.

    ## Exercises

    **Exercise 3.1.** `x = mt.constant(2.0)`. Compute $\frac{d}{dx} x^3$ with a tape (it should be 12, not
    `None`). Store the gradient in `answer`.
    """),
    code("""
    x = mt.constant(2.0)
    tape = y = answer = ...  # your code here: record y = x**3 on a tape, then answer = tape.gradient(y, x)

    check("3.1", answer, tape=tape, target=y, sources=x)
    """),
    solution("""
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x**3
    answer = tape.gradient(y, x)

    check("3.1", answer, tape=tape, target=y, sources=x)
    """),
    md(r"""
    **Exercise 3.2.** With `a = mt.Variable(4.0)` and `b = mt.Variable(5.0)`, compute $f = a \cdot b$ on a tape
    that watches **only** `b`, and ask for both gradients. Store the pair `(df_da, df_db)` in `answer`.
    """),
    code("""
    a, b = mt.Variable(4.0), mt.Variable(5.0)
    tape = f = answer = ...  # your code here: record f on a tape that watches only b; answer = (df_da, df_db)

    check("3.2", answer, tape=tape, target=f, sources=[a, b])
    """),
    solution("""
    a, b = mt.Variable(4.0), mt.Variable(5.0)
    with mt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        f = a * b
    answer = tuple(tape.gradient(f, [a, b]))

    check("3.2", answer, tape=tape, target=f, sources=[a, b])
    """),
    md(r"""
    **Exercise 3.3.** A tiny linear model: `params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}`.
    The loss is $(w \cdot x + b - 1)^2$ for $x = (3, 1)$. Compute the gradient as a dict with the keys `"w"` and
    `"b"`, in one `tape.gradient` call.
    """),
    code("""
    params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}
    x = mt.constant([3.0, 1.0])
    tape = loss = answer = ...  # your code here: record the loss on a tape, answer = its gradient, a dict

    check("3.3", answer, tape=tape, target=loss, sources=params)
    """),
    solution("""
    params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}
    x = mt.constant([3.0, 1.0])
    with mt.GradientTape() as tape:
        loss = (mt.reduce_sum(params["w"] * x) + params["b"] - 1.0) ** 2
    answer = tape.gradient(loss, params)

    check("3.3", answer, tape=tape, target=loss, sources=params)
    """),
    md(r"""
    ## Summary

    - A tape records an op when one of its inputs is watched; outputs of recorded ops are watched in turn.
    - Trainable variables are watched when read; tensors need `tape.watch`; `trainable=False` variables and
      `watch_accessed_variables=False` tapes watch nothing automatically.
    - Sources and targets may be lists, tuples and dicts; the gradient has the structure of the sources; several
      targets give the gradient of their sum.
    - A layer's `trainable_variables` are the sources of a training step; intermediate results are sources too
      (for $z = (\sum x)^2$ with $x$ a $2 \times 2$ tensor of ones, every entry of the gradient is $8$).
    - The tape records only the ops that ran: with `if`/`else`, the branch not taken leaves its variables `None`.

    Next: [lesson 4](04_persistent_tapes.ipynb), asking a tape more than once.
    """),
]

"""Lesson 00: how to use the lessons and the visualizer."""

from nb import code, md, solution, volatile

NAME = "00_start_here.ipynb"
TITLE = "Start here"

LESSONS = [
    (
        "01_finite_differences_vs_autodiff.ipynb",
        "Finite differences vs automatic differentiation",
        "approximate gradients, their two errors, and the exact gradient of a tape",
    ),
    (
        "02_autodiff_by_hand.ipynb",
        "Autodiff by hand",
        "the chain rule, a neuron by pencil, a 40-line tape in plain Python, dual numbers",
    ),
    (
        "03_recording_and_watching.ipynb",
        "Recording and watching",
        "what a tape records, what it watches, sources and targets as structures",
    ),
    ("04_persistent_tapes.ipynb", "Persistent tapes", "asking a tape twice, and what that costs in memory"),
    (
        "05_nesting_higher_order.ipynb",
        "Nested tapes and higher-order derivatives",
        "second derivatives, Jacobians and Hessians",
    ),
    ("06_getting_none.ipynb", "Getting None", "every reason a gradient comes back None, and `tape.explain`"),
    (
        "07_stopping_and_custom_gradients.ipynb",
        "Stopping and customising gradients",
        "`stop_gradient`, the softplus NaN, the numerics check, `custom_gradient`",
    ),
    (
        "08_model_and_training_loop.ipynb",
        "Gradients of a model and a custom training loop",
        "a CNN trained with `fit` and with a hand-written `train_step`",
    ),
    (
        "09_forward_vs_reverse_mode.ipynb",
        "Forward mode vs reverse mode",
        "JVPs, VJPs, why training uses reverse mode, Hessian-vector products",
    ),
    (
        "10_backpropagation_through_time.ipynb",
        "Backpropagation through time",
        "a recurrent network on a tape, vanishing and exploding gradients, clipping, truncated BPTT",
    ),
    (
        "11_graphs_and_tf_function.ipynb",
        "Graphs and tf.function",
        "tracing and retracing, a training step's graph drawn, Python control flow, the speed-up",
    ),
]

_TABLE = "\n".join(f"| {i} | [{title}]({name}) | {what} |" for i, (name, title, what) in enumerate(LESSONS, 1))

CELLS = [
    md(r"""
    # Start here · Automatic differentiation with minitape

    Welcome! These lessons teach how automatic differentiation works, with **minitape**: a small engine with the
    same API as TensorFlow 2's `tf.GradientTape`, written in numpy so that you can read all of it. Whatever you learn
    here carries over to TensorFlow by changing one import (`import minitape as tf`), and minitape shows what
    TensorFlow hides: the tape itself.

    **Learning goals of this page.** After it you can run a lesson, do an exercise and check it, open a hidden
    solution, and use the tape visualizer.
    """),
    md(
        "## The lessons\n\nEach takes 15 to 30 minutes. Do them in order: each builds on the one before.\n\n"
        "| # | lesson | what you learn |\n|---|---|---|\n" + _TABLE
    ),
    md("""
    ## How to use a notebook

    - Run a cell with **Shift + Enter**. Run them in order, top to bottom: later cells use what earlier cells
      defined. If things get confusing, *Kernel → Restart Kernel and Run All Cells*.
    - Change anything and run it again: nothing can break. To start a lesson over, as it was first given, run
      `bash scripts/lessons.sh --reset NN` from the repository (NN is the lesson's number, e.g. `05`).
    - Cells that demonstrate an error are meant to show it: read the message, it is part of the lesson.

    Every lesson starts like this:
    """),
    code("""
    import minitape as mt
    from lesson_tools import check

    x = mt.Variable(3.0)
    with mt.GradientTape() as tape:
        y = x * x
    print(tape.gradient(y, x))  # dy/dx = 2x = 6
    """),
    md("""
    ## Exercises, `check`, and hidden solutions

    Each lesson ends with two or three exercises. Replace the `...` with your code, run the cell, and
    `check("number", answer)` tells you whether it is right, or why not, with a hint. It never scolds and never
    shows a long error: if your code fails, it says how. Where an exercise uses a tape, pass the tape along too,
    `check("0.1", answer, tape=tape, target=y, sources=x)` (the target and sources you gave `tape.gradient`): if
    your gradient comes out `None`, `check` asks the tape why (forgot to watch `x`? computed outside the block?).
    An answer that is still `...` is "not written yet"; a `None` your code produced is a real answer, explained.

    **Exercise 0.1** (a warm-up). Compute the derivative of $y = x^2 + 3x$ at $x = 2$ with a tape, and put it in
    `answer`. (It is $2x + 3 = 7$.)
    """),
    code("""
    x = mt.Variable(2.0)
    tape = y = answer = ...  # your code here: record y on a tape, then answer = tape.gradient(y, x)

    check("0.1", answer, tape=tape, target=y, sources=x)
    """),
    md("""
    Below the exercise is its solution, in a **collapsed** cell: you see a thin bar or `⋯` instead of the code.
    Click it to open the solution (try first!). The solution is a function, `solution_0_1()`: running the cell
    only defines it (so *Run All* never replaces your own answer); call `solution_0_1()` in a new cell to see it
    checked.
    """),
    solution("""
    x = mt.Variable(2.0)
    with mt.GradientTape() as tape:
        y = x**2 + 3 * x
    answer = tape.gradient(y, x)

    check("0.1", answer, tape=tape, target=y, sources=x)
    """),
    md("""
    And a wrong answer? Here is what `check` says about `8.0`:
    """),
    code("""
    check("0.1", 8.0)
    """),
    md("""
    And a gradient that came out `None`? With the tape passed along, `check` asks it why (here `x` is a constant,
    which a tape does not watch on its own):
    """),
    code("""
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        y = x**2 + 3 * x

    check("0.1", tape.gradient(y, x), tape=tape, target=y, sources=x)
    """),
    md("""
    ## The tape visualizer

    `widgets.TapeView(tape, target, sources)` draws a recorded tape as a graph and animates it:

    - **the forward pass**: the ops light up in the order they ran, each with the value it produced;
    - **the backward pass**: from the seed $1$ at the target, each step applies one op's local derivative and
      passes the gradient to its inputs; where a value is used twice, the two contributions are added;
    - **controls**: play/pause, step back and forward, a slider over all steps, speed, reset; the side panel
      explains the current step in words and numbers; click a node to see its value, gradient, shape and dtype.

    Try it on $f(w_1, w_2) = 3 w_1^2 + 2 w_1 w_2$ at $(5, 3)$: watch the gradient of $w_1$ arrive in two parts,
    $30 + 6 = 36$, and the gradient of $w_2$ be $10$. The view needs the tape's records: use a persistent tape, or
    create the view before calling `tape.gradient`.
    """),
    volatile("""
    from minitape import widgets

    w1, w2 = mt.Variable(5.0, name="w1"), mt.Variable(3.0, name="w2")
    with mt.GradientTape(persistent=True) as tape:
        f = 3 * w1**2 + 2 * w1 * w2

    view = widgets.TapeView(tape, f, [w1, w2])
    assert [float(g) for g in tape.gradient(f, [w1, w2])] == [36.0, 10.0]
    view
    """),
    md("""
    In a saved notebook (on GitHub, say), the view shows as a still picture; run the cell to animate it.
    `view.save_html("tape.html")` writes a single file that animates in any browser, for slides.

    ## If something goes wrong

    - `ModuleNotFoundError: minitape`: the kernel runs a Python without the project. From the
      repository, `bash scripts/lessons.sh` sets everything up and opens this page.
    - The visualizer says Graphviz is missing: install it (`sudo apt-get install graphviz`, or
      `brew install graphviz`); it lays out the graphs.
    - A gradient is `None` and you do not see why: `tape.explain(target, sources)` says why (lesson 6).

    ## Summary

    - Run cells in order with Shift + Enter; restart and run all when in doubt.
    - Exercises: write, run, read `check`'s feedback; the solution is in the collapsed cell below.
    - `widgets.TapeView(tape, target, sources)` animates a tape's forward and backward passes.

    Start with [lesson 1](01_finite_differences_vs_autodiff.ipynb).
    """),
]

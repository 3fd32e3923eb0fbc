"""Lesson 04: persistent tapes and what they cost."""

from nb import code, md, solution

NAME = "04_persistent_tapes.ipynb"
TITLE = "Persistent tapes"

CELLS = [
    md(r"""
    # Lesson 4 · Persistent tapes

    **Learning goals.** After this lesson you can
    - explain why an ordinary tape answers `gradient` only once, and read the error it raises the second time;
    - use `GradientTape(persistent=True)` to ask several questions of one recording, and free it with `del tape`;
    - measure what a tape keeps in memory with `tape.stats()`, and say which ops keep what.

    **Why a tape holds memory.** To run the chain rule backwards, each op needs some of the values it saw going
    forwards: for $z = x \cdot y$, $\partial z / \partial x = y$, so the multiplication must keep $y$ (and $x$).
    For $y = e^x$, $\partial y / \partial x = e^x = y$: the exponential needs only its *output*. For $z = x + y$ the
    local derivatives are $1$: addition keeps nothing. The tape holds these saved tensors until it is done.
    """),
    code("""
    import numpy as np

    import minitape as mt
    from lesson_tools import check

    # This lesson's errors are about the tape, not about your code: show each as its message alone, one line
    # (%xmode Context brings the full traceback back).
    %xmode Minimal
    """),
    md(r"""
    ## 1. A tape answers once

    With $y = x^2$ and $z = y^2$ at $x = 3$: $\frac{dz}{dx} = 4x^3 = 108$ and $\frac{dy}{dx} = 2x = 6$.
    """),
    code("""
    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y

    print(tape.gradient(z, x))
    """),
    md("""
    The first `gradient` call released the tape's saved tensors (that is what makes an ordinary tape cheap). Asking
    again is an error, and the message says what to do:
    """),
    code("""
    try:
        print(tape.gradient(y, x))
    except RuntimeError as error:  # print only the message: the engine's traceback would hide it
        print(type(error).__name__ + ":", error)
    """),
    md("""
    ## 2. `persistent=True`: ask many times

    A persistent tape keeps its records until the tape object is deleted.
    """),
    code("""
    x = mt.constant(3.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y

    print("dz/dx =", tape.gradient(z, x))
    print("dy/dx =", tape.gradient(y, x))
    print("dz/dy =", tape.gradient(z, y))  # an intermediate result can be a source too
    del tape  # drop the reference: the records and their saved tensors are freed
    """),
    md(r"""
    ## 3. What does it cost? Measure it

    `tape.stats()` says how many records a tape holds and how many distinct tensors (and bytes) those records keep
    alive for the backward pass. Let us record five ops on a vector of 100,000 float64 numbers (800,000 bytes each):
    $s = \sum_i \big(\sin(e^{x_i})^2 + x_i\big)$.
    """),
    code("""
    x = mt.constant(np.linspace(0.0, 1.0, 100_000))


    def record(persistent):
        tape = mt.GradientTape(persistent=persistent)
        with tape:
            tape.watch(x)
            s = mt.reduce_sum(mt.square(mt.sin(mt.exp(x))) + x)
        return tape, s


    for persistent in [False, True]:
        tape, s = record(persistent)
        print("recorded:            ", tape.stats())
        tape.gradient(s, x)
        print("after one gradient():", tape.stats())
        print()
    """),
    md(r"""
    Both tapes hold the same during recording: `Exp` keeps its output $e^x$, `Sin` keeps its input (the same
    $e^x$), `Square` keeps its input $\sin(e^x)$; `AddV2` and `Sum` keep nothing. That is two distinct arrays, 1.6 MB.
    After `gradient()` the ordinary tape has let them go; the persistent one still holds them, **for as long as the
    tape object lives**. In a training loop a forgotten persistent tape per step adds up quickly, which is why you
    `del tape` as soon as you are done.

    What each op keeps, measured op by op:
    """),
    code("""
    a = mt.constant(np.ones(1000))  # 8,000 bytes
    b = mt.constant(np.full(1000, 2.0))
    ops = {
        "a + b": lambda: a + b,
        "a * b": lambda: a * b,
        "exp(a)": lambda: mt.exp(a),
        "relu(a)": lambda: mt.nn.relu(a),
        "sin(a)": lambda: mt.sin(a),
        "reduce_sum(a)": lambda: mt.reduce_sum(a),
    }
    for label, op in ops.items():
        with mt.GradientTape() as tape:
            tape.watch([a, b])
            op()
        stats = tape.stats()
        print(f"{label:14s} keeps {stats.saved_tensors} tensor(s), {stats.saved_bytes:6,} bytes")
    """),
    md(r"""
    ## Exercises

    **Exercise 4.1.** For $u = \sin(x)$ and $v = u^2$ at $x = 1$, compute $dv/dx$ **and** $du/dx$ from a single
    recording. Put the two gradients in `answer`, as the list `[dv_dx, du_dx]`.
    """),
    code("""
    tape = v = x = answer = ...  # your code here: one recording of u and v, answer = [dv_dx, du_dx]

    check("4.1", answer, tape=tape, target=v, sources=x)
    """),
    solution("""
    x = mt.constant(1.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        u = mt.sin(x)
        v = u**2
    answer = [tape.gradient(v, x), tape.gradient(u, x)]

    check("4.1", answer, tape=tape, target=v, sources=x)
    del tape  # a persistent tape keeps its records until it is deleted
    """),
    md(r"""
    **Exercise 4.2.** *Predict, then measure.* A tape records `mt.tanh(mt.tanh(mt.tanh(x)))` for a watched vector
    `x` of 1,000 float64 numbers. The derivative of $\tanh$ is $1 - \tanh^2$, written with the op's output. How
    many tensors does the tape keep alive? Put your number in `answer` (then check it with `tape.stats()`).
    """),
    code("""
    answer = ...  # a whole number

    check("4.2", answer)
    """),
    solution("""
    x = mt.constant(np.zeros(1000))
    with mt.GradientTape() as tape:
        tape.watch(x)
        mt.tanh(mt.tanh(mt.tanh(x)))
    print(tape.stats())
    answer = tape.stats().saved_tensors

    check("4.2", answer)
    """),
    md("""
    ## Summary

    - The backward pass needs some forward values; each op keeps only what its derivative needs (its inputs, its
      output, or nothing), and the tape holds them.
    - An ordinary tape frees them at the first `gradient()` call; a second call raises `RuntimeError`.
    - `GradientTape(persistent=True)` answers many times and holds its saved tensors until `del tape`.
    - `tape.stats()` shows the records and the bytes a tape keeps alive: measure before you guess.

    Next: [lesson 5](05_nesting_higher_order.ipynb), tapes inside tapes for higher-order derivatives.
    """),
]

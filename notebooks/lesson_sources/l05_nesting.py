"""Lesson 05: nested tapes, higher-order derivatives, Jacobians and Hessians."""

from nb import code, md, solution, volatile

NAME = "05_nesting_higher_order.ipynb"
TITLE = "Nested tapes and higher-order derivatives"

CELLS = [
    md(r"""
    # Lesson 5 · Nested tapes and higher-order derivatives

    **Learning goals.** After this lesson you can
    - take a second derivative by nesting one `GradientTape` inside another, and explain why that works;
    - name the three places where the inner gradient may be computed, and the one place where the second
      derivative comes back `None` (even with `persistent=True`), and what `gradient` costs inside its own tape;
    - compute partial derivatives of a function of several inputs, a Jacobian and a Hessian.

    **The key idea.** `tape.gradient` is not magic: it computes the gradient with ordinary ops (multiplications,
    additions...). If another tape is recording while those ops run, it records them too. The gradient is then
    just one more differentiable result, and the outer tape can differentiate it again.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md(r"""
    ## 1. A second derivative

    For $y = x^3$: $\;\frac{dy}{dx} = 3x^2$ and $\frac{d^2y}{dx^2} = 6x$, so $3$ and $6$ at $x = 1$.
    """),
    code("""
    x = mt.Variable(1.0)
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            y = x**3
        dy_dx = inner.gradient(y, x)  # computed while `outer` records
    d2y_dx2 = outer.gradient(dy_dx, x)

    print("dy/dx   =", dy_dx)
    print("d2y/dx2 =", d2y_dx2)
    """),
    md(r"""
    ### What the outer tape recorded, drawn

    The outer tape does not know that `dy_dx` is "a derivative": to it, `dy_dx` is the result of a few ops it
    recorded. Draw them. Make the outer tape persistent, so that its records survive for the viewer, and look for
    two parts: the forward op of $y = x^3$ (a `Pow`, recorded by both tapes), and the ops that `inner.gradient`
    ran to compute $3x^2$: a second `Pow` ($x^2$) and a `Mul` (by $3$). Those are the **gradient's own ops**. Step
    through the forward pass: it ends at $3$, the first derivative. The backward pass over the gradient's own ops
    then gives $\frac{d}{dx} 3x^2 = 6x = 6$: the second derivative.
    """),
    volatile("""
    from minitape.widgets import TapeView

    x = mt.Variable(1.0, name="x")
    with mt.GradientTape(persistent=True) as outer:
        with mt.GradientTape() as inner:
            y = x**3
        dy_dx = inner.gradient(y, x)  # its ops are recorded on `outer`

    view = TapeView(outer, dy_dx, [x])
    assert float(dy_dx) == 3.0 and float(outer.gradient(dy_dx, x)) == 6.0
    view
    """),
    md(r"""
    ## 2. Where may the inner gradient be computed?

    There are three places to call `inner.gradient(y, x)`:

    | place | is `outer` recording? | second derivative |
    |---|---|---|
    | A. inside the inner `with` block | yes | works |
    | B. after the inner block, inside the outer block | yes | works (the usual way) |
    | C. after both blocks | **no** | `None` |

    In place C the first derivative is still right, but the ops that computed it were not recorded by anyone, so
    for `outer` the result is a constant unrelated to `x`.
    """),
    code("""
    def second_derivative(place):
        x = mt.Variable(1.0)
        with mt.GradientTape() as outer:
            with mt.GradientTape() as inner:
                y = x**3
                if place == "A":
                    first = inner.gradient(y, x)
            if place == "B":
                first = inner.gradient(y, x)
        if place == "C":
            first = inner.gradient(y, x)
        return first, outer.gradient(first, x)


    for place in "ABC":
        first, second = second_derivative(place)
        print(f"place {place}: first = {float(first)}, second = {second if second is None else float(second)}")
    """),
    md(r"""
    ### `persistent=True` does not rescue place C

    A tempting fix for place C is to make both tapes persistent. It changes nothing:
    """),
    code("""
    x = mt.Variable(1.0)
    with mt.GradientTape(persistent=True) as outer:
        with mt.GradientTape(persistent=True) as inner:
            y = x**3
    first = inner.gradient(y, x)  # place C: after both blocks
    print("first derivative:", float(first), "  second derivative:", outer.gradient(first, x))
    print("but outer can still differentiate what it did record: dy/dx =", float(outer.gradient(y, x)))
    del outer, inner
    """),
    md(r"""
    Two different things are at play. **Recording** happens only while the `with` block is open: an op is recorded
    if it runs between the block's start and its end. **Persistence** is about what happens *after*: a persistent
    tape keeps its records so that `gradient` can be called on them more than once. `persistent=True` never
    extends the recording window. In place C the ops that computed `first` ($3 \cdot x^2$) ran after `outer`'s
    block had closed, so `outer` has no record of them: for `outer`, `first` is a constant that came from
    outside, and its gradient is `None`. What `outer` did record, $y = x^3$, it still answers for, as many
    times as asked.

    ### Calling `gradient` inside the tape's own block, and what it costs

    Place A (inside the inner block) works, but look at what it costs. `gradient` computes with ordinary ops; if
    it runs while a tape is recording, **that tape records the backward ops too**, including the tape whose
    gradient is being computed. Measure it with `tape.stats()` on a vector of 1,000 float64 numbers:
    """),
    code("""
    import warnings

    xs = mt.constant(np.linspace(0.0, 1.0, 1000))
    for inside in [False, True]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with mt.GradientTape(persistent=True) as tape:
                tape.watch(xs)
                s = mt.reduce_sum(mt.sin(mt.exp(xs)))
                if inside:
                    grad = tape.gradient(s, xs)
            if not inside:
                grad = tape.gradient(s, xs)
        print(f"gradient {'inside' if inside else 'after '} the block: {tape.stats()}")
        for warning in caught:
            print("   warning:", str(warning.message).split(":")[0])
        del tape
    """),
    md(r"""
    Called inside its own block, `gradient` doubled the tape (3 forward records, then 3 more for the backward
    pass) and quadrupled what it keeps alive, and every later op on that tape is recorded on top. That is the
    price of place A, and the reason for the warning: call `gradient` **after** the tape's block, unless you want
    the backward ops recorded, which is exactly what an outer tape wants for a second derivative (place B).

    ## 3. Partial derivatives of several inputs

    For $y = x^3 + 2t$:
    $\frac{\partial y}{\partial x} = 3x^2,\; \frac{\partial y}{\partial t} = 2,\;
     \frac{\partial^2 y}{\partial x^2} = 6x,\; \frac{\partial^2 y}{\partial t^2} = 0,\;
     \frac{\partial^2 y}{\partial x\,\partial t} = 0.$
    At $(x, t) = (2, 5)$: first partials $(12, 2)$. The second partials of $t$ have *no path* back to `t`
    (the first derivative $2$ is a constant), so they come back `None`, which means zero here; ask for
    `unconnected_gradients="zero"` to get a 0 instead.
    """),
    code("""
    x, t = mt.Variable(2.0), mt.Variable(5.0)
    with mt.GradientTape(persistent=True) as outer:
        with mt.GradientTape() as inner:
            y = x**3 + 2 * t
        dy_dx, dy_dt = inner.gradient(y, [x, t])

    print("dy/dx =", float(dy_dx), "  dy/dt =", float(dy_dt))
    print("d2y/dx2 =", outer.gradient(dy_dx, x))
    print("d2y/dt2 =", outer.gradient(dy_dt, t))
    print("d2y/dt2 =", outer.gradient(dy_dt, t, unconnected_gradients="zero"), "(with unconnected_gradients='zero')")
    print("d2y/dxdt =", outer.gradient(dy_dx, t, unconnected_gradients="zero"))
    del outer
    """),
    md(r"""
    ## 4. Jacobians and a Hessian

    For a vector output $y \in \mathbb{R}^m$ of a vector input $x \in \mathbb{R}^n$, `tape.gradient` gives the
    gradient of the **sum** of the outputs. The full matrix of partial derivatives, the **Jacobian**
    $J_{ij} = \partial y_i / \partial x_j$, comes from `tape.jacobian` (one backward pass per output).
    """),
    code("""
    x = mt.constant([1.0, 2.0, 3.0])
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.stack([x[0] * x[1], mt.sin(x[2])])  # y: R^3 -> R^2

    print("gradient of the sum:", tape.gradient(y, x))
    print("Jacobian (2 x 3):")
    print(tape.jacobian(y, x))
    del tape
    """),
    md(r"""
    The **Hessian** of a scalar $f$ is the Jacobian of its gradient:
    $H_{ij} = \partial^2 f / \partial x_i \partial x_j$.
    Nest the tapes and take the outer tape's `jacobian` of the inner gradient. For $f(x) = x_0^2 x_1 + x_1^3$:
    $H = \begin{pmatrix} 2x_1 & 2x_0 \\ 2x_0 & 6x_1 \end{pmatrix}$.
    """),
    code("""
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            f = x[0] ** 2 * x[1] + x[1] ** 3
        grad = inner.gradient(f, x)
    hessian = outer.jacobian(grad, x)
    print(hessian)
    """),
    md("""
    ## 5. A function and its derivatives, on a plot

    One tape per derivative order, nested three deep, over a whole vector of points at once: since each output
    depends only on its own input, the gradient of the sum gives every point's derivative.
    """),
    volatile("""
    xs = mt.constant(np.linspace(-4, 4, 201))
    with mt.GradientTape() as t3:
        t3.watch(xs)
        with mt.GradientTape() as t2:
            t2.watch(xs)
            with mt.GradientTape() as t1:
                t1.watch(xs)
                ys = mt.tanh(xs)
            d1 = t1.gradient(ys, xs)
        d2 = t2.gradient(d1, xs)
    d3 = t3.gradient(d2, xs)

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for values, label in [(ys, "tanh(x)"), (d1, "1st derivative"), (d2, "2nd"), (d3, "3rd")]:
        ax.plot(xs.numpy(), values.numpy(), label=label)
    ax.legend()
    ax.grid(alpha=0.3)
    plt.show()

    tanh = np.tanh(xs.numpy())
    np.testing.assert_allclose(d1.numpy(), 1 - tanh**2, atol=1e-12)
    np.testing.assert_allclose(d2.numpy(), -2 * tanh * (1 - tanh**2), atol=1e-12)
    """),
    md(r"""
    ## Exercises

    **Exercise 5.1.** Compute $\frac{d^2}{dx^2}\big(x \sin x\big)$ at $x = 1$ with nested tapes
    (the answer is $2\cos 1 - \sin 1$). Store it in `answer`.
    """),
    code("""
    outer = dy_dx = x = answer = ...  # your code here: nested tapes, answer = outer.gradient(dy_dx, x)

    check("5.1", answer, tape=outer, target=dy_dx, sources=x)
    """),
    solution("""
    x = mt.Variable(1.0)
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            y = x * mt.sin(x)
        dy_dx = inner.gradient(y, x)
    answer = outer.gradient(dy_dx, x)

    check("5.1", answer, tape=outer, target=dy_dx, sources=x)
    """),
    md(r"""
    **Exercise 5.2.** Compute the Hessian of $g(x) = x_0^3 + x_0 x_1^2$ at $x = (1, 2)$ as a $2 \times 2$ tensor.
    """),
    code("""
    outer = grad = x = answer = ...  # your code here: grad from the inner tape, answer = outer.jacobian(grad, x)

    check("5.2", answer, tape=outer, target=grad, sources=x)
    """),
    solution("""
    x = mt.constant([1.0, 2.0])
    with mt.GradientTape() as outer:
        outer.watch(x)
        with mt.GradientTape() as inner:
            inner.watch(x)
            g = x[0] ** 3 + x[0] * x[1] ** 2
        grad = inner.gradient(g, x)
    answer = outer.jacobian(grad, x)

    check("5.2", answer, tape=outer, target=grad, sources=x)
    """),
    md("""
    **Exercise 5.3.** A student writes the code below and gets `None`. Where should the line
    `dy_dx = inner.gradient(y, x)` go? Answer with the letter of the best place from the table in section 2
    (`"A"`, `"B"` or `"C"`).

    ```python
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            y = x**3
    dy_dx = inner.gradient(y, x)
    d2y_dx2 = outer.gradient(dy_dx, x)  # None
    ```
    """),
    code("""
    answer = ...  # "A", "B" or "C"

    check("5.3", answer)
    """),
    solution("""
    answer = "B"  # inside the outer block (it records), after the inner one (it need not); now it is in place C

    check("5.3", answer)
    """),
    md("""
    ## Summary

    - Gradients are computed with ordinary ops; a tape that is recording at that moment records them, so it can
      differentiate the gradient again.
    - Compute the inner gradient inside the outer `with` block (places A or B); after it (place C) the second
      derivative is `None`, persistent or not: `persistent` keeps records longer, it never records more.
    - `gradient` called inside its own tape's block records the backward ops on that tape too (twice the records
      here, four times the saved memory): call it after the block unless an outer tape should record it.
    - `tape.jacobian(y, x)` gives every $\\partial y_i / \\partial x_j$; the Jacobian of a gradient is the Hessian.
    - A `None` second derivative may also just mean "no path": the first derivative did not depend on that input.

    Next: [lesson 6](06_getting_none.ipynb), every way a gradient can come back `None`.
    """),
]

"""Lesson 08: forward mode against reverse mode."""

from nb import code, md, solution, volatile

NAME = "08_forward_vs_reverse_mode.ipynb"
TITLE = "Forward mode vs reverse mode"

CELLS = [
    md(r"""
    # Lesson 8 · Forward mode vs reverse mode

    **Learning goals.** After this lesson you can
    - compute a Jacobian-vector product (JVP) with `mt.autodiff.ForwardAccumulator`, and a vector-Jacobian product
      (VJP) with a `GradientTape` and `output_gradients`;
    - say which of the two builds a Jacobian column by column and which row by row;
    - explain, with a measurement, why reverse mode wins for one loss and many parameters;
    - compute a Hessian-vector product with forward mode over reverse mode.

    For $y = F(x)$ with $x \in \mathbb{R}^n$, $y \in \mathbb{R}^m$ and Jacobian $J = \partial y / \partial x$
    ($m \times n$):

    | mode | pushes | computes | one pass gives |
    |---|---|---|---|
    | forward | a tangent $\dot x$ along with $x$ | $J \dot x$ (JVP) | one **column** of $J$ (for $\dot x = e_j$) |
    | reverse | a cotangent $\bar y$ back from $y$ | $\bar y^\top J$ (VJP) | one **row** of $J$ (for $\bar y = e_i$) |

    A full Jacobian costs $n$ forward passes or $m$ reverse passes. A loss is one number ($m = 1$): one reverse pass
    gives its whole gradient, whatever $n$ is.
    """),
    code("""
    import time

    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md(r"""
    ## 1. A Jacobian-vector product in forward mode

    `ForwardAccumulator(primals, tangents)` attaches a tangent to each primal; every op run inside the block
    computes its output's tangent right away (no tape, nothing to run backwards). `acc.jvp(y)` reads it.

    Take $F(x) = (x_0 x_1,\; \sin x_0)$ at $x = (2, 3)$, so $J = \begin{pmatrix} 3 & 2 \\ \cos 2 & 0 \end{pmatrix}$.
    """),
    code("""
    def F(x):
        return mt.stack([x[0] * x[1], mt.sin(x[0])])


    x = mt.constant([2.0, 3.0])
    with mt.autodiff.ForwardAccumulator(primals=x, tangents=mt.constant([1.0, 0.0])) as acc:
        y = F(x)
    print("J e0 (first column): ", acc.jvp(y))

    with mt.autodiff.ForwardAccumulator(x, mt.constant([0.0, 1.0])) as acc:
        y = F(x)
    print("J e1 (second column):", acc.jvp(y))
    """),
    md(r"""
    ## 2. A vector-Jacobian product in reverse mode

    `tape.gradient(y, x, output_gradients=v)` computes $v^\top J$: the gradient of $\sum_i v_i y_i$. With
    $v = e_0$ it is the first row of $J$.
    """),
    code("""
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = F(x)
    print("e0^T J (first row): ", tape.gradient(y, x, output_gradients=mt.constant([1.0, 0.0])))
    print("e1^T J (second row):", tape.gradient(y, x, output_gradients=mt.constant([0.0, 1.0])))
    print("the whole Jacobian:")
    print(tape.jacobian(y, x))
    del tape
    """),
    md(r"""
    ## 3. Why reverse mode wins for a loss

    Take a loss of $n$ parameters, $L(w) = \sum_i \tanh(w_i)\, w_{(i+1) \bmod n}$ (each term couples two
    neighbours). Its gradient needs $n$ forward-mode passes (one per basis tangent), but a single reverse pass.
    """),
    code("""
    def L(w):
        return mt.reduce_sum(mt.tanh(w) * mt.concat([w[1:], w[:1]], axis=0))


    def gradient_forward(w):
        columns = []
        for j in range(w.shape[0]):
            tangent = np.zeros(w.shape[0])
            tangent[j] = 1.0
            with mt.autodiff.ForwardAccumulator(w, mt.constant(tangent)) as acc:
                value = L(w)
            columns.append(float(acc.jvp(value)))
        return np.array(columns)


    def gradient_reverse(w):
        with mt.GradientTape() as tape:
            tape.watch(w)
            value = L(w)
        return tape.gradient(value, w).numpy()


    w = mt.constant(np.random.default_rng(0).normal(size=8))
    np.testing.assert_allclose(gradient_forward(w), gradient_reverse(w), atol=1e-12)
    print("forward and reverse mode agree:", np.round(gradient_reverse(w), 4))
    """),
    md("The measured cost (volatile, so the tests check only that reverse mode wins clearly for many parameters):"),
    volatile("""
    def seconds(method, w, repeats=3):
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            method(w)
            best = min(best, time.perf_counter() - start)
        return best


    sizes = [2, 8, 32, 128]
    rng = np.random.default_rng(1)
    forward_times, reverse_times = [], []
    for n in sizes:
        w = mt.constant(rng.normal(size=n))
        forward_times.append(seconds(gradient_forward, w))
        reverse_times.append(seconds(gradient_reverse, w))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.loglog(sizes, forward_times, "o-", label="forward mode: n JVPs")
    ax.loglog(sizes, reverse_times, "s-", label="reverse mode: 1 VJP")
    ax.set_xlabel("number of parameters n")
    ax.set_ylabel("seconds per gradient")
    ax.legend()
    plt.show()
    print(f"n = {sizes[-1]}: forward mode took {forward_times[-1] / reverse_times[-1]:.0f}x as long as reverse mode")
    assert forward_times[-1] > 5 * reverse_times[-1]
    """),
    md(r"""
    When is forward mode the better choice? When there are few inputs and many outputs ($n \ll m$), for example the
    sensitivity of a whole simulated trajectory to one parameter. It also needs no tape: its memory does not grow
    with the length of the computation.

    ## 4. Hessian-vector products: forward over reverse

    Newton-type methods need $H v$, the Hessian times a vector, without building $H$ ($n^2$ numbers). The gradient
    $g(x) = \nabla f(x)$ is a function of $x$, and $H v = J_g\, v$ is its JVP. So: run the reverse-mode gradient
    *inside* a `ForwardAccumulator` whose tangent is $v$, then read the tangent of the gradient.

    For $f(x) = \sum_i x_i^3$: $H = \operatorname{diag}(6 x_i)$, so at $x = (1, 2, 3)$ and $v = (1, 1, 0)$,
    $H v = (6, 12, 0)$.
    """),
    code("""
    x = mt.constant([1.0, 2.0, 3.0])
    v = mt.constant([1.0, 1.0, 0.0])
    with mt.autodiff.ForwardAccumulator(x, v) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            f = mt.reduce_sum(x**3)
        g = tape.gradient(f, x)
    print("gradient:", g)
    print("H v:     ", acc.jvp(g))
    """),
    md(r"""
    ## Exercises

    **Exercise 8.1.** With a `ForwardAccumulator`, compute the directional derivative of
    $h(x) = \sum_i x_i^2 \cos x_i$ at $x = (0.5, 1.0, 1.5)$ along $u = (1, -1, 2)$: that is $\nabla h(x) \cdot u$,
    a single number. Store it in `answer`.
    """),
    code("""
    answer = ...  # your code here: acc.jvp(h), with h computed inside the ForwardAccumulator's block

    check("8.1", answer)
    """),
    solution("""
    x = mt.constant([0.5, 1.0, 1.5])
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, -1.0, 2.0])) as acc:
        h = mt.reduce_sum(x**2 * mt.cos(x))
    answer = acc.jvp(h)

    check("8.1", answer)
    """),
    md(r"""
    **Exercise 8.2.** For $F(x) = (x_0 x_1,\; \sin x_0)$ from section 1 at $x = (2, 3)$, compute the VJP
    $v^\top J$ for $v = (2, -1)$ with a tape and `output_gradients`.
    """),
    code("""
    tape = y = x = answer = ...  # your code here: y = F(x) on a tape, answer = the VJP from tape.gradient

    check("8.2", answer, tape=tape, target=y, sources=x)
    """),
    solution("""
    x = mt.constant([2.0, 3.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = F(x)
    answer = tape.gradient(y, x, output_gradients=mt.constant([2.0, -1.0]))

    check("8.2", answer, tape=tape, target=y, sources=x)
    """),
    md(r"""
    **Exercise 8.3.** Compute the Hessian-vector product $H v$ of $f(x) = x_0^2 x_1 + e^{x_1}$ at $x = (1, 0)$ for
    $v = (1, 2)$, forward over reverse.
    """),
    code("""
    tape = f = x = answer = ...  # your code here: the tape inside the accumulator's block, answer = acc.jvp(g)

    check("8.3", answer, tape=tape, target=f, sources=x)
    """),
    solution("""
    x = mt.constant([1.0, 0.0])
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, 2.0])) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            f = x[0] ** 2 * x[1] + mt.exp(x[1])
        g = tape.gradient(f, x)
    answer = acc.jvp(g)

    check("8.3", answer, tape=tape, target=f, sources=x)
    """),
    md(r"""
    ## Summary

    - Forward mode pushes tangents with the values: one pass gives $J \dot x$, a column of the Jacobian.
    - Reverse mode records a tape and pulls a cotangent back: one pass gives $\bar y^\top J$, a row.
    - For one loss and $n$ parameters, reverse mode needs one pass, forward mode $n$: that is why training uses
      reverse mode. Forward mode wins when outputs outnumber inputs, and needs no tape.
    - Forward over reverse gives Hessian-vector products in about the cost of two gradients.

    This is the last lesson. Back to [the start](00_start_here.ipynb).
    """),
]

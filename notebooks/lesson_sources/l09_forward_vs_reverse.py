"""Lesson 09: forward mode against reverse mode."""

from nb import code, md, solution, volatile

NAME = "09_forward_vs_reverse_mode.ipynb"
TITLE = "Forward mode vs reverse mode"

CELLS = [
    md(r"""
    # Lesson 9 · Forward mode vs reverse mode

    **Learning goals.** After this lesson you can
    - compute a Jacobian-vector product (JVP) with `mt.autodiff.ForwardAccumulator`, and a vector-Jacobian product
      (VJP) with a `GradientTape` and `output_gradients`;
    - say which of the two builds a Jacobian column by column and which row by row;
    - explain, with a measurement, why reverse mode wins for one loss and many parameters, tell the algorithm's
      factor ($n$ passes) from an implementation's overhead per pass, and show forward mode winning for one input
      and many outputs;
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
    The visualizer draws forward mode too: give it the accumulator instead of a tape. Each step runs one op and shows,
    beside its value, the **tangent** it produced (the JVP of that op, from its inputs' tangents). There is no
    backward pass: after the last op, the target's tangent is the answer, here the second column $(2, 0)$.
    """),
    volatile("""
    from minitape.widgets import TapeView

    TapeView(acc, y)
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
    ### Where does that factor come from? Measure one pass of each

    The factor is **larger than $n$**, and it should not be: the theory says that one forward-mode pass (a JVP)
    and one reverse-mode pass (a VJP) each cost a small constant times one evaluation of $L$, so $n$ JVPs against
    one VJP should be about $n$ times slower, not several times $n$. Split it into its two parts by timing a
    single pass of each kind at $n = 128$, next to one plain evaluation of $L$ (no tape, no accumulator):
    """),
    volatile("""
    n = sizes[-1]
    w = mt.constant(rng.normal(size=n))
    basis_tangent = mt.constant(np.eye(n)[0])


    def plain_evaluation(w):
        L(w)


    def one_jvp(w):
        with mt.autodiff.ForwardAccumulator(w, basis_tangent) as acc:
            value = L(w)
        acc.jvp(value)


    plain, jvp_pass, vjp_pass = (seconds(method, w, repeats=5) for method in [plain_evaluation, one_jvp, gradient_reverse])
    print(f"one plain evaluation of L:           {plain * 1e6:7.0f} µs")
    print(f"one reverse pass (record + backward): {vjp_pass * 1e6:7.0f} µs = {vjp_pass / plain:4.1f} evaluations")
    print(f"one forward-mode pass (one JVP):      {jvp_pass * 1e6:7.0f} µs = {jvp_pass / plain:4.1f} evaluations")
    print()
    per_jvp_in_loop = forward_times[-1] / n
    print(f"forward mode / reverse mode = {forward_times[-1] / reverse_times[-1]:.0f}x "
          f"= {n} x {per_jvp_in_loop / reverse_times[-1]:.1f}, that is:")
    print(f"  {n} passes instead of one (the algorithm: the same in any library)")
    print(f"  times {per_jvp_in_loop / reverse_times[-1]:.1f}, the cost of one JVP pass over one VJP pass "
          "(minitape's own overhead)")
    assert jvp_pass > vjp_pass > plain
    """),
    md(r"""
    The $n$ is the algorithm and it is real: a gradient needs one forward-mode pass per input. The second factor is
    not: it is how minitape implements forward mode. minitape has no forward rule per op; it derives each op's JVP
    from the op's *reverse* rule, with a trick: the VJP $u \mapsto J^\top u$ is linear in $u$, so
    $J t = \frac{\partial}{\partial u} \langle J^\top u, t \rangle$, which is **one more small backward pass** run
    for every op of the forward pass. So each op costs a recording, a VJP and a backward pass over that VJP: several
    times what the op itself costs, and several times what one op costs in a reverse pass. (TensorFlow uses the same
    trick for ops without a dedicated forward rule; JAX writes a JVP rule for each primitive, and there a JVP pass
    costs about as much as a VJP pass.) In a fair comparison, reverse mode wins a gradient by a factor of about $n$.

    ### When forward mode wins: few inputs, many outputs

    Turn the shapes around: one input, $m$ outputs, $G(s) = \sin(s a) \, e^{-s a}$ for a fixed vector $a$ of $m$
    entries (a whole curve as a function of one parameter). The full Jacobian is a single column: **one**
    forward-mode pass, against $m$ reverse passes (`tape.jacobian` runs one backward pass per output). Even with
    its overhead per pass, forward mode wins as soon as $m$ exceeds that overhead, and by more as $m$ grows:
    """),
    volatile("""
    def jacobian_forward(s, a):
        with mt.autodiff.ForwardAccumulator(s, mt.constant(np.float64(1.0))) as acc:
            curve = mt.sin(s * a) * mt.exp(-s * a)
        return acc.jvp(curve)


    def jacobian_reverse(s, a):
        with mt.GradientTape() as tape:
            tape.watch(s)
            curve = mt.sin(s * a) * mt.exp(-s * a)
        return tape.jacobian(curve, s)


    s = mt.constant(np.float64(0.7))
    for m in [4, 32, 256]:
        a = mt.constant(np.linspace(0.1, 3.0, m))
        np.testing.assert_allclose(jacobian_forward(s, a).numpy(), jacobian_reverse(s, a).numpy(), rtol=1e-10)
        forward_time = min(seconds(lambda _: jacobian_forward(s, a), None) for _ in range(2))
        reverse_time = min(seconds(lambda _: jacobian_reverse(s, a), None) for _ in range(2))
        print(f"m = {m:3d} outputs: forward mode (1 pass) {forward_time * 1e3:5.2f} ms, "
              f"reverse mode ({m} passes) {reverse_time * 1e3:6.2f} ms, ratio reverse/forward {reverse_time / forward_time:4.1f}")
    assert reverse_time > 2 * forward_time
    """),
    md(r"""
    So the rule is about shapes: $n$ inputs and $m$ outputs cost $n$ forward passes or $m$ reverse passes. A loss
    ($m = 1$) calls for reverse mode; the sensitivity of a whole trajectory or curve to one parameter ($n = 1$)
    calls for forward mode. Forward mode also needs no tape: its memory does not grow with the length of the
    computation.

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

    **Exercise 9.1.** With a `ForwardAccumulator`, compute the directional derivative of
    $h(x) = \sum_i x_i^2 \cos x_i$ at $x = (0.5, 1.0, 1.5)$ along $u = (1, -1, 2)$: that is $\nabla h(x) \cdot u$,
    a single number. Store it in `answer`.
    """),
    code("""
    answer = ...  # your code here: acc.jvp(h), with h computed inside the ForwardAccumulator's block

    check("9.1", answer)
    """),
    solution("""
    x = mt.constant([0.5, 1.0, 1.5])
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, -1.0, 2.0])) as acc:
        h = mt.reduce_sum(x**2 * mt.cos(x))
    answer = acc.jvp(h)

    check("9.1", answer)
    """),
    md(r"""
    **Exercise 9.2.** For $F(x) = (x_0 x_1,\; \sin x_0)$ from section 1 at $x = (2, 3)$, compute the VJP
    $v^\top J$ for $v = (2, -1)$ with a tape and `output_gradients`.
    """),
    code("""
    tape = y = x = answer = ...  # your code here: y = F(x) on a tape, answer = the VJP from tape.gradient

    check("9.2", answer, tape=tape, target=y, sources=x)
    """),
    solution("""
    x = mt.constant([2.0, 3.0])
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = F(x)
    answer = tape.gradient(y, x, output_gradients=mt.constant([2.0, -1.0]))

    check("9.2", answer, tape=tape, target=y, sources=x)
    """),
    md(r"""
    **Exercise 9.3.** Compute the Hessian-vector product $H v$ of $f(x) = x_0^2 x_1 + e^{x_1}$ at $x = (1, 0)$ for
    $v = (1, 2)$, forward over reverse.
    """),
    code("""
    tape = f = x = answer = ...  # your code here: the tape inside the accumulator's block, answer = acc.jvp(g)

    check("9.3", answer, tape=tape, target=f, sources=x)
    """),
    solution("""
    x = mt.constant([1.0, 0.0])
    with mt.autodiff.ForwardAccumulator(x, mt.constant([1.0, 2.0])) as acc:
        with mt.GradientTape() as tape:
            tape.watch(x)
            f = x[0] ** 2 * x[1] + mt.exp(x[1])
        g = tape.gradient(f, x)
    answer = acc.jvp(g)

    check("9.3", answer, tape=tape, target=f, sources=x)
    """),
    md(r"""
    ## Summary

    - Forward mode pushes tangents with the values: one pass gives $J \dot x$, a column of the Jacobian.
    - Reverse mode records a tape and pulls a cotangent back: one pass gives $\bar y^\top J$, a row.
    - For one loss and $n$ parameters, reverse mode needs one pass, forward mode $n$: that is why training uses
      reverse mode. Measure fairly: part of minitape's gap is its own forward-mode overhead (each op's JVP is a
      small backward pass over the op's reverse rule), not the algorithm.
    - Forward mode wins when outputs outnumber inputs (one pass for a whole Jacobian column), and needs no tape.
    - Forward over reverse gives Hessian-vector products in about the cost of two gradients.

    Next: [lesson 10](10_backpropagation_through_time.ipynb), backpropagation through a recurrent network.
    """),
]

"""Lesson 01: finite differences against automatic differentiation."""

from nb import code, md, solution, volatile

NAME = "01_finite_differences_vs_autodiff.ipynb"
TITLE = "Finite differences vs automatic differentiation"

CELLS = [
    md(r"""
    # Lesson 1 · Finite differences vs automatic differentiation

    **Learning goals.** After this lesson you can
    - approximate a gradient with *finite differences* and say why it is only approximate;
    - explain the two errors of a finite difference (truncation and round-off) and pick a good step size;
    - compute the same gradient exactly with a `GradientTape`, in one backward pass;
    - compare the cost of both methods as the number of parameters grows.

    We use a small function of two parameters all along:

    $$f(w_1, w_2) = 3 w_1^2 + 2 w_1 w_2, \qquad
      \frac{\partial f}{\partial w_1} = 6 w_1 + 2 w_2, \qquad
      \frac{\partial f}{\partial w_2} = 2 w_1 .$$

    At $(w_1, w_2) = (5, 3)$ the gradient is $(36, 10)$: keep these two numbers in mind.
    """),
    code("""
    import time

    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check

    np.set_printoptions(precision=6)


    def f(w1, w2):
        return 3 * w1**2 + 2 * w1 * w2
    """),
    md(r"""
    ## 1. Finite differences: nudge one parameter at a time

    The derivative is a limit: $\frac{\partial f}{\partial w_i} = \lim_{h \to 0} \frac{f(w + h e_i) - f(w)}{h}$,
    where $e_i$ is the unit vector along parameter $i$. A *forward difference* simply stops before the limit
    and uses a small $h$. It needs $f(w)$ once, plus one more evaluation **per parameter**.
    """),
    code("""
    def forward_differences(h):
        base = f(5.0, 3.0)
        return np.array([(f(5.0 + h, 3.0) - base) / h, (f(5.0, 3.0 + h) - base) / h])


    for h in [1e-1, 1e-3, 1e-6]:
        print(f"h = {h:g}: {forward_differences(h)}")
    """),
    md(r"""
    Close to $(36, 10)$, never exactly. Why? Taylor's theorem says

    $$\frac{f(w + h e_i) - f(w)}{h}
      = \frac{\partial f}{\partial w_i} + \frac{h}{2}\,\frac{\partial^2 f}{\partial w_i^2} + O(h^2).$$

    The extra term is the **truncation error**, proportional to $h$: here $\frac{h}{2} \cdot 6 = 3h$ for $w_1$
    (so $0.3$ at $h = 0.1$, exactly what we saw), and $0$ for $w_2$, since $f$ is linear in $w_2$.
    So make $h$ tiny? Then the **round-off error** takes over: $f(w + h e_i)$ and $f(w)$ agree in almost all
    their digits, and subtracting them leaves only the few digits that differ. With machine precision
    $\varepsilon$ (about $2.2 \times 10^{-16}$ in float64), that error grows like $\varepsilon |f| / h$.
    """),
    md("""
    ## 2. Truncation against round-off, on a plot

    Let us measure the error of the forward difference for $\\partial f / \\partial w_1$ over many step sizes, in
    float64 (numpy's default). The plot is log-log; its output is not compared by the tests (images differ
    between machines), but the cell checks the numbers it draws.
    """),
    volatile("""
    steps = np.logspace(-14, -1, 27)
    errors = np.array([abs((f(5.0 + h, 3.0) - f(5.0, 3.0)) / h - 36.0) for h in steps])

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.loglog(steps, errors, "o-", label="measured error")
    ax.loglog(steps, 3 * steps, "--", label="truncation: 3h")
    ax.loglog(steps, np.finfo(float).eps * 105 / steps, ":", label="round-off: ε·|f|/h")
    ax.set_xlabel("step size h")
    ax.set_ylabel("error in ∂f/∂w₁")
    ax.set_ylim(1e-12, 1e3)
    ax.legend()
    plt.show()

    best = steps[np.argmin(errors)]
    assert 1e-10 < best < 1e-5, best  # the sweet spot is near sqrt(eps) ~ 1e-8
    assert errors[-1] > 0.1 and errors[0] > 1e-3  # both ends are bad: truncation on the right, round-off on the left
    """),
    md(r"""
    The best step is near $\sqrt{\varepsilon} \approx 10^{-8}$, and even there only about half of the 16 digits
    are right. In float32 ($\varepsilon \approx 1.2 \times 10^{-7}$) the best you can hope for is about 3 or 4
    digits. That is why finite differences are used to **test** gradients, not to train models.
    """),
    md(r"""
    ## 3. Automatic differentiation: exact, in one backward pass

    A `GradientTape` records every operation run inside its `with` block. `tape.gradient` then walks that record
    backwards, applying the chain rule with each operation's *exact* local derivative. Variables are watched
    automatically.
    """),
    code("""
    w1 = mt.Variable(5.0)
    w2 = mt.Variable(3.0)
    with mt.GradientTape() as tape:
        y = f(w1, w2)

    dw1, dw2 = tape.gradient(y, [w1, w2])
    print(y)
    print(dw1)
    print(dw2)
    """),
    md(r"""
    Exactly $36$ and $10$: no step size to choose, no truncation, no cancellation. The only rounding is the
    ordinary rounding of float32 arithmetic in the products and sums.

    The engine's test helper `mt.test_util.check_gradients` compares a tape's gradients with *central*
    differences along random directions (in float64). It is silent when they agree and raises an
    `AssertionError` otherwise:
    """),
    code("""
    mt.test_util.check_gradients(f, [np.float64(5.0), np.float64(3.0)])
    print("the tape agrees with finite differences")
    """),
    md(r"""
    ## 4. What does each method cost?

    Take $n$ parameters and a scalar loss $L(w) = \sum_i \sin(w_i)\, w_i^2$. Forward differences evaluate $L$
    $n + 1$ times. The tape runs $L$ once forward and once backward, whatever $n$ is, and its backward pass costs
    a small constant times the forward pass. Counting evaluations is exact:
    """),
    code("""
    def loss(w):
        return mt.reduce_sum(mt.sin(w) * w**2)


    evaluations = {"finite differences": lambda n: n + 1, "tape": lambda n: 1}
    for n in [2, 10, 100, 1000]:
        print(f"n = {n:5d}: finite differences evaluate L {evaluations['finite differences'](n):5d} times, "
              f"the tape {evaluations['tape'](n)} time (plus one backward pass)")
    """),
    md("""
    And here is the measured time (it varies from run to run, so the tests only check that finite differences are
    slower for many parameters).
    """),
    volatile("""
    def by_finite_differences(w, h=1e-6):
        base = float(loss(mt.constant(w)))
        grad = np.empty_like(w)
        for i in range(w.size):
            nudged = w.copy()
            nudged[i] += h
            grad[i] = (float(loss(mt.constant(nudged))) - base) / h
        return grad


    def by_tape(w):
        w = mt.constant(w)
        with mt.GradientTape() as tape:
            tape.watch(w)
            value = loss(w)
        return tape.gradient(value, w).numpy()


    def seconds(method, w, repeats=3):
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            method(w)
            best = min(best, time.perf_counter() - start)
        return best


    rng = np.random.default_rng(0)
    sizes = [1, 10, 30, 100, 300]
    fd_times, tape_times = [], []
    for n in sizes:
        w = rng.normal(size=n)
        np.testing.assert_allclose(by_finite_differences(w), by_tape(w), atol=1e-4)
        fd_times.append(seconds(by_finite_differences, w))
        tape_times.append(seconds(by_tape, w))

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.loglog(sizes, fd_times, "o-", label="finite differences (n + 1 evaluations)")
    ax.loglog(sizes, tape_times, "s-", label="GradientTape (1 forward + 1 backward)")
    ax.set_xlabel("number of parameters n")
    ax.set_ylabel("seconds per gradient")
    ax.legend()
    plt.show()
    print(f"n = {sizes[-1]}: finite differences took {fd_times[-1] / tape_times[-1]:.0f}x as long as the tape")
    assert fd_times[-1] > 5 * tape_times[-1]
    """),
    md(r"""
    The finite-difference line climbs with slope 1 (cost $\propto n$); the tape's stays almost flat. A neural
    network has millions of parameters: only reverse-mode automatic differentiation is affordable.

    ## Exercises

    **Exercise 1.1.** Write `forward_difference(f, w, h)` for any function `f` of a numpy vector `w`: it returns
    a numpy array of the $n$ forward differences.
    """),
    code("""
    def forward_difference(f, w, h):
        ...  # your code here: return an array with one approximate partial derivative per entry of w


    check("1.1", forward_difference)
    """),
    solution("""
    def forward_difference(f, w, h):
        base = f(w)
        grad = np.empty(len(w))
        for i in range(len(w)):
            nudged = np.array(w, dtype=float)
            nudged[i] += h
            grad[i] = (f(nudged) - base) / h
        return grad


    check("1.1", forward_difference)
    """),
    md(r"""
    **Exercise 1.2.** With a tape, compute the gradient of $g(x, y) = x^2 y + \sin x$ at $(x, y) = (1, 2)$.
    Put the answer in `answer` as a list `[dg/dx, dg/dy]`.
    """),
    code("""
    tape = g = x = y = answer = ...  # your code here: x, y, g recorded on a tape, answer = tape.gradient(g, [x, y])

    check("1.2", answer, tape=tape, target=g, sources=[x, y])
    """),
    solution("""
    x, y = mt.Variable(1.0), mt.Variable(2.0)
    with mt.GradientTape() as tape:
        g = x**2 * y + mt.sin(x)
    answer = tape.gradient(g, [x, y])

    check("1.2", answer, tape=tape, target=g, sources=[x, y])
    """),
    md(r"""
    **Exercise 1.3.** A *central* difference, $\frac{f(w + h e_i) - f(w - h e_i)}{2h}$, costs two evaluations per
    parameter but its truncation error is $O(h^2)$. Write `central_difference(f, w, h)`.
    """),
    code("""
    def central_difference(f, w, h):
        ...  # your code here


    check("1.3", central_difference)
    """),
    solution("""
    def central_difference(f, w, h):
        grad = np.empty(len(w))
        for i in range(len(w)):
            up, down = np.array(w, dtype=float), np.array(w, dtype=float)
            up[i] += h
            down[i] -= h
            grad[i] = (f(up) - f(down)) / (2 * h)
        return grad


    check("1.3", central_difference)
    """),
    md(r"""
    ## Summary

    - A finite difference approximates a partial derivative with a small step $h$: its error is truncation
      ($\propto h$) plus round-off ($\propto \varepsilon / h$), smallest near $h \approx \sqrt{\varepsilon}$.
    - It costs one extra evaluation per parameter: fine for checking, hopeless for training.
    - A `GradientTape` records the computation and runs it backwards with exact local derivatives: one forward and
      one backward pass give every partial derivative, exact up to floating-point rounding.
    - `mt.test_util.check_gradients` uses finite differences for what they are good at: testing the tape.

    Next: [lesson 2](02_autodiff_by_hand.ipynb), reverse-mode autodiff built by hand, in 40 lines of Python.
    """),
]

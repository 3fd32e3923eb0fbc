"""Lesson 01: finite differences against automatic differentiation."""

from nb import code, md, solution, volatile

NAME = "01_finite_differences_vs_autodiff.ipynb"
TITLE = "Finite differences vs automatic differentiation"

CELLS = [
    md(
        r"""
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
    """,
        ko=r"""
    # 1강 · 유한 차분과 자동 미분

    **학습 목표.** 이 강의를 마치면
    - *유한 차분*으로 그래디언트를 근사하고, 그것이 왜 근사일 뿐인지 설명할 수 있습니다.
    - 유한 차분의 두 가지 오차(절단 오차와 반올림 오차)를 설명하고 좋은 간격을 고를 수 있습니다.
    - 같은 그래디언트를 `GradientTape`으로, 역전파 한 번에 정확히 계산할 수 있습니다.
    - 매개변수가 많아질 때 두 방법의 비용을 비교할 수 있습니다.

    강의 내내 매개변수가 두 개인 작은 함수를 씁니다.

    $$f(w_1, w_2) = 3 w_1^2 + 2 w_1 w_2, \qquad
      \frac{\partial f}{\partial w_1} = 6 w_1 + 2 w_2, \qquad
      \frac{\partial f}{\partial w_2} = 2 w_1 .$$

    $(w_1, w_2) = (5, 3)$에서 그래디언트는 $(36, 10)$입니다. 이 두 숫자를 기억해 두세요.
    """,
    ),
    code("""
    import time

    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check, say  # say(english, korean): the words of a plot, in the lesson's language

    np.set_printoptions(precision=6)


    def f(w1, w2):
        return 3 * w1**2 + 2 * w1 * w2
    """),
    md(
        r"""
    ## 1. Finite differences: nudge one parameter at a time

    The derivative is a limit: $\frac{\partial f}{\partial w_i} = \lim_{h \to 0} \frac{f(w + h e_i) - f(w)}{h}$,
    where $e_i$ is the unit vector along parameter $i$. A *forward difference* simply stops before the limit
    and uses a small $h$. It needs $f(w)$ once, plus one more evaluation **per parameter**.
    """,
        ko=r"""
    ## 1. 유한 차분: 매개변수를 하나씩 조금 움직이기

    도함수는 극한입니다: $\frac{\partial f}{\partial w_i} = \lim_{h \to 0} \frac{f(w + h e_i) - f(w)}{h}$.
    여기서 $e_i$는 매개변수 $i$ 방향의 단위 벡터입니다. *전방 차분*은 극한까지 가지 않고 작은 $h$에서 멈춥니다.
    $f(w)$를 한 번 계산하고, **매개변수마다** 한 번씩 더 계산해야 합니다.
    """,
    ),
    code("""
    def forward_differences(h):
        base = f(5.0, 3.0)
        return np.array([(f(5.0 + h, 3.0) - base) / h, (f(5.0, 3.0 + h) - base) / h])


    for h in [1e-1, 1e-3, 1e-6]:
        print(f"h = {h:g}: {forward_differences(h)}")
    """),
    md(
        r"""
    Close to $(36, 10)$, never exactly. Why? Taylor's theorem says

    $$\frac{f(w + h e_i) - f(w)}{h}
      = \frac{\partial f}{\partial w_i} + \frac{h}{2}\,\frac{\partial^2 f}{\partial w_i^2} + O(h^2).$$

    The extra term is the **truncation error**, proportional to $h$: here $\frac{h}{2} \cdot 6 = 3h$ for $w_1$
    (so $0.3$ at $h = 0.1$, exactly what we saw), and $0$ for $w_2$, since $f$ is linear in $w_2$.
    So make $h$ tiny? Then the **round-off error** takes over: $f(w + h e_i)$ and $f(w)$ agree in almost all
    their digits, and subtracting them leaves only the few digits that differ. With machine precision
    $\varepsilon$ (about $2.2 \times 10^{-16}$ in float64), that error grows like $\varepsilon |f| / h$.
    """,
        ko=r"""
    $(36, 10)$에 가깝지만 정확히 같지는 않습니다. 왜 그럴까요? 테일러 정리에 따르면

    $$\frac{f(w + h e_i) - f(w)}{h}
      = \frac{\partial f}{\partial w_i} + \frac{h}{2}\,\frac{\partial^2 f}{\partial w_i^2} + O(h^2).$$

    덧붙은 항이 **절단 오차**이고, $h$에 비례합니다. 여기서는 $w_1$에 대해 $\frac{h}{2} \cdot 6 = 3h$
    ($h = 0.1$이면 $0.3$, 방금 본 그대로)이고, $f$가 $w_2$에 대해 선형이므로 $w_2$에 대해서는 $0$입니다.
    그렇다면 $h$를 아주 작게 하면 될까요? 그러면 이번에는 **반올림 오차**가 커집니다. $f(w + h e_i)$와
    $f(w)$는 거의 모든 자릿수가 같아서, 빼고 나면 서로 다른 몇 자리만 남습니다. 기계 정밀도를
    $\varepsilon$(float64에서 약 $2.2 \times 10^{-16}$)이라 하면, 이 오차는 $\varepsilon |f| / h$처럼 커집니다.
    """,
    ),
    md(
        """
    ## 2. Truncation against round-off, on a plot

    Let us measure the error of the forward difference for $\\partial f / \\partial w_1$ over many step sizes, in
    float64 (numpy's default). The plot is log-log; its output is not compared by the tests (images differ
    between machines), but the cell checks the numbers it draws.
    """,
        ko=r"""
    ## 2. 절단 오차 대 반올림 오차, 그래프로 보기

    $\partial f / \partial w_1$의 전방 차분 오차를 여러 간격에서 float64(numpy의 기본값)로 재어 봅시다.
    그래프는 로그-로그 축입니다. 그림은 기계마다 달라서 테스트가 출력을 비교하지 않지만, 셀이 그리는 숫자는
    셀 안에서 확인합니다.
    """,
    ),
    volatile("""
    steps = np.logspace(-14, -1, 27)
    errors = np.array([abs((f(5.0 + h, 3.0) - f(5.0, 3.0)) / h - 36.0) for h in steps])

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.loglog(steps, errors, "o-", label=say("measured error", "측정한 오차"))
    ax.loglog(steps, 3 * steps, "--", label=say("truncation: 3h", "절단 오차: 3h"))
    ax.loglog(steps, np.finfo(float).eps * 105 / steps, ":", label=say("round-off: ε·|f|/h", "반올림 오차: ε·|f|/h"))
    ax.set_xlabel(say("step size h", "간격 h"))
    ax.set_ylabel(say("error in ∂f/∂w₁", "∂f/∂w₁의 오차"))
    ax.set_ylim(1e-12, 1e3)
    ax.legend()
    plt.show()

    best = steps[np.argmin(errors)]
    assert 1e-10 < best < 1e-5, best  # the sweet spot is near sqrt(eps) ~ 1e-8
    assert errors[-1] > 0.1 and errors[0] > 1e-3  # both ends are bad: truncation on the right, round-off on the left
    """),
    md(
        r"""
    The best step is near $\sqrt{\varepsilon} \approx 10^{-8}$, and even there only about half of the 16 digits
    are right. In float32 ($\varepsilon \approx 1.2 \times 10^{-7}$) the best you can hope for is about 3 or 4
    digits. That is why finite differences are used to **test** gradients, not to train models.
    """,
        ko=r"""
    가장 좋은 간격은 $\sqrt{\varepsilon} \approx 10^{-8}$ 근처이고, 거기서도 16자리 중 절반 정도만 맞습니다.
    float32($\varepsilon \approx 1.2 \times 10^{-7}$)라면 기대할 수 있는 것은 3~4자리 정도입니다. 그래서 유한
    차분은 모델을 훈련하는 데가 아니라 그래디언트를 **검사**하는 데 씁니다.
    """,
    ),
    md(
        r"""
    ## 3. Automatic differentiation: exact, in one backward pass

    A `GradientTape` records every operation run inside its `with` block. `tape.gradient` then walks that record
    backwards, applying the chain rule with each operation's *exact* local derivative. Variables are watched
    automatically.
    """,
        ko=r"""
    ## 3. 자동 미분: 역전파 한 번으로 정확하게

    `GradientTape`은 `with` 블록 안에서 실행된 모든 연산을 기록합니다. 그다음 `tape.gradient`가 그 기록을
    거꾸로 따라가며, 연산마다의 *정확한* 국소 도함수로 연쇄 법칙을 적용합니다. 변수는 자동으로 감시됩니다.
    """,
    ),
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
    md(
        r"""
    Exactly $36$ and $10$: no step size to choose, no truncation, no cancellation. The only rounding is the
    ordinary rounding of float32 arithmetic in the products and sums.

    The engine's test helper `mt.test_util.check_gradients` compares a tape's gradients with *central*
    differences along random directions (in float64). It is silent when they agree and raises an
    `AssertionError` otherwise:
    """,
        ko=r"""
    정확히 $36$과 $10$입니다. 고를 간격도, 절단 오차도, 자릿수 상쇄도 없습니다. 곱셈과 덧셈에서 생기는 float32
    연산의 평범한 반올림만 있을 뿐입니다.

    엔진의 테스트 도우미 `mt.test_util.check_gradients`는 테이프의 그래디언트를 무작위 방향의 *중앙* 차분과
    (float64로) 비교합니다. 둘이 일치하면 조용하고, 그렇지 않으면 `AssertionError`를 냅니다.
    """,
    ),
    code("""
    mt.test_util.check_gradients(f, [np.float64(5.0), np.float64(3.0)])
    print("the tape agrees with finite differences")
    """),
    md(
        r"""
    ## 4. What does each method cost?

    Take $n$ parameters and a scalar loss $L(w) = \sum_i \sin(w_i)\, w_i^2$. Forward differences evaluate $L$
    $n + 1$ times. The tape runs $L$ once forward and once backward, whatever $n$ is, and its backward pass costs
    a small constant times the forward pass. Counting evaluations is exact:
    """,
        ko=r"""
    ## 4. 각 방법의 비용은?

    매개변수가 $n$개이고 손실이 스칼라 $L(w) = \sum_i \sin(w_i)\, w_i^2$라고 합시다. 전방 차분은 $L$을
    $n + 1$번 계산합니다. 테이프는 $n$이 얼마든 $L$을 순전파 한 번, 역전파 한 번 실행하고, 역전파의 비용은
    순전파의 작은 상수배입니다. 계산 횟수는 정확히 셀 수 있습니다.
    """,
    ),
    code("""
    def loss(w):
        return mt.reduce_sum(mt.sin(w) * w**2)


    evaluations = {"finite differences": lambda n: n + 1, "tape": lambda n: 1}
    for n in [2, 10, 100, 1000]:
        print(f"n = {n:5d}: finite differences evaluate L {evaluations['finite differences'](n):5d} times, "
              f"the tape {evaluations['tape'](n)} time (plus one backward pass)")
    """),
    md(
        """
    And here is the measured time (it varies from run to run, so the tests only check that finite differences are
    slower for many parameters).
    """,
        ko=r"""
    그리고 실제로 잰 시간입니다(실행할 때마다 달라지므로, 테스트는 매개변수가 많을 때 유한 차분이 더 느리다는
    것만 확인합니다).
    """,
    ),
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
    ax.loglog(sizes, fd_times, "o-", label=say("finite differences (n + 1 evaluations)", "유한 차분 (n + 1번 계산)"))
    ax.loglog(sizes, tape_times, "s-", label=say("GradientTape (1 forward + 1 backward)", "GradientTape (순전파 1번 + 역전파 1번)"))
    ax.set_xlabel(say("number of parameters n", "매개변수 수 n"))
    ax.set_ylabel(say("seconds per gradient", "그래디언트 한 번에 걸린 초"))
    ax.legend()
    plt.show()
    print(f"n = {sizes[-1]}: finite differences took {fd_times[-1] / tape_times[-1]:.0f}x as long as the tape")
    assert fd_times[-1] > 5 * tape_times[-1]
    """),
    md(
        r"""
    The finite-difference line climbs with slope 1 (cost $\propto n$); the tape's stays almost flat. A neural
    network has millions of parameters: only reverse-mode automatic differentiation is affordable.

    ## Exercises

    **Exercise 1.1.** Write `forward_difference(f, w, h)` for any function `f` of a numpy vector `w`: it returns
    a numpy array of the $n$ forward differences.
    """,
        ko=r"""
    유한 차분의 선은 기울기 1로 올라가고(비용 $\propto n$), 테이프의 선은 거의 평평합니다. 신경망의 매개변수는
    수백만 개이니, 감당할 수 있는 방법은 역방향 모드 자동 미분뿐입니다.

    ## 연습 문제

    **연습 문제 1.1.** numpy 벡터 `w`의 임의의 함수 `f`에 대해 `forward_difference(f, w, h)`를 작성하세요.
    $n$개의 전방 차분을 numpy 배열로 돌려줍니다.
    """,
    ),
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
    md(
        r"""
    **Exercise 1.2.** With a tape, compute the gradient of $g(x, y) = x^2 y + \sin x$ at $(x, y) = (1, 2)$.
    Put the answer in `answer` as a list `[dg/dx, dg/dy]`.
    """,
        ko=r"""
    **연습 문제 1.2.** 테이프로 $(x, y) = (1, 2)$에서 $g(x, y) = x^2 y + \sin x$의 그래디언트를 계산하세요.
    답은 리스트 `[dg/dx, dg/dy]`로 `answer`에 넣습니다.
    """,
    ),
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
    md(
        r"""
    **Exercise 1.3.** A *central* difference, $\frac{f(w + h e_i) - f(w - h e_i)}{2h}$, costs two evaluations per
    parameter but its truncation error is $O(h^2)$. Write `central_difference(f, w, h)`.
    """,
        ko=r"""
    **연습 문제 1.3.** *중앙* 차분 $\frac{f(w + h e_i) - f(w - h e_i)}{2h}$는 매개변수마다 두 번 계산해야
    하지만 절단 오차가 $O(h^2)$입니다. `central_difference(f, w, h)`를 작성하세요.
    """,
    ),
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
    md(
        r"""
    ## Summary

    - A finite difference approximates a partial derivative with a small step $h$: its error is truncation
      ($\propto h$) plus round-off ($\propto \varepsilon / h$), smallest near $h \approx \sqrt{\varepsilon}$.
    - It costs one extra evaluation per parameter: fine for checking, hopeless for training.
    - A `GradientTape` records the computation and runs it backwards with exact local derivatives: one forward and
      one backward pass give every partial derivative, exact up to floating-point rounding.
    - `mt.test_util.check_gradients` uses finite differences for what they are good at: testing the tape.

    Next: [lesson 2](02_autodiff_by_hand.ipynb), reverse-mode autodiff built by hand, in 40 lines of Python.
    """,
        ko=r"""
    ## 정리

    - 유한 차분은 작은 간격 $h$로 편미분을 근사합니다. 오차는 절단 오차($\propto h$)와 반올림 오차
      ($\propto \varepsilon / h$)의 합이고, $h \approx \sqrt{\varepsilon}$ 근처에서 가장 작습니다.
    - 매개변수마다 계산이 한 번씩 더 듭니다. 검사에는 충분하지만 훈련에는 쓸 수 없습니다.
    - `GradientTape`은 계산을 기록하고 정확한 국소 도함수로 거꾸로 실행합니다. 순전파 한 번과 역전파 한 번으로
      모든 편미분을 부동소수점 반올림 범위 안에서 정확히 얻습니다.
    - `mt.test_util.check_gradients`는 유한 차분을 그것이 잘하는 일, 곧 테이프를 검사하는 데 씁니다.

    다음: [2강](02_autodiff_by_hand.ipynb), Python 40줄로 직접 만드는 역방향 모드 자동 미분.
    """,
    ),
]

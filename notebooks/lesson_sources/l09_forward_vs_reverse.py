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
    """, ko=r"""
    # 9강 · 순방향 모드와 역방향 모드

    **학습 목표.** 이 강의를 마치면
    - `mt.autodiff.ForwardAccumulator`로 야코비안-벡터 곱(JVP)을, `GradientTape`과 `output_gradients`로
      벡터-야코비안 곱(VJP)을 계산할 수 있습니다.
    - 둘 중 어느 쪽이 야코비안을 열 단위로, 어느 쪽이 행 단위로 만드는지 말할 수 있습니다.
    - 손실 하나와 매개변수 여럿이면 왜 역방향 모드가 이기는지 측정으로 설명하고, 알고리즘의 배수($n$번의 패스)와
      구현의 패스당 부담을 구별하고, 입력 하나와 출력 여럿이면 순방향 모드가 이기는 것을 보일 수 있습니다.
    - 역방향 위에 순방향을 얹어 헤세 행렬-벡터 곱을 계산할 수 있습니다.

    $x \in \mathbb{R}^n$, $y \in \mathbb{R}^m$, 야코비안 $J = \partial y / \partial x$($m \times n$)인
    $y = F(x)$에 대해:

    | 모드 | 밀어 보내는 것 | 계산하는 것 | 한 번의 패스가 주는 것 |
    |---|---|---|---|
    | 순방향 | $x$와 함께 가는 접선 $\dot x$ | $J \dot x$ (JVP) | $J$의 **열** 하나 ($\dot x = e_j$일 때) |
    | 역방향 | $y$에서 되돌아오는 여접선 $\bar y$ | $\bar y^\top J$ (VJP) | $J$의 **행** 하나 ($\bar y = e_i$일 때) |

    야코비안 전체에는 순방향 패스 $n$번 또는 역방향 패스 $m$번이 듭니다. 손실은 숫자 하나($m = 1$)이므로, $n$이
    얼마든 역방향 패스 한 번이 그래디언트 전체를 줍니다.
    """),
    code("""
    import time

    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check, say  # say(english, korean): the words of a plot, in the lesson's language
    """),
    md(r"""
    ## 1. A Jacobian-vector product in forward mode

    `ForwardAccumulator(primals, tangents)` attaches a tangent to each primal; every op run inside the block
    computes its output's tangent right away (no tape, nothing to run backwards). `acc.jvp(y)` reads it.

    Take $F(x) = (x_0 x_1,\; \sin x_0)$ at $x = (2, 3)$, so $J = \begin{pmatrix} 3 & 2 \\ \cos 2 & 0 \end{pmatrix}$.
    """, ko=r"""
    ## 1. 순방향 모드로 구하는 야코비안-벡터 곱

    `ForwardAccumulator(primals, tangents)`는 원래 값(primal)마다 접선을 붙입니다. 블록 안에서 실행되는 연산은
    모두 그 자리에서 출력의 접선을 계산합니다(테이프도, 거꾸로 실행할 것도 없습니다). `acc.jvp(y)`가 그것을
    읽습니다.

    $x = (2, 3)$에서 $F(x) = (x_0 x_1,\; \sin x_0)$를 생각하면
    $J = \begin{pmatrix} 3 & 2 \\ \cos 2 & 0 \end{pmatrix}$입니다.
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
    """, ko=r"""
    시각화 도구는 순방향 모드도 그립니다. 테이프 대신 누산기(accumulator)를 넘기면 됩니다. 단계마다 연산 하나를
    실행하고, 그 값 옆에 연산이 만든 **접선**(입력의 접선에서 얻은 그 연산의 JVP)을 보여 줍니다. 역전파는 없습니다.
    마지막 연산이 끝나면 타깃의 접선이 답이고, 여기서는 두 번째 열 $(2, 0)$입니다.
    """),
    volatile("""
    from minitape.widgets import TapeView

    TapeView(acc, y)
    """),
    md(r"""
    ## 2. A vector-Jacobian product in reverse mode

    `tape.gradient(y, x, output_gradients=v)` computes $v^\top J$: the gradient of $\sum_i v_i y_i$. With
    $v = e_0$ it is the first row of $J$.
    """, ko=r"""
    ## 2. 역방향 모드로 구하는 벡터-야코비안 곱

    `tape.gradient(y, x, output_gradients=v)`는 $v^\top J$, 곧 $\sum_i v_i y_i$의 그래디언트를 계산합니다.
    $v = e_0$이면 $J$의 첫 행입니다.
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
    """, ko=r"""
    ## 3. 손실에는 왜 역방향 모드가 이길까

    매개변수가 $n$개인 손실 $L(w) = \sum_i \tanh(w_i)\, w_{(i+1) \bmod n}$을 생각합시다(항마다 이웃한 둘을
    잇습니다). 그 그래디언트에는 순방향 모드 패스가 $n$번(기저 접선마다 한 번) 필요하지만, 역방향 패스는 한 번이면
    됩니다.
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
    md("The measured cost (volatile, so the tests check only that reverse mode wins clearly for many parameters):", ko=r"""
잰 비용입니다(실행마다 달라서, 테스트는 매개변수가 많을 때 역방향 모드가 확실히 이기는지만 확인합니다).
    """),
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
    ax.loglog(sizes, forward_times, "o-", label=say("forward mode: n JVPs", "순방향 모드: JVP n번"))
    ax.loglog(sizes, reverse_times, "s-", label=say("reverse mode: 1 VJP", "역방향 모드: VJP 1번"))
    ax.set_xlabel(say("number of parameters n", "매개변수 수 n"))
    ax.set_ylabel(say("seconds per gradient", "그래디언트 한 번에 걸린 초"))
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
    """, ko=r"""
    ### 그 배수는 어디서 올까? 패스 하나씩 재어 보기

    배수가 **$n$보다 큽니다**. 그래서는 안 됩니다. 이론에 따르면 순방향 모드 패스 하나(JVP)와 역방향 모드 패스
    하나(VJP)는 저마다 $L$을 한 번 계산하는 비용의 작은 상수배이므로, JVP $n$번 대 VJP 한 번은 $n$배의 몇 배가
    아니라 $n$배쯤 느려야 합니다. $n = 128$에서 각 종류의 패스 하나와 $L$의 평범한 계산 한 번(테이프도 누산기도
    없이)을 나란히 재서 두 부분으로 나누어 봅시다.
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
    """, ko=r"""
    $n$은 알고리즘에서 오는 것이고 진짜입니다. 그래디언트에는 입력마다 순방향 모드 패스가 한 번씩 필요합니다. 두
    번째 배수는 그렇지 않습니다. minitape가 순방향 모드를 구현한 방식에서 옵니다. minitape에는 연산마다의 순방향
    규칙이 없고, 각 연산의 JVP를 그 연산의 *역방향* 규칙에서 한 가지 요령으로 얻습니다. VJP $u \mapsto J^\top u$는
    $u$에 대해 선형이므로 $J t = \frac{\partial}{\partial u} \langle J^\top u, t \rangle$이고, 이것은 순전파의
    연산마다 실행되는 **작은 역전파 하나**입니다. 그래서 연산마다 기록 하나, VJP 하나, 그 VJP에 대한 역전파 하나가
    들고, 연산 자체 비용의 몇 배, 역방향 패스에서 연산 하나가 드는 비용의 몇 배가 됩니다. (TensorFlow도 전용
    순방향 규칙이 없는 연산에는 같은 요령을 씁니다. JAX는 기본 연산마다 JVP 규칙을 따로 써 두어서 JVP 패스가 VJP
    패스와 비용이 비슷합니다.) 공정하게 비교하면 그래디언트에서 역방향 모드는 약 $n$배로 이깁니다.

    ### 순방향 모드가 이길 때: 입력이 적고 출력이 많을 때

    모양을 뒤집어 봅시다. 입력 하나, 출력 $m$개, 원소가 $m$개인 고정 벡터 $a$에 대해
    $G(s) = \sin(s a) \, e^{-s a}$입니다(매개변수 하나의 함수로 나타낸 곡선 전체). 야코비안 전체가 열 하나이므로
    순방향 모드 패스 **한 번**과 역방향 패스 $m$번(`tape.jacobian`은 출력마다 역전파를 한 번 실행합니다)의
    대결입니다. 패스당 부담이 있어도 $m$이 그 부담을 넘어서자마자 순방향 모드가 이기고, $m$이 커질수록 차이가
    벌어집니다.
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
    """, ko=r"""
    그러니 규칙은 모양에 관한 것입니다. 입력 $n$개와 출력 $m$개에는 순방향 패스 $n$번 또는 역방향 패스 $m$번이
    듭니다. 손실($m = 1$)에는 역방향 모드가, 매개변수 하나에 대한 궤적이나 곡선 전체의 민감도($n = 1$)에는
    순방향 모드가 맞습니다. 순방향 모드는 테이프도 필요 없어서, 계산이 길어져도 메모리가 늘지 않습니다.

    ## 4. 헤세 행렬-벡터 곱: 역방향 위에 순방향

    뉴턴 계열 방법에는 $H$($n^2$개의 숫자)를 만들지 않고 헤세 행렬과 벡터의 곱 $H v$가 필요합니다. 그래디언트
    $g(x) = \nabla f(x)$는 $x$의 함수이고, $H v = J_g\, v$는 그것의 JVP입니다. 그러니 접선이 $v$인
    `ForwardAccumulator` *안에서* 역방향 모드 그래디언트를 실행하고, 그래디언트의 접선을 읽으면 됩니다.

    $f(x) = \sum_i x_i^3$이면 $H = \operatorname{diag}(6 x_i)$이므로, $x = (1, 2, 3)$, $v = (1, 1, 0)$에서
    $H v = (6, 12, 0)$입니다.
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
    """, ko=r"""
    ## 연습 문제

    **연습 문제 9.1.** `ForwardAccumulator`로 $x = (0.5, 1.0, 1.5)$에서 $u = (1, -1, 2)$ 방향으로
    $h(x) = \sum_i x_i^2 \cos x_i$의 방향 도함수를 계산하세요. 곧 숫자 하나인 $\nabla h(x) \cdot u$입니다.
    `answer`에 넣으세요.
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
    """, ko=r"""
    **연습 문제 9.2.** 1절의 $F(x) = (x_0 x_1,\; \sin x_0)$에 대해 $x = (2, 3)$에서 $v = (2, -1)$의 VJP
    $v^\top J$를 테이프와 `output_gradients`로 계산하세요.
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
    """, ko=r"""
    **연습 문제 9.3.** $x = (1, 0)$에서 $f(x) = x_0^2 x_1 + e^{x_1}$의 헤세 행렬-벡터 곱 $H v$를 $v = (1, 2)$에
    대해, 역방향 위에 순방향을 얹어 계산하세요.
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
    """, ko=r"""
    ## 정리

    - 순방향 모드는 값과 함께 접선을 밀어 보냅니다. 한 번의 패스가 야코비안의 열 하나 $J \dot x$를 줍니다.
    - 역방향 모드는 테이프를 기록하고 여접선을 거꾸로 당깁니다. 한 번의 패스가 행 하나 $\bar y^\top J$를 줍니다.
    - 손실 하나와 매개변수 $n$개라면 역방향 모드는 패스 한 번, 순방향 모드는 $n$번이 필요합니다. 훈련에 역방향
      모드를 쓰는 이유입니다. 공정하게 재세요. minitape의 차이 일부는 알고리즘이 아니라 자체 순방향 모드의
      부담입니다(연산마다의 JVP가 그 연산의 역방향 규칙에 대한 작은 역전파입니다).
    - 출력이 입력보다 많으면 순방향 모드가 이기고(야코비안 열 하나 전체가 패스 한 번), 테이프도 필요 없습니다.
    - 역방향 위의 순방향은 그래디언트 두 번 정도의 비용으로 헤세 행렬-벡터 곱을 줍니다.

    다음: [10강](10_backpropagation_through_time.ipynb), 순환 신경망을 거치는 역전파.
    """),
]

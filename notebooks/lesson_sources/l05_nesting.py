"""Lesson 05: nested tapes, higher-order derivatives, Jacobians and Hessians."""

from nb import code, md, solution, volatile

NAME = "05_nesting_higher_order.ipynb"
TITLE = "Nested tapes and higher-order derivatives"

CELLS = [
    md(
        r"""
    # Lesson 5 · Nested tapes and higher-order derivatives

    **Learning goals.** After this lesson you can
    - take a second derivative by nesting one `GradientTape` inside another, and explain why that works;
    - name the three places where the inner gradient may be computed, and the one place where the second
      derivative comes back `None` (even with `persistent=True`), and what `gradient` costs inside its own tape;
    - compute partial derivatives of a function of several inputs, a Jacobian and a Hessian.

    **The key idea.** `tape.gradient` is not magic: it computes the gradient with ordinary ops (multiplications,
    additions...). If another tape is recording while those ops run, it records them too. The gradient is then
    just one more differentiable result, and the outer tape can differentiate it again.
    """,
        ko=r"""
    # 5강 · 중첩 테이프와 고계 도함수

    **학습 목표.** 이 강의를 마치면
    - `GradientTape` 안에 다른 `GradientTape`을 중첩해서 이계도함수를 구하고, 그것이 왜 되는지 설명할 수 있습니다.
    - 안쪽 그래디언트를 계산할 수 있는 세 자리와, (`persistent=True`여도) 이계도함수가 `None`으로 돌아오는 한
      자리, 그리고 자기 테이프 안에서 `gradient`를 부를 때의 비용을 말할 수 있습니다.
    - 입력이 여러 개인 함수의 편미분, 야코비안, 헤세 행렬을 계산할 수 있습니다.

    **핵심 아이디어.** `tape.gradient`는 마법이 아닙니다. 평범한 연산(곱셈, 덧셈, ...)으로 그래디언트를
    계산합니다. 그 연산들이 실행되는 동안 다른 테이프가 기록하고 있다면, 그 테이프도 이 연산들을 기록합니다.
    그러면 그래디언트는 미분 가능한 결과 하나일 뿐이고, 바깥 테이프가 그것을 다시 미분할 수 있습니다.
    """,
    ),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check, say  # say(english, korean): the words of a plot, in the lesson's language
    """),
    md(
        r"""
    ## 1. A second derivative

    For $y = x^3$: $\;\frac{dy}{dx} = 3x^2$ and $\frac{d^2y}{dx^2} = 6x$, so $3$ and $6$ at $x = 1$.
    """,
        ko=r"""
    ## 1. 이계도함수

    $y = x^3$이면 $\;\frac{dy}{dx} = 3x^2$, $\frac{d^2y}{dx^2} = 6x$이므로, $x = 1$에서 $3$과 $6$입니다.
    """,
    ),
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
    md(
        r"""
    ### What the outer tape recorded, drawn

    The outer tape does not know that `dy_dx` is "a derivative": to it, `dy_dx` is the result of a few ops it
    recorded. Draw them. Make the outer tape persistent, so that its records survive for the viewer, and look for
    two parts: the forward op of $y = x^3$ (a `Pow`, recorded by both tapes), and the ops that `inner.gradient`
    ran to compute $3x^2$: a second `Pow` ($x^2$) and a `Mul` (by $3$). Those are the **gradient's own ops**. Step
    through the forward pass: it ends at $3$, the first derivative. The backward pass over the gradient's own ops
    then gives $\frac{d}{dx} 3x^2 = 6x = 6$: the second derivative.
    """,
        ko=r"""
    ### 바깥 테이프가 기록한 것, 그림으로

    바깥 테이프는 `dy_dx`가 "도함수"라는 것을 모릅니다. 바깥 테이프에게 `dy_dx`는 자기가 기록한 연산 몇 개의
    결과일 뿐입니다. 그려 봅시다. 기록이 뷰어를 위해 남아 있도록 바깥 테이프를 영구 테이프로 만들고, 두 부분을
    찾아보세요. $y = x^3$의 순전파 연산(두 테이프가 모두 기록한 `Pow`)과, `inner.gradient`가 $3x^2$을 계산하려고
    실행한 연산들, 곧 두 번째 `Pow`($x^2$)와 `Mul`($3$ 곱하기)입니다. 이것이 **그래디언트 자신의 연산**입니다.
    순전파를 한 단계씩 따라가면 일계도함수 $3$에서 끝납니다. 그래디언트 자신의 연산을 거치는 역전파는
    $\frac{d}{dx} 3x^2 = 6x = 6$, 곧 이계도함수를 줍니다.
    """,
    ),
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
    md(
        r"""
    ## 2. Where may the inner gradient be computed?

    There are three places to call `inner.gradient(y, x)`:

    | place | is `outer` recording? | second derivative |
    |---|---|---|
    | A. inside the inner `with` block | yes | works |
    | B. after the inner block, inside the outer block | yes | works (the usual way) |
    | C. after both blocks | **no** | `None` |

    In place C the first derivative is still right, but the ops that computed it were not recorded by anyone, so
    for `outer` the result is a constant unrelated to `x`.
    """,
        ko=r"""
    ## 2. 안쪽 그래디언트는 어디서 계산할 수 있을까?

    `inner.gradient(y, x)`를 부를 수 있는 자리는 세 곳입니다.

    | 자리 | `outer`가 기록 중인가? | 이계도함수 |
    |---|---|---|
    | A. 안쪽 `with` 블록 안 | 예 | 나옴 |
    | B. 안쪽 블록이 끝난 뒤, 바깥 블록 안 | 예 | 나옴 (보통 쓰는 방법) |
    | C. 두 블록이 모두 끝난 뒤 | **아니요** | `None` |

    자리 C에서도 일계도함수는 맞지만, 그것을 계산한 연산은 아무도 기록하지 않았습니다. 그래서 `outer`에게 그
    결과는 `x`와 상관없는 상수입니다.
    """,
    ),
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
    md(
        r"""
    ### `persistent=True` does not rescue place C

    A tempting fix for place C is to make both tapes persistent. It changes nothing:
    """,
        ko=r"""
    ### `persistent=True`로도 자리 C를 구할 수 없다

    자리 C를 고치려고 두 테이프를 모두 영구 테이프로 만들고 싶어집니다. 하지만 아무것도 달라지지 않습니다.
    """,
    ),
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
    md(
        r"""
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
    """,
        ko=r"""
    서로 다른 두 가지가 작용합니다. **기록**은 `with` 블록이 열려 있는 동안에만 일어납니다. 블록의 시작과 끝
    사이에 실행된 연산만 기록됩니다. **영구성**은 그 *뒤*의 이야기입니다. 영구 테이프는 `gradient`를 여러 번
    부를 수 있도록 기록을 유지합니다. `persistent=True`가 기록하는 구간을 늘려 주지는 않습니다. 자리 C에서
    `first`($3 \cdot x^2$)를 계산한 연산은 `outer`의 블록이 닫힌 뒤에 실행되었으므로 `outer`에게는 그 기록이
    없습니다. `outer`에게 `first`는 바깥에서 온 상수이고, 그 그래디언트는 `None`입니다. `outer`가 기록한 것,
    곧 $y = x^3$에 대해서는 몇 번을 물어도 답합니다.

    ### 테이프 자신의 블록 안에서 `gradient`를 부르면, 그리고 그 비용

    자리 A(안쪽 블록 안)도 동작하지만 비용을 보세요. `gradient`는 평범한 연산으로 계산합니다. 테이프가 기록하는
    중에 실행되면 **그 테이프가 역전파 연산까지 기록하고**, 그래디언트를 계산하고 있는 바로 그 테이프도
    예외가 아닙니다. float64 숫자 1,000개짜리 벡터에서 `tape.stats()`로 재어 봅시다.
    """,
    ),
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
    md(
        r"""
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
    """,
        ko=r"""
    자기 블록 안에서 불린 `gradient`는 테이프를 두 배로 늘렸고(순전파 기록 3개, 그다음 역전파 기록 3개 더),
    붙잡고 있는 메모리는 네 배가 되었습니다. 그 테이프에서 이후에 실행되는 연산도 모두 그 위에 기록됩니다. 이것이
    자리 A의 대가이고, 경고가 나오는 이유입니다. 역전파 연산을 기록하고 싶은 경우가 아니라면 `gradient`는
    테이프의 블록이 **끝난 뒤에** 부르세요. 이계도함수를 원하는 바깥 테이프가 바로 그 경우입니다(자리 B).

    ## 3. 입력이 여러 개일 때의 편미분

    $y = x^3 + 2t$이면
    $\frac{\partial y}{\partial x} = 3x^2,\; \frac{\partial y}{\partial t} = 2,\;
     \frac{\partial^2 y}{\partial x^2} = 6x,\; \frac{\partial^2 y}{\partial t^2} = 0,\;
     \frac{\partial^2 y}{\partial x\,\partial t} = 0$입니다.
    $(x, t) = (2, 5)$에서 일계 편미분은 $(12, 2)$입니다. $t$에 대한 이계 편미분은 `t`로 돌아가는 *경로가
    없어서*(일계도함수 $2$는 상수입니다) `None`으로 돌아오고, 여기서는 0을 뜻합니다. 0을 받고 싶다면
    `unconnected_gradients="zero"`를 요청하세요.
    """,
    ),
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
    md(
        r"""
    ## 4. Jacobians and a Hessian

    For a vector output $y \in \mathbb{R}^m$ of a vector input $x \in \mathbb{R}^n$, `tape.gradient` gives the
    gradient of the **sum** of the outputs. The full matrix of partial derivatives, the **Jacobian**
    $J_{ij} = \partial y_i / \partial x_j$, comes from `tape.jacobian` (one backward pass per output).
    """,
        ko=r"""
    ## 4. 야코비안과 헤세 행렬

    벡터 입력 $x \in \mathbb{R}^n$의 벡터 출력 $y \in \mathbb{R}^m$에 대해 `tape.gradient`는 출력들의 **합**의
    그래디언트를 줍니다. 편미분 전체의 행렬, 곧 **야코비안** $J_{ij} = \partial y_i / \partial x_j$는
    `tape.jacobian`으로 구합니다(출력마다 역전파 한 번).
    """,
    ),
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
    md(
        r"""
    The **Hessian** of a scalar $f$ is the Jacobian of its gradient:
    $H_{ij} = \partial^2 f / \partial x_i \partial x_j$.
    Nest the tapes and take the outer tape's `jacobian` of the inner gradient. For $f(x) = x_0^2 x_1 + x_1^3$:
    $H = \begin{pmatrix} 2x_1 & 2x_0 \\ 2x_0 & 6x_1 \end{pmatrix}$.
    """,
        ko=r"""
    스칼라 $f$의 **헤세 행렬**은 그 그래디언트의 야코비안입니다:
    $H_{ij} = \partial^2 f / \partial x_i \partial x_j$.
    테이프를 중첩하고, 안쪽 그래디언트에 대해 바깥 테이프의 `jacobian`을 구하세요. $f(x) = x_0^2 x_1 + x_1^3$이면
    $H = \begin{pmatrix} 2x_1 & 2x_0 \\ 2x_0 & 6x_1 \end{pmatrix}$입니다.
    """,
    ),
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
    md(
        """
    ## 5. A function and its derivatives, on a plot

    One tape per derivative order, nested three deep, over a whole vector of points at once: since each output
    depends only on its own input, the gradient of the sum gives every point's derivative.
    """,
        ko=r"""
    ## 5. 함수와 그 도함수들, 그래프로

    도함수의 차수마다 테이프 하나씩, 세 겹으로 중첩해서 점들의 벡터 전체를 한꺼번에 계산합니다. 출력마다 자기
    입력에만 의존하므로, 합의 그래디언트가 모든 점의 도함수를 줍니다.
    """,
    ),
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
    for values, label in [(ys, "tanh(x)"), (d1, say("1st derivative", "1계 도함수")), (d2, say("2nd", "2계")), (d3, say("3rd", "3계"))]:
        ax.plot(xs.numpy(), values.numpy(), label=label)
    ax.legend()
    ax.grid(alpha=0.3)
    plt.show()

    tanh = np.tanh(xs.numpy())
    np.testing.assert_allclose(d1.numpy(), 1 - tanh**2, atol=1e-12)
    np.testing.assert_allclose(d2.numpy(), -2 * tanh * (1 - tanh**2), atol=1e-12)
    """),
    md(
        r"""
    ## Exercises

    **Exercise 5.1.** Compute $\frac{d^2}{dx^2}\big(x \sin x\big)$ at $x = 1$ with nested tapes
    (the answer is $2\cos 1 - \sin 1$). Store it in `answer`.
    """,
        ko=r"""
    ## 연습 문제

    **연습 문제 5.1.** 중첩 테이프로 $x = 1$에서 $\frac{d^2}{dx^2}\big(x \sin x\big)$를 계산하세요
    (답은 $2\cos 1 - \sin 1$입니다). `answer`에 넣으세요.
    """,
    ),
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
    md(
        r"""
    **Exercise 5.2.** Compute the Hessian of $g(x) = x_0^3 + x_0 x_1^2$ at $x = (1, 2)$ as a $2 \times 2$ tensor.
    """,
        ko=r"""
    **연습 문제 5.2.** $x = (1, 2)$에서 $g(x) = x_0^3 + x_0 x_1^2$의 헤세 행렬을 $2 \times 2$ 텐서로 계산하세요.
    """,
    ),
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
    md(
        """
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
    """,
        ko=r"""
    **연습 문제 5.3.** 한 학생이 아래 코드를 써서 `None`을 얻었습니다. `dy_dx = inner.gradient(y, x)` 줄은
    어디로 가야 할까요? 2절 표에서 가장 좋은 자리의 글자(`"A"`, `"B"`, `"C"`)로 답하세요.

    ```python
    with mt.GradientTape() as outer:
        with mt.GradientTape() as inner:
            y = x**3
    dy_dx = inner.gradient(y, x)
    d2y_dx2 = outer.gradient(dy_dx, x)  # None
    ```
    """,
    ),
    code("""
    answer = ...  # "A", "B" or "C"

    check("5.3", answer)
    """),
    solution("""
    answer = "B"  # inside the outer block (it records), after the inner one (it need not); now it is in place C

    check("5.3", answer)
    """),
    md(
        """
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
    """,
        ko=r"""
    ## 정리

    - 그래디언트는 평범한 연산으로 계산됩니다. 그 순간 기록 중인 테이프가 그 연산을 기록하므로, 그래디언트를
      다시 미분할 수 있습니다.
    - 안쪽 그래디언트는 바깥 `with` 블록 안에서 계산하세요(자리 A나 B). 블록이 끝난 뒤(자리 C)에는 영구
      테이프든 아니든 이계도함수가 `None`입니다. `persistent`는 기록을 더 오래 유지할 뿐, 더 많이 기록하지는
      않습니다.
    - 자기 테이프의 블록 안에서 부른 `gradient`는 역전파 연산도 그 테이프에 기록합니다(여기서는 기록이 두 배,
      저장 메모리가 네 배). 바깥 테이프가 기록해야 하는 경우가 아니라면 블록이 끝난 뒤에 부르세요.
    - `tape.jacobian(y, x)`는 모든 $\partial y_i / \partial x_j$를 줍니다. 그래디언트의 야코비안이 헤세 행렬입니다.
    - 이계도함수가 `None`이라면 단지 "경로 없음"일 수도 있습니다. 일계도함수가 그 입력에 의존하지 않은 것입니다.

    다음: [6강](06_getting_none.ipynb), 그래디언트가 `None`으로 돌아오는 모든 경우.
    """,
    ),
]

"""Lesson 04: persistent tapes and what they cost."""

from nb import code, md, solution

NAME = "04_persistent_tapes.ipynb"
TITLE = "Persistent tapes"

CELLS = [
    md(
        r"""
    # Lesson 4 · Persistent tapes

    **Learning goals.** After this lesson you can
    - explain why an ordinary tape answers `gradient` only once, and read the error it raises the second time;
    - use `GradientTape(persistent=True)` to ask several questions of one recording, and free it with `del tape`;
    - measure what a tape keeps in memory with `tape.stats()`, and say which ops keep what.

    **Why a tape holds memory.** To run the chain rule backwards, each op needs some of the values it saw going
    forwards: for $z = x \cdot y$, $\partial z / \partial x = y$, so the multiplication must keep $y$ (and $x$).
    For $y = e^x$, $\partial y / \partial x = e^x = y$: the exponential needs only its *output*. For $z = x + y$ the
    local derivatives are $1$: addition keeps nothing. The tape holds these saved tensors until it is done.
    """,
        ko=r"""
    # 4강 · 영구 테이프

    **학습 목표.** 이 강의를 마치면
    - 보통 테이프가 `gradient`에 왜 한 번만 답하는지 설명하고, 두 번째에 나는 오류를 읽을 수 있습니다.
    - `GradientTape(persistent=True)`로 한 번의 기록에 여러 번 묻고, `del tape`으로 해제할 수 있습니다.
    - `tape.stats()`로 테이프가 메모리에 무엇을 들고 있는지 재고, 어느 연산이 무엇을 보관하는지 말할 수 있습니다.

    **테이프가 메모리를 차지하는 이유.** 연쇄 법칙을 거꾸로 실행하려면 각 연산에 순전파 때 본 값 일부가
    필요합니다. $z = x \cdot y$이면 $\partial z / \partial x = y$이므로 곱셈은 $y$(와 $x$)를 보관해야 합니다.
    $y = e^x$이면 $\partial y / \partial x = e^x = y$이므로 지수 함수는 자기 *출력*만 있으면 됩니다. $z = x + y$의
    국소 도함수는 $1$이라서 덧셈은 아무것도 보관하지 않습니다. 테이프는 일을 마칠 때까지 이렇게 저장된 텐서를
    들고 있습니다.
    """,
    ),
    code("""
    import numpy as np

    import minitape as mt
    from lesson_tools import check

    # This lesson's errors are about the tape, not about your code: show each as its message alone, one line
    # (%xmode Context brings the full traceback back).
    %xmode Minimal
    """),
    md(
        r"""
    ## 1. A tape answers once

    With $y = x^2$ and $z = y^2$ at $x = 3$: $\frac{dz}{dx} = 4x^3 = 108$ and $\frac{dy}{dx} = 2x = 6$.
    """,
        ko=r"""
    ## 1. 테이프는 한 번 답한다

    $x = 3$에서 $y = x^2$, $z = y^2$이면 $\frac{dz}{dx} = 4x^3 = 108$이고 $\frac{dy}{dx} = 2x = 6$입니다.
    """,
    ),
    code("""
    x = mt.constant(3.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y

    print(tape.gradient(z, x))
    """),
    md(
        """
    The first `gradient` call released the tape's saved tensors (that is what makes an ordinary tape cheap). Asking
    again is an error, and the message says what to do:
    """,
        ko=r"""
    첫 번째 `gradient` 호출이 테이프에 저장된 텐서를 놓아주었습니다(보통 테이프가 가벼운 이유가 이것입니다).
    다시 물으면 오류가 나고, 메시지가 어떻게 하면 되는지 알려 줍니다.
    """,
    ),
    code("""
    try:
        print(tape.gradient(y, x))
    except RuntimeError as error:  # print only the message: the engine's traceback would hide it
        print(type(error).__name__ + ":", error)
    """),
    md(
        """
    ## 2. `persistent=True`: ask many times

    A persistent tape keeps its records until the tape object is deleted.
    """,
        ko=r"""
    ## 2. `persistent=True`: 여러 번 묻기

    영구 테이프는 테이프 객체가 삭제될 때까지 기록을 유지합니다.
    """,
    ),
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
    md(
        r"""
    ## 3. What does it cost? Measure it

    `tape.stats()` says how many records a tape holds and how many distinct tensors (and bytes) those records keep
    alive for the backward pass. Let us record five ops on a vector of 100,000 float64 numbers (800,000 bytes each):
    $s = \sum_i \big(\sin(e^{x_i})^2 + x_i\big)$.
    """,
        ko=r"""
    ## 3. 비용은 얼마일까? 재어 보자

    `tape.stats()`는 테이프가 가진 기록의 수와, 그 기록들이 역전파를 위해 붙잡고 있는 서로 다른 텐서의 수(와
    바이트 수)를 알려 줍니다. float64 숫자 100,000개짜리 벡터(각 800,000바이트)에 연산 다섯 개를 기록해 봅시다:
    $s = \sum_i \big(\sin(e^{x_i})^2 + x_i\big)$.
    """,
    ),
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
    md(
        r"""
    Both tapes hold the same during recording: `Exp` keeps its output $e^x$, `Sin` keeps its input (the same
    $e^x$), `Square` keeps its input $\sin(e^x)$; `AddV2` and `Sum` keep nothing. That is two distinct arrays, 1.6 MB.
    After `gradient()` the ordinary tape has let them go; the persistent one still holds them, **for as long as the
    tape object lives**. In a training loop a forgotten persistent tape per step adds up quickly, which is why you
    `del tape` as soon as you are done.

    What each op keeps, measured op by op:
    """,
        ko=r"""
    기록하는 동안에는 두 테이프가 같은 것을 들고 있습니다. `Exp`는 자기 출력 $e^x$를, `Sin`은 자기 입력(같은
    $e^x$)을, `Square`는 자기 입력 $\sin(e^x)$를 보관하고, `AddV2`와 `Sum`은 아무것도 보관하지 않습니다. 서로 다른
    배열 두 개, 1.6 MB입니다. `gradient()`를 호출한 뒤 보통 테이프는 이것들을 놓아주었지만, 영구 테이프는 **테이프
    객체가 살아 있는 동안** 계속 들고 있습니다. 훈련 루프에서 스텝마다 잊힌 영구 테이프가 하나씩 쌓이면 금방
    불어나므로, 다 쓰면 바로 `del tape`을 합니다.

    연산마다 보관하는 것을 하나씩 재어 보면 이렇습니다.
    """,
    ),
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
    md(
        r"""
    ## Exercises

    **Exercise 4.1.** For $u = \sin(x)$ and $v = u^2$ at $x = 1$, compute $dv/dx$ **and** $du/dx$ from a single
    recording. Put the two gradients in `answer`, as the list `[dv_dx, du_dx]`.
    """,
        ko=r"""
    ## 연습 문제

    **연습 문제 4.1.** $x = 1$에서 $u = \sin(x)$, $v = u^2$에 대해 한 번의 기록으로 $dv/dx$**와** $du/dx$를
    계산하세요. 두 그래디언트를 리스트 `[dv_dx, du_dx]`로 `answer`에 넣으세요.
    """,
    ),
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
    md(
        r"""
    **Exercise 4.2.** *Predict, then measure.* A tape records `mt.tanh(mt.tanh(mt.tanh(x)))` for a watched vector
    `x` of 1,000 float64 numbers. The derivative of $\tanh$ is $1 - \tanh^2$, written with the op's output. How
    many tensors does the tape keep alive? Put your number in `answer` (then check it with `tape.stats()`).
    """,
        ko=r"""
    **연습 문제 4.2.** *예측하고, 재어 보기.* 테이프가 float64 숫자 1,000개짜리 감시되는 벡터 `x`에 대해
    `mt.tanh(mt.tanh(mt.tanh(x)))`를 기록합니다. $\tanh$의 도함수는 연산의 출력으로 쓴 $1 - \tanh^2$입니다. 테이프는
    텐서 몇 개를 붙잡고 있을까요? 여러분의 예측을 `answer`에 넣으세요(그다음 `tape.stats()`로 확인하세요).
    """,
    ),
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
    md(
        """
    ## Summary

    - The backward pass needs some forward values; each op keeps only what its derivative needs (its inputs, its
      output, or nothing), and the tape holds them.
    - An ordinary tape frees them at the first `gradient()` call; a second call raises `RuntimeError`.
    - `GradientTape(persistent=True)` answers many times and holds its saved tensors until `del tape`.
    - `tape.stats()` shows the records and the bytes a tape keeps alive: measure before you guess.

    Next: [lesson 5](05_nesting_higher_order.ipynb), tapes inside tapes for higher-order derivatives.
    """,
        ko=r"""
    ## 정리

    - 역전파에는 순전파 값 일부가 필요합니다. 각 연산은 자기 도함수에 필요한 것(입력, 출력, 또는 아무것도
      아님)만 보관하고, 테이프가 그것을 들고 있습니다.
    - 보통 테이프는 첫 `gradient()` 호출에서 그것들을 해제하고, 두 번째 호출은 `RuntimeError`를 냅니다.
    - `GradientTape(persistent=True)`는 여러 번 답하고, `del tape`까지 저장된 텐서를 들고 있습니다.
    - `tape.stats()`는 테이프가 붙잡고 있는 기록과 바이트를 보여 줍니다. 짐작하기 전에 재어 보세요.

    다음: [5강](05_nesting_higher_order.ipynb), 고계 도함수를 위한 테이프 속의 테이프.
    """,
    ),
]

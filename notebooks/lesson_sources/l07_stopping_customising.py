"""Lesson 07: stopping and customising gradients (the softplus NaN)."""

from nb import code, md, solution, volatile

NAME = "07_stopping_and_custom_gradients.ipynb"
TITLE = "Stopping and customising gradients"

CELLS = [
    md(r"""
    # Lesson 7 · Stopping and customising gradients

    **Learning goals.** After this lesson you can
    - cut a gradient path on purpose with `mt.stop_gradient`;
    - explain why a correct formula can have a NaN gradient, and find the op where it starts with the
      numerics check (and the tape visualizer);
    - replace a function's gradient with your own using `mt.custom_gradient`.

    The running example is **softplus**, a smooth version of ReLU:

    $$\operatorname{softplus}(z) = \log(1 + e^z), \qquad \frac{d}{dz}\operatorname{softplus}(z) = \frac{e^z}{1 + e^z}
      = \sigma(z) = \frac{1}{1 + e^{-z}}.$$

    The derivative is the sigmoid $\sigma$, a number between 0 and 1. Keep that in mind when a NaN shows up.
    """, ko=r"""
    # 7강 · 그래디언트 중단과 사용자 정의

    **학습 목표.** 이 강의를 마치면
    - `mt.stop_gradient`로 그래디언트 경로를 일부러 끊을 수 있습니다.
    - 올바른 식에서 그래디언트가 NaN이 될 수 있는 이유를 설명하고, 수치 검사(와 테이프 시각화 도구)로 NaN이
      시작된 연산을 찾을 수 있습니다.
    - `mt.custom_gradient`로 함수의 그래디언트를 직접 만든 것으로 바꿀 수 있습니다.

    강의 내내 쓰는 예는 ReLU를 매끄럽게 만든 **softplus**입니다.

    $$\operatorname{softplus}(z) = \log(1 + e^z), \qquad \frac{d}{dz}\operatorname{softplus}(z) = \frac{e^z}{1 + e^z}
      = \sigma(z) = \frac{1}{1 + e^{-z}}.$$

    도함수는 0과 1 사이의 수인 시그모이드 $\sigma$입니다. NaN이 나타나면 이것을 떠올리세요.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check, say  # say(english, korean): the words of a plot, in the lesson's language
    """),
    md(r"""
    ## 1. `stop_gradient`: "treat this as a constant"

    `mt.stop_gradient(x)` returns the value of `x` unchanged, but the tape gives it no gradient: the path is cut.
    For $y = x \cdot \operatorname{stop}(x)$ at $x = 3$, the value is $9$ but the gradient is $3$, not $6$: only the
    first factor counts.
    """, ko=r"""
    ## 1. `stop_gradient`: "이것은 상수로 다뤄라"

    `mt.stop_gradient(x)`는 `x`의 값을 그대로 돌려주지만, 테이프는 그것에 그래디언트를 주지 않습니다. 경로가
    끊깁니다. $x = 3$에서 $y = x \cdot \operatorname{stop}(x)$의 값은 $9$이지만 그래디언트는 $6$이 아니라 $3$입니다.
    첫 번째 인수만 셈에 들어갑니다.
    """),
    code("""
    x = mt.Variable(3.0)
    with mt.GradientTape() as tape:
        y = x * mt.stop_gradient(x)
    print("y =", float(y), "  dy/dx =", float(tape.gradient(y, x)))
    """),
    md(r"""
    Typical uses: a target that must not move while you fit to it (in reinforcement learning), the
    *straight-through* trick, or a statistic (a mean, a norm) you want to use without differentiating through it.

    ## 2. The naive softplus gives NaN at $z = 100$
    """, ko=r"""
    흔한 쓰임새: 맞춰 가는 동안 움직이면 안 되는 타깃(강화 학습), *straight-through* 기법, 또는 미분하지 않고
    쓰고 싶은 통계량(평균, 노름)입니다.

    ## 2. 단순하게 쓴 softplus는 $z = 100$에서 NaN을 준다
    """),
    code("""
    def naive_softplus(z):
        return mt.math.log(mt.exp(z) + 1.0)


    for value in [0.0, 10.0, 100.0]:
        z = mt.constant(value)
        with mt.GradientTape() as tape:
            tape.watch(z)
            y = naive_softplus(z)
        print(f"z = {value:5}: softplus = {float(y):.6g}, gradient = {float(tape.gradient(y, z)):.6g}")
    """),
    md(r"""
    At $z = 100$ the gradient should be $\sigma(100) \approx 1$. What went wrong? In float32, $e^{100}$
    ($\approx 2.7 \times 10^{43}$) is larger than the largest float32 ($\approx 3.4 \times 10^{38}$): it
    **overflows** to $\infty$. Then, backwards, the chain rule multiplies
    $\frac{\partial \log u}{\partial u} = \frac{1}{u} = \frac{1}{\infty} = 0$ by
    $\frac{\partial e^z}{\partial z} = e^z = \infty$, and $0 \cdot \infty$ is NaN.

    ## 3. Find where: the numerics check

    `mt.debugging.check_numerics_scope()` (or `mt.debugging.enable_check_numerics()` for the whole session) makes
    every op check its output, forwards and backwards, and stop at the first NaN or infinity, naming the op and its
    inputs:
    """, ko=r"""
    $z = 100$에서 그래디언트는 $\sigma(100) \approx 1$이어야 합니다. 무엇이 잘못되었을까요? float32에서
    $e^{100}$($\approx 2.7 \times 10^{43}$)은 float32의 최댓값($\approx 3.4 \times 10^{38}$)보다 커서 $\infty$로
    **넘칩니다**(오버플로). 그러면 역전파에서 연쇄 법칙이
    $\frac{\partial \log u}{\partial u} = \frac{1}{u} = \frac{1}{\infty} = 0$과
    $\frac{\partial e^z}{\partial z} = e^z = \infty$를 곱하고, $0 \cdot \infty$는 NaN입니다.

    ## 3. 어디서인지 찾기: 수치 검사

    `mt.debugging.check_numerics_scope()`(세션 전체라면 `mt.debugging.enable_check_numerics()`)를 쓰면 모든 연산이
    순전파와 역전파에서 자기 출력을 검사하고, 처음 나온 NaN이나 무한대에서 멈추며 그 연산과 입력을 알려 줍니다.
    """),
    code("""
    z = mt.constant(100.0)
    try:
        with mt.debugging.check_numerics_scope():
            with mt.GradientTape() as tape:
                tape.watch(z)
                y = naive_softplus(z)
            tape.gradient(y, z)
    except mt.errors.InvalidArgumentError as error:  # print only the message, not the engine's traceback
        print(type(error).__name__ + ":", error)
    """),
    md(r"""
    It stops in the forward pass already, at `Exp`, whose input was 100. The numbers are right; the formula is
    not stable.

    `enable_check_numerics()` switches the same check on for every op from then on (as in TensorFlow), until
    `disable_check_numerics()`. Handy at the top of a training script that suddenly produces NaN losses:
    """, ko=r"""
    순전파에서 벌써, 입력이 100이었던 `Exp`에서 멈춥니다. 숫자는 맞습니다. 식이 수치적으로 안정하지 않은
    것입니다.

    `enable_check_numerics()`는 그 뒤로 모든 연산에 같은 검사를 켭니다(TensorFlow와 같습니다).
    `disable_check_numerics()`를 부를 때까지 유지됩니다. 갑자기 NaN 손실이 나오는 훈련 스크립트의 맨 위에 두면
    편리합니다.
    """),
    code("""
    mt.debugging.enable_check_numerics()
    try:
        naive_softplus(mt.constant(100.0))
    except mt.errors.InvalidArgumentError as error:
        print("stopped:", str(error).splitlines()[0])
    finally:
        mt.debugging.disable_check_numerics()
    """),
    md(r"""
    Now the fix.

    ## 4. Fix it with `custom_gradient`

    `@mt.custom_gradient` lets a function return its value **and** its own gradient function. The tape then uses
    your gradient instead of differentiating the ops inside. Here we also compute the value stably, with
    $\log(1 + e^z) = \max(z, 0) + \log(1 + e^{-|z|})$ (the exponent is never positive, so nothing overflows), and
    we return the gradient in a form that cannot overflow: $\sigma(z)$.
    """, ko=r"""
    이제 고쳐 봅시다.

    ## 4. `custom_gradient`로 고치기

    `@mt.custom_gradient`를 쓰면 함수가 값**과** 자기 그래디언트 함수를 함께 돌려줄 수 있습니다. 그러면 테이프는
    안쪽 연산을 미분하는 대신 여러분의 그래디언트를 씁니다. 여기서는 값도
    $\log(1 + e^z) = \max(z, 0) + \log(1 + e^{-|z|})$로 안정하게 계산하고(지수가 양수가 되지 않으니 넘치지
    않습니다), 그래디언트도 넘칠 수 없는 형태 $\sigma(z)$로 돌려줍니다.
    """),
    code("""
    @mt.custom_gradient
    def softplus(z):
        value = mt.maximum(z, 0.0) + mt.math.log1p(mt.exp(-mt.abs(z)))

        def grad(upstream):
            return upstream * mt.sigmoid(z)

        return value, grad


    for value in [0.0, 10.0, 100.0]:
        z = mt.constant(value)
        with mt.debugging.check_numerics_scope(), mt.GradientTape() as tape:
            tape.watch(z)
            y = softplus(z)
        print(f"z = {value:5}: softplus = {float(y):.6g}, gradient = {float(tape.gradient(y, z)):.6g}")
    """),
    md(r"""
    No NaN, and the numerics check stays quiet. (The library's own `mt.nn.softplus` is written the stable way too.)

    A plot of softplus and its gradient, with the naive gradient where it breaks:
    """, ko=r"""
    NaN이 없고, 수치 검사도 조용합니다. (라이브러리의 `mt.nn.softplus`도 안정한 방식으로 쓰여 있습니다.)

    softplus와 그 그래디언트, 그리고 단순한 그래디언트가 무너지는 곳을 그래프로 보면 이렇습니다.
    """),
    volatile("""
    zs = mt.constant(np.linspace(-10.0, 100.0, 441).astype(np.float32))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(zs)
        good = softplus(zs)
        naive = naive_softplus(zs)
    good_grad = tape.gradient(good, zs).numpy()
    naive_grad = tape.gradient(naive, zs).numpy()
    del tape

    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.2))
    left.plot(zs.numpy(), good.numpy(), label=say("softplus (stable)", "softplus (안정한 식)"))
    left.set_title("softplus(z)")
    right.plot(zs.numpy(), good_grad, label=say("custom gradient: sigmoid(z)", "사용자 정의 그래디언트: sigmoid(z)"))
    right.plot(zs.numpy(), np.nan_to_num(naive_grad, nan=-0.1), ".", markersize=2, label=say("naive (NaN drawn at -0.1)", "단순한 식 (NaN은 -0.1에 표시)"))
    right.set_title("d softplus / dz")
    right.legend(fontsize=8)
    plt.show()

    first_nan = zs.numpy()[np.isnan(naive_grad)][0]
    print(f"the naive gradient is NaN from z = {first_nan:.2f} on (e^z overflows float32 near z = 88.7)")
    assert 88 < first_nan < 89.5 and np.all(np.isfinite(good_grad))
    np.testing.assert_allclose(good_grad, 1 / (1 + np.exp(-zs.numpy().astype(np.float64))), rtol=1e-5, atol=1e-6)
    """),
    md("""
    ## 5. Seeing it on the tape

    The tape visualizer replays the naive softplus at $z = 100$: step forward to see `Exp` produce `inf`, then
    backward to see $\\frac{1}{u} = 0$ meet $e^z = \\infty$ and turn into NaN. Both are highlighted where they
    first appear.

    What to look for, step by step:
    - the **first forward step**, `Exp`: its input is $100$, its output `inf`, flagged as the first non-finite value.
      `AddV2` and `Log` then just carry the `inf` along: the value of softplus is already lost here;
    - the **first backward step**, `Log`: the upstream $1$ times $\\frac{1}{u} = \\frac{1}{\\infty} = 0$ gives $0$.
      No warning yet: a zero is a perfectly good number;
    - `AddV2` passes the $0$ through unchanged;
    - the **last backward step**, `Exp`: the upstream $0$ times $e^z = \\infty$. That product, $0 \\cdot \\infty$, is
      the NaN, flagged at this exact op. It is the gradient the tape returns for $z$.
    """, ko=r"""
    ## 5. 테이프에서 보기

    테이프 시각화 도구로 $z = 100$에서 단순한 softplus를 다시 봅시다. 순전파를 따라가면 `Exp`가 `inf`를 만드는
    것이, 역전파를 따라가면 $\frac{1}{u} = 0$이 $e^z = \infty$를 만나 NaN이 되는 것이 보입니다. 둘 다 처음
    나타나는 곳에 강조 표시가 됩니다.

    단계마다 볼 것:
    - **순전파 첫 단계** `Exp`: 입력은 $100$, 출력은 `inf`이고, 처음 나온 유한하지 않은 값으로 표시됩니다. 그 뒤
      `AddV2`와 `Log`는 `inf`를 그대로 나를 뿐입니다. softplus의 값은 여기서 이미 잃었습니다.
    - **역전파 첫 단계** `Log`: 상류의 $1$에 $\frac{1}{u} = \frac{1}{\infty} = 0$을 곱해 $0$이 됩니다. 아직 경고는
      없습니다. 0은 멀쩡한 숫자니까요.
    - `AddV2`는 $0$을 그대로 넘깁니다.
    - **역전파 마지막 단계** `Exp`: 상류의 $0$에 $e^z = \infty$를 곱합니다. 이 곱 $0 \cdot \infty$가 NaN이고,
      바로 이 연산에 표시됩니다. 이것이 테이프가 $z$에 대해 돌려주는 그래디언트입니다.
    """),
    volatile("""
    from minitape import widgets

    z = mt.constant(100.0)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(z)
        y = naive_softplus(z)

    view = widgets.TapeView(tape, y, [z])
    assert np.isnan(float(tape.gradient(y, z)))
    view
    """),
    md(r"""
    ## Exercises

    **Exercise 7.1.** Write `f(x)` such that its value is $x^3$ but its gradient with respect to `x` is only
    $x^2$ (treat two of the three factors as constants). Check: at $x = 2$, value $8$ and gradient $4$.
    """, ko=r"""
    ## 연습 문제

    **연습 문제 7.1.** 값은 $x^3$이지만 `x`에 대한 그래디언트는 $x^2$뿐인 `f(x)`를 작성하세요(세 인수 중 둘을
    상수로 다룹니다). 확인: $x = 2$에서 값은 $8$, 그래디언트는 $4$입니다.
    """),
    code("""
    def f(x):
        ...  # your code here


    check("7.1", f)
    """),
    solution("""
    def f(x):
        return x * mt.stop_gradient(x * x)


    check("7.1", f)
    """),
    md(r"""
    **Exercise 7.2.** *Gradient clipping.* Write `clip_gradient(x)` with `@mt.custom_gradient`: its value is `x`
    unchanged, but the gradient that flows back through it is clipped to $[-1, 1]$
    (`mt.clip_by_value(upstream, -1.0, 1.0)`). Check: the gradient of `5 * clip_gradient(x)` is 1, not 5.
    """, ko=r"""
    **연습 문제 7.2.** *그래디언트 클리핑.* `@mt.custom_gradient`로 `clip_gradient(x)`를 작성하세요. 값은 `x`
    그대로이지만, 그것을 거쳐 돌아가는 그래디언트는 $[-1, 1]$로 잘립니다(`mt.clip_by_value(upstream, -1.0, 1.0)`).
    확인: `5 * clip_gradient(x)`의 그래디언트는 5가 아니라 1입니다.
    """),
    code("""
    @mt.custom_gradient
    def clip_gradient(x):
        ...  # your code here: return the value and a grad function


    check("7.2", clip_gradient)
    """),
    solution("""
    @mt.custom_gradient
    def clip_gradient(x):
        def grad(upstream):
            return mt.clip_by_value(upstream, -1.0, 1.0)

        return mt.identity(x), grad


    check("7.2", clip_gradient)
    """),
    md(r"""
    **Exercise 7.3.** The gradient of $\sqrt{z} \cdot 0$ at $z = 0$ is NaN. Run it under
    `mt.debugging.check_numerics_scope()`, read the message, and put in `answer` the name of the forward op whose
    **gradient** was being computed when the NaN appeared (a string).
    """, ko=r"""
    **연습 문제 7.3.** $z = 0$에서 $\sqrt{z} \cdot 0$의 그래디언트는 NaN입니다. 이것을
    `mt.debugging.check_numerics_scope()` 아래에서 실행하고 메시지를 읽은 다음, NaN이 나타났을 때 **그래디언트**를
    계산하고 있던 순전파 연산의 이름을 `answer`에 넣으세요(문자열).
    """),
    code("""
    answer = ...  # an op name, like "Mul"

    check("7.3", answer)
    """),
    solution("""
    z = mt.constant(0.0)
    try:
        with mt.debugging.check_numerics_scope():
            with mt.GradientTape() as tape:
                tape.watch(z)
                y = mt.sqrt(z) * 0.0
            tape.gradient(y, z)
    except mt.errors.InvalidArgumentError as error:
        print(str(error).splitlines()[0])
    answer = "Sqrt"  # d sqrt(z)/dz = 1 / (2 sqrt z) = 1/0; times the upstream 0 gives 0/0 = NaN

    check("7.3", answer)
    """),
    md(r"""
    ## Summary

    - `mt.stop_gradient(x)` keeps the value and cuts the path: the tape treats it as a constant.
    - A mathematically correct formula can overflow; backwards, $0 \cdot \infty$ becomes NaN.
    - The numerics check (`mt.debugging.check_numerics_scope()` or `enable_check_numerics()`) stops at the first op
      that produces NaN or infinity, forwards or backwards, and names it with its inputs.
    - `@mt.custom_gradient` replaces the gradient of a whole function: use it for stability, clipping, or
      tricks like straight-through estimators.

    Next: [lesson 8](08_model_and_training_loop.ipynb), the gradients of a whole model.
    """, ko=r"""
    ## 정리

    - `mt.stop_gradient(x)`는 값은 유지하고 경로는 끊습니다. 테이프는 그것을 상수로 다룹니다.
    - 수학적으로 옳은 식도 넘칠 수 있고, 역전파에서 $0 \cdot \infty$는 NaN이 됩니다.
    - 수치 검사(`mt.debugging.check_numerics_scope()`나 `enable_check_numerics()`)는 순전파든 역전파든 NaN이나
      무한대를 처음 만든 연산에서 멈추고, 그 연산과 입력을 알려 줍니다.
    - `@mt.custom_gradient`는 함수 전체의 그래디언트를 바꿉니다. 안정성, 클리핑, straight-through 추정량 같은
      기법에 씁니다.

    다음: [8강](08_model_and_training_loop.ipynb), 모델 전체의 그래디언트.
    """),
]

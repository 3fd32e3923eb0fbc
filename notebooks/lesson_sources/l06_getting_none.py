"""Lesson 06: why a gradient comes back None, and `tape.explain`."""

from nb import code, md, solution, volatile

NAME = "06_getting_none.ipynb"
TITLE = "Getting None"

CELLS = [
    md(r"""
    # Lesson 6 · Getting `None`

    **Learning goals.** After this lesson you can
    - recognise the usual reasons why `tape.gradient` returns `None`: an unconnected source, a variable replaced by
      a tensor, a value that left the library through numpy, an integer dtype, a stateful `assign`, an op with no
      gradient;
    - ask minitape's `tape.explain(target, sources)` to say which one it is, and where;
    - get zeros instead of `None` when that is what you mean, with `unconnected_gradients`;
    - see a cut path in the tape visualizer.

    **Why `None` and not 0?** `None` means "the tape found no recorded path from this source to the target".
    That is different from a gradient that happens to be zero (like $\frac{d}{dx} x^2$ at $x = 0$). Most of the
    time a `None` is a bug in the code that built the computation, so the library does not hide it.
    """, ko=r"""
    # 6강 · `None`이 나올 때

    **학습 목표.** 이 강의를 마치면
    - `tape.gradient`가 `None`을 돌려주는 흔한 이유를 알아볼 수 있습니다. 연결되지 않은 소스, 텐서로 바뀐 변수,
      numpy로 라이브러리를 떠난 값, 정수 dtype, 상태를 바꾸는 `assign`, 그래디언트가 없는 연산입니다.
    - minitape의 `tape.explain(target, sources)`에 그중 무엇이 어디서 일어났는지 물을 수 있습니다.
    - 정말 0을 뜻할 때는 `unconnected_gradients`로 `None` 대신 0을 받을 수 있습니다.
    - 테이프 시각화 도구에서 끊어진 경로를 볼 수 있습니다.

    **왜 0이 아니라 `None`일까?** `None`은 "테이프가 이 소스에서 타깃까지 기록된 경로를 찾지 못했다"는
    뜻입니다. 어쩌다 0이 된 그래디언트($x = 0$에서의 $\frac{d}{dx} x^2$처럼)와는 다릅니다. 대개 `None`은 계산을
    만든 코드의 버그라서, 라이브러리가 그것을 감추지 않습니다.
    """),
    code("""
    import warnings

    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md("""
    ## 1. An unconnected source

    The simplest case: the target does not depend on the source at all.
    """, ko=r"""
    ## 1. 연결되지 않은 소스

    가장 단순한 경우입니다. 타깃이 소스에 전혀 의존하지 않습니다.
    """),
    code("""
    x = mt.Variable(2.0, name="x")
    unused = mt.Variable(3.0, name="unused")
    with mt.GradientTape() as tape:
        y = x * x

    print(tape.gradient(y, [x, unused]))
    tape.explain(y, [x, unused])
    """),
    md("""
    `tape.explain` looks at the same records as `gradient` and answers per source, in words, with a fix. It reads
    only what the tape kept, so it works after `gradient()` too. In a notebook it shows as a table; `print` gives
    the text form.

    ## 2. A variable replaced by a tensor

    `x = x + 1` does not change the variable: it makes a new **tensor** and rebinds the Python name `x` to it.
    A tensor is not watched automatically, so the next tape gives `None`. The classic place is a loop:
    """, ko=r"""
    `tape.explain`은 `gradient`와 같은 기록을 보고, 소스마다 말로 답하며 고치는 법도 알려 줍니다. 테이프가
    보관한 것만 읽으므로 `gradient()` 뒤에도 쓸 수 있습니다. 노트북에서는 표로 보이고, `print`하면 글로 나옵니다.

    ## 2. 텐서로 바뀐 변수

    `x = x + 1`은 변수를 바꾸지 않습니다. 새 **텐서**를 만들고 Python 이름 `x`가 그것을 가리키게 할 뿐입니다.
    텐서는 자동으로 감시되지 않으므로 다음 테이프는 `None`을 줍니다. 전형적인 곳이 루프입니다.
    """),
    code("""
    x = mt.Variable(2.0, name="x")
    for step in range(2):
        with mt.GradientTape() as tape:
            y = x * x
        print(f"step {step}: x is a {type(x).__name__}, dy/dx = {tape.gradient(y, x)}")
        if step == 1:
            print(tape.explain(y, x))
        x = x + 1.0  # the bug: should be x.assign_add(1.0)
    """),
    md("""
    In a training loop the same bug reads `w = w - learning_rate * grad`: after the first step `w` is a tensor and
    the next gradient is `None`. Update a variable **in place** instead: `w.assign_sub(learning_rate * grad)`.

    ## 3. Leaving the library through numpy

    The tape records minitape ops only. A numpy function turns a tensor into a plain array: the tape never sees
    what happens to it, and the path breaks. minitape notices the conversion and `explain` says where it happened.
    """, ko=r"""
    훈련 루프에서는 같은 버그가 `w = w - learning_rate * grad` 모양으로 나타납니다. 첫 스텝 뒤에 `w`는 텐서가 되고
    다음 그래디언트는 `None`입니다. 변수는 **제자리에서** 고치세요: `w.assign_sub(learning_rate * grad)`.

    ## 3. numpy로 라이브러리를 떠나기

    테이프는 minitape 연산만 기록합니다. numpy 함수는 텐서를 평범한 배열로 바꾸므로, 그 뒤에 일어나는 일을
    테이프는 보지 못하고 경로가 끊깁니다. minitape는 이 변환을 알아채고, `explain`이 그것이 어디서 일어났는지
    알려 줍니다.
    """),
    code("""
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape() as tape:
        y = x * x
        mean = np.mean(y)  # a numpy float: the tape cannot see inside
        z = mt.constant(mean) * 2.0

    print(tape.gradient(z, x))
    print(tape.explain(z, x))
    """),
    md("""
    The fix is to stay in the library: `mt.reduce_mean(y)` instead of `np.mean(y)`.

    ## 4. Integer dtypes

    Gradients are defined for floating-point values only. Watching an integer tensor warns, and its gradient is
    `None`. (We catch the warnings to print them tidily.)
    """, ko=r"""
    해결책은 라이브러리 안에 머무는 것입니다. `np.mean(y)` 대신 `mt.reduce_mean(y)`를 쓰세요.

    ## 4. 정수 dtype

    그래디언트는 부동소수점 값에만 정의됩니다. 정수 텐서를 감시하면 경고가 나오고 그래디언트는 `None`입니다.
    (경고를 깔끔하게 출력하려고 잡아서 보여 줍니다.)
    """),
    code("""
    n = mt.constant(3)  # a Python int becomes int32
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with mt.GradientTape() as tape:
            tape.watch(n)
            y = n * n
        print("gradient:", tape.gradient(y, n))
    for warning in caught:
        print("warning:", warning.message)
    print(tape.explain(y, n))
    """),
    md("""
    Write `mt.constant(3.0)`, or `mt.cast(n, mt.float32)` *before* watching. Beware: casting to an integer *on
    the path* (say `mt.cast(x, mt.int32)`) also cuts it, since integers have no gradient.

    ## 5. Stateful `assign`

    An `assign` writes a value into a variable; the tape does not differentiate through it. A later read of the
    variable starts a fresh path that does not lead back to what was assigned.
    """, ko=r"""
    `mt.constant(3.0)`이라고 쓰거나, 감시하기 *전에* `mt.cast(n, mt.float32)`를 하세요. 조심하세요. *경로 위에서*
    정수로 바꾸는 것(`mt.cast(x, mt.int32)` 같은)도 경로를 끊습니다. 정수에는 그래디언트가 없기 때문입니다.

    ## 5. 상태를 바꾸는 `assign`

    `assign`은 값을 변수에 써 넣습니다. 테이프는 이것을 거쳐 미분하지 않습니다. 나중에 그 변수를 읽으면 새 경로가
    시작되고, 그 경로는 대입된 값으로 되돌아가지 않습니다.
    """),
    code("""
    x = mt.Variable(2.0, name="x")
    state = mt.Variable(0.0, name="state")
    with mt.GradientTape() as tape:
        state.assign(x * 3.0)
        y = state * 2.0

    print(tape.gradient(y, [x, state]))
    print(tape.explain(y, [x, state]))
    """),
    md("""
    The tape sees only the value read after the assignment: `dy/dstate = 2`, and nothing for `x`.

    ## 6. When `None` should be zero: `unconnected_gradients`

    Sometimes no path is expected (a parameter that a branch did not use). Ask for zeros of the source's shape and
    dtype instead:
    """, ko=r"""
    테이프는 대입 뒤에 읽은 값만 봅니다. `dy/dstate = 2`이고, `x`에 대해서는 아무것도 없습니다.

    ## 6. `None`이 0이어야 할 때: `unconnected_gradients`

    경로가 없는 것이 당연할 때도 있습니다(어떤 분기가 쓰지 않은 매개변수처럼). 그럴 때는 소스와 shape, dtype이
    같은 0을 요청하세요.
    """),
    code("""
    x = mt.Variable(2.0, name="x")
    bias = mt.Variable([1.0, 2.0, 3.0], name="bias")
    with mt.GradientTape() as tape:
        y = x * x

    print(tape.gradient(y, [x, bias], unconnected_gradients=mt.UnconnectedGradients.ZERO))
    """),
    md("""
    ## 7. An op without a gradient

    Every primitive op is registered with its gradient rule. An op declared non-differentiable (`no_gradient`)
    gives `None`. An op that nobody gave a rule at all makes `gradient()` raise `LookupError` when it reaches it:
    silence would hide a real gap. Let us define two ops from numpy functions with `mt.defop`:
    """, ko=r"""
    ## 7. 그래디언트가 없는 연산

    기본 연산은 모두 그래디언트 규칙과 함께 등록되어 있습니다. 미분 불가능하다고 선언된 연산(`no_gradient`)은
    `None`을 줍니다. 아무도 규칙을 주지 않은 연산에 이르면 `gradient()`가 `LookupError`를 냅니다. 조용히 넘어가면
    진짜 빈틈을 감추게 되기 때문입니다. `mt.defop`으로 numpy 함수에서 연산 두 개를 정의해 봅시다.
    """),
    code("""
    # a rounding op, declared to have no gradient (grad=None), and a cube op whose rule we "forgot"
    my_round = mt.defop("MyRound", lambda a: np.round(a), None)
    my_cube = mt.defop("MyCube", lambda a: a**3)

    x = mt.constant(1.3)
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        rounded = my_round(x) * 2.0
        cubed = my_cube(x)

    print("through MyRound:", tape.gradient(rounded, x))
    print(tape.explain(rounded, x))
    print(tape.explain(cubed, x))
    """),
    code("""
    try:
        tape.gradient(cubed, x)
    except LookupError as error:  # print only the message, not the engine's traceback
        print(type(error).__name__ + ":", error)
    """),
    md(r"""
    The fix is to register the rule, written with minitape ops so that higher derivatives work too:
    $\frac{d}{da} a^3 = 3a^2$.
    """, ko=r"""
    해결책은 규칙을 등록하는 것입니다. 고계 도함수도 되도록 minitape 연산으로 씁니다:
    $\frac{d}{da} a^3 = 3a^2$.
    """),
    code("""
    @mt.RegisterGradient("MyCube")
    def _my_cube_grad(op, upstream):
        (a,) = op.inputs
        return upstream * 3.0 * a * a


    print(tape.gradient(cubed, x), " expected 3 * 1.3**2 =", round(3 * 1.3**2, 4))
    del tape
    """),
    md(r"""
    ## 8. The cuts, drawn

    `explain` says in words where a path is cut; the tape visualizer shows it. Four of the causes above, each on a
    persistent tape so that the view can read the records. Step to the end of each view (the last step lists every
    source's gradient, with the reason for each `None`), and look for the **source with no path to the target**.

    *An unconnected source*: `unused` is not in the picture at all. The tape never saw it (it was never read inside
    the block), so the graph has no node for it; the last step of the view lists it with `None` and the reason.
    """, ko=r"""
    ## 8. 끊긴 곳, 그림으로

    `explain`은 경로가 어디서 끊겼는지 말로 알려 주고, 테이프 시각화 도구는 그것을 보여 줍니다. 위의 원인 가운데
    네 가지를, 뷰가 기록을 읽을 수 있도록 각각 영구 테이프에 기록했습니다. 뷰마다 마지막 단계까지 가 보고(마지막
    단계는 모든 소스의 그래디언트와 `None`마다의 이유를 보여 줍니다), **타깃까지 경로가 없는 소스**를 찾아보세요.

    *연결되지 않은 소스*: `unused`는 그림에 아예 없습니다. 테이프가 그것을 본 적이 없어서(블록 안에서 읽힌 적이
    없습니다) 그래프에 노드가 없습니다. 뷰의 마지막 단계가 그것을 `None`과 그 이유와 함께 보여 줍니다.
    """),
    volatile("""
    from minitape.widgets import TapeView

    x = mt.Variable(2.0, name="x")
    unused = mt.Variable(3.0, name="unused")
    with mt.GradientTape(persistent=True) as tape:
        y = x * x

    view = TapeView(tape, y, [x, unused])
    assert tape.gradient(y, unused) is None
    view
    """),
    md("""
    *A stateful `assign`*: `x` flows into `Mul` and then into `AssignVariableOp`, and stops there: the edge into the
    assignment is a dead end for the backward pass. The target reads `state` afresh, so the backward pass reaches
    `state` (gradient 2) and never the assignment.
    """, ko=r"""
    *상태를 바꾸는 `assign`*: `x`는 `Mul`로, 그다음 `AssignVariableOp`으로 흘러가고 거기서 멈춥니다. 대입으로 가는
    간선은 역전파에게 막다른 길입니다. 타깃은 `state`를 새로 읽으므로 역전파는 `state`(그래디언트 2)에 이르지만
    대입에는 결코 이르지 않습니다.
    """),
    volatile("""
    x = mt.Variable(2.0, name="x")
    state = mt.Variable(0.0, name="state")
    with mt.GradientTape(persistent=True) as tape:
        state.assign(x * 3.0)
        y = state * 2.0

    view = TapeView(tape, y, [x, state])
    assert tape.gradient(y, x) is None and float(tape.gradient(y, state)) == 2.0
    view
    """),
    md("""
    *`stop_gradient`*: here `x` reaches the target by two paths, one through `StopGradient`. Step backwards: the
    gradient flows along the direct edge into the last `Mul` and stops at `StopGradient`, so `x` gets only the
    contribution of the direct path, $3x = 6$, not $6x = 12$.
    """, ko=r"""
    *`stop_gradient`*: 여기서 `x`는 두 경로로 타깃에 이르고, 그중 하나는 `StopGradient`를 지납니다. 거꾸로 따라가
    보세요. 그래디언트는 직접 간선을 따라 마지막 `Mul`로 흐르고 `StopGradient`에서 멈춥니다. 그래서 `x`는 직접
    경로의 기여분 $3x = 6$만 받고, $6x = 12$를 받지 않습니다.
    """),
    volatile("""
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = mt.stop_gradient(x * 3.0) * x

    view = TapeView(tape, y, [x])
    assert float(tape.gradient(y, x)) == 6.0
    view
    """),
    md(r"""
    *A value that left through numpy*: `y.numpy()` hands the number to numpy, and the tape cannot follow numpy's
    `np.sin`. The target is drawn apart, marked "not recorded", and the **dashed edge** from `Mul` to it carries
    the reason: the value left the tape there. The same picture appears for an integer cast (`mt.cast(..., mt.int32)`):
    the dashed edge then names the cast that made an integer.
    """, ko=r"""
    *numpy로 떠난 값*: `y.numpy()`는 숫자를 numpy에 넘기고, 테이프는 numpy의 `np.sin`을 따라갈 수 없습니다. 타깃은
    따로 떨어져 "기록되지 않음"으로 그려지고, `Mul`에서 타깃으로 가는 **점선 간선**이 이유를 담고 있습니다. 값이
    거기서 테이프를 떠났다는 것입니다. 정수로 바꾸는 경우(`mt.cast(..., mt.int32)`)에도 같은 그림이 나오고, 그때
    점선 간선은 정수를 만든 변환을 가리킵니다.
    """),
    volatile("""
    x = mt.Variable(2.0, name="x")
    with mt.GradientTape(persistent=True) as tape:
        y = x * x
        z = mt.constant(np.sin(y.numpy()))

    view = TapeView(tape, z, [x])
    assert tape.gradient(z, x) is None
    view
    """),
    md(r"""
    In every view, a dashed edge is a place where the gradient cannot go back, and hovering over it gives the reason
    `tape.explain` gives in words.

    ## Exercises

    **Exercise 6.1.** Fix the loop of section 2: it should print a gradient at both steps. Collect the two
    gradients in the list `answer` (they should be $2x$ at $x = 2$ then $x = 3$: $4$ and $6$).
    """, ko=r"""
    모든 뷰에서 점선 간선은 그래디언트가 되돌아갈 수 없는 곳이고, 그 위에 마우스를 올리면 `tape.explain`이 말로
    주는 이유가 나타납니다.

    ## 연습 문제

    **연습 문제 6.1.** 2절의 루프를 고쳐서 두 스텝 모두 그래디언트를 출력하게 하세요. 두 그래디언트를 리스트
    `answer`에 모으세요($x = 2$, 그다음 $x = 3$에서의 $2x$, 곧 $4$와 $6$이어야 합니다).
    """),
    code("""
    x = mt.Variable(2.0, name="x")
    answer = []
    for step in range(2):
        with mt.GradientTape() as tape:
            y = x * x
        answer.append(tape.gradient(y, x))
        x = x + 1.0  # fix this line

    check("6.1", answer, x=x)
    """),
    solution("""
    x = mt.Variable(2.0, name="x")
    answer = []
    for step in range(2):
        with mt.GradientTape() as tape:
            y = x * x
        answer.append(tape.gradient(y, x))
        x.assign_add(1.0)  # in place: x stays a watched variable

    check("6.1", answer, x=x)
    """),
    md("""
    **Exercise 6.2.** Get zeros instead of `None` for the unused source: compute the gradient of `y = w * 3.0` with
    respect to `[w, extra]` where `extra = mt.Variable([0.5, 0.5])` is not used. Store the list in `answer`.
    """, ko=r"""
    **연습 문제 6.2.** 쓰이지 않은 소스에 대해 `None` 대신 0을 받으세요. `extra = mt.Variable([0.5, 0.5])`가 쓰이지
    않을 때 `[w, extra]`에 대한 `y = w * 3.0`의 그래디언트를 계산해서, 그 리스트를 `answer`에 넣으세요.
    """),
    code("""
    w, extra = mt.Variable(1.0), mt.Variable([0.5, 0.5])
    answer = ...  # your code here

    check("6.2", answer)
    """),
    solution("""
    w, extra = mt.Variable(1.0), mt.Variable([0.5, 0.5])
    with mt.GradientTape() as tape:
        y = w * 3.0
    answer = tape.gradient(y, [w, extra], unconnected_gradients="zero")

    check("6.2", answer)
    """),
    md("""
    **Exercise 6.3.** `normalise` comes from a colleague's module. The gradient with respect to `scale` is `None`.
    Use `tape.explain(...)` to find out why, and put the reason's `kind` in `answer` (a string; each line of an
    explanation is a reason: `tape.explain(y, scale).reasons[0].kind`).
    """, ko=r"""
    **연습 문제 6.3.** `normalise`는 동료의 모듈에서 온 함수입니다. `scale`에 대한 그래디언트가 `None`입니다.
    `tape.explain(...)`으로 이유를 찾아서, 그 이유의 `kind`를 `answer`에 넣으세요(문자열입니다. 설명의 각 줄이
    이유 하나입니다: `tape.explain(y, scale).reasons[0].kind`).
    """),
    code("""
    def normalise(values, scale):
        norm = mt.sqrt(mt.reduce_sum(values * values))
        return values / mt.stop_gradient(norm * scale)


    scale = mt.Variable(2.0, name="scale")
    values = mt.constant([3.0, 4.0])
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(normalise(values, scale))
    print(tape.gradient(y, scale))

    answer = ...  # your code here

    check("6.3", answer)
    """),
    solution("""
    scale = mt.Variable(2.0, name="scale")
    with mt.GradientTape() as tape:
        y = mt.reduce_sum(normalise(values, scale))
    explanation = tape.explain(y, scale)
    print(explanation)
    answer = explanation.reasons[0].kind

    check("6.3", answer)
    """),
    md("""
    ## Summary

    `None` means *no recorded path*. The usual causes, and their fixes:

    | cause | fix |
    |---|---|
    | the target does not use the source | check the computation (or ask for `unconnected_gradients="zero"`) |
    | a constant that was not watched | `tape.watch(c)`, or use a `mt.Variable` |
    | `x = x + 1` replaced a variable by a tensor | update in place: `x.assign_add(1)` |
    | the value went through numpy | use `mt.*` ops (`mt.reduce_mean`, not `np.mean`) |
    | an integer dtype | use floats (`3.0`, `mt.cast(..., mt.float32)`) |
    | `assign` inside the tape | use the computed value directly |
    | `stop_gradient` or a `no_gradient` op | remove it if the gradient should flow |
    | an op with no gradient rule (`LookupError`) | `@mt.RegisterGradient(name)` |

    And `tape.explain(target, sources)` tells you which one, where.

    Next: [lesson 7](07_stopping_and_custom_gradients.ipynb), cutting and replacing gradients on purpose.
    """, ko=r"""
    ## 정리

    `None`은 *기록된 경로가 없다*는 뜻입니다. 흔한 원인과 고치는 법은 다음과 같습니다.

    | 원인 | 고치는 법 |
    |---|---|
    | 타깃이 소스를 쓰지 않음 | 계산을 확인하기(또는 `unconnected_gradients="zero"` 요청) |
    | 감시하지 않은 상수 | `tape.watch(c)`, 또는 `mt.Variable` 쓰기 |
    | `x = x + 1`이 변수를 텐서로 바꿈 | 제자리에서 고치기: `x.assign_add(1)` |
    | 값이 numpy를 거침 | `mt.*` 연산 쓰기(`np.mean`이 아니라 `mt.reduce_mean`) |
    | 정수 dtype | 실수 쓰기(`3.0`, `mt.cast(..., mt.float32)`) |
    | 테이프 안의 `assign` | 계산한 값을 직접 쓰기 |
    | `stop_gradient`나 `no_gradient` 연산 | 그래디언트가 흘러야 한다면 지우기 |
    | 그래디언트 규칙이 없는 연산(`LookupError`) | `@mt.RegisterGradient(name)` |

    그리고 `tape.explain(target, sources)`가 그중 무엇이 어디서 일어났는지 알려 줍니다.

    다음: [7강](07_stopping_and_custom_gradients.ipynb), 그래디언트를 일부러 끊고 바꾸기.
    """),
]

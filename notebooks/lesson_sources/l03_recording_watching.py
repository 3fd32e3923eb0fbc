"""Lesson 03: what a tape records and what it watches."""

from nb import code, md, solution, volatile

NAME = "03_recording_and_watching.ipynb"
TITLE = "Recording and watching"

CELLS = [
    md(
        r"""
    # Lesson 3 · Recording and watching

    **Learning goals.** After this lesson you can
    - say which operations a tape records: only those run inside its `with` block on a **watched** input;
    - tell what is watched automatically (trainable variables) and what must be watched by hand (tensors);
    - switch automatic watching off with `watch_accessed_variables=False`;
    - pass sources and targets as lists and dicts, take gradients with respect to a layer's variables and with
      respect to intermediate results;
    - look at a tape's records, and at the tape itself in the visualizer;
    - predict which variables get a gradient when Python control flow (`if`/`else`) picks what is computed.

    **The rule.** Inside `with mt.GradientTape() as tape:`, an op is recorded when one of its inputs is watched.
    Its outputs are then watched too, so the record grows along every path that starts at a watched value.
    `tape.gradient(target, sources)` follows those records backwards from `target`.
    """,
        ko=r"""
    # 3강 · 기록과 감시

    **학습 목표.** 이 강의를 마치면
    - 테이프가 어떤 연산을 기록하는지 말할 수 있습니다. `with` 블록 안에서 **감시되는** 입력에 대해 실행된
      연산만 기록합니다.
    - 무엇이 자동으로 감시되고(훈련 가능한 변수) 무엇을 직접 감시해야 하는지(텐서) 구별할 수 있습니다.
    - `watch_accessed_variables=False`로 자동 감시를 끌 수 있습니다.
    - 소스와 타깃을 리스트와 dict로 넘기고, 층의 변수와 중간 결과에 대한 그래디언트를 구할 수 있습니다.
    - 테이프의 기록을 들여다보고, 시각화 도구로 테이프 자체를 볼 수 있습니다.
    - Python 제어 흐름(`if`/`else`)이 계산할 것을 고를 때 어느 변수가 그래디언트를 받는지 예측할 수 있습니다.

    **규칙.** `with mt.GradientTape() as tape:` 안에서 어떤 연산의 입력 중 하나가 감시되고 있으면 그 연산이
    기록됩니다. 그러면 그 출력도 감시되므로, 감시되는 값에서 시작하는 모든 경로를 따라 기록이 자랍니다.
    `tape.gradient(target, sources)`는 `target`에서부터 그 기록을 거꾸로 따라갑니다.
    """,
    ),
    code("""
    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md(
        """
    ## 1. Variables are watched, constants are not

    A `mt.Variable` holds a model's parameters: trainable variables are watched as soon as they are read inside the
    block. A tensor made with `mt.constant` is just a value: unless you `watch` it, its gradient is `None`.
    """,
        ko=r"""
    ## 1. 변수는 감시되고, 상수는 감시되지 않는다

    `mt.Variable`은 모델의 매개변수를 담습니다. 훈련 가능한 변수는 블록 안에서 읽히는 순간 감시됩니다.
    `mt.constant`로 만든 텐서는 그냥 값이어서, `watch`하지 않으면 그래디언트가 `None`입니다.
    """,
    ),
    code("""
    w = mt.Variable(2.0, name="w")
    c = mt.constant(2.0)
    with mt.GradientTape() as tape:
        y = w * w + c * c

    dw, dc = tape.gradient(y, [w, c])
    print("dy/dw =", dw)
    print("dy/dc =", dc)
    """),
    code("""
    with mt.GradientTape() as tape:
        tape.watch(c)  # now c's ops are recorded too
        y = w * w + c * c

    dw, dc = tape.gradient(y, [w, c])
    print("dy/dw =", dw)
    print("dy/dc =", dc)
    """),
    md(
        r"""
    A variable created with `trainable=False` is not watched automatically either (think of a counter, or the
    running mean of a batch-normalisation layer).
    """,
        ko=r"""
    `trainable=False`로 만든 변수도 자동으로 감시되지 않습니다(카운터나 배치 정규화 층의 이동 평균을
    생각해 보세요).
    """,
    ),
    code("""
    frozen = mt.Variable(2.0, trainable=False, name="frozen")
    with mt.GradientTape() as tape:
        y = frozen * w
    print(tape.gradient(y, [frozen, w]))
    print("watched:", [v.name for v in tape.watched_variables()])
    """),
    md(
        r"""
    ### A classic: a sum, then a square

    The example every `GradientTape` tutorial starts with. $x$ is a $2 \times 2$ tensor of ones (a constant, so it
    is watched by hand), $y = \sum_{ij} x_{ij} = 4$, and $z = y^2 = 16$. By the chain rule,
    $\frac{\partial z}{\partial x_{ij}} = \frac{dz}{dy} \cdot \frac{\partial y}{\partial x_{ij}} = 2y \cdot 1 = 8$
    for every entry: the gradient has the shape of $x$, and an intermediate result like $y$ is a valid source too.
    """,
        ko=r"""
    ### 고전적인 예: 합, 그리고 제곱

    `GradientTape` 튜토리얼이라면 모두 이 예로 시작합니다. $x$는 원소가 모두 1인 $2 \times 2$ 텐서(상수라서
    직접 감시합니다)이고, $y = \sum_{ij} x_{ij} = 4$, $z = y^2 = 16$입니다. 연쇄 법칙에 따라 모든 원소에서
    $\frac{\partial z}{\partial x_{ij}} = \frac{dz}{dy} \cdot \frac{\partial y}{\partial x_{ij}} = 2y \cdot 1 = 8$입니다.
    그래디언트는 $x$와 shape이 같고, $y$ 같은 중간 결과도 소스가 될 수 있습니다.
    """,
    ),
    code("""
    x = mt.ones((2, 2))
    with mt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = mt.reduce_sum(x)
        z = mt.square(y)  # the same as y * y

    print("y =", float(y), " z =", float(z))
    print("dz/dx =", tape.gradient(z, x))
    print("dz/dy =", tape.gradient(z, y))
    del tape
    """),
    md(
        """
    ## 2. What is on the tape?

    A tape is a list of records, one per op, in the order the ops ran. minitape lets you look: `tape.records` is a
    read-only tuple of them (TensorFlow keeps its tape internal; this view is minitape's, for learning). Each record
    names its op type (`record.type`) and the ids of its input and output tensors (`record.input_ids`,
    `record.output_ids`; printed `#n`, numbered in creation order). Reading a variable is an op too
    (`ReadVariableOp`). This is the list `gradient()` walks backwards; `tape.stats()` sums it up.
    """,
        ko=r"""
    ## 2. 테이프에는 무엇이 있을까?

    테이프는 연산이 실행된 순서대로, 연산마다 하나씩 쌓인 기록의 리스트입니다. minitape에서는 직접 볼 수
    있습니다. `tape.records`는 기록들의 읽기 전용 튜플입니다(TensorFlow는 테이프를 내부에 감춥니다. 이 뷰는
    학습을 위한 minitape만의 것입니다). 기록마다 연산 종류(`record.type`)와 입력·출력 텐서의 id(`record.input_ids`,
    `record.output_ids`, 만들어진 순서대로 `#n`으로 출력)가 있습니다. 변수를 읽는 것도 연산
    (`ReadVariableOp`)입니다. `gradient()`가 거꾸로 따라가는 것이 이 리스트이고, `tape.stats()`가 요약해 줍니다.
    """,
    ),
    code("""
    x = mt.Variable(3.0, name="x")
    with mt.GradientTape() as tape:
        a = x * x
        b = mt.sin(a)
        y = a + b

    for record in tape.records:
        print(record)
    print(tape.stats())
    """),
    md(
        """
    ### The same tape, drawn

    `widgets.TapeView(tape, target, sources)` draws the records as a graph: the variable `x` on the left, one node
    per op, the target `y` on the right. Press ▶ to replay the forward pass (each op lights up with the value it
    produced), then the backward pass: from the seed $1$ at `y`, each step multiplies by an op's local derivative,
    and where `a` fans out (into `Sin` and into the sum) the two contributions are added. Click a node for its
    value, gradient, shape and dtype. The view needs the records, so record on a persistent tape (or create the
    view before calling `gradient`).
    """,
        ko=r"""
    ### 같은 테이프, 그림으로

    `widgets.TapeView(tape, target, sources)`는 기록을 그래프로 그립니다. 왼쪽에 변수 `x`, 연산마다 노드 하나,
    오른쪽에 타깃 `y`가 있습니다. ▶를 눌러 순전파를 다시 보고(연산마다 만든 값과 함께 불이 켜집니다), 이어서
    역전파를 보세요. `y`의 시드 $1$에서 출발해 단계마다 연산의 국소 도함수를 곱하고, `a`가 갈라지는 곳(`Sin`과
    합으로)에서는 두 기여분을 더합니다. 노드를 누르면 그 값, 그래디언트, shape, dtype이 보입니다. 뷰에는 기록이
    필요하므로 영구 테이프에 기록하세요(또는 `gradient`를 호출하기 전에 뷰를 만드세요).
    """,
    ),
    volatile("""
    from minitape import widgets

    with mt.GradientTape(persistent=True) as tape:
        a = x * x
        b = mt.sin(a)
        y = a + b

    view = widgets.TapeView(tape, y, [x])
    assert view.n_steps > len(tape.records)  # forward steps, then backward steps
    view
    """),
    md(
        """
    ## 3. Watching only what you ask for

    `watch_accessed_variables=False` turns automatic watching off: only what you `watch` is recorded. Useful when
    you want the gradient with respect to a few variables of a large model.
    """,
        ko=r"""
    ## 3. 요청한 것만 감시하기

    `watch_accessed_variables=False`는 자동 감시를 끕니다. `watch`한 것만 기록됩니다. 큰 모델에서 변수 몇 개에
    대한 그래디언트만 원할 때 쓸모가 있습니다.
    """,
    ),
    code("""
    w1, w2 = mt.Variable(5.0, name="w1"), mt.Variable(3.0, name="w2")
    with mt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(w1)
        f = 3 * w1**2 + 2 * w1 * w2

    print(tape.gradient(f, {"w1": w1, "w2": w2}))
    print("watched:", [v.name for v in tape.watched_variables()])
    """),
    md(
        r"""
    Only `w1` was watched: its gradient is $6 w_1 + 2 w_2 = 36$, and `w2` gets `None`. Note the result: a `dict`
    of sources gives a `dict` of gradients.

    ## 4. Sources and targets as structures

    Sources can be nested lists, tuples and dicts; the result has the same structure. A list of targets (or a
    non-scalar target) gives the gradient of their **sum**.
    """,
        ko=r"""
    `w1`만 감시되었습니다. 그 그래디언트는 $6 w_1 + 2 w_2 = 36$이고, `w2`는 `None`을 받습니다. 결과의 형태도
    보세요. 소스가 `dict`이면 그래디언트도 `dict`입니다.

    ## 4. 구조로 된 소스와 타깃

    소스는 중첩된 리스트, 튜플, dict일 수 있고, 결과도 같은 구조를 가집니다. 타깃이 리스트이면(또는 스칼라가
    아닌 타깃이면) 그 **합**의 그래디언트가 나옵니다.
    """,
    ),
    code("""
    params = {"slope": mt.Variable(2.0), "offsets": [mt.Variable(1.0), mt.Variable(-1.0)]}
    with mt.GradientTape() as tape:
        first = params["slope"] * 3.0 + params["offsets"][0]
        second = params["slope"] * params["offsets"][1]

    grads = tape.gradient([first, second], params)  # d(first + second)/d(each parameter)
    print(grads)
    """),
    md(
        r"""
    ## 5. A layer's trainable variables

    A layer owns its variables. `mt.keras.layers.Dense(units)` computes $y = \mathrm{activation}(x W + b)$, with a
    kernel $W$ and a bias $b$ created the first time it is called. Its `trainable_variables` are exactly the sources
    a training step needs.
    """,
        ko=r"""
    ## 5. 층의 훈련 가능한 변수

    층은 자기 변수를 가집니다. `mt.keras.layers.Dense(units)`는 $y = \mathrm{activation}(x W + b)$를 계산하고,
    커널 $W$와 편향 $b$는 처음 호출될 때 만들어집니다. 그 `trainable_variables`가 바로 훈련 스텝에 필요한
    소스입니다.
    """,
    ),
    code("""
    mt.keras.utils.set_random_seed(0)
    layer = mt.keras.layers.Dense(2, activation="relu")
    x = mt.constant([[1.0, 2.0, 3.0]])

    with mt.GradientTape() as tape:
        y = layer(x)
        loss = mt.reduce_mean(y**2)

    for variable, gradient in zip(layer.trainable_variables, tape.gradient(loss, layer.trainable_variables)):
        print(f"{variable.name:16s} shape {tuple(variable.shape)}  gradient shape {tuple(gradient.shape)}")
    """),
    md(
        r"""
    ## 6. Gradients of intermediate results

    Any tensor computed on the tape is a valid source. With $a = x^2$ and $y = \sin a + a$,
    $\frac{\partial y}{\partial a} = \cos a + 1$. Asking for several sources in one call runs a single backward pass.
    """,
        ko=r"""
    ## 6. 중간 결과의 그래디언트

    테이프에서 계산된 텐서는 무엇이든 소스가 될 수 있습니다. $a = x^2$, $y = \sin a + a$라면
    $\frac{\partial y}{\partial a} = \cos a + 1$입니다. 한 번의 호출로 여러 소스를 요청하면 역전파는 한 번만
    실행됩니다.
    """,
    ),
    code("""
    x = mt.Variable(1.0)
    with mt.GradientTape() as tape:
        a = x * x
        y = mt.sin(a) + a

    dy_da, dy_dx = tape.gradient(y, [a, x])
    print(f"dy/da = {float(dy_da):.6f}, expected cos(1) + 1 = {np.cos(1.0) + 1:.6f}")
    print(f"dy/dx = {float(dy_dx):.6f}, expected 2x (cos(1) + 1) = {2 * (np.cos(1.0) + 1):.6f}")
    """),
    md(
        r"""
    ## 7. Control flow: the tape records the branch that ran

    A Python `if`, `for` or `while` is not an op: the tape never sees it. It sees only the ops that actually ran.
    So the gradient follows the branch that was taken, and a variable used only in the other branch gets `None`.
    Here $x = 1 > 0$ picks `result = v0`, whose derivative with respect to `v0` is $1$; `v1` was never touched.
    With $x = -1$ the other branch runs, `result = v1**2`, and $\frac{d}{dv_1} v_1^2 = 2 v_1 = 4$.
    """,
        ko=r"""
    ## 7. 제어 흐름: 테이프는 실행된 분기를 기록한다

    Python의 `if`, `for`, `while`은 연산이 아니어서 테이프는 이것들을 보지 못합니다. 실제로 실행된 연산만 봅니다.
    그래서 그래디언트는 선택된 분기를 따라가고, 다른 분기에서만 쓰인 변수는 `None`을 받습니다. 여기서는
    $x = 1 > 0$이라 `result = v0`이 선택되고, `v0`에 대한 도함수는 $1$입니다. `v1`은 쓰이지 않았습니다.
    $x = -1$이면 다른 분기 `result = v1**2`가 실행되고, $\frac{d}{dv_1} v_1^2 = 2 v_1 = 4$입니다.
    """,
    ),
    code("""
    for x_value in [1.0, -1.0]:
        x = mt.constant(x_value)
        v0, v1 = mt.Variable(2.0, name="v0"), mt.Variable(2.0, name="v1")
        with mt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            if x > 0.0:
                result = v0
            else:
                result = v1**2
        dv0, dv1 = tape.gradient(result, [v0, v1])
        print(f"x = {x_value:4}: d result/d v0 = {dv0}, d result/d v1 = {dv1}, d result/d x = {tape.gradient(result, x)}")
    print(tape.explain(result, [v0, x]))
    del tape
    """),
    md(
        r"""
    The condition `x > 0.0` was recorded (it is an op, `Greater`), but a comparison has no gradient: the result
    does not change when `x` moves a little, so the gradient with respect to `x` is `None` in both cases.

    ## Exercises

    **Exercise 3.1.** `x = mt.constant(2.0)`. Compute $\frac{d}{dx} x^3$ with a tape (it should be 12, not
    `None`). Store the gradient in `answer`.
    """,
        ko=r"""
    조건 `x > 0.0`도 기록되었지만(연산 `Greater`입니다), 비교에는 그래디언트가 없습니다. `x`를 조금 움직여도
    결과가 변하지 않으므로 두 경우 모두 `x`에 대한 그래디언트는 `None`입니다.

    ## 연습 문제

    **연습 문제 3.1.** `x = mt.constant(2.0)`입니다. 테이프로 $\frac{d}{dx} x^3$을 계산하세요(`None`이 아니라
    12가 나와야 합니다). 그래디언트를 `answer`에 넣으세요.
    """,
    ),
    code("""
    x = mt.constant(2.0)
    tape = y = answer = ...  # your code here: record y = x**3 on a tape, then answer = tape.gradient(y, x)

    check("3.1", answer, tape=tape, target=y, sources=x)
    """),
    solution("""
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = x**3
    answer = tape.gradient(y, x)

    check("3.1", answer, tape=tape, target=y, sources=x)
    """),
    md(
        r"""
    **Exercise 3.2.** With `a = mt.Variable(4.0)` and `b = mt.Variable(5.0)`, compute $f = a \cdot b$ on a tape
    that watches **only** `b`, and ask for both gradients. Store the pair `(df_da, df_db)` in `answer`.
    """,
        ko=r"""
    **연습 문제 3.2.** `a = mt.Variable(4.0)`, `b = mt.Variable(5.0)`으로, **`b`만** 감시하는 테이프에서
    $f = a \cdot b$를 계산하고 두 그래디언트를 모두 요청하세요. 쌍 `(df_da, df_db)`를 `answer`에 넣으세요.
    """,
    ),
    code("""
    a, b = mt.Variable(4.0), mt.Variable(5.0)
    tape = f = answer = ...  # your code here: record f on a tape that watches only b; answer = (df_da, df_db)

    check("3.2", answer, tape=tape, target=f, sources=[a, b])
    """),
    solution("""
    a, b = mt.Variable(4.0), mt.Variable(5.0)
    with mt.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        f = a * b
    answer = tuple(tape.gradient(f, [a, b]))

    check("3.2", answer, tape=tape, target=f, sources=[a, b])
    """),
    md(
        r"""
    **Exercise 3.3.** A tiny linear model: `params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}`.
    The loss is $(w \cdot x + b - 1)^2$ for $x = (3, 1)$. Compute the gradient as a dict with the keys `"w"` and
    `"b"`, in one `tape.gradient` call.
    """,
        ko=r"""
    **연습 문제 3.3.** 작은 선형 모델입니다: `params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}`.
    $x = (3, 1)$에 대한 손실은 $(w \cdot x + b - 1)^2$입니다. 한 번의 `tape.gradient` 호출로 그래디언트를 키
    `"w"`와 `"b"`를 가진 dict로 구하세요.
    """,
    ),
    code("""
    params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}
    x = mt.constant([3.0, 1.0])
    tape = loss = answer = ...  # your code here: record the loss on a tape, answer = its gradient, a dict

    check("3.3", answer, tape=tape, target=loss, sources=params)
    """),
    solution("""
    params = {"w": mt.Variable([1.0, -2.0]), "b": mt.Variable(0.5)}
    x = mt.constant([3.0, 1.0])
    with mt.GradientTape() as tape:
        loss = (mt.reduce_sum(params["w"] * x) + params["b"] - 1.0) ** 2
    answer = tape.gradient(loss, params)

    check("3.3", answer, tape=tape, target=loss, sources=params)
    """),
    md(
        r"""
    ## Summary

    - A tape records an op when one of its inputs is watched; outputs of recorded ops are watched in turn.
    - Trainable variables are watched when read; tensors need `tape.watch`; `trainable=False` variables and
      `watch_accessed_variables=False` tapes watch nothing automatically.
    - Sources and targets may be lists, tuples and dicts; the gradient has the structure of the sources; several
      targets give the gradient of their sum.
    - A layer's `trainable_variables` are the sources of a training step; intermediate results are sources too
      (for $z = (\sum x)^2$ with $x$ a $2 \times 2$ tensor of ones, every entry of the gradient is $8$).
    - The tape records only the ops that ran: with `if`/`else`, the branch not taken leaves its variables `None`.

    Next: [lesson 4](04_persistent_tapes.ipynb), asking a tape more than once.
    """,
        ko=r"""
    ## 정리

    - 테이프는 입력 중 하나가 감시되는 연산을 기록하고, 기록된 연산의 출력은 이어서 감시됩니다.
    - 훈련 가능한 변수는 읽힐 때 감시되고, 텐서에는 `tape.watch`가 필요합니다. `trainable=False`인 변수와
      `watch_accessed_variables=False`인 테이프는 아무것도 자동으로 감시하지 않습니다.
    - 소스와 타깃은 리스트, 튜플, dict일 수 있습니다. 그래디언트는 소스의 구조를 따르고, 타깃이 여러 개면 그
      합의 그래디언트가 나옵니다.
    - 층의 `trainable_variables`가 훈련 스텝의 소스이고, 중간 결과도 소스가 될 수 있습니다(원소가 모두 1인
      $2 \times 2$ 텐서 $x$에 대해 $z = (\sum x)^2$이면 그래디언트의 모든 원소가 $8$입니다).
    - 테이프는 실행된 연산만 기록합니다. `if`/`else`에서 선택되지 않은 분기의 변수는 `None`을 받습니다.

    다음: [4강](04_persistent_tapes.ipynb), 테이프에 두 번 이상 묻기.
    """,
    ),
]

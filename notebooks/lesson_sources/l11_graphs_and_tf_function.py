"""Lesson 11: graphs and tf.function."""

from nb import code, md, raises, solution, volatile

NAME = "11_graphs_and_tf_function.ipynb"
TITLE = "Graphs and tf.function"

CELLS = [
    md(r"""
    # Lesson 11 · Graphs and `tf.function`

    **Learning goals.** After this lesson you can
    - say what `@tf.function` does: it runs your Python function once per input signature to *trace* a graph, and
      later calls run the graph, not your Python code;
    - predict when a function traces again (a new shape, a new dtype, a new Python value), and read
      `experimental_get_tracing_count()`;
    - tell a Python side effect (`print`, `calls += 1`: at tracing only) from an op of the graph (`tf.print`,
      `v.assign_add`: at every call);
    - read a traced training step's graph: its forward ops, the gradient ops the tape added, the assigns;
    - explain what happens to an `if` on a tensor, and write a branch that stays inside the graph;
    - measure what the graph buys on a training step.

    Eager code (every lesson so far) runs each op the moment Python reaches it, and the tape records it. That is
    easy to read and to debug, and it costs Python's overhead on every op. TensorFlow's answer is
    `@tf.function`: record the ops once, then replay the recording. minitape does the same, with `mt.function`:
    the recording is a list of numpy calls with numbered slots for their inputs and outputs.
    """, ko=r"""
    # 11강 · 그래프와 `tf.function`

    **학습 목표.** 이 강의를 마치면
    - `@tf.function`이 하는 일을 말할 수 있습니다. 입력 서명마다 한 번 Python 함수를 실행해 그래프를
      *추적*(트레이싱)하고, 그 뒤의 호출은 여러분의 Python 코드가 아니라 그 그래프를 실행합니다.
    - 함수가 언제 다시 추적되는지(새 shape, 새 dtype, 새 Python 값) 예측하고,
      `experimental_get_tracing_count()`를 읽을 수 있습니다.
    - Python 부작용(`print`, `calls += 1`: 추적할 때만)과 그래프의 연산(`tf.print`, `v.assign_add`:
      호출할 때마다)을 구별할 수 있습니다.
    - 추적된 훈련 스텝의 그래프를 읽을 수 있습니다. 순전파 연산, 테이프가 더한 그래디언트 연산, 할당이
      보입니다.
    - 텐서에 쓴 `if`가 어떻게 되는지 설명하고, 그래프 안에 머무는 분기를 쓸 수 있습니다.
    - 그래프가 훈련 스텝에서 얼마나 시간을 줄여 주는지 잴 수 있습니다.

    지금까지 모든 강의에서 쓴 즉시 실행(eager) 코드는 Python이 연산에 닿는 순간 그 연산을 실행하고, 테이프가
    그것을 기록합니다. 읽기 쉽고 디버깅하기도 쉽지만, 연산마다 Python의 오버헤드가 듭니다. TensorFlow의 답은
    `@tf.function`입니다. 연산을 한 번 기록해 두고, 그 기록을 다시 실행합니다. minitape도 `mt.function`으로 같은
    일을 합니다. 여기서 기록은 numpy 호출의 목록이고, 그 입력과 출력은 번호가 매겨진 슬롯에 담깁니다.
    """),
    code("""
    import time
    import warnings

    import numpy as np

    import minitape as mt
    from lesson_tools import check
    from minitape.function.view import GraphView
    """),
    md(r"""
    ## 1. Tracing: Python runs once, the graph every time

    A Python `print` is Python: it runs while the function is traced. `mt.print` (TensorFlow's `tf.print`) is an op
    of the graph: it runs at every call (it writes to standard error, so its lines show apart). While tracing, a
    tensor has no value yet, and prints as graph mode prints it, by name.
    """, ko=r"""
    ## 1. 추적: Python은 한 번, 그래프는 매번

    Python의 `print`는 Python이므로 함수를 추적하는 동안 실행됩니다. `mt.print`(TensorFlow의 `tf.print`)는
    그래프의 연산이어서 호출할 때마다 실행됩니다(표준 오류에 쓰기 때문에 그 줄은 따로 보입니다). 추적하는
    동안에는 텐서에 아직 값이 없어서, 그래프 모드에서처럼 이름으로 출력됩니다.
    """),
    code("""
    @mt.function
    def double(x):
        print("Tracing with", x)
        mt.print("Executing with", x)
        return x * 2


    print(double(mt.constant(1.0)))
    print(double(mt.constant(2.0)))
    print(double(mt.constant([1.0, 2.0])))
    print("traced", double.experimental_get_tracing_count(), "times")
    """),
    md(r"""
    The second call had the same signature as the first (a float32 scalar), so it replayed the graph: no
    "Tracing with" line, but `mt.print` printed. A vector is a new shape, so the third call traced again.

    TensorFlow's rules for the signature (the *cache key*):
    - a tensor (or a numpy array) counts by its **shape and dtype**, not its values;
    - a Python value counts by **value**: `double(2)` and `double(3)` trace twice, and `double(2.0)` replays
      `double(2)`'s graph, since `2 == 2.0`;
    - other objects (a model, an optimizer, a variable) count by identity.

    Passing Python numbers that change at every call retraces at every call. TensorFlow warns after five traces
    in the last ten calls, and so does minitape:
    """, ko=r"""
    두 번째 호출은 첫 번째와 서명이 같았으므로(float32 스칼라) 그래프를 다시 실행했습니다. "Tracing with"
    줄은 없지만 `mt.print`는 출력했습니다. 벡터는 새 shape이므로 세 번째 호출은 다시 추적했습니다.

    서명(*캐시 키*)에 대한 TensorFlow의 규칙은 이렇습니다.
    - 텐서(또는 numpy 배열)는 값이 아니라 **shape과 dtype**으로 구별합니다.
    - Python 값은 **값**으로 구별합니다. `double(2)`와 `double(3)`은 두 번 추적하고, `2 == 2.0`이므로
      `double(2.0)`은 `double(2)`의 그래프를 다시 실행합니다.
    - 그 밖의 객체(모델, 옵티마이저, 변수)는 객체의 동일성(identity)으로 구별합니다.

    호출할 때마다 바뀌는 Python 숫자를 넘기면 호출할 때마다 재추적합니다. TensorFlow는 최근 열 번의 호출
    가운데 추적이 다섯 번이면 경고하고, minitape도 그렇습니다.
    """),
    volatile("""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for step in range(6):
            double(step)  # a Python int: one graph per value
    print(caught[0].message)
    assert double.experimental_get_tracing_count() == 2 + 6
    """),
    md(r"""
    `input_signature` fixes the signature once and for all: a call that does not fit is refused, with TensorFlow's
    message.
    """, ko=r"""
    `input_signature`는 서명을 미리 고정해 둡니다. 서명에 맞지 않는 호출은 TensorFlow의 메시지와 함께
    거부됩니다.
    """),
    raises("""
    scale = mt.function(lambda x: x * 3.0, input_signature=[mt.TensorSpec(shape=[2], dtype=mt.float32)])
    print(scale(mt.constant([1.0, 2.0])))
    scale(mt.constant([1, 2]))  # int32: refused
    """),
    md(r"""
    ## 2. What a graph cannot do: values and new variables

    Inside the traced function a tensor's value does not exist yet (in TensorFlow; minitape traces on the real
    values, but keeps TensorFlow's rules so that what you learn carries over). `.numpy()` raises as graph mode
    does, and so does `np.asarray`: a value computed in numpy would be frozen into the graph as a constant.
    """, ko=r"""
    ## 2. 그래프가 할 수 없는 일: 값과 새 변수

    추적되는 함수 안에서 텐서의 값은 아직 존재하지 않습니다(TensorFlow에서는 그렇습니다. minitape는 실제
    값으로 추적하지만, 여기서 배운 것이 TensorFlow에서도 그대로 통하도록 TensorFlow의 규칙을 지킵니다).
    `.numpy()`는 그래프 모드에서처럼 예외를 일으키고, `np.asarray`도 마찬가지입니다. numpy로 계산한 값은 상수가
    되어 그래프에 고정되어 버리기 때문입니다.
    """),
    raises("""
    @mt.function
    def to_numpy(x):
        return x.numpy() * 2

    to_numpy(mt.constant(1.0))
    """),
    md(r"""
    A variable belongs to the state of the program, not to one call: `tf.function` lets a function create its
    variables on the first trace only (the usual pattern: `if self.v is None: self.v = tf.Variable(...)`).
    Side effects follow the same logic. A Python counter counts traces; a variable's `assign_add` is a step of
    the graph and counts calls:
    """, ko=r"""
    변수는 한 번의 호출이 아니라 프로그램의 상태에 속합니다. `tf.function`은 함수가 첫 추적에서만 변수를
    만들도록 허용합니다(흔히 쓰는 패턴은 `if self.v is None: self.v = tf.Variable(...)`입니다). 부작용도 같은
    논리를 따릅니다. Python 카운터는 추적 횟수를 세고, 변수의 `assign_add`는 그래프의 한 단계라서 호출
    횟수를 셉니다.
    """),
    code("""
    python_calls = 0
    graph_calls = mt.Variable(0)


    @mt.function
    def step(x):
        global python_calls
        python_calls += 1  # Python: runs while tracing
        graph_calls.assign_add(1)  # an op of the graph: runs at every call
        return x + 1.0


    for _ in range(3):
        step(mt.constant(0.0))
    print("python_calls:", python_calls, " graph_calls:", int(graph_calls))
    """),
    md(r"""
    ## 3. The graph of a training step

    Trace a whole training step: the forward pass, the loss, `tape.gradient` and the updates. The tape inside is
    traced too: the ops its gradient rules run are recorded in the same graph. `GraphView` draws it: inputs as
    ovals, forward ops in blue, the gradient ops in orange (each naming the op whose rule ran it), variable reads
    and assigns in green, in one frame per name scope (the model, its layers).
    """, ko=r"""
    ## 3. 훈련 스텝의 그래프

    훈련 스텝 전체를 추적해 봅시다. 순전파, 손실, `tape.gradient`, 그리고 갱신까지입니다. 안에 있는 테이프도
    추적됩니다. 테이프의 그래디언트 규칙이 실행하는 연산이 같은 그래프에 기록됩니다. `GraphView`가 그
    그래프를 그립니다. 입력은 타원, 순전파 연산은 파란색, 그래디언트 연산은 주황색(각각 어느 연산의 규칙이
    실행했는지 이름이 붙습니다), 변수 읽기와 할당은 초록색이고, 이름 범위(모델과 그 층들)마다 틀 하나씩에
    담깁니다.
    """),
    code("""
    keras = mt.keras
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])


    @mt.function
    def train_step(x, y):
        with mt.GradientTape() as tape:
            loss = mt.reduce_mean(mt.square(model(x) - y))
        gradients = tape.gradient(loss, model.trainable_variables)
        for variable, gradient in zip(model.trainable_variables, gradients):
            variable.assign_sub(0.1 * gradient)
        return loss


    x_batch = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    y_batch = np.random.default_rng(1).normal(size=(16, 3)).astype(np.float32)
    print("loss:", float(train_step(x_batch, y_batch)))
    view = GraphView(train_step)
    print(view.summary())
    """),
    volatile("""
    view  # the drawing (Graphviz lays it out)
    """),
    md(r"""
    Read it from the inputs `x` and `y`: `MatMul`, `AddV2`, `Relu` in the first layer's frame, the second layer,
    then `Sub`, `Square`, `Mean`: the loss. The orange ops are the backward pass, from the loss back to each
    layer's kernel and bias, and each ends in a `Mul` by the learning rate and an `AssignSub`. (The gradient of
    `Mean`, $1/n$ for each entry, depends on no input: tracing computed it once, and the graph keeps it as a
    constant.) There is no tape at replay time: the backward pass is part of the graph, and later calls just run
    it.

    ## 4. Python control flow on tensors

    An `if` on a tensor asks for its value in Python. TensorFlow's AutoGraph rewrites such an `if` into a `tf.cond`
    that holds both branches in one graph. minitape keeps your Python code as it is and records a **guard**
    instead: the graph replays only while the condition goes the way it went at tracing; for the other way, the
    function is traced again, and both graphs are kept. The results are right either way; the count of traces
    (and the Python prints) show the difference:
    """, ko=r"""
    입력 `x`와 `y`에서부터 읽어 봅시다. 첫 번째 층의 틀 안에 `MatMul`, `AddV2`, `Relu`가 있고, 두 번째 층이
    이어진 다음 `Sub`, `Square`, `Mean`이 손실을 계산합니다. 주황색 연산이 역전파입니다. 손실에서 각 층의 커널과
    편향까지 거꾸로 가고, 각각 학습률을 곱하는 `Mul`과 `AssignSub`로 끝납니다. (`Mean`의 그래디언트, 곧 원소마다
    $1/n$은 어떤 입력에도 의존하지 않습니다. 추적이 그것을 한 번 계산했고, 그래프는 그것을 상수로
    간직합니다.) 다시 실행할 때는 테이프가 없습니다. 역전파가 그래프의 일부이고, 그 뒤의 호출은 그것을 실행할
    뿐입니다.

    ## 4. 텐서에 쓰는 Python 제어 흐름

    텐서에 쓴 `if`는 Python에서 그 텐서의 값을 묻습니다. TensorFlow의 AutoGraph는 그런 `if`를 두 분기를 한
    그래프에 담는 `tf.cond`로 바꿔 씁니다. minitape는 여러분의 Python 코드를 그대로 두고, 대신 **가드**(guard)를
    기록합니다. 조건이 추적 때와 같은 쪽으로 갈 때만 그래프를 다시 실행하고, 다른 쪽으로 가면 함수를 다시
    추적해서 두 그래프를 모두 간직합니다. 어느 쪽이든 결과는 맞습니다. 차이는 추적 횟수(와 Python의
    출력)에서 보입니다.
    """),
    code("""
    @mt.function
    def bend(x):
        if x > 0:
            print("tracing the x > 0 branch")
            return x * x
        print("tracing the other branch")
        return -x


    for value in [2.0, -3.0, 0.5, -0.5]:
        print(value, "->", float(bend(mt.constant(value))))
    print("traced", bend.experimental_get_tracing_count(), "times")
    """),
    md(r"""
    A `while` on a tensor is guarded at every turn: the graph unrolls the turns taken at tracing, and a value that
    needs another number of turns traces again. To keep one graph whatever the values, choose inside the graph:
    `mt.where(condition, a, b)` computes both sides and picks per element (exercise 11.3).

    ## 5. The speed-up

    A replay skips everything eager execution does around each numpy call: converting the inputs, checking dtypes,
    wrapping the results in tensors, recording them on the tape, walking the tape backwards. Time the same training
    step both ways (the numbers depend on the machine; the test checks only that the graph is faster):
    """, ko=r"""
    텐서에 쓴 `while`은 반복할 때마다 가드가 걸립니다. 그래프는 추적 때 돈 횟수만큼 반복을 펼쳐 두고,
    다른 횟수만큼 돌아야 하는 값이 오면 다시 추적합니다. 값이 무엇이든 그래프 하나를 유지하려면 그래프
    안에서 고르세요. `mt.where(condition, a, b)`는 양쪽을 모두 계산하고 원소마다 고릅니다(연습 문제 11.3).

    ## 5. 속도 향상

    다시 실행할 때는 즉시 실행이 numpy 호출마다 그 둘레에서 하는 일을 모두 건너뜁니다. 입력 변환, dtype 검사,
    결과를 텐서로 감싸기, 테이프에 기록하기, 테이프를 거꾸로 따라가기입니다. 같은 훈련 스텝을 두 방식으로 재
    봅시다(숫자는 기계마다 다릅니다. 테스트는 그래프가 더 빠른지만 확인합니다).
    """),
    volatile("""
    def seconds_per_step(step, repeats=200):
        step(x_batch, y_batch)  # the first call traces
        start = time.perf_counter()
        for _ in range(repeats):
            step(x_batch, y_batch)
        return (time.perf_counter() - start) / repeats


    eager_time = seconds_per_step(train_step.python_function)
    graph_time = seconds_per_step(train_step)
    print(f"eager: {eager_time * 1e6:6.0f} µs per step")
    print(f"graph: {graph_time * 1e6:6.0f} µs per step ({eager_time / graph_time:.1f}x faster)")
    assert graph_time < eager_time
    """),
    md(r"""
    The replay gives the same numbers as eager execution, bit for bit: it runs the same numpy calls in the same
    order. Only the bookkeeping around them is gone.

    ## Exercises

    **Exercise 11.1.** How many times does `double2` trace for these seven calls? Predict first, then store your
    number in `answer` (you may check it with `double2.experimental_get_tracing_count()` afterwards).
    """, ko=r"""
    다시 실행한 그래프는 즉시 실행과 비트 하나까지 같은 숫자를 줍니다. 같은 numpy 호출을 같은 순서로 실행하기
    때문입니다. 사라진 것은 그 둘레의 관리 작업뿐입니다.

    ## 연습 문제

    **연습 문제 11.1.** 아래 일곱 번의 호출에서 `double2`는 몇 번 추적될까요? 먼저 예측한 다음, 그 숫자를
    `answer`에 넣으세요(넣은 뒤에 `double2.experimental_get_tracing_count()`로 확인해 볼 수 있습니다).
    """),
    code("""
    @mt.function
    def double2(x):
        return x * 2


    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the retracing warning would give the answer away
        for argument in [mt.constant(1.0), mt.constant(5.0), mt.constant([1.0, 2.0]), mt.constant(3), 2, 2.0, 3]:
            double2(argument)

    answer = ...  # your prediction: a number

    check("11.1", answer)
    """),
    solution("""
    answer = 5  # float32 scalar, float32 vector, int32 scalar, the value 2 (== 2.0), the value 3

    check("11.1", answer)
    """),
    md(r"""
    **Exercise 11.2.** This function means to count its calls, but the count stays at 1. Rewrite it so that
    `counter` is a `mt.Variable` made outside the function and incremented inside it; call it five times and store
    the counter's value in `answer`.
    """, ko=r"""
    **연습 문제 11.2.** 이 함수는 호출 횟수를 세려고 하지만, 카운트가 1에서 멈춥니다. `counter`를 함수 밖에서
    만든 `mt.Variable`로 바꾸고 함수 안에서 그 값을 늘리도록 고쳐 쓰세요. 다섯 번 호출한 뒤 카운터의 값을
    `answer`에 넣으세요.
    """),
    code("""
    counter = 0


    @mt.function
    def counted(x):
        global counter
        counter += 1
        return x * 2


    for _ in range(5):
        counted(mt.constant(1.0))

    answer = ...  # your code here: the count after five calls, from a variable

    check("11.2", answer)
    """),
    solution("""
    counter = mt.Variable(0)


    @mt.function
    def counted(x):
        counter.assign_add(1)
        return x * 2


    for _ in range(5):
        counted(mt.constant(1.0))
    answer = counter

    check("11.2", answer)
    """),
    md(r"""
    **Exercise 11.3.** Write `g(x)` ($x^2$ for $x > 0$, $-x$ otherwise, for a scalar tensor $x$) so that one graph
    serves every sign: the check traces it with `mt.function` and calls it with 2, -3, 0.5 and -0.5. Pass the
    function itself (not decorated, not called).
    """, ko=r"""
    **연습 문제 11.3.** `g(x)`($x > 0$이면 $x^2$, 아니면 $-x$, $x$는 스칼라 텐서)를 부호가 무엇이든 그래프
    하나로 처리하도록 작성하세요. check는 그 함수를 `mt.function`으로 추적하고 2, -3, 0.5, -0.5로 호출합니다.
    함수 자체를 넘기세요(데코레이터를 붙이지 말고, 호출하지도 말고).
    """),
    code("""
    def g(x):
        ...  # your code here


    check("11.3", g)
    """),
    solution("""
    def g(x):
        return mt.where(x > 0, x * x, -x)


    check("11.3", g)
    """),
    md(r"""
    ## Summary

    - `mt.function` (TensorFlow's `tf.function`) traces the Python function once per signature: tensors by shape
      and dtype, Python values by value, other objects by identity; later calls replay the recorded graph.
    - Python side effects happen while tracing; ops (`mt.print`, `assign_add`) happen at every call. Inside, a
      tensor has no value for Python: `.numpy()` raises, and variables are created on the first trace only.
    - A traced training step holds its backward pass and its updates: the tape's work is done once, at tracing.
    - An `if` or `while` on a tensor is guarded in minitape (one graph per path, each replayed only when its
      conditions hold); `mt.where` keeps the choice inside one graph, as TensorFlow's `tf.cond` does.
    - The replay runs the same numpy calls without eager execution's bookkeeping: same results, less time.

    Back to the [start page](00_start_here.ipynb).
    """, ko=r"""
    ## 정리

    - `mt.function`(TensorFlow의 `tf.function`)은 Python 함수를 서명마다 한 번 추적합니다. 텐서는 shape과
      dtype으로, Python 값은 값으로, 그 밖의 객체는 동일성으로 구별합니다. 그 뒤의 호출은 기록된 그래프를 다시
      실행합니다.
    - Python 부작용은 추적할 때 일어나고, 연산(`mt.print`, `assign_add`)은 호출할 때마다 일어납니다. 함수
      안에서 텐서는 Python에게 값이 없습니다. `.numpy()`는 예외를 일으키고, 변수는 첫 추적에서만 만들어집니다.
    - 추적된 훈련 스텝은 역전파와 갱신을 품고 있습니다. 테이프의 일은 추적할 때 한 번으로 끝납니다.
    - 텐서에 쓴 `if`나 `while`에는 minitape에서 가드가 걸립니다(경로마다 그래프 하나, 각 그래프는 그 조건이 맞을
      때만 다시 실행됩니다). `mt.where`는 TensorFlow의 `tf.cond`처럼 선택을 그래프 하나 안에 둡니다.
    - 그래프를 다시 실행할 때는 같은 numpy 호출을 즉시 실행의 관리 작업 없이 실행합니다. 결과는 같고, 시간은 덜
      듭니다.

    [시작 페이지](00_start_here.ipynb)로 돌아갑니다.
    """),
]

"""Lesson 00: how to use the lessons and the visualizer."""

from nb import code, md, solution, volatile

NAME = "00_start_here.ipynb"
TITLE = "Start here"

LESSONS = [
    (
        "01_finite_differences_vs_autodiff.ipynb",
        "Finite differences vs automatic differentiation",
        "approximate gradients, their two errors, and the exact gradient of a tape",
    ),
    (
        "02_autodiff_by_hand.ipynb",
        "Autodiff by hand",
        "the chain rule, a neuron by pencil, a 40-line tape in plain Python, dual numbers",
    ),
    (
        "03_recording_and_watching.ipynb",
        "Recording and watching",
        "what a tape records, what it watches, sources and targets as structures",
    ),
    ("04_persistent_tapes.ipynb", "Persistent tapes", "asking a tape twice, and what that costs in memory"),
    (
        "05_nesting_higher_order.ipynb",
        "Nested tapes and higher-order derivatives",
        "second derivatives, Jacobians and Hessians",
    ),
    ("06_getting_none.ipynb", "Getting None", "every reason a gradient comes back None, and `tape.explain`"),
    (
        "07_stopping_and_custom_gradients.ipynb",
        "Stopping and customising gradients",
        "`stop_gradient`, the softplus NaN, the numerics check, `custom_gradient`",
    ),
    (
        "08_model_and_training_loop.ipynb",
        "Gradients of a model and a custom training loop",
        "a CNN trained with `fit` and with a hand-written `train_step`",
    ),
    (
        "09_forward_vs_reverse_mode.ipynb",
        "Forward mode vs reverse mode",
        "JVPs, VJPs, why training uses reverse mode, Hessian-vector products",
    ),
    (
        "10_backpropagation_through_time.ipynb",
        "Backpropagation through time",
        "a recurrent network on a tape, vanishing and exploding gradients, clipping, truncated BPTT",
    ),
    (
        "11_graphs_and_tf_function.ipynb",
        "Graphs and tf.function",
        "tracing and retracing, a training step's graph drawn, Python control flow, the speed-up",
    ),
]

# The same lessons in the Korean edition (notebooks/ko/, same file names): title and what it teaches.
LESSONS_KO = [
    ("유한 차분과 자동 미분", "근사 그래디언트와 그 두 가지 오차, 그리고 테이프가 주는 정확한 그래디언트"),
    ("손으로 하는 자동 미분", "연쇄 법칙, 연필로 계산하는 뉴런, 순수 Python 40줄짜리 테이프, 이중수"),
    ("기록과 감시", "테이프가 무엇을 기록하고 무엇을 감시하는지, 구조로 된 소스와 타깃"),
    ("영구 테이프", "테이프에 두 번 묻기, 그리고 그 메모리 비용"),
    ("중첩 테이프와 고계 도함수", "이계도함수, 야코비안, 헤세 행렬"),
    ("None이 나올 때", "그래디언트가 None으로 돌아오는 모든 이유와 `tape.explain`"),
    ("그래디언트 중단과 사용자 정의", "`stop_gradient`, softplus의 NaN, 수치 검사, `custom_gradient`"),
    ("모델의 그래디언트와 사용자 정의 훈련 루프", "`fit`과 직접 쓴 `train_step`으로 훈련하는 CNN"),
    ("순방향 모드와 역방향 모드", "JVP, VJP, 훈련에 역방향 모드를 쓰는 이유, 헤세 행렬-벡터 곱"),
    ("시간에 따른 역전파", "테이프 위의 순환 신경망, 그래디언트 소실과 폭주, 클리핑, 잘린 BPTT"),
    ("그래프와 tf.function", "추적과 재추적, 그림으로 보는 훈련 스텝의 그래프, Python 제어 흐름, 속도 향상"),
]

_TABLE = "\n".join(f"| {i} | [{title}]({name}) | {what} |" for i, (name, title, what) in enumerate(LESSONS, 1))
_TABLE_KO = "\n".join(
    f"| {i} | [{title}]({name}) | {what} |"
    for i, ((name, _, _), (title, what)) in enumerate(zip(LESSONS, LESSONS_KO, strict=True), 1)
)

CELLS = [
    md(
        r"""
    # Start here · Automatic differentiation with minitape

    Welcome! These lessons teach how automatic differentiation works, with **minitape**: a small engine with the
    same API as TensorFlow 2's `tf.GradientTape`, written in numpy so that you can read all of it. Whatever you learn
    here carries over to TensorFlow by changing one import (`import minitape as tf`), and minitape shows what
    TensorFlow hides: the tape itself.

    **Learning goals of this page.** After it you can run a lesson, do an exercise and check it, open a hidden
    solution, and use the tape visualizer.
    """,
        ko=r"""
    # 시작하기 · minitape로 배우는 자동 미분

    환영합니다! 이 강의는 **minitape**로 자동 미분이 어떻게 동작하는지 가르칩니다. minitape는 TensorFlow 2의
    `tf.GradientTape`과 API가 같은 작은 엔진으로, numpy로 작성되어 있어 코드 전체를 직접 읽을 수 있습니다.
    여기서 배운 것은 import 한 줄(`import minitape as tf`)만 바꾸면 TensorFlow에서 그대로 쓸 수 있고,
    minitape는 TensorFlow가 감추는 것, 곧 테이프 자체를 보여 줍니다.

    **이 페이지의 학습 목표.** 이 페이지를 마치면 강의를 실행하고, 연습 문제를 풀어 확인하고, 숨겨진 해답을
    열어 보고, 테이프 시각화 도구를 쓸 수 있습니다.
    """,
    ),
    md(
        "## The lessons\n\nEach takes 15 to 30 minutes. Do them in order: each builds on the one before.\n\n"
        "| # | lesson | what you learn |\n|---|---|---|\n" + _TABLE,
        ko="## 강의 목록\n\n강의마다 15~30분이 걸립니다. 앞 강의를 바탕으로 다음 강의가 이어지니 순서대로 공부하세요.\n\n"
        "| # | 강의 | 배우는 것 |\n|---|---|---|\n" + _TABLE_KO,
    ),
    md(
        """
    ## How to use a notebook

    - Run a cell with **Shift + Enter**. Run them in order, top to bottom: later cells use what earlier cells
      defined. If things get confusing, *Kernel → Restart Kernel and Run All Cells*.
    - Change anything and run it again: nothing can break. To start a lesson over, as it was first given, run
      `bash scripts/lessons.sh --reset NN` from the repository (NN is the lesson's number, e.g. `05`).
    - Cells that demonstrate an error are meant to show it: read the message, it is part of the lesson.

    Every lesson starts like this:
    """,
        ko=r"""
    ## 노트북 쓰는 법

    - 셀은 **Shift + Enter**로 실행합니다. 위에서 아래로 차례대로 실행하세요. 뒤쪽 셀은 앞쪽 셀에서 정의한
      것을 씁니다. 헷갈릴 때는 메뉴에서 `Kernel → Restart Kernel and Run All Cells`를 고르세요.
    - 무엇이든 바꿔서 다시 실행해 보세요. 망가질 것은 없습니다. 강의를 처음 받은 상태로 되돌리려면 저장소에서
      `bash scripts/lessons.sh --reset NN`을 실행합니다(NN은 강의 번호, 예: `05`).
    - 오류를 보여 주는 셀은 일부러 오류를 내는 것입니다. 메시지를 읽어 보세요. 그것도 강의의 일부입니다.

    모든 강의는 이렇게 시작합니다.
    """,
    ),
    code("""
    import minitape as mt
    from lesson_tools import check

    x = mt.Variable(3.0)
    with mt.GradientTape() as tape:
        y = x * x
    print(tape.gradient(y, x))  # dy/dx = 2x = 6
    """),
    md(
        """
    ## Exercises, `check`, and hidden solutions

    Each lesson ends with two or three exercises. Replace the `...` with your code, run the cell, and
    `check("number", answer)` tells you whether it is right, or why not, with a hint. It never scolds and never
    shows a long error: if your code fails, it says how. Where an exercise uses a tape, pass the tape along too,
    `check("0.1", answer, tape=tape, target=y, sources=x)` (the target and sources you gave `tape.gradient`): if
    your gradient comes out `None`, `check` asks the tape why (forgot to watch `x`? computed outside the block?).
    An answer that is still `...` is "not written yet"; a `None` your code produced is a real answer, explained.

    **Exercise 0.1** (a warm-up). Compute the derivative of $y = x^2 + 3x$ at $x = 2$ with a tape, and put it in
    `answer`. (It is $2x + 3 = 7$.)
    """,
        ko=r"""
    ## 연습 문제, `check`, 숨겨진 해답

    강의마다 끝에 연습 문제가 두세 개 있습니다. `...`를 여러분의 코드로 바꾸고 셀을 실행하면
    `check("번호", answer)`가 답이 맞는지, 틀렸다면 왜 틀렸는지 힌트와 함께 알려 줍니다. 꾸짖지도 않고 긴 오류를
    보여 주지도 않습니다. 코드가 실패하면 어떻게 실패했는지 말해 줍니다. 테이프를 쓰는 연습 문제에서는
    `check("0.1", answer, tape=tape, target=y, sources=x)`처럼 테이프도 함께 넘기세요(`tape.gradient`에 준 타깃과
    소스 그대로). 그래디언트가 `None`으로 나오면 `check`가 테이프에 이유를 묻습니다(`x`를 감시하는 것을
    잊었나요? 블록 밖에서 계산했나요?). 아직 `...`인 답은 "아직 작성되지 않음"이고, 코드가 만들어 낸 `None`은
    진짜 답으로 보고 이유를 설명합니다.

    **연습 문제 0.1** (몸풀기). $x = 2$에서 $y = x^2 + 3x$의 미분값을 테이프로 계산해 `answer`에 넣으세요.
    (답은 $2x + 3 = 7$입니다.)
    """,
    ),
    code("""
    x = mt.Variable(2.0)
    tape = y = answer = ...  # your code here: record y on a tape, then answer = tape.gradient(y, x)

    check("0.1", answer, tape=tape, target=y, sources=x)
    """),
    md(
        """
    Below the exercise is its solution, in a **collapsed** cell: you see a thin bar or `⋯` instead of the code.
    Click it to open the solution (try first!). The solution is a function, `solution_0_1()`: running the cell
    only defines it (so *Run All* never replaces your own answer); call `solution_0_1()` in a new cell to see it
    checked.
    """,
        ko=r"""
    연습 문제 아래에는 해답이 **접힌** 셀에 들어 있습니다. 코드 대신 얇은 막대나 `⋯`가 보입니다. 그것을 누르면
    해답이 열립니다(먼저 직접 풀어 보세요!). 해답은 함수 `solution_0_1()`입니다. 셀을 실행하면 함수가 정의되기만
    하므로(*Run All*을 해도 여러분의 답이 바뀌지 않습니다), 확인 결과를 보려면 새 셀에서 `solution_0_1()`을
    호출하세요.
    """,
    ),
    solution("""
    x = mt.Variable(2.0)
    with mt.GradientTape() as tape:
        y = x**2 + 3 * x
    answer = tape.gradient(y, x)

    check("0.1", answer, tape=tape, target=y, sources=x)
    """),
    md(
        """
    And a wrong answer? Here is what `check` says about `8.0`:
    """,
        ko=r"""
    틀린 답이라면 어떨까요? `8.0`에 대해 `check`가 하는 말을 보세요.
    """,
    ),
    code("""
    check("0.1", 8.0)
    """),
    md(
        """
    And a gradient that came out `None`? With the tape passed along, `check` asks it why (here `x` is a constant,
    which a tape does not watch on its own):
    """,
        ko=r"""
    그래디언트가 `None`으로 나왔다면요? 테이프를 함께 넘기면 `check`가 테이프에 이유를 묻습니다(여기서 `x`는
    상수이고, 테이프는 상수를 스스로 감시하지 않습니다).
    """,
    ),
    code("""
    x = mt.constant(2.0)
    with mt.GradientTape() as tape:
        y = x**2 + 3 * x

    check("0.1", tape.gradient(y, x), tape=tape, target=y, sources=x)
    """),
    md(
        """
    ## The tape visualizer

    `widgets.TapeView(tape, target, sources)` draws a recorded tape as a graph and animates it:

    - **the forward pass**: the ops light up in the order they ran, each with the value it produced;
    - **the backward pass**: from the seed $1$ at the target, each step applies one op's local derivative and
      passes the gradient to its inputs; where a value is used twice, the two contributions are added;
    - **controls**: play/pause, step back and forward, a slider over all steps, speed, reset; the side panel
      explains the current step in words and numbers; click a node to see its value, gradient, shape and dtype.

    Try it on $f(w_1, w_2) = 3 w_1^2 + 2 w_1 w_2$ at $(5, 3)$: watch the gradient of $w_1$ arrive in two parts,
    $30 + 6 = 36$, and the gradient of $w_2$ be $10$. The view needs the tape's records: use a persistent tape, or
    create the view before calling `tape.gradient`.
    """,
        ko=r"""
    ## 테이프 시각화 도구

    `widgets.TapeView(tape, target, sources)`는 기록된 테이프를 그래프로 그리고 애니메이션으로 보여 줍니다.

    - **순전파**: 연산이 실행된 순서대로 불이 켜지고, 각 연산이 만든 값이 함께 나타납니다.
    - **역전파**: 타깃의 시드 $1$에서 출발해, 한 단계마다 연산 하나의 국소 도함수를 적용하고 그래디언트를 그
      입력으로 넘깁니다. 한 값이 두 번 쓰였다면 두 기여분을 더합니다.
    - **조작**: 재생/일시 정지, 한 단계 앞뒤로, 전체 단계를 훑는 슬라이더, 속도, 처음으로. 옆 패널은 현재 단계를
      말과 숫자로 설명하고, 노드를 누르면 그 값, 그래디언트, shape, dtype을 보여 줍니다.

    $(5, 3)$에서 $f(w_1, w_2) = 3 w_1^2 + 2 w_1 w_2$로 해 보세요. $w_1$의 그래디언트가 두 부분으로 나뉘어
    $30 + 6 = 36$으로 도착하고, $w_2$의 그래디언트는 $10$이 되는 것을 볼 수 있습니다. 뷰에는 테이프의 기록이
    필요하니, 영구 테이프를 쓰거나 `tape.gradient`를 호출하기 전에 뷰를 만드세요.
    """,
    ),
    volatile("""
    from minitape import widgets

    w1, w2 = mt.Variable(5.0, name="w1"), mt.Variable(3.0, name="w2")
    with mt.GradientTape(persistent=True) as tape:
        f = 3 * w1**2 + 2 * w1 * w2

    view = widgets.TapeView(tape, f, [w1, w2])
    assert [float(g) for g in tape.gradient(f, [w1, w2])] == [36.0, 10.0]
    view
    """),
    md(
        """
    In a saved notebook (on GitHub, say), the view shows as a still picture; run the cell to animate it.
    `view.save_html("tape.html")` writes a single file that animates in any browser, for slides.

    ## If something goes wrong

    - `ModuleNotFoundError: minitape`: the kernel runs a Python without the project. From the
      repository, `bash scripts/lessons.sh` sets everything up and opens this page.
    - The visualizer says Graphviz is missing: install it (`sudo apt-get install graphviz`, or
      `brew install graphviz`); it lays out the graphs.
    - A gradient is `None` and you do not see why: `tape.explain(target, sources)` says why (lesson 6).

    ## Summary

    - Run cells in order with Shift + Enter; restart and run all when in doubt.
    - Exercises: write, run, read `check`'s feedback; the solution is in the collapsed cell below.
    - `widgets.TapeView(tape, target, sources)` animates a tape's forward and backward passes.

    Start with [lesson 1](01_finite_differences_vs_autodiff.ipynb).
    """,
        ko=r"""
    저장된 노트북(예: GitHub)에서는 뷰가 정지 그림으로 보입니다. 셀을 실행하면 움직입니다.
    `view.save_html("tape.html")`은 어떤 브라우저에서든 움직이는 파일 하나를 만들어 주므로 발표 자료에 쓸 수
    있습니다.

    ## 문제가 생겼을 때

    - `ModuleNotFoundError: minitape`: 커널이 이 프로젝트가 없는 Python으로 실행되고 있습니다. 저장소에서
      `bash scripts/lessons.sh`를 실행하면 모든 준비를 하고 이 페이지를 엽니다.
    - 시각화 도구가 Graphviz가 없다고 하면 설치하세요(`sudo apt-get install graphviz` 또는
      `brew install graphviz`). 그래프의 배치를 Graphviz가 맡습니다.
    - 그래디언트가 `None`인데 이유를 모르겠다면 `tape.explain(target, sources)`가 알려 줍니다(6강).

    ## 정리

    - 셀은 Shift + Enter로 순서대로 실행합니다. 헷갈리면 커널을 재시작하고 모두 실행하세요.
    - 연습 문제: 작성하고, 실행하고, `check`의 피드백을 읽습니다. 해답은 아래의 접힌 셀에 있습니다.
    - `widgets.TapeView(tape, target, sources)`는 테이프의 순전파와 역전파를 애니메이션으로 보여 줍니다.

    [1강](01_finite_differences_vs_autodiff.ipynb)부터 시작하세요.
    """,
    ),
]

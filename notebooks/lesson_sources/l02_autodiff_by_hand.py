"""Lesson 02: reverse-mode autodiff built by hand (chain rule, a neuron, a 40-line tape) and dual numbers."""

from nb import code, md, solution, volatile

NAME = "02_autodiff_by_hand.ipynb"
TITLE = "Autodiff by hand"

CELLS = [
    md(
        r"""
    # Lesson 2 · Autodiff by hand

    **Learning goals.** After this lesson you can
    - write the chain rule out on one expression, as a graph of small operations;
    - backpropagate a neuron $y = \tanh(w x + b)$ with pencil and paper, and check the numbers against minitape;
    - build a working reverse-mode tape in about 40 lines of plain Python: each op records its inputs and its
      *local derivatives* on a list, and a backward sweep walks that list in reverse;
    - build forward mode with *dual numbers*, and say why it needs one pass per input.

    Nothing here is new mathematics: it is the chain rule, organised. Once you have written the tape yourself,
    `GradientTape` holds no mystery: it is the same list, with tensors instead of floats.
    """,
        ko=r"""
    # 2강 · 손으로 하는 자동 미분

    **학습 목표.** 이 강의를 마치면
    - 식 하나에 대해 연쇄 법칙을 작은 연산들의 그래프로 풀어 쓸 수 있습니다.
    - 뉴런 $y = \tanh(w x + b)$를 연필과 종이로 역전파하고, 그 숫자를 minitape와 맞춰 볼 수 있습니다.
    - 순수 Python 40줄 정도로 동작하는 역방향 모드 테이프를 만들 수 있습니다. 연산마다 입력과 *국소 도함수*를
      리스트에 기록하고, 역방향으로 한 번 훑으며 그 리스트를 거꾸로 따라갑니다.
    - *이중수*로 순방향 모드를 만들고, 왜 입력마다 패스가 한 번씩 필요한지 설명할 수 있습니다.

    새로운 수학은 없습니다. 연쇄 법칙을 정리해서 쓰는 것뿐입니다. 테이프를 직접 한 번 만들어 보면
    `GradientTape`에는 더 이상 신비한 것이 없습니다. 실수 대신 텐서를 담은 같은 리스트일 뿐입니다.
    """,
    ),
    code("""
    import math

    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md(
        r"""
    ## 1. The chain rule on one expression

    Take $f(x, y) = x y + \sin x$ at $(x, y) = (2, 3)$. Split it into primitive operations, each with a name:

    $$a = x \cdot y, \qquad b = \sin x, \qquad f = a + b.$$

    Each operation knows its **local derivatives**, the derivatives of its output with respect to its own inputs:
    $\frac{\partial a}{\partial x} = y,\; \frac{\partial a}{\partial y} = x,\; \frac{\partial b}{\partial x} = \cos x,
    \; \frac{\partial f}{\partial a} = \frac{\partial f}{\partial b} = 1$. The chain rule multiplies them along each
    path from $f$ back to an input, and **adds** the paths when a value is used twice ($x$ feeds both $a$ and $b$):

    $$\frac{\partial f}{\partial x}
      = \frac{\partial f}{\partial a}\frac{\partial a}{\partial x}
      + \frac{\partial f}{\partial b}\frac{\partial b}{\partial x}
      = 1 \cdot y + 1 \cdot \cos x = 3 + \cos 2 \approx 2.58385, \qquad
      \frac{\partial f}{\partial y} = \frac{\partial f}{\partial a}\frac{\partial a}{\partial y} = x = 2.$$

    The same numbers, computed the way a backward pass does it: start from $\bar f = \partial f / \partial f = 1$
    and push it back one operation at a time ($\bar v$ is short for $\partial f / \partial v$, the *adjoint* of $v$).
    """,
        ko=r"""
    ## 1. 식 하나에 적용한 연쇄 법칙

    $(x, y) = (2, 3)$에서 $f(x, y) = x y + \sin x$를 생각합시다. 이것을 이름 붙인 기본 연산들로 나눕니다.

    $$a = x \cdot y, \qquad b = \sin x, \qquad f = a + b.$$

    각 연산은 자기 **국소 도함수**, 곧 자기 입력에 대한 출력의 도함수를 압니다:
    $\frac{\partial a}{\partial x} = y,\; \frac{\partial a}{\partial y} = x,\; \frac{\partial b}{\partial x} = \cos x,
    \; \frac{\partial f}{\partial a} = \frac{\partial f}{\partial b} = 1$. 연쇄 법칙은 $f$에서 입력까지 거슬러
    가는 경로마다 국소 도함수를 곱하고, 한 값이 두 번 쓰이면 경로들을 **더합니다**($x$는 $a$와 $b$ 모두에
    들어갑니다).

    $$\frac{\partial f}{\partial x}
      = \frac{\partial f}{\partial a}\frac{\partial a}{\partial x}
      + \frac{\partial f}{\partial b}\frac{\partial b}{\partial x}
      = 1 \cdot y + 1 \cdot \cos x = 3 + \cos 2 \approx 2.58385, \qquad
      \frac{\partial f}{\partial y} = \frac{\partial f}{\partial a}\frac{\partial a}{\partial y} = x = 2.$$

    같은 숫자를 역전파가 하는 방식으로 계산해 봅시다. $\bar f = \partial f / \partial f = 1$에서 시작해 연산 하나씩
    거꾸로 밀어 보냅니다($\bar v$는 $\partial f / \partial v$, 곧 $v$의 *수반값*(adjoint)을 줄여 쓴 것입니다).
    """,
    ),
    code("""
    x, y = 2.0, 3.0
    a, b = x * y, math.sin(x)  # forward: keep the values, the backward pass needs them
    f = a + b

    f_bar = 1.0
    a_bar = f_bar * 1.0  # f = a + b: local derivative 1
    b_bar = f_bar * 1.0
    x_bar = a_bar * y + b_bar * math.cos(x)  # x is used twice: the two contributions add
    y_bar = a_bar * x
    print(f"f = {f:.5f}, df/dx = {x_bar:.5f}, df/dy = {y_bar:.5f}")
    """),
    md(
        """
    minitape gives the same (in float32, so the last digits may differ):
    """,
        ko=r"""
    minitape도 같은 값을 줍니다(float32로 계산하므로 마지막 자릿수는 다를 수 있습니다).
    """,
    ),
    code("""
    xv, yv = mt.Variable(2.0), mt.Variable(3.0)
    with mt.GradientTape() as tape:
        fv = xv * yv + mt.sin(xv)
    dx, dy = tape.gradient(fv, [xv, yv])
    print(f"minitape: df/dx = {float(dx):.5f}, df/dy = {float(dy):.5f}")
    np.testing.assert_allclose([float(dx), float(dy)], [x_bar, y_bar], rtol=1e-6)
    """),
    md(
        r"""
    ## 2. A neuron, backpropagated with pencil and paper

    A neuron computes $y = \tanh(z)$ with $z = w x + b$. Take $x = 2$, $w = 0.5$, $b = -0.5$.

    | step | forward value | local derivative | backward (adjoint) |
    |---|---|---|---|
    | $z = w x + b$ | $0.5 \cdot 2 - 0.5 = 0.5$ | $\partial z/\partial w = x = 2,\ \partial z/\partial b = 1,\ \partial z/\partial x = w = 0.5$ | |
    | $y = \tanh z$ | $\tanh 0.5 \approx 0.46212$ | $1 - \tanh^2 z \approx 0.78645$ | $\bar y = 1$ |
    | back to $z$ | | | $\bar z = \bar y \cdot 0.78645 = 0.78645$ |
    | back to $w, b, x$ | | | $\bar w = \bar z \cdot 2 = 1.57290,\ \bar b = 0.78645,\ \bar x = \bar z \cdot 0.5 = 0.39322$ |

    Notice that $\tanh$'s local derivative is written with its own output: $1 - y^2$. Reverse mode keeps forward
    values exactly for this. Now the check against minitape:
    """,
        ko=r"""
    ## 2. 연필과 종이로 역전파하는 뉴런

    뉴런은 $z = w x + b$로 $y = \tanh(z)$를 계산합니다. $x = 2$, $w = 0.5$, $b = -0.5$로 둡시다.

    | 단계 | 순전파 값 | 국소 도함수 | 역전파 (수반값) |
    |---|---|---|---|
    | $z = w x + b$ | $0.5 \cdot 2 - 0.5 = 0.5$ | $\partial z/\partial w = x = 2,\ \partial z/\partial b = 1,\ \partial z/\partial x = w = 0.5$ | |
    | $y = \tanh z$ | $\tanh 0.5 \approx 0.46212$ | $1 - \tanh^2 z \approx 0.78645$ | $\bar y = 1$ |
    | $z$로 되돌아가기 | | | $\bar z = \bar y \cdot 0.78645 = 0.78645$ |
    | $w, b, x$로 되돌아가기 | | | $\bar w = \bar z \cdot 2 = 1.57290,\ \bar b = 0.78645,\ \bar x = \bar z \cdot 0.5 = 0.39322$ |

    $\tanh$의 국소 도함수가 자기 출력으로 쓰인다는 점에 주목하세요: $1 - y^2$. 역방향 모드가 순전파 값을
    보관하는 이유가 바로 이것입니다. 이제 minitape와 맞춰 봅시다.
    """,
    ),
    code("""
    pencil = {"w": 1.57290, "b": 0.78645, "x": 0.39322}

    x_n = mt.Variable(2.0, name="x")
    w_n = mt.Variable(0.5, name="w")
    b_n = mt.Variable(-0.5, name="b")
    with mt.GradientTape() as tape:
        y_n = mt.tanh(w_n * x_n + b_n)
    grads = tape.gradient(y_n, {"w": w_n, "b": b_n, "x": x_n})
    for name, value in pencil.items():
        print(f"d y / d {name}: pencil {value:.5f}, minitape {float(grads[name]):.5f}")
        assert abs(float(grads[name]) - value) < 1e-5
    """),
    md(
        r"""
    ## 3. A tape in 40 lines of Python

    Now let the computer do the bookkeeping. Three pieces:

    1. `RULES`: for each primitive op, a function of the input *values* that returns the output value and the local
       derivatives (one per input). This is everything an op must know.
    2. `Var`: a number with a `grad` slot. Every op on `Var`s runs its rule and **appends a record** to `TAPE`:
       the output, the op's name, the inputs and the local derivatives.
    3. `backward(target)`: set `target.grad = 1`, then walk the records **in reverse order** and, for each input,
       add `local derivative × output's grad` to the input's `grad`. Reverse order guarantees that when a record
       is reached, every use of its output has already contributed to the output's `grad`.
    """,
        ko=r"""
    ## 3. Python 40줄로 만드는 테이프

    이제 장부 정리는 컴퓨터에 맡깁시다. 세 부분으로 이루어집니다.

    1. `RULES`: 기본 연산마다, 입력 *값*을 받아 출력값과 국소 도함수(입력마다 하나)를 돌려주는 함수입니다. 연산이
       알아야 할 것은 이것이 전부입니다.
    2. `Var`: `grad` 칸이 있는 숫자입니다. `Var`에 대한 연산은 모두 자기 규칙을 실행하고 `TAPE`에 **기록을
       하나 덧붙입니다**. 출력, 연산 이름, 입력, 국소 도함수가 담깁니다.
    3. `backward(target)`: `target.grad = 1`로 두고, 기록을 **거꾸로** 따라가며 입력마다
       `국소 도함수 × 출력의 grad`를 입력의 `grad`에 더합니다. 거꾸로 가기 때문에, 어떤 기록에 이르렀을 때 그
       출력을 쓴 곳은 모두 이미 출력의 `grad`에 기여를 마친 상태입니다.
    """,
    ),
    code("""
    TAPE = []  # the records, in the order the ops ran

    RULES = {  # op name -> function of the input values returning (output value, local derivatives)
        "add": lambda a, b: (a + b, (1.0, 1.0)),
        "mul": lambda a, b: (a * b, (b, a)),
        "sin": lambda a: (math.sin(a), (math.cos(a),)),
        "tanh": lambda a: (math.tanh(a), (1.0 - math.tanh(a) ** 2,)),
    }


    class Var:
        \"\"\"A number with a gradient slot; each op on Vars appends one record to TAPE.\"\"\"

        def __init__(self, value, name="?"):
            self.value, self.name, self.grad = float(value), name, 0.0

        def __repr__(self):
            return f"{self.name}={self.value:.5g}"

        def __add__(self, other):
            return apply("add", self, other)

        def __mul__(self, other):
            return apply("mul", self, other)

        __radd__, __rmul__ = __add__, __mul__


    def apply(op, *inputs):
        inputs = [v if isinstance(v, Var) else Var(v, name=str(v)) for v in inputs]  # numbers become constants
        value, local = RULES[op](*[v.value for v in inputs])
        out = Var(value, name=f"{op}{len(TAPE)}")
        TAPE.append((out, op, inputs, local))
        return out


    def backward(target):
        for out, op, inputs, local in TAPE:  # start from zero: a second call must not add to the first
            for v in [out, *inputs]:
                v.grad = 0.0
        target.grad = 1.0
        for out, op, inputs, local in reversed(TAPE):
            for v, derivative in zip(inputs, local):
                v.grad += derivative * out.grad  # += : a value used twice collects both contributions
    """),
    md(
        """
    The neuron of section 2 on our tape. Each record shows the op, its inputs, its output and the local
    derivatives it saved:
    """,
        ko=r"""
    2절의 뉴런을 우리 테이프에 올려 봅시다. 기록마다 연산, 입력, 출력, 그리고 저장한 국소 도함수가 보입니다.
    """,
    ),
    code("""
    TAPE.clear()
    x, w, b = Var(2.0, "x"), Var(0.5, "w"), Var(-0.5, "b")
    y = apply("tanh", w * x + b)
    for out, op, inputs, local in TAPE:
        print(f"{op:5s} {str(inputs):22s} -> {str(out):14s} local derivatives {tuple(round(d, 5) for d in local)}")

    backward(y)
    print(f"dy/dw = {w.grad:.5f}, dy/db = {b.grad:.5f}, dy/dx = {x.grad:.5f}")
    np.testing.assert_allclose([w.grad, b.grad, x.grad], [float(grads[k]) for k in "wbx"], rtol=1e-6)
    """),
    md(
        r"""
    The pencil numbers again, from three records and one reverse loop. The expression of section 1 uses a value
    twice; the `+=` in `backward` adds the two paths:
    """,
        ko=r"""
    기록 세 개와 역방향 루프 하나로 연필로 구한 숫자가 다시 나왔습니다. 1절의 식은 한 값을 두 번 씁니다.
    `backward`의 `+=`가 두 경로를 더합니다.
    """,
    ),
    code("""
    TAPE.clear()
    x, y = Var(2.0, "x"), Var(3.0, "y")
    f = x * y + apply("sin", x)
    backward(f)
    print(f"df/dx = {x.grad:.5f} (3 + cos 2 = {3 + math.cos(2.0):.5f}), df/dy = {y.grad:.5f}")
    assert abs(x.grad - (3 + math.cos(2.0))) < 1e-12 and y.grad == 2.0
    """),
    md(
        r"""
    That is reverse mode. One backward sweep gives the gradient with respect to **every** input, at a cost of a
    small multiple of the forward pass. minitape's `GradientTape` is this loop, with tensors, broadcasting,
    `None` for missing paths, and gradient rules written with tensor ops (so that the backward pass can itself be
    recorded, for higher derivatives: lesson 5).

    ## 4. Forward mode with dual numbers

    Forward mode carries a derivative *along with* each value instead of recording anything. A **dual number**
    $a + a'\varepsilon$ pairs a value $a$ with a tangent $a'$, with the rule $\varepsilon^2 = 0$. Then

    $$(a + a'\varepsilon) + (b + b'\varepsilon) = (a + b) + (a' + b')\varepsilon, \qquad
      (a + a'\varepsilon)(b + b'\varepsilon) = ab + (a'b + ab')\varepsilon,$$

    and for a smooth function, $g(a + a'\varepsilon) = g(a) + g'(a)\,a'\varepsilon$ (Taylor, with $\varepsilon^2 = 0$).
    The tangent part is exactly the product rule and the chain rule: derivatives come out of ordinary arithmetic.
    """,
        ko=r"""
    이것이 역방향 모드입니다. 역방향으로 한 번 훑으면 **모든** 입력에 대한 그래디언트가 나오고, 비용은 순전파의
    작은 배수입니다. minitape의 `GradientTape`도 이 루프입니다. 다만 텐서와 브로드캐스팅을 다루고, 경로가 없으면
    `None`을 주고, 그래디언트 규칙을 텐서 연산으로 써서 역전파 자체도 기록할 수 있습니다(고계 도함수: 5강).

    ## 4. 이중수로 하는 순방향 모드

    순방향 모드는 아무것도 기록하지 않고, 값마다 도함수를 *함께* 들고 다닙니다. **이중수**
    $a + a'\varepsilon$은 값 $a$와 접선 성분 $a'$을 짝지은 것으로, 규칙은 $\varepsilon^2 = 0$입니다. 그러면

    $$(a + a'\varepsilon) + (b + b'\varepsilon) = (a + b) + (a' + b')\varepsilon, \qquad
      (a + a'\varepsilon)(b + b'\varepsilon) = ab + (a'b + ab')\varepsilon$$

    이고, 매끄러운 함수에 대해서는 $g(a + a'\varepsilon) = g(a) + g'(a)\,a'\varepsilon$입니다($\varepsilon^2 = 0$인
    테일러 전개). 접선 성분은 정확히 곱의 법칙과 연쇄 법칙입니다. 평범한 산술에서 도함수가 나옵니다.
    """,
    ),
    code("""
    class Dual:
        \"\"\"A value and its tangent (its derivative along one chosen input direction), computed together.\"\"\"

        def __init__(self, value, tangent=0.0):
            self.value, self.tangent = float(value), float(tangent)

        def __repr__(self):
            return f"Dual({self.value:.5f}, tangent={self.tangent:.5f})"

        def __add__(self, other):
            other = other if isinstance(other, Dual) else Dual(other)  # a plain number has tangent 0
            return Dual(self.value + other.value, self.tangent + other.tangent)

        def __mul__(self, other):
            other = other if isinstance(other, Dual) else Dual(other)
            return Dual(self.value * other.value, self.tangent * other.value + self.value * other.tangent)

        __radd__, __rmul__ = __add__, __mul__


    def dual_sin(a):
        return Dual(math.sin(a.value), math.cos(a.value) * a.tangent)
    """),
    md(
        r"""
    The same $f(x, y) = x y + \sin x$ at $(2, 3)$. The tangent we put on the inputs chooses *which* derivative
    comes out: $(1, 0)$ gives $\partial f/\partial x$, $(0, 1)$ gives $\partial f/\partial y$. **One pass per
    input**, where the tape needed one backward pass for all of them:
    """,
        ko=r"""
    $(2, 3)$에서 같은 $f(x, y) = x y + \sin x$입니다. 입력에 붙인 접선 성분이 *어느* 도함수가 나올지 정합니다.
    $(1, 0)$이면 $\partial f/\partial x$, $(0, 1)$이면 $\partial f/\partial y$입니다. 테이프는 역전파 한 번으로
    모두 구했지만, 여기서는 **입력마다 패스가 한 번씩** 필요합니다.
    """,
    ),
    code("""
    for seed in [(1.0, 0.0), (0.0, 1.0)]:
        x, y = Dual(2.0, seed[0]), Dual(3.0, seed[1])
        f = x * y + dual_sin(x)
        print(f"tangents {seed}: f = {f}")

    f_dx = (Dual(2.0, 1.0) * Dual(3.0, 0.0) + dual_sin(Dual(2.0, 1.0))).tangent
    assert abs(f_dx - (3 + math.cos(2.0))) < 1e-12
    """),
    md(
        r"""
    For a loss of a million parameters, forward mode needs a million passes and reverse mode one: that is why
    training uses reverse mode. Forward mode shines in the other case, few inputs and many outputs, and it needs
    no tape at all (lesson 9 measures both).

    ## 5. The same neuron on minitape's tape, drawn

    minitape's tape holds the same records as our `TAPE`, plus a `ReadVariableOp` wherever a variable is read.
    `TapeView` draws them: press ▶ to replay the forward pass (the values $1$, $0.5$, $0.46212$ appear op by op),
    then the backward pass, where each step multiplies by one local derivative: $0.78645$ at `Tanh`, then
    $\times 2$ for $w$ and $\times 1$ for $b$. These are the numbers of the table in section 2.
    """,
        ko=r"""
    매개변수가 백만 개인 손실이라면 순방향 모드는 패스가 백만 번, 역방향 모드는 한 번 필요합니다. 훈련에 역방향
    모드를 쓰는 이유입니다. 순방향 모드는 반대 경우, 곧 입력이 적고 출력이 많을 때 빛나며, 테이프가 전혀
    필요 없습니다(9강에서 둘을 재어 봅니다).

    ## 5. minitape 테이프 위의 같은 뉴런, 그림으로

    minitape의 테이프에는 우리 `TAPE`와 같은 기록이 있고, 변수를 읽는 곳마다 `ReadVariableOp`이 더 있습니다.
    `TapeView`가 그것을 그립니다. ▶를 눌러 순전파를 다시 보고(값 $1$, $0.5$, $0.46212$가 연산마다 나타납니다),
    이어서 역전파를 보세요. 단계마다 국소 도함수 하나를 곱합니다. `Tanh`에서 $0.78645$, 그다음 $w$에는
    $\times 2$, $b$에는 $\times 1$입니다. 2절 표의 숫자 그대로입니다.
    """,
    ),
    volatile("""
    from minitape.widgets import TapeView

    x_n = mt.constant(2.0)
    w_n = mt.Variable(0.5, name="w")
    b_n = mt.Variable(-0.5, name="b")
    with mt.GradientTape(persistent=True) as tape:
        y_n = mt.tanh(w_n * x_n + b_n)

    view = TapeView(tape, y_n, [w_n, b_n])
    assert [round(float(g), 5) for g in tape.gradient(y_n, [w_n, b_n])] == [1.5729, 0.78645]
    view
    """),
    md(
        r"""
    ## Exercises

    **Exercise 2.1.** *Pencil first.* For the neuron $y = \tanh(w x + b)$ at $x = -1.5$, $w = 0.6$, $b = 0.2$,
    compute $\partial y / \partial w$ and $\partial y / \partial b$ by hand (a calculator for $\tanh$ is fine), the
    way the table of section 2 does. Put them in `answer` as the list `[dy_dw, dy_db]` (three significant digits
    are enough).
    """,
        ko=r"""
    ## 연습 문제

    **연습 문제 2.1.** *먼저 연필로.* $x = -1.5$, $w = 0.6$, $b = 0.2$에서 뉴런 $y = \tanh(w x + b)$의
    $\partial y / \partial w$와 $\partial y / \partial b$를 2절의 표처럼 손으로 계산하세요($\tanh$는 계산기를 써도
    됩니다). 리스트 `[dy_dw, dy_db]`로 `answer`에 넣으세요(유효숫자 세 자리면 충분합니다).
    """,
    ),
    code("""
    answer = ...  # your numbers here, by pencil: [dy_dw, dy_db]

    check("2.1", answer)
    """),
    solution("""
    z = 0.6 * -1.5 + 0.2  # -0.7
    dy_dz = 1 - math.tanh(z) ** 2  # 0.63474
    answer = [dy_dz * -1.5, dy_dz * 1.0]  # dz/dw = x, dz/db = 1

    check("2.1", answer)
    """),
    md(
        r"""
    **Exercise 2.2.** *Complete the tape.* Add division to `RULES`: `RULES["div"]` takes the values `a` and `b`
    and returns `(a / b, (d(a/b)/da, d(a/b)/db))`. Then `apply("div", p, q)` divides on the tape. (The solution
    also checks your rule on the tape against minitape.)
    """,
        ko=r"""
    **연습 문제 2.2.** *테이프 완성하기.* `RULES`에 나눗셈을 더하세요. `RULES["div"]`는 값 `a`와 `b`를 받아
    `(a / b, (d(a/b)/da, d(a/b)/db))`를 돌려줍니다. 그러면 `apply("div", p, q)`가 테이프 위에서 나눗셈을 합니다.
    (해답은 여러분의 규칙을 테이프에 올려 minitape와도 맞춰 봅니다.)
    """,
    ),
    code("""
    RULES["div"] = ...  # your code here: lambda a, b: (value, (local derivative for a, local derivative for b))

    check("2.2", RULES["div"])
    """),
    solution("""
    RULES["div"] = lambda a, b: (a / b, (1.0 / b, -a / b**2))

    TAPE.clear()
    p, q = Var(3.0, "p"), Var(4.0, "q")
    r = apply("div", p * q, p + q)  # r = pq / (p + q)
    backward(r)

    pm, qm = mt.Variable(3.0), mt.Variable(4.0)
    with mt.GradientTape() as tape:
        rm = pm * qm / (pm + qm)
    print("our tape:", [round(p.grad, 5), round(q.grad, 5)])
    print("minitape:", [round(float(g), 5) for g in tape.gradient(rm, [pm, qm])])
    check("2.2", RULES["div"])
    """),
    md(
        r"""
    **Exercise 2.3.** *Complete the dual numbers.* Give `Dual` a division: in `DualWithDivision` below, write
    `__truediv__` so that `DualWithDivision(a, a_tangent) / DualWithDivision(b, b_tangent)` returns a new
    `DualWithDivision` with the quotient and its tangent. Expand $\frac{a + a'\varepsilon}{b + b'\varepsilon}$
    with $\varepsilon^2 = 0$ (multiply above and below by $b - b'\varepsilon$).
    """,
        ko=r"""
    **연습 문제 2.3.** *이중수 완성하기.* `Dual`에 나눗셈을 주세요. 아래 `DualWithDivision`에 `__truediv__`를
    작성해서 `DualWithDivision(a, a_tangent) / DualWithDivision(b, b_tangent)`가 몫과 그 접선 성분을 담은 새
    `DualWithDivision`을 돌려주게 하세요. $\varepsilon^2 = 0$으로 $\frac{a + a'\varepsilon}{b + b'\varepsilon}$을
    전개하세요(분자와 분모에 $b - b'\varepsilon$을 곱합니다).
    """,
    ),
    code("""
    class DualWithDivision(Dual):
        def __truediv__(self, other):
            ...  # your code here: return DualWithDivision(value, tangent)


    check("2.3", DualWithDivision)
    """),
    solution("""
    class DualWithDivision(Dual):
        def __truediv__(self, other):
            value = self.value / other.value
            tangent = (self.tangent * other.value - self.value * other.tangent) / other.value**2
            return DualWithDivision(value, tangent)


    print(DualWithDivision(1.0, 1.0) / DualWithDivision(2.0, 0.0))  # d/dx (x / 2) = 0.5
    check("2.3", DualWithDivision)
    """),
    md(
        r"""
    ## Summary

    - The chain rule multiplies local derivatives along each path from the output back to an input, and adds the
      paths where a value is used more than once.
    - Reverse mode records each op with its local derivatives on a list (a **tape**), then sweeps the list in
      reverse order, accumulating adjoints with `+=`: one sweep gives the gradient with respect to every input.
    - Forward mode pushes a tangent along with each value (dual numbers, $\varepsilon^2 = 0$): one pass gives the
      derivative along one input direction, so a full gradient takes one pass per input.
    - `GradientTape` is the same tape with tensors; `TapeView` draws its records and replays both passes.

    **Now read the real one.** minitape's engine is in `minitape/engine/`, and its `__init__.py` gives the order to
    read it in (README, "Reading the engine", lists the files with their lengths). Follow `mt.sin(x)`: its row in
    `minitape/ops/math_ops.py` holds the forward (`np.sin`) beside the rule (`g * cos(x)`); `engine/execute.py`'s
    `apply` runs it and records it, as our `apply` above does; `engine/backprop.py`'s `backward` is our `backward`
    loop of section 3, with the rule call and the `+=` (the sum of contributions) in helpers of their own.

    Next: [lesson 3](03_recording_and_watching.ipynb), what exactly a tape records and watches.
    """,
        ko=r"""
    ## 정리

    - 연쇄 법칙은 출력에서 입력까지 거슬러 가는 경로마다 국소 도함수를 곱하고, 한 값이 여러 번 쓰인 곳에서는
      경로들을 더합니다.
    - 역방향 모드는 연산마다 국소 도함수와 함께 리스트(**테이프**)에 기록하고, 그 리스트를 거꾸로 훑으며 `+=`로
      수반값을 모읍니다. 한 번 훑으면 모든 입력에 대한 그래디언트가 나옵니다.
    - 순방향 모드는 값마다 접선 성분을 함께 밀고 갑니다(이중수, $\varepsilon^2 = 0$). 한 번의 패스로 입력 방향
      하나의 도함수가 나오므로, 그래디언트 전체에는 입력마다 패스가 한 번씩 필요합니다.
    - `GradientTape`은 텐서를 담은 같은 테이프입니다. `TapeView`는 그 기록을 그리고 두 패스를 다시 보여 줍니다.

    **이제 진짜 엔진을 읽어 봅시다.** minitape의 엔진은 `minitape/engine/`에 있고, 그 `__init__.py`에 읽을 순서가
    적혀 있습니다(README의 "Reading the engine"에 파일과 줄 수가 있습니다). `mt.sin(x)`를 따라가 보세요.
    `minitape/ops/math_ops.py`의 한 줄에 순전파(`np.sin`)와 그래디언트 규칙(`g * cos(x)`)이 나란히 있고,
    `engine/execute.py`의 `apply`가 그 연산을 실행하고 기록합니다. 위에서 만든 `apply`가 하던 일입니다.
    `engine/backprop.py`의 `backward`는 3절의 `backward` 루프이고, 규칙 호출과 `+=`(기여의 합)는 각각 이름 붙은 함수로
    나뉘어 있습니다.

    다음: [3강](03_recording_and_watching.ipynb), 테이프가 정확히 무엇을 기록하고 감시하는지.
    """,
    ),
]

"""Lesson 02: reverse-mode autodiff built by hand (chain rule, a neuron, a 40-line tape) and dual numbers."""

from nb import code, md, solution, volatile

NAME = "02_autodiff_by_hand.ipynb"
TITLE = "Autodiff by hand"

CELLS = [
    md(r"""
    # Lesson 2 · Autodiff by hand

    **Learning goals.** After this lesson you can
    - write the chain rule out on one expression, as a graph of small operations;
    - backpropagate a neuron $y = \tanh(w x + b)$ with pencil and paper, and check the numbers against minitape;
    - build a working reverse-mode tape in about 40 lines of plain Python: each op records its inputs and its
      *local derivatives* on a list, and a backward sweep walks that list in reverse;
    - build forward mode with *dual numbers*, and say why it needs one pass per input.

    Nothing here is new mathematics: it is the chain rule, organised. Once you have written the tape yourself,
    `GradientTape` holds no mystery: it is the same list, with tensors instead of floats.
    """),
    code("""
    import math

    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md(r"""
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
    """),
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
    md("""
    minitape gives the same (in float32, so the last digits may differ):
    """),
    code("""
    xv, yv = mt.Variable(2.0), mt.Variable(3.0)
    with mt.GradientTape() as tape:
        fv = xv * yv + mt.sin(xv)
    dx, dy = tape.gradient(fv, [xv, yv])
    print(f"minitape: df/dx = {float(dx):.5f}, df/dy = {float(dy):.5f}")
    np.testing.assert_allclose([float(dx), float(dy)], [x_bar, y_bar], rtol=1e-6)
    """),
    md(r"""
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
    """),
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
    md(r"""
    ## 3. A tape in 40 lines of Python

    Now let the computer do the bookkeeping. Three pieces:

    1. `RULES`: for each primitive op, a function of the input *values* that returns the output value and the local
       derivatives (one per input). This is everything an op must know.
    2. `Var`: a number with a `grad` slot. Every op on `Var`s runs its rule and **appends a record** to `TAPE`:
       the output, the op's name, the inputs and the local derivatives.
    3. `backward(target)`: set `target.grad = 1`, then walk the records **in reverse order** and, for each input,
       add `local derivative × output's grad` to the input's `grad`. Reverse order guarantees that when a record
       is reached, every use of its output has already contributed to the output's `grad`.
    """),
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
    md("""
    The neuron of section 2 on our tape. Each record shows the op, its inputs, its output and the local
    derivatives it saved:
    """),
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
    md(r"""
    The pencil numbers again, from three records and one reverse loop. The expression of section 1 uses a value
    twice; the `+=` in `backward` adds the two paths:
    """),
    code("""
    TAPE.clear()
    x, y = Var(2.0, "x"), Var(3.0, "y")
    f = x * y + apply("sin", x)
    backward(f)
    print(f"df/dx = {x.grad:.5f} (3 + cos 2 = {3 + math.cos(2.0):.5f}), df/dy = {y.grad:.5f}")
    assert abs(x.grad - (3 + math.cos(2.0))) < 1e-12 and y.grad == 2.0
    """),
    md(r"""
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
    """),
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
    md(r"""
    The same $f(x, y) = x y + \sin x$ at $(2, 3)$. The tangent we put on the inputs chooses *which* derivative
    comes out: $(1, 0)$ gives $\partial f/\partial x$, $(0, 1)$ gives $\partial f/\partial y$. **One pass per
    input**, where the tape needed one backward pass for all of them:
    """),
    code("""
    for seed in [(1.0, 0.0), (0.0, 1.0)]:
        x, y = Dual(2.0, seed[0]), Dual(3.0, seed[1])
        f = x * y + dual_sin(x)
        print(f"tangents {seed}: f = {f}")

    f_dx = (Dual(2.0, 1.0) * Dual(3.0, 0.0) + dual_sin(Dual(2.0, 1.0))).tangent
    assert abs(f_dx - (3 + math.cos(2.0))) < 1e-12
    """),
    md(r"""
    For a loss of a million parameters, forward mode needs a million passes and reverse mode one: that is why
    training uses reverse mode. Forward mode shines in the other case, few inputs and many outputs, and it needs
    no tape at all (lesson 9 measures both).

    ## 5. The same neuron on minitape's tape, drawn

    minitape's tape holds the same records as our `TAPE`, plus a `ReadVariableOp` wherever a variable is read.
    `TapeView` draws them: press ▶ to replay the forward pass (the values $1$, $0.5$, $0.46212$ appear op by op),
    then the backward pass, where each step multiplies by one local derivative: $0.78645$ at `Tanh`, then
    $\times 2$ for $w$ and $\times 1$ for $b$. These are the numbers of the table in section 2.
    """),
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
    md(r"""
    ## Exercises

    **Exercise 2.1.** *Pencil first.* For the neuron $y = \tanh(w x + b)$ at $x = -1.5$, $w = 0.6$, $b = 0.2$,
    compute $\partial y / \partial w$ and $\partial y / \partial b$ by hand (a calculator for $\tanh$ is fine), the
    way the table of section 2 does. Put them in `answer` as the list `[dy_dw, dy_db]` (three significant digits
    are enough).
    """),
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
    md(r"""
    **Exercise 2.2.** *Complete the tape.* Add division to `RULES`: `RULES["div"]` takes the values `a` and `b`
    and returns `(a / b, (d(a/b)/da, d(a/b)/db))`. Then `apply("div", p, q)` divides on the tape. (The solution
    also checks your rule on the tape against minitape.)
    """),
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
    md(r"""
    **Exercise 2.3.** *Complete the dual numbers.* Give `Dual` a division: in `DualWithDivision` below, write
    `__truediv__` so that `DualWithDivision(a, a_tangent) / DualWithDivision(b, b_tangent)` returns a new
    `DualWithDivision` with the quotient and its tangent. Expand $\frac{a + a'\varepsilon}{b + b'\varepsilon}$
    with $\varepsilon^2 = 0$ (multiply above and below by $b - b'\varepsilon$).
    """),
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
    md(r"""
    ## Summary

    - The chain rule multiplies local derivatives along each path from the output back to an input, and adds the
      paths where a value is used more than once.
    - Reverse mode records each op with its local derivatives on a list (a **tape**), then sweeps the list in
      reverse order, accumulating adjoints with `+=`: one sweep gives the gradient with respect to every input.
    - Forward mode pushes a tangent along with each value (dual numbers, $\varepsilon^2 = 0$): one pass gives the
      derivative along one input direction, so a full gradient takes one pass per input.
    - `GradientTape` is the same tape with tensors; `TapeView` draws its records and replays both passes.

    Next: [lesson 3](03_recording_and_watching.ipynb), what exactly a tape records and watches.
    """),
]

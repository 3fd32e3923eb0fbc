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
    """),
]

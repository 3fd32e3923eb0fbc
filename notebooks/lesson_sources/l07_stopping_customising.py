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
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md(r"""
    ## 1. `stop_gradient`: "treat this as a constant"

    `mt.stop_gradient(x)` returns the value of `x` unchanged, but the tape gives it no gradient: the path is cut.
    For $y = x \cdot \operatorname{stop}(x)$ at $x = 3$, the value is $9$ but the gradient is $3$, not $6$: only the
    first factor counts.
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
    left.plot(zs.numpy(), good.numpy(), label="softplus (stable)")
    left.set_title("softplus(z)")
    right.plot(zs.numpy(), good_grad, label="custom gradient: sigmoid(z)")
    right.plot(zs.numpy(), np.nan_to_num(naive_grad, nan=-0.1), ".", markersize=2, label="naive (NaN drawn at -0.1)")
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
    """),
]

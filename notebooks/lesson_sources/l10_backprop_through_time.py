"""Lesson 10: backpropagation through time (a recurrent network on a tape)."""

from nb import code, md, solution, volatile

NAME = "10_backpropagation_through_time.ipynb"
TITLE = "Backpropagation through time"

CELLS = [
    md(r"""
    # Lesson 10 · Backpropagation through time

    **Learning goals.** After this lesson you can
    - write a recurrent network (RNN) with plain minitape ops and get its gradients from one tape;
    - explain why the tape of an RNN grows with the length of the sequence, and why the gradient of a weight that
      every step shares is a **sum of one contribution per step**;
    - measure vanishing and exploding gradients, and trace both to a product of Jacobians
      $\operatorname{diag}(1 - h_t^2)\, U^\top$ and to the spectral radius of $U$;
    - use two remedies: clipping the gradient's global norm, and truncated backpropagation with `mt.stop_gradient`.

    An RNN reads a sequence $x_1, \dots, x_T$ one step at a time and carries a **state** $h_t$ from each step to
    the next, always with the same weights $W$, $U$, $b$:

    $$h_t = \tanh(x_t W + h_{t-1} U + b), \qquad t = 1, \dots, T, \qquad h_0 = 0.$$

    Here the loss looks at the last state only, $L = \lVert h_T - y \rVert^2$ for a target $y$. Differentiating it
    is *backpropagation through time* (BPTT): nothing new for a tape, which records the loop as it runs and walks the
    records backwards, but the shape of the loop has consequences.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check
    """),
    md(r"""
    ## 1. An RNN in a few lines

    Rows are examples (a batch of one here), so $x_t$ has shape `(1, n_in)`, $h_t$ has shape `(1, n_h)`,
    $W$ is `(n_in, n_h)` and $U$ is `(n_h, n_h)`. `run_rnn` opens a name scope per step: it changes nothing in
    the computation, but the visualizer will draw each step in a box of its own.
    """),
    code("""
    rng = np.random.default_rng(10)
    T, n_in, n_h = 12, 2, 3  # 12 steps, 2 input features, 3 hidden units
    xs = mt.constant(rng.normal(size=(T, 1, n_in)), dtype=mt.float32)  # x_1 ... x_T, each of shape (1, n_in)
    W = mt.Variable(rng.normal(0.0, 0.5, (n_in, n_h)), dtype=mt.float32, name="W")
    U = mt.Variable(rng.normal(0.0, 0.5, (n_h, n_h)), dtype=mt.float32, name="U")
    b = mt.Variable(mt.zeros(n_h), name="b")
    h0 = mt.zeros((1, n_h))  # the state before the first step
    target = mt.constant([[0.5, -0.5, 0.25]])


    def rnn_step(x_t, h, W, U, b):
        \"\"\"One step: the next state, from this step's input and the previous state.\"\"\"
        return mt.tanh(x_t @ W + h @ U + b)


    def run_rnn(xs, h0, W, U, b):
        \"\"\"The states h_1 ... h_T, every step with the same W, U and b.\"\"\"
        h, states = h0, []
        for t, x_t in enumerate(xs, start=1):
            with mt.name_scope(f"step_{t}"):
                h = rnn_step(x_t, h, W, U, b)
            states.append(h)
        return states


    def loss_fn(h_last):
        return mt.reduce_sum((h_last - target) ** 2)


    with mt.GradientTape() as tape:
        states = run_rnn(xs, h0, W, U, b)
        loss = loss_fn(states[-1])
    dW, dU, db = tape.gradient(loss, [W, U, b])
    print(f"loss = {float(loss):.4f}")
    print("dL/dU =")
    print(dU.numpy().round(4))
    """),
    md(r"""
    A Python `for` loop, and the tape differentiated through all of it: the tape does not know there was a loop.
    It saw the ops that ran, one after the other.

    ## 2. The tape of an unrolled RNN

    So the tape holds the loop **unrolled**: a network $T$ layers deep whose layers all share $W$, $U$ and $b$. Each
    step adds the same 8 records (3 reads of the variables, 2 `MatMul`, 2 `AddV2`, 1 `Tanh`), and the loss 3 more.
    The records, and the tensors they keep for the backward pass (lesson 4), grow with the length of the sequence:
    """),
    code("""
    for steps in [1, 2, 4, 8, 12]:
        with mt.GradientTape() as tape:
            loss = loss_fn(run_rnn(xs[:steps], h0, W, U, b)[-1])
        print(f"T = {steps:2d}: {tape.stats()}")
    print("one step's records:", [record.type for record in tape.records[:8]])
    """),
    md(r"""
    That is the memory cost of BPTT: to go back through $T$ steps, the tape keeps every step's states until the
    gradient is computed.

    Here are three steps drawn by the visualizer. **What to look at:**
    - one box per step (the name scopes), each with the same five ops: `MatMul` of $x_t$ and $W$, `MatMul` of
      $h_{t-1}$ and $U$, two `AddV2`, one `Tanh`; the state leaves one box and enters the next;
    - the variables $W$, $U$ and $b$ are **one node each, with one edge into every step**: the same variable, read
      three times. Step 1 multiplies $U$ by $h_0 = 0$: its `MatMul` gives zeros;
    - backwards (▶ past the forward steps): the gradient reaches $U$ three times, once per step, last from step 1.
      The visualizer adds the contributions as they arrive (marked partial, with "…", until the last one), as it
      did for a value used twice in lesson 3.
    """),
    volatile("""
    from minitape import widgets

    with mt.GradientTape(persistent=True) as tape:
        short = run_rnn(xs[:3], h0, W, U, b)
        short_loss = loss_fn(short[-1])

    view = widgets.TapeView(tape, short_loss, [W, U, b])
    assert sum(record.type == "ReadVariableOp" for record in tape.records) == 3 * 3  # W, U, b at each of 3 steps
    view
    """),
    md(r"""
    ## 3. One gradient, one contribution per step

    Give each step its own copy of $U$, `U_t = mt.identity(U)`: the same values, but a tensor of its own on the tape.
    The gradient with respect to `U_t` is what step $t$ alone contributes; $U$ itself gets their sum, because
    gradients add where a value fans out.
    """),
    code("""
    with mt.GradientTape(persistent=True) as tape:
        h, copies = h0, []
        for x_t in xs:
            U_t = mt.identity(U)  # this step's copy of U
            copies.append(U_t)
            h = rnn_step(x_t, h, W, U_t, b)
        loss = loss_fn(h)
    per_step = tape.gradient(loss, copies)
    total = tape.gradient(loss, U)
    del tape

    for t, contribution in enumerate(per_step, start=1):
        print(f"step {t:2d}: |contribution| = {float(mt.norm(contribution)):.2e}")
    np.testing.assert_allclose(sum(c.numpy() for c in per_step), total.numpy(), atol=1e-6)
    print("the 12 contributions add up to tape.gradient(loss, U)")
    """),
    md(r"""
    Two things stand out. Step 1 contributes exactly 0 (it multiplies $U$ by $h_0 = 0$). And the contributions
    shrink as we go back in time: the last steps dominate, and step 2's is some 20,000 times smaller than step 12's.
    Section 4 explains why.

    **The formula.** Write $a_t = x_t W + h_{t-1} U + b$, so $h_t = \tanh(a_t)$ and
    $\frac{\partial h_t}{\partial a_t} = 1 - h_t^2$ (element by element). The tape runs, from $t = T$ down to 1:

    $$\delta_t = \frac{\partial L}{\partial a_t} = \frac{\partial L}{\partial h_t} \odot (1 - h_t^2), \qquad
      \frac{\partial L}{\partial h_{t-1}} = \delta_t\, U^\top, \qquad
      \frac{\partial L}{\partial U} = \sum_{t=1}^{T} h_{t-1}^\top\, \delta_t .$$

    The middle equation is the one that carries the gradient back in time; the last one is the sum you just saw,
    one outer product $h_{t-1}^\top \delta_t$ (a `(3, 1)` column times a `(1, 3)` row) per step. You will compute
    it yourself in exercise 10.1.

    ## 4. Vanishing and exploding gradients

    Chain the middle equation from $T$ down to $t$:

    $$\frac{\partial L}{\partial h_t} = \frac{\partial L}{\partial h_T}
      \prod_{s = T}^{t+1} \operatorname{diag}(1 - h_s^2)\, U^\top .$$

    A product of $T - t$ matrices. Since $0 < 1 - h^2 \le 1$, each factor stretches a vector by at most
    $\lVert U \rVert$, so $\lVert \partial L / \partial h_t \rVert \le \lVert U \rVert^{T-t}\,
    \lVert \partial L / \partial h_T \rVert$: geometric in the distance $T - t$. Let us measure it, with 8 hidden
    units, 30 steps and $U = s\,Q$ for an orthogonal matrix $Q$ (a rotation: it turns vectors without stretching
    them, so every eigenvalue of $U$ has absolute value $s$). The loss is the sum of the last state's entries, so
    $\partial L / \partial h_T = (1, \dots, 1)$, of norm $\sqrt 8$.
    """),
    code("""
    rng = np.random.default_rng(4)
    n_long, T_long = 8, 30
    Q, _ = np.linalg.qr(rng.normal(size=(n_long, n_long)))  # orthogonal: every |eigenvalue| is 1
    W_long = mt.Variable(rng.normal(0.0, 0.5, (n_in, n_long)), dtype=mt.float32, name="W")
    b_long = mt.Variable(mt.zeros(n_long), name="b")
    xs_long = mt.constant(rng.normal(size=(T_long, 1, n_in)), dtype=mt.float32)


    def state_gradient_norms(U, xs):
        \"\"\"||dL/dh_t|| for t = 0 ... T, from h_0 = 0, for L = the sum of the last state's entries.\"\"\"
        h0 = mt.zeros((1, U.shape[0]))
        with mt.GradientTape() as tape:
            tape.watch(h0)
            states = run_rnn(xs, h0, W_long, U, b_long)
            loss = mt.reduce_sum(states[-1])
        return np.array([float(mt.norm(g)) for g in tape.gradient(loss, [h0, *states])])


    def largest_state(U, xs):
        return max(float(mt.reduce_max(mt.abs(h))) for h in run_rnn(xs, mt.zeros((1, n_long)), W_long, U, b_long))


    cases = {  # label: (s, how loud the inputs are)
        "s = 0.5, quiet inputs": (0.5, 1e-4),
        "s = 1.2, quiet inputs": (1.2, 1e-4),
        "s = 3,   usual inputs": (3.0, 1.0),
    }
    norms = {}
    for label, (s, loudness) in cases.items():
        U_s = mt.constant(s * Q, dtype=mt.float32)
        norms[label] = state_gradient_norms(U_s, xs_long * loudness)
        ratio = norms[label][0] / norms[label][-1]
        print(f"{label}: ||dL/dh_0|| / ||dL/dh_T|| = {ratio:.2e}  (s^30 = {s**30:.2e}),"
              f" largest |h_t| = {largest_state(U_s, xs_long * loudness):.2f}")
    """),
    volatile("""
    fig, ax = plt.subplots(figsize=(7, 3.8))
    steps = np.arange(T_long + 1)
    for (label, (s, loudness)), line in zip(cases.items(), ["o-", "s-", "^-"]):
        ax.semilogy(steps, norms[label], line, markersize=3, label=label)
        if loudness < 1:
            ax.semilogy(steps, np.sqrt(n_long) * s ** (T_long - steps), "k:", linewidth=1)
    ax.set_xlabel("step t")
    ax.set_ylabel("||dL/dh_t||")
    ax.set_title("the gradient reaching each step (dotted: sqrt(8) s^(T - t))")
    ax.legend(fontsize=8)
    plt.show()

    assert norms["s = 0.5, quiet inputs"][0] < 1e-8 < 100 < norms["s = 1.2, quiet inputs"][0]
    assert norms["s = 3,   usual inputs"][0] < 1e-2 * norms["s = 3,   usual inputs"][-1]
    """),
    md(r"""
    Three regimes, read from right (step 30, where the gradient starts) to left:
    - **$s = 0.5$ vanishes.** With quiet inputs the states stay near 0, where $1 - h^2 \approx 1$: each step back
      multiplies the gradient by $U^\top$, which shrinks it by $0.5$, and after 30 steps $0.5^{30} \approx 10^{-9}$.
      The first steps get no signal: the network cannot learn that its output depends on them.
    - **$s = 1.2$ explodes.** The same product, now $1.2^{30} \approx 240$. With $s = 2$ it would be $10^{9}$,
      and one gradient step would throw the weights far away.
    - **$s = 3$ with ordinary inputs vanishes too**, although $U$ is the largest. The states **saturate**
      ($|h| \approx 1$), so $1 - h^2 \approx 0$ and the diagonal factors kill the product.

    The rule, for a product of factors $\operatorname{diag}(1 - h_s^2)\, U^\top$:
    - while the states stay in the linear part of $\tanh$ ($1 - h^2 \approx 1$), the factor per step tends to the
      **spectral radius** $\rho(U)$, the largest absolute value of an eigenvalue of $U$: below 1 the gradient
      vanishes, above 1 it explodes;
    - saturated states make it vanish, even for a large $U$ (as for $s = 3$); and $\lVert U \rVert < 1$ (the
      largest singular value) makes it vanish always, by the bound above. So $\rho(U) > 1$ alone does not make it
      explode: the states must also stay small.

    For $U = s\,Q$, $\rho(U) = \lVert U \rVert = s$. Vanishing is the usual problem of plain RNNs, and the reason
    LSTMs and GRUs were invented. (With a loss on every step, $L = \sum_t L_t$, each $L_t$ sends its own gradient
    back; the sum is then dominated by the short-range terms, with the same effect.)

    ## 5. Remedy for exploding: clip the global norm

    `mt.clip_by_global_norm(gradients, clip_norm)` treats the list of gradients as one long vector: if its norm is
    above `clip_norm`, it scales every gradient by the same factor, so the direction is kept and only the length is
    capped. Here is the exploding network, now with $U$ a variable:
    """),
    code("""
    U_explode = mt.Variable(1.2 * Q, dtype=mt.float32, name="U")
    with mt.GradientTape() as tape:
        loss = mt.reduce_sum(run_rnn(xs_long * 1e-4, mt.zeros((1, n_long)), W_long, U_explode, b_long)[-1])
    gradients = tape.gradient(loss, [W_long, U_explode, b_long])
    clipped, norm_before = mt.clip_by_global_norm(gradients, clip_norm=1.0)

    flat = np.concatenate([g.numpy().ravel() for g in gradients])
    flat_clipped = np.concatenate([g.numpy().ravel() for g in clipped])
    cosine = flat @ flat_clipped / (np.linalg.norm(flat) * np.linalg.norm(flat_clipped))
    print(f"global norm before: {float(norm_before):.1f}, after: {float(mt.linalg.global_norm(clipped)):.4f}")
    print(f"cosine between the two directions: {cosine:.4f}")
    """),
    md(r"""
    Clipping does not touch the tape: it rescales what `tape.gradient` returned, before the optimizer uses it
    (lesson 8 did it with `mt.clip_by_norm`, one gradient at a time; lesson 7's `custom_gradient` clipped inside the
    backward pass, element by element, which changes the direction). It tames explosions; for vanishing gradients
    there is nothing to clip.

    ## 6. Remedy for long sequences: truncated BPTT

    Instead of going back through all $T$ steps, stop after $k$: pass a state on to the next step **as a constant**,
    `h = mt.stop_gradient(h)` (lesson 7). The forward pass is unchanged (same values, same loss), but the gradient
    cannot cross the cut. To see which steps still contribute, watch the inputs and ask for
    $\partial L / \partial x_t$: a step behind the cut gets exactly 0. Cut once, after step 8:
    """),
    code("""
    def input_gradients(cut_after=None):
        \"\"\"||dL/dx_t|| for t = 1 ... T, the number of records, and dL/dU; h_cut_after goes on as a constant.\"\"\"
        with mt.GradientTape() as tape:
            tape.watch(xs)
            h = h0
            for t, x_t in enumerate(xs, start=1):
                h = rnn_step(x_t, h, W, U, b)
                if t == cut_after:
                    h = mt.stop_gradient(h)
            loss = loss_fn(h)
        records = len(tape.records)
        dx, dU = tape.gradient(loss, [xs, U])
        return np.linalg.norm(dx.numpy().reshape(T, -1), axis=1), records, dU


    for cut in [None, 8]:
        dx_norms, records, dU_cut = input_gradients(cut)
        contributing = [t for t, norm in enumerate(dx_norms, start=1) if norm > 0]
        label = "no cut:          " if cut is None else f"cut after step {cut}:"
        print(f"{label} {records} records, steps that contribute: {contributing}")

    np.testing.assert_allclose(dU_cut.numpy(), sum(c.numpy() for c in per_step[8:]), atol=1e-6)
    print("with the cut, dL/dU is the sum of the last 4 contributions of section 3")
    """),
    md(r"""
    The tape still records every op, plus one `StopGradient`: nothing is skipped going forwards. Backwards, only
    steps 9 to 12 contribute, and the gradient of $U$ is exactly the sum of their 4 contributions from section 3.
    What the cut removed are the smallest contributions, the ones that would vanish anyway (or explode).

    On a short sequence, in the visualizer: 4 steps, cut after step 2. The edge into `StopGradient` is dashed
    (hover it for the reason), and steps 1 and 2 get `None`, not 0: no path leads back to them.
    """),
    volatile("""
    with mt.GradientTape(persistent=True) as tape:
        h = h0
        for t in range(1, 5):
            with mt.name_scope(f"step_{t}"):
                h = rnn_step(xs[t - 1], h, W, U, b)
            if t == 2:
                h = mt.stop_gradient(h)
        cut_loss = loss_fn(h)

    view = widgets.TapeView(tape, cut_loss, [W, U, b])
    assert [record.type for record in tape.records].count("StopGradient") == 1
    view
    """),
    md(r"""
    In practice truncated BPTT splits a long sequence into chunks of $k$ steps and trains on one chunk at a time:
    each chunk gets a tape of its own, and its last state starts the next chunk as a constant. The gradients are the
    ones above, and the tape never holds more than $k$ steps: memory stays bounded, whatever the length of the
    sequence. The price: the network cannot learn dependencies longer than $k$ steps through the gradient.

    ## Exercises

    **Exercise 10.1.** *BPTT by hand.* For the RNN of section 1 (`xs`, `W`, `U`, `b`, `h0`, `loss_fn`), compute the
    12 per-step contributions $h_{t-1}^\top \delta_t$ with $\delta_t = \frac{\partial L}{\partial h_t} \odot
    (1 - h_t^2)$, from a persistent tape: `tape.gradient(loss, states)` gives every $\partial L / \partial h_t$ at
    once. Put them in a list `contributions`, step 1 first, and check that they add up to
    `tape.gradient(loss, U)`.
    """),
    code("""
    contributions = ...  # your code here: a list of 12 matrices of shape (3, 3), step 1 first

    check("10.1", contributions)
    """),
    solution("""
    with mt.GradientTape(persistent=True) as tape:
        states = run_rnn(xs, h0, W, U, b)
        loss = loss_fn(states[-1])
    dL_dh = tape.gradient(loss, states)  # dL/dh_t for t = 1 ... T
    previous = [h0, *states[:-1]]  # h_{t-1} for t = 1 ... T
    contributions = [mt.transpose(h_prev) @ (g * (1 - h * h)) for h_prev, h, g in zip(previous, states, dL_dh)]
    np.testing.assert_allclose(sum(c.numpy() for c in contributions), tape.gradient(loss, U).numpy(), atol=1e-6)
    del tape

    check("10.1", contributions)
    """),
    md(r"""
    **Exercise 10.2.** *Truncated BPTT.* Write `truncated_rnn(xs, h0, W, U, b, k)`: like `run_rnn`, but the states
    $h_k, h_{2k}, \dots$ go on to the next step as constants (`mt.stop_gradient`), and it returns only the last
    state $h_T$. With $T = 12$ and $k = 4$, only steps 9 to 12 should contribute to the gradient; with $k = 5$,
    steps 11 and 12. `check` runs your function on a network of its own, for several $k$.
    """),
    code("""
    def truncated_rnn(xs, h0, W, U, b, k):
        ...  # your code here: return the last state h_T


    check("10.2", truncated_rnn)
    """),
    solution("""
    def truncated_rnn(xs, h0, W, U, b, k):
        h = h0
        for t, x_t in enumerate(xs, start=1):
            h = rnn_step(x_t, h, W, U, b)
            if t % k == 0 and t < len(xs):  # h_k, h_2k, ... go on as constants; h_T is the output
                h = mt.stop_gradient(h)
        return h


    check("10.2", truncated_rnn)
    """),
    md(r"""
    **Exercise 10.3.** *Predict, then measure.* Every entry of `U_test` below is $0.15$, far below 1. First
    predict: does the gradient vanish or explode through 30 steps? Then compute `radius`, the spectral radius of
    `U_test` (the largest $|\lambda|$ among its eigenvalues, with `np.linalg.eigvals`), and measure
    `ratio` $= \lVert \partial L / \partial h_0 \rVert \,/\, \lVert \partial L / \partial h_T \rVert$ with
    `state_gradient_norms` from section 4, run from rest on 30 zero inputs, `mt.zeros((30, 1, n_in))`. There every
    state stays exactly 0, so every Jacobian is exactly $U^\top$.
    """),
    code("""
    U_test = mt.constant(np.full((8, 8), 0.15), dtype=mt.float32)
    radius = ...  # your code here: one number
    ratio = ...  # your code here: ||dL/dh_0|| / ||dL/dh_T||

    check("10.3", (radius, ratio))
    """),
    solution("""
    radius = np.max(np.abs(np.linalg.eigvals(U_test.numpy())))
    norms_test = state_gradient_norms(U_test, mt.zeros((30, 1, n_in)))
    ratio = norms_test[0] / norms_test[-1]
    print(f"radius = {radius:.4f}: predicted ratio radius**30 = {radius**30:.1f}, measured {ratio:.1f}")

    check("10.3", (radius, ratio))
    """),
    md(r"""
    ## Summary

    - A tape records an RNN's loop unrolled: the records and the memory they keep grow with the sequence length,
      and the same variables are read at every step.
    - Where a variable is shared, the gradients add up: $\partial L / \partial U = \sum_t h_{t-1}^\top \delta_t$,
      one contribution per step.
    - Backwards, each step multiplies the gradient by $\operatorname{diag}(1 - h_t^2)\, U^\top$. While the states
      stay small, the factor per step tends to the spectral radius $\rho(U)$: the gradient vanishes when
      $\rho(U) < 1$ and explodes when $\rho(U) > 1$. Saturated states make it vanish, even for a large $U$.
    - `mt.clip_by_global_norm` caps an exploding gradient's length and keeps its direction.
    - Truncated BPTT passes a state on through `mt.stop_gradient` every $k$ steps: the values are unchanged, the tape
      records every op, but only the last $k$ steps before the loss contribute.

    Next: [lesson 11](11_graphs_and_tf_function.ipynb), graphs and `tf.function`: trace a training step once,
    replay it fast.
    """),
]

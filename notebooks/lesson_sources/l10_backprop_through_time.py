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
    """, ko=r"""
    # 10강 · 시간에 따른 역전파

    **학습 목표.** 이 강의를 마치면
    - 순환 신경망(RNN)을 minitape 연산만으로 작성하고, 테이프 하나에서 그 그래디언트를 얻을 수 있습니다.
    - RNN의 테이프가 왜 시퀀스 길이에 따라 커지는지, 모든 스텝이 공유하는 가중치의 그래디언트가 왜 **스텝마다
      기여분 하나씩의 합**인지 설명할 수 있습니다.
    - 그래디언트 소실과 폭주를 재고, 둘 다 야코비안의 곱 $\operatorname{diag}(1 - h_t^2)\, U^\top$과 $U$의
      스펙트럼 반지름으로 거슬러 올라가 설명할 수 있습니다.
    - 두 가지 처방, 곧 그래디언트의 전체 노름 클리핑과 `mt.stop_gradient`를 쓰는 잘린 역전파를 쓸 수 있습니다.

    RNN은 시퀀스 $x_1, \dots, x_T$를 한 스텝씩 읽고, 언제나 같은 가중치 $W$, $U$, $b$로 스텝에서 다음 스텝으로
    **상태** $h_t$를 넘깁니다.

    $$h_t = \tanh(x_t W + h_{t-1} U + b), \qquad t = 1, \dots, T, \qquad h_0 = 0.$$

    여기서 손실은 마지막 상태만 봅니다. 타깃 $y$에 대해 $L = \lVert h_T - y \rVert^2$입니다. 이것을 미분하는 것이
    *시간에 따른 역전파*(BPTT)입니다. 실행되는 대로 루프를 기록하고 그 기록을 거꾸로 따라가는 테이프에게는 새로울
    것이 없지만, 루프의 모양에는 결과가 따릅니다.
    """),
    code("""
    import matplotlib.pyplot as plt
    import numpy as np

    import minitape as mt
    from lesson_tools import check, say  # say(english, korean): the words of a plot, in the lesson's language
    """),
    md(r"""
    ## 1. An RNN in a few lines

    Rows are examples (a batch of one here), so $x_t$ has shape `(1, n_in)`, $h_t$ has shape `(1, n_h)`,
    $W$ is `(n_in, n_h)` and $U$ is `(n_h, n_h)`. `run_rnn` opens a name scope per step: it changes nothing in
    the computation, but the visualizer will draw each step in a box of its own.
    """, ko=r"""
    ## 1. 몇 줄로 쓰는 RNN

    행은 예제입니다(여기서는 배치 크기 1). 그래서 $x_t$의 shape은 `(1, n_in)`, $h_t$는 `(1, n_h)`, $W$는
    `(n_in, n_h)`, $U$는 `(n_h, n_h)`입니다. `run_rnn`은 스텝마다 이름 범위(name scope)를 엽니다. 계산은 하나도
    바뀌지 않지만, 시각화 도구가 스텝마다 상자 하나씩 그려 줍니다.
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
    """, ko=r"""
    Python `for` 루프인데도 테이프는 그 전체를 거쳐 미분했습니다. 테이프는 루프가 있었다는 것을 모릅니다. 실행된
    연산을 차례로 보았을 뿐입니다.

    ## 2. 펼쳐진 RNN의 테이프

    그래서 테이프에는 루프가 **펼쳐진** 채로 들어 있습니다. 모든 층이 $W$, $U$, $b$를 공유하는 깊이 $T$의
    신경망입니다. 스텝마다 같은 기록 8개(변수 읽기 3번, `MatMul` 2개, `AddV2` 2개, `Tanh` 1개)가 더해지고, 손실이
    3개를 더합니다. 기록과, 그 기록이 역전파를 위해 보관하는 텐서(4강)는 시퀀스 길이에 따라 늘어납니다.
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
    """, ko=r"""
    이것이 BPTT의 메모리 비용입니다. $T$ 스텝을 거슬러 가려면 테이프가 그래디언트를 계산할 때까지 모든 스텝의
    상태를 보관합니다.

    시각화 도구로 그린 세 스텝입니다. **무엇을 볼까:**
    - 스텝마다 상자 하나(이름 범위)가 있고, 저마다 같은 연산 다섯 개가 있습니다. $x_t$와 $W$의 `MatMul`,
      $h_{t-1}$과 $U$의 `MatMul`, `AddV2` 두 개, `Tanh` 하나입니다. 상태는 한 상자를 나와 다음 상자로 들어갑니다.
    - 변수 $W$, $U$, $b$는 **저마다 노드 하나이고, 모든 스텝으로 간선이 하나씩** 갑니다. 같은 변수를 세 번 읽은
      것입니다. 스텝 1은 $U$에 $h_0 = 0$을 곱하므로 그 `MatMul`은 0을 줍니다.
    - 거꾸로(순전파 단계를 지나 ▶): 그래디언트는 $U$에 스텝마다 한 번씩, 세 번 도착하고 스텝 1에서 오는 것이
      마지막입니다. 시각화 도구는 기여분이 도착하는 대로 더합니다(마지막 것이 올 때까지 "…"와 함께 부분합으로
      표시). 3강에서 두 번 쓰인 값에 대해 했던 것과 같습니다.
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
    """, ko=r"""
    ## 3. 그래디언트 하나, 스텝마다 기여분 하나

    스텝마다 $U$의 사본 `U_t = mt.identity(U)`를 주어 봅시다. 값은 같지만 테이프 위에서는 별개의 텐서입니다.
    `U_t`에 대한 그래디언트는 스텝 $t$ 혼자의 기여분이고, $U$ 자체는 그 합을 받습니다. 값이 갈라지는 곳에서는
    그래디언트가 더해지기 때문입니다.
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
    """, ko=r"""
    두 가지가 눈에 띕니다. 스텝 1의 기여분은 정확히 0입니다($U$에 $h_0 = 0$을 곱합니다). 그리고 시간을 거슬러
    갈수록 기여분이 줄어듭니다. 마지막 스텝들이 대부분을 차지하고, 스텝 2의 기여분은 스텝 12의 것보다 2만 배쯤
    작습니다. 4절에서 그 이유를 설명합니다.

    **식.** $a_t = x_t W + h_{t-1} U + b$라 쓰면 $h_t = \tanh(a_t)$이고
    $\frac{\partial h_t}{\partial a_t} = 1 - h_t^2$(원소별)입니다. 테이프는 $t = T$에서 1까지 다음을 실행합니다.

    $$\delta_t = \frac{\partial L}{\partial a_t} = \frac{\partial L}{\partial h_t} \odot (1 - h_t^2), \qquad
      \frac{\partial L}{\partial h_{t-1}} = \delta_t\, U^\top, \qquad
      \frac{\partial L}{\partial U} = \sum_{t=1}^{T} h_{t-1}^\top\, \delta_t .$$

    가운데 식이 그래디언트를 시간을 거슬러 나르는 식이고, 마지막 식은 방금 본 합입니다. 스텝마다 외적
    $h_{t-1}^\top \delta_t$(`(3, 1)` 열 곱하기 `(1, 3)` 행) 하나씩입니다. 연습 문제 10.1에서 직접 계산해 봅니다.

    ## 4. 그래디언트 소실과 폭주

    가운데 식을 $T$에서 $t$까지 이어 붙이면

    $$\frac{\partial L}{\partial h_t} = \frac{\partial L}{\partial h_T}
      \prod_{s = T}^{t+1} \operatorname{diag}(1 - h_s^2)\, U^\top$$

    입니다. 행렬 $T - t$개의 곱입니다. $0 < 1 - h^2 \le 1$이므로 인수마다 벡터를 많아야 $\lVert U \rVert$배
    늘이고, 따라서 $\lVert \partial L / \partial h_t \rVert \le \lVert U \rVert^{T-t}\,
    \lVert \partial L / \partial h_T \rVert$, 곧 거리 $T - t$에 대해 기하급수적입니다. 은닉 유닛 8개, 스텝 30개,
    직교 행렬 $Q$에 대해 $U = s\,Q$로 재어 봅시다($Q$는 회전이어서 벡터를 늘이지 않고 돌리기만 하므로, $U$의
    고윳값은 모두 절댓값이 $s$입니다). 손실은 마지막 상태의 원소 합이므로
    $\partial L / \partial h_T = (1, \dots, 1)$이고 노름은 $\sqrt 8$입니다.
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
    ax.set_xlabel(say("step t", "스텝 t"))
    ax.set_ylabel("||dL/dh_t||")
    ax.set_title(say("the gradient reaching each step (dotted: sqrt(8) s^(T - t))", "스텝마다 도착하는 그래디언트 (점선: sqrt(8) s^(T - t))"))
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
    """, ko=r"""
    세 가지 양상을 오른쪽(그래디언트가 출발하는 스텝 30)에서 왼쪽으로 읽어 봅시다.
    - **$s = 0.5$는 소실됩니다.** 입력이 잔잔하면 상태가 0 근처에 머물고 거기서 $1 - h^2 \approx 1$입니다. 한
      스텝 거슬러 갈 때마다 그래디언트에 $U^\top$을 곱해 $0.5$배로 줄고, 30스텝 뒤에는
      $0.5^{30} \approx 10^{-9}$입니다. 처음 스텝들은 신호를 받지 못해서, 신경망은 출력이 그 스텝들에 의존한다는
      것을 배울 수 없습니다.
    - **$s = 1.2$는 폭주합니다.** 같은 곱이 이번에는 $1.2^{30} \approx 240$입니다. $s = 2$라면 $10^{9}$이 되어
      그래디언트 한 스텝에 가중치가 멀리 날아갈 것입니다.
    - **평범한 입력에서 $s = 3$도 소실됩니다.** $U$가 가장 큰데도 그렇습니다. 상태가 **포화되어**($|h| \approx 1$)
      $1 - h^2 \approx 0$이 되고, 대각 인수들이 곱을 죽입니다.

    $\operatorname{diag}(1 - h_s^2)\, U^\top$ 인수들의 곱에 대한 규칙은 이렇습니다.
    - 상태가 $\tanh$의 선형 부분에 머무는 동안($1 - h^2 \approx 1$) 스텝마다의 인수는 **스펙트럼 반지름**
      $\rho(U)$, 곧 $U$의 고윳값 절댓값 중 가장 큰 것에 가까워집니다. 1보다 작으면 그래디언트가 소실되고, 1보다
      크면 폭주합니다.
    - 포화된 상태는 $U$가 커도 소실시킵니다($s = 3$처럼). 그리고 $\lVert U \rVert < 1$(가장 큰 특잇값)이면 위의
      부등식에 따라 언제나 소실됩니다. 그러니 $\rho(U) > 1$만으로는 폭주하지 않습니다. 상태도 작게 머물러야
      합니다.

    $U = s\,Q$이면 $\rho(U) = \lVert U \rVert = s$입니다. 소실은 평범한 RNN의 흔한 문제이고, LSTM과 GRU가 만들어진
    이유입니다. (스텝마다 손실이 있는 $L = \sum_t L_t$라면 $L_t$마다 자기 그래디언트를 거꾸로 보냅니다. 그러면 합은
    가까운 거리의 항들이 지배하고, 효과는 같습니다.)

    ## 5. 폭주의 처방: 전체 노름 클리핑

    `mt.clip_by_global_norm(gradients, clip_norm)`은 그래디언트의 리스트를 긴 벡터 하나로 보고, 그 노름이
    `clip_norm`보다 크면 모든 그래디언트를 같은 비율로 줄입니다. 방향은 그대로이고 길이만 제한됩니다. 이번에는
    $U$를 변수로 둔, 폭주하는 신경망입니다.
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
    """, ko=r"""
    클리핑은 테이프를 건드리지 않습니다. 옵티마이저가 쓰기 전에 `tape.gradient`가 돌려준 것의 크기를 바꿀
    뿐입니다(8강은 `mt.clip_by_norm`으로 그래디언트를 하나씩 잘랐고, 7강의 `custom_gradient`는 역전파 안에서 원소별로
    잘라 방향이 바뀌었습니다). 폭주는 길들이지만, 소실된 그래디언트에는 자를 것이 없습니다.

    ## 6. 긴 시퀀스의 처방: 잘린 BPTT

    $T$ 스텝 전체를 거슬러 가지 않고 $k$ 스텝 뒤에 멈춥니다. 상태를 다음 스텝에 **상수로** 넘기는 것입니다:
    `h = mt.stop_gradient(h)`(7강). 순전파는 그대로이지만(값도 손실도 같습니다), 그래디언트는 끊긴 곳을 건너지
    못합니다. 어느 스텝이 아직 기여하는지 보려면 입력을 감시하고 $\partial L / \partial x_t$를 요청하세요. 끊긴 곳
    너머의 스텝은 정확히 0을 받습니다. 스텝 8 뒤에서 한 번 끊어 봅시다.
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
    """, ko=r"""
    테이프는 여전히 모든 연산을 기록하고, `StopGradient` 하나가 더해집니다. 순전파에서 건너뛰는 것은 없습니다.
    거꾸로는 스텝 9부터 12만 기여하고, $U$의 그래디언트는 정확히 3절에서 본 그 4개 기여분의 합입니다. 끊어서 없앤
    것은 가장 작은 기여분, 어차피 소실될(또는 폭주할) 것들입니다.

    짧은 시퀀스를 시각화 도구로 봅시다. 스텝 4개, 스텝 2 뒤에서 끊습니다. `StopGradient`로 들어가는 간선은
    점선이고(마우스를 올리면 이유가 나옵니다), 스텝 1과 2는 0이 아니라 `None`을 받습니다. 그곳으로 되돌아가는 경로가
    없기 때문입니다.
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
    """, ko=r"""
    실제로 잘린 BPTT는 긴 시퀀스를 $k$ 스텝짜리 조각으로 나누어 한 번에 한 조각씩 훈련합니다. 조각마다 자기
    테이프를 갖고, 그 마지막 상태가 다음 조각을 상수로 시작합니다. 그래디언트는 위와 같고, 테이프는 $k$ 스텝보다
    많이 보관하지 않습니다. 시퀀스가 얼마나 길든 메모리가 제한됩니다. 대가는 신경망이 그래디언트를 통해 $k$
    스텝보다 긴 의존 관계를 배울 수 없다는 것입니다.

    ## 연습 문제

    **연습 문제 10.1.** *손으로 하는 BPTT.* 1절의 RNN(`xs`, `W`, `U`, `b`, `h0`, `loss_fn`)에 대해 스텝마다의 기여분
    $h_{t-1}^\top \delta_t$ 12개를 $\delta_t = \frac{\partial L}{\partial h_t} \odot (1 - h_t^2)$로 계산하세요.
    영구 테이프를 쓰면 `tape.gradient(loss, states)`가 모든 $\partial L / \partial h_t$를 한꺼번에 줍니다. 스텝
    1부터 차례로 리스트 `contributions`에 넣고, 그 합이 `tape.gradient(loss, U)`와 같은지 확인하세요.
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
    """, ko=r"""
    **연습 문제 10.2.** *잘린 BPTT.* `truncated_rnn(xs, h0, W, U, b, k)`를 작성하세요. `run_rnn`과 같지만 상태
    $h_k, h_{2k}, \dots$는 다음 스텝에 상수로 넘어가고(`mt.stop_gradient`), 마지막 상태 $h_T$만 돌려줍니다.
    $T = 12$, $k = 4$이면 스텝 9부터 12만, $k = 5$이면 스텝 11과 12만 그래디언트에 기여해야 합니다. `check`는
    여러분의 함수를 자기 신경망에서 여러 $k$로 실행합니다.
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
    """, ko=r"""
    **연습 문제 10.3.** *예측하고, 재어 보기.* 아래 `U_test`의 원소는 모두 $0.15$로, 1보다 한참 작습니다. 먼저
    예측하세요. 30스텝을 거치는 동안 그래디언트는 소실될까요, 폭주할까요? 그다음 `U_test`의 스펙트럼 반지름
    `radius`(고윳값 가운데 가장 큰 $|\lambda|$, `np.linalg.eigvals`로)를 계산하고, 4절의 `state_gradient_norms`로
    `ratio` $= \lVert \partial L / \partial h_0 \rVert \,/\, \lVert \partial L / \partial h_T \rVert$를 재세요.
    정지 상태에서 0인 입력 30개, `mt.zeros((30, 1, n_in))`로 실행합니다. 그러면 모든 상태가 정확히 0에 머물러
    모든 야코비안이 정확히 $U^\top$입니다.
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
    """, ko=r"""
    ## 정리

    - 테이프는 RNN의 루프를 펼쳐서 기록합니다. 기록과 그것이 보관하는 메모리는 시퀀스 길이에 따라 늘고, 같은
      변수를 스텝마다 읽습니다.
    - 변수를 공유하는 곳에서는 그래디언트가 더해집니다: $\partial L / \partial U = \sum_t h_{t-1}^\top \delta_t$,
      스텝마다 기여분 하나씩입니다.
    - 거꾸로 가며 스텝마다 그래디언트에 $\operatorname{diag}(1 - h_t^2)\, U^\top$을 곱합니다. 상태가 작게 머무는
      동안 스텝마다의 인수는 스펙트럼 반지름 $\rho(U)$에 가까워져서, $\rho(U) < 1$이면 그래디언트가 소실되고
      $\rho(U) > 1$이면 폭주합니다. 포화된 상태는 $U$가 커도 소실시킵니다.
    - `mt.clip_by_global_norm`은 폭주하는 그래디언트의 길이를 제한하고 방향은 유지합니다.
    - 잘린 BPTT는 $k$ 스텝마다 `mt.stop_gradient`를 거쳐 상태를 넘깁니다. 값은 그대로이고 테이프는 모든 연산을
      기록하지만, 손실 직전의 마지막 $k$ 스텝만 기여합니다.

    다음: [11강](11_graphs_and_tf_function.ipynb), 그래프와 `tf.function`: 훈련 스텝을 한 번 트레이싱하고 빠르게
    재실행합니다.
    """),
]

"""Checkers for lesson 10: backpropagation through time."""

from __future__ import annotations

import numpy as np

import minitape as mt
from lesson_tools.checking import (
    NEAR,
    NotYet,
    as_array,
    as_number,
    call,
    describe,
    exercise,
    expect_function,
    items,
    not_written,
    refuse_text,
)
from lesson_tools.language import say

T, N_IN, N_H = 12, 2, 3  # the lesson's RNN (section 1): 12 steps, 2 input features, 3 hidden units
TOLERANCE = 1e-5  # float32 through 12 steps, against float64: off by far less than this (relative)


def lesson_rnn() -> dict[str, np.ndarray]:
    """The RNN of the lesson's section 1: the same seed and the same draws, in the same order, as float32."""
    rng = np.random.default_rng(10)
    xs = rng.normal(size=(T, 1, N_IN)).astype(np.float32)
    w = rng.normal(0.0, 0.5, (N_IN, N_H)).astype(np.float32)
    u = rng.normal(0.0, 0.5, (N_H, N_H)).astype(np.float32)
    target = np.array([[0.5, -0.5, 0.25]], dtype=np.float32)
    return {"xs": xs, "W": w, "U": u, "b": np.zeros(N_H, np.float32), "target": target}


def backprop(p: dict[str, np.ndarray]) -> tuple[list, list, list]:
    """BPTT in float64 numpy for L = ||h_T - target||²: the states h_0..h_T, dL/dh_0..dL/dh_T, and δ_1..δ_T."""
    xs, w, u, b, target = (p[k].astype(np.float64) for k in ("xs", "W", "U", "b", "target"))
    hs = [np.zeros((1, N_H))]
    for x in xs:
        hs.append(np.tanh(x @ w + hs[-1] @ u + b))
    dh: list = [None] * (T + 1)
    delta: list = [None] * (T + 1)
    dh[T] = 2 * (hs[T] - target)
    for t in range(T, 0, -1):
        delta[t] = dh[t] * (1 - hs[t] ** 2)
        dh[t - 1] = delta[t] @ u.T
    return hs, dh, delta


def _contribution_variants() -> tuple[np.ndarray, list[tuple[np.ndarray, str]]]:
    """The right contributions, and the typical slips with what each one forgot."""
    hs, dh, delta = backprop(lesson_rnn())
    steps = range(1, T + 1)
    right = np.stack([hs[t - 1].T @ delta[t] for t in steps])
    slips = [
        (
            right[::-1],
            say(
                "your contributions are in reverse order: contributions[0] should be step 1's (the zero matrix, since "
                "h_0 = 0), and contributions[-1] step 12's.",
                "기여분의 순서가 거꾸로입니다. contributions[0]은 스텝 1의 것(h_0 = 0이므로 영행렬)이고, contributions[-1]은 스텝 12의 것이어야 합니다.",
            ),
        ),
        (
            np.stack([hs[t - 1].T @ dh[t] for t in steps]),
            say(
                "each of your contributions is h_{t-1}ᵀ (dL/dh_t): the tanh's derivative is missing. U acts inside "
                "tanh(a_t), so the gradient must first cross the tanh: δ_t = dL/dh_t * (1 - h_t²).",
                "기여분마다 h_{t-1}ᵀ (dL/dh_t)입니다. tanh의 도함수가 빠졌습니다. U는 tanh(a_t) 안에서 작용하므로 그래디언트가 먼저 tanh를 건너야 합니다: δ_t = dL/dh_t * (1 - h_t²).",
            ),
        ),
        (
            np.stack([hs[t - 1].T @ (dh[t] * (1 - np.tanh(hs[t]) ** 2)) for t in steps]),
            say(
                "you used 1 - tanh(h_t)²: h_t is already tanh(a_t), so the derivative is 1 - h_t², with h_t itself.",
                "1 - tanh(h_t)²를 썼습니다. h_t가 이미 tanh(a_t)이므로 도함수는 h_t 자체로 쓴 1 - h_t²입니다.",
            ),
        ),
        (
            np.stack([hs[t - 1].T @ (dh[t] * (1 - hs[t - 1] ** 2)) for t in steps]),
            say(
                "you multiplied by 1 - h_{t-1}²: the tanh of step t produced h_t, so its derivative is 1 - h_t².",
                "1 - h_{t-1}²를 곱했습니다. 스텝 t의 tanh가 만든 것은 h_t이므로 그 도함수는 1 - h_t²입니다.",
            ),
        ),
        (
            np.stack([hs[t].T @ delta[t] for t in steps]),
            say(
                "your contributions use h_t; step t multiplies U by the state it received, the previous one: "
                "h_{t-1}ᵀ δ_t (for step 1, h_0).",
                "기여분에 h_t를 썼습니다. 스텝 t는 U에 자기가 받은 상태, 곧 이전 상태를 곱합니다: h_{t-1}ᵀ δ_t(스텝 1이면 h_0).",
            ),
        ),
        (
            np.stack([delta[t].T @ hs[t - 1] for t in steps]),
            say(
                "your contributions are transposed: δ_tᵀ h_{t-1}. U's row i meets h_{t-1}'s entry i, so the column is "
                "h_{t-1}ᵀ, on the left: mt.transpose(h_prev) @ delta.",
                "기여분이 전치되어 있습니다: δ_tᵀ h_{t-1}. U의 행 i는 h_{t-1}의 원소 i와 만나므로 열은 왼쪽의 h_{t-1}ᵀ입니다: mt.transpose(h_prev) @ delta.",
            ),
        ),
        (
            np.stack([hs[t - 1].T @ (dh[T] * (1 - hs[t] ** 2)) for t in steps]),
            say(
                "you used dL/dh_T at every step. Each step needs the gradient of its own state, dL/dh_t: "
                "tape.gradient(loss, states) gives all of them.",
                "모든 스텝에서 dL/dh_T를 썼습니다. 스텝마다 자기 상태의 그래디언트 dL/dh_t가 필요합니다. tape.gradient(loss, states)가 그 모두를 줍니다.",
            ),
        ),
    ]
    return right, slips


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and float(np.max(np.abs(got - want))) <= TOLERANCE * max(np.abs(want).max(), 1e-3)


@exercise(
    "10.1",
    "record states and loss on a persistent tape; tape.gradient(loss, states) gives every dL/dh_t. Step t's "
    "contribution is the column h_{t-1}ᵀ (mt.transpose) @ the row dL/dh_t * (1 - h_t²); for step 1, h_0 is h0.",
    ko="영구 테이프에 states와 loss를 기록하면 tape.gradient(loss, states)가 모든 dL/dh_t를 줍니다. 스텝 t의 기여분은 "
    "열 h_{t-1}ᵀ(mt.transpose) @ 행 dL/dh_t * (1 - h_t²)이고, 스텝 1의 h_0은 h0입니다.",
)
def contributions(answer: object, evidence: object) -> str:
    if answer is Ellipsis:
        raise not_written("contributions")
    if answer is None:
        raise NotYet(
            say(
                "contributions is None: put the list of your 12 matrices in it.",
                "contributions가 None입니다. 여러분의 행렬 12개를 담은 리스트를 넣으세요.",
            )
        )
    if isinstance(answer, str):
        raise refuse_text(answer, "contributions")
    right, slips = _contribution_variants()
    total = right.sum(axis=0)
    if hasattr(answer, "numpy") or isinstance(answer, np.ndarray):
        array = as_array(answer, "contributions")
        if array.shape == (N_H, N_H):
            if _close(array, total):
                raise NotYet(
                    say(
                        "that is the whole gradient dL/dU, one matrix: the sum the tape computed. The exercise asks for "
                        "its 12 parts, a list with one contribution per step.",
                        "그것은 행렬 하나인 그래디언트 dL/dU 전체, 곧 테이프가 계산한 합입니다. 이 연습 문제는 그 12개의 부분, 스텝마다 기여분 하나씩인 리스트를 묻습니다.",
                    )
                )
            raise NotYet(
                say(
                    "contributions is one (3, 3) matrix; the exercise asks for a list of 12, one per step.",
                    "contributions가 (3, 3) 행렬 하나입니다. 이 연습 문제는 스텝마다 하나씩, 12개의 리스트를 묻습니다.",
                )
            )
    if not isinstance(answer, (list, tuple, np.ndarray)) and not hasattr(answer, "numpy"):
        raise NotYet(
            say(
                f"contributions should be a list of 12 matrices, not {describe(answer)}.",
                f"contributions는 행렬 12개의 리스트여야 하는데 {describe(answer)}입니다.",
            )
        )
    entries = list(answer) if isinstance(answer, (list, tuple)) else list(as_array(answer, "contributions"))
    if len(entries) == T - 1:
        raise NotYet(
            say(
                "contributions has 11 entries: one per step means 12, step 1's too (it is the zero matrix, since "
                "h_0 = 0, but it is a step).",
                "contributions의 원소가 11개입니다. 스텝마다 하나면 스텝 1의 것까지 12개입니다(h_0 = 0이라 영행렬이지만, 그래도 한 스텝입니다).",
            )
        )
    if len(entries) != T:
        raise NotYet(
            say(
                f"contributions has {len(entries)} entries; the RNN has 12 steps: one contribution each.",
                f"contributions의 원소가 {len(entries)}개입니다. RNN에는 스텝이 12개 있고, 스텝마다 기여분이 하나씩입니다.",
            )
        )
    got = [as_array(entry, f"contributions[{i}]") for i, entry in enumerate(entries)]
    for i, array in enumerate(got):
        if array.shape == (1, N_H):
            raise NotYet(
                say(
                    f"contributions[{i}] has shape (1, 3), a row like δ_t or dL/dh_t. A contribution to dL/dU has U's "
                    "shape, (3, 3): the column h_{t-1}ᵀ times the row δ_t.",
                    f"contributions[{i}]의 shape이 δ_t나 dL/dh_t 같은 행의 shape (1, 3)입니다. dL/dU에 대한 기여분은 U의 shape (3, 3)이고, 열 h_{{t-1}}ᵀ 곱하기 행 δ_t입니다.",
                )
            )
        if array.shape != (N_H, N_H):
            raise NotYet(
                say(
                    f"contributions[{i}] has shape {array.shape}, but a contribution to dL/dU has U's, (3, 3).",
                    f"contributions[{i}]의 shape이 {array.shape}인데, dL/dU에 대한 기여분은 U와 같은 (3, 3)입니다.",
                )
            )
    stacked = np.stack(got)
    if _close(stacked, right):
        norms = np.linalg.norm(right.reshape(T, -1), axis=1)
        return say(
            f"12 contributions, adding up to dL/dU. Step 12's has norm {norms[-1]:.3f}, step 2's {norms[1]:.1e}, "
            "step 1's is 0: the early steps barely count.",
            f"기여분 12개의 합이 dL/dU입니다. 스텝 12의 노름은 {norms[-1]:.3f}, 스텝 2는 {norms[1]:.1e}, 스텝 1은 0입니다. 앞쪽 스텝은 거의 셈에 들지 않습니다.",
        )
    for slip, message in slips:
        if _close(stacked, slip):
            raise NotYet(message)
    if _close(stacked.sum(axis=0), total):
        raise NotYet(
            say(
                "your matrices add up to dL/dU, but they are not the per-step contributions h_{t-1}ᵀ δ_t: "
                "compute each one from its own step.",
                "행렬들의 합은 dL/dU이지만, 스텝마다의 기여분 h_{t-1}ᵀ δ_t가 아닙니다. 각각을 자기 스텝에서 계산하세요.",
            )
        )
    scale = float(np.abs(right).max())
    error = float(np.max(np.abs(stacked - right)))
    if error <= NEAR * scale:
        raise NotYet(
            say(
                f"your contributions are close, but off by {error:.1e}, more than float32 rounding explains. Were they "
                "rounded or copied by hand? Give the tensors your code computed.",
                f"기여분이 가깝지만 {error:.1e}만큼 어긋납니다. float32 반올림으로는 설명되지 않는 차이입니다. 반올림했거나 손으로 옮겨 적었나요? 코드가 계산한 텐서를 넘기세요.",
            )
        )
    first = next(i for i in range(T) if not _close(stacked[i], right[i]))
    right_before = say(f" (steps 1 to {first} are right)", f"(스텝 1부터 {first}까지는 맞습니다)")
    before = {0: "", 1: say(" (step 1's is right)", "(스텝 1의 것은 맞습니다)")}.get(first, right_before)
    raise NotYet(
        say(
            f"contributions[{first}], step {first + 1}'s, is not h_{first}ᵀ δ_{first + 1}{before}.",
            f"스텝 {first + 1}의 contributions[{first}]이(가) h_{first}ᵀ δ_{first + 1}이 아닙니다{before}.",
        )
    )


# ---- 10.2: truncated BPTT, run on a network of the checker's own ------------------------------------------
def _network() -> tuple:
    rng = np.random.default_rng(1010)
    xs = rng.normal(size=(T, 1, N_IN)).astype(np.float32)
    w = mt.Variable(rng.normal(0.0, 0.5, (N_IN, N_H)), dtype=mt.float32, name="W")
    u = mt.Variable(rng.normal(0.0, 0.5, (N_H, N_H)), dtype=mt.float32, name="U")
    b = mt.Variable(rng.normal(0.0, 0.1, N_H), dtype=mt.float32, name="b")
    readout = mt.constant(rng.normal(size=(1, N_H)), dtype=mt.float32)  # L = sum(h_T * readout)
    return xs, w, u, b, readout


def _last_state(xs: np.ndarray, w: object, u: object, b: object, k: int | None = None, at_cut: str = "") -> object:
    """h_T, with the states h_k, h_2k, ... (not h_T) cut (`at_cut="cut"`) or set to zeros (`"reset"`, a slip)."""
    h = mt.zeros((1, N_H))
    for t in range(1, T + 1):
        h = mt.tanh(mt.constant(xs[t - 1]) @ w + h @ u + b)
        if at_cut and t % k == 0 and t < T:
            h = mt.stop_gradient(h) if at_cut == "cut" else mt.zeros_like(h)
    return h


def _steps(steps: list[int]) -> str:
    if not steps:
        return say("no step", "어느 스텝도 아님")
    if len(steps) == 1:
        return say(f"step {steps[0]} only", f"스텝 {steps[0]}뿐")
    first, last = steps[0], steps[-1]
    if steps == list(range(first, last + 1)):
        if len(steps) > 2:
            return say(f"steps {first} to {last}", f"스텝 {first}부터 {last}까지")
        return say(f"steps {first} and {last}", f"스텝 {first}과(와) {last}")
    return say("steps ", "스텝 ") + ", ".join(map(str, steps))


def _run_truncated(fn: object, k: int) -> tuple[np.ndarray, list[int], object]:
    """The student's last state for this k, the steps whose input gets a gradient, and dL/dU."""
    xs, w, u, b, readout = _network()
    inputs, h0 = mt.constant(xs), mt.zeros((1, N_H))
    shown = f"truncated_rnn(xs, h0, W, U, b, {k})"
    with mt.GradientTape() as tape:
        tape.watch(inputs)
        out = call(fn, (inputs, h0, w, u, b, k), shown)
        if out is None:
            raise NotYet(
                say(
                    f"{shown} returned None: end it with `return h`, the last state.",
                    f"{shown}이(가) None을 돌려주었습니다. 마지막에 `return h`로 마지막 상태를 돌려주세요.",
                )
            )
        if isinstance(out, (list, tuple)):
            raise NotYet(
                say(
                    f"{shown} returned {describe(out)} of {len(out)} states: return only the last one, h_T.",
                    f"{shown}이(가) 상태 {len(out)}개의 {describe(out)}을(를) 돌려주었습니다. 마지막 상태 h_T 하나만 돌려주세요.",
                )
            )
        if not hasattr(out, "numpy") or isinstance(out, np.ndarray):
            raise NotYet(
                say(
                    f"{shown} returned {describe(out)}: return the tensor h itself (a numpy value has left the tape, "
                    "so no gradient can come back through it).",
                    f"{shown}이(가) {describe(out)}을(를) 돌려주었습니다. 텐서 h 자체를 돌려주세요(numpy 값은 테이프를 떠나서 그래디언트가 되돌아올 수 없습니다).",
                )
            )
        if tuple(out.shape) != (1, N_H):
            raise NotYet(
                say(
                    f"{shown} returned shape {tuple(out.shape)}; the last state h_T has shape (1, {N_H}).",
                    f"{shown}이(가) shape {tuple(out.shape)}을 돌려주었습니다. 마지막 상태 h_T의 shape은 (1, {N_H})입니다.",
                )
            )
        loss = mt.reduce_sum(out * readout)
    dx, du = tape.gradient(loss, [inputs, u])
    value = out.numpy()
    if dx is None:
        return value, [], du
    per_step = np.abs(dx.numpy()).reshape(T, -1).sum(axis=1)
    return value, [t for t in range(1, T + 1) if per_step[t - 1] > 0], du


@exercise(
    "10.2",
    "after each step t (counting from 1): when t is a multiple of k and not the last step, h = mt.stop_gradient(h). "
    "Return h after the loop.",
    ko="스텝 t(1부터 셉니다)마다, t가 k의 배수이고 마지막 스텝이 아니면 h = mt.stop_gradient(h)를 합니다. 루프가 끝나면 "
    "h를 돌려주세요.",
)
def truncated(fn: object, evidence: object) -> str:
    expect_function(fn, "truncated_rnn")
    xs, w, u, b, readout = _network()
    for k in (4, 5, 1, 12):
        value, steps, du = _run_truncated(fn, k)
        if not np.allclose(value, _last_state(xs, w, u, b).numpy(), atol=1e-5):
            if np.allclose(value, _last_state(xs, w, u, b, k, "reset").numpy(), atol=1e-5):
                raise NotYet(
                    say(
                        f"with k = {k} your last state has other values: you reset the state to zeros at the cuts, so the "
                        "network forgets. mt.stop_gradient(h) keeps the value and cuts only the gradient.",
                        f"k = {k}에서 마지막 상태의 값이 다릅니다. 끊는 곳에서 상태를 0으로 초기화해서 신경망이 잊어버렸습니다. mt.stop_gradient(h)는 값은 그대로 두고 그래디언트만 끊습니다.",
                    )
                )
            raise NotYet(
                say(
                    f"with k = {k} your last state has other values than the RNN's: truncation changes no value. Does "
                    "truncated_rnn run rnn_step with the xs, h0, W, U and b it is given (check passes its own)?",
                    f"k = {k}에서 마지막 상태의 값이 RNN의 것과 다릅니다. 잘라도 값은 바뀌지 않습니다. truncated_rnn이 받은 xs, h0, W, U, b로 rnn_step을 실행하나요(check는 자기 것을 넘깁니다)?",
                )
            )
        expected = list(range(k * ((T - 1) // k) + 1, T + 1))  # after the last cut
        if steps != expected:
            raise NotYet(_wrong_steps(k, steps, expected))
        with mt.GradientTape() as tape:  # the right steps contribute: is dL/dU truncated BPTT's, too?
            loss = mt.reduce_sum(_last_state(xs, w, u, b, k, "cut") * readout)
        if du is None or not np.allclose(du.numpy(), tape.gradient(loss, u).numpy(), atol=1e-5):
            raise NotYet(
                say(
                    f"with k = {k} the right steps contribute, but dL/dU is not truncated BPTT's: what else was cut?",
                    f"k = {k}에서 기여하는 스텝은 맞지만 dL/dU가 잘린 BPTT의 것이 아닙니다. 다른 무엇이 끊겼을까요?",
                )
            )
    return say(
        "The values are the RNN's, and the gradient reaches only the last chunk of steps, for every k tried.",
        "값은 RNN의 것 그대로이고, 시험한 모든 k에서 그래디언트가 마지막 스텝 묶음에만 이릅니다.",
    )


def _wrong_steps(k: int, steps: list[int], expected: list[int]) -> str:
    if not steps:
        return say(
            f"with k = {k} no step gets any gradient: the state you return is cut too. Cut only the states that go on "
            "to a next step; h_T is the output.",
            f"k = {k}에서 어느 스텝도 그래디언트를 받지 못합니다. 돌려주는 상태까지 끊겼습니다. 다음 스텝으로 넘어가는 상태만 끊으세요. h_T는 출력입니다.",
        )
    if steps == list(range(1, T + 1)):
        return say(
            f"with k = {k} all 12 steps contribute: nothing was cut. Is the result of mt.stop_gradient assigned, "
            "`h = mt.stop_gradient(h)`? It returns a new tensor; h itself does not change.",
            f"k = {k}에서 12스텝 모두 기여합니다. 아무것도 끊기지 않았습니다. mt.stop_gradient의 결과를 `h = mt.stop_gradient(h)`처럼 대입했나요? 새 텐서를 돌려줄 뿐, h 자체는 바뀌지 않습니다.",
        )
    if steps == [T] and k > 1:
        return say(
            f"with k = {k} only step 12 contributes: you cut after every step. Cut after steps k, 2k, ... only.",
            f"k = {k}에서 스텝 12만 기여합니다. 스텝마다 끊었습니다. 스텝 k, 2k, ... 뒤에서만 끊으세요.",
        )
    if k >= T:
        return say(
            f"with k = {k} there is nothing to cut in 12 steps, so all 12 should contribute; yours: {_steps(steps)}.",
            f"k = {k}이면 12스텝 안에서 끊을 곳이 없으므로 12스텝 모두 기여해야 합니다. 여러분의 결과: {_steps(steps)}.",
        )
    return say(
        f"with k = {k} the gradient reaches {_steps(steps)}. Cutting after steps {k}, {2 * k}, ... should leave "
        f"{_steps(expected)}, the last chunk.",
        f"k = {k}에서 그래디언트가 {_steps(steps)}에 이릅니다. 스텝 {k}, {2 * k}, ... 뒤에서 끊으면 마지막 묶음인 {_steps(expected)}이(가) 남아야 합니다.",
    )


# ---- 10.3: the spectral radius predicts -------------------------------------------------------------------
STEPS_10_3 = 30


def _relative(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * abs(b)


@exercise(
    "10.3",
    "np.linalg.eigvals(U_test.numpy()) gives the eigenvalues: the radius is the largest of their absolute values. "
    "state_gradient_norms returns ||dL/dh_0||, ..., ||dL/dh_T||: the ratio is the first over the last.",
    ko="np.linalg.eigvals(U_test.numpy())가 고윳값을 줍니다. 반지름은 그 절댓값 가운데 가장 큰 것입니다. "
    "state_gradient_norms는 ||dL/dh_0||, ..., ||dL/dh_T||를 돌려주고, 비율은 첫 값 나누기 마지막 값입니다.",
)
def spectral(answer: object, evidence: object) -> str:
    if isinstance(answer, str) and any(word in answer.lower() for word in ("explod", "vanish", "grow", "shrink")):
        raise NotYet(
            say(
                f"{answer!r} is your prediction: keep it in mind. check wants the two numbers that test it, as a pair: "
                "(radius, ratio).",
                f"{answer!r}은(는) 여러분의 예측입니다. 기억해 두세요. check는 그것을 검증할 숫자 두 개를 쌍 (radius, ratio)로 받습니다.",
            )
        )
    radius_given, ratio_given = items(answer, 2, "a pair (radius, ratio)")
    if radius_given is not Ellipsis and radius_given is not None and not isinstance(radius_given, str):
        array = np.asarray(radius_given.numpy() if hasattr(radius_given, "numpy") else radius_given)
        if array.dtype.kind == "c":
            raise NotYet(
                say(
                    "radius is a complex number, an eigenvalue itself. The spectral radius is the largest absolute "
                    "value |λ|: take np.abs of the eigenvalues before the max.",
                    "radius가 복소수, 곧 고윳값 자체입니다. 스펙트럼 반지름은 가장 큰 절댓값 |λ|입니다. max 전에 고윳값에 np.abs를 적용하세요.",
                )
            )
        if array.dtype.kind in "iuf" and array.size > 1:
            raise NotYet(
                say(
                    f"radius has {array.size} entries: the eigenvalues themselves. The spectral radius is one "
                    "number, the largest |λ|.",
                    f"radius의 원소가 {array.size}개, 곧 고윳값들 자체입니다. 스펙트럼 반지름은 숫자 하나, 가장 큰 |λ|입니다.",
                )
            )
    radius, ratio = as_number(radius_given, "radius"), as_number(ratio_given, "ratio")
    rho = 8 * float(np.float32(0.15))  # U_test maps (1, ..., 1) to rho * (1, ..., 1); its other eigenvalues are 0
    if _relative(radius, 0.15, 1e-4):
        raise NotYet(
            say(
                "radius is 0.15, the largest entry of U_test. The spectral radius is about eigenvalues, not entries: "
                "np.linalg.eigvals(U_test.numpy()).",
                "radius가 U_test의 가장 큰 원소 0.15입니다. 스펙트럼 반지름은 원소가 아니라 고윳값에 관한 것입니다: np.linalg.eigvals(U_test.numpy()).",
            )
        )
    if not _relative(radius, rho, 1e-5):
        raise NotYet(
            say(
                f"radius is {radius:g}, which is not the largest |eigenvalue| of U_test.",
                f"radius가 {radius:g}인데, U_test의 가장 큰 |고윳값|이 아닙니다.",
            )
        )
    want = rho**STEPS_10_3
    slips = [
        (
            1 / want,
            say(
                "your ratio is upside down: ||dL/dh_T|| / ||dL/dh_0||. The question is how much the gradient "
                "grows on its way back to h_0: norms[0] / norms[-1].",
                "ratio가 뒤집혔습니다: ||dL/dh_T|| / ||dL/dh_0||. 물음은 그래디언트가 h_0까지 거슬러 가며 얼마나 커지느냐입니다: norms[0] / norms[-1].",
            ),
        ),
        (
            rho ** (STEPS_10_3 - 1),
            say(
                "that is the growth over 29 steps: norms[0] is dL/dh_0, norms[1] is dL/dh_1.",
                "그것은 29스텝 동안의 증가입니다. norms[0]이 dL/dh_0이고, norms[1]은 dL/dh_1입니다.",
            ),
        ),
        (
            want * np.sqrt(8),
            say(
                "that is ||dL/dh_0|| itself: divide by ||dL/dh_T|| (which is √8 here).",
                "그것은 ||dL/dh_0|| 자체입니다. ||dL/dh_T||(여기서는 √8)로 나누세요.",
            ),
        ),
        (
            rho,
            say(
                "that is the factor of one step. The exercise asks for the ratio over all 30 steps.",
                "그것은 한 스텝의 배수입니다. 이 연습 문제는 30스텝 전체의 비율을 묻습니다.",
            ),
        ),
    ]
    for value, message in slips:
        if _relative(ratio, value, 1e-4):
            raise NotYet(message)
    if _relative(ratio, want, 1e-4):
        return say(
            f"ρ(U_test) = {rho:.1f} > 1, although every entry is 0.15: U_test maps (1, ..., 1) to 1.2 · (1, ..., 1). "
            f"Each step back multiplies the gradient by 1.2, and 1.2^30 = {want:.0f}: it explodes.",
            f"원소가 모두 0.15인데도 ρ(U_test) = {rho:.1f} > 1입니다. U_test는 (1, ..., 1)을 1.2 · (1, ..., 1)로 보냅니다. 한 스텝 거슬러 갈 때마다 그래디언트에 1.2를 곱하고, 1.2^30 = {want:.0f}이니 폭주합니다.",
        )
    if _relative(ratio, want, 0.05):
        raise NotYet(
            say(
                f"ratio is {ratio:.6g}: near, but not the measurement from rest. Run state_gradient_norms on zero inputs, "
                "mt.zeros((30, 1, n_in)): then every state stays exactly 0 and every step multiplies by U_testᵀ.",
                f"ratio가 {ratio:.6g}로 가깝지만, 정지 상태에서 잰 값이 아닙니다. state_gradient_norms를 0인 입력 mt.zeros((30, 1, n_in))로 실행하세요. 그러면 모든 상태가 정확히 0에 머물고, 스텝마다 U_testᵀ를 곱합니다.",
            )
        )
    if 0 < ratio < 1:
        raise NotYet(
            say(
                f"ratio is {ratio:.3g}: on your inputs the gradient vanished, so they were not zeros. Ordinary inputs "
                "saturate the states (1 - h² ≈ 0), as for s = 3 in section 4. Measure from rest, on "
                "mt.zeros((30, 1, n_in)).",
                f"ratio가 {ratio:.3g}입니다. 여러분의 입력에서는 그래디언트가 소실되었으니 입력이 0이 아니었습니다. 평범한 입력은 4절의 s = 3처럼 상태를 포화시킵니다(1 - h² ≈ 0). 정지 상태, 곧 mt.zeros((30, 1, n_in))에서 재세요.",
            )
        )
    raise NotYet(
        say(
            f"ratio is {ratio:.6g}, which is not what state_gradient_norms measures from rest on 30 zero inputs.",
            f"ratio가 {ratio:.6g}인데, 0인 입력 30개로 정지 상태에서 state_gradient_norms가 재는 값이 아닙니다.",
        )
    )

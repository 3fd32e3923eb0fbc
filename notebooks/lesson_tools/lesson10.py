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
            "your contributions are in reverse order: contributions[0] should be step 1's (the zero matrix, since "
            "h_0 = 0), and contributions[-1] step 12's.",
        ),
        (
            np.stack([hs[t - 1].T @ dh[t] for t in steps]),
            "each of your contributions is h_{t-1}ᵀ (dL/dh_t): the tanh's derivative is missing. U acts inside "
            "tanh(a_t), so the gradient must first cross the tanh: δ_t = dL/dh_t * (1 - h_t²).",
        ),
        (
            np.stack([hs[t - 1].T @ (dh[t] * (1 - np.tanh(hs[t]) ** 2)) for t in steps]),
            "you used 1 - tanh(h_t)²: h_t is already tanh(a_t), so the derivative is 1 - h_t², with h_t itself.",
        ),
        (
            np.stack([hs[t - 1].T @ (dh[t] * (1 - hs[t - 1] ** 2)) for t in steps]),
            "you multiplied by 1 - h_{t-1}²: the tanh of step t produced h_t, so its derivative is 1 - h_t².",
        ),
        (
            np.stack([hs[t].T @ delta[t] for t in steps]),
            "your contributions use h_t; step t multiplies U by the state it received, the previous one: "
            "h_{t-1}ᵀ δ_t (for step 1, h_0).",
        ),
        (
            np.stack([delta[t].T @ hs[t - 1] for t in steps]),
            "your contributions are transposed: δ_tᵀ h_{t-1}. U's row i meets h_{t-1}'s entry i, so the column is "
            "h_{t-1}ᵀ, on the left: mt.transpose(h_prev) @ delta.",
        ),
        (
            np.stack([hs[t - 1].T @ (dh[T] * (1 - hs[t] ** 2)) for t in steps]),
            "you used dL/dh_T at every step. Each step needs the gradient of its own state, dL/dh_t: "
            "tape.gradient(loss, states) gives all of them.",
        ),
    ]
    return right, slips


def _close(got: np.ndarray, want: np.ndarray) -> bool:
    return got.shape == want.shape and float(np.max(np.abs(got - want))) <= TOLERANCE * max(np.abs(want).max(), 1e-3)


@exercise(
    "10.1",
    "record states and loss on a persistent tape; tape.gradient(loss, states) gives every dL/dh_t. Step t's "
    "contribution is the column h_{t-1}ᵀ (mt.transpose) @ the row dL/dh_t * (1 - h_t²); for step 1, h_0 is h0.",
)
def contributions(answer: object, evidence: object) -> str:
    if answer is Ellipsis:
        raise not_written("contributions")
    if answer is None:
        raise NotYet("contributions is None: put the list of your 12 matrices in it.")
    if isinstance(answer, str):
        raise refuse_text(answer, "contributions")
    right, slips = _contribution_variants()
    total = right.sum(axis=0)
    if hasattr(answer, "numpy") or isinstance(answer, np.ndarray):
        array = as_array(answer, "contributions")
        if array.shape == (N_H, N_H):
            if _close(array, total):
                raise NotYet(
                    "that is the whole gradient dL/dU, one matrix: the sum the tape computed. The exercise asks for "
                    "its 12 parts, a list with one contribution per step."
                )
            raise NotYet("contributions is one (3, 3) matrix; the exercise asks for a list of 12, one per step.")
    if not isinstance(answer, (list, tuple, np.ndarray)) and not hasattr(answer, "numpy"):
        raise NotYet(f"contributions should be a list of 12 matrices, not {describe(answer)}.")
    entries = list(answer) if isinstance(answer, (list, tuple)) else list(as_array(answer, "contributions"))
    if len(entries) == T - 1:
        raise NotYet(
            "contributions has 11 entries: one per step means 12, step 1's too (it is the zero matrix, since "
            "h_0 = 0, but it is a step)."
        )
    if len(entries) != T:
        raise NotYet(f"contributions has {len(entries)} entries; the RNN has 12 steps: one contribution each.")
    got = [as_array(entry, f"contributions[{i}]") for i, entry in enumerate(entries)]
    for i, array in enumerate(got):
        if array.shape == (1, N_H):
            raise NotYet(
                f"contributions[{i}] has shape (1, 3), a row like δ_t or dL/dh_t. A contribution to dL/dU has U's "
                "shape, (3, 3): the column h_{t-1}ᵀ times the row δ_t."
            )
        if array.shape != (N_H, N_H):
            raise NotYet(f"contributions[{i}] has shape {array.shape}, but a contribution to dL/dU has U's, (3, 3).")
    stacked = np.stack(got)
    if _close(stacked, right):
        norms = np.linalg.norm(right.reshape(T, -1), axis=1)
        return (
            f"12 contributions, adding up to dL/dU. Step 12's has norm {norms[-1]:.3f}, step 2's {norms[1]:.1e}, "
            "step 1's is 0: the early steps barely count."
        )
    for slip, message in slips:
        if _close(stacked, slip):
            raise NotYet(message)
    if _close(stacked.sum(axis=0), total):
        raise NotYet(
            "your matrices add up to dL/dU, but they are not the per-step contributions h_{t-1}ᵀ δ_t: "
            "compute each one from its own step."
        )
    scale = float(np.abs(right).max())
    error = float(np.max(np.abs(stacked - right)))
    if error <= NEAR * scale:
        raise NotYet(
            f"your contributions are close, but off by {error:.1e}, more than float32 rounding explains. Were they "
            "rounded or copied by hand? Give the tensors your code computed."
        )
    first = next(i for i in range(T) if not _close(stacked[i], right[i]))
    before = {0: "", 1: " (step 1's is right)"}.get(first, f" (steps 1 to {first} are right)")
    raise NotYet(f"contributions[{first}], step {first + 1}'s, is not h_{first}ᵀ δ_{first + 1}{before}.")


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
        return "no step"
    if len(steps) == 1:
        return f"step {steps[0]} only"
    if steps == list(range(steps[0], steps[-1] + 1)):
        return f"steps {steps[0]} to {steps[-1]}" if len(steps) > 2 else f"steps {steps[0]} and {steps[1]}"
    return "steps " + ", ".join(map(str, steps))


def _run_truncated(fn: object, k: int) -> tuple[np.ndarray, list[int], object]:
    """The student's last state for this k, the steps whose input gets a gradient, and dL/dU."""
    xs, w, u, b, readout = _network()
    inputs, h0 = mt.constant(xs), mt.zeros((1, N_H))
    shown = f"truncated_rnn(xs, h0, W, U, b, {k})"
    with mt.GradientTape() as tape:
        tape.watch(inputs)
        out = call(fn, (inputs, h0, w, u, b, k), shown)
        if out is None:
            raise NotYet(f"{shown} returned None: end it with `return h`, the last state.")
        if isinstance(out, (list, tuple)):
            raise NotYet(f"{shown} returned {describe(out)} of {len(out)} states: return only the last one, h_T.")
        if not hasattr(out, "numpy") or isinstance(out, np.ndarray):
            raise NotYet(
                f"{shown} returned {describe(out)}: return the tensor h itself (a numpy value has left the tape, "
                "so no gradient can come back through it)."
            )
        if tuple(out.shape) != (1, N_H):
            raise NotYet(f"{shown} returned shape {tuple(out.shape)}; the last state h_T has shape (1, {N_H}).")
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
)
def truncated(fn: object, evidence: object) -> str:
    expect_function(fn, "truncated_rnn")
    xs, w, u, b, readout = _network()
    for k in (4, 5, 1, 12):
        value, steps, du = _run_truncated(fn, k)
        if not np.allclose(value, _last_state(xs, w, u, b).numpy(), atol=1e-5):
            if np.allclose(value, _last_state(xs, w, u, b, k, "reset").numpy(), atol=1e-5):
                raise NotYet(
                    f"with k = {k} your last state has other values: you reset the state to zeros at the cuts, so the "
                    "network forgets. mt.stop_gradient(h) keeps the value and cuts only the gradient."
                )
            raise NotYet(
                f"with k = {k} your last state has other values than the RNN's: truncation changes no value. Does "
                "truncated_rnn run rnn_step with the xs, h0, W, U and b it is given (check passes its own)?"
            )
        expected = list(range(k * ((T - 1) // k) + 1, T + 1))  # after the last cut
        if steps != expected:
            raise NotYet(_wrong_steps(k, steps, expected))
        with mt.GradientTape() as tape:  # the right steps contribute: is dL/dU truncated BPTT's, too?
            loss = mt.reduce_sum(_last_state(xs, w, u, b, k, "cut") * readout)
        if du is None or not np.allclose(du.numpy(), tape.gradient(loss, u).numpy(), atol=1e-5):
            raise NotYet(
                f"with k = {k} the right steps contribute, but dL/dU is not truncated BPTT's: what else was cut?"
            )
    return "The values are the RNN's, and the gradient reaches only the last chunk of steps, for every k tried."


def _wrong_steps(k: int, steps: list[int], expected: list[int]) -> str:
    if not steps:
        return (
            f"with k = {k} no step gets any gradient: the state you return is cut too. Cut only the states that go on "
            "to a next step; h_T is the output."
        )
    if steps == list(range(1, T + 1)):
        return (
            f"with k = {k} all 12 steps contribute: nothing was cut. Is the result of mt.stop_gradient assigned, "
            "`h = mt.stop_gradient(h)`? It returns a new tensor; h itself does not change."
        )
    if steps == [T] and k > 1:
        return f"with k = {k} only step 12 contributes: you cut after every step. Cut after steps k, 2k, ... only."
    if k >= T:
        return f"with k = {k} there is nothing to cut in 12 steps, so all 12 should contribute; yours: {_steps(steps)}."
    return (
        f"with k = {k} the gradient reaches {_steps(steps)}. Cutting after steps {k}, {2 * k}, ... should leave "
        f"{_steps(expected)}, the last chunk."
    )


# ---- 10.3: the spectral radius predicts -------------------------------------------------------------------
STEPS_10_3 = 30


def _relative(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * abs(b)


@exercise(
    "10.3",
    "np.linalg.eigvals(U_test.numpy()) gives the eigenvalues: the radius is the largest of their absolute values. "
    "state_gradient_norms returns ||dL/dh_0||, ..., ||dL/dh_T||: the ratio is the first over the last.",
)
def spectral(answer: object, evidence: object) -> str:
    if isinstance(answer, str) and any(word in answer.lower() for word in ("explod", "vanish", "grow", "shrink")):
        raise NotYet(
            f"{answer!r} is your prediction: keep it in mind. check wants the two numbers that test it, as a pair: "
            "(radius, ratio)."
        )
    radius_given, ratio_given = items(answer, 2, "a pair (radius, ratio)")
    if radius_given is not Ellipsis and radius_given is not None and not isinstance(radius_given, str):
        array = np.asarray(radius_given.numpy() if hasattr(radius_given, "numpy") else radius_given)
        if array.dtype.kind == "c":
            raise NotYet(
                "radius is a complex number, an eigenvalue itself. The spectral radius is the largest absolute "
                "value |λ|: take np.abs of the eigenvalues before the max."
            )
        if array.dtype.kind in "iuf" and array.size > 1:
            raise NotYet(
                f"radius has {array.size} entries: the eigenvalues themselves. The spectral radius is one "
                "number, the largest |λ|."
            )
    radius, ratio = as_number(radius_given, "radius"), as_number(ratio_given, "ratio")
    rho = 8 * float(np.float32(0.15))  # U_test maps (1, ..., 1) to rho * (1, ..., 1); its other eigenvalues are 0
    if _relative(radius, 0.15, 1e-4):
        raise NotYet(
            "radius is 0.15, the largest entry of U_test. The spectral radius is about eigenvalues, not entries: "
            "np.linalg.eigvals(U_test.numpy())."
        )
    if not _relative(radius, rho, 1e-5):
        raise NotYet(f"radius is {radius:g}, which is not the largest |eigenvalue| of U_test.")
    want = rho**STEPS_10_3
    slips = [
        (
            1 / want,
            "your ratio is upside down: ||dL/dh_T|| / ||dL/dh_0||. The question is how much the gradient "
            "grows on its way back to h_0: norms[0] / norms[-1].",
        ),
        (rho ** (STEPS_10_3 - 1), "that is the growth over 29 steps: norms[0] is dL/dh_0, norms[1] is dL/dh_1."),
        (want * np.sqrt(8), "that is ||dL/dh_0|| itself: divide by ||dL/dh_T|| (which is √8 here)."),
        (rho, "that is the factor of one step. The exercise asks for the ratio over all 30 steps."),
    ]
    for value, message in slips:
        if _relative(ratio, value, 1e-4):
            raise NotYet(message)
    if _relative(ratio, want, 1e-4):
        return (
            f"ρ(U_test) = {rho:.1f} > 1, although every entry is 0.15: U_test maps (1, ..., 1) to 1.2 · (1, ..., 1). "
            f"Each step back multiplies the gradient by 1.2, and 1.2^30 = {want:.0f}: it explodes."
        )
    if _relative(ratio, want, 0.05):
        raise NotYet(
            f"ratio is {ratio:.6g}: near, but not the measurement from rest. Run state_gradient_norms on zero inputs, "
            "mt.zeros((30, 1, n_in)): then every state stays exactly 0 and every step multiplies by U_testᵀ."
        )
    if 0 < ratio < 1:
        raise NotYet(
            f"ratio is {ratio:.3g}: on your inputs the gradient vanished, so they were not zeros. Ordinary inputs "
            "saturate the states (1 - h² ≈ 0), as for s = 3 in section 4. Measure from rest, on "
            "mt.zeros((30, 1, n_in))."
        )
    raise NotYet(f"ratio is {ratio:.6g}, which is not what state_gradient_norms measures from rest on 30 zero inputs.")

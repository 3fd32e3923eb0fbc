"""The one place where the viewer turns what it knows into words and numbers on the screen.

The step model and the frames keep values structured (arrays, None with its reason, messages with
arguments); this module writes them as text, in English or Korean, for the browser, the static SVG
and the saved page alike. Names the user chose (variables, name scopes, functions) pass through
`clean` first: control characters, lone surrogates and direction marks are shown escaped, and very
long names are shortened, so no name can break the DOT source, the SVG, the page or the widget's JSON.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np

LANGUAGES = ("en", "ko")
_settings = {"language": "en"}

NAME_LIMIT = 500  # characters of a name kept anywhere (the card, the panel); drawn labels are shorter still
LABEL_LIMIT = 40  # characters of a name or reason drawn inside the graph
SMALL = 4  # up to this many elements a node shows every number


def set_language(lang: str) -> None:
    """The language of every TapeView made from now on without `lang=`: "en" (default) or "ko"."""
    _settings["language"] = resolve(lang)


def get_language() -> str:
    return _settings["language"]


def resolve(lang: str | None) -> str:
    lang = _settings["language"] if lang is None else lang
    if lang not in LANGUAGES:
        raise ValueError(f"TapeView: lang must be one of {list(LANGUAGES)}, not {lang!r}")
    return lang


@dataclass(frozen=True)
class Msg:
    """A sentence still to be written: a key of `WORDS` and its arguments (values stay values)."""

    key: str
    args: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return render(self, "en")


def msg(key: str, **args: Any) -> Msg:
    return Msg(key, args)


@dataclass
class Local:
    """The local derivative of one input: the op's rule, and for scalars the numbers (upstream × factor)."""

    op: str
    slot: int
    up: float | None = None
    factor: float | None = None


@dataclass(frozen=True)
class Unknown:
    """A value the viewer cannot show: not kept by the tape and not replayable (`note` says which)."""

    note: Msg | None


@dataclass(frozen=True)
class NoGradient:
    """A gradient that is None, with the reason (a `Msg` or `tape.explain`'s Reason)."""

    reason: Any


@dataclass(frozen=True)
class Terms:
    """The last few terms of a running sum (`more`: earlier terms left out)."""

    values: tuple
    more: bool = False


# ---- names ---------------------------------------------------------------------------------------------
_SAFE_FORMAT = {"\u200d"}  # the zero-width joiner only joins emoji: harmless in every output


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _unsafe(ch: str) -> bool:
    # Cc control, Cs lone surrogate, Cf format (direction marks and overrides), Zl/Zp line breaks
    return unicodedata.category(ch) in ("Cc", "Cs", "Cf", "Zl", "Zp") and ch not in _SAFE_FORMAT


def clean(text: str, limit: int = NAME_LIMIT) -> str:
    """`text` safe to show anywhere: unsafe characters as escapes (`\\x01`), at most `limit` characters (`…`)."""
    text = str(text)
    if not text.isprintable() and any(_unsafe(ch) for ch in text):  # every unsafe character is unprintable
        text = "".join(_escape_char(ch) if _unsafe(ch) else ch for ch in text)
    return shorten(text, limit)


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters: cut at the last space in the last third if there is one, then `…`."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    if cut.count("(") > cut.count(")"):  # an aside cut open reads badly: "(e.g.…"
        cut = cut[: cut.rfind("(")]
    return cut.rstrip(" ,;:") + "…"


# ---- numbers -------------------------------------------------------------------------------------------
def number(x: Any) -> str:
    if type(x) is float:  # the common case first: thousands of numbers per view
        return _float(x)
    if isinstance(x, (bool, np.bool_)):
        return str(bool(x))
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return _float(float(x))


def _float(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x + 0.0:.4g}"  # + 0.0 turns -0.0 into 0.0: "-0" only puzzles a reader


def small_text(a: np.ndarray) -> str:
    """A tensor of at most `SMALL` numbers, every number (numpy's printer is slow: thousands of nodes add up)."""
    if a.ndim == 0:
        return number(a[()])
    if a.ndim > 1 or a.dtype.kind not in "biuf":
        return np.array2string(a, precision=4, separator=", ", formatter={"all": number})
    return "[" + ", ".join(number(x) for x in a.tolist()) + "]"


def _every_number(value: Any, limit: int) -> str | None:
    """Every number of a value of at most `limit` elements ("None" for None); None for a larger value."""
    if value is None:
        return "None"
    a = np.asarray(value)
    return small_text(a) if a.size <= limit else None


def _span(a: np.ndarray) -> tuple[str, bool]:
    """The finite entries as "[min, max]" ("" if there are none), and whether any entry is NaN or inf."""
    if a.dtype.kind not in "fc" or not a.size:
        return "", False
    finite = a[np.isfinite(a)]
    return (f"[{number(finite.min())}, {number(finite.max())}]" if finite.size else ""), finite.size < a.size


def fmt(value: Any, limit: int = SMALL) -> str:
    """A short, stable text for a value: the numbers for small tensors, dtype, shape and range for large ones."""
    few = _every_number(value, limit)
    if few is not None:
        return few
    a = np.asarray(value)
    span, bad = _span(a)
    return f"{a.dtype.name}{list(a.shape)}{' in ' + span if span else ''}{' has NaN/inf' if bad else ''}"


def short(value: Any) -> str:
    """The text inside a node: the numbers for small tensors, the range for large ones (NaN! if any)."""
    few = _every_number(value, SMALL)
    if few is not None:
        return few
    a = np.asarray(value)
    span, bad = _span(a)
    return (span or f"{a.dtype.name}{list(a.shape)}") + (" NaN!" if bad else "")


def full(value: Any, lang: str = "en") -> str:
    """A clicked node's value: every number when few, else shape, dtype, range, mean and the first entries."""
    if value is None:
        return "None"
    if np.size(value) <= SMALL:  # numpy's printer costs ~0.1 ms a call: thousands of nodes add up
        return small_text(np.asarray(value))
    return describe(value, lang)


FULL_LIMIT = 16  # up to this many elements, a card shows every number
FIRST = 6  # entries shown at the start of a summarised tensor


def describe(value: Any, lang: str = "en") -> str:
    """A short, stable text for `value`: all entries up to FULL_LIMIT, else shape, dtype, min/max/mean and a few.

    A 64×128 gradient printed in full is thousands of characters that nobody reads and that push the
    graph off the screen; its shape, dtype, range, mean and first entries say what a student needs.
    """
    if value is None:
        return "None"
    a = np.asarray(value)
    if a.size <= FULL_LIMIT:
        return (
            small_text(a) if a.ndim == 0 else np.array2string(a, precision=4, separator=", ", formatter={"all": number})
        )
    w = WORDS[lang]
    lines = [w["summary_shape"].format(shape=list(a.shape), dtype=a.dtype.name, n=a.size)]
    if a.dtype.kind in "biuf":
        flat = a.astype(np.float64).ravel()
        finite = flat[np.isfinite(flat)]
        if finite.size:
            lines.append(
                w["summary_range"].format(lo=number(finite.min()), hi=number(finite.max()), mean=number(finite.mean()))
            )
        bad = flat.size - finite.size
        if bad:
            nans = int(np.isnan(flat).sum())
            lines.append(w["summary_bad"].format(nan=nans, inf=bad - nans))
    lines.append(w["summary_first"].format(first=", ".join(number(x) for x in a.ravel()[:FIRST])))
    return "\n".join(lines)


def shape_text(shape: tuple, dtype: str, lang: str = "en") -> str:
    text = WORDS[lang]["scalar"] if shape == () else "×".join(str(d) for d in shape)
    return f"{text} {dtype}".strip()


# ---- sentences -----------------------------------------------------------------------------------------
def _arg(value: Any, lang: str) -> str:
    if isinstance(value, Msg):
        return render(value, lang)
    if isinstance(value, Local):
        return local_text(value, lang)
    if isinstance(value, Terms):
        return ("… + " if value.more else "") + " + ".join(fmt(v) for v in value.values)
    if hasattr(value, "kind") and hasattr(value, "message"):  # an explain() Reason
        return reason_text(value, lang)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ", ".join(_arg(v, lang) for v in value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return str(int(value))
    return fmt(value)


def render(m: Msg | str, lang: str) -> str:
    if isinstance(m, str):
        return m
    return WORDS[lang][m.key].format(**{k: _arg(v, lang) for k, v in m.args.items()})


def lines(items: list, lang: str) -> list[str]:
    return [render(m, lang) for m in items]


def word(key: str, lang: str) -> str:
    return WORDS[lang][key]


def reason_text(reason: Any, lang: str) -> str:
    """Why a source's gradient is None, as `tape.explain` says it (its kind, written in `lang`)."""
    if reason is None:
        return ""
    if lang == "en":
        return clean(reason.message + (f" Fix: {reason.fix}" if reason.fix else ""))
    op = clean(reason.op or "?", LABEL_LIMIT)
    return WORDS[lang].get("why_" + reason.kind, WORDS[lang]["why_no_path"]).format(op=op)


def local_text(local: Local, lang: str) -> str:
    """The local derivative in words, with its numbers when upstream and factor are scalars."""
    words = local_rule(local.op, local.slot, lang)
    if local.up is None:
        return words
    return WORDS[lang]["local_scalar"].format(up=number(local.up), words=words, factor=number(local.factor))


def local_rule(op_type: str, slot: int, lang: str) -> str:
    """How `op_type` differentiates with respect to input `slot`, as a formula (in words where it needs them)."""
    rules = WORDS[lang].get("rule_" + op_type) or RULES.get(op_type)
    if rules and slot < len(rules):
        return rules[slot]
    return WORDS[lang]["rule_vjp"].format(op=op_type, slot=slot)


# How common ops differentiate: formulas alone, the same in every language.
RULES: dict[str, tuple[str, ...]] = {
    "AddV2": ("∂(a+b)/∂a = 1", "∂(a+b)/∂b = 1"),
    "Sub": ("∂(a−b)/∂a = 1", "∂(a−b)/∂b = −1"),
    "Mul": ("∂(a·b)/∂a = b", "∂(a·b)/∂b = a"),
    "RealDiv": ("∂(a/b)/∂a = 1/b", "∂(a/b)/∂b = −a/b²"),
    "Pow": ("∂(aᵇ)/∂a = b·aᵇ⁻¹", "∂(aᵇ)/∂b = aᵇ·ln a"),
    "Neg": ("∂(−x)/∂x = −1",),
    "Exp": ("∂eˣ/∂x = eˣ",),
    "Log": ("∂ln x/∂x = 1/x",),
    "Sin": ("∂sin x/∂x = cos x",),
    "Cos": ("∂cos x/∂x = −sin x",),
    "Tanh": ("∂tanh x/∂x = 1 − tanh²x",),
    "Sigmoid": ("∂σ(x)/∂x = σ(x)(1 − σ(x))",),
    "Square": ("∂x²/∂x = 2x",),
    "Sqrt": ("∂√x/∂x = 1/(2√x)",),
    "Identity": ("∂x/∂x = 1",),
}

# Every word the viewer shows, per language. Korean follows TensorFlow's Korean documentation:
# 그래디언트 (gradient), 테이프 (tape), 연산 (op), 역전파 (backward pass), 순전파 (forward pass), 상수, 변수.
WORDS: dict[str, dict[str, Any]] = {
    "en": {
        # buttons, controls, legends
        "page_title": "minitape tape view",
        "notice_scopes": (
            "This tape would draw {before} nodes, too many to lay out quickly, so each top-level name scope is "
            "drawn as one box ({boxes} boxes; click a box for what it holds). Pass collapse=False to draw every "
            "node (slow), or collapse=[scope paths] to choose."
        ),
        "notice_runs": (
            "This tape would draw {before} nodes, too many to lay out quickly, so runs of {size} consecutive ops "
            "are drawn as one box each ({boxes} boxes; click a box for what it holds). Pass collapse=False to "
            "draw every node (slow), or record fewer ops."
        ),
        "notice_runs_inputs": (
            "This tape would draw {before} nodes, too many to lay out quickly, so runs of {size} consecutive ops, "
            "with the inputs they read first, are drawn as one box each ({boxes} boxes; click a box for what it "
            "holds). Pass collapse=False to draw every node (slow), or record fewer ops."
        ),
        "reset": "reset",
        "reset_tip": "back to the start",
        "back": "step",
        "back_tip": "one step back",
        "play": "play",
        "pause": "pause",
        "play_tip": "play / pause",
        "forward_btn": "step",
        "forward_tip": "one step forward",
        "zoom_out": "zoom out",
        "zoom_in": "zoom in",
        "fit": "fit",
        "fit_tip": "fit the width",
        "follow": "follow",
        "follow_tip": "scroll the graph so the active node stays in view",
        "speed": "speed",
        "step_label": "step",
        "close": "close",
        "close_tip": "close the details",
        "selected": "Selected: {name}",
        "selected_node": "selected node",
        "counter": "step {k} / {last} · {where}",
        "panel_title": "Step {k} of {last}",
        "hint": "Click a node (or Tab to it and press Enter) to see its value, {flows}, shape, dtype and op.",
        "unfold_hint": "{kind}, press Enter to unfold",
        "scope_aria": "name scope {path}: fold or unfold",
        "folded_nodes": "({n} nodes)",
        "cut_tip": "{src} → {dst}: gradient path cut: {reason}",
        "cut_label": "cut: {reason}",
        "flows_gradient": "gradient",
        "flows_tangent": "tangent",
        "kind_start": "start",
        "kind_forward": "forward",
        "kind_seed": "seed",
        "kind_backward": "backward",
        "kind_result": "result",
        # node lines and the details card
        "value_line": "value {v}",
        "grad_line": "grad {v}",
        "tangent_line": "tangent {v}",
        "value_unknown": "value ?",
        "partial_mark": "{v} …",
        "not_reached": "not reached yet",
        "partial_sum": "{v}  (partial sum: more contributions to come)",
        "row_node": "node",
        "row_kind": "kind",
        "row_op": "op",
        "row_shape": "shape",
        "row_dtype": "dtype",
        "row_scope": "scope",
        "row_value": "value",
        "row_now": "{flows} now",
        "row_end": "{flows} (end)",
        "row_recorded_by": "recorded by",
        "row_code": "code",
        "row_uses": "uses",
        "row_cut": "gradient path cut",
        "row_nan": "⚠ NaN/inf",
        "nan_card": "the first op whose output is not finite: look here first",
        "input": "(input)",
        "none_scope": "(none)",
        "recorded_by": "the backward pass of {what}",
        "uses": "drawn once per use: {n} copies ({leaf}-use1 to {leaf}-use{n})",
        "value_kept_not": "{shape}, {dtype}: {note}",
        "summary_shape": "shape {shape}, dtype {dtype}, {n} entries",
        "summary_range": "min {lo}, max {hi}, mean {mean}",
        "summary_bad": "non-finite: {nan} NaN, {inf} inf",
        "summary_first": "first entries: {first}, …",
        "kind_variable": "variable",
        "kind_watched": "watched tensor",
        "kind_constant": "constant (not watched)",
        "kind_op": "op",
        "kind_gradop": "op recorded by a backward pass",
        "kind_scope": "folded scope",
        "kind_run": "folded run of ops",
        "target_mark": "◎ target",
        "leaf_name": "{kind} ({id})",
        "leaf_constant": "constant",
        "leaf_watched": "watched",
        "leaf_unrecorded": "target (not recorded)",
        "target_unrecorded": "target (not recorded)",
        "gradient_sum": "gradient sum",
        "from_grad": "from ∂{op}",
        "use_of": "use {k} of {n}",
        "scope_folded": "{n} nodes folded",
        "run_folded": "{n} nodes folded: {ops}",
        "records_run": "records {a}–{b}",
        "scalar": "scalar",
        # value notes
        "note_read": "the variable's current value (the read itself was not kept)",
        "note_gone": "not kept by the tape, and no longer alive",
        "note_not_kept": "not kept by the tape",
        "note_unrecorded": "computed where the tape could not follow: no gradient reaches it",
        "note_no_outputs": "no outputs",
        # step explanations
        "start": "The tape recorded {n} ops. The inputs:",
        "start_one": "The tape recorded 1 op. The inputs:",
        "start_leaf": "{name}: {what} = {value}",
        "fwd_title": "Forward, record {record}: {op}",
        "fwd_title_scope": "Forward, record {record}: {op} in {scope}",
        "fwd_gradop": "Recorded by a backward pass ({what}): part of the gradient's own graph.",
        "sum_meeting": "summing gradients that meet at one tensor",
        "fwd_input": "input {k}: {name} = {value}",
        "fwd_output": "output ({shape}, {dtype}) = {value}",
        "shape_of": "shape {shape}",
        "value_unknown_why": "(value unknown: {note})",
        "nan_forward": "⚠ NaN or inf appears here first in the forward pass.",
        "from_where": "from {where}",
        "seed": "Backward pass: start from the target with a seed of 1 (d target / d target = 1).",
        "seed_at": "seed at {name}: {value}",
        "bwd_title": "Backward, record {record}: {op}",
        "bwd_title_scope": "Backward, record {record}: {op} in {scope}",
        "upstream": "upstream gradient (d target / d output) = {values}",
        "local_scalar": "{up} × ({words} = {factor})",
        "to_node": "→ {name}: {local} = {value}{sum}",
        "sum_so_far": "; sum at {name} so far ({n} terms): {terms} = {total}",
        "to_none": "→ {name}: None ({why})",
        "cut_line": "None: {why}.",
        "nan_backward": "⚠ NaN or inf appears here first in the backward pass.",
        "done": "Done: each source's gradient.",
        "lookup_note": "Note: tape.gradient raises LookupError on this tape: {what}",
        "result_line": "d target / d {name} = {value}",
        "result_none": "d target / d {name} = None  ({why})",
        "edge_scalar": "{up} × {factor} = {grad}",
        "edge_grad": "→ {grad}",
        # forward mode
        "fwd_mode": "Forward mode: each primal starts with its tangent (the direction we differentiate along):",
        "tangent_of": "tangent of {name} = {value}",
        "tangents_in": "tangents in: {values}",
        "tangent_out": "tangent out (the JVP of {op}) = {value}",
        "fwd_done": "Done: the target's tangent is its directional derivative (J · tangent), in one forward pass.",
        "jvp_at": "jvp at {name} = {value}",
        # why no gradient flows (edges)
        "why_rule_none": "the gradient rule of {op} returns None for input {slot}",
        "why_unwatched": "an unwatched constant: the tape does not follow it (tape.watch(c) would)",
        "why_int_edge": "{dtype} values carry no gradient",
        "why_no_source": "it does not depend on any source",
        "cut_no_gradient": "{op} has no gradient (e.g. stop_gradient): the path is cut here",
        "cut_no_rule": (
            "no gradient registered for {op}: tape.gradient raises LookupError here "
            '(register one with @mt.RegisterGradient("{op}"))'
        ),
        "cut_int": "int dtype: {op} gives {dtype}, which carries no gradient",
        "cut_numpy": "numpy escape: the value left the tape at {where}",
        "cut_not_watched": "not watched: the tape does not follow this tensor (tape.watch it)",
        "rule_Relu": ("∂relu(x)/∂x = 1 where x > 0, else 0",),
        "rule_Sum": ("∂sum(x)/∂x = 1 for every element",),
        "rule_Mean": ("∂mean(x)/∂x = 1/n for every element",),
        "rule_MatMul": ("∂(A@B)/∂A = upstream @ Bᵀ", "∂(A@B)/∂B = Aᵀ @ upstream"),
        "rule_vjp": "vector-Jacobian product of {op} (input {slot})",
    },
    "ko": {
        "page_title": "minitape 테이프 보기",
        "notice_scopes": (
            "이 테이프는 노드 {before}개를 그려야 해서 빨리 배치할 수 없으므로, 최상위 이름 범위마다 상자 하나로 "
            "그렸습니다 (상자 {boxes}개, 상자를 클릭하면 내용을 봅니다). 모든 노드를 그리려면 collapse=False (느림), "
            "고르려면 collapse=[이름 범위 경로]를 주세요."
        ),
        "notice_runs": (
            "이 테이프는 노드 {before}개를 그려야 해서 빨리 배치할 수 없으므로, 연속된 연산 {size}개씩을 상자 하나로 "
            "그렸습니다 (상자 {boxes}개, 상자를 클릭하면 내용을 봅니다). 모든 노드를 그리려면 collapse=False (느림), "
            "아니면 연산을 더 적게 기록하세요."
        ),
        "notice_runs_inputs": (
            "이 테이프는 노드 {before}개를 그려야 해서 빨리 배치할 수 없으므로, 연속된 연산 {size}개씩을 처음 읽는 "
            "입력과 함께 상자 하나로 그렸습니다 (상자 {boxes}개, 상자를 클릭하면 내용을 봅니다). 모든 노드를 "
            "그리려면 collapse=False (느림), 아니면 연산을 더 적게 기록하세요."
        ),
        "reset": "처음으로",
        "reset_tip": "처음 단계로 돌아가기",
        "back": "이전",
        "back_tip": "한 단계 뒤로",
        "play": "재생",
        "pause": "일시 정지",
        "play_tip": "재생 / 일시 정지",
        "forward_btn": "다음",
        "forward_tip": "한 단계 앞으로",
        "zoom_out": "축소",
        "zoom_in": "확대",
        "fit": "맞춤",
        "fit_tip": "너비에 맞추기",
        "follow": "따라가기",
        "follow_tip": "현재 노드가 보이도록 그래프를 스크롤합니다",
        "speed": "속도",
        "step_label": "단계",
        "close": "닫기",
        "close_tip": "세부 정보 닫기",
        "selected": "선택: {name}",
        "selected_node": "선택한 노드",
        "counter": "단계 {k} / {last} · {where}",
        "panel_title": "{last}단계 중 {k}단계",
        "hint": "노드를 클릭하면 (또는 Tab으로 이동해 Enter) 값, {flows}, 형태, 자료형, 연산을 볼 수 있습니다.",
        "unfold_hint": "{kind}, Enter를 누르면 펼칩니다",
        "scope_aria": "이름 범위 {path}: 접기 또는 펼치기",
        "folded_nodes": "(노드 {n}개)",
        "cut_tip": "{src} → {dst}: 그래디언트 경로가 끊김: {reason}",
        "cut_label": "끊김: {reason}",
        "flows_gradient": "그래디언트",
        "flows_tangent": "탄젠트",
        "kind_start": "시작",
        "kind_forward": "순전파",
        "kind_seed": "시드",
        "kind_backward": "역전파",
        "kind_result": "결과",
        "value_line": "값 {v}",
        "grad_line": "그래디언트 {v}",
        "tangent_line": "탄젠트 {v}",
        "value_unknown": "값 ?",
        "partial_mark": "{v} …",
        "not_reached": "아직 도달하지 않음",
        "partial_sum": "{v}  (부분합: 더할 기여가 남아 있음)",
        "row_node": "노드",
        "row_kind": "종류",
        "row_op": "연산",
        "row_shape": "형태",
        "row_dtype": "자료형",
        "row_scope": "이름 범위",
        "row_value": "값",
        "row_now": "현재 {flows}",
        "row_end": "최종 {flows}",
        "row_recorded_by": "기록한 곳",
        "row_code": "코드",
        "row_uses": "사용",
        "row_cut": "끊긴 그래디언트 경로",
        "row_nan": "⚠ NaN/inf",
        "nan_card": "출력이 유한하지 않은 첫 연산: 여기부터 보세요",
        "input": "(입력)",
        "none_scope": "(없음)",
        "recorded_by": "{what}의 역전파",
        "uses": "사용할 때마다 따로 그림: 복사본 {n}개 ({leaf}-use1 ~ {leaf}-use{n})",
        "value_kept_not": "{shape}, {dtype}: {note}",
        "summary_shape": "형태 {shape}, 자료형 {dtype}, 원소 {n}개",
        "summary_range": "최솟값 {lo}, 최댓값 {hi}, 평균 {mean}",
        "summary_bad": "유한하지 않은 값: NaN {nan}개, inf {inf}개",
        "summary_first": "처음 원소: {first}, …",
        "kind_variable": "변수",
        "kind_watched": "감시하는 텐서",
        "kind_constant": "상수 (감시하지 않음)",
        "kind_op": "연산",
        "kind_gradop": "역전파가 기록한 연산",
        "kind_scope": "접힌 이름 범위",
        "kind_run": "접힌 연산 묶음",
        "target_mark": "◎ 목표",
        "leaf_name": "{kind} ({id})",
        "leaf_constant": "상수",
        "leaf_watched": "감시하는 텐서",
        "leaf_unrecorded": "목표 (기록되지 않음)",
        "target_unrecorded": "목표 (기록되지 않음)",
        "gradient_sum": "그래디언트 합",
        "from_grad": "∂{op}에서",
        "use_of": "사용 {k}/{n}",
        "scope_folded": "노드 {n}개 접힘",
        "run_folded": "노드 {n}개 접힘: {ops}",
        "records_run": "기록 {a}–{b}",
        "scalar": "스칼라",
        "note_read": "변수의 현재 값 (읽은 값 자체는 보관되지 않음)",
        "note_gone": "테이프가 보관하지 않았고 이미 사라짐",
        "note_not_kept": "테이프가 보관하지 않음",
        "note_unrecorded": "테이프가 따라갈 수 없는 곳에서 계산됨: 그래디언트가 도달하지 않음",
        "note_no_outputs": "출력 없음",
        "start": "테이프가 연산 {n}개를 기록했습니다. 입력:",
        "start_one": "테이프가 연산 1개를 기록했습니다. 입력:",
        "start_leaf": "{name}: {what} = {value}",
        "fwd_title": "순전파, 기록 {record}: {op}",
        "fwd_title_scope": "순전파, 기록 {record}: {op} ({scope} 안)",
        "fwd_gradop": "역전파가 기록한 연산 ({what}): 그래디언트 자체의 그래프입니다.",
        "sum_meeting": "한 텐서에서 만나는 그래디언트를 더함",
        "fwd_input": "입력 {k}: {name} = {value}",
        "fwd_output": "출력 ({shape}, {dtype}) = {value}",
        "shape_of": "형태 {shape}",
        "value_unknown_why": "(값을 알 수 없음: {note})",
        "nan_forward": "⚠ 순전파에서 NaN 또는 inf가 처음 나타난 곳입니다.",
        "from_where": "위치: {where}",
        "seed": "역전파: 목표에서 시드 1로 시작합니다 (d 목표 / d 목표 = 1).",
        "seed_at": "{name}의 시드: {value}",
        "bwd_title": "역전파, 기록 {record}: {op}",
        "bwd_title_scope": "역전파, 기록 {record}: {op} ({scope} 안)",
        "upstream": "위에서 온 그래디언트 (d 목표 / d 출력) = {values}",
        "local_scalar": "{up} × ({words} = {factor})",
        "to_node": "→ {name}: {local} = {value}{sum}",
        "sum_so_far": "; 지금까지 {name}에서의 합 (항 {n}개): {terms} = {total}",
        "to_none": "→ {name}: None ({why})",
        "cut_line": "None: {why}.",
        "nan_backward": "⚠ 역전파에서 NaN 또는 inf가 처음 나타난 곳입니다.",
        "done": "완료: 각 소스의 그래디언트.",
        "lookup_note": "참고: 이 테이프에서 tape.gradient는 LookupError를 일으킵니다: {what}",
        "result_line": "d 목표 / d {name} = {value}",
        "result_none": "d 목표 / d {name} = None  ({why})",
        "edge_scalar": "{up} × {factor} = {grad}",
        "edge_grad": "→ {grad}",
        "fwd_mode": "순방향 모드: 각 입력은 탄젠트(미분하는 방향)를 가지고 시작합니다:",
        "tangent_of": "{name}의 탄젠트 = {value}",
        "tangents_in": "들어오는 탄젠트: {values}",
        "tangent_out": "나가는 탄젠트 ({op}의 JVP) = {value}",
        "fwd_done": "완료: 목표의 탄젠트가 방향 도함수(J · 탄젠트)입니다. 순전파 한 번으로 얻었습니다.",
        "jvp_at": "{name}의 JVP = {value}",
        "why_rule_none": "{op}의 그래디언트 규칙이 입력 {slot}에 None을 돌려줍니다",
        "why_unwatched": "감시하지 않는 상수: 테이프가 따라가지 않습니다 (tape.watch(c)로 감시)",
        "why_int_edge": "{dtype} 값은 그래디언트를 전달하지 않습니다",
        "why_no_source": "어떤 소스에도 의존하지 않습니다",
        "cut_no_gradient": "{op}에는 그래디언트가 없습니다 (예: stop_gradient): 경로가 여기서 끊깁니다",
        "cut_no_rule": "{op}에 등록된 그래디언트가 없습니다: tape.gradient가 LookupError를 일으킵니다",
        "cut_int": "정수 자료형: {op}의 출력 {dtype}은 그래디언트를 전달하지 않습니다",
        "cut_numpy": "numpy로 빠져나감: 값이 {where}에서 테이프를 벗어났습니다",
        "cut_not_watched": "감시하지 않음: 테이프가 이 텐서를 따라가지 않습니다 (tape.watch 필요)",
        "rule_Relu": ("∂relu(x)/∂x = x > 0이면 1, 아니면 0",),
        "rule_Sum": ("∂sum(x)/∂x = 모든 원소에 1",),
        "rule_Mean": ("∂mean(x)/∂x = 모든 원소에 1/n",),
        "rule_MatMul": ("∂(A@B)/∂A = 위의 그래디언트 @ Bᵀ", "∂(A@B)/∂B = Aᵀ @ 위의 그래디언트"),
        "rule_vjp": "{op}의 벡터-야코비안 곱 (입력 {slot})",
        # why a source's gradient is None, by tape.explain()'s kind
        "why_connected": "그래디언트가 흐릅니다",
        "why_not_watched": "테이프가 이 소스를 감시하지 않았습니다 (상수, trainable=False 등): tape.watch 필요",
        "why_integer_dtype": "소스나 경로의 값이 정수 또는 bool 자료형입니다: 그래디언트가 없습니다",
        "why_stop_gradient": "stop_gradient가 경로를 끊습니다",
        "why_numpy": "값이 numpy 배열로 바뀌어 테이프를 벗어났습니다",
        "why_assign": "값이 assign으로 변수에 들어갔고, 테이프는 assign을 미분하지 않습니다",
        "why_no_gradient": "경로의 연산 {op}은 미분할 수 없다고 선언되어 있습니다",
        "why_no_registered_gradient": "경로의 연산 {op}에 그래디언트 규칙이 없습니다: LookupError",
        "why_not_recorded_before_enter": "목표가 with 블록 전에 계산되었습니다",
        "why_not_recorded_before_watch": "목표가 tape.watch 전에 계산되었습니다",
        "why_not_recorded_stop_recording": "목표가 stop_recording 안에서 계산되었습니다",
        "why_not_recorded_after_exit": "목표가 테이프 기록이 끝난 뒤 계산되었습니다",
        "why_no_path": "목표가 이 소스에 의존하지 않습니다",
    },
}


# ---- what a node shows, and its details card ------------------------------------------------------------
def why_text(reason: Any, lang: str) -> str:
    return _arg(reason, lang) if reason is not None else ""


def node_lines(state: Any, lang: str, flows: str) -> list[str]:
    """[value line, gradient line, css classes, the card's "now" text] of a node in `state` (a frames.NodeState)."""
    w = WORDS[lang]
    value = ""
    if isinstance(state.value, Unknown):
        value = w["value_unknown"]
    elif state.value is not None:
        value = w["value_line"].format(v=short(state.value))
    grad, now = "", w["not_reached"]
    if isinstance(state.grad, NoGradient):
        grad = w["grad_line"].format(v="None")
        now = "None" + (f" ({why_text(state.grad.reason, lang)})" if state.grad.reason is not None else "")
    elif state.grad is not None:
        now = short(state.grad)
        grad = w["tangent_line" if flows == "tangent" else "grad_line"].format(v=now)
        if state.partial:  # a running sum: more contributions are still to come
            grad, now = w["partial_mark"].format(v=grad), w["partial_sum"].format(v=now)
    return [value, grad, " ".join(state.classes()), now]


def end_text(state: Any, lang: str) -> str:
    """A node's gradient (or tangent) after the last step, for its card: every number, or None and why."""
    if state is None or state.grad is None:
        return "None"
    if isinstance(state.grad, NoGradient):
        why = why_text(state.grad.reason, lang)
        return "None" + (f"  ({why})" if why else "")
    return full(state.grad, lang)


def value_text(node: Any, lang: str) -> str:
    """A node's value for its card: every number, a summary when large, or its shape and dtype and why unknown."""
    if node.value is not None:
        text = full(node.value, lang)
        return text + (f"  ({render(node.value_note, lang)})" if node.value_note else "")
    note = render(node.value_note, lang) if node.value_note else WORDS[lang]["note_not_kept"]
    shape = WORDS[lang]["scalar"] if node.shape == () else str(list(node.shape))
    return WORDS[lang]["value_kept_not"].format(shape=shape, dtype=node.dtype, note=note)


def edge_label(c: Any, lang: str) -> tuple[str, str]:
    """(text, css class) on an edge at the backward step that sends contribution `c` along it."""
    if c.grad is None:
        return "None", "none"
    local = c.local
    if local is not None and local.up is not None:
        text = WORDS[lang]["edge_scalar"].format(up=number(local.up), factor=number(local.factor), grad=short(c.grad))
        return text, "bwd"
    return WORDS[lang]["edge_grad"].format(grad=short(c.grad)), "bwd"


def cut_label(reason: Any, lang: str) -> str:
    """The words on a cut edge: short enough to fit beside it, cut at a word (the card has the whole reason)."""
    return WORDS[lang]["cut_label"].format(reason=shorten(why_text(reason, lang), LABEL_LIMIT))


# The words `tapeview.js` writes itself (buttons, the card's rows, the counter); the rest comes written out.
JS_WORDS = (
    "back back_tip close close_tip counter cut_tip fit fit_tip folded_nodes follow follow_tip forward_btn "
    "forward_tip hint input nan_card none_scope not_reached panel_title pause play play_tip reset reset_tip "
    "row_code row_cut row_dtype row_end row_kind row_nan row_node row_now row_op row_recorded_by row_scope "
    "row_shape row_uses row_value scope_aria selected selected_node speed step_label unfold_hint zoom_in zoom_out"
).split()


def js_words(lang: str) -> dict:
    """The words the browser itself writes, for `tapeview.js`."""
    return {k: WORDS[lang][k] for k in JS_WORDS}

"""Why is my gradient None? `tape.explain(target, sources)` answers per source, in plain words.

It reads only what the tape remembers (so it works after `gradient()` too): the records in
tape order, the watched ids, the values converted to numpy, and the timeline of when the tape
recorded. Tensor ids come from one counter in creation order, so comparing a tensor's id with
the timeline tells when it was made. For each source it asks, in this order:

1. Is the source a floating-point tensor, and did the tape watch it?
2. Follow the records forward from the source through ops that pass a gradient ("live" values)
   and backward from the target through the same ops ("needed" values). If the target is live,
   the source is connected.
3. An op that takes a live value and gives a needed one but passes no gradient is the cut:
   stop_gradient, an integer output, an assign, a no_gradient op, an op with no registered rule.
4. A target the tape did not record was made outside the recording window: before the block,
   before watch, inside stop_recording, after the block.
5. A dead end made before the target probably leads to it: a live value converted to numpy,
   or one of the cuts of step 3. Otherwise there is no path.

`tape_stats(tape)` counts the records and the bytes of tensors they keep alive.
"""

from __future__ import annotations

import html
import sys
from dataclasses import dataclass, replace
from typing import Any

from minitape.engine.opdef import lookup
from minitape.engine.variables import Variable
from minitape.engine.where import format_where
from minitape.values import nest
from minitape.values.tensor_like import TensorLike

# Every `kind` a Reason can have, and what it means (for tests, and for viewers that colour by kind).
KINDS = {
    "connected": "a gradient flows from the target back to the source",
    "not_watched": "the tape never watched the source (a constant, trainable=False, watch_accessed_variables=False)",
    "integer_dtype": "the source, or a value on the path, has an integer or bool dtype",
    "stop_gradient": "stop_gradient cuts the path",
    "numpy": "the value left the library: it was converted to a numpy array",
    "assign": "the value went into a variable through assign, which the tape does not differentiate",
    "no_gradient": "an op on the path is declared not differentiable (no_gradient)",
    "no_registered_gradient": "an op on the path has no gradient rule: gradient() raises LookupError",
    "not_recorded_before_enter": "the target was computed before the with block",
    "not_recorded_before_watch": "the target (or the op using the source) was computed before tape.watch",
    "not_recorded_stop_recording": "the target (or the op using the source) was computed inside stop_recording",
    "not_recorded_after_exit": "the target was computed after the tape stopped recording",
    "no_path": "the target does not depend on the source",
}

_ASSIGNS = {"AssignVariableOp": "assign", "AssignAddVariableOp": "assign_add", "AssignSubVariableOp": "assign_sub"}


@dataclass(frozen=True)
class Reason:
    """The verdict for one source: connected, or None and why."""

    source: str  # the source's name: a Variable's name, a dict key, or "source 0"
    kind: str  # one of KINDS
    message: str  # what happened, in plain words
    fix: str = ""  # what to change
    op: str | None = None  # the op at fault, or the first op of the path
    where: tuple[str, int] | None = None  # (file, line) of the user's code that ran it
    path: tuple[str, ...] = ()  # op types from source to target, when connected

    @property
    def connected(self) -> bool:
        return self.kind == "connected"

    def __str__(self) -> str:
        text = f"{self.source}: {'connected' if self.connected else 'None'} — {self.message}"
        return text + (f"\n    Fix: {self.fix}" if self.fix else "")


class Explanation:
    """Per source, whether `tape.gradient(target, sources)` gives a gradient, and if not, why.

    `reasons` is the flat list (in `nest.flatten` order); `verdicts` has the structure of `sources`.
    """

    def __init__(self, reasons: list[Reason], sources: Any) -> None:
        self.reasons = reasons
        self.verdicts = nest.pack_sequence_as(sources, reasons)

    def __iter__(self):
        return iter(self.reasons)

    def __len__(self) -> int:
        return len(self.reasons)

    def __str__(self) -> str:
        return "\n".join(str(r) for r in self.reasons)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        rows = []
        for r in self.reasons:
            colour, verdict = ("#e6f4ea", "connected") if r.connected else ("#fdecea", "None")
            rows.append(
                # explicit text colour: the light backgrounds must stay readable under a dark notebook theme
                f'<tr style="background:{colour};color:#202124;vertical-align:top">'
                f"<td><code>{html.escape(r.source)}</code></td>"
                f"<td><b>{verdict}</b></td><td>{html.escape(r.message)}</td><td>{html.escape(r.fix)}</td>"
                f"<td><code>{html.escape(r.kind)}</code></td></tr>"
            )
        head = "<tr><th>source</th><th>gradient</th><th>why</th><th>fix</th><th>kind</th></tr>"
        return f'<table class="minitape-explain" style="text-align:left">{head}{"".join(rows)}</table>'


def explain(tape: Any, target: Any, sources: Any) -> Explanation:
    """Say, per source, whether `tape.gradient(target, sources)` is None, and why, naming op and line."""
    view = _TapeView(tape)
    targets = nest.flatten(target)
    leaves = _named_leaves(sources, _caller_variables())
    reasons = [_explain_one(view, targets, leaf, name) for name, leaf in leaves]
    return Explanation(reasons, sources)


# ---- what the tape remembers, indexed for the questions below ------------------------------------
class _TapeView:
    def __init__(self, tape: Any) -> None:
        self.tape = tape
        self.records = tape.records
        self.watched = tape.watched_ids
        self.escapes = tape.numpy_escapes  # (tensor id, (file, line), when)
        self.timeline = tape.timeline
        self.recorded_ids = {i for op in self.records for i in op.output_ids}
        self.entered = next((counter for event, counter in self.timeline if event == "enter"), None)

    def when(self, tensor_id: int) -> str:
        """The tape's state when this id was made: before_enter, before_watch, recording, paused, after_*."""
        state = "before_enter"
        for event, counter in self.timeline:
            if counter > tensor_id:
                return "before_watch" if event == "watch" and state == "recording" else state
            state = _STATE_AFTER.get(event, state)
        return state

    def quiet_spells(self, after: int, before: int) -> list[str]:
        """Moments between two ids when ops ran but the tape could not record them: "paused", "before_watch"."""
        spells, start = [], None
        for event, counter in self.timeline:
            # ids were handed out between `start` and this event: something ran there
            busy = start is not None and counter - max(start, after) > 1 and counter < before
            if busy and event in ("resume", "watch"):
                spells.append("paused" if event == "resume" else "before_watch")
            start = counter if event in ("stop_recording", "enter", "resume", "watch") else None
        return spells


_STATE_AFTER = {
    "enter": "recording",
    "resume": "recording",
    "stop_recording": "paused",
    "exit": "after_exit",
    "gradient": "after_gradient",
}


def _cut_kind(op: Any) -> str | None:
    """Why no gradient passes through `op`, or None if one does."""
    if op.type == "StopGradient":
        return "stop_gradient"
    if op.type in _ASSIGNS:
        return "assign"
    if op.grad_fn is None:
        try:
            if lookup(op.type) is None:
                return "no_gradient"
        except LookupError:
            return "no_registered_gradient"
    if op.output_dtypes and not any(d.is_floating for d in op.output_dtypes):
        return "integer_dtype"
    return None


# ---- one source --------------------------------------------------------------------------------
def _explain_one(view: _TapeView, targets: list, source: Any, name: str) -> Reason:
    if not isinstance(source, TensorLike):
        raise ValueError(f"sources must be tensors or variables (or nested structures of them), not {type(source)}")
    if not source.dtype.is_floating:
        return Reason(
            name,
            "integer_dtype",
            f"{name} has dtype {source.dtype.name}: only floating-point tensors have gradients.",
            f"make it a float: mt.constant(3.0) rather than mt.constant(3), or mt.cast({_code(name)}, mt.float32).",
        )
    live, made_by, cuts = _forward(view.records, source.id)
    not_tensors = [t for t in targets if not isinstance(t, TensorLike)]
    if not_tensors:
        return _target_left_library(view, name, not_tensors[0], live)
    if any(t.id == source.id for t in targets):  # gradient(v, v): no op needed, the gradient is ones
        return _connected(name, source.id, source.id, made_by)
    variables = [t for t in targets if isinstance(t, Variable)]
    if len(variables) == len(targets):  # a variable is never computed from anything
        return Reason(
            name,
            "no_path",
            f"the target is the variable {_plain(variables[0].name)} itself, which no op computed from {name}.",
            f"differentiate a value computed from {name} inside the with block (e.g. a loss), not a variable.",
        )
    if source.id not in view.watched:
        return _not_watched(view, targets, source, name)

    on_path = _cuts_on_path(view.records, cuts, {t.id for t in targets})
    raising = [op for op in on_path if cuts[op] == "no_registered_gradient"]
    if raising:  # gradient() raises here even when another path exists
        return _cut_reason(name, raising[0], "no_registered_gradient")
    connected = next((t for t in targets if t.id in live), None)
    if connected is not None:
        return _connected(name, source.id, connected.id, made_by)
    if on_path:
        return _cut_reason(name, on_path[0], cuts[on_path[0]])
    return _broken_path(view, targets, source, name, live, cuts)


def _forward(records: list, source_id: int) -> tuple[set[int], dict[int, Any], dict[Any, str]]:
    """Live ids (a gradient can reach the source from them), the op that made each, and the cuts met."""
    live, made_by, cuts = {source_id}, {}, {}
    for op in records:
        if live.isdisjoint(op.input_ids):
            continue
        kind = _cut_kind(op)
        if kind is not None:
            cuts[op] = kind
            continue
        for i, dtype in zip(op.output_ids, op.output_dtypes):
            if dtype.is_floating:
                live.add(i)
                made_by[i] = op
    return live, made_by, cuts


def _cuts_on_path(records: list, cuts: dict, target_ids: set[int]) -> list:
    """The cuts whose output the target needs, in tape order (walking back from the target)."""
    needed, found = set(target_ids), []
    for op in reversed(records):
        # an assign has no output: it matters if the variable is read afterwards on the way to the target
        reaches = op.input_ids[0] in needed if op.type in _ASSIGNS else not needed.isdisjoint(op.output_ids)
        if op in cuts and reaches:
            found.append(op)
        # gradient() stops at a cut; it goes on through an op with no registered rule (and raises there)
        if reaches and _cut_kind(op) in (None, "no_registered_gradient"):
            needed.update(op.input_ids)
    return found[::-1]


def _unrecorded_ancestors(records: list, target_ids: set[int]) -> set[int]:
    """Ids the targets were computed from that no record made: constants, and outputs of unrecorded ops."""
    needed = set(target_ids)
    for op in reversed(records):
        if not needed.isdisjoint(op.output_ids):
            needed.update(op.input_ids)
    made = {i for op in records for i in op.output_ids}
    return needed - made


def _connected(name: str, source_id: int, target_id: int, made_by: dict) -> Reason:
    ops, current = [], target_id
    while current != source_id:
        op = made_by[current]
        ops.append(op)
        current = next(i for i in op.input_ids if i == source_id or i in made_by)
    if not ops:
        return Reason(name, "connected", f"the target is {name} itself: its gradient is ones.")
    ops.reverse()
    path = tuple(op.type for op in ops)
    return Reason(
        name,
        "connected",
        f"the gradient flows through {' → '.join(path)} (the first op ran at {_at(ops[0].where)}).",
        op=ops[0].type,
        where=ops[0].where,
        path=path,
    )


# ---- the reasons, in words ---------------------------------------------------------------------
def _not_watched(view: _TapeView, targets: list, source: Any, name: str) -> Reason:
    if isinstance(source, Variable) and not source.trainable:
        return Reason(
            name,
            "not_watched",
            f"{name} is a Variable created with trainable=False, so the tape does not watch it.",
            f"create it with trainable=True, or call tape.watch({_code(name)}) at the start of the with block.",
        )
    if isinstance(source, Variable) and not view.tape.watches_accessed_variables:
        return Reason(
            name,
            "not_watched",
            f"the tape was created with watch_accessed_variables=False, so it watches only what you pass to "
            f"tape.watch(), and {name} was not passed.",
            f"call tape.watch({_code(name)}) at the start of the with block.",
        )
    if isinstance(source, Variable):
        timing = _target_timing(view, targets, name)
        if timing is not None:
            return timing
        return Reason(
            name,
            "no_path",
            f"{name} was never read while the tape was recording, so the target does not depend on it.",
            f"compute the target from {name} inside the with block.",
        )
    code = _code(name)
    fix = f"call tape.watch({code}) inside the with block, before using {name}, or make it a mt.Variable."
    if view.entered is not None and source.id < view.entered:
        fix += (
            f" If {name} was a Variable before, a line like `{code} = {code} + 1` replaced it by a plain tensor: "
            f"update a variable in place instead, with {code}.assign_add(1)."
        )
    return Reason(
        name, "not_watched", f"{name} is a tensor that this tape never watched, so no op using it was recorded.", fix
    )


def _cut_reason(name: str, op: Any, kind: str) -> Reason:
    at = _at(op.where)
    if kind == "stop_gradient":
        message = f"the path from {name} is cut by stop_gradient at {at}: its output counts as a constant."
        fix = "remove mt.stop_gradient there if the gradient should flow through it."
    elif kind == "integer_dtype":
        dtypes = ", ".join(d.name for d in op.output_dtypes)
        message = (
            f"on the path from {name}, {op.type} at {at} makes {dtypes}: integer and bool values have no gradients."
        )
        fix = "keep the computation in floating point (e.g. cast to mt.float32, not to an integer type)."
    elif kind == "assign":
        variable = op.alive_inputs()[0]
        var_name = _plain(variable.name) if variable is not None else "a variable"
        message = (
            f"the value computed from {name} went into {var_name}.{_ASSIGNS[op.type]}(...) at {at}: the tape "
            f"does not differentiate through assignments, so later reads of {var_name} start afresh."
        )
        fix = "use the computed value directly instead of storing it in a variable inside the tape."
    elif kind == "no_gradient":
        message = f"the path from {name} goes through {op.type} at {at}, which is declared not differentiable."
        fix = "write that step with differentiable ops, or wrap it in mt.custom_gradient to give it a gradient."
    else:
        message = (
            f"the path from {name} goes through {op.type} at {at}, which has no gradient rule: tape.gradient() "
            f"raises LookupError('gradient registry has no entry for: {op.type}')."
        )
        fix = f"register one with @mt.RegisterGradient({op.type!r}), or declare mt.no_gradient({op.type!r})."
    return Reason(name, kind, message, fix, op=op.type, where=op.where)


def _numpy_reason(name: str, where: tuple[str, int]) -> Reason:
    return Reason(
        name,
        "numpy",
        f"the value computed from {name} left the library at {_at(where)}: it was converted to a numpy array "
        f"(np.mean, np.asarray, .numpy() ...), and numpy's operations are not recorded.",
        "track it: keep it a tensor, use mt.reduce_mean instead of np.mean (mt.* ops instead of np.*).",
        where=where,
    )


def _target_left_library(view: _TapeView, name: str, target: Any, live: set[int]) -> Reason:
    escapes = [where for i, where, _ in view.escapes if i in live] or [where for _, where, _ in view.escapes]
    if escapes:
        reason = _numpy_reason(name, escapes[0])
        message = f"the target is a {_type_name(target)}, not a tensor; {reason.message}"
        return Reason(name, "numpy", message, reason.fix, where=reason.where)
    return Reason(
        name,
        "numpy",
        f"the target is a {_type_name(target)}, not a minitape tensor, so the tape cannot follow it.",
        "track it: compute the target with mt.* ops so it stays a tensor.",
    )


_TIMING = {
    "before_enter": (
        "not_recorded_before_enter",
        "the target was computed before the with block began, so the tape recorded none of it.",
        "compute the target inside the with block.",
    ),
    "before_watch": (
        "not_recorded_before_watch",
        "the target was computed before tape.watch(...) was called, so the ops making it were not recorded.",
        "call tape.watch({name}) first, right at the start of the with block.",
    ),
    "paused": (
        "not_recorded_stop_recording",
        "the target was computed inside tape.stop_recording(), where nothing is recorded.",
        "compute it outside the stop_recording block.",
    ),
    "after_exit": (
        "not_recorded_after_exit",
        "the target was computed after the with block ended, when the tape no longer recorded.",
        "compute it inside the with block (indent it).",
    ),
    "after_gradient": (
        "not_recorded_after_exit",
        "the target was computed after tape.gradient() was called inside the block: a non-persistent tape "
        "stops recording then.",
        "compute the target before calling gradient(), or use GradientTape(persistent=True).",
    ),
}


def _target_timing(view: _TapeView, targets: list, name: str) -> Reason | None:
    """A reason if a target the tape did not record was made while the tape could not record it."""
    for t in targets:
        if t.id in view.recorded_ids or t.id in view.watched:
            continue
        state = view.when(t.id)
        if state in _TIMING:
            kind, message, fix = _TIMING[state]
            return Reason(name, kind, message, fix.format(name=_code(name)))
    return None


def _broken_path(view: _TapeView, targets: list, source: Any, name: str, live: set, cuts: dict) -> Reason:
    """No recorded path from the source to the target: find out what broke it, from the strongest evidence."""
    timing = _target_timing(view, targets, name)
    if timing is not None:
        return timing
    # dead ends: live values that went where the tape cannot follow. One can lead to the target only
    # through something the tape did not record, made after it: an unrecorded ancestor of the target.
    latest = max(_unrecorded_ancestors(view.records, {t.id for t in targets}), default=0)
    dead_ends = [(op.output_ids[0] if op.output_ids else op.input_ids[-1], op.where, op) for op in cuts]
    dead_ends += [(when, where, None) for i, where, when in view.escapes if i in live]
    dead_ends = sorted((d for d in dead_ends if d[0] < latest), key=lambda d: d[0])
    if dead_ends:
        *others, (_, where, op) = dead_ends  # the latest before the target is the likeliest
        reason = _numpy_reason(name, where) if op is None else _cut_reason(name, op, cuts[op])
        if others:
            also = "; ".join(f"{o.type if o else 'a numpy conversion'} at {_at(w)}" for _, w, o in others)
            reason = replace(reason, message=f"{reason.message} Values computed from {name} also stopped at: {also}.")
        return reason
    if all(source.id not in op.input_ids for op in view.records):
        # the tape watched the source but recorded nothing using it: the ops using it ran while it could not record
        spells = view.quiet_spells(source.id, latest)
        if "paused" in spells:
            message = (
                f"the tape recorded no op using {name}. Probably {name} was used inside tape.stop_recording(), "
                "where nothing is recorded (ops ran there before the target was made)."
            )
            return Reason(name, "not_recorded_stop_recording", message, "use it outside the stop_recording block.")
        if "before_watch" in spells and not isinstance(source, Variable):
            message = (
                f"the tape recorded no op using {name}. Probably {name} was used before tape.watch({_code(name)}) "
                "was called (ops ran in the with block before it), and ops run before watch are not recorded."
            )
            fix = f"call tape.watch({_code(name)}) first, right at the start of the with block."
            return Reason(name, "not_recorded_before_watch", message, fix)
    return Reason(
        name,
        "no_path",
        f"the target does not depend on {name}: no recorded operation leads from {name} to the target.",
        f"check that the target is computed from {name} (a typo, or a different tensor?).",
    )


# ---- names and places --------------------------------------------------------------------------
def _caller_variables() -> dict[str, Any]:
    """The local variables of the user's code that called explain, to name sources as the user does."""
    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_globals.get("__name__", "").startswith("minitape."):
        frame = frame.f_back
    return {k: v for k, v in frame.f_locals.items() if not k.startswith("_")}


def _named_leaves(sources: Any, variables: dict[str, Any]) -> list[tuple[str, Any]]:
    """(name, leaf) pairs in `nest.flatten` order.

    A leaf is named by its Variable name, else its dict key, else the user's Python variable bound
    to it, else its place in `sources` ("source 0").
    """
    out, stack = [], [("source", False, sources)]
    while stack:  # iterative, like nest.flatten, and in the same order
        path, keyed, item = stack.pop()
        top = path == "source"
        if isinstance(item, dict):
            stack.extend((str(k) if top else f"{path}[{k!r}]", True, item[k]) for k in reversed(sorted(item)))
        elif isinstance(item, (list, tuple)):
            places = [(f"{path} {i}" if top else f"{path}[{i}]", keyed, v) for i, v in enumerate(item)]
            stack.extend(reversed(places))
        else:
            python_name = next((k for k, v in variables.items() if v is item), None)
            out.append((_variable_name(item) or (path if keyed else python_name or path), item))
    return out


def _variable_name(x: Any) -> str | None:
    """A Variable's name without TensorFlow's ":0", unless it is the default "Variable"."""
    if isinstance(x, Variable) and _plain(x.name) != "Variable":
        return _plain(x.name)
    return None


def _code(name: str) -> str:
    """The name as it would appear in code, for the fixes: "x" when it is not an identifier ("source 0")."""
    return name if name.isidentifier() else "x"


def _plain(variable_name: str) -> str:
    return variable_name[:-2] if variable_name.endswith(":0") else variable_name


def _type_name(value: Any) -> str:
    module = type(value).__module__.split(".")[0]
    return type(value).__name__ if module == "builtins" else f"{module}.{type(value).__name__}"


_at = format_where  # 'file.py:12', or 'line 12 of its cell' in a notebook


# ---- memory ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TapeStats:
    """What a tape holds: its records, and the tensors they keep alive for the backward pass."""

    records: int
    saved_tensors: int  # distinct tensors, each counted once
    saved_bytes: int
    persistent: bool

    def __str__(self) -> str:
        kind = "persistent" if self.persistent else "non-persistent"
        return (
            f"{kind} tape: {self.records} records keeping {self.saved_tensors} tensors alive "
            f"({self.saved_bytes:,} bytes)"
        )


def tape_stats(tape: Any) -> TapeStats:
    """Count the records of `tape` and the distinct tensors (and bytes) they keep for gradient()."""
    saved = {}
    records = tape.records
    for op in records:
        for t in op.saved_tensors():
            saved[t.id] = t._array().nbytes  # not numpy(): that copies, and counts as a numpy escape
    return TapeStats(len(records), len(saved), sum(saved.values()), tape.persistent)

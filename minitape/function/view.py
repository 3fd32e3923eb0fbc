"""`GraphView`: a traced graph drawn, so a lesson can show what a `tf.function` recorded.

Each step is a node, each slot an edge from the step that fills it to the steps that read it: the inputs, the
forward ops (blue), the ops the tape's gradient rules ran (orange, each naming the op it differentiates), the
variable reads and assigns (green), the Python calls made again at every run (grey) and the guards (diamonds),
in one frame per name scope. Graphviz lays it out through the viewer's `layout` (minitape.widgets), which is
the only part that needs the viewer installed.
"""

from __future__ import annotations

import html
from collections import Counter
from typing import Any

from minitape.function.graph import AssignStep, CallStep, Graph, OpStep, ReadStep, Slot, reads, writes
from minitape.values import nest

_STYLE = {
    "input": 'shape=ellipse, style=filled, fillcolor="#ffffff"',
    "forward": 'shape=box, style="rounded,filled", fillcolor="#dbe9f6"',
    "gradient": 'shape=box, style="rounded,filled", fillcolor="#fde3c8"',
    "variable": 'shape=box, style="rounded,filled", fillcolor="#d9f0d3"',
    "call": 'shape=box, style="rounded,filled,dashed", fillcolor="#eeeeee"',
    "guard": 'shape=diamond, style=filled, fillcolor="#fff6bf"',
    "output": 'shape=ellipse, style=filled, fillcolor="#ffffff", peripheries=2',
}


class GraphView:
    """Draw the graph of a `ConcreteFunction`, of a `Function` traced once (its latest graph), or a `Graph`."""

    def __init__(self, traced: Any, rankdir: str = "LR", lang: str | None = None) -> None:
        """`lang`: the language of the words drawn and summed up, "en" or "ko" (default: the viewer's language,
        `minitape.widgets.set_language`, when the viewer is installed; else English). Op names stay as they are."""
        self.graph = _graph_of(traced)
        self.rankdir = rankdir
        self.lang = _language(lang)

    def counts(self) -> dict[str, int]:
        """How many steps of each kind the graph holds: forward, gradient, read, assign, call, guard."""
        return dict(Counter(_kind(step) for step in self.graph.steps))

    def summary(self) -> str:
        counts, words = self.counts(), _WORDS[self.lang]
        parts = [words[kind].format(n=counts.get(kind, 0)) for kind in _KINDS]
        return words["graph"].format(name=self.graph.name) + ", ".join(parts)

    def dot_source(self) -> str:
        """The graph in Graphviz's DOT language, a cluster per name scope."""
        producer: dict[int, str] = {}
        lines = [f"digraph G {{ rankdir={self.rankdir}; node [fontname=Helvetica, fontsize=11];"]
        for slot in self.graph.inputs:
            producer[slot] = f"in{slot}"
            lines.append(f'in{slot} [label="{_escape(self.graph.input_names[slot])}", {_STYLE["input"]}];')
        by_scope: dict[str, list[str]] = {}
        edges = []
        for k, step in enumerate(self.graph.steps):
            node = f"s{k}"
            by_scope.setdefault(getattr(step, "scope", ""), []).append(
                f'{node} [label="{_escape(_label(step, self.lang))}", {_STYLE[_kind(step)]}];'
            )
            edges += [f"{producer[s]} -> {node};" for s in reads(step) if s in producer]
            for s in writes(step):
                producer[s] = node
        lines += _clusters(by_scope)
        lines += edges
        for k, slot in enumerate(x for x in nest.flatten(self.graph.outputs) if type(x) is Slot):
            lines.append(f'out{k} [label="{_WORDS[self.lang]["output"].format(k=k)}", {_STYLE["output"]}];')
            if slot.index in producer:
                lines.append(f"{producer[slot.index]} -> out{k};")
        return "\n".join([*lines, "}"])

    def to_svg(self) -> str:
        from minitape.widgets.layout import layout

        return layout(self.dot_source())

    def _repr_svg_(self) -> str:
        return self.to_svg()

    def __repr__(self) -> str:
        return f"<GraphView: {self.summary()}>"


_KINDS = ("forward", "gradient", "variable", "call", "guard")
# the words of the drawing and the summary, in the viewer's two languages (glossary: notebooks/glossary_ko.md)
_WORDS = {
    "en": {
        "graph": "graph of {name}: ",
        "forward": "{n} forward ops",
        "gradient": "{n} gradient ops",
        "variable": "{n} variable reads and assigns",
        "call": "{n} Python calls",
        "guard": "{n} guards",
        "gradient_of": "(gradient of {op})",
        "read": "read {name}",
        "call_of": "call {name}",
        "guard_of": "guard: {expected}",
        "output": "output {k}",
    },
    "ko": {
        "graph": "{name}의 그래프: ",
        "forward": "순전파 연산 {n}개",
        "gradient": "그래디언트 연산 {n}개",
        "variable": "변수 읽기와 할당 {n}개",
        "call": "Python 호출 {n}개",
        "guard": "가드 {n}개",
        "gradient_of": "({op}의 그래디언트)",
        "read": "읽기 {name}",
        "call_of": "호출 {name}",
        "guard_of": "가드: {expected}",
        "output": "출력 {k}",
    },
}


def _language(lang: str | None) -> str:
    """`lang`, or the viewer's language when the viewer is installed (the lessons set it), else English."""
    if lang is None:
        try:
            from minitape.widgets.formatting import get_language
        except ImportError:  # the viewer is an optional extra: without it, a view speaks English
            return "en"
        lang = get_language()
    if lang not in _WORDS:
        raise ValueError(f"GraphView: lang must be one of {list(_WORDS)}, not {lang!r}")
    return lang


def _graph_of(traced: Any) -> Graph:
    if isinstance(traced, Graph):
        return traced
    if hasattr(traced, "graph") and isinstance(traced.graph, Graph):
        return traced.graph
    concretes = [c for variants in getattr(traced, "_cache", {}).values() for c in variants]
    if not concretes:
        raise ValueError("GraphView: this function has no graph yet; call it once (or get_concrete_function) first")
    return concretes[-1].graph


def _kind(step: Any) -> str:
    kind = type(step)
    if kind is OpStep:
        return "gradient" if step.backward_of else "forward"
    if kind in (ReadStep, AssignStep):
        return "variable"
    return "call" if kind is CallStep else "guard"


def _label(step: Any, lang: str) -> str:
    kind, words = type(step), _WORDS[lang]
    if kind is OpStep:
        gradient_of = words["gradient_of"].format(op=step.backward_of)
        return f"{step.op.name}\n{gradient_of}" if step.backward_of else step.op.name
    if kind is ReadStep:
        return words["read"].format(name=step.variable.name)
    if kind is AssignStep:
        return f"{step.op_type.replace('VariableOp', '')} {step.variable.name}"
    if kind is CallStep:
        return words["call_of"].format(name=getattr(step.function, "__qualname__", "Python"))
    expected = "true" if step.expected is True else "false" if step.expected is False else step.expected
    return words["guard_of"].format(expected=expected)


def _clusters(by_scope: dict[str, list[str]]) -> list[str]:
    """The nodes of each name scope in nested frames (a scope "model/dense" inside "model")."""
    tree: dict = {}
    for scope in by_scope:
        branch = tree
        for part in filter(None, scope.split("/")):
            branch = branch.setdefault(part, {})
    counter = iter(range(10**6))

    def emit(branch: dict, path: str) -> list[str]:
        out = list(by_scope.get(path, []))
        for name, sub in branch.items():
            inner = f"{path}/{name}" if path else name
            out += [f'subgraph cluster_{next(counter)} {{ label="{_escape(name)}"; style=rounded; color="#999999";']
            out += [*emit(sub, inner), "}"]
        return out

    return emit(tree, "")


def _escape(text: str) -> str:
    return html.escape(str(text), quote=True).replace("\n", "\\n")

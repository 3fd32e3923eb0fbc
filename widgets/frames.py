"""What every node shows at every step, computed once from the step model and still structured.

A frame is the state after one event. Each event changes few nodes, so `node_changes` lists, per
event, the new state of the nodes it changes (and nothing else): the browser applies these changes
one event at a time in either direction, and `export.to_svg` folds them up to the step it draws.
Nothing here is text: `formatting` writes the states out (see `scene.frame_texts`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .formatting import NoGradient, Unknown
from .steps import StepModel


@dataclass(frozen=True)
class NodeState:
    """What one node shows: its value and its gradient (or tangent) so far, and how it is marked."""

    value: Any = None  # None: not reached yet; an array; or Unknown
    grad: Any = None  # None: not reached yet; an array; or NoGradient
    partial: bool = False  # `grad` is a running sum: more contributions come later
    nan: bool = False  # its pass made a NaN or inf here first
    nan_first: bool = False  # ... and it is the first op of the whole tape to do so
    backward_done: bool = False

    def classes(self) -> list[str]:
        flags = {
            "fwd-done": self.value is not None,
            "has-grad": self.grad is not None and not isinstance(self.grad, NoGradient),
            "grad-none": isinstance(self.grad, NoGradient),
            "nan": self.nan,
            "nan-first": self.nan_first,
            "bwd-done": self.backward_done,
            "grad-partial": self.partial,
        }
        return [name for name, on in flags.items() if on]


BLANK = NodeState()


def _value(node: Any) -> Any:
    return node.value if node.value is not None else Unknown(node.value_note)


def _last_contribution(model: StepModel) -> dict[str, int]:
    """Node -> the index of the event that last adds to its gradient: before it, the node shows a partial sum."""
    last = {}
    for index, event in enumerate(model.events):
        for c in event.contributions:
            if c.grad is not None:
                last[c.to] = index
    return last


class _Frames:
    def __init__(self, model: StepModel) -> None:
        self.model = model
        self.by_id = {n.id: n for n in model.nodes}
        self.state: dict[str, NodeState] = {}
        self.last = _last_contribution(model)
        self.gets_grad = set(self.last)
        self.first_nan = next((e.node for e in model.events if e.nonfinite and e.node), None)

    def set(self, changes: dict, node: str, **fields: Any) -> None:
        new = replace(changes.get(node, self.state.get(node, BLANK)), **fields)
        changes[node] = new

    def event(self, index: int, event: Any) -> dict:
        changes: dict[str, NodeState] = {}
        getattr(self, "_" + event.kind)(index, event, changes)
        if event.nonfinite and event.node:
            self.set(changes, event.node, nan=True, nan_first=event.node == self.first_nan)
        self.state.update(changes)
        return changes

    def _start(self, index: int, event: Any, changes: dict) -> None:
        for n in self.model.nodes:
            if n.record is None:
                self.set(changes, n.id, value=_value(n))
        for node, tangent in self.model.tangents.items():  # forward mode: each primal's tangent
            self.set(changes, node, grad=tangent)

    def _forward(self, index: int, event: Any, changes: dict) -> None:
        node = self.by_id[event.node]
        self.set(changes, event.node, value=event.value if event.value is not None else Unknown(node.value_note))
        if event.tangent is not None:
            self.set(changes, event.node, grad=event.tangent)

    def _seed(self, index: int, event: Any, changes: dict) -> None:
        for node in self.model.target:
            seed = np.ones(self.by_id[node].shape)
            self.set(changes, node, grad=seed, partial=self.last.get(node, -1) > index)

    def _backward(self, index: int, event: Any, changes: dict) -> None:
        self.set(changes, event.node, backward_done=True)
        for c in event.contributions:
            if c.grad is not None:
                self.set(changes, c.to, grad=c.total, partial=self.last[c.to] > index)
            elif c.to not in self.gets_grad:
                self.set(changes, c.to, grad=NoGradient(c.reason))

    def _result(self, index: int, event: Any, changes: dict) -> None:
        for node, g in self.model.gradients.items():
            if g is None and node in self.by_id:
                self.set(changes, node, grad=NoGradient(self.model.reasons.get(node)))


def node_changes(model: StepModel) -> list[dict[str, NodeState]]:
    """Per event: {node id: its state after the event}, for the nodes the event changes."""
    frames = _Frames(model)
    return [frames.event(index, event) for index, event in enumerate(model.events)]


def final_states(changes: list[dict[str, NodeState]]) -> dict[str, NodeState]:
    """Every node's state after the last event."""
    out: dict[str, NodeState] = {}
    for step in changes:
        out.update(step)
    return out

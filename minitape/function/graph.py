"""The graph one trace recorded: numbered slots (the values) and the steps that fill them, in execution order.

A slot holds one array while the graph runs: a function input, a constant, an op's output, a variable's value as
read. Five kinds of step:

  OpStep      an op's numpy forward on some slots, giving one or more slots (`execute.apply` without the rest)
  ReadStep    a variable's value at that moment, into a slot
  AssignStep  a variable's new value from a slot (assign, assign_add, assign_sub), written when the step runs
  CallStep    a Python function the graph calls again at every run (`mt.print`, an optimizer's update, ...)
  GuardStep   a Python branch taken on a tensor at tracing: the run stops if the value now goes the other way
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class OpStep:
    op: Any  # the OpDef
    inputs: tuple[int, ...]
    attrs: dict
    outputs: tuple[int, ...]
    dtype: Any  # the dtype numpy's result is given (the op's `dtype_from` input's), or None
    scope: str = ""  # the name scope it ran in
    backward_of: str | None = None  # the op whose gradient rule ran it, for ops of a backward pass


@dataclass
class ReadStep:
    variable: Any
    output: int
    scope: str = ""


@dataclass
class AssignStep:
    variable: Any
    op_type: str  # AssignVariableOp, AssignAddVariableOp or AssignSubVariableOp
    source: int
    scope: str = ""
    old_value: Any = None  # the value before the trace wrote it (get_concrete_function puts it back)


@dataclass
class CallStep:
    function: Any
    args: Any  # the arguments, with a `Slot` where a tensor of the graph goes
    kwargs: dict
    outputs: Any  # what it returned, with a `Slot` where it returned a tensor
    scope: str = ""

    @property
    def io(self) -> tuple:
        return self.args, self.kwargs


@dataclass
class GuardStep:
    slot: int
    kind: str  # "bool": a branch on the tensor's truth; "value": a Python number made from it
    expected: Any
    where: str = ""  # the user's line of code, for messages


@dataclass(frozen=True)
class Slot:
    """Where a graph's tensor goes in a structure of arguments or results (for a result, with its shape then)."""

    index: int
    shape: tuple | None = None


@dataclass
class Graph:
    """What one trace recorded: see the module's docstring."""

    name: str
    steps: list = field(default_factory=list)
    n_slots: int = 0
    constants: dict[int, np.ndarray] = field(default_factory=dict)
    inputs: list[int] = field(default_factory=list)  # the input slots, in the order of the call's tensors
    input_names: dict[int, str] = field(default_factory=dict)
    outputs: Any = None  # the function's result, with a `Slot` for each tensor
    created_variables: list = field(default_factory=list)

    def new_slot(self) -> int:
        self.n_slots += 1
        return self.n_slots - 1

    @property
    def guarded(self) -> bool:
        return any(type(s) is GuardStep for s in self.steps)

    def prune(self) -> None:
        """Drop the ops whose results nothing uses (a tape computes some a function never returns)."""
        needed = {s.index for s in _slots_in(self.outputs)}
        kept = []
        for step in reversed(self.steps):
            if type(step) is OpStep and needed.isdisjoint(step.outputs):
                continue
            kept.append(step)
            needed.update(reads(step))
        self.steps = kept[::-1]

    def __getattr__(self, name: str) -> Any:  # called only for names the graph lacks
        from minitape.namespaces import missing

        if name in missing.GRAPH:
            missing.raise_missing("FuncGraph", name, missing.GRAPH)
        raise AttributeError(f"'Graph' object has no attribute {name!r}")

    def variables(self) -> list:
        """The variables the graph reads or writes, each once, in the order it first uses them."""
        seen: dict[int, Any] = {}
        for step in self.steps:
            if type(step) in (ReadStep, AssignStep):
                seen.setdefault(id(step.variable), step.variable)
        return list(seen.values())


def reads(step: Any) -> list[int]:
    """The slots a step reads."""
    kind = type(step)
    if kind is OpStep:
        return list(step.inputs)
    if kind is AssignStep:
        return [step.source]
    if kind is GuardStep:
        return [step.slot]
    return [s.index for s in _slots_in(step.io)] if kind is CallStep else []


def writes(step: Any) -> list[int]:
    """The slots a step fills."""
    kind = type(step)
    if kind is OpStep:
        return list(step.outputs)
    if kind is ReadStep:
        return [step.output]
    return [s.index for s in _slots_in(step.outputs)] if kind is CallStep else []


def _slots_in(structure: Any) -> list[Slot]:
    from minitape.values import nest

    return [leaf for leaf in nest.flatten(structure) if type(leaf) is Slot]

"""`Observer`: what a listener hears from the backward sweep (`backprop.backward`), in order.

The visualizer's step model is one: it shows the numbers the engine computes, because it hears
them from the engine's own sweep instead of computing them again.
"""

from __future__ import annotations

from typing import Any


class Observer:
    """What a listener hears from `backward`, in order. Subclass it and override what you need."""

    def rule(self, op: Any, upstream: list) -> None:
        """`op`'s rule is about to run; `upstream` holds the complete gradient of each of its outputs."""

    def no_gradient(self, op: Any) -> None:
        """A gradient reached `op`, which has no gradient (`no_gradient`, e.g. stop_gradient): it stops here."""

    def missing_rule(self, op: Any, error: LookupError) -> bool:
        """A gradient reached `op`, which has no registered rule. Return True to go on; False raises `error`."""
        return False

    def contribution(self, op: Any, slot: int, grad: Any, total: Any) -> None:
        """The rule gave `grad` for input `slot`; `total` is that input's running sum so far."""

    def complete(self, grads: dict[int, Any]) -> None:
        """The sweep is over: the gradient of every source a path reached, by id."""

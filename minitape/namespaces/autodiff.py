"""`mt.autodiff`, as `tf.autodiff`: forward mode's `ForwardAccumulator` (the engine's forward.py holds it)."""

from minitape.engine.forward import ForwardAccumulator

__all__ = ["ForwardAccumulator"]

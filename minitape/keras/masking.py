"""Keras masks: which steps of a padded sequence are real. A layer attaches a mask to its output (`_keras_mask`,
a bool (batch, steps) tensor); the next layer whose `call` takes `mask` receives it, and layers that keep the
steps pass it on (see `Layer.__call__`). The mask is a tensor computed by ops from the inputs, so a traced
function replayed on other padding computes the new mask."""

from __future__ import annotations

import warnings
from typing import Any

from minitape.values.tensor_like import KERAS_MASKS, TensorLike


def get_mask(value: Any) -> Any:
    """The Keras mask attached to `value` (None for a tensor without one, or for anything else)."""
    entry = KERAS_MASKS.get(id(value)) if KERAS_MASKS else None
    return entry[1] if entry is not None and entry[0]() is value else None


def masks_of(inputs: Any) -> Any:
    """The masks of a layer's inputs in their structure (a list for a list of inputs), or None if none has one."""
    if not KERAS_MASKS:
        return None
    if isinstance(inputs, (list, tuple)):
        masks = [masks_of(x) for x in inputs]
        return masks if any(m is not None for m in masks) else None
    return get_mask(inputs)


def set_masks(layer: Any, inputs: Any, outputs: Any, previous: Any) -> None:
    """Attach `layer.compute_mask(inputs, previous)` to outputs that have no mask yet, as Keras 3 does; a layer
    that does not support masking drops the mask it was given, with Keras 3's warning."""
    if not layer.supports_masking:
        if _any_mask(previous):
            warnings.warn(
                f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input with a mask attached to "
                "it. However, this layer does not support masking and will therefore destroy the mask information. "
                "Downstream layers will not see the mask.",
                stacklevel=1,  # from here, as Keras warns from its layer.py: Python's default filter shows it once
            )
        return
    flat = _flat(outputs)
    if flat and all(get_mask(x) is not None for x in flat):  # the layer's call attached them itself
        return
    masks = layer.compute_mask(inputs, previous)
    if masks is None:
        return
    for tensor, mask in zip(flat, _flat(masks) if isinstance(masks, (list, tuple)) else [masks]):
        if mask is not None and isinstance(tensor, TensorLike) and get_mask(tensor) is None:
            tensor._keras_mask = mask


def _flat(values: Any) -> list:
    if isinstance(values, (list, tuple)):
        return [v for x in values for v in _flat(x)]
    return [values] if isinstance(values, TensorLike) or values is None else []


def _any_mask(masks: Any) -> bool:
    if isinstance(masks, (list, tuple)):
        return any(_any_mask(m) for m in masks)
    return masks is not None

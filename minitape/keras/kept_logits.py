"""The logits behind a Keras softmax or sigmoid output, as Keras 3 on TensorFlow keeps them (`_keras_logits`).

Keras 3's TensorFlow backend attaches to every output of `keras.ops.softmax` and `keras.ops.sigmoid` (so of
`activation="softmax"`, `"sigmoid"` and the Softmax layer) the tensor it was computed from. Its crossentropy
losses look for it: given such probabilities, they compute the loss from the logits with TensorFlow's fused
ops. That changes the numbers: no clipping of the probabilities, and, for categorical crossentropy, the fused
op's gradient softmax(logits) - y_true, which differs from the formula's own derivative when a row of y_true
does not sum to 1 (multi-hot labels, label noise). minitape's Tensors take no new attributes, so the link is
kept here, for as long as the output lives.
"""

from __future__ import annotations

import weakref
from typing import Any

_LOGITS: dict[int, tuple[weakref.ref, Any]] = {}  # id(output) -> (the output, weakly; its logits)


def keep(output: Any, logits: Any) -> Any:
    """Remember that `output` is a softmax or sigmoid of `logits`; returns `output`."""
    key = id(output)
    try:
        ref = weakref.ref(output, lambda _ref, key=key: _LOGITS.pop(key, None))
    except TypeError:  # not a minitape tensor (a numpy array): nothing to attach
        return output
    _LOGITS[key] = (ref, logits)
    return output


def of(output: Any) -> Any:
    """The logits `output` was computed from by a Keras softmax or sigmoid, or None."""
    entry = _LOGITS.get(id(output))
    if entry is None or entry[0]() is not output:
        return None
    return entry[1]

"""The text table of `model.summary()`."""

from __future__ import annotations

from typing import Any

import numpy as np


def _params(variables: list) -> int:
    return int(sum(np.prod(v.shape, dtype=np.int64) for v in variables))


def _cell(text: str, width: int) -> str:
    text = f" {text}"
    return text[: width - 1] + " " if len(text) >= width else text.ljust(width)


def model_summary(model: Any, line_length: int = 65) -> str:
    """Layer (type) | Output Shape | Param #, then the totals; shapes show the batch axis as None. A layer not
    built yet (no call, no input shape) shows '?' and '0 (unbuilt)', as in Keras 3: it has no weights yet."""
    widths = [int(line_length * 0.45), int(line_length * 0.35)]
    widths.append(line_length - sum(widths))
    lines = [f'Model: "{model.name}"', "_" * line_length]
    lines.append("".join(_cell(t, w) for t, w in zip(("Layer (type)", "Output Shape", "Param #"), widths)))
    lines.append("=" * line_length)
    for layer in model.layers:
        try:
            shape = str(layer.output_shape).replace(",)", ")")
        except AttributeError:  # never called
            shape = "?"
        row = (
            f"{layer.name} ({type(layer).__name__})",
            shape,
            str(layer.count_params()) if layer.built else "0 (unbuilt)",
        )
        lines.append("".join(_cell(t, w) for t, w in zip(row, widths)))
    lines.append("=" * line_length)
    trainable = _params(model.trainable_variables)
    frozen = _params(model.non_trainable_variables)
    lines += [
        f"Total params: {trainable + frozen:,}",
        f"Trainable params: {trainable:,}",
        f"Non-trainable params: {frozen:,}",
        "_" * line_length,
    ]
    return "\n".join(lines)

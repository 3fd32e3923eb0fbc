"""What `compile` and the train/test steps need for models with several outputs: a loss (and its weight) per
output, given once, as a list in output order, or as a dict by output name."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitape.values import nest


def by_output(value: Any, model: Any, what: str, convert: Callable) -> Any:
    """A loss given once, per output in a list, or per output name in a dict, converted item by item."""
    if isinstance(value, dict):
        names = model.output_names
        unknown = sorted(set(value) - set(names))
        if unknown:
            raise ValueError(f"compile: {what} has keys {unknown} that are not output names; the outputs are {names}")
        return {k: convert(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if model.outputs and len(value) != len(model.outputs):
            raise ValueError(
                f"compile: {what} is a list of {len(value)} but the model has {len(model.outputs)} outputs "
                f"{model.output_names}"
            )
        return [convert(v) for v in value]
    return convert(value)


def is_list_of_lists(metrics: Any) -> bool:
    """`metrics=[["accuracy"], ["mae"]]`: one list per output (None for an output without metrics)."""
    return (
        isinstance(metrics, (list, tuple))
        and bool(metrics)
        and all(isinstance(m, (list, tuple)) or m is None for m in metrics)
    )


def ordered(model: Any, values: Any) -> Any:
    """Targets or predictions in output order (a dict keyed by output name becomes a list)."""
    if isinstance(values, dict) and model.outputs and not isinstance(model.output, dict):
        return [values[name] for name in model.output_names]
    return values


def pair_outputs(model: Any, loss: Any, y: Any, y_pred: Any) -> list[tuple[Any, Any, Any]]:
    """(loss, target, prediction) for each output."""
    predictions = nest.flatten(ordered(model, y_pred))
    targets = nest.flatten(ordered(model, y))
    if len(targets) != len(predictions):
        raise ValueError(f"The model has {len(predictions)} outputs but y holds {len(targets)} targets")
    if isinstance(loss, dict):
        fns = [loss.get(name) for name in model.output_names]
    elif isinstance(loss, list):
        fns = loss
    else:
        fns = [loss] * len(predictions)
    return list(zip(fns, targets, predictions))


def pair_weights(model: Any, weights: Any, n: int) -> list[float]:
    if weights is None:
        return [1.0] * n
    if isinstance(weights, dict):
        return [float(weights.get(name, 1.0)) for name in model.output_names]
    return [float(w) for w in weights]


def batch_size_of(y_pred: Any) -> int:
    return int(nest.flatten(y_pred)[0].shape[0])

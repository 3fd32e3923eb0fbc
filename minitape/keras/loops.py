"""The loops behind `Model.fit`, `evaluate` and `predict`: batches in, steps run, callbacks told, as in Keras 3.

Each loop calls its callbacks' hooks in Keras 3's order, each with a logs dict: fit calls the train hooks, and the
test hooks during its validation pass; evaluate the test hooks; predict the predict hooks (logs {'outputs': ...}).

Each loop calls the model's step function (`make_train_function` and friends): its `train_step`, `test_step` or
`predict_step` wrapped in `mt.function`, as Keras 3 wraps them in `tf.function`, unless the model was compiled with
`run_eagerly=True`. So a Python side effect in a step (a `print` in `call`) happens when the step is traced, and
`mt.print` at every step. TensorFlow traces a step once for any batch size (its batch axis is `None`); minitape
traces on real values, so once per batch shape: a smaller last batch is traced too (see README).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.function.polymorphic import Function, without_retracing_warning
from minitape.keras import backend, data_adapter
from minitape.keras.callbacks import CallbackList, History, Progbar
from minitape.values import nest


def _verbosity(verbose: Any) -> int:
    return 1 if verbose == "auto" else int(verbose)


def numbers(logs: dict) -> dict:
    """A step's logs as Python floats where they are single numbers (a custom train_step may return tensors),
    as Keras hands them to callbacks and History; a dict inside (compile_metrics' result) gives its entries.
    The names are sorted, as Keras 3 sorts them ('accuracy' before 'loss')."""
    flat: dict = {}
    for key, value in sorted(logs.items()):
        if isinstance(value, dict):
            flat.update(numbers(value))
        else:
            flat[key] = float(np.asarray(value).item()) if np.size(value) == 1 else value
    return flat


def step_function(model: Any, step: Callable, kind: str) -> Callable:
    """`step` (a batch in, logs or outputs out) as the loops call it: itself if the model runs eagerly, else traced
    by `mt.function`, which replays its graph for the next batch of the same shape and dtypes. The batch sizes of
    one fit (and so the traces) are few, so the retracing warning, which TensorFlow would not give, is off."""

    def one_step_on_data(data: Any) -> Any:  # a batch of arrays comes as tensors, as Keras' batches do
        return step(nest.map_structure(lambda v: Tensor(v) if isinstance(v, np.ndarray) else v, data))

    if model.run_eagerly:
        return one_step_on_data
    traced = without_retracing_warning(Function(one_step_on_data, reduce_retracing=True, name=f"{kind}_function"))
    return TracedStep(traced, one_step_on_data, kind)


class TracedStep:
    """A step function traced by `mt.function` (the Function's attributes are its own), which runs the step eagerly
    from the moment a new graph has a branch it cannot replay safely (BRANCH_AFTER_UPDATE), with a warning."""

    def __init__(self, traced: Function, eager: Callable, kind: str) -> None:
        self.traced, self.eager, self.kind = traced, eager, kind
        self.runs_eagerly = False
        self.traces = 0

    def __call__(self, data: Any) -> Any:
        if self.runs_eagerly:
            return self.eager(data)
        result = self.traced(data)
        if self.traced.experimental_get_tracing_count() != self.traces:  # a new graph: can it be replayed safely?
            self.traces = self.traced.experimental_get_tracing_count()
            branch = self.traced.branch_after_state_change()
            if branch is not None:
                self.runs_eagerly = True
                where = branch.where or "a line of the step"
                warnings.warn(BRANCH_AFTER_UPDATE.format(kind=self.kind, where=where), stacklevel=4)
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self.traced, name)


# TensorFlow's AutoGraph turns such an `if` into a tf.cond that holds both branches; minitape's graph replays one
# branch, and cannot take back the update it ran before finding that the branch went the other way
BRANCH_AFTER_UPDATE = (
    "the {kind} step branches on a tensor's value after an optimizer's or a metric's update (at {where}): minitape's "
    "traced step could not replay the other branch, so this model's {kind} step runs eagerly from now on, as with "
    "compile(run_eagerly=True). To keep it traced, decide the branch before the update, or compute both ways with "
    "mt.where."
)


def _should_validate(epoch: int, validation_freq: Any) -> bool:
    """Keras' validation_freq: an int N validates every N epochs; a list names the (1-based) epochs."""
    if isinstance(validation_freq, int):
        return (epoch + 1) % validation_freq == 0
    return epoch + 1 in validation_freq


def fit(model: Any, x: Any, y: Any, batch_size: Any, epochs: int, verbose: Any, callbacks: Any, validation_data: Any,
        shuffle: bool, sample_weight: Any, initial_epoch: int, steps_per_epoch: Any, validation_steps: Any,
        validation_batch_size: Any, validation_freq: Any) -> History:  # fmt: skip
    """Model.fit after its arguments are checked: the epoch loop."""
    verbose = _verbosity(verbose)
    batches_of = data_adapter.batcher(x, y, batch_size, "fit", sample_weight, needs_y=model.loss is not None)
    iterator = data_adapter.EpochIterator(batches_of, steps_per_epoch, "fit", shuffle)
    history = History()
    # History last, as in Keras: it records what the callbacks before it add to the logs
    hooks = CallbackList([*(callbacks or []), history], model, {"epochs": epochs, "steps": iterator.steps,
                                                               "verbose": verbose})  # fmt: skip
    hooks.on_train_begin()
    model.stop_training = False
    epoch_logs: dict = {}
    for epoch in range(initial_epoch, epochs):
        hooks.on_epoch_begin(epoch)
        if verbose and epochs > 1:  # Keras 3's progress bar, the last callback: after the others' hooks, and
            print(f"Epoch {epoch + 1}/{epochs}")  # only when there are several epochs
        model.reset_metrics()
        bar = Progbar(iterator.steps, verbose=verbose)
        logs: dict = {}
        seen = 0
        train_function = model.make_train_function()
        for step, batch in iterator.epoch(epoch):
            seen = step + 1
            hooks.on_train_batch_begin(step)
            logs = numbers(train_function(batch))
            hooks.on_train_batch_end(step, logs=logs)
            bar.update(seen, logs)
        if seen == 0:  # a generator used up by an earlier epoch: nothing more to train on
            bar.verbose = 0
            model.stop_training = True
            break
        bar.target = iterator.steps
        if validation_data is not None and _should_validate(epoch, validation_freq):
            val = _validate(model, validation_data, validation_batch_size or batch_size, validation_steps, hooks)
            logs = {**logs, **{f"val_{k}": v for k, v in val.items()}}
        epoch_logs = dict(logs)  # one dict for every callback, as in Keras: what one adds, the next sees
        hooks.on_epoch_end(epoch, logs=epoch_logs)
        bar.update(iterator.steps, epoch_logs, finalize=True)  # with what the callbacks added
        if model.stop_training:
            break
    hooks.on_train_end(logs=epoch_logs)
    return history


def _validate(model: Any, data: Any, batch_size: Any, steps: Any, hooks: CallbackList) -> dict:
    """fit's validation pass: evaluate on `data`, calling the test hooks of fit's callbacks, as Keras 3 does."""
    if data_adapter.is_dataset(data):
        x, y, weights, batch_size = data, None, None, None
    else:
        x, y, weights = data_adapter.unpack(tuple(data))
    batches_of = data_adapter.batcher(x, y, batch_size, "evaluate", weights, needs_y=model.loss is not None)
    return test_loop(model, data_adapter.EpochIterator(batches_of, steps, "evaluate"), 0, hooks)


def test_loop(model: Any, iterator: data_adapter.EpochIterator, verbose: int, hooks: CallbackList) -> dict:
    """One pass of test_step over the batches, with the test hooks; the final logs."""
    model.reset_metrics()
    bar = Progbar(iterator.steps, verbose=verbose)
    hooks.on_test_begin()
    logs: dict = {}
    step = -1
    test_function = model.make_test_function()
    for step, batch in iterator.epoch():
        hooks.on_test_batch_begin(step)
        logs = numbers(test_function(batch))
        hooks.on_test_batch_end(step, logs=logs)
        bar.update(step + 1, logs)
    bar.target = step + 1
    # Keras 3 flattens and sorts the names once for evaluate's result and once more for the callbacks
    final = dict(sorted(logs.items()))
    hooks.on_test_end(logs=final)
    bar.update(step + 1, final, finalize=True)
    return logs


def evaluate(model: Any, x: Any, y: Any, batch_size: Any, verbose: Any, sample_weight: Any, steps: Any,
             callbacks: Any) -> dict:  # fmt: skip
    """Model.evaluate's loop: the final logs."""
    verbose = _verbosity(verbose)
    batches_of = data_adapter.batcher(x, y, batch_size, "evaluate", sample_weight, needs_y=model.loss is not None)
    iterator = data_adapter.EpochIterator(batches_of, steps, "evaluate")
    hooks = CallbackList(callbacks, model, {"epochs": 1, "steps": iterator.steps, "verbose": verbose})
    return test_loop(model, iterator, verbose, hooks)


def predict(model: Any, x: Any, batch_size: Any, verbose: Any, steps: Any, callbacks: Any) -> Any:
    """Model.predict's loop: the outputs of every batch, joined, as numpy arrays."""
    verbose = _verbosity(verbose)
    batches_of = data_adapter.batcher(x, None, batch_size, "predict")
    iterator = data_adapter.EpochIterator(batches_of, steps, "predict")
    hooks = CallbackList(callbacks, model, {"epochs": 1, "steps": iterator.steps, "verbose": verbose})
    bar = Progbar(iterator.steps, verbose=verbose)
    hooks.on_predict_begin()
    outputs = []
    step = -1
    predict_function = model.make_predict_function()
    for step, batch in iterator.epoch():
        hooks.on_predict_batch_begin(step)
        output = nest.map_structure(backend.to_numpy, predict_function(batch))
        outputs.append(output)
        hooks.on_predict_batch_end(step, logs={"outputs": output})
        bar.update(step + 1)
    bar.target = step + 1
    hooks.on_predict_end()
    bar.update(step + 1, finalize=True)
    if not outputs:  # Keras 3 fails here too (an UnboundLocalError): say why
        raise ValueError(
            "predict(): x gave no batches (it holds 0 examples), so there is nothing to predict and no output shape "
            "to give; check how x was built or sliced"
        )
    flat = [nest.flatten(o) for o in outputs]
    joined = [np.concatenate([f[i] for f in flat]) for i in range(len(flat[0]))]
    return nest.pack_sequence_as(outputs[0], joined)

"""What Keras has and minitape does not: each name gets an error saying it is missing and what to use instead."""

from __future__ import annotations

_SAVE = (
    "minitape cannot save models to files; keep the weights with `weights = model.get_weights()` and restore them "
    "with `model.set_weights(weights)` (or np.save the arrays yourself)"
)

_INSTEAD: dict[str, str] = {
    # keras.*
    "keras.saving.save_model": _SAVE,
    "keras.saving.load_model": _SAVE,
    "keras.mixed_precision": "minitape computes in one dtype (float32 by default): no mixed precision",
    "keras.preprocessing": "prepare the data with numpy (or mt.image) before fit",
    "keras.applications": "there are no pretrained models; build the network from keras.layers",
    "keras.export": _SAVE,
    # keras.models.* / model methods
    "keras.models.load_model": _SAVE,
    "keras.models.save_model": _SAVE,
    "keras.models.clone_model": "build a new model with the same code, then new.set_weights(old.get_weights())",
    "keras.models.model_from_json": _SAVE,
    "keras.Model.save": _SAVE,
    "keras.Model.save_weights": _SAVE,
    "keras.Model.load_weights": _SAVE,
    "keras.Model.to_json": _SAVE,
    "keras.Model.export": _SAVE,
    # keras.callbacks.*
    "keras.callbacks.TensorBoard": (
        "there is no TensorBoard logging; fit returns a History whose .history dict holds every logged value "
        "per epoch: plot it with matplotlib"
    ),
    "keras.callbacks.ModelCheckpoint": (
        "minitape cannot save models; to keep the best weights use "
        "keras.callbacks.EarlyStopping(restore_best_weights=True), or get_weights() in your own Callback"
    ),
    "keras.callbacks.BackupAndRestore": _SAVE,
    "keras.callbacks.CSVLogger": "write History.history (a dict of lists) to CSV yourself, e.g. with the csv module",
    "keras.callbacks.ReduceLROnPlateau": (
        "use a schedule (keras.optimizers.schedules.ExponentialDecay) or keras.callbacks.LearningRateScheduler"
    ),
}


def missing(namespace: str, name: str) -> AttributeError:
    """The error for `namespace.name`, which minitape does not have."""
    key = f"{namespace}.{name}"
    if name.startswith("__"):
        return AttributeError(f"module {namespace!r} has no attribute {name!r}")
    hint = _INSTEAD.get(key, "see 'What is not there' in README.md")
    return AttributeError(f"minitape has no {key}: {hint}.")


def method(owner: str, name: str):  # noqa: ANN201 - a function standing in for a missing method
    """A method that raises NotImplementedError naming itself and what to use instead."""

    def unsupported(self: object, *args: object, **kwargs: object) -> None:
        raise NotImplementedError(f"minitape has no {owner}.{name}(): {_INSTEAD[f'{owner}.{name}']}.")

    unsupported.__name__ = name
    unsupported.__doc__ = f"Not in minitape: {_INSTEAD[f'{owner}.{name}']}."
    return unsupported

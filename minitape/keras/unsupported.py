"""What Keras has and minitape does not: each name gets an error saying it is missing and what to use instead."""

from __future__ import annotations

_SAVE = (
    "minitape saves weights, not whole models (it writes no model files; get_config/from_config copy a model's "
    "architecture within a session): "
    "`model.save_weights('model.weights.h5')` writes Keras 3's weights file, and after building the same "
    "model again with the same code, `model.load_weights('model.weights.h5')` restores it"
)

_INSTEAD: dict[str, str] = {
    # keras.*
    "keras.saving.save_model": _SAVE,
    "keras.saving.load_model": _SAVE,
    "keras.mixed_precision": "minitape computes in one dtype (float32 by default): no mixed precision",
    "keras.preprocessing.image": "prepare images with numpy (or mt.image) before fit",
    "keras.preprocessing.text": "split and index the text with Python (a dict of words), then pad_sequences",
    "keras.applications": "there are no pretrained models; build the network from keras.layers",
    "keras.export": _SAVE,
    # keras.utils.*
    "keras.utils.plot_model": (
        "there is no model plot; print model.summary(), or draw a recorded tape with minitape.widgets.TapeView"
    ),
    "keras.utils.Sequence": (
        "fit takes any iterable of (x, y) batches: pass a generator over your batches, e.g. "
        "(seq[i] for i in range(len(seq))), or mt.data.Dataset.from_generator"
    ),
    "keras.utils.PyDataset": (
        "fit takes any iterable of (x, y) batches: pass a generator over your batches, e.g. "
        "(ds[i] for i in range(len(ds))), or mt.data.Dataset.from_generator"
    ),
    "keras.utils.model_to_dot": "there is no model plot; print model.summary()",
    "keras.utils.array_to_img": "show the array with matplotlib: plt.imshow(array)",
    "keras.utils.img_to_array": "images are numpy arrays already: np.asarray(image, 'float32')",
    "keras.utils.load_img": "read images with Pillow or matplotlib, then convert with np.asarray",
    # keras.models.* / model methods
    "keras.models.load_model": _SAVE,
    "keras.models.save_model": _SAVE,
    "keras.models.model_from_json": _SAVE,
    "keras.Model.save": _SAVE,
    "keras.Model.to_json": _SAVE,
    "keras.Model.export": _SAVE,
    # keras.callbacks.*
    "keras.callbacks.TensorBoard": (
        "there is no TensorBoard logging; fit returns a History whose .history dict holds every logged value "
        "per epoch: plot it with matplotlib"
    ),
    "keras.callbacks.BackupAndRestore": (
        "there is no resumable training state (minitape does not save the optimizer); save the weights each "
        "epoch with keras.callbacks.ModelCheckpoint('ckpt.weights.h5', save_weights_only=True) and load_weights "
        "them before fitting again"
    ),
    "keras.callbacks.CSVLogger": "write History.history (a dict of lists) to CSV yourself, e.g. with the csv module",
    "keras.callbacks.ReduceLROnPlateau": (
        "use a schedule (keras.optimizers.schedules.ExponentialDecay) or keras.callbacks.LearningRateScheduler"
    ),
    "keras.callbacks.TerminateOnNaN": (
        "check the loss in your own Callback: on_train_batch_end(self, batch, logs) can set "
        "self.model.stop_training = True when np.isnan(logs['loss'])"
    ),
    # keras.losses.*
    **dict.fromkeys(
        [f"keras.losses.{n}" for n in ("BinaryFocalCrossentropy", "binary_focal_crossentropy")],
        "there is no focal loss; weigh the examples with class_weight or sample_weight, or write "
        "-alpha (1 - p)^gamma log p as a keras.losses.Loss subclass",
    ),
    **dict.fromkeys(
        [f"keras.losses.{n}" for n in ("CategoricalFocalCrossentropy", "categorical_focal_crossentropy")],
        "there is no focal loss; weigh the examples with class_weight or sample_weight, or write "
        "-alpha (1 - p)^gamma log p as a keras.losses.Loss subclass",
    ),
    **dict.fromkeys([f"keras.losses.{n}" for n in ("CTC", "ctc")], "there is no CTC loss (it is for sequence models)"),
    **dict.fromkeys(
        [
            f"keras.losses.{n}"
            for n in ("Dice", "dice", "Tversky", "tversky", "Circle", "circle")
            + ("CategoricalGeneralizedCrossEntropy", "categorical_generalized_cross_entropy")
        ],
        "write it as a keras.losses.Loss subclass with call(y_true, y_pred) returning one loss per example",
    ),
    "keras.losses.Reduction": "pass reduction as a string: 'sum_over_batch_size', 'sum' or 'none'",
    # keras.metrics.*
    **dict.fromkeys(
        [
            f"keras.metrics.{n}"
            for n in ("IoU", "MeanIoU", "BinaryIoU", "OneHotIoU", "OneHotMeanIoU", "F1Score", "FBetaScore")
        ],
        "compute it from keras.metrics.TruePositives, FalsePositives and FalseNegatives (e.g. F1 = "
        "2 tp / (2 tp + fp + fn)), or subclass keras.metrics.Metric",
    ),
    **dict.fromkeys(
        [
            f"keras.metrics.{n}"
            for n in ("PrecisionAtRecall", "RecallAtPrecision", "SensitivityAtSpecificity", "SpecificityAtSensitivity")
        ],
        "use keras.metrics.Precision and Recall with a list of thresholds and pick the threshold you need",
    ),
    **dict.fromkeys(
        [
            f"keras.metrics.{n}"
            for n in ("PearsonCorrelation", "pearson_correlation", "ConcordanceCorrelation", "concordance_correlation")
        ],
        "use np.corrcoef on model.predict(x) and y, or keras.metrics.R2Score",
    ),
    "keras.metrics.binary_focal_crossentropy": "there is no focal loss; use keras.metrics.binary_crossentropy",
    "keras.metrics.categorical_focal_crossentropy": (
        "there is no focal loss; use keras.metrics.categorical_crossentropy"
    ),
    # keras.optimizers.*
    **dict.fromkeys(
        [f"keras.optimizers.{n}" for n in ("Adafactor", "Ftrl", "Lamb", "Lion", "Muon", "ScheduleFreeAdamW")],
        "use Adam or AdamW (or SGD, RMSprop, Nadam, Adagrad, Adamax, Adadelta)",
    ),
    "keras.optimizers.LossScaleOptimizer": "minitape computes in one dtype: no loss scaling is needed",
    "keras.optimizers.MultiOptimizer": "call apply_gradients of each optimizer on its own variables in a train_step",
    "keras.optimizers.legacy": "the legacy optimizers are gone in Keras 3 too; use keras.optimizers.Adam etc.",
    "keras.optimizers.schedules.CosineDecayRestarts": (
        "use CosineDecay, or a LearningRateSchedule subclass whose __call__(step) restarts the cosine"
    ),
    # keras.layers.* (the core's table in minitape/namespaces/missing.py covers text, augmentation and 3-D layers)
    **dict.fromkeys(
        [f"keras.layers.{n}" for n in ("GaussianNoise", "GaussianDropout", "AlphaDropout", "SpatialDropout2D")],
        "use keras.layers.Dropout, or a Layer subclass that adds mt.random.normal noise while training",
    ),
    **dict.fromkeys(
        [f"keras.layers.{n}" for n in ("GroupNormalization", "UnitNormalization", "RMSNormalization")],
        "use keras.layers.LayerNormalization or BatchNormalization",
    ),
    "keras.layers.PReLU": "use keras.layers.LeakyReLU (a fixed slope) or ReLU(negative_slope=...)",
    "keras.layers.ThresholdedReLU": "use keras.layers.ReLU(threshold=...)",
    "keras.layers.Dot": "use keras.layers.Lambda(lambda t: mt.reduce_sum(t[0] * t[1], axis=-1, keepdims=True))",
    "keras.layers.EinsumDense": "use keras.layers.Dense, with Reshape around it",
    "keras.layers.ActivityRegularization": "give the previous layer activity_regularizer=keras.regularizers.L1(...)",
    "keras.layers.SpectralNormalization": "use a kernel_constraint such as keras.constraints.MaxNorm",
    "keras.layers.CenterCrop": "use keras.layers.Cropping2D",
    "keras.layers.Discretization": "bucket the values with np.digitize before converting",
    # keras.initializers.* / regularizers / activations
    **dict.fromkeys(
        [f"keras.regularizers.{n}" for n in ("OrthogonalRegularizer", "orthogonal_regularizer")],
        "use keras.regularizers.L2, or a function of the weights returning a scalar penalty",
    ),
    **dict.fromkeys(
        [
            f"keras.activations.{n}"
            for n in ("hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "mish", "celu", "glu", "squareplus")
            + ("hard_shrink", "soft_shrink", "tanh_shrink", "sparse_plus", "sparse_sigmoid", "sparsemax")
            + ("log_sigmoid", "threshold")
        ],
        "pass your own function of a tensor as activation=, written with mt ops (e.g. mt.nn.relu6, mt.tanh)",
    ),
}


def has_hint(namespace: str, name: str) -> bool:
    """Whether `namespace.name` has its own 'use this instead' in the table."""
    return f"{namespace}.{name}" in _INSTEAD


def missing(namespace: str, name: str) -> AttributeError:
    """The error for `namespace.name`, which minitape does not have."""
    key = f"{namespace}.{name}"
    if name.startswith("__"):
        return AttributeError(f"module {namespace!r} has no attribute {name!r}")
    hint = _INSTEAD.get(key, "see 'What is not there' in README.md")
    return AttributeError(f"minitape has no {key}: {hint}.")


def module_getattr(namespace: str):  # noqa: ANN201 - a module's __getattr__
    """A module `__getattr__` for `namespace`: a name it leaves out raises `missing(namespace, name)`."""

    def raise_missing(name: str) -> object:
        raise missing(namespace, name)

    return raise_missing


def method(owner: str, name: str):  # noqa: ANN201 - a function standing in for a missing method
    """A method that raises NotImplementedError naming itself and what to use instead."""

    def unsupported(self: object, *args: object, **kwargs: object) -> None:
        raise NotImplementedError(f"minitape has no {owner}.{name}(): {_INSTEAD[f'{owner}.{name}']}.")

    unsupported.__name__ = name
    unsupported.__doc__ = f"Not in minitape: {_INSTEAD[f'{owner}.{name}']}."
    return unsupported

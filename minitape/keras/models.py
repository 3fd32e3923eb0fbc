"""`Model` (subclass it: layers in `__init__`, the forward pass in `call`) and `Sequential`.

Training is split as in Keras: `fit` loops over epochs and batches and calls
`train_step(data)`, which is exactly the hand-written loop a lesson shows:
forward pass under a GradientTape, loss, `tape.gradient`, `optimizer.apply_gradients`.
Override `train_step` to customise training and keep `fit`'s loop and progress bar.
As in Keras, `fit` calls it through `mt.function` (`make_train_function`) unless `run_eagerly`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.engine.context import state
from minitape.engine.tape import GradientTape
from minitape.keras import backend, compile_utils, data_adapter, loops, model_config, symbolic, unsupported
from minitape.keras import losses as losses_module
from minitape.keras import metrics as metrics_module
from minitape.keras import optimizers as optimizers_module
from minitape.keras.callbacks import Callback, History
from minitape.keras.layers.base import Layer
from minitape.ops.api import add_n
from minitape.ops.math_ops import cast
from minitape.values import nest

# Keras 3.15's warnings for Keras 2's names in a train_step, word for word
_COMPILED_METRICS_DEPRECATED = (
    "`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\nfor metric in self.metrics:\n"
    "    metric.update_state(y, y_pred)\n```\n"
)
_COMPILED_LOSS_DEPRECATED = (
    "`model.compiled_loss()` is deprecated. Instead, use `model.compute_loss(x, y, y_pred, sample_weight, training)`."
)


class Model(Layer):
    """A layer that can be trained: `compile`, then `fit`, `evaluate`, `predict`.

    Subclass it (layers in `__init__`, the forward pass in `call`), or give it the KerasTensors of the
    functional API: `Model(inputs, outputs)`, each a KerasTensor or a list or dict of them.
    """

    def __init__(self, inputs: Any = None, outputs: Any = None, **kwargs: Any) -> None:
        if type(self) is Model and inputs is not None and kwargs.get("name") is None:
            kwargs["name"] = backend.unique_name("functional")  # Keras 3's name for Model(inputs, outputs)
        super().__init__(**kwargs)
        self.optimizer: Any = None
        self.loss: Any = None
        self._metric_pairs: list = []  # (output index or None, metric), in compile's order
        self.stop_training = False
        self._run_eagerly = False
        self.train_function: Callable | None = None  # made by fit, as Keras names it (make_train_function)
        self.test_function: Callable | None = None
        self.predict_function: Callable | None = None
        self._graph: symbolic.Graph | None = None
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("Model(inputs, outputs): give both the keras.Input tensors and the output tensors")
            self._graph = symbolic.Graph(inputs, outputs)
            self._functional_layers = self._graph.layers()  # an attribute, so their weights are tracked
            self.built = True

    def get_config(self) -> dict:
        """A functional model's architecture (its layers and how they are called), as Keras 3 writes it; for a
        subclassed model, Keras 3's base keys (add your __init__'s arguments by overriding it)."""
        if self._graph is not None:
            return model_config.functional_config(self)
        return super().get_config()

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Any:
        """A new model from `get_config()`: a functional one is rebuilt layer by layer (with new weights:
        copy them with `new.set_weights(old.get_weights())`); a subclassed one is `cls(**config)`."""
        if "input_layers" in config and "layers" in config:
            return model_config.functional_from_config(Model if cls is Model else cls, config, custom_objects)
        return super().from_config(config)

    # ---- the functional API ------------------------------------------------------------------------
    @property
    def inputs(self) -> list:
        return list(self._graph.flat_inputs) if self._graph is not None else []

    @property
    def outputs(self) -> list:
        return list(self._graph.flat_outputs) if self._graph is not None else []

    @property
    def input(self) -> Any:
        """The model's input KerasTensor(s), in the structure given to Model(inputs=...)."""
        return self._functional("input").inputs

    @property
    def output(self) -> Any:
        """The model's output KerasTensor(s), in the structure given to Model(outputs=...)."""
        return self._functional("output").outputs

    def _functional(self, what: str) -> symbolic.Graph:
        if self._graph is None:
            if "_inbound_node" in vars(self):  # a subclassed model called on a keras.Input
                return self._inbound_node
            raise AttributeError(f'Model "{self.name}" has no {what}: it was not built with the functional API')
        return self._graph

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """The layer called `name`, or the layer at position `index` of `model.layers`."""
        if index is not None:
            if name is not None:
                raise ValueError("get_layer: give either name or index, not both")
            if not -len(self.layers) <= index < len(self.layers):
                raise ValueError(f"get_layer: index {index} is out of range: the model has {len(self.layers)} layers")
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}. Existing layers are: {[layer.name for layer in self.layers]}.")

    @property
    def output_shape(self) -> Any:
        """A functional model's output shape(s), from its output KerasTensors (a list for several), as Keras 3."""
        if self._graph is None:
            return super().output_shape
        shapes = [kt.shape for kt in self._graph.flat_outputs]
        return shapes[0] if len(shapes) == 1 else shapes

    @property
    def output_names(self) -> list[str]:
        return [kt.node.layer.name for kt in self.outputs]

    @property
    def layers(self) -> list[Layer]:
        if self._graph is not None:
            return list(self._functional_layers)
        return super().layers

    def _convert(self, inputs: Any) -> Any:
        if isinstance(self, Sequential):  # one input: a list is refused before its items are converted one by one
            inputs = symbolic.one_input(inputs, self._input_shape_arg, self.name)
        if self._graph is None:
            return super()._convert(inputs)
        return inputs  # each layer converts what it receives; integer inputs (for Embedding) stay integers

    def _build_from_call(self, input_shape: Any) -> None:
        if type(self).build is not Model.build and type(self).build is not Sequential.build:
            self.build(input_shape)  # a subclass's own build(input_shape)

    def build(self, input_shape: Any) -> None:
        """Create every weight by running the model once on zeros of `input_shape` (batch axis may be None)."""
        if self.built:
            return
        shape = tuple(1 if n is None else int(n) for n in input_shape)
        self.built = True
        self(np.zeros(shape, dtype=self.dtype))

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        if self._graph is not None:
            return self._graph.run(inputs, training, self.name)
        raise NotImplementedError(f"{type(self).__name__} must define call(self, inputs) with the forward pass")

    # ---- configuration -----------------------------------------------------------------------------
    def compile(
        self,
        optimizer: Any = "rmsprop",
        loss: Any = None,
        loss_weights: Any = None,
        metrics: Any = None,
        run_eagerly: Any = None,
        **kwargs: Any,
    ) -> None:
        """Choose the optimizer, the loss and the metrics (e.g. ['accuracy']) that `fit` and `evaluate` use.

        For a model with several outputs, `loss` (and `metrics`) may be a list in output order or a dict by
        output name; a single loss applies to every output, and their (weighted) sum is trained.
        `run_eagerly=True` runs the steps of fit, evaluate and predict as plain Python (for debugging); by
        default each is traced once per batch shape with `mt.function` and replayed, as Keras runs them in a
        `tf.function`.
        """
        unknown = set(kwargs) - {"weighted_metrics", "steps_per_execution", "jit_compile", "auto_scale_loss"}
        if unknown:
            raise TypeError(f"compile: unexpected keyword argument(s) {sorted(unknown)}")
        self.optimizer = optimizers_module.get(optimizer)
        self._run_eagerly = bool(run_eagerly)
        self.train_function = self.test_function = self.predict_function = None  # made again for what changed
        self.loss = compile_utils.by_output(
            loss, self, "loss", lambda item: losses_module.for_compile(item) if item is not None else None
        )
        self.loss_weights = loss_weights
        self._given_loss = loss
        per_output = isinstance(self.loss, (list, dict)) or len(self.outputs) > 1 or isinstance(metrics, dict)
        if per_output or compile_utils.is_list_of_lists(metrics):
            self._metric_pairs = self._multi_output_metrics(metrics)
        else:
            self._metric_pairs = [(None, metrics_module.get(m, self.loss)) for m in (metrics or [])]
        ordered = lambda structure: nest.flatten(compile_utils.ordered(self, structure))  # noqa: E731
        self._compile_metrics = metrics_module.CompileMetrics(self._metric_pairs, ordered)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self._output_loss_trackers = self._per_output_loss_trackers()

    def _per_output_loss_trackers(self) -> list:
        """As Keras 3: with a loss on more than one output, each output's loss (unweighted) is logged as 'name_loss'."""
        names = self.output_names
        if not names and isinstance(self.loss, list):  # a subclassed model's outputs: named after their losses
            names = [_loss_label(raw) for raw in self._given_loss]
        if len(names) < 2:
            return []
        if isinstance(self.loss, dict):
            losses = [self.loss.get(name) for name in names]
        else:
            losses = self.loss if isinstance(self.loss, list) else [self.loss] * len(names)
        if sum(loss is not None for loss in losses) < 2:
            return []
        return [
            metrics_module.Mean(name=f"{name}_loss") if loss is not None else None for name, loss in zip(names, losses)
        ]

    def _multi_output_metrics(self, metrics: Any) -> list:
        names = self.output_names
        if metrics is None:
            return []
        if not names:
            return self._metrics_per_position(metrics)
        if isinstance(metrics, dict):
            per_output = [metrics.get(n, []) for n in names]
        elif compile_utils.is_list_of_lists(metrics):
            per_output = list(metrics)
        else:
            per_output = [metrics] * len(names)
        losses = self.loss if isinstance(self.loss, list) else [self.loss] * len(names)
        out = []
        for index, (name, group, loss) in enumerate(zip(names, per_output, losses)):
            for m in [group] if not isinstance(group, (list, tuple)) else group or []:
                metric = metrics_module.get(m, loss)
                if len(names) > 1:  # Keras 3 puts the output's name first only when there are several
                    metric.name = f"{name}_{metric.name}"
                out.append((index, metric))
        return out

    def _metrics_per_position(self, metrics: Any) -> list:
        """A subclassed model's outputs have no names: a list of lists gives each output (in the order `call`
        returns them) its metrics, logged under their own names, as Keras 3 does (a repeated name gets '_1')."""
        if not compile_utils.is_list_of_lists(metrics):
            raise ValueError(
                f"compile: metrics={metrics!r} does not say which output each metric is for (Keras 3 refuses it too: "
                "they must match the output structure of the model). A subclassed model's outputs have no names, so "
                "give a list of lists, one list per output in the order call() returns them, e.g. "
                "metrics=[['accuracy'], ['mae']] (None for an output without metrics)"
            )
        out = []
        for index, group in enumerate(metrics):
            out += [(index, metrics_module.get(m)) for m in group or [] if m is not None]
        taken: dict[str, int] = {}
        for _, metric in out:
            seen = taken.get(metric.name, 0)
            taken[metric.name] = seen + 1
            if seen:
                metric.name = f"{metric.name}_{seen}"
        return out

    @property
    def compiled_metrics(self) -> Any:
        """Keras 2's name for the compiled metrics (`self.compiled_metrics.update_state(y, y_pred)` in a
        train_step): Keras 3 still gives them, with a deprecation warning, and so does minitape."""
        warnings.warn(_COMPILED_METRICS_DEPRECATED, stacklevel=2)
        return getattr(self, "_compile_metrics", None)

    def compiled_loss(self, y: Any, y_pred: Any, sample_weight: Any = None, regularization_losses: Any = None) -> Any:
        """Keras 2's loss call in a train_step: Keras 3 keeps it, deprecated, as `compute_loss(x=None, y, y_pred,
        sample_weight)` (with `model.losses` added), and so does minitape."""
        warnings.warn(_COMPILED_LOSS_DEPRECATED, stacklevel=2)
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    @property
    def metrics(self) -> list:
        """As Keras 3: the loss tracker, the compiled metrics as one ('compile_metrics'), each output's loss."""
        if not hasattr(self, "_loss_tracker"):
            return []
        per_output = [m for m in self._output_loss_trackers if m is not None]
        return [self._loss_tracker, *([self._compile_metrics] if self._metric_pairs else []), *per_output]

    @property
    def metrics_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def _require_compiled(self, what: str) -> None:
        missing_optimizer = what == "fit" and self.optimizer is None
        if missing_optimizer or not hasattr(self, "_loss_tracker"):
            raise RuntimeError(
                f"You must compile your model before using {what}(): call "
                "model.compile(optimizer='adam', loss='sparse_categorical_crossentropy', metrics=['accuracy'])"
            )

    # ---- one step ----------------------------------------------------------------------------------
    def compute_loss(
        self, x: Any = None, y: Any = None, y_pred: Any = None, sample_weight: Any = None, training: bool = True
    ) -> Any:
        """The compiled loss (summed over outputs) plus `model.losses` (regularizers, add_loss), as Keras adds them."""
        total = None
        loss = self.loss
        if loss is not None and y is None:
            raise ValueError(
                f"{type(self).__name__} was compiled with a loss, which needs targets y, but the data gives x only. "
                "Give (x, y) batches, or override train_step(self, data) to train on x alone (as a GAN does)"
            )
        if isinstance(loss, (list, dict)) or isinstance(y_pred, (list, tuple, dict)):
            pairs = compile_utils.pair_outputs(self, loss, y, y_pred)
            weights = compile_utils.pair_weights(self, self.loss_weights, len(pairs))
            trackers = getattr(self, "_output_loss_trackers", None) or [None] * len(pairs)
            for (fn, target, prediction), weight, tracker in zip(pairs, weights, trackers):
                if fn is None:
                    continue
                term = fn(target, prediction) if sample_weight is None else fn(target, prediction, sample_weight)
                if tracker is not None:  # unweighted by loss_weights, and one count per batch whatever its size:
                    tracker.update_state(term)  # Keras 3 in fit's tf.function (a batch size of None)
                term = term if weight == 1 else term * weight
                total = term if total is None else total + term
        elif loss is not None:
            total = loss(y, y_pred) if sample_weight is None else loss(y, y_pred, sample_weight)
        extra = self.losses
        if total is None and not extra:
            raise RuntimeError(
                f"{type(self).__name__} has no loss to train: compile(loss=...) was not given one and the model "
                "added none with add_loss or regularizers"
            )
        if extra:
            dtype = (total if total is not None else extra[0]).dtype
            extra_sum = add_n([cast(e, dtype) if e.dtype != dtype else e for e in extra])
            total = extra_sum if total is None else total + extra_sum
        return total

    def compute_metrics(self, x: Any, y: Any, y_pred: Any, sample_weight: Any = None) -> dict[str, Any]:
        """Update the compiled metrics; every logged number, each metric on its own (loss, output losses, metrics):
        Python floats, or tensors while a step is traced (as Keras 3, whose float() fails on a graph's tensor)."""
        self._compile_metrics.update_state(y, y_pred)
        results = {m.name: m.result() for m in self._logged_metrics()}
        return results if state.tracers else {name: float(value) for name, value in results.items()}

    def _logged_metrics(self) -> list:
        """Each metric that logs a number: the loss, each output's loss, each compiled metric (in compile's order)."""
        per_output = [m for m in self._output_loss_trackers if m is not None]
        return [self._loss_tracker, *per_output, *self._compile_metrics.metrics]

    def train_step(self, data: Any) -> dict[str, float]:
        """One optimisation step on a batch `(x, y)`: the loop a custom training lesson writes by hand."""
        x, y, sample_weight = data_adapter.unpack(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        variables = self.trainable_variables
        gradients = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(gradients, variables))
        self._loss_tracker.update_state(loss, sample_weight=compile_utils.batch_size_of(y_pred))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict[str, float]:
        x, y, sample_weight = data_adapter.unpack(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self._loss_tracker.update_state(loss, sample_weight=compile_utils.batch_size_of(y_pred))
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def predict_step(self, data: Any) -> Any:
        """The model's outputs for one batch (its x; y, if given, is ignored), training=False."""
        x, _, _ = data_adapter.unpack(data)
        return self(x, training=False)

    # ---- the step functions fit, evaluate and predict call -----------------------------------------
    @property
    def run_eagerly(self) -> bool:
        """Whether fit, evaluate and predict run their steps as plain Python: compile(run_eagerly=...) sets it.
        It is read when a step function is made (the first fit after compile), as in Keras."""
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value: bool) -> None:
        self._run_eagerly = bool(value)

    def make_train_function(self, force: bool = False) -> Callable:
        """The function fit calls for each batch: `train_step`, traced (loops.step_function) unless run_eagerly."""
        if self.train_function is None or force:
            self.train_function = loops.step_function(self, lambda data: self.train_step(data), "train")
        return self.train_function

    def make_test_function(self, force: bool = False) -> Callable:
        """The function evaluate (and fit's validation) calls for each batch: `test_step`, traced as above."""
        if self.test_function is None or force:
            self.test_function = loops.step_function(self, lambda data: self.test_step(data), "test")
        return self.test_function

    def make_predict_function(self, force: bool = False) -> Callable:
        """The function predict calls for each batch: `predict_step`, traced as above."""
        if self.predict_function is None or force:
            self.predict_function = loops.step_function(self, lambda data: self.predict_step(data), "predict")
        return self.predict_function

    # ---- loops (minitape/keras/loops.py) -----------------------------------------------------------
    def fit(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        epochs: int = 1,
        verbose: Any = "auto",
        callbacks: list[Callback] | None = None,
        validation_split: float = 0.0,
        validation_data: Any = None,
        shuffle: bool = True,
        class_weight: dict | None = None,
        sample_weight: Any = None,
        initial_epoch: int = 0,
        steps_per_epoch: int | None = None,
        validation_steps: int | None = None,
        validation_batch_size: int | None = None,
        validation_freq: Any = 1,
    ) -> History:
        """Train for `epochs` passes over (x, y) in batches (default 32), shuffled each epoch unless told not to.

        Batches are drawn with `mt.random`'s generator: fix `mt.random.set_seed` for repeatable runs.
        Returns a History whose `.history` maps 'loss', each metric, and 'val_*' to per-epoch values.
        """
        self._require_compiled("fit")
        if class_weight is not None:
            sample_weight = data_adapter.class_weights(class_weight, y, sample_weight)
        if validation_split and validation_data is None:
            x, y, validation_data = data_adapter.split(x, y, validation_split)
            if sample_weight is not None:
                sample_weight = np.asarray(sample_weight)[: data_adapter.length(nest.flatten(x)[0], "x")]
        return loops.fit(
            self, x, y, batch_size, epochs, verbose, callbacks, validation_data, shuffle, sample_weight,
            initial_epoch, steps_per_epoch, validation_steps, validation_batch_size, validation_freq,
        )  # fmt: skip

    def evaluate(
        self,
        x: Any = None,
        y: Any = None,
        batch_size: int | None = None,
        verbose: Any = "auto",
        sample_weight: Any = None,
        steps: int | None = None,
        callbacks: list[Callback] | None = None,
        return_dict: bool = False,
        **kwargs: Any,
    ) -> Any:
        """The loss (and metrics) over all of (x, y): a number, or [loss, metric, ...] when there are metrics."""
        if kwargs:  # Keras 3's evaluate takes **kwargs only for its own internal use, and refuses the rest
            raise ValueError(
                f"evaluate(): arguments not recognized: {sorted(kwargs)}. evaluate takes x, y, batch_size, verbose, "
                "sample_weight, steps, callbacks and return_dict"
            )
        self._require_compiled("evaluate")
        logs = loops.evaluate(self, x, y, batch_size, verbose, sample_weight, steps, callbacks)
        if return_dict:
            return logs
        return self._in_order(logs)

    def predict(
        self,
        x: Any,
        batch_size: int | None = None,
        verbose: Any = "auto",
        steps: int | None = None,
        callbacks: list[Callback] | None = None,
    ) -> Any:
        """The model's outputs for every example of x, as numpy arrays (computed in batches, training=False)."""
        return loops.predict(self, x, batch_size, verbose, steps, callbacks)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's outputs for the batch x, as numpy arrays (predict's step function, training=False)."""
        return nest.map_structure(backend.to_numpy, self.make_predict_function()((x,)))

    def train_on_batch(
        self,
        x: Any,
        y: Any = None,
        sample_weight: Any = None,
        class_weight: dict | None = None,
        return_dict: bool = False,
    ) -> Any:
        """One training step on one batch; the loss and metrics of that batch alone (metrics are reset first)."""
        self._require_compiled("fit")
        if class_weight is not None:
            sample_weight = data_adapter.class_weights(class_weight, y, sample_weight)
        return self._on_batch(self.make_train_function(), x, y, sample_weight, return_dict)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None, return_dict: bool = False) -> Any:
        """The loss and metrics of one batch, without training (training=False), metrics reset first."""
        self._require_compiled("test_on_batch")
        return self._on_batch(self.make_test_function(), x, y, sample_weight, return_dict)

    def _on_batch(self, step: Callable, x: Any, y: Any, sample_weight: Any, return_dict: bool) -> Any:
        """As Keras 3: a dict if asked, else the values in `metrics_names` order (one number if only the loss)."""
        self.reset_metrics()
        logs = loops.numbers(step(data_adapter.pack(x, y, sample_weight)))
        return logs if return_dict else self._in_order(logs)

    def _in_order(self, logs: dict) -> Any:
        """The logged numbers as evaluate lists them in Keras 3: the loss, each output's loss and each compiled
        metric first, then anything else a custom step logged, by name; one number alone if there is only one."""
        first = [m.name for m in self._logged_metrics() if m.name in logs]
        values = [logs[name] for name in first] + [logs[k] for k in sorted(logs) if k not in first]
        return values[0] if len(values) == 1 else values

    # ---- inspection --------------------------------------------------------------------------------
    def summary(self, line_length: int | None = None, print_fn: Callable[[str], Any] | None = None, **kw: Any) -> None:
        """Print a table of the layers with their output shapes and parameter counts, as Keras does."""
        from minitape.keras.summary import model_summary

        (print_fn or print)(model_summary(self, line_length or 65))

    # ---- weights files (minitape/keras/saving.py) ---------------------------------------------------
    def save_weights(self, filepath: Any, overwrite: bool = True, max_shard_size: Any = None) -> None:
        """Write the weights to `filepath`, which must end in `.weights.h5`: Keras 3's file, which Keras 3 loads too.

        The optimizer's state is not written. Build the model first (call it on a batch, or give it its input
        shape); `ModelCheckpoint(..., save_weights_only=True)` calls this during fit.
        """
        from minitape.keras import saving

        saving.save_weights(self, filepath, overwrite=overwrite, max_shard_size=max_shard_size)

    def load_weights(self, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> None:
        """Set the weights from a `.weights.h5` file written (by minitape or Keras 3) for the same architecture.

        The model must be built, as in Keras 3. A layer whose weights do not fit (another size, another number of
        weights) is an error naming it, the weight and both shapes, and nothing is loaded; `skip_mismatch=True`
        loads the layers that fit and warns about the rest.
        """
        from minitape.keras import saving

        saving.load_weights(self, filepath, skip_mismatch=skip_mismatch, **kwargs)

    save = unsupported.method("keras.Model", "save")
    to_json = unsupported.method("keras.Model", "to_json")
    export = unsupported.method("keras.Model", "export")

    # Keras 2's model methods that Keras 3 removed (TensorFlow 2.21 has none of them either) name their Keras 3
    # spelling in the AttributeError; hasattr(model, "fit_generator") stays False, as in TensorFlow
    fit_generator = property(lambda self: _removed(self, "fit_generator"))
    evaluate_generator = property(lambda self: _removed(self, "evaluate_generator"))
    predict_generator = property(lambda self: _removed(self, "predict_generator"))
    predict_classes = property(lambda self: _removed(self, "predict_classes"))
    predict_proba = property(lambda self: _removed(self, "predict_proba"))


def _removed(model: Model, name: str) -> Any:
    raise AttributeError(
        f"'{type(model).__name__}' object has no attribute '{name}': Keras 3 removed it; {_KERAS2_METHODS[name]}"
    )


_KERAS2_METHODS = {
    "fit_generator": "use model.fit(generator, ...), which takes any iterable of batches",
    "evaluate_generator": "use model.evaluate(generator, ...)",
    "predict_generator": "use model.predict(generator, ...)",
    "predict_classes": "use np.argmax(model.predict(x), axis=-1) (or (model.predict(x) > 0.5) for one sigmoid output)",
    "predict_proba": "use model.predict(x): a softmax or sigmoid output already gives probabilities",
}


def clone_model(model: Model, input_tensors: Any = None, clone_function: Any = None, **kwargs: Any) -> Model:
    """A new model with the same layers and new weights, as Keras 3's clone_model:
    `model.__class__.from_config(model.get_config())` (copy the weights with `set_weights` if wanted)."""
    if input_tensors is not None or clone_function is not None or kwargs:
        raise NotImplementedError(
            "clone_model: minitape clones a model as it is (no input_tensors, clone_function or call_function); "
            "rebuild the parts you want to change with the functional API"
        )
    return type(model).from_config(model.get_config())  # a subclassed model: cls(**config), its own get_config


def _loss_label(loss: Any) -> str:
    """How Keras 3 names an output's loss when the output has no name: the string given, or the loss's name."""
    if isinstance(loss, str):
        return loss
    return getattr(loss, "name", None) or getattr(loss, "__name__", "loss")


def __getattr__(name: str) -> Any:
    """`keras.models.load_model` and friends: an error that says they are missing and what to use instead."""
    raise unsupported.missing("keras.models", name)


class Sequential(Model):
    """A plain stack of layers, each feeding the next."""

    def __init__(self, layers: list | None = None, name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        self._stack: list[Layer] = []
        self._symbolic: list[symbolic.KerasTensor] = []  # the input, then each layer's output (input shape known)
        for layer in layers or []:
            self.add(layer)

    def add(self, layer: Any) -> None:
        if isinstance(layer, InputLayer):  # Sequential([InputLayer(shape=(4,)), ...]): its tensor starts the model
            layer = layer.output
        if isinstance(layer, symbolic.KerasTensor):
            if self._stack or layer.node is not None:
                raise ValueError("Sequential: a keras.Input can only come first")
            self._pending_input = layer
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add takes a layer, not {type(layer).__name__} {layer!r}")
        self._stack.append(layer)
        shape = getattr(self, "_pending_input", None)
        shape = shape.shape if shape is not None else layer._input_shape_arg if len(self._stack) == 1 else None
        if shape is not None:
            self._input_shape_arg = shape
        if self._input_shape_arg is not None:  # known input shape: build the new layer now, as Keras does
            self.built = False
            self.build(self._input_shape_arg)
            self._extend_graph()

    def _extend_graph(self) -> None:
        """With its input shape known, a Sequential is a functional graph too, as in Keras 3: each layer gets its
        symbolic `.input` and `.output`, and the model `inputs`/`outputs`, for feature extraction."""
        if not self._symbolic:
            given = getattr(self, "_pending_input", None)
            self._symbolic.append(given if given is not None else Input(batch_shape=self._input_shape_arg))
        for layer in self._stack[len(self._symbolic) - 1 :]:
            self._symbolic.append(layer(self._symbolic[-1]))

    def get_config(self) -> dict:
        """Keras 3's Sequential config: its layers in order (the InputLayer first, when the input shape is known)."""
        return model_config.sequential_config(self)

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Any:
        """A new Sequential with the same layers (new weights: copy them with `set_weights`)."""
        return model_config.sequential_from_config(cls, config, custom_objects)

    def pop(self) -> Layer:
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        del self._symbolic[len(self._stack) :]  # the popped layer's output is no longer the model's
        return self._stack.pop()

    @property
    def inputs(self) -> list:
        return self._symbolic[:1]

    @property
    def outputs(self) -> list:
        return self._symbolic[-1:] if len(self._symbolic) > 1 else []

    @property
    def input(self) -> Any:
        """The symbolic input, once the input shape is known (keras.Input first, or input_shape=)."""
        return self._symbolic_end(0, "input")

    @property
    def output(self) -> Any:
        return self._symbolic_end(-1, "output")

    def _symbolic_end(self, index: int, what: str) -> Any:
        if len(self._symbolic) < 2:
            raise AttributeError(
                f'Sequential model "{self.name}" has no {what} yet: start it with keras.Input(shape) (or give its '
                "first layer input_shape=) so its shape is known"
            )
        return self._symbolic[index]

    @property
    def layers(self) -> list[Layer]:
        return list(self._stack)

    def call(self, inputs: Any, training: bool | None = None) -> Any:
        outputs = inputs
        if self._input_shape_arg is not None:
            outputs = symbolic.checked_input(outputs, self._input_shape_arg, "Input 0", self.name)
        for layer in self._stack:
            outputs = layer(outputs, training=training)
        return outputs


class InputLayer(Layer):
    """The first entry of a functional model's `layers`: where an Input enters. No weights; passes data on."""

    def __init__(
        self,
        shape: Any = None,
        batch_size: int | None = None,
        dtype: Any = None,
        name: str | None = None,
        batch_shape: Any = None,
        **kwargs: Any,
    ) -> None:
        if kwargs.pop("sparse", None) or kwargs.pop("ragged", None):
            raise NotImplementedError("InputLayer: minitape has no sparse or ragged tensors")
        kwargs.pop("optional", None)
        shape, batch_size = _input_layer_shape(shape, batch_size, batch_shape, kwargs)
        super().__init__(name=name or backend.unique_name("input_layer"), dtype=dtype, **kwargs)
        tensor = symbolic.KerasTensor((batch_size, *shape), self.dtype, name=self.name)
        tensor.input_layer = self
        node = symbolic.Node(self, tensor)
        node.outputs = tensor
        self._inbound_node = node  # input and output are both the Input tensor
        self._output_shape = tensor.shape
        self.built = True

    def get_config(self) -> dict:
        """Keras 3's InputLayer config."""
        return {"batch_shape": self._output_shape, "dtype": self.dtype, "sparse": False, "name": self.name}


def _input_layer_shape(shape: Any, batch_size: Any, batch_shape: Any, kwargs: dict) -> tuple[tuple, Any]:
    """InputLayer's shape without the batch axis, and its batch size: Keras 2's `input_shape=` and
    `batch_input_shape=` are read as Keras 3 reads them (the first with its deprecation warning)."""
    if "input_shape" in kwargs:
        warnings.warn("Argument `input_shape` is deprecated. Use `shape` instead.", stacklevel=3)
        shape = kwargs.pop("input_shape")
    if "batch_input_shape" in kwargs:
        batch_shape = kwargs.pop("batch_input_shape")
    if batch_shape is not None:
        batch_size, shape = batch_shape[0], tuple(batch_shape[1:])
    if shape is None:
        raise ValueError("InputLayer needs a shape, e.g. InputLayer(shape=(784,)) (the batch axis is left out)")
    return ((shape,) if isinstance(shape, int) else tuple(shape)), batch_size


def Input(  # noqa: N802 - Keras' name
    shape: Any = None,
    batch_size: int | None = None,
    dtype: Any = None,
    sparse: Any = None,
    batch_shape: Any = None,
    name: str | None = None,
    tensor: Any = None,
) -> symbolic.KerasTensor:
    """A symbolic input of `shape` (without the batch axis; None for any size): start of a functional model."""
    if sparse or tensor is not None:
        raise NotImplementedError("keras.Input: sparse inputs and tensor= are not supported by minitape")
    if batch_shape is not None:
        batch_size, shape = batch_shape[0], tuple(batch_shape[1:])
    if shape is None:
        raise ValueError("keras.Input needs a shape, e.g. keras.Input(shape=(784,)) (the batch axis is left out)")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return InputLayer(shape, batch_size, dtype, name).output

"""A Sequential or functional model's architecture as a config, and back: `get_config` / `from_config`.

The layout is Keras 3's: each layer as {"module", "class_name", "config", "registered_name"}; a functional
model's layers also carry their "name" and "inbound_nodes" (each call's arguments, a KerasTensor written as
{"class_name": "__keras_tensor__", "config": {"shape", "dtype", "keras_history": [layer, node, tensor]}}),
and "input_layers" / "output_layers" say where the model starts and ends. A layer's own config holds its
arguments as given (initializer or regularizer objects stay objects), so a config rebuilds the model in this
session; it is not a JSON file Keras could read. The new model has new weights: copy them with
`new.set_weights(old.get_weights())`.
"""

from __future__ import annotations

from typing import Any

from minitape.keras import symbolic
from minitape.values import nest


def layer_entry(layer: Any) -> dict:
    """A layer as Keras 3 serializes it inside a model's config."""
    return {
        "module": type(layer).__module__.replace("minitape.keras", "keras"),
        "class_name": _class_name(layer),
        "config": layer.get_config(),
        "registered_name": None if type(layer).__module__.startswith("minitape.keras") else type(layer).__name__,
    }


def _class_name(layer: Any) -> str:
    from minitape.keras.models import Model

    if type(layer) is Model and layer._graph is not None:
        return "Functional"  # Keras 3's class for Model(inputs, outputs)
    return type(layer).__name__


def layer_from_entry(entry: dict, custom_objects: dict | None) -> Any:
    """The layer an entry describes, made with its class's `from_config`."""
    name = entry["class_name"]
    cls = _find_class(name, custom_objects)
    return cls.from_config(entry["config"])


def _find_class(name: str, custom_objects: dict | None) -> Any:
    from minitape.keras import layers, models

    if custom_objects and name in custom_objects:
        return custom_objects[name]
    if name == "Functional":
        return models.Model
    for namespace in (layers, models):
        found = getattr(namespace, name, None) if name in dir(namespace) else None
        if isinstance(found, type):
            return found
    raise ValueError(
        f"Unknown layer class {name!r} in the config: pass your own classes as custom_objects={{{name!r}: {name}}}"
    )


def sequential_config(model: Any) -> dict:
    """Keras 3's Sequential config: the InputLayer first when the input shape is known, then each layer."""
    entries = []
    if model._symbolic:
        entries.append(layer_entry(model._symbolic[0].input_layer))
    entries += [layer_entry(layer) for layer in model.layers]
    config = {"name": model.name, "trainable": model.trainable, "dtype": model.dtype, "layers": entries}
    if model._input_shape_arg is not None:
        config["build_input_shape"] = tuple(model._input_shape_arg)
    return config


def sequential_from_config(cls: Any, config: dict, custom_objects: dict | None) -> Any:
    model = cls(name=config.get("name"), trainable=config.get("trainable", True), dtype=config.get("dtype"))
    for entry in config["layers"]:
        model.add(layer_from_entry(entry, custom_objects))
    return model


def functional_config(model: Any) -> dict:
    """Keras 3's functional config: each layer with the calls that feed it, then the model's ends."""
    graph = model._graph
    calls: dict[int, list] = {}  # id(layer) -> its nodes in this graph, in call order
    for node in graph.nodes:
        calls.setdefault(id(node.layer), []).append(node)

    def history(kt: Any) -> list:
        if kt.node is None:
            return [kt.input_layer.name, 0, 0]
        node = kt.node
        return [node.layer.name, calls[id(node.layer)].index(node), nest.flatten(node.outputs).index(kt)]

    def written(value: Any) -> Any:
        if isinstance(value, symbolic.KerasTensor):
            shape_config = {"shape": value.shape, "dtype": value.dtype, "keras_history": history(value)}
            return {"class_name": "__keras_tensor__", "config": shape_config}
        return value

    layers = []
    for layer in graph.layers():
        entry = {**layer_entry(layer), "name": layer.name, "inbound_nodes": []}
        for node in calls.get(id(layer), []):
            args = [nest.map_structure(written, node.inputs), *nest.map_structure(written, list(node.args))]
            entry["inbound_nodes"].append({"args": args, "kwargs": nest.map_structure(written, node.kwargs)})
        layers.append(entry)
    return {
        "name": model.name,
        "trainable": model.trainable,
        "layers": layers,
        "input_layers": nest.map_structure(history, graph.inputs),
        "output_layers": nest.map_structure(history, graph.outputs),
    }


def functional_from_config(cls: Any, config: dict, custom_objects: dict | None) -> Any:
    """Make each layer, then call it on the KerasTensors its inbound nodes name, in an order where they exist."""
    made = {entry["name"]: layer_from_entry(entry, custom_objects) for entry in config["layers"]}
    tensors: dict[tuple, Any] = {}
    for entry in config["layers"]:
        if entry["class_name"] == "InputLayer":
            tensors[(entry["name"], 0, 0)] = made[entry["name"]].output
    pending = [(e["name"], index, node) for e in config["layers"] for index, node in enumerate(e["inbound_nodes"])]
    while pending:
        waiting = []
        for name, index, node in pending:
            if not _ready(node, tensors):
                waiting.append((name, index, node))
                continue
            outputs = made[name](*_read(node["args"], tensors), **_read(node["kwargs"], tensors))
            for position, kt in enumerate(nest.flatten(outputs)):
                tensors[(name, index, position)] = kt
        if len(waiting) == len(pending):
            raise ValueError(f"from_config: the calls of {[w[0] for w in waiting]} read tensors no layer makes")
        pending = waiting
    inputs = _ends(config["input_layers"], tensors)
    outputs = _ends(config["output_layers"], tensors)
    return cls(inputs, outputs, name=config.get("name"), trainable=config.get("trainable", True))


def _ends(value: Any, tensors: dict) -> Any:
    """The KerasTensors that [layer name, node, tensor] triples name, in the structure they are given in."""
    if isinstance(value, (list, tuple)) and len(value) == 3 and isinstance(value[0], str):
        return tensors[tuple(value)]
    if isinstance(value, dict):
        return {k: _ends(v, tensors) for k, v in value.items()}
    return [_ends(v, tensors) for v in value]


def _ready(node: dict, tensors: dict) -> bool:
    found = []

    def note(value: Any) -> Any:
        if _is_keras_tensor(value):
            found.append(tuple(value["config"]["keras_history"]) in tensors)
        return value

    _walk(node, note)
    return all(found)


def _is_keras_tensor(value: Any) -> bool:
    return isinstance(value, dict) and value.get("class_name") == "__keras_tensor__"


def _walk(value: Any, visit: Any) -> Any:
    if _is_keras_tensor(value):
        return visit(value)
    if isinstance(value, dict):
        return {k: _walk(v, visit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_walk(v, visit) for v in value)
    return value


def _read(value: Any, tensors: dict) -> Any:
    return _walk(value, lambda kt: tensors[tuple(kt["config"]["keras_history"])])

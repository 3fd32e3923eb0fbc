"""`keras.saving`: weights in Keras 3's `.weights.h5` files, and the registration decorator tutorials use.

`save_weights(model, path)` writes the file Keras 3's `model.save_weights` writes, and `load_weights(model, path)`
reads one back, whichever of the two wrote it, into a model of the same architecture. The file is HDF5 (written
with h5py). Each layer has a group named by where Keras 3 finds the layer, and under it a group `vars` holding
the layer's own weights as datasets '0', '1', ... (trainable ones first), with the layer's name as an attribute:

    vars/                         the model's own weights (usually none), attrs {'name': 'sequential'}
    layers/dense/vars/0, 1        a Sequential or functional model's first Dense: kernel, bias
    layers/dense_1/vars/0, 1      the next Dense (names count up per class, in `model.layers` order)
    encoder/vars/0, 1             a subclassed model's `self.encoder = layers.Dense(...)`
    blocks/dense/vars/0, 1        `self.blocks = [layers.Dense(...), ...]`

Keras 3 finds the layers of a subclassed model by its attributes in sorted order (private ones last), and
on the way meets the model's `layers` list: a layer whose attribute sorts after 'layers' is filed under
'layers/<class>_<n>'. The paths below follow the same walk, so the files go both ways.

Whole models (`.keras` files: the architecture and the optimizer as well) cannot be written: minitape cannot
write a model's config. `save_model`, `load_model` and the rest raise an error that says what to use instead.
`register_keras_serializable` only names a class for such a load, so it does nothing here.
"""

from __future__ import annotations

import io
import os
import warnings
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from minitape.keras import backend
from minitape.keras.layers.base import Layer
from minitape.keras.models import Model, Sequential
from minitape.keras.unsupported import missing

SUFFIX = ".weights.h5"
_IN_KERAS_FILE = "model.weights.h5"  # where a `.keras` archive keeps the weights
# minitape's own attributes of layers and models: they hold no sublayer a file names (the Sequential's and the
# functional model's layers are reached as 'layers', as in Keras)
_INTERNAL = frozenset(
    {"_regularized", "_call_losses", "_module_scope", "_inbound_node", "_graph", "_output_shape", "_own_weights"}
    | {"_functional_layers", "_stack", "_symbolic", "_pending_input"}
)


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable[[Any], Any]:
    """Return the class unchanged: minitape saves no whole models, so there is nothing to register it for."""
    return lambda cls: cls


def save_weights(model: Model, filepath: Any, overwrite: bool = True, max_shard_size: Any = None) -> None:
    """Write every weight of `model` to `filepath` (ending in `.weights.h5`), in Keras 3's layout.

    `overwrite=False` asks before replacing an existing file, as Keras does. The optimizer's state is not
    written: after `load_weights`, training starts the optimizer afresh.
    """
    path = str(os.fspath(filepath))
    if max_shard_size is not None:
        raise NotImplementedError(
            "save_weights(max_shard_size=...): minitape writes one `.weights.h5` file and no shards; leave "
            "max_shard_size out"
        )
    if not path.endswith(SUFFIX):
        raise ValueError(
            f"The filename must end in `.weights.h5`. Received: filepath={path} (Keras 3 writes weights only to "
            f"'.weights.h5' files; name it e.g. {suggest_name(path)!r})"
        )
    h5py = _h5py("save_weights")
    if not model.built:
        raise ValueError(
            "You are saving a model that has not yet been built. Try building the model first by calling it on "
            "some data or by using `build()`: e.g. model(x[:1]), or model.build((None, n_features))"
        )
    if os.path.exists(path) and not overwrite and not _may_overwrite(path):
        return
    with h5py.File(path, "w") as file:

        def write(layer: Layer, where: str) -> bool:
            group = file.create_group(_vars(where))
            group.attrs["name"] = layer.name
            for index, variable in enumerate(_own(layer)):
                group[str(index)] = variable.numpy()
            return True

        _walk(model, "", write, set(), set())


def load_weights(model: Model, filepath: Any, skip_mismatch: bool = False, **kwargs: Any) -> None:
    """Set every weight of `model` from a `.weights.h5` file that Keras 3 or minitape wrote for the same
    architecture (or from the weights inside a Keras 3 `.keras` file).

    Nothing is changed unless every layer fits; with `skip_mismatch=True` the layers that do not fit keep their
    weights, with a warning, and the rest are loaded. An optimizer state in the file is not read.
    """
    name = str(os.fspath(filepath))
    skip = kwargs.pop("objects_to_skip", None) or []
    if kwargs.pop("by_name", None) is not None:
        raise ValueError(f"`by_name` only supports loading legacy '.h5' or '.hdf5' files. Received: {name}")
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    if name.endswith(".weights.json"):
        raise NotImplementedError(
            f"load_weights({name!r}): minitape cannot read sharded weights (.weights.json); in Keras 3, load them "
            "and save_weights them to one '.weights.h5' file"
        )
    if not name.endswith((SUFFIX, ".keras")):
        legacy = (
            ": a legacy (Keras 2) `.h5` file can be loaded in Keras 3 and written again with "
            f"model.save_weights({suggest_name(name)!r})"
        )
        raise ValueError(
            f"File format not supported: filepath={name}. Keras 3 only supports V3 `.keras` files, `.weights.h5` "
            "files, legacy H5 format files (`.h5` extension), or Orbax checkpoints. minitape reads `.weights.h5` "
            "files (what save_weights writes) and the weights inside `.keras` files"
            + (legacy if name.endswith((".h5", ".hdf5")) else "")
        )
    h5py = _h5py("load_weights")
    if not model.built:
        raise ValueError(
            "You are loading weights into a model that has not yet been built. Try building the model first by "
            "calling it on some data or by using `build()`: e.g. model(x[:1]), or model.build((None, n_features)), "
            "then load_weights"
        )
    if not os.path.exists(name):
        raise FileNotFoundError(f"load_weights: there is no file {name!r} (the working directory is {os.getcwd()!r})")
    with _open(h5py, name) as file:
        planned: list[tuple[Any, np.ndarray]] = []  # (variable, value), assigned once every layer is checked
        failed: dict[int, str] = {}

        def read(layer: Layer, where: str) -> bool:
            group = file.get(_vars(where))
            stored = {key: group[key] for key in group} if isinstance(group, h5py.Group) else {}
            problem = _mismatch(layer, where, _own(layer), stored)
            if problem:
                failed.setdefault(id(layer), problem)
                return False
            failed.pop(id(layer), None)  # found at another path after all, as Keras 3 allows
            planned.extend((v, np.asarray(stored[str(i)])) for i, v in enumerate(_own(layer)))
            return True

        _walk(model, "", read, {id(layer) for layer in skip}, set())
    if failed:
        message = (
            f"Could not load the weights in {name!r} into {type(model).__name__} {model.name!r}: "
            f"{len(failed)} layer(s) do not match the file:\n  " + "\n  ".join(failed.values())
        )
        if not skip_mismatch:
            raise ValueError(
                message + "\nThe file must come from a model of the same architecture (the same layers with "
                "weights, built for the same input shape). load_weights(..., skip_mismatch=True) loads the layers "
                "that match and leaves these as they are."
            )
        warnings.warn(message + "\nThese layers keep their weights (skip_mismatch=True).", stacklevel=3)
    for variable, value in planned:
        variable.assign(value.astype(np.dtype(variable.dtype.name), copy=False))


def _mismatch(layer: Layer, where: str, own: list, stored: dict) -> str:
    """What keeps the file's weights at `where` from fitting `layer`, or ''."""
    what = f"layer {layer.name!r} ({type(layer).__name__})"
    if len(stored) != len(own) or any(str(i) not in stored for i in range(len(own))):
        names = [_short(v.name) for v in own]
        found = f"{len(stored)} at '{_vars(where)}'" if stored else f"none for it (no weights at '{_vars(where)}')"
        return f"{what} has {len(own)} weight(s) {names}, but the file has {found}"
    for index, variable in enumerate(own):
        shape, saved = tuple(variable.shape), tuple(stored[str(index)].shape)
        if shape != saved:
            return (
                f"{what}, weight {_short(variable.name)!r}: the model's has shape {shape}, the file's "
                f"('{_vars(where)}/{index}') has shape {saved}"
            )
    return ""


def _walk(layer: Layer, where: str, visit: Callable[[Layer, str], bool], done: set, busy: set) -> bool:
    """Keras 3's walk over a model's layers: `visit(layer, path)` for each layer once, at the first path it is
    met by; a layer whose visit failed stays open, so a later path may still serve it. True if all went well."""
    if id(layer) in done or id(layer) in busy:
        return True
    busy.add(id(layer))
    ok = visit(layer, where)
    for attribute, child in _children(layer):
        ok = _walk_item(child, _join(where, attribute), visit, done, busy, set()) and ok
    busy.discard(id(layer))
    if ok:
        done.add(id(layer))
    return ok


def _walk_item(item: Any, where: str, visit: Callable, done: set, busy: set, containers: set) -> bool:
    """A layer, or a list, tuple or dict of them: its layers are named by class ('dense', 'dense_1', ...), its
    lists within by 'container', 'container_1', ..."""
    if isinstance(item, Layer):
        return _walk(item, where, visit, done, busy)
    if id(item) in containers:
        return True
    containers.add(id(item))
    used: dict[str, int] = {}
    ok = True
    for element in item.values() if isinstance(item, dict) else item:
        if isinstance(element, Layer):
            ok = _walk(element, _join(where, _unique(_class_name(element), used)), visit, done, busy) and ok
        elif isinstance(element, (list, tuple, dict)):
            name = _join(where, _unique("container", used))
            ok = _walk_item(element, name, visit, done, busy, containers) and ok
    return ok


def _children(layer: Layer) -> Iterator[tuple[str, Any]]:
    """The attributes Keras 3 looks in for sublayers, in its order: a Sequential's or functional model's
    `layers` first; then the layers, lists and dicts assigned as attributes, sorted by name with private ones
    last; a subclassed model's `layers` list takes its place among them as 'layers'."""
    found = {
        name: value
        for name, value in vars(layer).items()
        if name not in _INTERNAL and isinstance(value, (Layer, list, tuple, dict))
    }
    stacked = isinstance(layer, Sequential) or (isinstance(layer, Model) and _is_functional(layer))
    if stacked:
        yield "layers", layer.layers
    elif isinstance(layer, Model):
        found["layers"] = layer.layers
    for name in sorted(found, key=lambda n: f"~{n}" if n.startswith("_") else n):
        yield name, found[name]


def _is_functional(model: Model) -> bool:
    """Built from keras.Input tensors (the functional API)."""
    return bool(model.inputs) and not isinstance(model, Sequential)


def _class_name(layer: Layer) -> str:
    """How Keras 3 names a layer in a list: its class, snake_case; `Model(inputs, outputs)` is its Functional."""
    if type(layer) is Model and _is_functional(layer):
        return "functional"
    return backend.snake_case(type(layer).__name__)


def _unique(name: str, used: dict[str, int]) -> str:
    if name in used:
        used[name] += 1
        return f"{name}_{used[name]}"
    used[name] = 0
    return name


def _own(layer: Layer) -> list:
    return layer._own_and_sublayers()[0]


def _join(where: str, name: str) -> str:
    return f"{where}/{name}" if where else name


def _vars(where: str) -> str:
    return _join(where, "vars")


def _short(name: str) -> str:
    """'dense/kernel:0' -> 'kernel'."""
    return name.rsplit("/", 1)[-1].split(":", 1)[0]


def suggest_name(path: str) -> str:
    """'best.keras', 'best.h5', 'ckpt' -> 'best.weights.h5', 'ckpt.weights.h5'."""
    for ending in (".weights.json", ".keras", ".hdf5", ".h5", ".weights"):
        if path.endswith(ending):
            return path[: -len(ending)] + SUFFIX
    return path + SUFFIX


def _h5py(what: str) -> Any:
    try:
        import h5py
    except ImportError:
        raise ImportError(
            f"{what} needs the h5py package to read and write `.weights.h5` (HDF5) files: pip install h5py "
            "(or pip install 'minitape[keras]')"
        ) from None
    return h5py


def _open(h5py: Any, name: str) -> Any:
    """The HDF5 file, or the one inside a `.keras` archive; a clear error if it is neither."""
    try:
        if name.endswith(".keras"):
            with zipfile.ZipFile(name) as archive:
                return h5py.File(io.BytesIO(archive.read(_IN_KERAS_FILE)), "r")
        return h5py.File(name, "r")
    except (OSError, zipfile.BadZipFile, KeyError) as error:
        kind = "a Keras 3 `.keras` archive with model.weights.h5 inside" if name.endswith(".keras") else "an HDF5 file"
        raise OSError(f"load_weights: {name!r} is not {kind}, as save_weights writes ({error})") from error


def _may_overwrite(path: str) -> bool:
    """Keras' question before replacing a file when overwrite=False."""
    answer = input(f"[WARNING] {path} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "y":
        print("[TIP] Next time specify overwrite=True!")
    return answer == "y"


def __getattr__(name: str) -> object:
    raise missing("keras.saving", name)

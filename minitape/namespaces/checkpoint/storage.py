"""Checkpoint files: TensorFlow's names, minitape's own contents.

A checkpoint at prefix `p` is two files, named as TensorFlow names them: `p.data-00000-of-00001`, a numpy `.npz`
archive of the values, and `p.index`, a JSON text with the object graph and each key's shape and dtype. The index
is written last, each file under a temporary name first and then renamed, so a checkpoint whose index exists is
whole. The bytes are not TensorFlow's TensorBundle: minitape cannot read a TensorFlow checkpoint, nor TensorFlow
one of minitape's. A directory's `checkpoint` file is TensorFlow's text (`model_checkpoint_path: "ckpt-3"`).
"""

from __future__ import annotations

import glob
import json
import os
import re
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from minitape.values import errors
from minitape.values.dtypes import DType, as_dtype

FORMAT = "minitape checkpoint"
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
DATA_SUFFIX = ".data-00000-of-00001"
STATE_FILE = "checkpoint"


def _atomic_write(path: str, write: Callable[[Any], None], mode: str) -> None:
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=os.path.basename(path) + ".tmp")
    try:
        with os.fdopen(handle, mode) as f:
            write(f)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def write(prefix: str, nodes: list[dict], values: dict[str, np.ndarray]) -> None:
    """Write the values (checkpoint key -> array) and the object graph at `prefix`."""
    members = {key: f"arr_{i}" for i, key in enumerate(values)}
    _atomic_write(prefix + DATA_SUFFIX, lambda f: np.savez(f, **{members[k]: v for k, v in values.items()}), "wb")
    index = {
        "format": FORMAT,
        "version": 1,
        "nodes": nodes,
        "tensors": {
            k: {"member": members[k], "shape": list(v.shape), "dtype": v.dtype.name} for k, v in values.items()
        },
    }
    _atomic_write(prefix + ".index", lambda f: json.dump(index, f), "w")


def _not_found(path: str) -> errors.NotFoundError:
    return errors.NotFoundError(
        f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {path}"
    )


def read_index(prefix: str) -> dict:
    """The index of the checkpoint at `prefix`: NotFoundError if there is none, DataLossError if not minitape's."""
    if os.path.isdir(prefix):
        raise errors.DataLossError(
            f"Unable to open table file {prefix}: it is a directory. Pass a checkpoint's prefix (e.g. "
            "mt.train.latest_checkpoint(directory)), not its directory"
        )
    index_path = prefix + ".index"
    if not os.path.exists(index_path):
        raise _not_found(prefix)
    try:
        with open(index_path, encoding="utf-8") as f:
            index = json.load(f)
    except (UnicodeDecodeError, json.JSONDecodeError):
        index = None
    if not isinstance(index, dict) or index.get("format") != FORMAT:
        raise errors.DataLossError(
            f"{index_path} is not a checkpoint minitape wrote: TensorFlow's checkpoint files (its TensorBundle "
            "format) cannot be read by minitape, which writes its own (numpy arrays under TensorFlow's file names "
            "and keys). Save the checkpoint again with minitape, or in TensorFlow read each value with "
            "tf.train.load_variable and rebuild it in minitape with mt.Variable(...).assign"
        )
    return index


class CheckpointReader:
    """`tf.train.load_checkpoint(...)`: the keys, shapes, dtypes and values of a checkpoint, with no objects."""

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._index = read_index(prefix)
        self._data: Any = None

    def _archive(self) -> Any:
        if self._data is None:
            self._data = np.load(self._prefix + DATA_SUFFIX, allow_pickle=False)
        return self._data

    def has_tensor(self, key: str) -> bool:
        return key == OBJECT_GRAPH_KEY or key in self._index["tensors"]

    def get_tensor(self, key: str) -> Any:
        """The value saved under `key` as a numpy array (a numpy scalar for a scalar), as TensorFlow's reader."""
        if key == OBJECT_GRAPH_KEY:
            return json.dumps(self._index["nodes"]).encode()
        entry = self._index["tensors"].get(key)
        if entry is None:
            raise errors.NotFoundError(f"Key {key} not found in checkpoint")
        value = self._archive()[entry["member"]]
        return value[()] if value.ndim == 0 else value

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        shapes = {OBJECT_GRAPH_KEY: []}
        shapes.update({k: list(e["shape"]) for k, e in self._index["tensors"].items()})
        return shapes

    def get_variable_to_dtype_map(self) -> dict[str, DType]:
        """Each key's dtype; the object graph (TensorFlow's tf.string) is left out: minitape has no string dtype."""
        return {k: as_dtype(e["dtype"]) for k, e in self._index["tensors"].items()}

    def nodes(self) -> list[dict]:
        return self._index["nodes"]


def resolve(ckpt_dir_or_file: str) -> str:
    """A directory stands for its latest checkpoint, as in `tf.train.load_checkpoint`."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given directory {path}")
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A reader of the checkpoint at a prefix, or of a directory's latest checkpoint."""
    return CheckpointReader(resolve(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """Every key with its shape, sorted by key, as `tf.train.list_variables`."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(key, shapes[key]) for key in sorted(shapes)]


def load_variable(ckpt_dir_or_file: str, name: str) -> Any:
    """The value of one key (`name`; a trailing ':0' is dropped, as TensorFlow does)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def delete(prefix: str) -> None:
    for path in [prefix + ".index", *glob.glob(glob.escape(prefix) + ".data-?????-of-?????")]:
        if os.path.exists(path):
            os.remove(path)


# ---- the directory's `checkpoint` file (TensorFlow's CheckpointState, as text) ----------------------------------
_LINE = re.compile(r'^(\w+): (?:"((?:[^"\\]|\\.)*)"|(\S+))$')


def read_state(directory: str, latest_filename: str | None = None) -> dict | None:
    """The directory's checkpoint state: its latest path and all paths (as written), with their timestamps."""
    path = os.path.join(directory, latest_filename or STATE_FILE)
    if not os.path.isfile(path):
        return None
    state: dict = {"model_checkpoint_path": None, "all_model_checkpoint_paths": [], "timestamps": [], "preserved": 0.0}
    with open(path, encoding="utf-8") as f:
        for line in f:
            match = _LINE.match(line.strip())
            if match is None:
                continue
            field, text, number = match.groups()
            if field == "model_checkpoint_path":
                state["model_checkpoint_path"] = text
            elif field == "all_model_checkpoint_paths":
                state["all_model_checkpoint_paths"].append(text)
            elif field == "all_model_checkpoint_timestamps":
                state["timestamps"].append(float(number))
            elif field == "last_preserved_timestamp":
                state["preserved"] = float(number)
    return state


def write_state(
    directory: str, latest: str, paths: list[str], timestamps: list[float] | None = None, preserved: float | None = None
) -> None:
    """Write the `checkpoint` file; paths inside `directory` are written relative to it, as TensorFlow does."""

    def relative(p: str) -> str:
        return os.path.relpath(p, directory) if os.path.dirname(os.path.abspath(p)) == os.path.abspath(directory) else p

    lines = [f"model_checkpoint_path: {json.dumps(relative(latest))}"]
    lines += [f"all_model_checkpoint_paths: {json.dumps(relative(p))}" for p in paths]
    lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in timestamps or []]
    if preserved is not None:
        lines.append(f"last_preserved_timestamp: {preserved!r}")
    text = "\n".join(lines) + "\n"
    _atomic_write(os.path.join(directory, STATE_FILE), lambda f: f.write(text), "w")


def full_path(directory: str, path: str) -> str:
    return path if os.path.isabs(path) else os.path.join(directory, path)


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The prefix of the directory's latest checkpoint, as its `checkpoint` file names it; None if there is none."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    state = read_state(checkpoint_dir, latest_filename)
    if state is None or not state["model_checkpoint_path"]:
        return None
    prefix = full_path(checkpoint_dir, state["model_checkpoint_path"])
    return prefix if os.path.exists(prefix + ".index") else None

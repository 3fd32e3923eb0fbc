"""`mt.train`: TensorFlow's training checkpoints; the files are minitape's own (namespaces/checkpoint/storage.py)."""

from __future__ import annotations

import functools

from minitape.namespaces import missing
from minitape.namespaces.checkpoint.checkpoint import (
    Checkpoint,
    CheckpointLoadStatus,
    CheckpointOptions,
    InitializationOnlyStatus,
)
from minitape.namespaces.checkpoint.manager import CheckpointManager
from minitape.namespaces.checkpoint.storage import (
    CheckpointReader,
    latest_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)

__all__ = [
    "Checkpoint",
    "CheckpointLoadStatus",
    "CheckpointManager",
    "CheckpointOptions",
    "CheckpointReader",
    "InitializationOnlyStatus",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]

__getattr__ = functools.partial(missing.raise_missing, "tf.train", table=missing.TRAIN)

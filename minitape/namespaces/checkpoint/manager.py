"""`tf.train.CheckpointManager`: number the checkpoints of one `Checkpoint` in a directory and keep the last few."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

from minitape.namespaces.checkpoint import storage
from minitape.namespaces.checkpoint.checkpoint import refuse_in_trace


class CheckpointManager:
    """Save `checkpoint` as 'directory/checkpoint_name-N', keep the newest `max_to_keep` (None: all), and record
    them in the directory's `checkpoint` file, from which a new manager picks up where an earlier one stopped."""

    def __init__(
        self,
        checkpoint: Any,
        directory: str,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: int | None = None,
        init_fn: Callable[[], Any] | None = None,
    ) -> None:
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or max_to_keep <= 0):
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got {max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._checkpoint_name = checkpoint_name
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_checkpoint_step: int | None = None
        self._kept: dict[str, float] = {}  # path -> time saved, oldest first: the candidates for deletion
        self._latest: str | None = None
        self._last_preserved = time.time()
        recorded = storage.read_state(self._directory)
        if recorded is not None and recorded["model_checkpoint_path"]:
            self._latest = storage.full_path(self._directory, recorded["model_checkpoint_path"])
            paths = [storage.full_path(self._directory, p) for p in recorded["all_model_checkpoint_paths"]]
            stamps = recorded["timestamps"] if len(recorded["timestamps"]) == len(paths) else [time.time()] * len(paths)
            self._kept = dict(zip(paths, stamps))
            self._last_preserved = recorded["preserved"] or self._last_preserved

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Any:
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> int | None:
        return self._checkpoint_interval

    @property
    def checkpoints(self) -> list[str]:
        """The kept checkpoints' prefixes, oldest first."""
        return list(self._kept)

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint's prefix ('./tf_ckpts/ckpt-10'), or None before the first save."""
        return self._latest

    def save(self, checkpoint_number: Any = None, check_interval: bool = True, options: Any = None) -> str | None:
        """Save a checkpoint numbered `checkpoint_number` (else by `save_counter`, which is counted up either
        way), delete the oldest beyond `max_to_keep`, and return its prefix; None when `checkpoint_interval`
        steps have not passed since the last save."""
        refuse_in_trace("save", "CheckpointManager")
        if self._checkpoint_interval is not None:
            step = int(self._step_counter)
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < self._last_checkpoint_step + self._checkpoint_interval:
                    return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter if checkpoint_number is None else checkpoint_number)
        path = self._checkpoint.write(os.path.join(self._directory, f"{self._checkpoint_name}-{number}"), options)
        self._kept.pop(path, None)
        self._kept[path] = time.time()
        self._latest = path
        self._sweep()
        storage.write_state(self._directory, path, list(self._kept), list(self._kept.values()), self._last_preserved)
        return path

    def _sweep(self) -> None:
        """Delete the oldest checkpoints beyond `max_to_keep`; with keep_checkpoint_every_n_hours, one every n hours
        is left on disk (no longer listed)."""
        if not self._max_to_keep:
            return
        hours = self._keep_checkpoint_every_n_hours
        while len(self._kept) > self._max_to_keep:
            path, stamp = next(iter(self._kept.items()))
            del self._kept[path]
            if hours and stamp - hours * 3600.0 >= self._last_preserved:
                self._last_preserved = stamp
                continue
            storage.delete(path)

    def restore_or_initialize(self) -> str | None:
        """Restore the latest checkpoint and return its prefix; if there is none, call `init_fn` and return None."""
        if self._latest is not None:
            self._checkpoint.restore(self._latest)
            return self._latest
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Nothing to wait for: minitape writes synchronously."""

"""`mt.config` and `mt.device`: TensorFlow's device settings, as harmless no-ops.

minitape runs every op with numpy on the CPU, in one process, so there is exactly one device. These functions
exist so that tutorial code which lists GPUs or sets memory growth runs unchanged: the answers describe that one
CPU, and settings are accepted and ignored. Asking for a GPU warns once, because the code would silently not
be running where its author meant. One setting acts: `run_functions_eagerly(True)` makes every `mt.function` call
its Python function as plain eager code, as TensorFlow's does.
"""

from __future__ import annotations

import contextlib
import types
import warnings
from collections.abc import Iterator
from typing import Any, NamedTuple

from minitape.namespaces import missing


class PhysicalDevice(NamedTuple):
    """A device as `tf.config.list_physical_devices` describes it."""

    name: str
    device_type: str


class LogicalDevice(NamedTuple):
    name: str
    device_type: str


_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")


def _warn_once(what: str) -> None:
    # Python's default warning filter shows a warning once per calling line, which is the "once" wanted here
    warnings.warn(f"{what}: minitape has no GPU or TPU; everything runs on the CPU with numpy", stacklevel=4)


def list_physical_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    """The CPU for None or 'CPU'; [] for 'GPU' or 'TPU' (so `len(...('GPU'))` is 0, as on a machine without)."""
    return [_CPU] if device_type is None or device_type.upper() == "CPU" else []


def list_logical_devices(device_type: str | None = None) -> list[LogicalDevice]:
    return [LogicalDevice("/device:CPU:0", "CPU")] if device_type is None or device_type.upper() == "CPU" else []


def get_visible_devices(device_type: str | None = None) -> list[PhysicalDevice]:
    return list_physical_devices(device_type)


def set_visible_devices(devices: Any, device_type: str | None = None) -> None:
    """Accepted and ignored: the CPU is the only device."""


def run_functions_eagerly(run_eagerly: bool) -> None:
    """Make every `mt.function` call run its Python function as plain eager code (True), or trace and replay
    graphs again (False), as TensorFlow's setting does: a debugging aid, since prints then print at every call."""
    from minitape.function.polymorphic import settings

    settings.run_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    from minitape.function.polymorphic import settings

    return settings.run_eagerly


def set_soft_device_placement(enabled: bool) -> None:
    """Accepted and ignored."""


def _set_memory_growth(device: Any, enable: bool) -> None:
    """Accepted and ignored: numpy allocates memory as it goes."""


def _get_memory_growth(device: Any) -> bool:
    return True


def _set_thread_count(num_threads: int) -> None:
    """Accepted and ignored: numpy's BLAS decides (set OMP_NUM_THREADS before starting Python to change it)."""


class _Namespace(types.SimpleNamespace):
    """A namespace whose missing names say why they are missing (minitape/namespaces/missing.py)."""

    def __getattr__(self, name: str) -> Any:
        missing.raise_missing("tf.config.experimental", name, missing.CONFIG)


experimental = _Namespace(
    set_memory_growth=_set_memory_growth,
    get_memory_growth=_get_memory_growth,
    list_physical_devices=list_physical_devices,
    set_visible_devices=set_visible_devices,
    get_visible_devices=get_visible_devices,
)
threading = types.SimpleNamespace(
    set_intra_op_parallelism_threads=_set_thread_count,
    set_inter_op_parallelism_threads=_set_thread_count,
    get_intra_op_parallelism_threads=lambda: 0,
    get_inter_op_parallelism_threads=lambda: 0,
)


@contextlib.contextmanager
def device(device_name: str) -> Iterator[None]:
    """`with mt.device("/CPU:0"):` runs its block as usual; a GPU or TPU name warns once (there is none)."""
    if device_name and any(kind in str(device_name).upper() for kind in ("GPU", "TPU")):
        _warn_once(f"mt.device({device_name!r})")
    yield

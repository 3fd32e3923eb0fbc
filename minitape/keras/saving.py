"""`keras.saving`: the registration decorator that tutorials put on custom classes; saving itself is not here.

`register_keras_serializable` only names a class for a later load, so it does nothing here and the class is
usable as written. `save_model`, `load_model` and the rest raise an error that says what to use instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minitape.keras.unsupported import missing


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable[[Any], Any]:
    """Return the class unchanged: minitape saves no models, so there is nothing to register it for."""
    return lambda cls: cls


def __getattr__(name: str) -> object:
    raise missing("keras.saving", name)

"""Weight initializers, as `keras.initializers`: the classes of `minitape.init_ops`, and lookup by name."""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.keras import unsupported
from minitape.namespaces.init_ops import (
    Constant,
    GlorotNormal,
    GlorotUniform,
    HeNormal,
    HeUniform,
    Initializer,
    LecunNormal,
    LecunUniform,
    Ones,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
)

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "Initializer",
    "LecunNormal",
    "LecunUniform",
    "Ones",
    "Orthogonal",
    "OrthogonalInitializer",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "get",
]


class Identity(Initializer):
    """`gain` times the identity matrix, for 2-D shapes only, as `keras.initializers.Identity`."""

    def __init__(self, gain: float = 1.0) -> None:
        self.gain = gain

    def sample(self, shape: tuple[int, ...], rng: Any) -> Any:
        if len(shape) != 2:
            raise ValueError(f"Identity initializer can only be used for 2D matrices. Received: shape={shape} of rank "
                             f"{len(shape)}.")  # fmt: skip
        return self.gain * np.eye(*shape)


_BY_NAME = {
    "zeros": Zeros,
    "ones": Ones,
    "constant": Constant,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "normal": RandomNormal,
    "uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "variance_scaling": VarianceScaling,
    "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform,
    "glorot_uniform": GlorotUniform,
    "glorot_normal": GlorotNormal,
    "he_normal": HeNormal,
    "he_uniform": HeUniform,
    "orthogonal": Orthogonal,
    "identity": Identity,
}


def get(identifier: Any) -> Initializer:
    """An initializer from a name ('glorot_uniform'), an Initializer or its class, or a callable(shape, dtype)."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown initializer: {identifier!r}. Use one of {sorted(_BY_NAME)}.")
        return _BY_NAME[identifier]()
    if isinstance(identifier, type):  # a class, not an instance (`initializer=keras.initializers.Ones`): Keras 3
        return identifier()  # makes one with its defaults
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer {identifier!r}: pass a name, an Initializer or a callable")


zeros, ones, constant, identity = Zeros, Ones, Constant, Identity  # Keras' lower-case names for the classes
IdentityInitializer = Identity
random_normal, random_uniform, truncated_normal, variance_scaling = (
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
)
lecun_normal, lecun_uniform = LecunNormal, LecunUniform
glorot_uniform, glorot_normal, he_normal, he_uniform = GlorotUniform, GlorotNormal, HeNormal, HeUniform
orthogonal = OrthogonalInitializer = Orthogonal


__getattr__ = unsupported.module_getattr("keras.initializers")  # a left-out name says what to use instead

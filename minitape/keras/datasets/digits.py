"""The 8x8 handwritten digits that scikit-learn ships (1797 images, 10 classes): no download needed.

`load_data()` mirrors `keras.datasets.mnist.load_data()`: images are uint8 arrays of
shape (n, 8, 8) holding grey levels 0..16 (MNIST: 0..255, 28x28), labels uint8 0..9.
Prepare them as for MNIST, dividing by the maximum, and add a channels axis for Conv2D:

    (x_train, y_train), (x_test, y_test) = mt.keras.datasets.digits.load_data()
    x_train, x_test = x_train / 16.0, x_test / 16.0
    x_train, x_test = x_train[..., None], x_test[..., None]   # (n, 8, 8, 1) for Conv2D

The split is fixed: 1437 training and 360 test images (80/20), chosen by a seeded
permutation from numpy's RandomState(0), whose stream numpy keeps stable across versions.
"""

from __future__ import annotations

import functools

import numpy as np

N_TEST = 360
MAX_VALUE = 16


@functools.lru_cache(maxsize=1)
def _arrays() -> tuple[np.ndarray, np.ndarray]:
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise ImportError(
            "mt.keras.datasets.digits needs scikit-learn (it ships the digits): pip install 'minitape[keras]'"
        ) from None
    bunch = load_digits()
    images = np.asarray(bunch.images, dtype=np.uint8)  # values are whole numbers 0..16
    labels = np.asarray(bunch.target, dtype=np.uint8)
    order = np.random.RandomState(0).permutation(len(images))
    return images[order], labels[order]


def load_data() -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """((x_train, y_train), (x_test, y_test)): uint8 images (n, 8, 8) in 0..16 and uint8 labels 0..9."""
    images, labels = _arrays()
    cut = len(images) - N_TEST
    return (images[:cut].copy(), labels[:cut].copy()), (images[cut:].copy(), labels[cut:].copy())

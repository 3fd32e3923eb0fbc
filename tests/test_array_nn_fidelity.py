"""Array, nn and linalg ops that a differential test against TensorFlow 2.21 found answering differently.

Each expected number is the one TensorFlow gives for the same call (written as a number: the tests do not
import TensorFlow); gradients are also checked against finite differences in float64.
"""

import numpy as np
import pytest

import minitape as mt
from minitape.test_util import check_gradients


def message_of(exception, fn):
    with pytest.raises(exception) as info:
        fn()
    return str(info.value)


def gradient(f, x):
    x = mt.constant(x)
    with mt.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x).numpy()


# ---- clipping ------------------------------------------------------------------------------------------
def test_clip_by_norm_of_zeros_has_tensorflows_finite_gradient():
    weights = mt.constant([1.0, 2.0, 3.0], mt.float64)
    g = gradient(lambda x: mt.reduce_sum(mt.clip_by_norm(x, 1.0) * weights), np.zeros(3))
    np.testing.assert_array_equal(g, [1.0, 2.0, 3.0])  # TensorFlow gives [1, 2, 3]


def test_clip_by_norm_over_axes_with_a_zero_row():
    x = np.array([[0.0, 0.0], [3.0, 4.0]])
    np.testing.assert_allclose(mt.clip_by_norm(x, 1.0, axes=[1]).numpy(), [[0, 0], [0.6, 0.8]])
    weights = mt.constant([[1.0, 2.0], [3.0, 5.0]], mt.float64)
    g = gradient(lambda t: mt.reduce_sum(mt.clip_by_norm(t, 1.0, axes=[1]) * weights), x)
    np.testing.assert_allclose(g, [[1.0, 2.0], [-0.096, 0.072]])  # TensorFlow's numbers
    nonzero = np.array([[0.3, -0.2], [3.0, 4.0]])
    check_gradients(lambda t: mt.clip_by_norm(t, 1.0, axes=[1]), [nonzero], order=2)


def test_clip_by_global_norm_of_an_infinite_or_nan_norm_is_all_nan():
    (a, b), norm = mt.clip_by_global_norm([mt.constant([np.inf, 1.0]), mt.constant([2.0])], 1.0)
    assert np.isinf(norm.numpy())
    assert np.isnan(a.numpy()).all() and np.isnan(b.numpy()).all()  # TensorFlow: [nan, nan], [nan]
    (c,), norm = mt.clip_by_global_norm([mt.constant([np.nan, 1.0])], 1.0)
    assert np.isnan(norm.numpy()) and np.isnan(c.numpy()).all()
    (d,), _ = mt.clip_by_global_norm([mt.constant([3.0, 4.0])], 1.0)
    np.testing.assert_allclose(d.numpy(), [0.6, 0.8], rtol=1e-6)

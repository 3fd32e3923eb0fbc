"""SparseCategoricalCrossentropy's checks of its labels, made at every call (also at every replay of a traced step):
a label outside [0, classes) on either side, a batch of another size, non-integer floats; and what it accepts."""

import numpy as np
import pytest

import minitape as mt
from minitape import keras

LOSS = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
LOGITS = mt.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3))


@pytest.mark.parametrize("bad, labels", [(-1, [0, -1, 2, 1]), (3, [0, 1, 3, 1]), (-7, np.array([2, 1, -7, 9]))])
def test_a_label_outside_the_classes_is_named_on_either_side(bad, labels):
    with pytest.raises(ValueError, match=rf"label {bad} is out of range: .*\(4, 3\).*\[0, 3\)"):
        LOSS(np.asarray(labels), LOGITS)


def test_labels_of_another_batch_size_are_refused_with_both_shapes():
    with pytest.raises(ValueError, match=r"y_true has 3 examples \(shape \(3,\)\) but y_pred has 4 \(shape \(4, 3\)\)"):
        LOSS(np.array([0, 1, 2]), LOGITS)


def test_non_integer_float_labels_are_refused():
    with pytest.raises(ValueError, match="labels must be integer class indices"):
        LOSS(np.array([0.0, 1.5, 2.0, 1.0]), LOGITS)


@pytest.mark.parametrize(
    "labels",
    [
        np.array([0, 2, 1, 2]),
        np.array([[0], [2], [1], [2]]),
        np.array([0.0, 2.0, 1.0, 2.0]),
        np.array([0, 2, 1, 2], np.uint8),
    ],
)
def test_integer_labels_of_any_dtype_or_with_a_trailing_axis_give_the_same_loss(labels):
    log_softmax = LOGITS.numpy() - np.log(np.exp(LOGITS.numpy()).sum(-1, keepdims=True))
    expected = -np.mean(log_softmax[np.arange(4), [0, 2, 1, 2]])
    np.testing.assert_allclose(float(LOSS(labels, LOGITS)), expected, rtol=1e-6)

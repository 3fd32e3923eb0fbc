"""Losses and metrics: the values Keras documents, formulas in numpy, lookup by name, shape errors, subclassing."""

from __future__ import annotations

import numpy as np
import pytest

import minitape as mt
from minitape.aids.check_gradients import check_gradients

keras = mt.keras
losses = keras.losses
metrics = keras.metrics

pytestmark = pytest.mark.usefixtures("keras_session")
Y_TRUE = [[0.0, 1.0], [0.0, 0.0]]
Y_PRED = [[0.6, 0.4], [0.4, 0.6]]


@pytest.mark.parametrize(
    ("loss", "y_true", "y_pred", "documented"),
    [
        (losses.Huber(), Y_TRUE, Y_PRED, 0.155),
        (losses.LogCosh(), [[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [0.0, 0.0]], 0.108),
        (losses.KLDivergence(), Y_TRUE, Y_PRED, 0.458),
        (losses.CosineSimilarity(axis=1), [[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]], -0.5),
        (losses.MeanAbsoluteError(), Y_TRUE, [[1.0, 1.0], [1.0, 0.0]], 0.5),
    ],
)
def test_documented_values(loss, y_true, y_pred, documented):
    assert float(loss(y_true, y_pred)) == pytest.approx(documented, abs=5e-4)


def test_huber_beyond_delta_is_linear():
    error = np.array([[0.5, 3.0]])
    per_element = np.where(np.abs(error) <= 2.0, 0.5 * error**2, 2.0 * (np.abs(error) - 1.0))
    got = losses.Huber(delta=2.0)(np.zeros((1, 2)), error)
    assert float(got) == pytest.approx(per_element.mean())


def test_log_cosh_is_stable_for_large_errors():
    value = float(losses.log_cosh(np.zeros((1, 1)), np.array([[1000.0]]))[0])  # one loss per row: shape (1,)
    assert value == pytest.approx(1000.0 - np.log(2.0))


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("huber", lambda t, p: np.mean(np.where(np.abs(p - t) <= 1, 0.5 * (p - t) ** 2, np.abs(p - t) - 0.5), -1)),
        ("log_cosh", lambda t, p: np.mean(np.log(np.cosh(p - t)), -1)),
        ("kl_divergence", lambda t, p: np.sum(t * np.log(t / p), -1)),
        (
            "cosine_similarity",
            lambda t, p: -np.sum(t * p, -1) / (np.linalg.norm(t, axis=-1) * np.linalg.norm(p, axis=-1)),
        ),
        ("mae", lambda t, p: np.mean(np.abs(t - p), -1)),
        ("mse", lambda t, p: np.mean((t - p) ** 2, -1)),
    ],
)
def test_losses_by_name_match_numpy_and_have_gradients(name, fn):
    rng = np.random.default_rng(3)
    y_true, y_pred = rng.uniform(0.1, 1.0, size=(4, 3)), rng.uniform(0.1, 1.0, size=(4, 3))
    per_example = losses.get(name)  # as Keras 3: the function, one loss per example
    np.testing.assert_allclose(per_example(y_true, y_pred).numpy(), fn(y_true, y_pred), rtol=1e-6)
    loss = losses.for_compile(name)  # what compile(loss=name) trains: their mean
    assert float(loss(y_true, y_pred)) == pytest.approx(np.mean(fn(y_true, y_pred)), rel=1e-6)
    check_gradients(lambda p: loss(mt.constant(y_true), p), [y_pred], order=1)
    check_gradients(lambda p: loss(mt.constant(y_true), p), [y_pred], order=2)


EPS = 1e-7  # keras.backend.epsilon()


def test_probability_crossentropies_rescale_each_row_to_sum_to_one_as_keras_does():
    assert float(losses.CategoricalCrossentropy()([[0.0, 1.0]], [[1.0, 1.0]])) == pytest.approx(np.log(2.0))  # Keras 3
    y_pred = np.array([[0.2, 0.3, 0.1], [1.0, 1.0, 2.0]], np.float32)
    labels = np.array([1, 2])
    one_hot = np.eye(3, dtype=np.float32)[labels]
    # Categorical: rescale, then clip (Keras 3 gives log 2 for both rows)
    want = -np.log(np.clip(y_pred / y_pred.sum(-1, keepdims=True), EPS, 1 - EPS)[[0, 1], labels])
    np.testing.assert_allclose(want, [np.log(2.0), np.log(2.0)], rtol=1e-6)
    np.testing.assert_allclose(losses.categorical_crossentropy(one_hot, y_pred).numpy(), want, rtol=1e-6)
    # Sparse: clip, then rescale (Keras 3 gives log 2 and log 3: the second row is clipped to 1 - eps everywhere)
    clipped = np.clip(y_pred, EPS, 1 - EPS)
    sparse_want = -np.log(clipped[[0, 1], labels] / clipped.sum(-1))
    np.testing.assert_allclose(sparse_want, [np.log(2.0), np.log(3.0)], rtol=1e-6)
    np.testing.assert_allclose(losses.sparse_categorical_crossentropy(labels, y_pred).numpy(), sparse_want, rtol=1e-6)
    assert float(losses.SparseCategoricalCrossentropy()(labels, y_pred)) == pytest.approx(sparse_want.mean())
    for metric, target, expected in (
        (metrics.CategoricalCrossentropy(), one_hot, want.mean()),
        (metrics.SparseCategoricalCrossentropy(), labels, sparse_want.mean()),
    ):
        metric.update_state(target, y_pred)
        assert float(metric.result()) == pytest.approx(expected, rel=1e-6)


def test_rescaled_crossentropy_gradients_follow_the_rescaling():
    y_pred = mt.Variable(np.array([[0.2, 0.3, 0.1], [1.0, 1.0, 2.0]], np.float32))
    with mt.GradientTape() as tape:
        loss = losses.CategoricalCrossentropy()([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], y_pred)
    # Keras 3's gradient: d/dp of -log(p_k / sum p) / batch is (1 / sum p - [j == k] / p_k) / 2
    want = [[0.5 / 0.6, 0.5 / 0.6 - 0.5 / 0.3, 0.5 / 0.6], [0.125, 0.125, 0.125 - 0.25]]
    np.testing.assert_allclose(tape.gradient(loss, y_pred).numpy(), want, rtol=1e-5)
    rng = np.random.default_rng(4)
    p = rng.uniform(0.1, 0.9, size=(4, 3))  # away from the clipping
    one_hot = np.eye(3)[[0, 2, 1, 1]]
    check_gradients(lambda q: losses.CategoricalCrossentropy()(one_hot, q), [p], order=1)
    check_gradients(lambda q: losses.SparseCategoricalCrossentropy()(np.array([0, 2, 1, 1]), q), [p], order=1)


def test_binary_crossentropy_label_smoothing_moves_targets_towards_one_half():
    y_true, y_pred = np.array([[1.0], [0.0]], np.float32), np.array([[0.9], [0.3]], np.float32)
    smoothed = y_true * 0.9 + 0.05
    want = -(smoothed * np.log(y_pred) + (1 - smoothed) * np.log(1 - y_pred))[:, 0]
    np.testing.assert_allclose(want, [0.21522179, 0.39903986], rtol=1e-6)  # Keras 3's binary_crossentropy
    got = losses.binary_crossentropy(y_true, y_pred, label_smoothing=0.1).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert float(losses.BinaryCrossentropy(label_smoothing=0.1)(y_true, y_pred)) == pytest.approx(want.mean())
    metric = metrics.BinaryCrossentropy(label_smoothing=0.1)
    metric.update_state(y_true, y_pred)
    assert float(metric.result()) == pytest.approx(want.mean(), rel=1e-6)  # Keras 3: 0.3071308
    logits = np.array([[2.0], [-1.0]], np.float32)
    target = y_true * 0.8 + 0.1
    probability = 1 / (1 + np.exp(-logits))
    want = -np.mean(target * np.log(probability) + (1 - target) * np.log(1 - probability))
    got = losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.2)(y_true, logits)
    assert float(got) == pytest.approx(want, rel=1e-6) == pytest.approx(0.3700948, rel=1e-6)  # Keras 3


def test_get_follows_keras_3_and_compile_still_averages():
    assert losses.get("mse") is losses.mean_squared_error is losses.get("mean_squared_error")
    assert losses.get("categorical_crossentropy") is losses.categorical_crossentropy
    assert isinstance(losses.get("MeanSquaredError"), losses.MeanSquaredError)
    assert isinstance(losses.get(losses.Huber), losses.Huber)
    mine, instance = (lambda t, p: p), losses.Huber(delta=2.0)
    assert losses.get(mine) is mine and losses.get(instance) is instance
    # Keras 3: get("mse")(zeros((3, 2)), ones((3, 2))) is [1, 1, 1]
    np.testing.assert_array_equal(losses.get("mse")(np.zeros((3, 2)), np.ones((3, 2))).numpy(), [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="Unknown loss function: 'nope'.*mean_squared_error"):
        losses.get("nope")
    x, y = np.array([[1.0, 2.0], [3.0, -1.0]]), np.array([[0.5], [2.0]])
    results = []
    for loss in ("mse", "mean_squared_error", losses.MeanSquaredError(), losses.mean_squared_error):
        model = keras.Sequential([keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")])
        model.compile("sgd", loss=loss)
        results.append(model.evaluate(x, y, verbose=0))
    prediction = x.sum(axis=1, keepdims=True)
    assert results == pytest.approx([np.mean((prediction - y) ** 2)] * 4)


@pytest.mark.parametrize("name", ["huber", "log_cosh", "kl_divergence", "cosine_similarity", "mae", "mse"])
def test_mismatched_shapes_are_refused_naming_both(name):
    with pytest.raises(ValueError, match=r"y_true of shape \(4, 2\) and y_pred of shape \(4, 3\)"):
        losses.get(name)(np.ones((4, 2)), np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"y_true has 4 examples .* y_pred has 5"):
        losses.get(name)(np.ones((4, 1)), np.ones((5, 1)))


def test_labels_without_the_trailing_axis_are_matched_not_broadcast():
    y_true, y_pred = np.array([1.0, 2.0, 3.0, 4.0]), np.array([[1.0], [2.0], [3.0], [5.0]])
    assert float(losses.Huber()(y_true, y_pred)) == pytest.approx(0.5 / 4)  # not a (4, 4) broadcast


def test_images_with_a_channels_axis_against_predictions_without_are_matched_as_keras_matches_them():
    images = np.zeros((2, 3, 3, 1))
    predicted = np.full((2, 3, 3), 0.5)
    assert float(losses.MeanSquaredError()(images, predicted)) == pytest.approx(0.25)
    with pytest.raises(ValueError, match=r"y_true of shape \(2, 3, 3, 2\) and y_pred of shape \(2, 3, 3\)"):
        losses.MeanSquaredError()(np.zeros((2, 3, 3, 2)), predicted)  # only an axis of size 1 is dropped


def test_subclassing_loss_with_only_call():
    class MeanAbsolute(losses.Loss):
        def call(self, y_true, y_pred):
            return mt.reduce_mean(mt.abs(y_true - y_pred), axis=-1)

    loss = MeanAbsolute()
    assert loss.name == "mean_absolute"
    assert float(loss(np.zeros((2, 2)), np.array([[1.0, 3.0], [2.0, 2.0]]))) == pytest.approx(2.0)
    weighted = loss(np.zeros((2, 2)), np.array([[1.0, 3.0], [2.0, 2.0]]), sample_weight=np.array([1.0, 0.0]))
    assert float(weighted) == pytest.approx(1.0)  # Keras: the weighted sum over the batch size
    none = MeanAbsolute(reduction="none")(np.zeros((2, 1)), np.array([[1.0], [2.0]]))
    np.testing.assert_allclose(none.numpy(), [1.0, 2.0])

    model = keras.Sequential([keras.layers.Dense(1)])
    model.compile("sgd", loss=MeanAbsolute())
    model.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0)


ZEROS = np.zeros((3, 2), np.float32)
ROWS = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]], np.float32)  # squared errors per example: 1, 4, 9


@pytest.mark.parametrize(
    ("reduction", "sample_weight", "keras_3"),
    [
        ("sum_over_batch_size", [[1.0], [2.0], [3.0]], 12.0),  # a column of weights, (batch, 1)
        ("sum_over_batch_size", [1.0, 2.0, 0.0], 3.0),
        ("mean", [1.0, 2.0, 0.0], 3.0),  # Keras 3's 'mean' is 'sum_over_batch_size'
        ("mean", 2.0, 28.0 / 3.0),
        ("sum", [[1.0], [2.0], [3.0]], 36.0),
        ("mean_with_sample_weight", [[1.0], [2.0], [3.0]], 6.0),  # over the sum of the weights
        ("mean_with_sample_weight", 2.0, 14.0),  # (as Keras: the scalar weight itself, not broadcast)
        ("mean_with_sample_weight", None, 14.0 / 3.0),
    ],
)
def test_sample_weights_and_reductions_give_keras_3_numbers(reduction, sample_weight, keras_3):
    per_example = np.array([1.0, 4.0, 9.0])
    weights = np.ones(3) if sample_weight is None else np.broadcast_to(np.ravel(sample_weight), 3)
    total = float(np.sum(per_example * weights))
    divisor = {"sum": 1.0, "mean_with_sample_weight": np.sum(sample_weight if sample_weight is not None else 3.0)}
    assert total / divisor.get(reduction, 3.0) == pytest.approx(keras_3)
    got = losses.MeanSquaredError(reduction=reduction)(ZEROS, ROWS, sample_weight=sample_weight)
    assert float(got) == pytest.approx(keras_3)


def test_a_column_of_sample_weights_fits_as_keras_fits_it():
    # Keras 3 gives 2.0 for MSE(zeros((3, 2)), ones((3, 2)), sample_weight=[[1], [2], [3]]): (1 + 2 + 3) / 3
    got = losses.MeanSquaredError()(ZEROS, np.ones((3, 2), np.float32), sample_weight=[[1.0], [2.0], [3.0]])
    assert float(got) == pytest.approx(2.0)
    none = losses.MeanSquaredError(reduction="none")(ZEROS, ROWS, sample_weight=[[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(none.numpy(), [[1.0], [8.0], [27.0]])  # Keras 3 keeps the column too
    # labels and predictions (batch, 1) with weights (batch,) or (batch, 1): Keras 3 gives 1.1001732 for both
    y_true, y_pred = np.array([[1.0], [0.0], [1.0]]), np.array([[0.9], [0.2], [0.4]])
    want = -np.mean([1 * np.log(0.9), 2 * np.log(0.8), 3 * np.log(0.4)])
    for weights in ([1.0, 2.0, 3.0], [[1.0], [2.0], [3.0]]):
        assert float(losses.BinaryCrossentropy()(y_true, y_pred, sample_weight=weights)) == pytest.approx(want)
    with pytest.raises(ValueError, match=r"sample_weight of shape \(2,\) does not fit .* \(3,\).*shape \(3,\)"):
        losses.MeanSquaredError()(ZEROS, ROWS, sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match="reduction must be one of"):
        losses.MeanSquaredError(reduction="average")


def test_metrics_broadcast_a_weight_per_example_as_keras_does():
    y_true = np.array([[1.0], [0.0], [1.0]], np.float32)
    y_pred = np.array([[0.9], [0.8], [0.2]], np.float32)
    # numbers from Keras 3, with sample_weight [1, 2, 3] or [[1], [2], [3]]: the weighted counts are
    # tp = 1 (example 0), fp = 2 (example 1), fn = 3 (example 2), tn = 0
    expected = {
        metrics.Precision: 1 / 3,
        metrics.Recall: 1 / 4,
        metrics.TruePositives: 1.0,
        metrics.FalsePositives: 2.0,
        metrics.FalseNegatives: 3.0,
        metrics.TrueNegatives: 0.0,
        metrics.AUC: (1 * 2) / ((1 + 3) * 2),  # weighted pairs ranked right: positive 0 above negative 1
        metrics.BinaryAccuracy: 1 / 6,
        metrics.MeanSquaredError: (0.01 + 2 * 0.64 + 3 * 0.64) / 6,
    }
    for weights in ([1.0, 2.0, 3.0], [[1.0], [2.0], [3.0]]):
        for cls, value in expected.items():
            metric = cls()
            metric.update_state(y_true, y_pred, sample_weight=np.array(weights, np.float32))
            assert float(metric.result()) == pytest.approx(value, rel=1e-5), cls.__name__
    # two labels per example: the example's weight reaches both (Keras 3: precision 0.66667, MSE 0.30583)
    y_true2, y_pred2 = np.array([[1, 0], [0, 0], [1, 1]]), np.array([[0.9, 0.1], [0.8, 0.3], [0.2, 0.7]])
    precision, mse = metrics.Precision(), metrics.MeanSquaredError()
    for metric in (precision, mse):
        metric.update_state(y_true2, y_pred2, sample_weight=[1.0, 2.0, 3.0])
    assert float(precision.result()) == pytest.approx((1 + 3) / (1 + 2 + 3))  # tp: 1 + 3, predicted: 1 + 2 + 3
    per_example = np.mean((y_true2 - y_pred2) ** 2, axis=1)
    assert float(mse.result()) == pytest.approx(np.sum(per_example * [1, 2, 3]) / 6, rel=1e-6)
    mean = metrics.Mean()  # values per element, weights per example: each row is averaged first
    mean.update_state([[1.0, 2.0], [3.0, 5.0]], sample_weight=[1.0, 3.0])
    assert float(mean.result()) == pytest.approx((1.5 + 3 * 4.0) / 4)  # Keras 3: 3.375
    with pytest.raises(ValueError, match=r"precision: sample_weight of shape|Precision: sample_weight of shape"):
        metrics.Precision().update_state(y_true, y_pred, sample_weight=[1.0, 2.0])


RNG = np.random.default_rng(1)
COUNTS, RATES = RNG.uniform(0, 3, (4, 3)), RNG.uniform(0.1, 3, (4, 3))
BINARY = (RNG.uniform(size=(4, 3)) > 0.5).astype(float)
SCORES = RNG.normal(size=(4, 3))
ONE_HOT = np.eye(3)[[0, 2, 1, 1]]


def _margin_labels(y):
    return 2 * y - 1 if np.all((y == 0) | (y == 1)) else y


@pytest.mark.parametrize(
    ("name", "cls", "metric", "y_true", "y_pred", "fn"),
    [
        (
            "msle",
            losses.MeanSquaredLogarithmicError,
            metrics.MeanSquaredLogarithmicError,
            COUNTS,
            RATES,
            lambda t, p: np.mean((np.log1p(np.maximum(p, EPS)) - np.log1p(np.maximum(t, EPS))) ** 2, -1),
        ),
        (
            "hinge",
            losses.Hinge,
            metrics.Hinge,
            BINARY,
            SCORES,
            lambda t, p: np.mean(np.maximum(1 - _margin_labels(t) * p, 0), -1),
        ),
        (
            "squared_hinge",
            losses.SquaredHinge,
            metrics.SquaredHinge,
            2 * BINARY - 1,
            SCORES,
            lambda t, p: np.mean(np.maximum(1 - t * p, 0) ** 2, -1),
        ),
        (
            "categorical_hinge",
            losses.CategoricalHinge,
            metrics.CategoricalHinge,
            ONE_HOT,
            SCORES,
            lambda t, p: np.maximum(np.max((1 - t) * p, -1) - np.sum(t * p, -1) + 1, 0),
        ),
        (
            "poisson",
            losses.Poisson,
            metrics.Poisson,
            COUNTS,
            RATES,
            lambda t, p: np.mean(p - t * np.log(p + EPS), -1),
        ),
    ],
)
def test_more_keras_3_losses_by_class_function_and_name_and_as_metrics(name, cls, metric, y_true, y_pred, fn):
    want = fn(y_true, y_pred)
    np.testing.assert_allclose(losses.get(name)(y_true, y_pred).numpy(), want, rtol=1e-5)
    np.testing.assert_allclose(getattr(losses, name)(y_true, y_pred).numpy(), want, rtol=1e-5)
    assert float(cls()(y_true, y_pred)) == pytest.approx(want.mean(), rel=1e-5)
    weights = np.array([1.0, 2.0, 0.5, 3.0])
    assert float(cls()(y_true, y_pred, sample_weight=weights)) == pytest.approx(np.mean(want * weights), rel=1e-5)
    running = metric()
    running.update_state(y_true, y_pred, sample_weight=weights)
    assert float(running.result()) == pytest.approx(np.sum(want * weights) / weights.sum(), rel=1e-5)
    assert type(metrics.get(name)) is metric
    check_gradients(lambda p: cls()(mt.constant(y_true), p), [y_pred + 0.013], order=1)  # off the kinks


def test_keras_3_values_of_the_new_losses():
    # Keras 3 on the same data: MeanSquaredLogarithmicError, Hinge, SquaredHinge, CategoricalHinge, Poisson
    y_true, y_pred = COUNTS.astype(np.float32), RATES.astype(np.float32)
    assert float(losses.MeanSquaredLogarithmicError()(y_true, y_pred)) == pytest.approx(0.13443, abs=1e-5)
    assert float(losses.Poisson()(y_true, y_pred)) == pytest.approx(0.89137, abs=1e-5)
    assert float(losses.Hinge()(BINARY, SCORES.astype(np.float32))) == pytest.approx(1.37717, abs=1e-5)
    assert float(losses.SquaredHinge()(BINARY, SCORES.astype(np.float32))) == pytest.approx(2.28357, abs=1e-5)
    assert float(losses.CategoricalHinge()(ONE_HOT, SCORES.astype(np.float32))) == pytest.approx(1.18598, abs=1e-5)


def test_top_k_accuracies_count_ties_at_the_edge_as_in_the_top_k():
    scores = np.array([[0.1, 0.5, 0.3, 0.1], [0.4, 0.4, 0.1, 0.1], [0.2, 0.3, 0.3, 0.2], [0.7, 0.1, 0.1, 0.1]])
    labels = np.array([2, 1, 0, 3])  # ranks of the label's score: 2nd, tied 1st, 3rd (tied), tied 2nd
    weights = np.array([1.0, 2.0, 0.5, 3.0])
    for k, hits in ((1, [0, 1, 0, 0]), (2, [1, 1, 0, 1]), (3, [1, 1, 1, 1])):
        dense = metrics.TopKCategoricalAccuracy(k=k)
        dense.update_state(np.eye(4)[labels], scores)
        assert float(dense.result()) == pytest.approx(np.mean(hits))  # Keras 3: 0.25, 0.75, 1.0
        sparse = metrics.SparseTopKCategoricalAccuracy(k=k)
        sparse.update_state(labels[:, None], scores, sample_weight=weights)
        assert float(sparse.result()) == pytest.approx(np.sum(weights * hits) / weights.sum(), rel=1e-6)
    default = metrics.TopKCategoricalAccuracy()
    assert default.k == 5 and default.name == "top_k_categorical_accuracy"


def test_r2_score_accumulates_over_batches_as_keras_3_does():
    rng = np.random.default_rng(2)
    y = rng.normal(size=(6, 2))
    p = y + 0.3 * rng.normal(size=(6, 2))
    w = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 0.5])[:, None]

    def raw(y, p, w):
        mean = np.sum(w * y, 0) / np.sum(w * np.ones_like(y), 0)
        return 1 - np.sum(w * (y - p) ** 2, 0) / np.sum(w * (y - mean) ** 2, 0)

    scores = raw(y, p, w)
    variances = np.sum(w * (y - np.sum(w * y, 0) / np.sum(w * np.ones_like(y), 0)) ** 2, 0)
    for options, want in (
        ({}, scores.mean()),
        ({"class_aggregation": "variance_weighted_average"}, np.sum(variances * scores) / variances.sum()),
        ({"class_aggregation": None}, scores),
        ({"num_regressors": 2}, 1 - (1 - scores.mean()) * (12 - 1) / (12 - 2 - 1)),
    ):
        metric = metrics.R2Score(**options)
        metric.update_state(y[:3], p[:3])
        metric.update_state(y[3:], p[3:], sample_weight=w[3:, 0])
        np.testing.assert_allclose(metric.result().numpy(), want, rtol=1e-5)
    with pytest.warns(UserWarning, match="adjusted R2 needs fewer"):
        big = metrics.R2Score(num_regressors=20)
        big.update_state(y, p)
        big.result()
    with pytest.raises(ValueError, match="class_aggregation must be"):
        metrics.R2Score(class_aggregation="median")


@pytest.mark.parametrize(
    ("namespace", "name", "hint"),
    [
        (losses, "BinaryFocalCrossentropy", "no focal loss"),
        (losses, "Dice", "keras.losses.Loss subclass"),
        (metrics, "F1Score", "TruePositives, FalsePositives and FalseNegatives"),
        (metrics, "MeanIoU", "TruePositives, FalsePositives and FalseNegatives"),
        (keras.optimizers, "Lion", "use Adam or AdamW"),
        (keras.optimizers.schedules, "CosineDecayRestarts", "use CosineDecay"),
        (keras.activations, "mish", "your own function"),
        (keras.initializers, "STFT", "What is not there"),
        (keras.regularizers, "OrthogonalRegularizer", "keras.regularizers.L2"),
        (keras.callbacks, "TerminateOnNaN", "stop_training"),
        (metrics, "NoSuchMetric", "What is not there"),
    ],
)
def test_names_keras_3_has_and_minitape_leaves_out_say_what_to_use(namespace, name, hint):
    short = namespace.__name__.replace("minitape.", "").replace("keras.schedules", "keras.optimizers.schedules")
    with pytest.raises(AttributeError, match=rf"minitape has no {short}\.{name}: .*{hint}"):
        getattr(namespace, name)
    assert not hasattr(namespace, "__no_such_dunder__")  # Python's own probes get a plain AttributeError


def test_metric_functions_give_one_value_per_example_as_keras_3():
    y_true, y_pred = np.array([[1.0], [0.0], [1.0]]), np.array([[0.9], [0.7], [0.2]])
    np.testing.assert_array_equal(metrics.binary_accuracy(y_true, y_pred).numpy(), [1.0, 0.0, 0.0])
    scores = np.array([[0.1, 0.5, 0.4], [0.2, 0.3, 0.5]])
    np.testing.assert_array_equal(metrics.categorical_accuracy(np.eye(3)[[1, 1]], scores).numpy(), [1.0, 0.0])
    np.testing.assert_array_equal(metrics.sparse_categorical_accuracy(np.array([1, 1]), scores).numpy(), [1.0, 0.0])
    np.testing.assert_array_equal(metrics.top_k_categorical_accuracy(np.eye(3)[[0, 1]], scores, k=2).numpy(), [0, 1])
    np.testing.assert_array_equal(metrics.sparse_top_k_categorical_accuracy([2, 0], scores, k=2).numpy(), [1, 0])
    assert metrics.mse is losses.mean_squared_error and metrics.MSE is metrics.MeanSquaredError
    assert metrics.kullback_leibler_divergence is losses.kl_divergence is losses.kullback_leibler_divergence


def test_a_loss_class_without_call_says_what_to_define():
    with pytest.raises(NotImplementedError, match="must define call"):
        losses.Loss()(np.ones((1, 1)), np.ones((1, 1)))


# ---- metrics -----------------------------------------------------------------------------------------
def test_precision_and_recall_documented_values():
    precision, recall = metrics.Precision(), metrics.Recall()
    precision.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    recall.update_state([0, 1, 1, 1], [1, 0, 1, 1])
    assert float(precision.result()) == pytest.approx(2 / 3) and float(recall.result()) == pytest.approx(2 / 3)
    precision.reset_state()
    recall.reset_state()
    precision.update_state([0, 1, 1, 1], [1, 0, 1, 1], sample_weight=[0, 0, 1, 0])
    recall.update_state([0, 1, 1, 1], [1, 0, 1, 1], sample_weight=[0, 0, 1, 0])
    assert float(precision.result()) == 1.0 and float(recall.result()) == 1.0
    none = metrics.Precision()
    none.update_state([1, 1], [0.2, 0.3])  # nothing predicted positive: 0, not nan
    assert float(none.result()) == 0.0


def test_auc_documented_value():
    auc = metrics.AUC(num_thresholds=3)
    auc.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    assert float(auc.result()) == pytest.approx(0.75)


def auc_numpy(labels, scores, num_thresholds=200):
    """Keras' recipe written out: counts at each threshold, then trapezoids between neighbouring thresholds."""
    thresholds = [-1e-7] + [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)] + [1 + 1e-7]
    tpr, fpr = [], []
    for t in thresholds:
        predicted = scores > t
        tp, fp = np.sum(predicted & (labels == 1)), np.sum(predicted & (labels == 0))
        tpr.append(tp / np.sum(labels == 1))
        fpr.append(fp / np.sum(labels == 0))
    return sum((fpr[i] - fpr[i + 1]) * (tpr[i] + tpr[i + 1]) / 2 for i in range(len(thresholds) - 1))


def test_auc_with_200_thresholds_matches_the_trapezoid_rule_over_batches():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 100)
    scores = np.clip(labels * 0.3 + rng.uniform(0, 0.7, 100), 0, 1)
    auc = metrics.AUC()
    assert auc.num_thresholds == 200
    auc.update_state(labels[:60], scores[:60])
    auc.update_state(labels[60:], scores[60:])
    assert float(auc.result()) == pytest.approx(auc_numpy(labels, scores), rel=1e-6)
    with pytest.raises(ValueError, match=r"probabilities in \[0, 1\].*from_logits=True"):
        metrics.AUC().update_state([1], [2.0])


def test_metric_classes_documented_values():
    mae = metrics.MeanAbsoluteError()
    mae.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
    assert float(mae.result()) == pytest.approx(0.25)
    cosine = metrics.CosineSimilarity(axis=1)
    cosine.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]])
    assert float(cosine.result()) == pytest.approx(0.5)
    rmse = metrics.RootMeanSquaredError()
    rmse.update_state([[0, 1], [0, 0]], [[1, 1], [0, 0]])
    assert float(rmse.result()) == pytest.approx(0.5)


def test_metrics_by_name_and_function_in_compile_log_under_their_names():
    def mean_prediction(y_true, y_pred):
        return mt.reduce_mean(y_pred, axis=-1)

    model = keras.Sequential([keras.layers.Dense(1, kernel_initializer="ones", bias_initializer="zeros")])
    model.compile("sgd", loss="mse", metrics=["mae", "mse", mean_prediction, metrics.RootMeanSquaredError()])
    x, y = np.array([[1.0], [2.0]]), np.array([[0.0], [0.0]])
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert list(logs) == ["loss", "mae", "mean_prediction", "mse", "root_mean_squared_error"]  # sorted, as Keras 3
    assert model.evaluate(x, y, verbose=0) == [
        logs[k] for k in ["loss", "mae", "mse", "mean_prediction", "root_mean_squared_error"]
    ]  # compile's order
    assert logs["mae"] == pytest.approx(1.5) and logs["mse"] == pytest.approx(2.5)
    assert logs["mean_prediction"] == pytest.approx(1.5) and logs["root_mean_squared_error"] == pytest.approx(2.5**0.5)
    with pytest.raises(ValueError, match="Unknown metric: 'nope'"):
        model.compile("sgd", loss="mse", metrics=["nope"])


def test_metric_add_weight_makes_resettable_state():
    class Positives(metrics.Metric):
        def __init__(self, name="positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.count = self.add_weight(name="count", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.count.assign_add(mt.reduce_sum(mt.cast(mt.constant(y_pred) > 0.5, "float32")))

        def result(self):
            return self.count.value()

    metric = Positives()
    metric.update_state(None, [0.9, 0.1, 0.7])
    metric.update_state(None, [0.6])
    assert float(metric.result()) == 3.0 and metric.variables[0].name == "positives/count:0"
    metric.reset_state()
    assert float(metric.result()) == 0.0


@pytest.mark.parametrize(
    ("metric", "y_true", "y_pred"),
    [
        (metrics.TruePositives, [0, 1, 1, 1], [1, 0, 1, 1]),
        (metrics.FalsePositives, [0, 1, 0, 0], [0, 0, 1, 1]),
        (metrics.TrueNegatives, [0, 1, 0, 0], [1, 1, 0, 0]),
        (metrics.FalseNegatives, [0, 1, 1, 1], [0, 1, 0, 0]),
    ],
)
def test_confusion_counts_documented_values(metric, y_true, y_pred):
    counter = metric()
    counter.update_state(y_true, y_pred)
    assert float(counter.result()) == 2.0
    several = metric(thresholds=[0.0, 0.5])
    several.update_state(y_true, np.asarray(y_pred) * 0.4)  # 0.4 > 0.0 but not > 0.5
    assert several.result().shape == (2,)


def test_the_imbalanced_data_tutorials_metric_list_runs_in_fit():
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid")])
    model.compile(
        optimizer="adam",
        loss="binary_crossentropy",
        metrics=[
            metrics.MeanSquaredError(name="Brier score"),
            metrics.TruePositives(name="tp"),
            metrics.FalsePositives(name="fp"),
            metrics.TrueNegatives(name="tn"),
            metrics.FalseNegatives(name="fn"),
            metrics.BinaryAccuracy(name="accuracy"),
            metrics.Precision(name="precision"),
            metrics.Recall(name="recall"),
            metrics.AUC(name="auc"),
            metrics.AUC(name="prc", curve="PR"),
        ],
    )
    rng = np.random.default_rng(0)
    x = rng.normal(size=(64, 3)).astype("float32")
    y = (x[:, :1] > 0.8).astype("float32")
    logs = model.evaluate(x, y, verbose=0, return_dict=True)
    assert logs["tp"] + logs["fp"] + logs["tn"] + logs["fn"] == 64
    assert 0.0 <= logs["prc"] <= 1.0 and 0.0 <= logs["auc"] <= 1.0


def test_losses_of_lists_and_float64_arrays_are_float32_as_in_keras_3():
    # effective_tf2's cell: Keras 3 converts y_true and y_pred to the loss's dtype (floatx) first
    assert keras.losses.CategoricalCrossentropy(from_logits=True)([[1, 0]], [[-1.0, 3.0]]).dtype == mt.float32
    assert keras.losses.MeanSquaredError()(np.array([1.0, 2.0]), np.array([1.5, 2.0])).dtype == mt.float32
    assert keras.losses.BinaryCrossentropy()([1.0, 0.0], [0.9, 0.2]).dtype == mt.float32
    sparse = keras.losses.SparseCategoricalCrossentropy()(np.array([1]), np.array([[0.2, 0.8]]))
    assert sparse.dtype == mt.float32 and sparse.numpy() == pytest.approx(-np.log(0.8))
    # a float64 tensor keeps float64 (Keras 3 would cast it), so float64 gradient checks stay exact
    assert (
        keras.losses.MeanSquaredError()(mt.constant([1.0], mt.float64), mt.constant([2.0], mt.float64)).dtype
        == mt.float64
    )


def test_a_metric_subclass_makes_its_state_after_super_init_as_in_keras_3():
    # the Keras 3 guide's CategoricalTruePositives: reset_state reads state made after super().__init__()
    class TruePositives(keras.metrics.Metric):
        def __init__(self) -> None:
            super().__init__(name="true_positives")
            self.hits = self.add_variable(shape=(), name="hits", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.hits.assign_add(mt.reduce_sum(mt.cast(mt.equal(y_true, y_pred), "float32")))

        def result(self):
            return self.hits

        def reset_state(self):
            self.hits.assign(0.0)

    metric = TruePositives()
    metric.update_state(mt.constant([1, 0, 1]), mt.constant([1, 1, 1]))
    assert float(metric.result()) == 2.0 and metric.hits.name == "true_positives/hits:0"
    metric.reset_state()
    assert float(metric.result()) == 0.0
    r2 = keras.metrics.R2Score()  # a built-in whose own reset_state makes its state
    r2.update_state(np.array([[1.0], [2.0], [3.0]]), np.array([[1.0], [2.0], [4.0]]))
    assert float(r2.result()) == pytest.approx(0.5)

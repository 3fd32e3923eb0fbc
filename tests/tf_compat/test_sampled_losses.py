"""tf.nn.nce_loss and tf.nn.sampled_softmax_loss (the word2vec tutorials' losses) and their candidate samplers.

With `sampled_values` fixed, the losses and their gradients are TensorFlow 2.21's to float32 precision: the
reference numbers are in tests/data/tf_sampled_losses.json, printed by TensorFlow for the same tensors. The
samplers' draws come from numpy's generator, so they are checked by their law and their expected counts.
"""

import json
from pathlib import Path

import numpy as np
import pytest

import minitape as tf

REFERENCE = json.loads((Path(__file__).resolve().parents[1] / "data" / "tf_sampled_losses.json").read_text())

rng = np.random.default_rng(3)
W = tf.constant(rng.normal(size=(10, 4)).astype("float32"))
b = tf.constant(rng.normal(size=(10,)).astype("float32"))
x = tf.constant(rng.normal(size=(3, 4)).astype("float32"))
LABELS = {1: tf.constant([[1], [3], [7]], tf.int64), 2: tf.constant([[1, 2], [3, 4], [7, 0]], tf.int64)}
TRUE_EXPECTED = {1: tf.constant([[0.5], [0.25], [0.1]]), 2: tf.constant([[0.5, 0.4], [0.25, 0.2], [0.1, 0.6]])}
SAMPLED = tf.constant([3, 0, 5, 9], tf.int64)  # class 3 is example 1's label: an accidental hit
SAMPLED_EXPECTED = tf.constant([0.25, 0.9, 0.2, 0.05])


@pytest.mark.parametrize(
    "case", REFERENCE["cases"], ids=lambda c: f"{c['function']}-{c['num_true']}-{c['remove_accidental_hits']}"
)
def test_losses_and_gradients_are_tensorflows(case):
    fn = getattr(tf.nn, case["function"])
    num_true = case["num_true"]
    with tf.GradientTape() as tape:
        tape.watch([W, b, x])
        loss = fn(
            weights=W,
            biases=b,
            labels=LABELS[num_true],
            inputs=x,
            num_sampled=4,
            num_classes=10,
            num_true=num_true,
            sampled_values=(SAMPLED, TRUE_EXPECTED[num_true], SAMPLED_EXPECTED),
            remove_accidental_hits=case["remove_accidental_hits"],
        )
        total = tf.reduce_sum(loss)
    assert loss.shape == (3,) and loss.dtype == tf.float32
    np.testing.assert_allclose(loss.numpy(), case["loss"], rtol=1e-5)
    d_weights, d_biases, d_inputs = tape.gradient(total, [W, b, x])
    np.testing.assert_allclose(d_weights.numpy(), case["d_weights"], atol=2e-5)
    np.testing.assert_allclose(d_biases.numpy(), case["d_biases"], atol=2e-5)
    np.testing.assert_allclose(d_inputs.numpy(), case["d_inputs"], atol=2e-5)


def test_the_defaults_remove_accidental_hits_only_for_sampled_softmax():
    common = dict(weights=W, biases=b, labels=LABELS[1], inputs=x, num_sampled=4, num_classes=10)
    values = (SAMPLED, TRUE_EXPECTED[1], SAMPLED_EXPECTED)
    by_case = {(c["function"], c["remove_accidental_hits"], c["num_true"]): c["loss"] for c in REFERENCE["cases"]}
    np.testing.assert_allclose(tf.nn.nce_loss(**common, sampled_values=values).numpy(), by_case["nce_loss", False, 1],
                               rtol=1e-5)  # fmt: skip
    softmax = tf.nn.sampled_softmax_loss(**common, sampled_values=values)
    np.testing.assert_allclose(softmax.numpy(), by_case["sampled_softmax_loss", True, 1], rtol=1e-5)


def test_compute_accidental_hits_is_tensorflows():
    hits = tf.nn.compute_accidental_hits(LABELS[2], SAMPLED, num_true=2)
    # TensorFlow: indices [1, 2] (int32), ids [0, 1] (int64), weights -3.4028235e+38 (float32)
    assert hits.indices.numpy().tolist() == [1, 2] and hits.indices.dtype == tf.int32
    assert hits.ids.numpy().tolist() == [0, 1] and hits.ids.dtype == tf.int64
    assert hits.weights.numpy().tolist() == [-3.4028234663852886e38] * 2


def test_log_uniform_expected_counts_follow_tensorflows_formulas():
    from minitape.namespaces.sampled_losses import _expected_count, _log_uniform_probability

    classes = np.array([7, 1, 4, 0, 2])
    p = _log_uniform_probability(classes, 10)
    # TensorFlow's counts for these classes: drawn with replacement (5 samples), and unique after 8 draws
    np.testing.assert_allclose(
        _expected_count(p, 5, 5)[:3], [0.24559670686721802, 0.8454604148864746, 0.38016998767852783], rtol=1e-6
    )
    np.testing.assert_allclose(
        _expected_count(p, 5, 8),
        [0.33164358139038086, 0.7727922201156616, 0.46881237626075745, 0.9347410798072815, 0.6402763724327087],
        rtol=1e-6,
    )


def test_the_samplers_draw_their_laws_with_their_dtypes():
    tf.random.set_seed(0)
    sampled, true_count, sampled_count = tf.random.log_uniform_candidate_sampler(
        true_classes=LABELS[1], num_true=1, num_sampled=5, unique=True, range_max=10
    )
    assert sampled.dtype == tf.int64 and true_count.dtype == tf.float32 and sampled_count.shape == (5,)
    assert len(set(sampled.numpy().tolist())) == 5 and true_count.shape == (3, 1)
    draws = tf.random.log_uniform_candidate_sampler(LABELS[1], 1, 20000, False, 10, seed=1).sampled_candidates.numpy()
    frequencies = np.bincount(draws, minlength=10) / draws.size
    expected = np.log((np.arange(10) + 2.0) / (np.arange(10) + 1.0)) / np.log(11.0)
    np.testing.assert_allclose(frequencies, expected, atol=0.01)
    uniform = tf.random.uniform_candidate_sampler(LABELS[1], 1, 5, False, 10, seed=1)
    np.testing.assert_allclose(uniform.sampled_expected_count.numpy(), [0.5] * 5)  # TensorFlow: [0.5] * 5
    np.testing.assert_allclose(uniform.true_expected_count.numpy(), [[0.5]] * 3)


def test_training_with_the_sampled_losses_lowers_the_full_softmax_loss():
    tf.random.set_seed(1)
    embeddings = tf.Variable(tf.random.uniform((50, 8), -1.0, 1.0))
    weights = tf.Variable(tf.random.normal((50, 8), stddev=0.3))
    biases = tf.Variable(tf.zeros((50,)))
    centre = np.arange(0, 40, 2)
    context = (centre + 1)[:, None].astype(np.int64)

    def full_softmax_loss():  # what the sampled losses estimate, over all 50 classes
        logits = tf.matmul(tf.nn.embedding_lookup(embeddings, centre), weights, transpose_b=True) + biases
        return float(tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(context[:, 0], logits)))

    before = full_softmax_loss()
    optimizer = tf.keras.optimizers.SGD(0.5)
    variables = [embeddings, weights, biases]
    for step in range(60):
        loss_fn = tf.nn.sampled_softmax_loss if step % 2 else tf.nn.nce_loss
        with tf.GradientTape() as tape:
            embedded = tf.nn.embedding_lookup(embeddings, centre)
            loss = tf.reduce_mean(loss_fn(weights, biases, context, embedded, 10, 50))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
    assert full_softmax_loss() < 0.75 * before


def test_sharded_tables_are_refused_with_what_to_do():
    with pytest.raises(ValueError, match="shards .* pass the whole table as one tensor"):
        tf.nn.nce_loss([W, W], b, LABELS[1], x, 4, 10, sampled_values=(SAMPLED, TRUE_EXPECTED[1], SAMPLED_EXPECTED))

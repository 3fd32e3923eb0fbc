"""Sampled losses for many classes (word2vec's): `tf.nn.nce_loss`, `tf.nn.sampled_softmax_loss`, and the candidate
samplers they draw with (`tf.random.log_uniform_candidate_sampler`, `uniform_candidate_sampler`,
`tf.nn.compute_accidental_hits`), with TensorFlow's signatures and arithmetic.

Each example scores its true classes and a few sampled ones instead of all `num_classes`: the logits are
`inputs . weights[c] + biases[c]`, minus log(expected count of c) (`subtract_log_q`, so that frequently sampled
classes are not favoured), a sampled class that is one of the example's own labels is pushed to -FLT_MAX
(`remove_accidental_hits`), and the loss is a sigmoid cross-entropy per logit summed per example (NCE) or a
softmax cross-entropy over [true, sampled] with the true classes sharing 1 (sampled softmax). Everything is
made of minitape ops (gather, matmul, the fused losses), so a tape differentiates it. The sampled numbers come
from numpy's generator (reproducible with `mt.random.set_seed` or `seed=`), not TensorFlow's: give
`sampled_values=` to reproduce TensorFlow's losses exactly.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.namespaces.random import _rng
from minitape.ops.api import concat, gather, matmul, reduce_sum, reshape, stop_gradient
from minitape.ops.math_ops import cast, log
from minitape.ops.nn_ops import sigmoid_cross_entropy_with_logits, softmax_cross_entropy_with_logits
from minitape.values.convert import convert_to_tensor

CandidateSamplerResult = namedtuple(
    "CandidateSamplerResult", ["sampled_candidates", "true_expected_count", "sampled_expected_count"]
)
ComputeAccidentalHits = namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _log_uniform_probability(classes: np.ndarray, range_max: int) -> np.ndarray:
    """Zipf's approximation: P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)."""
    return np.log((classes + 2.0) / (classes + 1.0)) / np.log1p(range_max)


def _expected_count(probability: np.ndarray, num_sampled: int, num_tries: int) -> np.ndarray:
    """How often a class is expected among the samples: p * num_sampled when drawn with replacement; when unique
    samples took `num_tries` draws, 1 - (1 - p)^num_tries (TensorFlow's ExpectedCountHelper)."""
    if num_tries == num_sampled:
        return probability * num_sampled
    return -np.expm1(num_tries * np.log1p(-probability))


def _sample(draw: Any, num_sampled: int, unique: bool, range_max: int) -> tuple[np.ndarray, int]:
    """`num_sampled` classes from `draw(n)` (n candidates at a time); unique ones by rejection, counting tries."""
    if not unique:
        return draw(num_sampled), num_sampled
    if num_sampled > range_max:
        raise ValueError(f"unique=True needs num_sampled <= range_max, got num_sampled={num_sampled}, {range_max=}")
    picked: dict[int, None] = {}
    tries = 0
    while len(picked) < num_sampled:
        for value in draw(num_sampled - len(picked)).tolist():
            tries += 1
            picked.setdefault(value)
            if len(picked) == num_sampled:
                break
    return np.fromiter(picked, np.int64, num_sampled), tries


def _candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool, range_max: int,
                       seed: Any, kind: str) -> CandidateSamplerResult:  # fmt: skip
    rng = _rng(seed)
    true = np.asarray(convert_to_tensor(true_classes).numpy(), dtype=np.int64)
    if true.ndim != 2 or true.shape[1] != num_true:
        raise ValueError(f"true_classes must be a [batch_size, num_true={num_true}] matrix, got shape {true.shape}")
    if kind == "log_uniform":
        log_range = np.log1p(range_max)
        draw = lambda n: (np.exp(rng.random(n) * log_range) - 1).astype(np.int64)  # noqa: E731
        probability = lambda c: _log_uniform_probability(c, range_max)  # noqa: E731
    else:
        draw = lambda n: rng.integers(0, range_max, n, dtype=np.int64)  # noqa: E731
        probability = lambda c: np.full(np.shape(c), 1.0 / range_max)  # noqa: E731
    sampled, tries = _sample(draw, num_sampled, unique, range_max)
    true_count = _expected_count(probability(true), num_sampled, tries).astype(np.float32)
    sampled_count = _expected_count(probability(sampled), num_sampled, tries).astype(np.float32)
    return CandidateSamplerResult(Tensor(sampled), Tensor(true_count), Tensor(sampled_count))


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool, range_max: int,
                                  seed: Any = None, name: Any = None) -> CandidateSamplerResult:  # fmt: skip
    """`num_sampled` classes in [0, range_max), class c with probability log((c+2)/(c+1)) / log(range_max+1)
    (frequent words first, as in a vocabulary sorted by frequency), with each class's expected count."""
    return _candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed, "log_uniform")


def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool, range_max: int,
                              seed: Any = None, name: Any = None) -> CandidateSamplerResult:  # fmt: skip
    """`num_sampled` classes drawn uniformly from [0, range_max), with each class's expected count."""
    return _candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed, "uniform")


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int, seed: Any = None,
                            name: Any = None) -> ComputeAccidentalHits:  # fmt: skip
    """Where a sampled class is one of an example's true classes: (example index, sample position, -FLT_MAX)."""
    true = np.asarray(convert_to_tensor(true_classes).numpy(), dtype=np.int64).reshape(-1, num_true)
    sampled = np.asarray(convert_to_tensor(sampled_candidates).numpy(), dtype=np.int64)
    rows, positions = np.nonzero((true[:, :, None] == sampled[None, None, :]).any(axis=1))
    weights = np.full(rows.shape, -_FLOAT32_MAX, np.float32)
    return ComputeAccidentalHits(Tensor(rows.astype(np.int32)), Tensor(positions.astype(np.int64)), Tensor(weights))


def _one_table(name: str, table: Any) -> Any:
    """TensorFlow takes a table or a list of its shards; minitape's tensors are whole, so one shard is the table."""
    if isinstance(table, (list, tuple)):
        if len(table) != 1:
            raise ValueError(
                f"{name}: a list of {len(table)} {name} shards (partition_strategy) is not supported by minitape; "
                "pass the whole table as one tensor (mt.concat the shards)"
            )
        return table[0]
    return table


def _sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                    num_true: int, sampled_values: Any, remove_accidental_hits: bool,
                    seed: Any) -> tuple[Any, Any]:  # fmt: skip
    """TensorFlow's `_compute_sampled_logits`: (logits [batch, num_true + num_sampled], their labels)."""
    weights, biases = _one_table("weights", weights), _one_table("biases", biases)
    inputs = convert_to_tensor(inputs)
    labels = cast(convert_to_tensor(labels), "int64")
    if len(labels.shape) != 2 or labels.shape[1] != num_true:
        raise ValueError(f"labels must be a [batch_size, num_true={num_true}] int64 matrix, got shape {labels.shape}")
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes, seed)
    sampled, true_expected, sampled_expected = (stop_gradient(v) for v in sampled_values)
    sampled = cast(sampled, "int64")
    batch, dim = int(inputs.shape[0]), int(inputs.shape[-1])
    true_w = reshape(gather(weights, reshape(labels, [-1])), [batch, num_true, dim])
    true_logits = reduce_sum(reshape(inputs, [batch, 1, dim]) * true_w, axis=-1)
    true_logits = true_logits + reshape(gather(biases, reshape(labels, [-1])), [batch, num_true])
    sampled_logits = matmul(inputs, gather(weights, sampled), transpose_b=True) + gather(biases, sampled)
    if remove_accidental_hits:
        hits = compute_accidental_hits(labels, sampled, num_true)
        penalty = np.zeros((batch, num_sampled), dtype=inputs.dtype.as_numpy_dtype)
        penalty[hits.indices.numpy(), hits.ids.numpy()] = hits.weights.numpy()
        sampled_logits = sampled_logits + penalty
    true_logits = true_logits - log(cast(true_expected, true_logits.dtype))  # subtract_log_q
    sampled_logits = sampled_logits - log(cast(sampled_expected, sampled_logits.dtype))
    logits = concat([true_logits, sampled_logits], 1)
    targets = np.concatenate(
        [np.full((batch, num_true), 1.0 / num_true), np.zeros((batch, num_sampled))], axis=1
    ).astype(inputs.dtype.as_numpy_dtype)
    return logits, Tensor(targets)


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
             num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = False,
             name: str = "nce_loss") -> Any:  # fmt: skip
    """Noise-contrastive estimation per example (batch,): a logistic regression telling each true class (target
    1/num_true) from `num_sampled` sampled ones (target 0), each logit corrected by log(expected count).

    `weights` is [num_classes, dim], `biases` [num_classes], `labels` [batch, num_true] ints, `inputs`
    [batch, dim]; `sampled_values` a (sampled_candidates, true_expected_count, sampled_expected_count) triple,
    by default from `log_uniform_candidate_sampler(unique=True)`.
    """
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                      sampled_values, remove_accidental_hits, None)  # fmt: skip
    return reduce_sum(sigmoid_cross_entropy_with_logits(labels=targets, logits=logits), axis=1)


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int, num_classes: int,
                         num_true: int = 1, sampled_values: Any = None, remove_accidental_hits: bool = True,
                         seed: Any = None, name: str = "sampled_softmax_loss") -> Any:  # fmt: skip
    """The softmax cross-entropy per example (batch,) over its true classes and `num_sampled` sampled ones only,
    each logit corrected by log(expected count): an estimate of the full softmax loss for training.

    Arguments as `nce_loss`; accidental hits are removed by default, as in TensorFlow. At evaluation, compute
    the full softmax: `matmul(inputs, weights, transpose_b=True) + biases`.
    """
    logits, targets = _sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                      sampled_values, remove_accidental_hits, seed)  # fmt: skip
    return softmax_cross_entropy_with_logits(labels=targets, logits=logits)

"""Attention (Luong's dot-product attention) and AdditiveAttention (Bahdanau's), on [query, value(, key)] lists.

Each query step scores every key step, turns its scores into probabilities with a softmax over the key steps,
and returns the probability-weighted average of the value steps: (batch, Tq, dim) queries and (batch, Tv, dim)
values give (batch, Tq, dim) outputs. Everything is minitape ops (matmul, tanh, softmax, where), so the tape
differentiates through the scores as through any other layer. The masking helpers here serve MultiHeadAttention too.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.keras import symbolic
from minitape.keras.layers.base import Layer, incompatible
from minitape.namespaces import nn, random
from minitape.ops.api import expand_dims, logical_and, matmul, not_equal, reduce_sum, tanh, where
from minitape.values.convert import convert_to_tensor
from minitape.values.tensor_like import TensorLike

_ROLES = ("0 (query)", "1 (value)", "2 (key)")


def shape_of(x: Any) -> tuple:
    """The shape of a tensor, KerasTensor, array or nested list, without converting a tensor to numpy."""
    return tuple(x.shape) if hasattr(x, "shape") else np.shape(x)


def bool_mask(mask: Any) -> Tensor:
    """A mask as a bool tensor: True (or any nonzero number) where attending is allowed, as Keras reads it."""
    mask = mask if isinstance(mask, TensorLike) else convert_to_tensor(np.asarray(mask))
    return mask if mask.dtype.is_bool else not_equal(mask, 0)


def causal_mask(query_steps: int, key_steps: int) -> Tensor:
    """(query_steps, key_steps), True where key step j <= query step i: no step sees the steps after it."""
    return Tensor(np.tril(np.ones((query_steps, key_steps), dtype=bool)))


def dropout(x: Any, rate: float, rng: Any, training: bool) -> Any:
    """While training, zero each entry with probability `rate` and scale the rest by 1/(1-rate); else `x`."""
    if not training or rate == 0:
        return x
    keep = (rng or random.generator()).random(tuple(x.shape)) >= rate
    return x * Tensor((keep / (1.0 - rate)).astype(x.dtype.as_numpy_dtype))


class Attention(Layer):
    """Luong-style attention: scores are query . key (score_mode='dot') or, with score_mode='concat',
    sum(tanh(query + key)) times a learned `concat_score_weight`; `use_scale=True` multiplies them by a learned
    scalar `scale` (inside the tanh for 'concat').

    Called on [query, value] or [query, value, key] (the key defaults to the value), with an optional
    `mask=[query_mask, value_mask]` of shapes (batch, Tq) and (batch, Tv): value steps where value_mask is False
    get no attention (their scores drop by 1e9 before the softmax), query steps where query_mask is False output
    zeros. `use_causal_mask=True` stops step i attending to steps after i; `return_attention_scores=True` also
    returns the (batch, Tq, Tv) probabilities (after dropout, as Keras 3 returns them). `dropout` zeroes
    probabilities while training.
    """

    supports_masking = True

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        """The query's mask (the first of `mask`), as Keras 3: the output has the query's steps."""
        return previous_mask[0] if isinstance(previous_mask, (list, tuple)) else None

    def __init__(
        self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0, seed: int | None = None, **kw: Any
    ) -> None:
        super().__init__(**kw)
        kind = type(self).__name__
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"{kind}: score_mode must be 'dot' or 'concat', got {score_mode!r}")
        if not 0 <= dropout < 1:
            raise ValueError(f"{kind}: dropout must be in [0, 1), got {dropout!r}")
        self.use_scale, self.score_mode, self.dropout, self.seed = bool(use_scale), score_mode, float(dropout), seed
        self._rng = np.random.default_rng(seed) if seed is not None else None

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(use_scale=self.use_scale, score_mode=self.score_mode, dropout=self.dropout, seed=self.seed)
        return config

    # ---- checks ------------------------------------------------------------------------------------
    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if not symbolic.any_symbolic(inputs, args):  # a functional model's call is checked on its placeholders
            self.check_inputs(inputs, kwargs.get("mask"))
        return super().__call__(inputs, *args, **kwargs)

    def check_inputs(self, inputs: Any, mask: Any = None) -> None:
        """A clear error for inputs this layer cannot take: before the weights are built from them."""
        kind = type(self).__name__
        if not isinstance(inputs, (list, tuple)) or not 2 <= len(inputs) <= 3:
            got = f"a list of {len(inputs)}" if isinstance(inputs, (list, tuple)) else f"one {type(inputs).__name__}"
            raise ValueError(
                f'{kind} layer "{self.name}" must be called on a list of inputs, namely [query, value] or '
                f"[query, value, key], got {got}. For self-attention pass the sequence twice: layer([x, x])"
            )
        shapes = [shape_of(x) for x in inputs]
        query, value = shapes[0], shapes[1]
        key = shapes[2] if len(shapes) == 3 else value
        for i, shape in enumerate(shapes):
            if len(shape) != 3:
                raise incompatible(
                    self,
                    shape,
                    "a 3-D input (batch, steps, features)",
                    "Attention compares steps of sequences: for one sequence add the batch axis (x[None]); for "
                    "sequences of single numbers add the features axis (x[..., None]).",
                    which=_ROLES[i],
                )
        if len({s[0] for s in shapes}) > 1:
            raise ValueError(f'{kind} "{self.name}": query, value and key must have the same batch size, got {shapes}')
        if key[1] != value[1]:
            raise incompatible(
                self,
                key,
                f"as many steps as the value has ({value[1]}): key step j is the label of value step j",
                which=_ROLES[2],
            )
        if query[-1] != key[-1]:
            which, other = ("2 (key)", "key") if len(shapes) == 3 else ("1 (value)", "value")
            raise incompatible(
                self,
                key,
                f"as many features as the query has ({query[-1]}): the scores compare each query step with each "
                f"{other} step feature by feature",
                "Project the query or the keys first (e.g. a Dense layer), or use MultiHeadAttention, which learns "
                "its own projections.",
                which=which,
            )
        if mask is not None:
            self._check_mask(mask, query, value)

    def _check_mask(self, mask: Any, query: tuple, value: tuple) -> None:
        kind = type(self).__name__
        if not isinstance(mask, (list, tuple)) or not 2 <= len(mask) <= 3:
            raise ValueError(
                f'{kind} "{self.name}": mask must be a list [query_mask, value_mask] (either may be None), got '
                f"{type(mask).__name__}" + (f" of length {len(mask)}" if isinstance(mask, (list, tuple)) else "")
            )
        for name, given, wanted in (("query_mask", mask[0], query[:2]), ("value_mask", mask[1], value[:2])):
            if given is not None and shape_of(given) != wanted:
                raise ValueError(
                    f'{kind} "{self.name}": {name} must have shape (batch, steps) = {wanted}, one True or False per '
                    f"step, got shape {shape_of(given)}"
                )

    # ---- weights and computation -------------------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        self.scale = self.concat_score_weight = None
        if self.use_scale:
            self.scale = self.add_weight("scale", (), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight("concat_score_weight", (), initializer="ones")

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return (*tuple(input_shape[0])[:-1], tuple(input_shape[1])[-1])

    def scores(self, query: Any, key: Any) -> Any:
        """(batch, Tq, Tv): how well each query step matches each key step."""
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        pairs = expand_dims(query, -2) + expand_dims(key, -3)  # (batch, Tq, Tv, dim)
        if self.scale is not None:
            pairs = pairs * self.scale
        return self.concat_score_weight * reduce_sum(tanh(pairs), axis=-1)

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: bool = False,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) == 3 else value
        query_mask, value_mask = (mask[0], mask[1]) if mask is not None else (None, None)
        scores = self.scores(query, key)
        allowed = None if value_mask is None else expand_dims(bool_mask(value_mask), -2)  # (batch, 1, Tv)
        if use_causal_mask:
            causal = causal_mask(scores.shape[-2], scores.shape[-1])
            allowed = causal if allowed is None else logical_and(allowed, causal)
        if allowed is not None:  # as Keras 3: masked scores drop by 1e9 (65504 in float16), so exp gives 0
            scores = where(allowed, scores, scores - (65504.0 if scores.dtype.name == "float16" else 1e9))
        weights = dropout(nn.softmax(scores, axis=-1), self.dropout, self._rng, training)
        outputs = matmul(weights, value)
        if query_mask is not None:
            outputs = where(expand_dims(bool_mask(query_mask), -1), outputs, 0.0)
        return (outputs, weights) if return_attention_scores else outputs


class AdditiveAttention(Attention):
    """Bahdanau-style attention: the score of query step i and key step j is sum(scale * tanh(query_i + key_j)),
    with `scale` a learned vector of one weight per feature (use_scale=True, the default) or 1.

    Called as Attention is: [query, value] or [query, value, key], `mask=[query_mask, value_mask]`,
    `use_causal_mask`, `return_attention_scores`.
    """

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["score_mode"]
        return config

    def build(self, input_shape: Any) -> None:
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight("scale", (tuple(input_shape[0])[-1],), initializer="glorot_uniform")

    def scores(self, query: Any, key: Any) -> Any:
        pairs = tanh(expand_dims(query, -2) + expand_dims(key, -3))  # (batch, Tq, Tv, dim)
        return reduce_sum(pairs * self.scale if self.scale is not None else pairs, axis=-1)

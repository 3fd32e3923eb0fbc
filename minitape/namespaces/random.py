"""Random tensors from seeded generators, so a fixed `set_seed` gives the same numbers every run."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from minitape.engine.tensor import Tensor
from minitape.function.trace import runs_each_call
from minitape.namespaces import missing
from minitape.values.convert import as_array, convert_to_tensor
from minitape.values.dtypes import as_dtype, float32
from minitape.values.errors import InvalidArgumentError


class Generator:
    """`tf.random.Generator`: a stream of random numbers of its own, reproducible from its seed.

    `split` gives independent streams, so a data pipeline and a model can each draw without changing the
    other's numbers. The numbers are numpy's (PCG64), not TensorFlow's Philox: the same seed gives the same
    numbers every run, but not the ones TensorFlow prints.
    """

    def __init__(self, copy_from: Generator | None = None, state: Any = None, alg: Any = None) -> None:
        if copy_from is not None:
            self._bits = np.random.Generator(copy.deepcopy(copy_from._bits.bit_generator))
        else:
            self.reset_from_seed(0 if state is None else state)

    @classmethod
    def from_seed(cls, seed: Any, alg: Any = None) -> Generator:
        return cls(state=seed)

    @classmethod
    def from_non_deterministic_state(cls, alg: Any = None) -> Generator:
        generator = cls()
        generator._bits = np.random.default_rng()  # entropy from the operating system
        return generator

    @classmethod
    def from_state(cls, state: Any, alg: Any = None) -> Generator:
        """A generator from a `state`: one `.state` gave (numpy's PCG64 words) resumes that stream exactly;
        any other state (e.g. TensorFlow's Philox words) seeds a new reproducible stream."""
        words = _seed_words(state)
        generator = cls(state=state)
        if len(words) == 4 and alg in (None, "pcg64"):
            bits = np.random.PCG64()
            bits.state = {
                "bit_generator": "PCG64",
                "state": {"state": words[0] << 64 | words[1], "inc": words[2] << 64 | words[3]},
                "has_uint32": 0,
                "uinteger": 0,
            }
            generator._bits = np.random.Generator(bits)
        return generator

    @property
    def state(self) -> Any:
        """The generator's state as an int64 variable (numpy's PCG64: four words, where TensorFlow's Philox has
        three); `Generator.from_state(g.state)` resumes from here. A snapshot: assigning to it changes nothing."""
        from minitape.engine.variables import Variable

        inner = self._bits.bit_generator.state["state"]
        words = [inner["state"] >> 64, inner["state"] & (2**64 - 1), inner["inc"] >> 64, inner["inc"] & (2**64 - 1)]
        return Variable(np.array(words, np.uint64).view(np.int64), trainable=False)

    @property
    def algorithm(self) -> str:
        return "pcg64"

    def reset_from_seed(self, seed: Any) -> None:
        """Start again from `seed`: the numbers after this call repeat those after `from_seed(seed)`."""
        self._bits = np.random.default_rng(_seed_words(seed))

    def split(self, count: int = 1) -> list[Generator]:
        """`count` new generators, independent of this one and of each other; this one moves on, as in TensorFlow."""
        children = []
        for words in self._bits.integers(0, 2**63, (int(count), 4)).tolist():
            child = Generator()
            child._bits = np.random.default_rng(words)  # numpy hashes the words into an unrelated stream
            children.append(child)
        return children

    @runs_each_call
    def normal(self, shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, name: Any = None):
        """Samples from N(mean, stddev^2)."""
        return _normal(self._bits, shape, mean, stddev, dtype)

    @runs_each_call
    def uniform(self, shape: Any, minval: Any = 0, maxval: Any = None, dtype: Any = float32, name: Any = None):
        """Samples from [minval, maxval); maxval defaults to 1 for floats. Integer dtypes need maxval."""
        return _uniform(self._bits, shape, minval, maxval, dtype)

    @runs_each_call
    def truncated_normal(self, shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, name=None):
        """Normal samples, redrawn until within two standard deviations of the mean."""
        return _truncated_normal(self._bits, shape, mean, stddev, dtype)

    @runs_each_call
    def uniform_full_int(self, shape: Any, dtype: Any = "int64", name: Any = None) -> Tensor:
        """Integers drawn from the whole range of `dtype`."""
        info = np.iinfo(as_dtype(dtype).as_numpy_dtype)
        return Tensor(self._bits.integers(info.min, info.max, _shape(shape), endpoint=True, dtype=info.dtype))

    @runs_each_call
    def make_seeds(self, count: int = 1) -> Tensor:
        """Seeds for the stateless ops: an int64 tensor of shape (2, count), one seed per column."""
        return Tensor(self._bits.integers(0, 2**63 - 1, (2, int(count)), dtype=np.int64))

    def __repr__(self) -> str:
        return f"<mt.random.Generator algorithm={self.algorithm}>"


def _seed_words(seed: Any) -> list[int]:
    """A seed (an int, a list of ints or a tensor of them) as the non-negative words SeedSequence takes."""
    words = np.ravel(np.asarray(getattr(seed, "_value", seed)))
    if words.dtype.kind not in "iu" or words.size == 0:
        raise ValueError(f"a random seed must be an integer or integers, not {seed!r}")
    return [int(w) % 2**64 for w in words]


_global = Generator.from_seed(0)


def get_global_generator() -> Generator:
    """The generator the functions below draw from when they get no `seed`; `set_seed` restarts it."""
    return _global


def set_global_generator(generator: Generator) -> None:
    """Draw from `generator` from now on (it is used itself, not copied)."""
    global _global
    _global = generator


def set_seed(seed: int) -> None:
    """Restart the global generator: everything random after this call is reproducible."""
    _global.reset_from_seed(seed)


def _rng(seed: Any) -> np.random.Generator:
    return np.random.default_rng(seed) if seed is not None else _global._bits


def _shape(shape: Any) -> tuple[int, ...]:
    """A random op's shape: a list (or 1-D tensor) of non-negative ints, checked as TensorFlow checks it."""
    array = as_array(shape)
    if array.ndim != 1 and not (array.ndim == 0 and isinstance(shape, tuple)):
        raise InvalidArgumentError(
            f"shape must be a vector of {{int32,int64}}, got shape {list(array.shape)}; write e.g. [{shape!r}]"
        )
    if (array.size or hasattr(shape, "_value")) and array.dtype not in (np.int32, np.int64):  # TF's two index types
        raise InvalidArgumentError(f"shape must hold integers, not {array.dtype} ({shape!r}); write e.g. [2, 3]")
    if (array < 0).any():
        raise InvalidArgumentError(f"Dimension {int(array[array < 0][0])} must be >= 0 (shape {shape!r})")
    return tuple(int(n) for n in array)


def _float_dtype(dtype: Any, op: str) -> Any:
    """`dtype`, checked to be a float dtype, as TensorFlow's normal-distribution ops need."""
    dtype = as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError(
            f"random.{op} draws floats: Cannot convert 0.0 to Tensor of dtype {dtype.name}; use a float dtype "
            "and mt.cast the result, or random.uniform(..., dtype=mt.int32) for integers"
        )
    return dtype


def _floats(value: Any) -> np.ndarray:
    return np.asarray(getattr(value, "_value", value), np.float64)


def _normal(rng: np.random.Generator, shape: Any, mean: Any, stddev: Any, dtype: Any) -> Tensor:
    dtype = _float_dtype(dtype, "normal")
    values = _floats(mean) + _floats(stddev) * rng.standard_normal(_shape(shape))  # a negative stddev flips signs
    return Tensor(values.astype(dtype.as_numpy_dtype))


def _uniform(rng: np.random.Generator, shape: Any, minval: Any, maxval: Any, dtype: Any) -> Tensor:
    dtype = as_dtype(dtype)
    if dtype.name not in ("float16", "float32", "float64", "int32", "int64"):
        raise ValueError(
            f"Argument `dtype` got invalid value {dtype!r}. Accepted dtypes are (tf.float16, tf.float32, tf.float64, "
            "tf.int32, tf.int64)"
        )
    shape = _shape(shape)
    if dtype.is_integer:
        if maxval is None:
            raise ValueError("random.uniform with an integer dtype needs maxval")
        low, high = (np.asarray(getattr(v, "_value", v)) for v in (minval, maxval))
        if low.dtype.kind not in "iu" or high.dtype.kind not in "iu":
            bad = minval if low.dtype.kind not in "iu" else maxval
            raise TypeError(f"Cannot convert {bad!r} to Tensor of dtype {dtype.name}: give integer bounds")
        if (low >= high).any():
            raise InvalidArgumentError(f"Need minval < maxval, got {minval} >= {maxval}")
        values = rng.integers(low, high, shape)
    else:  # minval + (maxval - minval) * U[0, 1), as TensorFlow computes it (maxval < minval is allowed)
        low = _floats(minval)
        values = low + (_floats(1.0 if maxval is None else maxval) - low) * rng.random(shape)
    return Tensor(values.astype(dtype.as_numpy_dtype))


def _truncated_normal(rng: np.random.Generator, shape: Any, mean: Any, stddev: Any, dtype: Any) -> Tensor:
    dtype = _float_dtype(dtype, "truncated_normal")
    values = rng.normal(0.0, 1.0, _shape(shape))
    while np.any(bad := np.abs(values) > 2):
        values[bad] = rng.normal(0.0, 1.0, int(bad.sum()))
    return Tensor((_floats(mean) + _floats(stddev) * values).astype(dtype.as_numpy_dtype))


@runs_each_call  # a traced function draws new numbers at every call
def normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: Any = None, name: Any = None
) -> Tensor:
    """Samples from N(mean, stddev^2)."""
    return _normal(_rng(seed), shape, mean, stddev, dtype)


@runs_each_call  # a traced function draws new numbers at every call
def uniform(
    shape: Any, minval: float = 0, maxval: Any = None, dtype: Any = float32, seed: Any = None, name: Any = None
) -> Tensor:
    """Samples from [minval, maxval); maxval defaults to 1 for floats. Integer dtypes need maxval."""
    return _uniform(_rng(seed), shape, minval, maxval, dtype)


@runs_each_call  # a traced function draws new numbers at every call
def truncated_normal(
    shape: Any, mean: float = 0.0, stddev: float = 1.0, dtype: Any = float32, seed: Any = None, name: Any = None
) -> Tensor:
    """Normal samples, redrawn until within two standard deviations of the mean."""
    return _truncated_normal(_rng(seed), shape, mean, stddev, dtype)


def _stateless(seed: Any) -> np.random.Generator:
    words = _seed_words(seed)
    if len(words) != 2:
        raise InvalidArgumentError(
            f"a stateless random op takes a seed of two integers, e.g. seed=[1, 2] (shape [2]), not {seed!r}"
        )
    return np.random.default_rng(words)


def stateless_normal(
    shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0, dtype: Any = float32, name=None, alg="auto_select"
):
    """Normal samples that depend only on `seed` (two integers): the same seed, the same numbers.

    `alg` is taken and ignored, as by `split` and `fold_in`: minitape has one generator, numpy's PCG64.
    """
    return _normal(_stateless(seed), shape, mean, stddev, dtype)


def stateless_uniform(
    shape: Any, seed: Any, minval: Any = 0, maxval: Any = None, dtype: Any = float32, name=None, alg="auto_select"
):
    """Uniform samples that depend only on `seed` (two integers)."""
    return _uniform(_stateless(seed), shape, minval, maxval, dtype)


def stateless_truncated_normal(
    shape: Any, seed: Any, mean=0.0, stddev=1.0, dtype: Any = float32, name=None, alg="auto_select"
):
    """Truncated normal samples that depend only on `seed` (two integers)."""
    return _truncated_normal(_stateless(seed), shape, mean, stddev, dtype)


@runs_each_call  # a traced function draws new numbers at every call
def shuffle(value: Any, seed: Any = None, name: Any = None) -> Tensor:
    """`value` with its first axis in random order (a list converts as mt.constant does; a scalar is kept)."""
    array = convert_to_tensor(value).numpy()
    return Tensor(array if array.ndim == 0 else array[_rng(seed).permutation(len(array))])


@runs_each_call  # a traced function draws new numbers at every call
def categorical(logits: Any, num_samples: int, dtype: Any = None, seed: Any = None, name: Any = None) -> Tensor:
    """For each row of `logits` (batch, classes), `num_samples` class indices drawn with probabilities
    softmax(row); int64 by default."""
    return _categorical(_rng(seed), logits, num_samples, dtype)


def stateless_categorical(logits: Any, num_samples: int, seed: Any, dtype: Any = "int64", name: Any = None):
    """categorical draws that depend only on `seed` (two integers)."""
    return _categorical(_stateless(seed), logits, num_samples, dtype)


def _categorical(rng: np.random.Generator, logits: Any, num_samples: int, dtype: Any) -> Tensor:
    values = np.asarray(getattr(logits, "numpy", lambda: logits)(), dtype=np.float64)
    if values.ndim != 2:
        raise InvalidArgumentError(
            f"random.categorical: logits must be 2-D (batch, classes), got shape {list(values.shape)}"
        )
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    probabilities = shifted / shifted.sum(axis=1, keepdims=True)
    draws = [rng.choice(values.shape[1], size=int(num_samples), p=row) for row in probabilities]
    out = np.array(draws, dtype=np.int64).reshape(values.shape[0], int(num_samples))
    return Tensor(out.astype(as_dtype(dtype or "int64").as_numpy_dtype))


def generator() -> np.random.Generator:
    """The global numpy generator (for library code that needs more than the functions above)."""
    return _global._bits


@runs_each_call  # a traced function draws new numbers at every call
def poisson(shape: Any, lam: Any, dtype: Any = float32, seed: Any = None, name: Any = None) -> Tensor:
    """Poisson samples of shape `shape + lam.shape` (numpy's draws; no gradient with respect to `lam`)."""
    lam = _floats(lam)
    return Tensor(_rng(seed).poisson(lam, _shape(shape) + lam.shape).astype(as_dtype(dtype).as_numpy_dtype))


@runs_each_call  # a traced function draws new numbers at every call
def gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = float32, seed: Any = None, name: Any = None) -> Tensor:
    """Gamma(alpha, rate beta) samples of shape `shape + broadcast(alpha, beta).shape` (numpy's draws; unlike
    TensorFlow, no gradient with respect to alpha or beta)."""
    dtype = _float_dtype(dtype, "gamma")
    alpha, rate = np.broadcast_arrays(_floats(alpha), _floats(1.0 if beta is None else beta))
    values = _rng(seed).gamma(alpha, 1.0 / rate, _shape(shape) + alpha.shape)
    return Tensor(values.astype(dtype.as_numpy_dtype))


def _seed_tensor(seed: Any) -> tuple[np.ndarray, list[int]]:
    """A stateless seed as an int array (int32 for a list, as mt.constant converts it) and its words."""
    array = convert_to_tensor(seed).numpy()
    if array.shape != (2,) or array.dtype.kind not in "iu":
        raise InvalidArgumentError(f"seed must have shape [2], not {list(array.shape)}: give two integers, e.g. [1, 2]")
    return array, _seed_words(array)


def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> Tensor:
    """`num` new stateless seeds derived from `seed` (shape (num, 2), the seed's dtype)."""
    array, words = _seed_tensor(seed)
    high = np.iinfo(array.dtype).max
    return Tensor(np.random.default_rng(words + [1]).integers(0, high, (int(num), 2)).astype(array.dtype))


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> Tensor:
    """A new stateless seed from `seed` and the integer `data` (e.g. a step number)."""
    array, words = _seed_tensor(seed)
    high = np.iinfo(array.dtype).max
    return Tensor(np.random.default_rng(words + [2, int(data) % 2**64]).integers(0, high, 2).astype(array.dtype))


class _Experimental:
    """`mt.random.experimental`: the stateless seed helpers and generators under their experimental names."""

    stateless_split = staticmethod(split)
    stateless_fold_in = staticmethod(fold_in)
    Generator = Generator
    get_global_generator = staticmethod(get_global_generator)
    set_global_generator = staticmethod(set_global_generator)

    def __getattr__(self, name: str) -> Any:
        missing.raise_missing("tf.random.experimental", name, missing.RANDOM)


experimental = _Experimental()


def __getattr__(name: str) -> Any:
    missing.raise_missing("tf.random", name, missing.RANDOM)


# the candidate samplers of the sampled losses (tf.nn.nce_loss, sampled_softmax_loss), which draw with _rng above
from minitape.namespaces.sampled_losses import log_uniform_candidate_sampler, uniform_candidate_sampler  # noqa: E402, F401

"""Random primitives of MindSpore 2.x composed from the functional forms
(ops/function/random_func.py, candidate_sampler_func.py): Multinomial, Randperm(V2),
Bernoulli, Gamma, RandomGamma, StandardLaplace, RandomShuffle, MultinomialWithReplacement,
RandomChoiceWithMask, LogUniformCandidateSampler, ComputeAccidentalHits; and the functions
that wrap primitives (random_categorical, uniform_candidate_sampler,
log_uniform_candidate_sampler).

Attributes in ``__init__``, inputs in ``__call__``, as MindSpore's. Each is a
_Composed primitive whose __call__ graph mode parses like any function, so both modes
and gradients come from the ops it is built of. The family modules (array_ops, math_ops,
nn_ops, ...) list these classes where MindSpore defines them.
"""
import math

import numpy as np
from mycel import _mycel as _C
from mycel.ops.function import array_func as _a
from mycel.ops.function import candidate_sampler_func as _cs
from mycel.ops.function import random_func as _rnd
from mycel.ops.function import math_func as _mf
from mycel.ops.function._util import prim as _prim, one_int as _one_int
from mycel.ops.function._util import shape_arg
from mycel.ops.operations._compat_checks import _check_bool
from mycel.ops.operations._compat_checks import _check_int
from mycel.ops.operations._compat_checks import _check_rank
from mycel.ops.operations._compat_checks import _check_tensor
from mycel.ops.operations.compat_cpu_ops import RandomCategorical
from mycel.ops.operations.compat_cpu_ops import UniformCandidateSampler
from mycel.ops.operations.composed_ops import _Composed, _exporter
from mycel.ops.primitive import constexpr

__all__ = ["LogUniformCandidateSampler"]


_export = _exporter(__all__, globals())


def _seed_of(seed, seed2):
    return None if seed == 0 and seed2 == 0 else int(seed) * 65536 + int(seed2)


@_export
class Multinomial(_Composed):
    """Multinomial(seed=0, seed2=0, dtype=int32)(x, num_samples): draws with replacement."""

    def __init__(self, seed=0, seed2=0, dtype=_C.int32):
        super().__init__(seed=seed, seed2=seed2, dtype=dtype)
        self.seed, self.dtype = _seed_of(seed, seed2), dtype

    def __call__(self, x, num_samples):
        n = _one_int(num_samples, "Multinomial", "num_samples")
        return _prim("Cast")(_rnd.multinomial(x, n, True, self.seed), self.dtype)


@_export
class Randperm(_Composed):
    """Randperm(max_length=1, pad=-1, dtype=int32)(n): a permutation of 0..n-1 (n a [1]
    tensor) padded with pad to max_length."""

    def __init__(self, max_length=1, pad=-1, dtype=_C.int32):
        super().__init__(max_length=max_length, pad=pad, dtype=dtype)
        self.max_length, self.pad, self.dtype = max_length, pad, dtype

    def __call__(self, n):
        k = _one_int(n, "Randperm", "n")
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise TypeError(f"For 'Randperm', n must be a non-negative int, but got {k!r}.")
        if k > self.max_length:
            raise ValueError(f"For 'Randperm', n ({k}) must not exceed max_length "
                             f"({self.max_length}).")
        p = _rnd.randperm(k, dtype=_C.int64)
        if self.max_length > k:
            pad = _a.full((self.max_length - k,), self.pad, dtype=_C.int64)
            p = _a.concat((p, pad), 0)
        return _prim("Cast")(p, self.dtype)


@_export
class Bernoulli(_Composed):
    """Bernoulli(seed=-1, offset=0)(x, p): 1 with probability p in x's shape and dtype."""

    def __init__(self, seed=-1, offset=0):
        super().__init__(seed=seed, offset=offset)
        self.seed = None if seed == -1 else int(seed) * 65536 + int(offset)

    def __call__(self, x, p):
        return _rnd.bernoulli(x, p, self.seed)


@_export
class Gamma(_Composed):
    """Gamma(seed=0, seed2=0)(shape, alpha, beta)."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, shape, alpha, beta):
        return _rnd.gamma(shape, alpha, beta, self.seed)


@_export
class RandomGamma(_Composed):
    """RandomGamma(seed=0, seed2=0)(shape, alpha): Gamma(alpha, 1) of shape + alpha.shape."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, shape, alpha):
        return _rnd.gamma(shape, alpha, 1.0, self.seed)


@_export
class StandardLaplace(_Composed):
    """StandardLaplace(seed=0, seed2=0)(shape): Laplace(0, 1) samples, float32."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, shape):
        return _rnd.laplace(shape_arg(shape, "StandardLaplace"), 0.0, 1.0, self.seed)


@_export
class RandomShuffle(_Composed):
    """RandomShuffle(seed=0, seed2=0)(x): x with its first dimension permuted."""

    def __init__(self, seed=0, seed2=0):
        super().__init__(seed=seed, seed2=seed2)
        self.seed = _seed_of(seed, seed2)

    def __call__(self, x):
        return _rnd.shuffle(x, self.seed)


def random_categorical(logits, num_sample, seed=0, dtype=_C.int64):
    """[batch, num_sample] class indices drawn from softmax of each row of logits
    (P.RandomCategorical's stream for the seed)."""
    return RandomCategorical(dtype)(logits, num_sample, seed)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):
    """(sampled_candidates, true_expected_count, sampled_expected_count), as
    P.UniformCandidateSampler draws them."""
    return UniformCandidateSampler(num_true, num_sampled, unique, range_max, seed,
                                   remove_accidental_hits)(true_classes)


@_export
class RandpermV2(_Composed):
    """RandpermV2(seed=0, offset=0, dtype=int64)(n): a permutation of 0..n-1."""

    def __init__(self, seed=0, offset=0, dtype=_C.int64):
        super().__init__(seed=seed, offset=offset, dtype=dtype)
        self.seed, self.offset, self.dtype = seed, offset, dtype

    def __call__(self, n):
        return _rnd.randperm(n, self.seed, self.offset, self.dtype)


@_export
class MultinomialWithReplacement(_Composed):
    """MultinomialWithReplacement(numsamples, replacement=False)(x, seed, offset)."""

    def __init__(self, numsamples, replacement=False):
        super().__init__(numsamples=numsamples, replacement=replacement)
        self.numsamples, self.replacement = numsamples, replacement

    def __call__(self, x, seed, offset):
        return _rnd.multinomial_with_replacement(x, seed, offset, self.numsamples,
                                                self.replacement)


@_export
class RandomChoiceWithMask(_Composed):
    """RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x): ops.choice_with_mask."""

    def __init__(self, count=256, seed=0, seed2=0):
        super().__init__(count=count, seed=seed, seed2=seed2)
        self.count, self.seed, self.seed2 = count, seed, seed2

    def __call__(self, input_x):
        return _rnd.choice_with_mask(input_x, self.count, self.seed, self.seed2)


@_export
class ComputeAccidentalHits(_Composed):
    """ComputeAccidentalHits(num_true=1)(true_labels [B, num_true], sampled_candidates [S]):
    (indices, ids, weights) for each sampled candidate s equal to a true label of row b, in
    row-major order: b (int32), s (int32) and -FLT_MAX (float32), the values to add to
    those logits. Their number depends on the values: PYNATIVE mode."""

    def __init__(self, num_true=1):
        if isinstance(num_true, bool) or not isinstance(num_true, int) or num_true < 1:
            raise ValueError(f"For 'ComputeAccidentalHits', num_true must be a positive int, "
                             f"but got {num_true!r}.")
        super().__init__(num_true=num_true)
        self.num_true = num_true

    def __call__(self, true_labels, sampled_candidates):
        t, s = true_labels, sampled_candidates
        if not isinstance(t, _C.Tensor) or not isinstance(s, _C.Tensor):
            raise TypeError(f"For 'ComputeAccidentalHits', true_labels and sampled_candidates "
                            f"must be Tensors, but got {type(t).__name__} and "
                            f"{type(s).__name__}.")
        if t.ndim != 2 or t.shape[1] != self.num_true or s.ndim != 1:
            raise ValueError(f"For 'ComputeAccidentalHits', true_labels must be (B, "
                             f"{self.num_true}) and sampled_candidates 1-D, but got {t.shape} "
                             f"and {s.shape}.")
        b, n = t.shape[0], s.shape[0]
        hit = _prim("Equal")(_prim("ExpandDims")(_prim("Cast")(t, _C.int64), -1),
                             _prim("Reshape")(_prim("Cast")(s, _C.int64), (1, 1, n)))
        hit = _any_axis1(hit)  # [B, S]
        rows = _prim("BroadcastTo", shape=(b, n))(_prim("Reshape")(_ar(b), (b, 1)))
        cols = _prim("BroadcastTo", shape=(b, n))(_prim("Reshape")(_ar(n), (1, n)))
        idx = _prim("Cast")(_prim("MaskedSelect")(rows, hit), _C.int32)
        ids = _prim("Cast")(_prim("MaskedSelect")(cols, hit), _C.int32)
        w = _prim("Cast")(idx, _C.float32) * 0.0 - float(np.finfo(np.float32).max)
        return idx, ids, w


def _any_axis1(b):
    return _prim("Greater")(_prim("ReduceMax")(_prim("Cast")(b, _C.int32), (1,)), 0)


@constexpr
def _ar(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


# ------------------------------------------------------------------ LogUniformCandidateSampler
class LogUniformCandidateSampler(_Composed):
    """LogUniformCandidateSampler(num_true=1, num_sampled=5, unique=True, range_max=5,
    seed=0)(true_classes int64 [batch, num_true]) -> (sampled_candidates int64 [num_sampled],
    true_expected_count float32 [batch, num_true], sampled_expected_count float32
    [num_sampled]): classes drawn from the log-uniform distribution P(c) =
    log((c + 2) / (c + 1)) / log(range_max + 1) over [0, range_max), without repeats when
    unique, and TensorFlow's expected counts (ops/function/candidate_sampler_func.py,
    log_uniform_sample). The random numbers are mycel's: seeded instances are reproducible,
    not bit-equal to MindSpore's."""

    def __init__(self, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
        _sampler_ok("LogUniformCandidateSampler", num_true, num_sampled, unique, range_max,
                    seed)
        self.num_true, self.num_sampled, self.unique = num_true, num_sampled, unique
        self.range_max, self.seed = range_max, seed
        super().__init__(num_true=num_true, num_sampled=num_sampled, unique=unique,
                         range_max=range_max, seed=seed)
        self._uniform = _C.OpHandle("UniformReal", {"seed": seed, "seed2": 0,
                                                    "dtype": _C.float64})

    def __call__(self, true_classes):
        op = "LogUniformCandidateSampler"
        _check_tensor(op, "true_classes", true_classes, (_C.int64,))
        _check_rank(op, "true_classes", true_classes, 2)
        if true_classes.shape[1] != self.num_true:
            raise ValueError(f"For '{op}', 'true_classes' must be [batch_size, num_true] with "
                             f"num_true = {self.num_true}, but got shape "
                             f"{tuple(true_classes.shape)}.")
        return _cs.log_uniform_sample(true_classes, self.num_sampled, self.unique,
                                      self.range_max, self._uniform)


def _sampler_ok(op, num_true, num_sampled, unique, range_max, seed):
    for name, v in (("num_true", num_true), ("num_sampled", num_sampled),
                    ("range_max", range_max)):
        _check_int(op, name, v)
    _check_int(op, "seed", seed, positive=False)
    _check_bool(op, "unique", unique)
    if seed < 0:
        raise ValueError(f"For '{op}', 'seed' must be non-negative, but got {seed}.")
    if unique and num_sampled > range_max:
        raise ValueError(f"For '{op}', 'num_sampled' ({num_sampled}) must not exceed "
                         f"'range_max' ({range_max}) when unique.")


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True,
                                  range_max=5, seed=0):
    """The functional form of LogUniformCandidateSampler (same arguments, same outputs)."""
    return LogUniformCandidateSampler(num_true, num_sampled, unique, range_max,
                                      seed)(true_classes)


# ---- MindSpore's random_ops classes of its ops test table (ut/python/ops/test_ops.py) -----

@_export
class Cauchy(_Composed):
    """Cauchy(size, median=0.0, sigma=1.0)(): float32 Cauchy(median, sigma) samples of shape
    size, median + sigma tan(pi (u - 1/2)) for u ~ U(0, 1) (the global generator)."""

    def __init__(self, size, median=0.0, sigma=1.0):
        if not isinstance(size, (list, tuple)) or not size or not all(
                isinstance(s, int) and not isinstance(s, bool) and s > 0 for s in size):
            raise ValueError(f"For 'Cauchy', 'size' must be a non-empty list of positive ints, "
                             f"but got {size!r}.")
        if not isinstance(sigma, (int, float)) or isinstance(sigma, bool) or sigma <= 0:
            raise ValueError(f"For 'Cauchy', 'sigma' must be a positive float, but got "
                             f"{sigma!r}.")
        super().__init__(size=list(size), median=median, sigma=sigma)
        self.size, self.median, self.sigma = tuple(size), float(median), float(sigma)

    def __call__(self):
        u = _rnd.uniform(self.size, 0.0, 1.0, dtype=_C.float32)
        return self.median + self.sigma * _prim("Tan")(np.pi * (u - 0.5))


@_export
class LogNormalReverse(_Composed):
    """LogNormalReverse(mean=2.0, std=1.0)(input): samples exp(N(mean, std)) of input's shape
    and float dtype (input's values are not read)."""

    def __init__(self, mean=2.0, std=1.0):
        if not isinstance(std, (int, float)) or isinstance(std, bool) or std <= 0:
            raise ValueError(f"For 'LogNormalReverse', 'std' must be a positive float, but got "
                             f"{std!r}.")
        super().__init__(mean=mean, std=std)
        self.mean, self.std = float(mean), float(std)

    def __call__(self, input):  # noqa: A002 (MindSpore's argument name)
        _check_tensor("LogNormalReverse", "input", input, (_C.float16, _C.float32))
        z = _rnd.standard_normal(input.shape)
        return _a.cast(_prim("Exp")(self.mean + self.std * z), input.dtype)


@_export
class TruncatedNormal(_Composed):
    """TruncatedNormal(seed=0, seed2=0, dtype=mstype.float32)(shape): N(0, 1) samples cut to
    [-2, 2] (by the inverse CDF of a uniform draw over [Phi(-2), Phi(2)]); shape a tuple or a
    1-D int tensor; dtype float16, float32 or float64."""

    def __init__(self, seed=0, seed2=0, dtype=_C.float32):
        if dtype not in (_C.float16, _C.float32, _C.float64):
            raise TypeError(f"For 'TruncatedNormal', 'dtype' must be float16, float32 or "
                            f"float64, but got {dtype}.")
        super().__init__(seed=seed, seed2=seed2, dtype=dtype)
        self.seed, self.dtype = _seed_of(seed, seed2), dtype

    def __call__(self, shape):
        lo = 0.5 * math.erfc(2.0 / math.sqrt(2.0))          # Phi(-2)
        u = _rnd.uniform(shape_arg(shape, "TruncatedNormal"), lo, 1.0 - lo, self.seed,
                         dtype=_C.float64)
        z = math.sqrt(2.0) * _mf.erfinv(2.0 * u - 1.0)
        return _a.cast(_prim("Maximum")(_prim("Minimum")(z, 2.0), -2.0), self.dtype)


_INT_RANGE = {_C.int32: (-2 ** 31, 2 ** 31 - 1), _C.int64: (-2 ** 63, 2 ** 63 - 1)}


@_export
class NonDeterministicInts(_Composed):
    """NonDeterministicInts(dtype=mstype.int64)(shape): integers drawn from the global
    generator over dtype's range (int32 or int64; int64 draws have float64's 53-bit
    resolution over that range); shape a tuple or a 1-D int tensor."""

    def __init__(self, dtype=_C.int64):
        if dtype not in _INT_RANGE:
            raise TypeError(f"For 'NonDeterministicInts', 'dtype' must be int32 or int64, but "
                            f"got {dtype}.")
        super().__init__(dtype=dtype)
        self.dtype = dtype

    def __call__(self, shape):
        lo, hi = _INT_RANGE[self.dtype]
        u = _rnd.uniform(shape_arg(shape, "NonDeterministicInts"), 0.0, 1.0, dtype=_C.float64)
        v = _prim("Floor")(lo + u * (float(hi) - lo + 1.0))
        cap = float(hi) if self.dtype == _C.int32 else 2.0 ** 63 - 1024  # the float below 2^63
        return _a.cast(_prim("Minimum")(v, cap), self.dtype)

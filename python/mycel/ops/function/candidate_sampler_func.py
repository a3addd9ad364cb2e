"""MindSpore's UniformCandidateSampler, composed from op-table primitives.

num_sampled classes are drawn from [0, range_max) uniformly: with unique, without replacement
(the first num_sampled of a random permutation: the classes sorted by UniformReal keys); else
with replacement (floor(u * range_max)). With remove_accidental_hits the classes in
true_classes are excluded (their keys sort last, or draws index the allowed classes only).
The expected counts are exact for these samplers: a class's inclusion probability
num_sampled / n without replacement, its mean count num_sampled / n with replacement (n the
number of allowed classes; 0 for an excluded true class; a true class outside [0, range_max)
gets the same count as any other, as TensorFlow's uniform sampler reports it). MindSpore's kernel draws by rejection and
reports TensorFlow's estimate from the number of tries, so the counts are the same quantity
but not bit-equal, and the random numbers are mycel's (a seeded instance is reproducible).
"""
import numpy as np

from mycel import _mycel as _C
from mycel.ops.function._util import prim
from mycel.ops.primitive import constexpr
import math


@constexpr
def _classes(n):
    return _C.Tensor(np.arange(n, dtype=np.int64))


def uniform_candidate_sampler(true_classes, num_sampled, unique, range_max, remove_hits,
                              uniform):
    """(sampled [num_sampled] of true_classes' dtype, true_expected_count [batch, num_true]
    float32, sampled_expected_count [num_sampled] float32); uniform(shape) draws float64."""
    dt = true_classes.dtype
    flat = prim("Reshape")(prim("Cast")(true_classes, _C.int64), (-1, 1))
    if remove_hits:
        inside = prim("LogicalAnd")(prim("GreaterEqual")(flat, 0), prim("Less")(flat, range_max))
        where = prim("Select")(inside, flat, prim("ZerosLike")(flat))
        hits = prim("ScatterNd")(where, prim("Reshape")(prim("Cast")(inside, _C.int64), (-1,)),
                                 (range_max,))
        allowed = prim("Equal")(hits, 0)
    else:
        allowed = prim("Fill")(_C.bool, (range_max,), 1.0)
    n_allowed = prim("ReduceSum", keep_dims=False)(prim("Cast")(allowed, _C.float64), ())
    if unique:
        keys = uniform((range_max,)) + prim("Cast")(prim("LogicalNot")(allowed), _C.float64) * 2.0
        _, order = prim("Sort", axis=0)(keys)
        sampled = prim("Cast")(order[:num_sampled], _C.int64)
        p = prim("Minimum")(num_sampled / n_allowed, 1.0)
    else:
        rank = prim("Cast")(prim("Floor")(uniform((num_sampled,)) * n_allowed), _C.int64)
        # the rank-th allowed class: the first class whose running count of allowed classes
        # exceeds rank
        running = prim("CumSum")(prim("Cast")(allowed, _C.int64), 0)
        above = prim("Greater")(prim("ExpandDims")(running, 0), prim("ExpandDims")(rank, 1))
        sampled = prim("Argmax", axis=1, output_type=_C.int64)(prim("Cast")(above, _C.int32))
        p = num_sampled / n_allowed
    # Every allowed class has the same expected count p (a true class outside [0, range_max)
    # too, as TensorFlow's uniform sampler reports); excluded true classes have 0.
    t = prim("Cast")(true_classes, _C.int64)
    t_inside = prim("LogicalAnd")(prim("GreaterEqual")(t, 0), prim("Less")(t, range_max))
    t_allowed = prim("Gather")(allowed, prim("Select")(t_inside, t, prim("ZerosLike")(t)), 0)
    t_allowed = prim("LogicalOr")(t_allowed, prim("LogicalNot")(t_inside))
    ones = prim("OnesLike")(prim("Cast")(t, _C.float64))
    true_count = prim("Select")(t_allowed, ones * p, ones * 0.0)
    sampled_count = prim("OnesLike")(prim("Cast")(sampled, _C.float64)) * p
    return (prim("Cast")(sampled, dt), prim("Cast")(true_count, _C.float32),
            prim("Cast")(sampled_count, _C.float32))


# ------------------------------------------------------------------ log-uniform sampler
@constexpr
def _log_uniform_probs(range_max):
    """P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), c in [0, range_max), as float64."""
    c = np.arange(range_max, dtype=np.float64)
    return _C.Tensor(np.log1p(1.0 / (c + 1.0)) / math.log(range_max + 1.0))


def _class_prob(classes, range_max):
    """The log-uniform probability of each class (0 outside [0, range_max)), float64."""
    c = prim("Cast")(classes, _C.float64)
    p = prim("Div")(prim("Log1p")(prim("Div")(1.0, prim("Add")(c, 1.0))),
                    math.log(range_max + 1.0))
    inside = prim("LogicalAnd")(prim("GreaterEqual")(c, 0.0), prim("Less")(c, float(range_max)))
    return prim("Select")(inside, p, prim("ZerosLike")(p))


def _expected(p, tries, unique, num_sampled):
    """TensorFlow's expected count: num_sampled * p with replacement; for unique samples the
    probability that the class came up in `tries` draws, -expm1(tries * log1p(-p))."""
    if unique:
        return prim("Neg")(prim("Expm1")(prim("Mul")(tries, prim("Log1p")(prim("Neg")(p)))))
    return prim("Mul")(p, float(num_sampled))


def log_uniform_sample(true_classes, num_sampled, unique, range_max, uniform):
    """The work of LogUniformCandidateSampler (uniform(shape) draws float64 in [0, 1)):
    (sampled int64 [num_sampled], true_expected_count float32, sampled_expected_count
    float32). With replacement each draw is floor(exp(u log(range_max + 1))) - 1 (the inverse
    of the log-uniform CDF). Unique samples are the classes of num_sampled draws with repeats
    rejected, which is successive sampling without replacement: the num_sampled largest keys
    log(P(c)) - log(-log(u_c)) (Gumbel top-k), in draw order; the number of draws TensorFlow
    counts (each new class after j distinct ones with mass S_j takes a geometric number of
    tries with success 1 - S_j) is drawn from its exact distribution for the expected counts.
    """
    if unique:
        probs = _log_uniform_probs(range_max)
        u = prim("Maximum")(uniform((range_max,)), 1e-300)
        keys = prim("Sub")(prim("Log")(probs), prim("Log")(prim("Neg")(prim("Log")(u))))
        _, order = prim("Sort", axis=0, descending=True)(keys)
        sampled = prim("Cast")(order[:num_sampled], _C.int64)
        picked = prim("Gather")(probs, sampled, 0)
        before = prim("Sub")(prim("CumSum")(picked, 0), picked)  # S_j, the mass already drawn
        g = prim("Maximum")(uniform((num_sampled,)), 1e-300)
        wait = prim("Add")(prim("Floor")(prim("Div")(prim("Log")(g),
                                                     prim("Log")(prim("Maximum")(before,
                                                                                 1e-300)))),
                           1.0)
        first = prim("Equal")(before, 0.0)
        wait = prim("Select")(first, prim("OnesLike")(wait), wait)
        tries = prim("ReduceSum", keep_dims=False)(wait, ())
    else:
        u = uniform((num_sampled,))
        v = prim("Sub")(prim("Floor")(prim("Exp")(prim("Mul")(u, math.log(range_max + 1.0)))),
                        1.0)
        sampled = prim("Cast")(prim("Minimum")(prim("Maximum")(v, 0.0), float(range_max - 1)),
                               _C.int64)
        tries = float(num_sampled)
    true_p = _class_prob(true_classes, range_max)
    samp_p = _class_prob(sampled, range_max)
    return (sampled, prim("Cast")(_expected(true_p, tries, unique, num_sampled), _C.float32),
            prim("Cast")(_expected(samp_p, tries, unique, num_sampled), _C.float32))

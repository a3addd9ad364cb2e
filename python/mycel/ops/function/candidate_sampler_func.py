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

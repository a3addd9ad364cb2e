"""Adasum (Maleki et al., "Scaling Distributed Training with Adaptive Summation", MLSys 2021):
MindSpore's ``nn.AdaSumByGradWrapCell`` and ``nn.AdaSumByDeltaWeightWrapCell``.

Two ranks' tensors a and b combine as

    adasum(a, b) = (1 - a.b / (2 |a|^2)) a + (1 - a.b / (2 |b|^2)) b

(a coefficient whose norm is 0 counts as 0): orthogonal tensors add, parallel ones average.
Each tensor (a layer's gradient or weight change) combines on its own. Over 2^L ranks the
combination is a tree, by recursive doubling: at level l every rank pairs with rank XOR 2^l,
the pair all-gathers (a group of 2 per pair, ``adasum_<l>_<i>_<j>``) what each holds, and both
compute adasum(lower rank's, higher rank's); after L levels every rank holds
adasum(adasum(g0, g1), adasum(g2, g3)) and so on. The collectives are the existing AllGather
ops, so the wrappers compile in GRAPH mode as in PYNATIVE.
"""
from mycel.communication import management
from mycel.nn.cell import Cell
from mycel.nn.optim.optimizer import Optimizer
from mycel.ops.composite import depend
from mycel.ops.function._util import prim
from mycel.ops.operations.comm_ops import AllGather


def adasum_pair(a, b):
    """adasum(a, b) of two tensors of one shape (see the module)."""
    total = prim("ReduceSum", keep_dims=False)
    dot, aa, bb = total(a * b, ()), total(a * a, ()), total(b * b, ())
    select, greater = prim("Select"), prim("Greater")
    ca = select(greater(aa, 0.0), dot / (2.0 * aa), dot * 0.0)
    cb = select(greater(bb, 0.0), dot / (2.0 * bb), dot * 0.0)
    return (1.0 - ca) * a + (1.0 - cb) * b


def _pair_gathers(who):
    """One AllGather per level of recursive doubling, over this rank's pair (its group made
    by the first wrapper that needs it)."""
    try:
        n, rank = management.get_group_size(), management.get_rank()
    except RuntimeError as e:
        raise RuntimeError(f"For '{who}', Adasum needs a distributed job: call "
                           f"mycel.communication.init() first ({e}).") from None
    if n < 2 or n & (n - 1):
        raise ValueError(f"For '{who}', Adasum needs a power-of-two number of ranks (2 or "
                         f"more), but the job has {n}.")
    gathers, level = [], 1
    while level < n:
        pair = sorted((rank, rank ^ level))
        name = f"adasum_{level}_{pair[0]}_{pair[1]}"
        try:
            management.get_group_size(name)  # made by an earlier wrapper of this job
        except (ValueError, RuntimeError):
            management.create_group(name, pair)
        gathers.append(AllGather(name))
        level *= 2
    return tuple(gathers)


class _AdaSum(Cell):
    """Combines a tuple of tensors over the ranks by Adasum."""

    def __init__(self, who):
        super().__init__(auto_prefix=False)
        self._gathers = _pair_gathers(who)

    def construct(self, tensors):
        out = tensors
        for gather in self._gathers:
            combined = ()
            for t in out:
                both = gather(prim("ExpandDims")(t, 0))  # [2, ...]: the pair's, lower first
                combined = combined + (adasum_pair(both[0], both[1]),)
            out = combined
        return out


class _AdaSumWrap(Cell):
    """The optimizer and the Adasum combination, checked."""

    def __init__(self, optimizer):
        super().__init__(auto_prefix=False)
        who = type(self).__name__
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For '{who}', the 'optimizer' must be an nn Optimizer, but got "
                            f"{type(optimizer).__name__}.")
        self.optimizer = optimizer
        self.adasum = _AdaSum(who)


class AdaSumByGradWrapCell(_AdaSumWrap):
    """AdaSumByGradWrapCell(optimizer): the optimizer with each gradient combined over the
    ranks by Adasum first (MindSpore's ``nn.AdaSumByGradWrapCell``). Called with the local
    gradients (not all-reduced); returns what the optimizer returns. Needs a job of 2^k
    ranks (communication.init())."""

    def construct(self, grads):
        return self.optimizer(self.adasum(grads))


class AdaSumByDeltaWeightWrapCell(_AdaSumWrap):
    """AdaSumByDeltaWeightWrapCell(optimizer): each rank steps its optimizer on its own
    gradients, and the weights' changes are then combined over the ranks by Adasum: every
    weight becomes its value before the step plus the combined change (MindSpore's
    ``nn.AdaSumByDeltaWeightWrapCell``). The optimizer's state (moments) stays each rank's
    own. Needs a job of 2^k ranks (communication.init())."""

    def construct(self, grads):
        old = ()
        params = self.optimizer.parameters
        for p in params:
            old = old + (p * 1,)
        # The copies are taken before the update (see nn.wrap.update_unless).
        ordered = ()
        for g in grads:
            ordered = ordered + (depend(g, old),)
        done = self.optimizer(ordered)
        deltas = ()
        for p, o in zip(params, old):
            deltas = deltas + (depend(p, done) - o,)
        combined = self.adasum(deltas)
        assign = prim("Assign")
        out = ()
        for p, o, d in zip(params, old, combined):
            out = out + (assign(p, o + d),)
        return out

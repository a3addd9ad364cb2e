"""DistributedGradReducer: the gradient all-reduce of data parallelism (MindSpore's
``nn.DistributedGradReducer``).

Gradients are all-reduced over the group in buckets: the gradients of consecutive parameters
of one dtype, up to the bucket size of the auto-parallel context's comm_fusion setting (64 MB
by default), are flattened and concatenated into one buffer, reduced by one AllReduce and
cut back into their shapes. One collective per bucket instead of one per parameter: on a
network of latency-bound small tensors that is most of the communication time. With
``mean`` the sums are divided by ``degree`` (the group's size). The reduction is the
AllReduce op, so it runs in both modes and inside a compiled training step.
"""
import numpy as np

from mycel.communication import management as _mgmt
from mycel.nn.cell import Cell
from mycel.ops.function._util import prim
from mycel.ops.operations.comm_ops import AllReduce, ReduceOp
from mycel.parallel import context as _pctx


class DistributedGradReducer(Cell):
    """DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1,
    group=GlobalComm.WORLD_COMM_GROUP): called with the gradients of `parameters` (a tuple,
    in their order), returns them summed over the group's ranks (divided by `degree` when
    `mean`). mean None: the auto-parallel context's gradients_mean; degree None: the group's
    size. fusion_type is MindSpore's (accepted; the buckets come from comm_fusion)."""

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1,
                 group=_mgmt.GlobalComm.WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        params = list(parameters)
        if mean is None:
            mean = _pctx.get_auto_parallel_context("gradients_mean")
        if not isinstance(mean, bool):
            raise TypeError(f"For 'DistributedGradReducer', 'mean' must be a bool, but got "
                            f"{type(mean).__name__}.")
        if degree is None:
            degree = _mgmt.get_group_size(group) if _mgmt.GlobalComm.INITED else 1
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"For 'DistributedGradReducer', 'degree' must be a positive int, "
                             f"but got {degree!r}.")
        self.mean, self.degree, self.group = mean, degree, group
        self.allreduce = AllReduce(ReduceOp.SUM, group)
        self._concat = prim("Concat", axis=0)
        self._buckets = self._plan(params)
        # Where parameter i's gradient lands among the reduced pieces (bucket order).
        order = [i for bucket in self._buckets for i in bucket[0]]
        self._position = tuple(order.index(i) for i in range(len(params)))
        self._count = len(params)

    def _plan(self, params):
        """Buckets of (indices, offsets, sizes, shapes), each of one dtype, in parameter
        order, cut by comm_fusion."""
        by_dtype = {}
        for i, p in enumerate(params):
            by_dtype.setdefault(str(p.dtype), []).append(i)
        plan = []
        for idx in by_dtype.values():
            sizes = [params[i].nbytes for i in idx]  # (numpy has no bfloat16 to ask)
            for b in _pctx.fusion_buckets(sizes):
                members = tuple(idx[k] for k in b)
                counts = tuple(params[i].size for i in members)
                offsets = tuple(int(o) for o in np.cumsum((0,) + counts[:-1]))
                shapes = tuple(tuple(params[i].shape) for i in members)
                plan.append((members, offsets, counts, shapes))
        return tuple(plan)

    def _reduce(self, flat):
        out = self.allreduce(flat)
        if self.mean:
            out = out / self.degree
        return out

    def construct(self, grads):
        pieces = ()
        for members, offsets, counts, shapes in self._buckets:
            if len(members) == 1:
                pieces = pieces + (self._reduce(grads[members[0]]),)
                continue
            flat = ()
            for i in members:
                flat = flat + (grads[i].reshape((-1,)),)
            red = self._reduce(self._concat(flat))
            for off, cnt, shape in zip(offsets, counts, shapes):
                pieces = pieces + (red[off:off + cnt].reshape(shape),)
        out = ()
        for i in range(self._count):
            out = out + (pieces[self._position[i]],)
        return out


def broadcast_parameters(params, root_rank=0, group=_mgmt.GlobalComm.WORLD_COMM_GROUP):
    """Every rank's `params` set to root_rank's values (the auto-parallel context's
    parameter_broadcast): one Broadcast of all of them, run now."""
    from mycel.ops.operations.comm_ops import Broadcast
    params = list(params)
    if not params:
        return
    values = Broadcast(root_rank, group)(tuple(params))
    for p, v in zip(params, values):
        p.set_data(v)

"""DistributedGradReducer: the gradient all-reduce of data parallelism (MindSpore's
``nn.DistributedGradReducer``).

Gradients are all-reduced over the group in buckets: the gradients of consecutive parameters
of one dtype, up to the bucket size of the auto-parallel context's comm_fusion setting (64 MB
by default), are flattened and concatenated into one buffer, reduced by one AllReduce and
cut back into their shapes. One collective per bucket instead of one per parameter: on a
network of latency-bound small tensors that is most of the communication time. With
``mean`` the sums are divided by ``degree`` (the group's size). The reduction is the
AllReduce op, so it runs in both modes and inside a compiled training step.

Buckets follow the parameters in reverse order, the order in which the backward pass
computes their gradients. So a bucket is complete, and its AllReduce starts, while the
backward pass still runs: in GRAPH mode the executor runs each collective as soon as its
gradients are computed (runtime/vm.h, hoist_sinks); in PYNATIVE mode ``TrainOneStepCell``
gives the gradient function this reducer's ``_step`` hook, which is told each gradient as
the backward graph computes it and queues the AllReduce of a completed bucket on the
communication queue; the reducer's call then waits for them.

In a job, the ranks check once, when the reducer is made, that they make the same AllReduce
call for each bucket (dtype and shape, ``communication.management._agree_on_call``); each
step's bucket AllReduce then skips the per-call check (a round trip), as DDP checks the
parameters' shapes once.
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
        self._reduce = tuple(self._bucket_allreduce(b, params) for b in self._buckets)
        # Where parameter i's gradient lands among the reduced pieces (bucket order).
        order = [i for bucket in self._buckets for i in bucket[0]]
        self._position = tuple(order.index(i) for i in range(len(params)))
        self._count = len(params)
        self._bucket_of = {i: k for k, b in enumerate(self._buckets) for i in b[0]}

    def _plan(self, params):
        """Buckets of (indices, offsets, sizes, shapes), each of one dtype, in reverse
        parameter order (the backward's), cut by comm_fusion."""
        by_dtype = {}
        for i in reversed(range(len(params))):
            by_dtype.setdefault(str(params[i].dtype), []).append(i)
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

    def _bucket_allreduce(self, bucket, params):
        """The AllReduce of one bucket. In a job the ranks agree on its call here, once
        (every rank makes its reducer alike), so that each step's call skips the check that
        the ranks make the same call (a round trip per bucket and step)."""
        members, _, counts, shapes = bucket
        if not _mgmt.GlobalComm.INITED:
            return self.allreduce
        shape = shapes[0] if len(members) == 1 else (sum(counts),)
        agreed = _mgmt._agree_on_call("AllReduce", params[members[0]].dtype, shape, self.group)
        return prim("AllReduce", op=ReduceOp.SUM, group=self.group, agreed=agreed)

    def _mean(self, red):
        return red / self.degree if self.mean else red

    def _flatten(self, bucket, grads):
        """The bucket's gradients as one tensor (flat when there are several)."""
        members = bucket[0]
        if len(members) == 1:
            return grads[members[0]]
        flat = ()
        for i in members:
            flat = flat + (grads[i].reshape((-1,)),)
        return self._concat(flat)

    def _cut(self, bucket, red):
        """The reduced bucket cut back into its gradients."""
        members, offsets, counts, shapes = bucket
        if len(members) == 1:
            return (red,)
        pieces = ()
        for off, cnt, shape in zip(offsets, counts, shapes):
            pieces = pieces + (red[off:off + cnt].reshape(shape),)
        return pieces

    def _order(self, pieces):
        """The reduced gradients (in bucket order) in parameter order."""
        out = ()
        for i in range(self._count):
            out = out + (pieces[self._position[i]],)
        return out

    def construct(self, grads):
        pieces = ()
        for bucket, reduce in zip(self._buckets, self._reduce):
            pieces = pieces + self._cut(bucket, self._mean(reduce(self._flatten(bucket, grads))))
        return self._order(pieces)

    def _step(self):
        """A new PYNATIVE step's hook: (i, gradient of parameter i), called by the gradient
        function's backward as each gradient is computed."""
        self._overlap = _OverlapStep(self)
        return self._overlap.ready

    def __call__(self, grads):
        step, self._overlap = self.__dict__.get("_overlap"), None
        if step is not None and step.covers(grads):
            return step.finish()
        return super().__call__(grads)


class _OverlapStep:
    """The buckets of one PYNATIVE step, each queued on the communication queue as soon as
    its last gradient is computed (the backward runs on meanwhile)."""

    def __init__(self, reducer):
        self._r = reducer
        self._grads = [None] * reducer._count
        self._left = [len(b[0]) for b in reducer._buckets]
        self._queued = [None] * len(reducer._buckets)

    def ready(self, i, grad):
        if not 0 <= i < len(self._grads) or self._grads[i] is not None:
            return
        self._grads[i] = grad
        k = self._r._bucket_of[i]
        self._left[k] -= 1
        if self._left[k] == 0:
            flat = self._r._flatten(self._r._buckets[k], self._grads)
            reduce = self._r._reduce[k]
            self._queued[k] = getattr(reduce, "_handle", reduce).call_async([flat])

    def covers(self, grads):
        """Whether `grads` are the gradients this step saw, all queued."""
        return (len(grads) == len(self._grads) and all(q is not None for q in self._queued)
                and all(g is not None and g._same(h) for g, h in zip(grads, self._grads)))

    def finish(self):
        pieces = ()
        for bucket, (outs, work) in zip(self._r._buckets, self._queued):
            work.wait()
            pieces = pieces + self._r._cut(bucket, self._r._mean(outs[0]))
        return self._r._order(pieces)


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

"""Optimizer parallelism (MindSpore's ``enable_parallel_optimizer``,
ZeRO): each of the N ranks keeps 1/N of the optimizer's state, and of the weights too in
semi_auto_parallel and auto_parallel.

With ``set_auto_parallel_context(parallel_mode="data_parallel",
enable_parallel_optimizer=True)``, ``nn.TrainOneStepCell`` steps this way instead of
all-reducing the gradients:

- A shardable parameter (below) whose dimension 0 divides by N is *sharded*: rank r owns rows
  [r*n/N, (r+1)*n/N). The optimizer updates a Parameter holding those rows (same name) and
  its state (every ``Optimizer._state`` of the parameter) is cut to them, once, when the
  step is built. Other parameters (dimension 0 not divisible, 0-d) stay replicated: their
  state is whole on every rank and their gradients are all-reduced, as in plain data
  parallelism.
- A step computes the whole gradients of the rank's batch (compiled in GRAPH mode), then
  reduce-scatters each sharded gradient (the rank receives the sum of its rows) and
  all-reduces the others (divided by N with gradients_mean), runs the optimizer on the
  rank's rows, and all-gathers each sharded parameter's rows back into the whole parameter
  the network reads. The collectives of a phase are all queued before any is waited for.
- The optimizer's update must be elementwise (each row's new value depends on that row
  only), so rows updated apart equal the whole update: every built-in optimizer but LARS
  and Lamb, whose trust ratios take norms of whole tensors (a ValueError names them).

In data parallelism the network's weights stay whole on every rank (ZeRO's stage 1, as
MindSpore's data-parallel optimizer), so what shrinks is the optimizer state; ``state_bytes``
reports what a rank holds.

In ``semi_auto_parallel`` and ``auto_parallel`` (GRAPH mode) the weights are sharded too
(ZeRO-3, MindSpore's parallel optimizer in those modes): the rewrite
(``src/parallel/spmd.h``, ``optimizer_shard_layout``) gives each shardable weight the layout
its readers use with dimension 0 further split over the mesh axes that layout leaves it
replicated along; the rank's Parameter and the optimizer state then hold only that slice
between steps, each reader in the forward is given an AllGather of it just before its use
(the executor frees the whole copy after its last use), AD derives the ReduceScatter of the
gradient from the AllGather's bprop, and the update touches only the slice. A pure
data-parallel ZeRO-3 job is ``semi_auto_parallel`` without strategies (each rank given its
rows of the batch). ``weight_bytes`` reports the weights a rank holds.

Which parameters shard (``shardable``, both modes): trainable ones of at least
``parallel_optimizer_config["parallel_optimizer_threshold"]`` KB (MindSpore's default 64),
whose dimension 0 divides; ``optimizer_weight_shard_size`` spreads a weight over that many
devices (its copies on the other data-parallel groups all-reduce their gradients), -1 (the
default) over all of them.
"""
import numpy as np

from mycel.communication import comm_func as _cf
from mycel.communication import management as _mgmt
from mycel.parallel import context as _ctx


def enabled():
    """Whether nn.TrainOneStepCell shards the optimizer (data parallelism in a job with
    enable_parallel_optimizer set, more than one rank)."""
    return (_ctx.is_data_parallel() and _ctx._context["enable_parallel_optimizer"]
            and _ctx.get_auto_parallel_context("device_num") > 1)


def threshold_bytes():
    """parallel_optimizer_config's parallel_optimizer_threshold in bytes (default 64 KB)."""
    cfg = _ctx._context["parallel_optimizer_config"]
    return cfg.get("parallel_optimizer_threshold", DEFAULT_THRESHOLD_KB) * 1024


DEFAULT_THRESHOLD_KB = 64  # MindSpore's


def shard_size():
    """parallel_optimizer_config's optimizer_weight_shard_size (-1: all the devices)."""
    return _ctx._context["parallel_optimizer_config"].get("optimizer_weight_shard_size", -1)


def shardable(p):
    """Whether the parallel optimizer may shard parameter p: trainable, not 0-d, at least the
    threshold's bytes (whether its dimension 0 divides is checked where the devices are
    known)."""
    return bool(p.requires_grad and p.shape and p.nbytes >= threshold_bytes())


def weight_bytes(params):
    """The bytes of the given parameters this rank holds (a sharded weight: its slice)."""
    return sum(p.nbytes for p in params)


def state_bytes(optimizer):
    """The bytes of optimizer state this rank holds (its state Parameters)."""
    return sum(p.asnumpy().nbytes for p in optimizer.get_parameters()
               if getattr(p, "_state_of", None) is not None)


class ShardedStep:
    """The training step of nn.TrainOneStepCell with a sharded optimizer; built once, it
    cuts the optimizer's parameters and state to this rank's rows."""

    def __init__(self, grad_fn, weights, optimizer, sens):
        from mycel.nn.optim.composed import Lamb
        from mycel.nn.optim.lars import LARS
        if isinstance(optimizer, (LARS, Lamb)) or not type(optimizer).__module__.startswith(
                "mycel.nn.optim"):
            raise ValueError(f"enable_parallel_optimizer: the update of "
                             f"{type(optimizer).__name__} is not elementwise (or not known "
                             "to be), so it cannot be split by rows; use another optimizer "
                             "or turn it off.")
        self.grad_fn, self.weights, self.optimizer, self.sens = grad_fn, list(weights), \
            optimizer, sens
        self.n = _ctx.get_auto_parallel_context("device_num")
        if self.n != _mgmt.get_group_size():
            raise ValueError(f"enable_parallel_optimizer: device_num ({self.n}) must equal "
                             f"the world size ({_mgmt.get_group_size()}).")
        self.rank = _mgmt.get_rank()
        self.mean = _ctx.get_auto_parallel_context("gradients_mean")
        self.sharded = [shardable(p) and p.shape[0] % self.n == 0 for p in self.weights]
        self._cut(optimizer)

    def _rows(self, p):
        k = p.shape[0] // self.n
        return slice(self.rank * k, (self.rank + 1) * k)

    def _cut(self, optimizer):
        from mycel.common.parameter import Parameter
        from mycel.common.tensor import Tensor
        owned = list(optimizer._params_list)
        if [id(p) for p in owned] != [id(p) for p in self.weights]:
            raise ValueError("enable_parallel_optimizer: the optimizer must update the "
                             "weights the step differentiates, in that order.")
        self.shards = []
        for i, p in enumerate(owned):
            if self.sharded[i]:
                rows = np.ascontiguousarray(p.asnumpy()[self._rows(p)])
                owned[i] = Parameter(Tensor(rows, p.dtype), p.name,
                                     requires_grad=p.requires_grad)
                self.shards.append(owned[i])
        for s in optimizer.get_parameters():
            i = getattr(s, "_state_of", None)
            if i is not None and self.sharded[i]:
                s.set_data(Tensor(np.ascontiguousarray(s.asnumpy()[self._rows(s)]), s.dtype),
                           slice_shape=True)
        optimizer._params_list = owned
        optimizer.parameters = tuple(owned)
        self.owned = owned

    def __call__(self, inputs):
        from mycel.ops import assign
        loss, grads = self.grad_fn(*inputs)
        queued = []
        for g, cut in zip(grads, self.sharded):
            queued.append((_cf.reduce_scatter_tensor if cut else _cf.all_reduce)(
                g, async_op=True))
        grads = []
        for out, h in queued:
            h.wait()
            if self.mean:
                out = out / self.n
            grads.append(out if self.sens is None else out * self.sens)
        self.optimizer(tuple(grads))
        gathered = [(p, _cf.all_gather_into_tensor(mine, async_op=True))
                    for p, mine, cut in zip(self.weights, self.owned, self.sharded) if cut]
        for p, (whole, h) in gathered:
            h.wait()
            assign(p, whole)
        return loss

"""SyncBatchNorm: batch normalisation whose statistics are those of the global batch, over
the ranks of a data-parallel job (MindSpore's ``nn.SyncBatchNorm``).

In training, each rank's per-channel sum and element count are all-reduced into the global
mean, then the sum of squared deviations from it into the global (biased) variance: two
AllReduces, and the same statistics on every rank. The normalisation is built from ops (in evaluation too, with the moving statistics), so
its gradient flows back through the AllReduces (whose bprop is an AllReduce): each rank's
input gradient is that of the global batch's loss. The moving statistics are updated with
the global mean and the unbiased global variance, as BatchNorm2d does on one process.
"""
from mycel import _mycel as _C
from mycel.communication import management as _mgmt
from mycel.nn.layer.normalization import _BatchNorm, check_channels
from mycel.ops.composite import depend, stop_gradient
from mycel.ops.function._util import prim
from mycel.ops.operations.comm_ops import AllReduce
from mycel.ops.primitive import constexpr


@constexpr
def _axes_and_stat_shape(shape, num_features):
    """The reduced axes (all but 1), the [1, C, 1...] shape of the statistics, and the
    local element count per channel."""
    check_channels(shape, (2, 3, 4), num_features, "SyncBatchNorm")
    axes = (0,) + tuple(range(2, len(shape)))
    count = 1
    for a in axes:
        count *= shape[a]
    return axes, (1, shape[1]) + (1,) * (len(shape) - 2), count


def _group_of(process_groups):
    """The communication group SyncBatchNorm reduces over: the world for None, else the
    group of the list in process_groups that holds this rank (made on first use)."""
    if process_groups is None:
        return _mgmt.GlobalComm.WORLD_COMM_GROUP
    if not isinstance(process_groups, (list, tuple)) or not all(
            isinstance(g, (list, tuple)) for g in process_groups):
        raise TypeError("For 'SyncBatchNorm', 'process_groups' must be a list of lists of "
                        f"ranks, but got {process_groups!r}.")
    rank = _mgmt.get_rank()
    mine = [list(g) for g in process_groups if rank in g]
    if len(mine) != 1:
        raise ValueError(f"For 'SyncBatchNorm', this rank ({rank}) must be in exactly one list "
                         f"of 'process_groups', but got {process_groups!r}.")
    name = "syncbn_" + "_".join(str(r) for r in mine[0])
    try:
        _mgmt.get_group_size(name)
    except ValueError:  # not made yet
        _mgmt.create_group(name, mine[0])
    return name


class SyncBatchNorm(_BatchNorm):
    """SyncBatchNorm(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init='ones',
    beta_init='zeros', moving_mean_init='zeros', moving_var_init='ones',
    use_batch_statistics=None, process_groups=None, dtype=mycel.float32): batch
    normalisation of [N, C], [N, C, L] or [N, C, H, W] input with the statistics of the
    global batch of the job's ranks (process_groups: lists of world ranks that normalise
    together, default all). Outside a job it is BatchNorm over the local batch."""

    _ranks = (2, 3, 4)

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, process_groups=None, dtype=_C.float32):
        super().__init__(num_features, eps, momentum, affine, gamma_init, beta_init,
                         moving_mean_init, moving_var_init, use_batch_statistics, "NCHW", dtype)
        self.group = _group_of(process_groups) if _mgmt.GlobalComm.INITED else None
        self.allreduce = AllReduce("sum", self.group) if self.group else None
        self.reduce_sum = prim("ReduceSum", keep_dims=False)
        self.concat = prim("Concat", axis=0)

    def _sum(self, t):
        return self.allreduce(t) if self.allreduce is not None else t

    def construct(self, x):
        use_batch = self.use_batch_statistics
        if use_batch is None:
            use_batch = self.training
        axes, stat, count = _axes_and_stat_shape(x.shape, self.num_features)
        if not use_batch:
            inv = self.gamma / (self.moving_variance + self.eps).sqrt()
            return (x - self.reshape(self.moving_mean, stat)) * self.reshape(inv, stat) + \
                self.reshape(self.beta, stat)
        local = self.reduce_sum(x, axes)
        n = local[:1] * 0 + count
        red = self._sum(self.concat((local, n)))
        total = red[self.num_features:]
        mean = red[:self.num_features] / total
        xc = x - self.reshape(mean, stat)
        var = self._sum(self.reduce_sum(xc * xc, axes)) / total
        y = xc * self.reshape(self.gamma / (var + self.eps).sqrt(), stat) + \
            self.reshape(self.beta, stat)
        m = self.momentum
        mean_s, var_s = stop_gradient(mean), stop_gradient(var * total / (total - 1))
        u1 = prim("Assign")(self.moving_mean, self.moving_mean * m + mean_s * (1 - m))
        u2 = prim("Assign")(self.moving_variance, self.moving_variance * m + var_s * (1 - m))
        return depend(y, (u1, u2))

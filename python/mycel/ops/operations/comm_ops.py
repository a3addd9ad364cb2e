"""Collective communication primitives, MindSpore's ``ops.AllReduce``, ``ops.AllGather``,
``ops.ReduceScatter``, ``ops.AlltoAll``, ``ops.Broadcast``, ``ops.Barrier``, ``ops.Send`` and
``ops.Receive``.

Each runs over a process group of the job (``mycel.communication``; the world group by
default): ``init()`` must have run. Like MindSpore's, a primitive reads its group's size when
it is made (AllGather, ReduceScatter, AlltoAll), so its output shape is known to graph mode
without communicating. The work is the C++ collective ops (src/ops/defs/comm.def) on Gloo or
MPI; AllReduce, AllGather, ReduceScatter and AlltoAll are differentiable in both modes.
"""
from mycel import _mycel as _C
from mycel.ops.primitive import Primitive

_WORLD = _C._WORLD_COMM_GROUP  # GlobalComm.WORLD_COMM_GROUP


class ReduceOp:
    """The reductions of AllReduce and ReduceScatter (MindSpore's ``ops.ReduceOp``)."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PROD = "prod"


def _check_group(api, group):
    if not isinstance(group, str):
        raise TypeError(f"For '{api}', the 'group' must be a str, but got "
                        f"{type(group).__name__}.")


def _group_size(api, group):
    """The size of `group` in the job (the process groups init() registered with the
    runtime; this layer does not reach up to mycel.communication); a RuntimeError naming
    `api` before init()."""
    _check_group(api, group)
    return _C._comm_group_size(api, group)


def _check_int(api, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"For '{api}', the '{name}' must be an int, but got "
                        f"{type(value).__name__}.")


class AllReduce(Primitive):
    """AllReduce(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x): the reduction of x
    over the group's ranks, on every rank."""
    _op = "AllReduce"

    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        _check_group("AllReduce", group)
        if not isinstance(op, str):
            raise TypeError(f"For 'AllReduce', the 'op' must be a str (ops.ReduceOp), but got "
                            f"{type(op).__name__}.")
        super().__init__(op=op, group=group)
        self.op, self.group = op, group


class AllGather(Primitive):
    """AllGather(group=GlobalComm.WORLD_COMM_GROUP)(x): the ranks' x concatenated along
    axis 0 in rank order."""
    _op = "AllGather"

    def __init__(self, group=_WORLD):
        n = _group_size("AllGather", group)
        super().__init__(group=group, rank_size=n)
        self.group, self.rank_size = group, n


class ReduceScatter(Primitive):
    """ReduceScatter(op=ReduceOp.SUM, group=GlobalComm.WORLD_COMM_GROUP)(x): the reduction
    of x over the ranks, of which rank r keeps block r of axis 0."""
    _op = "ReduceScatter"

    def __init__(self, op=ReduceOp.SUM, group=_WORLD):
        n = _group_size("ReduceScatter", group)
        if not isinstance(op, str):
            raise TypeError(f"For 'ReduceScatter', the 'op' must be a str (ops.ReduceOp), but "
                            f"got {type(op).__name__}.")
        super().__init__(op=op, group=group, rank_size=n)
        self.op, self.group, self.rank_size = op, group, n


class AlltoAll(Primitive):
    """AlltoAll(split_count, split_dim, concat_dim, group=GlobalComm.WORLD_COMM_GROUP)(x):
    x split into split_count blocks along split_dim, block j sent to rank j; the blocks
    received concatenated along concat_dim in rank order. split_count must be the group's
    size."""
    _op = "AlltoAll"

    def __init__(self, split_count, split_dim, concat_dim, group=_WORLD):
        n = _group_size("AlltoAll", group)
        for name, v in (("split_count", split_count), ("split_dim", split_dim),
                        ("concat_dim", concat_dim)):
            _check_int("AlltoAll", name, v)
        if split_count != n:
            raise ValueError(f"For 'AlltoAll', the 'split_count' must be the group's size {n}, "
                             f"but got {split_count}.")
        super().__init__(split_count=split_count, split_dim=split_dim, concat_dim=concat_dim,
                         group=group)
        self.split_count, self.split_dim, self.concat_dim = split_count, split_dim, concat_dim
        self.group = group


class Broadcast(Primitive):
    """Broadcast(root_rank, group=GlobalComm.WORLD_COMM_GROUP)(input_x): input_x, a tuple
    of tensors, as root_rank holds it, on every rank (a tuple)."""
    _op = "Broadcast"

    def __init__(self, root_rank, group=_WORLD):
        _check_int("Broadcast", "root_rank", root_rank)
        _check_group("Broadcast", group)
        super().__init__(root_rank=root_rank, group=group)
        self.root_rank, self.group = root_rank, group

    def __call__(self, input_x):
        return self._handle(tuple(input_x))


class Barrier(Primitive):
    """Barrier(group=GlobalComm.WORLD_COMM_GROUP)(): returns once every rank of the group
    has called it; the output is an empty tensor to order it by (``ops.Depend``)."""
    _op = "Barrier"

    def __init__(self, group=_WORLD):
        _check_group("Barrier", group)
        super().__init__(group=group)
        self.group = group

    def __call__(self):
        return self._handle()


class Send(Primitive):
    """Send(sr_tag, dest_rank, group=..., group_back=...)(x): sends x to dest_rank, whose
    Receive of the same sr_tag takes it. Returns an empty tensor to order it by
    (``ops.Depend(y, send(x))``)."""
    _op = "Send"

    def __init__(self, sr_tag, dest_rank, group=_WORLD, group_back=_WORLD):
        _check_int("Send", "sr_tag", sr_tag)
        _check_int("Send", "dest_rank", dest_rank)
        _check_group("Send", group)
        super().__init__(sr_tag=sr_tag, dest_rank=dest_rank, group=group, group_back=group_back)
        self.sr_tag, self.dest_rank, self.group = sr_tag, dest_rank, group


class Receive(Primitive):
    """Receive(sr_tag, src_rank, shape, dtype, group=..., group_back=...)(): the tensor of
    `shape` and `dtype` that src_rank's Send of the same sr_tag sent."""
    _op = "Receive"

    def __init__(self, sr_tag, src_rank, shape, dtype, group=_WORLD, group_back=_WORLD):
        _check_int("Receive", "sr_tag", sr_tag)
        _check_int("Receive", "src_rank", src_rank)
        _check_group("Receive", group)
        super().__init__(sr_tag=sr_tag, src_rank=src_rank, shape=tuple(shape), dtype=dtype,
                         group=group, group_back=group_back)
        self.sr_tag, self.src_rank, self.shape, self.dtype = sr_tag, src_rank, shape, dtype

    def __call__(self):
        return self._handle()


__all__ = ["ReduceOp", "AllReduce", "AllGather", "ReduceScatter", "AlltoAll", "Broadcast",
           "Barrier", "Send", "Receive"]

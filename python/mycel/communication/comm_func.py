"""Functional collectives, MindSpore's ``mindspore.communication.comm_func``.

Each call is the collective op of the same name (``mycel.ops.AllReduce`` and friends, on
Gloo or MPI) over `group`. With ``async_op=True`` it is queued on the process's
communication queue and returns at once with a ``CommHandle``: the output holds its result
once ``handle.wait()`` returned, and the input must not be written before then.
Collectives run in issue order, so a later synchronous one waits behind queued ones;
isend/irecv run in issue order per peer and direction, beside the collectives, so a
receive waiting for its peer holds up nothing else (exchanges may be issued in any order).
Ranks (dst, src) are world ranks, as MindSpore's; tensors must have the same shape and
dtype on every rank where the op says so.
"""
from mycel import _mycel as _C
from mycel.communication import management as _mgmt
from mycel.ops.operations import comm_ops as _ops
from mycel.ops.operations.comm_ops import ReduceOp
from mycel.ops.primitive import op_schema

_WORLD = _mgmt.GlobalComm.WORLD_COMM_GROUP


class CommHandle:
    """An asynchronous collective's handle: ``wait()`` blocks until it ran (and raises its
    error); ``is_completed()`` tells without blocking."""

    def __init__(self, work):
        self._work = work

    def wait(self):
        self._work.wait()

    def is_completed(self):
        return self._work.is_completed()


def _tensor(api, t):
    if not isinstance(t, _C.Tensor):
        raise TypeError(f"For '{api}', the input must be a Tensor, but got {type(t).__name__}.")
    return t


def _bool(api, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{api}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v


def _group_rank(api, group, world_rank):
    _ops._check_int(api, "rank", world_rank)
    return _mgmt.get_group_rank_from_world_rank(world_rank, group)


def _run(prim, inputs, async_op):
    """(outputs, handle or None) of the primitive on `inputs`."""
    if async_op:
        outs, work = prim._handle.call_async(list(inputs))
        return outs, CommHandle(work)
    variadic = op_schema(prim._op)["num_inputs"] < 0  # its inputs are one tuple (Broadcast)
    out = prim._handle(tuple(inputs)) if variadic else prim._handle(*inputs)
    return (out if isinstance(out, tuple) else (out,)), None


def all_reduce(tensor, op=ReduceOp.SUM, group=_WORLD, async_op=False):
    """(the reduction of tensor over the group's ranks, handle)."""
    _tensor("all_reduce", tensor)
    outs, h = _run(_ops.AllReduce(op, group), [tensor], _bool("all_reduce", "async_op", async_op))
    return outs[0], h


def all_gather_into_tensor(tensor, group=_WORLD, async_op=False):
    """(the ranks' tensors concatenated along axis 0 in rank order, handle)."""
    _tensor("all_gather_into_tensor", tensor)
    outs, h = _run(_ops.AllGather(group), [tensor],
                   _bool("all_gather_into_tensor", "async_op", async_op))
    return outs[0], h


def reduce_scatter_tensor(tensor, op=ReduceOp.SUM, group=_WORLD, async_op=False):
    """(this rank's block of axis 0 of the reduction over the ranks, handle)."""
    _tensor("reduce_scatter_tensor", tensor)
    outs, h = _run(_ops.ReduceScatter(op, group), [tensor],
                   _bool("reduce_scatter_tensor", "async_op", async_op))
    return outs[0], h


def broadcast(tensor, src=0, group=_WORLD):
    """World rank src's tensor, on every rank of the group."""
    _tensor("broadcast", tensor)
    outs, _ = _run(_ops.Broadcast(_group_rank("broadcast", group, src), group), [tensor], False)
    return outs[0]


def barrier(group=_WORLD):
    """Returns once every rank of the group has called it."""
    _run(_ops.Barrier(group), [], False)


def isend(tensor, dst=0, group=_WORLD, tag=0):
    """Queues sending tensor to world rank dst (received by its irecv/recv of the same tag);
    returns the handle."""
    _tensor("isend", tensor)
    _, h = _run(_ops.Send(tag, _group_rank("isend", group, dst), group), [tensor], True)
    return h


def irecv(tensor, src=0, group=_WORLD, tag=0):
    """Queues receiving, from world rank src, a tensor of `tensor`'s shape and dtype (its
    values are not used); returns (the received tensor, handle)."""
    _tensor("irecv", tensor)
    prim = _ops.Receive(tag, _group_rank("irecv", group, src), tuple(tensor.shape), tensor.dtype,
                        group)
    outs, h = _run(prim, [], True)
    return outs[0], h


def send(tensor, dst=0, group=_WORLD, tag=0):
    """Sends tensor to world rank dst; returns when it is sent."""
    isend(tensor, dst, group, tag).wait()


def recv(tensor, src=0, group=_WORLD, tag=0):
    """The tensor of `tensor`'s shape and dtype sent by world rank src."""
    out, h = irecv(tensor, src, group, tag)
    h.wait()
    return out


__all__ = ["CommHandle", "all_reduce", "all_gather_into_tensor", "reduce_scatter_tensor",
           "broadcast", "barrier", "isend", "irecv", "send", "recv"]

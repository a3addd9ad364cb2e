"""``mindspore.mint.distributed``: PyTorch's ``torch.distributed`` names over
``mycel.communication`` (Gloo or MPI; section "Communication" of docs/architecture.md).

As in PyTorch, the collectives write their result into their tensor argument (``all_reduce``,
``broadcast``, ``recv``, ``all_gather``'s list, the output tensors) and return None, or with
``async_op=True`` a work handle whose ``wait()`` blocks until the result is written. A group is
a group name (``new_group`` makes one; None is the world). Ranks are world ranks.
"""
import itertools

from mycel.communication import comm_func as _cf
from mycel.communication import management as _mgmt

__all__ = ["ReduceOp", "init_process_group", "destroy_process_group", "is_initialized",
           "get_rank", "get_world_size", "new_group", "get_backend", "all_reduce",
           "all_gather", "all_gather_into_tensor", "reduce_scatter_tensor", "broadcast",
           "barrier", "send", "recv", "isend", "irecv"]

_WORLD = _mgmt.GlobalComm.WORLD_COMM_GROUP
_new_group_ids = itertools.count()


class ReduceOp:
    """The reductions of all_reduce and reduce_scatter_tensor."""
    SUM = "sum"
    MAX = "max"
    MIN = "min"
    PRODUCT = "prod"


def _group(group):
    return _WORLD if group is None else group


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, pg_options=None, device_id=None):
    """Joins the job (mycel.communication.init). The world size and rank come from the
    launcher's environment; world_size / rank, when given, must agree with it. init_method
    and store (other rendezvous) are refused."""
    if init_method is not None or store is not None:
        raise ValueError("For 'init_process_group', init_method and store are not supported: "
                         "mycel's ranks meet at the launcher's address (MS_SCHED_HOST/PORT).")
    seconds = None if timeout is None else getattr(timeout, "total_seconds", lambda: timeout)()
    _mgmt.init(backend, seconds)
    if world_size not in (-1, None) and world_size != _mgmt.get_group_size():
        raise ValueError(f"For 'init_process_group', world_size {world_size} disagrees with the "
                         f"job's {_mgmt.get_group_size()}.")
    if rank not in (-1, None) and rank != _mgmt.get_rank():
        raise ValueError(f"For 'init_process_group', rank {rank} disagrees with this process's "
                         f"rank {_mgmt.get_rank()}.")


def is_initialized():
    """Whether init_process_group (or communication.init) has run."""
    return _mgmt._groups is not None


def destroy_process_group(group=None):
    """Leaves the job (None) or closes the group on this rank."""
    if group is None or group == _WORLD:
        _mgmt.release()
    else:
        _mgmt.destroy_group(group)


def get_rank(group=None):
    """This process's rank in the group."""
    return _mgmt.get_rank(_group(group))


def get_world_size(group=None):
    """The number of ranks of the group."""
    return _mgmt.get_group_size(_group(group))


def get_backend(group=None):
    """The backend's name ("gloo" or "mpi")."""
    _mgmt._state("get_backend")
    return _mgmt.GlobalComm.BACKEND


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """A group of the world ranks `ranks` (all when None); every member calls it, in the same
    order as the other members' new_group calls. Returns the group's name."""
    ranks = list(range(get_world_size())) if ranks is None else list(ranks)
    name = f"mint_group_{next(_new_group_ids)}_" + "_".join(map(str, ranks))
    if _mgmt.get_rank() in ranks:
        _mgmt.create_group(name, ranks)
    return name


class _Work:
    """An asynchronous call's handle: wait() blocks until its result is written."""

    def __init__(self, handle, finish):
        self._handle, self._finish = handle, finish

    def wait(self):
        if self._handle is not None:
            self._handle.wait()
            self._finish()
            self._handle = None
        return True

    def is_completed(self):
        return self._handle is None or self._handle.is_completed()


def _done(out, target, async_op, handle=None):
    """Writes out into target now, or when the handle's wait() returns (async_op)."""
    if async_op and handle is not None:
        return _Work(handle, lambda: target.copy_(out))
    target.copy_(out)
    return _Work(None, None) if async_op else None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """tensor <- the reduction of tensor over the group's ranks."""
    out, h = _cf.all_reduce(tensor, op, _group(group), async_op)
    return _done(out, tensor, async_op, h)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output_tensor <- the ranks' input_tensor concatenated along dim 0 in rank order."""
    out, h = _cf.all_gather_into_tensor(input_tensor, _group(group), async_op)
    return _done(out, output_tensor, async_op, h)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """tensor_list[r] <- rank r's tensor (one entry per rank of the group)."""
    n = get_world_size(group)
    if len(tensor_list) != n:
        raise ValueError(f"For 'all_gather', tensor_list must hold {n} tensors (the group's "
                         f"size), but got {len(tensor_list)}.")
    out, h = _cf.all_gather_into_tensor(tensor, _group(group), async_op)
    rows = tensor.shape[0] if tensor.shape else 1

    def finish():
        for r, t in enumerate(tensor_list):
            t.copy_(out[r * rows:(r + 1) * rows].reshape(t.shape))
    if async_op:
        return _Work(h, finish)
    finish()
    return None


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None,  # noqa: A002
                          async_op=False):
    """output <- this rank's block of dim 0 of the reduction of input over the ranks."""
    out, h = _cf.reduce_scatter_tensor(input, op, _group(group), async_op)
    return _done(out, output, async_op, h)


def broadcast(tensor, src=0, group=None, async_op=False):
    """tensor <- world rank src's tensor."""
    out = _cf.broadcast(tensor, src, _group(group))
    return _done(out, tensor, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Returns once every rank of the group has called it."""
    _cf.barrier(_group(group))
    return _Work(None, None) if async_op else None


def send(tensor, dst, group=None, tag=0):
    """Sends tensor to world rank dst; returns when it is sent."""
    _cf.send(tensor, dst, _group(group), tag)


def recv(tensor, src, group=None, tag=0):
    """tensor <- what world rank src sent (tensor's shape and dtype); returns src."""
    tensor.copy_(_cf.recv(tensor, src, _group(group), tag))
    return src


def isend(tensor, dst, group=None, tag=0):
    """Queues sending tensor to world rank dst; returns the handle."""
    return _Work(_cf.isend(tensor, dst, _group(group), tag), lambda: None)


def irecv(tensor, src, group=None, tag=0):
    """Queues receiving into tensor from world rank src; returns the handle (tensor holds the
    data once wait() returned)."""
    out, h = _cf.irecv(tensor, src, _group(group), tag)
    return _Work(h, lambda: tensor.copy_(out))

"""Sliced parameters of semi-automatic parallelism: a parameter's layout and the block each
rank holds (``_Layout``), the whole tensor put together from the ranks' blocks (``_merge``),
and the integrated save's gather (``_integrated``). Used by the distributed checkpoints
(``checkpoint.py``) and by ``save_checkpoint``; it imports neither."""
import numpy as np

from mycel.parallel import context as _ctx


class _Layout:
    """How one parameter is laid out: device matrix, tensor map, global shape."""

    def __init__(self, device_matrix, tensor_map, global_shape):
        self.device_matrix = [int(k) for k in device_matrix]
        self.tensor_map = [[int(a) for a in axes] for axes in tensor_map]
        self.global_shape = [int(d) for d in global_shape]

    def block(self, rank):
        """The index (a tuple of slices) of the block that `rank` holds."""
        from mycel import _mycel as _C
        n = len(self.device_matrix)
        offsets, shape = _C._layout_slice(self.global_shape, self.device_matrix,
                                          [f"axis{i}" for i in range(n)],
                                          list(range(int(np.prod(self.device_matrix)))),
                                          self.tensor_map, [], int(rank))
        return tuple(slice(o, o + k) for o, k in zip(offsets, shape))

    def device_num(self):
        return int(np.prod(self.device_matrix))

    def to_json(self):
        return {"device_matrix": self.device_matrix, "tensor_map": self.tensor_map,
                "global_shape": self.global_shape}

    def __repr__(self):
        return (f"Layout(device_matrix={self.device_matrix}, tensor_map={self.tensor_map}, "
                f"global_shape={self.global_shape})")


def _merge(name, parts, layout, func):
    """The whole array of `name` from its per-rank blocks (numpy)."""
    if layout is None:
        for r, p in enumerate(parts[1:], 1):
            if p.shape != parts[0].shape or not np.array_equal(p, parts[0]):
                raise ValueError(f"For '{func}', '{name}' is whole on every rank, but rank {r} "
                                 "holds a different value than rank 0.")
        return parts[0]
    if len(parts) != layout.device_num():
        raise ValueError(f"For '{func}', '{name}' is laid out on {layout.device_num()} "
                         f"devices, but {len(parts)} slices were given.")
    whole = np.empty(layout.global_shape, parts[0].dtype)
    seen = {}
    for r, p in enumerate(parts):
        idx = layout.block(r)
        want = tuple(s.stop - s.start for s in idx)
        if p.shape != want:
            raise ValueError(f"For '{func}', rank {r}'s slice of '{name}' has shape {p.shape}, "
                             f"but its layout gives {want}.")
        key = tuple((s.start, s.stop) for s in idx)
        if key in seen and not np.array_equal(parts[seen[key]], p):
            raise ValueError(f"For '{func}', ranks {seen[key]} and {r} hold the same block of "
                             f"'{name}' with different values.")
        seen.setdefault(key, r)
        whole[idx] = p
    return whole


def _own_block(param, whole):
    """This rank's block of `whole` (numpy, the global value) for a Parameter sliced by a
    sharded program (a layout, or an optimizer shard), else None (param is whole, or whole
    does not have its global shape)."""
    mine = getattr(param, "_spmd_layout", None)
    if mine is None or tuple(whole.shape) != tuple(param._spmd_global_shape):
        return None
    rank = _ctx.get_auto_parallel_context("global_rank")
    return whole[_Layout(mine[0], mine[1], param._spmd_global_shape).block(rank)]


def _integrated(items):
    """save_checkpoint(integrated_save=True) in a semi_auto_parallel or auto_parallel job:
    the items with every sliced Parameter replaced by its whole value, gathered from all the
    ranks (every rank must call it, as MindSpore's integrated save)."""
    from mycel.common.parameter import Parameter
    from mycel.common.tensor import Tensor
    from mycel.ops.operations.comm_ops import AllGather
    out = []
    for name, data in items:
        mine = getattr(data, "_spmd_layout", None) if isinstance(data, Parameter) else None
        if mine is None:
            out.append((name, data))
            continue
        layout = _Layout(mine[0], mine[1], data._spmd_global_shape)
        block = data.asnumpy()
        rows = AllGather()(Tensor(block.reshape(1, -1), data.dtype)).asnumpy()
        parts = [rows[r].reshape(block.shape) for r in range(rows.shape[0])]
        out.append((name, Tensor(_merge(name, parts, layout, "save_checkpoint"), data.dtype)))
    return out


def _semi_auto_job():
    from mycel.communication import management as _mgmt
    return _ctx.is_sharding() and _mgmt.GlobalComm.INITED

"""Semi-automatic parallelism's glue between GRAPH mode's compile and the job.

The C++ pass (``src/parallel/spmd.h``) rewrites a program whose primitives carry strategies
(``Primitive.shard``) into this rank's program. GRAPH mode asks ``_compile_config`` whether
to run it, and hands its result to ``_apply`` before the first run: the communication groups
the program's collectives use are created (every member creates them, in the same order),
and each weight that holds a slice gets it: the rank cuts the whole initial value once, at
compile time, as MindSpore's parameters are sliced when the graph is compiled.
"""
import numpy as np

from mycel.communication import management as _mgmt
from mycel.parallel import checkpoint as _checkpoint, context as _ctx


def _compile_config():
    """(devices, rank, world group name, inputs, search mode, cost profile, plan only) when
    programs compiled now are rewritten per rank (semi_auto_parallel or auto_parallel in a
    job, or a plan of ``search.plan``), else None. inputs is how the network's tensor
    arguments arrive (the dataset strategy): None when each rank is given them whole
    (full_batch), "data_parallel" when split along dimension 0 over the devices, or one
    tuple of slice counts per tensor argument. The search mode is auto_parallel's ("" in
    semi_auto_parallel), the profile the cost model's numbers (search.profile_numbers)."""
    from mycel.parallel import search as _search
    if _search._planning is not None:
        devices, mode, hook = _search._planning
        inputs = None
        if hook is not None:  # the planner (parallel/plan.py) runs a job's script
            inputs = _ctx.input_strategy()
            if mode is None:
                auto = _ctx._context["parallel_mode"] == _ctx.ParallelMode.AUTO_PARALLEL
                mode = _ctx._context["search_mode"] if auto else "sharding_propagation"
        return (devices, 0, "", inputs, mode, _search.profile_numbers(), True)
    if not _ctx.is_sharding() or _suspended[0]:
        return None
    mode = _ctx._context["parallel_mode"]
    if not _mgmt.GlobalComm.INITED:
        raise RuntimeError(f"{mode}: call mycel.communication.init() before "
                           "compiling a sharded network.")
    devices = _ctx.get_auto_parallel_context("device_num")
    if devices != _mgmt.get_group_size():
        raise ValueError(f"{mode}: device_num ({devices}) must equal the job's "
                         f"world size ({_mgmt.get_group_size()}).")
    auto = mode == _ctx.ParallelMode.AUTO_PARALLEL
    return (devices, _mgmt.get_rank(), _mgmt.GlobalComm.WORLD_COMM_GROUP,
            _ctx.input_strategy(), _ctx._context["search_mode"] if auto else "",
            _search.profile_numbers() if auto else [], False)


def _planned(text, details):
    """The strategy search's plan of the program just compiled: its text (search.last_plan)
    and the same as JSON (search.last_plan_details)."""
    from mycel.parallel import search as _search
    _search._plans.append(text)
    _search._plan_details.append(details)
    if _search._planning is not None and _search._planning[2] is not None:
        _search._planning[2]()  # the planner's hook (parallel/plan.py): may stop the run


# > 0 while a pipeline stage's programs compile (parallel/pipeline.py): their ops run whole
# on the stage's ranks, not rewritten for the world.
_suspended = [0]


def _weight_options(weights):
    """What the rewrite reads of the weights (``SpmdOptions``): optimizer_weight_shard_size,
    per weight whether it may hold an optimizer shard (enable_parallel_optimizer and
    ``optimizer_shard.shardable``), the mesh axes of the shard it holds already (empty:
    none), its parameter_plan's slice counts (``mycel.shard``; empty: none) and that shard
    call's " (at file:line)"."""
    from mycel.parallel import optimizer_shard as _opt
    on = _ctx._context["enable_parallel_optimizer"]
    plans = [getattr(w, "_spmd_plan", None) or ((), "") for w in weights]
    return (_opt.shard_size(), [on and _opt.shardable(w) for w in weights],
            [list(getattr(w, "_spmd_opt_axes", ())) for w in weights],
            [list(row) for row, _ in plans], [f" (at {where})" if where else ""
                                               for _, where in plans])


def _apply(weights, slices, groups):
    """Creates ``groups`` ([(name, ranks)]) and gives each weight of ``slices``
    ([(index, offsets, shape, mesh, tensor map, global shape, optimizer shard axes)], index
    into ``weights``) its block of its current value."""
    job = id(_mgmt._groups)  # the groups live as long as the job's process groups
    for name, ranks in groups:
        if (job, name) not in _created:
            _mgmt.create_group(name, list(ranks))
            _created.add((job, name))
    for i, offsets, shape, mesh, tensor_map, global_shape, opt_axes in slices:
        p = weights[i]
        if getattr(p, "_spmd_layout", None) is not None:
            continue  # sliced by an earlier program, whose layout the pass kept
        whole = p.asnumpy()
        block = whole[tuple(slice(o, o + n) for o, n in zip(offsets, shape))]
        p.set_data(_tensor(block, p.dtype), slice_shape=True)
        p._spmd_layout = (list(mesh), [list(a) for a in tensor_map])
        p._spmd_global_shape = tuple(global_shape)
        if opt_axes:  # its readers gather it over these mesh axes (ZeRO-3)
            p._spmd_opt_axes = list(opt_axes)
        _checkpoint._record(p.name, p._spmd_layout[0], p._spmd_layout[1], global_shape)


_created = set()  # (job, group name) made by _apply


def _tensor(array, dtype):
    from mycel.common.tensor import Tensor
    return Tensor(np.ascontiguousarray(array), dtype)

"""The auto-parallel context: MindSpore's ``set_auto_parallel_context`` and its readers.

One dictionary of settings, validated when set. What reads it: ``nn.TrainOneStepCell``
(gradient reduction and parameter broadcast in data parallelism), ``nn.DistributedGradReducer``
(defaults for mean and degree), the source datasets (a shard per rank) and
``save_checkpoint`` (rank 0 writes) and, in semi-automatic parallelism, GRAPH mode's compile
(``_spmd.py``: each rank's program from the primitives' strategies). In automatic
parallelism (``auto_parallel``) the strategy search (``search_mode``: sharding propagation or
dynamic programming, ``src/parallel/search.h``, or recursive programming for large graphs,
``src/parallel/rec_search.h``) first chooses the strategies the user did not set.
"""
from mycel.communication import management as _mgmt


class ParallelMode:
    """The parallel modes (MindSpore's ``mindspore.ParallelMode``)."""
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


SEARCH_MODES = ("sharding_propagation", "dynamic_programming", "recursive_programming")

_DEFAULTS = {
    "parallel_mode": ParallelMode.STAND_ALONE,
    "gradients_mean": False,
    "device_num": None,          # None: the world group's size
    "global_rank": None,         # None: this process's world rank
    "parameter_broadcast": False,
    "full_batch": False,         # True: every rank reads the whole data set (no sharding)
    "comm_fusion": {"allreduce": {"mode": "auto", "config": None}},
    "gradient_fp32_sync": True,
    "loss_repeated_mean": True,
    "search_mode": "sharding_propagation",
    "enable_parallel_optimizer": False,
    # {"parallel_optimizer_threshold": KB, "optimizer_weight_shard_size": devices,
    # "gradient_accumulation_shard": bool}: which weights the parallel optimizer shards, over
    # how many devices (parallel/optimizer_shard.py).
    "parallel_optimizer_config": {},
    "strategy_ckpt_save_file": "",
    "strategy_ckpt_load_file": "",
    # {"save_file": path, "load_file": path, "only_trainable_params": bool}: where the
    # layouts of sliced parameters are written (parallel/checkpoint.py) and read.
    "strategy_ckpt_config": {},
    "dataset_strategy": "data_parallel",
    "pipeline_stages": 1,
    # {"pipeline_interleave": False, "pipeline_scheduler": "1f1b" | "gpipe"} (parallel/
    # pipeline.py); pipeline_result_broadcast: every stage returns the last stage's loss.
    "pipeline_config": {"pipeline_interleave": False, "pipeline_scheduler": "1f1b"},
    "pipeline_result_broadcast": False,
}
_context = dict(_DEFAULTS)

# Bucket size of the gradient all-reduce for comm_fusion mode "auto" (MindSpore's default).
AUTO_FUSION_MB = 64


def _check_bool(key, v):
    if not isinstance(v, bool):
        raise TypeError(f"For 'set_auto_parallel_context', '{key}' must be a bool, but got "
                        f"{type(v).__name__}.")
    return v


def _check_int(key, v, lo):
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"For 'set_auto_parallel_context', '{key}' must be an int, but got "
                        f"{type(v).__name__}.")
    if v < lo:
        raise ValueError(f"For 'set_auto_parallel_context', '{key}' must be at least {lo}, "
                         f"but got {v}.")
    return v


def _check_mode(v):
    if v not in ParallelMode.MODE_LIST:
        raise ValueError(f"For 'set_auto_parallel_context', 'parallel_mode' must be one of "
                         f"{ParallelMode.MODE_LIST}, but got {v!r}.")
    return v


def _check_search_mode(v):
    if v not in SEARCH_MODES:
        raise ValueError(f"For 'set_auto_parallel_context', 'search_mode' must be one of "
                         f"{list(SEARCH_MODES)}, but got {v!r}.")
    return v


def _check_fusion(v):
    """{"allreduce": {"mode": "auto" | "size" (config: MB per bucket) | "index" (config: the
    parameter indices where buckets split)}}."""
    if not isinstance(v, dict) or set(v) - {"allreduce", "allgather", "reducescatter"}:
        raise TypeError("For 'set_auto_parallel_context', 'comm_fusion' must be a dict with "
                        f"keys among 'allreduce', 'allgather', 'reducescatter', but got {v!r}.")
    ar = v.get("allreduce", {"mode": "auto", "config": None})
    mode, config = ar.get("mode", "auto"), ar.get("config")
    if mode not in ("auto", "size", "index"):
        raise ValueError(f"For 'set_auto_parallel_context', comm_fusion allreduce mode must be "
                         f"'auto', 'size' or 'index', but got {mode!r}.")
    if mode == "size" and (isinstance(config, bool) or not isinstance(config, (int, float))
                           or config <= 0):
        raise ValueError("For 'set_auto_parallel_context', comm_fusion allreduce mode 'size' "
                         f"needs config, a positive bucket size in MB, but got {config!r}.")
    if mode == "index" and not (isinstance(config, (list, tuple)) and
                                all(isinstance(i, int) and i >= 0 for i in config)):
        raise ValueError("For 'set_auto_parallel_context', comm_fusion allreduce mode 'index' "
                         f"needs config, a list of parameter indices, but got {config!r}.")
    return {"allreduce": {"mode": mode, "config": config}}


_CHECKS = {
    "parallel_mode": _check_mode,
    "search_mode": _check_search_mode,
    "gradients_mean": lambda v: _check_bool("gradients_mean", v),
    "device_num": lambda v: _check_int("device_num", v, 1),
    "global_rank": lambda v: _check_int("global_rank", v, 0),
    "parameter_broadcast": lambda v: _check_bool("parameter_broadcast", v),
    "full_batch": lambda v: _check_bool("full_batch", v),
    "comm_fusion": _check_fusion,
    "gradient_fp32_sync": lambda v: _check_bool("gradient_fp32_sync", v),
    "loss_repeated_mean": lambda v: _check_bool("loss_repeated_mean", v),
    "enable_parallel_optimizer": lambda v: _check_bool("enable_parallel_optimizer", v),
    "pipeline_stages": lambda v: _check_int("pipeline_stages", v, 1),
    "dataset_strategy": lambda v: _check_dataset_strategy(v),
    "pipeline_config": lambda v: _check_pipeline_config(v),
    "pipeline_result_broadcast": lambda v: _check_bool("pipeline_result_broadcast", v),
    "strategy_ckpt_config": lambda v: _check_strategy_ckpt_config(v),
    "parallel_optimizer_config": lambda v: _check_parallel_optimizer_config(v),
}


def set_auto_parallel_context(**kwargs):
    """Sets how the job trains in parallel: parallel_mode (ParallelMode; "stand_alone",
    "data_parallel", "hybrid_parallel", "semi_auto_parallel" (runs the strategies of
    ``Primitive.shard`` in GRAPH mode, device_num must be the world size) and
    "auto_parallel" (the same after a strategy search chose the strategies of the other
    ops), search_mode ("sharding_propagation", the default: from the sharded ops outwards;
    "dynamic_programming": the whole network, no annotations needed;
    "recursive_programming": the devices partitioned one prime factor at a time, each op
    choosing which loop dimension to split, for graphs too large for dynamic programming; on
    the cost model of
    ``mycel.parallel.calibrate``'s profile), gradients_mean (average the all-reduced
    gradients, default False as MindSpore), device_num (default: the world's size),
    parameter_broadcast (rank 0's initial parameters to every rank), full_batch (no dataset
    sharding: in semi_auto_parallel every rank is given the whole inputs), dataset_strategy
    ("data_parallel", the default: in semi_auto_parallel each rank is given its rows of every
    input, split over all the devices; "full_batch"; or a tuple of slice counts per input,
    which may split dimension 0 only), comm_fusion ({"allreduce": {"mode": "size",
    "config": MB}}: gradient buckets), strategy_ckpt_config ({"save_file": path} writes the
    layouts of the sliced parameters, for distributed checkpoints: parallel/checkpoint.py;
    "load_file" is what load_distributed_checkpoint reads by default), pipeline_stages (the
    stages ``nn.PipelineCell`` splits a network into by its cells' ``pipeline_stage``),
    pipeline_config ({"pipeline_scheduler": "1f1b" (default) or "gpipe",
    "pipeline_interleave": False}), pipeline_result_broadcast (every stage's ranks return the
    last stage's loss; default False: they return 0), enable_parallel_optimizer (in
    data_parallel, each rank keeps 1/N of the optimizer state; in semi_auto_parallel and
    auto_parallel, 1/N of the weights and their state too: parallel/optimizer_shard.py),
    parallel_optimizer_config ({"parallel_optimizer_threshold": KB (default 64: smaller
    parameters stay whole), "optimizer_weight_shard_size": the devices a weight is spread
    over (default -1: all its data-parallel devices), "gradient_accumulation_shard": bool,
    recorded}), and MindSpore's other
    keys (checked and recorded)."""
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"For 'set_auto_parallel_context', unknown option '{key}'.")
    for key, value in kwargs.items():
        check = _CHECKS.get(key)
        _context[key] = check(value) if check else value


def get_auto_parallel_context(attr_key):
    """The value of one setting (device_num and global_rank resolved from the job when
    unset)."""
    if attr_key not in _DEFAULTS:
        raise ValueError(f"For 'get_auto_parallel_context', unknown option '{attr_key}'.")
    v = _context[attr_key]
    if v is None and attr_key in ("device_num", "global_rank"):
        if not _mgmt.GlobalComm.INITED:
            return 1 if attr_key == "device_num" else 0
        return _mgmt.get_group_size() if attr_key == "device_num" else _mgmt.get_rank()
    return v


def reset_auto_parallel_context():
    """Every setting back to its default (stand-alone)."""
    _context.clear()
    _context.update(_DEFAULTS)


def is_sharding():
    """Whether GRAPH mode's compile rewrites programs per rank: semi_auto_parallel or
    auto_parallel."""
    return _context["parallel_mode"] in (ParallelMode.SEMI_AUTO_PARALLEL,
                                         ParallelMode.AUTO_PARALLEL)


def is_data_parallel():
    """Whether gradients are reduced over the ranks: data or hybrid parallel mode in a job
    that communication.init() joined."""
    return (_context["parallel_mode"] in (ParallelMode.DATA_PARALLEL,
                                          ParallelMode.HYBRID_PARALLEL)
            and _mgmt.GlobalComm.INITED)


def input_strategy():
    """How a semi_auto_parallel network's tensor arguments arrive on each rank: None (whole:
    full_batch=True or dataset_strategy="full_batch"), "data_parallel" (this rank's rows:
    MindSpore's default) or the dataset_strategy's tuple of slice counts per argument."""
    ds = _context["dataset_strategy"]
    if _context["full_batch"] or ds == "full_batch":
        return None
    return ds


def dataset_shard():
    """(num_shards, shard_id) a source dataset reads when not told otherwise: this rank's
    shard in data parallelism and in semi_auto_parallel (unless full_batch), else None. A
    dataset_strategy tuple splits dimension 0 of every input alike into s slices: rank r
    reads slice (r // (the product of the other counts)) % s, its block of the strategy's
    device matrix."""
    if is_sharding() and _mgmt.GlobalComm.INITED:
        ds = input_strategy()
        if ds is None:
            return None
        if ds == "data_parallel":
            n = get_auto_parallel_context("device_num")
            return (n, get_auto_parallel_context("global_rank")) if n > 1 else None
        s, inner = ds[0][0], 1
        for k in ds[0][1:]:
            inner *= k
        rank = get_auto_parallel_context("global_rank")
        return (s, (rank // inner) % s) if s > 1 else None
    if not is_data_parallel() or _context["full_batch"]:
        return None
    n = get_auto_parallel_context("device_num")
    return (n, get_auto_parallel_context("global_rank")) if n > 1 else None


def _check_strategy_ckpt_config(v):
    keys = {"save_file", "load_file", "only_trainable_params"}
    if not isinstance(v, dict) or not set(v) <= keys:
        raise ValueError("For 'set_auto_parallel_context', 'strategy_ckpt_config' must be a "
                         f"dict with keys among {sorted(keys)}, but got {v!r}.")
    for k in ("save_file", "load_file"):
        if k in v and not isinstance(v[k], str):
            raise TypeError(f"For 'set_auto_parallel_context', strategy_ckpt_config['{k}'] "
                            f"must be a str, but got {type(v[k]).__name__}.")
    return dict(v)


def _check_parallel_optimizer_config(v):
    keys = {"gradient_accumulation_shard", "parallel_optimizer_threshold",
            "optimizer_weight_shard_size"}
    if not isinstance(v, dict) or not set(v) <= keys:
        raise ValueError("For 'set_auto_parallel_context', 'parallel_optimizer_config' must be "
                         f"a dict with keys among {sorted(keys)}, but got {v!r}.")
    if "gradient_accumulation_shard" in v:
        _check_bool("parallel_optimizer_config['gradient_accumulation_shard']",
                    v["gradient_accumulation_shard"])
    if "parallel_optimizer_threshold" in v:
        _check_int("parallel_optimizer_config['parallel_optimizer_threshold']",
                   v["parallel_optimizer_threshold"], 0)
    size = v.get("optimizer_weight_shard_size", -1)
    _check_int("parallel_optimizer_config['optimizer_weight_shard_size']", size, -1)
    if size == 0:
        raise ValueError("For 'set_auto_parallel_context', parallel_optimizer_config's "
                         "'optimizer_weight_shard_size' must be -1 (all the data-parallel "
                         "devices) or positive, but got 0.")
    return dict(v)


def _check_pipeline_config(v):
    keys = {"pipeline_interleave", "pipeline_scheduler"}
    if not isinstance(v, dict) or not set(v) <= keys:
        raise ValueError("For 'set_auto_parallel_context', 'pipeline_config' must be a dict "
                         f"with keys among {sorted(keys)}, but got {v!r}.")
    out = dict(_DEFAULTS["pipeline_config"], **v)
    _check_bool("pipeline_config['pipeline_interleave']", out["pipeline_interleave"])
    if out["pipeline_interleave"]:
        raise ValueError("For 'set_auto_parallel_context', pipeline_interleave (virtual "
                         "stages) is not built in mycel yet.")
    if out["pipeline_scheduler"] not in ("1f1b", "gpipe"):
        raise ValueError("For 'set_auto_parallel_context', pipeline_config's "
                         "'pipeline_scheduler' must be '1f1b' or 'gpipe', but got "
                         f"{out['pipeline_scheduler']!r}.")
    return out


def _check_dataset_strategy(v):
    if v in ("data_parallel", "full_batch"):
        return v
    ok = isinstance(v, tuple) and v and all(
        isinstance(r, tuple) and r and all(isinstance(k, int) and not isinstance(k, bool)
                                           and k >= 1 for k in r) for r in v)
    if not ok:
        raise ValueError("For 'set_auto_parallel_context', 'dataset_strategy' must be "
                         "\"data_parallel\", \"full_batch\" or a tuple of tuples of positive "
                         f"ints (one per network input), but got {v!r}.")
    if any(r[0] != v[0][0] or any(k != 1 for k in r[1:]) for r in v):
        raise ValueError("For 'set_auto_parallel_context', a 'dataset_strategy' may only split "
                         "dimension 0 of the inputs, alike for all of them (the data sets "
                         f"shard by rows), but got {v!r}.")
    return v


def fusion_buckets(sizes_bytes):
    """The buckets of the gradient all-reduce for parameters of the given byte sizes, in
    parameter order: a list of index lists (comm_fusion's allreduce setting)."""
    ar = _context["comm_fusion"]["allreduce"]
    n = len(sizes_bytes)
    if ar["mode"] == "index":
        cuts = sorted({i for i in ar["config"] if 0 < i < n})
        edges = [0, *cuts, n]
        return [list(range(a, b)) for a, b in zip(edges, edges[1:]) if b > a]
    limit = (ar["config"] if ar["mode"] == "size" else AUTO_FUSION_MB) * (1 << 20)
    buckets, cur, total = [], [], 0
    for i, s in enumerate(sizes_bytes):
        if cur and total + s > limit:
            buckets.append(cur)
            cur, total = [], 0
        cur.append(i)
        total += s
    if cur:
        buckets.append(cur)
    return buckets

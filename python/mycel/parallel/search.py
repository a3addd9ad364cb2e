"""The strategy search of ``parallel_mode="auto_parallel"``: its cost profile and a planner.

The search itself is C++ (``src/parallel/search.h``): at compile time, on the specialised
program before autodiff, it gives every op with a parallel rule a strategy (sharding
propagation from the ops the user sharded, or dynamic programming over the whole network) on
a cost model in seconds (``src/parallel/cost_model.h``), and the semi-automatic rewrite then
applies them. The model's numbers are a *profile*: peak FLOP/s, memory bandwidth, the
latency and per-byte cost of a collective step, the optimizer's states per parameter, and the
memory each device may use; optionally ``axis_alpha`` and ``axis_beta``, lists of the
latency and per-byte cost per mesh axis (0 the outermost; missing axes take ``alpha`` and
``beta``; a collective over several axes is costed with the slowest of them).
``profile.json`` beside this file is the default, measured on this machine by
``python -m mycel.parallel.calibrate``; ``set_profile`` replaces it (a path or a dict), and
``mycel.set_context(max_device_memory="2GB")`` sets the memory limit.

``plan(fn, *inputs, device_num=N)`` plans without a job: it compiles ``fn`` (a GRAPH-mode
Cell or function, e.g. a ``value_and_grad``) for N devices, runs it once unsharded on this
process, and returns the plan the search chose (one line per op with its strategy, then the
predicted step time and memory per device).
"""
import json
import os

PROFILE_KEYS = ("peak_flops", "mem_bandwidth", "alpha", "beta", "optimizer_factor")
# Optional: per mesh axis (0 the outermost), the latency and byte cost of a collective step
# over that axis; an axis past the list's end takes the scalar alpha / beta.
AXIS_KEYS = ("axis_alpha", "axis_beta")
DEFAULT_PROFILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "profile.json")

_profile = None    # the dict in use (None: the default file, read on first use)
_planning = None   # (device_num, search_mode, hook) while plan() or the planner compiles
_plans = []        # the plans of the programs compiled, newest last
_plan_details = []  # the same plans as JSON text (SearchPlan::to_json)


def _check_profile(d, where):
    if not isinstance(d, dict):
        raise TypeError(f"{where}: a cost profile must be a dict, but got {type(d).__name__}.")
    missing = [k for k in PROFILE_KEYS if k not in d]
    if missing:
        raise ValueError(f"{where}: the cost profile lacks {missing} (it needs "
                         f"{list(PROFILE_KEYS)}).")
    for k in PROFILE_KEYS:
        v = d[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or (
                v == 0 and k != "optimizer_factor"):
            raise ValueError(f"{where}: the cost profile's '{k}' must be a positive number, "
                             f"but got {v!r}.")
    for k in AXIS_KEYS:
        v = d.get(k, [])
        if not isinstance(v, (list, tuple)) or any(
                isinstance(x, bool) or not isinstance(x, (int, float)) or not x > 0 for x in v):
            raise ValueError(f"{where}: the cost profile's '{k}' must be a list of positive "
                             f"numbers (one per mesh axis), but got {v!r}.")
    d = dict(d)
    for k in AXIS_KEYS:
        if k in d:
            d[k] = [float(x) for x in d[k]]
    return d


def load_profile(path=None):
    """The profile in the JSON file at ``path`` (default: the committed ``profile.json``)."""
    path = path or DEFAULT_PROFILE
    with open(path) as f:
        return _check_profile(json.load(f), f"load_profile({path!r})")


def set_profile(profile=None):
    """Makes the search use ``profile`` (a dict with PROFILE_KEYS and optionally AXIS_KEYS, or
    a JSON file's path);
    None: the default file again."""
    global _profile
    if profile is None or isinstance(profile, dict):
        _profile = None if profile is None else _check_profile(profile, "set_profile")
    elif isinstance(profile, str):
        _profile = load_profile(profile)
    else:
        raise TypeError(f"For 'set_profile', the profile must be a dict, a path or None, but "
                        f"got {type(profile).__name__}.")


def get_profile():
    """The profile in use (a copy)."""
    global _profile
    if _profile is None:
        _profile = load_profile()
    return dict(_profile)


def max_device_memory_bytes():
    """set_context(max_device_memory=...) in bytes (MindSpore's "<n>GB"), 0 when unset."""
    from mycel import context
    v = context._context.get("max_device_memory")
    return 0 if v is None else context.parse_max_device_memory(v)


def profile_numbers():
    """The numbers the C++ search reads (cost_model.h's profile_from order), then the bounds
    of set_algo_parameters (algo.bounds)."""
    from mycel.parallel import algo
    p = get_profile()
    a, b = list(p.get("axis_alpha", [])), list(p.get("axis_beta", []))
    n = max(len(a), len(b))  # the shorter list padded with the scalar: the same meaning
    a += [float(p["alpha"])] * (n - len(a))
    b += [float(p["beta"])] * (n - len(b))
    return ([float(p[k]) for k in PROFILE_KEYS] + [max_device_memory_bytes()] + algo.bounds() +
            a + b)


def last_plan():
    """The plan of the last program the search planned (auto_parallel or plan()), or None."""
    return _plans[-1] if _plans else None


def last_plan_details():
    """The last plan as a dict: mode, devices, mesh, ops (op, shapes, strategy, user),
    step_ms and its parts (compute_ms, redistribution_ms, gradient_allreduce_ms,
    collectives_ms per collective), axis_bytes (bytes each device sends per step, by the
    mesh axes of the groups), memory_bytes per device, weight_bytes (the weights held between
    steps) and optimizer_shard (weights, all_gathers, all_gather_bytes, reduce_scatters,
    reduce_scatter_bytes: enable_parallel_optimizer's collectives per step and the bytes of
    their inputs on one device); None before any plan."""
    return json.loads(_plan_details[-1]) if _plan_details else None


def plan(fn, *inputs, device_num, search_mode="dynamic_programming"):
    """Plans ``fn(*inputs)`` for ``device_num`` devices without a job (a dry run): compiles it
    in GRAPH mode with the search, runs it once unsharded here, and returns the plan's text
    (each searched op's name, input shapes and strategy, then the predicted step time and
    memory per device). ``fn`` must not have been compiled for these inputs before (the
    compile is what plans). The strategies set with Primitive.shard are kept."""
    global _planning
    from mycel import context
    from mycel.parallel import context as pctx
    if isinstance(device_num, bool) or not isinstance(device_num, int) or device_num < 1:
        raise ValueError(f"For 'plan', device_num must be a positive int, but got "
                         f"{device_num!r}.")
    pctx._check_search_mode(search_mode)
    old = context.get_context("mode")
    count = len(_plans)
    try:
        context.set_context(mode=context.GRAPH_MODE)
        _planning = (device_num, search_mode, None)
        fn(*inputs)
    finally:
        _planning = None
        context.set_context(mode=old)
    if len(_plans) == count:
        raise RuntimeError("For 'plan', nothing was compiled: the function was already "
                           "compiled for these inputs (plan a fresh Cell or function).")
    return _plans[-1]

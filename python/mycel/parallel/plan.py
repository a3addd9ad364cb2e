"""The planner: ``python -m mycel.parallel.plan --device_num 1024 script.py [args...]``.

Plans an ordinary training script for a mesh of ``--device_num`` devices without starting a
job (a dry run, issue #18 item 7). The script runs in this one process as if it were rank 0
of the job: ``mycel.communication.init()`` joins no job (the world has device_num ranks and
this process is rank 0; no collective runs), and the first GRAPH-mode program it compiles
is planned by the strategy search (``mycel.parallel.search``) for device_num devices instead
of being run: the run stops there. Its inputs are taken as the job would pass them (the
dataset strategy: a rank's rows in data parallelism). The search mode is ``--search_mode``,
else the script's ``set_auto_parallel_context(search_mode=...)`` in auto_parallel, else
``sharding_propagation`` (strategies set with ``Primitive.shard`` are kept).

It prints each searched operator's strategy, the predicted step time and its parts (compute,
each collective, the optimizer shard's AllGathers and ReduceScatters with
enable_parallel_optimizer), the memory per device (and the weights' part of it, the optimizer
shard's slices where it cuts them), the optimizer shard's collectives and their bytes, and
the bytes each device sends per step by mesh axes, and writes the plan as JSON (``--output``,
default ``plan.json``; the keys of ``search.last_plan_details``). The target may also be
``package.module:function``, called with no arguments, which builds the network and runs a
training step. The numbers come from
the calibrated cost model (``search.get_profile``; ``--profile`` replaces it).
"""
import argparse
import json
import os
import runpy
import sys

from mycel.communication import management as _mgmt
from mycel.parallel import context as _pctx, search as _search


class _Planned(BaseException):
    """Raised after the plan is made, to stop the script (not an Exception: a script's
    ``except Exception`` does not catch it)."""


class _DryRunGroups:
    """Stands in for the job's process groups (communication's C++ ``_ProcessGroups``): a
    world of ``n`` ranks in which this process is rank 0 and nothing is sent."""

    backend = "dry-run"
    local_rank = 0

    def __init__(self, n):
        self.local_size = n
        self._groups = {_mgmt.GlobalComm.WORLD_COMM_GROUP: list(range(n))}

    def _ranks(self, group):
        if group not in self._groups:
            raise ValueError(f"the planner's dry run has no group '{group}'.")
        return self._groups[group]

    def rank(self, group):
        ranks = self._ranks(group)
        if 0 not in ranks:
            raise ValueError(f"rank 0 (the planner's process) is not in group '{group}'.")
        return ranks.index(0)

    def size(self, group):
        return len(self._ranks(group))

    def create_group(self, group, ranks):
        self._groups[group] = list(ranks)

    def destroy_group(self, group):
        self._groups.pop(group, None)

    def world_rank(self, group, rank):
        return self._ranks(group)[rank]

    def group_rank(self, group, world_rank):
        return self._ranks(group).index(world_rank)

    def agree_on(self, value):
        return value

    def close(self):
        pass


def _run_target(target, argv):
    if os.path.isfile(target) or target.endswith(".py"):
        sys.argv = [target] + list(argv)
        runpy.run_path(target, run_name="__main__")
        return
    module, sep, func = target.partition(":")
    if not sep or not func:
        raise ValueError(f"the target must be a script file or 'module:function', but got "
                         f"{target!r}.")
    import importlib
    sys.argv = [target] + list(argv)
    getattr(importlib.import_module(module), func)()


def plan_script(target, device_num, argv=(), search_mode=None):
    """Runs ``target`` (a script path or ``module:function``) as a dry run for
    ``device_num`` devices and returns the plan of the first program it compiles
    (``search.last_plan_details``' dict). RuntimeError when it compiles none."""
    from mycel import context
    from mycel.parallel import context as pctx
    if isinstance(device_num, bool) or not isinstance(device_num, int) or device_num < 1:
        raise ValueError(f"For 'plan', device_num must be a positive int, but got "
                         f"{device_num!r}.")
    if search_mode is not None:
        pctx._check_search_mode(search_mode)
    if _mgmt._groups is not None:
        raise RuntimeError("For 'plan', this process is already in a job: the planner runs "
                           "its script outside one.")

    def planned():
        raise _Planned()

    count = len(_search._plans)
    old_argv, old_mode = sys.argv, context.get_context("mode")
    old_parallel = dict(pctx._context)  # the script sets its own; this process keeps its own
    _mgmt._groups = _DryRunGroups(device_num)
    _mgmt.GlobalComm.INITED = True
    context.set_context(mode=context.GRAPH_MODE)
    _search._planning = (device_num, search_mode, planned)
    try:
        _run_target(target, argv)
    except _Planned:
        pass
    finally:
        _search._planning = None
        _mgmt._groups = None
        _mgmt.GlobalComm.INITED = False
        sys.argv = old_argv
        context.set_context(mode=old_mode)
        pctx._context.clear()
        pctx._context.update(old_parallel)
    if len(_search._plans) == count:
        raise RuntimeError(f"For 'plan', '{target}' compiled no GRAPH-mode program to plan "
                           "(it must compile its network, e.g. run one training step).")
    return _search.last_plan_details()


def format_plan(p):
    """The plan as the planner prints it."""
    lines = [f"plan for {p['devices']} devices ({p['mode']}), search mesh "
             f"{'x'.join(str(a) for a in p['mesh'])}", "operators (input shapes, strategy):"]
    for op in p["ops"]:
        shapes = " ".join("[" + ",".join(str(d) for d in s) + "]" for s in op["shapes"])
        strat = "(" + ",".join("(" + ",".join(str(d) for d in r) + ")"
                               for r in op["strategy"]) + ")"
        lines.append(f"  {op['op']:<16} {shapes}  {strat}" + ("  (user)" if op["user"] else ""))
    lines.append(f"predicted step time: {p['step_ms']:.4g} ms")
    lines.append(f"  {'compute':<24}{p['compute_ms']:>12.4g} ms")
    for kind, ms in p["collectives_ms"].items():
        lines.append(f"  {kind:<24}{ms:>12.4g} ms")
    lines.append(f"memory per device: {p['memory_bytes'] / 2**20:.4g} MB (weights held "
                 f"between steps: {p['weight_bytes'] / 2**20:.4g} MB)")
    z = p.get("optimizer_shard", {})
    if z.get("weights"):
        lines.append(f"optimizer shard: {z['weights']} weights; per step {z['all_gathers']} "
                     f"AllGathers of {z['all_gather_bytes'] / 2**20:.4g} MB and "
                     f"{z['reduce_scatters']} ReduceScatters of "
                     f"{z['reduce_scatter_bytes'] / 2**20:.4g} MB (their inputs on one device)")
    lines.append("sent per device and step, by mesh axes:")
    if not p["axis_bytes"]:
        lines.append("  nothing")
    for axes, b in p["axis_bytes"].items():
        lines.append(f"  {axes:<24}{b / 2**20:>12.4g} MB")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m mycel.parallel.plan",
        description="Plans a training script for a device mesh without a job (a dry run).")
    ap.add_argument("--device_num", type=int, required=True, help="devices to plan for")
    ap.add_argument("--search_mode", choices=list(_pctx.SEARCH_MODES),
                    help="default: the script's (auto_parallel), else sharding_propagation")
    ap.add_argument("--profile", help="a cost profile (JSON) instead of the calibrated one")
    ap.add_argument("--output", default="plan.json", help="the JSON plan's path")
    ap.add_argument("target", help="script.py or package.module:function")
    ap.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    a = ap.parse_args(argv)
    if a.device_num < 1:
        ap.error("--device_num must be positive")
    if a.profile:
        _search.set_profile(a.profile)
    p = plan_script(a.target, a.device_num, a.args, a.search_mode)
    print(format_plan(p))
    with open(a.output, "w") as f:
        json.dump(p, f, indent=1)
    print(f"plan written to {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

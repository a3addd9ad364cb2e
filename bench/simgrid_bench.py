"""The collective cost model (src/parallel/cost_model.h) against SimGrid.

Two checks, on a cluster platform of as many hosts as the most ranks asked, each host on a
private full-duplex link of latency α/2 and bandwidth 1/β (so one message between two hosts
costs α + s·β, the model's unit), from the committed profile (python/mycel/parallel/
profile.json, or MYCEL_PROFILE). SimGrid runs with its CM02 network model (no TCP correction
factors, no cross traffic, no TCP window), so what differs from the formulas is what they
leave out (steps that wait on each other, messages that share a link).

1. SMPI (`python3 bench/simgrid_bench.py [RANKS...]`, default 64 128 256 512 1024; what
   `make bench` runs): SimGrid's own implementations of the MPI collectives (MPICH's and Open
   MPI's algorithms in SMPI: smpirun -replay with a one-collective trace per rank, so no data
   moves and 1,024 ranks run in one process in seconds), each algorithm the model knows
   (SMPI_ALGORITHMS) forced with --cfg=smpi/<collective>:<algorithm>, for AllReduce,
   AllGather, ReduceScatter, AllToAll and Broadcast of a tensor of 4 KiB, 1 MiB and 64 MiB
   (SIZES: the bytes of the whole tensor; the per-device s of the model is N for AllReduce,
   ReduceScatter, AllToAll and Broadcast, N/p for AllGather). Prints one JSON object
   {"alpha", "beta", "rows": [...]}, a row per collective, rank count and size: the model's
   algorithms and seconds (mycel._mycel._collective_algorithms, the formulas of
   cost_model.h), SMPI's simulated seconds for each, the model's choice (the least) and
   SimGrid's best. The whole sweep takes about 6 minutes on a quiet core, most of it in the
   ring algorithms at 512 and 1,024 ranks (2 million simulated messages for an AllReduce
   ring at 1,024 ranks; p - 1 steps of α each, the model never chooses them there at this
   profile's α): MYCEL_SIMGRID_MAX_RING=N skips them above N ranks (default 0: none
   skipped).
2. tools/simgrid/collectives_main.cc (`simulate`, built as build/mycel_simgrid_collectives
   when libsimgrid-dev is installed): the model's first two algorithms of the four
   redistribution collectives rewritten message by message on S4U actors; the tests use it to
   show what contention on a shared backbone does (tests/python/test_parallel_plan_simgrid.py).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
TOOL = os.path.join(ROOT, os.environ.get("BUILD", "build"), "mycel_simgrid_collectives")
KINDS = ("AllReduce", "AllGather", "ReduceScatter", "AllToAll")
SIZES = (4, 1 << 20, 64 << 20)
# CM02: latency + size / bandwidth, no TCP correction factors; no ACK cross traffic; no
# TCP window bound on the bandwidth (TCP-gamma 0).
SIMGRID_CFG = ["--cfg=network/model:CM02", "--cfg=network/crosstraffic:0",
               "--cfg=network/TCP-gamma:0", "--log=root.thres:critical"]


def profile():
    path = os.environ.get("MYCEL_PROFILE",
                          os.path.join(ROOT, "python", "mycel", "parallel", "profile.json"))
    with open(path) as f:
        p = json.load(f)
    return p["alpha"], p["beta"]


def platform_xml(hosts, alpha, beta):
    """A cluster of `hosts` hosts, each on its own full-duplex link (α/2, 1/β): host to host
    crosses two links, α + s·β."""
    return ("<?xml version='1.0'?>\n"
            "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
            "<platform version=\"4.1\">\n"
            f"  <cluster id=\"mycel\" prefix=\"h\" suffix=\"\" radical=\"0-{hosts - 1}\" "
            f"speed=\"1Gf\" bw=\"{1.0 / beta:.17g}Bps\" lat=\"{alpha / 2:.17g}s\" "
            "sharing_policy=\"SPLITDUPLEX\"/>\n"
            "</platform>\n")


def simulate(platform, kind, ranks, size, alpha, beta, only=None):
    """The tool's object for one case (both algorithms, or `only` "ring" or "tree")."""
    if not os.path.exists(TOOL):
        raise SystemExit(f"{TOOL} is missing: install libsimgrid-dev and run `make build`")
    out = subprocess.run([TOOL, platform, kind, str(ranks), str(size), repr(alpha), repr(beta)]
                         + ([only] if only else []) + SIMGRID_CFG,
                         capture_output=True, text=True, timeout=3600)
    if out.returncode != 0:
        raise SystemExit(f"{TOOL} failed: {out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# The model's algorithms (cost_model.h's names) and SMPI's implementation of each.
SMPI_ALGORITHMS = {
    "AllReduce": (("ring", "lr"), ("doubling", "rdb"), ("halving-doubling", "rab_rdb")),
    "AllGather": (("ring", "ring"), ("doubling", "rdb")),
    "ReduceScatter": (("ring", "ompi_ring"), ("halving", "ompi_basic_recursivehalving")),
    "AllToAll": (("pairwise", "pair"), ("Bruck", "bruck")),
    "Broadcast": (("binomial", "binomial_tree"), ("scatter-allgather", "scatter_rdb_allgather")),
}
SMPI_KINDS = tuple(SMPI_ALGORITHMS)
SMPI_COLLECTIVE = {"AllReduce": "allreduce", "AllGather": "allgather",
                   "ReduceScatter": "reduce_scatter", "AllToAll": "alltoall", "Broadcast": "bcast"}
RING = ("ring", "pairwise")  # the algorithms of p - 1 steps or more
SMPI_SIZES = (4 << 10, 1 << 20, 64 << 20)
SMPI_CFG = SIMGRID_CFG[:3] + ["--cfg=smpi/simulate-computation:no", "--log=root.thres:critical",
                              "--log=smpi_replay.thres:info"]
_SIMULATION_TIME = re.compile(r"Simulation time ([0-9.eE+-]+)")


def model_bytes(kind, ranks, size):
    """The model's s (bytes per device before the collective) for a tensor of `size` bytes."""
    return size // ranks if kind == "AllGather" else size


def trace_action(kind, rank, ranks, size):
    """Rank `rank`'s replay action (SMPI's time-independent trace; counts of MPI_BYTE)."""
    per = size // ranks
    if kind == "AllReduce":
        return f"{rank} allreduce {size} 0"
    if kind == "AllGather":
        return f"{rank} allgather {per} {per}"
    if kind == "ReduceScatter":
        return f"{rank} reducescatter {' '.join([str(per)] * ranks)} 0"
    if kind == "AllToAll":
        return f"{rank} alltoall {per} {per}"
    if kind == "Broadcast":
        return f"{rank} bcast {size}"
    raise ValueError(f"unknown collective {kind!r}")


def smpi_simulate(workdir, platform, hostfile, kind, ranks, size, algorithm):
    """SMPI's simulated seconds of one collective with one of its algorithms forced."""
    traces = os.path.join(workdir, f"{kind}_{ranks}_{size}")
    if not os.path.isdir(traces):
        os.makedirs(traces)
        with open(traces + ".list", "w") as lst:
            for r in range(ranks):
                path = os.path.join(traces, str(r))
                with open(path, "w") as f:
                    f.write(f"{r} init\n{trace_action(kind, r, ranks, size)}\n{r} finalize\n")
                lst.write(path + "\n")
    out = subprocess.run(["smpirun", "-np", str(ranks), "-platform", platform, "-hostfile",
                          hostfile, "-replay", traces + ".list", *SMPI_CFG,
                          f"--cfg=smpi/{SMPI_COLLECTIVE[kind]}:{algorithm}"],
                         capture_output=True, text=True, timeout=1800, cwd=workdir)
    times = _SIMULATION_TIME.findall(out.stderr + out.stdout)
    if out.returncode != 0 or not times:
        raise SystemExit(f"smpirun {kind} {ranks} {size} {algorithm} failed:\n{out.stderr[-2000:]}")
    return float(times[-1])


def model_algorithms(kind, ranks, s, alpha, beta):
    from mycel import _mycel
    return dict(_mycel._collective_algorithms(kind, ranks, float(s), alpha, beta))


def smpi_rows(ranks_list, sizes=SMPI_SIZES, kinds=SMPI_KINDS, max_ring=None):
    """One row per collective, rank count and size (module docstring, check 1)."""
    alpha, beta = profile()
    rows = []
    with tempfile.TemporaryDirectory() as d:
        platform = os.path.join(d, "cluster.xml")
        with open(platform, "w") as f:
            f.write(platform_xml(max(ranks_list), alpha, beta))
        hostfile = os.path.join(d, "hosts")
        with open(hostfile, "w") as f:
            f.write("".join(f"h{i}\n" for i in range(max(ranks_list))))
        for ranks in ranks_list:
            for kind in kinds:
                for size in sizes:
                    s = model_bytes(kind, ranks, size)
                    model = model_algorithms(kind, ranks, s, alpha, beta)
                    sim = {}
                    for name, alg in SMPI_ALGORITHMS[kind]:
                        if max_ring is not None and ranks > max_ring and name in RING:
                            continue
                        sim[name] = smpi_simulate(d, platform, hostfile, kind, ranks, size, alg)
                    choice = min(model, key=model.get)
                    best = min(sim, key=sim.get)
                    rows.append({"kind": kind, "ranks": ranks, "size": size, "s": s,
                                 "model": model, "simulated": sim, "model_choice": choice,
                                 "model_s": model[choice], "simgrid_best": best,
                                 "simgrid_s": sim[best]})
    return {"alpha": alpha, "beta": beta, "rows": rows}


def main(ranks):
    max_ring = int(os.environ.get("MYCEL_SIMGRID_MAX_RING", "0"))
    print(json.dumps(smpi_rows(ranks, max_ring=max_ring or None)))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [64, 128, 256, 512, 1024])

"""The collective cost model (src/parallel/cost_model.h) against SimGrid's simulation of the
same algorithms (tools/simgrid/collectives_main.cc, built as build/mycel_simgrid_collectives
when libsimgrid-dev is installed).

`python3 bench/simgrid_bench.py [RANKS...]` writes a cluster platform of as many hosts as the
most ranks asked (default 2 8 64 1024), each host on a private full-duplex link of latency α/2
and bandwidth 1/β (so that one message between two hosts costs α + s·β, the model's unit),
from the committed profile (python/mycel/parallel/profile.json, or MYCEL_PROFILE), then runs
every collective at every rank count for 4 B, 1 MiB and 64 MiB per device, and prints one JSON
object: {"alpha", "beta", "rows": [the tool's objects]}. SimGrid runs with its CM02 network
model (no TCP correction factors, no cross traffic, no TCP window): what differs from the formulas is then
what they leave out (steps that wait on each other, shared links). Above
MYCEL_SIMGRID_MAX_RING ranks (default 64) only the logarithmic algorithms are simulated: a
ring at 1,024 ranks is ~2 million simulated messages, many minutes per case on this machine
(the ring's simulated time is then -1), and at this profile's α the model picks the
logarithmic one there anyway.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..")
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


def main(ranks):
    alpha, beta = profile()
    max_ring = int(os.environ.get("MYCEL_SIMGRID_MAX_RING", "64"))
    rows = []
    with tempfile.TemporaryDirectory() as d:
        platform = os.path.join(d, "cluster.xml")
        with open(platform, "w") as f:
            f.write(platform_xml(max(ranks), alpha, beta))
        for n in ranks:
            for kind in KINDS:
                for size in SIZES:
                    rows.append(simulate(platform, kind, n, size, alpha, beta,
                                         None if n <= max_ring else "tree"))
    print(json.dumps({"alpha": alpha, "beta": beta, "rows": rows}))


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [2, 8, 64, 1024])

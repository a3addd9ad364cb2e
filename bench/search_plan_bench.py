"""The strategy search's planning time and plan quality by search mode: towers of transformer
layers (tests/python/auto_parallel_nets.Tower: batch 4, sequence 32, model 256, 8 heads, MLP
1024, vocabulary 256, float32; about 20 searched ops per layer) planned for 1,024 devices
without a job (mycel.parallel.search.plan, on the committed profile), by
dynamic_programming, sharding_propagation and recursive_programming. Dynamic programming
costs every pair of candidates of every edge (hundreds of candidates per MatMul at 1,024
devices), so it runs on the small towers only; the recursive search also plans 48 layers.

`search_plan_bench.py` prints one JSON object: {"rows": [{"layers", "mode", "plan_s",
"step_ms"}]}, plan_s the wall time of search.plan (compile with the search, then one
unsharded run of the tower's forward and backward, which is a small part), step_ms the
plan's predicted step time."""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "python"))

SIZES = dict(b=4, s=32, d=256, heads=8, f=1024, v=256)
RUNS = [(1, "dynamic_programming"), (2, "dynamic_programming"),
        (1, "sharding_propagation"), (2, "sharding_propagation"),
        (1, "recursive_programming"), (2, "recursive_programming"),
        (48, "recursive_programming")]


def main():
    import mycel as ms
    from mycel.parallel import search
    from auto_parallel_nets import Tower, block_data
    rows = []
    for layers, mode in RUNS:
        net = Tower(layers, **SIZES)
        start = time.perf_counter()
        search.plan(ms.value_and_grad(net, None, net.trainable_params()),
                    *block_data(SIZES["b"], SIZES["s"], SIZES["v"]), device_num=1024,
                    search_mode=mode)
        rows.append({"layers": layers, "mode": mode, "plan_s": time.perf_counter() - start,
                     "step_ms": search.last_plan_details()["step_ms"]})
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    main()

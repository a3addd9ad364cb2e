"""Data-parallel training throughput: LeNet-5 on Fashion-MNIST at 2 processes of 1 thread
each on the loopback address, global batch 64 (32 per process), Momentum SGD (lr 0.01,
momentum 0.9) and cross-entropy: mycel in GRAPH mode with set_auto_parallel_context(
parallel_mode="data_parallel", gradients_mean=True) (its TrainOneStepCell all-reduces the
gradients over Gloo, in buckets overlapping the backward pass), against PyTorch's
DistributedDataParallel with the gloo backend.

`dp_bench.py mycel|mycel-mpi|torch` starts the two processes (`dp_bench.py worker ...`;
mycel-mpi: under mpirun, mycel's MPI backend), waits for them (with a timeout; both are
ended whatever happens) and prints rank 0's JSON: global samples/s, timed as train_bench
times (train_bench.timed: STEPS steps after WARMUP, the best of ROUNDS passes). The batches
are prepared once in each framework's tensors (the data pipeline is not timed).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from dist_bench import free_port  # noqa: E402
from train_bench import batches, timed, torch_lenet5  # noqa: E402

WORLD = 2


def shards(rank):
    """This rank's half of every global batch of 64, as numpy."""
    half = 64 // WORLD
    return [(x[rank * half:(rank + 1) * half], y[rank * half:(rank + 1) * half])
            for x, y in batches()]


def worker_mycel(rank):
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    sys.path.insert(0, os.path.join(HERE, "..", "examples"))
    import mycel as ms
    from mycel import nn
    from mycel.communication import init, release
    from lenet import LeNet5
    ms._mycel.set_num_threads(1)
    init()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True, parameter_broadcast=True)
    ms.set_seed(1)
    net = LeNet5()
    opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.CrossEntropyLoss()), opt)
    step.set_train()
    data = [(ms.Tensor(x), ms.Tensor(y)) for x, y in shards(rank)]
    res = {"samples_per_s": timed(step, data), "backend": ms.communication.GlobalComm.BACKEND,
           "rank": rank}
    release()
    return res


def worker_torch(rank, port):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=WORLD)
    torch.manual_seed(1)
    f = torch.nn.functional

    net = torch.nn.parallel.DistributedDataParallel(torch_lenet5())
    opt = torch.optim.SGD(net.parameters(), 0.01, momentum=0.9)

    def step(x, y):
        opt.zero_grad()
        loss = f.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss.detach()

    data = [(torch.from_numpy(x), torch.from_numpy(y).long()) for x, y in shards(rank)]
    res = {"samples_per_s": timed(step, data)}
    dist.destroy_process_group()
    return res


MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "btl", "self,vader,tcp",
          "--mca", "btl_tcp_if_include", "lo", "-x", "OMP_NUM_THREADS"]


def launch(framework, timeout=900):
    """Rank 0's result: each rank writes its own file (under mpirun the ranks share one
    stdout, and lines interleave)."""
    out_dir = tempfile.mkdtemp(prefix="dp_bench_")
    os.environ["DP_BENCH_OUT"] = out_dir
    port, torch_port = free_port(), free_port()
    procs = []
    if framework == "mycel-mpi":  # one mpirun; rank 0 prints first
        cmd = MPIRUN + ["-np", str(WORLD), sys.executable, __file__, "worker", "mycel", "mpi",
                        "0"]
        procs.append(subprocess.Popen(cmd, env=dict(os.environ, OMP_NUM_THREADS="1"),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    for rank in range(WORLD if framework != "mycel-mpi" else 0):
        env = dict(os.environ, OMP_NUM_THREADS="1", MS_WORKER_NUM=str(WORLD), RANK_ID=str(rank),
                   MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(port))
        procs.append(subprocess.Popen([sys.executable, __file__, "worker", framework, str(rank),
                                       str(torch_port)],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      text=True))
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=timeout))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    for p, (out, err) in zip(procs, outs):
        if p.returncode != 0:
            sys.stderr.write(err)
            raise SystemExit(f"dp_bench {framework}: a rank failed")
    with open(os.path.join(out_dir, "rank_0.json")) as f:
        res = json.load(f)
    shutil.rmtree(out_dir, ignore_errors=True)
    return res


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        fw = sys.argv[2]
        rank = int(os.environ["OMPI_COMM_WORLD_RANK"] if sys.argv[3] == "mpi" else sys.argv[3])
        res = worker_mycel(rank) if fw == "mycel" else worker_torch(rank, int(sys.argv[4]))
        with open(os.path.join(os.environ["DP_BENCH_OUT"], f"rank_{rank}.json"), "w") as f:
            json.dump(res, f)
    else:
        print(json.dumps(launch(sys.argv[1])))

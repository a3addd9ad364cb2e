"""A data-parallel job (2 ranks, through the launcher) killed mid-training and resumed from
its last checkpoint reaches the weights of a run that was never interrupted: rank 0 alone
writes the checkpoints (weights and optimizer state), the resumed run loads them on every
rank and starts the data at the checkpoint's step (set_init_step). The killed job's launcher
names the rank, and leaves no process behind."""
import json
import os
import signal
import textwrap

import numpy as np

from distributed import free_port
from test_launcher import alive, launch

WORKER = textwrap.dedent("""
    import glob, json, os, signal, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, ops, Parameter, Tensor
    from mycel import dataset as ds
    from mycel.communication import init, get_rank, get_group_size, release
    from mycel.train import Callback, CheckpointConfig, ModelCheckpoint

    out, run = sys.argv[1], sys.argv[2]
    init()
    rank, n = get_rank(), get_group_size()
    with open(os.path.join(out, f"pid_{run}_{rank}"), "w") as f:
        f.write(str(os.getpid()))
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True, parameter_broadcast=True)

    class MLP(nn.Cell):
        def __init__(self, seed):
            super().__init__()
            rng = np.random.default_rng(seed)
            self.w1 = Parameter(Tensor(rng.standard_normal((5, 8)) * 0.3, ms.float64), "w1")
            self.w2 = Parameter(Tensor(rng.standard_normal((8, 2)) * 0.3, ms.float64), "w2")

        def construct(self, x):
            return ops.matmul(ops.tanh(ops.matmul(x, self.w1)), self.w2)

    class Kill(Callback):  # rank 1 dies at step 13, as a crashed or killed process would
        def on_train_step_end(self, run_context):
            if rank == 1 and run_context.original_args().cur_step_num == 13:
                os.kill(os.getpid(), signal.SIGKILL)

    net = MLP(seed=100 + rank)
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    model = ms.Model(net, nn.MSELoss(), opt)
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((20 * 8, 5)), rng.standard_normal((20 * 8, 2))
    data = ds.NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8 // n)
    callbacks = []
    if run == "killed":
        config = CheckpointConfig(save_checkpoint_steps=5)
        callbacks = [ModelCheckpoint("CKP", os.path.join(out, "ckpt"), config), Kill()]
    if run == "resumed":
        files = glob.glob(os.path.join(out, "ckpt", "CKP-1_*.ckpt"))
        last = max(files, key=lambda f: int(f.rsplit("_", 1)[1][:-5]))
        step = int(last.rsplit("_", 1)[1][:-5])
        params = ms.load_checkpoint(last)
        ms.load_param_into_net(model.train_network, params)
        data.set_init_step(step)
    model.train(1, data, callbacks=callbacks)
    with open(os.path.join(out, f"{run}_{rank}.json"), "w") as f:
        json.dump({p.name: p.asnumpy().tolist() for p in net.trainable_params()}, f)
    release()
""")


def _launch(tmp_path, script, run):
    return launch(["--worker_num", 2, "--local_worker_num", 2, "--master_port", free_port(),
                   "--log_dir", tmp_path / f"logs_{run}", script, tmp_path, run])


def test_killed_job_resumed_from_its_checkpoint_equals_the_uninterrupted_run(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    full = _launch(tmp_path, script, "full")
    assert full.returncode == 0, full.stderr
    killed = _launch(tmp_path, script, "killed")
    assert killed.returncode != 0
    assert "worker rank 1 was killed by signal 9" in killed.stderr, killed.stderr
    for rank in (0, 1):
        pid = int((tmp_path / f"pid_killed_{rank}").read_text())
        assert not alive(pid), f"rank {rank} (pid {pid}) of the killed job was left running"
    saved = sorted(os.listdir(tmp_path / "ckpt"))
    assert "CKP-graph.meta" in saved  # GRAPH mode: the graph, once
    saved.remove("CKP-graph.meta")
    assert saved == ["CKP-1_10.ckpt", "CKP-1_5.ckpt"], saved  # rank 0's; none after the kill
    resumed = _launch(tmp_path, script, "resumed")
    assert resumed.returncode == 0, resumed.stderr
    for rank in (0, 1):
        want = json.loads((tmp_path / f"full_{rank}.json").read_text())
        got = json.loads((tmp_path / f"resumed_{rank}.json").read_text())
        for name in want:
            np.testing.assert_allclose(got[name], want[name], rtol=1e-12, atol=1e-12,
                                       err_msg=f"rank {rank} {name}")
    # The resumed run did train: its weights are not the checkpoint's.
    from mycel.train import load_checkpoint
    ckpt = load_checkpoint(str(tmp_path / "ckpt" / "CKP-1_10.ckpt"))
    assert np.abs(ckpt["w1"].asnumpy() - np.array(want["w1"])).max() > 1e-6

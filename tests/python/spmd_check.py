"""What the semi-automatic-parallel workers share (they import it from the tests folder,
passed on their command line): a rank's block of a whole tensor under a Parameter's layout,
and the comparison of a sharded run with the serial one."""
import numpy as np


def block(whole, p, rank):
    """This rank's block of `whole` under p's layout (mesh axes from the left, groups in
    row-major order), or whole when p is not sliced."""
    layout = getattr(p, "_spmd_layout", None)
    if layout is None:
        return whole
    mesh, tensor_map = layout
    coords = np.unravel_index(rank, mesh)
    index = []
    for d, axes in enumerate(tensor_map):
        k, g = 0, 1
        for a in axes:
            k, g = k * mesh[a] + coords[a], g * mesh[a]
        size = whole.shape[d] // g
        index.append(slice(k * size, (k + 1) * size))
    return whole[tuple(index)]


def graph_job():
    """A worker's start: GRAPH mode, the job joined (init); (rank, world size)."""
    import mycel as ms
    from mycel.communication import init, get_rank, get_group_size
    ms.set_context(mode=ms.GRAPH_MODE)
    init()
    return get_rank(), get_group_size()


def compare(serial, par, rank):
    """(diffs, sliced) of two runs, each a dict with loss, grads (in parameter order),
    losses (of the training steps) and params (the trained Parameters): the largest
    absolute difference of the loss, the step losses, each gradient and each trained weight
    (the serial one's block for a sliced parameter), and the names of the sliced
    parameters."""
    diffs = {"loss": abs(serial["loss"] - par["loss"]),
             "losses": float(np.abs(np.array(serial["losses"]) - np.array(par["losses"])).max())}
    if "out" in serial:
        diffs["out"] = float(np.abs(serial["out"] - par["out"]).max())
    sliced = []
    for p, g_ser, g_par in zip(par["params"], serial["grads"], par["grads"]):
        diffs["grad " + p.name] = float(np.abs(block(g_ser, p, rank) - g_par).max())
        if getattr(p, "_spmd_layout", None) is not None:
            sliced.append(p.name)
    for p, q in zip(par["params"], serial["params"]):
        diffs["trained " + p.name] = float(np.abs(block(q.asnumpy(), p, rank) -
                                                  p.asnumpy()).max())
    return diffs, sliced


def train_record(net, loss, data, steps=10):
    """What compare() reads of a run: the value and gradients of `loss` (a Cell over net's
    trainable parameters) on `data`, then `steps` Momentum steps of TrainOneStepCell (their
    losses) and the trained Parameters."""
    import mycel as ms
    from mycel import nn
    value, grads = ms.value_and_grad(loss, None, net.trainable_params())(*data)
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.05, 0.9))
    losses = [float(step(*data).asnumpy()) for _ in range(steps)]
    return dict(loss=float(value.asnumpy()), grads=[g.asnumpy() for g in grads],
                losses=losses, params=net.trainable_params())


def run_worker(tmp_path, worker, n, config, timeout=300):
    """Runs the worker script text on n Gloo ranks with (config, this folder) as its
    arguments; per rank, its last RESULT or ERROR line as (kind, the JSON after it)."""
    import json
    import os
    from distributed import run_gloo
    script = tmp_path / "worker.py"
    script.write_text(worker)
    out = []
    here = os.path.dirname(os.path.abspath(__file__))
    for rc, text in run_gloo(script, n, args=(config, here), timeout=timeout):
        assert rc == 0, text[-3000:]
        lines = [ln for ln in text.splitlines() if ln.startswith(("RESULT", "ERROR"))]
        assert lines, text[-3000:]
        kind, payload = lines[-1].split(" ", 1)
        out.append((kind, json.loads(payload)))
    return out

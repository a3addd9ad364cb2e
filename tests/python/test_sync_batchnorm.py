"""nn.SyncBatchNorm on real ranks (Gloo at 2 and 4 processes), in both modes: each rank holds
its slice of a global batch; outputs, moving statistics and input gradients equal PyTorch's
BatchNorm2d on the whole batch, and the ranks' gamma/beta gradients sum to PyTorch's. Also
SyncBatchNorm outside a job (BatchNorm over the local batch) and in evaluation."""
import json
import textwrap

import numpy as np
import pytest
import torch

import mycel as ms
from mycel import nn
from distributed import run_gloo

WORKER = textwrap.dedent("""
    import json, sys, traceback, warnings
    warnings.filterwarnings("error", message=".*JIT fallback")
    import numpy as np
    import torch
    import mycel as ms
    from mycel import nn, ops
    from mycel.communication import init, release, get_rank, get_group_size

    init()
    r, n = get_rank(), get_group_size()
    fails = []

    def check(name, got, want, tol=1e-10):
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            fails.append(f"{name}: max diff {np.abs(got - want).max() if got.shape == want.shape else got.shape}")

    X = np.random.default_rng(1).standard_normal((8, 3, 2, 3))
    W = np.random.default_rng(2).standard_normal((8, 3, 2, 3))
    b = 8 // n
    mine = slice(r * b, (r + 1) * b)
    t = torch.nn.BatchNorm2d(3, momentum=0.1).double()
    t.weight.data = torch.tensor([1.5, 0.5, 2.0], dtype=torch.float64)
    xt = torch.tensor(X, requires_grad=True)
    (t(xt) * torch.tensor(W)).sum().backward()
    ty = t(torch.tensor(X)).detach().numpy()   # second step, for the moving statistics
    try:
        for mode, m in ((ms.PYNATIVE_MODE, "pynative"), (ms.GRAPH_MODE, "graph")):
            ms.set_context(mode=mode)
            bn = nn.SyncBatchNorm(3, gamma_init=ms.Tensor([1.5, 0.5, 2.0], ms.float64),
                                  dtype=ms.float64)
            bn.set_train(True)
            w = ms.Tensor(W[mine])
            loss = lambda x: (bn(x) * w).sum()
            gx, (gg, gb) = ms.grad(loss, grad_position=0, weights=(bn.gamma, bn.beta))(
                ms.Tensor(X[mine]))
            check(f"{m} dx", gx.asnumpy(), xt.grad.numpy()[mine])
            gg = ops.AllReduce()(gg).asnumpy()
            gb = ops.AllReduce()(gb).asnumpy()
            check(f"{m} dgamma", gg, t.weight.grad.numpy())
            check(f"{m} dbeta", gb, t.bias.grad.numpy())
            y = bn(ms.Tensor(X[mine])).asnumpy()
            check(f"{m} y", y, ty[mine])
            check(f"{m} moving_mean", bn.moving_mean.asnumpy(), t.running_mean.numpy())
            check(f"{m} moving_variance", bn.moving_variance.asnumpy(), t.running_var.numpy())
            bn.set_train(False)
            t.eval()
            check(f"{m} eval", bn(ms.Tensor(X[mine])).asnumpy(),
                  t(torch.tensor(X)).detach().numpy()[mine])
            t.train()
            t.running_mean.data = torch.tensor(np.zeros(3))   # restart for the next mode
            t.running_var.data = torch.tensor(np.ones(3))
            t.num_batches_tracked.zero_()
            t(torch.tensor(X))   # the two training steps of the next mode: grad's forward,
            t(torch.tensor(X))   # then the forward checked as y (both update the statistics)
    except Exception:
        fails.append(traceback.format_exc())
    release()
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump({"rank": r, "fails": fails}, f)
""")


@pytest.mark.parametrize("n", [2, 4])
def test_sync_batchnorm_equals_batchnorm_on_the_global_batch(tmp_path, n):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    for code, text in run_gloo(script, n, [tmp_path]):
        assert code == 0, text
    for r in range(n):
        res = json.loads((tmp_path / f"result_{r}.json").read_text())
        assert res["fails"] == [], f"rank {r}:\n" + "\n".join(res["fails"])


def test_outside_a_job_it_is_batchnorm_over_the_local_batch():
    x = np.random.default_rng(3).standard_normal((4, 2, 3))
    bn = nn.SyncBatchNorm(2, dtype=ms.float64)
    bn.set_train(True)
    t = torch.nn.BatchNorm1d(2, momentum=0.1).double()
    np.testing.assert_allclose(bn(ms.Tensor(x)).asnumpy(), t(torch.tensor(x)).detach().numpy(),
                               atol=1e-12)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), t.running_var.numpy(), atol=1e-12)
    with pytest.raises(ValueError, match="For 'SyncBatchNorm', the input must be 2-d"):
        bn(ms.Tensor(np.ones((2, 2, 2, 2, 2))))

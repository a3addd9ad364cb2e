"""The gradients of Send and Receive on real ranks: a two-stage pipeline, stage 0 (rank 0)
computing h = tanh(x @ W0) and sending it, stage 1 (rank 1) receiving it and computing the
loss sum((h @ W1)^2). Each rank differentiates its own stage: the backward of rank 1's
Receive sends dL/dh back, the backward of rank 0's Send receives it, so rank 0 gets dL/dW0
and rank 1 dL/dW1, equal to the analytic gradients of the serial network, in GRAPH and
PYNATIVE mode, on Gloo and MPI. Also: a Send whose token nothing differentiates still
receives (its peer's backward would wait for it otherwise), and what it receives is part of
x's gradient: rank 0 then gets the gradient of its own loss plus rank 1's."""
import json
import textwrap

import numpy as np
import pytest

from distributed import run_gloo, run_mpi

WORKER = textwrap.dedent("""
    import json, os, sys, traceback
    os.environ["MYCEL_COMM_TIMEOUT"] = "60"
    import numpy as np
    import mycel as ms
    from mycel import ops, Parameter, Tensor
    from mycel.communication import init, release, get_rank

    init()
    r = get_rank()
    rng = np.random.default_rng(5)
    X, W0, W1 = (rng.standard_normal(s) for s in ((4, 3), (3, 5), (5, 2)))
    out = {}
    try:
        for mode, name in ((ms.GRAPH_MODE, "graph"), (ms.PYNATIVE_MODE, "pynative")):
            ms.set_context(mode=mode)
            if r == 0:
                w0 = Parameter(Tensor(W0), "w0")
                send = ops.Send(sr_tag=3, dest_rank=1)

                def stage0(x):
                    return send(ops.tanh(ops.matmul(x, w0)))

                _, (g,) = ms.value_and_grad(stage0, None, [w0])(Tensor(X))
                out[name] = g.asnumpy().tolist()
            else:
                w1 = Parameter(Tensor(W1), "w1")
                recv = ops.Receive(sr_tag=3, src_rank=0, shape=(4, 5), dtype=ms.float64)

                def stage1(x):
                    return (ops.matmul(recv(), w1) ** 2).sum()

                loss, (g,) = ms.value_and_grad(stage1, None, [w1])(Tensor(X))
                out[name] = [float(loss.asnumpy()), g.asnumpy().tolist()]
        # A Send outside what is differentiated: its backward still receives.
        if r == 0:
            ms.set_context(mode=ms.PYNATIVE_MODE)
            w0 = Parameter(Tensor(W0), "w0b")
            send = ops.Send(sr_tag=4, dest_rank=1)

            def side(x):
                y = ops.tanh(ops.matmul(x, w0))
                return ops.depend(y.sum(), send(y))

            _, (g,) = ms.value_and_grad(side, None, [w0])(Tensor(X))
            out["side"] = g.asnumpy().tolist()
        else:
            ms.set_context(mode=ms.PYNATIVE_MODE)
            w1 = Parameter(Tensor(W1), "w1b")
            recv = ops.Receive(sr_tag=4, src_rank=0, shape=(4, 5), dtype=ms.float64)
            _, (g,) = ms.value_and_grad(lambda x: (ops.matmul(recv(), w1) ** 2).sum(), None,
                                        [w1])(Tensor(X))
    except Exception:
        out["error"] = traceback.format_exc()
    release()
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump(out, f)
""")


def serial():
    rng = np.random.default_rng(5)
    X, W0, W1 = (rng.standard_normal(s) for s in ((4, 3), (3, 5), (5, 2)))
    h = np.tanh(X @ W0)
    y = h @ W1
    dy = 2 * y
    dh = dy @ W1.T
    return (y ** 2).sum(), X.T @ (dh * (1 - h ** 2)), h.T @ dy, X.T @ ((1 + dh) * (1 - h ** 2))


@pytest.mark.parametrize("backend", ["gloo", "mpi"])
def test_send_and_receive_gradients_equal_the_serial_network(tmp_path, backend):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    runs = run_gloo(script, 2, [tmp_path]) if backend == "gloo" else run_mpi(script, 2, [tmp_path])
    for code, text in runs:
        assert code == 0, text
    r0, r1 = (json.loads((tmp_path / f"result_{r}.json").read_text()) for r in range(2))
    assert "error" not in r0, r0["error"]
    assert "error" not in r1, r1["error"]
    loss, dw0, dw1, dside = serial()
    for mode in ("graph", "pynative"):
        np.testing.assert_allclose(r0[mode], dw0, rtol=1e-12, atol=1e-12, err_msg=mode)
        np.testing.assert_allclose(r1[mode][0], loss, rtol=1e-12, err_msg=mode)
        np.testing.assert_allclose(r1[mode][1], dw1, rtol=1e-12, atol=1e-12, err_msg=mode)
    # d(sum(y) + rank 1's loss)/dW0: the token takes no gradient, x takes the received one.
    np.testing.assert_allclose(r0["side"], dside, rtol=1e-12, atol=1e-12)

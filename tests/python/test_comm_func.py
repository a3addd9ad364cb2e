"""mycel.communication.comm_func on real ranks (Gloo and MPI at 2 and 4 processes): every
function against numpy, synchronous and with async_op=True (handles waited out of order,
a synchronous call issued behind queued ones), isend/irecv in pairs, barrier; and the
errors of bad arguments."""
import json
import textwrap

import numpy as np
import pytest

import mycel as ms
from distributed import run_gloo, run_mpi

WORKER = textwrap.dedent("""
    import json, sys, traceback
    import numpy as np
    import mycel as ms
    from mycel.communication import init, release, get_rank, get_group_size, comm_func as cf

    import os
    os.environ["MYCEL_COMM_TIMEOUT"] = "30"  # a deadlock fails in 30 s, not 600
    init()
    r, n = get_rank(), get_group_size()
    fails = []

    def data(shape, seed, dtype=np.float32):
        return [np.random.default_rng(100 * seed + i).standard_normal(shape).astype(dtype)
                for i in range(n)]

    def check(name, got, want, tol=1e-5):
        got = got.asnumpy()
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            fails.append(f"{name}: got {got.tolist()} want {want.tolist()}")

    try:
        X = data((4, 6), 1)
        S = np.stack(X)
        out, h = cf.all_reduce(ms.Tensor(X[r]))
        check("all_reduce", out, S.sum(0), 1e-4)
        assert h is None
        out, h = cf.all_reduce(ms.Tensor(X[r]), "max")
        check("all_reduce max", out, S.max(0))
        # Several queued, then one synchronous behind them, waited in reverse order.
        queued = [cf.all_reduce(ms.Tensor(X[r] * (k + 1)), async_op=True) for k in range(4)]
        gathered, hg = cf.all_gather_into_tensor(ms.Tensor(X[r]), async_op=True)
        scattered, hs = cf.reduce_scatter_tensor(ms.Tensor(X[r]), async_op=True)
        sync, _ = cf.all_reduce(ms.Tensor(X[r]), "min")
        check("sync behind queued", sync, S.min(0))
        for k, (o, hk) in reversed(list(enumerate(queued))):
            hk.wait()
            assert hk.is_completed()
            check(f"async all_reduce {k}", o, S.sum(0) * (k + 1), 1e-4)
        hs.wait()
        hg.wait()
        check("async all_gather_into_tensor", gathered, np.concatenate(X))
        k = 4 // n
        check("async reduce_scatter_tensor", scattered, S.sum(0)[k * r:k * r + k], 1e-4)
        out, _ = cf.all_gather_into_tensor(ms.Tensor(X[r].astype(np.int32)))
        check("all_gather int32", out, np.concatenate([x.astype(np.int32) for x in X]))
        check("broadcast", cf.broadcast(ms.Tensor(X[r]), src=n - 1), X[n - 1])
        cf.barrier()
        # Pairs: even ranks send first, odd ones receive first (ranks 0<->1, 2<->3).
        peer = r + 1 if r % 2 == 0 else r - 1
        buf = ms.Tensor(np.zeros((3, 5), np.float32))
        Y = data((3, 5), 2)
        if r % 2 == 0:
            hs = cf.isend(ms.Tensor(Y[r]), dst=peer, tag=7)
            got, hr = cf.irecv(buf, src=peer, tag=8)
        else:
            got, hr = cf.irecv(buf, src=peer, tag=7)
            hs = cf.isend(ms.Tensor(Y[r]), dst=peer, tag=8)
        hr.wait()
        hs.wait()
        check("isend/irecv", got, Y[peer])
        if r % 2 == 0:
            cf.send(ms.Tensor(Y[r] * 2), dst=peer)
        else:
            check("send/recv", cf.recv(buf, src=peer), Y[peer] * 2)
        # Unpaired orders, as other frameworks allow: a receive or send waiting for its peer
        # does not hold up this rank's other communication. A ring shift with every rank
        # receiving first, then sending first; then a send left waiting across a collective.
        nxt, prv = (r + 1) % n, (r - 1) % n
        Z = data((70, 1000), 3)  # 280 KB: beyond eager-send buffering
        got, hr = cf.irecv(ms.Tensor(np.zeros((70, 1000), np.float32)), src=prv, tag=11)
        hs = cf.isend(ms.Tensor(Z[r]), dst=nxt, tag=11)
        hs.wait()
        hr.wait()
        check("ring shift, receives first", got, Z[prv])
        hs = cf.isend(ms.Tensor(Z[r] + 1), dst=nxt, tag=12)
        got, hr = cf.irecv(ms.Tensor(np.zeros((70, 1000), np.float32)), src=prv, tag=12)
        hr.wait()
        hs.wait()
        check("ring shift, sends first", got, Z[prv] + 1)
        if r == 0:
            hs = cf.isend(ms.Tensor(Z[0]), dst=1, tag=13)
            out, _ = cf.all_reduce(ms.Tensor(X[r]))
            hs.wait()
        else:
            out, _ = cf.all_reduce(ms.Tensor(X[r]))
            if r == 1:
                got = cf.recv(ms.Tensor(np.zeros((70, 1000), np.float32)), src=0, tag=13)
                check("send across a collective", got, Z[0])
        check("collective beside a waiting send", out, S.sum(0), 1e-4)
    except Exception:
        fails.append(traceback.format_exc())
    release()
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump({"rank": r, "fails": fails}, f)
""")


@pytest.mark.parametrize("backend,n", [("gloo", 2), ("gloo", 4), ("mpi", 2), ("mpi", 4)])
def test_comm_func_matches_numpy_sync_and_async(tmp_path, backend, n):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    runs = run_gloo(script, n, [tmp_path]) if backend == "gloo" else run_mpi(script, n, [tmp_path])
    for code, text in runs:
        assert code == 0, text
    res = [json.loads((tmp_path / f"result_{r}.json").read_text()) for r in range(n)]
    for x in res:
        assert x["fails"] == [], f"rank {x['rank']}:\n" + "\n".join(x["fails"])


def test_bad_arguments():
    from mycel.communication import comm_func as cf
    with pytest.raises(TypeError, match="For 'all_reduce', the input must be a Tensor"):
        cf.all_reduce([1.0])
    with pytest.raises(TypeError, match="'async_op' must be a bool"):
        cf.all_reduce(ms.Tensor(np.ones(2, np.float32)), async_op=1)
    with pytest.raises(RuntimeError, match="not initialized"):
        cf.all_gather_into_tensor(ms.Tensor(np.ones(2, np.float32)))

"""The collective primitives (ops.AllReduce, AllGather, ReduceScatter, AlltoAll, Broadcast,
Send, Receive, Barrier) on real ranks, Gloo and MPI at 2 and 4 processes, in PYNATIVE and GRAPH
mode: outputs against numpy (every rank draws every rank's data, so each knows the answer),
and gradients against analytic values (a rank's input feeds every rank's loss, so its
gradient sums over the ranks' weights). Also the errors of a process outside a job, and a
GRAPH-mode collective running on the communication queue while the graph goes on."""
import json
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import ops
from distributed import run_gloo, run_mpi

# The ops whose gradients the worker checks (test_grad_ops.py counts them as covered).
GRAD_CHECKED = ("AllReduce", "AllGather", "ReduceScatter", "AlltoAll", "Broadcast")

WORKER = textwrap.dedent("""
    import json, os, sys, time, traceback, warnings
    warnings.filterwarnings("error", message=".*JIT fallback")  # graph code must compile
    import numpy as np
    import mycel as ms
    from mycel import ops, nn
    from mycel.communication import init, release, get_rank, get_group_size, create_group

    init()
    r, n = get_rank(), get_group_size()
    fails = []

    def data(shape, seed):
        return [np.random.default_rng(100 * seed + i).standard_normal(shape).astype(np.float32)
                for i in range(n)]

    def check(name, got, want, tol=1e-5):
        got = got.asnumpy()
        if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
            fails.append(f"{name}: got {got.tolist()} want {want.tolist()}")

    class Weighted(nn.Cell):
        # sum(op(x) * w): its gradient is the op's vector-Jacobian product with w.
        def __init__(self, op, w):
            super().__init__()
            self.op, self.w = op, ms.Tensor(w)

        def construct(self, x):
            return (self.op(x) * self.w).sum()

    def grad_of(op, x, w):
        return ms.grad(Weighted(op, w))(ms.Tensor(x))

    def a2a(xs, split, concat):  # every rank's AlltoAll output, from every rank's input
        return [np.concatenate([np.split(xs[i], n, axis=split)[j] for i in range(n)], axis=concat)
                for j in range(n)]

    class FirstOf(nn.Cell):  # the first output of a tuple op on (x,)
        def __init__(self, op):
            super().__init__()
            self.op = op

        def construct(self, x):
            return self.op((x,))[0]

    class SendRecv(nn.Cell):
        def __init__(self, shape):
            super().__init__()
            self.send = ops.Send(sr_tag=5, dest_rank=r + 1)
            self.recv = ops.Receive(sr_tag=5, src_rank=r - 1, shape=shape, dtype=ms.float32)
            self.depend = ops.Depend()

        def construct(self, x):
            if r % 2 == 0:
                return self.depend(x, self.send(x))
            return self.recv()

    class BarrierCell(nn.Cell):
        def __init__(self):
            super().__init__()
            self.barrier = ops.Barrier()

        def construct(self):
            return self.barrier()

    def run(mode):
        ms.set_context(mode=mode)
        m = "graph" if mode == ms.GRAPH_MODE else "pynative"
        X, W = data((4, 8), 1), data((4, 8), 2)
        S, P = np.stack(X), np.sum(W, axis=0)
        for op, want in (("sum", S.sum(0)), ("max", S.max(0)), ("min", S.min(0)),
                         ("prod", S.prod(0))):
            check(f"{m} AllReduce {op}", ops.AllReduce(op)(ms.Tensor(X[r])), want, 1e-4)
        check(f"{m} AllReduce sum grad", grad_of(ops.AllReduce(), X[r], W[r]), P)
        check(f"{m} AllReduce max grad", grad_of(ops.AllReduce("max"), X[r], W[r]),
              P * (X[r] == S.max(0)))
        check(f"{m} AllReduce prod grad", grad_of(ops.AllReduce("prod"), X[r], W[r]),
              P * S.prod(0) / X[r], 1e-3)
        check(f"{m} AllGather", ops.AllGather()(ms.Tensor(X[r])), np.concatenate(X))
        WG = data((4 * n, 8), 3)
        check(f"{m} AllGather grad", grad_of(ops.AllGather(), X[r], WG[r]),
              sum(w[4 * r:4 * r + 4] for w in WG))
        k = 4 // n
        check(f"{m} ReduceScatter", ops.ReduceScatter()(ms.Tensor(X[r])),
              S.sum(0)[k * r:k * r + k], 1e-4)
        check(f"{m} ReduceScatter max", ops.ReduceScatter("max")(ms.Tensor(X[r])),
              S.max(0)[k * r:k * r + k])
        WS = data((k, 8), 4)
        check(f"{m} ReduceScatter grad", grad_of(ops.ReduceScatter(), X[r], WS[r]),
              np.concatenate(WS))
        for split, concat in ((1, 0), (0, 1), (1, 1)):
            A = ops.AlltoAll(n, split, concat)
            check(f"{m} AlltoAll {split},{concat}", A(ms.Tensor(X[r])), a2a(X, split, concat)[r])
            WA = a2a(data((4, 8), 5), split, concat)  # shaped as the outputs
            check(f"{m} AlltoAll {split},{concat} grad", grad_of(A, X[r], WA[r]),
                  a2a(WA, concat, split)[r])
        b = ops.Broadcast(1)((ms.Tensor(X[r]), ms.Tensor(W[r])))
        check(f"{m} Broadcast 0", b[0], X[1])
        check(f"{m} Broadcast 1", b[1], W[1])
        # Only the root's x reaches the outputs: its gradient sums every rank's weights.
        check(f"{m} Broadcast grad", grad_of(FirstOf(ops.Broadcast(1)), X[r], W[r]),
              P if r == 1 else np.zeros_like(P))
        got = SendRecv((4, 8))(ms.Tensor(X[r]))
        check(f"{m} Send/Receive", got, X[r] if r % 2 == 0 else X[r - 1])
        check(f"{m} AllGather rev", ops.AllGather("rev")(ms.Tensor(X[r])),
              np.concatenate(X[::-1]))
        # Barrier: rank n-1 writes a file late; every rank finds it after the barrier.
        flag = os.path.join(sys.argv[1], f"barrier_{m}")
        if r == n - 1:
            time.sleep(0.5)
            open(flag, "w").close()
        BarrierCell()() if mode == ms.GRAPH_MODE else ops.Barrier()()
        if not os.path.exists(flag):
            fails.append(f"{m} Barrier: returned before rank {n - 1} reached it")

    try:
        create_group("rev", list(range(n))[::-1])
        for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
            run(mode)
    except Exception:
        fails.append(traceback.format_exc())
    release()
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump({"rank": r, "size": n, "fails": fails}, f)
""")


def test_worker_checks_the_gradient_of_each_grad_checked_op():
    lines = [ln for ln in WORKER.splitlines() if "grad_of(" in ln or " grad\"" in ln]
    for op in GRAD_CHECKED:
        assert any(f"{{m}} {op}" in ln and " grad\"" in ln for ln in lines), op


def _check(runs, folder, n):
    for code, text in runs:
        assert code == 0, text
    res = [json.loads(p.read_text()) for p in sorted(folder.glob("result_*.json"))]
    assert sorted(x["rank"] for x in res) == list(range(n))
    for x in res:
        assert x["size"] == n
        assert x["fails"] == [], f"rank {x['rank']}:\n" + "\n".join(x["fails"])


@pytest.mark.parametrize("backend,n", [("gloo", 2), ("gloo", 4), ("mpi", 2), ("mpi", 4)])
def test_collectives_match_numpy_in_both_modes(tmp_path, backend, n):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    runs = run_gloo(script, n, [tmp_path]) if backend == "gloo" else run_mpi(script, n, [tmp_path])
    _check(runs, tmp_path, n)


def test_outside_a_job_collectives_name_init():
    x = ms.Tensor(np.ones((2, 2), np.float32))
    with pytest.raises(RuntimeError, match=r"For 'AllReduce', the communication is not "
                                           r"initialized: call mycel.communication.init"):
        ops.AllReduce()(x)
    for make in (ops.AllGather, ops.ReduceScatter, lambda: ops.AlltoAll(2, 0, 0)):
        with pytest.raises(RuntimeError, match="not initialized"):
            make()


def test_bad_arguments_are_typed_errors():
    with pytest.raises(TypeError, match="For 'AllReduce', the 'group' must be a str"):
        ops.AllReduce(group=3)
    with pytest.raises(TypeError, match="For 'Send', the 'dest_rank' must be an int"):
        ops.Send(0, "1")
    with pytest.raises(ValueError, match="For 'AllReduce', the 'op' must be one of"):
        ops.AllReduce("mean")(ms.Tensor(np.ones(2, np.float32)))


MISMATCH = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import ops
    from mycel.communication import init, release, get_rank

    init()
    r = get_rank()
    errors = {}

    def attempt(name, fn):
        try:
            fn()
            errors[name] = None
        except ValueError as e:
            errors[name] = str(e)

    attempt("shape", lambda: ops.AllReduce()(ms.Tensor(np.ones(4 if r == 0 else 6, np.float32))))
    attempt("dtype", lambda: ops.AllGather()(ms.Tensor(np.ones(3, np.float32 if r == 0 else np.int32))))
    attempt("op", lambda: (ops.AllReduce() if r == 0 else ops.AllGather())(
        ms.Tensor(np.ones(3, np.float32))))
    if r == 0:
        attempt("p2p", lambda: ops.Send(4, 1)(ms.Tensor(np.ones((2, 3), np.float32))))
    else:
        attempt("p2p", lambda: ops.Receive(4, 0, (5,), ms.float32)())
    out = ops.AllReduce()(ms.Tensor(np.ones(2, np.float32)))  # the job goes on
    errors["after"] = out.asnumpy().tolist()
    release()
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump(errors, f)
""")


@pytest.mark.parametrize("backend", ["gloo", "mpi"])
def test_ranks_that_disagree_on_a_call_get_a_value_error_naming_each(tmp_path, backend):
    script = tmp_path / "worker.py"
    script.write_text(MISMATCH)
    env = {"MYCEL_COMM_TIMEOUT": "60"}
    runs = (run_gloo(script, 2, [tmp_path], env=env) if backend == "gloo"
            else run_mpi(script, 2, [tmp_path], env=env))
    for code, text in runs:
        assert code == 0, text
    res = [json.loads((tmp_path / f"result_{r}.json").read_text()) for r in range(2)]
    for e in res:
        assert "rank 0 called AllReduce(Float32[4]); rank 1 called AllReduce(Float32[6])" in \
            e["shape"]
        assert "rank 0 called AllGather(Float32[3]); rank 1 called AllGather(Int32[3])" in \
            e["dtype"]
        assert "rank 0 called AllReduce(Float32[3]); rank 1 called AllGather(Float32[3])" in \
            e["op"]
        assert e["after"] == [2.0, 2.0]
    assert res[0]["p2p"] is None  # the sender is not left waiting
    assert "rank 0 of group 'hccl_world_group' sent Send(Float32[2, 3]) but this rank (1) " \
           "expects Receive(Float32[5])" in res[1]["p2p"]


def test_mycel_comm_check_0_skips_the_check_and_computes_the_same(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    runs = run_gloo(script, 2, [tmp_path], env={"MYCEL_COMM_CHECK": "0"})
    _check(runs, tmp_path, 2)


DTYPES = textwrap.dedent("""
    import json, sys, traceback
    import numpy as np
    import mycel as ms
    from mycel import ops
    from mycel.communication import init, release, get_rank, get_group_size

    init()
    r, n = get_rank(), get_group_size()
    fails = []

    def data(shape, dtype, seed):
        rng = np.random.default_rng(1000 * seed + 7)
        out = []
        for i in range(n):
            if dtype == np.bool_:
                out.append(rng.random(shape) < 0.5)
            elif np.issubdtype(dtype, np.integer):
                out.append(rng.integers(-9, 10, shape).astype(dtype))
            else:
                out.append(rng.standard_normal(shape).astype(dtype))
        return out

    def check(name, got, want):
        got = got.asnumpy()
        tol = 2e-2 if want.dtype == np.float16 else 1e-5
        ok = got.shape == want.shape and got.dtype == want.dtype and (
            np.array_equal(got, want) if want.dtype.kind in "biu" else
            np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol))
        if not ok:
            fails.append(f"{name}: got {got.dtype}{got.shape} {got.ravel()[:6]} "
                         f"want {want.dtype}{want.shape} {want.ravel()[:6]}")

    def reduce(xs, op, dtype):
        s = np.stack(xs)
        if dtype == np.bool_:
            return s.any(0) if op in ("sum", "max") else s.all(0)
        f = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}[op]
        return f(s, axis=0).astype(dtype)   # integers wrap as the dtype does

    try:
        for dtype in (np.float32, np.float64, np.float16, np.int8, np.uint8, np.int16, np.int32,
                      np.int64, np.bool_):
            name = np.dtype(dtype).name
            # (1200,): above the 1024 bytes the call check carries (the library's collectives)
            for shape in ((7,), (), (0, 3), (2, 5, 3), (1200,)):
                X = data(shape, dtype, len(shape))
                for op in ("sum", "max", "min", "prod"):
                    check(f"AllReduce {op} {name}{shape}", ops.AllReduce(op)(ms.Tensor(X[r])),
                          reduce(X, op, dtype))
                check(f"Broadcast {name}{shape}", ops.Broadcast(n - 1)((ms.Tensor(X[r]),))[0],
                      X[n - 1])
                if shape:
                    check(f"AllGather {name}{shape}", ops.AllGather()(ms.Tensor(X[r])),
                          np.concatenate(X))
            X = data((3 * n, 5), dtype, 9)
            for op in ("sum", "max", "min", "prod"):
                k = 3
                check(f"ReduceScatter {op} {name}", ops.ReduceScatter(op)(ms.Tensor(X[r])),
                      reduce(X, op, dtype)[k * r:k * r + k])
            Y = data((n, 3 * n), dtype, 10)
            want = np.concatenate([np.split(Y[i], n, axis=1)[r] for i in range(n)], axis=0)
            check(f"AlltoAll {name}", ops.AlltoAll(n, 1, 0)(ms.Tensor(Y[r])), want)
            E = data((3 * n, 0), dtype, 11)  # empty blocks
            check(f"ReduceScatter sum {name}(3n, 0)", ops.ReduceScatter()(ms.Tensor(E[r])),
                  np.zeros((3, 0), dtype))
            check(f"AlltoAll {name}(0, 3n)", ops.AlltoAll(n, 1, 0)(ms.Tensor(E[r].T)),
                  np.zeros((0, 3), dtype))
            # Send/Receive in pairs (0 -> 1, 2 -> 3): odd, 0-d and empty shapes
            for shape in ((7,), (), (0, 3), (2, 5, 3)):
                X = data(shape, dtype, 20 + len(shape))
                if r % 2 == 0:
                    ops.Send(sr_tag=len(shape), dest_rank=r + 1)(ms.Tensor(X[r]))
                else:
                    got = ops.Receive(sr_tag=len(shape), src_rank=r - 1, shape=shape,
                                      dtype=ms.Tensor(X[r]).dtype)()
                    check(f"Send/Receive {name}{shape}", got, X[r - 1])
        # bfloat16 has no numpy dtype (asnumpy gives float32): inputs exact in bfloat16,
        # results within its precision (sums and products round once per step).
        bf16 = lambda a: ms.Tensor(a).astype(ms.bfloat16)
        for shape in ((7,), (), (0, 3), (1200,)):
            X = [bf16(x).asnumpy() for x in data(shape, np.float32, 30 + len(shape))]
            for op in ("sum", "max", "min", "prod"):
                y = ops.AllReduce(op)(bf16(X[r]))
                want = reduce([x.astype(np.float64) for x in X], op, np.float64)
                if y.dtype != ms.bfloat16 or not np.allclose(y.asnumpy(), want, rtol=3e-2,
                                                             atol=3e-2):
                    fails.append(f"AllReduce {op} bfloat16{shape}: {y.dtype} "
                                 f"{y.asnumpy().ravel()[:6]} want {want.ravel()[:6]}")
            for what, y, want in (
                    ("Broadcast", ops.Broadcast(n - 1)((bf16(X[r]),))[0], X[n - 1]),
                    ("AllGather", ops.AllGather()(bf16(X[r])) if shape else None,
                     np.concatenate(X) if shape else None)):
                if y is not None and (y.dtype != ms.bfloat16 or
                                      not np.array_equal(y.asnumpy(), want)):
                    fails.append(f"{what} bfloat16{shape}: {y.asnumpy().ravel()[:6]}")
        Y = [bf16(y).asnumpy() for y in data((n, 3 * n), np.float32, 40)]
        want = np.concatenate([np.split(Y[i], n, axis=1)[r] for i in range(n)], axis=0)
        y = ops.AlltoAll(n, 1, 0)(bf16(Y[r]))
        if y.dtype != ms.bfloat16 or not np.array_equal(y.asnumpy(), want):
            fails.append(f"AlltoAll bfloat16: {y.asnumpy().ravel()[:6]}")
    except Exception:
        fails.append(traceback.format_exc())
    release()
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump({"rank": r, "size": n, "fails": fails}, f)
""")


@pytest.mark.parametrize("backend,n", [("gloo", 2), ("gloo", 4), ("mpi", 2), ("mpi", 4)])
def test_every_dtype_odd_0d_and_empty_shapes_match_numpy(tmp_path, backend, n):
    script = tmp_path / "worker.py"
    script.write_text(DTYPES)
    runs = run_gloo(script, n, [tmp_path]) if backend == "gloo" else run_mpi(script, n, [tmp_path])
    _check(runs, tmp_path, n)


ASYNC = textwrap.dedent("""
    import json, sys
    import numpy as np
    import mycel as ms
    from mycel import nn, ops
    from mycel.communication import init, release, get_rank

    init()
    r = get_rank()
    ms.set_context(mode=ms.GRAPH_MODE)

    class Step(nn.Cell):  # rank 0: its AllReduce, then (collectives keep their order) a Send
        def __init__(self):
            super().__init__()
            self.allreduce = ops.AllReduce()
            self.send = ops.Send(sr_tag=1, dest_rank=1)

        def construct(self, x):
            return self.allreduce(x), self.send(x * 2)

    x = ms.Tensor(np.full(3, r + 1.0, np.float32))
    if r == 0:
        got = {"y": Step()(x)[0].asnumpy().tolist()}
    else:  # rank 1 joins the AllReduce only once rank 0's Send has arrived
        z = ops.Receive(sr_tag=1, src_rank=0, shape=(3,), dtype=ms.float32)()
        got = {"z": z.asnumpy().tolist(), "y": ops.AllReduce()(x).asnumpy().tolist()}
    release()
    with open(f"{sys.argv[1]}/result_{r}.json", "w") as f:
        json.dump(got, f)
""")


def test_in_graph_mode_a_collective_runs_while_the_graph_goes_on(tmp_path):
    # Rank 0's compiled step issues an AllReduce and then a Send; rank 1 receives before it
    # joins the AllReduce. Run where it stands, rank 0's AllReduce would wait for rank 1,
    # which waits for the Send: both would fail after the timeout. Queued on the
    # communication queue, it lets the graph go on to the Send.
    script = tmp_path / "worker.py"
    script.write_text(ASYNC)
    for code, text in run_gloo(script, 2, [tmp_path], timeout=120,
                               env={"MYCEL_COMM_TIMEOUT": "20"}):
        assert code == 0, text
    got = [json.loads((tmp_path / f"result_{r}.json").read_text()) for r in range(2)]
    assert got[0]["y"] == [3.0] * 3 and got[1]["y"] == [3.0] * 3, got
    assert got[1]["z"] == [2.0] * 3, got

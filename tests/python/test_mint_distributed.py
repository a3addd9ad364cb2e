"""mycel.mint.distributed (torch.distributed names) on a real 2-process Gloo job: the
collectives write into their tensors (sync and async), against numpy; new_group; send/recv;
argument checks."""
import textwrap

from distributed import run_gloo

WORKER = textwrap.dedent("""
    import os
    import numpy as np
    import mycel as ms
    from mycel.mint import distributed as dist

    os.environ["MYCEL_COMM_TIMEOUT"] = "30"
    dist.init_process_group("gloo", world_size=2)
    assert dist.is_initialized()
    r, n = dist.get_rank(), dist.get_world_size()
    base = [np.arange(6, dtype=np.float32).reshape(2, 3) * (k + 1) for k in range(n)]

    def close(t, want):
        assert np.allclose(t.asnumpy(), want), (t.asnumpy(), want)

    t = ms.Tensor(base[r].copy())
    assert dist.all_reduce(t) is None
    close(t, sum(base))
    t = ms.Tensor(base[r].copy())
    work = dist.all_reduce(t, dist.ReduceOp.MAX, async_op=True)
    work.wait()
    close(t, np.maximum(*base))
    out = ms.Tensor(np.zeros((4, 3), np.float32))
    dist.all_gather_into_tensor(out, ms.Tensor(base[r]))
    close(out, np.concatenate(base))
    parts = [ms.Tensor(np.zeros((2, 3), np.float32)) for _ in range(n)]
    dist.all_gather(parts, ms.Tensor(base[r]))
    for k in range(n):
        close(parts[k], base[k])
    half = ms.Tensor(np.zeros((1, 3), np.float32))
    dist.reduce_scatter_tensor(half, ms.Tensor(base[r]))
    close(half, sum(base)[r:r + 1])
    b = ms.Tensor(base[r].copy())
    dist.broadcast(b, src=1)
    close(b, base[1])
    g = dist.new_group([0, 1])
    assert dist.get_world_size(g) == 2 and dist.get_rank(g) == r
    t = ms.Tensor(base[r].copy())
    dist.all_reduce(t, group=g)
    close(t, sum(base))
    if r == 0:
        dist.send(ms.Tensor(base[0] + 100), dst=1)
    else:
        got = ms.Tensor(np.zeros((2, 3), np.float32))
        assert dist.recv(got, src=0) == 0
        close(got, base[0] + 100)
    try:
        dist.all_gather([t], t)
        raise AssertionError("no error")
    except ValueError as e:
        assert "tensor_list" in str(e)
    dist.barrier()
    dist.destroy_process_group()
    print("OK")
""")


def test_mint_distributed_two_ranks(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    for rc, out in run_gloo(script, 2, timeout=180):
        assert rc == 0 and "OK" in out, out


def test_init_refuses_other_rendezvous():
    import pytest
    from mycel.mint import distributed as dist
    with pytest.raises(ValueError, match="init_method"):
        dist.init_process_group(init_method="tcp://127.0.0.1:1234")
    with pytest.raises(RuntimeError, match="not initialized"):
        dist.get_backend()

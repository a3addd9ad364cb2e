"""mycel.set_deterministic on the GPU: the ops whose CUDA kernels sum floats with atomics
(UnsortedSegmentSum, ScatterNd, GatherDGrad) run on the host with copies in deterministic
mode, so repeated runs give the same bits, equal to the CPU's; with the mode off they stay
within float32 rounding of the CPU (the order of atomic adds varies), in both modes."""
import numpy as np
import pytest

import mycel as ms
from mycel import ops


def _inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20000, 16)).astype(np.float32)
    ids = rng.integers(0, 7, 20000).astype(np.int32)
    idx = rng.integers(0, 50, (30000, 1)).astype(np.int32)
    upd = rng.standard_normal((30000, 4)).astype(np.float32)
    return x, ids, idx, upd


def _run(device, mode):
    ms.set_context(device_target=device, mode=mode)
    x, ids, idx, upd = _inputs()

    @ms.jit
    def f(a, b, i, u):
        return ops.unsorted_segment_sum(a, b, 7), ops.scatter_nd(i, u, (50, 4))

    return [t.asnumpy() for t in f(ms.Tensor(x), ms.Tensor(ids), ms.Tensor(idx), ms.Tensor(upd))]


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_deterministic_mode_gives_the_cpu_bits_on_every_run(mode):
    cpu = _run("CPU", mode)
    try:
        ms.set_deterministic(True)
        runs = [_run("GPU", mode) for _ in range(3)]
    finally:
        ms.set_deterministic(False)
    for got in runs:
        for a, b in zip(got, cpu):
            assert np.array_equal(a, b)
    free = _run("GPU", mode)
    for a, b in zip(free, cpu):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-3)

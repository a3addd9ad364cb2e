"""RandomPoisson on the GPU (kernels/cuda/random.cu): the CPU's sampler (base/poisson_draw.h)
on the CPU's Philox streams, so the counts equal the CPU's bit for bit, in every output dtype,
for rates on both sides of the method switch at 10 and rates with no count; in both modes; and
inside a captured step (jit_level "O2") a replay draws new counts, equal to op by op's."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor
from mycel.ops import operations as P

_RATES = np.array([0.0, 0.3, 2.5, 9.99, 10.0, 17.0, 250.0, 4000.0, 1e7, -1.0, np.inf, np.nan])


def _draw(device, mode, dtype, rate_dtype=np.float64):
    ms.set_context(device_target=device, mode=mode)
    p = P.RandomPoisson(seed=7, seed2=9, dtype=dtype)
    shape = Tensor(np.array([300], np.int64))  # known at compile time in graph mode

    def f(r):
        return p(shape, r)

    rate = Tensor(_RATES.astype(rate_dtype))
    out = ms.jit(f)(rate) if mode == ms.GRAPH_MODE else f(rate)
    assert out.device == ("GPU:0" if device == "GPU" else "CPU")
    return out.asnumpy()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dtype", [ms.int64, ms.int32, ms.float32, ms.float64, ms.float16])
def test_counts_equal_the_cpu_bit_for_bit(mode, dtype):
    got, want = _draw("GPU", mode, dtype), _draw("CPU", mode, dtype)
    assert got.dtype == want.dtype and got.shape == want.shape == (300, len(_RATES))
    assert got.tobytes() == want.tobytes()


def test_float32_rates_equal_the_cpu():
    got = _draw("GPU", ms.PYNATIVE_MODE, ms.int64, np.float32)
    want = _draw("CPU", ms.PYNATIVE_MODE, ms.int64, np.float32)
    np.testing.assert_array_equal(got, want)


def test_a_captured_step_draws_as_op_by_op():
    ms.set_context(device_target="GPU", mode=ms.GRAPH_MODE)
    p = P.RandomPoisson(dtype=ms.float32)
    shape = Tensor(np.array([64], np.int64))  # a constant of the step: a static output shape

    def step(rate):
        return p(shape, rate) * 2

    rate = Tensor(np.array([3.0, 40.0], np.float32))
    ms.set_seed(3)
    eager = ms.jit(step, jit_level="O0")
    a = [eager(rate).asnumpy() for _ in range(4)]
    ms.set_seed(3)
    graph = ms.jit(step, jit_level="O2")
    b = [graph(rate).asnumpy() for _ in range(4)]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(b[2], b[3])  # each replay draws anew
    s = graph._graph.capture_stats()
    assert s["captures"] == 1 and s["fallbacks"] == 0, s

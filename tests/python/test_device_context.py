"""mycel.device_context without a GPU (make test): the backends' device queries and the GPU's
op_precision switches (matmul_allow_tf32, conv_allow_tf32), which every build records in the
C++ device context and which leave CPU results unchanged. Their effect on the GPU's kernels is
checked in tests/gpu/test_gpu_tf32.py."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops
from mycel import _mycel as _C
from mycel.device_context.gpu import op_precision


@pytest.fixture(autouse=True)
def _switches_off_after():
    yield
    op_precision.matmul_allow_tf32(False)
    op_precision.conv_allow_tf32(False)
    ms.set_context(mode=ms.PYNATIVE_MODE)


def test_device_queries_agree_with_hal():
    assert ms.device_context.cpu.device_count() == 1
    assert ms.device_context.cpu.is_available()
    assert ms.device_context.gpu.device_count() == ms.hal.device_count("GPU")
    assert ms.device_context.gpu.is_available() == ms.hal.is_available("GPU")


def test_switches_default_off_and_are_recorded_in_the_device_context():
    assert not op_precision.is_matmul_allow_tf32()
    assert not op_precision.is_conv_allow_tf32()
    op_precision.matmul_allow_tf32(True)
    # What the GPU kernels read (tensor/op_precision.h), not a Python-side copy.
    assert _C._op_precision("GPU") == {"matmul_allow_tf32": True, "conv_allow_tf32": False}
    assert op_precision.is_matmul_allow_tf32()
    op_precision.conv_allow_tf32(True)
    assert _C._op_precision("GPU") == {"matmul_allow_tf32": True, "conv_allow_tf32": True}
    op_precision.matmul_allow_tf32(False)
    assert _C._op_precision("GPU") == {"matmul_allow_tf32": False, "conv_allow_tf32": True}
    assert op_precision.is_conv_allow_tf32() and not op_precision.is_matmul_allow_tf32()
    # The CPU's switches are separate and untouched.
    assert _C._op_precision("CPU") == {"matmul_allow_tf32": False, "conv_allow_tf32": False}


@pytest.mark.parametrize("fn", [op_precision.matmul_allow_tf32, op_precision.conv_allow_tf32])
@pytest.mark.parametrize("bad", [1, 0, "True", None, np.bool_(True)])
def test_a_non_bool_is_a_type_error(fn, bad):
    with pytest.raises(TypeError, match=f"For '{fn.__name__}', the type of 'value' must be bool"):
        fn(bad)
    assert _C._op_precision("GPU") == {"matmul_allow_tf32": False, "conv_allow_tf32": False}


def test_bad_target_or_name_in_the_binding_is_a_value_error():
    with pytest.raises(ValueError, match="device_target must be 'CPU' or 'GPU'"):
        _C._set_op_precision("Ascend", "matmul_allow_tf32", True)
    with pytest.raises(ValueError, match="op_precision has 'matmul_allow_tf32'"):
        _C._set_op_precision("GPU", "matmul_allow_fp8", True)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.fc = nn.Dense(4 * 6 * 6, 5)

    def construct(self, x):
        return self.fc(ops.reshape(self.conv(x), (x.shape[0], -1)))


def _run(mode):
    ms.set_context(mode=mode)
    ms.set_seed(2)
    net = _Net()
    x = Tensor(np.random.RandomState(0).randn(2, 3, 6, 6).astype(np.float32))
    y = net(x)
    a = Tensor(np.random.RandomState(1).randn(7, 33).astype(np.float32))
    b = Tensor(np.random.RandomState(2).randn(33, 5).astype(np.float32))
    return y.asnumpy(), ops.matmul(a, b).asnumpy(), a.asnumpy(), b.asnumpy()


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_cpu_results_do_not_change_with_the_switches_on(mode):
    y0, m0, a, b = _run(mode)
    op_precision.matmul_allow_tf32(True)
    op_precision.conv_allow_tf32(True)
    y1, m1, _, _ = _run(mode)
    np.testing.assert_array_equal(y1, y0)
    np.testing.assert_array_equal(m1, m0)
    # And they are float32 results (the CPU never uses TF32): within float32 of float64.
    np.testing.assert_allclose(m1, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5,
                               atol=1e-5)

"""F.mixed_precision_cast (MindSpore's ops.functional): every floating-point Tensor of a value
(nested tuples and lists too) cast to the given dtype, other values unchanged; the same in
GRAPH and PYNATIVE mode; values checked against numpy's casts."""
import numpy as np

import mycel as ms
from mycel import Tensor, nn
from mycel.ops import functional as F


class Net(nn.Cell):
    def construct(self, a, b, c, d):
        return F.mixed_precision_cast(ms.float16, (a, [b, (c, 3)], d, None))


def test_mixed_precision_cast_nested(mode):
    a = np.array([1.5, -2.25, 65504.0], np.float32)
    b = np.array([1, 2], np.int32)
    c = np.array([0.1, 1e-3], np.float64)
    d = np.array([True, False])
    out = Net()(Tensor(a), Tensor(b), Tensor(c), Tensor(d))
    assert isinstance(out, tuple) and len(out) == 4 and out[3] is None
    assert isinstance(out[1], list) and isinstance(out[1][1], tuple) and out[1][1][1] == 3
    assert out[0].dtype == ms.float16 and out[1][1][0].dtype == ms.float16
    assert out[1][0].dtype == ms.int32 and out[2].dtype == ms.bool_
    np.testing.assert_array_equal(out[0].asnumpy(), a.astype(np.float16))
    np.testing.assert_array_equal(out[1][1][0].asnumpy(), c.astype(np.float16))
    np.testing.assert_array_equal(out[1][0].asnumpy(), b)


def test_mixed_precision_cast_single_tensor_and_number():
    x = np.array([0.5, 3.0], np.float16)
    y = F.mixed_precision_cast(ms.float32, Tensor(x))
    assert y.dtype == ms.float32
    np.testing.assert_array_equal(y.asnumpy(), x.astype(np.float32))
    assert F.mixed_precision_cast(ms.float32, 2.5) == 2.5


def test_output_to_32_casts_a_float16_network_output(mode):
    """amp._OutputTo32: the float16 Dense's output comes back float32, its values those of
    the float16 computation (numpy in float16, then cast)."""
    from mycel.train.amp import _OutputTo32
    rng = np.random.default_rng(1)
    net = nn.Dense(3, 2).to_float(ms.float16)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    out = _OutputTo32(net)(Tensor(x))
    assert out.dtype == ms.float32
    w = net.weight.asnumpy().astype(np.float16)
    b = net.bias.asnumpy().astype(np.float16)
    want = (x.astype(np.float16) @ w.T + b).astype(np.float32)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=2e-3, atol=2e-3)

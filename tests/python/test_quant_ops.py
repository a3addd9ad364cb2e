"""ops.operations._quant_ops (TensorFlow's fake quantisation with min/max vars, per tensor and
per channel, and their straight-through gradients) against torch's fake_quantize_per_tensor /
per_channel_affine with the same nudged scale and zero point, in PYNATIVE and GRAPH mode."""
import numpy as np
import pytest
import torch

import mycel as ms
from mycel import ops
from mycel.ops.operations import _quant_ops as Q
from ms_cell import Fn

RNG = np.random.default_rng(37)


def _nudge(mn, mx, bits, narrow):
    qmin, qmax = (1 if narrow else 0), 2 ** bits - 1
    scale = (mx - mn) / (qmax - qmin)
    zp = np.clip(np.floor(qmin - mn / scale + 0.5), qmin, qmax)
    return scale, zp, qmin, qmax


@pytest.mark.parametrize("bits,narrow", [(8, False), (4, True)])
def test_fake_quant_per_tensor_matches_torch(mode, bits, narrow):
    x = RNG.uniform(-7, 7, (3, 4, 5)).astype(np.float32)
    mn, mx = np.array([-6.0], np.float32), np.array([5.5], np.float32)
    got = Fn(Q.FakeQuantWithMinMaxVars(bits, narrow))(*map(ms.Tensor, (x, mn, mx))).asnumpy()
    scale, zp, qmin, qmax = _nudge(mn.astype(np.float64), mx.astype(np.float64), bits, narrow)
    want = torch.fake_quantize_per_tensor_affine(torch.tensor(x), float(scale[0]),
                                                 int(zp[0]), qmin, qmax).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5)
    # the gradient primitive and the forward's own gradient: straight-through
    g = RNG.standard_normal(x.shape).astype(np.float32)
    dx, dmin, dmax = Fn(Q.FakeQuantWithMinMaxVarsGradient(bits, narrow))(
        *map(ms.Tensor, (g, x, mn, mx)))
    lo, hi = (qmin - zp) * scale, (qmax - zp) * scale
    inside = (x >= lo) & (x <= hi)
    np.testing.assert_allclose(dx.asnumpy(), np.where(inside, g, 0), atol=1e-6)
    np.testing.assert_allclose(dmin.asnumpy(), [g[x < lo].sum()], rtol=1e-5)
    np.testing.assert_allclose(dmax.asnumpy(), [g[x > hi].sum()], rtol=1e-5)
    fq = Q.FakeQuantWithMinMaxVars(bits, narrow)
    grads = Fn(ops.grad(lambda a, b, c: (fq(a, b, c) * ms.Tensor(g)).sum(), (0, 1, 2)))(
        *map(ms.Tensor, (x, mn, mx)))
    for got_g, want_g in zip(grads, (dx, dmin, dmax)):
        np.testing.assert_allclose(got_g.asnumpy(), want_g.asnumpy(), rtol=1e-5, atol=1e-6)


def test_fake_quant_per_channel_matches_torch(mode):
    x = RNG.uniform(-4, 4, (2, 3, 4)).astype(np.float32)
    mn = np.array([-3.0, -1.1, -2.0, 0.5], np.float32)  # (no zero point at a .5 tie)
    mx = np.array([3.0, 1.0, 2.5, 3.0], np.float32)
    got = Fn(Q.FakeQuantWithMinMaxVarsPerChannel())(*map(ms.Tensor, (x, mn, mx))).asnumpy()
    scale, zp, qmin, qmax = _nudge(mn.astype(np.float64), mx.astype(np.float64), 8, False)
    want = torch.fake_quantize_per_channel_affine(
        torch.tensor(x), torch.tensor(scale, dtype=torch.float32),
        torch.tensor(zp, dtype=torch.int32), 2, qmin, qmax).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5)
    g = RNG.standard_normal(x.shape).astype(np.float32)
    dx, dmin, dmax = Fn(Q.FakeQuantWithMinMaxVarsPerChannelGradient())(
        *map(ms.Tensor, (g, x, mn, mx)))
    lo, hi = (qmin - zp) * scale, (qmax - zp) * scale
    np.testing.assert_allclose(dmin.asnumpy(), np.where(x < lo, g, 0).sum((0, 1)), rtol=1e-5)
    np.testing.assert_allclose(dmax.asnumpy(), np.where(x > hi, g, 0).sum((0, 1)), rtol=1e-5)
    np.testing.assert_allclose(dx.asnumpy(), np.where((x >= lo) & (x <= hi), g, 0))


def test_bad_inputs_name_the_primitive(mode):
    x = ms.Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="FakeQuantWithMinMaxVarsPerChannel.*min"):
        Fn(Q.FakeQuantWithMinMaxVarsPerChannel())(x, ms.Tensor(np.zeros(2, np.float32)),
                                                  ms.Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="FakeQuantWithMinMaxVars.*dtype"):
        Fn(Q.FakeQuantWithMinMaxVars())(x, ms.Tensor(np.zeros(1, np.float64)),
                                        ms.Tensor(np.ones(1, np.float32)))
    with pytest.raises(ValueError, match="num_bits"):
        Q.FakeQuantWithMinMaxVars(num_bits=1)
    with pytest.raises(RuntimeError, match="IFMR.*Ascend"):
        Fn(Q.IFMR())(x, x, x, x)


def test_fake_quant_param_is_identity_with_its_attributes(mode):
    p = Q.FakeQuantParam.linear_quant_param(ms.common.dtype.QuantDtype.INT8, 0.1, 1)
    assert p.attrs["linear_quant_scale"] == [0.1] and p.attrs["linear_quant_zero_point"] == [1]
    assert p.quant_algo_name == "linear_quant_algo" and p.is_per_channel is False
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(Fn(p)(ms.Tensor(x)).asnumpy(), x)
    with pytest.raises(TypeError, match="FakeQuantParam.*is_per_channel"):
        Q.FakeQuantParam(ms.common.dtype.QuantDtype.INT8, "linear_quant_algo", 1)

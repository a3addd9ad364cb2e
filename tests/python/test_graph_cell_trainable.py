"""nn.GraphCell's weights are trainable Parameters (MindSpore's: trainable_params() lists
them), the gradient through the loaded graph reaches them (analytic: d sum(x W^T + b) / dW =
the column sums of x), and params_init must keep each weight's exported shape."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn


def test_graph_cell_weights_train(tmp_path):
    ms.set_seed(0)
    net = nn.Dense(3, 2)
    x = np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]], np.float32)
    ms.export(net, Tensor(x), file_name=str(tmp_path / "dense"), file_format="MINDIR")
    cell = nn.GraphCell(ms.load(str(tmp_path / "dense.mindir")))
    params = cell.trainable_params()
    assert [p.name for p in params] == ["weight", "bias"]
    gw, gb = ms.grad(lambda t: cell(t).sum(), None, params)(Tensor(x))
    np.testing.assert_allclose(gw.asnumpy(), np.tile(x.sum(0), (2, 1)), rtol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), [2.0, 2.0], rtol=1e-6)
    w0 = params[0].asnumpy().copy()
    opt = nn.SGD(params, learning_rate=0.1)
    opt((gw, gb))
    np.testing.assert_allclose(params[0].asnumpy(), w0 - 0.1 * gw.asnumpy(), rtol=1e-6)
    want = x @ params[0].asnumpy().T + params[1].asnumpy()
    np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match=r"params_init\['bias'\] must be a Tensor of the "
                                         r"weight's shape \(2,\)"):
        nn.GraphCell(ms.load(str(tmp_path / "dense.mindir")),
                     params_init={"bias": Tensor(np.zeros(3, np.float32))})

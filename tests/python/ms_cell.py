"""Shared by the test_ms_* files: a Cell that calls one function or primitive on its inputs
(so the `mode` fixture runs it in GRAPH mode too), and `run`, which calls it on numpy arrays
and returns numpy results (Python numbers as they are)."""
import numpy as np

import mycel as ms
from mycel import nn


class Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


def run(fn, *args):
    out = Fn(fn)(*[ms.Tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    if isinstance(out, (tuple, list)):
        return [o.asnumpy() for o in out]
    return out.asnumpy() if isinstance(out, ms.Tensor) else out  # a Python number as it is

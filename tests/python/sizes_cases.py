"""Cases of tests/python/test_hardening_sizes.py, run in a child process (a crash there fails
the test instead of killing pytest): ops fed shapes whose element count or byte size does not
fit in 64 bits, or non-int dimensions, and variadic ops fed empty sequences.

    python sizes_cases.py MODE   (MODE: pynative | graph)

prints one JSON object: case name -> [exception type name, message] (["ok", repr] when the
case returned). In graph mode each case runs as the body of an @ms.jit function.
"""
import json
import sys

import numpy as np

import mycel as ms
from mycel import Tensor, ops

BIG = 2 ** 62
# Beyond int64: module constants, since graph code computes int literals in int64 (2 ** 64
# written inside a jit function is the compiler's OverflowError, not a shape error).
H64 = 2 ** 64
NEG = -2 ** 63 - 1


def x4():
    return Tensor(np.arange(4, dtype=np.float32))


# ---- shapes that overflow or are not ints (name -> (function of x, expected type)) ----------

def zeros_2p62(x):
    return ops.zeros((BIG,))


def zeros_2p32_sq(x):
    return ops.zeros((2 ** 32, 2 ** 32))


def zeros_2p64(x):
    return ops.zeros((H64,))


def zeros_neg_int64(x):
    return ops.zeros((NEG,))


def zeros_float_dim(x):
    return ops.zeros((2.5, 3))


def zeros_float_whole(x):
    return ops.zeros((2.0,))


def ones_huge(x):
    return ops.ones((2 ** 40, 2 ** 40), ms.float32)


def full_huge(x):
    return ops.full((BIG, 8), 1.5)


def fill_float_dim(x):
    return ops.fill(ms.float32, (3, 1.5), 0)


def tile_huge(x):
    return ops.tile(x, (BIG,))


def tile_float(x):
    return ops.tile(x, (2.5,))


def broadcast_to_huge(x):
    return ops.broadcast_to(x[:1], (BIG, 4))


def broadcast_to_float(x):
    return ops.broadcast_to(x, (2, 4.0))


def reshape_huge(x):
    return ops.reshape(x, (BIG + 3, 4))


def reshape_huge_infer(x):
    return ops.reshape(x, (BIG, BIG, -1))


def reshape_float(x):
    return ops.reshape(x, (2.5, -1))


def expand_huge(x):
    return x[:1].broadcast_to((2 ** 40, 2 ** 40))


def concat_huge(x):
    v = ops.broadcast_to(x[:1].astype(ms.int8), (BIG,))
    return ops.concat([v, v, v, v])


def matmul_huge(x):
    a = ops.broadcast_to(ops.reshape(x[:1], (1, 1)), (2 ** 40, 1))
    b = ops.broadcast_to(ops.reshape(x[:1], (1, 1)), (1, 2 ** 40))
    return ops.matmul(a, b)


def pad_huge(x):
    return ops.pad(x, (BIG, BIG))


def conv_pad_huge(x):
    img = ops.reshape(x, (1, 1, 2, 2))
    w = ops.ones((1, 1, 1, 1), ms.float32)
    return ops.conv2d(img, w, pad_mode="pad", padding=BIG)


def conv_dilation_huge(x):
    img = ops.reshape(x, (1, 1, 2, 2))
    w = ops.ones((1, 1, 3, 3), ms.float32)
    return ops.conv2d(img, w, dilation=BIG)  # (3 - 1) * 2**62 + 1


def arange_huge(x):
    return ops.arange(0, BIG)


def uniform_huge(x):
    return ops.uniform((BIG, 4), Tensor(0.0), Tensor(1.0))


def standard_normal_huge(x):
    return ops.standard_normal((2 ** 40, 2 ** 40))


def rand_float(x):
    return ops.rand(2.5)


def randn_2p64(x):
    return ops.randn((H64,))


OVERFLOW = {
    "zeros_2p62": (zeros_2p62, "ValueError"),
    "zeros_2p32_sq": (zeros_2p32_sq, "ValueError"),
    "zeros_2p64": (zeros_2p64, "ValueError"),
    "zeros_neg_int64": (zeros_neg_int64, "ValueError"),
    "zeros_float_dim": (zeros_float_dim, "TypeError"),
    "zeros_float_whole": (zeros_float_whole, "TypeError"),
    "ones_huge": (ones_huge, "ValueError"),
    "full_huge": (full_huge, "ValueError"),
    "fill_float_dim": (fill_float_dim, "TypeError"),
    "tile_huge": (tile_huge, "ValueError"),
    "tile_float": (tile_float, "TypeError"),
    "broadcast_to_huge": (broadcast_to_huge, "ValueError"),
    "broadcast_to_float": (broadcast_to_float, "TypeError"),
    "reshape_huge": (reshape_huge, "ValueError"),
    "reshape_huge_infer": (reshape_huge_infer, "ValueError"),
    "reshape_float": (reshape_float, "TypeError"),
    "expand_huge": (expand_huge, "ValueError"),
    "concat_huge": (concat_huge, "ValueError"),
    "matmul_huge": (matmul_huge, "ValueError"),
    "pad_huge": (pad_huge, "ValueError"),
    "conv_pad_huge": (conv_pad_huge, "ValueError"),
    "conv_dilation_huge": (conv_dilation_huge, "ValueError"),
    "arange_huge": (arange_huge, "ValueError"),
    "uniform_huge": (uniform_huge, "ValueError"),
    "standard_normal_huge": (standard_normal_huge, "ValueError"),
    "rand_float": (rand_float, "TypeError"),
    "randn_2p64": (randn_2p64, "ValueError"),
}


# ---- empty sequences for every op that takes one -------------------------------------------

def concat_empty_list(x):
    return ops.concat([])


def concat_empty_tuple(x):
    return ops.cat(())


def stack_empty_list(x):
    return ops.stack([])


def stack_empty_tuple(x):
    return ops.stack((), 1)


def prim_concat_empty(x):
    return ops.Concat()(())


def prim_stack_empty(x):
    return ops.Stack()(())


EMPTY = {
    "concat_empty_list": (concat_empty_list, "ValueError"),
    "concat_empty_tuple": (concat_empty_tuple, "ValueError"),
    "stack_empty_list": (stack_empty_list, "ValueError"),
    "stack_empty_tuple": (stack_empty_tuple, "ValueError"),
    "prim_concat_empty": (prim_concat_empty, "ValueError"),
    "prim_stack_empty": (prim_stack_empty, "ValueError"),
}

CASES = {**OVERFLOW, **EMPTY}


def run(mode):
    out = {}
    for name, (fn, _) in CASES.items():
        f = ms.jit(fn) if mode == "graph" else fn
        try:
            r = f(x4())
            out[name] = ["ok", repr(getattr(r, "shape", r))]
        except Exception as e:  # noqa: BLE001 - the test checks the type
            out[name] = [type(e).__name__, str(e)]
    return out


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1])))

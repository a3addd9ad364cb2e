"""Graph-mode acceptance corpus (issue #3), part 2: data-flow constructs.

Each program runs in PYNATIVE mode, under @jit and in GRAPH mode (graph_harness
.check_all_modes) and the results must agree: operators and weak scalar promotion, shape
arithmetic, tuple/list/dict literals and indexing, tensor indexing and slicing, unpacking,
augmented assignment, ops/Primitive/Tensor-method calls with keyword arguments, user
functions with defaults, *args and **kwargs, sub-Cells, jit functions called from Cells and
from each other, module globals, attributes of self (flags recompile), builtins on
compile-time values, scalar arguments (a changed value recompiles and is logged), numpy on
constants (JIT fallback at compile time), multiple and None outputs.
"""
import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops, context
from mycel.ops import operations as P

sys.path.insert(0, os.path.dirname(__file__))
from graph_harness import check_all_modes  # noqa: E402

RNG = np.random.default_rng(1234)


def f32(*shape):
    return Tensor(RNG.standard_normal(shape).astype(np.float32))


def i32(*shape, lo=0, hi=10):
    return Tensor(RNG.integers(lo, hi, size=shape).astype(np.int32))


# Module globals used by the programs below.
SCALE = 3.0
OFFSETS = (1.0, 2.0, 3.0)
TABLE = {"a": 2.0, "b": -1.0}


def helper_affine(x, w=2.0, b=1.0):
    return x * w + b


# ---------------------------------------------------------------- operators

def p_arith_tensors(x, y):
    return x + y, x - y, x * y, x / y, -x, x ** 2, x @ y.T


def test_arith_between_tensors():
    check_all_modes(p_arith_tensors, f32(3, 3), f32(3, 3) + 3.0, rtol=1e-6)


def p_compare(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


def test_comparisons_between_tensors():
    x = i32(4, 5)
    check_all_modes(p_compare, x, i32(4, 5))


def p_tensor_scalar(x):
    return x + 1, 2 * x, x - 0.5, 1.5 / (x + 10.0), x * True


def test_tensor_scalar_ops_float():
    out = check_all_modes(p_tensor_scalar, f32(2, 3), rtol=1e-6)
    for t in out[:4]:
        assert t.dtype == ms.float32  # weak Python scalars keep float32


def p_int_tensor_scalar(x):
    return x * 1.5, x + 2, x // 3, x % 4


def test_int_tensor_with_python_scalars():
    out = check_all_modes(p_int_tensor_scalar, i32(3, 4, lo=1))
    assert out[0].dtype == ms.float32  # int tensor * float scalar -> float32
    assert out[1].dtype == ms.int32
    assert out[2].dtype == ms.int32


def p_mixed_dtypes(a, b):
    return a + b, a * b


def test_mixed_tensor_dtypes_promote():
    out = check_all_modes(p_mixed_dtypes, i32(3), f32(3), rtol=1e-6)
    assert out[0].dtype == ms.float32


# ---------------------------------------------------------------- scalar math on shapes

def p_shape_math(x):
    n = x.shape[0] * 2
    d = len(x.shape)
    k = x.shape[-1] // 2 + d
    return ops.reshape(x, (n // 2, -1)) * k + n


def test_scalar_math_on_shapes():
    check_all_modes(p_shape_math, f32(4, 6), rtol=1e-6)


def p_shape_to_new_tensor(x):
    rows, cols = x.shape
    return ops.ones((cols, rows), ms.float32) * rows + ops.zeros((cols, rows), ms.float32)


def test_shape_values_build_new_tensors():
    check_all_modes(p_shape_to_new_tensor, f32(2, 5))


# ---------------------------------------------------------------- literals and indexing

def p_tuple_list_dict(x):
    t = (x, x * 2, 3)
    lst = [x + 1, t[1]]
    d = {"p": x, "q": t[2]}
    return t[0] + lst[-1] + d["p"] * d["q"] + lst[0], len(lst) + len(d)


def test_tuple_list_dict_literals():
    check_all_modes(p_tuple_list_dict, f32(3), rtol=1e-6)


def p_tuple_slices(x):
    t = (x, x + 1, x + 2, x + 3, x + 4)
    a = t[1:3]
    b = t[::-2]
    c = t[-2]
    return a[0] + a[1] + b[0] + b[-1] + c, len(b)


def test_tuple_negative_index_and_slices():
    check_all_modes(p_tuple_slices, f32(2, 2), rtol=1e-6)


def p_dict_keys(x):
    d = {"w": 2.0, "b": x}
    d2 = {1: x * 3, 2: x}
    return d["b"] * d["w"] + d2[1] - d2[2]


def test_dict_keys_str_and_int():
    check_all_modes(p_dict_keys, f32(4), rtol=1e-6)


# ---------------------------------------------------------------- tensor indexing

def p_tensor_index_basic(x):
    return x[0], x[-1], x[:, 1:3], x[1:, :2], x[1, 2]


def test_tensor_integer_index_and_slice():
    check_all_modes(p_tensor_index_basic, f32(4, 5))


def p_tensor_index_ellipsis_newaxis(x):
    return x[..., None], x[None], x[..., 1], x[:, None, 0:2]


def test_tensor_ellipsis_and_newaxis():
    check_all_modes(p_tensor_index_ellipsis_newaxis, f32(3, 4))


def p_tensor_index_step(x):
    return x[::2], x[::-1], x[1::2, ::-1]


def test_tensor_step_slices():
    check_all_modes(p_tensor_index_step, f32(5, 4))


def p_tensor_index_tensor(x, idx):
    return x[idx], x[idx][1:]


def test_tensor_index_by_integer_tensor():
    check_all_modes(p_tensor_index_tensor, f32(5, 5), Tensor(np.array([4, 0, 2], np.int32)))


def p_tensor_index_slice_and_tensor(x, idx):
    return x[:, idx], x[1, idx]


def test_tensor_index_slice_with_integer_tensor():
    check_all_modes(p_tensor_index_slice_and_tensor, f32(5, 5),
                    Tensor(np.array([4, 0, 2], np.int32)))


# ---------------------------------------------------------------- unpacking, aug-assign

def p_unpack(x):
    t = (x, x * 2, x * 3, x * 4)
    a, b, c, d = t
    first, *rest = t
    *init, last = t
    (p, q), r = (a, b), c
    return a + d, first + rest[0] + rest[-1], len(rest), init[1] + last, p + q + r


def test_unpacking_plain_starred_nested():
    check_all_modes(p_unpack, f32(3), rtol=1e-6)


def p_unpack_tensor_rows(x):
    a, b = x  # first axis of a (2, n) tensor
    return a * b


def test_unpacking_a_tensor():
    check_all_modes(p_unpack_tensor_rows, f32(2, 3))


def p_aug_assign(x, y):
    z = x
    z += y
    z *= 2.0
    z -= x
    z /= 4
    n = 1
    n += 2
    n *= 3
    t = (x,)
    t += (y,)
    return z + n, t[1]


def test_augmented_assignment():
    check_all_modes(p_aug_assign, f32(3, 2), f32(3, 2), rtol=1e-6)


# ---------------------------------------------------------------- op calls

def p_functional_ops_kwargs(x):
    a = ops.sum(x, dim=1, keepdim=True)
    b = ops.mean(x, axis=(0, 1), keep_dims=False)
    c = ops.transpose(x, (1, 0))
    d = ops.concat((x, x), axis=0)
    e = ops.softmax(x, axis=-1)
    return a, b, c, d, e


def test_functional_ops_with_keyword_args():
    check_all_modes(p_functional_ops_kwargs, f32(3, 4), rtol=1e-6)


def p_primitive_instances(x, y):
    s = P.ReduceSum(keep_dims=True)(x, (1,))
    m = ops.Mul()(x, y)
    r = P.Reshape()(m, (2, -1))
    return s, m, r


def test_primitive_instances_called_in_graph():
    check_all_modes(p_primitive_instances, f32(2, 6), f32(2, 6))


def p_tensor_methods(x):
    a = x.sum()
    b = x.sum(axis=0, keepdims=True)
    c = x.reshape(4, 3)
    d = x.reshape((2, 6)).transpose()
    e = x.T
    g = x.astype(ms.int32)
    h = x.mean(axis=1)
    return a, b, c, d, e, g, h


def test_tensor_methods():
    check_all_modes(p_tensor_methods, f32(3, 4) * 5, rtol=1e-6)


# ---------------------------------------------------------------- user functions

def kw_fn(x, scale=2.0, *, shift=1.0, flag=False):
    if flag:
        return x * scale - shift
    return x * scale + shift


def p_kw_defaults(x):
    return kw_fn(x), kw_fn(x, 3.0), kw_fn(x, shift=0.5), kw_fn(x, flag=True, scale=0.5)


def test_keyword_and_default_arguments():
    check_all_modes(p_kw_defaults, f32(4), rtol=1e-6)


def var_fn(*args, **kwargs):
    out = args[0]
    for a in args[1:]:
        out = out + a
    if "mul" in kwargs:
        out = out * kwargs["mul"]
    return out, len(args), len(kwargs)


def p_varargs(x, y):
    t = (x, y)
    return var_fn(x), var_fn(x, y, mul=3.0), var_fn(*t, y, **{"mul": 0.5, "z": 1})


def test_star_args_and_star_star_kwargs():
    check_all_modes(p_varargs, f32(3), f32(3), rtol=1e-6)


def p_module_globals(x):
    y = x * SCALE
    for o in OFFSETS:
        y = y + o
    return helper_affine(y) + TABLE["a"], helper_affine(y, b=TABLE["b"])


def test_module_globals_constants_and_helpers():
    check_all_modes(p_module_globals, f32(2, 2), rtol=1e-6)


def p_builtins_compile_time(x):
    t = (1, 2.0, 3)
    acc = x
    for i, v in enumerate(t):
        if isinstance(v, float):
            acc = acc * v
        else:
            acc = acc + v * i
    for a, b in zip((1, 2), [10, 20, 30]):
        acc = acc + a * b
    for k in range(len(x.shape), 5):
        acc = acc - k
    return acc, isinstance(x, Tensor), len(t)


def test_isinstance_len_range_zip_enumerate():
    check_all_modes(p_builtins_compile_time, f32(3), rtol=1e-6)


def p_numpy_on_constants(x):
    c = np.sqrt(2.0)
    w = [i * i for i in range(4)]
    m = math.pi / 4
    return x * c + w[3] + m


def test_numpy_and_comprehension_on_constants():
    check_all_modes(p_numpy_on_constants, f32(3), rtol=1e-6)


EPS = np.float32(1e-3)  # a numpy scalar global: a weak scalar, as in eager mode
STEPS = np.int64(3)


def p_iterators_on_constants(x):
    acc = x * EPS
    for i in reversed(range(STEPS)):
        acc = acc * 2 + i
    sq = tuple(i * i for i in range(4))
    shifted = list(map(abs, (-4, 2, 3)))
    return acc + sq[-1] + shifted[0], tuple(reversed((1, 2, 3))), x.transpose()


def test_iterators_and_numpy_scalars_on_constants():
    out = check_all_modes(p_iterators_on_constants, f32(2, 3), rtol=1e-6)
    assert out[0].dtype == ms.float32


def p_map_lambda_on_constants(x):
    shifted = list(map(lambda v: v + 1, (1, 2, 3)))
    return x + shifted[0] + len(shifted)


def test_map_of_a_lambda_on_constants():
    check_all_modes(p_map_lambda_on_constants, f32(3))


def p_multi_and_none(x):
    return None


def test_returning_none():
    assert check_all_modes(p_multi_and_none, f32(2)) is None


def p_nested_tuple_return(x):
    return (x, (x + 1, 2)), [x * 2], 7


def test_returning_nested_tuples_and_scalars():
    check_all_modes(p_nested_tuple_return, f32(2))


# ---------------------------------------------------------------- jit functions nesting

@ms.jit
def jit_inner(x, k=2):
    return x * k + 1


@ms.jit
def jit_outer(x, y):
    return jit_inner(x) + jit_inner(y, k=3)


def p_calls_nested_jit(x, y):
    return jit_outer(x, y) - jit_inner(x)


def test_nested_jit_functions():
    check_all_modes(p_calls_nested_jit, f32(3), f32(3), rtol=1e-6)


# ---------------------------------------------------------------- cells

class Affine(nn.Cell):
    def __init__(self, n, m, scale=1.0):
        super().__init__()
        w = np.arange(n * m, dtype=np.float32).reshape(n, m) / (n * m)
        self.weight = ms.Parameter(Tensor(w), name="weight")
        self.bias = ms.Parameter(Tensor(np.ones(m, np.float32)), name="bias")
        self.scale = scale
        self.use_bias = True

    def construct(self, x):
        y = ops.matmul(x, self.weight) * self.scale
        if self.use_bias:
            y = y + self.bias
        return y


class TwoLayer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.l1 = Affine(4, 5, scale=0.5)
        self.l2 = Affine(5, 3)
        self.act = P.ReLU()
        self.layers = (self.l1, self.l2)

    def construct(self, x):
        h = self.act(self.l1(x))
        out = self.l2(h)
        return out, self.layers[0](x).shape[1]


def test_sub_cells_parameters_constants():
    check_all_modes(TwoLayer, f32(2, 4), rtol=1e-6)


class CellCallsJit(nn.Cell):
    def __init__(self):
        super().__init__()
        self.k = 4

    def construct(self, x, y):
        return jit_outer(x, y) * self.k + jit_inner(x, k=self.k)


def test_cell_calls_jit_functions():
    check_all_modes(CellCallsJit, f32(3), f32(3), rtol=1e-6)


class CellWithJitMethod(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.full((3,), 2.0, np.float32)), name="w")

    @ms.jit
    def scaled(self, x):
        return x * self.w

    def construct(self, x):
        return self.scaled(x) + 1


def test_cell_calls_own_jit_method():
    check_all_modes(CellWithJitMethod, f32(3))


class KwCell(nn.Cell):
    def __init__(self):
        super().__init__()
        self.inner = Affine(3, 3)

    def construct(self, x, alpha=2.0, scale_out=True):
        y = self.inner(x) * alpha
        if scale_out:
            y = y * 10
        return y


def test_cell_construct_default_args():
    check_all_modes(KwCell, f32(2, 3), rtol=1e-6)
    check_all_modes(KwCell, f32(2, 3), 0.5, False, rtol=1e-6)


class TrainFlag(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = 0.5

    def construct(self, x):
        if self.training:
            return x * self.p
        return x + self.p


def test_training_flag_recompiles_and_changes_result():
    x = f32(4)
    net = TrainFlag()
    context.set_context(mode=context.GRAPH_MODE)
    try:
        eval_out = net(x).asnumpy()
        net.set_train(True)
        train_out = net(x).asnumpy()
        net.set_train(False)
        eval_again = net(x).asnumpy()
        graph = net._mycel_graph._graph
        n = graph.num_compiled
    finally:
        context.set_context(mode=context.PYNATIVE_MODE)
    xn = x.asnumpy()
    np.testing.assert_array_equal(eval_out, xn + np.float32(0.5))
    np.testing.assert_array_equal(train_out, xn * np.float32(0.5))
    np.testing.assert_array_equal(eval_again, eval_out)
    assert n == 2  # one graph per flag value, the second eval call hits the cache


def test_training_flag_all_modes():
    def make_train():
        return TrainFlag().set_train(True)
    check_all_modes(make_train, f32(3), factory=True)


# ---------------------------------------------------------------- scalar arguments

def p_scalar_args(x, n, s):
    y = x
    for _ in range(n):
        y = y * s
    return y + n


def test_python_scalar_arguments():
    check_all_modes(p_scalar_args, f32(3), 3, 0.5, rtol=1e-6)
    check_all_modes(p_scalar_args, f32(3), 1, 2.0, rtol=1e-6)


def test_scalar_signature_change_recompiles():
    fn = ms.jit(p_scalar_args)
    x = f32(3)
    fn(x, 2, 0.5)
    fn(x, 2, 0.5)
    assert fn._graph.num_compiled == 1
    out = fn(x, 3, 0.5)
    assert fn._graph.num_compiled == 2
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * 0.125 + 3, rtol=1e-6)
    fn(x, 3, 1.5)
    assert fn._graph.num_compiled == 3
    fn(x, 2, 0.5)  # cached
    assert fn._graph.num_compiled == 3


RECOMPILE_PROG = """
import numpy as np
import mycel as ms

@ms.jit
def scaled(x, n):
    return x * n

x = ms.Tensor(np.ones(3, np.float32))
scaled(x, 2)
scaled(x, 5)
scaled(ms.Tensor(np.ones(4, np.float32)), 5)
print("done")
"""


def test_recompile_log_names_the_changed_argument(tmp_path):
    prog = tmp_path / "recompile_prog.py"
    prog.write_text(textwrap.dedent(RECOMPILE_PROG))
    env = dict(os.environ)
    root = os.path.join(os.path.dirname(__file__), "..", "..", "python")
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    env["MYCEL_LOG_RECOMPILE"] = "1"
    out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True, env=env,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"
    err = out.stderr
    lines = [ln for ln in err.splitlines() if "recompil" in ln.lower()]
    assert len(lines) >= 2, err
    # the scalar change names argument 'n' and both values; the shape
    # change names x and both shapes.
    assert "argument 'n'" in lines[0] and "=2" in lines[0] \
        and "=5" in lines[0], lines[0]
    assert "argument 'x'" in lines[1] and "[3]" in lines[1] \
        and "[4]" in lines[1], lines[1]

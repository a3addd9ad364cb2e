"""mycel.ops.functional (imported as ``F``): MindSpore's functional module. Its classic
names are primitive instances (``F.tensor_add = P.Add()``); every function of mycel.ops is
here too."""
from mycel.ops import operations as P
from mycel.ops.function import *  # noqa: F401,F403
from mycel.ops._vmap import vmap  # noqa: F401  (MindSpore programs import F.vmap)
# the function transforms, where MindSpore programs import them (F.grad, F.vjp, F.jvp, ...)
from mycel.ops.composite import (grad, value_and_grad, vjp, jvp, jacfwd,  # noqa: F401,E402
                                 jacrev, get_grad)
from mycel.ops._taylor import jet, derivative  # noqa: F401,E402  (Taylor mode)
from mycel.ops.composite import linearize  # noqa: F401,E402  (F.linearize: jvp at a fixed point)
from mycel.ops.function.graph_compat_func import dtype  # noqa: F401,E402  (F.dtype)
from mycel.ops.composite import depend  # noqa: F401,E402  (F.depend, as MindSpore programs import)

tensor_add = P.Add()
tensor_sub = P.Sub()
tensor_mul = P.Mul()
tensor_div = P.Div()
tensor_floordiv = P.FloorDiv()
tensor_mod = P.FloorMod()
tensor_pow = P.Pow()
neg_tensor = P.Neg()
tensor_lt = P.Less()
tensor_le = P.LessEqual()
tensor_gt = P.Greater()
tensor_ge = P.GreaterEqual()
equal = P.Equal()
not_equal = P.NotEqual()
logical_not = P.LogicalNot()
logical_and = P.LogicalAnd()
logical_or = P.LogicalOr()
maximum = P.Maximum()
minimum = P.Minimum()
square = P.Square()
sqrt = P.Sqrt()
exp = P.Exp()
log = P.Log()
cast = P.Cast()
zeros_like = P.ZerosLike()
ones_like = P.OnesLike()
reshape = P.Reshape()
transpose = P.Transpose()
expand_dims = P.ExpandDims()
tile = P.Tile()
select = P.Select()
gather = P.Gather()
gather_d = P.GatherD()
scatter_nd = P.ScatterNd()
tensor_scatter_update = P.TensorScatterUpdate()
fill = P.Fill()
reduce_sum = P.ReduceSum()
reduce_mean = P.ReduceMean()
reduce_max = P.ReduceMax()
reduce_min = P.ReduceMin()
reduce_prod = P.ReduceProd()


# MindSpore's tuple helpers of F (compile-time values in GRAPH mode, as there).
import builtins as _builtins  # noqa: E402 (range, len: mycel.ops.function has a range op)
from mycel.ops.primitive import constexpr as _constexpr  # noqa: E402


@_constexpr
def tuple_len(t):
    """len(t) of a tuple (or list)."""
    return _builtins.len(t)


@_constexpr
def make_range(start, stop=None, step=1):
    """tuple(range(start, stop, step)); make_range(n) is (0, ..., n - 1)."""
    r = _builtins.range(start) if stop is None else _builtins.range(start, stop, step)
    return tuple(r)


@_constexpr
def shape_mul(shape):
    """The product of a shape's dimensions (1 for ())."""
    out = 1
    for d in shape:
        out *= d
    return out
# The functional names that live beside their primitives (operations/composed_*_ops.py).
from mycel.ops.operations.composed_array_ops import (scalar_to_tensor,  # noqa: E402,F401
                                                  tuple_to_array, diagonal_scatter)
from mycel.ops.operations.composed_math_ops import eps  # noqa: E402,F401
from mycel.ops.operations.composed_random_ops import (random_categorical,  # noqa: E402,F401
                                                   uniform_candidate_sampler)
from mycel.ops.operations.composed_random_ops import (  # noqa: E402,F401
    log_uniform_candidate_sampler)


# complex numbers (function/complex_func.py), as MindSpore's ops.functional has them
from mycel.ops.function.complex_func import (real, imag, conj, angle, isreal,  # noqa: E402,F401
                                             view_as_real)


from mycel import _mycel as _C  # noqa: E402

_MP_FLOATS = (_C.float16, _C.float32, _C.float64, _C.bfloat16)


def mixed_precision_cast(dst_type, x):
    """MindSpore's ``F.mixed_precision_cast(dst_type, x)``: `x` with every floating-point
    Tensor (float16, float32, float64, bfloat16) cast to `dst_type`, also inside (nested)
    tuples and lists; other values (integer or bool Tensors, numbers, None) as they are. Both
    modes (the mixed-precision wrappers use it on a network's inputs and outputs)."""
    if isinstance(x, (tuple, list)):
        out = ()
        for i in _builtins.range(_builtins.len(x)):
            out = out + (mixed_precision_cast(dst_type, x[i]),)
        return out if isinstance(x, tuple) else list(out)
    if isinstance(x, _C.Tensor) and x.dtype in _MP_FLOATS:
        return cast(x, dst_type)
    return x

"""One definition of casts and scalar arithmetic in every mode (issue #16, class 5).

Cast (the op table's Cast line, tensor/dtype.h's saturate_cast): float -> int truncates
toward zero, NaN gives 0, values outside the range (+-inf included) saturate to the type's
limits; int -> narrower int wraps; anything -> bool is x != 0. The same answer, bit for bit,
in PYNATIVE (the Cast op and Tensor.astype), GRAPH with a run-time input, and GRAPH with a
constant input that constant folding computes at compile time. numpy's own float -> int
conversion is undefined out of range, so the oracle is written out here.
"""
import math

import numpy as np
import pytest

import mycel as ms
from mycel import context, ops

FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["int8", "uint8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]
MS = {n: getattr(ms, n) for n in FLOATS + INTS + ["bool_"]}


def ms_dtype(name):
    return ms.bool_ if name == "bool" else MS[name]


def source_tensor(values, src):
    """A tensor of dtype src holding `values` rounded to src, and its exact float64 values."""
    if src == "bfloat16":
        with np.errstate(over="ignore"):  # values past float32's range become inf
            t = ms.Tensor(np.array(values, np.float32)).astype(ms.bfloat16)
        exact = t.astype(ms.float32).asnumpy().astype(np.float64)
    else:
        with np.errstate(over="ignore"):
            a = np.array(values, np.float64).astype(src)
        t = ms.Tensor(a)
        exact = a.astype(np.float64)
    return t, exact


def oracle(exact, dst):
    """The documented semantics, in float64 and Python ints (no undefined conversions)."""
    if dst == "bool":
        return np.array([x != 0 for x in exact], np.bool_)  # NaN != 0
    info = np.iinfo(dst)
    out = []
    for x in exact:
        if math.isnan(x):
            out.append(0)
        elif math.isinf(x):
            out.append(info.max if x > 0 else info.min)
        else:
            out.append(min(max(int(math.trunc(x)), int(info.min)), int(info.max)))
    return np.array(out, dst)


def probe_values(dst):
    """NaN, +-inf, fractions, and values just inside and outside each of dst's limits."""
    vals = [math.nan, math.inf, -math.inf, 0.0, -0.0, 0.5, -0.5, -0.9, 0.9, 1.5, -1.5, 2.7,
            -2.7, 1e20, -1e20, 1e300 * 10, 65504.0, -65504.0]
    if dst != "bool":
        info = np.iinfo(dst)
        lo, hi = float(info.min), float(info.max)
        for base in (lo, hi):
            vals += [base - 1.0, base - 0.5, base, base + 0.5, base + 1.0, base * 2]
        vals += [lo * (1 - 2.0 ** -20), hi * (1 - 2.0 ** -20)]
    return vals


def in_graph(fn, *args):
    saved = context._context["mode"]
    try:
        context.set_context(mode=context.GRAPH_MODE)
        return ms.jit(fn)(*args)
    finally:
        context.set_context(mode=saved)


def assert_identical(got, want, what):
    got = got.asnumpy()
    assert got.dtype == want.dtype, (what, got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want, err_msg=what)


@pytest.mark.parametrize("src", FLOATS)
@pytest.mark.parametrize("dst", INTS + ["bool"])
def test_float_to_int_and_bool_all_modes(src, dst):
    x, exact = source_tensor(probe_values(dst), src)
    want = oracle(exact, dst)
    d = ms_dtype(dst)
    assert_identical(ops.cast(x, d), want, f"PYNATIVE Cast {src}->{dst}")
    assert_identical(x.astype(d), want, f"PYNATIVE astype {src}->{dst}")

    def runtime(v):
        return ops.cast(v, d)
    assert_identical(in_graph(runtime, x), want, f"GRAPH run-time {src}->{dst}")

    def folded():
        return ops.cast(x, d)  # x is a constant of the graph: folded at compile time
    assert "Cast" not in ms.jit(folded).ir(), "the constant cast was not folded"
    assert "Cast" in ms.jit(runtime).ir(x)
    assert_identical(in_graph(folded), want, f"GRAPH folded {src}->{dst}")


def test_issue_examples():
    x = ms.Tensor(np.array([np.nan, np.inf, -np.inf, 1e20], np.float32))
    want = np.array([0, 2**31 - 1, -2**31, 2**31 - 1], np.int32)
    assert_identical(ops.cast(x, ms.int32), want, "PYNATIVE")
    assert_identical(x.astype(ms.int32), want, "astype")
    assert_identical(in_graph(lambda v: ops.cast(v, ms.int32), x), want, "GRAPH")
    y = ms.Tensor(np.array([300.0, -300.0], np.float32))
    assert_identical(y.astype(ms.int8), np.array([127, -128], np.int8), "astype int8")
    assert_identical(in_graph(lambda v: ops.cast(v, ms.int8), y), np.array([127, -128], np.int8),
                     "GRAPH int8")


def test_scalar_to_tensor_saturates():
    # A Python float made a tensor of an integer dtype converts as Cast does.
    for v, want in [(300.7, 127), (-300.0, -128), (-2.9, -2), (math.nan, 0), (math.inf, 127)]:
        assert ms.Tensor(v, ms.int8).asnumpy().item() == want, v
    assert ms.Tensor(math.nan, ms.int64).asnumpy().item() == 0
    assert ms.Tensor(-math.inf, ms.int64).asnumpy().item() == -2**63


@pytest.mark.parametrize("src", INTS + ["bool"])
@pytest.mark.parametrize("dst", INTS + ["bool"])
def test_int_to_int_wraps_all_modes(src, dst):
    if src == "bool":
        a = np.array([True, False, True], np.bool_)
    else:
        info = np.iinfo(src)
        vals = [int(info.min), int(info.min) + 1, -300, -129, -128, -1, 0, 1, 127, 128, 255, 256,
                300, 65535, 65536, 2**32 + 5, 2**63 + 9, int(info.max) - 1, int(info.max)]
        a = np.array([v for v in vals if info.min <= v <= info.max], src)
    want = (a != 0) if dst == "bool" else a.astype(dst)  # numpy wraps, as C++ does
    x = ms.Tensor(a)
    d = ms_dtype(dst)
    assert_identical(ops.cast(x, d), want, f"PYNATIVE {src}->{dst}")
    assert_identical(x.astype(d), want, f"astype {src}->{dst}")
    assert_identical(in_graph(lambda v: ops.cast(v, d), x), want, f"GRAPH {src}->{dst}")
    assert_identical(in_graph(lambda: ops.cast(x, d)), want, f"GRAPH folded {src}->{dst}")


# ---- Python scalar // and % -----------------------------------------------------------------

PAIRS_INT = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 5), (6, 3), (-6, 3), (1, -7), (2**40, -3)]
PAIRS_FLOAT = [(7.5, 2.0), (-7.5, 2.0), (7.5, -2.0), (-7.5, -2.0), (0.0, 3.0), (-0.0, 3.0),
               (1.0, -7.0), (5.0, 0.1), (-1e-300, 1.0), (1e300, -3.0), (math.inf, 2.0),
               (3.0, math.inf), (-3.0, math.inf)]


def scalar_ops(a, b):
    return a // b, a % b


def runtime_ints(x, y):
    # Run-time scalars: Python ints known only when the graph runs.
    return scalar_ops(int(x), int(y))


def runtime_floats(x, y):
    return scalar_ops(float(x), float(y))


def same_number(got, want):
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and got == want and math.copysign(1, got) == math.copysign(
        1, want)


@pytest.mark.parametrize("a,b", PAIRS_INT + PAIRS_FLOAT)
def test_scalar_floordiv_mod_all_modes(a, b):
    want = scalar_ops(a, b)
    # GRAPH, folded: constants.
    folded = in_graph(lambda: scalar_ops(a, b))
    # GRAPH, run-time: scalars read from tensors.
    dt = ms.int64 if isinstance(a, int) else ms.float64
    rt = in_graph(runtime_ints if isinstance(a, int) else runtime_floats, ms.Tensor(a, dt),
                  ms.Tensor(b, dt))
    for got, w in zip(folded, want):
        assert same_number(got, w), ("folded", a, b, folded, want)
    for got, w in zip(rt, want):
        assert same_number(got, w), ("run-time", a, b, rt, want)
    # PYNATIVE tensors: the same values (float64 / int64 tensors).
    ta, tb = ms.Tensor(a, dt), ms.Tensor(b, dt)
    for got, w in zip((ta // tb, ta % tb), want):
        assert same_number(got.asnumpy().item(), w), ("tensor", a, b, got, want)
    # GRAPH tensor ops, run-time and folded.
    for got, w in zip(in_graph(lambda u, v: (u // v, u % v), ta, tb), want):
        assert same_number(got.asnumpy().item(), w), ("graph tensor", a, b, got, want)
    for got, w in zip(in_graph(lambda: (ta // tb, ta % tb)), want):
        assert same_number(got.asnumpy().item(), w), ("graph tensor folded", a, b, got, want)


@pytest.mark.parametrize("a,b", [(7, 0), (-7, 0), (0, 0), (7.5, 0.0), (-7.5, -0.0), (0.0, 0.0)])
def test_scalar_division_by_zero_all_modes(a, b):
    with pytest.raises(ZeroDivisionError):
        scalar_ops(a, b)
    dt = ms.int64 if isinstance(a, int) else ms.float64
    # Scalars raise in graph code too, whether folded or at run time (folding leaves it to
    # run time, which names the error).
    with pytest.raises((ZeroDivisionError, RuntimeError), match="ZeroDivisionError|by zero"):
        in_graph(lambda: scalar_ops(a, b))
    with pytest.raises((ZeroDivisionError, RuntimeError), match="ZeroDivisionError|by zero"):
        in_graph(runtime_ints if isinstance(a, int) else runtime_floats, ms.Tensor(a, dt),
                 ms.Tensor(b, dt))


# ---- int() and float() of a tensor ------------------------------------------------------------

@pytest.mark.parametrize("v", [2.7, -2.7, 0.5, -0.5, 1e15 + 0.5, -3e9, 300.0])
@pytest.mark.parametrize("src", ["float16", "float32", "float64"])
def test_int_of_tensor_is_python_int_in_both_modes(v, src):
    x = ms.Tensor(np.array(v, src))
    elem = float(np.array(v, src))
    if math.isinf(elem):  # 1e15 is past float16's range
        with pytest.raises(OverflowError):
            int(x)
        with pytest.raises(OverflowError, match="infinity"):
            in_graph(lambda t: int(t), x)
        return
    want = int(elem)  # Python's int() of the element's value
    got = int(x)
    assert type(got) is int and got == want
    assert in_graph(lambda t: int(t), x) == want


@pytest.mark.parametrize("v,exc,err", [(math.nan, ValueError, "NaN"),
                                       (math.inf, OverflowError, "infinity"),
                                       (-math.inf, OverflowError, "infinity")])
def test_int_of_nonfinite_tensor_raises_in_both_modes(v, exc, err):
    """Python's int(): NaN is a ValueError, an infinity an OverflowError, in both modes."""
    x = ms.Tensor(np.array(v, np.float32))
    with pytest.raises(exc, match=err):
        int(x)
    with pytest.raises(exc, match=err):
        in_graph(lambda t: int(t), x)

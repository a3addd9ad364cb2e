"""Graph-mode Python syntax beyond tensors: methods of dicts, lists, tuples and strings, `in`
with a run-time left side, sequence order comparisons, list slice assignment, iterating a
dict, asnumpy() in graph code, and the errors Python gives. Each program runs in PYNATIVE
mode (plain Python: the oracle), under jit, and in GRAPH mode (graph_harness)."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn, Tensor, jit
from graph_harness import check_all_modes


def f32(*v):
    return Tensor(np.array(v, np.float32))


def run_mode(mode, fn, *args, **kwargs):
    """fn(*args, **kwargs) in PYNATIVE mode (plain Python) or GRAPH mode (a Cell called, a
    function under jit); the context mode is restored afterwards."""
    saved = ms.get_context("mode")
    try:
        if mode == "pynative":
            ms.set_context(mode=ms.PYNATIVE_MODE)
            return fn(*args, **kwargs)
        ms.set_context(mode=ms.GRAPH_MODE)
        if isinstance(fn, nn.Cell):
            return fn(*args, **kwargs)
        return jit(fn)(*args, **kwargs)
    finally:
        ms.set_context(mode=saved)


# ---------------------------------------------------------------- dict methods
def test_dict_get_keys_values_items():
    def fn(x, y):
        d = {"a": x, "b": y, 3: x * 2}
        return (d.get("a"), d.get("z", 7), d.get("z"), tuple(d.keys()), tuple(d.values()),
                tuple(d.items()), d.get(3) + 1)

    out = check_all_modes(fn, f32(1, 2), f32(3, 4))
    # the oracle: Python's dict methods; keys/values/items come back as tuples in graph code
    assert out[1] == 7 and out[2] is None


def test_dict_methods_on_graph_dict():
    # Python returns views for keys()/values()/items(); graph code returns tuples: compare
    # the contents against plain Python
    @jit
    def fn(x, y):
        d = {"a": x, "b": y}
        return d.keys(), d.values(), d.items(), d.get("b"), d.get("q", 5)

    x, y = f32(1), f32(2)
    keys, values, items, b, q = fn(x, y)
    assert keys == ("a", "b")
    np.testing.assert_array_equal(values[1].asnumpy(), [2.0])
    assert [k for k, _ in items] == ["a", "b"]
    np.testing.assert_array_equal(b.asnumpy(), [2.0])
    assert q == 5


def test_dict_fromkeys_with_run_time_value():
    def fn(x):
        t = {}
        return t.fromkeys(("1", "2", "3"), x)

    check_all_modes(fn, f32(1))

    @jit
    def g(x):
        return {}.fromkeys(("p", "q"), x)

    assert g(ms.mutable(2)) == {"p": 2, "q": 2}


def test_kwargs_dict_get():
    def fn(*args, **conf):
        return args[0] * 2 + conf.get("a", 0) + conf.get("c", 10)

    x = f32(1, 2)
    for mode in ("pynative", "graph"):
        out = run_mode(mode, fn, x, a=x, b=x)
        np.testing.assert_array_equal(out.asnumpy(), [13.0, 16.0])


def test_missing_container_method_names_type_and_method():
    @jit
    def fn(d):
        return d.nosuch(1)

    with pytest.raises(TypeError, match="'dict' object has no attribute 'nosuch'"):
        fn({"a": f32(1)})


# ---------------------------------------------------------------- iterating a dict
def test_for_loop_over_dict_iterates_keys():
    # int keys 0..n-1: indexing the dict by position would give the values instead
    def fn(x, y):
        d = {0: x, 1: y}
        keys = ()
        total = x * 0
        for k in d:
            keys = keys + (k,)
            total = total + d[k]
        return keys, total

    keys, total = check_all_modes(fn, f32(5), f32(6))
    assert keys == (0, 1)
    np.testing.assert_array_equal(total.asnumpy(), [11.0])


# ---------------------------------------------------------------- list / tuple methods
def test_list_and_tuple_index_count():
    def fn(x):
        xs = [1, 2, 3, 2]
        ts = (x, 4, 4)
        return xs.index(2), xs.count(2), xs.index(2, 2), ts.count(4), ts.index(4)

    assert check_all_modes(fn, f32(1)) == (1, 2, 3, 2, 1)


def test_list_index_missing_raises_value_error():
    @jit
    def fn(x):
        return [1, 2].index(5)

    with pytest.raises(ValueError, match="not in list"):
        fn(f32(1))


# ---------------------------------------------------------------- strings
def test_str_format_and_methods_on_constants():
    def fn(x):
        s = "{} and {}".format(1, "b")
        return s, "a-b".upper(), "%d items" % 3, "%s/%s" % ("p", "q"), x + 1

    out = check_all_modes(fn, f32(1))
    assert out[:4] == ("1 and b", "A-B", "3 items", "p/q")


def test_format_of_run_time_value_in_a_raise():
    for mode in ("pynative", "graph"):
        def fn(x):
            if x > 2:
                raise ValueError("x is %s" % x)
            return x

        with pytest.raises(ValueError, match="x is"):
            run_mode(mode, fn, ms.mutable(3))


def test_assert_message_formatted_from_run_time_value():
    def fn(x):
        assert x in [2, 3, 4], "{} not in [2, 3, 4]".format(x)
        return x + 1

    for mode in ("pynative", "graph"):
        assert run_mode(mode, fn, ms.mutable(3)) == 4
        with pytest.raises(AssertionError, match="1 not in"):
            run_mode(mode, fn, ms.mutable(1))


# ---------------------------------------------------------------- `in`
@pytest.mark.parametrize("seq", [[1, 2, 3], (1, 2, 3), {1: 1, 2: 2}])
@pytest.mark.parametrize("x", [1, 0])
def test_in_with_run_time_operands(seq, x):
    def fn(a, b):
        return a in b, a not in b

    expect = (x in seq, x not in seq)
    assert run_mode("graph", fn, ms.mutable(x), seq) == expect
    assert run_mode("graph", fn, x, ms.mutable(seq)) == expect


def test_tensor_in_list_of_tensors():
    a = Tensor(np.ones((2, 3), np.float32))
    b = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def fn(x, xs):
        return x in xs, x not in xs

    # Python: a is the first item (equal in every element); b equals neither a nor a*2
    assert run_mode("graph", fn, a, [a, b]) == (True, False)
    assert run_mode("graph", fn, b, [a, a * 2]) == (False, True)
    assert run_mode("graph", fn, b, [a, b]) == (True, False)


# ---------------------------------------------------------------- comparisons
def test_sequence_order_comparisons():
    def fn(x, y):
        m = (1, (x, x + 1))
        n = (2, (y, y - 1))
        return (m < n, m <= n, m > n, m >= n, (1, 2) < (1, 2, 0), [3, 1] > [2, 9],
                (1, 2) == (1, 2), (1, (2, 3)) != (1, (2, 4)), ("a", 1) < ("b", 0))

    assert check_all_modes(fn, f32(1), f32(3)) == (True, True, False, False, True, True, True,
                                                    True, True)


def test_sequence_comparison_needing_run_time_items_is_refused():
    @jit
    def fn(x, y):
        return (x + 2, 1) < (y + 2, 2)

    with pytest.raises(TypeError, match="input element must be scalar"):
        fn(f32(1), f32(3))


def test_sequence_times_float_is_a_type_error():
    for mode in ("pynative", "graph"):
        def fn(x):
            return [1, 2, 3] * 2.0

        with pytest.raises(TypeError, match="can't multiply sequence by non-int of type 'float'"):
            run_mode(mode, fn, f32(1))

    def g(x):
        return 2 * (1, 2), [x] * 2

    check_all_modes(g, f32(1))


# ---------------------------------------------------------------- slice assignment
class _SliceAssign(nn.Cell):
    def construct(self, start=None, stop=None, step=None):
        a = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        b = Tensor([11, 22, 33])
        a[start:stop:step] = b
        return tuple(a)


@pytest.mark.parametrize("bounds", [(0, 3, None), (0, None, 3), (2, 4, None), (-2, None, None),
                                    (None, None, -3), (5, 1, None)])
def test_list_slice_assignment(bounds):
    out = {}
    for mode in ("pynative", "graph"):
        out[mode] = run_mode(mode, _SliceAssign(), *bounds)
    assert len(out["graph"]) == len(out["pynative"])
    for g, p in zip(out["graph"], out["pynative"]):
        assert int(g) == int(p)


def test_list_slice_assignment_errors():
    def fn(a, b, start, stop, step):
        a[start:stop:step] = b
        return tuple(a)

    for mode in ("pynative", "graph"):
        with pytest.raises(TypeError, match="can only assign an iterable"):
            run_mode(mode, fn, [1, 2, 3], 1, 0, None, 1)
        with pytest.raises(TypeError, match="must assign iterable to extended slice"):
            run_mode(mode, fn, [1, 2, 3], 1, 0, None, 2)
        with pytest.raises(ValueError, match="attempt to assign sequence of size 3 to extended "
                                             "slice of size 2"):
            run_mode(mode, fn, [1, 2, 3], (4, 5, 6), 0, None, 2)


# ---------------------------------------------------------------- raises and unary ops
class _NestedRaise(nn.Cell):
    def __init__(self, y):
        super().__init__()
        self.x = Tensor(2)
        self.y = y

    def construct(self):
        z = 2
        if self.x > 1:
            if self.y == 1:  # pylint: disable=no-else-raise
                raise RuntimeError("Some error")
            else:
                z = z + 1
        return z


def test_branch_whose_nested_if_raises():
    for mode in ("pynative", "graph"):
        with pytest.raises(RuntimeError, match="Some error"):
            run_mode(mode, _NestedRaise(1))
        assert run_mode(mode, _NestedRaise(0)) == 3


def test_invert_of_python_scalars():
    def fn(x):
        return ~x

    for mode in ("pynative", "graph"):
        assert run_mode(mode, fn, True) == -2
        assert run_mode(mode, fn, False) == -1
        assert run_mode(mode, fn, 5) == -6
        with pytest.raises(TypeError, match="bad operand type for unary ~: 'float'"):
            run_mode(mode, fn, 1.5)


# ---------------------------------------------------------------- asnumpy, tensor()
def test_asnumpy_in_graph_code_is_the_tensor_value():
    class Helper:
        def __init__(self):
            self.n = 2

        def twice(self, x):
            return self.n * x.asnumpy()

    h = Helper()

    @jit
    def fn(x, y):
        z = ms.tensor(x.asnumpy() + y.numpy(), ms.float32)
        return h.twice(x), ms.ops.abs(z)

    x, y = f32(-1, 1, 2), f32(-3, 1, 1)
    a, b = fn(x, y)
    np.testing.assert_array_equal(a.asnumpy(), 2 * x.asnumpy())
    np.testing.assert_array_equal(b.asnumpy(), np.abs(x.asnumpy() + y.asnumpy()))


def test_tensor_function():
    t = ms.tensor([1, 2], ms.float32)
    assert isinstance(t, Tensor) and t.dtype == ms.float32
    np.testing.assert_array_equal(t.asnumpy(), [1.0, 2.0])
    with pytest.raises(ValueError, match="device"):
        ms.tensor([1], device="Ascend")


# ---------------------------------------------------------------- calling a run-time value
class _Opaque:
    """A class graph code cannot compile: built by the JIT fallback at run time."""

    def __init__(self, v):
        self.v = v

    def __call__(self, x):
        return x


def test_calling_a_fallback_value_names_the_callee():
    @jit
    def fn(x):
        op = _Opaque(x)
        return op(x)

    with pytest.raises(TypeError, match=r"not callable: the callee is the result of .*_Opaque"):
        fn(f32(1))


# ---------------------------------------------------------------- Python's error messages
def _two_kwonly(a, b, *, d, e):
    return a


def test_missing_arguments_read_as_python():
    def one(x):
        return _two_kwonly(x)

    def kw(x):
        return _two_kwonly(x, x)

    for mode in ("pynative", "graph"):
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'b'"):
            run_mode(mode, one, 1)
        with pytest.raises(TypeError,
                           match="missing 2 required keyword-only arguments: 'd' and 'e'"):
            run_mode(mode, kw, 1)


def test_in_on_a_number_is_not_iterable():
    def fn(x, y):
        return x in y

    for mode in ("pynative", "graph"):
        with pytest.raises(TypeError, match="argument of type 'int' is not iterable"):
            run_mode(mode, fn, 1, 2)


def test_tensor_of_run_time_tensor_in_graph_code():
    def fn(x):
        return Tensor(x), Tensor(x, ms.int32), Tensor(x.asnumpy() * 2, dtype=ms.float64)

    x = f32(1.5, -2)
    for mode in ("pynative", "graph"):
        a, b, c = run_mode(mode, fn, x)
        assert (a.dtype, b.dtype, c.dtype) == (ms.float32, ms.int32, ms.float64)
        np.testing.assert_array_equal(a.asnumpy(), [1.5, -2])
        np.testing.assert_array_equal(b.asnumpy(), [1, -2])
        np.testing.assert_array_equal(c.asnumpy(), [3, -4])


# ---------------------------------------------------------------- ops.Morph
def _scale(k):
    def inner(a, b=2.0):
        return a * k * b
    return inner


class _MorphNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(f32(1, 2, 3), name="w")
        self.scale = ms.ops.Morph(_scale(10.0), lambda *s: s[0], lambda *t: t[0])

    def construct(self, x):
        return self.scale(x * self.w, b=3.0) * self.w


def test_morph_in_graph_mode_and_its_gradient():
    x = f32(7, 8, 9)
    w = np.array([1, 2, 3], np.float32)
    saved = ms.get_context("mode")
    try:
        ms.set_context(mode=ms.GRAPH_MODE)
        net = _MorphNet()
        np.testing.assert_allclose(net(x).asnumpy(), 30 * x.asnumpy() * w * w, rtol=1e-6)
        dx, (dw,) = ms.ops.GradOperation(get_all=True, get_by_list=True)(
            net, net.trainable_params())(x)
        # out = 30 x w^2: d/dx = 30 w^2, d/dw = 60 x w
        np.testing.assert_allclose(dx[0].asnumpy(), 30 * w * w, rtol=1e-6)
        np.testing.assert_allclose(dw.asnumpy(), 60 * x.asnumpy() * w, rtol=1e-6)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        with pytest.raises(RuntimeError, match="Morph is only supported in GRAPH_MODE"):
            _MorphNet()(x)
    finally:
        ms.set_context(mode=saved)


def test_too_many_primitive_inputs_message_in_both_modes():
    def fn(x):
        return ms.ops.Abs()(x, x)

    for mode in ("pynative", "graph"):
        with pytest.raises(TypeError, match=r"For Operator\[Abs\], the number of inputs should be "
                                            r"less than or equal to 1, but got 2"):
            run_mode(mode, fn, f32(1))


def test_no_bytecode_jit_records():
    from mycel._c_expression import get_code_extra
    from mycel.common._pijit_context import PIJitCaptureContext

    def fn(x):
        return x + 1

    jit(fn)(f32(1))
    assert get_code_extra(fn.__code__) is None and get_code_extra(fn) is None
    with pytest.raises(TypeError, match="code object"):
        get_code_extra(3)
    with pytest.raises(NotImplementedError, match="capture_mode='ast'"):
        PIJitCaptureContext(fullgraph=True)(fn)


class _Money:
    """A host object with operators (reflected ones included)."""

    def __init__(self, v):
        self.v = v

    def __radd__(self, other):
        return other + self.v

    def __or__(self, other):
        return self.v | other


_TEN = _Money(10)


def test_operators_of_host_objects_run_as_python():
    import re

    def fn(x):
        flags = re.M | re.I
        return int(flags), 5 + _TEN, _TEN | 3, x * 2

    out = check_all_modes(fn, f32(1))
    assert out[:3] == (int(re.M | re.I), 15, 11)


# ---------------------------------------------------------------- type() of run-time values


def _types(xs, d, n, t):
    k = n * 2
    names = (type(xs).__name__, type(d).__name__, type(k).__name__, type(n > 0).__name__,
             type(k * 0.5).__name__, type(tuple(xs)).__name__)
    if type(xs) is list and type(k) is int:
        return names, t * k
    return names, t


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_type_of_run_time_values(mode):
    """type() of a list, dict or number known only at run time is its Python class."""
    xs, d = [f32(1.0), f32(2.0)], {"a": f32(3.0)}
    names, out = run_mode(mode, _types, xs, d, ms.mutable(3), f32(1.5))
    assert names == ("list", "dict", "int", "bool", "float", "tuple")
    np.testing.assert_allclose(out.asnumpy(), [9.0])

"""Shape-reading APIs in GRAPH mode where a dimension is unknown at compile time
(Cell.set_inputs with None): each gives the run-time sizes, as in PYNATIVE mode, through one
compilation for every size; never the -1 placeholder as a size or a number. Where graph mode
cannot honestly give a tensor of such a shape (a fill of it), the error is typed and names
the op and the user's line. Oracles: PYNATIVE mode on the same inputs, and numpy."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor, nn, ops
from mycel.ops import operations as P

SIZES = (1, 5, 12)


class _Fn(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, x):
        return self.fn(x)


@pytest.fixture(autouse=True)
def _restore_mode():
    old = ms.get_context("mode")
    yield
    ms.set_context(mode=old)


def _input(n, cols=3):
    return np.arange(n * cols, dtype=np.float32).reshape(n, cols)


def _value(r):
    if isinstance(r, Tensor):
        return ("tensor", str(r.dtype), tuple(r.shape), r.asnumpy().tolist())
    if isinstance(r, (tuple, list)):
        return tuple(_value(e) for e in r)
    return r


def _both(fn, arrays, sig=(None, 3)):
    """fn's results on each array: GRAPH (one Cell under set_inputs(sig)) and PYNATIVE, and
    the GRAPH Cell's number of compilations."""
    ms.set_context(mode=ms.GRAPH_MODE)
    g = _Fn(fn)
    g.set_inputs(Tensor(shape=list(sig), dtype=ms.float32))
    graph = [_value(g(Tensor(a))) for a in arrays]
    compiles = g._mycel_graph._graph.num_compiles
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = [_value(_Fn(fn)(Tensor(a))) for a in arrays]
    return graph, eager, compiles


def _check(fn, oracle, arrays=None, sig=(None, 3)):
    arrays = arrays if arrays is not None else [_input(n) for n in SIZES]
    graph, eager, compiles = _both(fn, arrays, sig)
    want = [_value(oracle(a)) for a in arrays]
    assert graph == want
    assert eager == want
    assert compiles == 1  # every size runs the one graph


def _shape_tensor(shape):
    return Tensor(np.array(shape, np.int64))


def test_ops_shape_and_primitive_shape_give_run_time_sizes():
    _check(lambda x: ops.shape(x), lambda a: a.shape)
    _check(lambda x: P.Shape()(x), lambda a: a.shape)
    _check(lambda x: ops.shape(x)[0] + 1, lambda a: a.shape[0] + 1)
    _check(lambda x: P.Shape()(x)[0] * 2 - ops.shape(x)[1], lambda a: a.shape[0] * 2 - 3)
    _check(lambda x: x.shape[0] * 2, lambda a: a.shape[0] * 2)


def test_shape_as_tensor_gives_run_time_sizes():
    _check(lambda x: ops.dyn_shape(x), lambda a: _shape_tensor(a.shape))
    _check(lambda x: P.TensorShape()(x), lambda a: _shape_tensor(a.shape))
    # used in tensor arithmetic
    _check(lambda x: ops.dyn_shape(x) * 2, lambda a: _shape_tensor(a.shape) * 2)


def test_element_counts_and_lengths_give_run_time_values():
    for fn in (lambda x: ops.size(x), lambda x: x.size, lambda x: ops.numel(x),
               lambda x: x.numel(), lambda x: P.Size()(x)):
        _check(fn, lambda a: a.size)
    _check(lambda x: len(x), lambda a: len(a))
    _check(lambda x: (ops.rank(x), P.Rank()(x), x.ndim), lambda a: (2, 2, 2))


def test_two_dynamic_dimensions():
    arrays = [np.ones((n, m), np.float32) for n, m in ((2, 7), (6, 1), (3, 3))]
    _check(lambda x: (ops.shape(x), x.size, len(x)), lambda a: (a.shape, a.size, len(a)),
           arrays, sig=(None, None))
    _check(lambda x: ops.dyn_shape(x), lambda a: _shape_tensor(a.shape), arrays,
           sig=(None, None))


def test_zero_d_and_static_inputs():
    ms.set_context(mode=ms.GRAPH_MODE)
    for fn, want in ((lambda x: ops.dyn_shape(x), []), (lambda x: ops.shape(x), ())):
        r = _Fn(fn)(Tensor(np.float32(2.0)))
        assert _value(r) == _value(_shape_tensor(want) if isinstance(want, list) else want)
    # without set_inputs the shape is static: a constant, as before
    assert _Fn(lambda x: ops.shape(x)[0] + 1)(Tensor(_input(4))) == 5


def test_dynamic_rank_placeholder():
    # Tensor(shape=None): any rank; shapes are those of each call.
    arrays = [np.ones(s, np.float32) for s in ((2,), (3, 4), (1, 2, 5))]
    ms.set_context(mode=ms.GRAPH_MODE)
    g = _Fn(lambda x: (ops.shape(x), ops.dyn_shape(x), x.size))
    g.set_inputs(Tensor(shape=None, dtype=ms.float32))
    for a in arrays:
        assert _value(g(Tensor(a))) == (a.shape, _value(_shape_tensor(a.shape)), a.size)


def test_shapes_used_in_reshape_broadcast_and_arithmetic():
    _check(lambda x: ops.reshape(x, ops.shape(x)), lambda a: Tensor(a))
    _check(lambda x: x.reshape(x.shape[0], 3), lambda a: Tensor(a))
    _check(lambda x: ops.broadcast_to(x[:, :1], x.shape),
           lambda a: Tensor(np.broadcast_to(a[:, :1], a.shape).copy()))
    _check(lambda x: x * x.shape[0] + ops.shape(x)[1],
           lambda a: Tensor(a * a.shape[0] + a.shape[1]))
    _check(lambda x: ops.zeros_like(x) + len(x), lambda a: Tensor(np.zeros_like(a) + len(a)))


_Y = np.arange(30, dtype=np.float32).reshape(2, 15)
_ONE_ROW = np.ones((1, 3), np.float32)


def test_reshape_to_a_run_time_shape_that_does_not_fit_raises_in_both_modes():
    # GRAPH mode infers the run-time entry as -1: (10, 3) here, where the requested (5, 3)
    # does not fit 30 elements; the run-time check makes it the error PYNATIVE gives.
    def fn(x):
        return ops.reshape(Tensor(_Y), (x.shape[0], 3))

    ms.set_context(mode=ms.GRAPH_MODE)
    g = _Fn(fn)
    g.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    with pytest.raises(ValueError, match="reshape"):
        g(Tensor(_input(5)))
    assert _value(g(Tensor(_input(10)))) == _value(Tensor(_Y.reshape(10, 3)))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="reshape"):
        _Fn(fn)(Tensor(_input(5)))


def test_broadcast_of_a_static_one_to_a_run_time_size_is_refused_not_wrong():
    # GRAPH mode keeps the input's dimension where the target's is known only at run time
    # (it has no way to size a new one): a static 1 would stay 1, so it is a ValueError when
    # it runs rather than a (1, 3) result; PYNATIVE broadcasts.
    def fn(x):
        return ops.broadcast_to(Tensor(_ONE_ROW), x.shape)

    ms.set_context(mode=ms.GRAPH_MODE)
    g = _Fn(fn)
    g.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    with pytest.raises(ValueError, match="broadcast_to.*run time"):
        g(Tensor(_input(5)))
    assert _value(g(Tensor(_input(1)))) == _value(Tensor(_ONE_ROW))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert _value(_Fn(fn)(Tensor(_input(5)))) == _value(Tensor(np.ones((5, 3), np.float32)))


def test_numbers_and_tuples_to_tensors_and_full_like_give_run_time_values():
    _check(lambda x: ops.scalar_to_tensor(x.shape[0], ms.int32),
           lambda a: Tensor(np.int32(a.shape[0])))
    _check(lambda x: P.ScalarToTensor()(ops.shape(x)[0]), lambda a: Tensor(np.float32(len(a))))
    _check(lambda x: ops.tuple_to_array(x.shape), lambda a: _shape_tensor(a.shape))
    _check(lambda x: P.TupleToArray()((x.shape[0], 2.5)),
           lambda a: Tensor(np.array([len(a), 2.5], np.float32)))
    for value, dtype, np_dtype in ((2.5, None, np.float32), (7, ms.int32, np.int32),
                                   (True, ms.bool_, np.bool_)):
        _check(lambda x: ops.full_like(x, value, dtype=dtype),
               lambda a: Tensor(np.full(a.shape, value, np_dtype)))


@pytest.mark.parametrize("name, fn", [
    ("eye", lambda x: ops.eye(x.shape[0])),
    ("zeros", lambda x: ops.zeros(x.shape)),
    ("ones", lambda x: ops.ones(ops.shape(x))),
    ("full", lambda x: ops.full((x.shape[0],), 2.0)),
    ("fill", lambda x: ops.fill(ms.float32, x.shape, 1.0)),
    ("tile", lambda x: ops.tile(Tensor(_ONE_ROW), (x.shape[0], 1))),
])
def test_fills_of_a_run_time_shape_are_typed_errors_naming_op_and_line(name, fn):
    ms.set_context(mode=ms.GRAPH_MODE)
    g = _Fn(fn)
    g.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    with pytest.raises(TypeError, match=rf"(?s)For '{name}'.*known only at run time"
                                        rf".*test_dynamic_shape_values\.py"):
        g(Tensor(_input(5)))
    # PYNATIVE mode (every size known) gives the value
    ms.set_context(mode=ms.PYNATIVE_MODE)
    r = _Fn(fn)(Tensor(_input(5)))
    assert r.shape[0] == 5


def test_reshape_to_a_computed_run_time_size_is_a_typed_error():
    # x.shape[0] * 3 is known only at run time and is not a dimension of x: Reshape's shape
    # must be known at compile time (a TypeError naming the op and the line).
    ms.set_context(mode=ms.GRAPH_MODE)
    g = _Fn(lambda x: ops.reshape(x, (x.shape[0] * 3,)))
    g.set_inputs(Tensor(shape=[None, 3], dtype=ms.float32))
    with pytest.raises(TypeError, match=r"(?s)Reshape.*compile time.*test_dynamic_shape_values"):
        g(Tensor(_input(5)))


def test_view_by_the_batch_dimension_and_a_minus_one():
    # x.view(x.shape[0], -1): the run-time entry is the input's dynamic dimension, the -1
    # the rest; checked when it runs.
    arrays = [np.arange(n * 6, dtype=np.float32).reshape(n, 2, 3) for n in (1, 4, 9)]
    _check(lambda x: ops.reshape(x, (x.shape[0], -1)),
           lambda a: Tensor(a.reshape(len(a), -1)), arrays, sig=(None, 2, 3))
    _check(lambda x: x.view(x.shape[0], -1), lambda a: Tensor(a.reshape(len(a), -1)), arrays,
           sig=(None, 2, 3))
    _check(lambda x: x.reshape(-1, ops.shape(x)[0]), lambda a: Tensor(a.reshape(-1, len(a))),
           arrays, sig=(None, 2, 3))


def test_view_by_another_tensors_dimension_that_does_not_match_raises():
    # The run-time entry is not this input's dynamic dimension: PYNATIVE gives (3, 8) for a
    # (6, 4) input and y of 3 rows; GRAPH mode cannot size the -1 without it and says so when
    # it runs (never a wrong shape). With y of 6 rows both modes agree.
    class Two(nn.Cell):
        def construct(self, x, y):
            return ops.reshape(x, (y.shape[0], -1))

    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    ms.set_context(mode=ms.GRAPH_MODE)
    g = Two()
    g.set_inputs(Tensor(shape=[None, 4], dtype=ms.float32),
                 Tensor(shape=[None], dtype=ms.float32))
    with pytest.raises(ValueError, match="reshape.*run time"):
        g(Tensor(x), Tensor(np.ones(3, np.float32)))
    np.testing.assert_array_equal(g(Tensor(x), Tensor(np.ones(6, np.float32))).asnumpy(),
                                  x.reshape(6, -1))
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(Two()(Tensor(x), Tensor(np.ones(3, np.float32))).asnumpy(),
                                  x.reshape(3, -1))

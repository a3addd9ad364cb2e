"""MindSpore's primitives over tuples and lists (mycel.ops.operations._sequence_ops), in both
modes, against Python's own sequence operations and numpy."""
import numpy as np
import pytest

import mycel as ms
from mycel import Tensor
from mycel.ops.operations import _sequence_ops as seq

MODES = [ms.PYNATIVE_MODE, ms.GRAPH_MODE]


@pytest.fixture(params=MODES, ids=["pynative", "graph"])
def mode(request):
    ms.set_context(mode=request.param)
    yield request.param
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _numbers(t):
    return (seq.SequenceAdd()(t, (7, 8)), seq.SequenceMul()(t, 2), seq.SequenceCount()(t, 2),
            seq.SequenceIndex()(t, 2, 2), seq.SequenceLen()(t), seq.SequenceMax()(t),
            seq.SequenceMin()(t), seq.SequenceSlice()(t, 1, None, 2), seq.InSequence()(3, t))


def test_sequence_ops_on_numbers(mode):
    t = (1, 2, 3, 2, 5)
    got = ms.jit(_numbers)(t)
    assert got == (t + (7, 8), t * 2, t.count(2), t.index(2, 2), len(t), max(t), min(t),
                   t[1::2], 3 in t)


def _tensors(a, b):
    xs = [a, b, a * b]
    return (seq.SequenceAddN()(xs), seq.SequenceConcat(1)(xs), seq.SequenceStack(0)(xs),
            seq.SequenceMul()(xs, 2)[3], seq.TupleToTensor()((1.5, 2.5), ms.float32),
            seq.ScalarToTensor()(3, ms.int32))


def test_sequence_ops_on_tensors(mode):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    s, c, st, again, tt, sc = ms.jit(_tensors)(Tensor(a), Tensor(b))
    np.testing.assert_allclose(s.asnumpy(), a + b + a * b, rtol=1e-6)
    np.testing.assert_allclose(c.asnumpy(), np.concatenate([a, b, a * b], 1), rtol=1e-6)
    np.testing.assert_allclose(st.asnumpy(), np.stack([a, b, a * b], 0), rtol=1e-6)
    np.testing.assert_allclose(again.asnumpy(), a)
    np.testing.assert_allclose(tt.asnumpy(), [1.5, 2.5])
    assert tt.dtype == ms.float32 and sc.dtype == ms.int32 and int(sc.asnumpy()) == 3


def test_sequence_ops_check_their_inputs():
    with pytest.raises(TypeError, match="SequenceMul"):
        seq.SequenceMul()((1, 2), 1.5)
    with pytest.raises(TypeError, match="SequenceAdd"):
        seq.SequenceAdd()((1,), 2)
    with pytest.raises(TypeError, match="TupleToTensor"):
        seq.TupleToTensor()([1, 2])
    with pytest.raises(ValueError):
        seq.SequenceIndex()((1, 2), 3)

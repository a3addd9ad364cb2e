"""The findings of the bad-input sweep (test_bad_input_sweep.py), each fixed at its cause and
kept here as a plain test: typed errors naming the op where a bare AttributeError, a hang or
a silent wrong answer came before, in PYNATIVE mode and under ms.jit where the op runs there."""
import numpy as np
import pytest

import mycel as ms
from mycel import ops
from mycel.ops import operations as P


def t(shape, dtype=np.float32):
    return ms.Tensor(np.arange(int(np.prod(shape))).reshape(shape).astype(dtype))


@pytest.mark.parametrize("call, exc, pattern", [
    # A Python number or tuple where a tensor goes: AttributeError ('int' has no 'shape').
    (lambda: ops.lu_solve(t((2, 2)), t((2, 2)), 0), TypeError, "lu_solve.*LU_pivots"),
    (lambda: ops.ormqr(t((2, 3)), 1, t((2, 3))), TypeError, "ormqr.*tau"),
    (lambda: ops.roi_align(t((1, 1, 2, 2)), 0, 1, 1, 1.0), TypeError, "roi_align.*rois"),
    (lambda: P.ROIAlign(1, 1, 1.0)(t((1, 1, 2, 2)), 0), TypeError, "roi_align.*rois"),
    (lambda: P.Orgqr()(t((3, 2)), (1, 2)), TypeError, "orgqr.*input2"),
    (lambda: P.ComputeAccidentalHits()(t((2, 1)), 0), TypeError, "ComputeAccidentalHits"),
    (lambda: ops.diagonal_scatter(t((2, 3)), float("nan")), TypeError, "diagonal_scatter.*src"),
    (lambda: ops.constexpr(t((2,))), TypeError, "constexpr.*function"),
    (lambda: P.Primitive(), TypeError, "Primitive.*no op"),
    # 2**62 sections of a 4-row tensor looped (and grew a tuple) without end.
    (lambda: ops.vsplit(t((4, 5)), 2 ** 62), ValueError, "tensor_split.*sections"),
    (lambda: ops.tensor_split(t((4,)), 1 << 20), ValueError, "tensor_split.*limit"),
    # The first element of any tensor was taken as the count: a bool (2, 3) tensor gave an
    # empty permutation, a float NaN window length a bare "cannot convert float NaN".
    (lambda: ops.randperm(ms.Tensor(np.ones((2, 3), bool))), TypeError, "randperm.*one integer"),
    (lambda: P.RandpermV2()(t((3,), np.float16)), TypeError, "randperm.*one integer"),
    (lambda: P.Randperm(4)(t((2,), np.int64)), TypeError, "Randperm.*one integer"),
    (lambda: ops.hann_window(ms.Tensor(np.array([np.nan], np.float32))), TypeError,
     "hann_window.*window_length"),
    (lambda: ops.polygamma(ms.Tensor(np.array([1.5])), t((2,))), TypeError, "polygamma.*n"),
    # Python's own message for a wrong argument count named "_unary.<locals>.f".
    (lambda: ops.abs(t((2,)), 1), TypeError, r"^Abs\(\) takes 1 positional"),
    (lambda: ops.equal(t((2,))), TypeError, r"^Equal\(\) missing 1 required"),
])
def test_bad_input_is_a_typed_error_naming_the_op(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_split_and_count_arguments_that_are_fine_still_work():
    pieces = ops.tensor_split(t((2,)), 3)  # more pieces than rows: the extra ones empty
    assert [p.shape for p in pieces] == [(1,), (1,), (0,)]
    assert sorted(ops.randperm(ms.Tensor(np.array([5]))).asnumpy().tolist()) == [0, 1, 2, 3, 4]
    assert sorted(P.RandpermV2()(ms.Tensor(np.array(4))).asnumpy().tolist()) == [0, 1, 2, 3]
    np.testing.assert_allclose(ops.hann_window(ms.Tensor(np.array(4))).asnumpy(),
                               [0, 0.5, 1, 0.5], atol=1e-6)


def test_dense_primitive_matches_numpy():
    # P.Dense called array_func.dense, which does not exist (AttributeError on every call).
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((2, 3), (4, 3), (4,)))
    got = P.Dense()(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b)).asnumpy()
    np.testing.assert_allclose(got, x @ w.T + b, rtol=1e-5, atol=1e-6)
    got = P.Dense(has_bias=False)(ms.Tensor(x), ms.Tensor(w)).asnumpy()
    np.testing.assert_allclose(got, x @ w.T, rtol=1e-5, atol=1e-6)


def test_randperm_count_tensor_under_jit_raises_too():
    # GRAPH mode cannot size a permutation by a tensor's value (its shape must be known when
    # compiling): it raises as PYNATIVE does for a bad count, never returns an empty one.
    @ms.jit
    def run(n):
        return ops.randperm(n)
    with pytest.raises(TypeError, match="randperm|UniformReal"):
        run(ms.Tensor(np.ones((2, 3), bool)))


@pytest.mark.parametrize("call, exc, pattern", [
    # Python values where a tensor goes (seed 1 of the sweep): bare AttributeErrors.
    (lambda: ops.conv3d(t(()), None), TypeError, "conv3d.*weight"),
    (lambda: ops.einsum("ij->i", t((2, 3)), 1), TypeError, "einsum.*operand"),
    (lambda: ops.grid_sample(t((2, 3)), "abc"), TypeError, "grid_sample.*grid"),
    (lambda: P.GridSampler3D()(t((2, 3)), 1.5), TypeError, "grid_sample.*grid"),
    (lambda: ops.jet(ops.sin, t((2,)), "abc"), TypeError, "jet.*Tensors"),
    (lambda: ops.lu_unpack(t((2, 2)), 0), TypeError, "lu_unpack.*LU_pivots"),
    (lambda: P.LuUnpack()(t((2, 2)), -100), TypeError, "lu_unpack.*LU_pivots"),
    (lambda: ops.scatter(t((2, 3)), 0, (1, 2), (1, 2)), TypeError, "scatter.*index"),
    (lambda: ops.slice_scatter(t((2, 3)), 5), TypeError, "slice_scatter.*src"),
    (lambda: P.SameTypeShape()(t((2, 3)), 1.5), TypeError, "SameTypeShape.*Tensors"),
    # A 0-d input: "integer modulo by zero".
    (lambda: ops.moveaxis(t(()), 0, 0), ValueError, r"moveaxis.*\[0, 0\)"),
    (lambda: ops.moveaxis(t((2, 3)), 2, 0), ValueError, r"moveaxis.*\[-2, 2\)"),
    # A 2-d integer tensor was flattened into a shape.
    (lambda: ops.gamma(ms.Tensor(np.array([[1, 2], [3, 4]], np.int32)), t(()) + 1, t(()) + 1),
     ValueError, "gamma.*0-d or 1-d"),
])
def test_more_bad_input_is_a_typed_error_naming_the_op(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


@pytest.mark.parametrize("call, op", [
    # Host tables sized by the arguments (numpy or Python lists made at trace time): a
    # MemoryError, numpy's unnamed "array is too big", or a list of 2**62 floats built until
    # the machine ran out (linspace, combinations) before.
    (lambda: ops.linspace(0.0, 1.0, 2 ** 62), "linspace"),
    (lambda: ops.repeat_interleave(t((2, 3)), 2 ** 40), "repeat_interleave"),
    (lambda: ops.repeat_interleave(t((2,)), [2 ** 62, 2 ** 62]), "repeat_interleave"),
    (lambda: ops.bartlett_window(2 ** 40), "bartlett_window"),
    (lambda: ops.hann_window(2 ** 62), "hann_window"),
    (lambda: ops.triu_indices(2 ** 40, 2 ** 40), "triu_indices"),
    (lambda: ops.combinations(t((100,)), 50), "combinations"),
    (lambda: ops.diag_embed(t((2, 3)), offset=2 ** 40), "diag_embed"),
    (lambda: ops.eye(2 ** 40, 2 ** 40), "eye"),
])
def test_host_tables_past_the_machines_memory_are_refused_first(call, op):
    with pytest.raises(RuntimeError, match=f"For '{op}', the result needs .* more than this "
                                           "machine's memory"):
        call()


@pytest.mark.parametrize("call, op", [
    (lambda: ops.full((2 ** 40,), 1.0), "Fill"),
    (lambda: ops.pad(t((2, 3)), (2 ** 40, 2 ** 40)), "Pad"),
    (lambda: ops.unsorted_segment_sum(t((2, 3)), ms.Tensor(np.array([0, 1], np.int32)), 2 ** 40),
     "UnsortedSegmentSum"),
])
def test_an_output_too_large_to_allocate_names_the_op_and_shape(call, op):
    # The allocator's "out of memory: cannot allocate N bytes" named neither.
    with pytest.raises(RuntimeError, match=rf"For '{op}', cannot allocate the output of shape "
                                           r"\[.*out of memory"):
        call()


def test_small_host_tables_are_unchanged():
    np.testing.assert_allclose(ops.linspace(0.0, 1.0, 5).asnumpy(), np.linspace(0, 1, 5),
                               rtol=1e-6)
    np.testing.assert_allclose(ops.linspace(2.0, 3.0, 1).asnumpy(), [2.0])
    assert ops.combinations(t((5,)), 2).shape == (10, 2)
    np.testing.assert_array_equal(ops.repeat_interleave(t((3,)), 2).asnumpy(),
                                  np.repeat(np.arange(3.0), 2))
    np.testing.assert_array_equal(ops.moveaxis(t((2, 3, 4)), 0, -1).asnumpy(),
                                  np.moveaxis(np.arange(24.0).reshape(2, 3, 4), 0, -1))


@pytest.mark.parametrize("call, exc, pattern", [
    # Seed 2 of the sweep (keywords by name): ZeroDivisionError, AttributeError.
    (lambda: ops.clip_by_norm(t((2, 3)), 1.0, norm_type=0), ValueError, "clip_by_norm.*norm_type"),
    (lambda: ops.diagonal_scatter(t((2, 3)), t((2,)), offset=(-3, 2)), TypeError,
     "diagonal_scatter.*offset"),
])
def test_keyword_arguments_of_the_wrong_kind(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


F4 = lambda: t((1, 2, 3, 4))  # noqa: E731


@pytest.mark.parametrize("call, op", [
    # Python loops over an output size (seeds 0 and 1 of the sweep with per-op draws): a
    # list of 2**40 indices built until killed, or numpy's MemoryError.
    (lambda: P.ResizeNearestNeighbor((2 ** 40, 2 ** 40))(F4()), "resize_nearest_neighbor"),
    (lambda: P.PadV3()(t((2, 3)), (2 ** 40, 2 ** 40)), "PadV3"),
    (lambda: P.RandomCategorical()(t((0, 3)), 2 ** 62), "random_categorical"),
    (lambda: P.AdaptiveAvgPool2D((2 ** 40, 2 ** 40))(F4()), "adaptive_avg_pool"),
    (lambda: ops.interpolate(F4(), size=(2 ** 40, 2 ** 40)), "resize_nearest"),
    (lambda: ops.interpolate(F4(), size=(2 ** 40, 2 ** 40), mode="bilinear"),
     "resize_bilinear"),
])
def test_loops_over_an_output_size_past_the_machines_memory_are_refused(call, op):
    with pytest.raises(RuntimeError, match=f"For '{op}', the result needs"):
        call()


def test_small_resizes_and_pads_are_unchanged():
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    got = P.ResizeNearestNeighbor((6, 8))(F4()).asnumpy()
    np.testing.assert_array_equal(got, x.repeat(2, axis=2).repeat(2, axis=3))
    got = P.AdaptiveAvgPool2D((1, 1))(F4()).asnumpy()
    np.testing.assert_allclose(got, x.mean(axis=(2, 3), keepdims=True), rtol=1e-6)
    got = P.PadV3()(t((2, 3)), (1, 1)).asnumpy()
    np.testing.assert_array_equal(got, np.pad(np.arange(6.0).reshape(2, 3), ((0, 0), (1, 1))))


def test_conversion_errors_in_op_code_name_the_op():
    # int(), bool() and Tensor() of a bad argument inside an op's Python code named no op
    # ("the truth value of a tensor with 6 elements is ambiguous"): the Tensor binding now
    # asks mycel.ops._caller which op is running.
    x = t((2, 3))
    with pytest.raises(ValueError, match=r"^For 'sum', only a tensor with one element"):
        ops.sum(x, x)
    with pytest.raises(ValueError, match=r"^For 'zeros', the truth value of a tensor"):
        ops.zeros(x, x)
    with pytest.raises(TypeError, match=r"^For 'bitwise_xor', cannot convert"):
        ops.bitwise_xor(x, ms.float32)
    with pytest.raises(ValueError, match=r"^For 'OneHot', only a tensor with one element"):
        P.OneHot()(x, x)
    # outside ops code the messages are as before: no op to name
    with pytest.raises(ValueError, match=r"^the truth value of a tensor with 6 elements"):
        bool(x)
    with pytest.raises(ValueError, match=r"^only a tensor with one element"):
        int(x)


@pytest.mark.parametrize("call, exc, pattern", [
    # A constexpr helper's bare error ("'int' object is not iterable") now names the op
    # that called it (mycel.ops._caller through ops.constexpr).
    (lambda: P.BatchToSpace(1, -100)(F4()), TypeError, r"^For 'BatchToSpaceND', 'int' object"),
    (lambda: ops.mirror_pad(t((2, 3)), 5), TypeError, r"^For 'mirror_pad', 'int' object"),
    # Counts and seeds given as tensors of several values, or as strings.
    (lambda: P.Bincount()(t((2, 3)), t((2, 3)), t((2, 3))), TypeError, "Bincount.*one integer"),
    (lambda: ops.uniform((2,), ms.Tensor(0.0), ms.Tensor(1.0), seed="abc"), TypeError,
     "uniform.*seed"),
    (lambda: ops.multinomial_with_replacement(t((2, 3)), t((2, 3)), 0, 2), TypeError,
     "multinomial_with_replacement.*one integer"),
    (lambda: P.TripletMarginLoss()(*[t((2, 3))] * 4), ValueError,
     "^For 'TripletMarginLoss', only a tensor with one element"),
])
def test_helpers_and_counts_name_the_op(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_seeds_as_numpy_ints_and_tensors_still_work():
    for seed in (3, np.int64(3), ms.Tensor(np.array(3))):
        u = ops.uniform((3,), ms.Tensor(0.0), ms.Tensor(1.0), seed=seed).asnumpy()
        assert u.shape == (3,) and ((u >= 0) & (u < 1)).all()
        assert ops.standard_normal((3,), seed=seed).shape == (3,)
    assert ops.randperm(4, seed=5).shape == (4,)


def test_constexpr_keeps_user_helpers_working_in_both_modes():
    @ops.constexpr
    def twice(n):
        return 2 * n

    @ms.jit
    def run(x):
        return x * twice(3)
    np.testing.assert_allclose(run(t((2,))).asnumpy(), [0, 6])
    with pytest.raises(TypeError, match=r"^unsupported operand"):  # user code: not renamed
        twice(None)


def test_mvlgamma_of_a_huge_dimension_and_round_of_huge_decimals():
    # mvlgamma looped p ops (2**62: a hang); round's 10.0 ** decimals a bare OverflowError.
    with pytest.raises(RuntimeError, match="For 'mvlgamma', the result needs"):
        ops.mvlgamma(ms.Tensor(np.float32(1.5)), 2 ** 62)
    with pytest.raises(ValueError, match=r"For 'round', decimals must be in \[-308, 308\]"):
        ops.round(t((2,)), decimals=2 ** 62)


@pytest.mark.parametrize("p", [1, 2, 5])
def test_mvlgamma_matches_scipy(p):
    from scipy.special import multigammaln
    x = np.array([[2.5, 3.0], [4.2, 10.0]])
    want = np.vectorize(lambda v: multigammaln(v, p))(x)
    np.testing.assert_allclose(ops.mvlgamma(ms.Tensor(x), p).asnumpy(), want, rtol=1e-12)
    assert np.isnan(ops.mvlgamma(ms.Tensor(np.array([0.2])), 3).asnumpy()).all()


@pytest.mark.parametrize("call, exc, pattern", [
    # Arguments of the wrong kind that reached a comparison, tuple() or shape[...] first.
    (lambda: ops.sum(t((2, 3)), dtype="abc"), TypeError, r"^For 'sum', unknown dtype"),
    (lambda: ops.transpose(t((2, 3)), ms.float32), TypeError, "transpose.*input_perm"),
    (lambda: ops.squeeze(t((2, 3)), 1.5), TypeError, "squeeze.*axis"),
    (lambda: ops.split(t((2, 3)), 1.5), TypeError, "split.*split_size_or_sections"),
    (lambda: ops.split(t((2, 3)), 1, 1.5), TypeError, "split.*axis"),
    (lambda: ops.logit(t((2, 3)), [1]), TypeError, "logit.*eps"),
    (lambda: ops.hardtanh(t((2, 3)), 1.0, (1,)), TypeError, "hardtanh.*max_val"),
    (lambda: ops.rrelu(t((2, 3)), None), TypeError, "rrelu.*lower"),
    (lambda: ops.gumbel_softmax(t((2, 3)), (1,)), TypeError, "gumbel_softmax.*tau"),
    (lambda: ops.softshrink(t((2, 3)), "abc"), TypeError, "softshrink.*lambd"),
    (lambda: ops.dropout(t((2, 3)), "a"), TypeError, "dropout.*p"),
    (lambda: ops.trapz(t((2, 3)), dim=5), ValueError, "trapz.*dim"),
    (lambda: ops.select_scatter(t((2, 3)), t((3,)), 1.5, 0), TypeError, "select_scatter.*axis"),
    (lambda: ops.bidense(t((2, 3)), t((2, 3)), t((3, 3))), ValueError, "bidense.*3-D"),
    (lambda: ops.conv2d(t((1, 1, 3, 3)), t(())), ValueError, "conv2d.*4-D"),
])
def test_wrong_kinds_of_arguments_name_the_op(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_diagonal_offset_and_dims_are_ints_in_range():
    # A float tensor offset was truncated in PYNATIVE (GRAPH refused it); dim 5 wrapped.
    x = t((2, 3), np.int8)
    with pytest.raises(TypeError, match="diagonal.*offset"):
        ops.diagonal(x, ms.Tensor(np.float32(1.5)))
    with pytest.raises(ValueError, match="diagonal.*dim2"):
        ops.diagonal(x, 0, 0, 5)
    np.testing.assert_array_equal(ops.diagonal(x, np.int64(1)).asnumpy(), [1, 5])


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda: P.IndexPut()(t((2, 3)), t((1,)), 1.5), TypeError, "IndexPut.*indices"),
    (lambda: P.LpNorm(1.5), TypeError, "LpNorm.*axis"),
    (lambda: ops.rms_norm(t((2, 3)), t((3,)), "abc"), TypeError, "rms_norm.*epsilon"),
    (lambda: P.SigmoidCrossEntropyWithLogits()(t((2, 3)), "abc"), TypeError,
     "SigmoidCrossEntropyWithLogits.*label"),
    (lambda: ops.inplace_add(t(()), t(()), (0,)), ValueError, "InplaceAdd.*0-d"),
])
def test_last_wrong_kinds_name_the_op(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_fft_lengths_and_fractional_pool_samples():
    # irfft's n = Tensor(1.5) was truncated to 1 silently (int() of a float tensor); GRAPH
    # refused it. FractionalMaxPool3DWithFixedKsize's samples: a bare AttributeError.
    x = ms.Tensor(np.array([[0, 1, 2], [1, 0, 1]], np.int32))
    with pytest.raises(TypeError, match="irfft.*one integer"):
        ops.irfft(x, ms.Tensor(np.float32(1.5)))
    np.testing.assert_allclose(ops.irfft(x.astype(ms.complex64), ms.Tensor(np.array(4))).asnumpy(),
                               np.fft.irfft(x.asnumpy(), 4), atol=1e-6)
    with pytest.raises(TypeError, match="FractionalMaxPool3DWithFixedKsize.*random_samples"):
        P.FractionalMaxPool3DWithFixedKsize(1, 1)(t((1, 1, 2, 2, 2)), 1)


@pytest.mark.parametrize("call, exc, pattern", [
    # Seeds 9 and 10 of the sweep.
    (lambda: ops.dropout1d(t((2, 3, 4)), (1,)), TypeError, "dropout1d.*p"),
    (lambda: ops.softmax(t((2, 3)), 1.5), TypeError, "softmax.*axis"),
    (lambda: ops.quantile(t((2, 3)), 0.5, (1,)), TypeError, "quantile.*axis"),
    (lambda: ops.diagflat(t((2,)), (1,)), TypeError, "diagflat.*offset"),
    (lambda: ops.trapz(t(())), ValueError, "trapz.*0-d"),
])
def test_seed_9_and_10_findings(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


@pytest.mark.parametrize("call, exc, pattern", [
    # float('abc') of a number argument: "could not convert string to float" named no op.
    (lambda: ops.elu(t((2, 3)), "abc"), TypeError, "elu.*alpha"),
    (lambda: ops.celu(t((2, 3)), "abc"), TypeError, "celu.*alpha"),
    (lambda: ops.hardshrink(t((2, 3)), "abc"), TypeError, "hardshrink.*lambd"),
    (lambda: ops.clip_by_norm(t((2, 3)), "abc"), TypeError, "clip_by_norm.*max_norm"),
    (lambda: ops.histc(t((2, 3)), 10, "abc", 1.0), TypeError, "histc.*min"),
    (lambda: ops.bernoulli(t((2, 3)), "abc"), TypeError, "bernoulli.*p"),
    # numpy tables and arrays past numpy's limits
    (lambda: ops.logspace(ms.Tensor(1.0), 2.0, 2 ** 62), RuntimeError, "logspace.*needs"),
    (lambda: ops.zeros((0, 2 ** 62)).asnumpy(), ValueError,
     r"Tensor.asnumpy: numpy cannot make an array of shape \[0, 4611686018427387904\]"),
])
def test_number_arguments_and_numpy_limits_name_the_op(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_iterating_a_0d_tensor_is_a_type_error():
    # Python iterated by __getitem__ until an IndexError: tuple() of a 0-d tensor was (), so
    # ops.pad(x, Tensor(1.5)) padded nothing where GRAPH mode raised (sweep seed 12).
    s = ms.Tensor(np.float32(1.5))
    with pytest.raises(TypeError, match=r"^iteration over a 0-d tensor"):
        tuple(s)
    with pytest.raises(TypeError, match=r"^For 'pad', iteration over a 0-d tensor"):
        ops.pad(ms.Tensor(np.zeros((0, 3), np.float32)), s)
    x = t((2, 3))
    assert [r.asnumpy().tolist() for r in x] == [[0, 1, 2], [3, 4, 5]]
    assert [int(v) for v in t((3,), np.int64)] == [0, 1, 2]
    assert list(t((0, 2))) == []


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_gather_nd_checks_each_index_component(mode):
    # gather_nd folded an index into one linear position unchecked: [0, 5] of a (3, 4) input
    # read element 5 (= [1, 1]) silently. numpy/torch: each component lies in [-dim, dim).
    x = ms.Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    fn = (lambda a, i: ops.gather_nd(a, i))
    run = ms.jit(fn) if mode == ms.GRAPH_MODE else fn
    ok = np.array([[1, -1], [-3, 0], [2, 3]], np.int64)
    np.testing.assert_array_equal(run(x, ms.Tensor(ok)).asnumpy(),
                                  x.asnumpy()[ok[:, 0], ok[:, 1]])
    for bad in ([[0, 5]], [[0, -5]], [[3, 0]], [[-4, 1]]):
        with pytest.raises(IndexError, match=r"For 'GatherNd', an index lies outside"):
            run(x, ms.Tensor(np.array(bad, np.int64)))


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_eps_is_the_machine_epsilon(mode, dt):
    # Eps filled the smallest normal number (1.18e-38 for float32) where MindSpore's example
    # and numpy's finfo give the machine epsilon (1.1920929e-07).
    x = ms.Tensor(np.array([4, 1, 2, 3], dt))
    for fn in (ops.Eps(), ops.eps):
        run = ms.jit(lambda a, f=fn: f(a)) if mode == ms.GRAPH_MODE else fn
        got = run(x).asnumpy()
        assert got.dtype == dt
        np.testing.assert_array_equal(got, np.full(4, np.finfo(dt).eps, dt))

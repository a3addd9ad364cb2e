"""mycel.Layout (MindSpore 2.x semantics) and the C++ parallel layer behind it: the block each
rank holds (against numpy's splits) and redistribution plans (moves, groups, bytes). The plans'
numerics are checked in C++ on simulated meshes (tests/cpp/parallel); here the Python face.
Nothing here depends on the execution mode; the numeric tests run in both to show it."""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))
import mycel as ms  # noqa: E402
from mycel.parallel import Layout, _layout_slice, _plan_redistribution  # noqa: E402
from test_nn_layer_grads import mode  # noqa: E402,F401


def test_layout_is_exported_and_to_dict_counts_axes_from_the_right():
    assert ms.Layout is Layout
    layout = ms.Layout((2, 2, 2), ("dp", "sp", "mp"))
    d = layout("dp", "mp").to_dict()
    assert d["device_matrix"] == (2, 2, 2)
    assert d["tensor_map"] == (2, 0)
    assert d["alias_name"] == ("dp", "sp", "mp")
    assert d["rank_list"] == list(range(8))
    assert d["interleaved_parallel"] is False
    assert layout(("dp", "sp"), "None", "mp").to_dict()["tensor_map"] == ((2, 1), -1, 0)
    assert layout(("mp",), "dp").to_dict()["tensor_map"] == ((0,), 2)
    assert "tensor_map=(2, -1)" in repr(layout("dp", "None"))


@pytest.mark.parametrize("args, exc, text", [
    (([2, 2], ("a", "b")), TypeError, "'device_matrix' must be a tuple"),
    (((2, 2), ["a", "b"]), TypeError, "'alias_name' must be a tuple"),
    (((2, 2.0), ("a", "b")), TypeError, "elements of 'device_matrix' must be int"),
    (((2, True), ("a", "b")), TypeError, "elements of 'device_matrix' must be int"),
    (((2, 2), ("a", 1)), TypeError, "elements of 'alias_name' must be str"),
    (((2, 2), ("a",)), ValueError, "1 axis names for a device matrix of 2 axes"),
    (((2, 2), ("a", "")), ValueError, "must not be empty or \"None\""),
    (((2, 2), ("a", "None")), ValueError, "must not be empty or \"None\""),
    (((2, 2), ("a", "a")), ValueError, "'a' is used twice"),
    (((2, 0), ("a", "b")), ValueError, "at least 1 device"),
    (((2, 2), ("a", "b"), (0, 1, 2, 3)), TypeError, "'rank_list' must be a list"),
    (((2, 2), ("a", "b"), [0, 1, 2]), ValueError, "rank list has 3"),
    (((2, 2), ("a", "b"), []), ValueError, "rank list has 0"),
    (((2, 2), ("a", "b"), [0, 1, 2, -3]), ValueError, "rank -3 in the rank list is negative"),
    (((1 << 15, 1 << 15), ("a", "b")), ValueError, "more than 1048576 devices"),
    (((2, 2), ("a", "b"), [0, 1, 2, 2]), ValueError, "rank 2 is in the rank list twice"),
    (((2, 2), ("a", "interleaved_parallel")), ValueError, "not supported"),
])
def test_bad_layouts_raise_typed_errors(args, exc, text):
    with pytest.raises(exc, match="For 'Layout'") as info:
        Layout(*args)
    assert text in str(info.value)


def test_bad_tensor_maps_raise():
    layout = Layout((2, 4), ("dp", "mp"))
    with pytest.raises(ValueError, match="'sp' is not one of the axis names"):
        layout("sp", "None")
    with pytest.raises(ValueError, match="'dp' splits the tensor twice"):
        layout("dp", "dp")
    with pytest.raises(ValueError, match="'dp' splits the tensor twice"):
        layout(("dp", "mp"), "dp")
    with pytest.raises(ValueError, match="'None' cannot be part of a tuple"):
        layout(("dp", "None"))
    with pytest.raises(TypeError, match="a tensor map entry must be"):
        layout(0, "mp")
    with pytest.raises(ValueError, match="tensor map is not set"):
        layout.to_dict()


def _block(x, splits):
    """numpy's block: per dimension, the (axis size, coordinate) pairs of the axes splitting it
    (None: whole); np.split into the product of the sizes and take the block numbered by the
    coordinates, the first axis the most significant."""
    for dim, axes in enumerate(splits):
        k, index = 1, 0
        for size, c in (axes or []):
            k, index = k * size, index * size + c
        x = np.split(x, k, axis=dim)[index]
    return x


@pytest.mark.parametrize("rank_list", [None, [5, 2, 7, 0, 1, 3, 6, 4]])
def test_each_rank_holds_its_numpy_block(mode, rank_list):
    layout = Layout((2, 4), ("dp", "mp"), rank_list)
    ranks = rank_list or list(range(8))
    x = np.arange(16 * 24).reshape(16, 24)
    for i, rank in enumerate(ranks):  # matrix position i = (dp, mp) = (i // 4, i % 4)
        dp, mp = divmod(i, 4)
        for tm, splits in [(("dp", "mp"), [[(2, dp)], [(4, mp)]]),
                           ((("mp", "dp"), "None"), [[(4, mp), (2, dp)], None]),
                           (("None", ("dp", "mp")), [None, [(2, dp), (4, mp)]])]:
            offsets, shape = _layout_slice(x.shape, layout(*tm), rank)
            got = x[tuple(slice(o, o + s) for o, s in zip(offsets, shape))]
            np.testing.assert_array_equal(got, _block(x, splits))


def test_plans_of_the_megatron_moves(mode):
    layout = Layout((2, 4), ("dp", "mp"))
    shape = (8, 16)
    # Column split -> row split: one AllToAll over mp; a device sends 3/4 of its 8x4 floats.
    assert _plan_redistribution(shape, layout("None", "mp"), layout("mp", "None")) == [
        ("AllToAll", ("mp",), (0, 1), 3 / 4 * 8 * 4 * 4)]
    # Partial sums over mp: AllReduce to replicate, ReduceScatter (half the bytes) to split.
    rep = layout("dp", "None")
    assert _plan_redistribution(shape, rep, rep, from_partial=("mp",)) == [
        ("AllReduce", ("mp",), (), 2 * 3 / 4 * 4 * 16 * 4)]
    assert _plan_redistribution(shape, rep, layout("dp", "mp"), from_partial="mp") == [
        ("ReduceScatter", ("mp",), (1,), 3 / 4 * 4 * 16 * 4)]
    # Replicated -> partial and replicated -> split are local.
    assert _plan_redistribution(shape, rep, rep, to_partial=("mp",)) == [
        ("Partial", ("mp",), (), 0.0)]
    assert _plan_redistribution(shape, rep, layout("dp", "mp")) == [
        ("Split", ("mp",), (1,), 0.0)]
    # Dimension 0 split over both axes moves to dimension 1 in one AllToAll; float64.
    assert _plan_redistribution(shape, layout(("dp", "mp"), "None"),
                                layout("None", ("dp", "mp")), elem_bytes=8) == [
        ("AllToAll", ("dp", "mp"), (1, 0), 7 / 8 * 1 * 16 * 8)]
    # Split -> replicated gathers; equal layouts need nothing.
    assert _plan_redistribution(shape, layout("dp", "mp"), layout("dp", "None")) == [
        ("AllGather", ("mp",), (1,), 3 * 4 * 4 * 4)]
    assert _plan_redistribution(shape, rep, rep) == []


def test_plan_errors():
    layout = Layout((2, 3), ("dp", "mp"))
    with pytest.raises(ValueError, match=r"dimension 1 of shape \[4,4\] \(4\) cannot be split "
                                         r"evenly into 3 parts by mesh axes \(mp\)"):
        _plan_redistribution((4, 4), layout("dp", "None"), layout("dp", "mp"))
    with pytest.raises(ValueError, match="cannot both split dimension 0 and hold partial sums"):
        _plan_redistribution((4, 6), layout("dp", "None"), layout("dp", "mp"),
                             from_partial=("dp",))
    with pytest.raises(ValueError, match="different device matrices"):
        _plan_redistribution((4, 6), layout("dp", "None"),
                             Layout((3, 2), ("dp", "mp"))("dp", "None"))
    with pytest.raises(ValueError, match="'sp' is not one of the axis names"):
        _plan_redistribution((4, 6), layout("dp", "None"), layout("dp", "None"),
                             to_partial=("sp",))
    with pytest.raises(ValueError, match="the layout has no tensor map"):
        _plan_redistribution((4, 6), layout, layout("dp", "None"))
    with pytest.raises(TypeError, match="'to_layout' must be a Layout"):
        _plan_redistribution((4, 6), layout("dp", "None"), {"tensor_map": (1, -1)})
    with pytest.raises(ValueError, match="the tensor map has 1 entries"):
        _plan_redistribution((4, 6), layout("dp"), layout("dp"))

"""Python dicts in dataset rows (mycel/dataset/_pyobjects.py, data::Object in src/data/array.h),
checked against plain Python iteration over the same source and numpy stacking, with the
engine's threads on."""
import gc

import numpy as np
import pytest

import mycel
import mycel.dataset as ds
import mycel.dataset.transforms as T


def _records(n):
    """The oracle's source: row i as a dict of Python values."""
    return [{"i": i, "flag": i % 2 == 0, "name": f"r{i}", "pair": (i, -i),
             "vec": np.array([i, i + 10, i + 100], np.int32), "inner": {"sq": i * i}}
            for i in range(n)]


def _gen(n):
    def make():
        for r in _records(n):
            yield (r, np.array(r["i"], np.int64))
    return make


def _rows(d, numpy=True):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=numpy))


def _check_leaf(got, want):
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got, np.asarray(want))
    assert got.dtype == np.asarray(want).dtype


def test_dicts_pass_through_generator_and_iterators():
    rows = _rows(ds.GeneratorDataset(_gen(7), ["d", "k"], num_parallel_workers=3))
    assert len(rows) == 7
    for (d, k), want in zip(rows, _records(7)):
        assert isinstance(d, dict) and list(d) == list(want)
        _check_leaf(d["i"], want["i"])
        _check_leaf(d["flag"], want["flag"])
        _check_leaf(d["name"], want["name"])
        assert isinstance(d["pair"], tuple)
        for g, w in zip(d["pair"], want["pair"]):
            _check_leaf(g, w)
        _check_leaf(d["vec"], want["vec"])
        assert isinstance(d["inner"], dict)
        _check_leaf(d["inner"]["sq"], want["inner"]["sq"])
        assert int(k) == want["i"]
    got = list(ds.GeneratorDataset(_gen(3), ["d", "k"]).create_dict_iterator(
        num_epochs=1, output_numpy=False))
    for row, want in zip(got, _records(3)):
        assert isinstance(row["d"], dict)
        assert isinstance(row["d"]["i"], mycel.Tensor) and int(row["d"]["i"]) == want["i"]
        assert isinstance(row["d"]["pair"][1], mycel.Tensor)
        np.testing.assert_array_equal(row["d"]["vec"].asnumpy(), want["vec"])
        assert isinstance(row["k"], mycel.Tensor)


def test_dicts_through_shuffle_repeat_skip_take_zip_concat_rename_project():
    n = 12
    base = ds.GeneratorDataset(_gen(n), ["d", "k"], num_parallel_workers=2)
    d = base.shuffle(5).repeat(2).skip(3).take(15)
    rows = _rows(d)
    assert len(rows) == 15
    for dct, k in rows:  # the dict still travels with its own row
        assert int(dct["i"]) == int(k)
    ids = sorted(int(k) for _, k in _rows(base.shuffle(5)))
    assert ids == list(range(n))
    other = ds.NumpySlicesDataset({"x": np.arange(n) * 2.0}, shuffle=False)
    z = ds.zip((ds.GeneratorDataset(_gen(n), ["d", "k"]), other)).rename(["d"], ["e"])
    z = z.project(["x", "e"])
    for i, (x, e) in enumerate(_rows(z)):
        assert float(x) == 2.0 * i and int(e["i"]) == i
    c = ds.GeneratorDataset(_gen(3), ["d", "k"]) + ds.GeneratorDataset(_gen(2), ["d", "k"])
    assert [int(dct["i"]) for dct, _ in _rows(c)] == [0, 1, 2, 0, 1]


def test_map_gets_and_makes_dicts():
    n = 9

    def build(k):
        return {"k": k, "sq": k * k, "tag": "x"}

    def drop(dct):
        return dct["sq"] + 1

    d = ds.GeneratorDataset(_gen(n), ["d", "k"], shuffle=False)
    d = d.map(build, ["k"], num_parallel_workers=3).map(lambda e: e, ["d"],
                                                         num_parallel_workers=3)
    rows = _rows(d)
    for i, (dct, built) in enumerate(rows):
        assert int(dct["i"]) == i
        _check_leaf(built["sq"], np.int64(i * i))
        _check_leaf(built["tag"], "x")
    d2 = ds.GeneratorDataset(_gen(n), ["d", "k"], shuffle=False).map(
        build, ["k"]).map(drop, ["k"], num_parallel_workers=2)
    assert [int(v) for _, v in _rows(d2)] == [i * i + 1 for i in range(n)]
    d3 = ds.GeneratorDataset(_gen(4), ["d", "k"]).filter(lambda dct: int(dct["i"]) % 2 == 1,
                                                         ["d"], num_parallel_workers=2)
    assert [int(k) for _, k in _rows(d3)] == [1, 3]


def test_map_errors_inside_a_dict_function_are_raised():
    d = ds.GeneratorDataset(_gen(3), ["d", "k"]).map(lambda dct: dct["missing"], ["d"])
    with pytest.raises(Exception, match="KeyError"):
        _rows(d)


def test_builtin_transforms_refuse_dicts():
    d = ds.GeneratorDataset(_gen(3), ["d", "k"]).map(T.TypeCast(mycel.float32), ["d"])
    with pytest.raises(TypeError, match="TypeCast.*Python dict"):
        _rows(d)
    with pytest.raises(TypeError, match="Python dict"):
        _rows(ds.GeneratorDataset(_gen(2), ["d", "k"]).padded_batch(2, pad_info={"d": (None, 0)}))


@pytest.mark.parametrize("size,drop", [(2, True), (4, False), (5, False)])
def test_batch_stacks_each_key(size, drop):
    n = 11
    d = ds.GeneratorDataset(_gen(n), ["d", "k"], shuffle=False).batch(
        size, drop_remainder=drop, num_parallel_workers=3)
    rows = _rows(d)
    recs = _records(n)
    starts = range(0, (n // size) * size if drop else n, size)
    assert len(rows) == len(starts)
    for (dct, k), s in zip(rows, starts):
        part = recs[s:s + size]
        _check_leaf(dct["i"], np.array([r["i"] for r in part]))
        _check_leaf(dct["flag"], np.array([r["flag"] for r in part]))
        _check_leaf(dct["name"], np.array([r["name"] for r in part]))
        _check_leaf(dct["pair"], np.array([r["pair"] for r in part]))
        _check_leaf(dct["vec"], np.stack([r["vec"] for r in part]))
        _check_leaf(dct["inner"]["sq"], np.array([r["inner"]["sq"] for r in part]))
        np.testing.assert_array_equal(k, [r["i"] for r in part])


def test_batch_of_ragged_values_is_a_runtime_error():
    def ragged():
        for i in range(4):
            yield ({"v": np.arange(i + 1)},)
    d = ds.GeneratorDataset(ragged, ["d"]).batch(2)
    with pytest.raises(RuntimeError, match="Batch: failed to create a NumPy array"):
        _rows(d)

    def mixed():
        yield ({"v": 1},)
        yield (np.array(1),)
    with pytest.raises(RuntimeError, match="different types"):
        _rows(ds.GeneratorDataset(mixed, ["d"]).batch(2))


def test_per_batch_map_lists_and_whole_batches():
    n = 6

    def pairs(name):
        return ds.GeneratorDataset(_gen(n), [name, name + "k"], shuffle=False)

    z = ds.zip((pairs("a"), pairs("b"))).project(["a", "b"])

    def keep(a, b, info):  # lists of dicts: batched into dicts of lists
        return a, b
    rows = _rows(z.batch(3, per_batch_map=keep, num_parallel_workers=2))
    assert len(rows) == 2
    for j, (a, b) in enumerate(rows):
        assert isinstance(a["i"], list)
        assert [int(v) for v in a["i"]] == [3 * j + t for t in range(3)]

    def whole(a, b, info):  # a dict: the whole batch's value
        return {"n": len(a), "first": a[0]["i"]}, np.arange(len(b))
    rows = _rows(z.batch(3, per_batch_map=whole))
    assert [int(a["n"]) for a, _ in rows] == [3, 3]
    assert [int(a["first"]) for a, _ in rows] == [0, 3]
    np.testing.assert_array_equal(rows[1][1], np.arange(3))

    def mismatched(a, b, info):
        return {"n": 1}, [1, 2, 3]
    with pytest.raises(RuntimeError, match="mismatched types returned from per_batch_map"):
        _rows(z.batch(3, per_batch_map=mismatched))

    def short(a, b, info):
        return a, np.array([1])
    with pytest.raises(RuntimeError, match="column: b expects: 3 rows"):
        _rows(z.batch(3, per_batch_map=short))

    # a batch of per_batch_map's dicts of lists, batched again: stacked arrays
    def flat():
        for i in range(n):
            yield ({"i": i, "b": 1},)

    def keep1(a, info):
        return (a,)
    twice = ds.GeneratorDataset(flat, ["a"]).batch(2, per_batch_map=keep1).batch(
        2, drop_remainder=True)
    (a,), = _rows(twice)
    np.testing.assert_array_equal(a["i"], [[0, 1], [2, 3]])
    np.testing.assert_array_equal(a["b"], [[1, 1], [1, 1]])


def test_dicts_are_released():
    class Marker:
        alive = 0

        def __init__(self):
            Marker.alive += 1

        def __del__(self):
            Marker.alive -= 1

    def source():
        for i in range(20):
            yield ({"m": Marker(), "i": i},)
    d = ds.GeneratorDataset(source, ["d"]).shuffle(4).map(lambda x: x, ["d"],
                                                          num_parallel_workers=3)
    rows = _rows(d)
    assert len(rows) == 20 and Marker.alive == 20
    del rows
    gc.collect()
    assert Marker.alive == 0


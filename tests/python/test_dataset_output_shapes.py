"""Dataset.output_shapes(estimate=True) (a dimension varying over one epoch is None) and
Dataset.flat_map, checked against the same computations in plain Python over numpy arrays."""
import numpy as np
import pytest

import mycel.dataset as ds


def test_output_shapes_estimate_against_numpy():
    rows = [(np.ones((4, i)), np.zeros((2, 3)), np.arange(i)) for i in (3, 5, 4)]

    def gen():
        yield from rows
    d = ds.GeneratorDataset(gen, ["a", "b", "c"])
    assert d.output_shapes() == [list(r.shape) for r in rows[0]]
    want = []
    for col in zip(*rows):
        dims = list(col[0].shape)
        for x in col[1:]:
            dims = [u if u == v else None for u, v in zip(dims, x.shape)]
        want.append(dims)
    assert d.output_shapes(estimate=True) == want == [[4, None], [2, 3], [None]]
    with pytest.raises(TypeError):
        d.output_shapes(estimate=1)

    def ragged_rank():
        yield (np.ones((2, 1)),)
        yield (np.ones(2),)
    with pytest.raises(RuntimeError, match="Inconsistent shapes"):
        ds.GeneratorDataset(ragged_rank, ["a"]).output_shapes(estimate=True)


def test_flat_map_concatenates_the_datasets_of_the_rows():
    data = np.arange(12).reshape(3, 2, 2)
    d = ds.NumpySlicesDataset(data, shuffle=False).flat_map(
        lambda a: ds.NumpySlicesDataset(a + 1, shuffle=False).repeat(2))
    got = [x for (x,) in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
    want = [r + 1 for block in data for r in list(block) * 2]  # plain Python over the rows
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    with pytest.raises(TypeError, match="must return a Dataset"):
        ds.NumpySlicesDataset(data).flat_map(lambda a: a)
    with pytest.raises(TypeError, match="must be a function"):
        ds.NumpySlicesDataset(data).flat_map(3)

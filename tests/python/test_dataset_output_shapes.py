"""Dataset.output_shapes(estimate=True): the shapes over one epoch, a varying dimension as
None, checked against the same reduction over the source's numpy arrays."""
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

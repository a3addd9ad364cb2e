"""RandomDataset (sources_random.py): row counts, column types and shapes from the schema,
values within their ranges, and the same values for the same seed."""
import numpy as np
import pytest

import mycel
import mycel.dataset as ds


def _rows(d):
    return list(d.create_tuple_iterator(num_epochs=1, output_numpy=True))


def test_schema_columns_and_counts():
    schema = ds.Schema()
    schema.add_column("image", de_type=mycel.uint8, shape=[4, 5, 3])
    schema.add_column("score", de_type=mycel.float32, shape=[2])
    d = ds.RandomDataset(total_rows=12, schema=schema, num_parallel_workers=3)
    assert d.get_dataset_size() == 12 and d.get_col_names() == ["image", "score"]
    rows = _rows(d.repeat(2))
    assert len(rows) == 24
    for image, score in rows:
        assert image.dtype == np.uint8 and image.shape == (4, 5, 3)
        assert score.dtype == np.float32 and score.shape == (2,)
        assert ((score >= 0) & (score < 1)).all()
    assert len(_rows(ds.RandomDataset(total_rows=100, schema=schema, num_samples=10))) == 10
    only = ds.RandomDataset(total_rows=3, schema=schema, columns_list=["score"])
    assert only.get_col_names() == ["score"]


def test_random_schema_and_seed():
    seed = ds.config.get_seed()
    try:
        ds.config.set_seed(7)
        a = ds.RandomDataset(shuffle=False)
        ds.config.set_seed(7)
        b = ds.RandomDataset(shuffle=False)
    finally:
        ds.config.set_seed(seed)
    assert 1 <= a.get_dataset_size() <= 1024 and a.get_col_names() == b.get_col_names()
    for ra, rb in zip(_rows(a), _rows(b)):
        for x, y in zip(ra, rb):
            np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError):
        ds.RandomDataset(total_rows=0)
    with pytest.raises(TypeError):
        ds.RandomDataset(schema=3)

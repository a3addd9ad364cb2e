"""config.set_iterator_mode: checked settings; rows are those of plain Python iteration over
the source in either mode."""
import numpy as np
import pytest

import mycel.dataset as ds


def test_iterator_mode_settings_and_rows():
    source = [(np.array([i, 2 * i]),) for i in range(6)]
    try:
        for mode in (True, False):
            ds.config.set_iterator_mode(parallel_convert=mode)
            assert ds.config.get_iterator_mode() == {"do_copy": True, "parallel_convert": mode}
            d = ds.GeneratorDataset(source, ["x"], shuffle=False)
            got = [x for (x,) in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
            for g, (want,) in zip(got, source):
                np.testing.assert_array_equal(g, want)
            assert len(got) == len(source)
        with pytest.raises(TypeError):
            ds.config.set_iterator_mode(parallel_convert=1)
        with pytest.raises(TypeError):
            ds.config.set_iterator_mode(do_copy="yes")
    finally:
        ds.config.set_iterator_mode()


def test_iterator_dataset_is_a_copy_of_the_tree():
    base = ds.NumpySlicesDataset(np.arange(4), shuffle=False)
    d = base.map(lambda x: x + 1)
    it = d.create_tuple_iterator(num_epochs=1, output_numpy=True)
    assert it.dataset is not d and it.dataset.children[0] is not base
    assert [int(x) for (x,) in it.dataset.create_tuple_iterator(
        num_epochs=1, output_numpy=True)] == [1, 2, 3, 4]
    it.release()

"""User-defined samplers (samplers.py _PythonSampler, src/python/py_data_sampler.cc): a
ds.Sampler subclass with its own __iter__, or any object with __iter__, picks the rows of
each pass; checked against indexing the source with the sampler's own indices."""
import numpy as np
import pytest

import mycel.dataset as ds

DATA = np.arange(10, dtype=np.int64) * 3


def _values(d):
    return [int(x) for (x,) in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


class Reverse(ds.Sampler):
    def __iter__(self):
        return iter(range(self.dataset_size - 1, -1, -1))


class Plain:  # not a ds.Sampler
    def __iter__(self):
        return iter([4, 4, 1, 9])


class EpochCounter(ds.Sampler):
    """The same index num_samples times, a different one after each reset()."""

    def __init__(self, num_samples=None):
        super().__init__(num_samples)
        self.cnt = 0

    def __iter__(self):
        return iter([self.cnt] * self.num_samples)

    def reset(self):
        self.cnt = (self.cnt + 1) % self.dataset_size


@pytest.mark.parametrize("workers", [1, 3])
def test_subclass_and_plain_object_samplers(workers):
    d = ds.NumpySlicesDataset(DATA, sampler=Reverse(), num_parallel_workers=workers)
    assert _values(d) == [int(DATA[i]) for i in range(9, -1, -1)]
    assert d.get_dataset_size() == 10
    d = ds.NumpySlicesDataset(DATA, sampler=Plain(), num_parallel_workers=workers)
    assert _values(d) == [int(DATA[i]) for i in Plain()]
    gen = ds.GeneratorDataset([(v,) for v in DATA], ["x"], sampler=Reverse())
    assert _values(gen) == [int(DATA[i]) for i in range(9, -1, -1)]


def test_reset_between_passes():
    d = ds.NumpySlicesDataset(DATA, sampler=EpochCounter(2)).repeat(3)
    assert _values(d) == [int(DATA[i]) for i in (0, 0, 1, 1, 2, 2)]


def test_len_and_num_samples_and_errors():
    class WithLen(ds.Sampler):
        def __init__(self, length):
            super().__init__()
            self.length = length

        def __iter__(self):
            return iter(range(10))

        def __len__(self):
            return self.length

    d = ds.NumpySlicesDataset(DATA, sampler=WithLen(4))
    assert d.get_dataset_size() == 4 and _values(d) == [int(v) for v in DATA[:4]]
    with pytest.raises(RuntimeError, match="actual amount of data read from generator 10 is "
                                           "different from generator.len 15"):
        _values(ds.NumpySlicesDataset(DATA, sampler=WithLen(15)))
    assert _values(ds.NumpySlicesDataset(DATA, sampler=Reverse(3))) == [27, 24, 21]

    class OutOfRange(ds.Sampler):
        def __iter__(self):
            return iter([0, 20])
    with pytest.raises(IndexError, match=r"Sample ID \(20\) is out of bound"):
        _values(ds.NumpySlicesDataset(DATA, sampler=OutOfRange()))

    class NoIter(ds.Sampler):
        pass
    with pytest.raises(NotImplementedError, match="must define __iter__"):
        _values(ds.NumpySlicesDataset(DATA, sampler=NoIter()))


def test_iter_sampler_getitem_sampler_int_sampler_and_add_sampler():
    class Every2(ds.Sampler):
        def __iter__(self):
            return iter(range(0, self.num_samples, 2))

    d = ds.NumpySlicesDataset(DATA, shuffle=False)
    d.add_sampler(ds.IterSampler(Every2(d.get_dataset_size())))
    assert d.get_dataset_size() == 5
    assert _values(d) == [int(DATA[i]) for i in range(0, 10, 2)]
    d.add_sampler(ds.IterSampler(Every2(d.get_dataset_size())))  # chained: every 2nd of those
    assert _values(d) == [int(DATA[i]) for i in (0, 4, 8)]

    class ByIndex:  # __getitem__ and __len__, no __iter__
        ids = [3, 8, 0]

        def __getitem__(self, i):
            return self.ids[i]

        def __len__(self):
            return len(self.ids)
    assert _values(ds.NumpySlicesDataset(DATA, sampler=ByIndex())) == [9, 24, 0]
    assert _values(ds.NumpySlicesDataset(DATA, sampler=7)) == [21]
    with pytest.raises(TypeError, match="not an instance of a sampler"):
        ds.NumpySlicesDataset(DATA).use_sampler(1)
    with pytest.raises(TypeError, match="Unsupported sampler object"):
        ds.NumpySlicesDataset(DATA, sampler="ab")
    with pytest.raises(IndexError, match=r"Sample ID \(12\) is out of bound, expected range "
                                         r"\[0, 9\]"):
        _values(ds.NumpySlicesDataset(DATA, sampler=[2, 12]))

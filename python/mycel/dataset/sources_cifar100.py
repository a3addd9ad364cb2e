"""Cifar100Dataset: CIFAR-100's binary version (src/data/cifar100.h reads it)."""
from mycel import _mycel
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_image import _check_dir, _check_usage

__all__ = ["Cifar100Dataset"]


class Cifar100Dataset(SourceDataset):
    """Cifar100Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): CIFAR-100's binary version.

    dataset_dir is the cifar-100-binary folder: train.bin and test.bin, records of a coarse
    label byte (0..19), a fine label byte (0..99) and a 3x32x32 image. usage is 'train' (the
    .bin files named with "train"), 'test' ("test") or 'all' (None: both); the files are read
    in name order. Columns: "image" (uint8, [32, 32, 3], HWC), "coarse_label" and "fine_label"
    (uint32 scalars). PKSampler draws classes by fine label.

    Raises ValueError for a missing directory or a bad usage, RuntimeError when no file is found
    or one is truncated or corrupt (naming the file)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        func = "Cifar100Dataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage)
        source = _mycel._data.cifar100_source(self.dataset_dir, self.usage)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

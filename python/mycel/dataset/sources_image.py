"""Image file datasets: MnistDataset, FashionMnistDataset, Cifar10Dataset, ImageFolderDataset.

Each class checks its argument types here and builds a C++ source (src/data/sources_image.cc)
that finds, checks and indexes the files at once, so a missing or malformed file is an error
at construction; the engine then reads rows by index on its worker threads. Rows are
read-only: MNIST images are views of the loaded file, which stays cached (keyed by path, mtime
and size) so that a dataset re-created for each epoch does not decompress it again.
"""
import os

from mycel import _mycel
from mycel.dataset._validate import check_bool, check_int
from mycel.dataset.sources import SourceDataset

_data = _mycel._data


def _check_dir(func, dataset_dir):
    """dataset_dir as a str path; TypeError naming func otherwise (existence: C++)."""
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"{func}: dataset_dir must be a path, but got "
                        f"{type(dataset_dir).__name__}.")
    return os.fspath(dataset_dir)


def _check_usage(func, usage):
    """usage as a str, None meaning 'all' (its value is checked in C++)."""
    if usage is None:
        return "all"
    if not isinstance(usage, str):
        raise TypeError(f"{func}: usage must be 'train', 'test' or 'all', but got "
                        f"{type(usage).__name__} {usage!r}.")
    return usage


class MnistDataset(SourceDataset):
    """MnistDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): the MNIST idx files.

    dataset_dir holds train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte
    and t10k-labels-idx1-ubyte, each plain or gzipped (.gz). usage is 'train', 'test' or 'all'
    (None: 'all': train then test, those of the two whose files are present). Columns:
    "image" (uint8, [28, 28, 1]) and "label" (uint32 scalar). shuffle (default: True), sampler,
    num_shards/shard_id and num_samples choose the rows, as for every source dataset.

    Raises TypeError for a dataset_dir that is not a path, ValueError for a missing directory
    or a bad usage, RuntimeError for a missing, truncated or corrupt file."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        func = type(self).__name__
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage)
        source = _data.mnist_source(func, self.dataset_dir, self.usage)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class FashionMnistDataset(MnistDataset):
    """FashionMnistDataset(dataset_dir, usage=None, ...): Fashion-MNIST, the same idx format,
    file names, columns and arguments as MnistDataset (Debian: /usr/share/datasets/fashion-mnist,
    gzipped)."""


class Cifar10Dataset(SourceDataset):
    """Cifar10Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): CIFAR-10's binary version.

    dataset_dir is the cifar-10-batches-bin folder: data_batch_1.bin ... data_batch_5.bin and
    test_batch.bin, records of a label byte and a 3x32x32 image. usage is 'train' (the
    data_batch files), 'test' (test_batch) or 'all' (None: both, train first); the files are read
    in name order. Columns: "image" (uint8, [32, 32, 3], HWC) and "label" (uint32 scalar).

    Raises ValueError for a missing directory or a bad usage, RuntimeError when no batch file is
    found or one is truncated or corrupt (naming the file)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        func = "Cifar10Dataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage)
        source = _data.cifar10_source(self.dataset_dir, self.usage)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class ImageFolderDataset(SourceDataset):
    """ImageFolderDataset(dataset_dir, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, extensions=None, class_indexing=None, decode=False,
    num_shards=None, shard_id=None): images stored one sub-directory per class.

    Each sub-directory of dataset_dir is a class; its files (those whose extension, dot
    included and case-sensitive, is in extensions, e.g. [".jpg", ".png"]; every file when None)
    are the class's images. Labels: class_indexing ({folder name: label}; only those folders
    are read), else the folder names in sorted order numbered from 0 (get_class_indexing()
    returns the mapping used). Rows come in folder then file name order before sampling.
    Columns: "image" (the file's bytes, uint8 [n]; with decode=True the decoded RGB image,
    uint8 [H, W, 3], JPEG or PNG) and "label" (int32 scalar).

    Raises TypeError/ValueError for bad arguments, ValueError for a missing directory or a
    class_indexing folder that does not exist, RuntimeError when no image is found or a file
    cannot be read or decoded."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None):
        func = "ImageFolderDataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.extensions = _check_extensions(func, extensions)
        self.decode = check_bool(func, "decode", decode)
        indexing = _check_class_indexing(func, class_indexing)
        source, self._class_indexing = _data.image_folder_source(
            self.dataset_dir, self.extensions, indexing, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def get_class_indexing(self):
        """The {folder name: label} mapping of the classes read."""
        return dict(self._class_indexing)

    def num_classes(self):
        """The number of classes (folders) read."""
        return len(self._class_indexing)


def _check_extensions(func, extensions):
    """extensions as a list of str (empty: every file)."""
    if extensions is None:
        return []
    if not isinstance(extensions, (list, tuple)) or \
            not all(isinstance(e, str) and e for e in extensions):
        raise TypeError(f"{func}: extensions must be a list of file extensions such as "
                        f"['.jpg', '.png'], but got {extensions!r}.")
    return list(extensions)


def _check_class_indexing(func, class_indexing):
    """class_indexing as a dict {str: label in [0, 2**31 - 1]} (empty: sorted folders)."""
    if class_indexing is None:
        return {}
    if not isinstance(class_indexing, dict) or \
            not all(isinstance(k, str) for k in class_indexing):
        raise TypeError(f"{func}: class_indexing must be a dict {{folder name: label}}, but got "
                        f"{class_indexing!r}.")
    return {k: check_int(func, f"class_indexing[{k!r}]", v, 0, 2**31 - 1)
            for k, v in class_indexing.items()}

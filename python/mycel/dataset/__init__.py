"""mycel.dataset: data pipelines with MindSpore 2.x's ``mindspore.dataset`` API.

``import mycel.dataset as ds``: sources (MnistDataset, FashionMnistDataset, NumpySlicesDataset,
GeneratorDataset), pipeline ops on every Dataset (shuffle, batch, map, repeat, project,
rename), iterators yielding mycel Tensors, and transforms in ``vision`` and ``transforms``.
This basic engine runs in Python on numpy in the calling thread; built-in transforms run
vectorised over whole batches (engine.py explains when), which keeps it fast enough to feed
training. ``import mycel`` does not import this package.
"""
from mycel.dataset import config, transforms, vision  # noqa: F401
from mycel.dataset.engine import (BatchDataset, Dataset, MapDataset, ProjectDataset,  # noqa: F401
                                  RenameDataset, RepeatDataset, ShuffleDataset)
from mycel.dataset.iterators import DictIterator, TupleIterator  # noqa: F401
from mycel.dataset.sources import (FashionMnistDataset, GeneratorDataset,  # noqa: F401
                                   MnistDataset, NumpySlicesDataset)

__all__ = ["config", "transforms", "vision", "Dataset", "MnistDataset", "FashionMnistDataset",
           "NumpySlicesDataset", "GeneratorDataset", "BatchDataset", "MapDataset",
           "ShuffleDataset", "RepeatDataset", "ProjectDataset", "RenameDataset",
           "TupleIterator", "DictIterator"]

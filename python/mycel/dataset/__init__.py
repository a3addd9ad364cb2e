"""mycel.dataset: data pipelines with MindSpore 2.x's ``mindspore.dataset`` API.

``import mycel.dataset as ds``: sources (MnistDataset, FashionMnistDataset, Cifar10Dataset,
ImageFolderDataset, NumpySlicesDataset, GeneratorDataset, TextFileDataset, CSVDataset,
MindDataset), samplers, pipeline ops on every Dataset (shuffle, map, filter, batch,
padded_batch, repeat, skip, take, project, rename, zip, concat, split), iterators yielding
mycel Tensors or numpy arrays, and transforms in ``vision`` and ``transforms``. Pipelines run
in the C++ engine (src/data) on worker threads; engine.py explains the design. ``import
mycel`` does not import this package.
"""
from mycel.dataset import config, text, transforms, vision  # noqa: F401
# vision's warps, colour transforms and small ops, and text's tokenizers and word vectors, live
# in modules that import vision / text: their names are attached to vision / text here.
from mycel.dataset import vision_color as _vcolor, vision_geometry as _vgeom  # noqa: E402
from mycel.dataset import vision_misc as _vmisc, text_ops as _tops, text_vectors as _tvec  # noqa
from mycel.dataset import text_sentencepiece as _tsp, vision_video as _vvid  # noqa: E402
from mycel.dataset import vision_aug as _vaug  # noqa: E402
for _host, _parts in ((vision, (_vgeom, _vcolor, _vmisc, _vaug, _vvid)),
                      (text, (_tops, _tvec, _tsp))):
    for _part in _parts:
        for _name in _part.__all__:
            setattr(_host, _name, getattr(_part, _name))
        _host.__all__ = list(_host.__all__) + list(_part.__all__)
from mycel.dataset.engine import (BatchDataset, BatchInfo, ConcatDataset, Dataset,  # noqa: F401
                                  FilterDataset, MapDataset, ProjectDataset, RenameDataset,
                                  RepeatDataset, ShuffleDataset, SkipDataset, TakeDataset,
                                  ZipDataset)
from mycel.dataset.engine import zip_datasets as zip  # noqa: F401,A001 (MindSpore's name)
from mycel.dataset.iterators import DictIterator, TupleIterator  # noqa: F401
from mycel.dataset.samplers import (DistributedSampler, RandomSampler, Sampler,  # noqa: F401
                                    SequentialSampler, SubsetRandomSampler, SubsetSampler,
                                    WeightedRandomSampler)
from mycel.dataset.sources import GeneratorDataset, NumpySlicesDataset  # noqa: F401
from mycel.dataset.sources_image import (Cifar10Dataset, FashionMnistDataset,  # noqa: F401
                                         ImageFolderDataset, MnistDataset)
from mycel.dataset.sources_mindrecord import MindDataset  # noqa: F401
from mycel.dataset.sources_text import CSVDataset, Shuffle, TextFileDataset  # noqa: F401
from mycel.dataset.schema import Schema  # noqa: F401
from mycel.dataset.sources_tfrecord import TFRecordDataset  # noqa: F401
from mycel.dataset.samplers import PKSampler  # noqa: F401
from mycel.dataset.sources_vision import (CelebADataset, CocoDataset,  # noqa: F401
                                          EMnistDataset, KMnistDataset, LFWDataset,
                                          LSUNDataset, ManifestDataset, OmniglotDataset,
                                          SUN397Dataset, VOCDataset)

__all__ = ["config", "text", "transforms", "vision", "Dataset", "MnistDataset", "FashionMnistDataset",
           "Cifar10Dataset", "ImageFolderDataset", "NumpySlicesDataset", "GeneratorDataset",
           "TextFileDataset", "CSVDataset", "Shuffle", "MindDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "DistributedSampler", "SubsetSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchDataset", "BatchInfo",
           "MapDataset", "FilterDataset", "ShuffleDataset", "RepeatDataset", "SkipDataset",
           "TakeDataset", "ProjectDataset", "RenameDataset", "ZipDataset", "ConcatDataset", "zip",
           "TupleIterator", "DictIterator", "Schema", "TFRecordDataset"]
__all__ += ["PKSampler", "VOCDataset", "CocoDataset", "ManifestDataset", "CelebADataset",
            "LSUNDataset", "OmniglotDataset", "SUN397Dataset", "LFWDataset", "EMnistDataset",
            "KMnistDataset"]

# MindSpore's path of the iterators module, mindspore.dataset.engine.iterators (its dataset
# tests import _cleanup from there): engine is a module here, not a package, so the iterators
# module is registered under that name too (the same module object), and engine gets an empty
# __path__ (no submodule files of its own) so that the import system looks the name up.
import sys as _sys  # noqa: E402
from mycel.dataset import engine as _engine, iterators as _iterators  # noqa: E402

_engine.__path__ = []
_engine.iterators = _iterators
_sys.modules.setdefault("mycel.dataset.engine.iterators", _iterators)

# The same for MindSpore's packages that are single modules here: vision.transforms,
# transforms.transforms and text.transforms are those modules themselves, and vision.utils is
# vision_utils (whose image queries vision also offers, as MindSpore's does).
from mycel.dataset import vision_utils as _vision_utils  # noqa: E402

for _parent, _child, _module in ((vision, "transforms", vision), (vision, "utils", _vision_utils),
                                 (transforms, "transforms", transforms),
                                 (text, "transforms", text)):
    _parent.__path__ = []
    setattr(_parent, _child, _module)
    _sys.modules.setdefault(f"{_parent.__name__}.{_child}", _module)
transforms.vision = vision  # MindSpore's mindspore.dataset.transforms.vision
vision.get_image_size = _vision_utils.get_image_size
vision.get_image_num_channels = _vision_utils.get_image_num_channels
for _name in _vvid.__all__:  # MindSpore's vision.utils carries the file and video readers too
    setattr(_vision_utils, _name, getattr(_vvid, _name))
from mycel.dataset import audio  # noqa: E402,F401 (mindspore.dataset.audio)
from mycel.dataset.sources_audio import (CMUArcticDataset, GTZANDataset,  # noqa: E402,F401
                                         LJSpeechDataset, LibriTTSDataset, SpeechCommandsDataset,
                                         TedliumDataset, YesNoDataset)

# Text corpora (sources_text_corpora.py): AG News, IMDB, CLUE, SQuAD, Multi30k, IWSLT, ...
from mycel.dataset import sources_text_corpora as _corpora  # noqa: E402
from mycel.dataset.sources_text_corpora import *  # noqa: E402,F401,F403

__all__ += _corpora.__all__

# mindspore.dataset.core (its settings package; core.config is config).
from mycel.dataset import core  # noqa: E402,F401

# mindspore.dataset.engine.datasets: MindSpore's module of the Dataset classes, which are
# engine's here (the same module object, as engine.iterators above).
_engine.datasets = _engine
_sys.modules.setdefault("mycel.dataset.engine.datasets", _engine)

# mindspore.dataset.debug: the debug-mode hooks.
from mycel.dataset import debug  # noqa: E402,F401

# ds.serialize / ds.deserialize / ds.show: a pipeline as JSON (serialize.py).
from mycel.dataset.serialize import deserialize, serialize, show  # noqa: E402,F401
# PaddedDataset (padded.py): rows given as dicts, to pad a data set before sharding it.
from mycel.dataset.padded import PaddedDataset  # noqa: E402,F401
# More image data sets (sources_image_more.py, sources_image_extra.py).
from mycel.dataset.sources_image_more import (  # noqa: E402,F401
    Caltech101Dataset, Caltech256Dataset, FakeImageDataset, Flowers102Dataset, KITTIDataset,
    PhotoTourDataset, Places365Dataset, QMnistDataset, SBUDataset, SemeionDataset)
from mycel.dataset.sources_image_extra import (  # noqa: E402,F401
    CityscapesDataset, DIV2KDataset, Food101Dataset, RenderedSST2Dataset, SBDataset,
    STL10Dataset, SVHNDataset, USPSDataset, WIDERFaceDataset)
__all__ += ["PaddedDataset", "Caltech101Dataset", "Caltech256Dataset", "FakeImageDataset",
            "Flowers102Dataset", "KITTIDataset", "PhotoTourDataset", "Places365Dataset",
            "QMnistDataset", "SBUDataset", "SemeionDataset", "CityscapesDataset", "DIV2KDataset",
            "Food101Dataset", "RenderedSST2Dataset", "SBDataset", "STL10Dataset", "SVHNDataset",
            "USPSDataset", "WIDERFaceDataset"]
# ds.compare (serialize.py); the dataset callbacks (callback.py), as MindSpore exports them.
from mycel.dataset.serialize import compare  # noqa: E402,F401
from mycel.dataset.callback import DSCallback, WaitedDSCallback  # noqa: E402,F401

# transforms.RandomApply / RandomChoice / RandomOrder (transforms_random.py); vision's
# augmentation policies, GaussianBlur, RandomGrayscale, FiveCrop, TenCrop (vision_policy.py)
# and image file functions (vision_io.py, also in vision.utils, as MindSpore's); and
# MindSpore's module vision.py_transforms_util.
from mycel.dataset import transforms_random as _trand, vision_policy as _vpol  # noqa: E402
from mycel.dataset import vision_io as _vio, py_transforms_util as _ptu  # noqa: E402
for _host, _part in ((transforms, _trand), (vision, _vpol), (vision, _vio),
                     (_vision_utils, _vio)):
    for _name in _part.__all__:
        setattr(_host, _name, getattr(_part, _name))
    if hasattr(_host, "__all__"):  # (transforms has none: every public name is exported)
        _host.__all__ = list(_host.__all__) + list(_part.__all__)
for _name in ("AutoAugmentPolicy",):  # MindSpore's vision.utils holds the enums too
    setattr(_vision_utils, _name, getattr(_vpol, _name))
for _name in ("ConvertMode", "ImageBatchFormat"):
    if hasattr(_vaug, _name):
        setattr(_vision_utils, _name, getattr(_vaug, _name))
vision.py_transforms_util = _ptu
_sys.modules.setdefault("mycel.dataset.vision.py_transforms_util", _ptu)
# Cifar100Dataset (sources_cifar100.py); IterSampler wraps a user's iterable (samplers.py).
from mycel.dataset.sources_cifar100 import Cifar100Dataset  # noqa: E402,F401
from mycel.dataset.samplers import IterSampler  # noqa: E402,F401
__all__ += ["Cifar100Dataset", "IterSampler"]
# RandomDataset (sources_random.py): rows of random values.
from mycel.dataset.sources_random import RandomDataset  # noqa: E402,F401
__all__ += ["RandomDataset"]
# LineReader (line_reader.py): a text file's lines by number.
from mycel.dataset.line_reader import LineReader  # noqa: E402,F401
__all__ += ["LineReader"]
# FlickrDataset (sources_flickr.py): Flickr8k / Flickr30k images with their captions.
from mycel.dataset.sources_flickr import FlickrDataset  # noqa: E402,F401
__all__ += ["FlickrDataset"]
# dataset.utils (utils/): imshow_det_bbox draws a detection sample for viewing.
from mycel.dataset import utils  # noqa: E402,F401

"""Image data sets with annotations, in their own formats: VOCDataset, CocoDataset,
ManifestDataset, CelebADataset, LSUNDataset, OmniglotDataset, SUN397Dataset, LFWDataset; and
EMnistDataset and KMnistDataset, MNIST's format under other names (MindSpore's names,
arguments and columns).

Each class checks its argument types here and builds a C++ source (src/data/sources_vision.h)
that reads and checks the annotation or index files at construction (VOC's XML through libxml2,
COCO's and Manifest's JSON through nlohmann-json), so a missing or malformed file is an error
at construction; the engine then reads the image files by index on its worker threads
(decoded to uint8 [H, W, 3] with decode=True, else the file's bytes, uint8 [n]).
``extra_metadata=True`` (VOC, COCO) adds a column "_meta-filename" that iterators leave out
until it is renamed, as MindSpore does. Samplers and sharding work as for every source dataset;
PKSampler needs a source with a label per row (not COCO or CelebA).
"""
import os

from mycel import _mycel
from mycel.dataset._validate import check_bool
from mycel.dataset.samplers import PKSampler
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_image import (MnistDataset, _check_class_indexing, _check_dir,
                                         _check_extensions, _check_usage)

_data = _mycel._data


def _check_str(func, name, value, choices=None):
    if not isinstance(value, str):
        raise TypeError(f"{func}: {name} must be a str, but got {type(value).__name__} "
                        f"{value!r}.")
    if choices is not None and value not in choices:
        raise ValueError(f"{func}: {name} must be one of {list(choices)}, but got {value!r}.")
    return value


def _check_file(func, name, path):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{func}: {name} must be a path, but got {type(path).__name__}.")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise ValueError(f"{func}: the file {path} of {name} does not exist or permission "
                         "denied.")
    return path


def _check_existing_dir(func, dataset_dir):
    dataset_dir = _check_dir(func, dataset_dir)
    if not os.path.isdir(dataset_dir):
        raise ValueError(f"{func}: the dataset_dir {dataset_dir} does not exist or is not a "
                         "directory or permission denied.")
    return dataset_dir


def _no_pk(func, sampler):
    if isinstance(sampler, PKSampler):
        raise ValueError(f"{func} doesn't support PKSampler: its rows have no single label.")


class _AnnotatedDataset(SourceDataset):
    """The class table and class count of an annotated source."""

    _classes = None
    _num_classes = None

    def get_class_indexing(self):
        """{class name: label} (VOC, Manifest) or {name: [id, ...]} (COCO), as MindSpore."""
        if self._classes is None:
            task = getattr(self, "task", None)
            raise RuntimeError(f"get_class_indexing: {type(self).__name__} has no class table"
                               + (f" in the {task!r} task" if task else "") + ".")
        return dict(self._classes)

    def num_classes(self):
        """The number of classes of the source (None when it has none)."""
        return self._num_classes


class VOCDataset(_AnnotatedDataset):
    """VOCDataset(dataset_dir, task='Segmentation', usage='train', class_indexing=None,
    num_samples=None, num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
    num_shards=None, shard_id=None, cache=None, extra_metadata=False, decrypt=None): PASCAL VOC.

    task 'Segmentation': the ids of ImageSets/Segmentation/<usage>.txt; columns "image"
    (JPEGImages/<id>.jpg) and "target" (SegmentationClass/<id>.png). task 'Detection': the ids
    of ImageSets/Main/<usage>.txt whose Annotations/<id>.xml has an object of the classes
    (class_indexing's names, all when None); columns "image", "bbox" (float32 [N, 4]: xmin,
    ymin, width, height), "label", "difficult", "truncate" (uint32 [N, 1]). Labels come from
    class_indexing, else from the sorted object names found (get_class_indexing()).

    Raises ValueError for a bad task, a usage without its image set file, or class_indexing
    with 'Segmentation'; RuntimeError for a missing or malformed XML file, an annotation
    without objects, or a bndbox that is not a box."""

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None,
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None, extra_metadata=False,
                 decrypt=None):
        func = "VOCDataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        self.task = _check_str(func, "task", task)
        self.usage = _check_str(func, "usage", usage)
        if task not in ("Segmentation", "Detection"):
            raise ValueError(f"{func}: Invalid task : {task!r}; it must be 'Segmentation' or "
                             "'Detection'.")
        if task == "Segmentation" and class_indexing is not None:
            raise ValueError(f"{func}: class_indexing is not supported in Segmentation task.")
        _check_decrypt(func, decrypt)
        indexing = _check_class_indexing(func, class_indexing)
        self.decode = check_bool(func, "decode", decode)
        self.extra_metadata = check_bool(func, "extra_metadata", extra_metadata)
        source, classes = _data.voc_source(self.dataset_dir, task, usage, indexing, self.decode,
                                           self.extra_metadata)
        if task == "Detection":  # num_classes() stays None, as MindSpore's
            self._classes = [(name, ids[0]) for name, ids in classes]
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class CocoDataset(_AnnotatedDataset):
    """CocoDataset(dataset_dir, annotation_file, task='Detection', num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
    shard_id=None, cache=None, extra_metadata=False, decrypt=None): MS COCO.

    The images of dataset_dir listed in annotation_file's "images" that have annotations, in
    that order. Columns by task: 'Detection': "image", "bbox" (float32 [N, 4]), "category_id",
    "iscrowd" (uint32 [N, 1]); 'Stuff': "image", "segmentation" (float32 [N, L], polygons
    padded with -1), "iscrowd"; 'Keypoint': "image", "keypoints" (float32 [N, 51]),
    "num_keypoints"; 'Panoptic': "image", "bbox", "category_id", "iscrowd", "area";
    'Captioning': "image", "captions" (str [N, 1]). get_class_indexing() ('Detection',
    'Panoptic'): {category name: [id]} or {name: [id, isthing]}.

    Raises ValueError for a bad task, a missing directory or annotation file, or a PKSampler;
    RuntimeError for malformed JSON or a missing attribute, naming it."""

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None, extra_metadata=False, decrypt=None):
        func = "CocoDataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        self.annotation_file = _check_file(func, "annotation_file", annotation_file)
        self.task = _check_str(func, "task", task)
        if task not in ("Detection", "Stuff", "Panoptic", "Keypoint", "Captioning"):
            raise ValueError(f"{func}: Invalid task type: {task}.")
        _check_decrypt(func, decrypt)
        self.decode = check_bool(func, "decode", decode)
        self.extra_metadata = check_bool(func, "extra_metadata", extra_metadata)
        _no_pk(func, sampler)
        source, classes = _data.coco_source(self.dataset_dir, self.annotation_file, task,
                                            self.decode, self.extra_metadata)
        if task in ("Detection", "Panoptic"):  # num_classes() stays None, as MindSpore's
            self._classes = [(name, list(ids)) for name, ids in classes]
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class ManifestDataset(_AnnotatedDataset):
    """ManifestDataset(dataset_file, usage='train', num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, class_indexing=None, decode=False, num_shards=None,
    shard_id=None, cache=None): a Manifest file (one JSON object per line).

    Rows: the lines whose "usage" (any case) is usage ('train', 'eval' or 'inference') and whose
    "source" file is a JPEG, PNG, GIF or BMP image; their "annotation" names are the labels
    (only those in class_indexing when it is given). Columns: "image" and "label" (int32: a
    scalar for one label, [k] for k). Labels: class_indexing's, else the sorted names from 0.

    Raises ValueError for a missing file or a bad usage, RuntimeError for a malformed line
    (naming file:line) or a missing image."""

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, class_indexing=None, decode=False, num_shards=None,
                 shard_id=None, cache=None):
        func = "ManifestDataset"
        self.dataset_file = _check_file(func, "dataset_file", dataset_file)
        self.usage = _check_str(func, "usage", usage, ("train", "eval", "inference"))
        indexing = _check_class_indexing(func, class_indexing)
        self.decode = check_bool(func, "decode", decode)
        source, classes, num = _data.manifest_source(self.dataset_file, self.usage, indexing,
                                                     self.decode)
        self._classes = [(name, ids[0]) for name, ids in classes]
        self._num_classes = num
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class CelebADataset(SourceDataset):
    """CelebADataset(dataset_dir, num_parallel_workers=None, shuffle=None, usage='all',
    sampler=None, decode=False, extensions=None, num_samples=None, num_shards=None,
    shard_id=None, cache=None, decrypt=None): CelebA faces and their attributes.

    dataset_dir holds list_attr_celeba.txt (a row count, the attribute names, then one
    "<file> <1 or -1 per attribute>" line per image) and the images; usage 'train', 'valid' or
    'test' keeps the images whose line of list_eval_partition.txt says 0, 1 or 2. Files whose
    extension is not in extensions (when given) are skipped. Columns "image" and "attr" (uint32
    [n_attributes]: 1 where the file says 1, else 0)."""

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all",
                 sampler=None, decode=False, extensions=None, num_samples=None, num_shards=None,
                 shard_id=None, cache=None, decrypt=None):
        func = "CelebADataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        usage = "all" if usage is None else usage
        self.usage = _check_str(func, "usage", usage, ("all", "train", "valid", "test"))
        self.decode = check_bool(func, "decode", decode)
        self.extensions = _check_extensions(func, extensions)
        _check_decrypt(func, decrypt)
        _no_pk(func, sampler)
        source = _data.celeba_source(self.dataset_dir, self.usage, self.extensions, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class LSUNDataset(_AnnotatedDataset):
    """LSUNDataset(dataset_dir, usage=None, classes=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
    shard_id=None, cache=None): LSUN scenes stored as image folders.

    usage 'train' reads the folders <class>_train, 'valid' <class>_val, 'all' (None) both,
    'test' the folder test; classes (LSUN's ten when None) picks the classes. Labels: the
    folders' positions in sorted order. Columns "image" and "label" (uint32 scalar)."""

    _CLASSES = ("bedroom", "bridge", "church_outdoor", "classroom", "conference_room",
                "dining_room", "kitchen", "living_room", "restaurant", "tower")

    def __init__(self, dataset_dir, usage=None, classes=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        func = "LSUNDataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        usage = "all" if usage is None else usage
        self.usage = _check_str(func, "usage", usage, ("train", "test", "valid", "all"))
        if classes is not None and not isinstance(classes, list):
            raise TypeError(f"{func}: classes must be a list of class names, but got "
                            f"{type(classes).__name__}.")
        self.classes = [_check_str(func, "classes", c, self._CLASSES) for c in classes or []]
        self.decode = check_bool(func, "decode", decode)
        source, self._num_classes = _data.lsun_source(self.dataset_dir, self.usage,
                                                      self.classes, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class OmniglotDataset(SourceDataset):
    """OmniglotDataset(dataset_dir, background=True, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
    shard_id=None, cache=None): Omniglot's handwritten characters.

    The images of images_background (background=True) or images_evaluation, stored as
    <alphabet>/<character>/<file>; each character folder is a class, numbered in sorted
    alphabet/character order. Columns "image" and "label" (int32 scalar)."""

    def __init__(self, dataset_dir, background=True, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        func = "OmniglotDataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        self.background = check_bool(func, "background", background)
        self.decode = check_bool(func, "decode", decode)
        source = _data.omniglot_source(self.dataset_dir, self.background, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class SUN397Dataset(SourceDataset):
    """SUN397Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None): SUN397 scenes.

    ClassName.txt lists the classes ("/a/abbey", ...), labelled in its order from 0; each class
    folder's sun_*.jpg files are its images (classes read in name order, files sorted).
    Columns "image" and "label" (uint32 scalar)."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        func = "SUN397Dataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        self.decode = check_bool(func, "decode", decode)
        source = _data.sun397_source(self.dataset_dir, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class LFWDataset(SourceDataset):
    """LFWDataset(dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
    shard_id=None, cache=None): Labeled Faces in the Wild.

    task 'people' (None) reads people<DevTrain|DevTest>.txt ("<name> <count>" lines, after a
    count per fold), task 'pairs' pairs<DevTrain|DevTest>.txt (matched "<name> <i> <j>" and
    mismatched "<name1> <i> <name2> <j>" lines); usage '10fold' reads <task>.txt, 'train' and
    'test' one file, 'all' (None) both. Images: <image_set folder>/<name>/<name>_<0001>.jpg
    with image_set 'original' (lfw), 'funneled' (None: lfw_funneled) or 'deepfunneled'
    (lfw-deepfunneled). Columns: people "image", "label" (uint32, the name's line of
    lfw-names.txt); pairs "image1", "image2", "label" (uint32, 1 for a matched pair)."""

    def __init__(self, dataset_dir, task=None, usage=None, image_set=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        func = "LFWDataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        self.task = _check_str(func, "task", "people" if task is None else task,
                               ("people", "pairs"))
        self.usage = _check_str(func, "usage", "all" if usage is None else usage,
                                ("10fold", "train", "test", "all"))
        self.image_set = _check_str(func, "image_set", "funneled" if image_set is None
                                    else image_set, ("original", "funneled", "deepfunneled"))
        self.decode = check_bool(func, "decode", decode)
        source = _data.lfw_source(self.dataset_dir, self.task, self.usage, self.image_set,
                                  self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class KMnistDataset(MnistDataset):
    """KMnistDataset(dataset_dir, usage=None, ...): Kuzushiji-MNIST, the same idx format, file
    names, columns and arguments as MnistDataset."""


class EMnistDataset(SourceDataset):
    """EMnistDataset(dataset_dir, name, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None): EMNIST.

    MNIST's idx format and columns ("image" uint8 [28, 28, 1], "label" uint32) in the files
    emnist-<name>-{train,test}-{images-idx3,labels-idx1}-ubyte; name is one of 'byclass',
    'bymerge', 'balanced', 'letters', 'digits', 'mnist'; usage 'train', 'test' or 'all' (None:
    those present, train first)."""

    def __init__(self, dataset_dir, name, usage=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        func = "EMnistDataset"
        self.dataset_dir = _check_existing_dir(func, dataset_dir)
        self.name = _check_str(func, "name", name, ("byclass", "bymerge", "balanced", "letters",
                                                    "digits", "mnist"))
        self.usage = _check_usage(func, usage)
        source = _data.emnist_source(self.dataset_dir, self.name, self.usage)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


def _check_decrypt(func, decrypt):
    if decrypt is not None:
        if not callable(decrypt):
            raise TypeError(f"{func}: Argument decrypt is not a callable object, but got "
                            f"{type(decrypt)}.")
        raise NotImplementedError(f"{func}: decrypt (reading encrypted images) is not "
                                  "supported by mycel.")

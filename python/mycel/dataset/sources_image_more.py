"""More image data sets in their own layouts, with MindSpore's names, arguments and columns:
Caltech101Dataset, Caltech256Dataset, Flowers102Dataset, KITTIDataset, Places365Dataset,
SBUDataset (image files and their index files), QMnistDataset, SemeionDataset,
PhotoTourDataset (pixel data in idx, text and BMP files) and FakeImageDataset (generated).

Each class reads and checks its index files here at construction, so a missing or malformed
file is an error naming the class and the file, before any row is read. Sources of image
files then read (and, with decode=True, decode to uint8 [H, W, 3]) each row's files in C++ on
the engine's worker threads (``_data.image_table_source``, src/data/image_table.h); QMNIST and
Semeion are loaded whole into a C++ array source; PhotoTour's BMP sheets are read lazily and
FakeImage's rows generated on demand, in Python (one engine thread). Samplers, shuffling,
num_samples and num_shards/shard_id work as for every source dataset.
"""
import functools
import inspect
import os
import re
import threading

import numpy as np

from mycel import _mycel
from mycel.dataset._matfile import loadmat
from mycel.dataset._validate import check_bool, check_int
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_image import _check_dir

_data = _mycel._data


def _ms_args(init):
    """Binds a constructor's arguments to its signature first, so that a missing or unknown
    argument is a TypeError in MindSpore's words ("missing a required argument: 'x'")."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def checked(self, *args, **kwargs):
        try:
            signature.bind(self, *args, **kwargs)
        except TypeError as err:
            raise TypeError(f"{type(self).__name__}: {err}") from None
        return init(self, *args, **kwargs)
    return checked


def _existing_dir(func, dataset_dir):
    dataset_dir = _check_dir(func, dataset_dir)
    if not os.path.isdir(dataset_dir):
        raise ValueError(f"{func}: The folder {dataset_dir} does not exist or is not a directory "
                         "or permission denied!")
    return dataset_dir


def _choice(func, name, value, choices):
    if not isinstance(value, str):
        raise TypeError(f"{func}: Argument {name} with value {value!r} is not of type "
                        f"[<class 'str'>], but got {type(value)}.")
    if value not in choices:
        raise ValueError(f"{func}: Input {name} is not within the valid set of "
                         f"{list(choices)}.")
    return value


def _need_file(func, path, what):
    if not os.path.isfile(path):
        raise RuntimeError(f"{func}: the {what} {path} does not exist or permission denied.")
    return path


def _read_text(func, path, what):
    _need_file(func, path, what)
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError as err:
        raise RuntimeError(f"{func}: cannot read the {what} {path}: {err.strerror}.") from None


def _table(func, columns, files, values, classes, decode):
    """A C++ image table source: row i reads files[i], then gives values[i]."""
    if not files:
        raise RuntimeError(f"{func}: no image found (the dataset_dir holds no valid data).")
    return _data.image_table_source(func, columns, files, values, classes, decode)


def _files_in(folder, extensions):
    """The sorted names of the regular files of folder whose extension is in extensions."""
    names = [n for n in os.listdir(folder) if os.path.splitext(n)[1] in extensions]
    return sorted(n for n in names if os.path.isfile(os.path.join(folder, n)))


# ----- Caltech 101 / 256 -----

# The 101 categories of Caltech 101 (sorted, BACKGROUND_Google left out), numbered in this
# order by get_class_indexing, as MindSpore's table.
_CALTECH101_CLASSES = (
    "Faces Faces_easy Leopards Motorbikes accordion airplanes anchor ant barrel bass beaver "
    "binocular bonsai brain brontosaurus buddha butterfly camera cannon car_side ceiling_fan "
    "cellphone chair chandelier cougar_body cougar_face crab crayfish crocodile crocodile_head "
    "cup dalmatian dollar_bill dolphin dragonfly electric_guitar elephant emu euphonium ewer "
    "ferry flamingo flamingo_head garfield gerenuk gramophone grand_piano hawksbill headphone "
    "hedgehog helicopter ibis inline_skate joshua_tree kangaroo ketch lamp laptop llama lobster "
    "lotus mandolin mayfly menorah metronome minaret nautilus octopus okapi pagoda panda pigeon "
    "pizza platypus pyramid revolver rhino rooster saxophone schooner scissors scorpion "
    "sea_horse snoopy soccer_ball stapler starfish stegosaurus stop_sign strawberry sunflower "
    "tick trilobite umbrella watch water_lilly wheelchair wild_cat windsor_chair wrench "
    "yin_yang").split()
# Annotation folders named differently from their image folders.
_CALTECH101_ANNOTATION_DIRS = {"Faces": "Faces_2", "Faces_easy": "Faces_3",
                               "Motorbikes": "Motorbikes_16", "airplanes": "Airplanes_Side_2"}


class Caltech101Dataset(SourceDataset):
    """Caltech101Dataset(dataset_dir, target_type=None, num_samples=None,
    num_parallel_workers=1, shuffle=None, decode=False, sampler=None, num_shards=None,
    shard_id=None): Caltech 101.

    dataset_dir holds 101_ObjectCategories/<class>/image_<NNNN>.jpg and
    Annotations/<class>/annotation_<NNNN>.mat (Faces, Faces_easy, Motorbikes and airplanes
    under Faces_2, Faces_3, Motorbikes_16 and Airplanes_Side_2). Classes are the sorted image
    folders (BACKGROUND_Google left out), numbered from 0; rows in class then file order.
    target_type 'category' (None): columns "image", "category" (int64 scalar); 'annotation':
    "image", "annotation" (the file's obj_contour, a [2, n] array of contour points);
    'all': "image", "category", "annotation". get_class_indexing() is Caltech 101's table of
    its 101 classes.

    Raises ValueError for a missing directory or a bad target_type, RuntimeError for a missing
    or corrupt annotation file (naming it) or no image."""

    @_ms_args
    def __init__(self, dataset_dir, target_type=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None):
        func = "Caltech101Dataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.target_type = _choice(func, "target_type", target_type or "category",
                                   ("category", "annotation", "all"))
        self.decode = check_bool(func, "decode", decode)
        image_dir = os.path.join(self.dataset_dir, "101_ObjectCategories")
        if not os.path.isdir(image_dir):
            raise ValueError(f"{func}: The folder {image_dir} does not exist or is not a "
                             "directory or permission denied!")
        classes = sorted(c for c in os.listdir(image_dir) if c != "BACKGROUND_Google" and
                         os.path.isdir(os.path.join(image_dir, c)))
        columns = {"category": ["image", "category"], "annotation": ["image", "annotation"],
                   "all": ["image", "category", "annotation"]}[self.target_type]
        files, values, labels = [], [], []
        for label, cls in enumerate(classes):
            for name in _files_in(os.path.join(image_dir, cls), (".jpg",)):
                files.append([os.path.join(image_dir, cls, name)])
                labels.append([label])
                row = [np.array(label, np.int64)] if self.target_type != "annotation" else []
                if self.target_type != "category":
                    row.append(self._annotation(func, cls, name))
                values.append(row)
        source = _table(func, columns, files, values, labels, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _annotation(self, func, cls, image_name):
        number = re.sub(r"^image_", "", os.path.splitext(image_name)[0])
        path = os.path.join(self.dataset_dir, "Annotations",
                            _CALTECH101_ANNOTATION_DIRS.get(cls, cls),
                            f"annotation_{number}.mat")
        _need_file(func, path, "annotation file")
        arrays = loadmat(path)
        if "obj_contour" not in arrays:
            raise RuntimeError(f"{func}: the annotation file {path} has no obj_contour array.")
        return arrays["obj_contour"]

    def get_class_indexing(self):
        """{class name: index} of Caltech 101's 101 classes."""
        return {name: i for i, name in enumerate(_CALTECH101_CLASSES)}


class Caltech256Dataset(SourceDataset):
    """Caltech256Dataset(dataset_dir, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
    Caltech 256, one folder per class (as ImageFolderDataset).

    The .jpg and .JPEG files of each sub-folder of dataset_dir; classes are the sorted folder
    names numbered from 0; rows in class then file order. Columns "image" and "label" (uint32
    scalar)."""

    @_ms_args
    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        func = "Caltech256Dataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.decode = check_bool(func, "decode", decode)
        classes = sorted(c for c in os.listdir(self.dataset_dir)
                         if os.path.isdir(os.path.join(self.dataset_dir, c)))
        files, values, labels = [], [], []
        for label, cls in enumerate(classes):
            for name in _files_in(os.path.join(self.dataset_dir, cls), (".jpg", ".JPEG")):
                files.append([os.path.join(self.dataset_dir, cls, name)])
                values.append([np.array(label, np.uint32)])
                labels.append([label])
        source = _table(func, ["image", "label"], files, values, labels, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


# ----- Flowers 102 -----

class Flowers102Dataset(SourceDataset):
    """Flowers102Dataset(dataset_dir, task='Classification', usage='all', num_samples=None,
    num_parallel_workers=1, shuffle=None, decode=False, sampler=None, num_shards=None,
    shard_id=None): Oxford 102 Flowers.

    dataset_dir holds jpg/image_<NNNNN>.jpg, segmim/segmim_<NNNNN>.jpg, imagelabels.mat
    ("labels": 1..102 per image) and setid.mat ("trnid", "tstid", "valid": image numbers).
    usage 'train', 'test', 'valid' or 'all' (train, test then valid). Columns: 'Classification'
    "image", "label" (uint32 scalar, labels - 1); 'Segmentation' "image", "segmentation",
    "label".

    Raises ValueError for a missing directory, a bad task or usage; RuntimeError for a missing
    or corrupt .mat file or a missing image (naming it)."""

    @_ms_args
    def __init__(self, dataset_dir, task="Classification", usage="all", num_samples=None,
                 num_parallel_workers=1, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None):
        func = "Flowers102Dataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.task = _choice(func, "task", task, ("Classification", "Segmentation"))
        self.usage = _choice(func, "usage", usage, ("train", "valid", "test", "all"))
        self.decode = check_bool(func, "decode", decode)
        _existing_dir(func, os.path.join(self.dataset_dir, "jpg"))
        if self.task == "Segmentation":
            _existing_dir(func, os.path.join(self.dataset_dir, "segmim"))
        for name in ("imagelabels.mat", "setid.mat"):
            if not os.path.isfile(os.path.join(self.dataset_dir, name)):
                raise ValueError(f"{func}: The file {os.path.join(self.dataset_dir, name)} does "
                                 "not exist or permission denied!")
        labels = self._mat(func, "imagelabels.mat", "labels").reshape(-1).astype(np.int64) - 1
        keys = {"train": ["trnid"], "test": ["tstid"], "valid": ["valid"],
                "all": ["trnid", "tstid", "valid"]}[self.usage]
        ids = np.concatenate([self._mat(func, "setid.mat", k).reshape(-1).astype(np.int64)
                              for k in keys])
        seg = self.task == "Segmentation"
        files, values, classes = [], [], []
        for i in ids:
            if not 1 <= i <= len(labels):
                raise RuntimeError(f"{func}: setid.mat names image {i}, but imagelabels.mat "
                                   f"has {len(labels)} labels.")
            row = [self._image(func, "jpg", "image", i)]
            if seg:
                row.append(self._image(func, "segmim", "segmim", i))
            files.append(row)
            values.append([np.array(labels[i - 1], np.uint32)])
            classes.append([int(labels[i - 1])])
        columns = ["image", "segmentation", "label"] if seg else ["image", "label"]
        source = _table(func, columns, files, values, classes, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _mat(self, func, name, key):
        path = _need_file(func, os.path.join(self.dataset_dir, name), "label file")
        arrays = loadmat(path)
        if key not in arrays:
            raise RuntimeError(f"{func}: the file {path} has no array {key!r}.")
        return arrays[key]

    def _image(self, func, folder, prefix, i):
        path = os.path.join(self.dataset_dir, folder, f"{prefix}_{i:05d}.jpg")
        if not os.path.isfile(path):
            raise RuntimeError(f"{func}: Can not find image file: {path}")
        return path

    def get_class_indexing(self):
        """{flower name: label} of the 102 classes (label = imagelabels.mat's number - 1)."""
        return {name: i for i, name in enumerate(_FLOWERS102_CLASSES)}


# The names of the 102 flower classes, in the order of their numbers in imagelabels.mat.
_FLOWERS102_CLASSES = (
    "pink primrose|hard-leaved pocket orchid|canterbury bells|sweet pea|english marigold|"
    "tiger lily|moon orchid|bird of paradise|monkshood|globe thistle|snapdragon|colt's foot|"
    "king protea|spear thistle|yellow iris|globe-flower|purple coneflower|peruvian lily|"
    "balloon flower|giant white arum lily|fire lily|pincushion flower|fritillary|red ginger|"
    "grape hyacinth|corn poppy|prince of wales feathers|stemless gentian|artichoke|"
    "sweet william|carnation|garden phlox|love in the mist|mexican aster|alpine sea holly|"
    "ruby-lipped cattleya|cape flower|great masterwort|siam tulip|lenten rose|barbeton daisy|"
    "daffodil|sword lily|poinsettia|bolero deep blue|wallflower|marigold|buttercup|"
    "oxeye daisy|common dandelion|petunia|wild pansy|primula|sunflower|pelargonium|"
    "bishop of llandaff|gaura|geranium|orange dahlia|pink-yellow dahlia?|cautleya spicata|"
    "japanese anemone|black-eyed susan|silverbush|californian poppy|osteospermum|"
    "spring crocus|bearded iris|windflower|tree poppy|gazania|azalea|water lily|rose|"
    "thorn apple|morning glory|passion flower|lotus|toad lily|anthurium|frangipani|clematis|"
    "hibiscus|columbine|desert-rose|tree mallow|magnolia|cyclamen|watercress|canna lily|"
    "hippeastrum|bee balm|ball moss|foxglove|bougainvillea|camellia|mallow|mexican petunia|"
    "bromelia|blanket flower|trumpet creeper|blackberry lily").split("|")


# ----- KITTI -----

_FLOAT32_MAX = float(np.finfo(np.float32).max)
_KITTI_FIELDS = 15  # type, truncated, occluded, alpha, bbox (4), dimensions (3), location (3), ry


class KITTIDataset(SourceDataset):
    """KITTIDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None): the
    KITTI object detection set.

    usage 'train' (None) reads data_object_image_2/training/image_2/<id>.png and
    data_object_label_2/training/label_2/<id>.txt (one object per line: type, truncated,
    occluded, alpha, bbox x1 y1 x2 y2, dimensions h w l, location x y z, rotation_y); images
    without objects are left out. Columns: "image", "label" (uint32 [N, 1], the object type's
    position among the sorted types found), "truncated", "occluded" (uint32), "alpha" (float32
    [N, 1]), "bbox" (float32 [N, 4]), "dimensions", "location" (float32 [N, 3]), "rotation_y"
    (float32 [N, 1]). usage 'test' reads data_object_image_2/testing/image_2: column "image".

    Raises ValueError for a missing directory or a bad usage, RuntimeError for a missing label
    file or a malformed line (naming file:line)."""

    @_ms_args
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        func = "KITTIDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "train" if usage is None else usage,
                             ("train", "test"))
        self.decode = check_bool(func, "decode", decode)
        split = "training" if self.usage == "train" else "testing"
        image_dir = os.path.join(self.dataset_dir, "data_object_image_2", split, "image_2")
        if not os.path.isdir(image_dir):
            raise RuntimeError(f"{func}: the image folder {image_dir} does not exist.")
        ids = [os.path.splitext(n)[0] for n in _files_in(image_dir, (".png",))]
        if self.usage == "test":
            files = [[os.path.join(image_dir, i + ".png")] for i in ids]
            source = _table(func, ["image"], files, [[] for _ in ids], [], self.decode)
        else:
            source = self._train_source(func, image_dir, ids)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _train_source(self, func, image_dir, ids):
        label_dir = os.path.join(self.dataset_dir, "data_object_label_2", "training", "label_2")
        objects = {}
        for i in ids:
            path = os.path.join(label_dir, i + ".txt")
            found = [_kitti_object(func, path, n, line) for n, line in
                     enumerate(_read_text(func, path, "label file").splitlines(), 1)
                     if line.strip()]
            if found:
                objects[i] = found
        types = {t: k for k, t in enumerate(sorted({o[0] for v in objects.values() for o in v}))}
        files, values, classes = [], [], []
        for i in ids:
            if i not in objects:
                continue
            obj = objects[i]
            num = np.array([o[1] for o in obj], np.float32).reshape(-1, _KITTI_FIELDS - 1)
            label = np.array([[types[o[0]]] for o in obj], np.uint32)
            files.append([os.path.join(image_dir, i + ".png")])
            values.append([label, num[:, 0:1], num[:, 1:2].astype(np.int64).astype(np.uint32),
                           num[:, 2:3], num[:, 3:7], num[:, 7:10], num[:, 10:13],
                           num[:, 13:14]])
            classes.append(sorted({int(v) for v in label.reshape(-1)}))
        columns = ["image", "label", "truncated", "occluded", "alpha", "bbox", "dimensions",
                   "location", "rotation_y"]
        return _table(func, columns, files, values, classes, self.decode)


def _kitti_object(func, path, line_no, line):
    """(type, [14 floats]) of one line of a KITTI label file."""
    words = line.split()
    if len(words) != _KITTI_FIELDS:
        raise RuntimeError(f"{func}: Invalid file, {path}:{line_no} has {len(words)} fields, "
                           f"but a KITTI object line has {_KITTI_FIELDS}.")
    try:
        values = [float(w) for w in words[1:]]
    except ValueError:
        values = [float("nan")]
    # finite float32 values; occluded (the third field) an integer category, stored as uint32
    # (DontCare's -1 wraps as in MindSpore's reader)
    if not all(abs(v) <= _FLOAT32_MAX for v in values) or \
            not (values[1] == int(values[1]) and -2**31 <= values[1] < 2**32):
        raise RuntimeError(f"{func}: Invalid file, {path}:{line_no} has a field that is not a "
                           f"number in range: {line.strip()!r}.")
    return words[0], values


# ----- Places365 -----

class Places365Dataset(SourceDataset):
    """Places365Dataset(dataset_dir, usage=None, small=True, decode=False, num_samples=None,
    num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None,
    cache=None): Places365 scenes.

    usage 'train-standard' (None), 'train-challenge' or 'val' reads the "<path> <label>" lines
    of places365_train_standard.txt, places365_train_challenge.txt or places365_val.txt; the
    images are under data_256_standard, data_256_challenge, val_256 (small=True) or
    data_large_standard, data_large_challenge, val_large. Columns "image" and "label" (uint32
    scalar); categories_places365.txt ("<category> <label>" lines) gives get_class_indexing().

    Raises ValueError for a missing directory or a bad usage, RuntimeError for a missing or
    malformed index file (naming file:line)."""

    _LISTS = {"train-standard": "places365_train_standard.txt",
              "train-challenge": "places365_train_challenge.txt", "val": "places365_val.txt"}
    _FOLDERS = {"train-standard": "standard", "train-challenge": "challenge"}

    @_ms_args
    def __init__(self, dataset_dir, usage=None, small=True, decode=False, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        func = "Places365Dataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "train-standard" if usage is None else usage,
                             tuple(self._LISTS))
        self.small = check_bool(func, "small", small)
        self.decode = check_bool(func, "decode", decode)
        self._classes = dict(self._pairs(func, "categories_places365.txt"))
        if self.usage == "val":
            folder = "val_256" if self.small else "val_large"
        else:
            folder = ("data_256_" if self.small else "data_large_") + self._FOLDERS[self.usage]
        files, values, classes = [], [], []
        for path, label in self._pairs(func, self._LISTS[self.usage]):
            files.append([os.path.join(self.dataset_dir, folder, path.lstrip("/"))])
            values.append([np.array(label, np.uint32)])
            classes.append([label])
        source = _table(func, ["image", "label"], files, values, classes, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _pairs(self, func, name):
        path = os.path.join(self.dataset_dir, name)
        out = []
        for n, line in enumerate(_read_text(func, path, "index file").splitlines(), 1):
            words = line.split()
            if not words:
                continue
            if len(words) != 2 or not words[1].isdigit() or int(words[1]) >= 2**32:
                raise RuntimeError(f"{func}: Invalid data, {path}:{n} is not a \"<name> "
                                   f"<label>\" line: {line.strip()!r}.")
            out.append((words[0], int(words[1])))
        return out

    def get_class_indexing(self):
        """{category: label} of categories_places365.txt."""
        return dict(self._classes)


# ----- SBU -----

class SBUDataset(SourceDataset):
    """SBUDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
    decode=False, sampler=None, num_shards=None, shard_id=None, cache=None): SBU captioned
    photos.

    Line k of SBU_captioned_photo_dataset_urls.txt is the URL of the image whose caption is
    line k of SBU_captioned_photo_dataset_captions.txt; the image is
    sbu_images/<the URL after its 23rd character, '/' replaced by '_'>, and lines whose image
    is not there are left out. Columns "image" and "caption" (str scalar, trailing spaces
    removed).

    Raises ValueError for a missing directory, RuntimeError for a missing index file, a line
    with a URL but no caption (or the reverse), or no image found."""

    _URL_PREFIX = 23  # "http://static.flickr.com/" less the two characters MindSpore keeps

    @_ms_args
    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
        func = "SBUDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.decode = check_bool(func, "decode", decode)
        url_path = os.path.join(self.dataset_dir, "SBU_captioned_photo_dataset_urls.txt")
        cap_path = os.path.join(self.dataset_dir, "SBU_captioned_photo_dataset_captions.txt")
        urls = _read_text(func, url_path, "url file").splitlines()
        captions = _read_text(func, cap_path, "caption file").splitlines()
        image_dir = os.path.join(self.dataset_dir, "sbu_images")
        files, values = [], []
        for n, (url, caption) in enumerate(zip(urls, captions), 1):
            if bool(url) != bool(caption):
                raise RuntimeError(f"{func}: Invalid data, line {n} of {url_path} and "
                                   f"{cap_path}: one is empty and the other is not.")
            if not url:
                continue
            if len(url) <= self._URL_PREFIX:
                raise RuntimeError(f"{func}: Invalid url in {url_path}:{n}: {url!r}.")
            path = os.path.join(image_dir, url[self._URL_PREFIX:].replace("/", "_"))
            if os.path.isfile(path):
                files.append([path])
                values.append([np.array(caption.rstrip(" "))])
        if not files:
            raise RuntimeError(f"{func}: Invalid data, no valid images in {image_dir}.")
        source = _table(func, ["image", "caption"], files, values, [], self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def get_class_indexing(self):
        """{}: SBU's rows have captions, not classes."""
        return {}


# ----- QMNIST, Semeion: pixels in the index files -----

def _read_idx(func, path, magic, item_shape, dtype):
    """The items of a big-endian idx file (magic number, count, then the item dimensions) as
    an array [count, *item_shape] of dtype."""
    _need_file(func, path, "data file")
    with open(path, "rb") as f:
        data = f.read()
    dims = len(item_shape) + 1
    head = 4 + 4 * dims
    if len(data) < head:
        raise RuntimeError(f"{func}: Invalid file, {path} has {len(data)} bytes, fewer than its "
                           f"{head}-byte header.")
    words = np.frombuffer(data, ">u4", dims + 1)
    if int(words[0]) != magic:
        raise RuntimeError(f"{func}: Invalid file, the magic number of {path} is "
                           f"{int(words[0])}, expected {magic}.")
    count = int(words[1])
    if [int(w) for w in words[2:]] != list(item_shape):
        raise RuntimeError(f"{func}: Invalid file, the items of {path} have the shape "
                           f"{[int(w) for w in words[2:]]}, expected {list(item_shape)}.")
    itemsize = np.dtype(dtype).itemsize * int(np.prod(item_shape))
    if len(data) - head != count * itemsize:
        raise RuntimeError(f"{func}: Invalid file, {path} holds {len(data) - head} bytes of "
                           f"data for {count} items of {itemsize} bytes (truncated or corrupt).")
    return np.frombuffer(data, dtype, count * int(np.prod(item_shape)), head).reshape(
        (count,) + tuple(item_shape))


class QMnistDataset(SourceDataset):
    """QMnistDataset(dataset_dir, usage=None, compat=True, num_samples=None,
    num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None,
    cache=None): QMNIST.

    The idx files <prefix>-images-idx3-ubyte (uint8 28x28 images) and
    <prefix>-labels-idx2-int (eight big-endian int32 per image: class, NIST hsf, writer id,
    digit index, NIST class, global index, duplicate, unused) with prefix qmnist-train
    (usage 'train'), qmnist-test ('test'; 'test10k' its first 10,000 rows, 'test50k' the rest,
    at most 50,000), xnist ('nist'); 'all' (None) reads train, test and nist. Columns "image"
    (uint8 [28, 28, 1]) and "label": uint32 scalar (the class) with compat=True, else uint32
    [8] (all eight fields).

    Raises ValueError for a missing directory or a bad usage, RuntimeError for a missing,
    truncated or corrupt file (naming it)."""

    _PREFIXES = {"train": ["qmnist-train"], "test": ["qmnist-test"],
                 "test10k": ["qmnist-test"], "test50k": ["qmnist-test"], "nist": ["xnist"],
                 "all": ["qmnist-train", "qmnist-test", "xnist"]}

    @_ms_args
    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        func = "QMnistDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "all" if usage is None else usage,
                             tuple(self._PREFIXES))
        self.compat = check_bool(func, "compat", compat)
        images, labels = [], []
        for prefix in self._PREFIXES[self.usage]:
            base = os.path.join(self.dataset_dir, prefix)
            img = _read_idx(func, base + "-images-idx3-ubyte", 2051, (28, 28), np.uint8)
            lab = _read_idx(func, base + "-labels-idx2-int", 3074, (8,), ">i4")
            if len(img) != len(lab):
                raise RuntimeError(f"{func}: Invalid data, {base}-images-idx3-ubyte has "
                                   f"{len(img)} images but {base}-labels-idx2-int has "
                                   f"{len(lab)} labels.")
            rows = slice(0, 10000) if self.usage == "test10k" else \
                slice(10000, 60000) if self.usage == "test50k" else slice(None)
            images.append(img[rows])
            labels.append(lab[rows])
        image = np.concatenate(images)[..., None]
        label = np.concatenate(labels).astype(np.uint32)
        label = label[:, 0] if self.compat else label
        source = _data.ArraySource(func, [np.ascontiguousarray(image),
                                          np.ascontiguousarray(label)], ["image", "label"])
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class SemeionDataset(SourceDataset):
    """SemeionDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None, cache=None): Semeion handwritten digits.

    Each line of dataset_dir/semeion.data is 256 pixel values (0 or 1, written "1.0000")
    then 10 one-hot digit flags. Columns "image" (uint8 [16, 16], the pixel values) and
    "label" (uint32 scalar, the position of the flag set).

    Raises ValueError for a missing directory, RuntimeError for a missing file or a line that
    is not 266 numbers with one flag set (naming file:line)."""

    @_ms_args
    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        func = "SemeionDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        path = os.path.join(self.dataset_dir, "semeion.data")
        images, labels = [], []
        for n, line in enumerate(_read_text(func, path, "data file").splitlines(), 1):
            if not line.strip():
                continue
            try:
                values = np.array(line.split(), np.float64)
            except ValueError:
                raise RuntimeError(f"{func}: Invalid data, {path}:{n} has a value that is not a "
                                   "number.") from None
            flags = np.flatnonzero(values[256:]) if values.size == 266 else []
            if values.size != 266 or len(flags) != 1 or not np.isfinite(values).all() or \
                    values[:256].min() < 0 or values[:256].max() > 255:
                raise RuntimeError(f"{func}: Invalid data, {path}:{n} is not 256 pixel values "
                                   "and 10 digit flags with one set.")
            images.append(values[:256].astype(np.uint8).reshape(16, 16))
            labels.append(int(flags[0]))
        if not images:
            raise RuntimeError(f"{func}: Invalid data, {path} has no sample.")
        source = _data.ArraySource(func, [np.stack(images), np.array(labels, np.uint32)],
                                   ["image", "label"])
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


# ----- PhotoTour -----

def _read_bmp_gray(func, path):
    """An uncompressed 8-bit (palette) or 24/32-bit BMP file as a uint8 gray image [H, W] (a
    palette or colour image through its luma, ITU-R 601, as OpenCV's grayscale read)."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 54 or data[:2] != b"BM":
        raise RuntimeError(f"{func}: Invalid file, {path} is not a BMP image.")
    offset = int.from_bytes(data[10:14], "little")
    header = int.from_bytes(data[14:18], "little")
    width = int.from_bytes(data[18:22], "little", signed=True)
    height = int.from_bytes(data[22:26], "little", signed=True)
    bits = int.from_bytes(data[28:30], "little")
    compression = int.from_bytes(data[30:34], "little")
    if compression != 0 or bits not in (8, 24, 32) or width <= 0 or height == 0:
        raise RuntimeError(f"{func}: {path}: only uncompressed 8-, 24- or 32-bit BMP images are "
                           f"read (got {bits} bits, compression {compression}).")
    stride = (width * bits // 8 + 3) // 4 * 4
    rows = abs(height)
    if offset + stride * rows > len(data):
        raise RuntimeError(f"{func}: Invalid file, {path} is truncated.")
    pixels = np.frombuffer(data, np.uint8, stride * rows, offset).reshape(rows, stride)
    weights = np.array([0.114, 0.587, 0.299])  # B, G, R
    if bits == 8:
        colours = int.from_bytes(data[46:50], "little") or 256
        if colours > 256 or 14 + header + 4 * colours > len(data):
            raise RuntimeError(f"{func}: Invalid file, {path} has a palette of {colours} colours "
                               f"after a {header}-byte header, past its {len(data)} bytes.")
        palette = np.frombuffer(data, np.uint8, 4 * colours, 14 + header).reshape(colours, 4)
        gray = np.rint(palette[:, :3] @ weights).astype(np.uint8)
        out = gray[np.minimum(pixels[:, :width], colours - 1)]
    else:
        bgr = pixels[:, :width * bits // 8].reshape(rows, width, bits // 8)[..., :3]
        out = np.rint(bgr @ weights).astype(np.uint8)
    return out[::-1] if height > 0 else out


class PhotoTourDataset(SourceDataset):
    """PhotoTourDataset(dataset_dir, name, usage=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None,
    cache=None): the Photo Tour (Multi-view Stereo Correspondence) patches.

    dataset_dir/<name> holds BMP sheets of 16x16 patches of 64x64 pixels (patch k: sheet k //
    256 in sorted file order, row (k % 256) // 16, column k % 16), info.txt (one line per
    patch) and m50_100000_100000_0.txt ("<patch1> <point1> _ <patch2> <point2> _ _" lines).
    usage 'train' (None): one row per line of info.txt, column "image" (uint8 [64, 64, 1]);
    'test': one row per match, columns "image1", "image2", "matches" (uint32 scalar, 1 when
    the two patches show the same 3-D point). Sheets are read when first needed and the 64
    most recently used kept. PKSampler's
    classes: the patch's 3-D point id (train), the matches value (test).

    Raises ValueError for a bad name or usage or a missing directory, RuntimeError for a
    missing or malformed index file or BMP sheet (naming it)."""

    _NAMES = ("notredame", "yosemite", "liberty", "notredame_harris", "yosemite_harris",
              "liberty_harris")

    @_ms_args
    def __init__(self, dataset_dir, name, usage=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        func = "PhotoTourDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.name = _choice(func, "name", name, self._NAMES)
        self.usage = _choice(func, "usage", "train" if usage is None else usage,
                             ("train", "test"))
        folder = os.path.join(self.dataset_dir, self.name)
        if not os.path.isdir(folder):
            raise RuntimeError(f"{func}: the folder {folder} does not exist.")
        self._sheets = [os.path.join(folder, n) for n in sorted(os.listdir(folder))
                        if n.endswith("bmp")]
        self._cache, self._lock = {}, threading.Lock()
        info = [ln for ln in _read_text(func, os.path.join(folder, "info.txt"),
                                        "info file").splitlines() if ln.strip()]
        if self.usage == "train":
            rows, columns = len(info), ["image"]
            classes = [self._info_class(func, folder, n, line) for n, line in enumerate(info, 1)]
        else:
            self._matches = self._read_matches(func, os.path.join(folder,
                                                                  "m50_100000_100000_0.txt"))
            rows, columns = len(self._matches), ["image1", "image2", "matches"]
            classes = [m[2] for m in self._matches]
        if rows == 0:
            raise RuntimeError(f"{func}: Invalid data, no sample in {folder}.")
        limit = 256 * len(self._sheets)
        if self.usage == "train" and rows > limit:
            raise RuntimeError(f"{func}: info.txt lists {rows} patches but the BMP sheets of "
                               f"{folder} hold {limit}.")
        if self.usage == "test":
            bad = [m for m in self._matches if max(m[0], m[1]) >= limit]
            if bad:
                raise RuntimeError(f"{func}: a match names patch {max(bad[0][:2])}, but the "
                                   f"BMP sheets of {folder} hold {limit}.")
        self._func = func
        source = _data.with_classes(_data.PySource(self._read, rows, columns), classes)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    @staticmethod
    def _info_class(func, folder, n, line):
        """The 3-D point id of a patch (info.txt's first field): its class for PKSampler."""
        word = line.split()[0]
        if not word.isdigit() or int(word) >= 2**63:
            raise RuntimeError(f"{func}: Invalid data, {os.path.join(folder, 'info.txt')}:{n} "
                               f"does not start with a point id: {line.strip()!r}.")
        return int(word)

    @staticmethod
    def _read_matches(func, path):
        out = []
        for n, line in enumerate(_read_text(func, path, "matches file").splitlines(), 1):
            words = line.split()
            if not words:
                continue
            if len(words) < 5 or not all(w.isdigit() for w in words[:5]):
                raise RuntimeError(f"{func}: Invalid data, {path}:{n} is not a match line: "
                                   f"{line.strip()!r}.")
            out.append((int(words[0]), int(words[3]), int(words[1] == words[4])))
        return out

    _CACHED_SHEETS = 64  # the sheets kept decoded (1 MiB each), least recently used dropped

    def __deepcopy__(self, memo):
        """A copy with its own (empty) sheet cache and lock."""
        memo[id(self._cache)], memo[id(self._lock)] = {}, threading.Lock()
        return super().__deepcopy__(memo)

    def _patch(self, k):
        sheet = k // 256
        with self._lock:  # rows may be read by several engine threads in turn
            image = self._cache.pop(sheet, None)
            if image is None:
                image = _read_bmp_gray(self._func, self._sheets[sheet])
                if image.shape[0] < 1024 or image.shape[1] < 1024:
                    raise RuntimeError(f"{self._func}: the BMP sheet {self._sheets[sheet]} is "
                                       f"{image.shape[1]}x{image.shape[0]}, not 1024x1024.")
                while len(self._cache) >= self._CACHED_SHEETS:
                    self._cache.pop(next(iter(self._cache)))
            self._cache[sheet] = image  # most recently used last
        r, c = (k % 256) // 16, k % 16
        return np.ascontiguousarray(image[r * 64:(r + 1) * 64, c * 64:(c + 1) * 64, None])

    def _read(self, i):
        if self.usage == "train":
            return (self._patch(i),)
        a, b, same = self._matches[i]
        return self._patch(a), self._patch(b), np.array(same, np.uint32)


# ----- FakeImage -----

class FakeImageDataset(SourceDataset):
    """FakeImageDataset(num_images=1000, image_size=(224, 224, 3), num_classes=10,
    base_seed=0, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
    num_shards=None, shard_id=None, cache=None): generated images.

    Row i is an image of random uint8 pixels (shape image_size), drawn from a generator seeded
    with (base_seed, i), and a label (uint32 scalar in [0, num_classes)), the i-th draw of a
    generator seeded with base_seed; so a row is the same in every epoch and every run, and
    PKSampler finds the classes without making the images. Columns "image" and "label".

    Raises TypeError/ValueError for arguments of the wrong type or out of range."""

    @_ms_args
    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0,
                 num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None):
        func = "FakeImageDataset"
        self.num_images = check_int(func, "num_images", num_images, 1, 2**31 - 1)
        if not isinstance(image_size, (tuple, list)):
            raise TypeError(f"{func}: image_size should be a list or tuple of length 3, but got "
                            f"{type(image_size).__name__}.")
        if len(image_size) != 3:
            raise ValueError(f"{func}: image_size should be a list or tuple of length 3, but got "
                             f"{len(image_size)}.")
        for i, size in enumerate(image_size):
            if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
                raise TypeError(f"{func}: Argument image_size[{i}] with value {size} is not of "
                                f"type [<class 'int'>], but got {type(size)}.")
            if not 1 <= size <= 2**31 - 1:
                raise ValueError(f"{func}: Input image_size[{i}] is not within the required "
                                 "interval of [1, 2147483647].")
        self.image_size = tuple(int(size) for size in image_size)
        self.num_classes = check_int(func, "num_classes", num_classes, 1, 2**31 - 1)
        self.base_seed = check_int(func, "base_seed", base_seed, 0, 2**63 - 1)
        self._labels = np.random.default_rng(self.base_seed).integers(
            0, self.num_classes, self.num_images).astype(np.uint32)
        source = _data.PySource(self._read, self.num_images, ["image", "label"])
        source = _data.with_classes(source, self._labels.astype(np.int64).tolist())
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _read(self, i):
        image = np.random.default_rng((self.base_seed, i)).integers(0, 256, self.image_size,
                                                                     np.uint8)
        return image, np.array(self._labels[i], np.uint32)

"""Image data sets with MindSpore's names, arguments and columns, continued from
sources_image_more.py: Food101Dataset and RenderedSST2Dataset (image folders and lists, read
and decoded by the C++ image table), STL10Dataset (binary pixel files), SVHNDataset (MATLAB
.mat files) and USPSDataset (libsvm text), whose pixels are loaded whole into a C++ array
source. Index and pixel files are read and checked at construction: a missing or malformed
file is an error naming the class and the file.
"""
import os

import numpy as np

from mycel import _mycel
from mycel.dataset._matfile import loadmat
from mycel.dataset._validate import check_bool
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_image_more import (_choice, _existing_dir, _files_in, _ms_args,
                                              _read_text, _table)

_data = _mycel._data


def _file_or_value_error(func, path):
    if not os.path.isfile(path):
        raise ValueError(f"{func}: The file {path} does not exist or permission denied!")
    return path


class Food101Dataset(SourceDataset):
    """Food101Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
    Food-101.

    The "<class>/<id>" lines of meta/train.txt ('train'), meta/test.txt ('test') or both
    ('all', None; train first) name the images images/<class>/<id>.jpg. Columns "image" and
    "label" (str scalar: the class, the folder name).

    Raises ValueError for a missing directory or a bad usage, RuntimeError for a missing list
    file, an image of a class without its folder under images, or no image."""

    @_ms_args
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        func = "Food101Dataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "all" if usage is None else usage,
                             ("train", "test", "all"))
        self.decode = check_bool(func, "decode", decode)
        image_dir = _existing_dir(func, os.path.join(self.dataset_dir, "images"))
        classes = sorted(c for c in os.listdir(image_dir)
                         if os.path.isdir(os.path.join(image_dir, c)))
        lists = ["train", "test"] if self.usage == "all" else [self.usage]
        files, values, labels = [], [], []
        for name in lists:
            path = os.path.join(self.dataset_dir, "meta", name + ".txt")
            for n, line in enumerate(_read_text(func, path, "list file").splitlines(), 1):
                line = line.strip()
                if not line:
                    continue
                cls = line.split("/")[0]
                if "/" not in line or cls not in classes:
                    raise RuntimeError(f"{func}: Invalid data, {path}:{n} names {line!r}, not "
                                       f"\"<class>/<id>\" with a class folder under {image_dir}.")
                files.append([os.path.join(image_dir, line + ".jpg")])
                values.append([np.array(cls)])
                labels.append([classes.index(cls)])
        source = _table(func, ["image", "label"], files, values, labels, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class RenderedSST2Dataset(SourceDataset):
    """RenderedSST2Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
    Rendered SST-2 (sentences rendered as images).

    The .png images of <split>/<class> folders with split train ('train'), valid ('val'),
    test ('test') or all three ('all', None); classes (negative, positive) are numbered in
    sorted order. Rows in folder path then file name order. Columns "image" and "label"
    (uint32 scalar).

    Raises ValueError for a missing directory or a bad usage, RuntimeError when no image is
    found."""

    _SPLITS = {"train": ["train"], "val": ["valid"], "test": ["test"],
               "all": ["test", "train", "valid"]}

    @_ms_args
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        func = "RenderedSST2Dataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "all" if usage is None else usage,
                             tuple(self._SPLITS))
        self.decode = check_bool(func, "decode", decode)
        splits = [s for s in self._SPLITS[self.usage]
                  if os.path.isdir(os.path.join(self.dataset_dir, s))]
        classes = sorted({c for s in splits for c in os.listdir(os.path.join(self.dataset_dir, s))
                          if os.path.isdir(os.path.join(self.dataset_dir, s, c))})
        self._classes = {c: i for i, c in enumerate(classes)}
        files, values, labels = [], [], []
        for split in splits:
            for cls in classes:
                folder = os.path.join(self.dataset_dir, split, cls)
                if not os.path.isdir(folder):
                    continue
                for name in _files_in(folder, (".png",)):
                    files.append([os.path.join(folder, name)])
                    values.append([np.array(self._classes[cls], np.uint32)])
                    labels.append([self._classes[cls]])
        source = _table(func, ["image", "label"], files, values, labels, self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def get_class_indexing(self):
        """{class folder: label}."""
        return dict(self._classes)


class STL10Dataset(SourceDataset):
    """STL10Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None): STL-10.

    <split>_X.bin holds 96x96 RGB images stored channel by channel, each channel column by
    column; <split>_y.bin one label byte (1..10) per image. usage 'train', 'test',
    'unlabeled', 'train+unlabeled' or 'all' (None); files are read in name order (test, train,
    unlabeled). Columns
    "image" (uint8 [96, 96, 3]) and "label" (int32 scalar: the label - 1; -1 for unlabeled
    images).

    Raises ValueError for a missing directory or file or a bad usage, RuntimeError for a file
    whose size is not a whole number of images or whose label count differs."""

    _PARTS = {"train": ["train"], "test": ["test"], "unlabeled": ["unlabeled"],
              "train+unlabeled": ["train", "unlabeled"], "all": ["test", "train", "unlabeled"]}
    _IMAGE_BYTES = 96 * 96 * 3

    @_ms_args
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        func = "STL10Dataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "all" if usage is None else usage,
                             tuple(self._PARTS))
        images, labels = [], []
        for part in self._PARTS[self.usage]:
            path = _file_or_value_error(func, os.path.join(self.dataset_dir, part + "_X.bin"))
            raw = np.fromfile(path, np.uint8)
            if raw.size % self._IMAGE_BYTES:
                raise RuntimeError(f"{func}: Invalid file, {path} has {raw.size} bytes, not a "
                                   f"whole number of {self._IMAGE_BYTES}-byte images.")
            count = raw.size // self._IMAGE_BYTES
            images.append(raw.reshape(count, 3, 96, 96).transpose(0, 3, 2, 1))
            if part == "unlabeled":
                labels.append(np.full(count, -1, np.int32))
                continue
            label_path = _file_or_value_error(func, os.path.join(self.dataset_dir,
                                                                 part + "_y.bin"))
            lab = np.fromfile(label_path, np.uint8)
            if lab.size != count:
                raise RuntimeError(f"{func}: Invalid file, {label_path} has {lab.size} labels "
                                   f"for the {count} images of {path}.")
            labels.append(lab.astype(np.int32) - 1)
        source = _data.ArraySource(func, [np.ascontiguousarray(np.concatenate(images)),
                                          np.concatenate(labels)], ["image", "label"])
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class SVHNDataset(SourceDataset):
    """SVHNDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=1,
    shuffle=None, sampler=None, num_shards=None, shard_id=None): Street View House Numbers.

    <split>_32x32.mat (MATLAB level 5) holds "X" (uint8 [32, 32, 3, N]) and "y" ([N, 1],
    digits 1..10, 10 meaning 0); usage 'train', 'test', 'extra' or 'all' (None: in that
    order). Columns "image" (uint8 [32, 32, 3]) and "label" (uint32 scalar, 10 read as 0).

    Raises ValueError for a missing directory or file or a bad usage, RuntimeError for a
    corrupt .mat file or arrays of the wrong shape (naming the file)."""

    @_ms_args
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=1,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        func = "SVHNDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "all" if usage is None else usage,
                             ("train", "test", "extra", "all"))
        parts = ["train", "test", "extra"] if self.usage == "all" else [self.usage]
        images, labels = [], []
        for part in parts:
            path = _file_or_value_error(func, os.path.join(self.dataset_dir,
                                                           part + "_32x32.mat"))
            arrays = loadmat(path)
            x, y = arrays.get("X"), arrays.get("y")
            if x is None or y is None or x.ndim != 4 or x.shape[:3] != (32, 32, 3) or \
                    y.size != x.shape[3]:
                raise RuntimeError(f"{func}: Invalid file, {path} does not hold X [32, 32, 3, N] "
                                   "and y [N, 1].")
            images.append(np.transpose(x, (3, 0, 1, 2)).astype(np.uint8))
            lab = y.reshape(-1).astype(np.uint32)
            labels.append(np.where(lab == 10, 0, lab).astype(np.uint32))
        source = _data.ArraySource(func, [np.ascontiguousarray(np.concatenate(images)),
                                          np.concatenate(labels)], ["image", "label"])
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class USPSDataset(SourceDataset):
    """USPSDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=True, num_shards=None, shard_id=None, cache=None): USPS digits (shuffle: a bool
    or Shuffle.GLOBAL, MindSpore's default).

    The files usps ('train') and usps.t ('test'), both for 'all' (None), in libsvm format: one
    "<label> 1:<v> ... 256:<v>" line per image, label 1..10, values in [-1, 1]. Columns "image"
    (uint8 [16, 16, 1]: (v + 1) / 2 * 255, truncated) and "label" (uint32 scalar: label - 1).

    Raises ValueError for a missing directory or a bad usage, RuntimeError for a missing file
    or a malformed line (naming file:line)."""

    @_ms_args
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=True, num_shards=None, shard_id=None, cache=None):
        func = "USPSDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "all" if usage is None else usage,
                             ("train", "test", "all"))
        names = {"train": ["usps"], "test": ["usps.t"], "all": ["usps", "usps.t"]}[self.usage]
        images, labels = [], []
        for name in names:
            path = os.path.join(self.dataset_dir, name)
            if not os.path.isfile(path):
                raise RuntimeError(f"{func}: Invalid file, {path} does not exist or is a "
                                   "directory.")
            for n, line in enumerate(_read_text(func, path, "data file").splitlines(), 1):
                words = line.split()
                if not words:
                    continue
                try:
                    label = int(words[0])
                    pixels = np.array([float(w.split(":")[-1]) for w in words[1:]], np.float32)
                except ValueError:
                    raise RuntimeError(f"{func}: Invalid data, {path}:{n} is not a libsvm line "
                                       "of numbers.") from None
                if pixels.size != 256 or not 1 <= label <= 10:
                    raise RuntimeError(f"{func}: Invalid data, {path}:{n} has {pixels.size} "
                                       f"values and label {label}; expected 256 values and a "
                                       "label in [1, 10].")
                if not np.all((pixels >= -1) & (pixels <= 1)):  # NaN fails too
                    raise RuntimeError(f"{func}: Invalid data, {path}:{n} has a value outside "
                                       "[-1, 1].")
                images.append(((pixels + 1) / 2 * 255).astype(np.uint8).reshape(16, 16, 1))
                labels.append(label - 1)
        if not images:
            raise RuntimeError(f"{func}: Invalid data, no sample in {self.dataset_dir}.")
        if isinstance(shuffle, str):  # a Shuffle level: the rows are one table here
            if shuffle != "global":
                raise ValueError(f"{func}: shuffle={shuffle!r}: only Shuffle.GLOBAL (or a bool) "
                                 "is supported; the rows are read as one table.")
            shuffle = True
        source = _data.ArraySource(func, [np.stack(images), np.array(labels, np.uint32)],
                                   ["image", "label"])
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, None,
                         num_shards, shard_id)





class DIV2KDataset(SourceDataset):
    """DIV2KDataset(dataset_dir, usage='train', downgrade='bicubic', scale=2, num_samples=None,
    num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
    shard_id=None, cache=None): DIV2K super-resolution pairs.

    The .png images of DIV2K_<split>_HR (usage 'train', 'valid' or 'all': both), each paired
    with its low-resolution image: DIV2K_<split>_LR_<downgrade>/X<scale>/<id>x<scale>.png for
    downgrade 'bicubic' or 'unknown' with scale 2, 3 or 4; DIV2K_<split>_LR_x8/<id>x8.png for
    'bicubic' with scale 8; DIV2K_<split>_LR_<downgrade>/<id>x4<m|d|w>.png for 'mild',
    'difficult' or 'wild' (scale 4 only). Rows in split then file name order. Columns
    "hr_image" and "lr_image" (uint8 file bytes, decoded with decode=True).

    Raises ValueError for a missing directory, a bad usage, downgrade or scale or a pair that
    does not exist for them; RuntimeError for a missing folder or low-resolution image."""

    _SUFFIX = {"mild": "m", "difficult": "d", "wild": "w"}

    @_ms_args
    def __init__(self, dataset_dir, usage="train", downgrade="bicubic", scale=2,
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        func = "DIV2KDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", usage, ("train", "valid", "all"))
        self.downgrade = _choice(func, "downgrade", downgrade,
                                 ("bicubic", "unknown", "mild", "difficult", "wild"))
        if isinstance(scale, bool) or scale not in (2, 3, 4, 8):
            raise ValueError(f"{func}: Input scale is not within the valid set of [2, 3, 4, 8].")
        self.scale = int(scale)
        if (self.downgrade == "unknown" and self.scale == 8) or \
                (self.downgrade in self._SUFFIX and self.scale != 4):
            raise ValueError(f"{func}: downgrade {self.downgrade!r} has no scale {self.scale} "
                             "(bicubic: 2, 3, 4, 8; unknown: 2, 3, 4; mild, difficult, wild: 4).")
        self.decode = check_bool(func, "decode", decode)
        files = []
        for split in (["train", "valid"] if self.usage == "all" else [self.usage]):
            hr_dir = os.path.join(self.dataset_dir, f"DIV2K_{split}_HR")
            if not os.path.isdir(hr_dir):
                raise RuntimeError(f"{func}: the folder {hr_dir} does not exist.")
            lr_dir, suffix = self._lr_dir(split)
            for name in _files_in(hr_dir, (".png",)):
                stem = os.path.splitext(name)[0]
                lr = os.path.join(lr_dir, f"{stem}x{self.scale}{suffix}.png")
                if not os.path.isfile(lr):
                    raise RuntimeError(f"{func}: the low-resolution image {lr} of "
                                       f"{os.path.join(hr_dir, name)} does not exist.")
                files.append([os.path.join(hr_dir, name), lr])
        source = _table(func, ["hr_image", "lr_image"], files, [[] for _ in files], [],
                        self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _lr_dir(self, split):
        base = os.path.join(self.dataset_dir, f"DIV2K_{split}_LR_")
        if self.downgrade in self._SUFFIX:
            return base + self.downgrade, self._SUFFIX[self.downgrade]
        if self.scale == 8:
            return base + "x8", ""
        return os.path.join(base + self.downgrade, f"X{self.scale}"), ""


class WIDERFaceDataset(SourceDataset):
    """WIDERFaceDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None):
    WIDER FACE.

    The .jpg images of WIDER_<split>/images/<event>/ (events and files in sorted order) for
    usage 'train', 'valid', 'test' or 'all' (None: train then valid). Except for 'test', each
    image's faces come from wider_face_split/wider_face_<split>_bbx_gt.txt (the image path,
    the face count, then one line of 10 integers per face; a count of 0 is followed by one
    line, read as a face, as MindSpore does). Columns "image", "bbox" (uint32 [N, 4]: fields
    1-4), "blur", "expression", "illumination", "occlusion", "pose", "invalid" (uint32 [N]:
    fields 5-10 in that order, MindSpore's reading); 'test': "image" only.

    Raises ValueError for a missing directory or a bad usage, RuntimeError for a missing
    folder or annotation file, a malformed annotation (naming file:line), or an image without
    annotation."""

    _COLUMNS = ["image", "bbox", "blur", "expression", "illumination", "occlusion", "pose",
                "invalid"]

    @_ms_args
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        func = "WIDERFaceDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.usage = _choice(func, "usage", "all" if usage is None else usage,
                             ("train", "test", "valid", "all"))
        self.decode = check_bool(func, "decode", decode)
        splits = {"train": ["train"], "valid": ["val"], "test": ["test"],
                  "all": ["train", "val"]}[self.usage]
        files, values = [], []
        for split in splits:
            image_dir = os.path.join(self.dataset_dir, f"WIDER_{split}", "images")
            if not os.path.isdir(image_dir):
                raise RuntimeError(f"{func}: Invalid path, failed to open WIDERFace folder: "
                                   f"{image_dir}")
            boxes = None if split == "test" else self._boxes(func, split)
            for event in sorted(e for e in os.listdir(image_dir)
                                if os.path.isdir(os.path.join(image_dir, e))):
                for name in _files_in(os.path.join(image_dir, event), (".jpg",)):
                    files.append([os.path.join(image_dir, event, name)])
                    if boxes is None:
                        values.append([])
                        continue
                    key = f"{event}/{name}"
                    if key not in boxes:
                        raise RuntimeError(f"{func}: the image {key} of {image_dir} has no "
                                           f"annotation in wider_face_{split}_bbx_gt.txt.")
                    faces = boxes[key]
                    values.append([np.ascontiguousarray(faces[:, k]) if k else faces[:, 0:4]
                                   for k in (0, 4, 5, 6, 7, 8, 9)])
        columns = ["image"] if self.usage == "test" else self._COLUMNS
        source = _table(func, columns, files, values, [], self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _boxes(self, func, split):
        """{"<event>/<file>": uint32 [N, 10]} of a split's annotation file."""
        path = os.path.join(self.dataset_dir, "wider_face_split", f"wider_face_{split}_bbx_gt.txt")
        lines = _read_text(func, path, "annotation file").splitlines()
        out, i = {}, 0
        while i < len(lines):
            name = lines[i].strip()
            if not name:
                i += 1
                continue
            try:
                # an image without faces has a count of 0 and one line of zeros, read as its face
                count = max(int(lines[i + 1]), 1)
                faces = [[int(w) for w in lines[i + 2 + k].split()] for k in range(count)]
            except (IndexError, ValueError):
                raise RuntimeError(f"{func}: Invalid data, {path}:{i + 1}: the entry of {name} is "
                                   "not a face count and that many lines of 10 integers.") from None
            if any(len(f) != 10 or min(f) < 0 or max(f) >= 2**32 for f in faces):
                raise RuntimeError(f"{func}: Invalid data, {path}:{i + 1}: a face of {name} is not "
                                   "10 non-negative integers below 2^32.")
            out[name] = np.array(faces, np.uint32).reshape(-1, 10)
            i += 2 + count
        return out


class CityscapesDataset(SourceDataset):
    """CityscapesDataset(dataset_dir, usage='train', quality_mode='fine', task='instance',
    num_samples=None, num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
    num_shards=None, shard_id=None, cache=None): Cityscapes.

    The .png images of leftImg8bit/<usage>/<city>/ (usage 'train', 'test', 'val' for
    quality_mode 'fine'; 'train', 'train_extra', 'val' for 'coarse'; 'all': those three in that
    order; images sorted by path within a usage), each with its target in
    gtFine|gtCoarse/<usage>/<city>/<name>_<gtFine|gtCoarse>_<suffix>: task 'instance'
    (instanceIds.png), 'semantic' (labelIds.png), 'color' (color.png) or 'polygon'
    (polygons.json). Columns "image" and "task": the target image (decoded with the image when
    decode=True), or for 'polygon' the JSON as a str (compact, keys sorted).

    Raises ValueError for a missing directory or a bad usage, quality_mode or task;
    RuntimeError for a missing folder or target file, or malformed JSON (naming the file)."""

    _SUFFIX = {"instance": "instanceIds.png", "semantic": "labelIds.png",
               "polygon": "polygons.json", "color": "color.png"}

    @_ms_args
    def __init__(self, dataset_dir, usage="train", quality_mode="fine", task="instance",
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        import json
        func = "CityscapesDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.task = _choice(func, "task", task, tuple(self._SUFFIX))
        self.quality_mode = _choice(func, "quality_mode", quality_mode, ("fine", "coarse"))
        splits = ["train", "test", "val"] if self.quality_mode == "fine" else \
            ["train", "train_extra", "val"]
        self.usage = _choice(func, "usage", usage, tuple(splits) + ("all",))
        self.decode = check_bool(func, "decode", decode)
        gt = "gtFine" if self.quality_mode == "fine" else "gtCoarse"
        files, values = [], []
        for split in (splits if self.usage == "all" else [self.usage]):
            image_dir = os.path.join(self.dataset_dir, "leftImg8bit", split)
            task_dir = os.path.join(self.dataset_dir, gt, split)
            for folder in (image_dir, task_dir):
                if not os.path.isdir(folder):
                    raise RuntimeError(f"{func}: Invalid path, {folder} is not a directory.")
            pairs = []
            for city in os.listdir(image_dir):
                if not os.path.isdir(os.path.join(image_dir, city)):
                    continue
                for name in _files_in(os.path.join(image_dir, city), (".png",)):
                    stem = name.split("_leftImg8bit")[0]
                    target = os.path.join(task_dir, city, f"{stem}_{gt}_{self._SUFFIX[self.task]}")
                    if not os.path.isfile(target):
                        raise RuntimeError(f"{func}: Invalid file, the task file {target} does "
                                           "not exist.")
                    pairs.append((os.path.join(image_dir, city, name), target))
            for image, target in sorted(pairs):
                if self.task != "polygon":
                    files.append([image, target])
                    values.append([])
                    continue
                try:
                    text = json.loads(_read_text(func, target, "polygon file"))
                except json.JSONDecodeError as err:
                    raise RuntimeError(f"{func}: Invalid file, {target} is not JSON: "
                                       f"{err}.") from None
                files.append([image])
                values.append([np.array(json.dumps(text, sort_keys=True, separators=(",", ":"),
                                                   ensure_ascii=False))])
        source = _table(func, ["image", "task"], files, values, [], self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class SBDataset(SourceDataset):
    """SBDataset(dataset_dir, task='Boundaries', usage='all', num_samples=None,
    num_parallel_workers=1, shuffle=None, decode=None, sampler=None, num_shards=None,
    shard_id=None): the Semantic Boundaries Dataset.

    The ids listed in train.txt, val.txt, train_noval.txt (usage 'train', 'val',
    'train_noval') or train.txt then val.txt ('all') name img/<id>.jpg and cls/<id>.mat, whose
    GTcls struct holds the targets. Columns "image" (the file's bytes, decoded to [H, W, 3]
    with decode=True) and "task": task 'Boundaries' the 20 category boundary maps (GTcls's
    sparse matrices, dense, [20, H, W]); 'Segmentation' the category map ([H, W]). The .mat
    files are read when their row is (one engine thread).

    Raises ValueError for a missing directory or a bad task or usage, RuntimeError for a
    missing list, image or .mat file, or a .mat file without GTcls (naming it)."""

    _CATEGORIES = 20

    @_ms_args
    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None,
                 num_parallel_workers=1, shuffle=None, decode=None, sampler=None,
                 num_shards=None, shard_id=None):
        func = "SBDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        self.task = _choice(func, "task", task, ("Boundaries", "Segmentation"))
        self.usage = _choice(func, "usage", usage, ("train", "val", "train_noval", "all"))
        self.decode = check_bool(func, "decode", False if decode is None else decode)
        ids = []
        for name in (["train", "val"] if self.usage == "all" else [self.usage]):
            path = os.path.join(self.dataset_dir, name + ".txt")
            ids += [ln.strip() for ln in _read_text(func, path, "list file").splitlines()
                    if ln.strip()]
        self._rows = []
        for i in ids:
            image = os.path.join(self.dataset_dir, "img", i + ".jpg")
            target = os.path.join(self.dataset_dir, "cls", i + ".mat")
            for path in (image, target):
                if not os.path.isfile(path):
                    raise RuntimeError(f"{func}: the file {path} of {i} does not exist.")
            self._rows.append((image, target))
        if not self._rows:
            raise RuntimeError(f"{func}: Invalid data, no sample in {self.dataset_dir}.")
        self._func = func
        source = _data.PySource(self._read, len(self._rows), ["image", "task"])
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

    def _read(self, i):
        image_path, target_path = self._rows[i]
        with open(image_path, "rb") as f:
            raw = np.frombuffer(f.read(), np.uint8)
        image = _data.decode_image(raw) if self.decode else raw
        gt = loadmat(target_path).get("GTcls")
        try:
            target = gt.flat[0][self.task]
            if self.task == "Boundaries":
                target = np.stack([target.flat[k] for k in range(self._CATEGORIES)])
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            raise RuntimeError(f"{self._func}: {target_path} has no GTcls struct with "
                               f"{self.task} ({self._CATEGORIES} boundary maps for "
                               "Boundaries).") from None
        return image, np.ascontiguousarray(target)

"""FlickrDataset: Flickr8k / Flickr30k (MindSpore's ``mindspore.dataset.FlickrDataset``).

The annotation file has one caption per line, ``<image file name>#<n>\\t<caption>`` (the
Flickr8k ``.token`` files and Flickr30k's ``results_20130124.token``); the images are
``dataset_dir/<image file name>``. A row is one image with all its captions: columns
"image" (the file's bytes, or HWC RGB uint8 when decode is True, read by the C++ image table)
and "annotation" (a 1-d str array of the captions in file order). Images come in order of
their first caption; an image named in the annotation file but absent from dataset_dir is
left out, as MindSpore's (its test data names one). The file is read and checked at
construction: a line without the tab, or whose name has no "#n", or whose name leads outside
dataset_dir (absolute, or through ".."), is an error naming the file and the line.
"""
import os

import numpy as np

from mycel import _mycel
from mycel.dataset._validate import check_bool
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_image_more import _existing_dir, _ms_args, _read_text, _table

__all__ = ["FlickrDataset"]

_data = _mycel._data


class FlickrDataset(SourceDataset):
    """FlickrDataset(dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None,
    shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None, cache=None):
    Flickr8k / Flickr30k images with their captions (module docstring).

    Raises ValueError for a missing dataset_dir or annotation_file, RuntimeError for a
    malformed annotation line or when no image of the file is in dataset_dir."""

    @_ms_args
    def __init__(self, dataset_dir, annotation_file, num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=None, sampler=None, num_shards=None, shard_id=None,
                 cache=None):
        func = "FlickrDataset"
        self.dataset_dir = _existing_dir(func, dataset_dir)
        if not isinstance(annotation_file, str):
            raise TypeError(f"{func}: Argument annotation_file with value {annotation_file!r} "
                            f"is not of type [<class 'str'>], but got {type(annotation_file)}.")
        if not os.path.isfile(annotation_file):
            raise ValueError(f"{func}: The file {annotation_file} does not exist or permission "
                             "denied!")
        self.annotation_file = annotation_file
        self.decode = check_bool(func, "decode", False if decode is None else decode)
        captions = {}  # image name -> its captions, in order of the image's first caption
        text = _read_text(func, annotation_file, "annotation file")
        for n, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            name, tab, caption = line.partition("\t")
            image, hash_, number = name.rpartition("#")[0], "#" in name, name.rpartition("#")[2]
            if not tab or not hash_ or not image or not number.strip().isdigit():
                raise RuntimeError(f"{func}: Invalid annotation in {annotation_file}:{n}: "
                                   f"expected '<image>#<n>\\t<caption>', but got {line!r}.")
            if os.path.isabs(image) or ".." in image.replace("\\", "/").split("/"):
                # an untrusted annotation file naming "../../etc/passwd#0" read files outside
                # dataset_dir into the dataset
                raise RuntimeError(f"{func}: Invalid annotation in {annotation_file}:{n}: the "
                                   f"image name {image!r} leads outside dataset_dir.")
            captions.setdefault(image, []).append(caption)
        files, values = [], []
        for image, caps in captions.items():
            path = os.path.join(self.dataset_dir, image)
            if os.path.isfile(path):
                files.append([path])
                values.append([np.array(caps)])
        if not files:
            raise RuntimeError(f"{func}: Invalid data, none of the images of {annotation_file} "
                               f"is in {self.dataset_dir}.")
        source = _table(func, ["image", "annotation"], files, values, [], self.decode)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)

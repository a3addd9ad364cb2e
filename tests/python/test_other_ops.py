"""other_ops.SampleDistortedBoundingBoxV2 (a host-run primitive): the crop it returns lies in
the image, keeps the aspect-ratio and area ranges, covers min_object_covered of a box, is
reproducible from its seeds, and falls back to the whole image; PYNATIVE and GRAPH mode."""
import numpy as np
import pytest

import mycel as ms
from mycel.ops.operations.other_ops import SampleDistortedBoundingBoxV2
from ms_cell import Fn


def _coverage(box, crop):
    ih = max(min(box[2], crop[2]) - max(box[0], crop[0]), 0.0)
    iw = max(min(box[3], crop[3]) - max(box[1], crop[1]), 0.0)
    return ih * iw / ((box[2] - box[0]) * (box[3] - box[1]))


def test_sample_distorted_bounding_box_v2(mode):
    size = ms.Tensor(np.array([640, 480, 3], np.int32))
    boxes = np.array([[[0.38, 0.17, 0.95, 0.40], [0.1, 0.5, 0.3, 0.9]]], np.float32)
    for seed in range(1, 6):
        op = SampleDistortedBoundingBoxV2(seed=seed, seed2=7, aspect_ratio_range=(0.9, 1.1),
                                          area_range=(0.1, 1.0))
        begin, extent, bbox = (v.asnumpy() for v in Fn(op)(size, ms.Tensor(boxes),
                                                           ms.Tensor(np.float32(0.5))))
        assert begin.dtype == np.int32 and extent.dtype == np.int32
        assert begin[2] == 0 and extent[2] == -1
        y, x, h, w = begin[0], begin[1], extent[0], extent[1]
        assert 0 <= y and y + h <= 640 and 0 <= x and x + w <= 480
        crop = (y / 640, x / 480, (y + h) / 640, (x + w) / 480)
        np.testing.assert_allclose(bbox, [[crop]], rtol=1e-6)
        if (h, w) != (640, 480):  # an accepted draw (else the fallback)
            assert 0.9 - 0.01 <= w / h <= 1.1 + 0.01
            assert 0.1 * 640 * 480 * 0.95 <= h * w <= 640 * 480
            assert max(_coverage(b, crop) for b in boxes[0]) >= 0.5
        again = Fn(SampleDistortedBoundingBoxV2(seed=seed, seed2=7,
                                                aspect_ratio_range=(0.9, 1.1),
                                                area_range=(0.1, 1.0)))(
            size, ms.Tensor(boxes), ms.Tensor(np.float32(0.5)))
        np.testing.assert_array_equal(again[0].asnumpy(), begin)
    # nothing can cover a whole box of the image with a tiny crop: the whole image
    op = SampleDistortedBoundingBoxV2(seed=3, seed2=1, area_range=(0.05, 0.1), max_attempts=5)
    begin, extent, _ = Fn(op)(size, ms.Tensor(np.array([[[0, 0, 1, 1]]], np.float32)),
                              ms.Tensor(np.float32(1.0)))
    np.testing.assert_array_equal(begin.asnumpy(), [0, 0, 0])
    np.testing.assert_array_equal(extent.asnumpy(), [640, 480, -1])


def test_bad_arguments_name_the_primitive():
    with pytest.raises(ValueError, match="SampleDistortedBoundingBoxV2.*area_range"):
        SampleDistortedBoundingBoxV2(area_range=(0.5, 1.5))
    with pytest.raises(ValueError, match="SampleDistortedBoundingBoxV2.*bounding_boxes"):
        SampleDistortedBoundingBoxV2(seed=1)(ms.Tensor(np.array([4, 4, 3], np.int32)),
                                             ms.Tensor(np.array([[[0.5, 0, 0.2, 1]]],
                                                                np.float32)),
                                             ms.Tensor(np.float32(0.1)))

"""mycel.dataset.utils.imshow_det_bbox (utils/browse_dataset.py): the drawn pixels against the
boxes, masks and colors given (BGR in, RGB out), score filtering and the saved file."""
import numpy as np
import pytest
from PIL import Image

import mycel.dataset as ds
from mycel.dataset.utils import imshow_det_bbox


def _image():
    return np.full((40, 50, 3), 10, np.uint8)


def test_boxes_masks_and_file(tmp_path):
    img = _image()
    boxes = np.array([[5, 20, 10, 8], [30, 25, 12, 10]], np.float32)
    labels = np.array([[1], [0]], np.int32)
    segm = np.zeros((1, 40, 50))
    segm[0, 0:3, 45:50] = 1
    path = str(tmp_path / "out.png")
    out = imshow_det_bbox(img, boxes, labels, segm, class_names=["cat", "dog"], thickness=1,
                          bbox_color=(0, 0, 255), mask_color=(255, 0, 0), show=False,
                          out_file=path)
    assert out.shape == (40, 50, 3) and out.dtype == np.uint8
    red = [255, 0, 0]  # bbox_color (0, 0, 255) BGR is red
    for x, y, w, h in boxes.astype(int):
        assert (out[y, x:x + w] == red).all() and (out[y + h - 1, x:x + w] == red).all()
        assert (out[y:y + h, x] == red).all() and (out[y:y + h, x + w - 1] == red).all()
        assert (out[y + 2:y + h - 2, x + 2:x + w - 2] == 10).all()  # inside: untouched
    # the mask (blue in RGB) blended at half opacity: (10 + c) / 2 rounded
    assert (out[0:3, 45:50] == [5, 5, 132]).all()  # np.round(132.5) is 132
    assert (out[30:40, 0:4] == 10).all()  # far from everything: untouched
    assert (img == 10).all()  # the input is not changed
    assert np.array_equal(np.asarray(Image.open(path)), out)
    # the label text is drawn above the box, in text_color
    text = out[8:19, 5:30]
    assert ((text == [255, 192, 203]).all(axis=-1)).any()


def test_scores_chw_and_bad_arguments():
    img = _image().transpose(2, 0, 1)  # CHW
    boxes = np.array([[5, 20, 10, 8, 0.9], [30, 25, 12, 10, 0.2]], np.float32)
    labels = np.array([[1], [0]])
    out = imshow_det_bbox(img, boxes, labels, score_threshold=0.5, show=False)
    green = [0, 255, 0]
    assert (out[20, 5:15] == green).all()
    assert (out[25, 30:42] == 10).all()  # score 0.2 < 0.5: not drawn
    with pytest.raises(AssertionError, match="bboxes"):
        imshow_det_bbox(_image(), np.zeros((2, 3)), labels, show=False)
    with pytest.raises(AssertionError, match="labels"):
        imshow_det_bbox(_image(), np.zeros((2, 4)), np.zeros((3, 1)), show=False)
    with pytest.raises(AssertionError, match="segm"):
        imshow_det_bbox(_image(), np.zeros((2, 4)), labels, segm=np.zeros((1, 5, 5)),
                        show=False)
    with pytest.raises(AssertionError, match="image"):
        imshow_det_bbox(np.zeros((4, 4)), np.zeros((2, 4)), labels, show=False)
    assert ds.utils.imshow_det_bbox is imshow_det_bbox

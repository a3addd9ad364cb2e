"""mycel.dataset.utils (MindSpore's mindspore.dataset.utils): imshow_det_bbox, which draws a
detection sample's boxes, labels and masks on its image (browse_dataset.py)."""
from mycel.dataset.utils.browse_dataset import imshow_det_bbox  # noqa: F401

__all__ = ["imshow_det_bbox"]

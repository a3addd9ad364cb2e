"""imshow_det_bbox: a detection sample drawn for viewing (MindSpore's
mindspore.dataset.utils.browse_dataset.imshow_det_bbox), with PIL.

The image (RGB, HWC or CHW, 1 or 3 channels) is copied as HWC uint8 RGB; each mask of segm
(M masks of the image's size) is blended in at half opacity where it is nonzero; each box
[x, y, w, h] (a fifth column is its score: boxes scoring below score_threshold are left out)
is drawn as a rectangle `thickness` pixels wide, and its label (class_names[label] when
class_names is given, with "|score" for scored boxes) is written above its top-left corner
with PIL's built-in font scaled by font_size / 0.8. Colors are given in BGR order, as
MindSpore's (OpenCV's) are. The result is returned (HWC uint8 RGB), written to out_file when
given, and shown with PIL's Image.show (the platform's image viewer, titled win_name) when
show is True; wait_time, OpenCV's display delay, has no counterpart there and is only checked.
"""
import os

import numpy as np

__all__ = ["imshow_det_bbox"]


def _check(cond, message):
    if not cond:
        raise AssertionError(f"imshow_det_bbox: {message}")


def _color(name, value):
    _check(isinstance(value, (tuple, list)) and len(value) == 3 and
           all(isinstance(c, (int, np.integer)) and 0 <= c <= 255 for c in value),
           f"{name} must be 3 ints in [0, 255] (BGR), but got {value!r}.")
    return tuple(int(c) for c in reversed(value))  # BGR -> RGB


def _hwc_rgb(image):
    _check(isinstance(image, np.ndarray) and image.ndim == 3,
           f"image must be a 3-d numpy array (<C, H, W> or <H, W, C>), but got "
           f"{getattr(image, 'shape', type(image).__name__)}.")
    if image.shape[0] in (1, 3) and image.shape[2] not in (1, 3):
        image = image.transpose(1, 2, 0)
    _check(image.shape[2] in (1, 3), f"image must have 1 or 3 channels, but got shape "
                                      f"{image.shape}.")
    img = np.clip(image, 0, 255).astype(np.uint8)
    return np.repeat(img, 3, axis=2) if img.shape[2] == 1 else img.copy()


def _label_text(label, score, class_names):
    if class_names is None:
        text = str(label)
    elif isinstance(class_names, dict):
        text = str(class_names.get(label, label))
    else:
        text = str(class_names[label]) if 0 <= label < len(class_names) else str(label)
    return text if score is None else f"{text}|{score:.2f}"


def _draw_text(pil, xy, text, color, font_size):
    from PIL import Image, ImageDraw  # pylint: disable=import-outside-toplevel
    probe = ImageDraw.Draw(pil)
    left, top, right, bottom = probe.textbbox((0, 0), text)
    w, h = max(right - left, 1), max(bottom - top, 1)
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).text((-left, -top), text, fill=255)
    scale = max(float(font_size) / 0.8, 0.1)
    mask = mask.resize((max(int(round(w * scale)), 1), max(int(round(h * scale)), 1)))
    x, y = int(xy[0]), int(xy[1]) - mask.size[1] - 2
    pil.paste(Image.new("RGB", mask.size, color), (x, max(y, 0)), mask)


def imshow_det_bbox(image, bboxes, labels, segm=None, class_names=None, score_threshold=0,
                    bbox_color=(0, 255, 0), text_color=(203, 192, 255),
                    mask_color=(128, 0, 128), thickness=2, font_size=0.8, show=True,
                    win_name="win", wait_time=2000, out_file=None):
    """Draws bboxes ([N, 4] x, y, w, h, or [N, 5] with scores), labels ([N, 1]) and the masks
    of segm ([M, H, W]) on image (module docstring); returns the drawn HWC uint8 RGB image.
    AssertionError for arguments of the wrong shape or type, as MindSpore's."""
    from PIL import Image, ImageDraw  # pylint: disable=import-outside-toplevel
    img = _hwc_rgb(image)
    height, width = img.shape[:2]
    _check(isinstance(bboxes, np.ndarray) and bboxes.ndim == 2 and bboxes.shape[1] in (4, 5),
           f"bboxes must be a numpy array of shape <N, 4> or <N, 5>, but got "
           f"{getattr(bboxes, 'shape', type(bboxes).__name__)}.")
    _check(isinstance(labels, np.ndarray) and labels.reshape(-1).shape[0] == bboxes.shape[0],
           f"labels must be a numpy array of shape <N, 1> with N = {bboxes.shape[0]}, but got "
           f"{getattr(labels, 'shape', type(labels).__name__)}.")
    _check(class_names is None or isinstance(class_names, (list, tuple, dict)),
           f"class_names must be a list, tuple or dict, but got {type(class_names).__name__}.")
    _check(isinstance(thickness, int) and thickness > 0,
           f"thickness must be a positive int, but got {thickness!r}.")
    _check(isinstance(font_size, (int, float)) and font_size > 0,
           f"font_size must be a positive number, but got {font_size!r}.")
    _check(isinstance(show, bool), f"show must be a bool, but got {show!r}.")
    _check(isinstance(win_name, str), f"win_name must be a str, but got {win_name!r}.")
    _check(isinstance(wait_time, int) and wait_time >= 0,
           f"wait_time must be a non-negative int, but got {wait_time!r}.")
    _check(out_file is None or isinstance(out_file, str),
           f"out_file must be a str, but got {out_file!r}.")
    box_rgb, text_rgb, mask_rgb = (_color("bbox_color", bbox_color),
                                   _color("text_color", text_color),
                                   _color("mask_color", mask_color))
    if segm is not None:
        _check(isinstance(segm, np.ndarray) and segm.ndim == 3 and
               segm.shape[1:] == (height, width),
               f"segm must be a numpy array of shape <M, {height}, {width}>, but got "
               f"{getattr(segm, 'shape', type(segm).__name__)}.")
        for m in segm:
            on = m != 0
            img[on] = (img[on].astype(np.float64) * 0.5 +
                       np.array(mask_rgb, np.float64) * 0.5).round().astype(np.uint8)
    pil = Image.fromarray(img)
    draw = ImageDraw.Draw(pil)
    for box, label in zip(bboxes, labels.reshape(-1)):
        score = float(box[4]) if bboxes.shape[1] == 5 else None
        if score is not None and score < score_threshold:
            continue
        x, y, w, h = (float(v) for v in box[:4])
        draw.rectangle([x, y, x + w - 1, y + h - 1], outline=box_rgb, width=thickness)
        _draw_text(pil, (x, y), _label_text(int(label), score, class_names), text_rgb,
                   font_size)
    out = np.asarray(pil).copy()
    if out_file is not None:
        folder = os.path.dirname(os.path.abspath(out_file))
        _check(os.path.isdir(folder), f"the folder of out_file {out_file} does not exist.")
        pil.save(out_file)
    if show:
        pil.show(title=win_name)
    return out

"""Image file functions of ``mindspore.dataset.vision`` (part of ``mycel.dataset.vision``):
ImageReadMode, read_image, decode_image, encode_jpeg, encode_png, write_jpeg and write_png.

JPEG and PNG go through the data engine's codecs in C++ (libjpeg-turbo and libpng:
src/data/image_codec.cc, image_codec_io.cc). read_image / decode_image also read BMP and TIFF
files, through PIL. Errors use MindSpore's words (its tests look for them): TypeErrors for
argument types, RuntimeErrors for bad values, images and files.
"""
import os
from enum import IntEnum

import numpy as np

from mycel import _mycel

_data = _mycel._data


class ImageReadMode(IntEnum):
    """How read_image / decode_image give the channels: UNCHANGED as stored (gray <H, W, 1>,
    colour <H, W, 3>), GRAYSCALE <H, W, 1>, COLOR RGB <H, W, 3>. Alpha is dropped in every
    mode, as MindSpore's read_image does."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2


def _type_error(name, value, types):
    raise TypeError(f"Input {name} is not of type {types}, but got: {type(value)}.")


def _check_filename(filename):
    if not isinstance(filename, str):
        _type_error("filename", filename, str)


def _check_mode(mode):
    if not isinstance(mode, ImageReadMode):
        _type_error("mode", mode, ImageReadMode)


def _image_array(image, name="image", message=None):
    """A numpy array of a numpy array or a mycel Tensor."""
    if isinstance(image, _mycel.Tensor):
        return image.asnumpy()
    if isinstance(image, np.ndarray):
        return image
    if message:
        raise TypeError(f"{message} {[np.ndarray, _mycel.Tensor]}, but got {type(image)}.")
    _type_error(name, image, [np.ndarray, _mycel.Tensor])


def _check_int_arg(name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        _type_error(name, value, int)


def _check_encodable(func, a, element_words):
    """MindSpore's checks of an image to encode: uint8, <H, W> or <H, W, 1|3>."""
    if a.dtype != np.uint8:
        raise RuntimeError(f"{func}: The type of the {element_words} should be UINT8, but got "
                           f"{a.dtype}.")
    if a.ndim not in (2, 3):
        raise RuntimeError(f"{func}: The image has invalid dimensions. It should have two or "
                           f"three dimensions, but got {a.ndim} dimensions.")
    if a.ndim == 3 and a.shape[2] not in (1, 3):
        raise RuntimeError(f"{func}: The image has invalid channels. It should have 1 or 3 "
                           f"channels, but got {a.shape[2]} channels.")
    return np.ascontiguousarray(a)


def _jpeg_bytes(func, image, quality, element_words, image_message):
    a = _image_array(image, message=image_message)
    _check_int_arg("quality", quality)
    if not 1 <= quality <= 100:
        raise RuntimeError(f"{func}: Invalid quality {quality}, should be in range of [1, 100].")
    a = _check_encodable(func, a, element_words)
    return _data.encode_jpeg(a, quality)


def _png_bytes(func, image, compression_level, element_words, image_message):
    a = _image_array(image, message=image_message)
    _check_int_arg("compression_level", compression_level)
    if not 0 <= compression_level <= 9:
        raise RuntimeError(f"{func}: Invalid compression_level {compression_level}, should be "
                           "in range of [0, 9].")
    a = _check_encodable(func, a, element_words)
    return _data.encode_png_level(a, compression_level)


def encode_jpeg(image, quality=75):
    """Encodes a uint8 image (numpy or Tensor; <H, W> or <H, W, 1|3>, RGB) as JPEG with quality
    1..100; the bytes as a 1-D uint8 array."""
    data = _jpeg_bytes("EncodeJpeg", image, quality, "image data", "Input image is not of type")
    return np.frombuffer(data, np.uint8).copy()


def encode_png(image, compression_level=6):
    """Encodes a uint8 image (numpy or Tensor; <H, W> or <H, W, 1|3>, RGB) as PNG with zlib
    compression level 0..9; the bytes as a 1-D uint8 array."""
    data = _png_bytes("EncodePng", image, compression_level, "image data",
                      "Input image is not of type")
    return np.frombuffer(data, np.uint8).copy()


def _check_write_path(func, filename):
    _check_filename(filename)
    if os.path.exists(filename) and not os.path.isfile(os.path.realpath(filename)):
        raise RuntimeError(f"{func}: Invalid file path, {filename} is not a regular file.")


def _write(func, filename, data):
    try:
        with open(filename, "wb") as f:
            f.write(data)
    except OSError as err:
        raise RuntimeError(f"{func}: Can not open the file {filename}: {err.strerror}.") from None


def write_jpeg(filename, image, quality=75):
    """Writes a uint8 image (as encode_jpeg takes) to filename as a JPEG file."""
    _check_write_path("WriteJpeg", filename)
    _write("WriteJpeg", filename, _jpeg_bytes("WriteJpeg", image, quality, "elements of image",
                                              "Input image is not of type"))


def write_png(filename, image, compression_level=6):
    """Writes a uint8 image (as encode_png takes) to filename as a PNG file."""
    _check_write_path("WritePng", filename)
    _write("WritePng", filename, _png_bytes("WritePng", image, compression_level,
                                            "elements of image", "The input image is not of type"))


def _pil_decode(data, mode, what):
    """BMP and TIFF through PIL, channels as mode says."""
    import io
    from PIL import Image, UnidentifiedImageError
    try:
        img = Image.open(io.BytesIO(bytes(data)))
        img.load()
    except (UnidentifiedImageError, OSError) as err:
        raise RuntimeError(f"Failed to read file {what}: {err}") from None
    if mode == ImageReadMode.GRAYSCALE:
        return np.asarray(img.convert("L"))[:, :, None]
    if mode == ImageReadMode.COLOR:
        return np.asarray(img.convert("RGB"))
    if img.mode in ("1", "L", "LA", "I", "I;16", "F"):
        return np.asarray(img.convert("L"))[:, :, None]
    return np.asarray(img.convert("RGB"))


def _decode(data, mode, what):
    head = bytes(data[:8])
    if head[:3] == b"\xff\xd8\xff" or head == b"\x89PNG\r\n\x1a\n":
        return _data.decode_image_mode(data, int(mode))
    if head[:2] == b"BM" or head[:4] in (b"II*\x00", b"MM\x00*"):
        return _pil_decode(data, mode, what)
    raise RuntimeError(f"Failed to read file {what}: the data is not a JPEG, PNG, BMP or TIFF "
                       "image.")


def read_image(filename, mode=ImageReadMode.UNCHANGED):
    """Reads a JPEG, PNG, BMP or TIFF file as a uint8 <H, W, C> array (channels as mode says)."""
    _check_filename(filename)
    _check_mode(mode)
    if not os.path.exists(filename):
        raise RuntimeError(f"ReadImage: Invalid file path, {filename} does not exist.")
    if not os.path.isfile(os.path.realpath(filename)):
        raise RuntimeError(f"ReadImage: Invalid file path, {filename} is not a regular file.")
    with open(filename, "rb") as f:
        data = np.frombuffer(f.read(), np.uint8)
    return _decode(data, mode, filename)


def decode_image(image, mode=ImageReadMode.UNCHANGED):
    """Decodes the bytes of a JPEG, PNG, BMP or TIFF image (a 1-D uint8 numpy array or Tensor)
    to a uint8 <H, W, C> array (channels as mode says)."""
    a = _image_array(image, "image")
    _check_mode(mode)
    if a.dtype != np.uint8 or a.ndim != 1:
        raise RuntimeError(f"DecodeImage: the image must be 1-D uint8 bytes, but got {a.dtype} "
                           f"with shape {list(a.shape)}.")
    return _decode(np.ascontiguousarray(a), mode, f"the input ({a.size} bytes)")


__all__ = ["ImageReadMode", "read_image", "decode_image", "encode_jpeg", "encode_png",
           "write_jpeg", "write_png"]

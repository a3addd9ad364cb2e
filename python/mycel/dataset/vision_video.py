"""Video and file reading in dataset.vision (MindSpore 2.x's ``read_video``,
``read_video_timestamps``, ``DecodeVideo``, ``read_file``, ``write_file``), decoding with
FFmpeg in C++ (src/data/video.h, through the plugin libmycel_video.so).

``read_video(filename, start_pts=0, end_pts=None, pts_unit="pts")`` gives (video, audio,
metadata): the frames whose timestamps lie in [start_pts, end_pts] as uint8 [T, H, W, 3] RGB,
the audio track as [channels, samples] (cut in proportion to the frames kept) and
{"video_fps": float, "audio_fps": int} for the streams present. ``DecodeVideo`` does the same
on a 1-D uint8 array of a file's bytes, keeping every frame; it runs in ``map`` with two
output columns."""
import os
from fractions import Fraction

import numpy as np

from mycel import _mycel
from mycel.dataset.transforms import TensorOperation

_data = _mycel._data
_NO_END = 2147483647.0  # end_pts=None: to the end, as MindSpore


def _check_filename(filename):
    if not isinstance(filename, str):
        raise TypeError(f"Input filename is not of type {str}, but got: {type(filename)}.")


def _check_file(filename, error=ValueError):
    path = os.path.realpath(filename)
    if not os.path.exists(path):
        raise error(f"Invalid file path, {filename} does not exist.")
    if not os.path.isfile(path):
        raise error(f"Invalid file path, {filename} is not a regular file.")


def _check_pts_unit(pts_unit, error=ValueError):
    if not isinstance(pts_unit, str):
        raise TypeError(f"Input pts_unit is not of type {str}, but got: {type(pts_unit)}.")
    if pts_unit not in ("pts", "sec"):
        raise error("Not supported pts_unit for " + pts_unit)


def _check_pts(name, value):
    if isinstance(value, bool) or not isinstance(value, (float, Fraction, int)):
        raise TypeError(f"Input {name} is not of type [{float}, {Fraction}, {int}], but got: "
                        f"{type(value)}")


def _metadata(video_fps, audio_fps):
    meta = {}
    if video_fps >= 0:
        meta["video_fps"] = float(video_fps)
    if audio_fps >= 0:
        meta["audio_fps"] = int(audio_fps)
    return meta


def read_video(filename, start_pts=0, end_pts=None, pts_unit="pts"):
    """(video, audio, metadata) of a video file (AVI, H264, H265, MOV, MP4, WMV, ...):
    the frames with timestamps in [start_pts, end_pts] (stream ticks, or seconds when
    pts_unit is "sec")."""
    _check_filename(filename)
    _check_pts("start_pts", start_pts)
    if start_pts < 0.0:
        raise ValueError(f"Not supported start_pts for {start_pts}. The start_pts should be "
                         ">= 0.")
    if end_pts is None:
        end_pts = _NO_END
    _check_pts("end_pts", end_pts)
    if end_pts < start_pts:
        raise ValueError(f"Not supported end_pts for {end_pts}. start_pts = {start_pts}. The "
                         "end_pts should be >= start_pts.")
    _check_pts_unit(pts_unit)
    _check_file(filename)
    video, audio, video_fps, audio_fps = _data.read_video(filename, float(start_pts),
                                                          float(end_pts), pts_unit == "sec")
    return video, audio, _metadata(video_fps, audio_fps)


def read_video_timestamps(filename, pts_unit="pts"):
    """(timestamps of every video frame, video fps): ints in stream ticks, or float seconds
    when pts_unit is "sec"; ([], None) for a file without video."""
    _check_filename(filename)
    # MindSpore checks these in C++ here: RuntimeErrors (read_video's are ValueErrors).
    _check_pts_unit(pts_unit, RuntimeError)
    _check_file(filename, RuntimeError)
    pts, fps, time_base = _data.read_video_timestamps(filename)
    if not pts:
        return [], None
    if pts_unit == "pts":
        return list(pts), fps
    return [p * time_base for p in pts], fps


class DecodeVideo(TensorOperation):
    """DecodeVideo(): a video file's bytes (a 1-D uint8 array) to (video [T, H, W, 3] uint8
    RGB, audio [channels, samples])."""

    def __init__(self):
        self._op = _data.DecodeVideo()

    def __call__(self, *inputs):
        inputs = [np.frombuffer(x, np.uint8) if isinstance(x, (bytes, bytearray, memoryview))
                  else x for x in inputs]
        if len(inputs) != 1:
            raise TypeError(f"DecodeVideo: expected one input (the file's bytes), but got "
                            f"{len(inputs)}.")
        data = inputs[0]
        if not isinstance(data, np.ndarray):
            raise TypeError(f"Input should be ndarray, got {type(data)}.")
        return super().__call__(data)  # dtype, rank and size: the C++ transform's errors


def read_file(filename):
    """The bytes of a file as a 1-D uint8 array."""
    _check_filename(filename)
    _check_file(filename, RuntimeError)  # MindSpore reads files in C++: RuntimeErrors
    try:
        with open(filename, "rb") as f:
            return np.frombuffer(f.read(), np.uint8).copy()
    except OSError as err:
        raise RuntimeError(f"ReadFile: cannot read {filename}: {err.strerror}.") from None


def write_file(filename, data):
    """Writes a 1-D uint8 array (numpy or Tensor) to a file, replacing it."""
    _check_filename(filename)
    if isinstance(data, _mycel.Tensor):
        data = data.asnumpy()
    if not isinstance(data, np.ndarray):
        raise TypeError(f"Input data is not of type {np.ndarray} or {_mycel.Tensor}, but got: "
                        f"{type(data)}.")
    if data.dtype != np.uint8:
        raise RuntimeError(f"WriteFile: The type of the elements of data should be UINT8, but "
                           f"got {data.dtype}.")
    if data.ndim != 1:
        raise RuntimeError(f"WriteFile: The data has invalid dimensions. It should have only "
                           f"one dimension, but got {data.ndim}.")
    if os.path.exists(filename) and not os.path.isfile(os.path.realpath(filename)):
        raise RuntimeError(f"WriteFile: Invalid file path, {filename} is not a regular file.")
    try:
        with open(filename, "wb") as f:
            f.write(data.tobytes())
    except OSError as err:
        raise RuntimeError(f"WriteFile: cannot write {filename}: {err.strerror}.") from None


__all__ = ["read_video", "read_video_timestamps", "DecodeVideo", "read_file", "write_file"]

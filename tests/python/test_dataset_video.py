"""dataset.vision's video reading (read_video, read_video_timestamps, DecodeVideo, read_file,
write_file) against PyAV (Debian's python3-av, the FFmpeg binding; test-only oracle): the
tests write small videos with PyAV (MPEG-4 video, with and without AAC/PCM audio), then
compare frames, timestamps, rates and audio samples, the [start, end] selection in ticks and
seconds, the pipeline form of DecodeVideo, and the errors."""
import fractions

import av
import numpy as np
import pytest

import mycel.dataset as ds
from mycel.dataset import vision

FPS = 25
FRAMES = 12
H, W = 48, 64


def frame_image(i):
    """A frame whose colours change with i (smooth, so the codec keeps them closely)."""
    y, x = np.mgrid[0:H, 0:W]
    img = np.stack([(x * 4 + i * 10) % 256, (y * 5) % 256, np.full_like(x, 200 - i * 12)], -1)
    return img.astype(np.uint8)


def write_video(path, audio_codec=None, rate=16000, layout="stereo"):
    with av.open(str(path), "w") as out:
        vs = out.add_stream("mpeg4", rate=FPS)
        vs.width, vs.height, vs.pix_fmt = W, H, "yuv420p"
        vs.options = {"qscale": "2"}
        as_ = None
        if audio_codec:
            as_ = out.add_stream(audio_codec, rate=rate)
            as_.layout = layout
        for i in range(FRAMES):
            for pkt in vs.encode(av.VideoFrame.from_ndarray(frame_image(i), format="rgb24")):
                out.mux(pkt)
        if as_ is not None:
            t = np.arange(rate * FRAMES // FPS) / rate
            chans = 2 if layout == "stereo" else 1
            tone = np.stack([0.3 * np.sin(2 * np.pi * 440 * (c + 1) * t) for c in range(chans)])
            fmt = "fltp" if audio_codec == "aac" else "s16"
            step = 1024
            for k in range(0, tone.shape[1], step):
                chunk = tone[:, k:k + step]
                if fmt == "s16":
                    arr = (chunk.T.reshape(1, -1) * 32767).astype(np.int16)
                else:
                    arr = chunk.astype(np.float32)
                af = av.AudioFrame.from_ndarray(arr, format=fmt, layout=layout)
                af.sample_rate = rate
                af.pts = k
                af.time_base = fractions.Fraction(1, rate)
                for pkt in as_.encode(af):
                    out.mux(pkt)
            for pkt in as_.encode(None):
                out.mux(pkt)
        for pkt in vs.encode(None):
            out.mux(pkt)


def av_frames(path):
    with av.open(str(path)) as c:
        return [(f.pts, f.to_ndarray(format="rgb24")) for f in c.decode(video=0)]


def av_audio(path):
    with av.open(str(path)) as c:
        frames = [f.to_ndarray() for f in c.decode(audio=0)]
        planar = c.streams.audio[0].format.is_planar
        chans = c.streams.audio[0].channels
    if planar:
        return np.concatenate(frames, 1)
    return np.concatenate([f.reshape(-1, chans).T for f in frames], 1)


@pytest.fixture
def silent(tmp_path):
    path = tmp_path / "silent.avi"
    write_video(path)
    return str(path)


def test_read_video_frames_and_rates_equal_pyav(silent):
    video, audio, meta = vision.read_video(silent)
    want = av_frames(silent)
    assert video.shape == (FRAMES, H, W, 3) and video.dtype == np.uint8
    # the same decoder; the YUV -> RGB conversion may round differently by a step or two
    diff = np.abs(video.astype(int) - np.stack([f for _, f in want]).astype(int))
    assert diff.max() <= 3 and diff.mean() < 0.5
    assert meta == {"video_fps": float(FPS)}
    assert audio.shape == (1, 0) and audio.dtype == np.float32  # no audio stream


def test_timestamps_and_pts_selection(silent):
    pts, fps = vision.read_video_timestamps(silent)
    assert pts == [p for p, _ in av_frames(silent)] and fps == float(FPS)
    secs, _ = vision.read_video_timestamps(silent, pts_unit="sec")
    np.testing.assert_allclose(secs, np.array(pts) / FPS)
    full = vision.read_video(silent)[0]
    part = vision.read_video(silent, start_pts=3, end_pts=6)[0]
    np.testing.assert_array_equal(part, full[3:7])
    by_sec = vision.read_video(silent, start_pts=3 / FPS, end_pts=6 / FPS, pts_unit="sec")[0]
    np.testing.assert_array_equal(by_sec, full[3:7])
    assert vision.read_video(silent, start_pts=0, end_pts=0)[0].shape[0] == 1


@pytest.mark.parametrize("codec,layout", [("aac", "stereo"), ("pcm_s16le", "mono")])
def test_audio_track_equals_pyav_and_is_cut_with_the_frames(tmp_path, codec, layout):
    path = tmp_path / ("a.mov" if codec == "pcm_s16le" else "a.mp4")
    write_video(path, codec, layout=layout)
    video, audio, meta = vision.read_video(str(path))
    want = av_audio(path)
    assert meta["audio_fps"] == 16000 and audio.dtype == want.dtype
    assert audio.shape == want.shape
    np.testing.assert_array_equal(audio, want)
    # a sub-range of frames keeps the audio samples in proportion to the frames kept
    n_frames = video.shape[0]
    part_v, part_a, _ = vision.read_video(str(path), start_pts=4, end_pts=7)
    per_frame = want.shape[1] / n_frames
    start = int(round(4 * per_frame))
    count = int(round(part_v.shape[0] * per_frame))
    np.testing.assert_array_equal(part_a, want[:, start:start + count])


def test_decode_video_eager_and_in_a_pipeline_equal_read_video(tmp_path):
    path = tmp_path / "a.mp4"
    write_video(path, "aac")
    raw = vision.read_file(str(path))
    assert raw.dtype == np.uint8 and raw.tobytes() == path.read_bytes()
    video, audio = vision.DecodeVideo()(raw)
    ref_v, ref_a, _ = vision.read_video(str(path))
    np.testing.assert_array_equal(video, ref_v)
    np.testing.assert_array_equal(audio, ref_a)
    data = ds.NumpySlicesDataset({"raw": [raw, raw]}, shuffle=False)
    data = data.map(vision.DecodeVideo(), input_columns=["raw"], output_columns=["v", "a"])
    rows = list(data.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert len(rows) == 2
    for r in rows:
        np.testing.assert_array_equal(r["v"], ref_v)
        np.testing.assert_array_equal(r["a"], ref_a)


def test_write_file_round_trip_and_errors(tmp_path, silent):
    data = np.arange(300, dtype=np.int64).astype(np.uint8)
    vision.write_file(str(tmp_path / "x.bin"), data)
    np.testing.assert_array_equal(vision.read_file(str(tmp_path / "x.bin")), data)
    with pytest.raises(RuntimeError, match="is not a regular file"):
        vision.write_file(str(tmp_path), data)
    with pytest.raises(RuntimeError, match="should be UINT8"):
        vision.write_file(str(tmp_path / "y.bin"), data.astype(np.float32))
    with pytest.raises(RuntimeError, match="invalid dimensions"):
        vision.write_file(str(tmp_path / "y.bin"), data.reshape(3, 100))
    with pytest.raises(RuntimeError, match="does not exist"):
        vision.read_file(str(tmp_path / "missing"))


def test_video_errors(tmp_path, silent):
    with pytest.raises(TypeError, match="Input filename is not of type"):
        vision.read_video(0)
    with pytest.raises(ValueError, match="Not supported start_pts"):
        vision.read_video(silent, start_pts=-1)
    with pytest.raises(ValueError, match="Not supported end_pts"):
        vision.read_video(silent, start_pts=5, end_pts=2)
    with pytest.raises(ValueError, match="Not supported pts_unit"):
        vision.read_video(silent, pts_unit="min")
    with pytest.raises(ValueError, match="does not exist"):
        vision.read_video(str(tmp_path / "missing.avi"))
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"this is not a video file at all" * 10)
    with pytest.raises(RuntimeError, match="Failed to open the file"):
        vision.read_video(str(junk))
    with pytest.raises(RuntimeError, match="Failed to open the file"):
        vision.read_video_timestamps(str(junk))
    with pytest.raises(RuntimeError, match="Input Tensor has no data"):
        vision.DecodeVideo()(np.zeros(0, np.uint8))
    with pytest.raises(RuntimeError, match="only support 1D input"):
        vision.DecodeVideo()(np.zeros((2, 2), np.uint8))
    with pytest.raises(RuntimeError, match="DecodeVideo"):
        vision.DecodeVideo()(np.frombuffer(b"not a video" * 20, np.uint8))
    cut = tmp_path / "header_only.avi"
    cut.write_bytes(open(silent, "rb").read()[:600])
    with pytest.raises(RuntimeError, match="Failed to open the file"):
        vision.read_video(str(cut))
    whole = open(silent, "rb").read()
    truncated = tmp_path / "cut.avi"
    truncated.write_bytes(whole[:len(whole) * 19 // 20])  # the last frame and the index lost
    video, _, _ = vision.read_video(str(truncated))  # what is there is decoded, no crash
    assert 0 < video.shape[0] < FRAMES
    np.testing.assert_array_equal(video, vision.read_video(silent)[0][:video.shape[0]])

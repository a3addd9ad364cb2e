"""Seeded mutation tests of the readers of untrusted files that parse bytes in Python (the C++
readers have libFuzzer targets in fuzz/; docs/fuzzing.md lists which covers what).

Each reader gets valid files made here (by SciPy, PIL, numpy or by hand from the format's
description), then a few hundred to a few thousand deterministic mutations of one of them
(bit flips, bytes and 32-bit integers set to edge values, cuts, insertions, duplicated
chunks, words of text formats replaced by edge tokens). Every mutant must either load (the
dataset built and every row read) or raise one of the exceptions the reader documents;
another exception, a numpy warning of an invalid cast or an out-of-range integer (a silent
wrong answer), or a load running past a time bound, fails the test with the mutant's number
(mutant k of a reader is rebuilt by `_mutant(seed, name, k)`).

MYCEL_FUZZ_PY_SCALE (default 1) multiplies the numbers of mutants, for longer runs:
    MYCEL_FUZZ_PY_SCALE=20 PYTHONPATH=python /usr/bin/python3 -m pytest -q \\
        tests/python/test_fuzz_python_readers.py
"""
import io
import json
import os
import random
import signal
import struct
import warnings
import wave

import numpy as np
import pytest
from PIL import Image
from scipy.io import savemat
from scipy.sparse import csc_matrix

import mycel.dataset as ds
from mycel.dataset._matfile import loadmat
from mycel.dataset.sources_image_more import _read_bmp_gray, _read_idx

SCALE = float(os.environ.get("MYCEL_FUZZ_PY_SCALE", "1"))
TIME_BOUND = 5.0  # seconds per mutant: a load running longer is a hang

_BYTES = [0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]
_INTS = [0, 1, 2, 8, 16, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x40000000,
         0x7FFFFFFF, 0x80000000, 0xFFFFFFFF]
_TOKENS = [b"0", b"1", b"-1", b"10", b"255", b"256", b"65535", b"4294967296",
           b"18446744073709551616", b"99999999999999999999999", b"1e400", b"-1e400", b"nan",
           b"inf", b"-0", b"0.5", b"", b" ", b"\t", b"\n", b"\r\n", b",", b"|", b":", b";",
           b'"', b"'", b"(", b")", b"{", b"}", b"[", b"]", b"null", b"true", b"/", b"..",
           b"\xff", b"\xc3", b"\x00", b"\xe2\x82"]


def _mutant(seed, name, k):
    """Mutant k of the bytes `seed` for the reader `name` (deterministic)."""
    rng = random.Random(f"{name}:{k}")
    b = bytearray(seed)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 6))):
        op = rng.randrange(9)
        i = rng.randrange(len(b) + 1)
        if op == 0 and b:
            b[i % len(b)] ^= 1 << rng.randrange(8)
        elif op == 1 and b:
            b[i % len(b)] = rng.choice(_BYTES)
        elif op == 2:
            i -= i % 4 if rng.random() < 0.5 else 0
            b[i:i + 4] = struct.pack(rng.choice("<>") + "I", rng.choice(_INTS))
        elif op == 3:
            del b[i:i + rng.choice((1, 2, 4, 8, 64))]
        elif op == 4:
            j = rng.randrange(len(b) + 1)
            b[i:i] = b[j:j + rng.choice((1, 4, 16, 256))]
        elif op == 5:
            del b[i:]
        elif op == 6:
            b[i:i] = rng.choice(_TOKENS)
        else:  # a word (a run without spaces or separators) replaced by a token
            sep = b" \t\n,|:"
            lo = i
            while lo > 0 and b[lo - 1] not in sep:
                lo -= 1
            hi = i
            while hi < len(b) and b[hi] not in sep:
                hi += 1
            b[lo:hi] = rng.choice(_TOKENS)
    return bytes(b)


class _Hang(BaseException):
    """Raised by the time bound's alarm (a BaseException: readers' `except Exception` do not
    swallow it)."""


def _on_alarm(signum, frame):
    raise _Hang()


def fuzz(name, path, seed, load, allowed, count):
    """Writes `count` mutants of `seed` to `path` in turn and calls load(): each must return
    or raise one of `allowed`. Fails listing the mutants that did otherwise. Returns how many
    loaded."""
    count = max(1, int(count * SCALE))
    bad, loaded = [], 0
    old = signal.signal(signal.SIGALRM, _on_alarm)
    try:
        for k in range(count):
            with open(path, "wb") as f:
                f.write(_mutant(seed, name, k))
            signal.setitimer(signal.ITIMER_REAL, TIME_BOUND)
            try:
                with warnings.catch_warnings():
                    # numpy's warnings of invalid casts and out-of-range integers are silent
                    # wrong answers (NaN pixels cast to uint8, ids wrapped around): findings
                    warnings.simplefilter("error", RuntimeWarning)
                    warnings.simplefilter("error", DeprecationWarning)
                    load()
                loaded += 1
            except allowed:
                pass
            except _Hang:
                bad.append((k, f"no result within {TIME_BOUND} s"))
            except Exception as e:  # noqa: BLE001 - any other exception is the finding
                bad.append((k, f"{type(e).__name__}: {e}"))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
        with open(path, "wb") as f:
            f.write(seed)
    assert not bad, f"{name}: {len(bad)} of {count} mutants: " + "; ".join(
        f"#{k}: {msg[:300]}" for k, msg in bad[:5])
    return loaded


def _iterate(dataset):
    for _ in dataset.create_tuple_iterator(num_epochs=1, output_numpy=True):
        pass


def _write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    return data


def _png(path):
    buf = io.BytesIO()
    Image.fromarray(np.arange(12, dtype=np.uint8).reshape(2, 2, 3)).save(buf, "PNG")
    return _write(path, buf.getvalue())


def _wav(path, frames=8):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(np.arange(frames, dtype="<i2").tobytes())


# ----- MATLAB .mat files (Caltech101, Flowers102, SVHN, SBD) -----

@pytest.mark.parametrize("compress", [False, True])
def test_loadmat(tmp_path, compress):
    path = tmp_path / "a.mat"
    savemat(path, {"a": np.arange(6.0).reshape(2, 3), "b": np.array([[1, -2]], np.int8),
                   "c": np.array([np.eye(2), np.ones(3, np.uint16)], dtype=object),
                   "s": {"f": np.float32(2.5), "g": np.arange(4, dtype=np.int32)},
                   "sp": csc_matrix(np.array([[0, 1.5], [2, 0], [0, 0]]))},
            do_compression=compress)
    seed = path.read_bytes()
    assert set(loadmat(str(path))) == {"a", "b", "c", "s", "sp"}
    fuzz(f"loadmat-{compress}", path, seed, lambda: loadmat(str(path)), (RuntimeError,), 3000)


def test_svhn_mat(tmp_path):
    path = tmp_path / "train_32x32.mat"
    rng = np.random.default_rng(0)
    savemat(path, {"X": rng.integers(0, 256, (32, 32, 3, 2), dtype=np.uint8),
                   "y": np.array([[10], [3]], np.uint8)})
    seed = path.read_bytes()
    load = lambda: _iterate(ds.SVHNDataset(str(tmp_path), "train", shuffle=False))  # noqa: E731
    assert fuzz("svhn", path, seed, load, (RuntimeError,), 300) > 0


def test_flowers102_mat(tmp_path):
    for i in (1, 2, 3):
        _write(tmp_path / "jpg" / f"image_{i:05d}.jpg", b"x")
    savemat(tmp_path / "imagelabels.mat", {"labels": np.array([[1, 5, 102]], np.uint8)})
    path = tmp_path / "setid.mat"
    savemat(path, {"trnid": np.array([[1, 2]], np.uint8), "tstid": np.array([[3]], np.uint8),
                   "valid": np.array([[2]], np.uint16)})
    seed = path.read_bytes()
    load = lambda: ds.Flowers102Dataset(str(tmp_path), shuffle=False)  # noqa: E731
    assert fuzz("flowers102", path, seed, load, (RuntimeError,), 300) > 0


def test_sbd_mat(tmp_path):
    _write(tmp_path / "img" / "a.jpg", b"x")
    _write(tmp_path / "train.txt", b"a\n")
    _write(tmp_path / "val.txt", b"")
    boundaries = np.empty((20, 1), dtype=object)
    for k in range(20):
        boundaries[k, 0] = csc_matrix(np.eye(3, 4) * (k % 2))
    path = tmp_path / "cls" / "a.mat"
    os.makedirs(path.parent)
    savemat(path, {"GTcls": {"Boundaries": boundaries,
                             "Segmentation": np.arange(12, dtype=np.uint8).reshape(3, 4)}})
    seed = path.read_bytes()
    for task in ("Boundaries", "Segmentation"):
        load = lambda: _iterate(ds.SBDataset(str(tmp_path), task, "train"))  # noqa: E731
        assert fuzz(f"sbd-{task}", path, seed, load, (RuntimeError,), 200) > 0


# ----- BMP and idx (PhotoTour, QMNIST) -----

@pytest.mark.parametrize("mode", ["P", "RGB"])
def test_bmp(tmp_path, mode):
    path = tmp_path / "a.bmp"
    image = Image.fromarray(np.arange(6 * 7 * 3, dtype=np.uint8).reshape(6, 7, 3))
    image.convert(mode).save(path, "BMP")
    seed = path.read_bytes()
    assert _read_bmp_gray("f", str(path)).shape == (6, 7)
    fuzz(f"bmp-{mode}", path, seed, lambda: _read_bmp_gray("f", str(path)), (RuntimeError,),
         3000)


def test_idx(tmp_path):
    path = tmp_path / "x-images-idx3-ubyte"
    seed = struct.pack(">IIII", 2051, 2, 28, 28) + bytes(range(256)) * 6 + bytes(32)
    labels = struct.pack(">IIII", 3074, 2, 8, 0)[:12] + np.arange(16, dtype=">i4").tobytes()
    lpath = tmp_path / "x-labels-idx2-int"
    _write(lpath, labels)
    _write(path, seed)
    assert _read_idx("f", str(path), 2051, (28, 28), np.uint8).shape == (2, 28, 28)
    fuzz("idx-images", path, seed, lambda: _read_idx("f", str(path), 2051, (28, 28), np.uint8),
         (RuntimeError,), 1000)
    fuzz("idx-labels", lpath, labels, lambda: _read_idx("f", str(lpath), 3074, (8,), ">i4"),
         (RuntimeError,), 1000)


def test_phototour_index_files(tmp_path):
    folder = tmp_path / "liberty"
    sheet = np.arange(1024 * 1024, dtype=np.uint32).astype(np.uint8).reshape(1024, 1024)
    os.makedirs(folder)
    Image.fromarray(sheet).convert("P").save(folder / "patches0000.bmp", "BMP")
    info = _write(folder / "info.txt", b"0 0\n0 1\n1 0\n2 0\n")
    matches = _write(folder / "m50_100000_100000_0.txt",
                     b"0 0 0 1 0 0 0\n2 1 0 3 2 0 0\n")
    for usage, path, seed in (("train", folder / "info.txt", info),
                              ("test", folder / "m50_100000_100000_0.txt", matches)):
        load = lambda: _iterate(ds.PhotoTourDataset(str(tmp_path), "liberty", usage,  # noqa
                                                    shuffle=False))
        assert fuzz(f"phototour-{usage}", path, seed, load, (RuntimeError,), 150) > 0


# ----- text index and annotation files of the image sets -----

def test_semeion(tmp_path):
    line = " ".join(["1.0000" if k % 3 else "0.0000" for k in range(256)] +
                    ["0"] * 3 + ["1"] + ["0"] * 6)
    seed = _write(tmp_path / "semeion.data", (line + "\n" + line + " \n").encode())
    load = lambda: _iterate(ds.SemeionDataset(str(tmp_path), shuffle=False))  # noqa: E731
    assert fuzz("semeion", tmp_path / "semeion.data", seed, load, (RuntimeError,), 600) > 0


def test_usps(tmp_path):
    line = "3 " + " ".join(f"{k + 1}:{(k % 5) / 2 - 1:.4f}" for k in range(256))
    seed = _write(tmp_path / "usps", (line + "\n" + line.replace("3 ", "10 ", 1) + "\n").encode())
    load = lambda: _iterate(ds.USPSDataset(str(tmp_path), "train", shuffle=False))  # noqa
    assert fuzz("usps", tmp_path / "usps", seed, load, (RuntimeError,), 300) > 0


def test_stl10(tmp_path):
    _write(tmp_path / "train_X.bin", bytes(range(256)) * (96 * 96 * 3 * 2 // 256))
    seed = _write(tmp_path / "train_y.bin", bytes([1, 10]))
    load = lambda: _iterate(ds.STL10Dataset(str(tmp_path), "train", shuffle=False))  # noqa
    assert fuzz("stl10", tmp_path / "train_y.bin", seed, load, (RuntimeError,), 200) > 0


def test_kitti_labels(tmp_path):
    image_dir = tmp_path / "data_object_image_2" / "training" / "image_2"
    for i in ("000000", "000001"):
        _png(image_dir / f"{i}.png")
    label_dir = tmp_path / "data_object_label_2" / "training" / "label_2"
    _write(label_dir / "000001.txt", b"Car 0 0 0 1 1 2 2 1 1 1 0 0 0 0\n")
    path = label_dir / "000000.txt"
    seed = _write(path, b"Pedestrian 0.00 0 -0.20 712.40 143.00 810.73 307.92 1.89 0.48 1.20 "
                        b"1.84 1.47 8.41 0.01\nCar 0.5 1 1.5 1 2 3 4 1.5 1.6 3.2 -1 2 30 -1.5\n")
    load = lambda: _iterate(ds.KITTIDataset(str(tmp_path), shuffle=False))  # noqa: E731
    assert fuzz("kitti", path, seed, load, (RuntimeError,), 800) > 0


def test_widerface_boxes(tmp_path):
    for name in ("a.jpg", "b.jpg"):
        _write(tmp_path / "WIDER_train" / "images" / "0--Parade" / name, b"x")
    path = tmp_path / "wider_face_split" / "wider_face_train_bbx_gt.txt"
    seed = _write(path, b"0--Parade/a.jpg\n2\n1 2 3 4 0 0 0 0 0 0\n5 6 7 8 2 1 1 0 1 0\n"
                        b"0--Parade/b.jpg\n0\n0 0 0 0 0 0 0 0 0 0\n")
    load = lambda: _iterate(ds.WIDERFaceDataset(str(tmp_path), "train", shuffle=False))  # noqa
    assert fuzz("widerface", path, seed, load, (RuntimeError,), 300) > 0


def test_cityscapes_polygons(tmp_path):
    _png(tmp_path / "leftImg8bit" / "train" / "aachen" / "aachen_0_leftImg8bit.png")
    path = tmp_path / "gtFine" / "train" / "aachen" / "aachen_0_gtFine_polygons.json"
    seed = _write(path, json.dumps({"imgHeight": 2, "imgWidth": 2, "objects": [
        {"label": "road", "polygon": [[0, 0], [1, 0], [1, 1]]}]}).encode())
    load = lambda: _iterate(ds.CityscapesDataset(str(tmp_path), task="polygon",  # noqa: E731
                                                 shuffle=False))
    assert fuzz("cityscapes", path, seed, load, (RuntimeError,), 300) > 0


def test_places365_lists(tmp_path):
    _write(tmp_path / "categories_places365.txt", b"/a/airfield 0\n/b/bar 1\n")
    _png(tmp_path / "data_256_standard" / "a" / "airfield" / "00000001.jpg")
    path = tmp_path / "places365_train_standard.txt"
    seed = _write(path, b"/a/airfield/00000001.jpg 0\n/a/airfield/00000001.jpg 1\n")
    load = lambda: _iterate(ds.Places365Dataset(str(tmp_path), shuffle=False))  # noqa: E731
    # ValueError: a listed image that is a directory (the C++ image table reads regular files)
    assert fuzz("places365", path, seed, load, (RuntimeError, ValueError), 300) > 0


def test_sbu_lists(tmp_path):
    _write(tmp_path / "sbu_images" / "abc_1.jpg", b"x")
    _write(tmp_path / "SBU_captioned_photo_dataset_captions.txt", b"a dog  \nno image\n")
    path = tmp_path / "SBU_captioned_photo_dataset_urls.txt"
    seed = _write(path, b"http://static.flickr.com/abc/1.jpg\nhttp://static.flickr.com/x/2.jpg\n")
    load = lambda: _iterate(ds.SBUDataset(str(tmp_path), shuffle=False))  # noqa: E731
    assert fuzz("sbu", path, seed, load, (RuntimeError,), 200) > 0


def test_food101_lists(tmp_path):
    _write(tmp_path / "images" / "apple_pie" / "1.jpg", b"x")
    _write(tmp_path / "meta" / "test.txt", b"")
    path = tmp_path / "meta" / "train.txt"
    seed = _write(path, b"apple_pie/1\napple_pie/1\n")
    load = lambda: _iterate(ds.Food101Dataset(str(tmp_path), shuffle=False))  # noqa: E731
    # ValueError: a listed image that is a directory (the C++ image table reads regular files)
    assert fuzz("food101", path, seed, load, (RuntimeError, ValueError), 200) > 0


# ----- text: word vectors, the audio data sets' transcripts -----

def test_vectors_file(tmp_path):
    from mycel.dataset import text
    path = tmp_path / "vectors.txt"
    seed = _write(path, b"3 2\nthe 0.1 0.2\ncat -1 2.5e3\n\xc3\xa9t\xc3\xa9 1 1\n")
    load = lambda: text.Vectors.from_file(str(path))  # noqa: E731
    assert fuzz("vectors", path, seed, load, (RuntimeError,), 1000) > 0


# RuntimeError: a malformed line or audio file; ValueError: a path a line names that is a
# directory (the C++ audio source reads regular files only)
_AUDIO_ERRORS = (RuntimeError, ValueError)


def test_vectors_value_past_float32(tmp_path):
    """Found by the mutation test at scale 10: 1e39 became inf silently (numpy's cast); it is
    an error as in MindSpore's reader (std::stof), while a written "inf" stays inf."""
    from mycel.dataset import text
    path = tmp_path / "vectors.txt"
    path.write_bytes(b"a 1e39 2\nb 1 2\n")
    with pytest.raises(RuntimeError, match="'a' has a value out of the float32 range"):
        text.Vectors.from_file(str(path))
    path.write_bytes(b"a inf 2\nb 1 2\n")
    assert text.Vectors.from_file(str(path)).dim == 2


def test_ljspeech_metadata(tmp_path):
    _wav(tmp_path / "wavs" / "LJ001-0001.wav")
    path = tmp_path / "metadata.csv"
    seed = _write(path, b"LJ001-0001|Printing, in the only sense|Printing, in the only sense\n")
    load = lambda: _iterate(ds.LJSpeechDataset(str(tmp_path), shuffle=False))  # noqa: E731
    assert fuzz("ljspeech", path, seed, load, _AUDIO_ERRORS, 200) > 0


def test_libritts_transcripts(tmp_path):
    folder = tmp_path / "dev-clean" / "84" / "121123"
    _wav(folder / "84_121123_000007_000000.wav")
    path = folder / "84_121123.trans.tsv"
    seed = _write(path, b"84_121123_000007_000000\tOriginal text.\tNormalized text.\n")
    load = lambda: _iterate(ds.LibriTTSDataset(str(tmp_path), "dev-clean",  # noqa: E731
                                               shuffle=False))
    assert fuzz("libritts", path, seed, load, _AUDIO_ERRORS, 200) > 0


def test_tedlium_stm(tmp_path):
    folder = tmp_path / "train"
    head = (b"NIST_1A\n   1024\nsample_count -i 16000\nsample_rate -i 8000\n"
            b"channel_count -i 1\nsample_n_bytes -i 2\nsample_coding -s3 pcm\n"
            b"sample_byte_format -s2 01\nend_head\n")
    _write(folder / "sph" / "talk.sph", head.ljust(1024, b" ") +
           np.arange(16000, dtype="<i2").tobytes())
    path = folder / "stm" / "talk.stm"
    seed = _write(path, b"talk 1 spk 0.5 1.25 <o,f0,male> hello world\n"
                        b"talk 1 spk 1.5 1.75 <o,f0,male> ignore_time_segment_in_scoring\n")
    load = lambda: _iterate(ds.TedliumDataset(str(tmp_path), "release1", "train",  # noqa
                                              shuffle=False))
    assert fuzz("tedlium", path, seed, load, _AUDIO_ERRORS, 200) > 0


def test_cmu_arctic_transcripts(tmp_path):
    root = tmp_path / "cmu_us_aew_arctic"
    _wav(root / "wav" / "arctic_a0001.wav")
    path = root / "etc" / "txt.done.data"
    seed = _write(path, b'( arctic_a0001 "Author of the danger trail." )\n')
    load = lambda: _iterate(ds.CMUArcticDataset(str(tmp_path), shuffle=False))  # noqa: E731
    assert fuzz("cmu_arctic", path, seed, load, _AUDIO_ERRORS, 200) > 0


# ----- the collective execution-order record (mycel.utils) -----

def test_exec_order_csv(tmp_path):
    from mycel.utils import runtime_execution_order_check
    header = ("index,group,comm_rank,primitive,src_rank,dest_rank,root_rank,input_shape,"
              "input_type,output_shape,output_type,input_size,output_size\n")
    rows = ["0,hccl_world_group,0 1,AllReduce,,,,[2 3],float32,[2 3],float32,24,24\n",
            "1,hccl_world_group,0 1,Send,,1,,[4],float32,[4],float32,16,16\n",
            "2,g1,0 1,Broadcast,,,0,[1],int32,[1],int32,4,4\n"]
    recv = rows[1].replace("Send,,1", "Receive,0,")
    _write(tmp_path / "rank_0" / "execute_order" / "comm_execute_order.csv",
           (header + "".join(rows)).encode())
    path = tmp_path / "rank_1" / "execute_order" / "comm_execute_order.csv"
    seed = _write(path, (header + rows[0] + recv + rows[2]).encode())
    load = lambda: runtime_execution_order_check(str(tmp_path))  # noqa: E731
    assert fuzz("exec_order", path, seed, load, (), 1000) > 0


# ----- dataset schema and vocabulary files, encrypted checkpoints -----

def test_schema_json(tmp_path):
    path = tmp_path / "schema.json"
    seed = _write(path, json.dumps({"datasetType": "TF", "numRows": 3, "columns": {
        "image": {"type": "uint8", "rank": 1, "shape": [4]},
        "label": {"type": "int64", "rank": 0}}}).encode())
    load = lambda: ds.Schema(str(path))  # noqa: E731
    assert fuzz("schema", path, seed, load, (RuntimeError, ValueError, TypeError), 1000) > 0


def test_vocab_file(tmp_path):
    from mycel.dataset import text
    path = tmp_path / "vocab.txt"
    seed = _write(path, "home,1\nbehind,2\n\u00e9t\u00e9,3\n\n".encode())
    load = lambda: text.Vocab.from_file(str(path), ",", None, ["<pad>"], True)  # noqa: E731
    assert fuzz("vocab", path, seed, load, (ValueError, RuntimeError), 1000) > 0


@pytest.mark.parametrize("mode", ["AES-GCM", "AES-CBC"])
def test_encrypted_checkpoint(tmp_path, mode):
    import mycel as ms
    path = tmp_path / "a.ckpt"
    key = bytes(range(16))
    ms.save_checkpoint({"w": ms.Parameter(ms.Tensor(np.arange(6, dtype=np.float32)))}, str(path),
                       enc_key=key, enc_mode=mode)
    seed = path.read_bytes()
    load = lambda: ms.load_checkpoint(str(path), dec_key=key, dec_mode=mode)  # noqa: E731
    fuzz(f"ckpt-{mode}", path, seed, load, (ValueError, RuntimeError), 300)


# ----- print files, MINDIR ModelProto, LineReader, Flickr annotations -----

def _named(load, allowed, name):
    """load(), whose exceptions of the types `allowed` must name `name` (else an
    AssertionError: a finding)."""
    def run():
        try:
            return load()
        except allowed as e:
            assert name in str(e), f"{type(e).__name__} not naming {name}: {e}"
            raise
    return run


def test_print_file(tmp_path):
    import mycel as ms
    from mycel.common.print_file import write_print_record
    path = tmp_path / "print.data"
    write_print_record(str(path), ["x:", ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),
                                   (3, 2.5, True), np.array([[1, -2]], np.int8).T])
    write_print_record(str(path), [ms.Tensor(np.array([1.5, -2], np.float32)).astype(ms.bfloat16),
                                   ms.Tensor(np.array([1 + 2j], np.complex64)), "\u00e9t\u00e9"])
    seed = path.read_bytes()
    assert len(ms.parse_print(str(path))) == 9

    def load():
        for v in ms.parse_print(str(path)):
            if not isinstance(v, str):
                v.asnumpy()
    assert fuzz("print_file", path, seed, _named(load, ValueError, "parse_print"),
                (ValueError,), 1000) > 0


def test_mindir_model_proto(tmp_path):
    import mycel as ms
    from mycel import nn
    path = tmp_path / "net.mindir"
    ms.export(nn.Dense(3, 2), ms.Tensor(np.ones((2, 3), np.float32)),
              file_name=str(tmp_path / "net"), file_format="MINDIR")
    seed = path.read_bytes()
    load = _named(lambda: ms.load_mindir(str(path)), ValueError, "load_mindir")
    assert fuzz("load_mindir", path, seed, load, (ValueError,), 600) > 0


def _lines_of(data):
    """The oracle: LineReader's lines of the bytes `data` (split at "\\n", one "\\r" before it
    dropped)."""
    parts = data.split(b"\n")
    if parts[-1] == b"":
        parts.pop()
    return [(p[:-1] if p.endswith(b"\r") and i < len(data.split(b"\n")) - 1 else p)
            for i, p in enumerate(parts)]


def test_line_reader(tmp_path):
    path = tmp_path / "lines.txt"
    seed = _write(path, "first\r\n\nthird, with a comma\n\u00e9t\u00e9 \t|:\nlast".encode())

    def load():
        data = path.read_bytes()
        reader = ds.LineReader(str(path))
        try:
            got = [reader.readline(k) for k in range(1, reader.len() + 1)]
        finally:
            reader.close()
        assert [g.encode() for g in got] == _lines_of(data), (got, data)
    assert fuzz("line_reader", path, seed, _named(load, RuntimeError, "LineReader"),
                (RuntimeError,), 1000) > 0


def test_flickr_annotations(tmp_path):
    _png(tmp_path / "images" / "a.png")
    _png(tmp_path / "images" / "b.png")
    path = tmp_path / "ann.token"
    seed = _write(path, b"b.png#0\tA blue thing.\na.png#0\tA red thing.\nb.png#1\tStill blue."
                        b"\nmissing.png#0\tNot there.\na.png#1\tRed, tab\tinside.\n")
    load = lambda: _iterate(ds.FlickrDataset(str(tmp_path / "images"), str(path),  # noqa: E731
                                             shuffle=False))
    assert fuzz("flickr", path, seed, _named(load, RuntimeError, "FlickrDataset"),
                (RuntimeError,), 500) > 0

"""The fuzz corpus (fuzz/corpus/<target>/: seeds, edge cases and the inputs of fixed fuzzer
findings, "regress-*") through the public Python readers, in the ordinary build: each input
loads, or fails with a typed error (ValueError, TypeError, IndexError, RuntimeError); a
regression that crashes again fails here even where clang and the fuzz build are missing.
The IR text corpus has no Python entry point; the fuzz targets run it (make test)."""
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mycel as ms
import mycel.dataset as ds
from mycel.dataset import vision

CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "fuzz", "corpus")
TYPED = (ValueError, TypeError, IndexError, RuntimeError)


def inputs(target):
    d = os.path.join(CORPUS, target)
    names = sorted(os.listdir(d))
    assert names, target
    return [os.path.join(d, n) for n in names]


def outcomes(target, load, tmp_path, name):
    ok = 0
    for src in inputs(target):
        dst = str(tmp_path / name)
        shutil.copyfile(src, dst)
        try:
            load(dst)
            ok += 1
        except TYPED:
            pass
    return ok


def test_checkpoint_corpus(tmp_path):
    assert outcomes("checkpoint", ms.load_checkpoint, tmp_path, "c.ckpt") >= 4


def test_mindir_corpus(tmp_path):
    assert outcomes("mindir", lambda p: ms.nn.GraphCell(ms.load(p)), tmp_path, "m.mindir") >= 3


def test_onnx_corpus(tmp_path):
    from mycel.lite import load_onnx
    assert outcomes("onnx", lambda p: ms.nn.GraphCell(load_onnx(p)), tmp_path, "m.onnx") >= 3


def _unpack_mindrecord(path):
    """fuzz_mindrecord's input ([shard length u64 LE][shard][index]) as the shard file `path`
    and its index `path.db`."""
    with open(path, "rb") as f:
        data = f.read()
    n = int.from_bytes(data[:8], "little")
    with open(path, "wb") as f:
        f.write(data[8:8 + n])
    with open(path + ".db", "wb") as f:
        f.write(data[8 + n:])


def test_mindrecord_corpus(tmp_path):
    def read(path):
        _unpack_mindrecord(path)
        return list(ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True))
    assert outcomes("mindrecord", read, tmp_path, "data.mr") >= 3  # the seeds' own name


def test_image_corpus(tmp_path):
    def decode(path):
        with open(path, "rb") as f:
            data = np.frombuffer(f.read(), np.uint8)
        out = vision.Decode()(data)
        assert out.dtype == np.uint8 and out.ndim == 3 and out.shape[2] == 3
    assert outcomes("image", decode, tmp_path, "i.img") >= 8


def test_tfrecord_corpus(tmp_path):
    """fuzz_tfrecord's inputs (an options byte, then the file) as TFRecord files, read with
    the columns inferred from the first record (compressed ones with GZIP)."""
    loaded = 0
    for src in inputs("tfrecord"):
        with open(src, "rb") as f:
            data = f.read()
        if not data:
            continue
        path = str(tmp_path / "data.tfrecord")
        with open(path, "wb") as f:
            f.write(data[1:])
        try:
            for _ in ds.TFRecordDataset(path, shuffle=False).create_tuple_iterator(
                    num_epochs=1, output_numpy=True):
                pass
            loaded += 1
        except TYPED:
            pass
    assert loaded >= 5


def test_sentencepiece_corpus(tmp_path):
    from mycel.dataset import text

    def encode(path):
        for out in (text.SPieceTokenizerOutType.INT, text.SPieceTokenizerOutType.STRING):
            text.SentencePieceTokenizer(path, out)("the quick brown fox 42")
    assert outcomes("sentencepiece", encode, tmp_path, "m.model") >= 4


@pytest.mark.parametrize("target", ["checkpoint", "mindir", "onnx", "mindrecord", "image",
                                    "ir_text", "tfrecord", "data_sources", "sentencepiece"])
def test_corpus_is_small(target):
    assert sum(os.path.getsize(p) for p in inputs(target)) < 200_000


def test_mindir_name_that_is_not_utf8(tmp_path):
    """Found by fuzz_mindir: proto2 parses a string field holding malformed UTF-8 (it only
    logs it); a weight named so reached Python as a UnicodeDecodeError naming nothing."""
    path = str(tmp_path / "m.mindir")
    shutil.copyfile(os.path.join(CORPUS, "mindir", "regress-non-utf8-weight-name.mindir"), path)
    with pytest.raises(ValueError, match=r"m\.mindir.*mind_ir\.\w+\.\w+ is not valid UTF-8"):
        ms.load(path)


def test_mindrecord_shape_whose_size_overflows(tmp_path):
    """A header's shape [2^32, 2^32] overflowed int64 when the reader sized a record (UBSan in
    fuzz_mindrecord on a crafted header; [2^62] of float32 wrapped to 0 bytes). The reader
    rejects the file when it is opened, naming it; FileWriter refuses such a schema."""
    path = str(tmp_path / "data.mr")
    shutil.copyfile(os.path.join(CORPUS, "mindrecord", "regress-huge-shape.mr"), path)
    _unpack_mindrecord(path)
    want = (r"data.mr has an invalid schema in its header: .*'mat' has shape "
            r"\[4294967296, 4294967296\], whose size does not fit in 64 bits")
    with pytest.raises(ValueError, match=want):
        list(ds.MindDataset(path, shuffle=False).create_tuple_iterator(output_numpy=True))
    from mycel.mindrecord import FileWriter
    for shape in ([1 << 62], [-1, 1 << 61, 2]):
        writer = FileWriter(str(tmp_path / "w.mr"))
        with pytest.raises(ValueError, match="does not fit in 64 bits"):
            writer.add_schema({"x": {"type": "float64", "shape": shape}})


def test_jpeg_size_is_checked_before_decompression_starts():
    """Found by fuzz_image (out of memory): a 325-byte JPEG claiming 30042 x 39431 pixels made
    libjpeg reserve gigabytes for the whole image in jpeg_start_decompress,
    before the pixel limit was checked. In a child process whose address space is capped at
    1 GB, that reservation fails ("Insufficient memory"); checked first, the limit is what
    the error names."""
    code = textwrap.dedent(f"""
        import resource
        import numpy as np
        from mycel.dataset import vision
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        data = np.fromfile({os.path.join(CORPUS, "image", "regress-jpeg-huge-header.jpg")!r},
                           np.uint8)
        try:
            vision.Decode()(data)
        except RuntimeError as e:
            print("RuntimeError:", e)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), OMP_NUM_THREADS="1")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "30042 x 39431 pixels, more than the limit" in out.stdout, out.stdout


def _data_sources_parts(name):
    """fuzz_data_sources' input `name`: (reader byte, options byte, [file bytes, ...])."""
    with open(os.path.join(CORPUS, "data_sources", name), "rb") as f:
        data = f.read()
    return data[0], data[1], data[2:].split(b"\n==>\n")


def test_mnist_header_size_is_checked_before_allocation(tmp_path):
    """An idx header claiming 2^40 bytes of images in a 16-byte file: the reader used to
    allocate what the header claimed before reading (a MemoryError, or a terabyte of address
    space); it now reads in chunks and allocates once the bytes are there."""
    _, _, (images, labels) = _data_sources_parts("mnist-edge-huge-dims")
    (tmp_path / "train-images-idx3-ubyte").write_bytes(images)
    (tmp_path / "train-labels-idx1-ubyte").write_bytes(labels)
    with pytest.raises(RuntimeError, match=r"train-images-idx3-ubyte is 16 bytes but its header"):
        ds.MnistDataset(str(tmp_path), usage="train")


def test_sentencepiece_model_with_corrupt_normalization_map(tmp_path):
    """Found by fuzz_sentencepiece: a model whose precompiled character map names a
    replacement string past the map's end made libsentencepiece read out of bounds when it
    encoded (a segfault); the plugin now checks the map before the library loads the model."""
    from mycel.dataset import text
    path = str(tmp_path / "m.model")
    shutil.copyfile(os.path.join(CORPUS, "sentencepiece", "regress-charsmap-string-offset"), path)
    with pytest.raises(ValueError, match="normalization map is corrupt"):
        text.SentencePieceTokenizer(path, text.SPieceTokenizerOutType.STRING)("hello world")
    with open(path, "rb") as f:
        vocab = text.SentencePieceVocab(f.read())
    with pytest.raises(ValueError, match="normalization map is corrupt"):
        text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT)("hello world")


def test_sentencepiece_model_whose_load_throws(tmp_path):
    """Found by fuzz_sentencepiece (as a leak): a model with a zero-length piece makes the
    library throw while it builds its trie; the error is a ValueError naming the problem and
    the half-built processor is freed."""
    from mycel.dataset import text
    path = str(tmp_path / "m.model")
    shutil.copyfile(os.path.join(CORPUS, "sentencepiece", "regress-zero-length-piece-throws"),
                    path)
    with pytest.raises(ValueError, match="zero-length key"):
        text.SentencePieceTokenizer(path)


def test_sentencepiece_model_whose_map_leads_back_to_a_leaf_at_its_root(tmp_path):
    """Found by fuzz_sentencepiece after the first fix: the map's trie had an edge labelled
    0 from its root to itself and a leaf there naming a string past the map; the input byte 0
    made the library read out of bounds. Every reachable node's leaf is checked now."""
    from mycel.dataset import text
    path = str(tmp_path / "m.model")
    shutil.copyfile(os.path.join(CORPUS, "sentencepiece", "regress-charsmap-root-leaf"), path)
    with pytest.raises(ValueError, match="normalization map is corrupt"):
        text.SentencePieceTokenizer(path, text.SPieceTokenizerOutType.STRING)("x\0y")


def _varint(n):
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _with_charsmap(model, charsmap):
    """The serialized ModelProto `model` with its normalizer spec (field 3) replaced by one
    holding `charsmap` as its precompiled_charsmap (protobuf wire format, written here)."""
    out, i = b"", 0
    while i < len(model):
        start = i
        key, shift = 0, 0
        while True:
            b = model[i]
            i += 1
            key |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        assert key & 7 == 2  # the ModelProto's top-level fields are messages
        size, shift = 0, 0
        while True:
            b = model[i]
            i += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        i += size
        if key >> 3 != 3:
            out += model[start:i]
    spec = b"\x0a\x01x" + b"\x12" + _varint(len(charsmap)) + charsmap + b"\x18\x01\x20\x01\x28\x01"
    return out + b"\x1a" + _varint(len(spec)) + spec


def test_sentencepiece_map_with_a_cycle_of_replacements_is_refused(tmp_path):
    """libsentencepiece keeps at most 32 matches of a prefix search but reads as many as it
    found (only its map builder bounds them): a map whose trie loops through a node with a
    replacement ('a' -> itself) would give one match per 'a' of the input. Refused at load;
    the same map without the loop loads and replaces 'a' by 'b'."""
    import struct
    from mycel.dataset import text
    with open(os.path.join(CORPUS, "sentencepiece", "unigram.model"), "rb") as f:
        seed = f.read()

    def model(child_base):
        units = [0] * 1024
        units[0] = 256 << 10  # the root: its children at 256 ^ byte
        child = 256 ^ ord("a")
        units[child] = (child ^ child_base) << 10 | 1 << 8 | ord("a")  # label 'a', a leaf
        units[child_base] = 1 << 31  # the leaf: replacement string 0, "b"
        trie = struct.pack("<1024I", *units)
        path = tmp_path / f"m{child_base}.model"
        path.write_bytes(_with_charsmap(seed, struct.pack("<I", len(trie)) + trie + b"b\0"))
        return str(path)

    out = text.SentencePieceTokenizer(model(768), text.SPieceTokenizerOutType.STRING)("aaa")
    assert "a" not in "".join(str(p) for p in np.asarray(out).ravel())
    with pytest.raises(ValueError, match="normalization map is corrupt.*cycle"):
        text.SentencePieceTokenizer(model(256), text.SPieceTokenizerOutType.STRING)("a" * 40)


def test_lfw_image_count_is_checked_against_the_files(tmp_path):
    """Found by fuzz_data_sources (a timeout): a people file claiming 2^31 images of one
    person made 2^31 rows from a 66-byte file. The person's last image must exist now."""
    _, _, parts = _data_sources_parts("regress-lfw-huge-image-count")
    (tmp_path / "people.txt").write_bytes(parts[0])
    (tmp_path / "lfw-names.txt").write_bytes(parts[1])
    for f in ("Aaron/Aaron_0001.jpg", "Bob/Bob_0001.jpg"):
        os.makedirs(tmp_path / "lfw" / os.path.dirname(f), exist_ok=True)
        (tmp_path / "lfw" / f).write_bytes(b"x")
    with pytest.raises(RuntimeError, match=r"Bob has 2147483648 images, but .*Bob_2147483648"):
        ds.LFWDataset(str(tmp_path), task="people", usage="10fold", image_set="original")


def test_coco_padding_is_bounded(tmp_path):
    """COCO's Stuff columns pad every polygon of an image to the longest: 20,000 one-point
    polygons and one of 10,000 points (a 1 MB file) asked for 800 MB of padding per image.
    The padded arrays of a file are bounded (1 GiB, as the annotation file itself)."""
    import json
    anns = [{"id": k, "image_id": 1, "category_id": 1, "iscrowd": 0,
             "segmentation": [[1, 2]]} for k in range(20000)]
    anns.append({"id": 20000, "image_id": 1, "category_id": 1, "iscrowd": 0,
                 "segmentation": [[0.5] * 20000]})
    coco = {"images": [{"id": 1, "file_name": "a.jpg"}, {"id": 2, "file_name": "b.jpg"}],
            "annotations": anns + [dict(a, image_id=2) for a in anns[-2:]],
            "categories": [{"id": 1, "name": "x"}]}
    path = tmp_path / "ann.json"
    path.write_text(json.dumps(coco))
    with pytest.raises(RuntimeError, match=r"padded to \[20001, 20000\].*pass 1073741824 bytes"):
        ds.CocoDataset(str(tmp_path), str(path), task="Stuff")
    coco["annotations"] = anns[:100] + anns[-1:]  # 101 x 20000: within the bound
    path.write_text(json.dumps(coco))
    assert ds.CocoDataset(str(tmp_path), str(path), task="Stuff").get_dataset_size() == 1

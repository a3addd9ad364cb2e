"""Writes the seed corpus of the fuzz targets into fuzz/corpus/<target>/ (small valid files,
made by mycel itself, plus a few hand-made edge cases). Run from the repository root:

    PYTHONPATH=python /usr/bin/python3 fuzz/make_corpus.py [TARGET ...]

(only the targets named, e.g. `tfrecord data_sources`, when any are).

The files it writes are committed; regression inputs of fixed findings live beside them
under names starting with "regress-" and are never overwritten. Keep the corpus small.
"""
import io
import os
import struct
import sys
import tempfile
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import mycel as ms  # noqa: E402
from mycel import nn, ops  # noqa: E402
from mycel.mindrecord import FileWriter  # noqa: E402


def put(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def checkpoints(tmp):
    p = lambda a, dt=None: ms.Parameter(ms.Tensor(np.asarray(a), dt))  # noqa: E731
    cases = {
        "dense": ({"w": p(np.arange(6, dtype=np.float32).reshape(2, 3)),
                   "b": p(np.array([1, -2], np.int64))}, None),
        "dtypes": ({f"x{i}": p(np.array([1, 0, 3]).astype(t)) for i, t in enumerate(
            ["bool", "int8", "uint8", "int16", "int32", "float16", "float64"])}, None),
        "bf16": ({"h": ms.Parameter(ms.Tensor(np.array([1.5, -2.0], np.float32), ms.bfloat16))},
                 None),
        "scalar_str": ({"s": p(np.float32(2.5)), "e": p(np.zeros((0, 3), np.float32))},
                       {"note": "héllo", "step": 7, "lr": 0.5, "flag": True}),
    }
    for name, (d, extra) in cases.items():
        path = os.path.join(tmp, name + ".ckpt")
        ms.save_checkpoint(d, path, append_dict=extra)
        put("checkpoint", name + ".ckpt", read(path))
    put("checkpoint", "empty", b"")

    def pb(field, payload):
        return varint(field << 3 | 2) + varint(len(payload)) + payload

    def value(tag, dims, kind, content):
        t = b"".join(varint(1 << 3) + varint(d) for d in dims) + pb(2, kind) + pb(3, content)
        return pb(1, pb(1, tag) + pb(2, t))
    # MindSpore-style (no header/footer): a split tensor and an old-style 0-d scalar.
    put("checkpoint", "mindspore.ckpt", value(b"w", [2], b"Float32", bytes(4)) +
        value(b"w", [2], b"Float32", bytes(4)) + value(b"s", [0], b"Int32", bytes(4)))

    def framed(values):  # docs/checkpoint-format.md: header, values, footer with the CRC-32
        body = pb(1001, b"MYCELCKP" + struct.pack("<I", 1)) + b"".join(values)
        return body + pb(1000, b"MYCELCKP" + struct.pack("<IQI", 1, len(values),
                                                         zlib.crc32(body)))
    # Hand-made edge cases under a valid frame: hostile sizes the reader must refuse.
    put("checkpoint", "edge-dims-overflow", framed([value(b"w", [1 << 32, 1 << 32, 4],
                                                          b"Float32", bytes(16))]))
    put("checkpoint", "edge-dims-huge", framed([value(b"w", [1 << 40], b"Int8", bytes(3))]))
    put("checkpoint", "edge-negative-dim", framed([value(b"w", [(1 << 64) - 1], b"Int8", b"1")]))
    put("checkpoint", "edge-nested-overrun", framed([pb(1, varint(1 << 3 | 2) + varint(1 << 40))]))


def varint(n):
    out = bytearray()
    while n > 0x7F:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


class Small(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.fc(x)).sum(axis=1)


def branchy(x, y):
    if x.sum() > 0:
        return x * y + 1.0
    return ops.exp(x) - y


def loop(x):
    i = 0
    while i < 3:
        x = x * 2.0
        i += 1
    return x


def mindirs(tmp):
    x = ms.Tensor(np.ones((2, 4), np.float32))
    graphs = []
    for name, fn, args in [("dense", Small(), (x,)), ("branch", branchy, (x, x)),
                           ("loop", loop, (x,))]:
        path = os.path.join(tmp, name)
        ms.export(fn, *args, file_name=path)
        put("mindir", name + ".mindir", read(path + ".mindir"))
        graphs.append((name, ms.load(path + ".mindir")))
    return graphs


def _shrunk_index(db, drop_checksums=False):
    """The bytes of a shard's SQLite index, its pages made small (512 bytes; the corpus stays
    under its size bound), without mycel's checksum tables when asked (MindSpore's layout
    alone, so that mutations reach the record decoders)."""
    import sqlite3
    con = sqlite3.connect(db)
    if drop_checksums:
        con.execute("DROP TABLE MYCEL_SET")
        con.execute("DROP TABLE MYCEL_CRC")
        con.commit()
    con.execute("PRAGMA page_size=512")
    con.execute("VACUUM")
    con.close()
    return read(db)


def _container(shard, db):
    """fuzz_mindrecord's input: [shard length u64 LE][shard][index]."""
    return len(shard).to_bytes(8, "little") + shard + db


def mindrecords(tmp):
    import json
    schema = {"label": {"type": "int32"}, "id": {"type": "int64"}, "score": {"type": "float32"},
              "weight": {"type": "float64"}, "name": {"type": "string"},
              "image": {"type": "bytes"}, "mat": {"type": "float32", "shape": [2, 3]},
              "seq": {"type": "int64", "shape": [-1, 2]}}
    for name, n, drop in [("rows3", 3, False), ("rows3-nocrc", 3, True), ("rows0", 0, False),
                          ("regress-huge-shape", 0, True)]:
        d = os.path.join(tmp, name)
        os.makedirs(d)
        path = os.path.join(d, "data.mr")  # the fuzz target's file name
        w = FileWriter(path, 1)
        w.set_header_size(1 << 14)  # MindSpore's smallest sizes
        w.set_page_size(1 << 15)
        w.add_schema(schema, "fuzz seed")
        w.add_index(["label"])
        w.write_raw_data([{"label": i, "id": 1 << 40, "score": 0.5, "weight": 2.0,
                           "name": f"r{i}é", "image": bytes(range(i)),
                           "mat": np.arange(6, dtype=np.float32),
                           "seq": np.arange(2 * i, dtype=np.int64)} for i in range(n)])
        w.commit()
        shard = read(path)
        if name == "regress-huge-shape":
            # A shape whose byte size overflows 64 bits (found by the fuzzer in the earlier
            # format): the header says so, the reader must refuse it when opening.
            size = int.from_bytes(shard[:8], "little")
            h = json.loads(shard[8:8 + size])
            h["schema"][0]["schema"]["mat"]["shape"] = [1 << 32, 1 << 32]
            text = json.dumps(h, separators=(",", ":")).encode()
            shard = len(text).to_bytes(8, "little") + text + shard[8 + len(text):]
        put("mindrecord", name + ".mr", _container(shard, _shrunk_index(path + ".db", drop)))


def images():
    from PIL import Image
    rng = np.random.default_rng(0)
    rgb = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    cases = [("rgb.jpg", Image.fromarray(rgb), "JPEG", {"quality": 80}),
             ("gray.jpg", Image.fromarray(rgb[..., 0]), "JPEG", {}),
             ("progressive.jpg", Image.fromarray(rgb), "JPEG", {"progressive": True}),
             ("rgb.png", Image.fromarray(rgb), "PNG", {}),
             ("rgba.png", Image.fromarray(np.dstack([rgb, rgb[..., :1]])), "PNG", {}),
             ("gray16.png", Image.fromarray((rgb[..., 0].astype(np.uint16) * 257)), "PNG", {}),
             ("palette.png", Image.fromarray(rgb).convert("P"), "PNG", {}),
             ("interlaced.png", Image.fromarray(rgb), "PNG", {"interlace": 1})]
    for name, img, fmt, kw in cases:
        buf = io.BytesIO()
        img.save(buf, fmt, **kw)
        put("image", name, buf.getvalue())
    # A PNG that claims 65535 x 65535 pixels (hostile size): its IDAT is tiny.
    ihdr = struct.pack(">IIBBBBB", 65535, 65535, 8, 2, 0, 0, 0)
    chunk = lambda t, d: (struct.pack(">I", len(d)) + t + d +  # noqa: E731
                          struct.pack(">I", zlib.crc32(t + d)))
    put("image", "huge.png", b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) +
        chunk(b"IDAT", zlib.compress(b"\0" * 16)) + chunk(b"IEND", b""))


def ir_texts(graphs):
    from mycel import _mycel as C
    for name, g in graphs:
        put("ir_text", name + ".ir", g.ir().encode())
    for i, fn in enumerate([branchy, loop]):
        put("ir_text", f"parsed{i}.ir", C._parse_ir(fn).encode())
    put("ir_text", "tiny.ir", b"graph @main(%a, %b) {\n  %0 = Add(%a, %b)\n  return %0\n}\n")


def onnx_models():
    """Small ONNX models (python3-onnx's helper): a CNN, a shape computation, slicing and
    normalisation, each loaded by mycel.lite.load_onnx first."""
    import onnx
    from onnx import TensorProto as T, helper as h, numpy_helper
    from mycel.lite import load_onnx
    rng = np.random.RandomState(0)
    w = lambda name, *shape: numpy_helper.from_array(  # noqa: E731
        rng.randn(*shape).astype(np.float32), name)
    i64 = lambda name, vals: h.make_tensor(name, T.INT64, [len(vals)], vals)  # noqa: E731
    vi = lambda name, dims, t=T.FLOAT: h.make_tensor_value_info(name, t, dims)  # noqa: E731
    cases = {
        "cnn": ([h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
                 h.make_node("Relu", ["c"], ["r"]),
                 h.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                 h.make_node("Flatten", ["p"], ["f"]),
                 h.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1)],
                [vi("x", [1, 2, 8, 8])], [vi("y", [1, 3])],
                [w("w", 4, 2, 3, 3), w("b", 4), w("fw", 3, 16), w("fb", 3)]),
        "shape": ([h.make_node("Shape", ["x"], ["s"]),
                   h.make_node("Gather", ["s", "zero"], ["n"], axis=0),
                   h.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
                   h.make_node("Concat", ["n1", "m1"], ["t"], axis=0),
                   h.make_node("Reshape", ["x", "t"], ["r"]),
                   h.make_node("Softmax", ["r"], ["y"], axis=-1)],
                  [vi("x", [2, 3, 4])], [vi("y", [2, 12])],
                  [h.make_tensor("zero", T.INT64, [], [0]), i64("axes", [0]), i64("m1", [-1])]),
        "slice": ([h.make_node("Slice", ["x", "st", "en", "ax", "sp"], ["s"]),
                   h.make_node("BatchNormalization", ["s", "g", "be", "mu", "va"], ["y"])],
                  [vi("x", [2, 3, 6, 6])], [vi("y", [2, 3, 3, 6])],
                  [i64("st", [5]), i64("en", [-100]), i64("ax", [2]), i64("sp", [-2]),
                   w("g", 3), w("be", 3), w("mu", 3),
                   numpy_helper.from_array(np.ones(3, np.float32), "va")]),
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, (nodes, ins, outs, inits) in cases.items():
            g = h.make_graph(nodes, name, ins, outs, initializer=inits)
            path = os.path.join(tmp, name + ".onnx")
            onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), path)
            load_onnx(path)
            put("onnx", name + ".onnx", read(path))


class SmallConv(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(2)
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(2 * 2 * 2, 3)

    def construct(self, x):
        return ops.softmax(self.fc(self.flatten(self.pool(ops.relu(self.bn(self.conv(x)))))))


def lite_models(tmp):
    from mycel import lite
    for name, net, x in [("dense", nn.Dense(4, 3, activation="relu"), np.ones((2, 4), np.float32)),
                         ("conv", SmallConv(), np.ones((1, 1, 4, 4), np.float32))]:
        net.set_train(False)
        path = os.path.join(tmp, name)
        ms.export(net, ms.Tensor(x), file_name=path)
        lite.Converter().convert(lite.FmkType.MINDIR, path + ".mindir", path)
        put("lite_model", name + ".ms", read(path + ".ms"))


def _fl_server_config(tmp, name, threshold, **extra):
    """A small model saved under tmp, and a one-round server config (name: its files)."""
    w = {"w": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.zeros(2, np.float32)}
    init = os.path.join(tmp, f"{name}_init.ckpt")
    ms.save_checkpoint([{"name": k, "data": ms.Tensor(v)} for k, v in w.items()], init)
    return w, {"fl_iteration_num": 1, "http_server_address": "127.0.0.1:0",
               "checkpoint_dir": os.path.join(tmp, f"{name}_ckpt"), "feature_map": init,
               "round": {"start_fl_job_threshold": threshold}, **extra}


def federated(tmp):
    """Requests of each kind as a client sends them to a live server, and replies."""
    from mycel import _mycel as C
    from mycel.federated import FLServer, FederatedClient
    w, cfg = _fl_server_config(tmp, "fl", 1)
    with FLServer(cfg, log_to_stderr=False) as server:
        c = FederatedClient(server.address, client_id="seed", timeout=10)
        c.start_fl_job(data_size=4)
        put("federated", "start.bin", bytes(c._c.last_request))
        c.update_model(w, data_size=4)
        put("federated", "update.bin", bytes(c._c.last_request))
        c.get_model()
        put("federated", "get.bin", bytes(c._c.last_request))
    c = C._federated._Client("127.0.0.1", 9, "seed", 0.1)
    try:
        c.call("register")
    except RuntimeError:  # nothing listens on port 9: only the request's bytes are wanted
        pass
    put("federated", "register.bin", bytes(c.last_request))
    put("federated", "reply_model.bin", C._federated._encode_reply(0, "", 3, "", w))
    put("federated", "reply_refused.bin",
        C._federated._encode_reply(1, "stale iteration 1 (the round is 2)", 2, "", {}))


class _Recorder:
    """A client transport that keeps each request's bytes and reply, by kind."""

    def __init__(self, inner):
        self.inner, self.seen = inner, {}

    def call(self, kind, **kw):
        reply = self.inner.call(kind, **kw)
        self.seen.setdefault(kind, (bytes(self.inner.last_request), reply))
        return reply

    def __getattr__(self, name):
        return getattr(self.inner, name)


def secure_federated(tmp):
    """A secure-aggregation round (PW_ENCRYPT) of three clients: each kind of request one of
    them sent, and the replies with payloads (key list, sealed shares, client list)."""
    from mycel import _mycel as C
    from mycel.federated import FLServer, FederatedClient
    w, cfg = _fl_server_config(tmp, "pw", 3, encrypt={
        "encrypt_type": "PW_ENCRYPT", "pw_encrypt": {"reconstruct_secrets_threshold": 2}})
    with FLServer(cfg, log_to_stderr=False) as server:
        cs = [FederatedClient(server.address, client_id=f"pw{i}", timeout=10,
                              encrypt_type="PW_ENCRYPT") for i in range(3)]
        cs[0]._c = rec = _Recorder(cs[0]._c)
        for step in (lambda c: c.start_fl_job(4), lambda c: c.share_secrets(4),
                     lambda c: c.update_model(w, 4), lambda c: c.reconstruct_secrets()):
            for c in cs:
                step(c)
        cs[0].get_model()
    for kind, (request, reply) in rec.seen.items():
        if kind in ("exchangeKeys", "shareSecrets", "updateModel", "reconstructSecrets"):
            put("federated", f"pw_{kind}.bin", request)
        elif kind in ("getKeys", "getSecrets", "getClientList"):
            put("federated", f"pw_{kind}_reply.bin",
                C._federated._encode_reply(0, "", reply[2], "", reply[4]))


def videos(tmp):
    """Tiny videos (PyAV, the FFmpeg binding, which the video tests use too): MPEG-4 in AVI,
    with AAC in MP4, with 16-bit PCM in MOV."""
    import fractions
    import av
    for name, fmt, audio in (("mpeg4.avi", "avi", None), ("mpeg4_aac.mp4", "mp4", "aac"),
                             ("mpeg4_pcm.mov", "mov", "pcm_s16le")):
        path = os.path.join(tmp, name)
        with av.open(path, "w", format=fmt) as out:
            vs = out.add_stream("mpeg4", rate=10)
            vs.width, vs.height, vs.pix_fmt = 32, 24, "yuv420p"
            a = out.add_stream(audio, rate=16000) if audio else None
            for i in range(4):
                img = np.full((24, 32, 3), 40 * i, np.uint8)
                for pkt in vs.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                    out.mux(pkt)
            if a is not None:
                a.layout = "stereo"
                tone = np.sin(np.arange(6400) / 5)
                for k in range(0, 6400, 1024):
                    c = tone[k:k + 1024]
                    if audio == "aac":
                        arr, fmt_a = np.stack([c, c]).astype(np.float32) * 0.3, "fltp"
                    else:
                        arr, fmt_a = (np.stack([c, c]).T.reshape(1, -1) * 9000).astype(
                            np.int16), "s16"
                    f = av.AudioFrame.from_ndarray(arr, format=fmt_a, layout="stereo")
                    f.sample_rate, f.pts, f.time_base = 16000, k, fractions.Fraction(1, 16000)
                    for pkt in a.encode(f):
                        out.mux(pkt)
                for pkt in a.encode(None):
                    out.mux(pkt)
            for pkt in vs.encode(None):
                out.mux(pkt)
        put("video", name, read(path))


def cifar100():
    """CIFAR-100 binaries (src/data/cifar100.h): records of a coarse and a fine label byte and
    a 3x32x32 image; one valid file of two records, one truncated, one with a bad label."""
    rng = np.random.default_rng(0)
    recs = [bytes([c, f]) + rng.integers(0, 256, 3072, dtype=np.uint8).tobytes()
            for c, f in ((3, 17), (19, 99))]
    put("cifar100", "two_records.bin", b"".join(recs))
    put("cifar100", "truncated.bin", recs[0][:1000])
    put("cifar100", "bad_label.bin", bytes([20, 5]) + recs[0][2:])


def _tf_example_pb2(tmp):
    """The tf_example_pb2 module generated by protoc from src/data/tf_example.proto."""
    import importlib
    import subprocess
    subprocess.run(["protoc", "-I", os.path.join(HERE, "..", "src", "data"), "--python_out", tmp,
                    "tf_example.proto"], check=True, timeout=60)
    sys.path.insert(0, tmp)
    try:
        return importlib.import_module("tf_example_pb2")
    finally:
        sys.path.remove(tmp)


def _masked_crc32c(data):
    import crcmod.predefined
    c = crcmod.predefined.mkCrcFun("crc-32c")(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecords(tmp):
    """fuzz_tfrecord's inputs: an options byte (schema, compression, num_rows, select), then a
    TFRecord file of tf.train.Example records (fuzz/fuzz_tfrecord.cc)."""
    pb = _tf_example_pb2(tmp)

    def example(**features):
        ex = pb.Example()
        for name, v in features.items():
            f = ex.features.feature[name]
            if isinstance(v, bytes):
                f.bytes_list.value.append(v)
            elif isinstance(v, list) and v and isinstance(v[0], bytes):
                f.bytes_list.value.extend(v)
            elif isinstance(v, list) and v and isinstance(v[0], float):
                f.float_list.value.extend(v)
            else:
                f.int64_list.value.extend(v)
        return ex.SerializeToString()

    def frame(data):
        n = struct.pack("<Q", len(data))
        return (n + struct.pack("<I", _masked_crc32c(n)) + data +
                struct.pack("<I", _masked_crc32c(data)))

    rows = [example(label=[i], x=[0.5 * i, -1.0, 2.0, 3.5, 1e30, -0.0], image=bytes(range(16)),
                    s=[b"ab", "\u00e9".encode()]) for i in range(3)]
    records = b"".join(frame(r) for r in rows)
    for opts, name in [(0, "inferred"), (1, "image_label"), (2, "float_shapes"),
                       (3, "int_float64"), (4, "zero_shape"), (5, "str_bool"), (6, "missing"),
                       (7, "mismatch"), (8 | 1, "gzip"), (32 | 64 | 2, "select_first")]:
        put("tfrecord", name, bytes([opts]) + records)
    put("tfrecord", "empty_example", bytes([0]) + frame(b"") + frame(example(label=[])))
    put("tfrecord", "edge-zlib-garbage", bytes([16]) + zlib.compress(records)[:-7])
    put("tfrecord", "edge-huge-length", bytes([0]) + struct.pack("<Q", 1 << 62) +
        struct.pack("<I", _masked_crc32c(struct.pack("<Q", 1 << 62))) + b"\0" * 8)


DATA_SEP = b"\n==>\n"


def data_sources():
    """fuzz_data_sources' inputs: a reader byte (its place in fuzz_data_sources.cc's kReaders),
    an options byte, then the reader's files separated by DATA_SEP."""
    readers = ["csv", "text", "mnist", "cifar10", "voc", "coco", "manifest", "celeba", "lfw",
               "sun397", "squad", "clue", "conll", "parallel_text", "jieba"]

    def add(reader, opts, name, *files):
        put("data_sources", f"{reader}-{name}",
            bytes([readers.index(reader), opts]) + DATA_SEP.join(files))

    add("csv", 0, "strings", b'a,b,c\n1,"x,y",3\n"q""uote",,\r\n')
    add("csv", 1, "typed", b"a,b,c\n1,2.5,x\n-3,,\n2147483647,1e38,\"z\"\n")
    add("csv", 2 | 4 | 1, "tabs_named", b"1\t2\tx\n\t\t\n")
    add("text", 0, "lines", "one\r\ntwo\n\nthr\u00e9e".encode())
    images = struct.pack(">IIII", 2051, 2, 3, 2) + bytes(range(12))
    labels = struct.pack(">II", 2049, 2) + bytes([3, 9])
    add("mnist", 0, "plain", images, labels)
    add("mnist", 1, "gzip", images, labels)
    add("mnist", 0, "edge-huge-dims", struct.pack(">IIII", 2051, 1 << 20, 1 << 10, 1 << 10),
        labels)
    add("cifar10", 0, "two_records", bytes([1]) + bytes(3072) + bytes([9]) + bytes(range(256)) * 12)
    add("cifar10", 1, "all", bytes([1]) + bytes(3072), bytes([2]) + bytes(3072))
    voc_xml = (b"<annotation><filename>a.jpg</filename><size><width>10</width><height>8</height>"
               b"<depth>3</depth></size><object><name>dog</name><difficult>0</difficult>"
               b"<truncated>1</truncated><bndbox><xmin>1</xmin><ymin>2</ymin><xmax>5</xmax>"
               b"<ymax>7</ymax></bndbox></object><object><name>cat</name><bndbox><xmin>2.5</xmin>"
               b"<ymin>1</ymin><xmax>9</xmax><ymax>3</ymax></bndbox></object></annotation>")
    add("voc", 0, "detection", voc_xml, b"a\nb\n", voc_xml.replace(b"dog", b"person"))
    add("voc", 2 | 4, "indexing_meta", voc_xml, b"a\n", b"")
    add("voc", 1, "segmentation", b"", b"a\n")
    coco = {"images": [{"id": 1, "file_name": "a.jpg", "height": 8, "width": 10},
                       {"id": 2, "file_name": "b.jpg"}],
            "annotations": [{"id": 1, "image_id": 1, "category_id": 3, "iscrowd": 0,
                             "bbox": [1, 2, 3, 4], "area": 12,
                             "segmentation": [[1, 1, 4, 1, 4, 4]], "num_keypoints": 1,
                             "keypoints": [1, 2, 2] * 17, "caption": "a dog"},
                            {"id": 2, "image_id": 2, "category_id": 3, "iscrowd": 1,
                             "bbox": [0, 0, 1, 1], "area": 1,
                             "segmentation": {"counts": [1, 2, 3], "size": [2, 3]}}],
            "categories": [{"id": 3, "name": "dog", "isthing": 1}]}
    pan = dict(coco, annotations=[{"image_id": 1, "file_name": "a.png", "segments_info": [
        {"id": 5, "category_id": 3, "iscrowd": 0, "bbox": [1, 2, 3, 4], "area": 12}]}])
    import json
    for task, opts in [("detection", 0), ("stuff", 1), ("keypoint", 2), ("captioning", 4 | 8)]:
        add("coco", opts, task, json.dumps(coco).encode())
    add("coco", 3, "panoptic", json.dumps(pan).encode())
    add("manifest", 0, "train", b'{"source": "a.png", "usage": "TRAIN", "annotation": '
        b'[{"name": "dog"}, {"name": "cat"}]}\n{"source": "a.png", "usage": "eval", '
        b'"annotation": [{"name": "cat"}]}\n')
    add("manifest", 1 | 2, "eval_indexing", b'{"source": "a.png", "usage": "eval", '
        b'"annotation": [{"name": "cat"}]}\n')
    attrs = b"2\n5_o_Clock_Shadow Arched_Eyebrows\na.jpg -1 1\nb.png 1 1\n"
    add("celeba", 0, "all", attrs, b"a.jpg 0\nb.png 2\n")
    add("celeba", 1 | 4, "train_ext", attrs, b"a.jpg 0\nb.png 2\n")
    add("lfw", 0, "people", b"1\n2\nAaron\t1\nBob 2\n", b"Aaron\t1\nBob\t2\n")
    add("lfw", 1, "pairs", b"1\t2\nAaron\t1\t1\nAaron\t1\tBob\t1\n", b"Aaron\t1\n")
    add("sun397", 0, "classes", b"/a/abbey\n/b/bar/indoor\n")
    squad = {"data": [{"title": "t", "paragraphs": [{"context": "ctx", "qas": [
        {"id": "1", "question": "q?", "answers": [{"text": "c", "answer_start": 0}]},
        {"id": "2", "question": "none?", "answers": [], "is_impossible": True}]}]}]}
    add("squad", 0, "two", json.dumps(squad).encode())
    add("clue", 0, "lines", b'{"sentence": "s", "label": "1", "target": {"span1_index": 3}}\n'
        b'{"sentence": ["a", "b"], "label": 2.5, "target": {"span1_index": true}}\n')
    add("conll", 0, "spaces", b"Confidence NN B-NP\nin IN B-PP\n\nthe DT B-NP\n")
    add("conll", 1, "tabs", b"a\tb\tc\n\n\nd\te\tf\n")
    add("parallel_text", 0, "lines", b"ein\nzwei\n", b"one\ntwo\n")
    add("parallel_text", 1, "tags", b"<url>x</url>\nein\n", b"<url>y</url>\none\n")
    add("parallel_text", 2, "xml", b'<doc><seg id="1"> ein </seg><seg id="2">zwei</seg></doc>',
        b'<seg id="1">one</seg>\n<seg id="2">two</seg>')
    hmm = ("#start\n-0.26 -3.14e+100 -3.14e+100 -1.46\n#trans\n"
           "-3.14e+100 -0.51 -0.91 -3.14e+100\n-0.59 -3.14e+100 -3.14e+100 -0.81\n"
           "-3.14e+100 -0.33 -1.26 -3.14e+100\n-0.72 -3.14e+100 -3.14e+100 -0.67\n"
           "#emit\n\u4eca:-5.1,\u5929:-4.2,\u673a:-6.0\n\u5929:-3.9,\u6c14:-5.5\n"
           "\u5b66:-7.0\n\u597d:-4.4,x:-9.5\n").encode()
    words = "\u4eca\u5929 300 t\n\u5929\u6c14 200 n\n\u673a\u5668\u5b66\u4e60 50\n\u597d 80 a\n"
    for mode, opts in (("mix", 0), ("mp_offsets", 1 | 4), ("hmm", 2)):
        add("jieba", opts, mode, hmm, words.encode())


def sentencepiece(tmp):
    """fuzz_sentencepiece's inputs: model files (serialized ModelProto) trained by mycel."""
    from mycel.dataset import text
    path = os.path.join(tmp, "sp.txt")
    with open(path, "w") as f:
        for i in range(200):
            f.write(f"the quick brown fox {i} jumps over the lazy dog number {i % 7}\n")
    # A small normalization table of its own (A-Z to a-z, full-width digits to ASCII): the
    # model then carries a small precompiled character map (nmt_nfkc's is 240 KB) that still
    # reaches the library's parser of it.
    rules = os.path.join(tmp, "rules.tsv")
    with open(rules, "w") as f:
        for c in range(26):
            f.write(f"{0x41 + c:X}\t{0x61 + c:X}\n")
        for c in range(10):
            f.write(f"{0xFF10 + c:X}\t{0x30 + c:X}\n")
    for model_type, size, params in [
            (text.SentencePieceModel.UNIGRAM, 60, {"normalization_rule_tsv": rules}),
            (text.SentencePieceModel.BPE, 50, {"normalization_rule_name": "identity"}),
            (text.SentencePieceModel.CHAR, 30, {"normalization_rule_name": "identity"}),
            (text.SentencePieceModel.WORD, 30, {"normalization_rule_tsv": rules})]:
        vocab = text.SentencePieceVocab.from_file([path], size, 1.0, model_type, params)
        put("sentencepiece", model_type.name.lower() + ".model", bytes(vocab._proto))


def main(only=()):
    """Writes every target's corpus, or only those named on the command line."""
    def want(*names):
        return not only or any(n in only for n in names)

    if want("cifar100"):
        cifar100()
    if want("onnx"):
        onnx_models()
    graphs = None
    with tempfile.TemporaryDirectory() as tmp:
        if want("checkpoint"):
            checkpoints(tmp)
        if want("mindir", "ir_text"):
            graphs = mindirs(tmp)
        if want("mindrecord"):
            mindrecords(tmp)
        if want("lite_model"):
            lite_models(tmp)
        if want("federated"):
            federated(tmp)
            secure_federated(tmp)
        if want("video"):
            videos(tmp)
        if want("tfrecord"):
            tfrecords(tmp)
        if want("sentencepiece"):
            sentencepiece(tmp)
    if want("image"):
        images()
    if want("ir_text"):
        ir_texts(graphs)
    if want("data_sources"):
        data_sources()


if __name__ == "__main__":
    main(sys.argv[1:])

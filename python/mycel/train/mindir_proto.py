"""``load_mindir`` and ``save_mindir`` (MindSpore's pair): a MINDIR file as the protobuf
``ModelProto`` message itself, to read or edit (``mycel.train.mind_ir_pb2``, compiled by
protoc from src/serialize/mind_ir.proto at build time; docs/mindir-format.md describes the
fields), and back to a file that ``mycel.load`` runs.

mycel's files end with the checksum field (``mycel_crc32``, field 1001: the CRC-32 of every
byte before it). ``load_mindir`` checks it when the file has one (a file another producer
wrote has none and is parsed as it is); ``save_mindir`` writes the message without it and
appends a fresh one, so an edited model loads with ``mycel.load`` (which then checks the
graphs, the ops and the weights' sizes as for any file). Encrypted files (export's enc_key)
are not read: decrypt them with ``mycel.load``.
"""
import os
import struct
import tempfile
import warnings
import zlib

__all__ = ["load_mindir", "save_mindir"]

_SUFFIX = ".mindir"
_CRC_TAG = b"\xcd\x3e"  # field 1001, wire type fixed32, as a varint
_ENC_MAGIC = b"MYCEL-ENCRYPTED-MINDIR\x00"


def _model_proto():
    from mycel.train import mind_ir_pb2  # pylint: disable=import-outside-toplevel
    return mind_ir_pb2.ModelProto


def load_mindir(file_name):
    """The ModelProto of the MINDIR file file_name (module docstring). A ValueError when the
    file does not exist, does not end with '.mindir', is encrypted, fails its checksum or is
    not a ModelProto."""
    from mycel.train.export import _read_model_file  # pylint: disable=import-outside-toplevel
    if not isinstance(file_name, str):
        raise TypeError(f"For 'load_mindir', file_name must be a str, but got "
                        f"{type(file_name).__name__}.")
    if not file_name.endswith(_SUFFIX):
        raise ValueError(f"For 'load_mindir', file_name must end with '{_SUFFIX}', but got "
                         f"'{file_name}'.")
    data = _read_model_file(file_name, "load_mindir")
    if data.startswith(_ENC_MAGIC):
        raise ValueError(f"For 'load_mindir', the file '{file_name}' is encrypted: "
                         f"load_mindir reads plain files only (mycel.load decrypts).")
    model = _model_proto()()
    try:
        # protobuf stops at a stray end-group tag with only a RuntimeWarning ("Not all data
        # was converted") and returns the bytes it read: a file cut there loaded as a prefix
        # of the model, its checksum field unread (found by test_fuzz_python_readers.py).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            used = model.ParseFromString(data)
    except Exception as e:  # protobuf's DecodeError
        raise ValueError(f"For 'load_mindir', the file '{file_name}' is not a MINDIR "
                         f"ModelProto: {e}.") from None
    if used != len(data):
        raise ValueError(f"For 'load_mindir', the file '{file_name}' is not a MINDIR "
                         f"ModelProto: parsing stopped at a stray end-group tag after {used} of "
                         f"{len(data)} bytes.")
    if model.HasField("mycel_crc32"):
        if len(data) < 6 or data[-6:-4] != _CRC_TAG or \
                struct.unpack("<I", data[-4:])[0] != zlib.crc32(data[:-6]):
            raise ValueError(f"For 'load_mindir', the file '{file_name}' fails its checksum: "
                             f"it is truncated or corrupted.")
    return model


def save_mindir(model, file_name):
    """Writes the ModelProto model to file_name ('.mindir' added when missing) with a fresh
    checksum, through a temporary file renamed into place."""
    proto = _model_proto()
    if not isinstance(model, proto):
        raise TypeError(f"For 'save_mindir', the model must be a ModelProto (load_mindir's), "
                        f"but got {type(model).__name__}.")
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"For 'save_mindir', file_name must be a non-empty str, but got "
                        f"{file_name!r}.")
    if not file_name.endswith(_SUFFIX):
        file_name += _SUFFIX
    out = proto()
    out.CopyFrom(model)
    out.ClearField("mycel_crc32")
    body = out.SerializeToString()
    data = body + _CRC_TAG + struct.pack("<I", zlib.crc32(body))
    folder = os.path.dirname(os.path.abspath(file_name))
    if not os.path.isdir(folder):
        raise ValueError(f"For 'save_mindir', the folder of '{file_name}' does not exist.")
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".save_mindir.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, file_name)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise

"""export and load: a network's compiled inference graph in one MINDIR file, as MindSpore 2.x's
``mindspore.export(net, *inputs, file_name, file_format='MINDIR')`` and ``mindspore.load``.

``export`` compiles the network (a Cell, in inference mode, or a function) for the example
inputs' dtypes and shapes exactly as GRAPH mode does, and writes the optimised graph with its
weights: a protobuf ModelProto after MindSpore's mind_ir.proto, ending with a CRC-32
(docs/mindir-format.md). ``load`` reads it back, checks it (checksum, ops, attributes,
references, shapes) and returns a graph that ``nn.GraphCell`` runs without the network's
Python source. The file is written to a temporary name and renamed, so a crash mid-write
never leaves a partial file.
"""
import os
import stat

from mycel import _mycel as _C
from mycel.common.api import _JitFunction
from mycel.nn import cell as _cell
from mycel.version import __version__

_SUFFIX = ".mindir"


def _graph_function(net):
    """The Python callable the compiler specialises for `net`."""
    if isinstance(net, _cell.Cell):
        return type(net).construct.__get__(net)
    if isinstance(net, _JitFunction):
        fn = net._mycel_fn
        return fn if net._instance is None else fn.__get__(net._instance)
    if callable(net):
        return net
    raise TypeError(f"For 'export', net must be a Cell or a function, but got "
                    f"{type(net).__name__}.")


_ENC_MAGIC = b"MYCEL-ENCRYPTED-MINDIR\x00"


def _encryption(func, key_name, key, mode_name, mode):
    """None (no key), or (key, mode): mode a cipher's name (checked with its key length) or a
    callable (the user's own cipher, called with the bytes and the key)."""
    if key is None:
        return None
    if callable(mode):
        if not isinstance(key, (bytes, bytearray)):
            raise TypeError(f"For '{func}', '{key_name}' must be bytes, but got "
                            f"{type(key).__name__}.")
        return bytes(key), mode
    from mycel.train import _ckpt_crypto
    return _ckpt_crypto.check(func, key_name, key, mode_name, mode), mode


def export(net, *inputs, file_name, file_format="MINDIR", enc_key=None, enc_mode="AES-GCM",
           **kwargs):
    """Exports `net` (a Cell or a function) compiled for the example `inputs` (Tensors: their
    dtypes and shapes are what the file accepts) to ``file_name + '.mindir'`` (the suffix is
    added when missing). A Cell is compiled in inference mode (``set_train(False)``, as
    MindSpore does) and its training flags are restored afterwards. The file holds the graph
    and the current values of the Parameters it reads.

    With ``enc_key`` (bytes) the file is encrypted: ``enc_mode`` "AES-GCM" (the default),
    "AES-CBC" or "SM4-CBC" (train/_ckpt_crypto.py's ciphers and layout, with the file's own
    magic; ``load(..., dec_key=enc_key, dec_mode=enc_mode)`` reads it), or a function
    ``enc_mode(data, enc_key) -> bytes`` (the user's cipher; load takes its inverse as
    dec_mode).

    Raises ValueError for another file_format or unsupported options, and when the network
    cannot be exported (a Python fallback, print: the message names the source line);
    TypeError when an input is not a Tensor."""
    if file_format != "MINDIR":
        raise ValueError(f"For 'export', file_format must be 'MINDIR' (mycel writes no AIR or "
                         f"ONNX), but got {file_format!r}.")
    if not isinstance(file_name, str) or not file_name:
        raise TypeError(f"For 'export', file_name must be a non-empty str, but got "
                        f"{file_name!r}.")
    if kwargs:
        raise ValueError(f"For 'export', the options {sorted(kwargs)} are not supported.")
    enc = _encryption("export", "enc_key", enc_key, "enc_mode", enc_mode)
    fn = _graph_function(net)
    flags = []
    if isinstance(net, _cell.Cell):
        flags = [(c, c.training) for _, c in net.cells_and_names()]
        net.set_train(False)
    try:
        data = _C._export_mindir(fn, inputs, __version__)
    finally:
        for c, training in flags:
            object.__setattr__(c, "training", training)
        _cell._TRAIN_VERSION[0] += 1
    if enc is not None:
        data = _encrypt(data, *enc)
    path = os.path.realpath(file_name if file_name.endswith(_SUFFIX) else file_name + _SUFFIX)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _encrypt(data, key, mode):
    if callable(mode):
        out = mode(bytes(data), key)
        if not isinstance(out, (bytes, bytearray)):
            raise TypeError(f"For 'export', the enc_mode function must return bytes, but got "
                            f"{type(out).__name__}.")
        return bytes(out)
    from mycel.train import _ckpt_crypto
    return _ckpt_crypto.encrypt(data, key, mode, magic=_ENC_MAGIC)


def _decrypt(data, key, mode, file_name):
    if callable(mode):
        out = mode(bytes(data), key)
        if not isinstance(out, (bytes, bytearray)):
            raise TypeError(f"For 'load', the dec_mode function must return bytes, but got "
                            f"{type(out).__name__}.")
        return bytes(out)
    from mycel.train import _ckpt_crypto
    return _ckpt_crypto.decrypt(data, key, mode, "load", f"the file '{file_name}'",
                                magic=_ENC_MAGIC)


def load(file_name, dec_key=None, dec_mode="AES-GCM", **kwargs):
    """Loads a MINDIR file that ``mycel.export`` wrote, or a mycel lite ``.ms`` file (from the
    converter or ``mycel.lite.Model.export`` after on-device training), and returns its graph
    (a ``MindIRGraph``), to run with ``nn.GraphCell(graph)``. A ``.ms`` file's weights are
    the graph's weights under their tensor names. An encrypted file (export's enc_key) needs
    ``dec_key`` and ``dec_mode`` as it was written with; without them it is a ValueError.

    Raises ValueError when the file does not exist or does not end with '.mindir', and when
    it is truncated, corrupted, or holds an unknown op, attribute or reference, or shapes
    that do not check (the message names the file and the node)."""
    if not isinstance(file_name, str):
        raise TypeError(f"For 'load', file_name must be a str, but got "
                        f"{type(file_name).__name__}.")
    if kwargs:
        raise ValueError(f"For 'load', the options {sorted(kwargs)} are not supported.")
    lite = file_name.endswith(".ms")
    if not file_name.endswith(_SUFFIX) and not lite:
        raise ValueError(f"For 'load', file_name must end with '{_SUFFIX}' (or '.ms'), but got "
                         f"'{file_name}'.")
    dec = None if lite else _encryption("load", "dec_key", dec_key, "dec_mode", dec_mode)
    data = _read_model_file(file_name, "load")
    if dec is not None:
        data = _decrypt(data, *dec, file_name)
    elif data.startswith(_ENC_MAGIC):
        raise ValueError(f"For 'load', the file '{file_name}' is encrypted: give the dec_key "
                         f"and dec_mode it was exported with.")
    return (_C._load_lite if lite else _C._load_mindir)(data, file_name)


def _read_model_file(file_name, api):
    """The bytes of the regular file `file_name` (ValueError naming `api` when it does not
    exist or is a directory, FIFO or device)."""
    if not os.path.exists(file_name):
        raise ValueError(f"For '{api}', the file '{file_name}' does not exist.")
    # O_NONBLOCK: open() of a FIFO would block until a writer came; the type is checked on
    # the opened descriptor, so nothing can be swapped in between.
    fd = os.open(file_name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(f"For '{api}', '{file_name}' is not a regular file (a directory, a "
                         "FIFO or a device); only regular files can be read.")
    with os.fdopen(fd, "rb") as f:
        return f.read()

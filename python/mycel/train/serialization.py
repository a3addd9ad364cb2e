"""Checkpoints: save_checkpoint, load_checkpoint and load_param_into_net, as MindSpore 2.x.

A checkpoint file is a protobuf ``Checkpoint`` message laid out as MindSpore's
checkpoint.proto (one ``Value`` per tensor: its name and a ``TensorProto`` with the dims, the
type name and the raw little-endian bytes), so either framework reads the other's files. The
pieces are encoded in C++ by protobuf's classes generated from src/serialize/checkpoint.proto
and streamed here; the reader is C++ too (src/serialize/checkpoint.cc). mycel adds two fields that a
protobuf reader skips as unknown: a header first, and a footer last holding the entry count
and a CRC32 of everything before it, so that a truncated or corrupted mycel file is always
rejected. Writing goes to a temporary file that is renamed into place: a crash mid-write
leaves the previous checkpoint intact. docs/checkpoint-format.md describes the format.
"""
import os
import threading
import zlib

import numpy as np

from mycel import _mycel as _C
from mycel.common.dtype import dtype_to_nptype
from mycel.train import _ckpt_crypto, _safetensors
from mycel.common.parameter import Parameter
from mycel.nn.cell import Cell

Tensor = _C.Tensor


# tensor_type -> (numpy dtype of the bytes on the wire, mycel dtype).
_TYPES = {
    "Bool": ("u1", _C.bool), "Int8": ("i1", _C.int8), "UInt8": ("u1", _C.uint8),
    "Int16": ("<i2", _C.int16), "Int32": ("<i4", _C.int32), "Int64": ("<i8", _C.int64),
    "Float16": ("<f2", _C.float16), "BFloat16": ("<u2", _C.bfloat16),
    "Float32": ("<f4", _C.float32), "Float64": ("<f8", _C.float64),
    "UInt16": ("<u2", _C.uint16), "UInt32": ("<u4", _C.uint32), "UInt64": ("<u8", _C.uint64),
    "Complex64": ("<c8", _C.complex64), "Complex128": ("<c16", _C.complex128),
}
_FLOATS = ("Float16", "BFloat16", "Float32", "Float64")
_INTS = ("Int8", "Int16", "Int32", "Int64")  # the casts non-strict loading makes, as MindSpore

_LOCK = threading.RLock()
_PENDING = {}  # path -> _AsyncSave: the running (or finished, unreported) asynchronous save
_PENDING_LOCK = threading.Lock()  # guards _PENDING


# ---- writing --------------------------------------------------------------------------------

def _encode(name, data, copy):
    """(name, tensor_type, dims, content) of a Tensor or str: content is a flat uint8 array of
    little-endian, C-order bytes (a copy when `copy`, else possibly sharing the tensor's)."""
    if isinstance(data, str):  # as MindSpore: numpy's UTF-32 string bytes, dims [0]
        return name, "str", [0], np.frombuffer(data.encode("utf-32-le") or bytes(4), np.uint8)
    kind = str(data.dtype)
    arr = np.ascontiguousarray(data.asnumpy())
    if kind == "BFloat16":  # asnumpy widens to float32, whose top 16 bits are the bfloat16
        arr = (arr.view("<u4") >> 16).astype("<u2")
    else:
        arr = arr.astype(_TYPES[kind][0], copy=False)
    content = arr.reshape(-1).view(np.uint8)
    return name, kind, list(data.shape), content.copy() if copy else content


def _write_file(path, entries, enc=None, fmt="ckpt"):
    """Writes the encoded entries to a temporary file beside path, fsyncs it and renames it
    over path; on any exception the temporary is removed and path is left as it was. `enc`:
    (key, mode) to encrypt the file (_ckpt_crypto), assembled in memory first. fmt
    "safetensors" writes that format instead (train/_safetensors.py; never encrypted)."""
    tmp = f"{path}.tmp.{os.getpid()}"
    with _LOCK:
        try:
            with open(tmp, "wb") as f:
                if fmt == "safetensors":
                    for piece in _safetensors.pieces(entries):
                        f.write(piece)
                else:
                    _write_ckpt(f, entries, enc)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
    _fsync_dir(os.path.dirname(path))


def _write_ckpt(f, entries, enc):
    """The checkpoint format's bytes into the open file f: the pieces, then the footer with
    their CRC32 (the whole encrypted when enc)."""
    crc = 0
    out = bytearray() if enc else f
    for piece in _pieces(entries):
        if enc:
            out += memoryview(piece).cast("B")  # the buffer, not element-wise
        else:
            f.write(piece)
        crc = zlib.crc32(piece, crc)
    footer = _C._checkpoint_footer(len(entries), crc)
    if enc:
        f.write(_ckpt_crypto.encrypt(out + footer, *enc))
    else:
        f.write(footer)


def _pieces(entries):
    """The file's pieces before the footer, encoded by protobuf's classes (C++,
    serialize/checkpoint.h): the header, then per entry its frame and its content."""
    yield _C._checkpoint_header()
    for name, kind, dims, content in entries:
        yield _C._checkpoint_value_frame(name, kind, dims, content.nbytes)
        yield content  # streamed as it is: the frame's last field holds it


def _fsync_dir(directory):
    """Makes the rename durable (POSIX; a no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class _AsyncSave:
    """One asynchronous save: its writer thread and the exception it ended with."""

    def __init__(self, path, entries, enc=None, fmt="ckpt"):
        self.error = None
        self.thread = threading.Thread(target=self._run, args=(path, entries, enc, fmt),
                                       name="mycel_async_save_ckpt", daemon=False)

    def _run(self, path, entries, enc, fmt):
        try:
            _write_file(path, entries, enc, fmt)
        except BaseException as e:  # reported by the next save or load of this file
            self.error = e


def _async_write(path, entries, func, enc=None, fmt="ckpt"):
    """Starts a writer thread for path once no other save of it is running. The thread is
    started before it is published in _PENDING (a published writer can always be joined),
    and waiting for the previous writer and publishing the new one are one step under
    _PENDING_LOCK, so concurrent saves of one file never lose track of a writer."""
    while True:
        _wait_pending(path, func)
        with _PENDING_LOCK:
            if path in _PENDING:  # another thread published a writer meanwhile
                continue
            job = _AsyncSave(path, entries, enc, fmt)
            job.thread.start()
            _PENDING[path] = job
            return


def _wait_pending(path, func):
    """Waits for the asynchronous save of path, if one is running (every thread that saves
    or loads the file waits for it); the first to see it finished reports its failure as a
    RuntimeError."""
    with _PENDING_LOCK:
        job = _PENDING.get(path)
    if job is None:
        return
    job.thread.join()
    with _PENDING_LOCK:
        if _PENDING.get(path) is not job:
            return  # another waiter took it (and reported its error)
        del _PENDING[path]
    if job.error is not None:
        raise RuntimeError(f"For '{func}', the earlier asynchronous save of {path} failed: "
                           f"{type(job.error).__name__}: {job.error}") from job.error


def _path_arg(func, name):
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str):
        raise TypeError(f"For '{func}', the checkpoint file name must be a str, but got "
                        f"{type(name).__name__}.")
    return os.path.abspath(name)


def _check_bool(func, arg, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{func}', '{arg}' must be a bool, but got {type(value).__name__}.")


def _check_callable(func, value):
    if value is not None and not callable(value):
        raise TypeError(f"For '{func}', 'choice_func' must be callable or None, but got "
                        f"{type(value).__name__}.")


def _save_items(save_obj):
    """(name, Tensor or str) pairs of a Cell, a list or a dict, as MindSpore takes them."""
    if isinstance(save_obj, Cell):
        return [(p.name, p) for _, p in save_obj.parameters_and_names()]
    if isinstance(save_obj, dict):
        items = list(save_obj.items())
        what = "save_obj[{!r}]"
    elif isinstance(save_obj, list):
        items = []
        for i, x in enumerate(save_obj):
            if isinstance(x, Parameter):
                items.append((x.name, x))
            elif isinstance(x, dict) and set(x) == {"name", "data"}:
                items.append((x["name"], x["data"]))
            else:
                got = f"a dict with keys {sorted(map(str, x))}" if isinstance(x, dict) else \
                    type(x).__name__
                raise TypeError(f"For 'save_checkpoint', save_obj[{i}] must be a Parameter or a "
                                f"dict {{'name': str, 'data': Tensor}}, but got {got}.")
        what = "the entry named {!r}"
    else:
        raise TypeError(f"For 'save_checkpoint', save_obj must be a Cell, a list or a dict, but "
                        f"got {type(save_obj).__name__}.")
    for name, data in items:
        if not isinstance(name, str):
            raise TypeError(f"For 'save_checkpoint', parameter names must be str, but got "
                            f"{type(name).__name__} ({name!r}).")
        if not isinstance(data, (Tensor, str)):
            raise TypeError(f"For 'save_checkpoint', {what.format(name)} must be a Parameter or "
                            f"Tensor, but got {type(data).__name__}.")
    return items


def _append_items(append_dict):
    """(name, Tensor or str) pairs of append_dict: numbers become 0-d tensors, as MindSpore's
    Tensor(value) would make them (bool -> Bool, int -> Int64, float -> Float32)."""
    if append_dict is None:
        return []
    if not isinstance(append_dict, dict):
        raise TypeError(f"For 'save_checkpoint', 'append_dict' must be a dict, but got "
                        f"{type(append_dict).__name__}.")
    items = []
    for name, value in append_dict.items():
        if not isinstance(name, str):
            raise TypeError(f"For 'save_checkpoint', the keys of 'append_dict' must be str, but "
                            f"got {type(name).__name__} ({name!r}).")
        if isinstance(value, bool):
            value = Tensor(value, _C.bool)
        elif isinstance(value, int):
            if not -2**63 <= value < 2**63:
                raise ValueError(f"For 'save_checkpoint', append_dict[{name!r}] = {value} does "
                                 f"not fit in an Int64.")
            value = Tensor(value, _C.int64)
        elif isinstance(value, float):
            value = Tensor(value, _C.float32)
        elif not isinstance(value, (Tensor, str)):
            raise TypeError(f"For 'save_checkpoint', append_dict[{name!r}] must be an int, float, "
                            f"bool, str, Parameter or Tensor, but got {type(value).__name__}.")
        items.append((name, value))
    return items


def save_checkpoint(save_obj, ckpt_file_name, integrated_save=True, async_save=False,
                    append_dict=None, enc_key=None, enc_mode="AES-GCM", choice_func=None,
                    **kwargs):
    """Saves parameters to a checkpoint file (MindSpore's format; ".ckpt" is appended when
    the name lacks it; an existing file is replaced atomically).

    Args:
        save_obj (Union[Cell, list, dict]): a Cell (its parameters, keyed by Parameter.name,
            in parameters_and_names() order); a list of Parameters (e.g. trainable_params())
            or of dicts ``{"name": str, "data": Tensor}``; or a dict name -> Parameter/Tensor
            (e.g. what load_checkpoint returns; str values are kept as strings).
        ckpt_file_name (str): the file to write.
        integrated_save (bool): in data parallelism (mycel.parallel), where every rank holds
            the same parameters, True has rank 0 alone write the file (the other ranks
            return without writing); in semi_auto_parallel, True gathers each sliced
            parameter whole from all the ranks (every rank must call save_checkpoint) and
            rank 0 writes them. False has every rank write the file it names with what it
            holds, its slices (give each rank its own; mycel.load_distributed_checkpoint and
            transform_checkpoints read them). In pipeline parallelism a rank saves only its
            stage's parameters (the others' copies are stale), with integrated_save=False
            and a file name per rank (True is a ValueError). Outside a job it only has to be
            a bool. Default: True.
        async_save (bool): write the file in a background thread (the data is copied first,
            so training may go on). The next save or load of the same file waits for it and
            raises RuntimeError if it failed. Default: False.
        append_dict (dict): extra entries name -> int, float, bool, str, Tensor; numbers are
            saved as 0-d tensors (Int64, Float32, Bool). Not filtered by choice_func.
        enc_key (bytes): encrypts the file with this key (16, 24 or 32 bytes; SM4-CBC: 16);
            load it with dec_key. None: not encrypted. Default: None.
        enc_mode (str): "AES-GCM" (authenticated), "AES-CBC" or "SM4-CBC", used with
            enc_key (mycel/train/_ckpt_crypto.py: the ``cryptography`` package's ciphers, the
            file layout). Default: "AES-GCM".
        choice_func (callable): choice_func(name) -> bool keeps the parameters for which it
            returns True.
        kwargs: ``format``: "ckpt" (default) or "safetensors" (the safetensors layout,
            train/_safetensors.py; the name gets that suffix; not with enc_key), and
            ``crc_check`` (a bool: mycel always writes the CRC32 footer of a ckpt file, so
            True and False write the same file); other keywords raise TypeError.

    Raises:
        TypeError: a wrong argument type, or an entry that is not a Tensor.
        ValueError: a name saved twice, an unknown format, an unknown enc_mode or a key
            length it does not take.
    """
    func = "save_checkpoint"
    path = _path_arg(func, ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"For '{func}', the checkpoint file name {path} is a directory.")
    fmt = kwargs.pop("format", "ckpt")
    if fmt not in ("ckpt", "safetensors"):
        raise ValueError(f"For '{func}', format must be 'ckpt' or 'safetensors', but got "
                         f"{fmt!r}.")
    suffix = "." + fmt
    if not path.endswith(suffix):
        path += suffix
    _check_bool(func, "integrated_save", integrated_save)
    _check_bool(func, "async_save", async_save)
    _check_callable(func, choice_func)
    if not isinstance(enc_mode, str):
        raise TypeError(f"For '{func}', 'enc_mode' must be a str, but got "
                        f"{type(enc_mode).__name__}.")
    enc = None if enc_key is None else (
        _ckpt_crypto.check(func, "enc_key", enc_key, "enc_mode", enc_mode), enc_mode)
    _check_bool(func, "crc_check", kwargs.pop("crc_check", False))  # the CRC is always written
    if kwargs:
        raise TypeError(f"For '{func}', unexpected keyword argument(s) {sorted(kwargs)}.")
    if enc is not None and fmt == "safetensors":
        raise ValueError(f"For '{func}', a safetensors file cannot be encrypted: pass "
                         f"enc_key only with format='ckpt'.")
    from mycel.parallel import context as pctx, _slices
    if integrated_save and pctx.is_data_parallel() and \
            pctx.get_auto_parallel_context("global_rank") != 0:
        return  # rank 0 writes the parameters every rank holds
    items = [(n, d) for n, d in _save_items(save_obj)
             if choice_func is None or _choose(choice_func, n, func)]
    if any(getattr(d, "_pipeline_other_stage", None) is not None for _, d in items):
        # Pipeline parallelism: a rank holds stale copies of the other stages' parameters.
        if integrated_save:
            raise ValueError(f"For '{func}', in pipeline parallelism each stage holds only "
                             "its own parameters: save with integrated_save=False and a file "
                             "name per rank (each file gets its stage's parameters).")
        items = [(n, d) for n, d in items
                 if getattr(d, "_pipeline_other_stage", None) is None]
    if integrated_save and _slices._semi_auto_job():
        # Sliced parameters gathered whole (every rank calls this); rank 0 writes them.
        items = _slices._integrated(items)
        if pctx.get_auto_parallel_context("global_rank") != 0:
            return
    items += _append_items(append_dict)
    seen = set()
    for name, _ in items:
        if name in seen:
            raise ValueError(f"For '{func}', the name {name!r} occurs more than once: a "
                             f"checkpoint holds one value per name.")
        seen.add(name)
    entries = [_encode(name, data, async_save) for name, data in items]
    _wait_pending(path, func)
    if async_save:
        _async_write(path, entries, func, enc, fmt)
    else:
        _write_file(path, entries, enc, fmt)


# ---- reading --------------------------------------------------------------------------------
# The reader is C++ (src/serialize/checkpoint.cc, _C._load_checkpoint): it parses and checks
# the whole file (header, footer, CRC32, every entry's fields, dtype and size) before it
# returns anything, and refuses a directory, a FIFO or a device without blocking.

def _check_prefix(arg, prefix):
    if prefix is None:
        return ()
    if isinstance(prefix, str):
        prefix = (prefix,)
    if not isinstance(prefix, (list, tuple)) or not prefix:
        raise TypeError(f"For 'load_checkpoint', '{arg}' must be a str or a non-empty list/tuple "
                        f"of str, but got {prefix!r:.80}.")
    for p in prefix:
        if not isinstance(p, str):
            raise TypeError(f"For 'load_checkpoint', the items of '{arg}' must be str, but got "
                            f"{type(p).__name__}.")
        if not p:
            raise ValueError(f"For 'load_checkpoint', '{arg}' must not contain ''.")
    return tuple(prefix)


def load_checkpoint(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                    dec_key=None, dec_mode="AES-GCM", specify_prefix=None, choice_func=None,
                    crc_check=False, remove_redundancy=False, format="ckpt"):  # noqa: A002
    """Loads a checkpoint file: returns a dict name -> Parameter (the saved name, dtype, shape
    and data; strings saved through append_dict come back as str), and with `net` also loads
    it into the network (load_param_into_net).

    Args:
        ckpt_file_name (str): the file, ending in ".ckpt".
        net (Cell): a network to load the parameters into. Default: None.
        strict_load (bool): passed to load_param_into_net. Default: False.
        filter_prefix (Union[str, list, tuple]): names starting with one of these are skipped.
        dec_key (bytes): the key an encrypted file was saved with (save_checkpoint's
            enc_key); None: the file is not encrypted. Default: None.
        dec_mode (str): its enc_mode ("AES-GCM", "AES-CBC", "SM4-CBC"). Default: "AES-GCM".
        specify_prefix (Union[str, list, tuple]): only names starting with one of these are
            loaded.
        choice_func (callable): choice_func(name) -> bool keeps the names for which it returns
            True (applied together with the prefixes).
        crc_check (bool): MindSpore's switch for checking the file's CRC. mycel checks its CRC32
            footer on every load, so False does not turn the check off. Default: False.
        remove_redundancy (bool): MindSpore's switch for checkpoints saved without the
            copies data parallelism makes; mycel's files hold every parameter, so both
            values load the same. Default: False.
        format (str): "ckpt" (the file ends in ".ckpt") or "safetensors" (".safetensors";
            train/_safetensors.py, which checks the header and every entry's span before it
            returns anything). Default: "ckpt".

    Raises:
        TypeError: a wrong argument type.
        ValueError: the file is missing, is a directory, a FIFO or a device (refused without
            blocking), does not end in ".ckpt", is truncated or corrupted
            (a bad footer or CRC, a truncated field, an unknown tensor_type, content whose
            size does not match its dims), or nothing is left to load after the filters; an
            encrypted file without dec_key, a file not encrypted with one, another mode
            than it was saved with, a wrong key or an altered encrypted file.
    """
    func = "load_checkpoint"
    _check_bool(func, "crc_check", crc_check)
    _check_bool(func, "remove_redundancy", remove_redundancy)
    if format not in ("ckpt", "safetensors"):
        raise ValueError(f"For '{func}', format must be 'ckpt' or 'safetensors', but got "
                         f"{format!r}.")
    path = _path_arg(func, ckpt_file_name)
    if not path.endswith("." + format):
        raise ValueError(f"For '{func}', the checkpoint file name must end with '.{format}', "
                         f"but got {ckpt_file_name!r}.")
    _check_bool(func, "strict_load", strict_load)
    specify_prefix = _check_prefix("specify_prefix", specify_prefix)
    filter_prefix = _check_prefix("filter_prefix", filter_prefix)
    _check_callable(func, choice_func)
    if not isinstance(dec_mode, str):
        raise TypeError(f"For '{func}', 'dec_mode' must be a str, but got "
                        f"{type(dec_mode).__name__}.")
    if dec_key is not None:
        dec_key = _ckpt_crypto.check(func, "dec_key", dec_key, "dec_mode", dec_mode)
    if net is not None and not isinstance(net, Cell):
        raise TypeError(f"For '{func}', 'net' must be a Cell or None, but got "
                        f"{type(net).__name__}.")
    _wait_pending(path, func)
    if format == "safetensors":
        if dec_key is not None:
            raise ValueError(f"For '{func}', a safetensors file is not encrypted: dec_key "
                             f"goes only with format='ckpt'.")
        if not os.path.isfile(path):
            raise ValueError(f"For '{func}', the checkpoint file {path} does not exist or is "
                             f"not a regular file.")
        pairs = _safetensors.read(path, func)
    elif dec_key is not None:
        pairs = _C._parse_checkpoint(_ckpt_crypto.decrypt_file(path, dec_key, dec_mode, func),
                                     func, path)
    elif _ckpt_crypto.is_encrypted(path):
        raise ValueError(f"For '{func}', the checkpoint file {path} is encrypted: pass its key "
                         f"as dec_key (and its enc_mode as dec_mode).")
    else:
        pairs = _C._load_checkpoint(path, func)
    result = {}
    for tag, value in pairs:
        if specify_prefix and not tag.startswith(specify_prefix):
            continue
        if filter_prefix and tag.startswith(filter_prefix):
            continue
        if choice_func is not None and not _choose(choice_func, tag, func):
            continue
        result[tag] = value if isinstance(value, str) else Parameter(value, name=tag)
    if not result:
        raise ValueError(f"For '{func}', nothing was loaded from {path}: it has no entries, or "
                         f"filter_prefix/specify_prefix/choice_func removed them all.")
    if net is not None:
        load_param_into_net(net, result, strict_load)
    return result


def _choose(choice_func, tag, func):
    """choice_func(tag) as a bool; its own error is a ValueError naming the checkpoint entry
    (MindSpore's load_checkpoint raises ValueError for a failing choice_func)."""
    try:
        return bool(choice_func(tag))
    except Exception as e:  # noqa: BLE001 (any error of the user's function)
        raise ValueError(f"For '{func}', choice_func failed on the entry {tag!r}: "
                         f"{type(e).__name__}: {e}") from e


# ---- loading into a network -----------------------------------------------------------------

def _prefixed_matches(missing, parameter_dict):
    """MindSpore's non-strict fallback: a net parameter missing from the dict loads from
    prefix + its name, the prefix coming from a dict name that ends in a missing name (a
    checkpoint of a wrapper, "network.fc.weight", loads into the bare "fc.weight"). mycel
    takes only whole dotted prefixes, so "10.weight" never loads into "0.weight"."""
    matched, tried = {}, set()
    while True:
        prefix = next((k[:-len(n)] for n in missing if n not in matched
                       for k in parameter_dict
                       if k.endswith("." + n) and k[:-len(n)] not in tried), None)
        if prefix is None:
            return matched
        tried.add(prefix)
        for n in missing:
            if n not in matched and prefix + n in parameter_dict:
                matched[n] = prefix + n


def _checked_data(param, key, new, strict_load):
    """new's data ready for param (a copy, cast as MindSpore casts), or RuntimeError."""
    func = "load_param_into_net"
    if not isinstance(new, Parameter):
        raise TypeError(f"For '{func}', parameter_dict[{key!r}] must be a Parameter to load "
                        f"into '{param.name}', but got {type(new).__name__}.")
    if tuple(new.shape) != tuple(param.shape):
        # A parameter holding its slice (semi_auto_parallel, or the optimizer shard) loads
        # this rank's block of a whole value.
        from mycel.parallel._slices import _own_block
        block = _own_block(param, new.asnumpy())
        if block is not None:
            return _checked_data(param, key, Parameter(Tensor(np.ascontiguousarray(block),
                                                              new.dtype), name=new.name),
                                 strict_load)
        raise RuntimeError(f"For '{func}', the shape of '{param.name}' in the net is "
                           f"{tuple(param.shape)}, but parameter_dict[{key!r}] has shape "
                           f"{tuple(new.shape)}.")
    if new.dtype == param.dtype:
        return new.copy()
    kinds = {str(new.dtype), str(param.dtype)}
    if not strict_load and (kinds <= set(_FLOATS) or kinds <= set(_INTS)):
        return new.astype(param.dtype)
    raise RuntimeError(f"For '{func}', the dtype of '{param.name}' in the net is {param.dtype}, "
                       f"but parameter_dict[{key!r}] is {new.dtype}" +
                       ("" if strict_load else " (only float<->float and int<->int are cast)") +
                       ".")


def load_param_into_net(net, parameter_dict, strict_load=False):
    """Loads parameters into a network, matching them by Parameter.name.

    The data is copied into the net's own Parameter objects (Parameter.set_data), which keep
    their identity, so compiled graphs that hold them see the loaded values. Every match is
    checked before anything is written: on an error the net is unchanged.

    Args:
        net (Cell): the network.
        parameter_dict (dict): name -> Parameter (str values, from append_dict, are allowed
            and reported as not loaded).
        strict_load (bool): False (default): a dtype difference within the floats (Float16,
            BFloat16, Float32, Float64) or within the signed ints is cast to the net's dtype,
            and a net parameter missing from the dict is also looked up under a dotted prefix
            ("network." + name) as MindSpore does. True: names and dtypes must match exactly.

    Returns:
        tuple(list, list): (param_not_load, ckpt_not_load): the names of the net's
        parameters that were not loaded, and the names in parameter_dict that were not used.

    Raises:
        TypeError: net is not a Cell, parameter_dict not a dict of str -> Parameter.
        RuntimeError: a shape or (non-castable) dtype mismatch, naming the parameter.
    """
    func = "load_param_into_net"
    if not isinstance(net, Cell):
        raise TypeError(f"For '{func}', 'net' must be a Cell, but got {type(net).__name__}.")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"For '{func}', 'parameter_dict' must be a dict, but got "
                        f"{type(parameter_dict).__name__}.")
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, (Parameter, str)):
            raise TypeError(f"For '{func}', 'parameter_dict' must map str to Parameter, but "
                            f"has {key!r:.60} -> {type(value).__name__}.")
    _check_bool(func, "strict_load", strict_load)
    params = [p for _, p in net.parameters_and_names()]
    source = {p.name: p.name for p in params if p.name in parameter_dict}
    missing = [p.name for p in params if p.name not in source]
    if missing and not strict_load:
        source.update(_prefixed_matches(missing, parameter_dict))
    plan = [(p, _checked_data(p, source[p.name], parameter_dict[source[p.name]], strict_load))
            for p in params if p.name in source]
    for param, data in plan:
        param.set_data(data)
    used = set(source.values())
    param_not_load = [p.name for p in params if p.name not in source]
    ckpt_not_load = [k for k in parameter_dict if k not in used]
    return param_not_load, ckpt_not_load


# mindspore.train.serialization also holds export/load (MINDIR); they live in train/export.py.
from mycel.train.export import export, load  # noqa: E402,F401
from mycel.train.mindir_proto import load_mindir, save_mindir  # noqa: E402,F401


def _save_graph(network, file_name):
    """Writes the graph the Cell `network` last ran in GRAPH mode (its most recently used
    compiled graph, as the VM program text) to file_name. MindSpore's ``_save_graph`` writes
    its graph proto; mycel's graphs have no such form, so this is a text file to read, not to
    load. RuntimeError when the network has not been compiled."""
    if not isinstance(network, Cell):
        raise TypeError(f"For '_save_graph', the network must be a Cell, but got "
                        f"{type(network).__name__}.")
    graph = network.__dict__.get("_mycel_graph")
    text = graph._graph.last_graph_text() if graph is not None else ""
    if not text:
        raise RuntimeError(f"For '_save_graph', '{type(network).__name__}' has no compiled "
                           f"graph: run it in GRAPH mode first.")
    with open(_path_arg("_save_graph", file_name), "w", encoding="utf-8") as f:
        f.write(text)




def _get_mindir_inputs(file_name):
    """The inputs a MINDIR file was exported with, as zero Tensors of their shapes and dtypes
    (MindSpore's ``_get_mindir_inputs``): one Tensor for one input, else a list of them."""
    tensors = [Tensor(np.zeros(shape, dtype_to_nptype(dtype)), dtype)
               for shape, dtype in load(file_name).input_specs]
    return tensors[0] if len(tensors) == 1 else tensors

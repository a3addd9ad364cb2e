"""Checkpoint utilities of MindSpore's top-level API built on save_checkpoint and
load_checkpoint: ``check_checkpoint``, ``ckpt_to_safetensors``, ``safetensors_to_ckpt``,
``load_checkpoint_async`` and ``async_ckpt_thread_status``."""
import concurrent.futures
import os
import re

from mycel.train import serialization as _s


def check_checkpoint(ckpt_file_name, enc_key=None, enc_mode="AES-GCM"):
    """Whether the file is a readable checkpoint (".ckpt": its CRC, entries and, with enc_key,
    its encryption check; ".safetensors": its header and spans). A wrong argument type is a
    TypeError; a bad or missing file gives False."""
    path = _s._path_arg("check_checkpoint", ckpt_file_name)
    fmt = "safetensors" if path.endswith(".safetensors") else "ckpt"
    try:
        _s.load_checkpoint(path, dec_key=enc_key, dec_mode=enc_mode, format=fmt)
    except ValueError:
        return False
    return True


def _sources(func, file_path, suffix, file_name_regex):
    path = _s._path_arg(func, file_path)
    if os.path.isdir(path):
        pattern = None if file_name_regex is None else re.compile(file_name_regex)
        names = sorted(n for n in os.listdir(path) if n.endswith(suffix) and
                       (pattern is None or pattern.search(n)))
        return [os.path.join(path, n) for n in names]
    if not path.endswith(suffix) or not os.path.isfile(path):
        raise ValueError(f"For '{func}', file_path must be a '{suffix}' file or a directory, "
                         f"but got {file_path!r}.")
    return [path]


def _convert(func, file_path, save_path, name_map, file_name_regex, src, dst):
    if name_map is not None and not isinstance(name_map, dict):
        raise TypeError(f"For '{func}', 'name_map' must be a dict or None, but got "
                        f"{type(name_map).__name__}.")
    out = []
    for source in _sources(func, file_path, "." + src, file_name_regex):
        params = _s.load_checkpoint(source, format=src)
        if name_map:
            params = {name_map.get(k, k): v for k, v in params.items()}
        folder = os.path.dirname(source) if save_path is None else os.fspath(save_path)
        os.makedirs(folder, exist_ok=True)
        target = os.path.join(folder, os.path.basename(source)[:-len(src)] + dst)
        _s.save_checkpoint([{"name": k, "data": v} for k, v in params.items()
                            if not isinstance(v, str)], target, format=dst,
                           append_dict={k: v for k, v in params.items() if isinstance(v, str)}
                           or None)
        out.append(target)
    return out


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Converts a ".ckpt" file (or every one in a directory whose name matches
    file_name_regex) to ".safetensors" files of the same names in save_path (default: beside
    them), renaming entries by name_map. Returns the written paths."""
    del processes_num  # files convert one after another
    return _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex,
                    "ckpt", "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None,
                        processes_num=1):
    """Converts ".safetensors" files to ".ckpt" ones (ckpt_to_safetensors's arguments)."""
    del processes_num
    return _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex,
                    "safetensors", "ckpt")


_EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=1,
                                                  thread_name_prefix="mycel_ckpt_load")


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None,
                          dec_key=None, dec_mode="AES-GCM", specify_prefix=None,
                          choice_func=None):
    """Starts load_checkpoint (the same arguments) on a background thread and returns a
    concurrent.futures.Future: its result() is what load_checkpoint returns (or raises what
    it raised). With net, the parameters are loaded into it by the time result() returns."""
    return _EXECUTOR.submit(_s.load_checkpoint, ckpt_file_name, net, strict_load,
                            filter_prefix, dec_key, dec_mode, specify_prefix, choice_func)


def async_ckpt_thread_status():
    """Whether an asynchronous save_checkpoint is still writing."""
    with _s._PENDING_LOCK:
        return any(job.thread.is_alive() for job in _s._PENDING.values())

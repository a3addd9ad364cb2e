"""Distributed checkpoints of semi-automatic parallelism (MindSpore's names).

Each rank of a sharded network saves its own checkpoint (``save_checkpoint(net, f,
integrated_save=False)``): its parameters hold this rank's slices. The strategy file
(``set_auto_parallel_context(strategy_ckpt_config={"save_file": path})``) records how each
sliced parameter is laid out, written when a sharded program is compiled: a JSON object

    {"format": "mycel-strategy", "version": 1, "device_num": N,
     "parameters": {name: {"device_matrix": [...], "tensor_map": [[mesh axes], ...],
                           "global_shape": [...]}}}

where the device matrix is the mesh (first axis most significant: rank r sits at the
row-major coordinates of r) and tensor_map[d] lists the mesh axes that split dimension d,
major first (an empty list: whole). A parameter absent from the file is whole on every rank.

``load_distributed_checkpoint`` puts the ranks' slices together (``merge_sliced_parameter``)
and loads the whole tensors, or this rank's blocks of them for a network that is itself
sharded; ``transform_checkpoints`` re-slices a job's checkpoints for another strategy (or
for one process).
"""
import glob
import json
import os

import numpy as np

from mycel.parallel import context as _ctx
from mycel.parallel._slices import _Layout, _merge, _own_block

_FORMAT, _VERSION = "mycel-strategy", 1


# ------------------------------------------------------------------ strategy files

_recorded = {}  # name -> _Layout of the sharded programs compiled so far in this job


def _save_file():
    cfg = _ctx._context.get("strategy_ckpt_config") or {}
    return cfg.get("save_file") or _ctx._context.get("strategy_ckpt_save_file") or ""


def _record(name, device_matrix, tensor_map, global_shape):
    """Called when a sharded program slices a parameter: the layout joins the strategy file
    (rewritten atomically; rank 0 writes it)."""
    _recorded[name] = _Layout(device_matrix, tensor_map, global_shape)
    path = _save_file()
    if not path or _ctx.get_auto_parallel_context("global_rank") != 0:
        return
    data = {"format": _FORMAT, "version": _VERSION,
            "device_num": _ctx.get_auto_parallel_context("device_num"),
            "parameters": {k: v.to_json() for k, v in sorted(_recorded.items())}}
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _read_strategy(path, func):
    """(device_num, {name: _Layout}) of a strategy file, or a clear error."""
    if not isinstance(path, str):
        raise TypeError(f"For '{func}', the strategy file name must be a str, but got "
                        f"{type(path).__name__}.")
    if not os.path.isfile(path):
        raise ValueError(f"For '{func}', the strategy file {path} does not exist.")
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"For '{func}', {path} is not a strategy file: {e}") from None
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ValueError(f"For '{func}', {path} is not a mycel strategy file.")
    if data.get("version") != _VERSION:
        raise ValueError(f"For '{func}', {path} has strategy file version "
                         f"{data.get('version')!r}; this mycel reads version {_VERSION}.")
    try:
        layouts = {name: _Layout(**entry) for name, entry in data["parameters"].items()}
        device_num = int(data["device_num"])
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"For '{func}', {path} is a damaged strategy file: {e}") from None
    for name, l in layouts.items():
        if l.device_num() != device_num or len(l.tensor_map) != len(l.global_shape):
            raise ValueError(f"For '{func}', the layout of '{name}' in {path} does not fit "
                             f"{device_num} devices: {l}.")
    return device_num, layouts


def build_searched_strategy(strategy_filename):
    """The layouts of a strategy file: a dict parameter name -> layout (with device_matrix,
    tensor_map and global_shape)."""
    return _read_strategy(strategy_filename, "build_searched_strategy")[1]


# ------------------------------------------------------------------ merging and slicing

def merge_sliced_parameter(sliced_parameters, strategy=None):
    """One Parameter from its slices, one per rank in rank order, under `strategy` (a dict
    name -> layout from build_searched_strategy, which must hold this parameter's name);
    without a strategy the slices must be equal (a replicated parameter). Ranks that hold
    the same block (a repeated axis) must agree: ValueError otherwise."""
    from mycel.common.parameter import Parameter
    from mycel.common.tensor import Tensor
    func = "merge_sliced_parameter"
    if not isinstance(sliced_parameters, (list, tuple)) or not sliced_parameters:
        raise TypeError(f"For '{func}', 'sliced_parameters' must be a non-empty list of "
                        "Parameters.")
    name = sliced_parameters[0].name
    parts = [p.asnumpy() for p in sliced_parameters]
    layout = None if strategy is None else strategy.get(name)
    if strategy is not None and layout is None:
        raise ValueError(f"For '{func}', the strategy has no layout for '{name}'.")
    whole = _merge(name, parts, layout, func)
    return Parameter(Tensor(whole, sliced_parameters[0].dtype), name=name,
                     requires_grad=sliced_parameters[0].requires_grad)


def _merged_checkpoints(files, layouts, func, dec_key=None, dec_mode="AES-GCM"):
    """name -> whole numpy array (with its mycel dtype) from one checkpoint per rank (each
    decrypted with dec_key and dec_mode where given)."""
    from mycel.train.serialization import load_checkpoint
    dicts = [load_checkpoint(f, dec_key=dec_key, dec_mode=dec_mode) for f in files]
    out = {}
    for name, first in dicts[0].items():
        if isinstance(first, str):
            continue
        if any(name not in d for d in dicts[1:]):
            raise ValueError(f"For '{func}', '{name}' is missing from some checkpoints.")
        parts = [d[name].asnumpy() for d in dicts]
        out[name] = (_merge(name, parts, layouts.get(name), func), first.dtype)
    return out


def _rank_files(checkpoint_filenames, func):
    if not isinstance(checkpoint_filenames, (list, tuple)) or not checkpoint_filenames:
        raise TypeError(f"For '{func}', 'checkpoint_filenames' must be a non-empty list of "
                        "file names, one per rank in rank order.")
    for f in checkpoint_filenames:
        if not isinstance(f, str) or not os.path.isfile(f):
            raise ValueError(f"For '{func}', the checkpoint {f!r} does not exist.")
    return list(checkpoint_filenames)


def load_distributed_checkpoint(network, checkpoint_filenames, predict_strategy=None,
                                train_strategy_filename=None, strict_load=False,
                                dec_key=None, dec_mode="AES-GCM", format="ckpt"):
    """Loads a sharded job's checkpoints (one per rank, in rank order, saved with
    integrated_save=False) into `network`: the slices are put together with the training
    strategy file (train_strategy_filename, else the context's strategy_ckpt_config
    load_file), and each parameter of `network` gets the whole tensor, or this rank's block
    when the parameter is itself sliced by a sharded program already compiled.
    predict_strategy (distributed inference) lays the named parameters out for the
    prediction job instead: a dict name -> layout, each a layout of
    ``build_searched_strategy`` (the prediction job's strategy file) or a pair
    (device_matrix, tensor_map) in that file's form (per dimension, the mesh axes that split
    it, from the left; the matrix's devices the job's); each such parameter, whole in
    `network` (not yet compiled sharded), then holds this rank's block and the layout, which
    the network's semi_auto_parallel programs keep. Returns the (param_not_load,
    ckpt_not_load) of load_param_into_net (the predict_strategy's parameters included).
    dec_key and dec_mode: the key and mode the rank files were encrypted with
    (save_checkpoint's enc_key and enc_mode), each file decrypted as load_checkpoint does."""
    from mycel.common.parameter import Parameter
    from mycel.common.tensor import Tensor
    from mycel.train.serialization import load_param_into_net
    func = "load_distributed_checkpoint"
    if format != "ckpt":
        raise ValueError(f"For '{func}', the format must be 'ckpt', but got {format!r}.")
    if dec_key is not None:
        from mycel.train import _ckpt_crypto
        dec_key = _ckpt_crypto.check(func, "dec_key", dec_key, "dec_mode", dec_mode)
    files = _rank_files(checkpoint_filenames, func)
    predict = _predict_layouts(predict_strategy, network, func)
    path = train_strategy_filename or (_ctx._context.get("strategy_ckpt_config") or {}).get(
        "load_file") or _ctx._context.get("strategy_ckpt_load_file")
    layouts = {}
    if path:
        device_num, layouts = _read_strategy(path, func)
        if device_num != len(files):
            raise ValueError(f"For '{func}', the strategy file is for {device_num} devices, "
                             f"but {len(files)} checkpoints were given.")
    merged = _merged_checkpoints(files, layouts, func, dec_key, dec_mode)
    params = {}
    for p in network.get_parameters():
        if p.name not in merged:
            continue
        whole, dtype = merged[p.name]
        block = _own_block(p, whole)
        if block is not None:
            whole = block
        params[p.name] = Parameter(Tensor(np.ascontiguousarray(whole), dtype), name=p.name)
    result = load_param_into_net(network, params, strict_load=strict_load)
    rank = _ctx.get_auto_parallel_context("global_rank")
    for p in network.get_parameters():
        if p.name in predict and p.name in params:
            layout = _Layout(*predict[p.name], p.shape)
            p.set_data(Tensor(np.ascontiguousarray(p.asnumpy()[layout.block(rank)]), p.dtype),
                       slice_shape=True)
            p._spmd_layout = (layout.device_matrix, layout.tensor_map)
            p._spmd_global_shape = tuple(layout.global_shape)
            _record(p.name, layout.device_matrix, layout.tensor_map, layout.global_shape)
    return result


def _predict_layouts(predict_strategy, network, func):
    """{name: (device_matrix, tensor_map)} of a predict_strategy, checked against the job's
    devices and the network's whole parameters (ValueError, TypeError)."""
    if predict_strategy is None:
        return {}
    if not isinstance(predict_strategy, dict):
        raise TypeError(f"For '{func}', 'predict_strategy' must be a dict or None, but got "
                        f"{type(predict_strategy).__name__}.")
    params = {p.name: p for p in network.get_parameters()}
    devices = _ctx.get_auto_parallel_context("device_num")
    out = {}
    for name, l in predict_strategy.items():
        pair = (l.device_matrix, l.tensor_map) if isinstance(l, _Layout) else l
        if name not in params:
            raise ValueError(f"For '{func}', predict_strategy names '{name}', which is not a "
                             "parameter of the network.")
        if getattr(params[name], "_spmd_layout", None) is not None:
            raise ValueError(f"For '{func}', '{name}' is sliced by a compiled sharded "
                             "program already: predict_strategy lays out a network not yet "
                             "compiled.")
        ok = isinstance(pair, (tuple, list)) and len(pair) == 2
        matrix, tensor_map = pair if ok else ((), ())
        if not ok or int(np.prod(matrix)) != devices or \
                len(tensor_map) != len(params[name].shape):
            raise ValueError(f"For '{func}', the predict_strategy of '{name}' must be a "
                             f"layout (device_matrix, tensor_map) over the job's {devices} "
                             f"devices with one entry per dimension of its shape "
                             f"{tuple(params[name].shape)}, but got {l!r}.")
        _Layout(matrix, tensor_map, params[name].shape).block(0)  # the splits must divide
        out[name] = (list(matrix), [list(a) for a in tensor_map])
    return out


def transform_checkpoints(src_checkpoints_dir, dst_checkpoints_dir, ckpt_prefix,
                          src_strategy_file=None, dst_strategy_file=None):
    """Re-slices a job's checkpoints for another strategy: reads
    ``src_checkpoints_dir/rank_{i}/*.ckpt`` (one file per rank; a whole checkpoint when
    src_strategy_file is None) and writes ``dst_checkpoints_dir/rank_{j}/{ckpt_prefix}{j}.ckpt``
    for every rank j of dst_strategy_file (rank 0 alone, whole, when it is None)."""
    func = "transform_checkpoints"
    for arg, v in (("src_checkpoints_dir", src_checkpoints_dir),
                   ("dst_checkpoints_dir", dst_checkpoints_dir), ("ckpt_prefix", ckpt_prefix)):
        if not isinstance(v, str):
            raise TypeError(f"For '{func}', '{arg}' must be a str, but got "
                            f"{type(v).__name__}.")
    src_layouts, src_n = {}, 1
    if src_strategy_file is not None:
        src_n, src_layouts = _read_strategy(src_strategy_file, func)
    files = []
    for i in range(src_n):
        found = sorted(glob.glob(os.path.join(src_checkpoints_dir, f"rank_{i}", "*.ckpt")))
        if len(found) != 1:
            raise ValueError(f"For '{func}', {src_checkpoints_dir}/rank_{i} must hold one "
                             f".ckpt file, but holds {len(found)}.")
        files.append(found[0])
    merged = _merged_checkpoints(files, src_layouts, func)
    dst_layouts, dst_n = {}, 1
    if dst_strategy_file is not None:
        dst_n, dst_layouts = _read_strategy(dst_strategy_file, func)
    for j in range(dst_n):
        _write_rank(merged, dst_layouts, j,
                    os.path.join(dst_checkpoints_dir, f"rank_{j}", f"{ckpt_prefix}{j}.ckpt"))


def transform_checkpoint_by_rank(rank_id, checkpoint_files_map, save_checkpoint_file_name,
                                 src_strategy_file=None, dst_strategy_file=None):
    """One rank's checkpoint under dst_strategy_file (whole when None) from the source
    job's checkpoints (checkpoint_files_map: source rank -> file) under src_strategy_file."""
    func = "transform_checkpoint_by_rank"
    if not isinstance(checkpoint_files_map, dict) or not checkpoint_files_map:
        raise TypeError(f"For '{func}', 'checkpoint_files_map' must be a dict rank -> file.")
    src_layouts = {}
    if src_strategy_file is not None:
        _, src_layouts = _read_strategy(src_strategy_file, func)
    files = _rank_files([checkpoint_files_map[r] for r in sorted(checkpoint_files_map)], func)
    dst_layouts = {} if dst_strategy_file is None else _read_strategy(dst_strategy_file,
                                                                       func)[1]
    _write_rank(_merged_checkpoints(files, src_layouts, func), dst_layouts, int(rank_id),
                save_checkpoint_file_name)


def _write_rank(merged, layouts, rank, path):
    from mycel.common.tensor import Tensor
    from mycel.train.serialization import save_checkpoint
    entries = {}
    for name, (whole, dtype) in merged.items():
        l = layouts.get(name)
        block = whole if l is None else whole[l.block(rank)]
        entries[name] = Tensor(np.ascontiguousarray(block), dtype)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    save_checkpoint(entries, path, integrated_save=False)


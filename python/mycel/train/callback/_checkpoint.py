"""Checkpoint helpers of the callbacks (MindSpore's ``mindspore.train.callback._checkpoint``):
the file-name rule ModelCheckpoint uses when files of its prefix exist, and the save op's
parameter callback."""
import os
import re

_cur_net = None


def _chg_ckpt_file_name_if_same_exist(directory, prefix, exception=False):
    """The prefix to save under in `directory`: `prefix` when no ``prefix-*.ckpt`` (or
    ``prefix_<n>-*.ckpt``) file is there, else ``prefix_<n+1>`` with n the largest suffix in
    use (a second run keeps the first one's files)."""
    if not os.path.isdir(directory):
        return prefix
    pat = re.compile(re.escape(prefix) + r"(?:_(\d+))?-\d+_\d+(?:_breakpoint)?\.ckpt")
    top = -1
    for name in os.listdir(directory):
        m = pat.fullmatch(name)
        if m:
            top = max(top, int(m.group(1)) if m.group(1) else 0)
    return prefix if top < 0 else f"{prefix}_{top + 1}"


def _set_cur_net(net):
    """Sets the network whose parameters the save op's callback updates."""
    global _cur_net
    _cur_net = net


def _checkpoint_cb_for_save_op(parameter_list):
    """Copies each {'name', 'data'} of `parameter_list` into the parameter of that name of
    the network set by _set_cur_net (none set: nothing to update). Returns True."""
    if _cur_net is None:
        return True
    params = {p.name: p for p in _cur_net.get_parameters()}
    for item in parameter_list:
        p = params.get(item["name"])
        if p is not None:
            p.set_data(item["data"])
    return True

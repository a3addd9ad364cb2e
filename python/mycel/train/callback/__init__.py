"""Callbacks of Model.train / Model.eval (MindSpore's ``mindspore.train.Callback`` family).

A callback overrides any of on_train_begin, on_train_epoch_begin, on_train_step_begin,
on_train_step_end, on_train_epoch_end, on_train_end (and the on_eval_* ones); each gets a
RunContext whose ``original_args()`` is the namespace of the run: epoch_num, cur_epoch_num,
batch_num (-1 until the first epoch ends when the dataset has no size), cur_step_num
(counted over the whole run), cur_step_in_epoch, net_outputs (the step's loss),
train_network, optimizer, train_dataset, metrics (after eval). MindSpore's older names
(begin, epoch_begin, step_begin, step_end, epoch_end, end) are called by the defaults, so
callbacks written either way work. ``run_context.request_stop()`` ends training after the
current step.
"""
import os
import re
import stat
import sys
import time

import numpy as np

from mycel.train.callback._base import Callback, _loss_value  # noqa: F401


class _InternalCallbackParam(dict):
    """The run's parameters a callback reads (MindSpore's ``_InternalCallbackParam``): a dict
    whose keys are also attributes (``cb_params.cur_step_num``)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What a callback sees: ``original_args()`` (the run's namespace) and request_stop().
    `cb_params` is a dict (an _InternalCallbackParam) or a namespace; anything else is a
    TypeError."""

    def __init__(self, cb_params):
        if not isinstance(cb_params, dict) and not hasattr(cb_params, "__dict__"):
            raise TypeError(f"For 'RunContext', the 'cb_params' must be a dict or a namespace, "
                            f"but got {type(cb_params).__name__}.")
        self._params = cb_params
        self._stop = False

    def original_args(self):
        return self._params

    def request_stop(self):
        self._stop = True

    def get_stop_requested(self):
        return self._stop


class CallbackList:
    """Calls each hook on every callback in order."""

    def __init__(self, callbacks):
        if callbacks is None:
            callbacks = []
        elif isinstance(callbacks, Callback):
            callbacks = [callbacks]
        callbacks = list(callbacks)
        for cb in callbacks:
            if not isinstance(cb, Callback):
                raise TypeError(f"For 'Model', each callback must be a Callback, but got "
                                f"{type(cb).__name__}.")
        self._cbs = callbacks

    _OLD_NAMES = ("begin", "epoch_begin", "step_begin", "step_end", "epoch_end", "end")

    def __getattr__(self, hook):
        if not hook.startswith("on_") and hook not in self._OLD_NAMES:
            raise AttributeError(hook)

        def call(run_context):
            for cb in self._cbs:
                getattr(cb, hook)(run_context)
        return call


class _CallbackManager(CallbackList):
    """The callbacks of a run as one (MindSpore's ``_CallbackManager``): a context manager
    that enters each callback (``with _CallbackManager(cbs) as cm:``) and exits each at the
    end, even when the run raises; ``cm.<hook>(run_context)`` calls the hook on every
    callback in order. Each element must be a Callback (None is a TypeError too)."""

    def __init__(self, callbacks):
        if isinstance(callbacks, (list, tuple)) and any(cb is None for cb in callbacks):
            raise TypeError("For '_CallbackManager', a callback must be a Callback, but got "
                            "None.")
        super().__init__(callbacks)
        self._stack = None

    def __enter__(self):
        import contextlib
        self._stack = contextlib.ExitStack()
        for cb in self._cbs:
            self._stack.enter_context(cb)
        return self

    def __exit__(self, *err):
        return self._stack.__exit__(*err)


def _step_in_epoch(p):
    """cur_step_in_epoch, or (for parameters made by hand) the run's step less the steps of
    the finished epochs."""
    step = getattr(p, "cur_step_in_epoch", None)
    if step is None:
        step = p.cur_step_num - (p.cur_epoch_num - 1) * max(p.batch_num, 0)
    return step


class LossMonitor(Callback):
    """LossMonitor(per_print_times=1): prints "epoch: E step: S, loss is L" every
    per_print_times steps (S counted within the epoch); a NaN or inf loss stops with a
    ValueError naming the epoch and step. In ``Model.fit`` it also prints an epoch's
    evaluation, "Eval result: epoch E, metrics: {...}", at the epoch's end (MindSpore's)."""

    def __init__(self, per_print_times=1):
        if not isinstance(per_print_times, int) or isinstance(per_print_times, bool) or \
                per_print_times < 0:
            raise ValueError(f"For 'LossMonitor', the 'per_print_times' must be a non-negative "
                             f"int, but got {per_print_times!r}.")
        self._every = per_print_times

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        loss = _loss_value(p.net_outputs)
        step = _step_in_epoch(p)
        if not np.isfinite(loss):
            raise ValueError(f"epoch: {p.cur_epoch_num} step: {step}: the loss is {loss}; "
                             f"training stops.")
        if self._every and p.cur_step_num % self._every == 0:
            print(f"epoch: {p.cur_epoch_num} step: {step}, loss is {loss:.6f}", flush=True)

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        metrics = getattr(p, "metrics", None)
        if metrics:
            shown = {k: float(v) if isinstance(v, (float, np.floating)) else v
                     for k, v in metrics.items()}
            print(f"Eval result: epoch {p.cur_epoch_num}, metrics: {shown}")


class TimeMonitor(Callback):
    """TimeMonitor(data_size=None): prints each epoch's time and time per step."""

    def __init__(self, data_size=None):
        self._data_size = data_size

    def on_train_epoch_begin(self, run_context):
        self._t0 = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        ms = (time.perf_counter() - self._t0) * 1000
        steps = self._data_size or p.batch_num
        print(f"epoch time: {ms:.3f} ms, per step time: {ms / max(steps, 1):.3f} ms",
              flush=True)


class CheckpointConfig:
    """CheckpointConfig(save_checkpoint_steps=1, save_checkpoint_seconds=0,
    keep_checkpoint_max=5, keep_checkpoint_per_n_minutes=0, integrated_save=True,
    async_save=False, saved_network=None, append_info=None): when ModelCheckpoint saves and
    how many files it keeps. One of steps and seconds must be set; as in MindSpore, with
    steps set the seconds are None, with keep_checkpoint_max set the minutes are None, and
    with neither count one file is kept (keep_checkpoint_max 1). A non-int is a TypeError, a
    negative int a ValueError."""

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, **kwargs):
        for name, v in (("save_checkpoint_steps", save_checkpoint_steps),
                        ("save_checkpoint_seconds", save_checkpoint_seconds),
                        ("keep_checkpoint_max", keep_checkpoint_max),
                        ("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
                raise TypeError(f"For 'CheckpointConfig', the '{name}' must be an int, but got "
                                f"{type(v).__name__}.")
            if v is not None and v < 0:
                raise ValueError(f"For 'CheckpointConfig', the '{name}' must be a non-negative "
                                 f"int, but got {v!r}.")
        if not save_checkpoint_steps and not save_checkpoint_seconds:
            raise ValueError("For 'CheckpointConfig', one of 'save_checkpoint_steps' and "
                             "'save_checkpoint_seconds' must be set.")
        # MindSpore's normalisation: steps decide over seconds, a file count over minutes, and
        # with neither count one file is kept
        if save_checkpoint_steps:
            save_checkpoint_seconds = None
        if keep_checkpoint_max:
            keep_checkpoint_per_n_minutes = None
        elif not keep_checkpoint_per_n_minutes:
            keep_checkpoint_max = 1
        self.save_checkpoint_steps = save_checkpoint_steps
        self.save_checkpoint_seconds = save_checkpoint_seconds
        self.keep_checkpoint_max = keep_checkpoint_max
        self.keep_checkpoint_per_n_minutes = keep_checkpoint_per_n_minutes
        self.integrated_save = integrated_save
        self.async_save = async_save
        self.saved_network = saved_network
        self.append_info = append_info

    def get_checkpoint_policy(self):
        """The saving policy as a dict (MindSpore's names)."""
        return {"save_checkpoint_steps": self.save_checkpoint_steps,
                "save_checkpoint_seconds": self.save_checkpoint_seconds,
                "keep_checkpoint_max": self.keep_checkpoint_max,
                "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
                "saved_network": self.saved_network}


class _CheckpointManager:
    """The checkpoint files of one prefix in one folder (MindSpore's ``_CheckpointManager``,
    which ModelCheckpoint uses to keep one file per n minutes): ``update_ckpoint_filelist(dir,
    prefix)`` lists ``dir/prefix-<epoch>_<step>.ckpt`` (and ``prefix_<n>-...``, the names a
    second run with the same prefix gets), oldest first; ``ckpoint_num`` counts them."""

    def __init__(self):
        self._files = []

    @property
    def ckpoint_filelist(self):
        """The listed files, oldest first."""
        return self._files

    @property
    def ckpoint_num(self):
        """How many files are listed."""
        return len(self._files)

    def update_ckpoint_filelist(self, directory, prefix):
        """Lists the checkpoint files of prefix in directory, by modification time."""
        pat = re.compile(re.escape(prefix) + r"(_\d+)?-\d+_\d+\.ckpt")
        found = [os.path.join(directory, n) for n in os.listdir(directory)
                 if pat.fullmatch(n) and os.path.isfile(os.path.join(directory, n))]
        self._files = sorted(found, key=lambda f: (os.path.getmtime(f), f))

    def remove_ckpoint_file(self, file_name):
        """Deletes the file (made writable first) and drops it from the list."""
        if os.path.exists(file_name):
            os.chmod(file_name, stat.S_IWUSR | stat.S_IRUSR)
            os.remove(file_name)
        self._files = [f for f in self._files if f != file_name]

    def remove_oldest_ckpoint_file(self):
        """Deletes the oldest listed file."""
        if self._files:
            self.remove_ckpoint_file(self._files[0])

    def keep_one_ckpoint_per_minutes(self, minutes, cur_time):
        """Of the listed files modified less than `minutes` before cur_time, deletes all but
        the oldest."""
        recent = [f for f in self._files if cur_time - os.path.getmtime(f) < 60 * minutes]
        if recent:
            keep = min(recent, key=os.path.getmtime)
            for f in recent:
                if f != keep:
                    self.remove_ckpoint_file(f)


class ModelCheckpoint(Callback):
    """ModelCheckpoint(prefix='CKP', directory=None, config=None): saves the training
    network's parameters (weights and optimizer state) to
    ``directory/prefix-<epoch>_<step>.ckpt`` every config.save_checkpoint_steps steps (or
    seconds) and at the end, keeping the newest config.keep_checkpoint_max files (or, when
    that is 0 and keep_checkpoint_per_n_minutes is set, one file per that many minutes).
    ``latest_ckpt_file_name`` is the last file written. `prefix` and `directory` may be
    functions of the run's parameters (cb_params): a prefix function names the whole file
    (``<prefix(cb_params)>.ckpt``), a directory function the folder of each save. The
    MindSpore 1.x hook names (begin, step_end, end) run the same hooks. At its first step end
    it also writes ``directory/prefix-graph.meta``, the training network's compiled graph
    (serialization._save_graph's text; as MindSpore, only when the network has one, i.e. it
    ran in GRAPH mode)."""

    def __init__(self, prefix="CKP", directory=None, config=None):
        if not callable(prefix) and (not isinstance(prefix, str) or not prefix or
                                     "/" in prefix):
            raise ValueError(f"For 'ModelCheckpoint', the 'prefix' must be a non-empty file "
                             f"name prefix or a function, but got {prefix!r}.")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"For 'ModelCheckpoint', the 'config' must be a CheckpointConfig, "
                            f"but got {type(config).__name__}.")
        self._prefix = prefix
        self._dir_fn = directory if callable(directory) else None
        self._dir = None if callable(directory) else os.path.abspath(directory or os.getcwd())
        self._config = config or CheckpointConfig()
        self._saved = []
        self._manager = _CheckpointManager()
        self._last_time = time.time()
        self._last_step = 0
        self._graph_saved = False
        self.latest_ckpt_file_name = None

    def begin(self, run_context):
        self.on_train_begin(run_context)

    def step_end(self, run_context):
        self.on_train_step_end(run_context)

    def end(self, run_context):
        self.on_train_end(run_context)

    def _folder(self, p):
        return os.path.abspath(self._dir_fn(p)) if self._dir_fn else self._dir

    def on_train_begin(self, run_context):
        if self._dir is not None:  # a folder function's folders are made at each save
            os.makedirs(self._dir, exist_ok=True)

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        c = self._config
        if not self._graph_saved:
            self._save_graph(p)
        if c.save_checkpoint_steps and p.cur_step_num % c.save_checkpoint_steps == 0:
            self._save(p)
        elif c.save_checkpoint_seconds and \
                time.time() - self._last_time >= c.save_checkpoint_seconds:
            self._save(p)

    def on_train_end(self, run_context):
        p = run_context.original_args()
        if self._last_step != p.cur_step_num:
            self._save(p)

    def _save_graph(self, p):
        """The network's compiled graph to prefix-graph.meta, once (nothing without one)."""
        from mycel.train.serialization import _save_graph
        self._graph_saved = True
        net = p.train_network
        graph = getattr(net, "__dict__", {}).get("_mycel_graph")
        if graph is None or not graph._graph.last_graph_text():
            return
        prefix = self._prefix(p) if callable(self._prefix) else self._prefix
        folder = self._folder(p)
        os.makedirs(folder, exist_ok=True)
        _save_graph(net, os.path.join(folder, f"{prefix}-graph.meta"))

    def _save(self, p):
        from mycel.train.serialization import save_checkpoint
        folder = self._folder(p)
        os.makedirs(folder, exist_ok=True)
        if callable(self._prefix):
            path = os.path.join(folder, f"{self._prefix(p)}.ckpt")
        else:
            path = os.path.join(folder, f"{self._prefix}-{p.cur_epoch_num}_{_step_in_epoch(p)}"
                                f".ckpt")
        net = self._config.saved_network or p.train_network
        minutes = self._config.keep_checkpoint_per_n_minutes
        if not self._config.keep_checkpoint_max and minutes:
            # one file per `minutes`: of the files of the last `minutes`, the oldest stays
            self._manager.update_ckpoint_filelist(folder, str(self._prefix))
            self._manager.keep_one_ckpoint_per_minutes(minutes, time.time())
        save_checkpoint(net, path, integrated_save=self._config.integrated_save,
                        append_dict=self._config.append_info)
        self._saved.append(path)
        keep = self._config.keep_checkpoint_max
        while keep and len(self._saved) > keep:
            old = self._saved.pop(0)
            if os.path.exists(old) and old != path:
                os.remove(old)
        self._last_time = time.time()
        self._last_step = p.cur_step_num
        self.latest_ckpt_file_name = path


class ProgressBar(Callback):
    """A progress bar per epoch on a terminal (step, loss, samples/s), redrawn in place; when
    the output is not a terminal, one summary line per epoch. ``stream`` defaults to
    sys.stdout."""

    def __init__(self, stream=None, width=30):
        self._stream = stream
        self._width = width

    def _out(self):
        return self._stream or sys.stdout

    def on_train_epoch_begin(self, run_context):
        self._t0 = time.perf_counter()
        self._last_draw = 0.0

    def on_train_step_end(self, run_context):
        p = run_context.original_args()
        out = self._out()
        if not (hasattr(out, "isatty") and out.isatty()):
            return
        now = time.perf_counter()
        step = p.cur_step_in_epoch
        if now - self._last_draw < 0.1 and step != p.batch_num:
            return
        self._last_draw = now
        done = int(self._width * step / p.batch_num) if p.batch_num > 0 else 0
        bar = "#" * done + "-" * (self._width - done)
        rate = step * getattr(p, "batch_size", 1) / max(now - self._t0, 1e-9)
        out.write(f"\repoch {p.cur_epoch_num}/{p.epoch_num} [{bar}] {step}/{p.batch_num} "
                  f"loss {_loss_value(p.net_outputs):.4f} {rate:,.0f} samples/s")
        out.flush()

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        out = self._out()
        dt = time.perf_counter() - self._t0
        rate = p.batch_num * getattr(p, "batch_size", 1) / max(dt, 1e-9)
        line = (f"epoch {p.cur_epoch_num}/{p.epoch_num}: loss {_loss_value(p.net_outputs):.4f}, "
                f"{dt:.1f} s, {rate:,.0f} samples/s")
        if hasattr(out, "isatty") and out.isatty():
            out.write("\r" + line + " " * 20 + "\n")
        else:
            out.write(line + "\n")
        out.flush()


class History(Callback):
    """Records the run per epoch (MindSpore's ``History``): ``epoch`` lists the finished
    epochs' numbers, ``history`` maps 'net_output' to each epoch's last loss and every
    metric in cb_params.metrics (or eval_results) to its values."""

    def __init__(self):
        self.epoch = []
        self.history = {}

    def on_train_begin(self, run_context):
        self.epoch = []
        self.history = {}

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        self.epoch.append(p.cur_epoch_num)
        outputs = getattr(p, "net_outputs", None)
        if outputs is not None:
            self.history.setdefault("net_output", []).append(_loss_value(outputs))
        metrics = getattr(p, "metrics", None) or getattr(p, "eval_results", None) or {}
        for k, v in metrics.items():
            self.history.setdefault(k, []).append(v)


_HOOKS = ("on_train_begin", "on_train_epoch_begin", "on_train_step_begin",
          "on_train_step_end", "on_train_epoch_end", "on_train_end", "on_eval_begin",
          "on_eval_epoch_begin", "on_eval_step_begin", "on_eval_step_end",
          "on_eval_epoch_end", "on_eval_end")


class LambdaCallback(Callback):
    """A callback made of functions (MindSpore's ``LambdaCallback``): each keyword
    on_train_begin ... on_eval_end given is called with the run context at that hook; the
    others do nothing."""

    def __init__(self, on_train_epoch_begin=None, on_train_epoch_end=None,
                 on_train_step_begin=None, on_train_step_end=None, on_train_begin=None,
                 on_train_end=None, on_eval_epoch_begin=None, on_eval_epoch_end=None,
                 on_eval_step_begin=None, on_eval_step_end=None, on_eval_begin=None,
                 on_eval_end=None):
        given = dict(locals())
        for hook in _HOOKS:
            fn = given[hook]
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"For 'LambdaCallback', '{hook}' must be callable, but got "
                                    f"{type(fn).__name__}.")
                setattr(self, hook, fn)


class OnRequestExit(Callback):
    """Stops training when asked from outside (MindSpore's ``OnRequestExit``): on the signal
    `sig` (SIGTERM by default), or, with MS_ENABLE_GRACEFUL_EXIT=1, when the JSON file
    `config_file` holds {"GracefulExit": 1}. At the next step end it saves the training
    network's checkpoint to ``directory/file_name.ckpt`` (save_ckpt) and its MINDIR
    (save_mindir, where the network can be exported), then requests the stop."""

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./",
                 sig=None, config_file=None):
        import signal
        for name, v in (("save_ckpt", save_ckpt), ("save_mindir", save_mindir)):
            if not isinstance(v, bool):
                raise TypeError(f"For 'OnRequestExit', '{name}' must be bool, but got "
                                f"{type(v).__name__}.")
        if not isinstance(file_name, str) or not isinstance(directory, str):
            raise TypeError("For 'OnRequestExit', 'file_name' and 'directory' must be str.")
        self.save_ckpt, self.save_mindir = save_ckpt, save_mindir
        self.save_path = directory
        self.file_name = file_name
        self.sig = signal.SIGTERM if sig is None else sig
        self.remote_config_file = config_file
        self.use_graceful = os.environ.get("MS_ENABLE_GRACEFUL_EXIT", "0") == "1"
        self.is_distributed = False
        self._requested = False
        self._old_handler = None

    def _on_signal(self, signum, frame):
        self._requested = True

    def on_train_begin(self, run_context):
        import signal
        self._old_handler = signal.signal(self.sig, self._on_signal)

    def on_train_end(self, run_context):
        import signal
        if self._old_handler is not None:
            signal.signal(self.sig, self._old_handler)
            self._old_handler = None

    def _config_requests_exit(self):
        if not (self.use_graceful and self.remote_config_file and
                os.path.isfile(self.remote_config_file)):
            return False
        import json
        try:
            with open(self.remote_config_file) as f:
                return int(json.load(f).get("GracefulExit", 0)) == 1
        except (OSError, ValueError, AttributeError):
            return False

    def on_train_step_end(self, run_context):
        if not (self._requested or self._config_requests_exit()):
            return
        p = run_context.original_args()
        net = getattr(p, "train_network", None)
        if net is not None and self.save_ckpt:
            from mycel.train.serialization import save_checkpoint
            os.makedirs(self.save_path, exist_ok=True)
            save_checkpoint(net, os.path.join(self.save_path, self.file_name + ".ckpt"))
        if net is not None and self.save_mindir:
            inputs = getattr(p, "train_dataset_element", None)
            if inputs is not None:
                from mycel.train.export import export
                export(net, *inputs, file_name=os.path.join(self.save_path, self.file_name),
                       file_format="MINDIR")
        run_context.request_stop()


class TrainFaultTolerance(Callback):
    """MindSpore's ``TrainFaultTolerance`` drives MindIO's training fault-tolerance service
    (TTP) on Ascend clusters; mycel has no MindIO, so constructing one is a RuntimeError
    saying so (rather than a callback that silently does nothing)."""

    def __init__(self, ckpt_save_path=None, **kwargs):
        raise RuntimeError("For 'TrainFaultTolerance', MindIO's training fault-tolerance "
                           "service (TTP, Ascend only) is needed; mycel has none.")


from mycel.train.callback._checkpoint import (  # noqa: E402,F401
    _chg_ckpt_file_name_if_same_exist, _checkpoint_cb_for_save_op, _set_cur_net)


class BackupAndRestore(Callback):
    """Backs up the training state to resume an interrupted run (MindSpore's
    ``BackupAndRestore``): at the end of every `save_freq` epochs ('epoch': each) it saves
    the training network (weights and optimizer state) with the epoch reached to
    ``backup_dir/backup.ckpt``; at the start of a run, when that file exists, it loads it into
    the network and the run goes on after that epoch. With delete_checkpoint the file is
    removed when the run ends (it finished, nothing to resume)."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        if not isinstance(backup_dir, str) or not backup_dir:
            raise TypeError(f"For 'BackupAndRestore', 'backup_dir' must be a non-empty str, "
                            f"but got {backup_dir!r}.")
        if save_freq != "epoch" and (not isinstance(save_freq, int) or
                                     isinstance(save_freq, bool) or save_freq <= 0):
            raise ValueError(f"For 'BackupAndRestore', 'save_freq' must be 'epoch' or a "
                             f"positive int, but got {save_freq!r}.")
        if not isinstance(delete_checkpoint, bool):
            raise TypeError(f"For 'BackupAndRestore', 'delete_checkpoint' must be bool, but "
                            f"got {type(delete_checkpoint).__name__}.")
        self.backup_dir = backup_dir
        self.save_freq = 1 if save_freq == "epoch" else save_freq
        self.delete_checkpoint = delete_checkpoint
        self.backup_file = os.path.join(backup_dir, "backup.ckpt")

    def on_train_begin(self, run_context):
        if not os.path.isfile(self.backup_file):
            return
        from mycel.train.serialization import load_checkpoint, load_param_into_net
        p = run_context.original_args()
        saved = load_checkpoint(self.backup_file)
        done = int(saved.pop("epoch_num").asnumpy()) if "epoch_num" in saved else 0
        load_param_into_net(p.train_network, saved)
        if done > p.cur_epoch_num:
            p.cur_epoch_num = done

    def on_train_epoch_end(self, run_context):
        p = run_context.original_args()
        if p.cur_epoch_num % self.save_freq == 0:
            from mycel.train.serialization import save_checkpoint
            os.makedirs(self.backup_dir, exist_ok=True)
            save_checkpoint(p.train_network, self.backup_file,
                            append_dict={"epoch_num": p.cur_epoch_num})

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.isfile(self.backup_file):
            os.remove(self.backup_file)
from mycel.train.callback._monitor_lr import (  # noqa: E402,F401
    EarlyStopping, ReduceLROnPlateau, LearningRateScheduler)

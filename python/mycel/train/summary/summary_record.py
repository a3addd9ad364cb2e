"""SummaryRecord: writes summary event files (MindSpore 2.x's mindspore.train.summary).

Each file is ``<prefix>.out.events.summary.<seconds>.<device>.<host><suffix>`` in log_dir: a
sequence of TFRecord-framed records (base/record_io.h: length, masked CRC-32C, data, CRC),
each a serialized ``Event`` (summary_pb2, from src/serialize/summary.proto): first the version
record, then one record per ``record(step)`` holding the values added since the last one.

Values come from two places: ``add_value(plugin, name, tensor)`` and the summary operators
(ops.ScalarSummary and friends), which publish to the process's SummaryChannel
(mycel/common/_summary_channel.py); ``record`` drains the channel (in train mode) and writes
both. Writes are synchronous; ``flush`` pushes them to the OS. As in MindSpore, one
SummaryRecord may be open in a process at a time (a second is a RuntimeError until the first is
closed).

Lineage values (train_lineage, eval_lineage, custom_lineage_data, dataset_graph: the messages
of lineage_pb2, from src/serialize/lineage.proto) go to a second file of the same framing,
``<prefix>.out.events.summary.<seconds>.<device>.<host>_lineage``, one LineageEvent each
(opened when the first is recorded).
"""
import os
import re
import threading
import time
import weakref

import numpy as np

from mycel import log as logger
from mycel.train.summary import _summary_adapter as _adapter
from mycel.common._summary_channel import KINDS, default_channel
from mycel.train.summary.enums import ModeEnum, PluginEnum

# export_options' keys and the values each accepts.
_DEFAULT_EXPORT_OPTIONS = {'tensor_format': {'npy', None}}
_VALUE_PLUGINS = ('scalar', 'image', 'tensor', 'histogram')
_LINEAGE_PLUGINS = ('train_lineage', 'eval_lineage', 'custom_lineage_data', 'dataset_graph')
# plugin -> (its message class in lineage_pb2, the LineageEvent field that holds it)
_LINEAGE_FIELDS = {'train_lineage': ('TrainLineage', 'train_lineage'),
                   'eval_lineage': ('EvaluationLineage', 'evaluation_lineage'),
                   'custom_lineage_data': ('UserDefinedInfo', 'user_defined_info'),
                   'dataset_graph': ('DatasetGraph', 'dataset_graph')}
_NAME_PATTERN = re.compile(r'^(.+)\[:(.+)\]$')
_PREFIX_PATTERN = re.compile(r'^[-\w.]*$')

_open_lock = threading.Lock()
_open_record = None  # weakref to the open SummaryRecord


def _type_names(types):
    return [t.__name__ if t is not None else 'NoneType' for t in types]


def _check_type(arg_name, value, types):
    """A TypeError in MindSpore's words unless value is one of types (bool is not an int)."""
    ok = any(value is None if t is None else
             (isinstance(value, t) and not (t is int and isinstance(value, bool)))
             for t in types)
    if not ok:
        raise TypeError(f"For `{arg_name}` the type should be a valid type of "
                        f"{_type_names(types)}, but got {type(value).__name__}.")
    return value


def _cache_summary_tensor_data(summary):
    """Puts [{"name": "tag[:Kind]", "data": Tensor}, ...] on the default channel, as the
    summary operators do when a step runs. Returns True."""
    channel = default_channel()
    for item in summary:
        channel.put(item["name"], item["data"])
    return True


def _get_summary_tensor_data():
    """{"tag[:Kind]": Tensor} published since the last drain of the default channel (which it
    empties)."""
    return default_channel().drain()


def _to_numpy(plugin, name, value):
    from mycel.common.tensor import Tensor
    if not isinstance(value, Tensor):
        raise TypeError(f"For 'SummaryRecord.add_value', the value of a {plugin} summary "
                        f"({name!r}) should be a Tensor, but got {type(value).__name__}.")
    array = value.asnumpy()
    if plugin == 'scalar' and array.size != 1:
        logger.info(f"Summary: the scalar {name!r} has shape {array.shape}; the first element "
                    f"is recorded.")
    return array


class SummaryRecord:
    """Writes summary values into an event file under log_dir.

    Args:
        log_dir (str): the folder of the files (created when missing).
        file_prefix (str): the start of the file name. Default: "events".
        file_suffix (str): the end of the file name. Default: "_MS".
        num_process (int): accepted for MindSpore's signature; mycel writes in the calling
            thread. Default: 32.
        max_file_size (int or None): once the file holds this many bytes, later records are
            dropped with a warning. Default: None (no limit).
        raise_exception (bool): raise errors of writing (True) or log them (False).
        export_options (dict or None): {"tensor_format": "npy"} also saves each tensor summary
            as ``<log_dir>/export_<seconds>/tensor/<tag>_<step>.npy``.
        channel (SummaryChannel, keyword only; a mycel extension): the channel whose summary
            operators' values record() writes. Default: the process's, which MindSpore's
            programs share (and so one record at a time may use); operators built with
            ``ScalarSummary(channel=c)`` and friends feed a record made with ``channel=c``,
            which may be open beside others.
    """

    def __init__(self, log_dir, file_prefix="events", file_suffix="_MS", num_process=32,
                 max_file_size=None, raise_exception=False, export_options=None, *,
                 channel=None):
        global _open_record
        _check_type('log_dir', log_dir, (str,))
        if not log_dir.strip():
            raise ValueError("For 'SummaryRecord', the log_dir should be a non-empty path.")
        for arg, v in (('file_prefix', file_prefix), ('file_suffix', file_suffix)):
            _check_type(arg, v, (str,))
            if not _PREFIX_PATTERN.match(v):
                raise ValueError(f"For 'SummaryRecord', the {arg} {v!r} may hold only letters, "
                                 f"digits, '_', '-' and '.'.")
        _check_type('num_process', num_process, (int,))
        _check_type('max_file_size', max_file_size, (int, None))
        if max_file_size is not None and max_file_size <= 0:
            raise ValueError(f"For 'SummaryRecord', the max_file_size should be greater than 0, "
                             f"but got {max_file_size}.")
        _check_type('raise_exception', raise_exception, (bool,))
        self._export_options = self._checked_export_options(export_options)
        log_dir = os.path.realpath(os.path.expanduser(log_dir))
        if os.path.exists(log_dir) and not os.path.isdir(log_dir):
            raise NotADirectoryError(f"For 'SummaryRecord', the log_dir {log_dir} is a file, "
                                     f"not a folder.")
        self._closed = True  # until the file is open
        shared = channel is None or channel is default_channel()
        with _open_lock:
            other = _open_record() if _open_record is not None else None
            if shared and other is not None and not other._closed:
                raise RuntimeError("For 'SummaryRecord', only one instance is supported in a "
                                   "training process: close the open one (its file is "
                                   f"{other.log_dir}) before creating another.")
            os.makedirs(log_dir, exist_ok=True)
            if shared:
                _open_record = weakref.ref(self)
        self._raise = raise_exception
        self._max_file_size = max_file_size
        self._mode = ModeEnum.TRAIN.value
        self._values = []  # [(plugin, name, numpy array)] until record()
        self._graphs = []  # GraphProto messages not yet written
        self._lineage = []  # [(plugin, name, value)]
        self._size_warned = False
        self._channel = default_channel() if channel is None else channel
        seconds = int(time.time())
        from mycel import context
        device_id = context.get_context('device_id') or 0
        self._log_dir = log_dir
        # A file of this name from a record opened in the same second is not overwritten:
        # the next free second names this one.
        while os.path.exists(os.path.join(log_dir, _adapter.get_event_file_name(
                file_prefix, file_suffix, seconds, device_id))):
            seconds += 1
        self._file_path = os.path.join(log_dir, _adapter.get_event_file_name(
            file_prefix, file_suffix, seconds, device_id))
        self._export_dir = os.path.join(log_dir, f"export_{seconds}")
        self._lineage_path = os.path.join(log_dir, _adapter.get_event_file_name(
            file_prefix, "_lineage", seconds, device_id))
        from mycel import _mycel as _C
        self._writer = _C._RecordWriter(self._file_path, "SummaryRecord")
        self._lineage_writer = None
        self._closed = False
        self._write(_adapter.package_init_event())

    @staticmethod
    def _checked_export_options(options):
        _check_type('export_options', options, (dict, None))
        if not options:
            return {}
        unknown = set(options) - set(_DEFAULT_EXPORT_OPTIONS)
        if unknown:
            raise ValueError(f'For "SummaryRecord", the keys {unknown} of "export_options" are '
                             f'unsupported, expect the follow keys: '
                             f'{list(_DEFAULT_EXPORT_OPTIONS)}')
        for key, value in options.items():
            allowed = _DEFAULT_EXPORT_OPTIONS[key]
            if value not in allowed:
                raise ValueError(f'For "SummaryRecord", the export_format {({value})} of '
                                 f'"export_options" are unsupported for {key}, expect the '
                                 f'follow values: {list(allowed)}')
        return dict(options)

    def __enter__(self):
        if self._closed:
            raise ValueError("For 'SummaryRecord', the record is closed; create a new one.")
        return self

    def __exit__(self, *err):
        self.close()

    @property
    def log_dir(self):
        """The path of the event file being written (MindSpore's name for it)."""
        return self._file_path

    def set_mode(self, mode):
        """'train' (summary operators' values are recorded) or 'eval' (they are dropped)."""
        if mode not in ModeEnum.list_members():
            raise ValueError(f"For 'SummaryRecord.set_mode', the mode should be one of "
                             f"{ModeEnum.list_members()}, but got {mode!r}.")
        self._mode = mode

    def add_value(self, plugin, name, value):
        """Adds a value for the next record(): plugin "scalar" | "tensor" | "image" |
        "histogram" (value a Tensor), "graph" (a summary_pb2.GraphProto), "LANDSCAPE" (a
        summary_pb2.LossLandscape, from SummaryLandscape), or a lineage plugin
        ("train_lineage", "eval_lineage", "custom_lineage_data", "dataset_graph": a
        TrainLineage, EvaluationLineage, UserDefinedInfo or DatasetGraph of lineage_pb2,
        written to the lineage file)."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"For 'SummaryRecord.add_value', the name should be a non-empty "
                             f"str, but got {name!r}.")
        if plugin in _VALUE_PLUGINS:
            array = _to_numpy(plugin, name, value)
            if plugin in ('tensor', 'histogram') and array.ndim == 0:
                raise ValueError(f"For 'SummaryRecord.add_value', a {plugin} summary "
                                 f"({name!r}) needs a tensor of at least one dimension.")
            if plugin == 'scalar' and array.size == 0:
                raise ValueError(f"For 'SummaryRecord.add_value', the scalar {name!r} has no "
                                 f"elements (shape {array.shape}).")
            if plugin == 'image' and (array.ndim != 4 or array.shape[1] not in (1, 3) or
                                      0 in array.shape):
                raise ValueError(f"For 'SummaryRecord.add_value', the image {name!r} must be "
                                 f"NCHW with 1 or 3 channels and no empty dimension, but has "
                                 f"shape {array.shape}.")
            self._values.append((plugin, name, array))
        elif plugin == PluginEnum.GRAPH.value:
            from mycel.train import summary_pb2
            if not isinstance(value, summary_pb2.GraphProto):
                raise TypeError(f"For 'SummaryRecord.add_value', a graph should be a "
                                f"GraphProto, but got {type(value).__name__}.")
            self._graphs.append(value)
        elif plugin == PluginEnum.LANDSCAPE.value:
            from mycel.train import summary_pb2
            if not isinstance(value, summary_pb2.LossLandscape):
                raise TypeError(f"For 'SummaryRecord.add_value', a landscape should be a "
                                f"LossLandscape, but got {type(value).__name__}.")
            self._values.append(('landscape', name, value))
        elif plugin in _LINEAGE_PLUGINS:
            from mycel.train import lineage_pb2
            cls = getattr(lineage_pb2, _LINEAGE_FIELDS[plugin][0])
            if not isinstance(value, cls):
                raise TypeError(f"For 'SummaryRecord.add_value', the value of '{plugin}' "
                                f"should be a {cls.__name__}, but got {type(value).__name__}.")
            self._lineage.append((plugin, name, value))
        else:
            known = list(_VALUE_PLUGINS) + ['graph', 'LANDSCAPE'] + list(_LINEAGE_PLUGINS)
            raise ValueError(f"For 'SummaryRecord.add_value', the plugin should be one of "
                             f"{known}, but got {plugin!r}.")

    def _add_channel_values(self):
        values = self._channel.drain()
        if self._mode != ModeEnum.TRAIN.value:
            return
        for full_name, tensor in values.items():
            m = _NAME_PATTERN.match(full_name) if isinstance(full_name, str) else None
            if m is None or m.group(2) not in KINDS:
                logger.warning(f"Summary: {full_name!r} is not 'tag[:Kind]' with a kind in "
                               f"{list(KINDS)}; it is not recorded.")
                continue
            self.add_value(m.group(2).lower(), m.group(1), tensor)

    def record(self, step, train_network=None, plugin_filter=None):
        """Writes the values added since the last record (and the summary operators' latest
        values) as the event of `step`. plugin_filter(plugin) -> bool keeps some plugins
        only. train_network (a Cell or None) is accepted for MindSpore's signature (mycel adds
        graphs with add_value("graph", ...), as SummaryCollector does). Returns True, or False
        (with an error logged) once the record is closed."""
        _check_type('step', step, (int,))
        from mycel.nn.cell import Cell
        _check_type('train_network', train_network, (Cell, None))
        if self._closed:
            logger.error("For 'SummaryRecord.record', the record is closed (close() was "
                         "called); nothing is written.")
            return False
        self._add_channel_values()
        values, self._values = self._values, []
        graphs, self._graphs = self._graphs, []
        lineage, self._lineage = self._lineage, []
        if plugin_filter is not None:
            values = [v for v in values if plugin_filter(v[0])]
            graphs = graphs if plugin_filter('graph') else []
            lineage = [v for v in lineage if plugin_filter(v[0])]
        try:
            for g in graphs:
                event = _adapter.package_graph_event(g)
                event.step = step
                self._write(event)
            if values:
                data = [{"_type": p.title(), "name": n, "data": a} for p, n, a in values]
                self._write(_adapter.package_summary_event(data, step, time.time()))
                self._export(values, step)
            if lineage:
                self._write_lineage(lineage, step)
        except (OSError, RuntimeError, ValueError, TypeError) as e:
            if self._raise:
                raise
            logger.error(f"Summary: writing step {step} to {self._file_path} failed: {e}")
        return True

    def _write(self, event):
        if self._max_file_size is not None and self._writer.bytes >= self._max_file_size:
            if not self._size_warned:
                logger.warning(f"Summary: {self._file_path} reached max_file_size "
                               f"({self._max_file_size} bytes); later records are dropped.")
                self._size_warned = True
            return
        self._writer.write(event.SerializeToString())

    def _export(self, values, step):
        if self._export_options.get('tensor_format') != 'npy':
            return
        folder = os.path.join(self._export_dir, 'tensor')
        for plugin, name, array in values:
            if plugin == 'tensor':
                os.makedirs(folder, exist_ok=True)
                safe = re.sub(r'[^-\w.]', '_', name)
                np.save(os.path.join(folder, f"{safe}_{step}.npy"), array)

    def _write_lineage(self, lineage, step):
        from mycel.train import lineage_pb2
        if self._lineage_writer is None:
            from mycel import _mycel as _C
            self._lineage_writer = _C._RecordWriter(self._lineage_path, "SummaryRecord")
        for plugin, _, value in lineage:
            event = lineage_pb2.LineageEvent(wall_time=time.time(), step=step)
            getattr(event, _LINEAGE_FIELDS[plugin][1]).CopyFrom(value)
            self._lineage_writer.write(event.SerializeToString())

    @property
    def lineage_path(self):
        """The path of the lineage file (written once a lineage value is recorded)."""
        return self._lineage_path

    def flush(self):
        """Pushes the records written so far to the operating system."""
        if self._closed:
            return
        self._writer.flush()
        if self._lineage_writer is not None:
            self._lineage_writer.flush()

    def close(self):
        """Flushes and closes the files; a new SummaryRecord may then be opened."""
        global _open_record
        if self._closed:
            return
        self._closed = True
        try:
            self._writer.close()
            if self._lineage_writer is not None:
                self._lineage_writer.close()
        finally:
            with _open_lock:
                if _open_record is not None and _open_record() is self:
                    _open_record = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 (interpreter shutdown: nothing to report to)
            pass


def _record_summary_tensor_data():
    """MindSpore moves the values its PYNATIVE summary operators queued onto the summary
    cache here; mycel's operators put them on the channel when they run, in both modes, so
    there is nothing left to move. Kept for MindSpore's programs that call it."""
    return None

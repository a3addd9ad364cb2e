"""SummaryCollector (MindSpore 2.x): a callback of Model.train/eval that records a run into a
SummaryRecord: the loss (scalar "loss/auto") every collect_freq steps and at the end, the
parameters' histograms ("<name>/auto", those matching histogram_regular), the first input
batch as an image ("input_data/auto", when it is NCHW with 1 or 3 channels), the values of the
summary operators in the network, and the lineage (train/eval facts, custom_lineage_data,
written to the record's lineage file).

With collect_landscape (on by default, as in MindSpore), the backbone's parameters at the
steps (or epochs) of its intervals are saved into <summary_dir>/ckpt_dir with a
train_metadata.json, from which SummaryLandscape draws the loss landscapes.

With collect_graph (GRAPH mode), the training step's graph, compiled once more for the first
batch, as a GraphProto (serialize/summary_graph.h). With collect_dataset_graph, the training
dataset's pipeline as a DatasetGraph lineage value (_dataset_graph.py)."""
import os
import re

import numpy as np

from mycel import log as logger
from mycel.train.callback import Callback
from mycel.train.summary._landscape import check_landscape_options
from mycel.train.summary.enums import ModeEnum, PluginEnum
from mycel.train.summary.summary_record import SummaryRecord, _check_type

_LANDSCAPE_TYPES = ('landscape_size', 'unit', 'num_samples', 'create_landscape', 'intervals')


class SummaryCollector(Callback):
    """SummaryCollector(summary_dir, collect_freq=10, num_process=32,
    collect_specified_data=None, keep_default_action=True, custom_lineage_data=None,
    collect_tensor_freq=None, max_file_size=None, export_options=None)."""

    _DEFAULT_SPECIFIED_DATA = {
        'collect_metric': True,
        'collect_graph': True,
        'collect_train_lineage': True,
        'collect_eval_lineage': True,
        'collect_input_data': True,
        'collect_dataset_graph': True,
        'histogram_regular': None,
        'collect_landscape': {'landscape_size': 40, 'unit': 'step', 'num_samples': 2048,
                              'create_landscape': {'train': True, 'result': True},
                              'intervals': [[1, 2, 3, 4, 5, 6, 7, 8, 9],
                                            [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]]},
    }

    def __init__(self, summary_dir, collect_freq=10, num_process=32,
                 collect_specified_data=None, keep_default_action=True,
                 custom_lineage_data=None, collect_tensor_freq=None, max_file_size=None,
                 export_options=None):
        super().__init__()
        self._summary_dir = self._make_directory(summary_dir)
        self._record = None
        self._check_positive('collect_freq', collect_freq)
        self._collect_freq = collect_freq
        self._check_positive('collect_tensor_freq', collect_tensor_freq, allow_none=True)
        self._collect_tensor_freq = collect_tensor_freq
        self._check_positive('max_file_size', max_file_size, allow_none=True)
        self._max_file_size = max_file_size
        self._export_options = SummaryRecord._checked_export_options(export_options) or None
        _check_type('keep_default_action', keep_default_action, (bool,))
        self._collect_specified_data = self._process_specified_data(collect_specified_data,
                                                                     keep_default_action)
        landscape = self._collect_specified_data.get('collect_landscape')
        _check_type('collect_landscape', landscape, (dict, None))
        self._is_collect_landscape = bool(landscape)
        self._model_params_file_map = {}
        if landscape:
            self._check_collect_landscape_data(landscape)
            self._landscape = dict(self._DEFAULT_SPECIFIED_DATA['collect_landscape'],
                                   **landscape)
            self._ckpt_dir = os.path.join(self._summary_dir, 'ckpt_dir')
            os.makedirs(self._ckpt_dir, exist_ok=True)
            self._landscape_points = {int(j) for interval in self._landscape['intervals']
                                      for j in interval}
        self._custom_lineage_data = self._process_custom_lineage_data(custom_lineage_data)
        self._num_process = num_process
        self._temp_optimizer = None
        self._is_parse_loss_success = True
        self._first_step = True
        self._first_collect = True
        self._owns_record = False
        self._saved_custom_data = False
        self._modes = []  # the modes of the runs in progress (train, then a nested eval)

    # -- arguments --------------------------------------------------------------------------

    @staticmethod
    def _make_directory(path):
        if not isinstance(path, str) or isinstance(path, bool):
            raise TypeError("The summary_dir is invalid, the type should be string.")
        if not path.strip():
            raise ValueError("The summary_dir is invalid, it should be non-blank.")
        path = os.path.realpath(os.path.expanduser(path))
        if os.path.exists(path) and not os.path.isdir(path):
            raise NotADirectoryError(f"The summary_dir {path} is a file, not a directory.")
        os.makedirs(path, exist_ok=True)
        return path

    def _check_positive(self, name, value, allow_none=False):
        if allow_none and value is None:
            return
        _check_type(name, value, (int,))
        if value <= 0:
            raise ValueError(f'For "{type(self).__name__}", the value of `{name}` should be '
                             f'greater than 0, but got `{value}`.')

    def _process_specified_data(self, specified_data, action):
        _check_type('collect_specified_data', specified_data, (dict, None))
        defaults = self._DEFAULT_SPECIFIED_DATA
        if not specified_data:
            return dict(defaults) if action else {}
        for key in specified_data:
            _check_type(key, key, (str,))
        unknown = set(specified_data) - set(defaults)
        if unknown:
            raise ValueError(f'For "{type(self).__name__}", the keys {unknown} of '
                             f'`collect_specified_data` are unsupported, expect the follow '
                             f'keys: {list(defaults)}')
        for key, value in specified_data.items():
            if key == 'histogram_regular':
                _check_type(key, value, (str, None))
                if isinstance(value, str):
                    try:
                        re.compile(value)
                    except re.error as e:
                        raise ValueError(f'For `collect_specified_data`, the value of '
                                         f'`histogram_regular` is not a valid regular '
                                         f'expression. Detail: {e}.') from e
            elif key == 'collect_landscape':
                _check_type(key, value, (dict, None))
            else:
                _check_type(key, value, (bool,))
        result = dict(defaults) if action else {}
        result.update(specified_data)
        return result

    def _check_collect_landscape_data(self, landscape):
        unknown = set(landscape) - set(_LANDSCAPE_TYPES)
        if unknown:
            raise ValueError(f'For "{type(self).__name__}", the keys {unknown} of '
                             f'`collect_landscape` are unsupported, expect the follow keys: '
                             f'{list(_LANDSCAPE_TYPES)}')
        check_landscape_options(type(self).__name__, landscape)

    @staticmethod
    def _process_custom_lineage_data(custom_lineage_data):
        _check_type('custom_lineage_data', custom_lineage_data, (dict, None))
        for key, value in (custom_lineage_data or {}).items():
            _check_type(f'custom_lineage_data -> {key}', key, (str,))
            _check_type(f'the value of custom_lineage_data -> {key}', value, (int, str, float))
        return custom_lineage_data

    # -- the record's life ------------------------------------------------------------------

    def __enter__(self):
        self._open_record()
        self._owns_record = False
        return self

    def __exit__(self, *err):
        self._close_record()

    def _open_record(self):
        if self._record is None:
            self._record = SummaryRecord(log_dir=self._summary_dir,
                                         max_file_size=self._max_file_size,
                                         raise_exception=False,
                                         export_options=self._export_options)
            self._owns_record = True
        self._first_step = True
        self._first_collect = True

    def _close_record(self):
        if self._record is not None:
            self._record.close()
            self._record = None

    def _check_callbacks(self, cb_params):
        callbacks = getattr(cb_params, 'list_callback', None) or []
        if sum(isinstance(cb, SummaryCollector) for cb in callbacks) > 1:
            raise ValueError(f"There are more than one {type(self).__name__} instance in "
                             f"callback list, but expected only one {type(self).__name__} "
                             f"instance.")

    # -- hooks --------------------------------------------------------------------------------

    def begin(self, run_context):
        cb_params = run_context.original_args()
        self._check_callbacks(cb_params)
        mode = getattr(cb_params, 'mode', ModeEnum.TRAIN.value)
        if mode not in ModeEnum.list_members():
            raise ValueError(f"Only support `train` (model.train) and `eval` (model.eval) "
                             f"mode, but got `{mode}` mode.")
        if not self._modes:
            self._open_record()
        self._modes.append(mode)  # an eval inside a train run nests
        self._record.set_mode(mode)
        if mode == ModeEnum.TRAIN.value and len(self._modes) == 1:
            self._collect_dataset_graph(cb_params)

    def on_eval_begin(self, run_context):
        self.begin(run_context)

    def on_eval_end(self, run_context):
        self.end(run_context)

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        if self._record is None:
            return
        if self._first_step:
            self._collect_input_data(cb_params)
            self._collect_graphs(cb_params)
            self._first_step = False
        step = int(getattr(cb_params, 'cur_step_num', 0))
        if self._is_collect_landscape and self._landscape['unit'] == 'step':
            self._save_landscape_params(cb_params, step)
        # collect_freq counts steps; in dataset sink mode (one step_end per sink) epochs, as
        # in MindSpore; the first step_end of a run always collects.
        count = int(getattr(cb_params, 'cur_epoch_num', 0)) \
            if getattr(cb_params, 'dataset_sink_mode', False) else step
        first, self._first_collect = self._first_collect, False
        if getattr(cb_params, 'mode', 'train') != ModeEnum.TRAIN.value:
            return
        main = count % self._collect_freq == 0 or first
        # TensorSummary values: every collect_tensor_freq steps when it is given, else with
        # the rest (MindSpore also caps them at 20 collections then; mycel does not).
        tensors = main if self._collect_tensor_freq is None else \
            (count % self._collect_tensor_freq == 0 or first)
        if not (main or tensors):
            return
        if main:
            self._collect_metric(cb_params)
            self._collect_histogram(cb_params)
        keep = None if main and tensors else \
            ((lambda p: p != 'tensor') if main else (lambda p: p == 'tensor'))
        self._record.record(step, plugin_filter=keep)

    def epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if self._is_collect_landscape and self._landscape['unit'] == 'epoch':
            self._save_landscape_params(cb_params, int(getattr(cb_params, 'cur_epoch_num', 0)))

    def end(self, run_context):
        cb_params = run_context.original_args()
        if self._record is None:
            return
        step = int(getattr(cb_params, 'cur_step_num', 0))
        mode = getattr(cb_params, 'mode', 'train')
        if mode == ModeEnum.TRAIN.value:
            if self._is_collect_landscape and self._model_params_file_map:
                self._save_landscape_metadata(cb_params)
            self._collect_metric(cb_params)
            if self._collect_specified_data.get('collect_train_lineage'):
                self._record.add_value(PluginEnum.TRAIN_LINEAGE.value, 'train_lineage',
                                       self._train_lineage(cb_params))
        elif self._collect_specified_data.get('collect_eval_lineage'):
            self._record.add_value(PluginEnum.EVAL_LINEAGE.value, 'eval_lineage',
                                   self._eval_lineage(cb_params))
        if self._custom_lineage_data and not self._saved_custom_data:
            self._saved_custom_data = True
            self._record.add_value(PluginEnum.CUSTOM_LINEAGE_DATA.value, 'custom_lineage_data',
                                   self._user_defined_info())
        self._record.record(step)
        self._record.flush()
        if self._modes:
            self._modes.pop()
        if self._modes:
            self._record.set_mode(self._modes[-1])  # back to the run the eval was part of
        elif self._owns_record:
            self._close_record()

    # -- what is collected ------------------------------------------------------------------

    def _save_landscape_params(self, cb_params, point):
        """The backbone's parameters at a step (or epoch) of a landscape interval."""
        if getattr(cb_params, 'mode', 'train') != ModeEnum.TRAIN.value or \
                point not in self._landscape_points:
            return
        from mycel.train.serialization import save_checkpoint
        network = getattr(cb_params, 'network', None) or getattr(cb_params, 'train_network')
        path = os.path.join(self._ckpt_dir, f"{self._landscape['unit']}_{point}.ckpt")
        save_checkpoint(network, path)
        self._model_params_file_map[str(point)] = path

    def _save_landscape_metadata(self, cb_params):
        """train_metadata.json: what SummaryLandscape needs to draw the recorded intervals."""
        import json
        meta = {
            'epoch_group': {str(i): list(v) for i, v in enumerate(self._landscape['intervals'])},
            'model_params_file_map': dict(self._model_params_file_map),
            'step_per_epoch': int(getattr(cb_params, 'batch_num', 1) or 1),
            'unit': self._landscape['unit'],
            'num_samples': self._landscape['num_samples'],
            'landscape_size': self._landscape['landscape_size'],
            'create_landscape': dict(self._landscape['create_landscape']),
        }
        with open(os.path.join(self._ckpt_dir, 'train_metadata.json'), 'w',
                  encoding='utf-8') as f:
            json.dump(meta, f)

    def _collect_input_data(self, cb_params):
        if not self._collect_specified_data.get('collect_input_data'):
            return
        element = getattr(cb_params, 'train_dataset_element', None)
        if isinstance(element, (list, tuple)):
            element = element[0] if element else None
        from mycel.common.tensor import Tensor
        if not isinstance(element, Tensor) or element.ndim != 4 or \
                element.shape[1] not in (1, 3):
            self._collect_specified_data['collect_input_data'] = False
            return
        self._record.add_value(PluginEnum.IMAGE.value, 'input_data/auto', element)

    def _collect_dataset_graph(self, cb_params):
        """The training dataset's pipeline as a DatasetGraph lineage value ("train_dataset"),
        written with the next record."""
        from mycel.train.summary._dataset_graph import dataset_graph_message
        if not self._collect_specified_data.get('collect_dataset_graph'):
            return
        dataset = getattr(cb_params, 'train_dataset', None)
        if dataset is None:
            return
        self._record.add_value(PluginEnum.DATASET_GRAPH.value, 'train_dataset',
                               dataset_graph_message(dataset))

    def _collect_graphs(self, cb_params):
        """The training step's graph ("train_network/auto"), compiled once more for the first
        batch, in GRAPH mode only (as MindSpore: PYNATIVE has no graph to show)."""
        from mycel import context
        from mycel import _mycel as _C
        from mycel.train import summary_pb2
        if not self._collect_specified_data.get('collect_graph') or \
                getattr(cb_params, 'mode', 'train') != ModeEnum.TRAIN.value:
            return
        if context.get_context('mode') != context.GRAPH_MODE:
            logger.info("SummaryCollector: the graph is collected in GRAPH mode only.")
            return
        network = getattr(cb_params, 'train_network', None)
        inputs = getattr(cb_params, 'train_dataset_element', None)
        if network is None or not isinstance(inputs, (list, tuple)):
            return
        try:
            data = _C._summary_graph(type(network).construct.__get__(network), list(inputs),
                                     type(network).__name__)
        except (TypeError, ValueError, RuntimeError) as e:
            logger.warning(f"SummaryCollector: the graph of {type(network).__name__} could not "
                           f"be compiled for the summary: {e}")
            return
        graph = summary_pb2.GraphProto()
        graph.ParseFromString(data)
        self._record.add_value(PluginEnum.GRAPH.value, 'train_network/auto', graph)

    def _collect_metric(self, cb_params):
        if not self._collect_specified_data.get('collect_metric'):
            return
        loss = self._get_loss(cb_params)
        if loss is not None:
            self._record.add_value(PluginEnum.SCALAR.value, 'loss/auto', loss)

    def _get_loss(self, cb_params):
        """The loss of the last step as a float32 scalar Tensor: the network's output, or
        the mean of its first element when it is a tuple/list or a non-scalar tensor; None
        (and no further tries) when the output holds no number."""
        from mycel.common.tensor import Tensor
        if not self._is_parse_loss_success:
            return None
        output = getattr(cb_params, 'net_outputs', None)
        if output is None:
            self._is_parse_loss_success = False
            return None
        if isinstance(output, (list, tuple)):
            output = output[0] if output else None
        if isinstance(output, (int, float)) and not isinstance(output, bool):
            output = Tensor(np.array(output, np.float32))
        if not isinstance(output, Tensor):
            self._is_parse_loss_success = False
            return None
        value = output.asnumpy().astype(np.float32)
        return Tensor(np.array(value.mean() if value.size else np.nan, np.float32))

    def _get_optimizer(self, cb_params):
        """The run's optimizer: cb_params.optimizer, else the Optimizer cell inside the
        network; remembered ('Failed' when there is none)."""
        if self._temp_optimizer == 'Failed':
            return None
        if self._temp_optimizer is not None:
            return self._temp_optimizer
        optimizer = getattr(cb_params, 'optimizer', None)
        if optimizer is None:
            mode = getattr(cb_params, 'mode', 'train')
            network = getattr(cb_params, 'train_network' if mode == 'train' else
                              'eval_network', None)
            optimizer = self._find_optimizer(network)
        self._temp_optimizer = optimizer if optimizer is not None else 'Failed'
        return optimizer

    @staticmethod
    def _find_optimizer(network):
        from mycel.nn.optim.optimizer import Optimizer
        if network is None:
            return None
        for value in vars(network).values():
            if isinstance(value, Optimizer):
                return value
        cells = getattr(network, '_cells', None) or {}
        for cell in cells.values():
            if isinstance(cell, Optimizer):
                return cell
        return None

    def _collect_histogram(self, cb_params):
        if 'histogram_regular' not in self._collect_specified_data:
            return
        optimizer = self._get_optimizer(cb_params)
        if optimizer is None:
            return
        regular = self._collect_specified_data.get('histogram_regular')
        params = list(optimizer.parameters)
        if regular is not None:
            params = [p for p in params if re.match(regular, p.name)]
        else:
            params = params[:5]  # MindSpore's default: the first five parameters
        for p in params:
            self._record.add_value(PluginEnum.HISTOGRAM.value, p.name + '/auto', p)

    def _train_lineage(self, cb_params):
        """The run's TrainLineage: optimizer, learning rate, loss function, epochs, batch
        size, parallel mode; the dataset's path and samples per epoch; the network and its
        last loss; the last checkpoint a ModelCheckpoint wrote."""
        from mycel.train import lineage_pb2
        msg = lineage_pb2.TrainLineage()
        hp = msg.hyper_parameters
        optimizer = self._get_optimizer(cb_params)
        if optimizer is not None:
            hp.optimizer = type(optimizer).__name__
            lr = _learning_rate(optimizer)
            if lr is not None:
                hp.learning_rate = lr
        loss_fn = getattr(cb_params, 'loss_fn', None)
        if loss_fn is not None:
            hp.loss_function = type(loss_fn).__name__
        hp.epoch = int(getattr(cb_params, 'epoch_num', 0) or 0)
        batch_size = int(getattr(cb_params, 'batch_size', 0) or 0)
        hp.batch_size = batch_size
        from mycel.parallel import get_auto_parallel_context
        hp.parallel_mode = str(get_auto_parallel_context('parallel_mode'))
        hp.device_num = int(get_auto_parallel_context('device_num') or 1)
        dataset = getattr(cb_params, 'train_dataset', None)
        path = _dataset_path(dataset)
        if path:
            msg.train_dataset.train_dataset_path = path
        batches = int(getattr(cb_params, 'batch_num', 0) or 0)
        msg.train_dataset.train_dataset_size = max(batches, 0) * max(batch_size, 1)
        network = getattr(cb_params, 'network', None) or getattr(cb_params, 'train_network',
                                                                  None)
        if network is not None:
            msg.algorithm.network = type(network).__name__
        loss = self._get_loss(cb_params)
        if loss is not None:
            msg.algorithm.loss = float(loss.asnumpy())
        ckpt = _last_checkpoint(getattr(cb_params, 'list_callback', None) or [])
        if ckpt:
            msg.model.path = ckpt
            msg.model.size = os.path.getsize(ckpt)
        return msg

    @staticmethod
    def _eval_lineage(cb_params):
        """The evaluation's metrics (a JSON object) and its dataset's path and size."""
        import json
        from mycel.train import lineage_pb2
        msg = lineage_pb2.EvaluationLineage()
        metrics = getattr(cb_params, 'metrics', None) or {}
        msg.metric = json.dumps({k: (float(v) if np.isscalar(v) else str(v))
                                 for k, v in dict(metrics).items()})
        dataset = getattr(cb_params, 'valid_dataset', None)
        path = _dataset_path(dataset)
        if path:
            msg.valid_dataset.valid_dataset_path = path
        size = getattr(dataset, 'get_dataset_size', None)
        batch = getattr(dataset, 'get_batch_size', None)
        if size is not None and batch is not None:
            msg.valid_dataset.valid_dataset_size = max(int(size()), 0) * int(batch())
        return msg

    def _user_defined_info(self):
        """custom_lineage_data as a UserDefinedInfo: ints, strs and floats in their maps."""
        from mycel.train import lineage_pb2
        msg = lineage_pb2.UserDefinedInfo()
        for key, value in self._custom_lineage_data.items():
            if isinstance(value, int):
                msg.map_int32[key] = value
            elif isinstance(value, float):
                msg.map_double[key] = value
            else:
                msg.map_str[key] = value
        return msg


def _learning_rate(optimizer):
    get_lr = getattr(optimizer, 'get_lr', None)
    try:
        lr = get_lr() if get_lr is not None else None
        if lr is None:
            return None
        value = np.asarray(lr.asnumpy() if hasattr(lr, 'asnumpy') else lr, np.float64)
        return float(value.reshape(-1)[0]) if value.size else None
    except (TypeError, ValueError, RuntimeError):
        return None


def _dataset_path(dataset):
    """The folder or first file a dataset pipeline reads (its source's dataset_dir or
    dataset_files), '' when none is known."""
    seen = 0
    todo = [dataset] if dataset is not None else []
    while todo and seen < 1000:
        node = todo.pop()
        seen += 1
        for attr in ('dataset_dir', 'dataset_file', 'dataset_files'):
            value = getattr(node, attr, None)
            if isinstance(value, (list, tuple)) and value:
                value = value[0]
            if isinstance(value, str) and value:
                return os.path.realpath(value)
        todo.extend(getattr(node, 'children', None) or [])
    return ''


def _last_checkpoint(callbacks):
    for cb in callbacks:
        path = getattr(cb, 'latest_ckpt_file_name', None)
        if isinstance(path, str) and os.path.isfile(path):
            return path
    return ''


__all__ = ["SummaryCollector"]

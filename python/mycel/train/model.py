"""Model: MindSpore's high-level training API (``mindspore.train.Model``).

``Model(network, loss_fn, optimizer, metrics)`` builds the training step
``TrainOneStepCell(WithLossCell(network, loss_fn), optimizer)`` and an evaluation network
returning (loss, logits, label); ``train`` runs epochs over a dataset with callbacks, ``eval``
returns the metrics, ``predict`` runs the network. The steps run in the current mode: in GRAPH
mode each is one compiled graph, so a training step is one call into C++.
"""
import time
from types import SimpleNamespace

import numpy as np

from mycel import _mycel as _C
from mycel import amp, context
from mycel.boost import AutoBoost, BoostTrainOneStepCell
from mycel.nn.cell import Cell
from mycel.nn.optim.optimizer import Optimizer
from mycel.nn.wrap import TrainOneStepCell, WithLossCell, WithEvalCell
from mycel.train.callback import CallbackList, RunContext
from mycel.train.data_sink import _IterSink, _Sink, _check_dataset, _check_sink_size
from mycel.train.metrics import Loss
from mycel.train.metric_factory import get_metrics


def _batches(dataset, name, num_epochs=1):
    """An iterable whose ``for`` loops give the epochs' batches. A mycel Dataset gives one
    engine iterator for all epochs: its threads prepare the next epoch's first batches while
    the current one trains, and batches arrive as Tensors without per-sample Python work."""
    if hasattr(dataset, "create_tuple_iterator"):
        return dataset.create_tuple_iterator(num_epochs=num_epochs)
    if hasattr(dataset, "__iter__"):
        return _Reiterable(dataset)
    raise TypeError(f"For 'Model.{name}', the dataset must be a mycel.dataset Dataset or an "
                    f"iterable of (data, label) tuples, but got {type(dataset).__name__}.")


def _reset(dataset):
    """Rewinds a dataset that is not a mycel Dataset but has reset() (a user's iterator
    class, MindSpore's dataset stubs) after an epoch or an evaluation, as MindSpore's Model
    does; a mycel Dataset's iterator starts each pass afresh by itself."""
    reset = getattr(dataset, "reset", None)
    if callable(reset) and not hasattr(dataset, "_start_pipeline"):
        reset()


class _Reiterable:
    """A plain iterable as an epoch source: each ``for`` loop iterates it afresh."""

    def __init__(self, data):
        self._data = data

    def __iter__(self):
        return iter(self._data)


def _size(dataset):
    if hasattr(dataset, "get_dataset_size"):
        return dataset.get_dataset_size()
    try:
        return len(dataset)
    except TypeError:
        return -1


class Model:
    """Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
    eval_indexes=None, amp_level='O0', boost_level='O0', **kwargs): train, evaluate and
    predict with `network`.

    With loss_fn and optimizer, ``train`` steps ``TrainOneStepCell(WithLossCell(network,
    loss_fn), optimizer)``; without a loss_fn, `network` must already return the loss and
    ``train`` steps ``TrainOneStepCell(network, optimizer)``; without an optimizer, `network`
    is the training step itself. ``eval`` needs metrics and either a loss_fn or an
    eval_network returning (loss, outputs, label) (eval_indexes picks them from a longer
    output).

    Mixed precision: with amp_level O1-O3 or a loss_scale_manager (kwargs, with
    keep_batchnorm_fp32 and cast_model_type), the training step is
    ``amp.build_train_network(network, optimizer, loss_fn, amp_level, **kwargs)``: the network
    computes in bfloat16 by the level's rules, the loss in float32, and a loss-scale manager
    with an update cell makes it a TrainOneStepWithLossScaleCell (overflowing steps are
    skipped). Without an optimizer the network is set up with ``amp.auto_mixed_precision``.

    Gradient accumulation (MindSpore's boost): with boost_level "O1" or "O2" and
    ``boost_config_dict={"boost": {"mode": "manual", "grad_accumulation": True},
    "grad_accumulation": {"grad_accumulation_step": k}}`` the training step is
    ``boost.BoostTrainOneStepCell``: the weights change every k-th step, by the mean gradient
    of the last k batches (k batches of b rows train as one batch of k*b rows).
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level="O0", boost_level="O0", **kwargs):
        if not isinstance(network, Cell):
            raise TypeError(f"For 'Model', the 'network' must be a Cell, but got "
                            f"{type(network).__name__}.")
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'Model', the 'optimizer' must be an nn Optimizer, but got "
                            f"{type(optimizer).__name__}.")
        if amp_level not in ("O0", "O1", "O2", "O3", "auto"):
            raise ValueError(f"For 'Model', the 'amp_level' must be one of O0, O1, O2, O3, "
                             f"auto, but got {amp_level!r}.")
        if amp_level == "auto":  # MindSpore's per-device recommendation: O0 on a CPU
            amp_level = "O0"
        if eval_indexes is not None and (not isinstance(eval_indexes, list) or
                                         len(eval_indexes) != 3 or eval_network is None):
            raise ValueError("For 'Model', 'eval_indexes' needs an 'eval_network' and a list of "
                             "three indexes (loss, outputs, label).")
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._metric_fns = get_metrics(metrics)
        if self._metric_fns and eval_network is None and loss_fn is None:
            raise ValueError("For 'Model', if 'metrics' is set, 'eval_network' or 'loss_fn' must "
                             "not be None (the metrics need an evaluation network).")
        self._eval_indexes = tuple(eval_indexes) if eval_indexes is not None else (0, 1, 2)
        use_amp = amp_level != "O0" or kwargs.get("loss_scale_manager") is not None
        accumulate = AutoBoost(boost_level,
                               kwargs.pop("boost_config_dict", "")).grad_accumulation_step
        if accumulate > 1 and (optimizer is None or use_amp):
            raise ValueError("For 'Model', gradient accumulation (boost_config_dict) needs an "
                             "optimizer and is not built together with mixed precision or a "
                             "loss-scale manager.")
        if accumulate > 1:
            step_net = WithLossCell(network, loss_fn) if loss_fn is not None else network
            self._train_network = BoostTrainOneStepCell(step_net, optimizer,
                                                        grad_accumulation_step=accumulate)
        elif optimizer is not None and use_amp:
            self._train_network = amp.build_train_network(network, optimizer, loss_fn,
                                                          amp_level, boost_level, **kwargs)
        elif optimizer is not None:
            step_net = WithLossCell(network, loss_fn) if loss_fn is not None else network
            self._train_network = TrainOneStepCell(step_net, optimizer)
        else:
            if amp_level != "O0":
                amp.auto_mixed_precision(network, amp_level,
                                         kwargs.get("cast_model_type", _C.bfloat16))
            self._train_network = network
        if eval_network is not None:
            self._eval_network = eval_network
        elif loss_fn is not None:
            self._eval_network = WithEvalCell(network, loss_fn, amp_level in ("O2", "O3"))
        else:
            self._eval_network = None

    @property
    def train_network(self):
        """The training step cell."""
        return self._train_network

    @property
    def predict_network(self):
        """The network predict() runs."""
        return self._network

    @property
    def eval_network(self):
        """The (loss, outputs, label) network eval() runs."""
        return self._eval_network

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False, sink_size=-1,
              initial_epoch=0):
        """Trains for epochs initial_epoch+1 .. epoch over train_dataset (each batch a tuple
        passed to the training step), calling the callbacks' hooks.

        With dataset_sink_mode (train_dataset must be a mycel.dataset Dataset) the steps run
        in sinks (see mycel.data_sink): in GRAPH mode the compiled step loops in C++ over the
        data engine's batches; in PYNATIVE mode, as MindSpore, a Python loop runs the same
        steps. Each epoch is one sink, and the callbacks see one step per sink
        (cur_step_num advances by the sink's steps, net_outputs is its last output).
        sink_size=-1 sinks each epoch of the dataset whole; sink_size=n makes each epoch n
        steps, the dataset repeated as needed (the next epoch goes on where the last ended),
        as MindSpore's."""
        self._train(epoch, train_dataset, callbacks, initial_epoch,
                    dataset_sink_mode=dataset_sink_mode, sink_size=sink_size)

    def _train(self, epoch, train_dataset, callbacks, initial_epoch, valid_dataset=None,
               valid_frequency=1, dataset_sink_mode=False, sink_size=-1):
        """train's loop; with valid_dataset (fit), eval runs before on_train_epoch_end every
        valid_frequency epochs, its result in cb_params.eval_results and self.eval_results."""
        if not isinstance(epoch, int) or isinstance(epoch, bool) or epoch <= 0:
            raise ValueError(f"For 'Model.train', the 'epoch' must be a positive int, but got "
                             f"{epoch!r}.")
        if not isinstance(initial_epoch, int) or isinstance(initial_epoch, bool):
            raise TypeError(f"For 'Model.train', the 'initial_epoch' must be an int, but got "
                            f"{type(initial_epoch).__name__}.")
        if not 0 <= initial_epoch < epoch:
            raise ValueError(f"For 'Model.train', the 'initial_epoch' must be in [0, {epoch}), "
                             f"but got {initial_epoch!r}.")
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"For 'Model.train', the 'dataset_sink_mode' must be a bool, but "
                            f"got {type(dataset_sink_mode).__name__}.")
        sink = None
        if dataset_sink_mode:
            sink, sink_steps = self._start_sink(train_dataset, sink_size, epoch - initial_epoch)
        cbs = CallbackList(callbacks)
        batch_num = sink_steps if sink is not None else _size(train_dataset)
        get_bs = getattr(train_dataset, "get_batch_size", None)
        p = SimpleNamespace(train_network=self._train_network, network=self._network,
                       optimizer=self._optimizer, loss_fn=self._loss_fn, epoch_num=epoch,
                       cur_epoch_num=initial_epoch, batch_num=batch_num, cur_step_num=0,
                       cur_step_in_epoch=0,
                       net_outputs=None, train_dataset=train_dataset, mode="train",
                       batch_size=get_bs() if get_bs else 1,
                       dataset_sink_mode=sink is not None)
        p.list_callback = list(cbs._cbs)  # (SummaryCollector checks it holds one of it)
        ctx = RunContext(p)
        self._train_network.set_train(True)
        cbs.on_train_begin(ctx)
        # a callback restoring a run (BackupAndRestore) may advance cur_epoch_num: the run
        # goes on from there
        if isinstance(p.cur_epoch_num, int) and initial_epoch < p.cur_epoch_num < epoch:
            initial_epoch = p.cur_epoch_num
        step = initial_epoch * max(batch_num, 0)
        # (in sink mode each epoch is one sink, and the step-by-step loop below has nothing)
        batches = () if sink is not None else \
            _batches(train_dataset, "train", epoch - initial_epoch)
        for e in range(initial_epoch + 1, epoch + 1):
            p.cur_epoch_num = e
            cbs.on_train_epoch_begin(ctx)
            n = 0
            if sink is not None:
                cbs.on_train_step_begin(ctx)
                p.net_outputs, n = sink.run(sink_steps, cross_epochs=sink_size != -1)
                step += n
                p.cur_step_num, p.cur_step_in_epoch = step, n
                cbs.on_train_step_end(ctx)
            for data in batches:
                if not isinstance(data, (tuple, list)):
                    data = (data,)
                step += 1
                n += 1
                p.cur_step_num = step
                p.cur_step_in_epoch = n
                p.train_dataset_element = data  # the step's inputs (SummaryCollector)
                cbs.on_train_step_begin(ctx)
                p.net_outputs = self._train_network(*data)
                cbs.on_train_step_end(ctx)
                if ctx.get_stop_requested():
                    break
            if sink is None:
                _reset(train_dataset)
            if p.batch_num < 0:
                p.batch_num = n
            if valid_dataset is not None and e % valid_frequency == 0:
                t0 = time.perf_counter()
                p.eval_results = self.eval(valid_dataset, callbacks)
                self.eval_results.append((e, p.eval_results))
                print(f"eval epoch {e}: {p.eval_results} ({time.perf_counter() - t0:.1f} s)",
                      flush=True)
                self._train_network.set_train(True)
                p.metrics = p.eval_results  # MindSpore's name (LossMonitor prints it)
            cbs.on_train_epoch_end(ctx)
            vars(p).pop("eval_results", None)
            vars(p).pop("metrics", None)
            if ctx.get_stop_requested():
                break
        for it in (batches, sink):
            if hasattr(it, "stop"):
                it.stop()
        cbs.on_train_end(ctx)
        self._train_network.set_train(False)

    def _start_sink(self, dataset, sink_size, epochs):
        """The sink of a sinking train run over `epochs` epochs and its steps per epoch: the
        dataset's size with sink_size=-1 (each epoch one pass of the dataset), else
        sink_size over as many passes as the epochs take. A dataset that is not a mycel
        Dataset (an iterable of batches) sinks in a Python loop (_IterSink)."""
        _check_sink_size("Model.train", sink_size, allow_all=True)
        plain = not hasattr(dataset, "_start_pipeline")  # a user's iterable: a Python loop
        if plain and not hasattr(dataset, "__iter__"):
            _check_dataset("Model.train", dataset)  # (its TypeError)
        size = _size(dataset) if plain else _check_dataset("Model.train", dataset)
        if size == 0:
            raise ValueError("For 'Model.train', the dataset has no batches.")
        if sink_size == -1 and size < 0:
            raise ValueError("For 'Model.train', an infinite dataset needs a positive "
                             "'sink_size' in sink mode.")
        steps = size if sink_size == -1 else sink_size
        passes = epochs if sink_size == -1 else -1
        if sink_size != -1 and size > 0:
            passes = -(-epochs * sink_size // size)
        if plain:
            return _IterSink(self._train_network, dataset, passes), steps
        compile_fn = context.get_context("mode") == context.GRAPH_MODE
        return _Sink(self._train_network, dataset, passes, compile_fn), steps

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """{metric name: value} over valid_dataset (batches of (data, label))."""
        if self._eval_network is None or not self._metric_fns:
            raise ValueError("For 'Model.eval', the Model needs metrics and a loss_fn (or an "
                             "eval_network).")
        cbs = CallbackList(callbacks)
        for m in self._metric_fns.values():
            m.clear()
        p = SimpleNamespace(eval_network=self._eval_network, valid_dataset=valid_dataset,
                       batch_num=_size(valid_dataset), cur_step_num=0, net_outputs=None,
                       metrics=None, mode="eval")
        ctx = RunContext(p)
        self._eval_network.set_train(False)
        cbs.on_eval_begin(ctx)
        cbs.on_eval_epoch_begin(ctx)
        li, oi, yi = self._eval_indexes
        for data in _batches(valid_dataset, "eval"):
            p.cur_step_num += 1
            cbs.on_eval_step_begin(ctx)
            out = self._eval_network(*data)
            p.net_outputs = out
            for name, m in self._metric_fns.items():
                if isinstance(m, Loss):
                    m.update(out[li])
                else:
                    m.update(out[oi], out[yi])
            cbs.on_eval_step_end(ctx)
        _reset(valid_dataset)
        p.metrics = {name: m.eval() for name, m in self._metric_fns.items()}
        cbs.on_eval_epoch_end(ctx)
        cbs.on_eval_end(ctx)
        return p.metrics

    def predict(self, *predict_data, backend=None, config=None):
        """The network's output on predict_data (inference mode). backend None runs the
        network itself; "lite" (MindSpore's) runs it in the lite runtime: the network is
        exported (MINDIR) for these inputs' shapes and dtypes, converted and built once
        (again when they change), and its outputs come back as Tensors. config: a
        ``mycel.lite.Context`` for the lite model (threads, precision), lite only."""
        if backend not in (None, "lite"):
            raise ValueError(f"For 'Model.predict', the 'backend' must be None or 'lite', but "
                             f"got {backend!r}.")
        if config is not None and backend != "lite":
            raise ValueError("For 'Model.predict', 'config' is for backend='lite' only.")
        self._network.set_train(False)
        if backend == "lite":
            return self._predict_lite(predict_data, config)
        return self._network(*predict_data)

    def _predict_lite(self, predict_data, config):
        """predict with backend='lite' (see predict)."""
        import contextlib
        import io
        import os
        import tempfile
        from mycel.lite.converter import Converter, FmkType
        from mycel.lite.model import Model as LiteModel, ModelType
        from mycel.train.export import export
        for i, x in enumerate(predict_data):
            if not isinstance(x, _C.Tensor):
                raise TypeError(f"For 'Model.predict', backend='lite' takes Tensor inputs, but "
                                f"input {i} is {type(x).__name__}.")
        key = (tuple((tuple(x.shape), str(x.dtype)) for x in predict_data), id(config))
        # the weights as built into the lite model: a change (more training, a loaded
        # checkpoint) rebuilds it
        weights = [p.asnumpy() for p in self._network.get_parameters()]
        cached = self.__dict__.get("_lite_predict")
        if cached is None or cached[0] != key or len(cached[2]) != len(weights) or \
                not all(np.array_equal(a, b) for a, b in zip(cached[2], weights)):
            with tempfile.TemporaryDirectory(prefix="mycel_predict_lite_") as d:
                net = os.path.join(d, "net")
                export(self._network, *predict_data, file_name=net, file_format="MINDIR")
                with contextlib.redirect_stdout(io.StringIO()):  # (the conversion's report)
                    Converter().convert(FmkType.MINDIR, net + ".mindir", net)
                lite = LiteModel()
                lite.build_from_file(net + ".ms", ModelType.MINDIR_LITE, config)
            cached = self._lite_predict = (key, lite, [w.copy() for w in weights])
        outs = [_C.Tensor(o.get_data_to_numpy()) for o in
                cached[1].predict([x.asnumpy() for x in predict_data])]
        return outs[0] if len(outs) == 1 else tuple(outs)

    def fit(self, epoch, train_dataset, valid_dataset=None, valid_frequency=1, callbacks=None,
            initial_epoch=0, **kwargs):
        """train, with eval on valid_dataset every valid_frequency epochs, in one run of the
        callbacks (their on_eval_* hooks too). Each result is printed, given to
        on_train_epoch_end as cb_params.eval_results and kept in ``self.eval_results``, a list
        of (epoch, metrics)."""
        if not isinstance(valid_frequency, int) or isinstance(valid_frequency, bool) or \
                valid_frequency <= 0:
            raise ValueError(f"For 'Model.fit', the 'valid_frequency' must be a positive int, "
                             f"but got {valid_frequency!r}.")
        if valid_dataset is not None and (self._eval_network is None or not self._metric_fns):
            raise ValueError("For 'Model.fit', a valid_dataset needs a Model with metrics and a "
                             "loss_fn (or an eval_network).")
        self.eval_results = []
        self._train(epoch, train_dataset, callbacks, initial_epoch, valid_dataset,
                    valid_frequency)

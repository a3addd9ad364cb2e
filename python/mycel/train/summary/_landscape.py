"""SummaryLandscape (MindSpore 2.x): loss landscapes of a training run, written as summary
values (LossLandscape, src/serialize/summary.proto) that MindInsight draws.

SummaryCollector with ``collect_specified_data={"collect_landscape": {...}}`` saves the
network's parameters at the steps (or epochs) of each interval into ``<summary_dir>/ckpt_dir``
and, at the end of training, ``train_metadata.json`` (the intervals, the checkpoint of each
step, steps per epoch, the landscape options). ``gen_landscapes_with_multi_process`` then
computes, for each interval (``create_landscape["train"]``), the loss over the plane through
the interval's final parameters spanned by the two principal directions of its path (the
parameter vectors minus the final one, as in Li et al., "Visualizing the Loss Landscape of
Neural Nets"), with the path itself projected onto the plane (orthonormal directions, so
the plane holds the path when it spans two dimensions; MindSpore rescales them per tensor,
which bends the path off the plane); and (``["result"]``) the loss around the last checkpoint
along two random directions, each scaled per parameter tensor to that tensor's norm ("filter
normalisation" at tensor granularity). Only parameters named weight/bias move, the others
stay at their final values. The loss is the ``Loss``
metric (or the first metric) of ``callback_fn``'s model over ``num_samples`` samples of its
dataset, the network in inference mode (no dropout, BatchNorm's running statistics).

mycel computes in the calling process: ``device_ids`` is checked and otherwise unused.
"""
import json
import os

import numpy as np

from mycel import log as logger
from mycel.train.summary.enums import PluginEnum
from mycel.train.summary.summary_record import SummaryRecord, _check_type

_LANDSCAPE_KEYS = ("landscape_size", "unit", "num_samples", "create_landscape", "intervals")
_METADATA_KEYS = ("epoch_group", "model_params_file_map", "step_per_epoch", "unit",
                  "num_samples", "landscape_size", "create_landscape")
_MARGIN = 0.2  # the PCA plane extends 20% beyond the path on each side
_RANDOM_EXTENT = 1.0  # the random plane spans [-1, 1] times the normalised directions


def _moves(name):
    return ("weight" in name or "bias" in name) and "moment" not in name


def check_landscape_options(owner, options):
    """Checks collect_landscape's keys, types and values (TypeError/ValueError naming the
    key, in MindSpore's words)."""
    for key in options:
        if key not in _LANDSCAPE_KEYS:
            raise ValueError(f'For "{owner}", the key of collect landscape should be '
                             f'landscape_size, unit, num_samples create_landscape or intervals, '
                             f'but got the: {key}. ')
    if "landscape_size" in options:
        size = _check_type("landscape_size", options["landscape_size"], (int,))
        if not 3 <= size <= 256:
            raise ValueError(f'For "{owner}", "landscape_size" should be between 3 and 256, '
                             f'but got the: {size}')
    if "unit" in options:
        unit = _check_type("unit", options["unit"], (str,))
        if unit not in ("step", "epoch"):
            raise ValueError(f'For "{owner}", the "unit" should be step or epoch, but got the: '
                             f'{unit}')
    if "num_samples" in options:
        _check_type("num_samples", options["num_samples"], (int,))
    if "create_landscape" in options:
        create = _check_type("create_landscape", options["create_landscape"], (dict,))
        for key, value in create.items():
            if key not in ("train", "result"):
                raise ValueError(f'For "{owner}", the key of "create_landscape" should be in '
                                 f'["train", "result"], but got the: {key}.')
            _check_type(key, value, (bool,))
    if "intervals" in options:
        for interval in _check_type("intervals", options["intervals"], (list,)):
            _check_type("each interval in intervals", interval, (list,))
            if len(interval) < 3:
                raise ValueError(f'For "{owner}", the length of each list in "intervals" should '
                                 f'not be less than three, but got the: {interval}.')
            for j in interval:
                if not isinstance(j, int) or isinstance(j, bool):
                    raise TypeError(f'For "{owner}", the type of each value in "intervals" '
                                    f'should be int, but got the: {type(j)}.')


class SummaryLandscape:
    """SummaryLandscape(summary_dir): creates the loss landscapes of the run that a
    SummaryCollector with collect_landscape recorded in summary_dir."""

    def __init__(self, summary_dir):
        _check_type("summary_dir", summary_dir, (str,))
        self._summary_dir = os.path.realpath(summary_dir)
        self._ckpt_dir = os.path.join(self._summary_dir, "ckpt_dir")
        os.makedirs(self._ckpt_dir, exist_ok=True)

    def clean_ckpt(self):
        """Removes the saved parameters (ckpt_dir)."""
        import shutil
        shutil.rmtree(self._ckpt_dir, ignore_errors=True)

    def gen_landscapes_with_multi_process(self, callback_fn, collect_landscape=None,
                                          device_ids=None, output=None):
        """Computes the landscapes and writes them into a summary file in `output` (default:
        the summary folder), one record each, tagged "landscape_[first, last]" (a PCA
        landscape of an interval) or "landscape_[last]" (the random one).

        callback_fn() -> (model, network, dataset, metrics): a Model whose loss function
        gives the loss, its network (whose parameters are moved), an evaluation dataset, and
        the metrics ({"Loss": Loss()}). collect_landscape overrides the recorded options
        (landscape_size, num_samples, create_landscape, intervals, unit)."""
        name = type(self).__name__
        device_ids = [0] if device_ids is None else device_ids
        _check_type("device_ids", device_ids, (list,))
        for i in device_ids:
            if not isinstance(i, int) or isinstance(i, bool):
                raise TypeError(f'For "{name}.gen_landscapes_with_multi_process", the parameter '
                                f'"device_ids" type should be int, but got the: {type(i)}.')
            if not 0 <= i <= 7:
                raise ValueError(f'For "{name}.gen_landscapes_with_multi_process", the parameter '
                                 f'"device_ids" should be between 0 and 7, but got {i}.')
        if collect_landscape is not None:
            _check_type("collect_landscape", collect_landscape, (dict,))
            check_landscape_options(name, collect_landscape)
        meta = self._metadata(collect_landscape)
        out = os.path.realpath(output) if output is not None else self._summary_dir
        with SummaryRecord(out) as record:
            for tag, landscape in self._landscapes(callback_fn, meta):
                record.add_value(PluginEnum.LANDSCAPE.value, tag, landscape)
                record.record(0)
                record.flush()

    # -- the recorded run -------------------------------------------------------------------

    def _metadata(self, overrides):
        path = os.path.join(self._ckpt_dir, "train_metadata.json")
        if not os.path.exists(path):
            raise FileNotFoundError(f'For "{type(self).__name__}", {path} does not exist: '
                                    f'train with a SummaryCollector collecting the landscape '
                                    f'(collect_specified_data["collect_landscape"]) first.')
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
        unknown = set(meta) - set(_METADATA_KEYS)
        if unknown:
            raise ValueError(f'"train_metadata" json file should be {list(_METADATA_KEYS)}, '
                             f'but got the: {sorted(unknown)}')
        for key, value in (overrides or {}).items():
            if key == "intervals":
                meta["epoch_group"] = {str(i): list(v) for i, v in enumerate(value)}
            else:
                meta[key] = value
        check_landscape_options(type(self).__name__,
                                {k: meta[k] for k in _LANDSCAPE_KEYS if k in meta})
        for steps in meta["epoch_group"].values():
            missing = [s for s in steps if str(s) not in meta["model_params_file_map"]]
            if len(steps) < 3 or missing:
                raise ValueError(f'For "{type(self).__name__}", each interval needs at least '
                                 f'three saved checkpoints, but {steps} lacks {missing}.')
        return meta

    def _load(self, meta, step):
        from mycel.train.serialization import load_checkpoint
        params = load_checkpoint(meta["model_params_file_map"][str(step)])
        return {k: v.asnumpy().astype(np.float32) for k, v in params.items()
                if hasattr(v, "asnumpy")}

    def _landscapes(self, callback_fn, meta):
        model, network, dataset, metrics = callback_fn()
        evaluator = _LossEvaluator(model, network, dataset, metrics, meta["num_samples"])
        size = meta["landscape_size"]
        create = meta["create_landscape"]
        groups = list(meta["epoch_group"].values())
        if create.get("train"):
            for steps in groups:
                logger.info(f"SummaryLandscape: PCA landscape of {steps}.")
                msg = self._pca_landscape(evaluator, [self._load(meta, s) for s in steps],
                                          steps, size)
                self._metadata_msg(msg, "PCA", meta)
                yield f"landscape_{[steps[0], steps[-1]]}", msg
        if create.get("result") and groups:
            last = groups[-1][-1]
            logger.info(f"SummaryLandscape: random landscape around {last}.")
            msg = self._random_landscape(evaluator, self._load(meta, last), size)
            self._metadata_msg(msg, "Random", meta)
            yield f"landscape_{[last]}", msg

    @staticmethod
    def _metadata_msg(msg, decomposition, meta):
        msg.metadata.decomposition = decomposition
        msg.metadata.unit = meta["unit"]
        msg.metadata.step_per_epoch = int(meta["step_per_epoch"])

    # -- the planes -------------------------------------------------------------------------

    @staticmethod
    def _flat(params, names):
        return np.concatenate([params[n].reshape(-1) for n in names]).astype(np.float64)

    @staticmethod
    def _split(vector, final, names):
        out, at = {}, 0
        for n in names:
            out[n] = vector[at:at + final[n].size].reshape(final[n].shape)
            at += final[n].size
        return out

    @staticmethod
    def _normalise(direction, final):
        """Each tensor of the direction scaled to the norm of the same parameter tensor."""
        for n, d in direction.items():
            norm = np.linalg.norm(d)
            direction[n] = d * (np.linalg.norm(final[n]) / norm) if norm > 0 else d * 0
        return direction

    def _pca_landscape(self, evaluator, path, steps, size):
        final = path[-1]
        names = [n for n in final if _moves(n)]
        if not names:
            raise ValueError("SummaryLandscape: the network has no parameter named weight or "
                             "bias to move.")
        origin = self._flat(final, names)
        diffs = np.stack([self._flat(p, names) - origin for p in path[:-1]])
        _, _, vt = np.linalg.svd(diffs, full_matrices=False)
        if vt.shape[0] < 2:
            raise ValueError("SummaryLandscape: the interval's path spans fewer than two "
                             "directions.")
        # The principal directions as they are (orthonormal): the plane then holds the
        # path's points exactly when they span two dimensions, and a point's coordinates are
        # its projections.
        v, w = self._split(vt[0], final, names), self._split(vt[1], final, names)
        coefs = np.array([[vt[0] @ (self._flat(p, names) - origin),
                           vt[1] @ (self._flat(p, names) - origin)] for p in path])
        axes = []
        for k in range(2):
            lo, hi = coefs[:, k].min(), coefs[:, k].max()
            span = hi - lo if hi > lo else 1.0
            axes.append(np.linspace(lo - _MARGIN * span, hi + _MARGIN * span, size))
        z = evaluator.grid(final, v, w, axes[0], axes[1])
        path_z = np.array([evaluator.at(final, v, w, a, b) for a, b in coefs])
        msg = _landscape_msg(axes[0], axes[1], z)
        msg.loss_path.intervals.extend(int(s) for s in steps)
        _fill_point(msg.loss_path.points, coefs[:, 0], coefs[:, 1], path_z)
        _fill_point(msg.convergence_point, np.zeros(1), np.zeros(1), path_z[-1:])
        return msg

    def _random_landscape(self, evaluator, final, size):
        names = [n for n in final if _moves(n)]
        rng = np.random.default_rng()
        v = self._normalise({n: rng.normal(size=final[n].shape) for n in names}, final)
        w = self._normalise({n: rng.normal(size=final[n].shape) for n in names}, final)
        axis = np.linspace(-_RANDOM_EXTENT, _RANDOM_EXTENT, size)
        z = evaluator.grid(final, v, w, axis, axis)
        msg = _landscape_msg(axis, axis, z)
        center = evaluator.at(final, v, w, 0.0, 0.0)
        _fill_point(msg.convergence_point, np.zeros(1), np.zeros(1), np.array([center]))
        return msg


def _fill_point(point, x, y, z):
    from mycel.train.summary._summary_adapter import fill_tensor_proto
    fill_tensor_proto("x", np.asarray(x, np.float32), point.x)
    fill_tensor_proto("y", np.asarray(y, np.float32), point.y)
    fill_tensor_proto("z", np.asarray(z, np.float32), point.z)


def _landscape_msg(x_axis, y_axis, z):
    from mycel.train import summary_pb2
    msg = summary_pb2.LossLandscape()
    _fill_point(msg.landscape, x_axis, y_axis, z)
    return msg


class _LossEvaluator:
    """The loss of callback_fn's network at given parameters, over num_samples samples."""

    def __init__(self, model, network, dataset, metrics, num_samples):
        from mycel.nn.wrap import WithLossCell
        from mycel.train.metric_factory import get_metric_fn
        loss_fn = getattr(model, "_loss_fn", None)
        self._net = WithLossCell(network, loss_fn) if loss_fn is not None else network
        self._params = {p.name: p for p in network.get_parameters()}
        if isinstance(metrics, dict) and metrics:
            key = "Loss" if "Loss" in metrics else next(iter(metrics))
            metric = metrics[key]
            self._metric = get_metric_fn(metric) if isinstance(metric, str) else metric
        else:
            from mycel.train.metrics import Loss
            self._metric = Loss()
        batch = dataset.get_batch_size() if hasattr(dataset, "get_batch_size") else 1
        batches = max(1, num_samples // max(1, batch))
        self._data = [tuple(b) for b in dataset.create_tuple_iterator(num_epochs=1)][:batches]
        if not self._data:
            raise ValueError("SummaryLandscape: callback_fn's dataset gives no batch.")

    def at(self, final, v, w, a, b):
        from mycel.common.tensor import Tensor
        for name, value in final.items():
            p = self._params.get(name)
            if p is None:
                continue
            new = value + a * v[name] + b * w[name] if name in v else value
            p.set_data(Tensor(np.asarray(new, np.float32)))
        self._net.set_train(False)
        self._metric.clear()
        for batch in self._data:
            self._metric.update(self._net(*batch))
        return float(self._metric.eval())

    def grid(self, final, v, w, x_axis, y_axis):
        return np.array([[self.at(final, v, w, a, b) for a in x_axis] for b in y_axis])

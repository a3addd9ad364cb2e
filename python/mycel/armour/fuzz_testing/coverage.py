"""Neuron coverage metrics of a network (MindArmour's ``NeuronCoverage``,
``TopKNeuronCoverage``, ``KMultisectionNeuronCoverage``, ``NeuronBoundsCoverage``; DeepXplore
and DeepGauge's criteria).

The neurons are the outputs of chosen sub-cells (default: every leaf cell owning Parameters,
e.g. LeNet's conv1, conv2, fc1, fc2, fc3), one per feature of a [N, F] output and one per
channel of a [N, C, ...] output (the channel's mean over the spatial positions, DeepXplore's
convention). They are read by running the network in PYNATIVE mode with each chosen sub-cell
temporarily replaced in its parent by a tap that records its output (a Cell shared by several
places is recorded at each call); the network is restored afterwards, Parameter names
unchanged.
"""
import contextlib

import numpy as np

from mycel import context
from mycel._mycel import Tensor
from mycel.amp import _replace
from mycel.nn.cell import Cell
from mycel.nn.layer._check import bool_, positive_int
from mycel.train.model import Model


class _Tap(Cell):
    """Runs a cell and appends its output (as numpy) to a list."""

    def __init__(self, op, sink):
        super().__init__(auto_prefix=False)
        self._op = op
        self._sink = sink

    def construct(self, *inputs):
        out = self._op(*inputs)
        self._sink.append(out.asnumpy())
        return out


def network_of(model, who):
    """The Cell a Model predicts with, or the Cell itself; a TypeError otherwise."""
    if isinstance(model, Model):
        return model.predict_network
    if isinstance(model, Cell):
        return model
    raise TypeError(f"For '{who}', the 'model' must be a mycel Model or Cell, but got "
                    f"{type(model).__name__}.")


def default_layers(network):
    """The names of the leaf sub-cells that own Parameters, in definition order."""
    return [name for name, cell in network.cells_and_names()
            if name and not cell._cells and cell._params]


@contextlib.contextmanager
def _tapped(network, names):
    """Within the block the network runs in PYNATIVE mode, in inference mode
    (set_train(False)), and the named sub-cells record their outputs into the yielded list."""
    sink = []
    swaps = []
    cells = dict(network.cells_and_names())
    for name in names:
        parent_name, _, attr = name.rpartition(".")
        parent = cells[parent_name]
        original = parent._cells[attr]
        _replace(parent, attr, _Tap(original, sink))
        swaps.append((parent, attr, original))
    mode, training = context.get_context("mode"), network.training
    context.set_context(mode=context.PYNATIVE_MODE)
    network.set_train(False)
    try:
        yield sink
    finally:
        context.set_context(mode=mode)
        network.set_train(training)
        for parent, attr, original in reversed(swaps):
            _replace(parent, attr, original)


def _neurons(out):
    """[N, neurons] of one recorded output: features of a 2-d output, channel means of a
    higher-rank one."""
    out = np.asarray(out, dtype=np.float64)
    if out.ndim == 1:
        return out[:, None]
    if out.ndim == 2:
        return out
    return out.reshape(out.shape[0], out.shape[1], -1).mean(-1)


class CoverageMetrics:
    """Base of the coverage metrics: reads the chosen layers' neurons for a batch of inputs
    (``activations``) and keeps what has been covered. ``get_metrics(dataset)`` (dataset a
    numpy array of inputs) returns the coverage in [0, 1]; with incremental=True the inputs of
    earlier calls count too."""

    _who = "CoverageMetrics"

    def __init__(self, model, incremental=False, batch_size=32, layers=None):
        self._network = network_of(model, self._who)
        self.incremental = bool_(incremental, "incremental", self._who)
        self.batch_size = positive_int(batch_size, "batch_size", self._who)
        known = dict(self._network.cells_and_names())
        self._layers = default_layers(self._network) if layers is None else list(layers)
        unknown = [n for n in self._layers if not n or n not in known]
        if unknown or not self._layers:
            raise ValueError(f"For '{self._who}', the 'layers' must name sub-cells of the "
                             f"network (e.g. {default_layers(self._network)}), but got "
                             f"{self._layers!r}.")
        self._state = None
        self._bounds = None

    @property
    def layers(self):
        """The names of the sub-cells whose outputs are the neurons."""
        return list(self._layers)

    def activations(self, data):
        """The neurons' values for the inputs `data` (numpy, batch first): [N, neurons]."""
        return self.run(data)[0]

    def run(self, data):
        """(neurons [N, neurons], the network's outputs [N, ...]) for the inputs `data`, in
        one forward pass per batch."""
        data = np.asarray(data)
        if data.ndim == 0 or data.shape[0] == 0:
            raise ValueError(f"For '{self._who}', the inputs must be a non-empty batch, but "
                             f"got shape {data.shape}.")
        rows, outputs = [], []
        with _tapped(self._network, self._layers) as sink:
            for s in range(0, data.shape[0], self.batch_size):
                del sink[:]
                out = self._network(Tensor(np.ascontiguousarray(data[s:s + self.batch_size])))
                outputs.append(out.asnumpy())
                layers = [_neurons(o) for o in sink]
                rows.append(np.hstack(layers))
        # where each recorded output's neurons start and end in a row
        self._bounds = np.cumsum([0] + [o.shape[1] for o in layers])
        return np.vstack(rows), np.concatenate(outputs)

    def get_metrics(self, dataset):
        """The coverage of `dataset` (and, with incremental, of the earlier inputs)."""
        if not self.incremental:
            self._state = None
        return self.update(self.activations(dataset))

    def update(self, acts):
        """Adds the neurons' values of more inputs ([N, neurons]) and returns the coverage."""
        if self._state is None:
            self._state = self._empty(acts.shape[1])
        self._cover(acts)
        return self._coverage()

    def reset(self):
        """Forgets what has been covered."""
        self._state = None

    def _empty(self, n):
        """The covered-state of n neurons, nothing covered (one flag per neuron)."""
        return np.zeros(n, bool)

    def _coverage(self):
        """The covered share of the state."""
        return float(self._state.mean())


class NeuronCoverage(CoverageMetrics):
    """NeuronCoverage(model, threshold=0.1, incremental=False, batch_size=32, layers=None):
    the fraction of neurons whose value exceeds `threshold` for at least one input."""

    _who = "NeuronCoverage"

    def __init__(self, model, threshold=0.1, incremental=False, batch_size=32, layers=None):
        super().__init__(model, incremental, batch_size, layers)
        self.threshold = float(threshold)

    def _cover(self, acts):
        self._state |= (acts > self.threshold).any(0)


class TopKNeuronCoverage(CoverageMetrics):
    """TopKNeuronCoverage(model, top_k=3, incremental=False, batch_size=32, layers=None): the
    fraction of neurons that are among the top_k largest of their layer for at least one
    input."""

    _who = "TopKNeuronCoverage"

    def __init__(self, model, top_k=3, incremental=False, batch_size=32, layers=None):
        super().__init__(model, incremental, batch_size, layers)
        self.top_k = positive_int(top_k, "top_k", self._who)

    def _cover(self, acts):
        for lo, hi in zip(self._bounds[:-1], self._bounds[1:]):
            layer = acts[:, lo:hi]
            k = min(self.top_k, hi - lo)
            top = np.argpartition(-layer, k - 1, axis=1)[:, :k]
            self._state[lo + top.reshape(-1)] = True


class _RangeCoverage(CoverageMetrics):
    """Coverage against each neuron's [low, high] range over the training inputs."""

    def __init__(self, model, train_dataset, incremental=False, batch_size=32, layers=None):
        super().__init__(model, incremental, batch_size, layers)
        train = self.activations(train_dataset)
        self.lower, self.upper = train.min(0), train.max(0)


class KMultisectionNeuronCoverage(_RangeCoverage):
    """KMultisectionNeuronCoverage(model, train_dataset, segmented_num=100, incremental=False,
    batch_size=32, layers=None): each neuron's range over train_dataset is cut into
    segmented_num equal sections; the coverage is the fraction of (neuron, section) pairs hit
    by some input (values outside the range hit none)."""

    _who = "KMultisectionNeuronCoverage"

    def __init__(self, model, train_dataset, segmented_num=100, incremental=False, batch_size=32,
                 layers=None):
        self.segmented_num = positive_int(segmented_num, "segmented_num", self._who)
        super().__init__(model, train_dataset, incremental, batch_size, layers)

    def _empty(self, n):
        return np.zeros((n, self.segmented_num), bool)

    def _cover(self, acts):
        width = self.upper - self.lower
        inside = (acts >= self.lower) & (acts <= self.upper) & (width > 0)
        safe = np.where(width > 0, width, 1.0)
        sec = np.floor((acts - self.lower) / safe * self.segmented_num).astype(np.int64)
        sec = np.clip(sec, 0, self.segmented_num - 1)  # the upper bound is in the last one
        rows, cols = np.nonzero(inside)
        self._state[cols, sec[rows, cols]] = True


class NeuronBoundsCoverage(_RangeCoverage):
    """NeuronBoundsCoverage(model, train_dataset, incremental=False, batch_size=32,
    layers=None): the fraction of the 2 x neurons corner regions (below the neuron's minimum
    over train_dataset, above its maximum) that some input reaches."""

    _who = "NeuronBoundsCoverage"

    def _empty(self, n):
        return np.zeros((n, 2), bool)

    def _cover(self, acts):
        self._state[:, 0] |= (acts < self.lower).any(0)
        self._state[:, 1] |= (acts > self.upper).any(0)


class SuperNeuronActivateCoverage(_RangeCoverage):
    """SuperNeuronActivateCoverage(model, train_dataset, incremental=False, batch_size=32,
    layers=None): the fraction of neurons that some input drives above their maximum over
    train_dataset (the upper corner regions of NeuronBoundsCoverage)."""

    _who = "SuperNeuronActivateCoverage"

    def _cover(self, acts):
        self._state |= (acts > self.upper).any(0)

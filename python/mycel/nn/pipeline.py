"""``nn.PipelineCell``: a network trained in pipeline stages over micro-batches (MindSpore's
``mindspore.nn.PipelineCell``). The rules (stages of cells, ranks, schedules, exchanges,
averaging) are in ``mycel/parallel/pipeline.py``; this is the Cell users hold."""
from mycel.common.tensor import Tensor
from mycel.nn.cell import Cell
from mycel.parallel import context as _ctx
from mycel.parallel import pipeline as _pp


class _StageNet(Cell):
    """One stage's units in order; the last stage's ends with the loss."""

    def __init__(self, cells, loss_fn=None):
        super().__init__(auto_prefix=False)  # the user's parameter names stay as they are
        for k, c in enumerate(cells):
            setattr(self, f"unit{k}", c)
        self._units = tuple(cells)
        self.loss_fn = loss_fn

    def construct(self, x, *labels):
        for c in self._units:
            x = c(x)
        if self.loss_fn is None:
            return x
        return self.loss_fn(x, *labels)


class PipelineCell(Cell):
    """PipelineCell(network, micro_size): trains `network` (a loss cell such as
    ``nn.WithLossCell(backbone, loss_fn)``, called as ``network(data, *labels)``) in pipeline
    stages (MindSpore's name and signature).

    The backbone's cells carry ``pipeline_stage`` (a cell's sub-cells inherit it); with
    ``set_auto_parallel_context(parallel_mode="semi_auto_parallel", pipeline_stages=S)`` in a
    job of N ranks, stage s runs on ranks s*N/S .. (s+1)*N/S-1, each holding a data-parallel
    share. Every rank is given the whole batch; it is split along axis 0 into `micro_size`
    micro-batches (each into the stage's N/S shares), which flow through the stages as
    ``pipeline_config["pipeline_scheduler"]`` orders ("1f1b", the default, or "gpipe").
    Train it with ``nn.TrainOneStepCell(pipeline_cell, optimizer)``, the optimizer made
    over ``pipeline_cell.trainable_params()`` (this rank's stage's parameters, as
    MindSpore's stages keep only theirs): a step returns the mean of the micro-batches'
    losses on the last stage's ranks, and on the others 0 (or, with
    ``pipeline_result_broadcast=True``, the last stage's loss), and updates each stage's
    parameters with the gradient of that mean. Calling the cell itself runs the forwards
    only and returns the same loss. Each stage's forward and backward are compiled (GRAPH
    mode's compiler, whatever the context's mode); the backbone's cells must form a chain.

    Raises ValueError when micro_size is below the stage count, a stage index is out of
    range, the stages do not divide the devices, a parameter has no stage, or the batch is
    not a multiple of micro_size times the data-parallel degree."""

    def __init__(self, network, micro_size):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"For 'PipelineCell', the 'network' must be a Cell, but got "
                            f"{type(network).__name__}.")
        if isinstance(micro_size, bool) or not isinstance(micro_size, int) or micro_size < 1:
            raise ValueError(f"For 'PipelineCell', the 'micro_size' must be a positive int, "
                             f"but got {micro_size!r}.")
        backbone = getattr(network, "_backbone", None)
        loss_fn = getattr(network, "_loss_fn", None)
        if not isinstance(backbone, Cell) or loss_fn is None:
            raise TypeError("For 'PipelineCell', the 'network' must be a loss cell with a "
                            "backbone and a loss function (nn.WithLossCell), but got "
                            f"{type(network).__name__}.")
        stages = _ctx.get_auto_parallel_context("pipeline_stages")
        if micro_size < stages:
            raise ValueError(f"For 'PipelineCell', the 'micro_size' ({micro_size}) must be at "
                             f"least pipeline_stages ({stages}).")
        devices = _ctx.get_auto_parallel_context("device_num")
        mode = _ctx._context["parallel_mode"]
        if (stages > 1 or devices > 1) and mode != _ctx.ParallelMode.SEMI_AUTO_PARALLEL:
            raise ValueError(f"For 'PipelineCell', pipeline_stages={stages} on {devices} "
                             "devices needs parallel_mode='semi_auto_parallel' (as MindSpore), "
                             f"but it is {mode!r}.")
        self.network = network
        self.micro_size = micro_size
        self._map = _pp.stage_of(backbone, stages, loss_fn)
        owner = _pp.param_stages(backbone, self._map)
        owner.update({id(p): stages - 1 for p in loss_fn.get_parameters()})
        self._owner = owner
        self._stages, self._dp, self._stage, self._dp_rank = _pp.layout(stages)
        # The other stages' parameters are never trained here: their values on this rank are
        # stale, so save_checkpoint leaves them out (each stage saves its own).
        for p in network.get_parameters():
            if owner.get(id(p), self._stage) != self._stage:
                p._pipeline_other_stage = owner[id(p)]
        self._runner = None

    def trainable_params(self, recurse=True):
        """The trainable parameters of this rank's stage (what its optimizer updates)."""
        return [p for p in self.network.trainable_params(recurse)
                if self._owner.get(id(p)) == self._stage]

    def construct(self, *inputs):
        raise TypeError("PipelineCell runs its stages by a schedule, not as one graph: call it "
                        "or train it with nn.TrainOneStepCell.")

    def __call__(self, *inputs):
        """The mean loss of the batch's micro-batches (forwards only)."""
        return self._run(inputs, None, None)

    @property
    def events(self):
        """The last step's (kind "F"/"B", micro-batch, start, end) of each of this rank's
        stage program runs (time.monotonic)."""
        return [] if self._runner is None else list(self._runner.events)

    @property
    def stage(self):
        """This rank's stage."""
        return self._stage

    def _train_step(self, optimizer, sens, inputs):
        """nn.TrainOneStepCell's step: (loss, after the optimizer's update)."""
        weights = list(optimizer.parameters)
        self._build(inputs)
        mine = {id(p): k for k, p in enumerate(self._runner.weights)}
        for p in weights:
            if id(p) not in mine:
                raise ValueError(f"For 'PipelineCell', the optimizer updates parameter "
                                 f"'{p.name}', which is not on this rank's stage "
                                 f"{self._stage}: make it over pipeline_cell.trainable_params().")
        return self._run(inputs, optimizer, (sens, [mine[id(p)] for p in weights]))

    def _micro(self, inputs):
        """[(data, labels)] for each micro-batch: this rank's share of it."""
        parts = self.micro_size * self._dp
        for x in inputs:
            if not isinstance(x, Tensor) or x.ndim == 0:
                raise TypeError("For 'PipelineCell', the inputs must be Tensors with a batch "
                                f"axis, but got {type(x).__name__}.")
            if x.shape[0] % parts:
                raise ValueError(f"For 'PipelineCell', the batch size {x.shape[0]} of an input "
                                 f"of shape {tuple(x.shape)} is not a multiple of micro_size "
                                 f"({self.micro_size}) times the data-parallel degree "
                                 f"({self._dp}).")
        out = []
        for i in range(self.micro_size):
            k = i * self._dp + self._dp_rank
            rows = [x[k * (x.shape[0] // parts):(k + 1) * (x.shape[0] // parts)]
                    for x in inputs]
            out.append((rows[0], tuple(rows[1:])))
        return out

    def _build(self, inputs):
        if self._runner is not None:
            return
        if not inputs:
            raise TypeError("For 'PipelineCell', give the network's inputs (data, labels...).")
        x0, labels0 = self._micro(inputs)[0]
        chain, loss0 = _pp.split(self.network._backbone, self._map, x0,
                                 self.network._loss_fn, labels0)
        present = {s for s, *_ in chain}
        missing = sorted(set(range(self._stages)) - present)
        if missing:
            raise ValueError(f"For 'PipelineCell', no cell of the backbone is on stage(s) "
                             f"{missing} of {self._stages}.")
        mine = [c for s, c, _, _ in chain if s == self._stage]
        before = [(shape, dt) for s, _, shape, dt in chain if s < self._stage]
        in_shape, in_dtype = before[-1] if before else (None, None)
        last = self._stage == self._stages - 1
        net = _StageNet(mine, self.network._loss_fn if last else None)
        out_shape, out_dtype = [(shape, dt) for s, _, shape, dt in chain
                                if s == self._stage][-1]
        scheduler = _ctx.get_auto_parallel_context("pipeline_config")["pipeline_scheduler"]
        self._runner = _pp.Runner(self._stage, self._stages, self._dp, self._dp_rank, net,
                                  (in_shape, in_dtype), (out_shape, out_dtype),
                                  (tuple(loss0.shape), loss0.dtype), scheduler)

    def _run(self, inputs, optimizer, update):
        self._build(inputs)
        micro = self._micro(inputs)
        loss, grads = self._runner.step([m[0] for m in micro], [m[1] for m in micro],
                                        backward=optimizer is not None)
        if optimizer is not None:
            sens, order = update
            grads = tuple(grads[k] if sens is None else grads[k] * sens for k in order)
            with _pp._as_graph():
                optimizer(grads)
        return self._runner.result(loss)


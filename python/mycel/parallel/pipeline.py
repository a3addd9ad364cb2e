"""Pipeline parallelism: a network's cells on stages, micro-batches run by a schedule.

What ``nn.PipelineCell`` stands on (MindSpore's ``Cell.pipeline_stage``, ``pipeline_stages``
and ``pipeline_config``). The rules, each in one place here:

- **Ranks.** With S stages on N devices, stage s runs on world ranks s*D .. s*D+D-1 (D =
  N/S, the data-parallel degree of a stage, MindSpore's placement); rank (s, d) exchanges
  with (s-1, d) and (s+1, d) only.
- **Stages of cells** (``stage_of``). A cell's stage is its ``pipeline_stage``, else its
  parent's; a parameter belongs to the stage of the cell that owns it; the loss belongs to
  the last stage. ``split`` runs the backbone once eagerly on one micro-batch (every rank,
  at the first step) and records which cells it calls: each call of a cell whose whole
  subtree is on one stage is a *unit*. The units must form a chain (each is given the
  previous one's output, the first the data, and the backbone returns the last's) and their
  stages must not decrease; anything else is a ValueError naming the cell, since an op
  between units or a skip connection would cross stages unseen.
- **Stage programs** (``_StageNet``): a stage's units in order (the last stage's followed by
  the loss), compiled by GRAPH mode's compiler whatever the context's mode. The forward
  program returns the activation sent on; the backward program is ``GradOperation(get_all,
  get_by_list, sens_param)`` of the same net, given the stage's input again and the
  gradient received from the next stage (the last stage: 1): it recomputes the stage's
  forward, so between the two a micro-batch holds only its input (mycel's ``vjp`` works
  the same way).
- **Boundaries.** Activations go forward and their gradients back with Send/Receive on the
  point-to-point lanes (``comm_func.isend``/``irecv``): sends are queued (never wait), a
  receive waits for its data, so no schedule below can deadlock. Tags tell micro-batches
  and directions apart. Shapes and dtypes come from ``split``'s recording. Receives are
  posted one ahead, in schedule order: a program's input is on its way while the program
  before it computes, and the wait finds it there (a stage holds at most one received
  tensor beyond what its schedule keeps).
- **Schedules** (``schedule``): GPipe runs every micro-batch's forward, then every
  backward; 1F1B runs S-1-s forwards (warm-up), then one forward and one backward in turn,
  then the remaining backwards (drain), so stage s holds at most S-s micro-batches in flight.
- **Averaging.** The micro-batches' gradients are summed and scaled once by 1/(M*D), then
  summed over the stage's data-parallel group (one AllReduce per parameter); the loss is
  the mean of the micro-batches' losses (and of the group's). For a loss that is a mean
  over the batch this is exactly the serial step on the whole batch.
"""
import time

import numpy as np

from mycel.common.tensor import Tensor
from mycel.communication import comm_func as _cf
from mycel.communication import management as _mgmt
from mycel.parallel import context as _ctx


def schedule(kind, stages, stage, micro):
    """The order stage `stage` of `stages` runs `micro` micro-batches in: a list of
    ("F", i) and ("B", i). kind is "gpipe" or "1f1b"."""
    if kind == "gpipe":
        return [("F", i) for i in range(micro)] + [("B", i) for i in range(micro)]
    warm = min(stages - stage - 1, micro)
    order = [("F", i) for i in range(warm)]
    for i in range(micro - warm):
        order += [("F", warm + i), ("B", i)]
    return order + [("B", i) for i in range(micro - warm, micro)]


def bubble(events, stages, micro):
    """(the idle fraction of each stage, the ideal (S-1)/(M+S-1)) from recorded events:
    {stage: [(kind, i, start, end)]} on one clock; a stage is idle when it computes
    nothing between the first start and the last end of all stages."""
    t0 = min(e[2] for ev in events.values() for e in ev)
    t1 = max(e[3] for ev in events.values() for e in ev)
    idle = {s: 1.0 - sum(e[3] - e[2] for e in ev) / (t1 - t0) for s, ev in events.items()}
    return idle, (stages - 1) / (micro + stages - 1)


def replay(events, stages, micro, kind):
    """The events the schedule would give with the recorded durations and no latency: each
    stage runs its programs in schedule order, a forward after the previous stage's forward
    of that micro-batch, a backward after the next stage's backward of it. Same form as
    ``bubble``'s input (a discrete-event replay: what the schedule costs, apart from
    communication and the machine)."""
    took = {(s, k, i): end - start for s, ev in events.items() for k, i, start, end in ev}
    done, out = {}, {s: [] for s in range(stages)}
    orders = {s: schedule(kind, stages, s, micro) for s in range(stages)}
    pos, free = dict.fromkeys(range(stages), 0), dict.fromkeys(range(stages), 0.0)
    while any(pos[s] < len(orders[s]) for s in range(stages)):
        moved = False
        for s in range(stages):
            if pos[s] == len(orders[s]):
                continue
            k, i = orders[s][pos[s]]
            dep = (s - 1, "F", i) if k == "F" else (s + 1, "B", i)
            if 0 <= dep[0] < stages and dep not in done:
                continue
            start = max(free[s], done.get(dep, 0.0))
            end = start + took[(s, k, i)]
            done[(s, k, i)], free[s] = end, end
            out[s].append((k, i, start, end))
            pos[s] += 1
            moved = True
        if not moved:
            raise ValueError(f"pipeline: the {kind} schedule deadlocks in replay")
    return out


def layout(stages):
    """(S, D, this rank's stage, its index in the stage's data-parallel group), checked."""
    devices = _ctx.get_auto_parallel_context("device_num")
    if devices % stages:
        raise ValueError(f"For 'PipelineCell', pipeline_stages ({stages}) must divide the "
                         f"device number ({devices}).")
    world = _mgmt.get_group_size() if _mgmt.GlobalComm.INITED else 1
    if devices != world:
        raise ValueError(f"For 'PipelineCell', device_num ({devices}) must equal the job's "
                         f"world size ({world}): call mycel.communication.init() first.")
    dp = devices // stages
    rank = _ctx.get_auto_parallel_context("global_rank")
    return stages, dp, rank // dp, rank % dp


def stage_of(root, stages, loss_cell=None):
    """{id(cell): stage} over root's tree (a cell without pipeline_stage takes its parent's;
    None where no ancestor has one), checked against the stage count. loss_cell and its
    subtree, when given, are on the last stage unless they say otherwise."""
    out = {}

    def walk(cell, name, inherited):
        own = cell.pipeline_stage
        if own is not None and own >= stages:
            raise ValueError(f"For 'PipelineCell', the pipeline_stage {own} of cell "
                             f"'{name or type(cell).__name__}' is out of range: "
                             f"pipeline_stages is {stages}.")
        s = inherited if own is None else own
        out[id(cell)] = s
        for child_name, child in cell.name_cells().items():
            walk(child, f"{name}.{child_name}" if name else child_name, s)

    walk(root, "", None)
    if loss_cell is not None:
        walk(loss_cell, "loss_fn", stages - 1)
    return out


def param_stages(root, stages_map):
    """{id(parameter): stage} for root's parameters (the stage of the owning cell); a
    ValueError names a parameter whose cell has no stage."""
    out = {}
    for name, cell in root.cells_and_names():
        for pname, p in cell._params.items():
            s = stages_map.get(id(cell))
            if s is None:
                raise ValueError(f"For 'PipelineCell', parameter '{p.name}' of cell "
                                 f"'{name or type(cell).__name__}' has no pipeline_stage: set "
                                 f"it on the cell or one of its parents.")
            out[id(p)] = s
    return out


def _uniform(cell, stages_map):
    """The stage of every cell under `cell` when it is one, else None."""
    seen = {stages_map.get(id(c)) for _, c in cell.cells_and_names()}
    return seen.pop() if len(seen) == 1 else None


def split(backbone, stages_map, x, loss_fn, labels):
    """Runs loss_fn(backbone(x), *labels) eagerly, recording the units the backbone calls
    (see the module's text): ([(stage, cell, output shape, output dtype)] in call order,
    checked to be a chain; the loss)."""
    from mycel.nn.cell import Cell
    units, depth = [], [0]
    call = Cell.__call__

    def traced(cell, *inputs, **kwargs):
        if depth[0] or cell is backbone:
            return cell._run_construct(inputs, kwargs)
        s = _uniform(cell, stages_map)
        if s is None:  # cells on several stages: their sub-cells are the units
            return cell._run_construct(inputs, kwargs)
        depth[0] += 1
        try:
            y = cell._run_construct(inputs, kwargs)
        finally:
            depth[0] -= 1
        units.append((s, cell, inputs, kwargs, y))
        return y

    Cell.__call__ = traced
    try:
        out = backbone(x)
        depth[0] += 1  # the loss's cells are not units
        loss = loss_fn(out, *labels)
    finally:
        Cell.__call__ = call
    return _check_chain(backbone, units, x, out), loss


def _check_chain(backbone, units, x, out):
    name = {id(c): n for n, c in backbone.cells_and_names()}
    chain, prev, seen = [], x, set()
    for s, cell, inputs, kwargs, y in units:
        who = name.get(id(cell), type(cell).__name__)
        if id(cell) in seen:
            raise ValueError(f"For 'PipelineCell', cell '{who}' is called twice; a pipelined "
                             f"network calls each of its cells once.")
        seen.add(id(cell))
        if kwargs or len(inputs) != 1 or inputs[0] is not prev:
            raise ValueError(f"For 'PipelineCell', cell '{who}' (stage {s}) is not given the "
                             f"output of the cell before it: the cells of a pipelined "
                             f"backbone must form a chain, with no operation between them "
                             f"(put such operations in cells).")
        if not isinstance(y, Tensor):
            raise ValueError(f"For 'PipelineCell', cell '{who}' must return one Tensor, but "
                             f"returned {type(y).__name__}.")
        if s is None:  # a cell without parameters or stage goes with its neighbour
            s = chain[-1][0] if chain else None
        if chain and s is not None and chain[-1][0] is not None and s < chain[-1][0]:
            raise ValueError(f"For 'PipelineCell', cell '{who}' is on stage {s} after a cell "
                             f"of stage {chain[-1][0]}: stages must not decrease along the "
                             f"network.")
        chain.append([s, cell, tuple(y.shape), y.dtype])
        prev = y
    if prev is not out or not chain:
        raise ValueError("For 'PipelineCell', the backbone must return the output of its last "
                         "cell (the cells form a chain).")
    first = next((c[0] for c in chain if c[0] is not None), 0)
    for c in chain:  # leading stage-less cells go with the first stage
        if c[0] is None:
            c[0] = first
    return [tuple(c) for c in chain]


def _as_graph():
    """A context manager: the stage programs compile and run in GRAPH mode, without the
    semi_auto_parallel rewrite (each stage's ops run whole on its ranks)."""
    from mycel import context
    from mycel.parallel import _spmd

    class _Graph:
        def __enter__(self):
            self.mode = context._context["mode"]
            context._context["mode"] = context.GRAPH_MODE
            _spmd._suspended[0] += 1

        def __exit__(self, *exc):
            context._context["mode"] = self.mode
            _spmd._suspended[0] -= 1

    return _Graph()


class Runner:
    """One rank's side of a pipelined step: its stage's compiled programs, the schedule,
    the exchanges with its neighbours, the gradient sums. ``events`` holds the last step's
    (kind, micro-batch, start, end) of each stage program run (time.monotonic: one clock
    for the processes of a machine). boundary_in/out and loss are (shape, dtype) of the
    activation received, the one sent (or the loss, on the last stage) and the loss."""

    def __init__(self, stage, stages, dp, dp_rank, net, boundary_in, boundary_out, loss,
                 scheduler):
        from mycel.ops.composite import GradOperation
        self.stage, self.stages, self.dp, self.dp_rank = stage, stages, dp, dp_rank
        self.net, self.boundary_in, self.boundary_out = net, boundary_in, boundary_out
        self.loss_like, self.scheduler = loss, scheduler
        self.last = stage == stages - 1
        self.weights = net.trainable_params()
        self.backward = GradOperation(get_all=stage > 0, get_by_list=True,
                                      sens_param=True)(net, self.weights)
        rank = stage * dp + dp_rank
        self.prev, self.next = rank - dp, rank + dp
        # What irecv is given for each direction (its shape and dtype only), made once.
        self._like = {k: Tensor(np.zeros(b[0]), b[1]) for k, b in
                      (("F", boundary_in), ("B", boundary_out)) if b[0] is not None}
        self.group = None
        self.events = []
        self.micro = 0

    def make_group(self):
        """This stage's data-parallel group (its members create it)."""
        if self.dp == 1 or self.group is not None:
            return
        name = f"pipeline_dp_{self.stage}_of_{self.stages}"
        if (id(_mgmt._groups), name) not in _made:
            _mgmt.create_group(name, list(range(self.stage * self.dp,
                                                (self.stage + 1) * self.dp)))
            _made.add((id(_mgmt._groups), name))
        self.group = name

    def step(self, micro_inputs, labels, backward=True):
        """Runs the schedule (forwards only unless backward) on the micro-batches:
        micro_inputs[i] is micro-batch i's data (read by stage 0), labels[i] its other
        inputs (read by the last stage). Returns (the mean loss on the last stage, else
        None; the gradients of self.weights, or None)."""
        from mycel.ops import ones_like
        self.make_group()
        micro = self.micro = len(micro_inputs)
        order = (schedule(self.scheduler, self.stages, self.stage, micro) if backward else
                 [("F", i) for i in range(micro)])
        sums, kept, sends, losses, self.events = None, {}, [], [], []
        receive = self._receiver(order)
        with _as_graph():
            for kind, i in order:
                if kind == "F":
                    x = micro_inputs[i] if self.stage == 0 else receive(kind, i)
                    t = time.monotonic()
                    y = self.net(x, *labels[i]) if self.last else self.net(x)
                    self.events.append(("F", i, t, time.monotonic()))
                    kept[i] = x
                    if self.last:
                        losses.append(y)
                    else:
                        sends.append(_cf.isend(y, self.next, tag=2 * i))
                    continue
                x = kept.pop(i)
                if self.last:
                    args = (x, *labels[i], ones_like(losses[i]))
                else:
                    args = (x, receive(kind, i))
                t = time.monotonic()
                g = self.backward(*args)
                if self.stage > 0:
                    sends.append(_cf.isend(g[0][0], self.prev, tag=2 * i + 1))
                    g = g[1]
                sums = list(g) if sums is None else [a + b for a, b in zip(sums, g)]
                self.events.append(("B", i, t, time.monotonic()))  # the sums are its work
        for h in sends:
            h.wait()
        return self._loss(losses), None if sums is None else self._grads(sums, micro)

    def _receiver(self, order):
        """receive(kind, i): the tensor program (kind, i) of `order` is given by a neighbour
        (the previous stage's activation for "F", the next stage's gradient for "B"). The
        receives are posted in schedule order, each as the one before it is waited for, so
        the next one is in flight while a program computes."""
        need = [(k, i) for k, i in order
                if (k == "F" and self.stage > 0) or (k == "B" and not self.last)]
        posted, ahead = {}, iter(need)

        def post():
            key = next(ahead, None)
            if key is not None:
                k, i = key
                peer, tag = (self.prev, 2 * i) if k == "F" else (self.next, 2 * i + 1)
                posted[key] = _cf.irecv(self._like[k], peer, tag=tag)

        post()

        def receive(kind, i):
            out, h = posted.pop((kind, i))
            post()
            h.wait()
            return out

        return receive

    def _grads(self, sums, micro):
        """The micro-batches' gradient sums as the gradient of the mean loss: scaled once,
        then summed over the stage's data-parallel group."""
        grads = [s * (1.0 / (micro * self.dp)) for s in sums]
        if self.group is not None:
            grads = [_cf.all_reduce(g, group=self.group)[0] for g in grads]
        return grads

    def _loss(self, losses):
        if not self.last:
            return None
        loss = losses[0]
        for v in losses[1:]:
            loss = loss + v
        loss = loss / len(losses)
        if self.group is not None:
            loss = _cf.all_reduce(loss, group=self.group)[0] / self.dp
        return loss

    def result(self, loss):
        """What a step returns on this rank: the last stage's loss; on the other stages 0,
        or with pipeline_result_broadcast the last stage's loss, sent to them."""
        tag = 2 * self.micro
        if _ctx.get_auto_parallel_context("pipeline_result_broadcast"):
            last = (self.stages - 1) * self.dp + self.dp_rank
            if self.last:
                for h in [_cf.isend(loss, s * self.dp + self.dp_rank, tag=tag)
                          for s in range(self.stages - 1)]:
                    h.wait()
                return loss
            return self._recv(self.loss_like, last, tag)
        if self.last:
            return loss
        return Tensor(np.zeros(self.loss_like[0]), self.loss_like[1])

    @staticmethod
    def _recv(like, src, tag):
        out, h = _cf.irecv(Tensor(np.zeros(like[0]), like[1]), src, tag=tag)
        h.wait()
        return out


_made = set()  # (job, group name) created by Runner.make_group

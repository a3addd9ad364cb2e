"""mindspore.dataset.callback: callbacks a map op calls as rows pass (``map(...,
callbacks=...)``).

``DSCallback`` has one method per event, each doing nothing: ds_begin (once, before the
first row), ds_epoch_begin / ds_epoch_end (around each epoch of the iterator), ds_step_begin
/ ds_step_end (around each row's operations, every step_size steps of an epoch). Each gets a
run context with cur_epoch_num, cur_step_num_in_epoch and cur_step_num. The C++ map op calls
them on its one worker, in row order (src/data/ops_map.cc; engine_sync.callback_hooks).
Events happen when the engine reaches the row, which may be ahead of the training loop.

``WaitedDSCallback`` is also a training Callback: its ds_step_begin waits for the training
loop's step_end (and ds_epoch_begin for its epoch_end), then calls sync_step_begin /
sync_epoch_begin with both run contexts, so the pipeline runs in step with training. Waits
are bounded by config.get_callback_timeout(): a wait that times out is a RuntimeError in the
pipeline, which the iterator (and Model.train) raises.
"""
import threading

from mycel.dataset import config
from mycel.dataset.engine_sync import DSRunContext
from mycel.train.callback import Callback

__all__ = ["DSCallback", "WaitedDSCallback", "DSRunContext"]

_HOOKS = ("ds_begin", "ds_epoch_begin", "ds_epoch_end", "ds_step_begin", "ds_step_end")


class DSCallback:
    """Base of the dataset callbacks: override the ds_* methods wanted; step_size: the step
    events come every step_size steps of an epoch (steps 1, 1 + step_size, ...)."""

    def __init__(self, step_size=1):
        if isinstance(step_size, bool) or not isinstance(step_size, int):
            raise TypeError(f"DSCallback: Argument step_size with value {step_size!r} is not of "
                            f"type [{int}], but got {type(step_size)}.")
        if step_size < 1:
            raise ValueError(f"DSCallback: step_size must be >= 1, but got {step_size}.")
        self.step_size = step_size

    def ds_begin(self, ds_run_context):
        """Before the pipeline's first row."""

    def ds_epoch_begin(self, ds_run_context):
        """Before each epoch's first row."""

    def ds_epoch_end(self, ds_run_context):
        """After each epoch's last row."""

    def ds_step_begin(self, ds_run_context):
        """Before a row's operations (every step_size steps)."""

    def ds_step_end(self, ds_run_context):
        """After a row's operations (every step_size steps)."""

    def _check_overrides(self):
        """A callback that overrides no event would be called for nothing: MindSpore refuses
        it, and so does map."""
        if not any(getattr(type(self), h) is not getattr(DSCallback, h) for h in _HOOKS):
            raise AttributeError(f"{type(self).__name__}: Inheriting Callback class without "
                                 "overriding any methods, check the usage of user defined "
                                 "Callback.")


class WaitedDSCallback(Callback, DSCallback):
    """A dataset callback synchronised with training: override sync_epoch_begin(train_run_context,
    ds_run_context) and sync_step_begin(...), and pass the object both to map(callbacks=...)
    and to Model.train(callbacks=...). ds_step_begin of step s > step_size waits for the
    training step_end before it; ds_epoch_begin of epoch e > 1 waits for epoch_end."""

    def __init__(self, step_size=1):
        DSCallback.__init__(self, step_size)
        self.step_event = threading.Event()
        self.step_run_context = None
        self.epoch_event = threading.Event()
        self.epoch_run_context = None
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context, ds_run_context):
        """Called before a dataset epoch (after the first), once training ended its epoch."""

    def sync_step_begin(self, train_run_context, ds_run_context):
        """Called before a dataset step (after the first step_size), once training ended its
        step."""

    # ----- the training side (mycel.train.Callback) -----
    def step_end(self, run_context):
        self.step_run_context = run_context
        self.step_event.set()

    def epoch_end(self, run_context):
        self.epoch_run_context = run_context
        self.epoch_event.set()

    def end(self, run_context):
        """Training ended: nothing more will be waited for."""
        self.training_ended = True
        self.epoch_run_context = self.step_run_context = run_context
        self.epoch_event.set()
        self.step_event.set()

    # ----- the dataset side -----
    def _wait(self, event, what):
        if self.training_ended:
            return
        timeout = config.get_callback_timeout()
        if not event.wait(timeout=timeout):
            raise RuntimeError(f"{what} timed out after {timeout} second(s): the training loop "
                               "did not end the step it waits for (are the callback's "
                               "step_size and the batch size consistent?).")
        if not self.training_ended:
            event.clear()

    def ds_epoch_begin(self, ds_run_context):
        if ds_run_context.cur_epoch_num > 1:
            self._wait(self.epoch_event, "ds_epoch_begin")
            self.sync_epoch_begin(self.epoch_run_context, ds_run_context)

    def ds_step_begin(self, ds_run_context):
        if ds_run_context.cur_step_num > self.step_size:
            self._wait(self.step_event, "ds_step_begin")
            self.sync_step_begin(self.step_run_context, ds_run_context)

    def _check_overrides(self):
        """A WaitedDSCallback always has its waiting hooks."""

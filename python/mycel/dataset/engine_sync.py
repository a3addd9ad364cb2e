"""What lets a training loop hold a pipeline back: sync_wait's release counter and the map
callbacks' event dispatch (the DSCallback classes are in callback.py).

sync_wait. A ``SyncWaitDataset`` (engine.py) runs as a one-worker map whose Python
transform calls ``ReleasePair.block()`` for each row: a row passes while the rows let through
are fewer than those released; sync_update releases more (num_batch times the batch size of
the batch op above, set by that batch). The engine works ahead of the iterator, so the
counter, not the iterator's position, is what bounds it. Every wait is bounded by
config.get_callback_timeout() (then the condition is disabled, as MindSpore does, with a
warning), and stopping an iterator disables the conditions below it, which wakes a waiting
worker at once so the engine's threads can be joined.

Callbacks. ``callback_hooks`` turns a map's DSCallbacks into the engine's hooks function
(src/data/pipeline.h, MapHooks): the engine calls it on the map's one worker with (event,
epoch, step in epoch, step); step events reach a callback every step_size steps of an epoch.
"""
import logging
import threading

from mycel.dataset import config
from mycel.dataset._validate import _reraise

_log = logging.getLogger("mycel.dataset")

# The engine's hook events (pipeline.h): begin, epoch begin, step begin, step end, epoch end.
_EVENTS = ("ds_begin", "ds_epoch_begin", "ds_step_begin", "ds_step_end", "ds_epoch_end")


class ReleasePair:
    """sync_wait's counter: rows let through, rows released, and the condition variable the
    waiting worker and sync_update share."""

    def __init__(self, name, num_batch, callback):
        self.name = name
        self._num_batch, self._batch_size = num_batch, 1
        self._callback = callback
        self._cv = threading.Condition()
        self._passed = 0
        self._released = num_batch
        self._disabled = False

    def set_batch_size(self, batch_size):
        """A batch op above: a release lets num_batch batches of batch_size rows through."""
        with self._cv:
            self._batch_size = batch_size
            self._released = self._num_batch * batch_size

    def reset(self):
        """A new pipeline run: one release's rows may pass, the condition is enabled."""
        with self._cv:
            self._passed, self._disabled = 0, False
            self._released = self._num_batch * self._batch_size
            self._cv.notify_all()

    def block(self):
        """Wait until the next row may pass (bounded by the callback timeout), then count it."""
        timeout = config.get_callback_timeout()
        with self._cv:
            ok = self._cv.wait_for(lambda: self._disabled or self._passed < self._released,
                                   timeout=timeout)
            if not ok:
                _log.warning("sync_wait %r: no sync_update came within %s s (the callback "
                             "timeout); the condition is disabled and rows pass freely.",
                             self.name, timeout)
                self._disabled = True
            self._passed += 1

    def release(self, num_batch=None, data=None):
        """sync_update: let num_batch more batches through (default: sync_wait's), after
        calling the callback with data."""
        with self._cv:
            if self._callback is not None:
                self._callback(data)
            n = self._num_batch if num_batch is None else num_batch
            self._released += n * self._batch_size
            self._cv.notify_all()

    def disable(self):
        """Rows pass without waiting (disable_sync, a stopped iterator, a timeout)."""
        with self._cv:
            self._disabled = True
            self._cv.notify_all()


def open_sync_waits(dataset):
    """Disable every sync_wait in dataset's tree (the nodes holding a ReleasePair): a stopped
    iterator's worker must not wait for a release that will not come."""
    todo = [dataset]
    while todo:
        d = todo.pop()
        pair = getattr(d, "pair", None)
        if isinstance(pair, ReleasePair):
            pair.disable()
        todo.extend(getattr(d, "children", ()))


class DSRunContext:
    """Where a dataset callback's event happened: cur_epoch_num (1-based; 0 at ds_begin),
    cur_step_num_in_epoch and cur_step_num (rows of the map so far, 1-based)."""

    def __init__(self, epoch, step_in_epoch, step):
        self.cur_epoch_num = epoch
        self.cur_step_num_in_epoch = step_in_epoch
        self.cur_step_num = step


def callback_hooks(callbacks):
    """The engine's hooks function for a map's callbacks (module doc)."""
    callbacks = list(callbacks)

    def hooks(event, epoch, step_in_epoch, step):
        ctx = DSRunContext(epoch, step_in_epoch, step)
        method = _EVENTS[event]
        for cb in callbacks:
            if event in (2, 3) and (step_in_epoch - 1) % cb.step_size != 0:
                continue
            try:
                getattr(cb, method)(ctx)
            except Exception as err:  # re-raised naming the callback (the iterator raises it)
                _reraise(err, f"map: the dataset callback {type(cb).__name__}.{method} raised "
                              f"{type(err).__name__}: {err}")

    return hooks

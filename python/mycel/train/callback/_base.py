"""The Callback base class (every hook a no-op calling MindSpore 1.x's name for it) and the
step-loss reader the callbacks share; kept apart from the package's __init__ so that the
callback modules import it without an import cycle."""
import numpy as np

from mycel import _mycel as _C


class Callback:
    """Base class: every hook does nothing (or calls MindSpore 1.x's name for it). A callback
    is a context manager (``__enter__`` returns it, ``__exit__`` does nothing); the callback
    manager enters every callback for the run."""

    def __enter__(self):
        return self

    def __exit__(self, *err):
        pass

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_eval_begin(self, run_context):
        pass

    def on_eval_epoch_begin(self, run_context):
        pass

    def on_eval_step_begin(self, run_context):
        pass

    def on_eval_step_end(self, run_context):
        pass

    def on_eval_epoch_end(self, run_context):
        pass

    def on_eval_end(self, run_context):
        pass

    def begin(self, run_context):
        pass

    def epoch_begin(self, run_context):
        pass

    def step_begin(self, run_context):
        pass

    def step_end(self, run_context):
        pass

    def epoch_end(self, run_context):
        pass

    def end(self, run_context):
        pass


def _loss_value(outputs):
    """The step's loss as a float (first element of a tuple output)."""
    if isinstance(outputs, (tuple, list)) and outputs:
        outputs = outputs[0]
    if isinstance(outputs, _C.Tensor):
        outputs = outputs.asnumpy()
    return float(np.mean(outputs))

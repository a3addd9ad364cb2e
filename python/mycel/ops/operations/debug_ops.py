"""The summary operators of MindSpore 2.x: ScalarSummary, TensorSummary, ImageSummary and
HistogramSummary. ``op(name, value)`` hands value to the summary channel as "name[:Kind]"
(mycel/common/_summary_channel.py) each time the step runs; SummaryRecord.record() writes what
the channel holds. In GRAPH mode the call is a host effect of the compiled step (run in
program order, like print), so both modes record the same values. The checks (name a
non-empty str, value a Tensor of the kind's rank) are the channel's, the same in both modes.
``channel`` (a mycel extension) binds an operator to a SummaryChannel other than the process's
(SummaryRecord(..., channel=c) writes it)."""
from mycel.ops.operations.composed_ops import _Composed


class _Summary(_Composed):
    _kind = None

    def __init__(self, channel=None):
        super().__init__()
        from mycel.common._summary_channel import publisher
        self._publish = publisher(channel)

    def __call__(self, name, value):
        self._publish(self._kind, name, value)


class ScalarSummary(_Summary):
    """ScalarSummary()(name, value): records value (a tensor of shape () or (1,)) as the
    scalar `name` at the next SummaryRecord.record()."""
    _kind = "Scalar"


class TensorSummary(_Summary):
    """TensorSummary()(name, value): records value (at least 1-D) as the tensor `name`."""
    _kind = "Tensor"


class ImageSummary(_Summary):
    """ImageSummary()(name, value): records value (NCHW, 1 or 3 channels) as the image
    `name` (a PNG grid of the batch)."""
    _kind = "Image"


class HistogramSummary(_Summary):
    """HistogramSummary()(name, value): records the histogram of value (at least 1-D) as
    `name`."""
    _kind = "Histogram"

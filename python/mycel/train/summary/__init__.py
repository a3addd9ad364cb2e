"""mycel.train.summary (MindSpore 2.x's mindspore.train.summary): SummaryRecord writes event
files that MindInsight reads; the summary operators (ops.ScalarSummary, TensorSummary,
ImageSummary, HistogramSummary) feed it from inside a step through a SummaryChannel
(mycel/common/_summary_channel.py); SummaryCollector (_summary_collector.py, a callback)
drives it from Model.train/eval; SummaryLandscape (_landscape.py) draws loss landscapes of a
collected run. The last two are exported by mycel.train and mycel (not imported here: they
build on mycel.train.callback, which must not import this package back)."""
from mycel.train.summary.summary_record import SummaryRecord  # noqa: F401

__all__ = ["SummaryRecord"]

"""mycel.train.summary (MindSpore 2.x's mindspore.train.summary): SummaryRecord writes event
files that MindInsight reads; the summary operators (ops.ScalarSummary, TensorSummary,
ImageSummary, HistogramSummary) feed it from inside a step through a SummaryChannel
(_channel.py); SummaryCollector (mycel.train.callback) drives it from Model.train/eval."""
from mycel.train.summary.summary_record import SummaryRecord  # noqa: F401

__all__ = ["SummaryRecord"]

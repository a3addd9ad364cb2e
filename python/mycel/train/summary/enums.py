"""Names SummaryRecord and SummaryCollector share with MindSpore's programs and MindInsight:
the run modes and the plugin (kind) names of summary values."""
from enum import Enum


class BaseEnum(Enum):
    """An Enum with helpers to list its values."""

    @classmethod
    def list_members(cls):
        """The values of the members."""
        return [member.value for member in cls]


class ModeEnum(BaseEnum):
    """The mode a SummaryRecord records in."""
    TRAIN = 'train'
    EVAL = 'eval'


class PluginEnum(BaseEnum):
    """The plugin (kind) of a value given to SummaryRecord.add_value."""
    GRAPH = 'graph'
    SCALAR = 'scalar'
    IMAGE = 'image'
    TENSOR = 'tensor'
    HISTOGRAM = 'histogram'
    TRAIN_LINEAGE = 'train_lineage'
    EVAL_LINEAGE = 'eval_lineage'
    CUSTOM_LINEAGE_DATA = 'custom_lineage_data'
    DATASET_GRAPH = 'dataset_graph'
    LANDSCAPE = 'LANDSCAPE'


class WriterPluginEnum(Enum):
    """The kinds of files a SummaryRecord writes."""
    SUMMARY = 'summary'
    LINEAGE = 'lineage'
    EXPORTER = 'exporter'

"""``mindspore.dataset.core``: the package MindSpore keeps its dataset settings in. Here the
settings are the module mycel.dataset.config, which this module also answers as its submodule
``core.config`` (the same module object, so both names change the same settings)."""
import sys

from mycel.dataset import config

__path__ = []  # a package for the import system: core.config is looked up in sys.modules
sys.modules.setdefault(__name__ + ".config", config)

__all__ = ["config"]

# core.datatypes: numpy type <-> engine type conversions (dataset/datatypes.py).
from mycel.dataset import datatypes  # noqa: E402

sys.modules.setdefault(__name__ + ".datatypes", datatypes)

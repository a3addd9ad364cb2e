"""pytest setup: tests import the mycel package from python/ (make sets PYTHONPATH too)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

"""mycel's version (also written into exported MINDIR files as the producer version)."""
__version__ = "0.1.0"

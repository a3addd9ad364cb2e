"""Probability: distributions and bijectors (MindSpore 2.x's ``mindspore.nn.probability``).
Every distribution and bijector is a Cell whose methods run in both PYNATIVE and GRAPH
modes."""
from mycel.nn.probability import distribution  # first: it imports the bijectors it uses
from mycel.nn.probability import bijector

__all__ = ["bijector", "distribution"]

"""Bijectors: invertible maps with their log-Jacobians (MindSpore 2.x's
``mindspore.nn.probability.bijector``), used by TransformedDistribution."""
from mycel.nn.probability.bijector.bijector import Bijector
from mycel.nn.probability.bijector.bijectors import (PowerTransform, Exp, ScalarAffine,
                                                     Softplus, GumbelCDF, Invert)

__all__ = ["Bijector", "PowerTransform", "Exp", "ScalarAffine", "Softplus", "GumbelCDF",
           "Invert"]

"""Probability distributions (MindSpore 2.x's ``mindspore.nn.probability.distribution``):
Cells with prob/log_prob/cdf/log_cdf/survival_function/log_survival, mean/mode/sd/var,
entropy, kl_loss/cross_entropy and sample, each callable eagerly or inside a compiled
Cell, with the distribution's parameters fixed at construction or given per call."""
from mycel.nn.probability.distribution.distribution import Distribution
from mycel.nn.probability.distribution.continuous import (Normal, Exponential, Uniform,
                                                          Logistic, Cauchy, Gumbel, Laplace,
                                                          HalfNormal)
from mycel.nn.probability.distribution.discrete import (Bernoulli, Geometric, Categorical,
                                                        Poisson)
from mycel.nn.probability.distribution.gamma import Gamma, Beta, StudentT
from mycel.nn.probability.distribution.transformed_distribution import (
    TransformedDistribution, LogNormal)

__all__ = ["Distribution", "TransformedDistribution", "Normal", "Bernoulli", "Exponential",
           "Uniform", "Geometric", "Categorical", "Cauchy", "LogNormal", "Logistic", "Gumbel",
           "Gamma", "Beta", "Poisson", "Laplace", "HalfNormal", "StudentT"]

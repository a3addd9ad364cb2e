"""Helpers of the distributions: checks, conversions and composed special functions."""
from mycel.nn.probability.distribution._utils.utils import *  # noqa: F401,F403
from mycel.nn.probability.distribution._utils.custom_ops import (  # noqa: F401
    exp_generic, log_generic, log1p_generic, broadcast_to, lgamma, digamma, lbeta)

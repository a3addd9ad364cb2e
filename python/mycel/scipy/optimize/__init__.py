"""mindspore.scipy.optimize: minimize (BFGS, LBFGS) and line_search, run eagerly (their
loops stop on the data: PYNATIVE, or GRAPH mode's context called from Python), and
linear_sum_assignment (on the host)."""
from mycel.scipy.optimize.line_search import line_search  # noqa: F401
from mycel.scipy.optimize.minimize import minimize, OptimizeResults  # noqa: F401
from mycel.scipy.optimize.linear_sum_assignment import linear_sum_assignment  # noqa: F401

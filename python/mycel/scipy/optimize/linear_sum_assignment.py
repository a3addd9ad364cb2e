"""linear_sum_assignment: the assignment of rows to columns of a cost matrix with the least
(or, with maximize, the largest) total cost, by shortest augmenting paths with dual
potentials (the Jonker-Volgenant approach scipy uses; Crouse, "On implementing 2D
rectangular assignment algorithms", 2016). It runs on the host, in graph mode at run time
(mycel's JIT fallback), since its work depends on the data.

MindSpore's form: linear_sum_assignment(cost_matrix, maximize, dimension_limit) uses the
first dimension_limit columns only and returns (row_ind, col_ind) as int64 Tensors of length
min(rows, columns), the assigned pairs by row and then -1 padding."""
import sys

import numpy as np

from mycel import _mycel as _C
from mycel.ops.primitive import _primexpr


def _augment(cost):
    """col4row for cost [nr, nc] with nr <= nc (minimizing)."""
    nr, nc = cost.shape
    u, v = np.zeros(nr), np.zeros(nc)
    col4row = np.full(nr, -1, np.int64)
    row4col = np.full(nc, -1, np.int64)
    for cur in range(nr):
        shortest = np.full(nc, np.inf)
        path = np.full(nc, -1, np.int64)
        seen_rows = np.zeros(nr, bool)
        seen_cols = np.zeros(nc, bool)
        min_val, i, sink = 0.0, cur, -1
        while sink < 0:
            seen_rows[i] = True
            free = ~seen_cols
            reduced = min_val + cost[i] - u[i] - v
            better = free & (reduced < shortest)
            path[better] = i
            shortest[better] = reduced[better]
            cand = np.where(free, shortest, np.inf)
            lowest = cand.min()
            if not np.isfinite(lowest):
                raise ValueError("For 'linear_sum_assignment', the cost matrix is infeasible.")
            ties = np.flatnonzero(cand == lowest)
            unassigned = ties[row4col[ties] < 0]
            j = int(unassigned[0] if unassigned.size else ties[0])
            min_val = lowest
            seen_cols[j] = True
            if row4col[j] < 0:
                sink = j
            else:
                i = int(row4col[j])
        u[cur] += min_val
        others = seen_rows.copy()
        others[cur] = False
        u[others] += min_val - shortest[col4row[others]]
        v[seen_cols] -= min_val - shortest[seen_cols]
        j = sink
        while True:
            i = int(path[j])
            row4col[j] = i
            col4row[i], j = j, col4row[i]
            if i == cur:
                break
    return col4row


@_primexpr
def _solve(cost, maximize, limit):
    cost = np.asarray(cost, np.float64)
    if cost.ndim != 2:
        raise ValueError(f"For 'linear_sum_assignment', the cost matrix must be 2-D, but got "
                         f"shape {cost.shape}.")
    n_out = min(cost.shape)
    cost = cost[:, :max(0, min(int(limit), cost.shape[1]))]
    if maximize:
        cost = -cost
    if np.isnan(cost).any() or np.isneginf(cost).any():
        raise ValueError("For 'linear_sum_assignment', the cost matrix holds NaN or -inf.")
    transposed = cost.shape[0] > cost.shape[1]
    work = cost.T if transposed else cost
    rows = np.arange(work.shape[0])
    cols = _augment(work) if work.size else np.zeros(0, np.int64)
    if transposed:
        rows, cols = cols, rows
        order = np.argsort(rows)
        rows, cols = rows[order], cols[order]
    out_r = np.full(n_out, -1, np.int64)
    out_c = np.full(n_out, -1, np.int64)
    out_r[:rows.size], out_c[:cols.size] = rows, cols
    return _C.Tensor(out_r), _C.Tensor(out_c)


def linear_sum_assignment(cost_matrix, maximize, dimension_limit=None):
    """(row_ind, col_ind): the optimal assignment of cost_matrix [M, N]'s rows to its first
    dimension_limit columns (all by default), padded with -1 to min(M, N)."""
    if not isinstance(cost_matrix, _C.Tensor):
        raise TypeError(f"For 'linear_sum_assignment', cost_matrix must be a Tensor, but got "
                        f"{type(cost_matrix).__name__}.")
    if not isinstance(maximize, bool):
        raise TypeError(f"For 'linear_sum_assignment', maximize must be a bool, but got "
                        f"{maximize!r}.")
    limit = sys.maxsize if dimension_limit is None else dimension_limit
    return _solve(cost_matrix, maximize, limit)

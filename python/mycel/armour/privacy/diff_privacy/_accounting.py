"""Privacy accounting of the sampled Gaussian mechanism (numpy, float64).

One step of DP-SGD releases ``sum of clipped gradients + N(0, (sigma C)^2)`` over a batch in
which each example is present with probability q. Its Renyi DP at order alpha is
``log(A_alpha) / (alpha - 1)`` with ``A_alpha = E_{z ~ N(0, s^2)}[(1 - q + q exp((2z - 1) /
(2 s^2)))^alpha]`` (Mironov, Talwar, Zhang 2019, "Renyi Differential Privacy of the Sampled
Gaussian Mechanism"):

- integer alpha: the binomial expansion, a finite sum
  ``A = sum_k C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 s^2))``;
- fractional alpha: the paper's two convergent series split at
  ``z0 = s^2 log(1/q - 1) + 1/2``, summed until the terms are negligible.

Everything is summed in log space with signs (the generalised binomial coefficients alternate
for k > alpha), so large orders and tiny q do not overflow. RDP composes additively over steps
and converts to (eps, delta)-DP by the classic bound
``eps = min_alpha RDP(alpha) + log(1/delta) / (alpha - 1)`` (and its inverse for delta).

The noise-decay schedules of the adaptive mechanisms live here too, so the accountant and the
mechanism that adds the noise read one rule.
"""
import math

import numpy as np

# Default orders (those TF Privacy and MindArmour use): fractional near 1, integers above.
DEFAULT_ORDERS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))

# The noise-decay schedules of MindArmour's adaptive Gaussian mechanism and its monitors: the
# noise multiplier after t steps is sigma_0 / (1 + rate t) ('Time'), sigma_0 (1 - rate)^t
# ('Step') or sigma_0 exp(-rate t) ('Exp').
DECAY_MODES = ("Time", "Step", "Exp")


def check_decay_mode(mode, who):
    """mode, or a ValueError naming `who` unless it is None or one of DECAY_MODES."""
    if mode is not None and mode not in DECAY_MODES:
        raise ValueError(f"For '{who}', the decay mode must be None or one of "
                         f"{sorted(DECAY_MODES)}, but got {mode!r}.")
    return mode


def decayed_multiplier(mode, sigma0, rate, step):
    """The noise multiplier of step `step` (0-based) under the schedule (mode None:
    constant); what the monitors account."""
    if mode is None:
        return sigma0
    if mode == "Time":
        return sigma0 / (1.0 + rate * step)
    if mode == "Step":
        return sigma0 * (1.0 - rate) ** step
    return sigma0 * math.exp(-rate * step)


def next_multiplier(mode, sigma0, rate, current):
    """One step of the same schedule from the current multiplier (a float or a Tensor):
    'Time' sigma0 / (sigma0 / current + rate), 'Step' current (1 - rate), 'Exp' current
    exp(-rate); applied t times to sigma0 it gives decayed_multiplier(t). What the adaptive
    mechanism applies after each step."""
    if mode == "Time":
        return sigma0 / (sigma0 / current + rate)
    if mode == "Step":
        return current * (1.0 - rate)
    return current * math.exp(-rate)


def _log_sum_signed(log_mag, sign):
    """log(sum(sign * exp(log_mag))) for arrays; the sum must be positive."""
    log_mag = np.asarray(log_mag, dtype=np.float64)
    sign = np.asarray(sign)
    top = np.max(log_mag)
    if not np.isfinite(top):
        return -np.inf
    total = np.sum(sign * np.exp(log_mag - top))
    if total <= 0:
        raise ArithmeticError("the RDP series lost all precision (sum <= 0)")
    return top + math.log(total)


def _log_binomials(alpha, n):
    """log|C(alpha, k)| and sign(C(alpha, k)) for k = 0..n-1 (generalised binomial)."""
    k = np.arange(n - 1, dtype=np.float64)
    ratio = (alpha - k) / (k + 1.0)  # C(alpha, k + 1) / C(alpha, k)
    with np.errstate(divide="ignore"):
        logs = np.concatenate([[0.0], np.cumsum(np.log(np.abs(ratio)))])
    signs = np.concatenate([[1.0], np.cumprod(np.sign(ratio))])
    return logs, signs


_ASYMPTOTIC_CUT = 6.0


def _log_erfc(x):
    """log(erfc(x)) elementwise, accurate in float64 for any x (no underflow for large x)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    low = x < -_ASYMPTOTIC_CUT
    out[low] = math.log(2.0)  # erfc(x) = 2 - erfc(-x), erfc(-x) < 1e-17
    mid = ~low & (x <= _ASYMPTOTIC_CUT)
    out[mid] = np.log([math.erfc(v) for v in x[mid]])
    high = x > _ASYMPTOTIC_CUT
    if high.any():
        xh = x[high]
        # erfc(x) = exp(-x^2) / (x sqrt(pi)) * sum_n (-1)^n (2n-1)!! / (2x^2)^n; 10 terms give
        # a relative error below 1e-10 for x > 6.
        inv = 1.0 / (2.0 * xh * xh)
        series, term = np.ones_like(xh), np.ones_like(xh)
        for n in range(1, 11):
            term = -term * (2 * n - 1) * inv
            series += term
        out[high] = -xh * xh - np.log(xh * math.sqrt(math.pi)) + np.log(series)
    return out


def _log_a_int(q, sigma, alpha):
    """log A_alpha for an integer alpha (the finite binomial sum)."""
    alpha = int(alpha)
    k = np.arange(alpha + 1, dtype=np.float64)
    log_c, _ = _log_binomials(float(alpha), alpha + 1)
    terms = log_c + k * math.log(q) + (alpha - k) * math.log1p(-q) + (k * k - k) / (
        2.0 * sigma * sigma)
    return _log_sum_signed(terms, np.ones_like(terms))


def _log_a_frac(q, sigma, alpha, chunk=4096, max_terms=1 << 22):
    """log A_alpha for a fractional alpha (Mironov et al. 2019, Sec. 3.3): the two series
    A1 (z < z0) and A2 (z >= z0), summed over twice as many terms each round until the
    second half of the terms adds nothing at 1e-13 relative precision."""
    z0 = sigma * sigma * math.log(1.0 / q - 1.0) + 0.5
    two_s2, root2s = 2.0 * sigma * sigma, math.sqrt(2.0) * sigma
    log_q, log_1q = math.log(q), math.log1p(-q)
    n = chunk // 2
    while n < max_terms:
        n = min(max_terms, 2 * n)
        log_c, sign = _log_binomials(alpha, n)
        i = np.arange(n, dtype=np.float64)
        j = alpha - i
        s0 = log_c + i * log_q + j * log_1q + (i * i - i) / two_s2 + math.log(0.5) + \
            _log_erfc((i - z0) / root2s)
        s1 = log_c + j * log_q + i * log_1q + (j * j - j) / two_s2 + math.log(0.5) + \
            _log_erfc((z0 - j) / root2s)
        mags, signs = np.concatenate([s0, s1]), np.concatenate([sign, sign])
        best = _log_sum_signed(mags, signs)
        tail = max(s0[n // 2:].max(), s1[n // 2:].max())
        if n > alpha + 1 and tail < best - 30.0:
            return best
    raise ArithmeticError(f"the RDP series for q={q}, sigma={sigma}, alpha={alpha} did not "
                          f"converge in {max_terms} terms")


def rdp_sampled_gaussian(q, sigma, orders):
    """RDP of one step of the sampled Gaussian mechanism (sampling rate q, noise multiplier
    sigma) at each order, as a float64 array."""
    out = np.empty(len(orders), dtype=np.float64)
    for idx, alpha in enumerate(orders):
        alpha = float(alpha)
        if q == 0 or sigma == math.inf:
            out[idx] = 0.0
        elif sigma == 0:
            out[idx] = math.inf
        elif q == 1.0:
            out[idx] = alpha / (2.0 * sigma * sigma)
        elif alpha.is_integer():
            out[idx] = _log_a_int(q, sigma, alpha) / (alpha - 1.0)
        else:
            out[idx] = _log_a_frac(q, sigma, alpha) / (alpha - 1.0)
    return out


def eps_from_rdp(orders, rdp, delta):
    """The smallest eps over the orders: RDP(alpha) + log(1/delta) / (alpha - 1)."""
    orders = np.asarray(orders, dtype=np.float64)
    eps = np.asarray(rdp, dtype=np.float64) + math.log(1.0 / delta) / (orders - 1.0)
    return float(np.nanmin(eps))


def delta_from_rdp(orders, rdp, eps):
    """The smallest delta over the orders: exp((alpha - 1) (RDP(alpha) - eps)), at most 1."""
    orders = np.asarray(orders, dtype=np.float64)
    with np.errstate(over="ignore"):
        deltas = np.exp((orders - 1.0) * (np.asarray(rdp, dtype=np.float64) - eps))
    return float(min(1.0, np.nanmin(deltas)))


def zcdp_gaussian(sigma):
    """rho of one Gaussian release with noise multiplier sigma (sensitivity 1): 1 / (2 s^2).
    Subsampling is not credited: zCDP has no tight amplification by sampling."""
    return 1.0 / (2.0 * sigma * sigma)


def eps_from_zcdp(rho, delta):
    """(eps, delta)-DP of a rho-zCDP mechanism: rho + 2 sqrt(rho log(1/delta))
    (Bun and Steinke 2016, Prop. 1.3)."""
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def delta_from_zcdp(rho, eps):
    """The inverse of eps_from_zcdp: exp(-(eps - rho)^2 / (4 rho)) for eps >= rho, else 1."""
    if rho <= 0:
        return 0.0
    if eps <= rho:
        return 1.0
    return min(1.0, math.exp(-(eps - rho) ** 2 / (4.0 * rho)))

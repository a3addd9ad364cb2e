"""Differential privacy of federated rounds (encrypt_type DP_ENCRYPT), as MindSpore Federated's
local DP: each client clips its update (its trained weights minus the round's global model)
to the L2 norm ``dp_norm_clip`` over all parameters and adds Gaussian noise of standard
deviation ``noise_multiplier * dp_norm_clip`` to every value before uploading.

``dp_eps`` and ``dp_delta`` are the budget of one round, as in MindSpore Federated: the noise
multiplier is the smallest for which one release is (dp_eps, dp_delta)-DP by the Renyi DP of
the Gaussian mechanism (alpha / (2 z^2) at order alpha; sensitivity dp_norm_clip, a client's
whole update). Over rounds the RDP adds up, so the epsilon spent after t rounds, at the same
delta, grows with t. The accountant is mycel.armour's (its RDP of the sampled Gaussian
mechanism with sampling rate 1, since a client may take part in every round, and its RDP to
(eps, delta) conversion): one implementation of that math.
"""
import math

import numpy as np

from mycel.armour.privacy.diff_privacy._accounting import (DEFAULT_ORDERS, eps_from_rdp,
                                                           rdp_sampled_gaussian)


def _round_rdp(noise_multiplier):
    return rdp_sampled_gaussian(1.0, noise_multiplier, DEFAULT_ORDERS)


def dp_epsilons(noise_multiplier, dp_delta, rounds):
    """The epsilon spent after each of rounds 1..``rounds`` (a list), at delta ``dp_delta``."""
    one = _round_rdp(noise_multiplier)
    return [eps_from_rdp(DEFAULT_ORDERS, t * one, dp_delta) for t in range(1, rounds + 1)]


def dp_noise_multiplier(dp_eps, dp_delta):
    """The smallest noise multiplier (to a relative 1e-9) whose single release is
    (dp_eps, dp_delta)-DP by the RDP accountant. ValueError for a budget out of range."""
    if isinstance(dp_eps, bool) or not isinstance(dp_eps, (int, float)) or not dp_eps > 0 \
            or not math.isfinite(dp_eps):
        raise ValueError(f"federated config: 'encrypt.dp_encrypt.dp_eps' must be a positive "
                         f"number, got {dp_eps!r}.")
    if isinstance(dp_delta, bool) or not isinstance(dp_delta, (int, float)) \
            or not 0 < dp_delta < 1:
        raise ValueError(f"federated config: 'encrypt.dp_encrypt.dp_delta' must be in (0, 1), "
                         f"got {dp_delta!r}.")

    def eps(z):
        return eps_from_rdp(DEFAULT_ORDERS, _round_rdp(z), dp_delta)
    lo, hi = 1e-4, 1e4  # eps(lo) is huge, eps(hi) tiny
    if eps(hi) > dp_eps:
        raise ValueError(f"federated config: 'encrypt.dp_encrypt.dp_eps' {dp_eps} is too small "
                         f"for any noise multiplier up to {hi} at delta {dp_delta}.")
    while hi / lo > 1 + 1e-9:  # bisection on log z: eps decreases in z
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if eps(mid) > dp_eps else (lo, mid)
    return hi


def privatize(weights, global_weights, noise_multiplier, norm_clip, rng):
    """The upload of a DP_ENCRYPT client: ``global + clip(weights - global) + noise``, the
    difference scaled to L2 norm at most ``norm_clip`` over all parameters, the noise
    N(0, (noise_multiplier * norm_clip)^2) per value from ``rng`` (a numpy Generator). Returns
    {name: float32 ndarray}; a parameter missing from the global model is a ValueError."""
    missing = sorted(set(weights) - set(global_weights))
    if missing:
        raise ValueError(f"FederatedClient: the update has parameters the global model lacks: "
                         f"{missing}.")
    diffs = {k: np.asarray(v, np.float64) - np.asarray(global_weights[k], np.float64)
             for k, v in weights.items()}
    norm = math.sqrt(sum(float(np.sum(d * d)) for d in diffs.values()))
    scale = min(1.0, norm_clip / norm) if norm > 0 else 1.0
    std = noise_multiplier * norm_clip
    return {k: (np.asarray(global_weights[k], np.float64) + d * scale
                + rng.normal(0.0, std, d.shape)).astype(np.float32)
            for k, d in diffs.items()}

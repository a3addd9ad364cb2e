"""Privacy monitors (MindArmour's ``PrivacyMonitorFactory``, ``RDPMonitor``, ``ZCDPMonitor``):
callbacks for ``Model.train`` that account the privacy spent by DP-SGD as training runs.

Each training step is one sampled Gaussian mechanism with sampling rate
``q = batch_size / num_samples`` and the step's noise multiplier (constant, or decayed per step
by the schedule the adaptive noise mechanism applies, ``_accounting.decayed_multiplier``). The RDP
monitor adds the per-step RDP at each order and converts to (eps, delta); the zCDP monitor adds
``1 / (2 sigma_t^2)`` per step. The spent budget is readable at any time (``monitor.eps``,
``monitor.delta``, ``privacy_spent(steps)``), printed every ``per_print_times`` steps, and with
``target_eps`` (RDP) training is stopped once the budget would be exceeded.
"""

import numpy as np

from mycel.armour.privacy.diff_privacy import _accounting as acc
from mycel.armour.privacy.diff_privacy.mechanisms import check_number
from mycel.nn.layer._check import non_negative_int, positive_int
from mycel.train.callback import Callback


class _Monitor(Callback):
    """What both monitors share: the arguments, the noise schedule, step counting, printing
    and the epoch suggestion. A subclass gives ``_spend(n)`` (account steps t..t+n-1) and
    ``_convert()`` (the current (eps, delta))."""

    _who = "PrivacyMonitor"

    def __init__(self, num_samples, batch_size, initial_noise_multiplier, max_eval_epoch,
                 noise_decay_mode, noise_decay_rate, per_print_times, dataset_sink_mode):
        who = self._who
        self._num_samples = positive_int(num_samples, "num_samples", who)
        self._batch_size = positive_int(batch_size, "batch_size", who)
        if batch_size > num_samples:
            raise ValueError(f"For '{who}', the 'batch_size' {batch_size} must not exceed "
                             f"'num_samples' {num_samples}.")
        self._sigma0 = check_number(initial_noise_multiplier, "initial_noise_multiplier", who)
        if max_eval_epoch is not None:
            positive_int(max_eval_epoch, "max_eval_epoch", who)
        self._max_eval_epoch = max_eval_epoch
        if noise_decay_mode is not None:
            check_number(noise_decay_rate, "noise_decay_rate", who, high=1.0)
        self._noise_decay_mode = acc.check_decay_mode(noise_decay_mode, who)
        self._noise_decay_rate = noise_decay_rate
        self._per_print_times = non_negative_int(per_print_times, "per_print_times", who)
        self._dataset_sink_mode = bool(dataset_sink_mode)
        self._q = batch_size / num_samples
        self._steps = 0  # steps accounted so far

    @property
    def steps_per_epoch(self):
        """Training steps in one epoch: num_samples // batch_size."""
        return self._num_samples // self._batch_size

    @property
    def steps(self):
        """Steps accounted so far."""
        return self._steps

    @property
    def sampling_rate(self):
        """q = batch_size / num_samples."""
        return self._q

    def noise_multiplier(self, step):
        """The noise multiplier of step `step` (0-based) under the decay schedule."""
        return acc.decayed_multiplier(self._noise_decay_mode, self._sigma0,
                                      self._noise_decay_rate, step)

    @property
    def eps(self):
        """The eps spent by the steps accounted so far (for the monitor's delta)."""
        return self._convert()[0]

    @property
    def delta(self):
        """The delta spent by the steps accounted so far (for the monitor's eps)."""
        return self._convert()[1]

    def account(self, steps=1):
        """Accounts `steps` more training steps (what step_end does each step)."""
        positive_int(steps, "steps", self._who)
        self._spend(steps)
        self._steps += steps

    def step_end(self, run_context):
        """Accounts the step just taken (Model.train calls it through on_train_step_end),
        printing the budget every per_print_times steps."""
        self.account(1)
        params = run_context.original_args()
        if self._per_print_times and self._steps % self._per_print_times == 0:
            eps, delta = self._convert()
            print(f"epoch: {params.cur_epoch_num} step: {params.cur_step_num}, privacy budget "
                  f"eps: {eps:.6g}, delta: {delta:.6g}", flush=True)

    def privacy_spent(self, steps):
        """(eps, delta) after `steps` steps from the start, without changing the monitor."""
        twin = self.__class__.__new__(self.__class__)
        twin.__dict__.update(self.__dict__)
        twin._reset()
        if steps:
            twin.account(steps)
        return twin._convert()


class RDPMonitor(_Monitor):
    """RDPMonitor(num_samples, batch_size, initial_noise_multiplier=1.5, max_eval_epoch=None,
    target_delta=1e-3, target_eps=None, orders=None, noise_decay_mode='Time',
    noise_decay_rate=6e-4, per_print_times=50, dataset_sink_mode=False): Renyi-DP accountant
    of DP-SGD (Mironov 2017; the sampled Gaussian mechanism, Mironov et al. 2019).

    With target_eps None it reports eps for ``target_delta`` (``eps = min over orders of
    RDP(alpha) + log(1/delta)/(alpha - 1)``); with target_eps it reports the delta for that
    eps and requests training to stop as soon as the spent eps (for target_delta) exceeds it.
    ``orders`` default to ``1.1, 1.2, ..., 10.9, 12, ..., 63``. noise_decay_mode None, 'Time',
    'Step' or 'Exp' must match the noise mechanism's decay policy."""

    _who = "RDPMonitor"

    def __init__(self, num_samples, batch_size, initial_noise_multiplier=1.5, max_eval_epoch=None,
                 target_delta=1e-3, target_eps=None, orders=None, noise_decay_mode="Time",
                 noise_decay_rate=6e-4, per_print_times=50, dataset_sink_mode=False):
        super().__init__(num_samples, batch_size, initial_noise_multiplier, max_eval_epoch,
                         noise_decay_mode, noise_decay_rate, per_print_times, dataset_sink_mode)
        if target_delta is not None:
            check_number(target_delta, "target_delta", self._who, high=1.0)
        if target_eps is not None:
            check_number(target_eps, "target_eps", self._who)
        if target_delta is None and target_eps is None:
            raise ValueError("For 'RDPMonitor', one of 'target_delta' and 'target_eps' must be "
                             "given.")
        self._target_delta, self._target_eps = target_delta, target_eps
        orders = acc.DEFAULT_ORDERS if orders is None else orders
        try:
            orders = np.asarray(list(orders), dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"For 'RDPMonitor', the 'orders' must be a list of numbers, but "
                            f"got {orders!r}.") from None
        if orders.ndim != 1 or orders.size == 0 or not np.all(orders > 1):
            raise ValueError(f"For 'RDPMonitor', the 'orders' must be a non-empty list of "
                             f"numbers greater than 1, but got {orders.tolist()!r}.")
        self._orders = orders
        self._reset()

    def _reset(self):
        self._steps = 0
        self._rdp = np.zeros_like(self._orders)
        self._cache = {}

    def _rdp_step(self, sigma):
        key = float(sigma)
        if key not in self._cache:
            self._cache[key] = acc.rdp_sampled_gaussian(self._q, sigma, self._orders)
        return self._cache[key]

    def _spend(self, n):
        if self._noise_decay_mode is None:
            self._rdp = self._rdp + n * self._rdp_step(self._sigma0)
            return
        for t in range(self._steps, self._steps + n):
            self._rdp = self._rdp + self._rdp_step(self.noise_multiplier(t))

    def _convert(self):
        if self._target_eps is None:
            return acc.eps_from_rdp(self._orders, self._rdp, self._target_delta), \
                self._target_delta
        return self._target_eps, acc.delta_from_rdp(self._orders, self._rdp, self._target_eps)

    @property
    def rdp(self):
        """The accumulated RDP at each order (a numpy array aligned with ``orders``)."""
        return self._rdp.copy()

    @property
    def orders(self):
        """The RDP orders."""
        return self._orders.copy()

    def _over_budget(self):
        """Whether the spent eps (for target_delta) exceeds target_eps (both given)."""
        return self._target_eps is not None and self._target_delta is not None and \
            acc.eps_from_rdp(self._orders, self._rdp, self._target_delta) > self._target_eps

    def max_epoch_suggest(self):
        """The largest number of epochs (up to max_eval_epoch, else 1000) whose spent eps for
        target_delta stays within target_eps (both must be set); 0 when one epoch exceeds it."""
        if self._target_eps is None or self._target_delta is None:
            raise ValueError("For 'RDPMonitor.max_epoch_suggest', both 'target_eps' and "
                             "'target_delta' must be set.")
        twin = self.__class__.__new__(self.__class__)
        twin.__dict__.update(self.__dict__)
        twin._reset()
        best = 0
        for epoch in range(1, (self._max_eval_epoch or 1000) + 1):
            twin.account(self.steps_per_epoch)
            if twin._over_budget():
                break
            best = epoch
        return best

    def step_end(self, run_context):
        """Accounts the step and requests a stop once target_eps is exceeded."""
        super().step_end(run_context)
        if self._over_budget():
            print(f"RDPMonitor: the privacy budget eps {self._target_eps} (delta "
                  f"{self._target_delta}) is spent after {self._steps} steps; stopping.",
                  flush=True)
            run_context.request_stop()


class ZCDPMonitor(_Monitor):
    """ZCDPMonitor(num_samples, batch_size, initial_noise_multiplier=1.5, max_eval_epoch=None,
    noise_decay_mode='Time', noise_decay_rate=6e-4, per_print_times=50,
    dataset_sink_mode=False, target_delta=1e-5): zero-concentrated DP accountant (Bun and
    Steinke 2016). Each step's Gaussian release is ``1 / (2 sigma_t^2)``-zCDP; zCDP composes
    by addition and converts to ``eps = rho + 2 sqrt(rho log(1/delta))``. Sampling is not
    credited (zCDP has no tight amplification by subsampling), so for the same run it reports a
    larger eps than the RDP monitor."""

    _who = "ZCDPMonitor"

    def __init__(self, num_samples, batch_size, initial_noise_multiplier=1.5, max_eval_epoch=None,
                 noise_decay_mode="Time", noise_decay_rate=6e-4, per_print_times=50,
                 dataset_sink_mode=False, target_delta=1e-5):
        super().__init__(num_samples, batch_size, initial_noise_multiplier, max_eval_epoch,
                         noise_decay_mode, noise_decay_rate, per_print_times, dataset_sink_mode)
        self._target_delta = check_number(target_delta, "target_delta", self._who, high=1.0)
        self._reset()

    def _reset(self):
        self._steps = 0
        self._rho = 0.0

    def _spend(self, n):
        if self._noise_decay_mode is None:
            self._rho += n * acc.zcdp_gaussian(self._sigma0)
            return
        for t in range(self._steps, self._steps + n):
            self._rho += acc.zcdp_gaussian(self.noise_multiplier(t))

    @property
    def rho(self):
        """The accumulated zCDP parameter rho."""
        return self._rho

    def _convert(self):
        return acc.eps_from_zcdp(self._rho, self._target_delta), self._target_delta


class PrivacyMonitorFactory:
    """Factory of privacy monitors: ``create('rdp', ...)`` gives an RDPMonitor, ``create(
    'zcdp', ...)`` a ZCDPMonitor, with the remaining arguments passed on."""

    @staticmethod
    def create(policy, *args, **kwargs):
        """A monitor for `policy` ('rdp' or 'zcdp') built from args and kwargs."""
        if policy == "rdp":
            return RDPMonitor(*args, **kwargs)
        if policy == "zcdp":
            return ZCDPMonitor(*args, **kwargs)
        raise ValueError(f"For 'PrivacyMonitorFactory.create', the 'policy' must be 'rdp' or "
                         f"'zcdp', but got {policy!r}.")

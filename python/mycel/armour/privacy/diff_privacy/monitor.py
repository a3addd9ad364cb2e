"""Privacy monitors (MindArmour's ``PrivacyMonitorFactory``, ``RDPMonitor``, ``ZCDPMonitor``):
callbacks for ``Model.train`` that account the privacy spent by DP-SGD as training runs.

Each training step is one sampled Gaussian mechanism with sampling rate
``q = batch_size / num_samples`` and the step's noise multiplier (constant, or decayed per step
by the schedule the adaptive noise mechanism applies, ``_accounting.decayed_multiplier``). The RDP
monitor adds the per-step RDP at each order and converts to (eps, delta); the zCDP monitor adds
``1 / (2 sigma_t^2)`` per step. The spent budget is readable at any time (``monitor.eps``,
``monitor.delta``, ``privacy_spent(steps)``), printed every ``per_print_times`` steps; the
budget (``max_eps``, or RDP's ``max_delta`` with ``target_eps``) bounds ``max_epoch_suggest()``
and, with ``stop_when_spent``, stops training once exceeded.
"""

import numpy as np

from mycel.armour.privacy.diff_privacy import _accounting as acc
from mycel.armour.privacy.diff_privacy.mechanisms import check_number
from mycel.nn.layer._check import non_negative_int, positive_int
from mycel.train.callback import Callback


class _Monitor(Callback):
    """What both monitors share: the arguments, the noise schedule, step counting, printing,
    the budget check and the epoch suggestion. A subclass gives ``_spend(n)`` (account steps
    t..t+n-1), ``_convert()`` (the current (eps, delta)) and ``_within_budget()``."""

    _who = "PrivacyMonitor"

    def __init__(self, num_samples, batch_size, initial_noise_multiplier, noise_decay_mode,
                 noise_decay_rate, per_print_times, dataset_sink_mode, stop_when_spent):
        who = self._who
        self._num_samples = positive_int(num_samples, "num_samples", who)
        self._batch_size = positive_int(batch_size, "batch_size", who)
        if batch_size > num_samples:
            raise ValueError(f"For '{who}', the 'batch_size' {batch_size} must not exceed "
                             f"'num_samples' {num_samples}.")
        self._sigma0 = check_number(initial_noise_multiplier, "initial_noise_multiplier", who)
        if noise_decay_mode is not None:
            check_number(noise_decay_rate, "noise_decay_rate", who, high=1.0)
        self._noise_decay_mode = acc.check_decay_mode(noise_decay_mode, who)
        self._noise_decay_rate = noise_decay_rate
        self._per_print_times = non_negative_int(per_print_times, "per_print_times", who)
        if not isinstance(dataset_sink_mode, bool) or not isinstance(stop_when_spent, bool):
            raise TypeError(f"For '{who}', 'dataset_sink_mode' and 'stop_when_spent' must be "
                            f"bools, but got {dataset_sink_mode!r} and {stop_when_spent!r}.")
        if dataset_sink_mode:  # as MindArmour: print once per epoch (one sink)
            self._per_print_times = self.steps_per_epoch
        self._stop_when_spent = stop_when_spent
        self._q = batch_size / num_samples
        self._steps = 0  # steps accounted so far

    @staticmethod
    def _check_max(value, name, who, high=None):
        return None if value is None else check_number(value, name, who, high=high)

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
        """Accounts `steps` more training steps (what step_end does)."""
        positive_int(steps, "steps", self._who)
        self._spend(steps)
        self._steps += steps

    def step_end(self, run_context):
        """Accounts the steps just taken (Model.train calls it through on_train_step_end: one
        step, or in dataset sink mode the sink's cur_step_in_epoch steps), printing the budget
        whenever the count passes a multiple of per_print_times, and with stop_when_spent
        requesting a stop once the budget (max_eps, or RDP's max_delta) is exceeded."""
        params = run_context.original_args()
        taken = params.cur_step_in_epoch if getattr(params, "dataset_sink_mode", False) else 1
        if taken <= 0:
            return
        before = self._steps
        self.account(taken)
        every = self._per_print_times
        if every and self._steps // every > before // every:
            eps, delta = self._convert()
            print(f"epoch: {params.cur_epoch_num} step: {params.cur_step_num}, privacy budget "
                  f"eps: {eps:.6g}, delta: {delta:.6g}", flush=True)
        if self._stop_when_spent and not self._within_budget():
            print(f"{self._who}: the privacy budget is spent after {self._steps} steps "
                  f"(eps {self.eps:.6g}, delta {self.delta:.6g}); stopping.", flush=True)
            run_context.request_stop()

    def _twin(self):
        """A copy of the monitor with nothing accounted."""
        twin = self.__class__.__new__(self.__class__)
        twin.__dict__.update(self.__dict__)
        twin._reset()
        return twin

    def privacy_spent(self, steps):
        """(eps, delta) after `steps` steps from the start, without changing the monitor."""
        twin = self._twin()
        if steps:
            twin.account(steps)
        return twin._convert()

    def max_epoch_suggest(self, max_epochs=10000):
        """The largest number of epochs (steps_per_epoch steps each, up to max_epochs, as
        MindArmour's 10000) whose spent budget stays within max_eps (or, for an RDP monitor
        with target_eps, within max_delta); 0 when one epoch exceeds it. MindArmour's returns
        the first epoch count that exceeds it."""
        self._within_budget()  # checks the budget is set
        twin, best = self._twin(), 0
        for epoch in range(1, max_epochs + 1):
            twin.account(self.steps_per_epoch)
            if not twin._within_budget():
                break
            best = epoch
        return best


class RDPMonitor(_Monitor):
    """RDPMonitor(num_samples, batch_size, initial_noise_multiplier=1.5, max_eps=10.0,
    target_delta=1e-3, max_delta=None, target_eps=None, orders=None, noise_decay_mode='Time',
    noise_decay_rate=6e-4, per_print_times=50, dataset_sink_mode=False,
    stop_when_spent=False): Renyi-DP accountant of DP-SGD (Mironov 2017; the sampled Gaussian
    mechanism, Mironov et al. 2019), MindArmour's arguments.

    Exactly one of target_delta and target_eps is set: with target_delta the monitor reports
    eps (``eps = min over orders of RDP(alpha) + log(1/delta)/(alpha - 1)``) and max_eps is the
    budget; with target_eps it reports delta and max_delta is the budget. The budget bounds
    ``max_epoch_suggest()`` and, with stop_when_spent (mycel's addition), stops training.
    ``orders`` default to ``1.1, 1.2, ..., 10.9, 12, ..., 63``. noise_decay_mode None, 'Time',
    'Step' or 'Exp' must match the noise mechanism's decay policy. per_print_times 0 prints
    nothing; dataset_sink_mode prints once per epoch."""

    _who = "RDPMonitor"

    def __init__(self, num_samples, batch_size, initial_noise_multiplier=1.5, max_eps=10.0,
                 target_delta=1e-3, max_delta=None, target_eps=None, orders=None,
                 noise_decay_mode="Time", noise_decay_rate=6e-4, per_print_times=50,
                 dataset_sink_mode=False, stop_when_spent=False):
        super().__init__(num_samples, batch_size, initial_noise_multiplier, noise_decay_mode,
                         noise_decay_rate, per_print_times, dataset_sink_mode, stop_when_spent)
        who = self._who
        if (target_delta is None) == (target_eps is None):
            raise ValueError(f"For '{who}', exactly one of 'target_delta' and 'target_eps' "
                             f"must be given, but got {target_delta!r} and {target_eps!r}.")
        self._target_delta = self._check_max(target_delta, "target_delta", who, high=1.0)
        self._target_eps = self._check_max(target_eps, "target_eps", who)
        self._max_eps = self._check_max(max_eps, "max_eps", who)
        self._max_delta = self._check_max(max_delta, "max_delta", who, high=1.0)
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
        if stop_when_spent:
            self._within_budget()  # the budget it stops at must be set

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

    def _within_budget(self):
        if self._target_eps is None:
            if self._max_eps is None:
                raise ValueError("For 'RDPMonitor', the budget 'max_eps' must be set (it goes "
                                 "with 'target_delta').")
            return self.eps <= self._max_eps
        if self._max_delta is None:
            raise ValueError("For 'RDPMonitor', the budget 'max_delta' must be set (it goes "
                             "with 'target_eps').")
        return self.delta <= self._max_delta

    @property
    def rdp(self):
        """The accumulated RDP at each order (a numpy array aligned with ``orders``)."""
        return self._rdp.copy()

    @property
    def orders(self):
        """The RDP orders."""
        return self._orders.copy()


class ZCDPMonitor(_Monitor):
    """ZCDPMonitor(num_samples, batch_size, initial_noise_multiplier=1.5, max_eps=10.0,
    target_delta=1e-3, noise_decay_mode='Time', noise_decay_rate=6e-4, per_print_times=50,
    dataset_sink_mode=False, stop_when_spent=False): zero-concentrated DP accountant (Bun and
    Steinke 2016), MindArmour's arguments. Each step's Gaussian release is
    ``1 / (2 sigma_t^2)``-zCDP; zCDP composes by addition and converts to
    ``eps = rho + 2 sqrt(rho log(1/delta))``. Sampling is not credited (as MindArmour's, which
    documents the monitor as unsuited to subsampled mechanisms: zCDP has no tight
    amplification by subsampling), so for the same run it reports a larger eps than the RDP
    monitor. max_eps is the budget of ``max_epoch_suggest()`` and stop_when_spent."""

    _who = "ZCDPMonitor"

    def __init__(self, num_samples, batch_size, initial_noise_multiplier=1.5, max_eps=10.0,
                 target_delta=1e-3, noise_decay_mode="Time", noise_decay_rate=6e-4,
                 per_print_times=50, dataset_sink_mode=False, stop_when_spent=False):
        super().__init__(num_samples, batch_size, initial_noise_multiplier, noise_decay_mode,
                         noise_decay_rate, per_print_times, dataset_sink_mode, stop_when_spent)
        self._target_delta = check_number(target_delta, "target_delta", self._who, high=1.0)
        self._max_eps = self._check_max(max_eps, "max_eps", self._who)
        self._reset()
        if stop_when_spent:
            self._within_budget()  # the budget it stops at must be set

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

    def _within_budget(self):
        if self._max_eps is None:
            raise ValueError("For 'ZCDPMonitor', the budget 'max_eps' must be set.")
        return self.eps <= self._max_eps


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

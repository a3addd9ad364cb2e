"""mycel.armour: trustworthy AI (MindSpore's MindArmour).

``adv_robustness``: adversarial attacks, defences, detectors and robustness evaluations (each
submodule imported where used, e.g. ``from mycel.armour.adv_robustness.attacks import
FastGradientSignMethod``); ``privacy.diff_privacy``: differentially private training and its
accountants; ``privacy.evaluation``: membership inference; ``fuzz_testing``: coverage-guided
fuzzing of models."""
from mycel.armour import adv_robustness

__all__ = ["adv_robustness"]

"""Trustworthy AI (MindSpore's MindArmour). ``adv_robustness``: adversarial attacks,
defences, detectors and robustness evaluations (each submodule imported where used, e.g.
``from mycel.armour.adv_robustness.attacks import FastGradientSignMethod``)."""
from mycel.armour import adv_robustness

__all__ = ["adv_robustness"]

"""Adversarial robustness (MindArmour's ``mindarmour.adv_robustness``): ``attacks``,
``defenses``, ``detectors`` and ``evaluations``. Import the submodule you need, e.g.
``from mycel.armour.adv_robustness.attacks import FastGradientSignMethod``."""

"""Defences by adversarial training (MindArmour's ``mindarmour.adv_robustness.defenses``)."""
from mycel.armour.adv_robustness.defenses.adversarial_defense import (
    AdversarialDefense, AdversarialDefenseWithAttacks, NaturalAdversarialDefense,
    ProjectedAdversarialDefense)
from mycel.armour.adv_robustness.defenses.defense import Defense

__all__ = ["Defense", "AdversarialDefense", "AdversarialDefenseWithAttacks",
           "NaturalAdversarialDefense", "ProjectedAdversarialDefense"]

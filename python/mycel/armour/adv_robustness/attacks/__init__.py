"""Adversarial attacks (MindArmour's ``mindarmour.adv_robustness.attacks``): white-box
gradient attacks over mycel's grad, and black-box attacks that only query a BlackModel."""
from mycel.armour.adv_robustness.attacks.attack import Attack
from mycel.armour.adv_robustness.attacks.black import (BlackModel, GeneticAttack,
                                                      HopSkipJumpAttack, PSOAttack)
from mycel.armour.adv_robustness.attacks.carlini_wagner import CarliniWagnerL2Attack
from mycel.armour.adv_robustness.attacks.deep_fool import DeepFool
from mycel.armour.adv_robustness.attacks.gradient_method import (
    FastGradientMethod, FastGradientSignMethod, GradientMethod, LeastLikelyClassMethod,
    RandomFastGradientMethod, RandomFastGradientSignMethod)
from mycel.armour.adv_robustness.attacks.iterative_gradient_method import (
    BasicIterativeMethod, IterativeGradientMethod, MomentumIterativeMethod,
    ProjectedGradientDescent)
from mycel.armour.adv_robustness.attacks.jsma import JSMAAttack

__all__ = ["Attack", "GradientMethod", "FastGradientMethod", "RandomFastGradientMethod",
           "FastGradientSignMethod", "RandomFastGradientSignMethod", "LeastLikelyClassMethod",
           "IterativeGradientMethod", "BasicIterativeMethod", "ProjectedGradientDescent",
           "MomentumIterativeMethod", "DeepFool", "CarliniWagnerL2Attack", "JSMAAttack",
           "BlackModel", "GeneticAttack", "HopSkipJumpAttack", "PSOAttack"]

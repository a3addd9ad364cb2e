"""Black-box attacks: they reach the model only through a BlackModel's ``predict``."""
from mycel.armour.adv_robustness.attacks.black.black_model import BlackModel
from mycel.armour.adv_robustness.attacks.black.genetic_attack import GeneticAttack
from mycel.armour.adv_robustness.attacks.black.hop_skip_jump_attack import HopSkipJumpAttack
from mycel.armour.adv_robustness.attacks.black.pso_attack import PSOAttack

__all__ = ["BlackModel", "GeneticAttack", "HopSkipJumpAttack", "PSOAttack"]

"""mycel.armour.privacy.evaluation (MindArmour's): privacy evaluation of trained models.
``MembershipInference`` trains membership-inference attacks (logistic regression, k-NN, MLP,
random forest, loss threshold) on a model's outputs and reports precision, recall, accuracy
and ROC-AUC."""
from mycel.armour.privacy.evaluation.membership_inference import MembershipInference

__all__ = ["MembershipInference"]

"""Adversarial-example detectors (MindArmour's ``mindarmour.adv_robustness.detectors``)."""
from mycel.armour.adv_robustness.detectors.black import SimilarityDetector
from mycel.armour.adv_robustness.detectors.detector import Detector
from mycel.armour.adv_robustness.detectors.ensemble_detector import EnsembleDetector
from mycel.armour.adv_robustness.detectors.mag_net import (DivergenceBasedDetector,
                                                           ErrorBasedDetector)
from mycel.armour.adv_robustness.detectors.region_based_detector import RegionBasedDetector

__all__ = ["Detector", "ErrorBasedDetector", "DivergenceBasedDetector", "RegionBasedDetector",
           "SimilarityDetector", "EnsembleDetector"]

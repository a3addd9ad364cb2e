"""Detectors of black-box (query-based) attacks."""
from mycel.armour.adv_robustness.detectors.black.similarity_detector import SimilarityDetector

__all__ = ["SimilarityDetector"]

"""mycel.armour.privacy.diff_privacy (MindArmour's): differentially private training.

- ``PrivacyMonitorFactory.create('rdp' | 'zcdp', ...)``: privacy accountants as Model
  callbacks (``RDPMonitor``, ``ZCDPMonitor``), eps readable from the monitor.
- ``NoiseMechanismsFactory`` (``NoiseGaussianRandom``, ``NoiseAdaGaussianRandom``) and
  ``ClipMechanismsFactory`` (``AdaClippingWithGaussianRandom``).
- ``DPOptimizerClassFactory``: SGD / Momentum / Adam classes that add the noise.
- ``DPModel``: Model with a DP-SGD step (per-micro-batch clipping).
"""
from mycel.armour.privacy.diff_privacy.mechanisms import (AdaClippingWithGaussianRandom,
                                                          ClipMechanismsFactory,
                                                          NoiseAdaGaussianRandom,
                                                          NoiseGaussianRandom,
                                                          NoiseMechanismsFactory)
from mycel.armour.privacy.diff_privacy.model import DPModel, DPTrainOneStepCell
from mycel.armour.privacy.diff_privacy.monitor import (PrivacyMonitorFactory, RDPMonitor,
                                                       ZCDPMonitor)
from mycel.armour.privacy.diff_privacy.optimizer import DPOptimizerClassFactory

__all__ = ["AdaClippingWithGaussianRandom", "ClipMechanismsFactory", "DPModel",
           "DPOptimizerClassFactory", "DPTrainOneStepCell", "NoiseAdaGaussianRandom",
           "NoiseGaussianRandom", "NoiseMechanismsFactory", "PrivacyMonitorFactory",
           "RDPMonitor", "ZCDPMonitor"]

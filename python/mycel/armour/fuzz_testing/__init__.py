"""mycel.armour.fuzz_testing (MindArmour's): coverage-guided fuzz testing of models.
Coverage metrics over chosen layers' neurons (``NeuronCoverage``, ``TopKNeuronCoverage``,
``KMultisectionNeuronCoverage``, ``NeuronBoundsCoverage``, ``SuperNeuronActivateCoverage``)
and the ``Fuzzer``, which mutates inputs (image transforms and adversarial steps) to grow the
coverage and reports the misclassified inputs it finds."""
from mycel.armour.fuzz_testing.coverage import (CoverageMetrics, KMultisectionNeuronCoverage,
                                                NeuronBoundsCoverage, NeuronCoverage,
                                                SuperNeuronActivateCoverage, TopKNeuronCoverage)
from mycel.armour.fuzz_testing.fuzzing import Fuzzer

__all__ = ["CoverageMetrics", "Fuzzer", "KMultisectionNeuronCoverage", "NeuronBoundsCoverage",
           "NeuronCoverage", "SuperNeuronActivateCoverage", "TopKNeuronCoverage"]

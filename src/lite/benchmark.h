// mycel_benchmark (and python -m mycel.lite.benchmark): runs a .ms model and reports
//   latency in ms over --loopCount runs after --warmUpLoopCount: min, mean, p99;
//   peak memory: the activation arena and the process's peak resident set (VmHWM);
//   with --benchmarkDataFile, the accuracy difference of each output against the reference
//   (MindSpore Lite benchmark's text form: per output a line "name ndim dim...", then a line
//   of its values), as the mean relative error sum|out - ref| / sum|ref| in percent, with
//   the largest absolute difference; the run fails (exit 1) when an output's error exceeds
//   --accuracyThreshold (percent, default 0.5).
// Inputs: --inDataFile=a.bin,b.bin (raw little-endian float32, one file per input, sized as
// the input), else uniform random values in [-1, 1] from a fixed seed. --enableFp16=true
// (MindSpore Lite's flag) runs the convolutions in bf16 (Precision::BFloat16: these CPUs have
// no float16 arithmetic).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace mycel::lite {

// Runs the tool on `args` (without the program name), printing to `out`; returns the exit
// status (0 ok, 1 accuracy over the threshold). Bad flags, files or models: ValueError.
int benchmark_main(const std::vector<std::string>& args, std::ostream& out);

}  // namespace mycel::lite

// Whole-step capture (jit_level "O2"): an Executable's step recorded once on a device that
// can capture (tensor/capture.h; CUDA Graphs on the GPU) and replayed, so a step of many
// small kernels costs one launch instead of one per kernel (MindSpore's whole-graph sink).
// Device-independent: nothing here names CUDA.
//
// Per input signature (each tensor argument's dtype, shape and device; other arguments by
// value) a CaptureRunner goes through:
//   1. warm-up: the step runs op by op (cuBLAS/cuDNN set up, algorithms chosen, host
//      constants moved to the device once);
//   2. capture: every tensor argument that is the same tensor as at the warm-up (parameters,
//      constants: the step may update them in place) is read where it is; every other one is
//      copied into a static input buffer. The step runs once under the device's capture
//      (kernels recorded, not run; its memory from the capture's private pool), then the
//      graph is launched once to compute this call;
//   3. replay: the static input buffers get this call's arguments (device-to-device copies in
//      stream order), the graph is launched, and the result is returned. No allocation but
//      the returned copies: memory is planned once, by the capture.
// The result of a replay is a fresh copy of the captured step's static outputs (the next
// replay overwrites those), so a caller holding an earlier step's result never sees it
// change; an output that is an argument itself (an updated parameter) is that argument, as
// op by op. A parameter that is not the same tensor as at capture (the user replaced it)
// drops the graph: that call runs op by op as a new warm-up, and the next captures again
// (after kMaxRecaptures such drops the signature stays op by op).
//
// What cannot be captured makes the signature run op by op for good, with one line on stderr
// saying why, never a wrong answer. Found before any capture by capture_blocker (a static
// scan of the compiled code): a host builtin (print, py_execute), a collective, an op with a
// dynamic shape or a value-dependent output size, an op with no kernel on the device (the CPU
// fallback copies through the host), integer FloorDiv/FloorMod/Mod/Pow (they check divisors on the
// host), host-only dtypes, a fused (graph-kernel) call. Found during the capture: anything that
// makes the device copy through the host or wait for it (a tensor read as a Python value, a host
// tensor moved to the device mid-step): the backend throws, the capture is dropped (nothing it
// recorded ran) and the step runs op by op.
//
// Random ops are captured: the device records each draw and every replay reserves the
// step's draws from the host generators again, in order, as op by op would, and hands the
// kernels their (key, offset) in device memory (device/cuda/cuda_capture.h), so replays draw
// new numbers and a captured run equals an uncaptured one with the same seed.
//
// Without a capturing device (the host; a device with no capture backend) run() is
// Executable::run: O2 on the CPU is O1.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/vm.h"
#include "tensor/device.h"

namespace mycel::vm {

// Why steps of `exe` cannot be captured on a device of `type`: the first reason the static
// scan finds, naming the op or builtin, or "" when it finds none.
std::string capture_blocker(const Executable& exe, DeviceType type);

struct CaptureStats {
  int64_t op_by_op = 0;   // calls run op by op (warm-ups and fallbacks included)
  int64_t captures = 0;   // graphs captured
  int64_t replays = 0;    // calls that replayed a graph (the capturing call's launch included)
  int64_t fallbacks = 0;  // signatures that fell back to op by op for good
  std::string last_reason;
};

class CaptureRunner {
 public:
  // `exe` must outlive the runner; `name` (the function's) appears in the fallback lines.
  explicit CaptureRunner(const Executable& exe, std::string name = "");
  ~CaptureRunner();
  CaptureRunner(const CaptureRunner&) = delete;
  CaptureRunner& operator=(const CaptureRunner&) = delete;

  // Executable::run's result for `args`, by the steps above. Calls are serialised.
  ir::Value run(const std::vector<ir::Value>& args, RuntimeHost* host);
  CaptureStats stats() const;

  static constexpr size_t kMaxSignatures = 8;  // more run op by op (one line says so)
  static constexpr int kMaxRecaptures = 2;

 private:
  struct Entry;
  ir::Value capture(Entry& e, const std::vector<ir::Value>& args, Device d, RuntimeHost* host);
  ir::Value replay(Entry& e, const std::vector<ir::Value>& args, Device d, RuntimeHost* host);
  ir::Value fall_back(Entry& e, const std::string& why, const std::vector<ir::Value>& args,
                      RuntimeHost* host);
  ir::Value results(const Entry& e, const std::vector<ir::Value>& args, const ir::Value& v) const;
  void log(const std::string& why) const;

  const Executable& exe_;
  std::string name_;
  mutable std::mutex mu_;
  bool scanned_ = false;
  std::string blocker_;
  bool told_full_ = false;
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries_;
  CaptureStats stats_;
};

}  // namespace mycel::vm

// The op profiler: the wall and process CPU time of every op run, eager (run_op) and in the
// graph executor (primitives, and generated kernels as "GraphKernel"), per op name and per
// op/result-type pair ("Mul bf16[4096, 512]"), plus a bounded timeline of the calls.
//
// Two ways to turn it on: MYCEL_PROFILE_OPS=1 (a flag as base/env.h reads them) records the
// whole process and prints the tables to stderr at exit; mycel.Profiler (python/mycel/profiler)
// starts and stops it and reads the rows. Off, it costs one relaxed atomic load per op.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/eager.h"  // TensorList

namespace mycel {

// One row of a table: an op (or op and result type) and its totals.
struct ProfileRow {
  std::string name;
  int64_t calls = 0;
  double wall_s = 0, cpu_s = 0;
};

// One timeline event: a call's name, start (microseconds since the profile started), duration
// and the thread that ran it (a small index in order of first appearance).
struct ProfileEvent {
  std::string name;
  double start_us = 0, dur_us = 0;
  int thread = 0;
};

class OpProfile {
 public:
  // The profiler when it is recording, else nullptr (the hot-path check).
  static OpProfile* active();
  // Starts recording (clearing what an earlier run recorded unless `keep`), and stops.
  static void start(bool keep = false);
  static void stop();
  // The tables (by op name, or by op and result type), most CPU time first, and the timeline
  // (at most kMaxEvents events; `dropped` counts the calls past it).
  static std::vector<ProfileRow> rows(bool typed);
  static std::vector<ProfileEvent> events(int64_t* dropped);

  // A call's start: wall clock and process CPU time (all threads: an op's workers count).
  struct Stamp {
    std::chrono::steady_clock::time_point wall = std::chrono::steady_clock::now();
    double cpu = cpu_seconds();
  };
  // Records a call that began at t0 and returned `result`; `kernel`, a generated kernel,
  // is numbered in its typed row (k0, k1, ... in order of first run).
  void add(const char* op, const TensorList& result, const Stamp& t0, const void* kernel = nullptr);
  void add(const char* op, const std::string& type, const Stamp& t0, const void* kernel = nullptr);

  static constexpr size_t kMaxEvents = 1 << 20;
  static double cpu_seconds();
  // "f32[2, 3]" (a list's first tensor, "+" marking more).
  static std::string type_of(const TensorList& result);

 private:
  OpProfile() = default;
};

}  // namespace mycel

// CIFAR-100's binary format (cifar-100-binary: train.bin, test.bin) and MindSpore's
// Cifar100Dataset over it. A file is a run of 3074-byte records: the coarse label (one byte,
// 0..19), the fine label (one byte, 0..99) and a 3x32x32 image stored plane by plane (CHW).
// The parser takes untrusted bytes (fuzz/fuzz_cifar100.cc checks it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "data/source.h"

namespace mycel::data {

inline constexpr int64_t kCifar100Side = 32;
inline constexpr int64_t kCifar100Record = 2 + 3 * kCifar100Side * kCifar100Side;

// The number of records in a CIFAR-100 file of n bytes at data, after checking every record:
// RuntimeError naming `what` (the file) for an empty or truncated file or a label out of
// range.
int64_t check_cifar100(const uint8_t* data, size_t n, std::string_view what);
// Record r of checked bytes as a row: "image" (uint8 [32, 32, 3], HWC), "coarse_label" and
// "fine_label" (uint32, 0-d).
Row cifar100_row(const uint8_t* data, int64_t r);

// MindSpore's Cifar100Dataset over dataset_dir: the sorted .bin files whose name holds "train"
// (usage "train"), "test" ("test") or either ("all"). ValueError for a missing directory or a
// bad usage; RuntimeError when no file matches or one is unreadable, truncated or corrupt.
SourcePtr cifar100_source(const std::string& dataset_dir, const std::string& usage);

}  // namespace mycel::data

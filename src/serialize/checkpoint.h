// Checkpoint reading (mycel.load_checkpoint): the file format is MindSpore's checkpoint.proto
// with mycel's header and CRC-32 footer (src/serialize/checkpoint.proto; layout and rules in
// docs/checkpoint-format.md). Files are written by python/mycel/train/serialization.py.
//
// The reader parses and validates the whole file before it returns anything: every malformed
// byte (a truncation, a varint or length past the end of its message, a bad wire type, a
// duplicated or missing field, a non-UTF-8 name, an unknown tensor_type, a content size that
// is not prod(dims) * itemsize, a bad header, footer, entry count or CRC-32) is a ValueError
// that names the file and the problem. Sizes are hostile input: dims are checked to be
// non-negative and their product (times the item size) to fit in int64 before anything is
// allocated, and no allocation is larger than the file itself.
//
// The wire format is walked by hand (not with protobuf's generated parser): proto2's parser
// lets a repeated singular field silently replace the first, which the format forbids, and
// cannot say which field of which entry is bad. The generated classes of checkpoint.proto
// serve the fuzzer (fuzz/fuzz_checkpoint.cc) and the tests, which check that both agree.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tensor/tensor.h"

namespace mycel::serialize {

// One entry of a checkpoint: a tensor, or a string saved through append_dict.
struct CheckpointEntry {
  std::string name;
  bool is_str = false;
  std::string text;  // the string (UTF-8), when is_str
  Tensor tensor;     // the tensor (its own storage), otherwise
};

// The entries of a checkpoint's bytes, in file order (MindSpore's chunks of one tensor
// joined). Throws a ValueError "<problem>" (without the file name) for a malformed file.
std::vector<CheckpointEntry> parse_checkpoint(std::string_view bytes);

// Reads the file at `path` and parses it. The ValueErrors name the function `func`
// ("load_checkpoint") and the file: "For 'load_checkpoint', the checkpoint file P is not
// valid: <problem>.", or that it does not exist, is a directory, or is not a regular file (a
// FIFO or a device is refused without blocking in open()).
std::vector<CheckpointEntry> load_checkpoint_file(const std::string& path, std::string_view func);

// The bytes of a mycel checkpoint of `entries` (tensors only, host, any layout), the layout
// docs/checkpoint-format.md gives and save_checkpoint writes: header, one value per entry,
// footer with the count and CRC-32. parse_checkpoint reads it back. For C++ writers (the
// federated server's round checkpoints); a string entry is a ValueError.
std::string encode_checkpoint(const std::vector<CheckpointEntry>& entries);

}  // namespace mycel::serialize

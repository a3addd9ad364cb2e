// Checkpoint reading (mycel.load_checkpoint): the file format is MindSpore's checkpoint.proto
// with mycel's header and CRC-32 footer (src/serialize/checkpoint.proto; layout and rules in
// docs/checkpoint-format.md). Files are written by python/mycel/train/serialization.py through
// the pieces below (protobuf's generated classes).
//
// The reader parses and validates the whole file before it returns anything: every malformed
// byte (a truncation, a varint or length past the end of its message, a bad wire type, a
// duplicated or missing field, a non-UTF-8 name, an unknown tensor_type, a content size that
// is not prod(dims) * itemsize, a bad header, footer, entry count or CRC-32) is a ValueError
// that names the file and the problem. Sizes are hostile input: dims are checked to be
// non-negative and their product (times the item size) to fit in int64 before anything is
// allocated, and no allocation is larger than the file itself.
//
// The wire format is walked by hand when reading (not with protobuf's generated parser):
// proto2's parser lets a repeated singular field silently replace the first, which the format
// forbids, and cannot say which field of which entry is bad. The generated classes of
// checkpoint.proto write the files, and serve the fuzzer (fuzz/fuzz_checkpoint.cc) and the
// tests, which check that both agree.
#pragma once

#include <cstdint>
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

// The writer, through protobuf's classes generated from checkpoint.proto. A file is
// checkpoint_header(), per entry checkpoint_value_frame() followed by the entry's content
// bytes, then checkpoint_footer(entry count, CRC-32 of every byte before it): each piece a
// serialised Checkpoint message of one field (a frame and its content being one), in the layout
// docs/checkpoint-format.md gives. save_checkpoint (python/mycel/train/serialization.py)
// streams the pieces to the file and CRCs them; parse_checkpoint reads them back.
std::string checkpoint_header();
// The bytes of a Checkpoint holding one value, up to its tensor_content: type is MindSpore's
// tensor_type ("Float32", ..., "str"); content_size bytes (little-endian, C order) follow.
std::string checkpoint_value_frame(std::string_view name, std::string_view type,
                                   const std::vector<int64_t>& dims, uint64_t content_size);
std::string checkpoint_footer(uint64_t count, uint32_t crc);

// The whole file for `entries` (tensors only, host, any layout), from the pieces above. For C++
// writers (the federated server's round checkpoints); a string entry is a ValueError.
std::string encode_checkpoint(const std::vector<CheckpointEntry>& entries);

}  // namespace mycel::serialize

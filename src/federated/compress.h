// Communication compression (the compression: section, MindSpore Federated's names):
//   download_compress_type QUANT: the server sends each float32 parameter as 8-bit codes of
//     its range, code = round((v - min) / (max - min) * 255), and the range;
//   upload_compress_type DIFF_SPARSE_QUANT: the client sends its update as the difference from
//     the model it downloaded, of which a random share upload_sparse_rate of the values is
//     kept (a Bernoulli mask from a fresh 32-byte seed through libsodium's
//     randombytes_buf_deterministic, so only the seed travels), divided by the rate (the
//     expected difference is unchanged) and quantized to 8 bits like the download.
// The server rebuilds an upload as base + difference, base being the model as the client got
// it (dequantized when the download was quantized), then checks and averages it as any other.
//
// In a message's weights a compressed parameter is the entry of its name (UInt8: its shape for
// a download, the kept values' count for an upload) plus the entry "<name>\0range" (Float32
// (2,): min, max); an upload also carries the entry kSeedEntry (UInt8 (32,)). Parameter names
// never hold a NUL byte. Anything else is refused with a reason (a ValueError).
#pragma once

#include <cstdint>
#include <string>

#include "federated/wire.h"

namespace mycel::federated::compress {

inline constexpr const char* kSeedEntry = "";
inline constexpr size_t kSeedBytes = 32;
std::string range_name(const std::string& param);  // param + '\0' + "range"

// QUANT: the 8-bit form of a float32 model, and back (float32 parameters of the codes' shapes,
// in their order; a message of other entries, or a range that is not finite, is refused).
Weights quantize(const Weights& model);
Weights dequantize(const Weights& message);

// DIFF_SPARSE_QUANT: `update` (float32, the layout of `base`) as the sparse 8-bit difference
// from `base`, with the mask of `seed` (fresh_seed(): kSeedBytes random bytes, libsodium's).
std::string fresh_seed();
Weights sparse_diff(const Weights& update, const Weights& base, double rate,
                    const std::string& seed);
// The update a sparse difference stands for: base + difference (float32). A message that does
// not fit `base` and `rate` is a ValueError naming the problem.
Weights apply_sparse_diff(const Weights& message, const Weights& base, double rate);

}  // namespace mycel::federated::compress

// What the MINDIR writer and reader share: format constants, dtype codes and the checksum.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "src/serialize/mind_ir.pb.h"  // generated in the build tree
#include "tensor/dtype.h"

namespace mycel::serialize::format {

inline constexpr const char* kProducer = "mycel";
inline constexpr const char* kIrVersion = "1";  // mind_ir::IR_VERSION, as MindSpore writes it
inline constexpr int64_t kVersion = 1;          // mycel's own format version (mind_ir_version)
inline constexpr const char* kBuiltinDomain = "mycel.builtin";  // NodeProto.domain of builtins
inline constexpr const char* kConstant = "Constant";            // op_type of a constant node
inline constexpr const char* kRef = "REF::";          // op_type prefix of a call of a graph or node
inline constexpr const char* kAbstract = "abstract";  // the node_attr holding the abstract

// The checksum field (ModelProto.mycel_crc32 = 1001, wire type fixed32) ends the file: its
// tag as a varint (2 bytes), then the CRC-32 of everything before it, little-endian.
inline constexpr int kCrcField = 1001;
inline constexpr uint32_t kCrcTag = (kCrcField << 3) | 5;
inline constexpr std::array<uint8_t, 2> kCrcTagBytes = {(kCrcTag & 0x7f) | 0x80, kCrcTag >> 7};
inline constexpr size_t kFooterSize = 6;

// CRC-32 (IEEE 802.3, as zlib's crc32).
inline uint32_t crc32(std::string_view bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  uint32_t c = 0xFFFFFFFFu;
  for (char ch : bytes) c = table[(c ^ static_cast<uint8_t>(ch)) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

// TensorProto.DataType of a dtype (MindSpore's codes), and back (FLOAT64 is read as DOUBLE).
inline int data_type_code(DType t) {
  switch (t) {
    case DType::Bool:
      return mind_ir::TensorProto::BOOL;
    case DType::Int8:
      return mind_ir::TensorProto::INT8;
    case DType::UInt8:
      return mind_ir::TensorProto::UINT8;
    case DType::Int16:
      return mind_ir::TensorProto::INT16;
    case DType::Int32:
      return mind_ir::TensorProto::INT32;
    case DType::Int64:
      return mind_ir::TensorProto::INT64;
    case DType::Float16:
      return mind_ir::TensorProto::FLOAT16;
    case DType::BFloat16:
      return mind_ir::TensorProto::BFLOAT16;
    case DType::Float32:
      return mind_ir::TensorProto::FLOAT;
    case DType::Float64:
      return mind_ir::TensorProto::DOUBLE;
    case DType::UInt16:
      return mind_ir::TensorProto::UINT16;
    case DType::UInt32:
      return mind_ir::TensorProto::UINT32;
    case DType::UInt64:
      return mind_ir::TensorProto::UINT64;
    case DType::Complex64:
      return mind_ir::TensorProto::COMPLEX64;
    case DType::Complex128:
      return mind_ir::TensorProto::COMPLEX128;
  }
  return mind_ir::TensorProto::UNDEFINED;
}

inline bool dtype_of_code(int64_t code, DType* out) {
  for (int k = 0; k < kNumDTypes; ++k) {
    auto t = static_cast<DType>(k);
    if (data_type_code(t) == code) {
      *out = t;
      return true;
    }
  }
  if (code == mind_ir::TensorProto::FLOAT64) {
    *out = DType::Float64;
    return true;
  }
  return false;
}

}  // namespace mycel::serialize::format

// The federated protocol's messages (src/federated: server.h, client.h) and their binary
// form. A body is one message:
//
//   "MCFL" u8 version(1) u8 kind, then the kind's fields in a fixed order, nothing after.
//   Request (Register, StartFLJob, UpdateModel, GetModel, secure aggregation's ExchangeKeys,
//   GetKeys, ShareSecrets, GetSecrets, GetClientList, ReconstructSecrets, and vertical FL's
//   VflMessage):
//     str client_id, str token, u64 iteration, u64 nonce, u64 data_size, weights
//   Reply: u8 status, str reason, u64 iteration, str token, weights
//   str: u16 length + bytes; u64: little-endian; weights: u32 count, then per parameter
//     str name, u8 dtype (mycel's DType code), u8 ndim, ndim x i64 dims, u64 nbytes, bytes
//
// Every body is hostile input: decoding checks each length against the bytes left before
// reading or allocating, the limits below, that the content is prod(dims) * itemsize bytes
// (without overflow), that names are unique, and that no byte is left over. Anything else is a
// ValueError "malformed federated message: <problem> (at byte N)". fuzz/fuzz_federated.cc
// fuzzes decode_request and decode_reply.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tensor/dtype.h"

namespace mycel::federated {

enum class MsgKind : uint8_t {
  Register = 1,
  StartFLJob = 2,
  UpdateModel = 3,
  GetModel = 4,
  Reply = 5,
  // Secure aggregation (encrypt_type PW_ENCRYPT; secagg.h gives their weights' contents).
  ExchangeKeys = 6,
  GetKeys = 7,
  ShareSecrets = 8,
  GetSecrets = 9,
  GetClientList = 10,
  ReconstructSecrets = 11,
  // Vertical federated learning: a party's tensors to its peer (vertical.h).
  VflMessage = 12,
};
inline constexpr uint8_t kLastKind = static_cast<uint8_t>(MsgKind::VflMessage);

// A reply's verdict. The client raises on all but Ok (NotReady: it polls again).
enum class Status : uint8_t {
  Ok = 0,
  Rejected = 1,      // a valid request the round refuses (stale, full, bad update, replay)
  Unauthorized = 2,  // unknown client or wrong token
  Malformed = 3,     // the body did not decode
  NotReady = 4,      // getModel: the round has not closed yet
  Finished = 5,      // the server has run all fl_iteration_num rounds
};
std::string_view status_name(Status s);

// One named parameter: dtype, shape and its bytes (C order, little-endian).
struct Param {
  std::string name;
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::string bytes;
  int64_t numel() const;
};
using Weights = std::vector<Param>;

struct Request {
  MsgKind kind = MsgKind::Register;
  std::string client_id;
  std::string token;
  uint64_t iteration = 0;  // StartFLJob: 0 (any) or the round; UpdateModel/GetModel: the round
  uint64_t nonce = 0;      // random per request: a nonce seen before is a replay
  uint64_t data_size = 0;  // StartFLJob/UpdateModel: the client's number of samples
  Weights weights;         // UpdateModel; the secure-aggregation messages' payloads
};

struct Reply {
  Status status = Status::Ok;
  std::string reason;      // why, when not Ok
  uint64_t iteration = 0;  // the round (StartFLJob) or the completed round (GetModel)
  std::string token;       // Register only
  Weights weights;         // a DP_ENCRYPT server's startFLJob reply adds kDpEntry
};

// The entry of a startFLJob reply that is not a parameter, sent by a server with DP_ENCRYPT or
// upload compression: Float64 (3,), the noise multiplier and the clipping norm the client
// applies (0, 0: no DP) and the upload_sparse_rate of DIFF_SPARSE_QUANT (0: plain uploads).
// Parameter names are never empty (checkpoints refuse them).
inline constexpr const char* kPlanEntry = "";

// Limits of the format (the server also limits the whole body: max_body_bytes).
inline constexpr size_t kMaxIdBytes = 256;     // client_id, token
inline constexpr size_t kMaxNameBytes = 1024;  // a parameter name, a reason
inline constexpr uint32_t kMaxParams = 1 << 16;
inline constexpr uint8_t kMaxRank = 8;

// `s` with every byte outside printable ASCII as \xNN: client ids and names from the network
// quoted in logs and reasons (no control characters, no invalid UTF-8).
std::string printable(std::string_view s);

std::string encode(const Request& r);
std::string encode(const Reply& r);
Request decode_request(std::string_view body);
Reply decode_reply(std::string_view body);

}  // namespace mycel::federated

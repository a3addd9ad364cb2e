// Fuzzes the TFRecord reader (src/data/sources_tfrecord.cc, mycel.dataset.TFRecordDataset):
// the record framing (lengths and masked CRC-32Cs), GZIP/ZLIB inflation, tf.train.Example
// parsing and the conversion of features to the schema's columns (types and shapes).
//
// Input: one options byte, then the file's bytes. Options: bits 0-2 pick one of eight
// schemas (0: none, the columns inferred from the first record; the others mix every column
// type the reader converts to, fixed and inferred (-1) shapes, a scalar and a 0-sized shape),
// bit 3 deflates the file (gzip) before writing it and reads it with compression on, bit 4
// reads the bytes as they are with compression on (a damaged stream), bit 5 keeps only the
// first row (num_rows 1), bit 6 selects a subset of the columns by name (MindSpore's
// columns_list). The file is written into a fresh directory and every row is read and touched;
// only mycel's typed errors are accepted.
//
// Structure-aware: every record carries two CRCs, which stop plain mutations at the framing.
// The custom mutator splits the file into records, changes one record's tf.train.Example
// through protobuf reflection (fuzz/proto_mutator.h) or its bytes, or drops, duplicates or
// swaps records, and frames them again with valid lengths and CRCs. One mutation in four is
// plain (all of them with MYCEL_FUZZ_PLAIN=1).
//
// Run: make fuzz, or build-fuzz/fuzz_tfrecord -dict=fuzz/tfrecord.dict CORPUS fuzz/corpus/tfrecord
#include <zlib.h>

#include <random>
#include <string>
#include <vector>

#include "base/record_io.h"
#include "data/sources.h"
#include "fuzz_common.h"
#include "fuzz_files.h"
#include "proto_mutator.h"
#include "src/data/tf_example.pb.h"  // generated in the fuzz build tree

namespace {

using mycel::data::DataType;
using mycel::data::TfColumn;

std::vector<TfColumn> schema(int k) {
  auto col = [](const char* name, DataType t, std::vector<int64_t> shape = {}, bool has = false) {
    return TfColumn{name, t, std::move(shape), has};
  };
  switch (k) {
    case 1:
      return {col("label", DataType::Int64, {}, true), col("image", DataType::UInt8)};
    case 2:
      return {col("x", DataType::Float32, {-1, 2}, true), col("label", DataType::Float16),
              col("s", DataType::String)};
    case 3:
      return {col("label", DataType::Int32), col("x", DataType::Float64, {2, -1}, true),
              col("image", DataType::Int8)};
    case 4:
      return {col("label", DataType::UInt16, {0, -1}, true),
              col("x", DataType::Float32, {3}, true)};
    case 5:
      return {col("s", DataType::String, {-1}, true), col("label", DataType::Bool),
              col("x", DataType::Float16, {1, 1, -1}, true)};
    case 6:
      return {col("image", DataType::UInt8, {4, 4, -1}, true), col("label", DataType::UInt64),
              col("missing", DataType::Int64)};
    case 7:
      return {col("label", DataType::String), col("x", DataType::Int64), col("s", DataType::UInt8)};
    default:
      return {};
  }
}

std::string gzip(const std::string& in) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return in;
  std::string out(deflateBound(&zs, in.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

// The records of a TFRecord file's bytes, as far as the framing holds (CRCs not checked).
std::vector<std::string> split_records(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (s.size() - pos >= 16) {
    const uint64_t len = mycel::fuzz::load_le<uint64_t>(reinterpret_cast<const uint8_t*>(&s[pos]));
    if (len > s.size() - pos - 16) break;
    out.push_back(s.substr(pos + 12, len));
    pos += 16 + len;
  }
  return out;
}

std::string frame(const std::vector<std::string>& records) {
  std::string out;
  for (const std::string& r : records) {
    std::string head;
    mycel::fuzz::append_le<uint64_t>(head, r.size());
    out += head;
    mycel::fuzz::append_le<uint32_t>(out, mycel::masked_crc32c(head.data(), 8));
    out += r;
    mycel::fuzz::append_le<uint32_t>(out, mycel::masked_crc32c(r.data(), r.size()));
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t opts = data[0];
  std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const bool deflate = opts & 8, raw_compressed = opts & 16;
  if (deflate) bytes = gzip(bytes);
  const std::string dir = mycel::fuzz::input_dir("tfrecord");
  const std::string path = mycel::fuzz::put_file(dir, "data.tfrecord", bytes);
  std::vector<std::string> select;
  if (opts & 64) select = {"label", "x"};
  mycel::fuzz::expect_typed_errors([&] {
    std::vector<TfColumn> used;
    auto src = mycel::data::tfrecord_source({path, path}, schema(opts & 7), select,
                                            deflate || raw_compressed, (opts & 32) ? 1 : -1, &used);
    mycel::fuzz::read_all(*src, [](auto&& fn) { mycel::fuzz::expect_typed_errors(fn); });
  });
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 || size < 1)
    return mycel::fuzz::plain_mutate(data, size, max_size);
  uint8_t opts = data[0];
  if (rng() % 16 == 0) opts = static_cast<uint8_t>(rng());
  std::vector<std::string> records =
      split_records(std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
  if (records.empty() || rng() % 8 == 0) {
    std::mt19937_64 r2(rng());
    switch (r2() % 3) {
      case 0:
        if (!records.empty())
          records.erase(records.begin() + static_cast<long>(r2() % records.size()));
        break;
      case 1:
        records.push_back(records.empty() ? std::string() : records[r2() % records.size()]);
        break;
      default:
        if (records.size() > 1) std::swap(records[0], records[r2() % records.size()]);
    }
  } else {
    std::string& r = records[rng() % records.size()];
    mycel::tfrecord::Example ex;
    if (rng() % 4 != 0 && ex.ParseFromString(r)) {
      r = mycel::fuzz::mutate_serialized(ex, rng);
    } else {
      mycel::fuzz::mutate_bytes(r);
    }
  }
  std::string out(1, static_cast<char>(opts));
  out += frame(records);
  if (out.size() > max_size) return mycel::fuzz::plain_mutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

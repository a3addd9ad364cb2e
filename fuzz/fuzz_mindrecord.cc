// Fuzzes the MindRecord reader (src/data/mindrecord.cc, mycel.dataset.MindDataset): the input
// is written to a shard file named data.mr in a private temporary directory, opened with
// data::MindRecordReader (head, footer, CRCs, index, JSON header and schema, the set's
// shards) and every row is read with all its columns; only mycel's typed errors are
// accepted.
//
// Structure-aware: every part of a shard is under a CRC-32 (head+JSON, index, footer, each
// record), which stops plain mutations. The custom mutator splits a shard into its JSON
// header and records (by the footer and the index), mutates the JSON text, one record, the
// record count or the index, and writes a valid file around the result: head with the JSON
// length, index with offsets, lengths and CRCs, footer with its CRCs (when the index itself
// was mutated, its entries are kept as they are). One mutation in four is plain.
//
// Run: make fuzz, or build-fuzz/fuzz_mindrecord -dict=fuzz/mindrecord.dict CORPUS
//      fuzz/corpus/mindrecord
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "data/mindrecord.h"
#include "fuzz_common.h"

namespace {

using mycel::fuzz::append_le;
using mycel::fuzz::load_le;

constexpr size_t kHead = 16, kFoot = 40, kEntry = 16;

uint32_t crc(const std::string& s, size_t from = 0, size_t n = std::string::npos) {
  n = std::min(n, s.size() - from);
  return static_cast<uint32_t>(crc32_z(0, reinterpret_cast<const Bytef*>(s.data() + from), n));
}

// The directory the shard is written to, made once per process and removed at exit.
const std::string& shard_path() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/mycel-fuzz-mindrecord-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) std::abort();
    static std::string dir = tmpl;
    std::atexit([] {
      std::remove((dir + "/data.mr").c_str());
      ::rmdir(dir.c_str());
    });
    return dir + "/data.mr";
  }();
  return path;
}

// A shard split into its parts (false when `s` is not laid out as one).
struct Parts {
  std::string json;
  std::vector<std::string> records;
  std::string index;  // set only when the index is kept as it is
};

bool split(const std::string& s, Parts& p) {
  if (s.size() < kHead + kFoot) return false;
  auto u = [&](size_t at) { return reinterpret_cast<const uint8_t*>(s.data()) + at; };
  uint64_t json_len = load_le<uint32_t>(u(12));
  uint64_t index_off = load_le<uint64_t>(u(s.size() - kFoot));
  uint64_t rows = load_le<uint64_t>(u(s.size() - kFoot + 8));
  if (rows > s.size() / kEntry || index_off > s.size() || kHead + json_len > index_off ||
      index_off + rows * kEntry + kFoot != s.size())
    return false;
  p.json = s.substr(kHead, json_len);
  for (uint64_t r = 0; r < rows; ++r) {
    uint64_t off = load_le<uint64_t>(u(index_off + r * kEntry));
    uint64_t len = load_le<uint32_t>(u(index_off + r * kEntry + 8));
    if (off > index_off || len > index_off - off) return false;
    p.records.push_back(s.substr(off, len));
  }
  return true;
}

std::string join(const std::string& original, const Parts& p) {
  std::string out = original.substr(0, 12);  // magic, version
  append_le<uint32_t>(out, static_cast<uint32_t>(p.json.size()));
  out += p.json;
  uint32_t head_crc = crc(out);
  std::string index;
  for (const std::string& r : p.records) {
    append_le<uint64_t>(index, out.size());
    append_le<uint32_t>(index, static_cast<uint32_t>(r.size()));
    append_le<uint32_t>(index, crc(r));
    out += r;
  }
  if (!p.index.empty()) index = p.index;
  uint64_t index_off = out.size();
  out += index;
  std::string foot;
  append_le<uint64_t>(foot, index_off);
  append_le<uint64_t>(foot, index.size() / kEntry);
  append_le<uint32_t>(foot, head_crc);
  append_le<uint32_t>(foot, crc(index));
  append_le<uint32_t>(foot, 0);
  append_le<uint32_t>(foot, crc(foot));
  foot += "MCMRFOOT";
  return out + foot;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = shard_path();
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  mycel::fuzz::expect_typed_errors([&] {
    mycel::data::MindRecordReader reader({path}, false);
    std::vector<int> cols(reader.schema().size());
    for (size_t i = 0; i < cols.size(); ++i) cols[i] = static_cast<int>(i);
    for (int64_t i = 0; i < reader.size(); ++i) {
      mycel::fuzz::expect_typed_errors([&] { reader.read(i, cols); });
    }
  });
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  std::mt19937_64 rng(seed);
  std::string s(reinterpret_cast<const char*>(data), size);
  Parts p;
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 || !split(s, p))
    return mycel::fuzz::plain_mutate(data, size, max_size);
  switch (rng() % 5) {
    case 0:
    case 1:
      mycel::fuzz::mutate_bytes(p.json);
      break;
    case 2:
      if (!p.records.empty()) {
        mycel::fuzz::mutate_bytes(p.records[rng() % p.records.size()]);
        break;
      }
      [[fallthrough]];
    case 3:  // a record removed or duplicated
      if (!p.records.empty() && rng() % 2)
        p.records.erase(p.records.begin() + static_cast<long>(rng() % p.records.size()));
      else if (!p.records.empty())
        p.records.push_back(p.records[rng() % p.records.size()]);
      break;
    default: {  // the index itself (offsets, lengths, record CRCs), under a valid index CRC
      std::string plain = join(s, p);
      p.index =
          plain.substr(plain.size() - kFoot - p.records.size() * kEntry, p.records.size() * kEntry);
      if (p.index.empty()) p.index.assign(kEntry, '\0');
      mycel::fuzz::mutate_bytes(p.index, 0);
    }
  }
  std::string out = join(s, p);
  if (out.size() > max_size) return mycel::fuzz::plain_mutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

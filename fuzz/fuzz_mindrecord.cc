// Fuzzes the MindRecord reader (src/data/mindrecord.cc, mycel.dataset.MindDataset) on a shard
// in MindSpore's format: the input is a shard file and its SQLite index, packed as
//   [shard length u64 LE][shard bytes][index (.db) bytes]
// and written to data.mr and data.mr.db in a private temporary directory; the shard is opened
// with data::MindRecordReader (header JSON, page table, index, checksums when present) and
// every row is read with all its columns; only mycel's typed errors are accepted.
//
// Structure-aware: mycel's own files carry CRC-32s of the header and of every record (in the
// index), which stop plain mutations; the seeds also hold files without them (MindSpore's
// layout alone), where mutations reach the page and record decoders. The custom mutator
// unpacks the input and mutates the header JSON (its length prefix rewritten and the padding
// after it resized, so the pages stay where they are), a window of the pages, or the index:
// one of its numbers set to an edge value through SQLite (the offsets, page ids, row ids), or
// its bytes. One mutation in four is plain.
//
// Run: make fuzz, or build-fuzz/fuzz_mindrecord -dict=fuzz/mindrecord.dict CORPUS
//      fuzz/corpus/mindrecord
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "data/mindrecord.h"
#include "fuzz_common.h"

namespace {

using mycel::fuzz::load_le;

// The directory the shard is written to, made once per process and removed at exit.
const std::string& dir() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/mycel-fuzz-mindrecord-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) std::abort();
    static std::string d = tmpl;
    std::atexit([] {
      for (const char* f : {"/data.mr", "/data.mr.db", "/mutate.db"}) std::remove((d + f).c_str());
      ::rmdir(d.c_str());
    });
    return d;
  }();
  return path;
}

void write_file(const std::string& path, const char* data, size_t n) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data, static_cast<std::streamsize>(n));
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// An input split into its shard and index (false when it is not laid out so).
bool unpack(const std::string& s, std::string& shard, std::string& db) {
  if (s.size() < 8) return false;
  uint64_t n = load_le<uint64_t>(reinterpret_cast<const uint8_t*>(s.data()));
  if (n > s.size() - 8) return false;
  shard = s.substr(8, n);
  db = s.substr(8 + n);
  return true;
}

std::string pack(const std::string& shard, const std::string& db) {
  std::string out;
  mycel::fuzz::append_le<uint64_t>(out, shard.size());
  return out + shard + db;
}

// The header JSON mutated; its length prefix rewritten, and the zero padding after it grown or
// shrunk by the change, so that the pages keep their offsets.
void mutate_header(std::string& shard) {
  if (shard.size() < 8) return;
  uint64_t n = load_le<uint64_t>(reinterpret_cast<const uint8_t*>(shard.data()));
  if (n > shard.size() - 8) return;
  std::string json = shard.substr(8, n);
  std::string tail = shard.substr(8 + n);
  mycel::fuzz::mutate_bytes(json);
  if (json.size() > n) {
    size_t cut = 0;
    while (cut < json.size() - n && cut < tail.size() && tail[cut] == '\0') ++cut;
    tail.erase(0, cut);
  } else {
    tail.insert(0, n - json.size(), '\0');
  }
  std::string out;
  mycel::fuzz::append_le<uint64_t>(out, json.size());
  shard = out + json + tail;
}

// One number of the index set to an edge value, through SQLite.
void mutate_index(std::string& db, std::mt19937_64& rng) {
  static const char* columns[] = {"ROW_ID",           "PAGE_ID_RAW",  "PAGE_OFFSET_RAW",
                                  "PAGE_OFFSET_RAW_END", "PAGE_ID_BLOB", "PAGE_OFFSET_BLOB",
                                  "PAGE_OFFSET_BLOB_END", "ROW_GROUP_ID"};
  static const char* values[] = {"0", "-1", "1", "7", "8", "4096", "32768", "2147483648",
                                 "4611686018427387904", "9223372036854775807", "'x'", "NULL"};
  std::string path = dir() + "/mutate.db";
  write_file(path, db.data(), db.size());
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    std::string sql = std::string("UPDATE INDEXES SET ") + columns[rng() % 8] + " = " +
                      values[rng() % 12] + " WHERE ROW_ID = " + std::to_string(rng() % 4) + ";";
    if (rng() % 8 == 0) sql = "DELETE FROM INDEXES WHERE ROW_ID = " + std::to_string(rng() % 4);
    sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr);
  }
  sqlite3_close(h);
  db = read_file(path);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string shard, db;
  if (!unpack(std::string(reinterpret_cast<const char*>(data), size), shard, db)) return 0;
  const std::string path = dir() + "/data.mr";
  write_file(path, shard.data(), shard.size());
  write_file(path + ".db", db.data(), db.size());
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
  std::string shard, db;
  if (mycel::fuzz::plain_only() || rng() % 4 == 0 ||
      !unpack(std::string(reinterpret_cast<const char*>(data), size), shard, db))
    return mycel::fuzz::plain_mutate(data, size, max_size);
  switch (rng() % 5) {
    case 0:
    case 1:
      mutate_header(shard);
      break;
    case 2:
      if (shard.size() > 64) {  // a window of the pages (or the padding)
        size_t at = rng() % (shard.size() - 64);
        std::string w = shard.substr(at, 64);
        mycel::fuzz::mutate_bytes(w, 8);
        shard.replace(at, 64, w);
        break;
      }
      [[fallthrough]];
    case 3:
      mutate_index(db, rng);
      break;
    default:
      if (!db.empty()) {
        size_t at = rng() % db.size();
        std::string w = db.substr(at, 32);
        mycel::fuzz::mutate_bytes(w, 0);
        db.replace(at, std::min<size_t>(32, db.size() - at), w);
      }
  }
  std::string out = pack(shard, db);
  if (out.size() > max_size) return mycel::fuzz::plain_mutate(data, size, max_size);
  std::copy(out.begin(), out.end(), data);
  return out.size();
}

// MindRecord (data/mindrecord.h): rows of every field type survive a sharded round trip (read
// shard by shard); bad rows and schemas are rejected before anything is written; every
// truncation of a file and every flipped byte of its header and pages is a RuntimeError
// naming the file; a commit that fails between its steps leaves no set that reads.
// (tests/python/test_mindrecord_format.py checks the bytes against MindSpore's format.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/mindrecord.h"

namespace mycel::data {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "mycel-mr-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path_)) out.push_back(e.path().string());
    return out;
  }

 private:
  std::string path_;
};

FieldSpec field(const std::string& name, FieldType t, std::vector<int64_t> shape = {},
                bool has_shape = false) {
  FieldSpec f;
  f.name = name;
  f.type = t;
  f.has_shape = has_shape;
  for (int64_t d : shape) f.shape.push_back(d);
  return f;
}

std::vector<FieldSpec> all_types() {
  return {field("label", FieldType::Int32),
          field("id", FieldType::Int64),
          field("score", FieldType::Float32),
          field("weight", FieldType::Float64),
          field("name", FieldType::String),
          field("image", FieldType::Bytes),
          field("mat", FieldType::Float32, {2, 3}, true),
          field("seq", FieldType::Int64, {-1, 2}, true)};
}

template <class T>
Array filled(DataType t, const Shape& shape, T start) {
  Array a = Array::empty(t, shape);
  T* p = a.mutable_data<T>();
  for (int64_t i = 0; i < a.numel(); ++i) p[i] = static_cast<T>(start + static_cast<T>(i));
  return a;
}

// Row i of a data set with the all_types schema: row i's sequence has i % 4 pairs.
Row make_row(int i) {
  std::string bytes;
  for (int k = 0; k < i % 5; ++k) bytes.push_back(static_cast<char>(k * 37 + i));
  Array image = Array::empty(DataType::UInt8, {static_cast<int64_t>(bytes.size())});
  if (!bytes.empty()) std::memcpy(image.mutable_raw(), bytes.data(), bytes.size());
  return {Array::scalar<int32_t>(-i),
          Array::scalar<int64_t>(int64_t{1} << 40 | i),
          Array::scalar<float>(0.5f * static_cast<float>(i)),
          Array::scalar<double>(1.0 / (i + 1)),
          Array::strings({"row " + std::to_string(i) + (i % 2 ? "\n\"é\"" : "")}, {}),
          image,
          filled<float>(DataType::Float32, {6}, static_cast<float>(i)),
          filled<int64_t>(DataType::Int64, {(i % 4) * 2}, i * 100)};
}

std::vector<Row> make_rows(int from, int to) {
  std::vector<Row> rows;
  for (int i = from; i < to; ++i) rows.push_back(make_row(i));
  return rows;
}

void expect_same(const Array& got, const Array& want, const std::string& what) {
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  ASSERT_EQ(got.shape(), want.shape()) << what;
  if (got.dtype() == DataType::String) {
    EXPECT_EQ(got.str(), want.str()) << what;
  } else {
    ASSERT_EQ(got.nbytes(), want.nbytes()) << what;
    EXPECT_EQ(std::memcmp(got.raw(), want.raw(), got.nbytes()), 0) << what;
  }
}

// The row as the reader gives it: mat gets its schema shape, seq pairs up.
Row expected_row(int i) {
  Row r = make_row(i);
  r[6] = r[6].reshaped({2, 3});
  r[7] = r[7].reshaped({(i % 4), 2});
  return r;
}

// The write positions of write_set's rows in read order: each write() gives shard k its k-th
// contiguous run (the first runs one row longer), and readers go shard by shard.
std::vector<int> read_order(int rows, int shards) {
  std::vector<std::vector<int>> per(static_cast<size_t>(shards));
  int start = 0;
  for (int n : {rows / 2, rows - rows / 2}) {
    for (int k = 0; k < shards; ++k) {
      int take = n / shards + (k < n % shards ? 1 : 0);
      for (int i = start; i < start + take; ++i) per[static_cast<size_t>(k)].push_back(i);
      start += take;
    }
  }
  std::vector<int> out;
  for (const auto& p : per) out.insert(out.end(), p.begin(), p.end());
  return out;
}

std::vector<std::string> write_set(const std::string& file, int shards, int rows,
                                   bool overwrite = false) {
  MindRecordWriter w(file, shards, overwrite);
  w.set_header_size(1 << 14);  // MindSpore's smallest sizes: small files
  w.set_page_size(1 << 15);
  w.add_schema(all_types(), "all field types");
  w.add_index({"label", "name"});
  w.write(make_rows(0, rows / 2));
  w.write(make_rows(rows / 2, rows));
  w.commit();
  return w.paths();
}

template <class F>
std::string runtime_error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

std::vector<char> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void dump(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Opens path's set and reads every row: the first error, if any.
void read_all(const std::string& path) {
  MindRecordReader r({path}, true);
  std::vector<int> cols(r.schema().size());
  for (size_t k = 0; k < cols.size(); ++k) cols[k] = static_cast<int>(k);
  for (int64_t i = 0; i < r.size(); ++i) r.read(i, cols);
}

TEST(MindRecord, RoundTripShardedShardByShard) {
  TempDir dir;
  std::vector<std::string> paths = write_set(dir.file("data.mindrecord"), 3, 11);
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(paths[2], dir.file("data.mindrecord2"));
  // No temporary files stay behind: the shards and their indexes.
  EXPECT_EQ(dir.entries().size(), 6u);

  std::vector<int> cols = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<int> order = read_order(11, 3);
  for (const std::string& one : paths) {
    MindRecordReader r({one}, true);
    ASSERT_EQ(r.size(), 11);
    for (int i = 0; i < 11; ++i) {
      Row got = r.read(i, cols);
      Row want = expected_row(order[static_cast<size_t>(i)]);
      for (size_t k = 0; k < cols.size(); ++k)
        expect_same(got[k], want[k], "row " + std::to_string(i) + " field " + std::to_string(k));
    }
  }
  // The list of all shards, in any order, reads the same rows; a subset reads its rows.
  MindRecordReader listed({paths[2], paths[0], paths[1]}, false);
  ASSERT_EQ(listed.size(), 11);
  expect_same(listed.read(4, {4})[0], expected_row(order[4])[4], "listed row 4");
  MindRecordReader part({paths[1]}, false);
  ASSERT_EQ(part.size(), 4);  // shard 1: rows 2, 3 of the first write, 8, 9 of the second
  for (int j = 0; j < 4; ++j)
    expect_same(part.read(j, {1, 7})[1], expected_row(order[static_cast<size_t>(4 + j)])[7],
                "subset");

  MindRecordSource src(std::make_shared<MindRecordReader>(std::vector<std::string>{paths[0]}, true),
                       {"seq", "label"});
  EXPECT_EQ(src.columns(), (std::vector<std::string>{"seq", "label"}));
  expect_same(src.read(5)[1], expected_row(order[5])[0], "source label");
}

TEST(MindRecord, EmptyShardsAndSingleFile) {
  TempDir dir;
  // 2 rows over 4 shards: shards 2 and 3 hold none.
  std::vector<std::string> paths = write_set(dir.file("few"), 4, 2);
  MindRecordReader r({paths[3]}, true);
  EXPECT_EQ(r.size(), 2);
  std::vector<std::string> one = write_set(dir.file("one.mr"), 1, 0);
  EXPECT_EQ(one[0], dir.file("one.mr"));
  EXPECT_EQ(MindRecordReader({one[0]}, true).size(), 0);
}

TEST(MindRecord, BadRowsWriteNothing) {
  TempDir dir;
  MindRecordWriter w(dir.file("bad.mr"), 1, false);
  w.add_schema(all_types(), "");
  std::vector<Row> rows = make_rows(0, 3);
  rows[2][6] = filled<float>(DataType::Float32, {5}, 0.f);  // 5 elements for [2, 3]
  try {
    w.write(rows);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Value);
    EXPECT_NE(std::string(e.what()).find("row 2, field 'mat'"), std::string::npos) << e.what();
  }
  rows[2] = make_row(2);
  rows[1][0] = Array::scalar<int64_t>(3);  // int64 for int32
  try {
    w.write(rows);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Type);
    EXPECT_NE(std::string(e.what()).find("field 'label' (int32) must hold int32"),
              std::string::npos)
        << e.what();
  }
  rows[1] = make_row(1);
  rows[0][7] = filled<int64_t>(DataType::Int64, {3}, 0);  // 3 values for [-1, 2]
  EXPECT_THROW(w.write(rows), Error);
  rows[0].pop_back();
  EXPECT_THROW(w.write(rows), Error);
  // Nothing was written: the writer goes on, and the file holds exactly the good rows.
  w.write(make_rows(0, 2));
  w.commit();
  EXPECT_EQ(MindRecordReader({dir.file("bad.mr")}, true).size(), 2);
  EXPECT_THROW(w.write(make_rows(0, 1)), Error);
  EXPECT_THROW(w.commit(), Error);
}

TEST(MindRecord, SchemaChecks) {
  auto value_error = [](std::vector<FieldSpec> fields, const char* text) {
    try {
      check_schema(fields, "FileWriter");
      ADD_FAILURE() << "no error for " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Value);
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  value_error({}, "no fields");
  value_error({field("a-b", FieldType::Int32)}, "'a-b' must be made of");
  value_error({field("a", FieldType::Int32), field("a", FieldType::Int64)}, "appears twice");
  value_error({field("s", FieldType::String, {2}, true)}, "cannot have a shape");
  value_error({field("x", FieldType::Int32, {-1, -1}, true)}, "at most one dimension");
  value_error({field("x", FieldType::Int32, {0}, true)}, "positive or -1");

  TempDir dir;
  MindRecordWriter w(dir.file("s.mr"), 1, false);
  EXPECT_THROW(w.add_index({"label"}), Error);  // no schema yet
  w.add_schema(all_types(), "");
  EXPECT_THROW(w.add_schema(all_types(), ""), Error);
  EXPECT_THROW(w.add_index({"image"}), Error);  // bytes
  EXPECT_THROW(w.add_index({"mat"}), Error);    // an array
  EXPECT_THROW(w.add_index({"nope"}), Error);
  EXPECT_THROW(MindRecordWriter(dir.file("s.mr"), 0, false), Error);
  EXPECT_THROW(MindRecordWriter(dir.file("s.mr"), 1001, false), Error);
  EXPECT_THROW(MindRecordWriter(dir.file("missing/s.mr"), 1, false), Error);
}

TEST(MindRecord, OverwriteFalseRefusesExistingFiles) {
  TempDir dir;
  write_set(dir.file("o.mr"), 2, 4);
  try {
    MindRecordWriter w(dir.file("o.mr"), 2, false);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Runtime);
    EXPECT_NE(std::string(e.what()).find("o.mr0' already exists"), std::string::npos);
  }
  // overwrite=true replaces the set; a file appearing before commit stops overwrite=false.
  write_set(dir.file("o.mr"), 2, 6, true);
  EXPECT_EQ(MindRecordReader({dir.file("o.mr1")}, true).size(), 6);
  MindRecordWriter late(dir.file("late.mr"), 1, false);
  late.add_schema(all_types(), "");
  late.write(make_rows(0, 1));
  write_set(dir.file("late.mr"), 1, 1);
  EXPECT_NE(runtime_error_of([&] { late.commit(); }).find("already exists"), std::string::npos);
}

// The byte ranges of a shard that hold data: the length and the header JSON, then each page's
// used bytes (the rest is padding up to header_size and the page boundaries).
std::vector<std::pair<size_t, size_t>> data_spans(const std::vector<char>& bytes) {
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(bytes[static_cast<size_t>(i)]);
  std::vector<std::pair<size_t, size_t>> spans = {{0, 8 + n}};
  auto h = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(n));
  for (const auto& p : h["page"]) {
    size_t at =
        h["header_size"].get<size_t>() + p["page_id"].get<size_t>() * h["page_size"].get<size_t>();
    spans.emplace_back(at, at + p["page_size"].get<size_t>());
  }
  return spans;
}

TEST(MindRecord, EveryTruncationIsAnError) {
  TempDir dir;
  std::string path = write_set(dir.file("t.mr"), 1, 5)[0];
  std::vector<char> bytes = slurp(path);
  // Every cut inside the header and the last page, every 97th byte elsewhere.
  size_t header_end = data_spans(bytes)[0].second;
  for (size_t n = 0; n < bytes.size(); n += n < header_end || n + 512 > bytes.size() ? 1 : 97) {
    dump(path, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n)));
    std::string msg = runtime_error_of([&] { read_all(path); });
    EXPECT_NE(msg.find("MindDataset: " + path + " is truncated or corrupt"), std::string::npos)
        << "cut at " << n << ": " << msg;
  }
  dump(path, bytes);
  read_all(path);
}

TEST(MindRecord, EveryFlippedByteIsAnError) {
  TempDir dir;
  std::string path = write_set(dir.file("f.mr"), 1, 5)[0];
  std::vector<char> bytes = slurp(path);
  std::vector<std::pair<size_t, size_t>> spans = data_spans(bytes);
  ASSERT_EQ(spans.size(), 3u);  // the header, a blob page and a raw page
  EXPECT_EQ(spans.back().second, bytes.size());
  for (const auto& [from, to] : spans) {
    for (size_t k = from; k < to; ++k) {
      std::vector<char> b = bytes;
      b[k] = static_cast<char>(b[k] ^ (1 << (k % 8)));
      dump(path, b);
      std::string msg = runtime_error_of([&] { read_all(path); });
      EXPECT_NE(msg.find("MindDataset: " + path + " is truncated or corrupt"), std::string::npos)
          << "byte " << k << ": " << msg;
    }
  }
  dump(path, bytes);
  read_all(path);
}

// A commit that stops between two of its steps (here: an exception from the hook) leaves no
// set that reads, whichever file a reader starts from.
TEST(MindRecord, InterruptedCommitLeavesNoValidSet) {
  for (const char* step : {"sealed 0", "sealed 2", "renamed 0", "renamed 1"}) {
    TempDir dir;
    {
      MindRecordWriter w(dir.file("c.mr"), 3, false);
      w.add_schema(all_types(), "");
      w.write(make_rows(0, 7));
      w.set_commit_hook([&](const std::string& s) {
        if (s == step) throw std::runtime_error("crash");
      });
      EXPECT_THROW(w.commit(), std::runtime_error);
    }
    for (const std::string& p : dir.entries())
      EXPECT_EQ(p.find(".tmp"), std::string::npos) << "left behind: " << p;
    for (int k = 0; k < 3; ++k) {
      std::string p = dir.file("c.mr" + std::to_string(k));
      EXPECT_THROW(read_all(p), Error) << step;
      if (!fs::exists(p)) continue;
      std::string msg = runtime_error_of([&] { read_all(p); });
      EXPECT_NE(msg.find("is missing: the set is incomplete"), std::string::npos) << msg;
    }
  }
  // Replacing a set: a commit stopped after its first rename mixes two sets' shards.
  TempDir dir;
  write_set(dir.file("m.mr"), 2, 4);
  {
    MindRecordWriter w(dir.file("m.mr"), 2, true);
    w.set_header_size(1 << 14);
    w.set_page_size(1 << 15);
    w.add_schema(all_types(), "");
    w.write(make_rows(0, 3));
    w.set_commit_hook([](const std::string& s) {
      if (s == "renamed 0") throw std::runtime_error("crash");
    });
    EXPECT_THROW(w.commit(), std::runtime_error);
  }
  for (const char* name : {"m.mr0", "m.mr1"}) {
    std::string msg = runtime_error_of([&] { read_all(dir.file(name)); });
    EXPECT_NE(msg.find("the set is mixed"), std::string::npos) << msg;
  }
  EXPECT_THROW(MindRecordReader({dir.file("m.mr1")}, false), Error);
}

TEST(MindRecord, UncommittedWriterLeavesNothing) {
  TempDir dir;
  {
    MindRecordWriter w(dir.file("u.mr"), 2, false);
    w.add_schema(all_types(), "");
    w.write(make_rows(0, 3));
  }
  EXPECT_TRUE(dir.entries().empty());
}

TEST(MindRecord, ReaderChecksSetsAndColumns) {
  TempDir dir;
  std::vector<std::string> a = write_set(dir.file("a.mr"), 2, 4);
  std::vector<std::string> b = write_set(dir.file("b.mr"), 1, 3);
  MindRecordReader both({a[0], b[0], a[1]}, false);
  EXPECT_EQ(both.size(), 7);
  expect_same(both.read(4, {4})[0], expected_row(0)[4], "second set's first row");
  try {
    MindRecordReader({a[0], a[0]}, false);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("listed twice"), std::string::npos) << e.what();
  }
  {
    MindRecordWriter w(dir.file("other.mr"), 1, false);
    w.add_schema({field("label", FieldType::Int32)}, "");
    w.commit();
  }
  std::string msg = runtime_error_of([&] {
    MindRecordReader({a[0], dir.file("other.mr")}, false);
  });
  EXPECT_NE(msg.find("all files must share one schema"), std::string::npos) << msg;
  EXPECT_THROW(MindRecordReader({dir.file("nope.mr")}, true), Error);
  auto reader = std::make_shared<MindRecordReader>(std::vector<std::string>{a[0]}, true);
  EXPECT_THROW(MindRecordSource(reader, {"label", "nope"}), Error);
  EXPECT_THROW(MindRecordSource(reader, {"label", "label"}), Error);
  MindRecordSource padded(reader, {"label"}, {Array::scalar<int32_t>(7)}, 2);
  EXPECT_EQ(padded.size(), 6);
  EXPECT_EQ(*padded.read(5)[0].data<int32_t>(), 7);
}

}  // namespace
}  // namespace mycel::data

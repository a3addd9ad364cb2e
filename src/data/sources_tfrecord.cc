// TFRecordDataset's source (sources.h). A TFRecord file is a sequence of records, each framed
// as: uint64 length (little-endian), uint32 masked CRC-32C of those 8 bytes, `length` bytes of
// data, uint32 masked CRC-32C of the data; the data is a serialized tf.train.Example
// (tf_example.proto, parsed by the protoc-generated code). Construction indexes every file
// (the offset of each record's data, checking the length CRCs); read(i) reads one record back,
// checks its data CRC, parses it and converts the requested features to the columns' types
// and shapes. GZIP and ZLIB files are inflated into memory once, at construction.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <type_traits>

#include "base/file.h"
#include "base/record_io.h"
#include "data/sources.h"
#include "src/data/tf_example.pb.h"  // generated in the build tree

namespace mycel::data {
namespace {

// The masked CRC-32C of TFRecord framing: one implementation, base/record_io.h.
using ::mycel::masked_crc32c;

uint64_t load_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

uint32_t load_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

constexpr std::string_view kName = "TFRecordDataset";

// The whole of a file's bytes, inflated when `compressed` (gzip or zlib streams, detected from
// the header). RuntimeError naming the file when it cannot be read or inflated.
std::string read_file_bytes(const std::string& path, bool compressed) {
  std::string raw = read_regular_file(path, kName);
  if (!compressed) return raw;
  char buf[1 << 16];
  z_stream zs{};
  MC_CHECK(inflateInit2(&zs, 15 + 32) == Z_OK, Runtime, kName, ": cannot inflate ", path);
  zs.next_in = reinterpret_cast<Bytef*>(raw.data());
  zs.avail_in = static_cast<uInt>(raw.size());
  std::string out;
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.append(buf, sizeof buf - zs.avail_out);
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) break;  // truncated stream
  }
  inflateEnd(&zs);
  MC_CHECK(rc == Z_STREAM_END, Runtime, kName, ": ", path,
           " is not a complete GZIP or ZLIB stream (compression_type says it is compressed).");
  return out;
}

struct TfRecordRef {
  uint64_t offset, length;  // the data's bytes in the file (or the inflated buffer)
};

struct TfFile {
  std::string path;
  std::shared_ptr<const std::string> bytes;  // the inflated file; null: read back with pread
  std::vector<TfRecordRef> records;
  int64_t end_row = 0;
};

// Indexes the records of `data` (a file's bytes), checking every length's CRC.
std::vector<TfRecordRef> index_records(const std::string& path, const std::string& data) {
  std::vector<TfRecordRef> out;
  uint64_t pos = 0;
  const uint64_t n = data.size();
  while (pos < n) {
    MC_CHECK(n - pos >= 12, Runtime, kName, ": ", path, ": record ", out.size(), " at byte ", pos,
             " is truncated (its 12-byte header is incomplete); is this a "
             "TFRecord file (or a compressed one, without compression_type)?");
    const char* h = data.data() + pos;
    const uint64_t len = load_u64(h);
    MC_CHECK(load_u32(h + 8) == masked_crc32c(h, 8), Runtime, kName, ": ", path, ": record ",
             out.size(), " at byte ", pos,
             " has a corrupt length (CRC mismatch); is this a "
             "TFRecord file (or a compressed one, without compression_type)?");
    MC_CHECK(len <= n - pos - 12 && n - pos - 12 - len >= 4, Runtime, kName, ": ", path,
             ": record ", out.size(), " at byte ", pos, " is truncated (", len,
             " data bytes announced).");
    out.push_back({pos + 12, len});
    pos += 12 + len + 4;
  }
  return out;
}

// Converts a feature's int64 or float values to the column type T.
template <class T, class V>
void convert_into(const V& values, T* out) {
  for (int i = 0; i < values.size(); ++i) {
    if constexpr (std::is_same_v<T, float16>) {
      out[i] = T(static_cast<float>(values.Get(i)));
    } else {
      out[i] = static_cast<T>(values.Get(i));
    }
  }
}

class TfRecordSource final : public RandomAccessSource {
 public:
  TfRecordSource(const std::vector<std::string>& files, std::vector<TfColumn> columns,
                 const std::vector<std::string>& select, bool compressed, int64_t num_rows)
      : columns_(std::move(columns)) {
    MC_CHECK(!files.empty(), Value, kName, ": dataset_files is empty.");
    for (const std::string& path : files) {
      TfFile f;
      f.path = path;
      auto bytes = std::make_shared<const std::string>(read_file_bytes(path, compressed));
      f.records = index_records(path, *bytes);
      if (compressed) f.bytes = std::move(bytes);
      total_ += static_cast<int64_t>(f.records.size());
      f.end_row = total_;
      files_.push_back(std::move(f));
    }
    if (columns_.empty()) infer_columns();
    if (!select.empty()) select_columns(select);
    size_ = num_rows >= 0 ? std::min(num_rows, total_) : total_;
  }

  std::string_view name() const override { return kName; }
  int64_t size() const override { return size_; }
  std::vector<std::string> columns() const override {
    std::vector<std::string> v;
    for (const TfColumn& c : columns_) v.push_back(c.name);
    return v;
  }
  const std::vector<TfColumn>& specs() const { return columns_; }
  std::vector<int32_t> file_of_rows() const override {
    std::vector<int32_t> v;
    for (size_t f = 0; f < files_.size(); ++f) {
      v.resize(static_cast<size_t>(std::min(files_[f].end_row, size_)), static_cast<int32_t>(f));
    }
    return v;
  }

  std::string file_of_row(int64_t i) const override {
    return i >= 0 && i < size_ ? locate(i).first->path : std::string();
  }

  Row read(int64_t i) const override {
    const auto [file, k] = locate(i);
    tfrecord::Example ex;
    parse(*file, k, &ex);
    Row row;
    for (const TfColumn& c : columns_) row.push_back(column(*file, k, ex, c));
    return row;
  }

 private:
  std::pair<const TfFile*, size_t> locate(int64_t i) const {
    auto f = std::upper_bound(files_.begin(), files_.end(), i,
                              [](int64_t v, const TfFile& x) { return v < x.end_row; });
    const int64_t first = f->end_row - static_cast<int64_t>(f->records.size());
    return {&*f, static_cast<size_t>(i - first)};
  }

  // Reads record k of `file` (checking its data CRC) into `ex`.
  void parse(const TfFile& file, size_t k, tfrecord::Example* ex) const {
    const TfRecordRef& r = file.records[k];
    std::string local;
    const char* p;
    if (file.bytes) {
      p = file.bytes->data() + r.offset;
    } else {
      local.resize(r.length + 4);
      const int fd = open_regular_file(file.path, kName);
      size_t done = 0;
      while (done < local.size()) {
        const ssize_t got = ::pread(fd, local.data() + done, local.size() - done,
                                    static_cast<off_t>(r.offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
          ::close(fd);
          MC_THROW(Runtime, kName, ": ", file.path, ": record ", k,
                   " cannot be read back (the file changed after it was indexed).");
        }
        done += static_cast<size_t>(got);
      }
      ::close(fd);
      p = local.data();
    }
    MC_CHECK(load_u32(p + r.length) == masked_crc32c(p, r.length), Runtime, kName, ": ", file.path,
             ": record ", k, " is corrupt (its data CRC does not match).");
    MC_CHECK(ex->ParseFromArray(p, static_cast<int>(r.length)), Runtime, kName, ": ", file.path,
             ": record ", k, " is not a tf.train.Example.");
  }

  // The columns of a file without a schema: every feature of the first record, by name; int64
  // lists are int64, float lists float32, bytes lists uint8 (the bytes), each 1-D.
  void infer_columns() {
    MC_CHECK(total_ > 0, Runtime, kName,
             ": no schema was given and the files hold no record "
             "to read the features from.");
    tfrecord::Example ex;
    parse(files_[0], 0, &ex);
    std::map<std::string, DataType> found;
    for (const auto& [name, f] : ex.features().feature()) {
      found[name] = f.has_int64_list()   ? DataType::Int64
                    : f.has_float_list() ? DataType::Float32
                                         : DataType::UInt8;
    }
    for (const auto& [name, t] : found) columns_.push_back({name, t, {}, false});
  }

  // Keeps the columns named in `select`, in its order (MindSpore's columns_list).
  void select_columns(const std::vector<std::string>& select) {
    std::vector<TfColumn> kept;
    for (const std::string& name : select) {
      auto it = std::find_if(columns_.begin(), columns_.end(),
                             [&](const TfColumn& c) { return c.name == name; });
      MC_CHECK(it != columns_.end(), Value, kName,
               ": Invalid columns_list, tfrecord file failed to find column name: ", name,
               " (the columns are the schema's, or the first record's features).");
      kept.push_back(*it);
    }
    columns_ = std::move(kept);
  }

  Array column(const TfFile& file, size_t k, const tfrecord::Example& ex, const TfColumn& c) const {
    const auto& features = ex.features().feature();
    const auto it = features.find(c.name);
    MC_CHECK(it != features.end(), Runtime, kName, ": Feature name: ", c.name,
             " is required in schema but could not be found in tfrecord file (", file.path,
             ", record ", k, ").");
    const tfrecord::Feature& f = it->second;
    auto mismatch = [&]() {
      MC_THROW(Runtime, kName, ": The data type loaded from the example for feature name: ", c.name,
               " does not match the predefined type in schema: the feature holds ",
               f.has_int64_list()   ? "int64"
               : f.has_float_list() ? "float"
                                    : "bytes",
               " values, the schema says ", data_type_name(c.type), " (", file.path, ", record ", k,
               ").");
    };
    Array a;
    if (f.has_bytes_list()) {
      const auto& v = f.bytes_list().value();
      if (c.type == DataType::String) {
        a = Array::strings({v.begin(), v.end()}, {static_cast<int64_t>(v.size())});
      } else if (c.type == DataType::UInt8 || c.type == DataType::Int8) {
        size_t n = 0;
        for (const std::string& s : v) n += s.size();
        a = Array::empty(c.type, {static_cast<int64_t>(n)});
        char* out = static_cast<char*>(a.mutable_raw());
        for (const std::string& s : v) out = std::copy(s.begin(), s.end(), out);
      } else {
        mismatch();
      }
    } else if (f.has_int64_list() || f.has_float_list()) {
      if (c.type == DataType::String || (f.has_float_list() && !is_float(c.type))) mismatch();
      const int64_t n =
          f.has_int64_list() ? f.int64_list().value_size() : f.float_list().value_size();
      a = Array::empty(c.type, {n});
      dispatch_data(c.type, kName, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (f.has_int64_list()) {
          convert_into(f.int64_list().value(), a.mutable_data<T>());
        } else {
          convert_into(f.float_list().value(), a.mutable_data<T>());
        }
      });
    } else {  // a feature with no values
      a = c.type == DataType::String ? Array::strings({}, {0}) : Array::empty(c.type, {0});
    }
    return c.has_shape ? reshape(a, c, file, k) : a;
  }

  // `a` (1-D) under the schema's shape: -1 (at most one) is inferred, [] is a scalar.
  Array reshape(const Array& a, const TfColumn& c, const TfFile& file, size_t k) const {
    Shape shape;
    int64_t known = 1, unknown = -1;
    for (size_t d = 0; d < c.shape.size(); ++d) {
      if (c.shape[d] < 0) {
        unknown = static_cast<int64_t>(d);
      } else {
        known *= c.shape[d];
      }
      shape.push_back(c.shape[d]);
    }
    bool ok = unknown >= 0 ? known > 0 && a.numel() % known == 0 : known == a.numel();
    if (ok && unknown >= 0) shape[static_cast<size_t>(unknown)] = a.numel() / known;
    MC_CHECK(ok, Runtime, kName, ": Column shape of ", c.name,
             " defined in schema does not "
             "match the shape actually load: the schema says ",
             shape_str(c.shape), ", the feature holds ", a.numel(), " element(s) (", file.path,
             ", record ", k, ").");
    return a.reshaped(shape);
  }

  static std::string shape_str(const std::vector<int64_t>& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
  }

  std::vector<TfColumn> columns_;
  std::vector<TfFile> files_;
  int64_t total_ = 0, size_ = 0;
};

}  // namespace

SourcePtr tfrecord_source(const std::vector<std::string>& files, std::vector<TfColumn> columns,
                          const std::vector<std::string>& select, bool compressed, int64_t num_rows,
                          std::vector<TfColumn>* columns_out) {
  auto src =
      std::make_shared<TfRecordSource>(files, std::move(columns), select, compressed, num_rows);
  if (columns_out) *columns_out = src->specs();
  return src;
}

}  // namespace mycel::data

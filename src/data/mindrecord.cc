#include "data/mindrecord.h"

#include "base/file.h"
#include "base/utf8.h"
#include "data/json.h"
#include "tensor/size.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <random>
#include <string_view>

namespace mycel::data {

namespace {

namespace fs = std::filesystem;

// ---- Layout (docs/mindrecord-format.md) --------------------------------------------------

constexpr char kHeadMagic[8] = {'M', 'C', 'M', 'R', 'H', 'E', 'A', 'D'};
constexpr char kFootMagic[8] = {'M', 'C', 'M', 'R', 'F', 'O', 'O', 'T'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeadSize = 16;     // magic, version u32, JSON length u32
constexpr size_t kFootSize = 40;     // index offset u64, rows u64, 3 CRCs + reserved u32, magic
constexpr size_t kEntrySize = 16;    // record offset u64, length u32, CRC u32
constexpr size_t kRowCountPad = 24;  // JSON room for the row count, filled in at commit
constexpr int64_t kMaxShards = 1000;

void put_u32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_u64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t get_u32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint64_t get_u64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

uint32_t crc_of(const char* data, size_t n, uint32_t crc = 0) {
  // zlib takes uInt lengths: feed big blocks in pieces.
  while (n > 0) {
    uInt step = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    crc = static_cast<uint32_t>(crc32(crc, reinterpret_cast<const Bytef*>(data), step));
    data += step;
    n -= step;
  }
  return crc;
}

size_t field_elem_size(FieldType t) {
  switch (t) {
    case FieldType::Int32:
    case FieldType::Float32:
      return 4;
    case FieldType::Int64:
    case FieldType::Float64:
      return 8;
    case FieldType::String:
    case FieldType::Bytes:
      return 0;
  }
  return 0;
}

DataType field_data_type(FieldType t) {
  switch (t) {
    case FieldType::Int32:
      return DataType::Int32;
    case FieldType::Int64:
      return DataType::Int64;
    case FieldType::Float32:
      return DataType::Float32;
    case FieldType::Float64:
      return DataType::Float64;
    case FieldType::String:
      return DataType::String;
    case FieldType::Bytes:
      return DataType::UInt8;
  }
  return DataType::UInt8;
}

bool is_numeric_field(FieldType t) { return field_elem_size(t) != 0; }

std::string describe_field(const FieldSpec& f) {
  std::string s = str("'", f.name, "' (", field_type_name(f.type));
  if (f.has_shape) s += str(" ", shape_str(f.shape));
  return s + ")";
}

// ---- Files -------------------------------------------------------------------------------

std::string errno_text() { return std::strerror(errno); }

// Reads n bytes at offset; returns how many it got (fewer only at the end of the file).
size_t pread_full(int fd, char* buf, size_t n, uint64_t offset, const std::string& path,
                  std::string_view op) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = ::pread(fd, buf + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0 && errno == EINTR) continue;
    MC_CHECK(r >= 0, Runtime, op, ": cannot read ", path, ": ", errno_text(), ".");
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  return got;
}

void write_full(int fd, const char* data, size_t n, const std::string& path) {
  while (n > 0) {
    ssize_t r = ::write(fd, data, n);
    if (r < 0 && errno == EINTR) continue;
    MC_CHECK(r > 0, Runtime, "FileWriter: cannot write ", path, ": ", errno_text(), ".");
    data += r;
    n -= static_cast<size_t>(r);
  }
}

void pwrite_full(int fd, const char* data, size_t n, uint64_t offset, const std::string& path) {
  while (n > 0) {
    ssize_t r = ::pwrite(fd, data, n, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    MC_CHECK(r > 0, Runtime, "FileWriter: cannot write ", path, ": ", errno_text(), ".");
    data += r;
    n -= static_cast<size_t>(r);
    offset += static_cast<uint64_t>(r);
  }
}

std::string parent_dir(const std::string& path) {
  std::string d = fs::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

std::string random_hex(int words) {
  std::random_device rd;
  std::string out;
  static const char* hex = "0123456789abcdef";
  for (int w = 0; w < words; ++w) {
    uint32_t v = rd();
    for (int k = 0; k < 8; ++k) out.push_back(hex[(v >> (4 * k)) & 15]);
  }
  return out;
}

// ---- Records -----------------------------------------------------------------------------

int neg_dim(const FieldSpec& f) {
  for (size_t d = 0; d < f.shape.size(); ++d)
    if (f.shape[d] == -1) return static_cast<int>(d);
  return -1;
}

// Appends one field's encoding (after check_field_value) to a record.
void encode_field(const FieldSpec& f, const Array& v, std::string* out) {
  if (f.type == FieldType::String) {
    const std::string& s = v.str()[0];
    put_u64(out, s.size());
    out->append(s);
    return;
  }
  if (f.type == FieldType::Bytes) {
    put_u64(out, static_cast<uint64_t>(v.numel()));
  } else if (int d = neg_dim(f); d >= 0) {
    put_u64(out, static_cast<uint64_t>(v.shape()[d]));
  }
  out->append(static_cast<const char*>(v.raw()), v.nbytes());
}

size_t encoded_size(const FieldSpec& f, const Array& v) {
  if (f.type == FieldType::String) return 8 + v.str()[0].size();
  size_t n = v.nbytes();
  if (f.type == FieldType::Bytes || neg_dim(f) >= 0) n += 8;
  return n;
}

void header_json(std::string* out, const std::string& dataset_id, int64_t shard_id,
                 const std::vector<std::string>& shard_files, const std::vector<FieldSpec>& fields,
                 const std::vector<std::string>& index_fields, const std::string* desc,
                 int64_t rows) {
  *out += str("{\"format\": \"mycel-mindrecord\", \"version\": ", kVersion, ", \"dataset_id\": \"",
              dataset_id, "\", \"shard_id\": ", shard_id, ", \"shard_count\": ", shard_files.size(),
              ", \"shard_files\": [");
  for (size_t k = 0; k < shard_files.size(); ++k) {
    if (k) *out += ", ";
    json_string(out, shard_files[k]);
  }
  *out += "], \"schema\": {";
  for (size_t k = 0; k < fields.size(); ++k) {
    const FieldSpec& f = fields[k];
    if (k) *out += ", ";
    json_string(out, f.name);
    *out += str(": {\"type\": \"", field_type_name(f.type), "\"");
    if (f.has_shape) {
      *out += ", \"shape\": [";
      for (size_t d = 0; d < f.shape.size(); ++d) *out += str(d ? ", " : "", f.shape[d]);
      *out += "]";
    }
    *out += "}";
  }
  *out += "}, \"index_fields\": [";
  for (size_t k = 0; k < index_fields.size(); ++k) {
    if (k) *out += ", ";
    json_string(out, index_fields[k]);
  }
  *out += "], \"desc\": ";
  if (desc) {
    json_string(out, *desc);
  } else {
    *out += "null";
  }
  *out += str(", \"row_count\": ", rows, "}");
}

}  // namespace

// ---- Schema ------------------------------------------------------------------------------

std::string_view field_type_name(FieldType t) {
  switch (t) {
    case FieldType::Int32:
      return "int32";
    case FieldType::Int64:
      return "int64";
    case FieldType::Float32:
      return "float32";
    case FieldType::Float64:
      return "float64";
    case FieldType::String:
      return "string";
    case FieldType::Bytes:
      return "bytes";
  }
  return "?";
}

bool field_type_from_name(std::string_view name, FieldType* out) {
  for (FieldType t : {FieldType::Int32, FieldType::Int64, FieldType::Float32, FieldType::Float64,
                      FieldType::String, FieldType::Bytes}) {
    if (field_type_name(t) == name) {
      *out = t;
      return true;
    }
  }
  return false;
}

void check_schema(const std::vector<FieldSpec>& fields, std::string_view op) {
  MC_CHECK(!fields.empty(), Value, op, ": the schema has no fields.");
  for (size_t k = 0; k < fields.size(); ++k) {
    const FieldSpec& f = fields[k];
    bool ok_name = !f.name.empty();
    for (char c : f.name)
      ok_name = ok_name && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    MC_CHECK(ok_name, Value, op, ": field name '", f.name,
             "' must be made of '0-9', 'a-z', 'A-Z' and '_'.");
    for (size_t j = 0; j < k; ++j)
      MC_CHECK(fields[j].name != f.name, Value, op, ": field '", f.name, "' appears twice.");
    if (!f.has_shape) continue;
    MC_CHECK(is_numeric_field(f.type), Value, op, ": field '", f.name, "' of type ",
             field_type_name(f.type),
             " cannot have a shape; only int32, int64, float32 and float64 arrays do.");
    MC_CHECK(!f.shape.empty(), Value, op, ": field '", f.name,
             "' has an empty shape; leave 'shape' out for a scalar.");
    int negs = 0;
    for (int64_t d : f.shape) {
      MC_CHECK(d > 0 || d == -1, Value, op, ": field '", f.name, "' has shape ", shape_str(f.shape),
               "; dimensions must be positive or -1.");
      negs += d == -1;
    }
    MC_CHECK(negs <= 1, Value, op, ": field '", f.name, "' has shape ", shape_str(f.shape),
             "; at most one dimension may be -1.");
    // The fixed dimensions' byte size must fit in 64 bits: readers divide by it and multiply
    // dimensions read from records by it (a wrapped 0 was a SIGFPE, a wrapped small size an
    // overrun; UBSan in fuzz/fuzz_mindrecord.cc on a crafted header).
    Shape fixed = f.shape;
    for (int64_t& d : fixed) d = d == -1 ? 1 : d;
    try {
      checked_nbytes(fixed, field_elem_size(f.type), op);
    } catch (const Error& e) {
      MC_THROW(Value, op, ": field '", f.name, "' has shape ", shape_str(f.shape),
               ", whose size does not fit in 64 bits (", e.message(), ").");
    }
  }
}

Array check_field_value(const FieldSpec& f, const Array& v, std::string_view op,
                        std::string_view where) {
  MC_CHECK(v.defined(), Type, op, ": ", where, ", field '", f.name, "' has no value.");
  if (f.type == FieldType::String) {
    MC_CHECK(v.dtype() == DataType::String && v.numel() == 1, Type, op, ": ", where, ", field '",
             f.name, "' must be one str, but got ", describe(v), ".");
    return v.reshaped({});
  }
  DataType want = field_data_type(f.type);
  MC_CHECK(v.dtype() == want, Type, op, ": ", where, ", field ", describe_field(f), " must hold ",
           data_type_name(want), " values, but got ", describe(v), ".");
  if (f.type == FieldType::Bytes) return v.reshaped({v.numel()});
  if (!f.has_shape) {
    MC_CHECK(v.numel() == 1, Value, op, ": ", where, ", field ", describe_field(f),
             " is a scalar, but got ", describe(v), "; give the field a 'shape' for arrays.");
    return v.reshaped({});
  }
  Shape s = f.shape;
  int d = neg_dim(f);
  if (d >= 0) {
    int64_t known = 1;
    for (int64_t x : f.shape)
      if (x != -1) known *= x;
    MC_CHECK(v.numel() % known == 0, Value, op, ": ", where, ", field ", describe_field(f),
             " cannot hold ", describe(v), ": ", v.numel(), " elements do not fit the shape.");
    s[d] = v.numel() / known;
  }
  MC_CHECK(numel(s) == v.numel(), Value, op, ": ", where, ", field ", describe_field(f),
           " cannot hold ", describe(v), ": ", v.numel(), " elements for ", numel(s), ".");
  return v.reshaped(s);
}

// ---- Writer ------------------------------------------------------------------------------

struct MindRecordWriter::Shard {
  std::string path;
  std::string tmp;
  int fd = -1;
  uint64_t offset = 0;  // the file's size so far
  uint32_t json_len = 0;
  std::string pending;  // records not yet written
  std::string index;    // index entries so far
  int64_t rows = 0;

  void flush() {
    write_full(fd, pending.data(), pending.size(), tmp);
    pending.clear();
  }
};

MindRecordWriter::MindRecordWriter(std::string file_name, int64_t shard_num, bool overwrite)
    : file_name_(std::move(file_name)), overwrite_(overwrite) {
  MC_CHECK(!file_name_.empty(), Value, "FileWriter: file_name must not be empty.");
  MC_CHECK(shard_num >= 1 && shard_num <= kMaxShards, Value,
           "FileWriter: shard_num must be in [1, ", kMaxShards, "], but got ", shard_num, ".");
  std::string dir = parent_dir(file_name_);
  std::error_code ec;
  MC_CHECK(fs::is_directory(dir, ec), Value, "FileWriter: the directory '", dir, "' of file_name '",
           file_name_, "' does not exist.");
  if (shard_num == 1) {
    paths_.push_back(file_name_);
  } else {
    size_t width = std::to_string(shard_num - 1).size();
    for (int64_t k = 0; k < shard_num; ++k) {
      std::string suffix = std::to_string(k);
      paths_.push_back(file_name_ + std::string(width - suffix.size(), '0') + suffix);
    }
  }
  for (const std::string& p : paths_)
    MC_CHECK(!fs::is_directory(p, ec), Value, "FileWriter: '", p, "' is a directory.");
  if (!overwrite_) check_absent();
}

MindRecordWriter::~MindRecordWriter() {
  if (state_ != State::Committed) discard();
}

void MindRecordWriter::check_absent() const {
  for (const std::string& p : paths_) {
    struct stat st;
    MC_CHECK(::lstat(p.c_str(), &st) != 0, Runtime, "FileWriter: '", p,
             "' already exists; pass overwrite=True to replace it.");
  }
}

void MindRecordWriter::discard() noexcept {
  for (auto& s : shards_) {
    if (s->fd >= 0) ::close(s->fd);
    s->fd = -1;
    ::unlink(s->tmp.c_str());
  }
  shards_.clear();
  if (state_ != State::Committed) state_ = State::Failed;
}

int64_t MindRecordWriter::add_schema(std::vector<FieldSpec> fields, std::string desc) {
  MC_CHECK(state_ == State::New, Runtime,
           "FileWriter: add_schema must come before write_raw_data and commit.");
  MC_CHECK(!has_schema_, Runtime,
           "FileWriter: add_schema was already called; a MindRecord file has one schema.");
  check_schema(fields, "FileWriter");
  fields_ = std::move(fields);
  desc_ = std::move(desc);
  has_schema_ = true;
  return 0;
}

void MindRecordWriter::add_index(std::vector<std::string> fields) {
  MC_CHECK(state_ == State::New, Runtime,
           "FileWriter: add_index must come before write_raw_data and commit.");
  MC_CHECK(has_schema_, Runtime, "FileWriter: add_index needs a schema; call add_schema first.");
  MC_CHECK(!fields.empty(), Value, "FileWriter: index_fields must not be empty.");
  for (const std::string& name : fields) {
    auto it = std::find_if(fields_.begin(), fields_.end(),
                           [&](const FieldSpec& f) { return f.name == name; });
    MC_CHECK(it != fields_.end(), Value, "FileWriter: index field '", name,
             "' is not in the schema.");
    MC_CHECK(it->type != FieldType::Bytes && !it->has_shape, Value, "FileWriter: index field ",
             describe_field(*it), " must be of a primitive type (a scalar or a string).");
    MC_CHECK(std::count(fields.begin(), fields.end(), name) == 1, Value,
             "FileWriter: index field '", name, "' appears twice.");
  }
  index_fields_ = std::move(fields);
}

std::string MindRecordWriter::head(size_t shard, int64_t rows, uint32_t json_len) const {
  std::vector<std::string> names;
  for (const std::string& p : paths_) names.push_back(fs::path(p).filename().string());
  std::string json;
  header_json(&json, dataset_id_, static_cast<int64_t>(shard), names, fields_, index_fields_,
              desc_.empty() ? nullptr : &desc_, rows);
  // The first head leaves room for the row count that commit writes.
  if (json_len == 0) json_len = static_cast<uint32_t>(json.size() + kRowCountPad);
  MC_ASSERT(json.size() <= json_len, "the row count outgrew its room");
  json.append(json_len - json.size(), ' ');
  std::string out(kHeadMagic, sizeof(kHeadMagic));
  put_u32(&out, kVersion);
  put_u32(&out, json_len);
  return out + json;
}

void MindRecordWriter::open_shards() {
  MC_CHECK(has_schema_, Runtime, "FileWriter: no schema; call add_schema first.");
  dataset_id_ = random_hex(4);
  std::string tag = str(::getpid(), "-", random_hex(2));
  try {
    for (size_t k = 0; k < paths_.size(); ++k) {
      auto s = std::make_unique<Shard>();
      s->path = paths_[k];
      s->tmp =
          str(parent_dir(s->path), "/.", fs::path(s->path).filename().string(), ".", tag, ".tmp");
      s->fd = ::open(s->tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      MC_CHECK(s->fd >= 0, Runtime, "FileWriter: cannot create ", s->tmp, ": ", errno_text(), ".");
      shards_.push_back(std::move(s));
      Shard& sh = *shards_.back();
      std::string h = head(k, 0, 0);
      sh.json_len = static_cast<uint32_t>(h.size() - kHeadSize);
      write_full(sh.fd, h.data(), h.size(), sh.tmp);
      sh.offset = h.size();
    }
  } catch (...) {
    discard();
    throw;
  }
  state_ = State::Writing;
}

void MindRecordWriter::write(const std::vector<Row>& rows) {
  MC_CHECK(state_ != State::Committed, Runtime,
           "FileWriter: write_raw_data after commit; the files are already sealed.");
  MC_CHECK(state_ != State::Failed, Runtime,
           "FileWriter: an earlier write or commit failed; start a new FileWriter.");
  MC_CHECK(has_schema_, Runtime,
           "FileWriter: write_raw_data needs a schema; call add_schema first.");
  // Check everything first: a bad row leaves the files as they were.
  std::vector<Row> checked(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    MC_CHECK(rows[r].size() == fields_.size(), Value, "FileWriter: row ", r, " has ",
             rows[r].size(), " values for ", fields_.size(), " schema fields.");
    std::string where = str("row ", r);
    size_t bytes = 0;
    for (size_t k = 0; k < fields_.size(); ++k) {
      checked[r].push_back(check_field_value(fields_[k], rows[r][k], "FileWriter", where));
      bytes += encoded_size(fields_[k], checked[r].back());
    }
    MC_CHECK(bytes <= std::numeric_limits<uint32_t>::max(), Value, "FileWriter: row ", r, " takes ",
             bytes, " bytes; a record holds at most 4 GiB.");
  }
  if (state_ == State::New) open_shards();
  try {
    std::string rec;
    for (const Row& row : checked) {
      Shard& sh = *shards_[static_cast<size_t>(rows_ % static_cast<int64_t>(shards_.size()))];
      rec.clear();
      for (size_t k = 0; k < fields_.size(); ++k) encode_field(fields_[k], row[k], &rec);
      put_u64(&sh.index, sh.offset);
      put_u32(&sh.index, static_cast<uint32_t>(rec.size()));
      put_u32(&sh.index, crc_of(rec.data(), rec.size()));
      sh.pending += rec;
      sh.offset += rec.size();
      ++sh.rows;
      ++rows_;
      if (sh.pending.size() >= (1u << 22)) sh.flush();
    }
    for (auto& s : shards_) s->flush();
  } catch (...) {
    discard();
    throw;
  }
}

void MindRecordWriter::commit() {
  MC_CHECK(state_ != State::Committed, Runtime, "FileWriter: commit was already called.");
  MC_CHECK(state_ != State::Failed, Runtime,
           "FileWriter: an earlier write or commit failed; start a new FileWriter.");
  if (state_ == State::New) open_shards();
  try {
    for (size_t k = 0; k < shards_.size(); ++k) {
      Shard& sh = *shards_[k];
      sh.flush();
      uint64_t index_offset = sh.offset;
      write_full(sh.fd, sh.index.data(), sh.index.size(), sh.tmp);
      std::string h = head(k, sh.rows, sh.json_len);  // now with the row count
      pwrite_full(sh.fd, h.data(), h.size(), 0, sh.tmp);
      std::string foot;
      put_u64(&foot, index_offset);
      put_u64(&foot, static_cast<uint64_t>(sh.rows));
      put_u32(&foot, crc_of(h.data(), h.size()));
      put_u32(&foot, crc_of(sh.index.data(), sh.index.size()));
      put_u32(&foot, 0);
      put_u32(&foot, crc_of(foot.data(), foot.size()));
      foot.append(kFootMagic, sizeof(kFootMagic));
      write_full(sh.fd, foot.data(), foot.size(), sh.tmp);
      MC_CHECK(::fsync(sh.fd) == 0, Runtime, "FileWriter: cannot sync ", sh.tmp, ": ", errno_text(),
               ".");
      MC_CHECK(::close(sh.fd) == 0, Runtime, "FileWriter: cannot close ", sh.tmp, ": ",
               errno_text(), ".");
      sh.fd = -1;
      if (hook_) hook_(str("sealed ", k));
    }
    if (!overwrite_) check_absent();
    for (size_t k = 0; k < shards_.size(); ++k) {
      Shard& sh = *shards_[k];
      MC_CHECK(::rename(sh.tmp.c_str(), sh.path.c_str()) == 0, Runtime,
               "FileWriter: cannot rename ", sh.tmp, " to ", sh.path, ": ", errno_text(), ".");
      if (hook_) hook_(str("renamed ", k));
    }
    int dfd = ::open(parent_dir(paths_[0]).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      ::fsync(dfd);
      ::close(dfd);
    }
  } catch (...) {
    discard();
    throw;
  }
  state_ = State::Committed;
  shards_.clear();
}

// ---- Reader ------------------------------------------------------------------------------

struct MindRecordReader::File {
  std::string who;  // the reader's name for messages
  std::string path;
  int fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
  std::string dataset_id;
  int64_t shard_id = 0;
  int64_t shard_count = 0;
  std::vector<std::string> shard_files;
  std::vector<FieldSpec> fields;
  int64_t rows = 0;
  std::vector<char> index;  // kEntrySize bytes a row

  ~File() {
    if (fd >= 0) ::close(fd);
  }

  [[noreturn]] void corrupt(const std::string& why) const {
    MC_THROW(Runtime, who, ": ", path, " is truncated or corrupt (", why, ").");
  }

  void open(const std::string& p) {
    path = p;
    fd = open_regular_file(p, who);  // a FIFO or a directory is a ValueError, not a hang
    struct stat st;
    MC_CHECK(::fstat(fd, &st) == 0, Runtime, who, ": cannot stat ", p, ": ", errno_text(), ".");
    dev = st.st_dev;
    ino = st.st_ino;
    auto size = static_cast<uint64_t>(st.st_size);
    if (size < kHeadSize + kFootSize)
      corrupt(str("the file has ", size, " bytes, fewer than a header and a footer"));
    char head[kHeadSize];
    char foot[kFootSize];
    if (pread_full(fd, head, kHeadSize, 0, path, who) != kHeadSize ||
        pread_full(fd, foot, kFootSize, size - kFootSize, path, who) != kFootSize)
      corrupt("the file shrank while being read");
    if (std::memcmp(head, kHeadMagic, sizeof(kHeadMagic)) != 0)
      corrupt("no MindRecord header magic at byte 0");
    if (std::memcmp(foot + kFootSize - 8, kFootMagic, sizeof(kFootMagic)) != 0)
      corrupt("no footer magic at the end: cut short, or never committed");
    if (get_u32(foot + 28) != crc_of(foot, 28)) corrupt("footer checksum mismatch");
    uint32_t version = get_u32(head + 8);
    MC_CHECK(version == kVersion, Runtime, who, ": ", path, " has format version ", version,
             "; this mycel reads version ", kVersion, ".");
    uint64_t json_len = get_u32(head + 12);
    uint64_t index_offset = get_u64(foot);
    uint64_t nrows = get_u64(foot + 8);
    if (nrows > size / kEntrySize || index_offset > size || index_offset < kHeadSize + json_len ||
        index_offset + nrows * kEntrySize + kFootSize != size)
      corrupt(str("the footer's index offset ", index_offset, " and row count ", nrows,
                  " do not match the file size ", size));
    std::string header(kHeadSize + json_len, '\0');
    if (pread_full(fd, header.data(), header.size(), 0, path, who) != header.size())
      corrupt("the file shrank while being read");
    if (crc_of(header.data(), header.size()) != get_u32(foot + 16))
      corrupt("header checksum mismatch");
    index.resize(nrows * kEntrySize);
    if (pread_full(fd, index.data(), index.size(), index_offset, path, who) != index.size())
      corrupt("the file shrank while being read");
    if (crc_of(index.data(), index.size()) != get_u32(foot + 20))
      corrupt("index checksum mismatch");
    rows = static_cast<int64_t>(nrows);
    uint64_t expect = kHeadSize + json_len;
    for (uint64_t r = 0; r < nrows; ++r) {
      const char* e = index.data() + r * kEntrySize;
      if (get_u64(e) != expect) corrupt(str("index entry ", r, " points outside the records"));
      expect += get_u32(e + 8);
    }
    if (expect != index_offset) corrupt("the index does not cover the records");
    try {
      parse_header(std::string_view(header).substr(kHeadSize));
    } catch (const std::runtime_error& e) {
      corrupt(e.what());
    }
    // A sealed temporary file of an interrupted commit is complete but must not read.
    const std::string& written = shard_files[static_cast<size_t>(shard_id)];
    MC_CHECK(fs::path(path).filename() == written, Runtime, who, ": ", path,
             " is not a committed MindRecord file: it was written for the name '", written,
             "' (a temporary file of an unfinished commit, or a renamed file; MindRecord "
             "files must keep their names).");
  }

  // Throws std::runtime_error on anything unexpected (the header's CRC already matched, so
  // this only fires for files not written by FileWriter).
  void parse_header(std::string_view text) {
    Json j = parse_json(text);
    auto need = [&](const char* key, Json::Kind kind) -> const Json& {
      const Json* v = j.get(key);
      if (!v || v->kind != kind) throw std::runtime_error(str("header field '", key, "'"));
      return *v;
    };
    if (need("format", Json::Kind::Str).s != "mycel-mindrecord")
      throw std::runtime_error("not a mycel-mindrecord header");
    dataset_id = need("dataset_id", Json::Kind::Str).s;
    shard_id = need("shard_id", Json::Kind::Int).i;
    shard_count = need("shard_count", Json::Kind::Int).i;
    for (const Json& f : need("shard_files", Json::Kind::Arr).arr) {
      if (f.kind != Json::Kind::Str || f.s.empty() || f.s.find('/') != std::string::npos)
        throw std::runtime_error("bad shard file name");
      shard_files.push_back(f.s);
    }
    if (shard_count < 1 || shard_count > kMaxShards || shard_id < 0 || shard_id >= shard_count ||
        static_cast<int64_t>(shard_files.size()) != shard_count)
      throw std::runtime_error("bad shard id or count");
    if (need("row_count", Json::Kind::Int).i != rows)
      throw std::runtime_error("header and footer disagree on the row count");
    for (const auto& [name, spec] : need("schema", Json::Kind::Obj).obj) {
      FieldSpec f;
      f.name = name;
      const Json* type = spec.get("type");
      if (!type || type->kind != Json::Kind::Str || !field_type_from_name(type->s, &f.type))
        throw std::runtime_error(str("bad type of field '", name, "'"));
      if (const Json* shape = spec.get("shape")) {
        f.has_shape = true;
        for (const Json& d : shape->arr) {
          if (d.kind != Json::Kind::Int) throw std::runtime_error("bad shape");
          f.shape.push_back(d.i);
        }
      }
      fields.push_back(std::move(f));
    }
    try {
      check_schema(fields, who);
    } catch (const Error& e) {
      MC_THROW(Value, who, ": ", path, " has an invalid schema in its header: ", e.message());
    }
  }

  // Record r's bytes, CRC checked.
  std::vector<char> record(int64_t r) const {
    const char* e = index.data() + static_cast<size_t>(r) * kEntrySize;
    std::vector<char> buf(get_u32(e + 8));
    if (pread_full(fd, buf.data(), buf.size(), get_u64(e), path, who) != buf.size())
      corrupt(str("record ", r, " is cut short"));
    if (crc_of(buf.data(), buf.size()) != get_u32(e + 12))
      corrupt(str("record ", r, " fails its checksum"));
    return buf;
  }
};

// One set: every shard opened; `listed` says which shards' rows are read.
struct MindRecordReader::Set {
  std::vector<File*> shards;
  std::vector<bool> listed;
  int64_t total = 0;               // rows of all shards
  int64_t size = 0;                // rows read
  std::vector<int64_t> positions;  // write positions of the rows read (empty: all of them)
};

namespace {

bool same_fields(const std::vector<FieldSpec>& a, const std::vector<FieldSpec>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (a[k].name != b[k].name || a[k].type != b[k].type || a[k].has_shape != b[k].has_shape ||
        a[k].shape != b[k].shape)
      return false;
  return true;
}

std::string fields_str(const std::vector<FieldSpec>& fields) {
  std::string s = "{";
  for (size_t k = 0; k < fields.size(); ++k) s += (k ? ", " : "") + describe_field(fields[k]);
  return s + "}";
}

}  // namespace

MindRecordReader::~MindRecordReader() = default;

MindRecordReader::MindRecordReader(const std::vector<std::string>& files, bool load_set,
                                   std::string who)
    : who_(std::move(who)) {
  MC_CHECK(!files.empty(), Value, who_, ": dataset_files is empty.");
  MC_ASSERT(!load_set || files.size() == 1, "load_set with several files");
  std::map<std::string, size_t> set_of;  // dataset id -> index in sets_
  auto open_file = [&](const std::string& path) -> File* {
    auto f = std::make_unique<File>();
    f->who = who_;
    f->open(path);
    files_.push_back(std::move(f));
    return files_.back().get();
  };
  for (const std::string& path : files) {
    std::error_code ec;
    MC_CHECK(fs::exists(path, ec), Value, who_, ": dataset file ", path, " does not exist.");
    File* f = open_file(path);
    auto it = set_of.find(f->dataset_id);
    if (it != set_of.end()) {
      // Another shard of a set already open: it must be the very file opened as that shard.
      Set& set = sets_[it->second];
      File* known = set.shards[static_cast<size_t>(f->shard_id)];
      MC_CHECK(known->dataset_id == f->dataset_id && known->dev == f->dev && known->ino == f->ino,
               Value, who_, ": ", path, " is shard ", f->shard_id, " of the set of ",
               set.shards[0]->path, ", but that shard is ", known->path, ".");
      MC_CHECK(!set.listed[static_cast<size_t>(f->shard_id)], Value, who_, ": ", path,
               " is listed twice in dataset_files.");
      set.listed[static_cast<size_t>(f->shard_id)] = true;
      files_.pop_back();
      continue;
    }
    // A new set: open its other shards, found by the names in the header, next to this file.
    if (fields_.empty()) fields_ = f->fields;
    MC_CHECK(same_fields(f->fields, fields_), Runtime, who_, ": ", path, " has the schema ",
             fields_str(f->fields), ", but ", files_[0]->path, " has ", fields_str(fields_),
             "; all files must share one schema.");
    Set set;
    set.shards.resize(static_cast<size_t>(f->shard_count));
    set.listed.assign(static_cast<size_t>(f->shard_count), load_set);
    set.listed[static_cast<size_t>(f->shard_id)] = true;
    set.shards[static_cast<size_t>(f->shard_id)] = f;
    std::string dir = parent_dir(path);
    for (int64_t k = 0; k < f->shard_count; ++k) {
      if (k == f->shard_id) continue;
      std::string sib = dir + "/" + f->shard_files[static_cast<size_t>(k)];
      MC_CHECK(fs::exists(sib, ec), Runtime, who_, ": shard ", k, " of the set of ", path, " (",
               sib,
               ") is missing: the set is incomplete (an unfinished or crashed "
               "FileWriter.commit?).");
      File* s = open_file(sib);
      MC_CHECK(
          s->dataset_id == f->dataset_id && s->shard_id == k && s->shard_count == f->shard_count,
          Runtime, who_, ": ", sib, " is not shard ", k, " of the set of ", path,
          " (its dataset id ", s->dataset_id, " shard ", s->shard_id, " of ", s->shard_count,
          ", expected ", f->dataset_id, " shard ", k, " of ", f->shard_count,
          "): the set is mixed (an unfinished or crashed "
          "FileWriter.commit?).");
      MC_CHECK(same_fields(s->fields, f->fields), Runtime, who_, ": ", sib, " and ", path,
               " are shards of one set but have different schemas.");
      set.shards[static_cast<size_t>(k)] = s;
    }
    for (File* s : set.shards) set.total += s->rows;
    // Rows went round-robin: shard k holds write positions k, k + n, k + 2n, ...
    auto n = static_cast<int64_t>(set.shards.size());
    for (int64_t k = 0; k < n; ++k)
      MC_CHECK(set.shards[static_cast<size_t>(k)]->rows == (set.total - k + n - 1) / n, Runtime,
               who_, ": ", set.shards[static_cast<size_t>(k)]->path, " holds ",
               set.shards[static_cast<size_t>(k)]->rows, " rows, which does not fit a set of ",
               set.total, " rows over ", n, " shards: the set is mixed or corrupt.");
    set_of.emplace(f->dataset_id, sets_.size());
    sets_.push_back(std::move(set));
  }
  int64_t start = 0;
  for (Set& set : sets_) {
    bool all = std::all_of(set.listed.begin(), set.listed.end(), [](bool b) { return b; });
    if (all) {
      set.size = set.total;
    } else {
      auto n = static_cast<int64_t>(set.shards.size());
      for (int64_t g = 0; g < set.total; ++g)
        if (set.listed[static_cast<size_t>(g % n)]) set.positions.push_back(g);
      set.size = static_cast<int64_t>(set.positions.size());
    }
    set_start_.push_back(start);
    start += set.size;
  }
  set_start_.push_back(start);
  total_ = start;
}

std::vector<int32_t> MindRecordReader::file_of_rows() const {
  std::vector<int32_t> v;
  v.reserve(static_cast<size_t>(total_));
  for (const Set& set : sets_) {
    std::vector<int32_t> number;  // of each shard of the set
    for (const File* shard : set.shards) {
      auto it = std::find_if(files_.begin(), files_.end(),
                             [&](const std::unique_ptr<File>& f) { return f.get() == shard; });
      number.push_back(static_cast<int32_t>(it - files_.begin()));
    }
    auto n = static_cast<int64_t>(set.shards.size());
    for (int64_t r = 0; r < set.size; ++r) {  // as read() places row r of the set
      int64_t g = set.positions.empty() ? r : set.positions[static_cast<size_t>(r)];
      v.push_back(number[static_cast<size_t>(g % n)]);
    }
  }
  return v;
}

Row MindRecordReader::read(int64_t i, const std::vector<int>& cols) const {
  MC_ASSERT(i >= 0 && i < total_, "MindRecordReader::read(", i, ") of ", total_);
  size_t s = static_cast<size_t>(std::upper_bound(set_start_.begin(), set_start_.end(), i) -
                                 set_start_.begin() - 1);
  const Set& set = sets_[s];
  int64_t g = i - set_start_[s];
  if (!set.positions.empty()) g = set.positions[static_cast<size_t>(g)];
  auto n = static_cast<int64_t>(set.shards.size());
  const File& f = *set.shards[static_cast<size_t>(g % n)];
  int64_t r = g / n;
  std::vector<char> rec = f.record(r);

  // Where each field's payload starts, and its shape.
  const char* p = rec.data();
  const char* end = rec.data() + rec.size();
  auto take = [&](size_t bytes, const FieldSpec& fld) {
    if (static_cast<size_t>(end - p) < bytes)
      f.corrupt(str("record ", r, ", field '", fld.name, "' overruns the record"));
    const char* at = p;
    p += bytes;
    return at;
  };
  std::vector<Array> values(fields_.size());
  std::vector<bool> wanted(fields_.size(), false);
  for (int c : cols) wanted[static_cast<size_t>(c)] = true;
  for (size_t k = 0; k < fields_.size(); ++k) {
    const FieldSpec& fld = fields_[k];
    if (fld.type == FieldType::String || fld.type == FieldType::Bytes) {
      uint64_t len = get_u64(take(8, fld));
      const char* at = take(static_cast<size_t>(len), fld);
      if (!wanted[k]) continue;
      if (fld.type == FieldType::String) {
        // FileWriter writes only Python strs: other bytes mean a file from elsewhere.
        MC_CHECK(valid_utf8(std::string_view(at, len)), Value, who_, ": ", f.path, ", record ", r,
                 ", field '", fld.name, "': the string is not valid UTF-8 text.");
        values[k] = Array::strings({std::string(at, len)}, {});
      } else {
        values[k] = Array::empty(DataType::UInt8, {static_cast<int64_t>(len)});
        if (len) std::memcpy(values[k].mutable_raw(), at, len);
      }
      continue;
    }
    Shape shape = fld.shape;
    if (int d = neg_dim(fld); d >= 0) {
      uint64_t dim = get_u64(take(8, fld));
      int64_t known = -numel(shape);  // shape[d] is -1: minus the other dimensions
      if (dim > static_cast<uint64_t>(end - p) /
                    (static_cast<uint64_t>(known) * field_elem_size(fld.type)))
        f.corrupt(str("record ", r, ", field '", fld.name, "' overruns the record"));
      shape[d] = static_cast<int64_t>(dim);
    }
    size_t bytes = static_cast<size_t>(numel(shape)) * field_elem_size(fld.type);
    const char* at = take(bytes, fld);
    if (!wanted[k]) continue;
    values[k] = Array::empty(field_data_type(fld.type), shape);
    if (bytes) std::memcpy(values[k].mutable_raw(), at, bytes);
  }
  if (p != end) f.corrupt(str("record ", r, " has ", end - p, " bytes past its last field"));
  Row out;
  out.reserve(cols.size());
  for (int c : cols) out.push_back(values[static_cast<size_t>(c)]);
  return out;
}

// ---- Source ------------------------------------------------------------------------------

MindRecordSource::MindRecordSource(std::shared_ptr<const MindRecordReader> reader,
                                   const std::vector<std::string>& columns, Row pad,
                                   int64_t num_padded)
    : reader_(std::move(reader)), pad_(std::move(pad)), num_padded_(num_padded) {
  const auto& fields = reader_->schema();
  if (columns.empty()) {
    for (size_t k = 0; k < fields.size(); ++k) cols_.push_back(static_cast<int>(k));
  }
  for (size_t j = 0; j < columns.size(); ++j) {
    const std::string& c = columns[j];
    auto it =
        std::find_if(fields.begin(), fields.end(), [&](const FieldSpec& f) { return f.name == c; });
    MC_CHECK(it != fields.end(), Value, reader_->who(), ": column '", c,
             "' is not a field of the files; their fields are ", fields_str(fields), ".");
    MC_CHECK(std::find(columns.begin(), columns.begin() + static_cast<std::ptrdiff_t>(j), c) ==
                 columns.begin() + static_cast<std::ptrdiff_t>(j),
             Value, reader_->who(), ": column '", c, "' appears twice.");
    cols_.push_back(static_cast<int>(it - fields.begin()));
  }
  MC_CHECK(num_padded_ >= 0, Value, reader_->who(), ": num_padded must be >= 0, but got ",
           num_padded_, ".");
  MC_CHECK(num_padded_ == 0 || pad_.size() == cols_.size(), Value, reader_->who(),
           ": the padded sample has ", pad_.size(), " columns for ", cols_.size(), ".");
}

std::vector<std::string> MindRecordSource::columns() const {
  std::vector<std::string> out;
  for (int c : cols_) out.push_back(reader_->schema()[static_cast<size_t>(c)].name);
  return out;
}

std::vector<FieldSpec> MindRecordSource::column_fields() const {
  std::vector<FieldSpec> out;
  for (int c : cols_) out.push_back(reader_->schema()[static_cast<size_t>(c)]);
  return out;
}

std::vector<int32_t> MindRecordSource::file_of_rows() const {
  std::vector<int32_t> v = reader_->file_of_rows();
  int32_t pad_file = 0;
  for (int32_t f : v) pad_file = std::max(pad_file, f + 1);
  v.resize(v.size() + static_cast<size_t>(num_padded_), pad_file);
  return v;
}

Row MindRecordSource::read(int64_t i) const {
  if (i >= reader_->size()) return pad_;
  return reader_->read(i, cols_);
}

}  // namespace mycel::data

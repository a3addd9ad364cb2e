#include "data/mindrecord.h"

#include "base/file.h"
#include "data/mindrecord_crypto.h"
#include "data/mindrecord_format.h"
#include "data/mindrecord_index.h"
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
#include <stdexcept>
#include <string_view>

namespace mycel::data {

namespace {

namespace fs = std::filesystem;
namespace mr = mindrecord;
using mr::field_data_type;
using mr::field_elem_size;

constexpr size_t kMaxFields = 100;  // MindSpore's

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

void sync_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  MC_CHECK(fd >= 0 && ::fsync(fd) == 0, Runtime, "FileWriter: cannot sync ", path, ": ",
           errno_text(), ".");
  ::close(fd);
}

std::string parent_dir(const std::string& path) {
  std::string d = fs::path(path).parent_path().string();
  return d.empty() ? "." : d;
}

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

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
  MC_CHECK(fields.size() <= kMaxFields, Value, op, ": the schema has ", fields.size(),
           " fields; MindRecord holds at most ", kMaxFields, ".");
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
  auto neg = std::find(s.begin(), s.end(), int64_t{-1});
  if (neg != s.end()) {
    int64_t known = 1;
    for (int64_t x : f.shape)
      if (x != -1) known *= x;
    MC_CHECK(v.numel() % known == 0, Value, op, ": ", where, ", field ", describe_field(f),
             " cannot hold ", describe(v), ": ", v.numel(), " elements do not fit the shape.");
    *neg = v.numel() / known;
  }
  MC_CHECK(numel(s) == v.numel(), Value, op, ": ", where, ", field ", describe_field(f),
           " cannot hold ", describe(v), ": ", v.numel(), " elements for ", numel(s), ".");
  return v.reshaped(s);
}

// ---- Writer ------------------------------------------------------------------------------

// A shard being written: its temporary file, its pages so far and the index of its rows. The
// current blob and raw pages' bytes are buffered until the page is left (or write() ends).
struct MindRecordWriter::Shard {
  std::string path, tmp, db_tmp;
  int fd = -1;
  std::vector<mr::Page> pages;
  int blob = -1, raw = -1;  // the current pages (indices into pages)
  std::string blob_buf, raw_buf;
  uint64_t blob_buf_at = 0, raw_buf_at = 0;  // file offsets of the buffers
  std::vector<mr::IndexRow> rows;
  std::vector<std::vector<mr::IndexValue>> values;
  mr::Checksums sums;

  void flush() {
    pwrite_full(fd, blob_buf.data(), blob_buf.size(), blob_buf_at, tmp);
    pwrite_full(fd, raw_buf.data(), raw_buf.size(), raw_buf_at, tmp);
    blob_buf_at += blob_buf.size();
    raw_buf_at += raw_buf.size();
    blob_buf.clear();
    raw_buf.clear();
  }
};

MindRecordWriter::MindRecordWriter(std::string file_name, int64_t shard_num, bool overwrite)
    : file_name_(std::move(file_name)),
      overwrite_(overwrite),
      header_size_(mr::kDefaultHeaderSize),
      page_size_(mr::kDefaultPageSize) {
  MC_CHECK(!file_name_.empty(), Value, "FileWriter: file_name must not be empty.");
  MC_CHECK(shard_num >= 1 && shard_num <= mr::kMaxShards, Value,
           "FileWriter: shard_num must be in [1, ", mr::kMaxShards, "], but got ", shard_num, ".");
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
    for (const std::string& f : {p, p + ".db"}) {
      struct stat st;
      MC_CHECK(::lstat(f.c_str(), &st) != 0, Runtime, "FileWriter: '", f,
               "' already exists; pass overwrite=True to replace it. Invalid file, mindrecord "
               "files already exist. Please check file path: ",
               f, ".");
    }
  }
}

void MindRecordWriter::discard() noexcept {
  for (auto& s : shards_) {
    if (s->fd >= 0) ::close(s->fd);
    s->fd = -1;
    ::unlink(s->tmp.c_str());
    ::unlink(s->db_tmp.c_str());
  }
  shards_.clear();
  if (state_ != State::Committed) state_ = State::Failed;
}

namespace {

// A header or page size checked against MindSpore's range (a multiple of 4 in [lo, hi]).
uint64_t checked_size(const char* what, int64_t bytes, uint64_t lo, uint64_t hi,
                      const char* range) {
  MC_CHECK(bytes >= static_cast<int64_t>(lo) && bytes <= static_cast<int64_t>(hi) && bytes % 4 == 0,
           Value, "FileWriter: ", what, " must be a multiple of 4 in [", lo, ", ", hi, "] (", range,
           "), but got ", bytes, ".");
  return static_cast<uint64_t>(bytes);
}

}  // namespace

void MindRecordWriter::set_header_size(int64_t bytes) {
  MC_CHECK(state_ == State::New, Runtime, "FileWriter: set_header_size must come before writing.");
  header_size_ = checked_size("header_size", bytes, mr::kMinHeaderSize, mr::kMaxHeaderSize,
                              "16 KiB to 128 MiB");
}

void MindRecordWriter::set_page_size(int64_t bytes) {
  MC_CHECK(state_ == State::New, Runtime, "FileWriter: set_page_size must come before writing.");
  page_size_ =
      checked_size("page_size", bytes, mr::kMinPageSize, mr::kMaxPageSize, "32 KiB to 256 MiB");
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
  has_index_ = true;
}

void MindRecordWriter::open_shards() {
  MC_CHECK(has_schema_, Runtime, "FileWriter: no schema; call add_schema first.");
  if (!has_index_) {  // MindSpore's default: every scalar and string field
    for (const FieldSpec& f : fields_)
      if (f.type != FieldType::Bytes && !f.has_shape) index_fields_.push_back(f.name);
  }
  dataset_id_ = random_hex(4);
  std::string tag = str(::getpid(), "-", random_hex(2));
  try {
    for (const std::string& path : paths_) {
      auto s = std::make_unique<Shard>();
      s->path = path;
      s->tmp = str(parent_dir(path), "/.", base_name(path), ".", tag, ".tmp");
      s->db_tmp = str(parent_dir(path), "/.", base_name(path), ".db.", tag, ".tmp");
      s->fd = ::open(s->tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
      MC_CHECK(s->fd >= 0, Runtime, "FileWriter: cannot create ", s->tmp, ": ", errno_text(), ".");
      shards_.push_back(std::move(s));
    }
  } catch (...) {
    discard();
    throw;
  }
  state_ = State::Writing;
}

// Appends a row's two parts to a shard's current pages, opening new ones where they are full:
// a blob page holds one row group; a row group's raw parts lie together in one raw page.
void MindRecordWriter::append(Shard& sh, int64_t shard_id, const Row& row) {
  std::string blob = mr::encode_blob(fields_, row, &compression_size_);
  std::string raw = mr::encode_raw(fields_, row);
  uint64_t blob_need = 8 + blob.size(), raw_need = 8 + raw.size();
  auto r = static_cast<int64_t>(sh.rows.size());
  MC_ASSERT(blob_need <= page_size_ && raw_need <= page_size_, "a row outgrew its bound");
  auto page_at = [&](const mr::Page& p) {
    return header_size_ + static_cast<uint64_t>(p.id) * page_size_;
  };
  bool raw_full = sh.raw < 0 || sh.pages[static_cast<size_t>(sh.raw)].size + raw_need > page_size_;
  bool blob_full =
      sh.blob < 0 || sh.pages[static_cast<size_t>(sh.blob)].size + blob_need > page_size_;
  if (raw_full || blob_full) {
    sh.flush();
    int64_t groups = sh.blob < 0 ? 0 : sh.pages[static_cast<size_t>(sh.blob)].type_id + 1;
    mr::Page bp;
    bp.id = static_cast<int64_t>(sh.pages.size());
    bp.shard_id = shard_id;
    bp.blob = true;
    bp.type_id = groups;
    bp.start_row = bp.end_row = r;
    sh.pages.push_back(bp);
    sh.blob = static_cast<int>(sh.pages.size() - 1);
    sh.blob_buf_at = page_at(bp);
    if (raw_full) {
      mr::Page rp;
      rp.id = static_cast<int64_t>(sh.pages.size());
      rp.shard_id = shard_id;
      rp.type_id = sh.raw < 0 ? 0 : sh.pages[static_cast<size_t>(sh.raw)].type_id + 1;
      sh.pages.push_back(rp);
      sh.raw = static_cast<int>(sh.pages.size() - 1);
      sh.raw_buf_at = page_at(rp);
    }
    mr::Page& rp = sh.pages[static_cast<size_t>(sh.raw)];
    rp.row_groups.emplace_back(groups, rp.size);
  }
  mr::Page& bp = sh.pages[static_cast<size_t>(sh.blob)];
  mr::Page& rp = sh.pages[static_cast<size_t>(sh.raw)];
  mr::IndexRow x;
  x.row_id = r;
  x.group_id = bp.type_id;
  x.blob_page = bp.id;
  x.blob_off = bp.size;
  x.blob_end = bp.size + blob_need;
  x.raw_page = rp.id;
  x.raw_off = rp.size;
  x.raw_end = rp.size + raw_need;
  mr::append_u64(&sh.blob_buf, blob.size());
  sh.blob_buf += blob;
  mr::append_u64(&sh.raw_buf, raw.size());
  sh.raw_buf += raw;
  bp.size += blob_need;
  bp.end_row = r + 1;
  rp.size += raw_need;
  sh.rows.push_back(x);
  sh.sums.raw_crc.push_back(crc_of(raw.data(), raw.size()));
  sh.sums.blob_crc.push_back(crc_of(blob.data(), blob.size()));
  std::vector<mr::IndexValue> values;
  for (const std::string& name : index_fields_) {
    size_t k =
        static_cast<size_t>(std::find_if(fields_.begin(), fields_.end(),
                                         [&](const FieldSpec& f) { return f.name == name; }) -
                            fields_.begin());
    mr::IndexValue iv = mr::scalar_value(fields_[k], row[k]);
    values.push_back(std::move(iv));
  }
  sh.values.push_back(std::move(values));
  if (sh.blob_buf.size() + sh.raw_buf.size() >= (1u << 22)) sh.flush();
}

void MindRecordWriter::write(const std::vector<Row>& rows, int64_t shard) {
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
    // Bounds of the row's two parts (encode_blob, encode_raw): a row must fit in a page.
    uint64_t blob = 16, raw = 32;
    for (size_t k = 0; k < fields_.size(); ++k) {
      checked[r].push_back(check_field_value(fields_[k], rows[r][k], "FileWriter", where));
      const FieldSpec& f = fields_[k];
      const Array& v = checked[r].back();
      if (f.type == FieldType::Bytes || f.has_shape) {
        blob += 8 + v.nbytes() + (f.has_shape ? 4 + static_cast<uint64_t>(v.numel()) : 0);
      } else {
        raw += 16 + f.name.size() + (f.type == FieldType::String ? v.str()[0].size() : 0);
      }
    }
    MC_CHECK(blob <= page_size_ && raw <= page_size_, Value, "FileWriter: row ", r, " takes up to ",
             std::max(blob, raw), " bytes, more than a page holds (page_size ", page_size_,
             "); raise it with set_page_size.");
  }
  MC_CHECK(shard < static_cast<int64_t>(paths_.size()), Value, "FileWriter: shard ", shard, " of ",
           paths_.size(), " shards.");
  if (state_ == State::New) open_shards();
  try {
    if (shard >= 0) {
      auto& sh = *shards_[static_cast<size_t>(shard)];
      for (const Row& row : checked) append(sh, shard, row);
      sh.flush();
      return;
    }
    // Shard k takes the k-th contiguous run (MindSpore's split; the first runs are longer).
    size_t n = shards_.size(), each = checked.size() / n, extra = checked.size() % n, at = 0;
    for (size_t k = 0; k < n; ++k) {
      size_t take = each + (k < extra ? 1 : 0);
      for (size_t r = at; r < at + take; ++r)
        append(*shards_[k], static_cast<int64_t>(k), checked[r]);
      at += take;
      shards_[k]->flush();
    }
  } catch (...) {
    discard();
    throw;
  }
}

// Writes shard k's header and index, and syncs both files.
void MindRecordWriter::seal(Shard& sh, size_t k) {
  sh.flush();
  mr::Header h;
  h.header_size = header_size_;
  h.page_size = page_size_;
  h.compression_size = compression_size_;
  h.fields = fields_;
  h.desc = desc_;
  h.index_fields = index_fields_;
  h.pages = sh.pages;
  for (const std::string& p : paths_) h.shard_addresses.push_back(base_name(p));
  h.shard_id = static_cast<int64_t>(k);
  std::string head;
  std::string json = mr::header_json(h);
  mr::append_u64(&head, json.size());
  head += json;
  MC_CHECK(head.size() <= header_size_, Value, "FileWriter: the header of ", sh.path, " takes ",
           head.size(), " bytes, more than header_size ", header_size_,
           "; raise it with set_header_size (or the page size, for fewer pages).");
  pwrite_full(sh.fd, head.data(), head.size(), 0, sh.tmp);
  if (sh.pages.empty()) {  // no rows: the file is the header's room
    MC_CHECK(::ftruncate(sh.fd, static_cast<off_t>(header_size_)) == 0, Runtime,
             "FileWriter: cannot write ", sh.tmp, ": ", errno_text(), ".");
  }
  MC_CHECK(::fsync(sh.fd) == 0, Runtime, "FileWriter: cannot sync ", sh.tmp, ": ", errno_text(),
           ".");
  MC_CHECK(::close(sh.fd) == 0, Runtime, "FileWriter: cannot close ", sh.tmp, ": ", errno_text(),
           ".");
  sh.fd = -1;
  std::vector<FieldSpec> index;
  for (const std::string& name : index_fields_)
    index.push_back(*std::find_if(fields_.begin(), fields_.end(),
                                  [&](const FieldSpec& f) { return f.name == name; }));
  sh.sums.dataset_id = dataset_id_;
  sh.sums.header_crc = crc_of(head.data(), head.size());
  mr::write_index(sh.db_tmp, base_name(sh.path), index, sh.rows, sh.values, sh.sums);
  sync_file(sh.db_tmp);
  if (!enc_key_.empty()) {
    mr::encrypt_file(sh.tmp, enc_key_, enc_mode_);
    mr::encrypt_file(sh.db_tmp, enc_key_, enc_mode_);
  }
}

void MindRecordWriter::set_encryption(std::string key, std::string mode) {
  MC_CHECK(state_ != State::Committed, Runtime, "FileWriter: set_encryption after commit.");
  MC_CHECK(paths_.size() == 1, Runtime,
           "FileWriter: When encode mode is enabled, the automatic sharding function is "
           "unavailable (shard_num is ",
           paths_.size(), "; write one file per FileWriter).");
  mr::check_crypto_key(key, mode, "FileWriter");
  enc_key_ = std::move(key);
  enc_mode_ = std::move(mode);
}

void MindRecordWriter::commit() {
  MC_CHECK(state_ != State::Committed, Runtime, "FileWriter: commit was already called.");
  MC_CHECK(state_ != State::Failed, Runtime,
           "FileWriter: an earlier write or commit failed; start a new FileWriter.");
  if (state_ == State::New) open_shards();
  try {
    for (size_t k = 0; k < shards_.size(); ++k) {
      seal(*shards_[k], k);
      if (hook_) hook_(str("sealed ", k));
    }
    if (!overwrite_) check_absent();
    for (size_t k = 0; k < shards_.size(); ++k) {
      Shard& sh = *shards_[k];
      std::string db = sh.path + ".db";
      MC_CHECK(::rename(sh.db_tmp.c_str(), db.c_str()) == 0, Runtime, "FileWriter: cannot rename ",
               sh.db_tmp, " to ", db, ": ", errno_text(), ".");
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

// One shard file: its header, its index (where each record lies, as absolute offsets) and,
// for files mycel wrote, their checksums and set id.
struct MindRecordReader::File {
  struct Loc {
    uint64_t raw = 0, raw_len = 0, blob = 0, blob_len = 0;  // absolute offset, bytes
  };
  std::string who;
  std::string path;
  bool whole_set = false;  // opened to read its whole set (one file name given): for messages
  int fd = -1;
  dev_t dev = 0;
  ino_t ino = 0;
  mr::Header header;
  std::vector<Loc> locs;
  mr::Checksums sums;

  ~File() {
    if (fd >= 0) ::close(fd);
  }
  int64_t rows() const { return static_cast<int64_t>(locs.size()); }

  [[noreturn]] void corrupt(const std::string& why) const {
    MC_THROW(Runtime, who, ": ", path, " is truncated or corrupt (", why, ").");
  }

  void open(const std::string& p) {
    path = p;
    fd = open_regular_file(p, who);  // a FIFO or a directory is a ValueError, not a hang
    MC_CHECK(!mr::file_is_encrypted(p), Runtime, who,
             ": The mindrecord file is encrypted. You need to configure "
             "'mycel.mindrecord.set_enc_key(...)' and 'mycel.mindrecord.set_enc_mode(...)' for "
             "decryption (",
             p, ").");
    struct stat st;
    MC_CHECK(::fstat(fd, &st) == 0, Runtime, who, ": cannot stat ", p, ": ", errno_text(), ".");
    dev = st.st_dev;
    ino = st.st_ino;
    auto size = static_cast<uint64_t>(st.st_size);
    // Every MindRecord file holds at least its header's room (the words are MindSpore's).
    if (size < 8)
      corrupt(str("Invalid file, the size of mindrecord file: ", size,
                  " is smaller than the lower limit: 8"));
    char len8[8];
    if (pread_full(fd, len8, 8, 0, path, who) != 8)
      corrupt(str("the file has ", size, " bytes, too few for a header"));
    uint64_t json_len = mr::load_u64(len8);
    if (json_len > mr::kMaxHeaderSize - 8 || json_len > size - 8)
      corrupt(str("the header length ", json_len, " does not fit the file of ", size,
                  " bytes: Invalid file, the size of mindrecord file header is larger than the "
                  "upper limit."));
    std::string head(8 + json_len, '\0');
    if (pread_full(fd, head.data(), head.size(), 0, path, who) != head.size())
      corrupt("the file shrank while being read");
    // The index first: in files mycel wrote it holds the header's checksum, so that a damaged
    // header is called so, not misread.
    std::vector<mr::IndexRow> rows = index_rows(head);
    try {
      header = mr::parse_header(std::string_view(head).substr(8), who);
    } catch (const std::runtime_error& e) {
      corrupt(e.what());
    } catch (const Error& e) {
      MC_THROW(Value, who, ": ", path, " ", e.message());
    }
    if (8 + json_len > header.header_size) corrupt("the header overruns its header_size");
    // A temporary file of an interrupted commit, or a renamed shard, must not read.
    const std::string& written = header.shard_addresses[static_cast<size_t>(header.shard_id)];
    MC_CHECK(base_name(path) == written, Runtime, who, ": ", path,
             " is not a committed MindRecord file: it was written for the name '", written,
             "' (a temporary file of an unfinished commit, or a renamed file; MindRecord "
             "files must keep their names). ",
             whole_set ? str(written,
                             " can not be found. Please check whether the mindrecord file "
                             "exists and do not rename the mindrecord file.")
                       : str("The file name and the name in its header can not match. Please "
                             "do not rename the mindrecord file or meta file."));
    for (const mr::Page& pg : header.pages) {
      uint64_t room = (size - header.header_size) / header.page_size;  // whole pages before size
      if (size < header.header_size || static_cast<uint64_t>(pg.id) > room ||
          header.header_size + static_cast<uint64_t>(pg.id) * header.page_size + pg.size > size)
        corrupt(str("page ", pg.id, " lies past the end of the file (", size, " bytes)"));
    }
    locate(rows);
  }

  // The rows of the shard's index `<path>.db`, and its checksums (checking the header's).
  std::vector<mr::IndexRow> index_rows(const std::string& head) {
    std::string db = path + ".db";
    std::error_code ec;
    MC_CHECK(fs::exists(db, ec), Runtime, who, ": the index ", db, " of ", path,
             " is missing (MindRecord files come with their .db index): ", db,
             " is not exists. Please check whether the ", db,
             " exists and do not rename the mindrecord file and meta file.");
    std::vector<mr::IndexRow> rows;
    try {
      mr::read_index(db, who, &rows, &sums);
    } catch (const std::runtime_error& e) {
      MC_THROW(Runtime, who, ": ", db, " is truncated or corrupt (", e.what(), ").");
    }
    if (sums.present && crc_of(head.data(), head.size()) != sums.header_crc)
      corrupt("the header fails its checksum");
    return rows;
  }

  // Checks the index rows against the page table and turns them into absolute offsets.
  void locate(const std::vector<mr::IndexRow>& rows) {
    int64_t in_blob_pages = 0;
    for (const mr::Page& pg : header.pages)
      in_blob_pages += pg.blob ? pg.end_row - pg.start_row : 0;
    if (in_blob_pages != static_cast<int64_t>(rows.size()))
      corrupt(str("the index has ", rows.size(), " rows, the blob pages ", in_blob_pages));
    auto page = [&](int64_t id, bool blob, int64_t r) -> const mr::Page& {
      if (id < 0 || id >= static_cast<int64_t>(header.pages.size()) ||
          header.pages[static_cast<size_t>(id)].blob != blob)
        corrupt(str("row ", r, " of the index names page ", id, ", not a ", blob ? "blob" : "raw",
                    " page"));
      return header.pages[static_cast<size_t>(id)];
    };
    for (const mr::IndexRow& x : rows) {
      const mr::Page& rp = page(x.raw_page, false, x.row_id);
      const mr::Page& bp = page(x.blob_page, true, x.row_id);
      if (x.raw_off > x.raw_end || x.raw_end > rp.size || x.raw_end - x.raw_off < 8 ||
          x.blob_off > x.blob_end || x.blob_end > bp.size || x.blob_end - x.blob_off < 8 ||
          x.row_id < bp.start_row || x.row_id >= bp.end_row)
        corrupt(str("row ", x.row_id, " of the index lies outside its pages"));
      auto at = [&](const mr::Page& pg) {
        return header.header_size + static_cast<uint64_t>(pg.id) * header.page_size;
      };
      locs.push_back(Loc{at(rp) + x.raw_off, x.raw_end - x.raw_off, at(bp) + x.blob_off,
                         x.blob_end - x.blob_off});
    }
  }

  // A record part: its u64 length, then that many bytes, which the index's span must hold
  // exactly; CRC-checked when the file has checksums.
  std::string part(uint64_t at, uint64_t len, int64_t r, const char* what, uint32_t crc) const {
    std::string buf(static_cast<size_t>(len), '\0');
    if (pread_full(fd, buf.data(), buf.size(), at, path, who) != buf.size())
      corrupt(str("record ", r, " is cut short"));
    if (mr::load_u64(buf.data()) != len - 8)
      corrupt(str("record ", r, "'s ", what, " length disagrees with the index"));
    buf.erase(0, 8);
    if (sums.present && crc_of(buf.data(), buf.size()) != crc)
      corrupt(str("record ", r, "'s ", what, " fails its checksum"));
    return buf;
  }

  void record(int64_t r, const std::vector<bool>& wanted, Row* values) const {
    const Loc& l = locs[static_cast<size_t>(r)];
    auto k = static_cast<size_t>(r);
    std::string raw = part(l.raw, l.raw_len, r, "raw part", sums.present ? sums.raw_crc[k] : 0);
    std::string blob = part(l.blob, l.blob_len, r, "blob", sums.present ? sums.blob_crc[k] : 0);
    try {
      mr::decode_raw(header.fields, raw, wanted, values);
      mr::decode_blob(header.fields, blob, wanted, values);
    } catch (const std::runtime_error& e) {
      corrupt(str("record ", r, ": ", e.what()));
    } catch (const Error& e) {
      MC_THROW(Value, who, ": ", path, ", record ", r, ", ", e.message(), ".");
    }
  }
};

MindRecordReader::~MindRecordReader() = default;

MindRecordReader::MindRecordReader(const std::vector<std::string>& files, bool load_set,
                                   std::string who)
    : who_(std::move(who)) {
  MC_CHECK(!files.empty(), Value, who_, ": dataset_files is empty.");
  MC_ASSERT(!load_set || files.size() == 1, "load_set with several files");
  struct Set {
    std::vector<File*> shards;
    std::vector<bool> listed;
  };
  std::vector<Set> sets;
  auto open_file = [&](const std::string& path) -> File* {
    auto f = std::make_unique<File>();
    f->who = who_;
    f->whole_set = load_set;
    f->open(path);
    files_.push_back(std::move(f));
    return files_.back().get();
  };
  for (const std::string& path : files) {
    std::error_code ec;
    MC_CHECK(fs::exists(path, ec), Value, who_, ": dataset file ", path,
             " does not exist or permission denied.");
    File* f = open_file(path);
    auto shard = static_cast<size_t>(f->header.shard_id);
    auto known = std::find_if(sets.begin(), sets.end(), [&](const Set& s) {
      const File* s0 = s.shards[0];
      return fs::equivalent(parent_dir(s0->path), parent_dir(path), ec) &&
             s0->header.shard_addresses == f->header.shard_addresses;
    });
    if (known != sets.end()) {
      // Another shard of a set already open: it must be the very file opened as that shard.
      File* same = known->shards[shard];
      MC_CHECK(same->dev == f->dev && same->ino == f->ino, Value, who_, ": ", path, " is shard ",
               shard, " of the set of ", known->shards[0]->path, ", but that shard is ", same->path,
               ".");
      MC_CHECK(!known->listed[shard], Value, who_, ": ", path,
               " is listed twice in dataset_files.");
      known->listed[shard] = true;
      files_.pop_back();
      continue;
    }
    // A new set: open its other shards, found by the names in the header, next to this file.
    if (fields_.empty()) fields_ = f->header.fields;
    MC_CHECK(same_fields(f->header.fields, fields_), Runtime, who_, ": ", path, " has the schema ",
             fields_str(f->header.fields), ", but ", files_[0]->path, " has ", fields_str(fields_),
             "; all files must share one schema.");
    const auto& names = f->header.shard_addresses;
    Set set;
    set.shards.resize(names.size());
    set.listed.assign(names.size(), load_set);
    set.listed[shard] = true;
    set.shards[shard] = f;
    for (size_t k = 0; k < names.size(); ++k) {
      if (k == shard) continue;
      std::string sib = parent_dir(path) + "/" + names[k];
      MC_CHECK(fs::exists(sib, ec), Runtime, who_, ": shard ", k, " of the set of ", path, " (",
               sib,
               ") is missing: the set is incomplete (an unfinished or crashed "
               "FileWriter.commit?). ",
               sib,
               " can not be found. Please check whether the mindrecord file exists and do not "
               "rename the mindrecord file.");
      File* s = open_file(sib);
      MC_CHECK(s->header.shard_id == static_cast<int64_t>(k) &&
                   s->header.shard_addresses == names && s->sums.present == f->sums.present &&
                   s->sums.dataset_id == f->sums.dataset_id,
               Runtime, who_, ": ", sib, " is not shard ", k, " of the set of ", path,
               " (its header or set id differs): the set is mixed (an unfinished or crashed "
               "FileWriter.commit?).");
      MC_CHECK(same_fields(s->header.fields, f->header.fields), Runtime, who_, ": ", sib, " and ",
               path, " are shards of one set but have different schemas.");
      set.shards[k] = s;
    }
    sets.push_back(std::move(set));
  }
  int64_t start = 0;
  for (const Set& set : sets) {
    for (size_t k = 0; k < set.shards.size(); ++k) {
      if (!set.listed[k]) continue;
      parts_.push_back(set.shards[k]);
      starts_.push_back(start);
      start += set.shards[k]->rows();
    }
  }
  starts_.push_back(start);
  total_ = start;
}

std::vector<std::string> MindRecordReader::index_fields() const {
  return files_.empty() ? std::vector<std::string>{} : files_[0]->header.index_fields;
}

MindRecordReader::SetInfo MindRecordReader::set_info() const {
  SetInfo info;
  if (files_.empty()) return info;
  const File& f = *files_[0];
  info.header_size = static_cast<int64_t>(f.header.header_size);
  info.page_size = static_cast<int64_t>(f.header.page_size);
  info.desc = f.header.desc;
  info.index_fields = f.header.index_fields;
  for (const std::string& name : f.header.shard_addresses)
    info.shard_paths.push_back(parent_dir(f.path) + "/" + name);
  return info;
}

std::vector<int32_t> MindRecordReader::file_of_rows() const {
  std::vector<int32_t> v;
  v.reserve(static_cast<size_t>(total_));
  for (const File* part : parts_) {
    auto it = std::find_if(files_.begin(), files_.end(),
                           [&](const std::unique_ptr<File>& f) { return f.get() == part; });
    v.resize(v.size() + static_cast<size_t>(part->rows()),
             static_cast<int32_t>(it - files_.begin()));
  }
  return v;
}

Row MindRecordReader::read(int64_t i, const std::vector<int>& cols) const {
  MC_ASSERT(i >= 0 && i < total_, "MindRecordReader::read(", i, ") of ", total_);
  size_t p = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), i) -
                                 starts_.begin() - 1);
  std::vector<bool> wanted(fields_.size(), false);
  for (int c : cols) wanted[static_cast<size_t>(c)] = true;
  Row values(fields_.size());
  parts_[p]->record(i - starts_[p], wanted, &values);
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

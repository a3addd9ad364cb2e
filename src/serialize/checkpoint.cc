#include "serialize/checkpoint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "base/error.h"
#include "base/utf8.h"
#include "src/serialize/checkpoint.pb.h"  // generated in the build tree

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace mycel::serialize {

namespace {

static_assert(std::endian::native == std::endian::little,
              "checkpoint contents are little-endian; a big-endian host would need byte swaps");

constexpr std::string_view kMagic = "MYCELCKP";
constexpr uint32_t kVersion = 1;
constexpr uint64_t kFooterField = 1000;  // magic, version, entry count, CRC-32
constexpr uint64_t kHeaderField = 1001;  // magic, version; the first field of a mycel file
constexpr size_t kHeaderSize = 12;
constexpr size_t kFooterSize = 24;

template <class... Args>
[[noreturn]] void corrupt(const Args&... args) {
  MC_THROW(Value, args...);
}

template <class T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Python's repr of a str (names in messages look as they did when the reader was Python).
std::string py_repr(std::string_view s) {
  bool dq = s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos;
  char q = dq ? '"' : '\'';
  std::string out(1, q);
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '\\' || c == static_cast<unsigned char>(q)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += str("\\x", "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + q;
}

// Python's repr of bytes (b'MYCELCKP').
std::string py_bytes_repr(std::string_view s) {
  std::string out = "b" + py_repr(s);
  for (unsigned char c : s)
    if (c >= 0x80) {  // non-ASCII bytes are escaped too
      out = "b'";
      for (unsigned char d : s) {
        if (d == '\\' || d == '\'')
          out += str('\\', static_cast<char>(d));
        else if (d >= 0x20 && d < 0x7f)
          out += static_cast<char>(d);
        else
          out += str("\\x", "0123456789abcdef"[d >> 4], "0123456789abcdef"[d & 15]);
      }
      return out + "'";
    }
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | cp >> 6);
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | cp >> 12);
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | cp >> 18);
    out += static_cast<char>(0x80 | (cp >> 12 & 0x3F));
    out += static_cast<char>(0x80 | (cp >> 6 & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// One field of a message: a varint's value, or the byte range [begin, end) of the others.
struct Field {
  uint64_t number = 0;
  int wire = 0;
  uint64_t value = 0;
  size_t begin = 0, end = 0;
  size_t start = 0;  // the offset of its key
};

// A cursor over the message in buf[pos, end); `what` names it in messages.
class Wire {
 public:
  Wire(std::string_view buf, size_t pos, size_t end, std::string what)
      : buf_(buf), pos_(pos), end_(end), what_(std::move(what)) {}

  const std::string& what() const { return what_; }
  bool done() const { return pos_ >= end_; }

  uint64_t varint() {
    uint64_t result = 0;
    for (int shift = 0;; shift += 7) {
      if (pos_ >= end_) corrupt("truncated varint in ", what_, " at byte ", pos_);
      auto b = static_cast<uint8_t>(buf_[pos_++]);
      // The 10th byte holds bit 63 only; more would not fit in 64 bits.
      if (shift == 63 && (b & 0x7E))
        corrupt("varint longer than 64 bits in ", what_, " at byte ", pos_);
      result |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (b < 0x80) return result;
      if (shift + 7 >= 64) corrupt("varint longer than 10 bytes in ", what_, " at byte ", pos_);
    }
  }

  Field next() {
    Field f;
    f.start = pos_;
    uint64_t key = varint();
    f.number = key >> 3;
    f.wire = static_cast<int>(key & 7);
    if (f.number == 0) corrupt("field number 0 in ", what_, " at byte ", f.start);
    if (f.wire == 0) {
      f.value = varint();
      return f;
    }
    if (f.wire != 1 && f.wire != 2 && f.wire != 5)
      corrupt("unsupported wire type ", f.wire, " in ", what_, " at byte ", f.start);
    uint64_t size = f.wire == 2 ? varint() : f.wire == 1 ? 8 : 4;
    if (size > end_ - pos_)
      corrupt("truncated: field ", f.number, " of ", what_, " at byte ", f.start, " needs ", size,
              " bytes but ", end_ - pos_, " remain");
    f.begin = pos_;
    f.end = pos_ + size;
    pos_ = f.end;
    return f;
  }

 private:
  std::string_view buf_;
  size_t pos_, end_;
  std::string what_;
};

void expect_bytes(const Field& f, const std::string& what) {
  if (f.wire != 2)
    corrupt("field ", f.number, " of ", what, " at byte ", f.start, " has wire type ", f.wire,
            ", not 2 (length-delimited)");
}

void set_once(std::optional<Field>& slot, const Field& f, const char* key,
              const std::string& what) {
  if (slot) corrupt(what, " has field '", key, "' twice (byte ", f.start, ")");
  slot = f;
}

std::string_view span(std::string_view buf, const Field& f) {
  return buf.substr(f.begin, f.end - f.begin);
}

std::string text(std::string_view buf, const Field& f, const std::string& what) {
  std::string_view s = span(buf, f);
  if (!valid_utf8(s)) corrupt(what, " is not valid UTF-8");
  return std::string(s);
}

// A parsed Checkpoint.value: its content is a span of the file's bytes.
struct RawEntry {
  std::string tag;
  std::vector<uint64_t> dims;
  std::string kind;
  std::string_view content;
};

void parse_tensor(std::string_view buf, const Field& where, const std::string& what, RawEntry& e) {
  Wire w(buf, where.begin, where.end, what);
  std::optional<Field> type, content;
  while (!w.done()) {
    Field f = w.next();
    if (f.number == 1) {
      if (f.wire == 0) {
        e.dims.push_back(f.value);
      } else if (f.wire == 2) {  // packed
        Wire packed(buf, f.begin, f.end, what + " dims");
        while (!packed.done()) e.dims.push_back(packed.varint());
      } else {
        corrupt("dims of ", what, " at byte ", f.start, " have wire type ", f.wire);
      }
    } else if (f.number == 2 || f.number == 3) {
      expect_bytes(f, what);
      set_once(f.number == 2 ? type : content, f, f.number == 2 ? "tensor_type" : "tensor_content",
               what);
    }
  }
  if (!type) corrupt(what, " has no tensor_type");
  if (!content) corrupt(what, " has no tensor_content");
  for (uint64_t d : e.dims)
    if (d >> 63) corrupt(what, " has a negative dim");
  e.kind = text(buf, *type, "the tensor_type of " + what);
  e.content = span(buf, *content);
}

RawEntry parse_value(std::string_view buf, const Field& where, size_t index) {
  std::string what = str("entry ", index);
  Wire w(buf, where.begin, where.end, what);
  std::optional<Field> tag, tensor;
  while (!w.done()) {
    Field f = w.next();
    if (f.number == 1 || f.number == 2) {
      expect_bytes(f, what);
      set_once(f.number == 1 ? tag : tensor, f, f.number == 1 ? "tag" : "tensor", what);
    }
  }
  if (!tag) corrupt(what, " has no tag (name)");
  RawEntry e;
  e.tag = text(buf, *tag, "the tag of " + what);
  if (!tensor) corrupt(what, " (", py_repr(e.tag), ") has no tensor");
  parse_tensor(buf, *tensor, str("entry ", index, " (", py_repr(e.tag), ")"), e);
  return e;
}

void check_magic_version(std::string_view buf, size_t at, const char* what) {
  std::string_view magic = buf.substr(at, kMagic.size());
  if (magic != kMagic) corrupt("bad ", what, " magic ", py_bytes_repr(magic));
  auto version = load_le<uint32_t>(buf.data() + at + kMagic.size());
  if (version != kVersion)
    corrupt("format version ", version, " in the ", what, "; this mycel reads version ", kVersion);
}

uint32_t crc32_of(std::string_view s) {
  return static_cast<uint32_t>(
      crc32_z(0, reinterpret_cast<const Bytef*>(s.data()), static_cast<z_size_t>(s.size())));
}

std::string crc_hex(uint32_t v) {  // Python's f"{v:#010x}"
  std::ostringstream os;
  os << "0x" << std::hex;
  os.width(8);
  os.fill('0');
  os << v;
  return os.str();
}

void check_footer(std::string_view buf, const Field& f, size_t count) {
  if (f.end - f.begin != kFooterSize) corrupt("malformed footer at byte ", f.start);
  check_magic_version(buf, f.begin, "footer");
  auto want = load_le<uint64_t>(buf.data() + f.begin + 12);
  if (want != count) corrupt("the footer counts ", want, " entries but the file has ", count);
  auto stored = load_le<uint32_t>(buf.data() + f.begin + 20);
  uint32_t actual = crc32_of(buf.substr(0, f.start));
  if (stored != actual)
    corrupt("CRC32 mismatch (footer ", crc_hex(stored), ", data ", crc_hex(actual),
            "): the file is corrupted");
}

// Every entry of the file, after the header and footer checks when the file has them.
std::vector<RawEntry> parse_entries(std::string_view buf) {
  if (buf.empty()) corrupt("the file is empty");
  std::vector<RawEntry> values;
  bool header = false, footer = false;
  Wire w(buf, 0, buf.size(), "the checkpoint");
  while (!w.done()) {
    Field f = w.next();
    if (footer) corrupt("data follows the footer (byte ", f.start, ")");
    if (f.number == 1) {
      expect_bytes(f, w.what());
      values.push_back(parse_value(buf, f, values.size()));
    } else if (f.number == kHeaderField) {
      expect_bytes(f, w.what());
      if (f.start != 0 || f.end - f.begin != kHeaderSize)
        corrupt("malformed header at byte ", f.start);
      check_magic_version(buf, f.begin, "header");
      header = true;
    } else if (f.number == kFooterField) {
      expect_bytes(f, w.what());
      check_footer(buf, f, values.size());
      footer = true;
    }
    // Other fields are unknown to this reader and skipped, as protobuf does.
  }
  if (header && !footer) corrupt("the footer is missing: the file is truncated");
  if (footer && !header) corrupt("it has a footer but no header");
  return values;
}

std::string dims_str(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += str(i ? ", " : "", dims[i]);
  return s + "]";
}

// Decodes a "str" entry: UTF-32-LE code units, trailing NULs dropped (as numpy does).
std::string decode_utf32(const std::string& tag, const std::vector<std::string_view>& chunks,
                         size_t total) {
  if (total % 4)
    corrupt("string entry ", py_repr(tag), " has ", total, " bytes, not a multiple of 4 (UTF-32)");
  std::string joined;
  for (std::string_view c : chunks) joined += c;
  std::vector<uint32_t> cps(total / 4);
  for (size_t i = 0; i < cps.size(); ++i) {
    cps[i] = load_le<uint32_t>(joined.data() + 4 * i);
    if (cps[i] > 0x10FFFF || (cps[i] >= 0xD800 && cps[i] <= 0xDFFF))
      corrupt("string entry ", py_repr(tag), " is not valid UTF-32");
  }
  while (!cps.empty() && cps.back() == 0) cps.pop_back();
  std::string out;
  for (uint32_t cp : cps) append_utf8(out, cp);
  return out;
}

// One tensor from its chunks, whose total size is checked against dims first.
Tensor decode_tensor(const std::string& tag, const std::string& kind, DType dt,
                     const std::vector<uint64_t>& dims, const std::vector<std::string_view>& chunks,
                     size_t total) {
  size_t item = dtype_size(dt);
  Shape shape;
  for (uint64_t d : dims) shape.push_back(static_cast<int64_t>(d));
  if (dims.size() == 1 && dims[0] == 0 && total == item) shape.clear();  // MindSpore < 2.3's 0-d
  // The product of the non-zero dims and the item size must fit in int64 (each dim is below
  // 2^63, checked by parse_tensor): hostile dims fail here, before anything is allocated.
  uint64_t need = item;
  for (int64_t d : shape) {
    if (d == 0) continue;
    if (need >
        static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / static_cast<uint64_t>(d))
      corrupt("entry ", py_repr(tag), " has dims ", dims_str(dims), " of ", kind,
              ", whose size does not fit in 64 bits");
    need *= static_cast<uint64_t>(d);
  }
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) need = 0;
  if (need != total)
    corrupt("entry ", py_repr(tag), " has ", total, " bytes of content, but dims ", dims_str(dims),
            " of ", kind, " need ", need);
  Tensor out = Tensor::empty(shape, dt);
  auto* dst = static_cast<char*>(out.raw_data());
  for (std::string_view c : chunks) {
    if (!c.empty()) std::memcpy(dst, c.data(), c.size());
    dst += c.size();
  }
  if (dt == DType::Bool) {  // any non-zero byte reads as True
    auto* b = static_cast<uint8_t*>(out.raw_data());
    for (size_t i = 0; i < total; ++i) b[i] = b[i] != 0;
  }
  return out;
}

bool is_foreign_type(std::string_view kind) {  // MindSpore's, without a mycel dtype
  return kind == "random_op";
}

}  // namespace

std::vector<CheckpointEntry> parse_checkpoint(std::string_view bytes) {
  std::vector<RawEntry> raw = parse_entries(bytes);
  // Consecutive entries with one tag, type and dims are the chunks of one tensor (MindSpore
  // splits big tensors so); any other repeated tag is an error.
  struct Group {
    RawEntry* first;
    std::vector<std::string_view> chunks;
    size_t total = 0;
  };
  std::vector<Group> groups;
  std::unordered_map<std::string_view, size_t> index;
  for (RawEntry& e : raw) {
    if (!groups.empty() && groups.back().first->tag == e.tag &&
        groups.back().first->kind == e.kind && groups.back().first->dims == e.dims) {
      groups.back().chunks.push_back(e.content);
      groups.back().total += e.content.size();
      continue;
    }
    if (index.count(e.tag)) corrupt("the name ", py_repr(e.tag), " occurs twice");
    DType dt;
    if (e.kind != "str" && !(dtype_from_name(e.kind, &dt) && dtype_name(dt) == e.kind))
      corrupt("entry ", py_repr(e.tag), " has tensor_type ", py_repr(e.kind), ", ",
              is_foreign_type(e.kind) ? "which mycel does not support" : "which is unknown");
    index.emplace(e.tag, groups.size());
    groups.push_back({&e, {e.content}, e.content.size()});
  }
  std::vector<CheckpointEntry> out;
  out.reserve(groups.size());
  for (const Group& g : groups) {
    CheckpointEntry c;
    c.name = g.first->tag;
    if (g.first->kind == "str") {
      c.is_str = true;
      c.text = decode_utf32(c.name, g.chunks, g.total);
    } else {
      DType dt;
      dtype_from_name(g.first->kind, &dt);
      c.tensor = decode_tensor(c.name, g.first->kind, dt, g.first->dims, g.chunks, g.total);
    }
    out.push_back(std::move(c));
  }
  return out;
}

namespace {

// The bytes of a regular file; a FIFO, socket or device is refused without blocking (the
// open is non-blocking and the type is checked before any read).
std::string read_regular_file(const std::string& path, std::string_view func) {
  std::string prefix = str("For '", func, "', the checkpoint file ", path);
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT || err == ENOTDIR) corrupt(prefix, " does not exist.");
    if (err == EISDIR) corrupt(prefix, " is a directory.");
    corrupt(prefix, " cannot be opened: ", std::strerror(err), ".");
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0) corrupt(prefix, " cannot be read: ", std::strerror(errno), ".");
  if (S_ISDIR(st.st_mode)) corrupt(prefix, " is a directory.");
  if (!S_ISREG(st.st_mode))
    corrupt(prefix, " is not a regular file (a FIFO, socket or device cannot be a checkpoint).");
  std::string buf(static_cast<size_t>(st.st_size), '\0');
  size_t have = 0;
  char probe[4096];
  for (;;) {  // up to the size fstat gave, then until the end (the file may have grown)
    bool full = have == buf.size();
    char* dst = full ? probe : buf.data() + have;
    ssize_t n = ::read(fd, dst, full ? sizeof probe : buf.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) corrupt(prefix, " cannot be read: ", std::strerror(errno), ".");
    if (n == 0) break;
    if (full) buf.append(probe, static_cast<size_t>(n));
    have += static_cast<size_t>(n);
  }
  buf.resize(have);
  return buf;
}

}  // namespace

std::vector<CheckpointEntry> load_checkpoint_file(const std::string& path, std::string_view func) {
  std::string bytes = read_regular_file(path, func);
  try {
    return parse_checkpoint(bytes);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::Value) throw;
    corrupt("For '", func, "', the checkpoint file ", path, " is not valid: ", e.message(), ".");
  }
}

// ---- The writer: protobuf's generated classes of checkpoint.proto --------------------------
// A file is the concatenation of serialised Checkpoint messages of one field each (concatenated
// messages parse as their merge): the header, one per value, the footer. protobuf serialises
// fields in field-number order, so one message holding all would put the header (field 1001)
// last; pieces also let Python stream a file and CRC it as it goes. A value's tensor_content
// is the last field of the last field of its message, so its serialisation is a frame, then
// the content's bytes: the frame is made here and the content written after it without a copy.

namespace {

std::string le_bytes(uint64_t v, size_t n) {
  std::string out(n, '\0');
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}

std::string serialized(const google::protobuf::MessageLite& m) {
  std::string out;
  MC_CHECK(m.SerializePartialToString(&out), Value,
           "save_checkpoint: a checkpoint entry cannot be serialised (over 2 GiB?).");
  return out;
}

// The key of length-delimited field `field` and the length, as protobuf's coded stream writes.
std::string length_key(uint32_t field, uint64_t length) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(field << 3 | 2);
    coded.WriteVarint64(length);
  }
  return out;
}

}  // namespace

std::string checkpoint_header() {
  ckpt::Checkpoint m;
  m.set_mycel_header(std::string(kMagic) + le_bytes(kVersion, 4));
  return serialized(m);
}

std::string checkpoint_value_frame(std::string_view name, std::string_view type,
                                   const std::vector<int64_t>& dims, uint64_t content_size) {
  ckpt::Checkpoint::Value value;  // its tag (field 1); the tensor (field 2) follows
  value.set_tag(std::string(name));
  ckpt::TensorProto tensor;  // its dims and type (fields 1, 2); the content (field 3) follows
  for (int64_t d : dims) tensor.add_dims(d);
  tensor.set_tensor_type(std::string(type));
  std::string tag = serialized(value), head = serialized(tensor);
  std::string content_key = length_key(3, content_size);
  uint64_t tensor_size = head.size() + content_key.size() + content_size;
  std::string tensor_key = length_key(2, tensor_size);
  return length_key(1, tag.size() + tensor_key.size() + tensor_size) + tag + tensor_key + head +
         content_key;
}

std::string checkpoint_footer(uint64_t count, uint32_t crc) {
  ckpt::Checkpoint m;
  m.set_mycel_footer(std::string(kMagic) + le_bytes(kVersion, 4) + le_bytes(count, 8) +
                     le_bytes(crc, 4));
  return serialized(m);
}

std::string encode_checkpoint(const std::vector<CheckpointEntry>& entries) {
  std::string out = checkpoint_header();
  for (const CheckpointEntry& e : entries) {
    MC_CHECK(!e.is_str && e.tensor.defined(), Value, "encode_checkpoint: entry '", e.name,
             "' is not a tensor (the C++ writer writes tensors only).");
    Tensor t = e.tensor.cpu().contiguous();
    out += checkpoint_value_frame(e.name, dtype_name(t.dtype()),
                                  std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                                  t.nbytes());
    out.append(static_cast<const char*>(t.raw_data()), t.nbytes());
  }
  return out + checkpoint_footer(entries.size(), crc32_of(out));
}

}  // namespace mycel::serialize

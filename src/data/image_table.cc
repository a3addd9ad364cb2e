#include "data/image_table.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file.h"
#include "data/image_codec.h"

namespace mycel::data {
namespace {

// Reads exactly n bytes of fd into out; false when the file ends first.
bool read_exact(int fd, char* out, uint64_t n, std::string_view func, const std::string& path) {
  uint64_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd, out + done, static_cast<size_t>(n - done));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int err = errno;
      ::close(fd);
      MC_THROW(Runtime, func, ": cannot read ", path, ": ", std::strerror(err));
    }
    if (got == 0) return false;
    done += static_cast<uint64_t>(got);
  }
  return true;
}

// The open descriptor and size of a regular file.
int open_sized(std::string_view func, const std::string& path, uint64_t* size) {
  const int fd = open_regular_file(path, func);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    MC_THROW(Runtime, func, ": cannot read ", path, ": ", std::strerror(err));
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

}  // namespace

std::string read_small_file(std::string_view func, const std::string& path, uint64_t max_bytes) {
  uint64_t size = 0;
  const int fd = open_sized(func, path, &size);
  if (size > max_bytes) {
    ::close(fd);
    MC_THROW(Runtime, func, ": ", path, " is ", size, " bytes, more than the ", max_bytes,
             " bytes an index or annotation file may have.");
  }
  std::string bytes(static_cast<size_t>(size), '\0');
  const bool whole = read_exact(fd, bytes.data(), size, func, path);
  ::close(fd);
  MC_CHECK(whole, Runtime, func, ": ", path, " shrank while being read.");
  return bytes;
}

std::string read_file_head(std::string_view func, const std::string& path, size_t n) {
  const int fd = open_regular_file(path, func);
  std::string head(n, '\0');
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::read(fd, head.data() + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  head.resize(done);
  return head;
}

Array read_file_array(std::string_view func, const std::string& path) {
  struct stat st;
  MC_CHECK(::stat(path.c_str(), &st) == 0, Runtime, func, ": Failed to open file ", path, ": ",
           std::strerror(errno), ".");
  uint64_t size = 0;
  const int fd = open_sized(func, path, &size);
  Array raw = Array::empty(DataType::UInt8, {static_cast<int64_t>(size)});
  const bool whole = read_exact(fd, static_cast<char*>(raw.mutable_raw()), size, func, path);
  ::close(fd);
  MC_CHECK(whole, Runtime, func, ": ", path, " shrank while being read.");
  return raw;
}

ImageTableSource::ImageTableSource(std::string name, std::vector<std::string> columns,
                                   std::vector<TableRow> rows, bool decode, bool with_meta)
    : name_(std::move(name)),
      columns_(std::move(columns)),
      rows_(std::move(rows)),
      decode_(decode),
      with_meta_(with_meta) {
  if (with_meta_) columns_.push_back("_meta-filename");
}

Row ImageTableSource::read(int64_t i) const {
  const TableRow& r = rows_[static_cast<size_t>(i)];
  Row row;
  row.reserve(columns_.size());
  for (const std::string& path : r.files) {
    Array raw = read_file_array(name_, path);
    if (!decode_) {
      row.push_back(std::move(raw));
      continue;
    }
    try {
      row.push_back(decode_image(raw.data<uint8_t>(), static_cast<size_t>(raw.numel()), path));
    } catch (const Error& e) {
      throw Error(e.kind(), str(name_, ": row ", i, ": ", e.message()));
    }
  }
  for (const Array& v : r.values) row.push_back(v);
  if (with_meta_) row.push_back(Array::strings({r.meta}, {}));
  return row;
}

std::vector<std::pair<int64_t, int64_t>> ImageTableSource::class_rows() const {
  std::vector<std::pair<int64_t, int64_t>> out;
  out.reserve(rows_.size());
  for (size_t i = 0; i < rows_.size(); ++i) {
    for (int64_t c : rows_[i].classes) out.emplace_back(c, static_cast<int64_t>(i));
  }
  return out;
}

}  // namespace mycel::data

// Text file sources: TextFileDataset (lines) and CSVDataset (records), sources.h. Construction
// scans every file once and keeps each row's byte range and line number; read(i) reads that
// range back with pread (no shared state) and parses it, so rows are random access and a
// file of any size costs a few words per row.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "base/file.h"
#include "base/utf8.h"
#include "data/sources.h"

namespace mycel::data {
namespace {

// One row's bytes in its file (newline and a "\r" before it excluded) and its first line.
struct Record {
  uint64_t begin, end, line;
};

struct IndexedFile {
  std::string path;
  std::vector<Record> records;
  int64_t end_row = 0;  // one past this file's last row in the dataset
};

// The records of a file: lines, or with `quotes` CSV records (a newline inside a quoted field
// does not end one). Blank records are skipped. RuntimeError naming func and the file when it
// cannot be read or a quote is left open.
std::vector<Record> scan_records(std::string_view func, const std::string& path, bool quotes) {
  const int fd = open_regular_file(path, func);  // a FIFO or a directory: a ValueError, no hang
  std::FILE* f = ::fdopen(fd, "rb");
  if (!f) {
    const int err = errno;
    ::close(fd);
    MC_THROW(Runtime, func, ": cannot read ", path, ": ", std::strerror(err));
  }
  std::vector<Record> out;
  std::vector<char> buf(1 << 20);
  uint64_t pos = 0, start = 0, line = 1, start_line = 1;
  bool in_quotes = false;
  char last = 0;
  auto finish = [&](uint64_t end) {
    if (end > start && last == '\r') --end;
    if (end > start) out.push_back({start, end, start_line});
  };
  for (size_t n; (n = std::fread(buf.data(), 1, buf.size(), f)) > 0;) {
    for (size_t k = 0; k < n; ++k, ++pos) {
      const char c = buf[k];
      if (quotes && c == '"') {
        in_quotes = !in_quotes;
      } else if (c == '\n') {
        ++line;
        if (!in_quotes) {
          finish(pos);
          start = pos + 1;
          start_line = line;
        }
      }
      last = c;
    }
  }
  const bool failed = std::ferror(f);
  const int err = errno;
  std::fclose(f);
  MC_CHECK(!failed, Runtime, func, ": cannot read ", path, ": ", std::strerror(err));
  MC_CHECK(!in_quotes, Runtime, func, ": ", path, ":", start_line,
           ": a quoted field is not closed before the end of the file.");
  finish(pos);
  return out;
}

// The bytes of a record, read back from its file.
std::string fetch(std::string_view func, const std::string& path, const Record& r) {
  std::string s(r.end - r.begin, '\0');
  int fd = open_regular_file(path, func);
  size_t done = 0;
  while (done < s.size()) {
    ssize_t got = ::pread(fd, s.data() + done, s.size() - done, static_cast<off_t>(r.begin + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      const int err = errno;
      ::close(fd);
      MC_THROW(Runtime, func, ": cannot read ", path, ":", r.line, ": ",
               got < 0 ? std::strerror(err) : "the file became shorter after it was indexed");
    }
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  return s;
}

// A source over indexed files: maps a row to its file and record.
class IndexedSource : public RandomAccessSource {
 public:
  int64_t size() const override { return files_.empty() ? 0 : files_.back().end_row; }
  std::vector<int32_t> file_of_rows() const override {
    std::vector<int32_t> v;
    v.reserve(static_cast<size_t>(size()));
    for (size_t f = 0; f < files_.size(); ++f) v.resize(files_[f].end_row, static_cast<int32_t>(f));
    return v;
  }
  std::string file_of_row(int64_t i) const override {
    return i >= 0 && i < size() ? locate(i).first->path : std::string();
  }

 protected:
  // Adds a file's records from `first` on as rows.
  void add_file(std::string path, std::vector<Record> records, size_t first) {
    IndexedFile f;
    f.path = std::move(path);
    f.records.assign(records.begin() + static_cast<int64_t>(std::min(first, records.size())),
                     records.end());
    f.end_row = size() + static_cast<int64_t>(f.records.size());
    files_.push_back(std::move(f));
  }
  std::pair<const IndexedFile*, const Record*> locate(int64_t i) const {
    auto f = std::upper_bound(files_.begin(), files_.end(), i,
                              [](int64_t v, const IndexedFile& x) { return v < x.end_row; });
    const int64_t first = f->end_row - static_cast<int64_t>(f->records.size());
    return {&*f, &f->records[static_cast<size_t>(i - first)]};
  }

 private:
  std::vector<IndexedFile> files_;
};

// ----- TextFileDataset -----

class TextFileSource final : public IndexedSource {
 public:
  explicit TextFileSource(const std::vector<std::string>& files) {
    MC_CHECK(!files.empty(), Value, name(), ": dataset_files is empty.");
    for (const std::string& path : files) add_file(path, scan_records(name(), path, false), 0);
  }

  std::string_view name() const override { return "TextFileDataset"; }
  std::vector<std::string> columns() const override { return {"text"}; }

  Row read(int64_t i) const override {
    auto [file, rec] = locate(i);
    std::string line = fetch(name(), file->path, *rec);
    MC_CHECK(valid_utf8(line), Runtime, name(), ": ", file->path, ":", rec->line,
             ": the line is not valid UTF-8 text (Failed to cast to Unicode string).");
    return {Array::strings({std::move(line)}, {})};
  }
};

// ----- CSVDataset -----

// Splits a CSV record into fields (RFC 4180 quoting); `where` ("file:line") for messages.
std::vector<std::string> split_record(std::string_view rec, char delim, std::string_view where) {
  std::vector<std::string> fields;
  size_t i = 0;
  const size_t n = rec.size();
  while (true) {
    std::string field;
    if (i < n && rec[i] == '"') {
      for (++i;; ++i) {
        MC_CHECK(i < n, Runtime, "CSVDataset: ", where, ": field ", fields.size() + 1,
                 " opens a quote that the record does not close.");
        if (rec[i] == '"') {
          if (i + 1 < n && rec[i + 1] == '"') {
            field += '"';
            ++i;
          } else {
            ++i;
            break;
          }
        } else {
          field += rec[i];
        }
      }
      MC_CHECK(i == n || rec[i] == delim, Runtime, "CSVDataset: ", where, ": field ",
               fields.size() + 1, " has characters after its closing quote.");
    } else {
      const size_t stop = std::min(rec.find(delim, i), n);
      field.assign(rec.substr(i, stop - i));
      MC_CHECK(field.find('"') == std::string::npos, Runtime, "CSVDataset: ", where, ": field ",
               fields.size() + 1, " (", field, ") holds a quote but is not quoted.");
      i = stop;
    }
    fields.push_back(std::move(field));
    if (i == n) return fields;
    ++i;  // the delimiter; one after the last gives a final empty field
  }
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

class CsvSource final : public IndexedSource {
 public:
  CsvSource(const std::vector<std::string>& files, char delim,
            const std::vector<CsvDefault>& defaults, const std::vector<std::string>& column_names)
      : delim_(delim), defaults_(defaults), names_(column_names) {
    MC_CHECK(!files.empty(), Value, name(), ": dataset_files is empty.");
    MC_CHECK(delim != '"' && delim != '\n' && delim != '\r', Value, name(),
             ": field_delim cannot be a quote or a newline.");
    for (const CsvDefault& d : defaults_) {
      MC_CHECK(
          d.type == DataType::Int32 || d.type == DataType::Float32 || d.type == DataType::String,
          Type, name(), ": column_defaults must give int32, float32 or str columns, not ",
          data_type_name(d.type), ".");
    }
    const bool header = names_.empty();
    std::string first_file;
    for (const std::string& path : files) {
      std::vector<Record> records = scan_records(name(), path, true);
      if (header) {
        MC_CHECK(!records.empty(), Runtime, name(), ": ", path,
                 " is empty: it has no header line to name the columns (or give column_names).");
        std::string where = str(path, ":", records[0].line);
        std::string text = fetch(name(), path, records[0]);
        MC_CHECK(valid_utf8(text), Runtime, name(), ": ", where,
                 ": the header is not valid UTF-8 text.");
        std::vector<std::string> found = split_record(text, delim_, where);
        if (names_.empty()) {
          names_ = std::move(found);
          first_file = path;
          std::set<std::string> seen;
          for (const std::string& c : names_) {
            MC_CHECK(seen.insert(c).second, Value, name(), ": ", where,
                     ": the header names column '", c, "' twice.");
          }
        } else {
          MC_CHECK(found == names_, Runtime, name(), ": the header of ", path, " (",
                   describe_names(found), ") differs from that of ", first_file, " (",
                   describe_names(names_), ").");
        }
      }
      add_file(path, std::move(records), header ? 1 : 0);
    }
    MC_CHECK(defaults_.empty() || defaults_.size() == names_.size(), Value, name(),
             ": column_defaults has ", defaults_.size(), " values but there are ", names_.size(),
             " columns (", describe_names(names_), ").");
  }

  std::string_view name() const override { return "CSVDataset"; }
  std::vector<std::string> columns() const override { return names_; }

  Row read(int64_t i) const override {
    auto [file, rec] = locate(i);
    const std::string where = str(file->path, ":", rec->line);
    std::vector<std::string> fields = split_record(fetch(name(), file->path, *rec), delim_, where);
    MC_CHECK(fields.size() == names_.size(), Runtime, name(), ": ", where, ": the record has ",
             fields.size(), " fields but there are ", names_.size(), " columns (",
             describe_names(names_), ").");
    Row row;
    row.reserve(fields.size());
    for (size_t c = 0; c < fields.size(); ++c) row.push_back(parse(fields[c], c, where));
    return row;
  }

 private:
  static std::string describe_names(const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "'" : ", '") + n + "'";
    return s;
  }

  Array parse(std::string& field, size_t c, const std::string& where) const {
    const CsvDefault none;
    const CsvDefault& d = defaults_.empty() ? none : defaults_[c];
    const std::string_view type = data_type_name(d.type);
    if (d.type == DataType::String) {
      if (field.empty() && !defaults_.empty()) field = d.s;
      MC_CHECK(valid_utf8(field), Runtime, name(), ": ", where, ": column '", names_[c],
               "' is not valid UTF-8 text.");
      return Array::strings({std::move(field)}, {});
    }
    const std::string_view text = trim(field);
    if (text.empty()) {
      return d.type == DataType::Int32 ? Array::scalar<int32_t>(d.i) : Array::scalar<float>(d.f);
    }
    // from_chars takes no '+' sign: drop one (but not before another sign)
    const bool plus = text.front() == '+';
    const std::string_view digits = plus ? text.substr(1) : text;
    const char* stop = digits.data() + digits.size();
    const bool sign_ok = !digits.empty() && !(plus && (digits[0] == '-' || digits[0] == '+'));
    const char* article = d.type == DataType::Int32 ? "an " : "a ";
    std::errc ec;
    const char* p;
    Array out;
    if (d.type == DataType::Int32) {
      int32_t v = 0;
      const std::from_chars_result r = std::from_chars(digits.data(), stop, v);
      p = r.ptr;
      ec = r.ec;
      out = Array::scalar<int32_t>(v);
    } else {
      double v = 0;
      const std::from_chars_result r = std::from_chars(digits.data(), stop, v);
      p = r.ptr;
      ec = r.ec;
      if (ec == std::errc() && std::isfinite(v) &&
          std::fabs(v) > std::numeric_limits<float>::max()) {
        ec = std::errc::result_out_of_range;
      }
      out = Array::scalar<float>(static_cast<float>(v));
    }
    const bool parsed = sign_ok && p == stop;
    MC_CHECK(parsed && ec == std::errc(), Runtime, name(), ": ", where, ": column '", names_[c],
             "' (", type, "): cannot parse '", field, "' as ", article, type,
             parsed && ec == std::errc::result_out_of_range ? " (out of range)" : "", ".");
    return out;
  }

  char delim_;
  std::vector<CsvDefault> defaults_;
  std::vector<std::string> names_;
};

}  // namespace

SourcePtr text_file_source(const std::vector<std::string>& files) {
  return std::make_shared<TextFileSource>(files);
}

SourcePtr csv_source(const std::vector<std::string>& files, char delim,
                     const std::vector<CsvDefault>& defaults,
                     const std::vector<std::string>& column_names) {
  return std::make_shared<CsvSource>(files, delim, defaults, column_names);
}

}  // namespace mycel::data

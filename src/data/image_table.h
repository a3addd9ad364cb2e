// The random-access source behind the annotated image data sets (sources_vision.h): a table
// built at construction, one entry per row: the row's image files (read, and decoded when
// asked, in read()), its annotation arrays (made at construction), an optional metadata string
// and an optional class. Also the bounded whole-file reader the index parsers use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/source.h"

namespace mycel::data {

struct TableRow {
  std::vector<std::string> files;  // read as uint8 [n] (decoded to [H, W, 3] when decode)
  std::vector<Array> values;       // the annotation columns, after the file columns
  std::string meta;                // the "_meta-filename" column when the table has one
  std::vector<int64_t> classes;    // the row's classes (PKSampler), none when empty
};

class ImageTableSource final : public RandomAccessSource {
 public:
  // columns: the file columns, then the value columns, then "_meta-filename" when with_meta.
  ImageTableSource(std::string name, std::vector<std::string> columns, std::vector<TableRow> rows,
                   bool decode, bool with_meta);
  std::string_view name() const override { return name_; }
  int64_t size() const override { return static_cast<int64_t>(rows_.size()); }
  std::vector<std::string> columns() const override { return columns_; }
  Row read(int64_t i) const override;
  std::vector<std::pair<int64_t, int64_t>> class_rows() const override;
  // The row's first file (its image).
  std::string file_of_row(int64_t i) const override {
    const size_t k = static_cast<size_t>(i);
    return i >= 0 && k < rows_.size() && !rows_[k].files.empty() ? rows_[k].files[0]
                                                                 : std::string();
  }

 private:
  std::string name_;
  std::vector<std::string> columns_;
  std::vector<TableRow> rows_;
  bool decode_, with_meta_;
};

// The bytes of the regular file at path, at most max_bytes (a larger file is a RuntimeError
// naming func and the file). A missing or unreadable file: RuntimeError "<func>: cannot read".
std::string read_small_file(std::string_view func, const std::string& path, uint64_t max_bytes);

// The first n bytes of the file (fewer when it is shorter).
std::string read_file_head(std::string_view func, const std::string& path, size_t n);

// The file's bytes as a uint8 [n] array (no size bound beyond the file system's).
Array read_file_array(std::string_view func, const std::string& path);

}  // namespace mycel::data

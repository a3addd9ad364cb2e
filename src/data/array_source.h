// A source over whole columns held in memory (NumpySlicesDataset): row i is element i along
// axis 0 of every column, as a view (strings: a copy).
#pragma once

#include "data/source.h"

namespace mycel::data {

class ArraySource : public RandomAccessSource {
 public:
  // Every column must have a first axis of the same length.
  ArraySource(std::string name, std::vector<Array> columns, std::vector<std::string> names);
  std::string_view name() const override { return name_; }
  int64_t size() const override { return rows_; }
  std::vector<std::string> columns() const override { return names_; }
  Row read(int64_t i) const override;

 private:
  std::string name_;
  std::vector<Array> columns_;
  std::vector<std::string> names_;
  int64_t rows_ = 0;
};

}  // namespace mycel::data

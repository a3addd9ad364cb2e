#include "data/array_source.h"

namespace mycel::data {

ArraySource::ArraySource(std::string name, std::vector<Array> columns,
                         std::vector<std::string> names)
    : name_(std::move(name)), columns_(std::move(columns)), names_(std::move(names)) {
  MC_CHECK(!columns_.empty(), Value, name_, ": data has no columns.");
  MC_CHECK(columns_.size() == names_.size(), Value, name_, ": ", names_.size(),
           " column names for ", columns_.size(), " columns.");
  for (size_t c = 0; c < columns_.size(); ++c) {
    MC_CHECK(columns_[c].ndim() >= 1, Value, name_, ": column ", c,
             " is a scalar; each column must have a first axis to slice.");
    int64_t n = columns_[c].shape()[0];
    MC_CHECK(c == 0 || n == rows_, Value, name_, ": the columns have different lengths (", rows_,
             " and ", n, ").");
    rows_ = n;
  }
}

Row ArraySource::read(int64_t i) const {
  Row row;
  row.reserve(columns_.size());
  for (const Array& c : columns_) row.push_back(c.row(i));
  return row;
}

}  // namespace mycel::data

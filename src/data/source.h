// Random-access sources: datasets whose rows can be read by index (MNIST, CIFAR-10,
// ImageFolder, CSV, TextFile, MindRecord, numpy slices, a Python __getitem__). The engine's
// source op asks its sampler for indices and reads those rows, on worker threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "data/array.h"

namespace mycel::data {

class RandomAccessSource {
 public:
  virtual ~RandomAccessSource() = default;
  // MindSpore's dataset class name, for messages ("Cifar10Dataset").
  virtual std::string_view name() const = 0;
  virtual int64_t size() const = 0;
  virtual std::vector<std::string> columns() const = 0;
  // Row i, 0 <= i < size(). Thread-safe (several workers read at once). Returned arrays may be
  // views of the source's loaded data; nobody writes into them. Errors (a corrupt record, an
  // undecodable image) are mycel::Error naming the source, the file and the row.
  virtual Row read(int64_t i) const = 0;
  // For sources made of files: the file of each row (0, 1, ... in the order the source lists
  // its files), for Shuffle.FILES and Shuffle.INFILE. Empty for other sources.
  virtual std::vector<int32_t> file_of_rows() const { return {}; }
  // The file row i was read from, for error messages ("The corresponding data file is ...");
  // empty when the source does not know it. Called only when something failed.
  virtual std::string file_of_row(int64_t) const { return {}; }
  // For sources with classes (image folders, MNIST, CIFAR, Manifest, ...): (class, row) pairs,
  // a row with several labels once per label, for PKSampler. Empty when the source has none.
  virtual std::vector<std::pair<int64_t, int64_t>> class_rows() const { return {}; }
  // Whether read() needs the GIL (a Python source): the engine then reads on one thread.
  virtual bool needs_gil() const { return false; }
};

using SourcePtr = std::shared_ptr<RandomAccessSource>;  // non-const for pybind11 holders

}  // namespace mycel::data

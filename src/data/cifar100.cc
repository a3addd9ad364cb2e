#include "data/cifar100.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "base/file.h"
#include "tensor/tensor.h"

namespace mycel::data {

namespace fs = std::filesystem;

int64_t check_cifar100(const uint8_t* data, size_t n, std::string_view what) {
  MC_CHECK(n > 0 && n % static_cast<size_t>(kCifar100Record) == 0, Runtime,
           "Cifar100Dataset: ", what, " is ", n, " bytes, not a whole number of ", kCifar100Record,
           "-byte records (a coarse and a fine label byte and a 3x32x32 image): the file is "
           "truncated or corrupt.");
  const int64_t records = static_cast<int64_t>(n / static_cast<size_t>(kCifar100Record));
  for (int64_t r = 0; r < records; ++r) {
    const uint8_t* rec = data + r * kCifar100Record;
    MC_CHECK(rec[0] < 20 && rec[1] < 100, Runtime, "Cifar100Dataset: ", what, " record ", r,
             " has coarse label ", int{rec[0]}, " and fine label ", int{rec[1]},
             " (they must be in [0, 19] and [0, 99]): the file is corrupt or not a CIFAR-100 "
             "binary.");
  }
  return records;
}

Row cifar100_row(const uint8_t* data, int64_t r) {
  const uint8_t* rec = data + r * kCifar100Record;
  Array image = Array::empty(DataType::UInt8, {kCifar100Side, kCifar100Side, 3});
  uint8_t* out = image.mutable_data<uint8_t>();
  constexpr int64_t plane = kCifar100Side * kCifar100Side;
  for (int64_t p = 0; p < plane; ++p) {
    for (int64_t c = 0; c < 3; ++c) out[p * 3 + c] = rec[2 + c * plane + p];
  }
  return {std::move(image), Array::scalar<uint32_t>(rec[0]), Array::scalar<uint32_t>(rec[1])};
}

namespace {

class Cifar100Source final : public RandomAccessSource {
 public:
  Cifar100Source(const std::string& dir, const std::string& usage) {
    std::error_code ec;
    MC_CHECK(fs::is_directory(dir, ec), Value, name(), ": the dataset_dir ", dir,
             " does not exist or is not a directory.");
    MC_CHECK(usage == "train" || usage == "test" || usage == "all", Value, name(),
             ": usage must be 'train', 'test' or 'all', but got '", usage, "'.");
    std::vector<std::string> paths;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      const std::string file = e.path().filename().string();
      const bool train = file.find("train") != std::string::npos;
      const bool test = file.find("test") != std::string::npos;
      const bool wanted = usage == "all" ? train || test : usage == "train" ? train : test;
      if (wanted && e.path().extension() == ".bin" && e.is_regular_file(ec)) {
        paths.push_back(e.path().string());
      }
    }
    MC_CHECK(!ec, Runtime, name(), ": cannot list ", dir, ": ", ec.message());
    std::sort(paths.begin(), paths.end());
    MC_CHECK(!paths.empty(), Runtime, name(), ": ", dir, " holds no .bin file named with '",
             usage == "all" ? std::string("train' or 'test") : usage, "' (cifar-100-binary's ",
             "train.bin and test.bin).");
    for (const std::string& path : paths) load(path);
  }

  std::string_view name() const override { return "Cifar100Dataset"; }
  int64_t size() const override { return size_; }
  std::vector<std::string> columns() const override {
    return {"image", "coarse_label", "fine_label"};
  }

  Row read(int64_t i) const override {
    auto file = std::upper_bound(files_.begin(), files_.end(), i,
                                 [](int64_t v, const File& f) { return v < f.end; });
    return cifar100_row(static_cast<const uint8_t*>(file->bytes->data()), i - file->begin);
  }

  std::vector<std::pair<int64_t, int64_t>> class_rows() const override {  // by fine label
    std::vector<std::pair<int64_t, int64_t>> out;
    for (const File& f : files_) {
      const auto* data = static_cast<const uint8_t*>(f.bytes->data());
      for (int64_t r = 0; r < f.end - f.begin; ++r) {
        out.emplace_back(data[r * kCifar100Record + 1], f.begin + r);
      }
    }
    return out;
  }

 private:
  void load(const std::string& path) {
    // read_regular_file (base/file.h): a FIFO or device named *.bin is an error, not a hang.
    const std::string bytes = read_regular_file(path, name());
    File f;
    f.bytes = Storage::allocate(std::max<size_t>(bytes.size(), 1));
    if (!bytes.empty()) std::memcpy(f.bytes->data(), bytes.data(), bytes.size());
    const int64_t records =
        check_cifar100(static_cast<const uint8_t*>(f.bytes->data()), bytes.size(), path);
    f.begin = size_;
    size_ += records;
    f.end = size_;
    files_.push_back(std::move(f));
  }

  struct File {
    std::shared_ptr<Storage> bytes;
    int64_t begin = 0, end = 0;  // this file's rows in the dataset
  };
  std::vector<File> files_;
  int64_t size_ = 0;
};

}  // namespace

SourcePtr cifar100_source(const std::string& dataset_dir, const std::string& usage) {
  return std::make_shared<Cifar100Source>(dataset_dir, usage);
}

}  // namespace mycel::data

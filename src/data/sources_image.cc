// Image file sources: MNIST/Fashion-MNIST idx files, CIFAR-10 binaries and an image folder
// (sources.h). The idx and CIFAR files are read whole at construction and rows are views (MNIST)
// or small copies (CIFAR's CHW -> HWC) of them; image folder rows read their file in read().
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <list>
#include <mutex>
#include <tuple>
#include <vector>

#include "base/file.h"
#include "data/image_codec.h"
#include "data/sources.h"
#include "data/sources_vision.h"

namespace mycel::data {
namespace {

namespace fs = std::filesystem;

// Reads a file front to back, gunzipping it when `gz`. Errors are RuntimeErrors
// "<func>: cannot read <path>: <why>".
class ByteReader {
 public:
  ByteReader(std::string_view func, std::string path, bool gz)
      : func_(func), path_(std::move(path)) {
    int fd = open_regular_file(path_, func_);  // a FIFO or a directory: a ValueError, no hang
    if (gz) {
      gz_ = gzdopen(fd, "rb");
      if (gz_) gzbuffer(gz_, 1 << 17);
    } else {
      file_ = ::fdopen(fd, "rb");
    }
    if (!gz_ && !file_) {
      const int err = errno;
      ::close(fd);
      MC_THROW(Runtime, func_, ": cannot read ", path_, ": ", std::strerror(err));
    }
  }
  ~ByteReader() {
    if (gz_) gzclose(gz_);
    if (file_) std::fclose(file_);
  }
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;

  // Up to n bytes into buf; fewer only at the end of the file.
  size_t read(void* buf, size_t n) {
    char* out = static_cast<char*>(buf);
    size_t done = 0;
    while (done < n) {
      size_t want = std::min<size_t>(n - done, size_t{1} << 30);
      size_t got;
      if (gz_) {
        int r = gzread(gz_, out + done, static_cast<unsigned>(want));
        if (r < 0) fail_gz();
        got = static_cast<size_t>(r);
      } else {
        got = std::fread(out + done, 1, want, file_);
        MC_CHECK(!std::ferror(file_), Runtime, func_, ": cannot read ", path_, ": ",
                 std::strerror(errno));
      }
      done += got;
      if (got < want) break;
    }
    if (done < n && gz_) {
      int errnum = Z_OK;
      gzerror(gz_, &errnum);
      if (errnum != Z_OK) fail_gz();  // a truncated stream ends early with Z_BUF_ERROR
    }
    return done;
  }

  // The number of bytes left (read and dropped).
  size_t skip_rest() {
    std::vector<char> scratch(1 << 16);
    size_t total = 0;
    for (size_t got; (got = read(scratch.data(), scratch.size())) > 0;) total += got;
    return total;
  }

 private:
  [[noreturn]] void fail_gz() {
    int errnum = Z_OK;
    const char* msg = gzerror(gz_, &errnum);
    MC_THROW(Runtime, func_, ": cannot read ", path_, ": ",
             errnum == Z_ERRNO ? std::strerror(errno) : msg);
  }

  std::string_view func_;
  std::string path_;
  gzFile gz_ = nullptr;
  std::FILE* file_ = nullptr;
};

bool is_dir(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

bool is_file(const std::string& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

std::string join(const std::string& dir, std::string_view name) {
  return (fs::path(dir) / name).string();
}

void check_dir(std::string_view func, const std::string& dir) {
  MC_CHECK(is_dir(dir), Value, func, ": the dataset_dir ", dir,
           " does not exist or is not a directory.");
}

// ----- MNIST -----

constexpr uint32_t kImagesMagic = 2051, kLabelsMagic = 2049;

// The payload of an idx file: dims (the header's) and the bytes after the header.
struct Idx {
  Shape dims;
  std::shared_ptr<Storage> bytes;
};

uint32_t big_endian(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Reads an idx file of `magic` and checks its header and length (messages as mycel 0.5's).
Idx read_idx(std::string_view func, const std::string& path, uint32_t magic) {
  ByteReader in(func, path, path.ends_with(".gz"));
  const size_t ndim = magic == kImagesMagic ? 3 : 1;
  const size_t header = 4 * (1 + ndim);
  uint8_t head[16];
  size_t got = in.read(head, header);
  MC_CHECK(got == header, Runtime, func, ": ", path, " is truncated: ", got,
           " bytes, shorter than the ", header, "-byte idx header.");
  uint32_t found = big_endian(head);
  if (found != magic) {
    char hex[64];
    std::snprintf(hex, sizeof hex, "0x%08x, expected 0x%08x", found, magic);
    MC_THROW(Runtime, func, ": ", path, " has magic number ", hex, " (an idx ",
             ndim == 3 ? "image" : "label", " file).");
  }
  Idx idx;
  uint64_t payload = 1;
  bool huge = false;
  for (size_t d = 0; d < ndim; ++d) {
    uint32_t n = big_endian(head + 4 * (d + 1));
    idx.dims.push_back(n);
    huge = huge || (n != 0 && payload > (uint64_t{1} << 40) / n);
    payload *= huge ? 1 : n;
  }
  // The body is read in chunks, and its storage allocated only once the file has shown that
  // many bytes: a corrupt header must not make a 16-byte file allocate what it claims (up to
  // 2^40 bytes).
  size_t body = 0;
  std::vector<std::vector<uint8_t>> chunks;
  while (!huge && body < payload) {
    chunks.emplace_back(std::min<uint64_t>(payload - body, uint64_t{1} << 26));
    const size_t got = in.read(chunks.back().data(), chunks.back().size());
    body += got;
    if (got < chunks.back().size()) break;
  }
  if (!huge && body == payload) {
    idx.bytes = Storage::allocate(std::max<size_t>(payload, 1));
    auto* out = static_cast<uint8_t*>(idx.bytes->data());
    for (std::vector<uint8_t>& c : chunks) {
      out = std::copy(c.begin(), c.end(), out);
      std::vector<uint8_t>().swap(c);  // freed as copied: the peak stays near one copy
    }
  }
  size_t total = header + body + in.skip_rest();
  if (huge || total != header + payload) {
    std::string expected = huge ? std::string("more than 2^40") : std::to_string(header + payload);
    MC_THROW(Runtime, func, ": ", path, " is ", total, " bytes but its header ", idx.dims, " says ",
             expected, ": the file is truncated or corrupt.");
  }
  return idx;
}

// read_idx through a small cache keyed by the file's path, mtime and size: datasets re-created
// for each epoch or for evaluation do not read and decompress the files again.
Idx load_idx(std::string_view func, const std::string& path, uint32_t magic) {
  struct stat st;
  MC_CHECK(::stat(path.c_str(), &st) == 0, Runtime, func, ": cannot read ", path, ": ",
           std::strerror(errno));
  using Key = std::tuple<std::string, int64_t, int64_t, uint32_t>;
  Key key{path, int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec, int64_t{st.st_size},
          magic};
  static std::mutex mu;
  static std::list<std::pair<Key, Idx>> cache;  // most recently used first
  constexpr size_t kCacheFiles = 4;
  {
    std::lock_guard<std::mutex> lock(mu);
    for (auto it = cache.begin(); it != cache.end(); ++it) {
      if (it->first == key) {
        cache.splice(cache.begin(), cache, it);
        return it->second;
      }
    }
  }
  Idx idx = read_idx(func, path, magic);
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace_front(std::move(key), idx);
  if (cache.size() > kCacheFiles) cache.pop_back();
  return idx;
}

// dataset_dir/name, plain or gzipped (plain first).
std::string idx_path(std::string_view func, const std::string& dir, const std::string& name) {
  std::string path = join(dir, name);
  for (const std::string& p : {path, path + ".gz"}) {
    if (is_file(p)) return p;
  }
  MC_THROW(Runtime, func, ": the file ", path, " (or ", path, ".gz) does not exist.");
}

class MnistSource final : public RandomAccessSource {
 public:
  // stems: the train and test files' name stems ("train"/"t10k"; EMNIST's
  // "emnist-<name>-train"/"emnist-<name>-test").
  MnistSource(std::string_view name, const std::string& dir, const std::string& usage,
              const std::string& train = "train", const std::string& test = "t10k")
      : name_(name) {
    check_dir(name_, dir);
    std::vector<std::string> splits;
    if (usage == "train" || usage == "test") {
      splits = {usage == "train" ? train : test};
    } else {
      MC_CHECK(usage == "all", Value, name_, ": usage must be 'train', 'test' or 'all', but got '",
               usage, "'.");
      // As MindSpore: the splits present (a directory of one split works).
      for (const std::string& s : {train, test}) {
        std::string images = join(dir, str(s, "-images-idx3-ubyte"));
        if (is_file(images) || is_file(images + ".gz")) splits.push_back(s);
      }
      if (splits.empty()) splits = {train, test};
    }
    std::vector<std::pair<std::string, std::string>> files;
    for (const std::string& s : splits) {  // every file must exist before any is read
      std::string images = idx_path(name_, dir, s + "-images-idx3-ubyte");
      files.emplace_back(std::move(images), idx_path(name_, dir, s + "-labels-idx1-ubyte"));
    }
    for (const auto& [ipath, lpath] : files) {
      Idx images = load_idx(name_, ipath, kImagesMagic);
      Idx labels = load_idx(name_, lpath, kLabelsMagic);
      MC_CHECK(images.dims[0] == labels.dims[0], Runtime, name_, ": ", ipath, " has ",
               images.dims[0], " images but ", lpath, " has ", labels.dims[0], " labels.");
      if (!parts_.empty()) {
        const Shape& first = parts_[0].images.dims;
        MC_CHECK(images.dims[1] == first[1] && images.dims[2] == first[2], Runtime, name_, ": ",
                 ipath, " holds ", images.dims[1], "x", images.dims[2], " images but ",
                 files[0].first, " holds ", first[1], "x", first[2], " images.");
      }
      size_ += images.dims[0];
      parts_.push_back({std::move(images), std::move(labels), size_});
    }
  }

  std::string_view name() const override { return name_; }
  int64_t size() const override { return size_; }
  std::vector<std::string> columns() const override { return {"image", "label"}; }

  Row read(int64_t i) const override {
    auto part = std::upper_bound(parts_.begin(), parts_.end(), i,
                                 [](int64_t v, const Part& p) { return v < p.end; });
    const int64_t h = part->images.dims[1], w = part->images.dims[2];
    const int64_t j = i - (part->end - part->images.dims[0]);
    Array image =
        Array::view(part->images.bytes, static_cast<size_t>(j * h * w), DataType::UInt8, {h, w, 1});
    uint8_t label = static_cast<const uint8_t*>(part->labels.bytes->data())[j];
    return {std::move(image), Array::scalar<uint32_t>(label)};
  }

  std::vector<std::pair<int64_t, int64_t>> class_rows() const override {
    std::vector<std::pair<int64_t, int64_t>> out;
    out.reserve(static_cast<size_t>(size_));
    for (const Part& p : parts_) {
      const auto* labels = static_cast<const uint8_t*>(p.labels.bytes->data());
      const int64_t first = p.end - p.images.dims[0];
      for (int64_t j = 0; j < p.images.dims[0]; ++j) out.emplace_back(labels[j], first + j);
    }
    return out;
  }

 private:
  struct Part {
    Idx images, labels;
    int64_t end;  // one past this part's last row in the dataset
  };
  std::string name_;
  std::vector<Part> parts_;
  int64_t size_ = 0;
};

// ----- CIFAR-10 -----

constexpr int64_t kCifarSide = 32, kCifarImage = 3 * kCifarSide * kCifarSide;
constexpr int64_t kCifarRecord = 1 + kCifarImage;

class Cifar10Source final : public RandomAccessSource {
 public:
  Cifar10Source(const std::string& dir, const std::string& usage) {
    check_dir(name(), dir);
    std::string_view key = usage == "train" ? "data_batch" : usage == "test" ? "test_batch" : "";
    MC_CHECK(!key.empty() || usage == "all", Value, name(),
             ": usage must be 'train', 'test' or 'all', but got '", usage, "'.");
    std::vector<std::string> paths;
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
      std::string file = e.path().filename().string();
      bool wanted = key.empty() ? file.find("data_batch") != std::string::npos ||
                                      file.find("test_batch") != std::string::npos
                                : file.find(key) != std::string::npos;
      if (wanted && e.path().extension() == ".bin" && is_file(e.path().string())) {
        paths.push_back(e.path().string());
      }
    }
    MC_CHECK(!ec, Runtime, name(), ": cannot list ", dir, ": ", ec.message());
    std::sort(paths.begin(), paths.end());
    MC_CHECK(!paths.empty(), Runtime, name(), ": ", dir, " holds no ",
             key.empty() ? std::string("data_batch_*.bin or test_batch.bin")
                         : str(key, key == "data_batch" ? "_*" : "", ".bin"),
             " file for usage '", usage, "'.");
    for (const std::string& path : paths) load(path);
  }

  std::string_view name() const override { return "Cifar10Dataset"; }
  int64_t size() const override { return size_; }
  std::vector<std::string> columns() const override { return {"image", "label"}; }

  Row read(int64_t i) const override {
    auto file = std::upper_bound(files_.begin(), files_.end(), i,
                                 [](int64_t v, const File& f) { return v < f.end; });
    const int64_t records = static_cast<int64_t>(file->bytes->nbytes()) / kCifarRecord;
    const uint8_t* rec = static_cast<const uint8_t*>(file->bytes->data()) +
                         (i - (file->end - records)) * kCifarRecord;
    Array image = Array::empty(DataType::UInt8, {kCifarSide, kCifarSide, 3});
    uint8_t* out = image.mutable_data<uint8_t>();
    constexpr int64_t plane = kCifarSide * kCifarSide;
    for (int64_t p = 0; p < plane; ++p) {
      for (int64_t c = 0; c < 3; ++c) out[p * 3 + c] = rec[1 + c * plane + p];
    }
    return {std::move(image), Array::scalar<uint32_t>(rec[0])};
  }

  std::vector<std::pair<int64_t, int64_t>> class_rows() const override {
    std::vector<std::pair<int64_t, int64_t>> out;
    out.reserve(static_cast<size_t>(size_));
    for (const File& f : files_) {
      const int64_t records = static_cast<int64_t>(f.bytes->nbytes()) / kCifarRecord;
      const auto* data = static_cast<const uint8_t*>(f.bytes->data());
      for (int64_t r = 0; r < records; ++r) {
        out.emplace_back(data[r * kCifarRecord], f.end - records + r);
      }
    }
    return out;
  }

 private:
  void load(const std::string& path) {
    std::error_code ec;
    const uintmax_t bytes = fs::file_size(path, ec);
    MC_CHECK(!ec, Runtime, name(), ": cannot read ", path, ": ", ec.message());
    MC_CHECK(bytes > 0 && bytes % kCifarRecord == 0, Runtime, name(), ": ", path, " is ", bytes,
             " bytes, not a whole number of ", kCifarRecord,
             "-byte records (a label byte and a 3x32x32 image): the file is truncated or "
             "corrupt.");
    File f;
    f.bytes = Storage::allocate(bytes);
    ByteReader in(name(), path, false);
    size_t got = in.read(f.bytes->data(), bytes);
    MC_CHECK(got == bytes, Runtime, name(), ": ", path, " shrank from ", bytes, " to ", got,
             " bytes while being read.");
    const uint8_t* data = static_cast<const uint8_t*>(f.bytes->data());
    const int64_t records = static_cast<int64_t>(bytes) / kCifarRecord;
    for (int64_t r = 0; r < records; ++r) {
      uint8_t label = data[r * kCifarRecord];
      MC_CHECK(label < 10, Runtime, name(), ": ", path, " record ", r, " has label ", int{label},
               ", outside [0, 9]: the file is corrupt or not a CIFAR-10 binary.");
    }
    size_ += records;
    f.end = size_;
    files_.push_back(std::move(f));
  }

  struct File {
    std::shared_ptr<Storage> bytes;
    int64_t end = 0;  // one past this file's last row in the dataset
  };
  std::vector<File> files_;
  int64_t size_ = 0;
};

// ----- image folder -----

class ImageFolderSource final : public RandomAccessSource {
 public:
  ImageFolderSource(const std::string& dir, const std::vector<std::string>& extensions,
                    std::map<std::string, int32_t> class_indexing, bool decode)
      : decode_(decode) {
    check_dir(name(), dir);
    std::vector<std::string> folders;
    try {
      for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
        if (e.is_directory()) folders.push_back(e.path().filename().string());
      }
      std::sort(folders.begin(), folders.end());
      for (const auto& [cls, id] : class_indexing) {
        MC_CHECK(std::binary_search(folders.begin(), folders.end(), cls), Value, name(),
                 ": class_indexing names class '", cls, "', but ", dir,
                 " has no sub-directory of that name.");
      }
      if (class_indexing.empty()) {
        for (size_t k = 0; k < folders.size(); ++k) {
          class_indexing[folders[k]] = static_cast<int32_t>(k);
        }
      }
      for (const std::string& folder : folders) {
        auto cls = class_indexing.find(folder);
        if (cls == class_indexing.end()) continue;
        std::vector<std::string> files;
        for (const fs::directory_entry& e : fs::directory_iterator(join(dir, folder))) {
          std::string ext = e.path().extension().string();
          if (e.is_regular_file() &&
              (extensions.empty() ||
               std::find(extensions.begin(), extensions.end(), ext) != extensions.end())) {
            files.push_back(e.path().string());
          }
        }
        std::sort(files.begin(), files.end());
        for (std::string& f : files) images_.push_back({std::move(f), cls->second});
      }
    } catch (const fs::filesystem_error& e) {
      MC_THROW(Runtime, name(), ": cannot list ", e.path1().string(), ": ", e.code().message());
    }
    std::string exts;
    for (const std::string& e : extensions) exts += (exts.empty() ? "" : ", ") + e;
    MC_CHECK(!images_.empty(), Runtime, name(), ": no images found in the class folders of ", dir,
             extensions.empty() ? "" : str(" with extensions [", exts, "]"),
             folders.empty() ? " (it has no sub-directories)" : "", ".");
    class_indexing_ = std::move(class_indexing);
  }

  std::string_view name() const override { return "ImageFolderDataset"; }
  int64_t size() const override { return static_cast<int64_t>(images_.size()); }
  std::vector<std::string> columns() const override { return {"image", "label"}; }
  const std::map<std::string, int32_t>& class_indexing() const { return class_indexing_; }
  std::vector<std::pair<int64_t, int64_t>> class_rows() const override {
    std::vector<std::pair<int64_t, int64_t>> out;
    for (size_t i = 0; i < images_.size(); ++i) {
      out.emplace_back(images_[i].label, static_cast<int64_t>(i));
    }
    return out;
  }

  std::string file_of_row(int64_t i) const override {
    return i >= 0 && i < size() ? images_[static_cast<size_t>(i)].path : std::string();
  }

  Row read(int64_t i) const override {
    const Image& im = images_[static_cast<size_t>(i)];
    std::error_code ec;
    const uintmax_t bytes = fs::file_size(im.path, ec);
    MC_CHECK(!ec, Runtime, name(), ": cannot read ", im.path, ": ", ec.message());
    Array raw = Array::empty(DataType::UInt8, {static_cast<int64_t>(bytes)});
    ByteReader in(name(), im.path, false);
    size_t got = in.read(raw.mutable_raw(), bytes);
    MC_CHECK(got == bytes && in.skip_rest() == 0, Runtime, name(), ": ", im.path,
             " changed size while being read.");
    Array label = Array::scalar<int32_t>(im.label);
    if (!decode_) return {std::move(raw), std::move(label)};
    try {
      return {decode_image(raw.data<uint8_t>(), bytes, im.path), std::move(label)};
    } catch (const Error& e) {
      throw Error(e.kind(), str(name(), ": row ", i, ": ", e.message()));
    }
  }

 private:
  struct Image {
    std::string path;
    int32_t label;
  };
  std::vector<Image> images_;
  std::map<std::string, int32_t> class_indexing_;
  bool decode_;
};

}  // namespace

SourcePtr mnist_source(std::string_view name, const std::string& dataset_dir,
                       const std::string& usage) {
  return std::make_shared<MnistSource>(name, dataset_dir, usage);
}

SourcePtr emnist_source(const std::string& dataset_dir, const std::string& name,
                        const std::string& usage) {
  static const char* const kNames[] = {"byclass", "bymerge", "balanced",
                                       "letters", "digits",  "mnist"};
  MC_CHECK(std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames), Value,
           "EMnistDataset: name must be one of byclass, bymerge, balanced, letters, digits, mnist, "
           "but got '",
           name, "'.");
  return std::make_shared<MnistSource>("EMnistDataset", dataset_dir, usage,
                                       str("emnist-", name, "-train"),
                                       str("emnist-", name, "-test"));
}

SourcePtr cifar10_source(const std::string& dataset_dir, const std::string& usage) {
  return std::make_shared<Cifar10Source>(dataset_dir, usage);
}

SourcePtr image_folder_source(const std::string& dataset_dir,
                              const std::vector<std::string>& extensions,
                              const std::map<std::string, int32_t>& class_indexing, bool decode,
                              std::map<std::string, int32_t>* class_indexing_out) {
  auto src = std::make_shared<ImageFolderSource>(dataset_dir, extensions, class_indexing, decode);
  if (class_indexing_out) *class_indexing_out = src->class_indexing();
  return src;
}

}  // namespace mycel::data

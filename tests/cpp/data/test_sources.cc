// File sources (src/data/sources.h) on small files written here: every column against the bytes
// written, and the error of each malformed input (kind and the file it names).
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "data/image_codec.h"
#include "data/sources.h"

namespace mycel::data {
namespace {

namespace fs = std::filesystem;

// An empty directory under the system temp dir, removed with the object.
class TempDir : public fs::path {
 public:
  explicit TempDir(const std::string& name)
      : fs::path(fs::temp_directory_path() / (name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(*this);
    fs::create_directories(*this);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(*this, ec);
  }
};

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void write_gz(const fs::path& path, const std::string& bytes) {
  gzFile f = gzopen(path.string().c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(f);
}

std::string be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// Pixel k of image i in the generated idx files, and its label.
uint8_t pixel(int i, int k) { return static_cast<uint8_t>(i * 37 + k * 11 + 5); }
uint8_t label(int i) { return static_cast<uint8_t>((i * 7) % 10); }

// {prefix}-images-idx3-ubyte and {prefix}-labels-idx1-ubyte with n images of h x w.
void write_mnist(const fs::path& dir, const std::string& prefix, int n, int h, int w, bool gz,
                 int first = 0) {
  std::string images = be32(2051) + be32(n) + be32(h) + be32(w), labels = be32(2049) + be32(n);
  for (int i = first; i < first + n; ++i) {
    for (int k = 0; k < h * w; ++k) images += static_cast<char>(pixel(i, k));
    labels += static_cast<char>(label(i));
  }
  auto put = gz ? write_gz : write_file;
  std::string z = gz ? ".gz" : "";
  put(dir / (prefix + "-images-idx3-ubyte" + z), images);
  put(dir / (prefix + "-labels-idx1-ubyte" + z), labels);
}

template <class F>
void expect_error(F&& f, ErrorKind kind, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "no error; expected one with: " << part;
  } catch (const Error& e) {
    EXPECT_EQ(static_cast<int>(e.kind()), static_cast<int>(kind)) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

std::string text_of(const Array& a) {
  EXPECT_EQ(a.dtype(), DataType::String);
  EXPECT_EQ(a.ndim(), 0);
  return a.str().at(0);
}

TEST(DataSources, MnistPlainAndGzippedSplits) {
  for (bool gz : {false, true}) {
    TempDir dir(gz ? "mycel_src_mnist_gz" : "mycel_src_mnist");
    write_mnist(dir, "train", 5, 4, 3, gz);
    write_mnist(dir, "t10k", 3, 4, 3, gz, 5);  // test rows continue the numbering
    for (auto [usage, first, n] : {std::tuple{"train", 0, 5}, {"test", 5, 3}, {"all", 0, 8}}) {
      SourcePtr src = mnist_source("MnistDataset", dir.string(), usage);
      ASSERT_EQ(src->size(), n) << usage;
      EXPECT_EQ(src->columns(), (std::vector<std::string>{"image", "label"}));
      for (int i = 0; i < n; ++i) {
        Row row = src->read(i);
        ASSERT_EQ(row[0].dtype(), DataType::UInt8);
        ASSERT_EQ(row[0].shape(), (Shape{4, 3, 1}));
        for (int k = 0; k < 12; ++k) EXPECT_EQ(row[0].data<uint8_t>()[k], pixel(first + i, k));
        ASSERT_EQ(row[1].dtype(), DataType::UInt32);
        ASSERT_EQ(row[1].ndim(), 0);
        EXPECT_EQ(*row[1].data<uint32_t>(), label(first + i));
      }
    }
  }
}

TEST(DataSources, MnistAllReadsTheSplitsPresent) {
  TempDir dir("mycel_src_mnist_train_only");
  write_mnist(dir, "train", 6, 2, 2, false);
  EXPECT_EQ(mnist_source("FashionMnistDataset", dir.string(), "all")->size(), 6);
  expect_error(
      [&] { mnist_source("FashionMnistDataset", dir.string(), "test"); }, ErrorKind::Runtime,
      "FashionMnistDataset: the file " + (dir / "t10k-images-idx3-ubyte").string() + " (or ");
}

TEST(DataSources, MnistErrorsNameTheFile) {
  TempDir dir("mycel_src_mnist_bad");
  expect_error([&] { mnist_source("MnistDataset", (dir / "nowhere").string(), "all"); },
               ErrorKind::Value, "does not exist");
  write_mnist(dir, "train", 7, 4, 3, false);
  expect_error([&] { mnist_source("MnistDataset", dir.string(), "valid"); }, ErrorKind::Value,
               "usage must be 'train', 'test' or 'all', but got 'valid'");
  fs::path images = dir / "train-images-idx3-ubyte";
  std::string good;
  {
    std::ifstream in(images, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  write_file(images, good.substr(0, good.size() - 5));
  expect_error([&] { mnist_source("MnistDataset", dir.string(), "train"); }, ErrorKind::Runtime,
               "train-images-idx3-ubyte is 95 bytes but its header [7, 4, 3] says 100");
  write_file(images, good + "xx");
  expect_error([&] { mnist_source("MnistDataset", dir.string(), "train"); }, ErrorKind::Runtime,
               "is 102 bytes");
  write_file(images, good.substr(0, 10));
  expect_error([&] { mnist_source("MnistDataset", dir.string(), "train"); }, ErrorKind::Runtime,
               "is truncated: 10 bytes, shorter than the 16-byte idx header");
  write_file(images, be32(2049) + good.substr(4));
  expect_error([&] { mnist_source("MnistDataset", dir.string(), "train"); }, ErrorKind::Runtime,
               "has magic number 0x00000801, expected 0x00000803 (an idx image file)");
  write_file(images, good);
  write_file(dir / "train-labels-idx1-ubyte", be32(2049) + be32(6) + std::string(6, '\0'));
  expect_error([&] { mnist_source("MnistDataset", dir.string(), "train"); }, ErrorKind::Runtime,
               "has 7 images but");
  // A gzip stream cut short.
  write_mnist(dir, "t10k", 3, 4, 3, true);
  fs::path gz = dir / "t10k-images-idx3-ubyte.gz";
  std::string zipped;
  {
    std::ifstream in(gz, std::ios::binary);
    zipped.assign(std::istreambuf_iterator<char>(in), {});
  }
  write_file(gz, zipped.substr(0, zipped.size() - 12));
  expect_error([&] { mnist_source("MnistDataset", dir.string(), "test"); }, ErrorKind::Runtime,
               "cannot read " + gz.string());
}

// CIFAR-10 records: label, then the R, G and B planes of 32x32.
std::string cifar_records(int n, int first) {
  std::string out;
  for (int i = first; i < first + n; ++i) {
    out += static_cast<char>(label(i));
    for (int k = 0; k < 3 * 32 * 32; ++k) out += static_cast<char>(pixel(i, k));
  }
  return out;
}

TEST(DataSources, Cifar10ReadsHwcImagesInFileOrder) {
  TempDir dir("mycel_src_cifar");
  write_file(dir / "data_batch_2.bin", cifar_records(2, 3));
  write_file(dir / "data_batch_1.bin", cifar_records(3, 0));
  write_file(dir / "test_batch.bin", cifar_records(2, 5));
  write_file(dir / "batches.meta.txt", "airplane\n");
  for (auto [usage, first, n] : {std::tuple{"train", 0, 5}, {"test", 5, 2}, {"all", 0, 7}}) {
    SourcePtr src = cifar10_source(dir.string(), usage);
    ASSERT_EQ(src->size(), n) << usage;
    for (int i = 0; i < n; ++i) {
      Row row = src->read(i);
      ASSERT_EQ(row[0].shape(), (Shape{32, 32, 3}));
      const uint8_t* im = row[0].data<uint8_t>();
      for (int y : {0, 7, 31}) {
        for (int x : {0, 13, 31}) {
          for (int c = 0; c < 3; ++c) {
            EXPECT_EQ(im[(y * 32 + x) * 3 + c], pixel(first + i, c * 1024 + y * 32 + x));
          }
        }
      }
      EXPECT_EQ(row[1].dtype(), DataType::UInt32);
      EXPECT_EQ(*row[1].data<uint32_t>(), label(first + i));
    }
  }
  write_file(dir / "data_batch_2.bin", cifar_records(2, 3).substr(0, 5000));
  expect_error([&] { cifar10_source(dir.string(), "train"); }, ErrorKind::Runtime,
               "data_batch_2.bin is 5000 bytes, not a whole number of 3073-byte records");
  expect_error([&] { cifar10_source(TempDir("mycel_src_cifar_empty").string(), "all"); },
               ErrorKind::Runtime, "holds no data_batch_*.bin or test_batch.bin file");
}

TEST(DataSources, ImageFolderLabelsFoldersAndReadsBytes) {
  TempDir dir("mycel_src_folder");
  for (const char* cls : {"dog", "cat", "empty"}) fs::create_directories(dir / cls);
  write_file(dir / "dog" / "b.png", "dog-b");
  write_file(dir / "dog" / "a.jpg", "dog-a");
  write_file(dir / "cat" / "z.png", "cat-z");
  write_file(dir / "cat" / "notes.txt", "not an image");
  std::map<std::string, int32_t> used;
  SourcePtr src = image_folder_source(dir.string(), {".png", ".jpg"}, {}, false, &used);
  EXPECT_EQ(used, (std::map<std::string, int32_t>{{"cat", 0}, {"dog", 1}, {"empty", 2}}));
  ASSERT_EQ(src->size(), 3);
  const std::vector<std::pair<std::string, int32_t>> want = {
      {"cat-z", 0}, {"dog-a", 1}, {"dog-b", 1}};
  for (int i = 0; i < 3; ++i) {
    Row row = src->read(i);
    ASSERT_EQ(row[0].dtype(), DataType::UInt8);
    EXPECT_EQ(std::string(static_cast<const char*>(row[0].raw()), row[0].numel()), want[i].first);
    EXPECT_EQ(row[1].dtype(), DataType::Int32);
    EXPECT_EQ(*row[1].data<int32_t>(), want[i].second);
  }
  EXPECT_EQ(image_folder_source(dir.string(), {}, {}, false, nullptr)->size(), 4);
  src = image_folder_source(dir.string(), {}, {{"dog", 7}}, false, &used);
  EXPECT_EQ(src->size(), 2);
  EXPECT_EQ(*src->read(0)[1].data<int32_t>(), 7);
  expect_error(
      [&] {
        image_folder_source(dir.string(), {}, {{"cow", 0}}, false, nullptr);
      },
      ErrorKind::Value, "class_indexing names class 'cow'");
  expect_error([&] { image_folder_source(dir.string(), {".bmp"}, {}, false, nullptr); },
               ErrorKind::Runtime, "no images found");
  expect_error([&] { image_folder_source((dir / "nowhere").string(), {}, {}, false, nullptr); },
               ErrorKind::Value, "does not exist");
  // decode: a PNG comes back as the image encoded; a file that is no image names its path
  Array rgb = Array::empty(DataType::UInt8, {2, 3, 3});
  for (int k = 0; k < 18; ++k) rgb.mutable_data<uint8_t>()[k] = static_cast<uint8_t>(k * 13);
  std::vector<uint8_t> png = encode_png(rgb);
  write_file(dir / "cat" / "z.png", std::string(png.begin(), png.end()));
  src = image_folder_source(dir.string(), {".png"}, {}, true, nullptr);
  Array im = src->read(0)[0];
  ASSERT_EQ(im.shape(), (Shape{2, 3, 3}));
  EXPECT_EQ(std::memcmp(im.raw(), rgb.raw(), 18), 0);
  expect_error([&] { src->read(1); }, ErrorKind::Runtime, (dir / "dog" / "b.png").string());
}

TEST(DataSources, TextFileLinesAcrossFiles) {
  TempDir dir("mycel_src_text");
  write_file(dir / "a.txt", "first\r\nsecond\n\nthird");
  write_file(dir / "b.txt", "fourth\n");
  write_file(dir / "c.txt", "");
  SourcePtr src = text_file_source(
      {(dir / "a.txt").string(), (dir / "b.txt").string(), (dir / "c.txt").string()});
  EXPECT_EQ(src->columns(), std::vector<std::string>{"text"});
  ASSERT_EQ(src->size(), 4);
  const char* want[] = {"first", "second", "third", "fourth"};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(text_of(src->read(i)[0]), want[i]);
  expect_error([&] { text_file_source({(dir / "nope.txt").string()}); }, ErrorKind::Runtime,
               "TextFileDataset: cannot read " + (dir / "nope.txt").string());
  write_file(dir / "bad.txt", "ok\n\xff\xfe\n");
  src = text_file_source({(dir / "bad.txt").string()});
  expect_error([&] { src->read(1); }, ErrorKind::Runtime, "bad.txt:2: the line is not valid UTF-8");
}

TEST(DataSources, CsvQuotingTypesAndDefaults) {
  TempDir dir("mycel_src_csv");
  write_file(dir / "a.csv",
             "id,score,name\n"
             "1,0.5,plain\n"
             "-2,,\"with, comma\"\r\n"
             "+3,1e3,\"two\nlines and \"\"quotes\"\"\"\n"
             ",-4.25,\n");
  std::vector<CsvDefault> defaults(3);
  defaults[0].type = DataType::Int32;
  defaults[0].i = 99;
  defaults[1].type = DataType::Float32;
  defaults[1].f = 7.5f;
  defaults[2].s = "none";
  SourcePtr src = csv_source({(dir / "a.csv").string()}, ',', defaults, {});
  EXPECT_EQ(src->columns(), (std::vector<std::string>{"id", "score", "name"}));
  ASSERT_EQ(src->size(), 4);
  const int32_t ids[] = {1, -2, 3, 99};
  const float scores[] = {0.5f, 7.5f, 1000.f, -4.25f};
  const char* names[] = {"plain", "with, comma", "two\nlines and \"quotes\"", "none"};
  for (int i = 0; i < 4; ++i) {
    Row row = src->read(i);
    ASSERT_EQ(row[0].dtype(), DataType::Int32);
    EXPECT_EQ(*row[0].data<int32_t>(), ids[i]);
    ASSERT_EQ(row[1].dtype(), DataType::Float32);
    EXPECT_EQ(*row[1].data<float>(), scores[i]);
    EXPECT_EQ(text_of(row[2]), names[i]);
  }
  // No defaults: every column str; given names: the first line is data.
  src = csv_source({(dir / "a.csv").string()}, ',', {}, {"x", "y", "z"});
  ASSERT_EQ(src->size(), 5);
  EXPECT_EQ(text_of(src->read(0)[1]), "score");
  EXPECT_EQ(text_of(src->read(2)[1]), "");

  write_file(dir / "bad.csv", "a;b\n1;2\nx;3\n4;5;6\n4000000000;1\n");
  defaults.resize(2);
  src = csv_source({(dir / "bad.csv").string()}, ';', defaults, {});
  EXPECT_EQ(*src->read(0)[1].data<float>(), 2.f);
  expect_error([&] { src->read(1); }, ErrorKind::Runtime,
               "bad.csv:3: column 'a' (int32): cannot parse 'x' as an int32");
  expect_error([&] { src->read(2); }, ErrorKind::Runtime,
               "bad.csv:4: the record has 3 fields but there are 2 columns");
  expect_error([&] { src->read(3); }, ErrorKind::Runtime, "as an int32 (out of range)");
  write_file(dir / "open.csv", "a\n\"never closed\n");
  expect_error([&] { csv_source({(dir / "open.csv").string()}, ',', {}, {}); }, ErrorKind::Runtime,
               "open.csv:2: a quoted field is not closed");
  expect_error([&] { csv_source({(dir / "a.csv").string()}, ',', defaults, {}); }, ErrorKind::Value,
               "column_defaults has 2 values but there are 3 columns");
  write_file(dir / "other.csv", "id,score\n1,2\n");
  expect_error(
      [&] {
        csv_source({(dir / "a.csv").string(), (dir / "other.csv").string()}, ',', {}, {});
      },
      ErrorKind::Runtime, "differs from that of");
}

TEST(DataSources, ReadsAreThreadSafe) {
  TempDir dir("mycel_src_threads");
  write_mnist(dir, "train", 64, 3, 3, true);
  SourcePtr src = mnist_source("MnistDataset", dir.string(), "train");
  std::vector<std::thread> workers;
  std::vector<int> bad(4, 0);
  for (int t = 0; t < 4; ++t) {
    workers.emplace_back([&, t] {
      for (int rep = 0; rep < 50; ++rep) {
        for (int i = t; i < 64; i += 4) {
          Row row = src->read(i);
          bad[t] +=
              row[0].data<uint8_t>()[4] != pixel(i, 4) || *row[1].data<uint32_t>() != label(i);
        }
      }
    });
  }
  for (std::thread& w : workers) w.join();
  EXPECT_EQ(bad, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace mycel::data

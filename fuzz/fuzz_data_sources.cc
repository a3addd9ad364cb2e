// Fuzzes the data engine's file sources that parse index, annotation and data files in C++
// (src/data/sources_text.cc, sources_text_corpora.cc, sources_image.cc, sources_image_sets.cc,
// sources_detection.cc) and JiebaTokenizer's model files (transforms_jieba.cc): the Python
// classes over them take whatever files a user downloads.
//
// Input: a selector byte, an options byte, then the files' bytes, separated by the line
// "\n==>\n" (the first part is the first file, and so on; a missing part is an empty file).
// The selector picks the reader (kReaders below says which files each takes); the options
// pick among its arguments (delimiter, column types, task, usage, compression). The files are
// written into a fresh directory under their dataset's names, the source is built from it and
// every row is read and touched (at most 4096); only mycel's typed errors are accepted.
//
// Plain mutations with a dictionary (fuzz/data_sources.dict: the formats' keys, tags and
// magic numbers) suffice: none of these formats carries a checksum.
//
// Run: make fuzz, or build-fuzz/fuzz_data_sources -dict=fuzz/data_sources.dict CORPUS
//      fuzz/corpus/data_sources
#include <zlib.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "data/sources.h"
#include "data/sources_text_corpora.h"
#include "data/sources_vision.h"
#include "data/transforms_jieba.h"
#include "fuzz_common.h"
#include "fuzz_files.h"

namespace {

namespace data = mycel::data;
using data::DataType;
using data::SourcePtr;

constexpr std::string_view kSeparator = "\n==>\n";

std::vector<std::string_view> parts_of(std::string_view s) {
  std::vector<std::string_view> out;
  for (;;) {
    const size_t at = s.find(kSeparator);
    if (at == std::string_view::npos) break;
    out.push_back(s.substr(0, at));
    s.remove_prefix(at + kSeparator.size());
  }
  out.push_back(s);
  return out;
}

std::string gzip(std::string_view in) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::string out(deflateBound(&zs, in.size()) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

struct Input {
  std::string dir;
  uint8_t opts;
  std::vector<std::string_view> parts;
  std::string_view part(size_t i) const { return i < parts.size() ? parts[i] : std::string_view(); }
  std::string put(const std::string& name, size_t i) const {
    return mycel::fuzz::put_file(dir, name, part(i));
  }
};

SourcePtr csv(const Input& in) {
  const std::string path = in.put("data.csv", 0);
  std::vector<data::CsvDefault> defaults;
  if (in.opts & 1) {
    defaults.resize(3);
    defaults[0].type = DataType::Int32;
    defaults[0].i = 7;
    defaults[1].type = DataType::Float32;
    defaults[1].f = 0.5f;
    defaults[2].type = DataType::String;
    defaults[2].s = "x";
  }
  std::vector<std::string> names;
  if (in.opts & 2) names = {"a", "b", "c"};
  return data::csv_source({path, path}, (in.opts & 4) ? '\t' : ',', defaults, names);
}

SourcePtr mnist(const Input& in) {
  const bool gz = in.opts & 1;
  for (size_t i = 0; i < 2; ++i) {
    std::string name = i == 0 ? "train-images-idx3-ubyte" : "train-labels-idx1-ubyte";
    if (gz) {
      mycel::fuzz::put_file(in.dir, name + ".gz", gzip(in.part(i)));
    } else {
      in.put(name, i);
    }
  }
  return data::mnist_source("MnistDataset", in.dir, (in.opts & 2) ? "all" : "train");
}

SourcePtr coco(const Input& in) {
  static const char* const kTasks[] = {"Detection", "Stuff", "Keypoint", "Panoptic", "Captioning"};
  const std::string path = in.put("annotations.json", 0);
  data::ClassTable classes;
  return data::coco_source(in.dir, path, kTasks[in.opts % 5], false, in.opts & 8, &classes);
}

SourcePtr voc(const Input& in) {
  in.put("Annotations/a.xml", 0);
  in.put("Annotations/b.xml", 2);
  const bool seg = in.opts & 1;
  in.put(seg ? "ImageSets/Segmentation/train.txt" : "ImageSets/Main/train.txt", 1);
  std::map<std::string, int32_t> indexing;
  if ((in.opts & 2) && !seg) indexing = {{"dog", 0}, {"cat", 3}};
  data::ClassTable classes;
  return data::voc_source(in.dir, seg ? "Segmentation" : "Detection", "train", indexing, false,
                          in.opts & 4, &classes);
}

SourcePtr manifest(const Input& in) {
  const std::string path = in.put("manifest.json", 0);
  mycel::fuzz::put_file(in.dir, "a.png", "\x89PNG\r\n\x1a\n");  // sniffed by its magic bytes
  std::map<std::string, int32_t> indexing;
  if (in.opts & 1) indexing = {{"dog", 0}, {"cat", 1}};
  data::ClassTable classes;
  int64_t num_classes = 0;
  static const char* const kUsages[] = {"train", "eval", "inference"};
  return data::manifest_source(path, kUsages[(in.opts >> 1) % 3], indexing, false, &classes,
                               &num_classes);
}

SourcePtr celeba(const Input& in) {
  in.put("list_attr_celeba.txt", 0);
  in.put("list_eval_partition.txt", 1);
  static const char* const kUsages[] = {"all", "train", "valid", "test"};
  std::vector<std::string> ext;
  if (in.opts & 4) ext = {".jpg"};
  return data::celeba_source(in.dir, kUsages[in.opts % 4], ext, false);
}

SourcePtr lfw(const Input& in) {
  const bool pairs = in.opts & 1;
  in.put(pairs ? "pairs.txt" : "people.txt", 0);
  in.put("lfw-names.txt", 1);
  for (const char* f : {"lfw/Aaron/Aaron_0001.jpg", "lfw/Bob/Bob_0001.jpg", "lfw/Bob/Bob_0002.jpg"})
    mycel::fuzz::put_file(in.dir, f, "x");
  return data::lfw_source(in.dir, pairs ? "pairs" : "people", "10fold", "original", false);
}

SourcePtr sun397(const Input& in) {
  in.put("ClassName.txt", 0);
  mycel::fuzz::put_file(in.dir, "a/abbey/sun_a.jpg", "x");
  return data::sun397_source(in.dir, false);
}

SourcePtr json_lines(const Input& in) {
  const std::string path = in.put("train.json", 0);
  return data::json_lines_source(
      "CLUEDataset", {path},
      {{"sentence", "sentence"}, {"label", "label"}, {"span", "target/span1_index"}});
}

SourcePtr token_table(const Input& in) {
  const std::string path = in.put("train.txt", 0);
  return data::token_table_source("CoNLL2000Dataset", {path}, (in.opts & 1) ? '\t' : ' ',
                                  {"word", "pos_tag", "chunk_tag"});
}

SourcePtr parallel(const Input& in) {
  const std::string a = in.put("train.de", 0), b = in.put("train.en", 1);
  static const data::ParallelFormat kFormats[] = {data::ParallelFormat::Lines,
                                                  data::ParallelFormat::TagLines,
                                                  data::ParallelFormat::XmlSegments};
  return data::parallel_text_source("IWSLT2016Dataset", {{a, b}}, {kFormats[in.opts % 3]},
                                    {"text", "translation"});
}

// JiebaTokenizer's model files (src/data/transforms_jieba.cc): the HMM model and the
// dictionary, then a few sentences cut in the mode the options pick.
SourcePtr jieba(const Input& in) {
  const std::string hmm = in.put("hmm_model.utf8", 0), dict = in.put("jieba.dict.utf8", 1);
  static const char* const kModes[] = {"MIX", "MP", "HMM"};
  auto t = data::make_jieba_tokenizer(hmm, dict, kModes[in.opts % 3], in.opts & 4,
                                      {{"\xe6\x9c\xba\xe5\x99\xa8", 10.0}, {"x", -1.0}});
  static const char* const kTexts[] = {
      "\xe4\xbb\x8a\xe5\xa4\xa9\xe5\xa4\xa9\xe6\xb0\x94\xe5\xa5\xbd abc 3.14",
      "\xe6\x9c\xba\xe5\x99\xa8\xe5\xad\xa6\xe4\xb9\xa0\xef\xbc\x8c\xe3\x80\x82x", ""};
  for (const char* text : kTexts) {
    mycel::fuzz::expect_typed_errors(
        [&] { mycel::fuzz::touch_row(t->apply({data::Array::strings({text}, {})}, 0, nullptr)); });
  }
  return nullptr;
}

struct Reader {
  const char* name;  // what the selector byte picks, for the corpus and the docs
  SourcePtr (*make)(const Input&);
};

const Reader kReaders[] = {
    {"csv", csv},  // data.csv (read twice, as two files)
    {"text", [](const Input& in) { return data::text_file_source({in.put("a.txt", 0)}); }},
    {"mnist", mnist},  // images idx3, labels idx1
    {"cifar10",
     [](const Input& in) {
       in.put("data_batch_1.bin", 0);
       in.put("test_batch.bin", 1);
       return data::cifar10_source(in.dir, (in.opts & 1) ? "all" : "train");
     }},
    {"voc", voc},            // Annotations/a.xml, ImageSets/.../train.txt, Annotations/b.xml
    {"coco", coco},          // annotations.json
    {"manifest", manifest},  // manifest.json (JSON lines)
    {"celeba", celeba},      // list_attr_celeba.txt, list_eval_partition.txt
    {"lfw", lfw},            // people.txt or pairs.txt, lfw-names.txt
    {"sun397", sun397},      // ClassName.txt
    {"squad", [](const Input& in) { return data::squad_source({in.put("train.json", 0)}); }},
    {"clue", json_lines},         // train.json (JSON lines)
    {"conll", token_table},       // train.txt
    {"parallel_text", parallel},  // train.de, train.en
    {"jieba", jieba},             // hmm_model.utf8, jieba.dict.utf8 (a transform, no source)
};
constexpr size_t kNumReaders = sizeof(kReaders) / sizeof(kReaders[0]);

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  if (size < 2) return 0;
  Input in;
  in.opts = bytes[1];
  in.parts = parts_of(std::string_view(reinterpret_cast<const char*>(bytes) + 2, size - 2));
  in.dir = mycel::fuzz::input_dir("data_sources");
  const Reader& reader = kReaders[bytes[0] % kNumReaders];
  mycel::fuzz::expect_typed_errors([&] {
    SourcePtr src = reader.make(in);
    if (src) mycel::fuzz::read_all(*src, [](auto&& fn) { mycel::fuzz::expect_typed_errors(fn); });
  });
  return 0;
}

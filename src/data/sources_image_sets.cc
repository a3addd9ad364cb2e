// ManifestDataset, CelebADataset, LSUNDataset, OmniglotDataset, SUN397Dataset and LFWDataset
// (sources_vision.h): their index files (Manifest's JSON lines through nlohmann-json, CelebA's
// attribute and partition tables, SUN397's class list) or folder layouts, read into an
// ImageTableSource at construction.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "data/image_table.h"
#include "data/sources_vision.h"

namespace mycel::data {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void check_dir(std::string_view func, const std::string& dir) {
  std::error_code ec;
  MC_CHECK(fs::is_directory(dir, ec), Value, func, ": the dataset_dir ", dir,
           " does not exist or is not a directory.");
}

// The lines of text ("\n" or "\r\n"), the last one without a newline included.
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
    start = end + 1;
  }
  return out;
}

// The whitespace-separated words of a line.
std::vector<std::string_view> words_of(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// The sorted names of the entries of dir that are directories (or regular files).
std::vector<std::string> list_dir(std::string_view func, const std::string& dir, bool dirs) {
  std::vector<std::string> out;
  try {
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
      if (dirs ? e.is_directory() : e.is_regular_file()) out.push_back(e.path().filename());
    }
  } catch (const fs::filesystem_error& e) {
    MC_THROW(Runtime, func, ": cannot list ", e.path1().string(), ": ", e.code().message());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Whether the file starts like a JPEG, PNG, GIF or BMP image (Manifest keeps only those).
bool looks_like_image(std::string_view func, const std::string& path) {
  const std::string head = read_file_head(func, path, 3);
  MC_CHECK(head.size() == 3, Runtime, func, ": Invalid manifest file, failed to read ", path,
           ": the image file has ", head.size(), " bytes (empty or truncated).");
  const auto b = [&](size_t i) { return i < head.size() ? static_cast<uint8_t>(head[i]) : 0; };
  return (b(0) == 0xff && b(1) == 0xd8 && b(2) == 0xff) ||
         (b(0) == 0x89 && b(1) == 0x50 && b(2) == 0x4e) ||
         (b(0) == 0x47 && b(1) == 0x49 && b(2) == 0x46) || (b(0) == 0x42 && b(1) == 0x4d);
}

// An image table whose rows each have one class (folder-style data sets): "image", "label"
// (label_type uint32 or int32, 0-d).
SourcePtr folder_table(std::string_view func, std::vector<std::pair<std::string, int64_t>> images,
                       DataType label_type, bool decode, const std::string& where) {
  MC_CHECK(!images.empty(), Runtime, func, ": no image found in ", where, ".");
  std::vector<TableRow> rows;
  rows.reserve(images.size());
  for (auto& [path, label] : images) {
    TableRow r;
    r.files = {std::move(path)};
    r.values = {label_type == DataType::UInt32
                    ? Array::scalar<uint32_t>(static_cast<uint32_t>(label))
                    : Array::scalar<int32_t>(static_cast<int32_t>(label))};
    r.classes = {label};
    rows.push_back(std::move(r));
  }
  return std::make_shared<ImageTableSource>(std::string(func),
                                            std::vector<std::string>{"image", "label"},
                                            std::move(rows), decode, false);
}

}  // namespace

// ----- Manifest -----

SourcePtr manifest_source(const std::string& file, const std::string& usage,
                          const std::map<std::string, int32_t>& class_indexing, bool decode,
                          ClassTable* classes, int64_t* num_classes) {
  constexpr std::string_view func = "ManifestDataset";
  MC_CHECK(usage == "train" || usage == "eval" || usage == "inference", Value, func,
           ": usage must be 'train', 'eval' or 'inference', but got '", usage, "'.");
  std::error_code ec;
  MC_CHECK(fs::is_regular_file(file, ec), Value, func, ": the dataset_file ", file,
           " does not exist or is not a file.");
  const std::string text = read_small_file(func, file, kMaxIndexFileBytes);
  std::vector<std::pair<std::string, std::vector<std::string>>> images;
  std::set<std::string> all_names;
  std::map<std::string, int32_t> labels;
  int64_t line_no = 0;
  for (std::string_view line : lines_of(text)) {
    ++line_no;
    if (words_of(line).empty()) continue;
    json js = json::parse(line, nullptr, /*allow_exceptions=*/false);
    const std::string where = str(file, ":", line_no);
    MC_CHECK(!js.is_discarded() && js.is_object(), Runtime, func, ": Invalid manifest file, ",
             where, ": the line is not a JSON object.");
    auto field = [&](const char* key) {
      auto it = js.find(key);
      MC_CHECK(it != js.end() && it->is_string() && !it->get<std::string>().empty(), Runtime, func,
               ": Invalid manifest file, '", key, "' is missing in ", where,
               " (or not a non-empty string).");
      return it->get<std::string>();
    };
    const std::string source = field("source");
    std::string use = field("usage");
    std::transform(use.begin(), use.end(), use.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    MC_CHECK(fs::is_regular_file(source, ec), Runtime, func, ": ", where, ": the image ", source,
             " does not exist.");
    if (!looks_like_image(func, source) || use != usage) continue;
    auto ann = js.find("annotation");
    MC_CHECK(ann != js.end() && ann->is_array(), Runtime, func, ": ", where,
             ": 'annotation' is missing or not a list.");
    std::vector<std::string> names;
    for (const json& a : *ann) {
      auto name = a.is_object() ? a.find("name") : a.end();
      MC_CHECK(a.is_object() && name != a.end() && name->is_string() &&
                   !name->get<std::string>().empty(),
               Runtime, func, ": ", where, ": an annotation has no 'name'.");
      const std::string n = name->get<std::string>();
      all_names.insert(n);
      if (!class_indexing.empty() && !class_indexing.count(n)) continue;
      labels[n] = 0;
      names.push_back(n);
    }
    if (!names.empty()) images.emplace_back(source, std::move(names));
  }
  MC_CHECK(!images.empty(), Runtime, func, ": ", file, " has no image of usage '", usage, "'",
           class_indexing.empty() ? "" : " with a label of class_indexing", ".");
  int32_t next = 0;
  for (auto& [name, label] : labels) {
    label = class_indexing.empty() ? next++ : class_indexing.at(name);
  }
  std::vector<TableRow> rows;
  for (auto& [source, names] : images) {
    std::vector<int32_t> ids;
    for (const std::string& n : names) ids.push_back(labels.at(n));
    TableRow r;
    r.files = {source};
    Array label = Array::empty(DataType::Int32,
                               ids.size() == 1 ? Shape{} : Shape{static_cast<int64_t>(ids.size())});
    std::copy(ids.begin(), ids.end(), label.mutable_data<int32_t>());
    r.values = {std::move(label)};
    r.classes.assign(ids.begin(), ids.end());
    rows.push_back(std::move(r));
  }
  if (classes) {
    classes->clear();
    for (const auto& [name, label] : labels) classes->push_back({name, {label}});
  }
  if (num_classes) *num_classes = static_cast<int64_t>(all_names.size());
  return std::make_shared<ImageTableSource>(std::string(func),
                                            std::vector<std::string>{"image", "label"},
                                            std::move(rows), decode, false);
}

// ----- CelebA -----

SourcePtr celeba_source(const std::string& dir, const std::string& usage,
                        const std::vector<std::string>& extensions, bool decode) {
  constexpr std::string_view func = "CelebADataset";
  check_dir(func, dir);
  MC_CHECK(usage == "all" || usage == "train" || usage == "valid" || usage == "test", Value, func,
           ": usage must be 'all', 'train', 'valid' or 'test', but got '", usage, "'.");
  const std::string attr_path = (fs::path(dir) / "list_attr_celeba.txt").string();
  std::error_code ec;
  MC_CHECK(fs::is_regular_file(attr_path, ec), Runtime, func, ": the attribute file ", attr_path,
           " does not exist.");
  const std::string attr_text = read_small_file(func, attr_path, kMaxIndexFileBytes);
  std::vector<std::string_view> attr = lines_of(attr_text);
  MC_CHECK(attr.size() >= 2, Runtime, func, ": ", attr_path,
           " is too short: it must start with the row count and the attribute names.");
  const size_t num_attrs = words_of(attr[1]).size();
  std::string part_text;
  std::vector<std::string_view> part;
  const int want = usage == "train" ? 0 : usage == "valid" ? 1 : 2;
  if (usage != "all") {
    const std::string part_path = (fs::path(dir) / "list_eval_partition.txt").string();
    MC_CHECK(fs::is_regular_file(part_path, ec), Runtime, func, ": the partition file ", part_path,
             " does not exist (usage '", usage, "' needs it).");
    part_text = read_small_file(func, part_path, kMaxIndexFileBytes);
    part = lines_of(part_text);
  }
  std::vector<TableRow> rows;
  size_t part_line = 0;
  for (size_t l = 2; l < attr.size(); ++l) {
    std::vector<std::string_view> w = words_of(attr[l]);
    if (w.empty()) continue;
    if (usage != "all") {  // the partition file's lines follow the attribute file's
      std::vector<std::string_view> p =
          part_line < part.size() ? words_of(part[part_line]) : std::vector<std::string_view>{};
      ++part_line;
      int kind = -1;
      if (p.size() == 2) std::from_chars(p[1].data(), p[1].data() + p[1].size(), kind);
      if (kind != want) continue;
    }
    const std::string name(w[0]);
    const std::string ext = fs::path(name).extension().string();
    if (!extensions.empty() &&
        std::find(extensions.begin(), extensions.end(), ext) == extensions.end()) {
      continue;
    }
    MC_CHECK(w.size() - 1 == num_attrs, Runtime, func, ": ", attr_path, ":", l + 1, ": ", name,
             " has ", w.size() - 1, " attribute values, but the file names ", num_attrs,
             " attributes.");
    Array a = Array::empty(DataType::UInt32, {static_cast<int64_t>(num_attrs)});
    uint32_t* out = a.mutable_data<uint32_t>();
    for (size_t k = 1; k < w.size(); ++k) {
      int v = 0;
      auto [ptr, err] = std::from_chars(w[k].data(), w[k].data() + w[k].size(), v);
      MC_CHECK(err == std::errc() && ptr == w[k].data() + w[k].size(), Runtime, func, ": ",
               attr_path, ":", l + 1, ": the attribute value '", w[k], "' is not an integer.");
      out[k - 1] = v == 1 ? 1u : 0u;
    }
    TableRow r;
    r.files = {(fs::path(dir) / name).string()};
    r.values = {std::move(a)};
    rows.push_back(std::move(r));
  }
  MC_CHECK(!rows.empty(), Runtime, func, ": no image of usage '", usage, "' is listed in ",
           attr_path, ".");
  return std::make_shared<ImageTableSource>(
      std::string(func), std::vector<std::string>{"image", "attr"}, std::move(rows), decode, false);
}

// ----- LSUN, Omniglot, SUN397 -----

SourcePtr lsun_source(const std::string& dir, const std::string& usage,
                      const std::vector<std::string>& classes, bool decode, int64_t* num_classes) {
  constexpr std::string_view func = "LSUNDataset";
  check_dir(func, dir);
  MC_CHECK(usage == "all" || usage == "train" || usage == "valid" || usage == "test", Value, func,
           ": usage must be 'train', 'test', 'valid' or 'all', but got '", usage, "'.");
  std::vector<std::string> folders;
  std::set<std::string> found;
  if (usage == "test") {
    folders = {"test"};
  } else {
    static const std::vector<std::string> kClasses = {
        "bedroom",     "bridge",  "church_outdoor", "classroom",  "conference_room",
        "dining_room", "kitchen", "living_room",    "restaurant", "tower"};
    const std::vector<std::string>& want = classes.empty() ? kClasses : classes;
    std::vector<std::string> suffixes;
    if (usage != "valid") suffixes.push_back("_train");
    if (usage != "train") suffixes.push_back("_val");
    for (const std::string& d : list_dir(func, dir, true)) {
      for (const std::string& c : want) {
        for (const std::string& s : suffixes) {
          if (d.find(c + s) != std::string::npos) {
            folders.push_back(d);
            found.insert(c);
          }
        }
      }
    }
  }
  std::sort(folders.begin(), folders.end());
  folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
  std::vector<std::pair<std::string, int64_t>> images;
  for (size_t k = 0; k < folders.size(); ++k) {
    const std::string sub = (fs::path(dir) / folders[k]).string();
    if (!fs::is_directory(sub)) continue;
    for (const std::string& f : list_dir(func, sub, false)) {
      images.emplace_back((fs::path(sub) / f).string(), static_cast<int64_t>(k));
    }
  }
  if (num_classes) *num_classes = static_cast<int64_t>(found.size());
  return folder_table(func, std::move(images), DataType::UInt32, decode,
                      str(dir, " for usage '", usage, "'"));
}

SourcePtr omniglot_source(const std::string& dir, bool background, bool decode) {
  constexpr std::string_view func = "OmniglotDataset";
  check_dir(func, dir);
  const std::string root =
      (fs::path(dir) / (background ? "images_background" : "images_evaluation")).string();
  check_dir(func, root);
  std::vector<std::pair<std::string, int64_t>> images;
  int64_t label = 0;
  for (const std::string& alphabet : list_dir(func, root, true)) {
    const fs::path a = fs::path(root) / alphabet;
    for (const std::string& character : list_dir(func, a.string(), true)) {
      const fs::path c = a / character;
      for (const std::string& f : list_dir(func, c.string(), false)) {
        images.emplace_back((c / f).string(), label);
      }
      ++label;
    }
  }
  return folder_table(func, std::move(images), DataType::Int32, decode, root);
}

SourcePtr sun397_source(const std::string& dir, bool decode) {
  constexpr std::string_view func = "SUN397Dataset";
  check_dir(func, dir);
  const std::string list = (fs::path(dir) / "ClassName.txt").string();
  std::error_code ec;
  MC_CHECK(fs::is_regular_file(list, ec), Runtime, func, ": the class list ", list,
           " does not exist.");
  const std::string text = read_small_file(func, list, kMaxIndexFileBytes);
  std::map<std::string, int64_t> classes;  // rows in class-name order, labels in file order
  int64_t next = 0;
  for (std::string_view line : lines_of(text)) {
    for (std::string_view w : words_of(line)) classes.emplace(std::string(w), next++);
  }
  MC_CHECK(!classes.empty(), Runtime, func, ": ", list, " lists no class.");
  std::vector<std::pair<std::string, int64_t>> images;
  for (const auto& [name, label] : classes) {
    const std::string sub = (fs::path(dir) / fs::path(name).relative_path()).string();
    MC_CHECK(fs::is_directory(sub, ec), Runtime, func, ": the class folder ", sub, " of '", name,
             "' (", list, ") does not exist.");
    for (const std::string& f : list_dir(func, sub, false)) {
      if (f.rfind("sun_", 0) == 0 && fs::path(f).extension() == ".jpg") {
        images.emplace_back((fs::path(sub) / f).string(), label);
      }
    }
  }
  return folder_table(func, std::move(images), DataType::UInt32, decode, dir);
}

// ----- LFW -----

namespace {

// "<name>_<id padded to 4 digits>", LFW's file stem.
std::string lfw_stem(std::string_view name, std::string_view id) {
  std::string s(name);
  s += '_';
  if (id.size() < 4) s.append(4 - id.size(), '0');
  s += id;
  return s;
}

// A non-negative count of an LFW index file; a RuntimeError naming file:line otherwise.
int64_t lfw_count(std::string_view func, std::string_view word, const std::string& where) {
  int64_t v = -1;
  auto [ptr, err] = std::from_chars(word.data(), word.data() + word.size(), v);
  MC_CHECK(err == std::errc() && ptr == word.data() + word.size() && v >= 0, Runtime, func, ": ",
           where, ": '", word, "' is not a count.");
  return v;
}

}  // namespace

SourcePtr lfw_source(const std::string& dir, const std::string& task, const std::string& usage,
                     const std::string& image_set, bool decode) {
  constexpr std::string_view func = "LFWDataset";
  check_dir(func, dir);
  MC_CHECK(task == "people" || task == "pairs", Value, func,
           ": task must be 'people' or 'pairs', but got '", task, "'.");
  MC_CHECK(usage == "10fold" || usage == "train" || usage == "test" || usage == "all", Value, func,
           ": usage must be '10fold', 'train', 'test' or 'all', but got '", usage, "'.");
  const std::string folder = image_set == "original"       ? "lfw"
                             : image_set == "funneled"     ? "lfw_funneled"
                             : image_set == "deepfunneled" ? "lfw-deepfunneled"
                                                           : "";
  MC_CHECK(!folder.empty(), Value, func,
           ": image_set must be 'original', 'funneled' or 'deepfunneled', but got '", image_set,
           "'.");
  std::vector<std::string> files;
  if (usage == "10fold") files.push_back(task + ".txt");
  if (usage == "train" || usage == "all") files.push_back(task + "DevTrain.txt");
  if (usage == "test" || usage == "all") files.push_back(task + "DevTest.txt");
  const auto image = [&](std::string_view name, const std::string& stem) {
    return (fs::path(dir) / folder / std::string(name) / (stem + ".jpg")).string();
  };
  // (image files, label) per row; people: the person's line of lfw-names.txt, pairs: match
  std::vector<std::pair<std::vector<std::string>, std::string>> people;
  std::vector<std::pair<std::vector<std::string>, uint32_t>> pairs;
  for (const std::string& f : files) {
    const std::string path = (fs::path(dir) / f).string();
    std::error_code ec;
    MC_CHECK(fs::is_regular_file(path, ec), Runtime, func, ": the index file ", path,
             " does not exist.");
    const std::string text = read_small_file(func, path, kMaxIndexFileBytes);
    std::vector<std::vector<std::string_view>> lines;
    for (std::string_view l : lines_of(text)) lines.push_back(words_of(l));
    size_t at = 0;
    auto next = [&](size_t min_words) -> const std::vector<std::string_view>& {
      MC_CHECK(at < lines.size() && lines[at].size() >= min_words, Runtime, func, ": ", path, ":",
               at + 1, ": expected ", min_words, " fields (the file is truncated or malformed).");
      return lines[at++];
    };
    // the head: "<folds>" (10fold people), "<folds> <pairs per fold>" (10fold pairs),
    // "<pairs>" (pairs); a people file of one fold starts with the fold's count itself
    int64_t folds = 1, per_fold = 0;
    const std::string where = str(path, ":1");
    if (usage == "10fold") {
      const std::vector<std::string_view>& head = next(task == "pairs" ? 2 : 1);
      folds = lfw_count(func, head[0], where);
      if (task == "pairs") per_fold = lfw_count(func, head[1], where);
    } else if (task == "pairs") {
      per_fold = lfw_count(func, next(1)[0], where);
    }
    for (int64_t fold = 0; fold < folds; ++fold) {
      if (task == "people") {
        const std::vector<std::string_view>& n = next(1);
        const int64_t count = lfw_count(func, n[0], str(path, ":", at));
        for (int64_t k = 0; k < count; ++k) {
          const std::vector<std::string_view>& w = next(2);
          const int64_t images = lfw_count(func, w[1], str(path, ":", at));
          // The count is untrusted (a 60-byte file claiming 2^31 images made 2^31 rows): the
          // person's last image must exist, so that the rows are bounded by real files.
          std::error_code exists_ec;
          MC_CHECK(images == 0 ||
                       fs::exists(image(w[0], lfw_stem(w[0], std::to_string(images))), exists_ec),
                   Runtime, func, ": ", path, ":", at, ": ", w[0], " has ", images, " images, but ",
                   image(w[0], lfw_stem(w[0], std::to_string(images))), " does not exist.");
          for (int64_t i = 1; i <= images; ++i) {
            people.push_back({{image(w[0], lfw_stem(w[0], std::to_string(i)))}, std::string(w[0])});
          }
        }
        continue;
      }
      for (int64_t k = 0; k < per_fold; ++k) {  // matched pairs: name id1 id2
        const std::vector<std::string_view>& w = next(3);
        pairs.push_back(
            {{image(w[0], lfw_stem(w[0], w[1])), image(w[0], lfw_stem(w[0], w[2]))}, 1});
      }
      for (int64_t k = 0; k < per_fold; ++k) {  // mismatched pairs: name1 id1 name2 id2
        const std::vector<std::string_view>& w = next(4);
        pairs.push_back(
            {{image(w[0], lfw_stem(w[0], w[1])), image(w[2], lfw_stem(w[2], w[3]))}, 0});
      }
    }
  }
  std::vector<TableRow> rows;
  if (task == "people") {
    const std::string names_path = (fs::path(dir) / "lfw-names.txt").string();
    std::error_code ec;
    MC_CHECK(fs::is_regular_file(names_path, ec), Runtime, func, ": the name list ", names_path,
             " does not exist.");
    const std::string names_text = read_small_file(func, names_path, kMaxIndexFileBytes);
    std::map<std::string, uint32_t> label;
    uint32_t line = 0;
    for (std::string_view l : lines_of(names_text)) {
      std::vector<std::string_view> w = words_of(l);
      if (!w.empty()) label[std::string(w[0])] = line;
      ++line;
    }
    for (auto& [images, name] : people) {
      auto it = label.find(name);
      MC_CHECK(it != label.end(), Runtime, func, ": ", name, " is not listed in ", names_path, ".");
      TableRow r;
      r.files = std::move(images);
      r.values = {Array::scalar<uint32_t>(it->second)};
      r.classes = {it->second};
      rows.push_back(std::move(r));
    }
  } else {
    for (auto& [images, match] : pairs) {
      TableRow r;
      r.files = std::move(images);
      r.values = {Array::scalar<uint32_t>(match)};
      rows.push_back(std::move(r));
    }
  }
  MC_CHECK(!rows.empty(), Runtime, func, ": the index files of usage '", usage, "' in ", dir,
           " list no image.");
  std::vector<std::string> columns = task == "people"
                                         ? std::vector<std::string>{"image", "label"}
                                         : std::vector<std::string>{"image1", "image2", "label"};
  return std::make_shared<ImageTableSource>(std::string(func), std::move(columns), std::move(rows),
                                            decode, false);
}

}  // namespace mycel::data

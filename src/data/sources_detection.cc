// VOCDataset and CocoDataset (sources_vision.h): VOC's XML annotations parsed with libxml2
// (network access and entity substitution off), COCO's JSON with nlohmann-json. Both build an
// ImageTableSource whose annotation arrays are made here, at construction.
#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <unordered_map>

#include "data/image_table.h"
#include "data/sources_vision.h"

namespace mycel::data {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string join(const std::string& dir, const std::string& a, const std::string& b = "") {
  fs::path p = fs::path(dir) / a;
  if (!b.empty()) p /= b;
  return p.string();
}

// An Array of T with the given shape, filled from v.
template <class T>
Array make_array(const std::vector<T>& v, const Shape& shape) {
  Array a = Array::empty(data_type_of<T>(), shape);
  if (!v.empty()) std::copy(v.begin(), v.end(), a.mutable_data<T>());
  return a;
}

// ----- VOC -----

// The lines of an image-set file ("\r\n" endings allowed); blank lines skipped.
std::vector<std::string> read_ids(std::string_view func, const std::string& path) {
  std::error_code ec;
  MC_CHECK(fs::is_regular_file(path, ec), Value, func, ": the image set file ", path,
           " does not exist: usage names <usage>.txt of the task's ImageSets folder.");
  const std::string text = read_small_file(func, path, kMaxIndexFileBytes);
  std::vector<std::string> ids;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string id = text.substr(start, end - start);
    if (!id.empty() && id.back() == '\r') id.pop_back();
    if (!id.empty()) ids.push_back(std::move(id));
    start = end + 1;
  }
  return ids;
}

// The children of node named `name` (element nodes only).
std::vector<xmlNodePtr> children(xmlNodePtr node, const char* name) {
  std::vector<xmlNodePtr> out;
  for (xmlNodePtr c = node ? node->children : nullptr; c; c = c->next) {
    if (c->type == XML_ELEMENT_NODE && xmlStrcmp(c->name, BAD_CAST name) == 0) out.push_back(c);
  }
  return out;
}

std::string text_of(xmlNodePtr node) {
  xmlChar* s = xmlNodeGetContent(node);
  std::string out = s ? reinterpret_cast<const char*>(s) : "";
  xmlFree(s);
  const size_t b = out.find_first_not_of(" \t\r\n"), e = out.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? std::string() : out.substr(b, e - b + 1);
}

// The number in child `name` of node (0 when there is no such child, as VOC's readers take).
float number_of(xmlNodePtr node, const char* name, std::string_view func, const std::string& path) {
  std::vector<xmlNodePtr> c = children(node, name);
  if (c.empty()) return 0.0f;
  const std::string t = text_of(c.front());
  char* end = nullptr;
  errno = 0;
  const float v = std::strtof(t.c_str(), &end);
  MC_CHECK(!t.empty() && end == t.c_str() + t.size() && errno == 0 && std::isfinite(v), Runtime,
           func, ": ", path, ": <", name, "> holds '", t, "', which is not a number.");
  return v;
}

// libxml2's messages end with a newline; this keeps one line.
std::string text_of_error(const char* msg) {
  std::string s = msg;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

struct VocObject {
  std::string name;
  float box[4];  // xmin, ymin, width, height
  float difficult, truncated;
};

// The objects of one annotation file kept by class_indexing (all when it is empty).
std::vector<VocObject> parse_voc_xml(std::string_view func, const std::string& path,
                                     const std::map<std::string, int32_t>& class_indexing) {
  std::error_code ec;
  MC_CHECK(fs::is_regular_file(path, ec), Runtime, func, ": the annotation file ", path,
           " does not exist.");
  const std::string text = read_small_file(func, path, kMaxIndexFileBytes);
  static std::once_flag init;
  std::call_once(init, [] { xmlInitParser(); });
  xmlDocPtr doc = xmlReadMemory(text.data(), static_cast<int>(text.size()), path.c_str(), nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == nullptr) {
    const xmlError* err = xmlGetLastError();
    MC_THROW(Runtime, func, ": ", path, " is not a well-formed XML file",
             err && err->message ? str(" (line ", err->line, ": ", text_of_error(err->message), ")")
                                 : std::string(),
             ".");
  }
  std::unique_ptr<xmlDoc, void (*)(xmlDocPtr)> guard(doc, xmlFreeDoc);
  xmlNodePtr root = xmlDocGetRootElement(doc);
  std::vector<xmlNodePtr> objects = children(root, "object");
  MC_CHECK(!objects.empty(), Runtime, func, ": ", path, " has no <object>: an annotation must ",
           "describe at least one object.");
  std::vector<VocObject> out;
  for (xmlNodePtr obj : objects) {
    VocObject o;
    std::vector<xmlNodePtr> name = children(obj, "name");
    o.name = name.empty() ? std::string() : text_of(name.front());
    o.difficult = number_of(obj, "difficult", func, path);
    o.truncated = number_of(obj, "truncated", func, path);
    std::vector<xmlNodePtr> box = children(obj, "bndbox");
    MC_CHECK(!box.empty(), Runtime, func, ": ", path, ": an <object> has no <bndbox>.");
    const float xmin = number_of(box.front(), "xmin", func, path);
    const float ymin = number_of(box.front(), "ymin", func, path);
    const float xmax = number_of(box.front(), "xmax", func, path);
    const float ymax = number_of(box.front(), "ymax", func, path);
    if (!(xmin > 0 && ymin > 0 && xmax > xmin && ymax > ymin)) {
      MC_THROW(Runtime, func, ": invalid <bndbox> in ", path,
               ": xmin, ymin, xmax - xmin and ymax - ymin should be greater than 0, but got {",
               static_cast<int>(xmin), ", ", static_cast<int>(ymin), ", ", static_cast<int>(xmax),
               ", ", static_cast<int>(ymax), "} (xmin, ymin, xmax, ymax).");
    }
    if (o.name.empty() || (!class_indexing.empty() && !class_indexing.count(o.name))) continue;
    o.box[0] = xmin;
    o.box[1] = ymin;
    o.box[2] = xmax - xmin;
    o.box[3] = ymax - ymin;
    out.push_back(std::move(o));
  }
  return out;
}

// ----- COCO -----

enum class CocoTask { Detection, Stuff, Keypoint, Panoptic, Captioning };

// Reads COCO's annotation JSON; every access checks the value's presence and type, naming the
// file (func and path_ prefix each message).
class CocoReader {
 public:
  CocoReader(std::string_view func, std::string path) : func_(func), path_(std::move(path)) {}

  json load() const {
    std::error_code ec;
    MC_CHECK(fs::is_regular_file(path_, ec), Value, func_, ": the annotation_file ", path_,
             " does not exist or permission denied.");
    const std::string text = read_small_file(func_, path_, kMaxIndexFileBytes);
    json js = json::parse(text, nullptr, /*allow_exceptions=*/false);
    MC_CHECK(!js.is_discarded() && js.is_object(), Runtime, func_,
             ": Invalid annotation file, Coco Dataset annotation file: ", path_,
             " is not a JSON object (malformed JSON).");
    return js;
  }

  // obj[key], which must exist ("the attribute of '<key>' is missing" otherwise).
  const json& need(const json& obj, const char* key, std::string_view where) const {
    auto it = obj.is_object() ? obj.find(key) : obj.end();
    MC_CHECK(obj.is_object() && it != obj.end(), Runtime, func_, ": ", path_,
             ": the attribute of '", key, "' is missing in ", where, ".");
    return *it;
  }
  const json& need_array(const json& obj, const char* key, std::string_view where) const {
    const json& v = need(obj, key, where);
    MC_CHECK(v.is_array(), Runtime, func_, ": ", path_, ": the attribute '", key, "' of ", where,
             " must be a list, but got ", v.type_name(), ".");
    return v;
  }
  int64_t integer(const json& v, const char* key) const {
    MC_CHECK(v.is_number_integer(), Runtime, func_, ": ", path_, ": '", key,
             "' must be an integer, but got ", v.dump().substr(0, 40), ".");
    return v.get<int64_t>();
  }
  // A non-negative integer that fits uint32 (category ids, iscrowd, counts, areas).
  uint32_t count(const json& v, const char* key) const {
    int64_t i = v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()
                    ? static_cast<int64_t>(v.get<double>())
                    : integer(v, key);
    MC_CHECK(i >= 0 && i <= int64_t{UINT32_MAX}, Runtime, func_, ": ", path_, ": '", key,
             "' must be in [0, 2^32), but got ", i, ".");
    return static_cast<uint32_t>(i);
  }
  std::vector<float> numbers(const json& v, const char* key) const {
    MC_CHECK(v.is_array(), Runtime, func_, ": ", path_, ": '", key,
             "' must be a list of numbers, but got ", v.type_name(), ".");
    std::vector<float> out;
    out.reserve(v.size());
    for (const json& x : v) {
      MC_CHECK(x.is_number(), Runtime, func_, ": ", path_, ": '", key,
               "' must hold numbers, but holds ", x.dump().substr(0, 40), ".");
      out.push_back(x.get<float>());
    }
    return out;
  }
  std::string text(const json& v, const char* key) const {
    MC_CHECK(v.is_string(), Runtime, func_, ": ", path_, ": '", key, "' must be a string, but got ",
             v.type_name(), ".");
    return v.get<std::string>();
  }
  const std::string& path() const { return path_; }
  std::string_view func() const { return func_; }

 private:
  std::string_view func_;
  std::string path_;
};

// One image's annotations as they accumulate.
struct CocoImage {
  std::string file;
  std::vector<std::vector<float>> coords;    // bbox / polygon / keypoints rows
  std::vector<std::vector<uint32_t>> items;  // per annotation: category, iscrowd, area ...
  std::vector<std::string> captions;
  bool used = false;
};

// rows x width float32, each row padded with -1 to the longest. *budget is the number of
// floats the padded arrays of the file may still take: the padding multiplies (many short
// polygons and one long one ask for their product), so a small annotation file could
// otherwise ask for any amount of memory. RuntimeError naming the file past it.
Array padded(const std::vector<std::vector<float>>& rows, uint64_t* budget, std::string_view func,
             const std::string& file) {
  size_t width = 0;
  for (const auto& r : rows) width = std::max(width, r.size());
  const uint64_t cells = static_cast<uint64_t>(rows.size()) * width;
  MC_CHECK(cells <= *budget, Runtime, func, ": ", file, ": the polygons of an image padded to [",
           rows.size(), ", ", width, "], with the images before it, pass ", kMaxIndexFileBytes,
           " bytes.");
  *budget -= cells;
  std::vector<float> flat;
  flat.reserve(rows.size() * width);
  for (const auto& r : rows) {
    flat.insert(flat.end(), r.begin(), r.end());
    flat.insert(flat.end(), width - r.size(), -1.0f);
  }
  return make_array(flat, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(width)});
}

// Column k of the images' item lists as uint32 [N, 1].
Array item_column(const CocoImage& im, size_t k) {
  std::vector<uint32_t> v;
  for (const auto& it : im.items) v.push_back(it[k]);
  return make_array(v, {static_cast<int64_t>(v.size()), 1});
}

// Reads one annotation of `task` into its image.
void coco_annotation(const CocoReader& rd, CocoTask task, const json& ann,
                     const std::set<int64_t>& categories, CocoImage& im) {
  auto category = [&](const json& obj, std::string_view where) {
    const uint32_t c = rd.count(rd.need(obj, "category_id", where), "category_id");
    MC_CHECK(categories.count(c), Runtime, rd.func(), ": ", rd.path(),
             ": the attribute of 'category_id': ", c,
             " is missing in 'categories' (an annotation names an unknown category).");
    return c;
  };
  switch (task) {
    case CocoTask::Detection: {
      im.coords.push_back(rd.numbers(rd.need(ann, "bbox", "an annotation"), "bbox"));
      const uint32_t c = category(ann, "an annotation");
      auto crowd = ann.find("iscrowd");
      im.items.push_back({c, crowd == ann.end() ? 0u : rd.count(*crowd, "iscrowd")});
      break;
    }
    case CocoTask::Stuff: {
      const uint32_t crowd = rd.count(rd.need(ann, "iscrowd", "an annotation"), "iscrowd");
      const json& seg = rd.need(ann, "segmentation", "an annotation");
      if (crowd == 0) {
        MC_CHECK(seg.is_array(), Runtime, rd.func(), ": ", rd.path(),
                 ": 'segmentation' of a non-crowd annotation must be a list of polygons.");
        for (const json& poly : seg) im.coords.push_back(rd.numbers(poly, "segmentation"));
      } else {
        im.coords.push_back(rd.numbers(rd.need(seg, "counts", "a crowd segmentation"), "counts"));
      }
      im.items.push_back({crowd});
      break;
    }
    case CocoTask::Keypoint:
      im.items.push_back(
          {rd.count(rd.need(ann, "num_keypoints", "an annotation"), "num_keypoints")});
      im.coords.push_back(rd.numbers(rd.need(ann, "keypoints", "an annotation"), "keypoints"));
      break;
    case CocoTask::Panoptic:
      for (const json& seg : rd.need_array(ann, "segments_info", "an annotation")) {
        im.coords.push_back(rd.numbers(rd.need(seg, "bbox", "segments_info"), "bbox"));
        const uint32_t c = category(seg, "segments_info");
        im.items.push_back({c, rd.count(rd.need(seg, "iscrowd", "segments_info"), "iscrowd"),
                            rd.count(rd.need(seg, "area", "segments_info"), "area")});
      }
      break;
    case CocoTask::Captioning:
      im.captions.push_back(rd.text(rd.need(ann, "caption", "an annotation"), "caption"));
      break;
  }
  im.used = true;
}

}  // namespace

SourcePtr voc_source(const std::string& dir, const std::string& task, const std::string& usage,
                     const std::map<std::string, int32_t>& class_indexing, bool decode,
                     bool extra_metadata, ClassTable* classes) {
  constexpr std::string_view func = "VOCDataset";
  std::error_code ec;
  MC_CHECK(fs::is_directory(dir, ec), Value, func, ": the dataset_dir ", dir,
           " does not exist or is not a directory.");
  const bool segmentation = task == "Segmentation";
  MC_CHECK(segmentation || task == "Detection", Value, func, ": task must be 'Segmentation' or ",
           "'Detection', but got '", task, "'.");
  MC_CHECK(!segmentation || class_indexing.empty(), Value, func,
           ": class_indexing is not supported in the Segmentation task.");
  const std::vector<std::string> ids = read_ids(
      func, join(dir, segmentation ? "ImageSets/Segmentation" : "ImageSets/Main", usage + ".txt"));
  std::vector<TableRow> rows;
  if (segmentation) {
    for (const std::string& id : ids) {
      TableRow r;
      r.files = {join(dir, "JPEGImages", id + ".jpg"), join(dir, "SegmentationClass", id + ".png")};
      r.meta = id;
      rows.push_back(std::move(r));
    }
    MC_CHECK(!rows.empty(), Runtime, func, ": the image set of usage '", usage, "' in ", dir,
             " lists no image.");
    return std::make_shared<ImageTableSource>(std::string(func),
                                              std::vector<std::string>{"image", "target"},
                                              std::move(rows), decode, extra_metadata);
  }
  std::vector<std::pair<std::string, std::vector<VocObject>>> kept;
  std::map<std::string, int32_t> labels;  // the names found, numbered in sorted order below
  for (const std::string& id : ids) {
    std::vector<VocObject> objs =
        parse_voc_xml(func, join(dir, "Annotations", id + ".xml"), class_indexing);
    if (objs.empty()) continue;
    for (const VocObject& o : objs) labels[o.name] = 0;
    kept.emplace_back(id, std::move(objs));
  }
  MC_CHECK(!kept.empty(), Runtime, func, ": no annotation of usage '", usage, "' in ", dir,
           " has an object of the classes asked for.");
  int32_t next = 0;
  for (auto& [name, label] : labels) {
    label = class_indexing.empty() ? next++ : class_indexing.at(name);
  }
  for (auto& [id, objs] : kept) {
    const auto n = static_cast<int64_t>(objs.size());
    std::vector<float> box;
    std::vector<uint32_t> label, difficult, truncated;
    for (const VocObject& o : objs) {
      box.insert(box.end(), o.box, o.box + 4);
      label.push_back(static_cast<uint32_t>(labels.at(o.name)));
      difficult.push_back(static_cast<uint32_t>(o.difficult));
      truncated.push_back(static_cast<uint32_t>(o.truncated));
    }
    TableRow r;
    r.files = {join(dir, "JPEGImages", id + ".jpg")};
    r.values = {make_array(box, {n, 4}), make_array(label, {n, 1}), make_array(difficult, {n, 1}),
                make_array(truncated, {n, 1})};
    r.meta = id;
    rows.push_back(std::move(r));
  }
  if (classes) {
    classes->clear();
    for (const auto& [name, label] : labels) classes->push_back({name, {label}});
  }
  return std::make_shared<ImageTableSource>(
      std::string(func),
      std::vector<std::string>{"image", "bbox", "label", "difficult", "truncate"}, std::move(rows),
      decode, extra_metadata);
}

SourcePtr coco_source(const std::string& dir, const std::string& annotation_file,
                      const std::string& task_name, bool decode, bool extra_metadata,
                      ClassTable* classes) {
  constexpr std::string_view func = "CocoDataset";
  std::error_code ec;
  MC_CHECK(fs::is_directory(dir, ec), Value, func, ": the dataset_dir ", dir,
           " does not exist or is not a directory or permission denied.");
  static const std::map<std::string, CocoTask> kTasks = {{"Detection", CocoTask::Detection},
                                                         {"Stuff", CocoTask::Stuff},
                                                         {"Keypoint", CocoTask::Keypoint},
                                                         {"Panoptic", CocoTask::Panoptic},
                                                         {"Captioning", CocoTask::Captioning}};
  auto t = kTasks.find(task_name);
  MC_CHECK(t != kTasks.end(), Value, func, ": Invalid task type: '", task_name,
           "'; it must be Detection, Stuff, Keypoint, Panoptic or Captioning.");
  const CocoTask task = t->second;
  CocoReader rd(func, annotation_file);
  const json js = rd.load();

  std::vector<CocoImage> images;
  std::unordered_map<int64_t, size_t> by_id;
  for (const json& img : rd.need_array(js, "images", "the file")) {
    CocoImage im;
    im.file = rd.text(rd.need(img, "file_name", "an image"), "file_name");
    by_id[rd.integer(rd.need(img, "id", "an image"), "id")] = images.size();
    images.push_back(std::move(im));
  }
  MC_CHECK(!images.empty(), Runtime, func, ": ", annotation_file, ": 'images' is empty.");

  std::set<int64_t> category_ids;
  ClassTable table;
  if (task == CocoTask::Detection || task == CocoTask::Panoptic) {
    for (const json& cat : rd.need_array(js, "categories", "the file")) {
      const int64_t id = rd.integer(rd.need(cat, "id", "a category"), "id");
      std::vector<int32_t> info = {static_cast<int32_t>(id)};
      if (task == CocoTask::Panoptic) {
        info.push_back(
            static_cast<int32_t>(rd.integer(rd.need(cat, "isthing", "a category"), "isthing")));
      }
      category_ids.insert(id);
      table.emplace_back(rd.text(rd.need(cat, "name", "a category"), "name"), std::move(info));
    }
  }
  for (const json& ann : rd.need_array(js, "annotations", "the file")) {
    const int64_t image_id = rd.integer(rd.need(ann, "image_id", "an annotation"), "image_id");
    auto it = by_id.find(image_id);
    MC_CHECK(it != by_id.end(), Runtime, func, ": ", annotation_file, ": the image_id ", image_id,
             " of an annotation is not in 'images'.");
    coco_annotation(rd, task, ann, category_ids, images[it->second]);
  }

  std::vector<TableRow> rows;
  uint64_t budget = kMaxIndexFileBytes / sizeof(float);
  const auto pad = [&](const std::vector<std::vector<float>>& coords) {
    return padded(coords, &budget, func, annotation_file);
  };
  for (CocoImage& im : images) {
    if (!im.used) continue;
    TableRow r;
    r.files = {(fs::path(dir) / im.file).string()};
    r.meta = im.file.substr(0, im.file.find('.'));
    const auto n = static_cast<int64_t>(im.captions.size());
    switch (task) {
      case CocoTask::Detection:
        r.values = {pad(im.coords), item_column(im, 0), item_column(im, 1)};
        break;
      case CocoTask::Stuff:
      case CocoTask::Keypoint:
        r.values = {pad(im.coords), item_column(im, 0)};
        break;
      case CocoTask::Panoptic:
        r.values = {pad(im.coords), item_column(im, 0), item_column(im, 1), item_column(im, 2)};
        break;
      case CocoTask::Captioning:
        r.values = {Array::strings(std::move(im.captions), {n, 1})};
        break;
    }
    rows.push_back(std::move(r));
  }
  MC_CHECK(!rows.empty(), Runtime, func, ": ", annotation_file, " has no annotation for the task ",
           task_name, ".");
  static const std::map<CocoTask, std::vector<std::string>> kColumns = {
      {CocoTask::Detection, {"image", "bbox", "category_id", "iscrowd"}},
      {CocoTask::Stuff, {"image", "segmentation", "iscrowd"}},
      {CocoTask::Keypoint, {"image", "keypoints", "num_keypoints"}},
      {CocoTask::Panoptic, {"image", "bbox", "category_id", "iscrowd", "area"}},
      {CocoTask::Captioning, {"image", "captions"}}};
  if (classes) *classes = std::move(table);
  return std::make_shared<ImageTableSource>(std::string(func), kColumns.at(task), std::move(rows),
                                            decode, extra_metadata);
}

}  // namespace mycel::data

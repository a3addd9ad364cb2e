// Binding of the image table source (src/data/image_table.h) for the image data sets whose
// index files are read in Python (mycel/dataset/sources_image_more.py: Caltech101/256, KITTI,
// Places365, SBU, Flowers102): Python lists each row's image files, annotation arrays and
// classes once at construction; the engine's workers then read (and decode) the files in C++,
// without the GIL, as for the annotated sources of sources_vision.h. Also with_classes, which
// gives a source whose rows are read in Python (PhotoTour, FakeImage) its classes for
// PKSampler without reading every row.
#include <pybind11/stl.h>

#include <utility>

#include "base/error.h"
#include "data/image_table.h"
#include "python/py_data.h"

namespace mycel::py {
namespace {

// A source as it is, with the classes of its rows given (RandomAccessSource::class_rows).
class ClassedSource final : public data::RandomAccessSource {
 public:
  ClassedSource(data::SourcePtr inner, std::vector<std::pair<int64_t, int64_t>> rows)
      : inner_(std::move(inner)), rows_(std::move(rows)) {}
  std::string_view name() const override { return inner_->name(); }
  int64_t size() const override { return inner_->size(); }
  std::vector<std::string> columns() const override { return inner_->columns(); }
  data::Row read(int64_t i) const override { return inner_->read(i); }
  std::vector<int32_t> file_of_rows() const override { return inner_->file_of_rows(); }
  std::vector<std::pair<int64_t, int64_t>> class_rows() const override { return rows_; }
  bool needs_gil() const override { return inner_->needs_gil(); }

 private:
  data::SourcePtr inner_;
  std::vector<std::pair<int64_t, int64_t>> rows_;
};

}  // namespace

void bind_data_sources_more(pyb::module_& m) {
  m.def(
      "image_table_source",
      [](const std::string& name, const std::vector<std::string>& columns,
         const std::vector<std::vector<std::string>>& files, const pyb::list& values,
         const std::vector<std::vector<int64_t>>& classes, bool decode) {
        const size_t n = files.size();
        MC_CHECK(pyb::len(values) == n && (classes.empty() || classes.size() == n), Value, name,
                 ": image_table_source needs one values list (and one classes list) per row.");
        std::vector<data::TableRow> rows(n);
        for (size_t i = 0; i < n; ++i) {
          rows[i].files = files[i];
          for (pyb::handle v : pyb::reinterpret_borrow<pyb::list>(values[i])) {
            rows[i].values.push_back(data_array_from_py(v, name));
          }
          if (!classes.empty()) rows[i].classes = classes[i];
          MC_CHECK(rows[i].files.size() + rows[i].values.size() == columns.size(), Value, name,
                   ": row ", i, " has ", rows[i].files.size(), " files and ", rows[i].values.size(),
                   " values for ", columns.size(), " columns.");
        }
        return std::static_pointer_cast<data::RandomAccessSource>(
            std::make_shared<data::ImageTableSource>(name, columns, std::move(rows), decode,
                                                     false));
      },
      pyb::arg("name"), pyb::arg("columns"), pyb::arg("files"), pyb::arg("values"),
      pyb::arg("classes"), pyb::arg("decode"),
      "A source whose row i reads files[i] (uint8 bytes, or decoded to [H, W, 3] when decode), "
      "then gives values[i] (numpy arrays); classes[i] are its classes for PKSampler.");
  m.def(
      "with_classes",
      [](const data::SourcePtr& source, const std::vector<int64_t>& classes) {
        MC_CHECK(static_cast<int64_t>(classes.size()) == source->size(), Value, source->name(),
                 ": with_classes needs one class per row (", source->size(), "), but got ",
                 classes.size(), ".");
        std::vector<std::pair<int64_t, int64_t>> rows(classes.size());
        for (size_t i = 0; i < classes.size(); ++i) {
          rows[i] = {classes[i], static_cast<int64_t>(i)};
        }
        return std::static_pointer_cast<data::RandomAccessSource>(
            std::make_shared<ClassedSource>(source, std::move(rows)));
      },
      pyb::arg("source"), pyb::arg("classes"),
      "source with classes[i] as row i's class (for PKSampler), its rows read as before.");
}

}  // namespace mycel::py

// Binding of the image table source (src/data/image_table.h) for the image data sets whose
// index files are read in Python (mycel/dataset/sources_image_more.py: Caltech101/256, KITTI,
// Places365, SBU, Flowers102): Python lists each row's image files, annotation arrays and
// classes once at construction; the engine's workers then read (and decode) the files in C++,
// without the GIL, as for the annotated sources of sources_vision.h.
#include <pybind11/stl.h>

#include "base/error.h"
#include "data/image_table.h"
#include "python/py_data.h"

namespace mycel::py {

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
}

}  // namespace mycel::py

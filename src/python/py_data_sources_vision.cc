// Bindings of the annotated image sources (src/data/sources_vision.h), of PKSampler and of
// chained samplers (Sampler.add_child), in _mycel._data. The Python classes
// (mycel/dataset/sources_vision.py, samplers.py) check argument types; the factories check
// values and files, without the GIL. Class tables come back as a list of (name, [ids]) pairs.
#include <pybind11/stl.h>

#include "data/sampler.h"
#include "data/sources_vision.h"
#include "python/py_data.h"

namespace mycel::py {
namespace {

pyb::list class_table(const data::ClassTable& t) {
  pyb::list out;
  for (const auto& [name, ids] : t) out.append(pyb::make_tuple(name, ids));
  return out;
}

}  // namespace

void bind_data_sources_vision(pyb::module_& m) {
  using Indexing = std::map<std::string, int32_t>;
  m.def(
      "voc_source",
      [](const std::string& dir, const std::string& task, const std::string& usage,
         const Indexing& class_indexing, bool decode, bool extra_metadata) {
        data::ClassTable classes;
        data::SourcePtr src;
        {
          pyb::gil_scoped_release nogil;
          src =
              data::voc_source(dir, task, usage, class_indexing, decode, extra_metadata, &classes);
        }
        return pyb::make_tuple(src, class_table(classes));
      },
      pyb::arg("dataset_dir"), pyb::arg("task"), pyb::arg("usage"), pyb::arg("class_indexing"),
      pyb::arg("decode"), pyb::arg("extra_metadata"),
      "(source, classes): a VOC data set (task 'Segmentation' or 'Detection').");
  m.def(
      "coco_source",
      [](const std::string& dir, const std::string& annotation_file, const std::string& task,
         bool decode, bool extra_metadata) {
        data::ClassTable classes;
        data::SourcePtr src;
        {
          pyb::gil_scoped_release nogil;
          src = data::coco_source(dir, annotation_file, task, decode, extra_metadata, &classes);
        }
        return pyb::make_tuple(src, class_table(classes));
      },
      pyb::arg("dataset_dir"), pyb::arg("annotation_file"), pyb::arg("task"), pyb::arg("decode"),
      pyb::arg("extra_metadata"), "(source, classes): a COCO data set of the task.");
  m.def(
      "manifest_source",
      [](const std::string& file, const std::string& usage, const Indexing& class_indexing,
         bool decode) {
        data::ClassTable classes;
        int64_t num_classes = 0;
        data::SourcePtr src;
        {
          pyb::gil_scoped_release nogil;
          src = data::manifest_source(file, usage, class_indexing, decode, &classes, &num_classes);
        }
        return pyb::make_tuple(src, class_table(classes), num_classes);
      },
      pyb::arg("dataset_file"), pyb::arg("usage"), pyb::arg("class_indexing"), pyb::arg("decode"),
      "(source, classes, num_classes): a Manifest file's images of usage.");
  m.def(
      "celeba_source",
      [](const std::string& dir, const std::string& usage,
         const std::vector<std::string>& extensions, bool decode) {
        pyb::gil_scoped_release nogil;
        return data::celeba_source(dir, usage, extensions, decode);
      },
      pyb::arg("dataset_dir"), pyb::arg("usage"), pyb::arg("extensions"), pyb::arg("decode"),
      "CelebA's images and attributes.");
  m.def(
      "lsun_source",
      [](const std::string& dir, const std::string& usage, const std::vector<std::string>& classes,
         bool decode) {
        int64_t num_classes = 0;
        data::SourcePtr src;
        {
          pyb::gil_scoped_release nogil;
          src = data::lsun_source(dir, usage, classes, decode, &num_classes);
        }
        return pyb::make_tuple(src, num_classes);
      },
      pyb::arg("dataset_dir"), pyb::arg("usage"), pyb::arg("classes"), pyb::arg("decode"),
      "(source, num_classes): LSUN's class folders of usage.");
  m.def(
      "omniglot_source",
      [](const std::string& dir, bool background, bool decode) {
        pyb::gil_scoped_release nogil;
        return data::omniglot_source(dir, background, decode);
      },
      pyb::arg("dataset_dir"), pyb::arg("background"), pyb::arg("decode"),
      "Omniglot's background or evaluation characters.");
  m.def(
      "sun397_source",
      [](const std::string& dir, bool decode) {
        pyb::gil_scoped_release nogil;
        return data::sun397_source(dir, decode);
      },
      pyb::arg("dataset_dir"), pyb::arg("decode"), "SUN397's classes of ClassName.txt.");
  m.def(
      "lfw_source",
      [](const std::string& dir, const std::string& task, const std::string& usage,
         const std::string& image_set, bool decode) {
        pyb::gil_scoped_release nogil;
        return data::lfw_source(dir, task, usage, image_set, decode);
      },
      pyb::arg("dataset_dir"), pyb::arg("task"), pyb::arg("usage"), pyb::arg("image_set"),
      pyb::arg("decode"), "LFW's people or pairs.");
  m.def(
      "emnist_source",
      [](const std::string& dir, const std::string& name, const std::string& usage) {
        pyb::gil_scoped_release nogil;
        return data::emnist_source(dir, name, usage);
      },
      pyb::arg("dataset_dir"), pyb::arg("name"), pyb::arg("usage"),
      "EMNIST's idx files of the split `name`.");
  m.def(
      "PKSampler",
      [](const data::SourcePtr& source, int64_t num_val, bool shuffle, int64_t num_samples,
         const std::string& class_column) {
        std::vector<std::pair<int64_t, int64_t>> rows;
        if (source->needs_gil()) {  // a Python source reads its rows under the GIL
          rows = data::class_rows_of(*source, class_column);
        } else {
          pyb::gil_scoped_release nogil;
          rows = data::class_rows_of(*source, class_column);
        }
        return data::make_pk_sampler(rows, num_val, shuffle, num_samples, source->name());
      },
      pyb::arg("source"), pyb::arg("num_val"), pyb::arg("shuffle"), pyb::arg("num_samples"),
      pyb::arg("class_column"),
      "PKSampler over the classes of source, or of its class_column's values (sampler.h).");
  m.def("ChainedSampler", &data::make_chained_sampler, pyb::arg("parent"), pyb::arg("child"),
        "parent sampling positions of child's order (Sampler.add_child).");
}

}  // namespace mycel::py

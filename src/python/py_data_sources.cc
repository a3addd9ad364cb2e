// Bindings of the file sources (src/data/sources.h): factory functions in _mycel._data that
// return a Source. The Python dataset classes (mycel/dataset/sources_image.py,
// sources_text.py) check argument types; the factories check values and files. Files are
// read and indexed without the GIL.
#include <pybind11/stl.h>

#include "data/sources.h"
#include "python/py_data.h"

namespace mycel::py {

void bind_data_sources(pyb::module_& m) {
  m.def(
      "mnist_source",
      [](const std::string& name, const std::string& dataset_dir, const std::string& usage) {
        pyb::gil_scoped_release nogil;
        return data::mnist_source(name, dataset_dir, usage);
      },
      pyb::arg("name"), pyb::arg("dataset_dir"), pyb::arg("usage"),
      "MNIST-format idx files of dataset_dir (usage 'train', 'test' or 'all'); name is the "
      "dataset class for messages.");
  m.def(
      "cifar10_source",
      [](const std::string& dataset_dir, const std::string& usage) {
        pyb::gil_scoped_release nogil;
        return data::cifar10_source(dataset_dir, usage);
      },
      pyb::arg("dataset_dir"), pyb::arg("usage"),
      "The CIFAR-10 binary batches of dataset_dir (usage 'train', 'test' or 'all').");
  m.def(
      "image_folder_source",
      [](const std::string& dataset_dir, const std::vector<std::string>& extensions,
         const std::map<std::string, int32_t>& class_indexing, bool decode) {
        std::map<std::string, int32_t> used;
        data::SourcePtr src;
        {
          pyb::gil_scoped_release nogil;
          src = data::image_folder_source(dataset_dir, extensions, class_indexing, decode, &used);
        }
        return pyb::make_tuple(src, used);
      },
      pyb::arg("dataset_dir"), pyb::arg("extensions"), pyb::arg("class_indexing"),
      pyb::arg("decode"),
      "(source, class_indexing): the images of dataset_dir's class folders and the folder -> "
      "label mapping used.");
  m.def(
      "text_file_source",
      [](const std::vector<std::string>& files) {
        pyb::gil_scoped_release nogil;
        return data::text_file_source(files);
      },
      pyb::arg("files"), "The non-empty lines of files, in order.");
  m.def(
      "csv_source",
      [](const std::vector<std::string>& files, const std::string& field_delim,
         const pyb::list& column_defaults, const std::vector<std::string>& column_names) {
        MC_CHECK(field_delim.size() == 1, Value,
                 "CSVDataset: field_delim must be one character, but got '", field_delim, "'.");
        std::vector<data::CsvDefault> defaults;
        for (pyb::handle v : column_defaults) {
          data::CsvDefault d;
          if (pyb::isinstance<pyb::str>(v)) {
            d.s = pyb::cast<std::string>(v);
          } else if (pyb::isinstance<pyb::float_>(v)) {
            d.type = data::DataType::Float32;
            d.f = pyb::cast<float>(v);
          } else {
            MC_CHECK(pyb::isinstance<pyb::int_>(v) && !pyb::isinstance<pyb::bool_>(v), Type,
                     "CSVDataset: column_defaults must hold int, float or str values, but got ",
                     pyb::cast<std::string>(pyb::repr(v)), ".");
            d.type = data::DataType::Int32;
            d.i = pyb::cast<int32_t>(v);
          }
          defaults.push_back(std::move(d));
        }
        pyb::gil_scoped_release nogil;
        return data::csv_source(files, field_delim[0], defaults, column_names);
      },
      pyb::arg("files"), pyb::arg("field_delim"), pyb::arg("column_defaults"),
      pyb::arg("column_names"),
      "The records of CSV files; column_defaults (int, float or str values, or empty: all "
      "str) give the column types and empty-field values; column_names empty: each file's "
      "header.");
  m.def(
      "tfrecord_source",
      [](const std::vector<std::string>& files, const pyb::list& columns,
         const std::vector<std::string>& select, bool compressed, int64_t num_rows) {
        std::vector<data::TfColumn> specs;
        for (pyb::handle h : columns) {
          auto t = pyb::cast<pyb::tuple>(h);
          data::TfColumn c;
          c.name = pyb::cast<std::string>(t[0]);
          const auto type = pyb::cast<std::string>(t[1]);
          MC_CHECK(data::data_type_from_name(type, &c.type), Type, "TFRecordDataset: column '",
                   c.name, "' has an unsupported type '", type, "'.");
          c.has_shape = !t[2].is_none();
          if (c.has_shape) c.shape = pyb::cast<std::vector<int64_t>>(t[2]);
          specs.push_back(std::move(c));
        }
        std::vector<data::TfColumn> used;
        data::SourcePtr src;
        {
          pyb::gil_scoped_release nogil;
          src = data::tfrecord_source(files, std::move(specs), select, compressed, num_rows, &used);
        }
        pyb::list out;
        for (const data::TfColumn& c : used) {
          out.append(pyb::make_tuple(c.name, std::string(data::data_type_name(c.type)),
                                     c.has_shape ? pyb::cast(c.shape) : pyb::none()));
        }
        return pyb::make_tuple(src, out);
      },
      pyb::arg("files"), pyb::arg("columns"), pyb::arg("select"), pyb::arg("compressed"),
      pyb::arg("num_rows"),
      "(source, columns): the tf.train.Example records of TFRecord files as columns "
      "[(name, type name, shape or None)] (empty: the first record's features), those named "
      "in select (when not empty) in its order; num_rows >= 0 keeps that many rows.");
}

}  // namespace mycel::py

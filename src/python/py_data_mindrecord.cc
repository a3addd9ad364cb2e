// Bindings of MindRecord (data/mindrecord.h) in _mycel._data: MindRecordWriter behind
// mycel.mindrecord.FileWriter, MindRecordSource behind mycel.dataset.MindDataset. The Python
// side checks the Python types of row values and hands over numpy arrays, str and bytes.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <cstring>
#include <mutex>

#include "data/mindrecord.h"
#include "data/mindrecord_crypto.h"
#include "frontend/py_convert.h"
#include "python/py_data.h"

namespace mycel::py {

namespace {

using data::Array;
using data::FieldSpec;
using data::FieldType;
using data::MindRecordReader;
using data::MindRecordSource;
using data::MindRecordWriter;

// A writer and a guard: the GIL is released while it writes, and a second thread must not
// use it meanwhile.
struct PyWriter {
  MindRecordWriter writer;
  std::mutex mu;
  PyWriter(std::string file_name, int64_t shard_num, bool overwrite)
      : writer(std::move(file_name), shard_num, overwrite) {}

  std::unique_lock<std::mutex> lock() {
    std::unique_lock<std::mutex> l(mu, std::try_to_lock);
    MC_CHECK(l.owns_lock(), Runtime, "FileWriter: in use by another thread.");
    return l;
  }
};

// (name, type name, shape or None) -> FieldSpec.
FieldSpec field_from_py(const pyb::tuple& t, std::string_view op) {
  FieldSpec f;
  f.name = pyb::cast<std::string>(t[0]);
  auto type = pyb::cast<std::string>(t[1]);
  MC_CHECK(data::field_type_from_name(type, &f.type), Value, op, ": field '", f.name,
           "' has type '", type,
           "'; the types are int32, int64, float32, float64, string and bytes.");
  if (!t[2].is_none()) {
    f.has_shape = true;
    for (pyb::handle d : t[2]) {
      try {
        f.shape.push_back(int64_of(d));
      } catch (const Error& e) {
        throw Error(e.kind(), str(op, ": field '", f.name, "' has a bad shape: ", e.message()));
      }
    }
  }
  return f;
}

pyb::object field_to_py(const FieldSpec& f) {
  pyb::object shape = pyb::none();
  if (f.has_shape) shape = pyb::cast(std::vector<int64_t>(f.shape.begin(), f.shape.end()));
  return pyb::make_tuple(f.name, std::string(data::field_type_name(f.type)), shape);
}

// str -> a one-element String array; bytes -> uint8; anything else through numpy.
Array value_from_py(pyb::handle v, std::string_view op) {
  if (pyb::isinstance<pyb::str>(v)) return Array::strings({pyb::cast<std::string>(v)}, {});
  if (pyb::isinstance<pyb::bytes>(v)) {
    std::string_view b = pyb::cast<std::string_view>(v);
    Array a = Array::empty(data::DataType::UInt8, {static_cast<int64_t>(b.size())});
    if (!b.empty()) std::memcpy(a.mutable_raw(), b.data(), b.size());
    return a;
  }
  return data_array_from_py(v, op);
}

// A writer method taking a size, called under the writer's lock.
auto locked(void (MindRecordWriter::*method)(int64_t)) {
  return [method](PyWriter& w, int64_t bytes) {
    auto l = w.lock();
    (w.writer.*method)(bytes);
  };
}

}  // namespace

void bind_data_mindrecord(pyb::module_& m) {
  pyb::class_<PyWriter>(m, "MindRecordWriter", "The C++ writer behind mycel.mindrecord.FileWriter.")
      .def(pyb::init<std::string, int64_t, bool>(), pyb::arg("file_name"), pyb::arg("shard_num"),
           pyb::arg("overwrite"))
      .def_property_readonly("paths", [](PyWriter& w) { return w.writer.paths(); })
      .def(
          "add_schema",
          [](PyWriter& w, const std::vector<pyb::tuple>& fields, const std::string& desc) {
            auto l = w.lock();
            std::vector<FieldSpec> specs;
            for (const pyb::tuple& t : fields) specs.push_back(field_from_py(t, "FileWriter"));
            return w.writer.add_schema(std::move(specs), desc);
          },
          pyb::arg("fields"), pyb::arg("desc"),
          "fields: [(name, type name, shape or None)]; returns the schema id.")
      .def("set_header_size", locked(&MindRecordWriter::set_header_size), pyb::arg("header_size"))
      .def("set_page_size", locked(&MindRecordWriter::set_page_size), pyb::arg("page_size"))
      .def(
          "add_index",
          [](PyWriter& w, std::vector<std::string> fields) {
            auto l = w.lock();
            w.writer.add_index(std::move(fields));
          },
          pyb::arg("fields"))
      .def(
          "write",
          [](PyWriter& w, const pyb::list& rows, int64_t shard) {
            auto l = w.lock();
            std::vector<data::Row> converted;
            converted.reserve(rows.size());
            for (pyb::handle row : rows) {
              data::Row r;
              for (pyb::handle v : row) r.push_back(value_from_py(v, "FileWriter"));
              converted.push_back(std::move(r));
            }
            pyb::gil_scoped_release nogil;
            w.writer.write(converted, shard);
          },
          pyb::arg("rows"), pyb::arg("shard") = -1,
          "rows: lists of values in schema order (numpy arrays of the field's dtype, str, "
          "bytes).")
      .def("commit",
           [](PyWriter& w) {
             auto l = w.lock();
             pyb::gil_scoped_release nogil;
             w.writer.commit();
           })
      .def(
          "_set_commit_hook",
          [](PyWriter& w, std::function<void(const std::string&)> hook) {
            w.writer.set_commit_hook([hook](const std::string& step) {
              pyb::gil_scoped_acquire gil;
              hook(step);
            });
          },
          "For crash tests: hook(step) runs between commit's steps ('sealed k', 'renamed k').")
      .def(
          "set_encryption",
          [](PyWriter& w, std::string key, std::string mode) {
            auto l = w.lock();
            w.writer.set_encryption(std::move(key), std::move(mode));
          },
          pyb::arg("key"), pyb::arg("mode"),
          "Encrypts the committed shard and index (data/mindrecord_crypto.h).");

  // Encrypted files (data/mindrecord_crypto.h), for mycel.mindrecord.config.
  m.def(
      "mindrecord_encrypt_file",
      [](const std::string& path, const std::string& key, const std::string& mode) {
        pyb::gil_scoped_release nogil;
        data::mindrecord::encrypt_file(path, key, mode);
      },
      pyb::arg("path"), pyb::arg("key"), pyb::arg("mode"), "Encrypts the file in place.");
  m.def(
      "mindrecord_decrypt_file",
      [](const std::string& src, const std::string& dst, const std::string& key,
         const std::string& mode, const std::string& who) {
        pyb::gil_scoped_release nogil;
        data::mindrecord::decrypt_file(src, dst, key, mode, who);
      },
      pyb::arg("src"), pyb::arg("dst"), pyb::arg("key"), pyb::arg("mode"), pyb::arg("who"),
      "Decrypts src into dst (mode 0600).");
  m.def("mindrecord_encrypted_mode", &data::mindrecord::encrypted_file_mode, pyb::arg("path"),
        "The mode an encrypted file records ('' when the file is not encrypted).");
  m.def("mindrecord_crypto_mode_known", &data::mindrecord::crypto_mode_known, pyb::arg("mode"),
        "Whether this build's OpenSSL has the mode.");

  pyb::class_<MindRecordSource, data::RandomAccessSource, std::shared_ptr<MindRecordSource>>(
      m, "MindRecordSource", "MindDataset's source: rows of MindRecord files.")
      .def(pyb::init([](const std::vector<std::string>& files, bool load_set,
                        const std::vector<std::string>& columns, std::string who) {
             std::shared_ptr<const MindRecordReader> reader;
             {
               pyb::gil_scoped_release nogil;
               reader = std::make_shared<const MindRecordReader>(files, load_set, std::move(who));
             }
             return std::make_shared<MindRecordSource>(reader, columns);
           }),
           pyb::arg("files"), pyb::arg("load_set"), pyb::arg("columns"),
           pyb::arg("who") = "MindDataset",
           "Opens files (load_set: the whole set of files[0]); columns: [] for all fields; who "
           "names the reader in messages.")
      .def(
          "schema",
          [](const MindRecordSource& s) {
            pyb::list out;
            for (const FieldSpec& f : s.column_fields()) out.append(field_to_py(f));
            return out;
          },
          "The output columns' fields as [(name, type name, shape or None)].")
      .def(
          "index_fields", [](const MindRecordSource& s) { return s.reader()->index_fields(); },
          "The index fields of the first file's header (MindPage's candidate fields).")
      .def(
          "set_info",
          [](const MindRecordSource& s) {
            auto info = s.reader()->set_info();
            pyb::dict d;
            d["header_size"] = info.header_size;
            d["page_size"] = info.page_size;
            d["desc"] = info.desc;
            d["index_fields"] = info.index_fields;
            d["shard_paths"] = info.shard_paths;
            return d;
          },
          "The first file's set: header_size, page_size, desc, index_fields, shard_paths.")
      .def(
          "padded",
          [](const MindRecordSource& s, const pyb::list& values, int64_t num_padded) {
            std::vector<FieldSpec> fields = s.column_fields();
            MC_CHECK(values.size() == fields.size(), Value, "MindDataset: padded_sample has ",
                     values.size(), " values for ", fields.size(), " columns.");
            data::Row pad;
            for (size_t k = 0; k < fields.size(); ++k)
              pad.push_back(data::check_field_value(fields[k],
                                                    value_from_py(values[k], "MindDataset"),
                                                    "MindDataset", "padded_sample"));
            return std::make_shared<MindRecordSource>(s.reader(), s.columns(), std::move(pad),
                                                      num_padded);
          },
          pyb::arg("values"), pyb::arg("num_padded"),
          "The same rows, then num_padded copies of values (one per column, in column order).");
}

}  // namespace mycel::py

// Python binding of the checkpoint reader (serialize/checkpoint.h), used by
// mycel.train.serialization.load_checkpoint:
//
//   _C._load_checkpoint(path, func) -> [(name, Tensor or str), ...]
//       reads, validates and decodes the whole file without the GIL; a malformed file, a
//       missing one, a directory, a FIFO or a device is a ValueError naming `func` and the
//       file.
//   _C._parse_checkpoint(data, func, path) -> the same, from the bytes of a file
//       (an encrypted checkpoint once decrypted, mycel/train/_ckpt_crypto.py); a malformed
//       one is a ValueError naming `func` and `path`.
//   _C._checkpoint_header() -> bytes
//   _C._checkpoint_value_frame(name, tensor_type, dims, content_size) -> bytes
//   _C._checkpoint_footer(count, crc32) -> bytes
//       the pieces save_checkpoint writes (serialize::checkpoint_header, ...: protobuf's
//       generated classes); an entry's content bytes follow its frame.
#include <pybind11/stl.h>

#include "base/error.h"
#include "python/module.h"
#include "serialize/checkpoint.h"

namespace pyb = pybind11;

namespace mycel::py {

namespace {

// The entries as [(name, Tensor or str)], in file order.
pyb::list entries_list(std::vector<serialize::CheckpointEntry>& entries) {
  pyb::list out;
  for (serialize::CheckpointEntry& e : entries) {
    pyb::object value = e.is_str ? pyb::object(pyb::str(e.text)) : pyb::cast(std::move(e.tensor));
    out.append(pyb::make_tuple(pyb::str(e.name), value));
  }
  return out;
}

}  // namespace

void bind_checkpoint(pyb::module_& m) {
  m.def(
      "_load_checkpoint",
      [](const std::string& path, const std::string& func) {
        std::vector<serialize::CheckpointEntry> entries;
        {
          pyb::gil_scoped_release nogil;
          entries = serialize::load_checkpoint_file(path, func);
        }
        return entries_list(entries);
      },
      pyb::arg("path"), pyb::arg("func") = "load_checkpoint",
      "The (name, Tensor or str) entries of a checkpoint file, in file order.");
  m.def(
      "_parse_checkpoint",
      [](const pyb::bytes& data, const std::string& func, const std::string& path) {
        const std::string bytes = data;  // the decrypted file (mycel/train/_ckpt_crypto.py)
        std::vector<serialize::CheckpointEntry> entries;
        try {
          pyb::gil_scoped_release nogil;
          entries = serialize::parse_checkpoint(bytes);
        } catch (const Error& e) {
          if (e.kind() != ErrorKind::Value) throw;
          MC_THROW(Value, "For '", func, "', the checkpoint file ", path,
                   " is not valid once decrypted: ", e.what());
        }
        return entries_list(entries);
      },
      pyb::arg("data"), pyb::arg("func"), pyb::arg("path"),
      "The (name, Tensor or str) entries of a checkpoint's bytes, in file order.");
  m.def("_checkpoint_header", [] { return pyb::bytes(serialize::checkpoint_header()); });
  m.def(
      "_checkpoint_value_frame",
      [](const std::string& name, const std::string& type, const std::vector<int64_t>& dims,
         uint64_t content_size) {
        return pyb::bytes(serialize::checkpoint_value_frame(name, type, dims, content_size));
      },
      pyb::arg("name"), pyb::arg("tensor_type"), pyb::arg("dims"), pyb::arg("content_size"),
      "One entry of a checkpoint file up to its content, which the caller writes after it.");
  m.def(
      "_checkpoint_footer",
      [](uint64_t count, uint32_t crc) {
        return pyb::bytes(serialize::checkpoint_footer(count, crc));
      },
      pyb::arg("count"), pyb::arg("crc"));
}

}  // namespace mycel::py

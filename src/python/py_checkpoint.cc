// Python binding of the checkpoint reader (serialize/checkpoint.h), used by
// mycel.train.serialization.load_checkpoint:
//
//   _C._load_checkpoint(path, func) -> [(name, Tensor or str), ...]
//       reads, validates and decodes the whole file without the GIL; a malformed file, a
//       missing one, a directory, a FIFO or a device is a ValueError naming `func` and the
//       file.
#include "python/module.h"
#include "serialize/checkpoint.h"

namespace pyb = pybind11;

namespace mycel::py {

void bind_checkpoint(pyb::module_& m) {
  m.def(
      "_load_checkpoint",
      [](const std::string& path, const std::string& func) {
        std::vector<serialize::CheckpointEntry> entries;
        {
          pyb::gil_scoped_release nogil;
          entries = serialize::load_checkpoint_file(path, func);
        }
        pyb::list out;
        for (serialize::CheckpointEntry& e : entries) {
          pyb::object value =
              e.is_str ? pyb::object(pyb::str(e.text)) : pyb::cast(std::move(e.tensor));
          out.append(pyb::make_tuple(pyb::str(e.name), value));
        }
        return out;
      },
      pyb::arg("path"), pyb::arg("func") = "load_checkpoint",
      "The (name, Tensor or str) entries of a checkpoint file, in file order.");
}

}  // namespace mycel::py

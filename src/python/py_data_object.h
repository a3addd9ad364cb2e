// Python dicts in dataset rows: the Python side of data::Object (src/data/array.h), made in
// py_data_object.cc. Called with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

#include "data/array.h"

namespace mycel::py {

namespace pyb = pybind11;

// Whether a row value is a Python object the engine carries as an Object (a dict).
bool is_row_object(pyb::handle obj);
// A dict as an Object array: its leaves normalised to numpy arrays first (_pyobjects.normalize).
data::Array object_array_from_py(pyb::handle obj);
// An Object array's value for Python: the dict itself (output_numpy, and what map and
// per_batch_map functions get), or a copy whose numpy leaves are mycel Tensors.
pyb::object object_array_to_py(const data::Array& a, bool output_numpy);

}  // namespace mycel::py

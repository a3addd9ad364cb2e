// Bindings of the data engine (src/data), in the submodule _mycel._data. One file per part:
// py_data.cc (arrays, the engine, pipelines, iterators, samplers), py_data_sources.cc (file
// sources), py_data_vision.cc (image codecs and transforms), py_data_mindrecord.cc.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string_view>

#include "data/array.h"

namespace mycel::py {

namespace pyb = pybind11;

// A numpy array (or anything np.asarray takes) as a data Array: a copy. Numeric dtypes stay
// as they are; str/bytes arrays become String arrays. A TypeError naming op otherwise.
data::Array data_array_from_py(pyb::handle obj, std::string_view op);
// A numpy array sharing a numeric Array's bytes (read-only when `readonly`); strings give a
// numpy str array.
pyb::object data_array_to_numpy(const data::Array& a, bool readonly = false);

void bind_data_sources(pyb::module_& m);
void bind_data_vision(pyb::module_& m);
void bind_data_mindrecord(pyb::module_& m);
void bind_data_engine(pyb::module_& m);  // py_data_engine.cc

}  // namespace mycel::py

// Bindings of the data engine (src/data), in the submodule _mycel._data. One file per part:
// py_data.cc (arrays, the engine, pipelines, iterators, samplers), py_data_sources.cc (file
// sources), py_data_vision.cc (image codecs and transforms), py_data_mindrecord.cc.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <string_view>
#include <vector>

#include "data/array.h"
#include "tensor/tensor.h"

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
void bind_data_engine(pyb::module_& m);          // py_data_engine.cc
void bind_data_audio(pyb::module_& m);           // py_data_audio.cc
void bind_data_text(pyb::module_& m);            // py_data_text.cc
void bind_data_sources_vision(pyb::module_& m);  // py_data_sources_vision.cc
void bind_data_video(pyb::module_& m);           // py_data_video.cc
void bind_data_sources_more(pyb::module_& m);    // py_data_sources_more.cc
void bind_data_samplers_py(pyb::module_& m);     // py_data_sampler.cc
void bind_data_cifar100(pyb::module_& m);        // py_data_cifar100.cc

// Data sink (GraphFunction.sink in py_graph.cc): the next row of `pipeline` (a
// _data.Pipeline) as Tensors, waited for with the GIL released (held on entry). EndOfEpoch
// at the end of an epoch after which another follows, Ended after the last one. A pipeline
// error is raised as Pipeline.next raises it; a string column is a TypeError naming it.
enum class SinkRow { Row, EndOfEpoch, Ended };
SinkRow pipeline_next_tensors(pyb::handle pipeline, const std::vector<std::string>& columns,
                              std::vector<Tensor>* row);

}  // namespace mycel::py

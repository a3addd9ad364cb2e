// Bindings of the engine: nodes, samplers, Python callables as transforms/sources, and the
// Pipeline that the Python iterators drive. Python objects held by C++ (callables, iterators)
// are only touched, copied and released with the GIL held.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "data/array_source.h"
#include "data/autotune.h"
#include "data/pipeline.h"
#include "data/profiling.h"
#include "frontend/py_convert.h"
#include "python/module.h"
#include "python/py_data.h"
#include "python/py_data_object.h"

namespace mycel::py {

using data::Array;
using data::Row;

namespace {

// A Python object that C++ threads may own: released under the GIL.
struct PyRef {
  pyb::object obj;
  explicit PyRef(pyb::object o) : obj(std::move(o)) {}
  ~PyRef() {
    pyb::gil_scoped_acquire gil;
    obj = pyb::object();
  }
};
using PyRefPtr = std::shared_ptr<PyRef>;
PyRefPtr hold(pyb::object o) { return std::make_shared<PyRef>(std::move(o)); }

std::vector<Array> arrays_from_py(pyb::handle seq, std::string_view op) {
  std::vector<Array> out;
  for (pyb::handle h : seq) out.push_back(data_array_from_py(h, op));
  return out;
}

pyb::list arrays_to_py(const std::vector<Array>& arrays) {
  pyb::list out;
  for (const Array& a : arrays) out.append(data_array_to_numpy(a, true));
  return out;
}

// A Python callable in map: fn(*numpy arrays) -> list of arrays (the Python wrapper in
// engine.py converts results and names the op in its errors).
class PyTransform : public data::Transform {
 public:
  PyTransform(std::string name, pyb::object fn)
      : name_(std::move(name)), fn_(hold(std::move(fn))) {}
  std::string_view name() const override { return name_; }
  bool takes_objects() const override { return true; }
  std::vector<Array> apply(std::vector<Array> inputs, int, data::RowRandom*) const override {
    pyb::gil_scoped_acquire gil;
    pyb::list args = arrays_to_py(inputs);
    pyb::object res = fn_->obj(*pyb::tuple(args));
    return arrays_from_py(res, name_);
  }

 private:
  std::string name_;
  PyRefPtr fn_;
};

// GeneratorDataset over a random-access Python source: reader(i) -> tuple of arrays.
class PySource : public data::RandomAccessSource {
 public:
  PySource(pyb::object reader, int64_t size, std::vector<std::string> columns)
      : reader_(hold(std::move(reader))), size_(size), columns_(std::move(columns)) {}
  std::string_view name() const override { return "GeneratorDataset"; }
  int64_t size() const override { return size_; }
  std::vector<std::string> columns() const override { return columns_; }
  bool needs_gil() const override { return true; }
  Row read(int64_t i) const override {
    pyb::gil_scoped_acquire gil;
    return arrays_from_py(reader_->obj(i), "GeneratorDataset");
  }

 private:
  PyRefPtr reader_;
  int64_t size_;
  std::vector<std::string> columns_;
};

// GeneratorDataset over a Python iterable: open() -> a Python iterator of row tuples.
class PyStream : public data::Stream {
 public:
  explicit PyStream(pyb::object it) : it_(hold(std::move(it))) {}
  bool next(Row* row) override {
    pyb::gil_scoped_acquire gil;
    pyb::object item = it_->obj.attr("__next__")();  // the wrapper returns None at the end
    if (item.is_none()) return false;
    *row = arrays_from_py(item, "GeneratorDataset");
    return true;
  }

 private:
  PyRefPtr it_;
};

class PyStreamSource : public data::StreamSource {
 public:
  explicit PyStreamSource(pyb::object open) : open_(hold(std::move(open))) {}
  std::string_view name() const override { return "GeneratorDataset"; }
  std::unique_ptr<data::Stream> open() const override {
    pyb::gil_scoped_acquire gil;
    return std::make_unique<PyStream>(open_->obj());
  }

 private:
  PyRefPtr open_;
};

std::vector<data::NodePtr> node_list(const pyb::list& l) {
  std::vector<data::NodePtr> out;
  for (pyb::handle h : l) out.push_back(pyb::cast<data::NodePtr>(h));
  return out;
}

// Whether only this Array (and not a source's loaded data) holds its bytes.
bool owns_bytes(const Array& a) { return a.storage() && a.storage().use_count() == 1; }

// A numeric Array of a row being dropped as a Tensor that shares nothing with the engine:
// bytes only this row owns (a batch, a transform's output) are handed over as they are; a
// view of a source's loaded data is copied.
Tensor row_tensor(const Array& a) {
  bool shared = !owns_bytes(a);
  Tensor t = a.to_tensor("Iterator");
  if (shared && t.storage() == a.storage()) t = t.clone();
  return t;
}

pyb::object row_to_py(const Row& row, bool output_numpy) {
  pyb::list out;
  for (const Array& a : row) {
    if (a.dtype() == data::DataType::Object) {
      out.append(object_array_to_py(a, output_numpy));
      continue;
    }
    if (output_numpy || a.dtype() == data::DataType::String) {
      out.append(data_array_to_numpy(a, !owns_bytes(a)));
      continue;
    }
    out.append(pyb::cast(row_tensor(a)));
  }
  return out;
}

// The pipeline as Python owns it: destroyed with the GIL held (by the garbage collector), it
// must let go of the GIL while its threads finish, since they may be waiting for it.
struct PyPipeline {
  std::unique_ptr<data::Pipeline> p;
  ~PyPipeline() {
    {
      pyb::gil_scoped_release nogil;
      p->stop();
    }
    p.reset();
  }
};

// The pipeline's next row, waited for with the GIL released; false at the end of an epoch.
bool pop_row(PyPipeline& p, Row* row) {
  try {
    pyb::gil_scoped_release nogil;
    return p.p->next(row);
  } catch (const pyb::error_already_set& e) {
    // A failed pipeline rethrows its error on every later call, but pybind11 can restore
    // one error_already_set only once: raise a fresh one each time.
    PyErr_Restore(pyb::object(e.type()).release().ptr(), pyb::object(e.value()).release().ptr(),
                  pyb::object(e.trace()).release().ptr());
    throw pyb::error_already_set();
  }
}

}  // namespace

SinkRow pipeline_next_tensors(pyb::handle pipeline, const std::vector<std::string>& columns,
                              std::vector<Tensor>* row) {
  PyPipeline& p = pipeline.cast<PyPipeline&>();
  Row r;
  if (!pop_row(p, &r)) return p.p->ended() ? SinkRow::Ended : SinkRow::EndOfEpoch;
  row->clear();
  for (size_t i = 0; i < r.size(); ++i) {
    MC_CHECK(data::is_numeric(r[i].dtype()), Type, "data_sink: column '",
             i < columns.size() ? columns[i] : std::to_string(i), "' holds ",
             r[i].dtype() == data::DataType::String ? "strings" : "Python objects",
             ", which a compiled step cannot take");
    row->push_back(row_tensor(r[i]));
  }
  return SinkRow::Row;
}

namespace {

// padded_batch's pad_info: (column, shape or None, number or str) per padded column.
std::vector<data::PadSpec> pad_specs(const pyb::list& pads) {
  std::vector<data::PadSpec> specs;
  for (pyb::handle h : pads) {
    auto t = pyb::cast<pyb::tuple>(h);
    data::PadSpec p;
    p.column = pyb::cast<int>(t[0]);
    if (!t[1].is_none()) {
      p.has_shape = true;
      for (pyb::handle d : t[1]) {
        try {
          p.shape.push_back(int64_of(d));
        } catch (const Error& e) {
          throw Error(e.kind(), str("padded_batch: pad_info shape: ", e.message()));
        }
      }
    }
    if (pyb::isinstance<pyb::str>(t[2])) {
      p.text = pyb::cast<std::string>(t[2]);
    } else {
      p.value = pyb::cast<double>(t[2]);
    }
    specs.push_back(std::move(p));
  }
  return specs;
}

// batch's per_batch_map as the engine's BatchMap (none when batch_map is None):
// fn(columns, batch_num, epoch_num) -> (columns, whole) (pipeline.h, BatchResult).
data::BatchMap batch_map_fn(pyb::object batch_map) {
  data::BatchMap bm;
  if (!batch_map.is_none()) {
    PyRefPtr fn = hold(std::move(batch_map));
    bm = [fn](data::BatchColumns args, int64_t batch_num, int64_t epoch_num) {
      pyb::gil_scoped_acquire gil;
      pyb::list cols;
      for (const auto& col : args) cols.append(arrays_to_py(col));
      pyb::tuple res = fn->obj(cols, batch_num, epoch_num);
      data::BatchResult out;
      for (pyb::handle col : res[0]) {
        out.columns.push_back(arrays_from_py(col, "per_batch_map"));
      }
      out.whole = pyb::cast<bool>(res[1]);
      return out;
    };
  }
  return bm;
}

// The samplers, Python transforms and sources.
void bind_samplers_and_sources(pyb::module_& m) {
  pyb::class_<data::Sampler, data::SamplerPtr>(m, "Sampler")
      .def_property_readonly("name", &data::Sampler::name)
      .def("size", &data::Sampler::size)
      .def("order", [](const data::Sampler& s, int64_t n, uint64_t seed, uint64_t key,
                       uint64_t pass) { return s.order(n, seed, key, pass); });
  m.def("SequentialSampler", &data::make_sequential_sampler);
  m.def("RandomSampler", &data::make_random_sampler);
  m.def("DistributedSampler", &data::make_distributed_sampler);
  m.def("SubsetSampler", &data::make_subset_sampler);
  m.def("SubsetRandomSampler", &data::make_subset_random_sampler);
  m.def("WeightedRandomSampler", &data::make_weighted_random_sampler);
  m.def(
      "FileShuffleSampler",
      [](const data::SourcePtr& source, bool infile, int64_t num_shards, int64_t shard_id,
         int64_t num_samples) {
        return data::make_file_shuffle_sampler(source->file_of_rows(), infile, num_shards, shard_id,
                                               num_samples);
      },
      "Shuffle.FILES / Shuffle.INFILE over the files of `source` (sampler.h).");

  m.def("PyTransform", [](std::string name, pyb::object fn) -> data::TransformPtr {
    return std::make_shared<PyTransform>(std::move(name), std::move(fn));
  });
  m.def("ArraySource",
        [](std::string name, pyb::list cols, std::vector<std::string> names) -> data::SourcePtr {
          std::vector<Array> arrays;
          for (pyb::handle h : cols) arrays.push_back(data_array_from_py(h, name));
          return std::make_shared<data::ArraySource>(name, std::move(arrays), std::move(names));
        });
  m.def("PySource",
        [](pyb::object reader, int64_t size, std::vector<std::string> cols) -> data::SourcePtr {
          return std::make_shared<PySource>(std::move(reader), size, std::move(cols));
        });
}

// The pipeline's nodes (pipeline.h).
void bind_nodes(pyb::module_& m) {
  using data::NodePtr;
  pyb::class_<data::Node, NodePtr>(m, "Node")
      .def_readonly("columns", &data::Node::columns)
      .def_property_readonly(
          "id", [](const data::Node& n) { return reinterpret_cast<uintptr_t>(&n); },
          "The node's identity, as Pipeline.autotune_report names it.")
      .def("size", &data::Node::size);
  m.def("source_node", &data::source_node);
  m.def("stream_node", [](pyb::object open, std::vector<std::string> cols, int64_t size) {
    return data::stream_node(std::make_shared<PyStreamSource>(std::move(open)), std::move(cols),
                             size);
  });
  m.def(
      "map_node",
      [](NodePtr child, std::vector<data::TransformPtr> transforms, std::vector<int> in_cols,
         std::vector<std::string> out_names, int workers, int lead, std::string label, int on_error,
         pyb::object hooks) {
        MC_CHECK(on_error >= 0 && on_error <= 2, Value,
                 "map: error samples mode must be 0 (RETURN), 1 (REPLACE) or 2 (SKIP), but got ",
                 on_error, ".");
        NodePtr n = data::map_node(std::move(child), std::move(transforms), std::move(in_cols),
                                   std::move(out_names), workers, lead, std::move(label),
                                   static_cast<data::Node::OnError>(on_error));
        if (!hooks.is_none()) {  // callbacks: events in row order, so one worker
          PyRefPtr fn = hold(std::move(hooks));
          n->hooks = [fn](int event, int64_t epoch, int64_t step_in_epoch, int64_t step) {
            pyb::gil_scoped_acquire gil;
            fn->obj(event, epoch, step_in_epoch, step);
          };
          n->workers = 1;
        }
        return n;
      },
      pyb::arg("child"), pyb::arg("transforms"), pyb::arg("in_cols"), pyb::arg("out_names"),
      pyb::arg("workers"), pyb::arg("lead"), pyb::arg("label"), pyb::arg("on_error") = 0,
      pyb::arg("hooks") = pyb::none(),
      "A map node; on_error is config.ErrorSamplesMode's value (RETURN 0, REPLACE 1, SKIP 2); "
      "hooks(event, epoch, step_in_epoch, step) gets the dataset callbacks' events "
      "(pipeline.h, MapHooks).");
  m.def("current_row_file", &data::current_row_file,
        "The file of the row this map worker is transforming ('' when unknown).");
  m.def("filter_node", [](NodePtr child, pyb::object pred, std::vector<int> cols, int workers) {
    PyRefPtr fn = hold(std::move(pred));
    data::Predicate p = [fn](const std::vector<Array>& args) {
      pyb::gil_scoped_acquire gil;
      return pyb::cast<bool>(fn->obj(*pyb::tuple(arrays_to_py(args))));
    };
    return data::filter_node(std::move(child), std::move(p), std::move(cols), workers);
  });
  m.def(
      "batch_node",
      [](NodePtr child, int64_t size, bool drop, int workers, pyb::list pads, pyb::object batch_map,
         std::vector<int> cols, std::vector<std::string> outs, pyb::object size_fn) {
        NodePtr n =
            data::batch_node(std::move(child), size, drop, workers, pad_specs(pads),
                             batch_map_fn(std::move(batch_map)), std::move(cols), std::move(outs));
        if (!size_fn.is_none()) {  // a callable batch_size: size_fn(batch_num, epoch_num)
          PyRefPtr fn = hold(std::move(size_fn));
          n->batch_size_fn = [fn](int64_t batch_num, int64_t epoch_num) {
            pyb::gil_scoped_acquire gil;
            return int64_of(fn->obj(batch_num, epoch_num));
          };
        }
        return n;
      },
      pyb::arg("child"), pyb::arg("size"), pyb::arg("drop"), pyb::arg("workers"), pyb::arg("pads"),
      pyb::arg("batch_map"), pyb::arg("cols"), pyb::arg("outs"), pyb::arg("size_fn") = pyb::none());
  m.def("shuffle_node", &data::shuffle_node);
  m.def("repeat_node", &data::repeat_node);
  m.def("skip_node", &data::skip_node);
  m.def("take_node", &data::take_node);
  m.def("project_node", &data::project_node);
  m.def("zip_node", [](pyb::list l) { return data::zip_node(node_list(l)); });
  m.def("concat_node", [](pyb::list l) { return data::concat_node(node_list(l)); });
}

// The Pipeline that runs a tree of nodes, with its autotune report.
void bind_pipeline(pyb::module_& m) {
  using data::NodePtr;
  pyb::class_<PyPipeline>(m, "Pipeline")
      .def(pyb::init([](NodePtr root, uint64_t seed, int64_t num_epochs, int64_t init_step,
                        int64_t prefetch, int64_t autotune_interval, int autotune_max_workers,
                        int64_t profile_interval_ms) {
             data::PipelineOptions o;
             o.seed = seed;
             o.num_epochs = num_epochs;
             o.init_step = init_step;
             o.prefetch = prefetch;
             o.autotune_interval = autotune_interval;
             o.autotune_max_workers = autotune_max_workers;
             o.profile_interval_ms = profile_interval_ms;
             auto p = std::unique_ptr<PyPipeline>(
                 new PyPipeline{std::make_unique<data::Pipeline>(std::move(root), o)});
             if (init_step > 0) {  // a replayed resume runs now, so .epoch is the resumed one
               pyb::gil_scoped_release nogil;
               p->p->start();
             }
             return p;
           }),
           pyb::arg("root"), pyb::arg("seed"), pyb::arg("num_epochs") = -1,
           pyb::arg("init_step") = 0, pyb::arg("prefetch") = 16, pyb::arg("autotune_interval") = -1,
           pyb::arg("autotune_max_workers") = 1, pyb::arg("profile_interval_ms") = 0)
      .def(
          "autotune_report",
          [](const PyPipeline& p) {
            pyb::list out;
            for (const data::TunedOp& t : p.p->autotune_report()) {
              pyb::dict d;
              d["node"] = reinterpret_cast<uintptr_t>(t.node);
              d["op"] = t.kind;
              d["initial_workers"] = t.initial_workers;
              d["workers"] = t.workers;
              d["mean_fill"] = t.mean_fill;
              d["tunable"] = t.tunable;
              out.append(d);
            }
            return out;
          },
          "The autotuner's ops (autotune.h): node id, op kind, worker counts, mean queue fill.")
      .def_property_readonly("autotune_adjustments",
                             [](const PyPipeline& p) { return p.p->autotune_adjustments(); })
      .def(
          "next",
          [](PyPipeline& p, bool output_numpy) -> pyb::object {
            Row row;
            if (!pop_row(p, &row)) return pyb::none();
            return row_to_py(row, output_numpy);
          },
          pyb::arg("output_numpy") = false,
          "The next row as a list (numpy arrays or Tensors), or None at the end of an epoch.")
      .def_property_readonly("profiled", [](const PyPipeline& p) { return p.p->profiled(); })
      .def_property_readonly("ended", [](const PyPipeline& p) { return p.p->ended(); })
      .def_property_readonly("epoch", [](const PyPipeline& p) { return p.p->epoch(); })
      .def("stop", [](PyPipeline& p) {
        pyb::gil_scoped_release nogil;
        p.p->stop();
      });
}

// The profiler (data/profiling.h): mycel._c_dataengine.GlobalContext.profiling_manager().
void bind_profiler(pyb::module_& m) {
  using data::Profiler;
  pyb::class_<Profiler, std::unique_ptr<Profiler, pyb::nodelete>>(m, "ProfilingManager")
      .def(
          "init", [](Profiler& p) { p.init(); }, "Arms the profiler and forgets its data.")
      .def(
          "start", [](Profiler& p) { p.start(); }, "Starts recording.")
      .def(
          "stop",
          [](Profiler& p) {
            if (!p.stop()) {
              pyb::module_::import("mycel.log")
                  .attr("warning")("MD ProfilingManager had already stopped.");
            }
          },
          "Stops recording (a warning when it had already stopped).")
      .def(
          "save", [](Profiler& p, const std::string& dir) { return p.save(dir); },
          pyb::arg("profile_data_path"),
          "Writes the registered pipeline's files into the directory; the paths written.")
      .def("is_profiling", [](const Profiler& p) { return p.state() == Profiler::State::Running; })
      .def(
          "claim",
          [](const Profiler& p) {
            switch (p.claim()) {
              case Profiler::Claim::Free:
                return "free";
              case Profiler::Claim::Taken:
                return "taken";
              default:
                return "off";
            }
          },
          "What a pipeline created now would get: 'off' (not armed), 'free' (it would be "
          "profiled) or 'taken' (another pipeline is registered).");
  m.def(
      "profiling_manager", [] { return &Profiler::instance(); },
      pyb::return_value_policy::reference, "The process's one pipeline profiler.");
}

}  // namespace

void bind_data_engine(pyb::module_& m) {
  bind_samplers_and_sources(m);
  bind_nodes(m);
  bind_pipeline(m);
  bind_profiler(m);
}

}  // namespace mycel::py

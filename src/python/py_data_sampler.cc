// User-defined samplers (MindSpore's Python samplers: a ds.Sampler subclass with its own
// __iter__, or any object with __iter__): a data::Sampler whose size and order are Python
// callables (mycel/dataset/samplers.py, _PythonSampler), called with the GIL held. The engine
// asks for a pass's order on a worker thread, so the callables are held and dropped under the
// GIL.
#include <pybind11/stl.h>

#include "data/sampler.h"
#include "frontend/py_convert.h"
#include "python/py_data.h"

namespace mycel::py {

namespace {

class PySampler : public data::Sampler {
 public:
  PySampler(std::string name, pyb::object size, pyb::object order)
      : name_(std::move(name)),
        size_(new pyb::object(std::move(size)), drop),
        order_(new pyb::object(std::move(order)), drop) {}

  std::string name() const override { return name_; }

  int64_t size(int64_t n) const override {
    pyb::gil_scoped_acquire gil;
    return int64_of((*size_)(n));
  }

  std::vector<int64_t> order(int64_t n, uint64_t, uint64_t, uint64_t pass) const override {
    pyb::gil_scoped_acquire gil;
    pyb::object res = (*order_)(n, pass);
    std::vector<int64_t> out;
    for (pyb::handle h : res) {
      const int64_t i = int64_of(h);
      MC_CHECK(i >= 0 && i < n, Index, name_, ": Sample ID (", i,
               ") is out of bound, expected range [0, ", n - 1, "].");
      out.push_back(i);
    }
    return out;
  }

  // Python may pick the order of a pass from its own random state: the engine must not
  // assume a pass can be recomputed from the seed.
  bool random() const override { return true; }

 private:
  static void drop(pyb::object* o) {
    pyb::gil_scoped_acquire gil;
    delete o;
  }
  std::string name_;
  std::shared_ptr<pyb::object> size_, order_;
};

}  // namespace

void bind_data_samplers_py(pyb::module_& m) {
  m.def(
      "PySampler",
      [](std::string name, pyb::object size, pyb::object order) -> data::SamplerPtr {
        return std::make_shared<PySampler>(std::move(name), std::move(size), std::move(order));
      },
      pyb::arg("name"), pyb::arg("size"), pyb::arg("order"),
      "A sampler whose size(n) and order(n, pass) are Python callables (samplers.py).");
}

}  // namespace mycel::py

// Python objects in dataset rows (data::Object, src/data/array.h): a Python dict held by the
// engine. The engine's threads copy and drop rows without the GIL, so the reference is
// released under the GIL (as the callables of py_data_engine.cc are); what happens to the
// values (normalising a dict's leaves, batching, conversion for the iterators) is Python, in
// mycel/dataset/_pyobjects.py.
#include "python/py_data_object.h"

namespace mycel::py {

namespace {

pyb::object helpers() { return pyb::module_::import("mycel.dataset._pyobjects"); }

class PyObjectValue : public data::Object {
 public:
  explicit PyObjectValue(pyb::object obj) : obj_(std::move(obj)) {}
  ~PyObjectValue() override {
    if (!Py_IsInitialized()) {  // interpreter gone: nothing to release into
      obj_.release();
      return;
    }
    pyb::gil_scoped_acquire gil;
    obj_ = pyb::object();
  }

  const pyb::object& obj() const { return obj_; }

  data::ObjectPtr batch(const std::vector<data::ObjectPtr>& rows, bool as_lists) const override {
    pyb::gil_scoped_acquire gil;
    pyb::list values;
    for (const data::ObjectPtr& r : rows) {
      values.append(static_cast<const PyObjectValue&>(*r).obj_);
    }
    pyb::object out = helpers().attr("batch")(values, as_lists);
    return std::make_shared<PyObjectValue>(std::move(out));
  }

  std::string type_name() const override {
    pyb::gil_scoped_acquire gil;
    return pyb::cast<std::string>(pyb::type::of(obj_).attr("__name__"));
  }

 private:
  pyb::object obj_;
};

}  // namespace

bool is_row_object(pyb::handle obj) { return PyDict_Check(obj.ptr()) != 0; }

data::Array object_array_from_py(pyb::handle obj) {
  pyb::object value = helpers().attr("normalize")(obj);
  return data::Array::object(std::make_shared<PyObjectValue>(std::move(value)));
}

pyb::object object_array_to_py(const data::Array& a, bool output_numpy) {
  const pyb::object& obj = static_cast<const PyObjectValue&>(*a.object()).obj();
  if (output_numpy) return obj;
  return helpers().attr("to_tensors")(obj);
}

}  // namespace mycel::py

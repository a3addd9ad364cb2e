#include <algorithm>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "base/error.h"
#include "lite/model.h"
#include "lite/mycel_lite_c.h"

struct MycelLiteModel {
  mycel::lite::Model model;
  std::vector<mycel::lite::Tensor> outputs;
  std::string error;
};

namespace {

template <class F>
int guarded(MycelLiteModel* m, F&& f) {
  if (!m) return MYCEL_LITE_VALUE_ERROR;
  try {
    f();
    m->error.clear();
    return MYCEL_LITE_OK;
  } catch (const mycel::Error& e) {
    m->error = e.what();
    bool value = e.kind() == mycel::ErrorKind::Value || e.kind() == mycel::ErrorKind::Type ||
                 e.kind() == mycel::ErrorKind::Index;
    return value ? MYCEL_LITE_VALUE_ERROR : MYCEL_LITE_ERROR;
  } catch (const std::exception& e) {
    m->error = e.what();
    return MYCEL_LITE_ERROR;
  }
}

int write_shape(const mycel::lite::Dims& d, int64_t* dims, size_t capacity, size_t* ndim) {
  if (ndim) *ndim = d.size();
  if (dims && d.size() <= capacity) std::copy(d.begin(), d.end(), dims);
  return MYCEL_LITE_OK;
}

}  // namespace

extern "C" {

MycelLiteModel* mycel_lite_model_create(void) { return new (std::nothrow) MycelLiteModel(); }

void mycel_lite_model_destroy(MycelLiteModel* model) { delete model; }

int mycel_lite_model_build_from_file(MycelLiteModel* m, const char* path, int thread_num) {
  return guarded(m, [&] {
    MC_CHECK(path, Value, "mycel_lite_model_build_from_file: path is NULL");
    mycel::lite::Context ctx;
    ctx.thread_num = thread_num;
    m->model.Build(path, ctx);
    m->outputs.clear();
  });
}

const char* mycel_lite_last_error(const MycelLiteModel* m) {
  return m ? m->error.c_str() : "no model";
}

size_t mycel_lite_num_inputs(const MycelLiteModel* m) {
  try {
    return m ? m->model.graph().inputs.size() : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

size_t mycel_lite_num_outputs(const MycelLiteModel* m) {
  try {
    return m ? m->model.graph().outputs.size() : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

const char* mycel_lite_input_name(const MycelLiteModel* m, size_t i) {
  try {
    const auto& g = m->model.graph();
    return i < g.inputs.size() ? g.tensors[g.inputs[i]].name.c_str() : nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

int mycel_lite_input_shape(MycelLiteModel* m, size_t i, int64_t* dims, size_t capacity,
                           size_t* ndim) {
  return guarded(m, [&] {
    const auto& g = m->model.graph();
    MC_CHECK(i < g.inputs.size(), Index, "mycel_lite_input_shape: input ", i, " of ",
             g.inputs.size());
    write_shape(g.tensors[g.inputs[i]].shape, dims, capacity, ndim);
  });
}

int mycel_lite_resize(MycelLiteModel* m, const int64_t* const* shapes, const size_t* ndims) {
  return guarded(m, [&] {
    auto inputs = m->model.GetInputs();
    MC_CHECK(shapes && ndims, Value, "mycel_lite_resize: shapes or ndims is NULL");
    std::vector<mycel::lite::Dims> dims;
    for (size_t i = 0; i < inputs.size(); ++i) dims.emplace_back(shapes[i], shapes[i] + ndims[i]);
    m->model.Resize(inputs, dims);
    m->outputs.clear();
  });
}

int mycel_lite_predict(MycelLiteModel* m, const float* const* data, size_t n) {
  return guarded(m, [&] {
    auto inputs = m->model.GetInputs();
    MC_CHECK(n == inputs.size() && (data || !n), Value, "mycel_lite_predict: the model has ",
             inputs.size(), " input(s); got ", n);
    for (size_t i = 0; i < n; ++i) {
      MC_CHECK(data[i] || !inputs[i].DataSize(), Value, "mycel_lite_predict: input ", i,
               " is NULL");
      if (inputs[i].DataSize()) std::memcpy(inputs[i].MutableData(), data[i], inputs[i].DataSize());
    }
    m->model.Predict(inputs, &m->outputs);
  });
}

const float* mycel_lite_output(MycelLiteModel* m, size_t i, int64_t* dims, size_t capacity,
                               size_t* ndim) {
  if (!m || i >= m->outputs.size()) return nullptr;
  write_shape(m->outputs[i].Shape(), dims, capacity, ndim);
  return static_cast<const float*>(m->outputs[i].Data());
}

}  // extern "C"

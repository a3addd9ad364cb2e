/* The mycel lite runtime's C API: a thin layer over mycel::lite::Model (lite/model.h) for C
 * programs and other languages' FFIs. Every call that can fail returns a status (0 on
 * success); the message of the last failure is mycel_lite_last_error(model). Tensors are
 * float32, row-major, in the model's input and output order. */
#ifndef MYCEL_LITE_C_H_
#define MYCEL_LITE_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MycelLiteModel MycelLiteModel;

enum {
  MYCEL_LITE_OK = 0,
  MYCEL_LITE_VALUE_ERROR = 1, /* a bad file, input, shape or argument */
  MYCEL_LITE_ERROR = 2        /* anything else (out of memory, a kernel failure) */
};

MycelLiteModel* mycel_lite_model_create(void);
void mycel_lite_model_destroy(MycelLiteModel* model);
/* thread_num <= 0 keeps OpenMP's default. */
int mycel_lite_model_build_from_file(MycelLiteModel* model, const char* path, int thread_num);
const char* mycel_lite_last_error(const MycelLiteModel* model);

size_t mycel_lite_num_inputs(const MycelLiteModel* model);
size_t mycel_lite_num_outputs(const MycelLiteModel* model);
const char* mycel_lite_input_name(const MycelLiteModel* model, size_t i);
/* Writes input i's rank to *ndim and, when it is at most `capacity`, its dimensions to dims. */
int mycel_lite_input_shape(MycelLiteModel* model, size_t i, int64_t* dims, size_t capacity,
                           size_t* ndim);
/* New shapes for every input: shapes[i] holds ndims[i] dimensions. */
int mycel_lite_resize(MycelLiteModel* model, const int64_t* const* shapes, const size_t* ndims);
/* inputs[i] points at input i's data, of its current shape. */
int mycel_lite_predict(MycelLiteModel* model, const float* const* inputs, size_t n_inputs);
/* Output i of the last predict (NULL before one); its shape as mycel_lite_input_shape. */
const float* mycel_lite_output(MycelLiteModel* model, size_t i, int64_t* dims, size_t capacity,
                               size_t* ndim);

#ifdef __cplusplus
}
#endif

#endif /* MYCEL_LITE_C_H_ */

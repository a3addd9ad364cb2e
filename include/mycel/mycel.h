// mycel's public C++ API, for programs that use the core without Python:
//
//   #include <mycel/mycel.h>
//   using namespace mycel;
//   Tensor x = Tensor::full({2, 3}, Scalar::from_float(1.5), DType::Float32);
//   Tensor y = run_op1(OpId::Mul, {x, x});               // eager, straight to the kernel
//   Tensor s = run_op1(OpId::ReduceSum, {y}, attrs);     // attributes by name (ops/attrs.h)
//
// Ops, their inputs and attributes: src/ops/defs/*.def. Errors: mycel::Error (base/error.h).
#pragma once

#include "base/error.h"
#include "base/parallel.h"
#include "ops/attrs.h"
#include "ops/op_table.h"
#include "runtime/eager.h"
#include "tensor/allocator.h"
#include "tensor/dtype.h"
#include "tensor/random.h"
#include "tensor/tensor.h"

// What test_cuda_vs_cpu.cc's kernel cases do not show for the reduce, array and random
// families: the random ops bit for bit against the CPU (the same Philox streams, the global
// generator advancing the same), and the device-side index checks. Needs a GPU
// (mycel_cuda_tests).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>

#include "../kernels/kernel_cases.h"
#include "base/error.h"
#include "kernels/cuda/array_index.h"
#include "ops/op_semantics.h"
#include "ops/op_table.h"
#include "runtime/eager.h"
#include "tensor/random.h"

namespace mycel::test {
namespace {

struct Prepared {
  const OpDef* op;
  std::vector<Tensor> ins;
  MetaList out;
  Attrs attrs;
};

Prepared prepare(const KernelCase& c) {
  Prepared p{find_op(c.op), {}, {}, {}};
  if (c.make_inputs) {
    p.ins = c.make_inputs();
  } else {
    for (size_t i = 0; i < c.inputs.size(); ++i)
      p.ins.push_back(make_input(c.inputs[i], 7000 + i + 1));
  }
  p.attrs = make_attrs(*p.op, c.attrs);
  std::vector<TensorMeta> metas;
  for (const Tensor& t : p.ins) metas.push_back({t.dtype(), t.shape()});
  promote_inputs(*p.op, metas);
  for (size_t i = 0; i < p.ins.size(); ++i) {
    p.ins[i] = p.ins[i].cast(metas[i].dtype);
    if (!(p.op->flags & F_STRIDED)) p.ins[i] = p.ins[i].contiguous();
  }
  p.out = infer_op(*p.op, metas, p.attrs);
  return p;
}

// Runs the op's kernel on `dev` (inputs copied there; ops without inputs use the default
// device), the global generator reset to `seed` first; results on the host.
TensorList run_on(const Prepared& p, Device dev, uint64_t seed = 1234) {
  std::vector<Tensor> ins;
  for (const Tensor& t : p.ins) ins.push_back(t.to(dev));
  const Device saved = default_device();
  set_default_device(dev);
  set_global_seed(seed);
  TensorList outs = run_kernel(*p.op, ins, p.out, p.attrs, false);
  set_default_device(saved);
  TensorList host;
  for (const Tensor& t : outs) host.push_back(t.cpu());
  return host;
}

// Bitwise equality of two host tensors; the count of differing elements.
int64_t differing(const Tensor& a, const Tensor& b) {
  const size_t isz = a.itemsize();
  const char* pa = static_cast<const char*>(a.raw_data());
  const char* pb = static_cast<const char*>(b.raw_data());
  int64_t n = 0;
  for (int64_t i = 0; i < a.numel(); ++i) n += std::memcmp(pa + i * isz, pb + i * isz, isz) != 0;
  return n;
}

TEST(CudaRandom, SameStreamsAsCpu) {
  for (const char* name : {"UniformReal", "StandardNormal"}) {
    for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
      KernelCase c;
      c.op = name;
      c.attrs = A({{"shape", ints({1000003})}, {"dtype", t}});  // seeds 0, 0: global generator
      Prepared p = prepare(c);
      // Two draws in a row: the second checks that the generator advanced the same.
      TensorList w1 = run_on(p, Device::cpu(), 99);
      set_default_device(Device::cpu());
      TensorList w2 = run_kernel(*p.op, {}, p.out, p.attrs, false);
      TensorList g1 = run_on(p, Device::cuda(0), 99);
      set_default_device(Device::cuda(0));
      TensorList g2 = run_kernel(*p.op, {}, p.out, p.attrs, false);
      set_default_device(Device::cpu());
      const int64_t d1 = differing(g1[0], w1[0]), d2 = differing(g2[0].cpu(), w2[0]);
      if (std::string(name) == "UniformReal") {
        EXPECT_EQ(d1, 0) << name << " " << t;
        EXPECT_EQ(d2, 0) << name << " " << t;
      } else if (t == DType::Float64) {
        // Last-bit differences where nvcc and GCC fuse multiply-adds differently
        // (random.cu): equal to 1e-14, and counted.
        EXPECT_EQ(compare_tensors(g1[0], w1[0], 1e-14, 1e-14), "") << name << " " << t;
        EXPECT_EQ(compare_tensors(g2[0].cpu(), w2[0], 1e-14, 1e-14), "") << name << " " << t;
      } else {
        // Float32 and narrower round the same double: equal but for rare last bits.
        EXPECT_LE(d1, 10) << name << " " << t;
        EXPECT_LE(d2, 10) << name << " " << t;
        std::cout << name << " " << t << ": " << d1 << ", " << d2
                  << " of 1000003 elements differ from the CPU\n";
      }
    }
  }
}

TEST(CudaIndex, BadGatherIndexIsReportedLater) {
  const Device gpu = Device::cuda(0);
  Tensor params = make_input({{4, 3}, DType::Float32}, 1).to(gpu);
  Tensor bad = Tensor::empty({2}, DType::Int32);
  bad.data<int32_t>()[0] = 1;
  bad.data<int32_t>()[1] = 9;
  Tensor good = Tensor::zeros({1}, DType::Int32);
  const OpDef& op = op_def(OpId::Gather);
  Attrs attrs = make_attrs(op, A({{"axis", i64(0)}}));
  MetaList out = infer_op(op, std::vector<TensorMeta>{{DType::Float32, {4, 3}}, {DType::Int32, {2}}},
                          attrs);
  std::vector<Tensor> ins{params, bad.to(gpu)};
  TensorList r = run_kernel(op, ins, out, attrs);
  Tensor h = r[0].cpu();  // waits for the kernel
  for (int j = 0; j < 3; ++j) EXPECT_EQ(h.data<float>()[3 + j], 0.0f);  // the bad row: zeros
  EXPECT_EQ(h.data<float>()[0], params.cpu().data<float>()[3]);
  MetaList out2 = infer_op(op, std::vector<TensorMeta>{{DType::Float32, {4, 3}}, {DType::Int32, {1}}},
                           attrs);
  std::vector<Tensor> ins2{params, good.to(gpu)};
  try {
    run_kernel(op, ins2, out2, attrs);
    ADD_FAILURE() << "no IndexError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Index);
    EXPECT_NE(std::string(e.what()).find("9"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(run_kernel(op, ins2, out2, attrs));  // reported once
}

}  // namespace
}  // namespace mycel::test

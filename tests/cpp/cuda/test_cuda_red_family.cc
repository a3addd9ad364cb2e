// What test_cuda_vs_cpu.cc's kernel cases do not show for the reduce, array and random
// families: the random ops bit for bit against the CPU (the same Philox streams, the global
// generator advancing the same; Dropout's mask too), and the device-side index checks (raised
// by the next indexing op or host wait). Needs a GPU
// (mycel_cuda_tests).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>

#include "../kernels/kernel_cases.h"
#include "base/error.h"
#include "device/cuda/cuda_device.h"
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

// Dropout (an nn op, but its mask is a random draw): mask and output equal to the CPU kernel's
// bit for bit, from the global generator (two draws in a row: the second checks that it
// advanced the same) and from explicit seeds (a fixed stream: both draws the same), for
// every float dtype; n not a multiple of 4 (the last Philox block is partial), and an input
// that is not 16-byte aligned (the kernel's scalar path).
TEST(CudaRandom, DropoutSameMaskAsCpu) {
  const Device gpu = Device::cuda(0);
  const int64_t n = 1000003;
  struct Seeds {
    int64_t s0, s1;
  };
  for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
    for (Seeds sd : {Seeds{0, 0}, Seeds{5, 11}, Seeds{0, 3}}) {
      for (double keep : {0.7, 0.1}) {
        KernelCase c;
        c.op = "Dropout";
        c.inputs = {{{n + 1}, t}};
        c.attrs = A({{"keep_prob", keep}, {"Seed0", i64(sd.s0)}, {"Seed1", i64(sd.s1)}});
        Prepared p = prepare(c);
        // x: elements 1 .. n of the input, a view 1 element into its storage (unaligned).
        const Tensor whole = p.ins[0];
        const Tensor hx = whole.slice(0, 1, n + 1, 1);
        const Tensor gwhole = whole.to(gpu);
        const Tensor gx = gwhole.slice(0, 1, n + 1, 1);
        const MetaList out = infer_op(*p.op, std::vector<TensorMeta>{{t, {n}}}, p.attrs);
        const std::string what = std::string(dtype_name(t)) + " seeds " +
                                 std::to_string(sd.s0) + "," + std::to_string(sd.s1) +
                                 " keep " + std::to_string(keep);
        // Draw twice on each device, the global generator reset to the same seed first; also
        // once from the aligned whole input on the GPU (the vector path), against the CPU.
        set_default_device(Device::cpu());
        set_global_seed(99);
        TensorList w1 = run_kernel(*p.op, std::vector<Tensor>{hx}, out, p.attrs, false);
        TensorList w2 = run_kernel(*p.op, std::vector<Tensor>{hx}, out, p.attrs, false);
        const MetaList out_whole =
            infer_op(*p.op, std::vector<TensorMeta>{{t, {n + 1}}}, p.attrs);
        set_global_seed(99);
        TensorList w3 = run_kernel(*p.op, std::vector<Tensor>{whole}, out_whole, p.attrs, false);
        set_global_seed(99);
        TensorList g1 = run_kernel(*p.op, std::vector<Tensor>{gx}, out, p.attrs, false);
        TensorList g2 = run_kernel(*p.op, std::vector<Tensor>{gx}, out, p.attrs, false);
        set_global_seed(99);
        TensorList g3 =
            run_kernel(*p.op, std::vector<Tensor>{gwhole}, out_whole, p.attrs, false);
        ASSERT_EQ(g1.size(), 2u);
        for (size_t o = 0; o < 2; ++o) {
          ASSERT_EQ(g1[o].device(), gpu) << what;
          EXPECT_EQ(differing(g1[o].cpu(), w1[o]), 0) << what << " draw 1 output " << o;
          EXPECT_EQ(differing(g2[o].cpu(), w2[o]), 0) << what << " draw 2 output " << o;
          EXPECT_EQ(differing(g3[o].cpu(), w3[o]), 0) << what << " aligned, output " << o;
        }
        // The mask is a real draw: its mean near keep; from explicit seeds both draws agree,
        // from the global generator they differ.
        const Tensor m = w1[1].cast(DType::Float64);
        double kept = 0;
        for (int64_t i = 0; i < n; ++i) kept += m.data<double>()[i];
        kept /= static_cast<double>(n);
        EXPECT_NEAR(kept, keep, 0.01) << what;
        const int64_t between = differing(w1[1], w2[1]);
        if (sd.s0 == 0 && sd.s1 == 0)
          EXPECT_GT(between, 0) << what;
        else
          EXPECT_EQ(between, 0) << what;
      }
    }
  }
}

// Gather(params [4, 3], indices {1, 9}, axis 0) on the GPU: 9 is out of range, which the
// kernel records on the device. Returns the output, not waited for.
Tensor bad_gather(const Tensor& params) {
  Tensor idx = Tensor::empty({2}, DType::Int32);
  idx.data<int32_t>()[0] = 1;
  idx.data<int32_t>()[1] = 9;
  const OpDef& op = op_def(OpId::Gather);
  Attrs attrs = make_attrs(op, A({{"axis", i64(0)}}));
  MetaList out = infer_op(
      op, std::vector<TensorMeta>{{DType::Float32, {4, 3}}, {DType::Int32, {2}}}, attrs);
  std::vector<Tensor> ins{params, idx.to(params.device())};
  return run_kernel(op, ins, out, attrs)[0];
}

// A Gather with a good index (which first raises any index error pending on its device).
void good_gather(const Tensor& params) {
  const OpDef& op = op_def(OpId::Gather);
  Attrs attrs = make_attrs(op, A({{"axis", i64(0)}}));
  MetaList out = infer_op(
      op, std::vector<TensorMeta>{{DType::Float32, {4, 3}}, {DType::Int32, {1}}}, attrs);
  std::vector<Tensor> ins{params, Tensor::zeros({1}, DType::Int32).to(params.device())};
  run_kernel(op, ins, out, attrs);
}

// f raises the IndexError of bad_gather: naming the op and the index.
template <class F>
void expect_gather_index_error(F&& f, const char* what) {
  try {
    f();
    ADD_FAILURE() << what << ": no IndexError";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Index) << what << ": " << e.what();
    const std::string m = e.what();
    EXPECT_NE(m.find("'Gather'"), std::string::npos) << what << ": " << m;
    EXPECT_NE(m.find("index 9"), std::string::npos) << what << ": " << m;
  }
}

// The output of bad_gather: row 1 of params, then zeros for the bad index.
void expect_bad_gather_output(const Tensor& got, const Tensor& host_params) {
  ASSERT_EQ(got.device(), Device::cpu());
  for (int j = 0; j < 3; ++j) {
    EXPECT_EQ(got.data<float>()[j], host_params.data<float>()[3 + j]);
    EXPECT_EQ(got.data<float>()[3 + j], 0.0f);
  }
}

TEST(CudaIndex, BadGatherIndexIsRaisedByTheNextIndexingOp) {
  const Device gpu = Device::cuda(0);
  const Tensor hp = make_input({{4, 3}, DType::Float32}, 1);
  const Tensor params = hp.to(gpu);
  Tensor r = bad_gather(params);
  // Wait behind the backend's back (no after-sync check), so the next Gather finds the error.
  ASSERT_EQ(cudaStreamSynchronize(cuda::stream(0)), cudaSuccess);
  expect_gather_index_error([&] { good_gather(params); }, "the next Gather");
  EXPECT_NO_THROW(good_gather(params));  // reported once
  expect_bad_gather_output(r.cpu(), hp);  // nothing pending: the wait raises nothing
}

// The next wait for the device raises it too: a device->host copy of any tensor (cpu(),
// item(), a migration to the host) or synchronize(), each once, and the device stays usable.
TEST(CudaIndex, BadGatherIndexIsRaisedAtTheNextHostWait) {
  const Device gpu = Device::cuda(0);
  const Tensor hp = make_input({{4, 3}, DType::Float32}, 1);
  const Tensor params = hp.to(gpu);

  Tensor r = bad_gather(params);
  expect_gather_index_error([&] { (void)r.cpu(); }, "cpu() of the output");
  expect_bad_gather_output(r.cpu(), hp);  // reported once: now the values
  EXPECT_NO_THROW(good_gather(params));

  Tensor other = Tensor::full({3}, Scalar::from_int(7), DType::Int32, gpu);
  r = bad_gather(params);
  expect_gather_index_error([&] { (void)other.select(0, 1).item(); }, "item() of another tensor");
  EXPECT_EQ(other.select(0, 1).item().to_double(), 7.0);

  r = bad_gather(params);
  expect_gather_index_error([&] { backend_for(gpu).synchronize(0); }, "synchronize()");
  EXPECT_NO_THROW(backend_for(gpu).synchronize(0));

  // A migration to the host that raises leaves the storage on the device, intact.
  r = bad_gather(params);
  expect_gather_index_error([&] { r.storage()->migrate(Device::cpu()); }, "migrate()");
  EXPECT_EQ(r.device(), gpu);
  r.storage()->migrate(Device::cpu());
  expect_bad_gather_output(r, hp);

  // The device is still usable, and its index checks too.
  Tensor ok = (Tensor::full({2}, Scalar::from_int(3), DType::Float32, gpu)).cpu();
  EXPECT_EQ(ok.data<float>()[1], 3.0f);
  EXPECT_NO_THROW(good_gather(params));
  r = bad_gather(params);
  expect_gather_index_error([&] { (void)r.cpu(); }, "cpu() after a second bad index");
}

}  // namespace
}  // namespace mycel::test

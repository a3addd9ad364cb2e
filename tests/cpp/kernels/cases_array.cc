// Kernel test cases for the array family (see kernel_cases.h).
#include <limits>

#include "kernel_cases.h"
#include "ops/infer_array.h"
#include "ops/op_table.h"

namespace mycel::test {

namespace {

using DT = DType;
constexpr DT kAll[] = {DT::Bool,  DT::Int8,    DT::UInt8,    DT::Int16,   DT::Int32,
                       DT::Int64, DT::Float16, DT::BFloat16, DT::Float32, DT::Float64};

InputSpec in(Shape s, DT t = DT::Float32) {
  InputSpec x;
  x.shape = std::move(s);
  x.dtype = t;
  x.gen = t == DT::Bool ? Gen::Bool : (is_floating(t) ? Gen::Normal : Gen::Int);
  x.lo = t == DT::UInt8 ? 0 : -50;
  x.hi = 50;
  return x;
}

InputSpec idx(Shape s, int64_t lo, int64_t hi, DT t = DT::Int64) {
  InputSpec x;
  x.shape = std::move(s);
  x.dtype = t;
  x.gen = Gen::Int;
  x.lo = lo;
  x.hi = hi;
  return x;
}

KernelCase kc(std::string op, std::vector<InputSpec> ins, Attrs a, std::string label) {
  KernelCase c;
  c.op = std::move(op);
  c.inputs = std::move(ins);
  c.attrs = std::move(a);
  c.label = std::move(label);
  return c;
}

// A case whose single input is a non-contiguous view: `spec` generated, then `view` applied.
KernelCase strided(std::string op, InputSpec spec, std::function<Tensor(const Tensor&)> view,
                   Attrs a, std::string label) {
  KernelCase c = kc(std::move(op), {spec}, std::move(a), std::move(label));
  c.make_inputs = [spec, view] { return std::vector<Tensor>{view(make_input(spec, 99))}; };
  return c;
}

std::function<Tensor(const Tensor&)> permute(Shape p) {
  return [p](const Tensor& t) { return t.permute(p); };
}

// Every other element of dim d, backwards.
std::function<Tensor(const Tensor&)> reverse_step2(int64_t d) {
  return [d](const Tensor& t) { return t.slice(d, t.dim(d) - 1, -1, -2); };
}

Attrs ss(std::initializer_list<int64_t> b, std::initializer_list<int64_t> e,
         std::initializer_list<int64_t> s, int64_t bm = 0, int64_t em = 0, int64_t ell = 0,
         int64_t na = 0, int64_t sh = 0) {
  return A({{"begin", ints(b)},
            {"end", ints(e)},
            {"strides", ints(s)},
            {"begin_mask", i64(bm)},
            {"end_mask", i64(em)},
            {"ellipsis_mask", i64(ell)},
            {"new_axis_mask", i64(na)},
            {"shrink_axis_mask", i64(sh)}});
}

// StridedSliceGrad with the dy shape the slice spec gives for shapex.
KernelCase ss_grad(Shape shapex, Attrs a, DT t, std::string label) {
  Shape dy = strided_slice_spec(shapex, a, "StridedSliceGrad").out_shape;
  a.set("shapex", std::vector<int64_t>(shapex.begin(), shapex.end()));
  return kc("StridedSliceGrad", {in(dy, t)}, std::move(a), std::move(label));
}

void view_cases(std::vector<KernelCase>& v) {
  // Reshape
  v.push_back(kc("Reshape", {in({7, 33})}, A({{"shape", ints({33, 7})}}), "2d"));
  v.push_back(kc("Reshape", {in({2, 3, 4}, DT::Int8)}, A({{"shape", ints({-1})}}), "-1"));
  v.push_back(kc("Reshape", {in({1031}, DT::BFloat16)}, A({{"shape", ints({1031, 1})}}), "col"));
  v.push_back(kc("Reshape", {in({0, 5})}, A({{"shape", ints({5, 0})}}), "0-size"));
  v.push_back(kc("Reshape", {in({}, DT::Float64)}, A({{"shape", ints({1, 1})}}), "0-d"));
  v.push_back(strided("Reshape", in({33, 7}, DT::Int16), permute({1, 0}),
                      A({{"shape", ints({231})}}), "transposed input"));
  v.push_back(strided("Reshape", in({600, 500}), permute({1, 0}), A({{"shape", ints({300000})}}),
                      "large transposed"));
  v.push_back(strided("Reshape", in({6, 34}, DT::Bool), reverse_step2(1),
                      A({{"shape", ints({2, 3, 17})}}), "negative strides"));
  // Transpose: every dtype, tiled (large 2-d), inner-contiguous (attention), odd shapes.
  for (DT t : kAll) {
    v.push_back(kc("Transpose", {in({3, 5, 7}, t)}, A({{"perm", ints({2, 0, 1})}}),
                   std::string("dtype ") + std::string(dtype_name(t))));
  }
  v.push_back(kc("Transpose", {in({7, 33})}, A({{"perm", ints({1, 0})}}), "2d"));
  v.push_back(kc("Transpose", {in({512, 600})}, A({{"perm", ints({1, 0})}}), "large 2d"));
  v.push_back(kc("Transpose", {in({1031, 300}, DT::Float16)}, A({{"perm", ints({1, 0})}}),
                 "large odd fp16"));
  v.push_back(
      kc("Transpose", {in({600, 517}, DT::Int8)}, A({{"perm", ints({-1, 0})}}), "large int8"));
  v.push_back(kc("Transpose", {in({4, 64, 37, 32}, DT::Float64)}, A({{"perm", ints({0, 2, 1, 3})}}),
                 "attention"));
  v.push_back(
      kc("Transpose", {in({8, 130, 300})}, A({{"perm", ints({0, 2, 1})}}), "batched large"));
  v.push_back(
      kc("Transpose", {in({2, 3, 4, 5}, DT::Int64)}, A({{"perm", ints({3, 1, 0, 2})}}), "4d"));
  v.push_back(kc("Transpose", {in({0, 4})}, A({{"perm", ints({1, 0})}}), "0-size"));
  v.push_back(kc("Transpose", {in({})}, A({{"perm", ints({})}}), "0-d"));
  v.push_back(strided("Transpose", in({40, 60}), reverse_step2(0), A({{"perm", ints({1, 0})}}),
                      "strided input"));
  // ExpandDims / Squeeze / Flatten
  v.push_back(kc("ExpandDims", {in({7, 33})}, A({{"axis", i64(1)}}), "middle"));
  v.push_back(kc("ExpandDims", {in({7}, DT::UInt8)}, A({{"axis", i64(-1)}}), "last"));
  v.push_back(kc("ExpandDims", {in({})}, A({{"axis", i64(0)}}), "0-d"));
  v.push_back(strided("ExpandDims", in({9, 11}, DT::Int32), permute({1, 0}), A({{"axis", i64(0)}}),
                      "strided input"));
  v.push_back(kc("Squeeze", {in({1, 7, 1, 33})}, A({}), "all"));
  v.push_back(kc("Squeeze", {in({1, 7, 1, 33}, DT::Int64)}, A({{"axis", ints({0})}}), "axis 0"));
  v.push_back(
      kc("Squeeze", {in({1, 7, 1, 33}, DT::Float16)}, A({{"axis", ints({-2, 0})}}), "two axes"));
  v.push_back(kc("Squeeze", {in({})}, A({}), "0-d"));
  v.push_back(kc("Squeeze", {in({1, 0, 1})}, A({}), "0-size"));
  v.push_back(strided("Squeeze", in({5, 1, 9}), permute({2, 1, 0}), A({}), "strided input"));
  v.push_back(kc("Flatten", {in({7, 3, 11})}, A({}), "3d"));
  v.push_back(kc("Flatten", {in({5}, DT::Bool)}, A({}), "1d"));
  v.push_back(kc("Flatten", {in({0, 3})}, A({}), "0-size"));
  v.push_back(
      strided("Flatten", in({30, 100, 100}), permute({0, 2, 1}), A({}), "large transposed"));
  // BroadcastTo
  v.push_back(kc("BroadcastTo", {in({7, 1})}, A({{"shape", ints({3, 7, 33})}}), "2d"));
  v.push_back(kc("BroadcastTo", {in({3, 1}, DT::Int32)}, A({{"shape", ints({-1, 4})}}), "-1"));
  v.push_back(kc("BroadcastTo", {in({}, DT::Float16)}, A({{"shape", ints({5, 6})}}), "0-d"));
  v.push_back(kc("BroadcastTo", {in({1, 1000})}, A({{"shape", ints({300, 1000})}}), "large"));
  v.push_back(kc("BroadcastTo", {in({301, 1}, DT::Int8)}, A({{"shape", ints({301, 1000})}}),
                 "large column"));
  v.push_back(kc("BroadcastTo", {in({0, 1})}, A({{"shape", ints({0, 4})}}), "0-size"));
  v.push_back(strided("BroadcastTo", in({4, 1, 6}), reverse_step2(2),
                      A({{"shape", ints({2, 4, 5, 3})}}), "strided input"));
}

void slice_cases(std::vector<KernelCase>& v) {
  v.push_back(kc("StridedSlice", {in({7, 33})}, ss({1, 2}, {6, 30}, {1, 3}), "basic"));
  v.push_back(
      kc("StridedSlice", {in({7, 33}, DT::Int8)}, ss({-1, 30}, {-8, 2}, {-2, -5}), "negative"));
  v.push_back(kc("StridedSlice", {in({7, 33}, DT::UInt8)}, ss({100, -100}, {-100, 100}, {-1, 1}),
                 "clamped"));
  v.push_back(
      kc("StridedSlice", {in({7, 33}, DT::Int16)}, ss({5, 3}, {0, 9}, {1, 2}, 1, 0), "begin_mask"));
  v.push_back(
      kc("StridedSlice", {in({7, 33}, DT::Int32)}, ss({5, 3}, {0, 9}, {-1, 2}, 0, 1), "end_mask"));
  v.push_back(kc("StridedSlice", {in({4, 5, 6, 7}, DT::Int64)},
                 ss({1, 0, 2}, {3, 0, 7}, {1, 1, 2}, 0, 0, 2), "ellipsis"));
  v.push_back(kc("StridedSlice", {in({4, 5, 6}, DT::Float16)},
                 ss({0, 0, 1, 0}, {0, 0, 4, 0}, {1, 1, 1, 1}, 0, 0, 0, 0b1010), "new axes"));
  v.push_back(kc("StridedSlice", {in({4, 5, 6}, DT::BFloat16)},
                 ss({2, 0, -1}, {3, 5, 0}, {1, 2, 1}, 0, 0, 0, 0, 0b101), "shrink"));
  v.push_back(kc("StridedSlice", {in({4, 5, 6}, DT::Float64)},
                 ss({0, 1, 0, 3}, {0, 4, 0, 0}, {1, 1, 1, 1}, 0, 0, 0b100, 0b1, 0b1000),
                 "new + ellipsis + shrink"));
  v.push_back(kc("StridedSlice", {in({4, 5}, DT::Bool)}, ss({3}, {1}, {1}), "empty"));
  v.push_back(kc("StridedSlice", {in({})}, ss({}, {}, {}), "0-d"));
  v.push_back(kc("StridedSlice", {in({}, DT::Int32)}, ss({0}, {0}, {1}, 0, 0, 0, 1), "0-d new"));
  v.push_back(kc("StridedSlice", {in({700, 900})}, ss({1, 0}, {700, 900}, {2, 1}), "large"));
  v.push_back(kc("StridedSlice", {in({600, 1000}, DT::Float16)},
                 ss({0, -1}, {600, 0}, {1, -1}, 0, 2), "large reversed"));
  v.push_back(strided("StridedSlice", in({30, 40}), permute({1, 0}), ss({3, 1}, {38, 29}, {2, 3}),
                      "strided input"));
  v.push_back(strided("StridedSlice", in({30, 40}, DT::Int64), reverse_step2(1),
                      ss({-1, 0}, {0, 20}, {-3, 1}, 0, 0, 0, 0, 0), "strided reversed input"));

  v.push_back(ss_grad({7, 33}, ss({1, 2}, {6, 30}, {1, 3}), DT::Float32, "basic"));
  v.push_back(ss_grad({7, 33}, ss({-1, 30}, {-8, 2}, {-2, -5}), DT::Float64, "negative"));
  v.push_back(
      ss_grad({4, 5, 6, 7}, ss({1, 0, 2}, {3, 0, 7}, {1, 1, 2}, 0, 0, 2), DT::Int32, "ellipsis"));
  v.push_back(ss_grad({4, 5, 6},
                      ss({0, 1, 0, 3}, {0, 4, 0, 0}, {1, 1, 1, 1}, 0, 0, 0b100, 0b1, 0b1000),
                      DT::Float16, "new + ellipsis + shrink"));
  v.push_back(ss_grad({4, 5}, ss({3}, {1}, {1}), DT::BFloat16, "empty"));
  v.push_back(ss_grad({}, ss({}, {}, {}), DT::Int8, "0-d"));
  v.push_back(ss_grad({700, 900}, ss({1, 0}, {700, 900}, {2, 1}), DT::Float32, "large"));
  v.push_back(ss_grad({5, 6}, ss({0, 0}, {5, 6}, {1, 1}, 3, 3), DT::Bool, "bool"));
  v.push_back(ss_grad({5, 6}, ss({4, 5}, {0, 0}, {-1, -2}, 0, 3), DT::UInt8, "uint8"));
  v.push_back(ss_grad({5, 6}, ss({1}, {4}, {2}), DT::Int16, "int16"));
  v.push_back(ss_grad({5, 6}, ss({1}, {4}, {2}), DT::Int64, "int64"));
}

void join_cases(std::vector<KernelCase>& v) {
  v.push_back(kc("Concat", {in({7, 3}), in({7, 5}), in({7, 1})}, A({{"axis", i64(1)}}), "axis 1"));
  v.push_back(kc("Concat", {in({2, 3}, DT::Int32), in({4, 3})}, A({{"axis", i64(0)}}), "promoted"));
  v.push_back(kc("Concat", {in({3, 0, 2}, DT::Int8), in({3, 4, 2}, DT::Int8)},
                 A({{"axis", i64(-2)}}), "0-size part"));
  v.push_back(kc("Concat", {in({1031}, DT::Float16)}, A({}), "single"));
  v.push_back(kc("Concat", {in({300, 500}, DT::Float64), in({300, 500}, DT::Float64)},
                 A({{"axis", i64(1)}}), "large"));
  v.push_back(kc("Concat", {in({150000}, DT::Bool), in({150001}, DT::Bool)}, A({}), "large 1d"));
  v.push_back(kc("Stack", {in({7, 3}), in({7, 3}), in({7, 3})}, A({{"axis", i64(1)}}), "axis 1"));
  v.push_back(kc("Stack", {in({}, DT::Int64), in({}, DT::Int32)}, A({}), "0-d"));
  v.push_back(
      kc("Stack", {in({2, 3}, DT::UInt8), in({2, 3}, DT::UInt8)}, A({{"axis", i64(-1)}}), "last"));
  v.push_back(kc("Stack", {in({0, 3}, DT::BFloat16), in({0, 3}, DT::BFloat16)}, A({}), "0-size"));
  v.push_back(kc("Stack", {in({400, 400}, DT::Int16), in({400, 400}, DT::Int16)},
                 A({{"axis", i64(1)}}), "large"));
  v.push_back(kc("Split", {in({7, 33})}, A({{"axis", i64(1)}, {"output_num", i64(3)}}), "axis 1"));
  v.push_back(
      kc("Split", {in({6, 5}, DT::Int8)}, A({{"axis", i64(0)}, {"output_num", i64(6)}}), "axis 0"));
  v.push_back(kc("Split", {in({4, 2, 8}, DT::Bool)}, A({{"axis", i64(-1)}, {"output_num", i64(4)}}),
                 "last"));
  v.push_back(kc("Split", {in({5}, DT::Float16)}, A({}), "one part"));
  v.push_back(kc("Split", {in({0, 4}, DT::Int64)}, A({{"axis", i64(1)}, {"output_num", i64(2)}}),
                 "0-size"));
  v.push_back(
      kc("Split", {in({600, 1000})}, A({{"axis", i64(1)}, {"output_num", i64(2)}}), "large"));
  v.push_back(kc("Tile", {in({7, 3})}, A({{"multiples", ints({2, 3})}}), "2d"));
  v.push_back(kc("Tile", {in({5}, DT::Int32)}, A({{"multiples", ints({3, 1, 2})}}), "more dims"));
  v.push_back(kc("Tile", {in({4, 3}, DT::Float16)}, A({{"multiples", ints({0, 2})}}), "zero"));
  v.push_back(kc("Tile", {in({}, DT::Bool)}, A({{"multiples", ints({4})}}), "0-d"));
  v.push_back(
      kc("Tile", {in({1000, 1}, DT::Int8)}, A({{"multiples", ints({1, 300})}}), "large column"));
  v.push_back(
      kc("Tile", {in({33, 100}, DT::Float64)}, A({{"multiples", ints({10, 10})}}), "large"));
  v.push_back(
      kc("Pad", {in({7, 33})}, A({{"paddings", ints({1, 2, 0, 3})}, {"value", 0.5}}), "2d"));
  v.push_back(
      kc("Pad", {in({3, 4, 5}, DT::Int32)}, A({{"paddings", ints({0, 0, 2, 1, 1, 0})}}), "3d"));
  v.push_back(kc("Pad", {in({0, 3}, DT::Float16)},
                 A({{"paddings", ints({1, 1, 0, 2})}, {"value", -1.0}}), "0-size"));
  v.push_back(
      kc("Pad", {in({4}, DT::Bool)}, A({{"paddings", ints({2, 1})}, {"value", 1.0}}), "bool"));
  v.push_back(kc("Pad", {in({}, DT::UInt8)}, A({{"paddings", ints({})}}), "0-d"));
  v.push_back(
      kc("Pad", {in({500, 600}, DT::BFloat16)}, A({{"paddings", ints({3, 4, 5, 6})}}), "large"));
  v.push_back(kc("Range", {}, A({{"start", 0.0}, {"limit", 10.0}, {"delta", 3.0}}), "int64"));
  v.push_back(kc("Range", {},
                 A({{"start", 5.0}, {"limit", -2.5}, {"delta", -0.5}, {"dtype", DT::Float32}}),
                 "negative float"));
  v.push_back(kc("Range", {}, A({{"start", 3.0}, {"limit", 1.0}, {"delta", 1.0}}), "empty"));
  v.push_back(kc("Range", {},
                 A({{"start", -3.0}, {"limit", 300000.0}, {"delta", 1.0}, {"dtype", DT::Int32}}),
                 "large"));
  v.push_back(kc("Range", {},
                 A({{"start", 0.0}, {"limit", 1.0}, {"delta", 0.125}, {"dtype", DT::Float16}}),
                 "fp16"));
}

void index_cases(std::vector<KernelCase>& v) {
  v.push_back(
      kc("Gather", {in({7, 33}), idx({5}, -7, 7, DT::Int32)}, A({{"axis", i64(0)}}), "axis 0"));
  v.push_back(
      kc("Gather", {in({7, 33}, DT::Int8), idx({2, 3}, -33, 33)}, A({{"axis", i64(1)}}), "axis 1"));
  v.push_back(kc("Gather", {in({3, 4, 5}, DT::Float16), idx({}, 0, 4)}, A({{"axis", i64(-2)}}),
                 "scalar index"));
  v.push_back(kc("Gather", {in({3, 4, 5}, DT::Bool), idx({3, 6}, -4, 4, DT::Int32)},
                 A({{"axis", i64(1)}, {"batch_dims", i64(1)}}), "batch_dims"));
  v.push_back(kc("Gather", {in({2, 3, 4, 2}), idx({2, 5}, -4, 4)},
                 A({{"axis", i64(2)}, {"batch_dims", i64(-1)}}), "negative batch_dims"));
  v.push_back(kc("Gather", {in({3, 4, 5}, DT::Int64), idx({0}, 0, 3)}, A({{"axis", i64(0)}}),
                 "0-size indices"));
  v.push_back(kc("Gather", {in({1000, 300}), idx({1031}, -1000, 1000)}, A({{"axis", i64(0)}}),
                 "large rows"));
  v.push_back(kc("Gather", {in({300, 1000}, DT::Float64), idx({1000}, 0, 1000, DT::Int32)},
                 A({{"axis", i64(1)}}), "large elements"));
  v.push_back(kc("UnsortedSegmentSum", {in({7, 33}), idx({7}, -1, 6)},
                 A({{"num_segments", i64(5)}}), "basic"));
  v.push_back(kc("UnsortedSegmentSum", {in({4, 5, 3}, DT::Int32), idx({4, 5}, 0, 3, DT::Int32)},
                 A({{"num_segments", i64(3)}}), "2-d ids"));
  v.push_back(kc("UnsortedSegmentSum", {in({9}, DT::Float16), idx({9}, 0, 4)},
                 A({{"num_segments", i64(4)}}), "fp16"));
  v.push_back(kc("UnsortedSegmentSum", {in({0, 3}, DT::Float64), idx({0}, 0, 4)},
                 A({{"num_segments", i64(4)}}), "0-size"));
  v.push_back(kc("UnsortedSegmentSum", {in({1000, 300}), idx({1000}, 0, 50)},
                 A({{"num_segments", i64(50)}}), "large wide"));
  v.push_back(kc("UnsortedSegmentSum", {in({300000}, DT::Float64), idx({300000}, -5, 100)},
                 A({{"num_segments", i64(90)}}), "large narrow"));
  v.back().rtol = 1e-9;
  v.push_back(kc("GatherD", {in({7, 33}), idx({7, 10}, -33, 33)}, A({{"dim", i64(1)}}), "dim 1"));
  v.push_back(kc("GatherD", {in({7, 33}, DT::Int16), idx({3, 20}, 0, 7, DT::Int32)},
                 A({{"dim", i64(0)}}), "dim 0 smaller"));
  v.push_back(kc("GatherD", {in({3, 4, 5}, DT::Bool), idx({3, 2, 5}, -4, 4)}, A({{"dim", i64(-2)}}),
                 "middle"));
  v.push_back(
      kc("GatherD", {in({3, 4}, DT::BFloat16), idx({0, 4}, 0, 3)}, A({{"dim", i64(0)}}), "0-size"));
  v.push_back(
      kc("GatherD", {in({600, 600}), idx({600, 500}, 0, 600)}, A({{"dim", i64(1)}}), "large"));
  v.push_back(kc("GatherDGrad", {idx({7, 10}, -33, 33), in({7, 10})},
                 A({{"dim", i64(1)}, {"shape", ints({7, 33})}}), "dim 1"));
  v.push_back(kc("GatherDGrad", {idx({3, 20}, 0, 3, DT::Int32), in({3, 20}, DT::Float16)},
                 A({{"dim", i64(0)}, {"shape", ints({3, 33})}}), "dim 0 duplicates"));
  v.back().rtol = 1e-3;
  v.push_back(kc("GatherDGrad", {idx({3, 2, 5}, -4, 4), in({3, 2, 5}, DT::Int64)},
                 A({{"dim", i64(-2)}, {"shape", ints({3, 4, 6})}}), "middle"));
  v.push_back(kc("GatherDGrad", {idx({0, 4}, 0, 3), in({0, 4}, DT::Float64)},
                 A({{"dim", i64(0)}, {"shape", ints({3, 4})}}), "0-size"));
  v.push_back(kc("GatherDGrad", {idx({500, 600}, 0, 600), in({500, 600})},
                 A({{"dim", i64(0)}, {"shape", ints({600, 600})}}), "large"));
  v.back().rtol = 1e-4;
  v.push_back(
      kc("ScatterNd", {idx({6, 1}, 0, 7), in({6, 33})}, A({{"shape", ints({7, 33})}}), "K=1"));
  v.push_back(kc("ScatterNd", {idx({4, 5, 2}, 0, 3, DT::Int32), in({4, 5, 6}, DT::Int32)},
                 A({{"shape", ints({3, 3, 6})}}), "K=2 duplicates"));
  v.push_back(kc("ScatterNd", {idx({10, 2}, 0, 3), in({10}, DT::Float16)},
                 A({{"shape", ints({3, 3})}}), "fp16 elements"));
  v.back().rtol = 1e-3;
  v.push_back(kc("ScatterNd", {idx({8, 1}, 0, 4), in({8, 2}, DT::Bool)},
                 A({{"shape", ints({4, 2})}}), "bool"));
  v.push_back(kc("ScatterNd", {idx({0, 1}, 0, 4), in({0, 3}, DT::UInt8)},
                 A({{"shape", ints({4, 3})}}), "0-size"));
  v.push_back(kc("ScatterNd", {idx({500, 1}, 0, 300), in({500, 1000})},
                 A({{"shape", ints({300, 1000})}}), "large"));
  v.push_back(
      kc("TensorScatterUpdate", {in({7, 33}), idx({4, 1}, 0, 7), in({4, 33})}, A({}), "K=1"));
  v.push_back(kc("TensorScatterUpdate",
                 {in({3, 4, 5}, DT::Int8), idx({6, 2}, 0, 3, DT::Int32), in({6, 5}, DT::Int8)},
                 A({}), "K=2 repeats"));
  v.push_back(kc("TensorScatterUpdate",
                 {in({3, 4}, DT::BFloat16), idx({2, 2}, 0, 3), in({2}, DT::BFloat16)}, A({}),
                 "elements"));
  v.push_back(
      kc("TensorScatterUpdate",
         {in({300, 1000}, DT::Float64), idx({100, 1}, 0, 300), in({100, 1000}, DT::Float64)}, A({}),
         "large"));
  v.push_back(kc("OneHot", {idx({7}, -1, 6)}, A({{"depth", i64(5)}}), "basic"));
  v.push_back(kc("OneHot", {idx({3, 4}, 0, 6, DT::Int32)},
                 A({{"depth", i64(6)},
                    {"axis", i64(0)},
                    {"on_value", 2.0},
                    {"off_value", -1.0},
                    {"dtype", DT::Int32}}),
                 "axis 0"));
  v.push_back(kc("OneHot", {idx({3, 4}, 0, 4, DT::UInt8)},
                 A({{"depth", i64(4)}, {"axis", i64(1)}, {"dtype", DT::Float16}}), "middle"));
  v.push_back(
      kc("OneHot", {idx({}, 0, 3, DT::Int8)}, A({{"depth", i64(3)}, {"dtype", DT::Bool}}), "0-d"));
  v.push_back(kc("OneHot", {idx({0, 2}, 0, 3)}, A({{"depth", i64(3)}}), "0-size"));
  v.push_back(kc("OneHot", {idx({3000}, 0, 100, DT::Int16)},
                 A({{"depth", i64(100)}, {"dtype", DT::Float64}}), "large"));
}

// Every op once per dtype it supports, on small odd shapes.
void dtype_cases(std::vector<KernelCase>& v) {
  for (DT t : kAll) {
    const std::string l = std::string("dtype ") + std::string(dtype_name(t));
    v.push_back(
        strided("Reshape", in({5, 6}, t), permute({1, 0}), A({{"shape", ints({3, 10})}}), l));
    v.push_back(strided("ExpandDims", in({5, 6}, t), reverse_step2(1), A({{"axis", i64(1)}}), l));
    v.push_back(strided("Squeeze", in({5, 1, 6}, t), permute({2, 1, 0}), A({}), l));
    v.push_back(strided("Flatten", in({2, 3, 5}, t), permute({0, 2, 1}), A({}), l));
    v.push_back(
        strided("BroadcastTo", in({5, 1}, t), permute({1, 0}), A({{"shape", ints({3, 4, 5})}}), l));
    v.push_back(kc("StridedSlice", {in({5, 7}, t)}, ss({4, 1}, {0, 7}, {-2, 3}), l));
    if (t != DT::Bool) {
      v.push_back(ss_grad({5, 7}, ss({4, 1}, {0, 7}, {-2, 3}), t, l));
      v.push_back(kc("UnsortedSegmentSum", {in({6, 3}, t), idx({6}, -1, 4, DT::Int32)},
                     A({{"num_segments", i64(3)}}), l));
      v.push_back(kc("GatherDGrad", {idx({3, 4}, -5, 5), in({3, 4}, t)},
                     A({{"dim", i64(1)}, {"shape", ints({3, 5})}}), l));
      v.push_back(
          kc("Range", {}, A({{"start", 1.0}, {"limit", 20.0}, {"delta", 3.0}, {"dtype", t}}), l));
    }
    v.push_back(kc("Concat", {in({2, 3}, t), in({2, 4}, t)}, A({{"axis", i64(-1)}}), l));
    v.push_back(kc("Stack", {in({2, 3}, t), in({2, 3}, t)}, A({{"axis", i64(2)}}), l));
    v.push_back(kc("Split", {in({4, 6}, t)}, A({{"axis", i64(1)}, {"output_num", i64(3)}}), l));
    v.push_back(kc("Tile", {in({2, 3}, t)}, A({{"multiples", ints({2, 1, 3})}}), l));
    v.push_back(
        kc("Pad", {in({2, 3}, t)}, A({{"paddings", ints({1, 0, 2, 2})}, {"value", 1.0}}), l));
    v.push_back(kc("Gather", {in({5, 3}, t), idx({4}, -5, 5)}, A({{"axis", i64(0)}}), l));
    v.push_back(
        kc("GatherD", {in({5, 3}, t), idx({5, 2}, -3, 3, DT::Int32)}, A({{"dim", i64(1)}}), l));
    v.push_back(
        kc("ScatterNd", {idx({4, 1}, 0, 5), in({4, 3}, t)}, A({{"shape", ints({5, 3})}}), l));
    v.back().rtol = 1e-2;
    v.push_back(
        kc("TensorScatterUpdate", {in({5, 3}, t), idx({2, 1}, 0, 5), in({2, 3}, t)}, A({}), l));
    v.push_back(
        kc("OneHot", {idx({6}, -1, 5, DT::Int32)}, A({{"depth", i64(4)}, {"dtype", t}}), l));
  }
  // Large copies through the strided-input paths.
  v.push_back(strided("ExpandDims", in({600, 500}), permute({1, 0}), A({{"axis", i64(2)}}),
                      "large strided"));
  v.push_back(
      strided("Squeeze", in({1, 600, 500}, DT::Int16), permute({2, 0, 1}), A({}), "large strided"));
}

// A float32 vector of the given values (NaN, signed zeros, duplicates).
std::function<std::vector<Tensor>()> floats(std::vector<float> v, DT t = DT::Float32) {
  return [v, t] {
    Tensor x = Tensor::empty({static_cast<int64_t>(v.size())}, DT::Float32);
    for (size_t i = 0; i < v.size(); ++i) x.data<float>()[i] = v[i];
    return std::vector<Tensor>{x.cast(t)};
  };
}

// The selection ops, whose kernels decide their output shapes (DYN_OUT).
void select_cases(std::vector<KernelCase>& v) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  v.push_back(kc("Unique", {idx({50}, -5, 5, DT::Int32)}, A({}), "int32 repeats"));
  v.push_back(kc("Unique", {idx({50}, -5, 5)}, A({{"sorted", true}}), "int64 sorted"));
  v.push_back(kc("Unique", {idx({4, 6}, 0, 3, DT::Int16)}, A({}), "2-d"));
  v.push_back(kc("Unique", {in({0})}, A({}), "0-size"));
  v.push_back(kc("Unique", {idx({}, 0, 3)}, A({}), "0-d"));
  v.push_back(kc("Unique", {idx({5000}, 0, 300)}, A({{"sorted", true}}), "large"));
  for (bool sorted : {false, true}) {
    KernelCase c = kc("Unique", {}, A({{"sorted", sorted}}), "NaN and signed zeros");
    c.make_inputs = floats({2.f, nan, -0.f, 1.f, 0.f, nan, 2.f, -1.f});
    v.push_back(c);
    c.make_inputs = floats({3.f, 1.f, 3.f, 0.5f, 1.f}, DT::Float16);
    c.label = "float16";
    v.push_back(c);
  }
  v.push_back(kc("MaskedSelect", {in({3, 5}), in({3, 5}, DT::Bool)}, A({}), "same shape"));
  v.push_back(kc("MaskedSelect", {in({4}), in({2, 3, 1}, DT::Bool)}, A({}), "broadcast both"));
  v.push_back(kc("MaskedSelect", {in({2, 3, 4}), in({4}, DT::Bool)}, A({}), "broadcast mask"));
  v.push_back(kc("MaskedSelect", {in({0, 3}), in({3}, DT::Bool)}, A({}), "0-size"));
  v.push_back(kc("MaskedSelect", {in({}), in({}, DT::Bool)}, A({}), "0-d"));
  v.push_back(kc("MaskedScatter", {in({3, 4}), in({3, 4}, DT::Bool), in({12})}, A({}), "basic"));
  v.push_back(kc("MaskedScatter", {in({3, 4}), in({4}, DT::Bool), in({2, 7})}, A({}),
                 "broadcast mask, larger source"));
  v.push_back(kc("MaskedScatter", {in({0, 4}), in({4}, DT::Bool), in({0})}, A({}), "0-size"));
  v.push_back(kc("NonZero", {idx({3, 4, 5}, -1, 2, DT::Int32)}, A({}), "3-d"));
  v.push_back(kc("NonZero", {idx({}, 0, 2)}, A({}), "0-d"));
  v.push_back(kc("NonZero", {in({2, 0})}, A({}), "0-size"));
  KernelCase nz = kc("NonZero", {}, A({}), "NaN and signed zeros");
  nz.make_inputs = floats({0.f, nan, -0.f, 1.f, 0.f});
  v.push_back(nz);
  // Masks all true / all false (idx with [1, 2) / [0, 1) cast to bool), odd sizes above one
  // GPU block, and wide value ranges: what the GPU kernels' scans and sorts must get right.
  const InputSpec all_true = idx({3, 5}, 1, 2, DT::Bool), all_false = idx({3, 5}, 0, 1, DT::Bool);
  v.push_back(kc("MaskedSelect", {in({3, 5}), all_true}, A({}), "all true"));
  v.push_back(kc("MaskedSelect", {in({3, 5}), all_false}, A({}), "all false (empty result)"));
  v.push_back(kc("MaskedSelect", {in({37, 129}), in({37, 129}, DT::Bool)}, A({}), "large odd"));
  v.push_back(kc("MaskedSelect", {in({1001, 3}, DT::Float16), in({1001, 1}, DT::Bool)}, A({}),
                 "large broadcast mask, float16"));
  v.push_back(kc("MaskedScatter", {in({3, 5}), all_true, in({15})}, A({}), "all true"));
  v.push_back(kc("MaskedScatter", {in({3, 5}), all_false, in({0})}, A({}), "all false"));
  v.push_back(kc("MaskedScatter",
                 {in({333, 17}, DT::BFloat16), in({333, 17}, DT::Bool), in({6000}, DT::BFloat16)},
                 A({}), "large odd, bfloat16"));
  v.push_back(kc("MaskedScatter",
                 {in({5, 257}, DT::Int64), in({257}, DT::Bool), in({5, 257}, DT::Int64)}, A({}),
                 "large broadcast mask, int64"));
  v.push_back(kc("NonZero", {idx({4, 5}, 0, 1)}, A({}), "all zero (empty result)"));
  v.push_back(kc("NonZero", {idx({7, 9}, 1, 5, DT::Int8)}, A({}), "all nonzero"));
  v.push_back(kc("NonZero", {idx({61, 33, 5}, -1, 2, DT::Int8)}, A({}), "large odd 3-d"));
  v.push_back(kc("NonZero", {in({2, 3, 1, 4, 3, 2}, DT::Bool)}, A({}), "6-d bool"));
  v.push_back(kc("NonZero", {in({2, 1, 2, 1, 3, 1, 2, 1, 1, 2, 1, 2, 3, 2}, DT::Bool)}, A({}),
                 "14-d bool"));
  v.push_back(kc("Unique", {idx({100}, 3, 4)}, A({}), "all equal"));
  for (bool sorted : {false, true}) {
    const std::string l = sorted ? " sorted" : "";
    v.push_back(kc("Unique", {idx({3001}, -400, 400, DT::Float32)}, A({{"sorted", sorted}}),
                   "large float32" + l));
    v.push_back(
        kc("Unique", {in({2049}, DT::BFloat16)}, A({{"sorted", sorted}}), "large bfloat16" + l));
    v.push_back(kc("Unique", {idx({777}, -128, 128, DT::Int8)}, A({{"sorted", sorted}}),
                   "int8 full range" + l));
    v.push_back(kc("Unique", {idx({1025}, -1000000, 1000000, DT::Float64)}, A({{"sorted", sorted}}),
                   "large float64" + l));
    KernelCase c = kc("Unique", {}, A({{"sorted", sorted}}), "only NaNs and infinities" + l);
    const float inf = std::numeric_limits<float>::infinity();
    c.make_inputs = floats({nan, inf, -inf, nan, inf, -0.f, -inf, nan});
    v.push_back(c);
    c.make_inputs = floats({nan, inf, -inf, nan, 0.f, -0.f, -inf, nan}, DT::BFloat16);
    c.label = "bfloat16 NaNs, infinities and zeros" + l;
    v.push_back(c);
  }
  for (DT t : kAll) {
    const std::string l = std::string("dtype ") + std::string(dtype_name(t));
    InputSpec few = in({9}, t);
    if (!is_floating(t) && t != DT::Bool) few = idx({9}, 0, 3, t);
    v.push_back(kc("Unique", {few}, A({}), l));
    v.push_back(kc("Unique", {few}, A({{"sorted", true}}), l + " sorted"));
    v.push_back(kc("MaskedSelect", {in({2, 5}, t), in({5}, DT::Bool)}, A({}), l));
    v.push_back(kc("MaskedScatter", {in({2, 5}, t), in({2, 5}, DT::Bool), in({10}, t)}, A({}), l));
    v.push_back(kc("NonZero", {few}, A({}), l));
  }
}

}  // namespace

std::vector<KernelCase> array_cases() {
  std::vector<KernelCase> v;
  view_cases(v);
  slice_cases(v);
  join_cases(v);
  index_cases(v);
  dtype_cases(v);
  select_cases(v);
  return v;
}

}  // namespace mycel::test

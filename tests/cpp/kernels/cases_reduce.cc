// Kernel test cases for the reduce family (see kernel_cases.h).
#include <cmath>
#include <limits>

#include "kernel_cases.h"

namespace mycel::test {

namespace {

const DType kAll[] = {DType::Bool,    DType::Int8,   DType::UInt8,   DType::Int16,
                      DType::Int32,   DType::Int64,  DType::Float16, DType::BFloat16,
                      DType::Float32, DType::Float64};

InputSpec spec(Shape s, DType t) {
  if (t == DType::Bool) return {s, t, Gen::Bool};
  if (t == DType::UInt8) return {s, t, Gen::Int, 0, 100};
  if (!is_floating(t)) return {s, t, Gen::Int, -50, 50};
  return {s, t, Gen::Normal};
}

double rtol_for(DType t) { return t == DType::Float16 || t == DType::BFloat16 ? 1e-2 : 1e-5; }

KernelCase red(const char* op, Shape s, DType t, std::initializer_list<int64_t> axis,
               bool keep = false, std::string label = "") {
  KernelCase c;
  c.op = op;
  c.inputs = {spec(s, t)};
  c.attrs = A({{"axis", ints(axis)}, {"keep_dims", keep}});
  c.rtol = rtol_for(t);
  c.atol = t == DType::Float32 ? 1e-5 : t == DType::Float64 ? 1e-9 : 1e-2;
  c.label = label.empty() ? shape_str(s) + " " + std::string(dtype_name(t)) : label;
  return c;
}

KernelCase arg(const char* op, Shape s, DType t, int64_t axis, bool keep = false,
               DType ot = DType::Int32) {
  KernelCase c;
  c.op = op;
  c.inputs = {spec(s, t)};
  c.attrs = A({{"axis", i64(axis)}, {"keep_dims", keep}, {"output_type", ot}});
  c.label = shape_str(s) + " " + std::string(dtype_name(t));
  return c;
}

// A float tensor with NaNs in some rows and columns (and -inf / +inf elsewhere).
Tensor with_nans(const Shape& s, DType t) {
  Tensor x = make_input({s, DType::Float64, Gen::Normal}, 77);
  double* p = x.data<double>();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (i % 97 == 5)
      p[i] = nan;
    else if (i % 89 == 3)
      p[i] = -inf;
    else if (i % 83 == 1)
      p[i] = inf;
  }
  return x.cast(t);
}

// CumSum/CumProd, Sort and TopK: every dtype, each axis kind, flags, 0-d and empty inputs,
// ties (small integer ranges) and NaNs.
KernelCase along(const char* op, Shape s, DType t, Attrs a, std::string label = "") {
  KernelCase c;
  c.op = op;
  c.inputs = {spec(s, t)};
  if (std::string(op) == "CumProd" && is_floating(t)) c.inputs[0].gen = Gen::Unit;
  if (std::string(op) == "CumProd" && !is_floating(t) && t != DType::Bool)
    c.inputs[0] = {s, t, Gen::Int, -3, 4};
  c.attrs = std::move(a);
  c.rtol = rtol_for(t);
  c.atol = t == DType::Float32 ? 1e-5 : t == DType::Float64 ? 1e-9 : 2e-2;
  c.label = label.empty() ? shape_str(s) + " " + std::string(dtype_name(t)) : label;
  return c;
}

void scan_sort_cases(std::vector<KernelCase>& v) {
  for (const char* op : {"CumSum", "CumProd"}) {
    for (DType t : kAll) {
      v.push_back(along(op, {33, 7}, t, A({{"axis", i64(1)}})));
      v.push_back(along(op, {5, 40, 3}, t, A({{"axis", i64(-2)}, {"reverse", true}})));
      v.push_back(along(op, {7, 33}, t, A({{"axis", i64(0)}, {"exclusive", true}})));
    }
    for (bool excl : {false, true}) {
      for (bool rev : {false, true}) {
        const Attrs a = A({{"axis", i64(-1)}, {"exclusive", excl}, {"reverse", rev}});
        v.push_back(along(op, {3, 1031}, DType::Float32, a, "long rows"));
        v.push_back(along(op, {2, 9, 300}, DType::Float64,
                          A({{"axis", i64(1)}, {"exclusive", excl}, {"reverse", rev}}),
                          "several tiles"));
        v.push_back(
            along(op, {}, DType::Float32, A({{"axis", i64(0)}, {"exclusive", excl}}), "0-d"));
      }
    }
    v.push_back(along(op, {0, 4}, DType::Float32, A({{"axis", i64(1)}}), "empty"));
    v.push_back(along(op, {4, 0}, DType::Int32, A({{"axis", i64(1)}}), "empty axis"));
    v.push_back(along(op, {200, 50}, DType::Int8, A({{"axis", i64(1)}}), "int8 wraps"));
  }
  for (DType t : kAll) {
    v.push_back(along("Sort", {33, 7}, t, A({})));
    v.push_back(along("Sort", {5, 40, 3}, t, A({{"axis", i64(1)}, {"descending", true}})));
    v.push_back(along("TopK", {33, 17}, t, A({{"k", i64(5)}})));
    v.push_back(along("TopK", {4, 3, 9}, t, A({{"k", i64(9)}, {"sorted", false}})));
  }
  for (bool desc : {false, true}) {
    for (int64_t axis : {0, -1}) {
      KernelCase c = along("Sort", {37, 300}, DType::Float32,
                           A({{"axis", i64(axis)}, {"descending", desc}}), "nan and inf");
      c.make_inputs = [] { return std::vector<Tensor>{with_nans({37, 300}, DType::Float32)}; };
      v.push_back(c);
    }
    // Many ties: stability decides the indices.
    KernelCase c = along("Sort", {50, 101}, DType::Int32, A({{"descending", desc}}), "ties");
    c.inputs[0] = {{50, 101}, DType::Int32, Gen::Int, 0, 4};
    v.push_back(c);
    v.push_back(along("Sort", {}, DType::Float32, A({{"descending", desc}}), "0-d"));
    v.push_back(along("Sort", {0, 5}, DType::Float32, A({{"axis", i64(0)}}), "empty"));
    v.push_back(along("Sort", {1000}, DType::Float64, A({{"descending", desc}}), "1-d"));
    // Long rows of few distinct values: stability over rows a GPU sorts in several tiles.
    KernelCase lt =
        along("Sort", {3, 5000}, DType::Int16, A({{"descending", desc}}), "long rows, ties");
    lt.inputs[0] = {{3, 5000}, DType::Int16, Gen::Int, -20, 20};
    v.push_back(lt);
  }
  for (bool sorted : {false, true}) {
    KernelCase c = along("TopK", {37, 300}, DType::Float32, A({{"k", i64(20)}, {"sorted", sorted}}),
                         "nan and inf");
    c.make_inputs = [] { return std::vector<Tensor>{with_nans({37, 300}, DType::Float32)}; };
    v.push_back(c);
    KernelCase t =
        along("TopK", {20, 64}, DType::Int16, A({{"k", i64(10)}, {"sorted", sorted}}), "ties");
    t.inputs[0] = {{20, 64}, DType::Int16, Gen::Int, 0, 3};
    v.push_back(t);
    v.push_back(
        along("TopK", {6, 5}, DType::Float32, A({{"k", i64(0)}, {"sorted", sorted}}), "k 0"));
    v.push_back(along("TopK", {}, DType::Float32, A({{"k", i64(1)}, {"sorted", sorted}}), "0-d"));
    v.push_back(
        along("TopK", {0, 5}, DType::Float32, A({{"k", i64(2)}, {"sorted", sorted}}), "empty"));
    v.push_back(
        along("TopK", {2, 2000}, DType::Float64, A({{"k", i64(7)}, {"sorted", sorted}}), "long"));
    // k = n: the whole row, ties between every few values.
    KernelCase all =
        along("TopK", {5, 257}, DType::Int8, A({{"k", i64(257)}, {"sorted", sorted}}), "k = n");
    all.inputs[0] = {{5, 257}, DType::Int8, Gen::Int, -5, 5};
    v.push_back(all);
  }
}

}  // namespace

std::vector<KernelCase> reduce_cases() {
  std::vector<KernelCase> v;
  const char* ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"};
  for (const char* op : ops) {
    const bool prod = std::string(op) == "ReduceProd";
    const bool minmax = std::string(op) == "ReduceMax" || std::string(op) == "ReduceMin";
    // Every dtype, along each axis and over all of them.
    for (DType t : kAll) {
      v.push_back(red(op, {33, 7}, t, {}));
      v.push_back(red(op, {33, 7}, t, {0}, true));
      v.push_back(red(op, {7, 33}, t, {-1}));
      v.push_back(red(op, {5, 40, 3}, t, {1}));
    }
    // Layouts: the last axis, outer axes, middle axes, scattered axes, size-1 axes.
    for (DType t : {DType::Float32, DType::Float64}) {
      v.push_back(red(op, {4, 5, 6}, t, {0, 2}, false, "scattered"));
      v.push_back(red(op, {4, 5, 6}, t, {0, 2}, true, "scattered keep"));
      v.push_back(red(op, {2, 3, 4, 5}, t, {1, 3}, false, "scattered 4-d"));
      v.push_back(red(op, {4, 5, 6}, t, {0, 1}));
      v.push_back(red(op, {4, 5, 6}, t, {-2, -1}, true));
      v.push_back(red(op, {2, 3, 1, 4}, t, {2}, false, "size-1 axis"));
      v.push_back(red(op, {2, 1, 3}, t, {0, 1}, false, "with size-1"));
      v.push_back(red(op, {3, 37, 40}, t, {1}, false, "middle, wide inner"));
      v.push_back(red(op, {3, 37, 300}, t, {1}, false, "middle, several tiles"));
      v.push_back(red(op, {}, t, {}, false, "0-d"));
      v.push_back(red(op, {}, t, {0}, true, "0-d axis 0"));
      v.push_back(red(op, {1031}, t, {}, false, "1-d"));
      v.push_back(red(op, {0, 3}, t, {1}, false, "empty output"));
      if (!minmax) {
        v.push_back(red(op, {3, 0}, t, {1}, false, "empty reduction"));
        v.push_back(red(op, {0}, t, {}, false, "empty all"));
      }
    }
    // Big enough for the threaded paths: rows, columns, one long run (split in blocks).
    if (!prod) {
      v.push_back(red(op, {600, 513}, DType::Float32, {1}, false, "rows"));
      v.push_back(red(op, {513, 600}, DType::Float32, {0}, false, "columns"));
      v.push_back(red(op, {300001}, DType::Float32, {}, false, "long run"));
      v.push_back(red(op, {100000, 5}, DType::Float32, {0}, false, "tall narrow"));
      v.push_back(red(op, {64, 100, 50}, DType::Float64, {1}, false, "middle big"));
      v.push_back(red(op, {300, 1001}, DType::Float16, {1}, false, "rows f16"));
      v.push_back(red(op, {1001, 300}, DType::BFloat16, {0}, false, "columns bf16"));
      v.push_back(red(op, {600, 513}, DType::Int32, {1}, false, "rows int32"));
      v.push_back(red(op, {513, 600}, DType::Int64, {0}, false, "columns int64"));
    } else {
      KernelCase c = red(op, {600, 513}, DType::Float32, {0});
      c.inputs[0].gen = Gen::Positive;
      c.label = "big positive";
      v.push_back(c);
      c = red(op, {3000, 100}, DType::Float64, {1});
      c.inputs[0].gen = Gen::Positive;
      v.push_back(c);
      c = red(op, {1000, 300}, DType::Int64, {1}, false, "wrapping int64");
      v.push_back(c);
    }
    if (minmax || std::string(op) == "ReduceSum") {
      for (DType t : {DType::Float32, DType::Float16, DType::Float64}) {
        for (std::vector<int64_t> ax : {std::vector<int64_t>{1}, {0}, {}}) {
          KernelCase c = red(op, {37, 300}, t, {});
          c.attrs.set("axis", ax);
          c.make_inputs = [t] { return std::vector<Tensor>{with_nans({37, 300}, t)}; };
          c.label = "nan and inf";
          v.push_back(c);
        }
      }
    }
  }
  // complex64/complex128: Sum, Mean and Prod (Max/Min refuse complex in their rule).
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceProd"}) {
    for (DType t : {DType::Complex64, DType::Complex128}) {
      const bool c64 = t == DType::Complex64;
      for (KernelCase c :
           {red(op, {33, 7}, t, {}), red(op, {33, 7}, t, {0}, true),
            red(op, {4, 5, 6}, t, {0, 2}, false, "scattered"), red(op, {}, t, {}, false, "0-d"),
            red(op, {3, 0}, t, {1}, false, "empty"), red(op, {300, 257}, t, {1}, false, "rows")}) {
        c.rtol = c64 ? 1e-4 : 1e-10;
        c.atol = c64 ? 1e-4 : 1e-10;
        if (std::string(op) == "ReduceProd") c.inputs[0].gen = Gen::Unit;
        v.push_back(c);
      }
    }
  }
  for (const char* op : {"Argmax", "Argmin"}) {
    for (DType t : kAll) {
      v.push_back(arg(op, {33, 7}, t, 1));
      v.push_back(arg(op, {33, 7}, t, 0, true, DType::Int64));
      v.push_back(arg(op, {4, 40, 3}, t, -2));
    }
    v.push_back(arg(op, {}, DType::Float32, 0));
    v.push_back(arg(op, {1031}, DType::Float32, 0, true));
    v.push_back(arg(op, {0, 5}, DType::Float32, 1));
    v.push_back(arg(op, {600, 513}, DType::Float32, 1, false, DType::Int64));
    v.push_back(arg(op, {513, 600}, DType::Float32, 0));
    v.push_back(arg(op, {3, 60, 300}, DType::Float64, 1));
    v.push_back(arg(op, {2000, 300}, DType::Int8, 1));
    for (int64_t axis : {0, 1}) {
      KernelCase c = arg(op, {37, 300}, DType::Float32, axis);
      c.make_inputs = [] { return std::vector<Tensor>{with_nans({37, 300}, DType::Float32)}; };
      c.label = "nan and inf";
      v.push_back(c);
    }
  }
  scan_sort_cases(v);
  return v;
}

}  // namespace mycel::test

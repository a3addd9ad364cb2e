// Kernel cases of the state-update family: each update over float32/float64/float16 tensors
// large enough to span several parallel chunks, with and without its options. The harness
// compares the updated inputs as well as the outputs.
#include "kernel_cases.h"

namespace mycel::test {

std::vector<KernelCase> optim_cases() {
  std::vector<KernelCase> v;
  const Shape big{300, 130}, small{7};
  const Shape s0{};
  auto tol = [](DType t) {
    return t == DType::Float16 ? 2e-3 : t == DType::Float64 ? 1e-12 : 1e-5;
  };
  for (DType t : {DType::Float32, DType::Float64, DType::Float16}) {
    for (const Shape& x : {big, small}) {
      std::string l = std::string(dtype_name(t)) + (x.size() == 2 ? " big" : " small");
      double r = tol(t);
      v.push_back({"Assign", {{x, t}, {x, t}}, {}, r, r, {}, l});
      v.push_back({"Assign", {{x, t}, {x, DType::Float64}}, {}, r, r, {}, l + " cast"});
      v.push_back({"AssignAdd", {{x, t}, {x, t}}, {}, r, r, {}, l});
      for (bool nesterov : {false, true}) {
        v.push_back({"ApplyMomentum",
                     {{x, t}, {x, t}, {s0, t, Gen::Positive}, {x, t}, {s0, t, Gen::Unit}},
                     A({{"use_nesterov", nesterov}, {"gradient_scale", 0.5}}),
                     r,
                     r,
                     {},
                     l + (nesterov ? " nesterov" : "")});
        v.push_back({"Adam",
                     {{x, t},
                      {x, t},
                      {x, t, Gen::Positive},
                      {s0, t, Gen::Unit},
                      {s0, t, Gen::Unit},
                      {s0, t, Gen::Positive},
                      {s0, t, Gen::Unit},
                      {s0, t, Gen::Unit},
                      {s0, t, Gen::Positive},
                      {x, t}},
                     A({{"use_nesterov", nesterov}}),
                     r * 10,
                     r * 10,
                     {},
                     l + (nesterov ? " nesterov" : "")});
      }
      for (double stat : {0.0, 1.0}) {
        v.push_back({"SGD",
                     {},
                     A({{"dampening", 0.1}, {"weight_decay", 0.01}, {"nesterov", stat > 0}}),
                     r,
                     r,
                     [x, t, stat] {
                       std::vector<Tensor> in;
                       in.push_back(make_input({x, t}, 11));
                       in.push_back(make_input({x, t}, 12));
                       in.push_back(make_input({{}, t, Gen::Positive}, 13));
                       in.push_back(make_input({x, t}, 14));
                       in.push_back(make_input({{}, t, Gen::Unit}, 15));
                       Tensor s = Tensor::empty({}, t);
                       s.fill(Scalar::from_float(stat));
                       in.push_back(s);
                       return in;
                     },
                     l + (stat > 0 ? " first step" : "")});
      }
      v.push_back({"AdamWeightDecay",
                   {{x, t},
                    {x, t},
                    {x, t, Gen::Positive},
                    {s0, t, Gen::Positive},
                    {s0, t, Gen::Unit},
                    {s0, t, Gen::Unit},
                    {s0, t, Gen::Positive},
                    {s0, t, Gen::Unit},
                    {x, t}},
                   {},
                   r * 10,
                   r * 10,
                   {},
                   l});
    }
  }
  v.push_back(
      {"Assign", {{{5, 3}, DType::Float32}, {{3}, DType::Float32}}, {}, 0, 0, {}, "broadcast"});
  v.push_back({"AssignAdd",
               {{{5, 3}, DType::Float32}, {{5, 1}, DType::Float64}},
               {},
               1e-6,
               1e-6,
               {},
               "broadcast cast"});
  v.push_back({"AssignAdd",
               {{{5, 3}, DType::Int32, Gen::Int}, {{5, 3}, DType::Int32, Gen::Int}},
               {},
               0,
               0,
               {},
               "int32"});
  return v;
}

}  // namespace mycel::test

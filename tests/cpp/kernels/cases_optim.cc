// Kernel cases of the state-update family: each update over float32/float64/float16 tensors
// large enough to span several parallel chunks, with and without its options. The harness
// compares the updated inputs as well as the outputs.
#include "kernel_cases.h"

namespace mycel::test {

namespace {

// Inputs made from `specs` (seeded as the harness seeds them), then the 0-d inputs named in
// `fixed` set to the given values: hyperparameters in their valid range (decay rates in
// [0, 1), a power, an epsilon) where a random draw would leave it.
std::function<std::vector<Tensor>()> with_values(std::vector<InputSpec> specs,
                                                 std::vector<std::pair<size_t, double>> fixed) {
  return [specs, fixed] {
    std::vector<Tensor> in;
    for (size_t i = 0; i < specs.size(); ++i) in.push_back(make_input(specs[i], 101 + i));
    for (const auto& [i, v] : fixed) {
      Tensor s = Tensor::empty({}, specs[i].dtype);
      s.fill(Scalar::from_float(v));
      in[i] = s;
    }
    return in;
  };
}

// The adaptive updates (ApplyAdagrad ... ApplyFtrl) over one dtype and shape, labelled l.
void add_adaptive_cases(std::vector<KernelCase>& v, const Shape& x, DType t, double r,
                        const std::string& l) {
  const Shape s0{};
  const InputSpec var{x, t}, pos{x, t, Gen::Positive}, rate{s0, t, Gen::Positive};
  const InputSpec sc{s0, t};  // a scalar set by with_values
  for (bool update_slots : {true, false}) {
    v.push_back({"ApplyAdagrad",
                 {var, pos, rate, var},
                 A({{"update_slots", update_slots}}),
                 r,
                 r,
                 {},
                 l + (update_slots ? "" : " no update_slots")});
  }
  v.push_back({"ApplyRMSProp",
               {},
               {},
               r,
               r,
               with_values({var, pos, var, rate, var, sc, sc, sc}, {{5, 0.9}, {6, 0.5}, {7, 1e-3}}),
               l});
  // Centred: a constant mean gradient 0.3 keeps mean_square - mean_gradient^2 positive.
  v.push_back({"ApplyCenteredRMSProp",
               {},
               {},
               r,
               r,
               [=] {
                 auto in = with_values({var, var, pos, var, var, rate, sc, sc, sc},
                                       {{6, 0.9}, {7, 0.5}, {8, 1e-3}})();
                 in[1] = Tensor::empty(x, t);
                 in[1].fill(Scalar::from_float(0.3));
                 return in;
               },
               l});
  v.push_back({"ApplyAdaMax",
               {},
               {},
               r * 10,
               r * 10,
               with_values({var, var, pos, sc, rate, sc, sc, sc, var},
                           {{3, 0.729}, {5, 0.9}, {6, 0.999}, {7, 1e-3}}),
               l});
  v.push_back({"ApplyAdadelta",
               {},
               {},
               r * 10,
               r * 10,
               with_values({var, pos, pos, rate, sc, sc, var}, {{4, 0.9}, {5, 1e-6}}),
               l});
  // lr_power -0.5 (the square-root path) and -0.3 (pow); l1 0.3 zeroes some of var.
  for (double p : {-0.5, -0.3}) {
    v.push_back(
        {"ApplyFtrl",
         {},
         {},
         r * 10,
         r * 10,
         with_values({var, pos, var, var, sc, sc, sc, sc}, {{4, 0.5}, {5, 0.3}, {6, 0.1}, {7, p}}),
         l + (p == -0.5 ? " sqrt" : " pow")});
  }
}

}  // namespace

std::vector<KernelCase> optim_cases() {
  std::vector<KernelCase> v;
  const Shape big{300, 130}, small{7};
  const Shape s0{};
  auto tol = [](DType t) {
    return t == DType::Float16    ? 2e-3
           : t == DType::BFloat16 ? 2e-2
           : t == DType::Float64  ? 1e-12
                                  : 1e-5;
  };
  for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16}) {
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
      add_adaptive_cases(v, x, t, r, l);
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

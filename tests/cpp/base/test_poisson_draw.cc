// base/poisson_draw.h: its exp, log and ln k! against libm's (the formulas the CPU and CUDA
// kernels share must be as accurate as what they replace), and its sampler against a stream
// of known uniforms (Knuth's branch counts factors exactly).
#include "base/poisson_draw.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace mycel {
namespace {

double rel(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

TEST(PoissonDraw, ExpMatchesLibm) {
  for (double x = -700.0; x <= 700.0; x += 0.0137)
    EXPECT_LT(rel(poisson::exp_hd(x), std::exp(x)), 5e-16) << x;
  for (double x : {0.0, -1e-300, 1e-12, -9.999999, -0.5, 0.5})
    EXPECT_LT(rel(poisson::exp_hd(x), std::exp(x)), 5e-16) << x;
}

TEST(PoissonDraw, LogMatchesLibm) {
  EXPECT_EQ(poisson::log_hd(0.0), -HUGE_VAL);
  EXPECT_EQ(poisson::log_hd(1.0), 0.0);
  for (double x = 1e-300; x < 1e300; x *= 1.0173) {
    const double want = std::log(x);
    EXPECT_LT(std::fabs(poisson::log_hd(x) - want), 4e-16 * std::fmax(1.0, std::fabs(want))) << x;
  }
  for (double x : {0x1p-53, 4.9e-324, 1e-310, 0.9999999999, 1.0000001, 10.0, 1e12})
    EXPECT_LT(std::fabs(poisson::log_hd(x) - std::log(x)),
              4e-16 * std::fmax(1.0, std::fabs(std::log(x))))
        << x;
}

TEST(PoissonDraw, LogFactorialMatchesLgamma) {
  for (double k = 0; k < 2000; k += 1)
    EXPECT_LT(std::fabs(poisson::log_factorial(k) - std::lgamma(k + 1)),
              1e-15 * std::fmax(1.0, std::lgamma(k + 1)))
        << k;
  for (double k : {1e5, 123456789.0, 1e12, 1e15})
    EXPECT_LT(rel(poisson::log_factorial(k), std::lgamma(k + 1)), 1e-15) << k;
}

// Uniforms from a list, in order.
struct Listed {
  std::vector<double> u;
  size_t i = 0;
  double next() { return u.at(i++); }
};

TEST(PoissonDraw, KnuthCountsFactorsUntilTheProductFallsBelowExpMinusLambda) {
  // lam = 1: exp(-1) = 0.3679; 0.9 * 0.8 = 0.72, * 0.5 = 0.36 <= limit: two factors before.
  Listed u{{0.9, 0.8, 0.5, 0.99}};
  EXPECT_EQ(poisson::draw(1.0, u), 2.0);
  EXPECT_EQ(u.i, 3u);
  Listed first{{0.3}};  // the first factor already below: 0
  EXPECT_EQ(poisson::draw(1.0, first), 0.0);
  Listed none{{}};
  EXPECT_EQ(poisson::draw(0.0, none), 0.0);  // no uniform used
}

TEST(PoissonDraw, PtrsAcceptsTheSqueezeAtOnce) {
  // lam = 100: U = 0.6 - 0.5 (us = 0.4 >= 0.07), V = 0.2 <= v_r: k from the formula.
  Listed u{{0.6, 0.2}};
  const double lam = 100.0, b = 0.931 + 2.53 * 10.0, a = -0.059 + 0.02483 * b;
  const double U = 0.6 - 0.5, us = 0.5 - U;
  const double k = std::floor((2.0 * a / us + b) * U + lam + 0.43);
  EXPECT_EQ(poisson::draw(lam, u), k);
  EXPECT_EQ(u.i, 2u);
}

}  // namespace
}  // namespace mycel

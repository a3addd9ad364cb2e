"""mycel.nn.probability: distributions and bijectors against scipy.stats (and closed forms),
each method called inside a Cell so the `mode` fixture runs it in PYNATIVE and GRAPH mode."""
import math

import numpy as np
import pytest
from scipy import special, stats

import mycel as ms
from mycel import nn, Tensor
import mycel.nn.probability.distribution as msd
import mycel.nn.probability.bijector as msb
from mycel.nn.probability.distribution._utils.custom_ops import lgamma, digamma


class Call(nn.Cell):
    """Calls one method of a distribution (or bijector) by name on the inputs."""

    def __init__(self, dist, method, *consts):
        super().__init__()
        self.dist = dist
        self.method = method
        self.consts = consts

    def construct(self, *args):
        return self.dist(self.method, *(self.consts + args))


def call(dist, method, *args, consts=()):
    out = Call(dist, method, *consts)(*[Tensor(np.asarray(a, np.float32)) for a in args])
    return out.asnumpy()


X = np.array([0.3, 1.0, 2.5, 4.0], np.float32)

# (distribution, scipy frozen distribution, the values to evaluate at)
CASES = {
    "normal": (lambda: msd.Normal(3.0, 4.0), stats.norm(3.0, 4.0), X - 2.0),
    "exponential": (lambda: msd.Exponential([0.5, 2.0, 1.0, 3.0]),
                    stats.expon(scale=1 / np.array([0.5, 2.0, 1.0, 3.0])), X),
    "uniform": (lambda: msd.Uniform(0.0, 3.0), stats.uniform(0.0, 3.0), X - 0.2),
    "logistic": (lambda: msd.Logistic(1.0, 2.0), stats.logistic(1.0, 2.0), X - 1.0),
    "cauchy": (lambda: msd.Cauchy(1.0, 2.0), stats.cauchy(1.0, 2.0), X - 1.0),
    "gumbel": (lambda: msd.Gumbel(1.0, 2.0), stats.gumbel_r(1.0, 2.0), X - 1.0),
    "laplace": (lambda: msd.Laplace(1.0, 2.0), stats.laplace(1.0, 2.0), X - 1.0),
    "halfnormal": (lambda: msd.HalfNormal(0.5, 2.0), stats.halfnorm(0.5, 2.0), X + 0.5),
    "lognormal": (lambda: msd.LogNormal(0.3, 0.8), stats.lognorm(0.8, scale=math.exp(0.3)), X),
    "gamma": (lambda: msd.Gamma([2.0, 0.5, 3.0, 1.5], [1.0, 2.0, 0.5, 1.0]),
              stats.gamma(np.array([2.0, 0.5, 3.0, 1.5]),
                          scale=1 / np.array([1.0, 2.0, 0.5, 1.0])), X),
    "beta": (lambda: msd.Beta(2.0, 3.0), stats.beta(2.0, 3.0), X / 5.0),
    "studentt": (lambda: msd.StudentT(3.0, 1.0, 2.0), stats.t(3.0, 1.0, 2.0), X - 1.0),
}
HAS_CDF = {"normal", "exponential", "uniform", "logistic", "cauchy", "gumbel", "laplace",
           "halfnormal", "lognormal"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_log_prob_and_prob_match_scipy(mode, name):
    make, ref, x = CASES[name]
    d = make()
    np.testing.assert_allclose(call(d, "log_prob", x), ref.logpdf(x), rtol=2e-5, atol=2e-5)
    np.testing.assert_allclose(call(d, "prob", x), ref.pdf(x), rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(HAS_CDF))
def test_cdf_family_matches_scipy(mode, name):
    make, ref, x = CASES[name]
    d = make()
    np.testing.assert_allclose(call(d, "cdf", x), ref.cdf(x), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(call(d, "survival_function", x), ref.sf(x), rtol=1e-5,
                               atol=1e-6)
    np.testing.assert_allclose(call(d, "log_cdf", x), ref.logcdf(x), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(call(d, "log_survival", x), ref.logsf(x), rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("name", sorted(set(CASES) - {"cauchy"}))
def test_moments_and_entropy_match_scipy(mode, name):
    make, ref, _ = CASES[name]
    d = make()
    np.testing.assert_allclose(call(d, "mean"), ref.mean(), rtol=1e-5)
    np.testing.assert_allclose(call(d, "var"), ref.var(), rtol=1e-4)
    np.testing.assert_allclose(call(d, "sd"), ref.std(), rtol=1e-4)
    np.testing.assert_allclose(call(d, "entropy"), ref.entropy(), rtol=1e-4, atol=1e-5)


def test_cauchy_mean_is_undefined(mode):
    with pytest.raises(ValueError):
        call(msd.Cauchy(0.0, 1.0), "mean")


def test_parameters_given_per_call_override_the_defaults(mode):
    d = msd.Normal()  # no defaults: every call passes mean and sd
    x = np.array([0.5, 1.0, 2.0], np.float32)
    mean, sd = np.array([1.0], np.float32), np.array([2.0, 3.0, 0.5], np.float32)
    np.testing.assert_allclose(call(d, "log_prob", x, mean, sd),
                               stats.norm(mean, sd).logpdf(x), rtol=1e-5)
    # the result has the broadcast shape of the parameters
    np.testing.assert_allclose(call(d, "mean", mean, sd), np.broadcast_to(mean, (3,)))
    with pytest.raises(TypeError):
        call(d, "mean")  # no default and none given


def _kl_numeric(p, q, lo, hi):
    xs = np.linspace(lo, hi, 400001)
    lp, lq = p.logpdf(xs), q.logpdf(xs)
    return np.trapz(np.exp(lp) * (lp - lq), xs)


@pytest.mark.parametrize("family,a,b", [
    ("Normal", (1.0, 2.0), (0.5, 1.5)),
    ("Exponential", (2.0,), (0.7,)),
    ("Laplace", (1.0, 2.0), (0.0, 1.5)),
    ("Gumbel", (1.0, 2.0), (0.5, 1.5)),
    ("Cauchy", (1.0, 2.0), (0.0, 1.5)),
    ("Gamma", (2.0, 1.5), (3.0, 1.0)),
    ("Beta", (2.0, 3.0), (1.5, 1.2)),
    ("LogNormal", (0.2, 0.7), (0.0, 1.0)),
])
def test_kl_loss_matches_numeric_integral(mode, family, a, b):
    scipy_of = {"Normal": lambda p: stats.norm(*p),
                "Exponential": lambda p: stats.expon(scale=1 / p[0]),
                "Laplace": lambda p: stats.laplace(*p),
                "Gumbel": lambda p: stats.gumbel_r(*p),
                "Cauchy": lambda p: stats.cauchy(*p),
                "Gamma": lambda p: stats.gamma(p[0], scale=1 / p[1]),
                "Beta": lambda p: stats.beta(*p),
                "LogNormal": lambda p: stats.lognorm(p[1], scale=math.exp(p[0]))}
    d = getattr(msd, family)(*a)
    lo, hi = {"Exponential": (0, 60), "Gamma": (1e-9, 60), "Beta": (1e-9, 1 - 1e-9),
              "LogNormal": (1e-9, 200), "Cauchy": (-1e5, 1e5)}.get(family, (-80, 80))
    expect = _kl_numeric(scipy_of[family](a), scipy_of[family](b), lo, hi)
    got = call(d, "kl_loss", *[np.array([v], np.float32) for v in b], consts=(family,))
    np.testing.assert_allclose(got, [expect], rtol=2e-3, atol=2e-4)
    # cross entropy = entropy + KL
    ce = call(d, "cross_entropy", *[np.array([v], np.float32) for v in b], consts=(family,))
    np.testing.assert_allclose(ce, got + call(d, "entropy"), rtol=1e-5)


@pytest.mark.parametrize("name,p", [("Bernoulli", 0.3), ("Geometric", 0.3)])
def test_discrete_match_scipy(mode, name, p):
    d = getattr(msd, name)(p)
    ref = stats.bernoulli(p) if name == "Bernoulli" else stats.geom(p, loc=-1)
    k = np.array([0.0, 1.0, 2.0, 5.0], np.float32)
    if name == "Bernoulli":
        k = np.array([0.0, 1.0, 0.0, 1.0], np.float32)
    np.testing.assert_allclose(call(d, "prob", k), ref.pmf(k), rtol=1e-5)
    np.testing.assert_allclose(call(d, "log_prob", k), ref.logpmf(k), rtol=1e-5)
    np.testing.assert_allclose(call(d, "cdf", k), ref.cdf(k), rtol=1e-5)
    np.testing.assert_allclose(call(d, "mean"), ref.mean(), rtol=1e-5)
    np.testing.assert_allclose(call(d, "var"), ref.var(), rtol=1e-5)
    np.testing.assert_allclose(call(d, "entropy"), ref.entropy(), rtol=1e-5)


def test_poisson_and_categorical_match_scipy(mode):
    k = np.array([0.0, 1.0, 3.0, 7.0], np.float32)
    np.testing.assert_allclose(call(msd.Poisson([2.5]), "log_prob", k),
                               stats.poisson(2.5).logpmf(k), rtol=1e-5)
    probs = np.array([0.2, 0.5, 0.3])
    c = msd.Categorical(probs)
    v = np.array([0.0, 1.0, 2.0, 1.0], np.float32)
    np.testing.assert_allclose(call(c, "prob", v), probs[v.astype(int)], rtol=1e-6)
    np.testing.assert_allclose(call(c, "cdf", v), np.cumsum(probs)[v.astype(int)], rtol=1e-6)
    np.testing.assert_allclose(call(c, "entropy"), stats.entropy(probs), rtol=1e-6)
    q = np.array([0.3, 0.3, 0.4], np.float32)
    np.testing.assert_allclose(call(c, "kl_loss", q, consts=("Categorical",)),
                               stats.entropy(probs, q), rtol=1e-5)


@pytest.mark.parametrize("name,make,mean,var", [
    ("normal", lambda: msd.Normal(2.0, 0.5), 2.0, 0.25),
    ("exponential", lambda: msd.Exponential(2.0), 0.5, 0.25),
    ("uniform", lambda: msd.Uniform(-1.0, 3.0), 1.0, 16 / 12),
    ("gumbel", lambda: msd.Gumbel(1.0, 0.5), 1.0 + 0.5 * np.euler_gamma, np.pi ** 2 / 24),
    ("bernoulli", lambda: msd.Bernoulli(0.3), 0.3, 0.21),
    ("geometric", lambda: msd.Geometric(0.4), 1.5, 3.75),
    ("poisson", lambda: msd.Poisson(3.0), 3.0, 3.0),
    ("categorical", lambda: msd.Categorical([0.2, 0.5, 0.3]), 1.1, 0.49),
    ("lognormal", lambda: msd.LogNormal(0.0, 0.25), math.exp(0.03125),
     (math.exp(0.0625) - 1) * math.exp(0.0625)),
])
def test_samples_have_the_distributions_moments(mode, name, make, mean, var):
    s = Call(make(), "sample", (20000,))().asnumpy().astype(np.float64)
    assert s.shape == (20000,)
    se = math.sqrt(var / s.size)
    assert abs(s.mean() - mean) < 5 * se
    assert abs(s.var() - var) < 0.1 * var


def test_sample_shape_is_shape_plus_batch_shape(mode):
    d = msd.Normal(np.zeros((2, 3), np.float32), 1.0)
    assert Call(d, "sample", (4,))().shape == (4, 2, 3)


def test_construction_checks():
    with pytest.raises(ValueError):
        msd.Normal([[2.], [1.]], [[2.], [3.], [4.]])  # shapes do not broadcast
    with pytest.raises(TypeError):
        msd.Normal(0., 1., dtype=ms.int32)
    with pytest.raises(TypeError):
        msd.Normal(0., 1., name=1.0)
    with pytest.raises(TypeError):
        msd.Normal(0., 1., seed="seed")
    with pytest.raises(ValueError):
        msd.Normal(0., 0.)
    with pytest.raises(ValueError):
        msd.Bernoulli([1.0])
    with pytest.raises(TypeError):
        msd.Bernoulli([0.5], dtype=ms.bool_)
    with pytest.raises(ValueError):
        msd.Categorical([0.3, 0.3])  # does not sum to one
    with pytest.raises(ValueError):
        msd.Uniform(2.0, 1.0)
    with pytest.raises(TypeError):
        msd.Gamma(3., [4.])


def test_lgamma_and_digamma_compositions():
    x = np.array([1e-3, 0.1, 0.5, 1.0, 2.5, 7.0, 30.0, 150.0], np.float64)
    np.testing.assert_allclose(lgamma(Tensor(x)).asnumpy(), special.gammaln(x), rtol=1e-10,
                               atol=1e-10)
    np.testing.assert_allclose(digamma(Tensor(x)).asnumpy(), special.digamma(x), rtol=1e-9,
                               atol=1e-9)


BIJECTORS = [
    ("exp", lambda: msb.Exp(), np.exp, np.log, lambda x: x),
    ("power", lambda: msb.PowerTransform(0.5), lambda x: (1 + 0.5 * x) ** 2,
     lambda y: (np.sqrt(y) - 1) / 0.5, lambda x: np.log(1 + 0.5 * x)),
    ("affine", lambda: msb.ScalarAffine(-2.0, 1.0), lambda x: -2 * x + 1,
     lambda y: (y - 1) / -2, lambda x: np.log(2.0) + 0 * x),
    ("softplus", lambda: msb.Softplus(2.0), lambda x: np.logaddexp(0, 2 * x) / 2,
     lambda y: np.log(np.expm1(2 * y)) / 2, lambda x: -np.logaddexp(0, -2 * x)),
    ("gumbel_cdf", lambda: msb.GumbelCDF(1.0, 2.0), lambda x: np.exp(-np.exp(-(x - 1) / 2)),
     lambda y: 1 - 2 * np.log(-np.log(y)),
     lambda x: -(x - 1) / 2 - np.exp(-(x - 1) / 2) - np.log(2.0)),
]


@pytest.mark.parametrize("name,make,fwd,inv,fldj", BIJECTORS, ids=[b[0] for b in BIJECTORS])
def test_bijectors_match_closed_forms(mode, name, make, fwd, inv, fldj):
    b = make()
    x = np.array([0.2, 0.7, 1.5, 2.0], np.float32)
    y = fwd(x.astype(np.float64))
    np.testing.assert_allclose(call(b, "forward", x), fwd(x.astype(np.float64)), rtol=1e-5)
    np.testing.assert_allclose(call(b, "inverse", y.astype(np.float32)), x, rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(call(b, "forward_log_jacobian", x), fldj(x.astype(np.float64)),
                               rtol=1e-5, atol=1e-6)
    # inverse log-Jacobian is minus the forward one at the matching point
    np.testing.assert_allclose(call(b, "inverse_log_jacobian", y.astype(np.float32)),
                               -fldj(x.astype(np.float64)), rtol=1e-4, atol=1e-5)
    inv_b = msb.Invert(make())
    np.testing.assert_allclose(call(inv_b, "forward", y.astype(np.float32)), x, rtol=1e-4,
                               atol=1e-5)


def test_bijector_value_checks():
    b = msb.ScalarAffine(2.0, 1.0)
    with pytest.raises(TypeError):
        b.forward(1.0)
    with pytest.raises(TypeError):
        b.forward(Tensor(np.array([1], np.int32)))
    with pytest.raises(TypeError):
        msb.Invert(0.1)
    with pytest.raises(ValueError):
        msb.GumbelCDF(scale=0.0)
    assert msb.Invert(msb.ScalarAffine()).name == "InvertScalarAffine"


def test_transformed_distribution_matches_scipy(mode):
    # y = 2x + 1, x ~ N(0.5, 1.5): y ~ N(2, 3)
    t = msd.TransformedDistribution(msb.ScalarAffine(2.0, 1.0), msd.Normal(0.5, 1.5))
    y = np.array([-1.0, 0.5, 2.0, 4.0], np.float32)
    np.testing.assert_allclose(call(t, "log_prob", y), stats.norm(2.0, 3.0).logpdf(y),
                               rtol=1e-5)
    np.testing.assert_allclose(call(t, "cdf", y), stats.norm(2.0, 3.0).cdf(y), rtol=1e-5)


def test_gradient_flows_through_log_prob(mode):
    """d/dmu sum log N(x; mu, sd) = sum (x - mu) / sd^2, through a compiled Cell too."""
    d = msd.Normal()
    x = Tensor(np.array([0.5, 1.0, 2.0], np.float32))

    def f(mu):
        return d.log_prob(x, mu, Tensor(np.array([2.0], np.float32))).sum()

    g = ms.grad(f)(Tensor(np.array([1.0], np.float32))).asnumpy()
    np.testing.assert_allclose(g, [np.sum(np.array([0.5, 1.0, 2.0]) - 1.0) / 4.0], rtol=1e-5)


def test_methods_a_subclass_leaves_out_raise_not_implemented(mode):
    class NoMethods(msd.Distribution):
        def __init__(self, rate=None):
            param = dict(locals())
            param["param_dict"] = {"rate": rate}
            super().__init__(None, ms.float32, "NoMethods", param)

    x = np.array([0.2], np.float32)
    for method in ("prob", "log_prob", "cdf", "survival_function", "sd", "var", "mean",
                   "entropy", "sample"):
        with pytest.raises(NotImplementedError, match="NoMethods"):
            call(NoMethods(), method, x)

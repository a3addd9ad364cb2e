"""Coverage-guided fuzzing of a model (MindArmour's ``Fuzzer``, after DeepHunter).

The fuzzer keeps a queue of seeds (image, label). Each iteration takes the next seed, makes
``mutate_num_per_seed`` mutants by random strategies of mutate_config (a method and a random
choice of each of its parameters' values), clipped to the original image's value range, and
runs them through the network once, reading the coverage's neurons on the way. A mutant that
the network misclassifies is recorded; a mutant that raises the coverage joins the queue as a
new seed. The coverage only ever takes in more inputs, so it grows monotonically over the
iterations (``coverage_history``). A seed's lineage takes at most one affine transform
(DeepHunter's rule: affine transforms compound into unrecognisable images).
"""
import numpy as np

from mycel.armour.fuzz_testing import mutations as mut
from mycel.armour.fuzz_testing.coverage import CoverageMetrics, network_of
from mycel._mycel import Tensor
from mycel.nn.layer._check import positive_int
from mycel.nn.loss import SoftmaxCrossEntropyWithLogits
from mycel.nn.wrap import WithLossCell
from mycel.ops.composite import grad


def _check_mutate_config(mutate_config):
    if not isinstance(mutate_config, (list, tuple)) or not mutate_config:
        raise ValueError(f"For 'Fuzzer.fuzzing', the 'mutate_config' must be a non-empty list "
                         f"of dicts, but got {mutate_config!r}.")
    for entry in mutate_config:
        if not isinstance(entry, dict) or "method" not in entry or \
                set(entry) - {"method", "params"}:
            raise ValueError(f"For 'Fuzzer.fuzzing', each mutate_config entry must be a dict "
                             f"with 'method' and 'params', but got {entry!r}.")
        method = entry["method"]
        if method not in mut.PARAMS:
            raise ValueError(f"For 'Fuzzer.fuzzing', the method must be one of "
                             f"{sorted(mut.PARAMS)}, but got {method!r}.")
        params = entry.get("params") or {}
        unknown = set(params) - mut.PARAMS[method]
        if unknown:
            raise ValueError(f"For 'Fuzzer.fuzzing', method {method!r} has no parameter(s) "
                             f"{sorted(unknown)}; known: {sorted(mut.PARAMS[method])}.")
        for name, values in params.items():
            if not isinstance(values, (list, tuple)) or not values:
                raise ValueError(f"For 'Fuzzer.fuzzing', the values of {method}.{name} must "
                                 f"be a non-empty list, but got {values!r}.")


def _class_of(label):
    label = np.asarray(label)
    return int(label.argmax()) if label.ndim >= 1 and label.size > 1 else int(label)


class Fuzzer:
    """Fuzzer(target_model): coverage-guided fuzz testing of a mycel Model (or Cell) whose
    network maps a batch of images to logits. ``fuzzing(mutate_config, initial_seeds,
    coverage, evaluate=True, max_iters=1000, mutate_num_per_seed=20, seed=0)``:

    - mutate_config: a list of ``{"method": name, "params": {param: [values...]}}`` with
      names Contrast (alpha, beta), Brightness (factor), GaussianBlur (ksize), GaussianNoise,
      UniformNoise, SaltAndPepperNoise (factor), Translate (x_bias, y_bias), Scale (factor_x,
      factor_y), Shear (factor, direction), Rotate (angle), FGSM (eps, bounds) and PGD (eps,
      eps_iter, nb_iter, bounds); eps are fractions of bounds' range (default: the image's).
    - initial_seeds: a list of [image, label] (label a class index or one-hot).
    - coverage: a CoverageMetrics of the same network (e.g. KMultisectionNeuronCoverage).

    Returns (fuzz_samples, true_labels, fuzz_preds, fuzz_strategies, metrics_report): the
    misclassified mutants, their labels (as given), the network's outputs for them, the chain
    of methods that made each, and with evaluate a dict of 'Accuracy' (of all mutants),
    'Attack_success_rate' (misclassified mutants / mutants) and 'Coverage_metrics' (the final
    coverage)."""

    def __init__(self, target_model):
        self._network = network_of(target_model, "Fuzzer")
        self._loss_grad = grad(WithLossCell(self._network,
                                            SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                          reduction="mean")),
                               grad_position=0)
        self.coverage_history = []  # the coverage at the start and after each mutant
        self.added_seeds = []  # the strategy chains of the mutants that joined the queue

    def _input_grad(self, img, label):
        x = Tensor(np.ascontiguousarray(img[None].astype(np.float32)))
        y = Tensor(np.array([label], np.int32))
        return self._loss_grad(x, y).asnumpy()[0]

    def _adversarial(self, method, img, label, params):
        lo, hi = params.get("bounds", (float(img.min()), float(img.max())))
        span = hi - lo
        eps = params.get("eps", 0.1) * span
        if method == "FGSM":
            return np.clip(img + eps * np.sign(self._input_grad(img, label)), lo, hi)
        step = params.get("eps_iter", 0.01) * span
        x = img.copy()
        for _ in range(int(params.get("nb_iter", 10))):
            x = x + step * np.sign(self._input_grad(x, label))
            x = np.clip(np.clip(x, img - eps, img + eps), lo, hi)
        return x

    def _mutate(self, entry, img, label, rng):
        params = {name: values[rng.randint(len(values))]
                  for name, values in (entry.get("params") or {}).items()}
        method = entry["method"]
        if method in mut.ADVERSARIAL:
            return self._adversarial(method, img, label, params)
        return mut.TRANSFORMS[method](img, rng, **params)

    def fuzzing(self, mutate_config, initial_seeds, coverage, evaluate=True, max_iters=1000,
                mutate_num_per_seed=20, seed=0):
        """Fuzzes from initial_seeds (see the class); `seed` seeds the strategy choices."""
        _check_mutate_config(mutate_config)
        if not isinstance(coverage, CoverageMetrics):
            raise TypeError(f"For 'Fuzzer.fuzzing', the 'coverage' must be a CoverageMetrics, "
                            f"but got {type(coverage).__name__}.")
        positive_int(max_iters, "max_iters", "Fuzzer.fuzzing")
        positive_int(mutate_num_per_seed, "mutate_num_per_seed", "Fuzzer.fuzzing")
        if not isinstance(initial_seeds, (list, tuple)) or not initial_seeds or \
                any(not isinstance(s, (list, tuple)) or len(s) != 2 for s in initial_seeds):
            raise ValueError("For 'Fuzzer.fuzzing', the 'initial_seeds' must be a non-empty "
                             "list of [image, label].")
        rng = np.random.RandomState(seed)
        images = np.stack([np.asarray(s[0], np.float32) for s in initial_seeds])
        coverage.reset()
        acts, _ = coverage.run(images)
        self.coverage_history = [coverage.update(acts)]
        self.added_seeds = []
        # queue entries: image, label as given, class, original image, strategies, affine used
        queue = [(images[i], s[1], _class_of(s[1]), images[i], (), False)
                 for i, s in enumerate(initial_seeds)]
        found, total, wrong = [], 0, 0
        for it in range(max_iters):
            img, label, cls, origin, chain, affine_used = queue[it % len(queue)]
            mutants, metas = [], []
            for _ in range(mutate_num_per_seed):
                choices = [e for e in mutate_config
                           if not (affine_used and e["method"] in mut.AFFINE)]
                entry = choices[rng.randint(len(choices))]
                m = self._mutate(entry, img, cls, rng)
                mutants.append(np.clip(m, origin.min(), origin.max()).astype(np.float32))
                metas.append((chain + (entry["method"],),
                              affine_used or entry["method"] in mut.AFFINE))
            acts, outputs = coverage.run(np.stack(mutants))
            preds = outputs.argmax(1)
            for i, (new_chain, new_affine) in enumerate(metas):
                total += 1
                if preds[i] != cls:
                    wrong += 1
                    found.append((mutants[i], label, outputs[i], new_chain))
                before = self.coverage_history[-1]
                after = coverage.update(acts[i:i + 1])
                if after > before:
                    queue.append((mutants[i], label, cls, origin, new_chain, new_affine))
                    self.added_seeds.append(new_chain)
                self.coverage_history.append(after)
        samples = np.stack([f[0] for f in found]) if found else np.zeros((0,) + images.shape[1:],
                                                                          np.float32)
        report = None
        if evaluate:
            report = {"Accuracy": 1.0 - wrong / total, "Attack_success_rate": wrong / total,
                      "Coverage_metrics": {type(coverage).__name__: self.coverage_history[-1]}}
        return (samples, [f[1] for f in found], np.array([f[2] for f in found]),
                [list(f[3]) for f in found], report)

"""The binary classifiers a membership-inference attack trains, in numpy (MindArmour uses
scikit-learn, which mycel does not depend on): logistic regression ('lr'), k nearest
neighbours ('knn'), a multi-layer perceptron ('mlp'), a random forest ('rf', _forest.py) and
the loss threshold ('threshold').
Each has ``fit(x, y)`` and ``score(x)`` (the probability of membership, or a monotone score),
features standardised with the training statistics. ``grid_search`` picks the parameters of
an attack_config entry by k-fold cross-validated accuracy and refits on all the data, as
scikit-learn's GridSearchCV does ('rf': at most 7 grid points drawn at random, as
MindArmour's RandomizedSearchCV(n_iter=7))."""
import itertools

import numpy as np

from mycel.armour.privacy.evaluation._forest import RandomForest


class _Standardised:
    def _set_scale(self, x):
        self._mu = x.mean(0)
        self._sd = x.std(0) + 1e-12

    def _scale(self, x):
        return (x - self._mu) / self._sd

    def predict(self, x):
        return (self.score(x) >= 0.5).astype(np.int64)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))


class LogisticRegression(_Standardised):
    """L2-regularised logistic regression (C is the inverse regularisation strength, as
    scikit-learn's), fitted by Newton's method."""

    def __init__(self, C=1.0, max_iter=100):
        self.C, self.max_iter = float(C), int(max_iter)

    def fit(self, x, y):
        self._set_scale(x)
        a = np.hstack([self._scale(x), np.ones((len(x), 1))])
        w = np.zeros(a.shape[1])
        reg = np.eye(a.shape[1]) / self.C
        reg[-1, -1] = 0.0  # the intercept is not penalised
        for _ in range(self.max_iter):
            p = _sigmoid(a @ w)
            grad = a.T @ (p - y) + reg @ w
            hess = (a * (p * (1 - p))[:, None]).T @ a + reg + 1e-9 * np.eye(a.shape[1])
            step = np.linalg.solve(hess, grad)
            w -= step
            if np.abs(step).max() < 1e-8:
                break
        self._w = w
        return self

    def score(self, x):
        return _sigmoid(np.hstack([self._scale(x), np.ones((len(x), 1))]) @ self._w)


class KNeighbors(_Standardised):
    """k nearest neighbours (Euclidean on standardised features): the score is the fraction
    of members among the k nearest training points."""

    def __init__(self, n_neighbors=5):
        self.n_neighbors = int(n_neighbors)

    def fit(self, x, y):
        self._set_scale(x)
        self._x, self._y = self._scale(x), np.asarray(y, np.float64)
        return self

    def score(self, x):
        x = self._scale(x)
        k = min(self.n_neighbors, len(self._x))
        out = np.empty(len(x))
        for s in range(0, len(x), 1024):
            d = ((x[s:s + 1024, None, :] - self._x[None]) ** 2).sum(-1)
            idx = np.argpartition(d, k - 1, axis=1)[:, :k]
            out[s:s + 1024] = self._y[idx].mean(1)
        return out


class MLP(_Standardised):
    """A ReLU perceptron with a sigmoid output, trained full-batch by Adam on the L2-penalised
    log loss (alpha the penalty, as scikit-learn's MLPClassifier)."""

    def __init__(self, hidden_layer_sizes=(64,), alpha=1e-4, learning_rate_init=1e-2,
                 max_iter=300, random_state=0):
        self.hidden = tuple(hidden_layer_sizes)
        self.alpha, self.lr = float(alpha), float(learning_rate_init)
        self.max_iter, self.seed = int(max_iter), int(random_state)

    def _forward(self, x):
        acts = [x]
        layers = len(self._params) // 2
        for i in range(layers):
            z = acts[-1] @ self._params[2 * i] + self._params[2 * i + 1]
            acts.append(np.maximum(z, 0) if i < layers - 1 else z)
        return acts

    def fit(self, x, y):
        self._set_scale(x)
        x, y = self._scale(x), np.asarray(y, np.float64)
        rng = np.random.RandomState(self.seed)
        sizes = [x.shape[1], *self.hidden, 1]
        self._params = []  # w0, b0, w1, b1, ...
        for a, b in zip(sizes[:-1], sizes[1:]):
            self._params += [rng.randn(a, b) * np.sqrt(2.0 / a), np.zeros(b)]
        m = [np.zeros_like(p) for p in self._params]
        v = [np.zeros_like(p) for p in self._params]
        for t in range(1, self.max_iter + 1):
            acts = self._forward(x)
            delta = (_sigmoid(acts[-1][:, 0]) - y)[:, None] / len(x)
            grads = [None] * len(self._params)
            for i in range(len(self._params) // 2 - 1, -1, -1):
                w = self._params[2 * i]
                grads[2 * i] = acts[i].T @ delta + self.alpha * w / len(x)
                grads[2 * i + 1] = delta.sum(0)
                delta = (delta @ w.T) * (acts[i] > 0)
            for j, g in enumerate(grads):  # Adam
                m[j] = 0.9 * m[j] + 0.1 * g
                v[j] = 0.999 * v[j] + 0.001 * g * g
                self._params[j] = self._params[j] - self.lr * (m[j] / (1 - 0.9 ** t)) / (
                    np.sqrt(v[j] / (1 - 0.999 ** t)) + 1e-8)
        return self

    def score(self, x):
        return _sigmoid(self._forward(self._scale(x))[-1][:, 0])


class LossThreshold:
    """The loss threshold attack (Yeom et al. 2018): a sample is a member when its loss is at
    most a threshold, chosen to maximise the training accuracy. Uses the last feature column,
    which is the sample's loss; the score is the negative loss."""

    def fit(self, x, y):
        loss = x[:, -1]
        order = np.argsort(loss, kind="stable")
        ys = np.asarray(y)[order]
        # predicting member for the i smallest losses: correct = members among them + the
        # non-members among the rest
        members_first = np.concatenate([[0], np.cumsum(ys)])
        nonmembers_rest = (len(ys) - ys.sum()) - np.concatenate([[0], np.cumsum(1 - ys)])
        i = int(np.argmax(members_first + nonmembers_rest))
        sorted_loss = loss[order]
        if i == 0:
            self.threshold = -np.inf
        elif i == len(ys):
            self.threshold = np.inf
        else:
            self.threshold = 0.5 * (sorted_loss[i - 1] + sorted_loss[i])
        return self

    def score(self, x):
        return -x[:, -1]

    def predict(self, x):
        return (x[:, -1] <= self.threshold).astype(np.int64)


METHODS = {"lr": LogisticRegression, "knn": KNeighbors, "mlp": MLP, "rf": RandomForest,
           "threshold": LossThreshold}
_GRID_PARAMS = {"lr": {"C", "max_iter"}, "knn": {"n_neighbors"},
                "mlp": {"hidden_layer_sizes", "alpha", "learning_rate_init", "max_iter",
                        "random_state"},
                "rf": {"n_estimators", "criterion", "max_depth", "min_samples_split",
                       "min_samples_leaf", "max_features", "bootstrap", "random_state"},
                "threshold": set()}
_RANDOM_SEARCH = {"rf": 7}  # methods searched over this many random grid points at most


def check_config(attack_config):
    """ValueErrors unless attack_config is a non-empty list of {'method', 'params'} dicts
    with known methods and parameters whose values are lists."""
    if not isinstance(attack_config, (list, tuple)) or not attack_config:
        raise ValueError(f"For 'MembershipInference.train', the 'attack_config' must be a "
                         f"non-empty list of dicts, but got {attack_config!r}.")
    for entry in attack_config:
        if not isinstance(entry, dict) or set(entry) - {"method", "params"} or \
                "method" not in entry:
            raise ValueError(f"For 'MembershipInference.train', each attack_config entry must "
                             f"be a dict with keys 'method' and 'params', but got {entry!r}.")
        method = entry["method"]
        if method not in METHODS:
            raise ValueError(f"For 'MembershipInference.train', the method must be one of "
                             f"{sorted(METHODS)}, but got "
                             f"{method!r}.")
        params = entry.get("params", {}) or {}
        unknown = set(params) - _GRID_PARAMS[method]
        if unknown:
            raise ValueError(f"For 'MembershipInference.train', method {method!r} has no "
                             f"parameter(s) {sorted(unknown)}; known: "
                             f"{sorted(_GRID_PARAMS[method])}.")
        for name, values in params.items():
            if not isinstance(values, (list, tuple, np.ndarray)) or len(values) == 0:
                raise ValueError(f"For 'MembershipInference.train', the values of "
                                 f"{method}.{name} must be a non-empty list, but got "
                                 f"{values!r}.")


def grid_search(method, params, x, y, folds=3, seed=0):
    """The attack of `method` with the grid point of best mean k-fold accuracy, refitted on
    all of (x, y)."""
    cls = METHODS[method]
    names = sorted(params)
    grid = [dict(zip(names, vals)) for vals in itertools.product(*[params[n] for n in names])]
    draws = _RANDOM_SEARCH.get(method, len(grid))
    if len(grid) > draws:
        pick = np.random.RandomState(seed).choice(len(grid), draws, replace=False)
        grid = [grid[i] for i in sorted(pick)]
    if len(grid) > 1:
        idx = np.random.RandomState(seed).permutation(len(x))
        parts = np.array_split(idx, folds)
        best, best_acc = grid[0], -1.0
        for point in grid:
            acc = 0.0
            for f in range(folds):
                test = parts[f]
                train = np.concatenate([parts[g] for g in range(folds) if g != f])
                model = cls(**point).fit(x[train], y[train])
                acc += float((model.predict(x[test]) == y[test]).mean())
            if acc > best_acc:
                best, best_acc = point, acc
    else:
        best = grid[0]
    return cls(**best).fit(x, y)

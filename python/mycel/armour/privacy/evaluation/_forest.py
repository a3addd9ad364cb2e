"""The random-forest attack model of membership inference ('rf'), in numpy: MindArmour trains
scikit-learn's RandomForestClassifier (max_depth 2 unless its grid says otherwise), which
mycel does not depend on. Binary labels (member 1, non-member 0) only."""
import math

import numpy as np


def _count(value, n):
    """An int count, or a float share of n rounded up (scikit-learn's convention)."""
    if isinstance(value, float):
        return max(1, math.ceil(value * n))
    return int(value)


def _impurity(p, criterion):
    """Gini 2p(1 - p) or entropy (bits) of a node whose member share is p (arrays)."""
    if criterion == "gini":
        return 2.0 * p * (1.0 - p)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(p * np.log2(p) + (1 - p) * np.log2(1 - p))
    return np.nan_to_num(h)


class _Tree:
    """One CART tree, grown depth-first; nodes in flat arrays (feature -1 marks a leaf)."""

    def __init__(self, forest, rng):
        self._f, self._rng = forest, rng
        self.feature, self.threshold, self.left, self.right, self.value = [], [], [], [], []

    def _best_split(self, x, y, features, min_leaf):
        """(impurity of the children, feature, threshold) of the best split of (x, y) over
        `features` (thresholds halfway between consecutive distinct values, each child with
        at least min_leaf samples), or None."""
        n, best = len(y), None
        for f in features:
            order = np.argsort(x[:, f], kind="stable")
            xs, ys = x[order, f], y[order]
            n_left = np.arange(1, n)
            pos_left = np.cumsum(ys)[:-1]
            ok = (xs[1:] > xs[:-1]) & (n_left >= min_leaf) & (n - n_left >= min_leaf)
            if not ok.any():
                continue
            p_left = pos_left / n_left
            p_right = (ys.sum() - pos_left) / (n - n_left)
            child = (n_left * _impurity(p_left, self._f.criterion) +
                     (n - n_left) * _impurity(p_right, self._f.criterion)) / n
            child = np.where(ok, child, np.inf)
            i = int(np.argmin(child))
            if best is None or child[i] < best[0]:
                best = (float(child[i]), f, 0.5 * (xs[i] + xs[i + 1]))
        return best

    def grow(self, x, y, depth=0):
        """Adds the subtree of (x, y) and returns its root's index."""
        node = len(self.feature)
        for column in (self.feature, self.threshold, self.left, self.right):
            column.append(-1)
        p = float(y.mean())
        self.value.append(p)
        f = self._f
        n = len(y)
        if p in (0.0, 1.0) or (f.max_depth is not None and depth >= f.max_depth) or \
                n < _count(f.min_samples_split, n):
            return node
        varying = np.flatnonzero(x.max(0) > x.min(0))
        if len(varying) == 0:
            return node
        k = min(f.n_features_split(x.shape[1]), len(varying))
        features = self._rng.choice(varying, size=k, replace=False)
        split = self._best_split(x, y, features, _count(f.min_samples_leaf, n))
        if split is None or split[0] >= float(_impurity(np.float64(p), f.criterion)):
            return node
        _, feature, threshold = split
        go_left = x[:, feature] <= threshold
        self.feature[node], self.threshold[node] = int(feature), float(threshold)
        self.left[node] = self.grow(x[go_left], y[go_left], depth + 1)
        self.right[node] = self.grow(x[~go_left], y[~go_left], depth + 1)
        return node

    def freeze(self):
        self.feature = np.asarray(self.feature)
        self.threshold = np.asarray(self.threshold, np.float64)
        self.left, self.right = np.asarray(self.left), np.asarray(self.right)
        self.value = np.asarray(self.value, np.float64)
        return self

    def leaf_value(self, x):
        """The member share of the leaf each row of x reaches."""
        node = np.zeros(len(x), np.int64)
        rows = np.arange(len(x))
        while True:
            inner = self.feature[node] >= 0
            if not inner.any():
                return self.value[node]
            r, nd = rows[inner], node[inner]
            left = x[r, self.feature[nd]] <= self.threshold[nd]
            node[r] = np.where(left, self.left[nd], self.right[nd])


class RandomForest:
    """RandomForest(n_estimators=100, criterion='gini', max_depth=2, min_samples_split=2,
    min_samples_leaf=1, max_features='sqrt', bootstrap=True, random_state=0): Breiman's random
    forest of CART trees with scikit-learn's parameter meanings (max_depth 2 is MindArmour's
    default for this attack). Each tree is grown on a bootstrap resample of the data (all of
    it when bootstrap is False); at each node, max_features features ('sqrt', 'log2' or 'auto'
    = sqrt of the count, None = all, an int, or a float share) are drawn among those that vary
    there and the split minimising the children's weighted gini (or entropy) is taken if it
    lowers the impurity. A node stays a leaf when pure, at max_depth, or with fewer than
    min_samples_split samples; no child gets fewer than min_samples_leaf (counts, or floats as
    shares of the node's samples). ``score``: the mean over trees of the member share of the
    leaf reached."""

    def __init__(self, n_estimators=100, criterion="gini", max_depth=2, min_samples_split=2,
                 min_samples_leaf=1, max_features="sqrt", bootstrap=True, random_state=0):
        who = "MembershipInference 'rf'"
        if isinstance(n_estimators, bool) or not isinstance(n_estimators, int) or \
                n_estimators <= 0:
            raise ValueError(f"For {who}, 'n_estimators' must be a positive int, but got "
                             f"{n_estimators!r}.")
        if criterion not in ("gini", "entropy"):
            raise ValueError(f"For {who}, 'criterion' must be 'gini' or 'entropy', but got "
                             f"{criterion!r}.")
        if max_depth is not None and (not isinstance(max_depth, int) or max_depth <= 0):
            raise ValueError(f"For {who}, 'max_depth' must be None or a positive int, but got "
                             f"{max_depth!r}.")
        for name, value in (("min_samples_split", min_samples_split),
                            ("min_samples_leaf", min_samples_leaf)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"For {who}, '{name}' must be a positive int or float, but "
                                 f"got {value!r}.")
        if not (max_features in (None, "sqrt", "log2", "auto") or
                (isinstance(max_features, (int, float)) and not isinstance(max_features, bool)
                 and max_features > 0)):
            raise ValueError(f"For {who}, 'max_features' must be 'sqrt', 'log2', 'auto', None "
                             f"or a positive number, but got {max_features!r}.")
        self.n_estimators, self.criterion, self.max_depth = n_estimators, criterion, max_depth
        self.min_samples_split, self.min_samples_leaf = min_samples_split, min_samples_leaf
        self.max_features, self.bootstrap = max_features, bool(bootstrap)
        self.random_state = int(random_state)

    def n_features_split(self, n_features):
        """How many features each split draws."""
        m = self.max_features
        if m in ("sqrt", "auto"):
            return max(1, int(math.sqrt(n_features)))
        if m == "log2":
            return max(1, int(math.log2(n_features)))
        if m is None:
            return n_features
        if isinstance(m, float):
            return max(1, int(m * n_features))
        return min(int(m), n_features)

    def fit(self, x, y):
        x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
        rng = np.random.RandomState(self.random_state)
        self._trees = []
        for _ in range(self.n_estimators):
            rows = rng.randint(0, len(x), len(x)) if self.bootstrap else np.arange(len(x))
            tree = _Tree(self, rng)
            tree.grow(x[rows], y[rows])
            self._trees.append(tree.freeze())
        return self

    def score(self, x):
        x = np.asarray(x, np.float64)
        return np.mean([t.leaf_value(x) for t in self._trees], axis=0)

    def predict(self, x):
        return (self.score(x) > 0.5).astype(np.int64)

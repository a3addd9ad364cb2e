"""Membership inference (MindArmour's ``MembershipInference``): how much a trained model's
outputs reveal whether a sample was in its training set.

The attack features of a sample are the model's softmax probabilities sorted in decreasing
order (so they do not depend on the class) followed by the sample's cross-entropy loss;
samples of the training set are labelled members (1), samples of held-out data non-members
(0). ``train`` fits one attack classifier per attack_config entry on the target model's own
outputs (MindArmour's setting: the attacker knows some members and non-members; the target
model plays its own shadow model) or, with ``shadow_model``, on the outputs of a shadow model
the attacker trained on data of its own (Shokri et al. 2017); ``eval`` measures them on the
target's members and non-members.
"""
import numpy as np

from mycel.armour.privacy.evaluation._attackers import check_config, grid_search
from mycel.train.model import Model

_METRICS = ("precision", "recall", "accuracy", "auc")


def _batches(dataset, who):
    if hasattr(dataset, "create_tuple_iterator"):
        return dataset.create_tuple_iterator(num_epochs=1)
    if hasattr(dataset, "__iter__"):
        return iter(dataset)
    raise TypeError(f"For 'MembershipInference.{who}', a dataset must be a mycel Dataset or "
                    f"an iterable of (data, label) batches, but got {type(dataset).__name__}.")


def _log_softmax(logits):
    z = logits - logits.max(1, keepdims=True)
    return z - np.log(np.exp(z).sum(1, keepdims=True))


def roc_auc(labels, scores):
    """Area under the ROC curve of scores for binary labels (the Mann-Whitney statistic, ties
    counted one half)."""
    labels = np.asarray(labels).astype(bool)
    scores = np.asarray(scores, np.float64)
    pos, neg = labels.sum(), (~labels).sum()
    if pos == 0 or neg == 0:
        raise ValueError("roc_auc needs both members and non-members.")
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    # average ranks over ties
    bounds = np.flatnonzero(np.diff(sorted_scores)) + 1
    starts = np.concatenate([[0], bounds])
    ends = np.concatenate([bounds, [len(scores)]])
    for s, e in zip(starts, ends):
        ranks[order[s:e]] = 0.5 * (s + e - 1) + 1
    return float((ranks[labels].sum() - pos * (pos + 1) / 2) / (pos * neg))


def binary_metrics(labels, predicted, scores, metrics):
    """{metric: value} of the attack's predictions (precision and recall of 'member')."""
    labels, predicted = np.asarray(labels), np.asarray(predicted)
    tp = float(((predicted == 1) & (labels == 1)).sum())
    out = {}
    for m in metrics:
        if m == "precision":
            out[m] = tp / max(float((predicted == 1).sum()), 1.0)
        elif m == "recall":
            out[m] = tp / max(float((labels == 1).sum()), 1.0)
        elif m == "accuracy":
            out[m] = float((predicted == labels).mean())
        else:
            out[m] = roc_auc(labels, scores)
    return out


class MembershipInference:
    """MembershipInference(model, n_jobs=-1): membership-inference evaluation of a trained
    mycel ``Model`` (its predict network gives logits). n_jobs is checked as MindArmour's
    (-1 or a positive int) but the numpy attack models run in this process.

    ``train(dataset_train, dataset_test, attack_config)``: attack_config is a list of
    ``{"method": m, "params": {name: [values...]}}`` with m one of 'lr' (C, max_iter), 'knn'
    (n_neighbors), 'mlp' (hidden_layer_sizes, alpha, learning_rate_init, max_iter,
    random_state), 'rf' (n_estimators, criterion, max_depth, min_samples_split,
    min_samples_leaf, max_features, bootstrap, random_state) and 'threshold' (the loss
    threshold attack, no parameters); each grid is searched by 3-fold cross-validation ('rf':
    over at most 7 of its points, drawn at random, as MindArmour). ``eval(dataset_train, dataset_test, metrics)`` returns
    one dict per trained attack with the metrics asked for among 'precision', 'recall',
    'accuracy' and 'auc'."""

    def __init__(self, model, n_jobs=-1):
        if not isinstance(model, Model):
            raise TypeError(f"For 'MembershipInference', the 'model' must be a mycel Model, "
                            f"but got {type(model).__name__}.")
        if isinstance(n_jobs, bool) or not isinstance(n_jobs, int) or \
                (n_jobs != -1 and n_jobs <= 0):
            raise ValueError(f"For 'MembershipInference', the 'n_jobs' must be -1 or a "
                             f"positive int, but got {n_jobs!r}.")
        self._model = model
        self._n_jobs = n_jobs
        self._attacks = []

    @property
    def attacks(self):
        """The trained attacks as (method, fitted classifier) pairs."""
        return list(self._attacks)

    def features(self, dataset, who="train", model=None):
        """The attack features of every sample of dataset under `model` (default: the
        evaluated model): [n, num_classes + 1]."""
        model = self._model if model is None else model
        rows = []
        for data, label in _batches(dataset, who):
            logits = model.predict(data).asnumpy().astype(np.float64)
            if logits.ndim != 2:
                raise ValueError(f"For 'MembershipInference.{who}', the model must output "
                                 f"logits of shape [batch, classes], but got "
                                 f"{logits.shape}.")
            logp = _log_softmax(logits)
            y = np.asarray(label.asnumpy() if hasattr(label, "asnumpy") else label).astype(
                np.int64).reshape(-1)
            if y.shape[0] != logits.shape[0] or y.min() < 0 or y.max() >= logits.shape[1]:
                raise ValueError(f"For 'MembershipInference.{who}', labels must be class "
                                 f"indices in [0, {logits.shape[1]}) one per sample, but got "
                                 f"shape {y.shape} for {logits.shape[0]} samples.")
            probs = -np.sort(-np.exp(logp), axis=1)
            loss = -logp[np.arange(len(y)), y]
            rows.append(np.hstack([probs, loss[:, None]]))
        if not rows:
            raise ValueError(f"For 'MembershipInference.{who}', a dataset is empty.")
        return np.vstack(rows)

    def _labelled(self, dataset_train, dataset_test, who, model=None):
        members = self.features(dataset_train, who, model)
        others = self.features(dataset_test, who, model)
        x = np.vstack([members, others])
        y = np.concatenate([np.ones(len(members)), np.zeros(len(others))])
        return x, y

    def train(self, dataset_train, dataset_test, attack_config, shadow_model=None):
        """Fits the attacks of attack_config on members (dataset_train) and non-members
        (dataset_test) of the evaluated model, or, given a shadow_model (a mycel Model
        trained like the target on data of the same distribution: mycel's addition, Shokri et
        al.'s shadow-model attack), on the shadow's members (its training data, as
        dataset_train) and non-members (dataset_test); ``eval`` then applies the attacks to
        the evaluated model's outputs."""
        check_config(attack_config)
        if shadow_model is not None and not isinstance(shadow_model, Model):
            raise TypeError(f"For 'MembershipInference.train', the 'shadow_model' must be a "
                            f"mycel Model or None, but got {type(shadow_model).__name__}.")
        x, y = self._labelled(dataset_train, dataset_test, "train", shadow_model)
        self._attacks = [(entry["method"], grid_search(entry["method"],
                                                       entry.get("params") or {}, x, y))
                         for entry in attack_config]

    def eval(self, dataset_train, dataset_test, metrics=("precision", "accuracy", "recall")):
        """One {metric: value} dict per trained attack, on members (dataset_train) and
        non-members (dataset_test)."""
        if not self._attacks:
            raise ValueError("For 'MembershipInference.eval', call train first.")
        metrics = tuple(metrics)
        bad = [m for m in metrics if m not in _METRICS]
        if not metrics or bad:
            raise ValueError(f"For 'MembershipInference.eval', the metrics must be among "
                             f"{list(_METRICS)}, but got {list(metrics)!r}.")
        x, y = self._labelled(dataset_train, dataset_test, "eval")
        return [binary_metrics(y, attack.predict(x), attack.score(x), metrics)
                for _, attack in self._attacks]

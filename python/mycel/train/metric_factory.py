"""Metrics by name (MindSpore's ``get_metric_fn`` and the names ``Model(metrics={...})``
accepts): each metric class of ``metrics.py``, ``metrics_classify.py`` and
``metrics_surface.py`` under its snake-case name, with MindSpore's aliases ('acc', 'F1', 'top_1_accuracy', 'top_5_accuracy'); an unknown name is a
KeyError, as in MindSpore."""
from mycel.train.metrics import (Metric, Accuracy, Loss, MAE, MSE, TopKCategoricalAccuracy,
                                 Top1CategoricalAccuracy, Top5CategoricalAccuracy)
from mycel.train.metrics_classify import (Precision, Recall, Fbeta, F1, ConfusionMatrix,
                                          ConfusionMatrixMetric, ROC, Perplexity, Dice,
                                          BleuScore, CosineSimilarity)
from mycel.train.metrics_surface import (HausdorffDistance, MeanSurfaceDistance,
                                         RootMeanSquareDistance, OcclusionSensitivity)

_NAMES = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE,
          "topk": TopKCategoricalAccuracy,
          "top_1_categorical_accuracy": Top1CategoricalAccuracy,
          "top_5_categorical_accuracy": Top5CategoricalAccuracy,
          "top_1_accuracy": Top1CategoricalAccuracy, "top_5_accuracy": Top5CategoricalAccuracy,
          "precision": Precision, "recall": Recall, "F1": F1, "fbeta": Fbeta,
          "confusion_matrix": ConfusionMatrix, "confusion_matrix_metric": ConfusionMatrixMetric,
          "roc": ROC, "perplexity": Perplexity, "dice": Dice, "bleu_score": BleuScore,
          "cosine_similarity": CosineSimilarity, "hausdorff_distance": HausdorffDistance,
          "mean_surface_distance": MeanSurfaceDistance,
          "root_mean_square_distance": RootMeanSquareDistance,
          "occlusion_sensitivity": OcclusionSensitivity}


def names():
    """The metric names get_metric_fn knows, sorted."""
    return sorted(_NAMES)


def get_metric_fn(name, *args, **kwargs):
    """A new metric object of the given name, made with args and kwargs
    (get_metric_fn('precision', eval_type='classification'))."""
    if name not in _NAMES:
        raise KeyError(f"For 'get_metric_fn', unknown metric {name!r}; known: {names()}.")
    return _NAMES[name](*args, **kwargs)


def get_metrics(metrics):
    """{name: Metric} from a set/list of names or a dict of Metric objects (Model's argument)."""
    if metrics is None:
        return {}
    if isinstance(metrics, dict):
        for k, m in metrics.items():
            if not isinstance(m, Metric):
                raise TypeError(f"For 'Model', the metric '{k}' must be a Metric, but got "
                                f"{type(m).__name__}.")
        return dict(metrics)
    if isinstance(metrics, set):  # MindSpore takes a dict or a set only
        out = {}
        for n in metrics:
            if n not in _NAMES:
                raise KeyError(f"For 'Model', unknown metric name {n!r} (MindSpore's KeyError); "
                               f"known: {names()}.")
            out[n] = _NAMES[n]()
        return out
    raise TypeError(f"For 'Model', the 'metrics' must be a dict or a set of names (a list or "
                    f"tuple is refused, as in MindSpore), but got "
                    f"{type(metrics).__name__}.")

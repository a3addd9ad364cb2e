"""The black-box model interface (MindArmour's ``BlackModel``) and the query bookkeeping the
black-box attacks share: they see a model only through ``predict``."""
import numpy as np

from mycel.armour.adv_robustness._util import check_type, softmax


class BlackModel:
    """A model known only by its predictions. Subclasses implement ``predict(inputs)``:
    a numpy batch [N, ...] in, scores [N, C] out (probabilities or logits)."""

    def predict(self, inputs):
        """Scores [N, C] for inputs [N, ...]."""
        raise NotImplementedError(f"{type(self).__name__}.predict is not implemented.")

    def is_adversarial(self, data, label, is_targeted):
        """Whether the single sample data [...] is classified as label (targeted) or as
        anything but label (untargeted)."""
        pred = int(np.argmax(self.predict(np.expand_dims(data, 0))[0]))
        return pred == label if is_targeted else pred != label


class QueryCounter:
    """Calls model.predict and counts the samples queried; scores are turned into
    probabilities (softmax) unless every row already is a distribution."""

    def __init__(self, who, model):
        self._who = who
        self.model = check_type(who, "model", model, BlackModel)
        self.count = 0

    def probs(self, batch):
        """Class probabilities [N, C] of the numpy batch, one query per sample."""
        out = np.asarray(self.model.predict(batch), np.float64)
        if out.ndim != 2 or out.shape[0] != batch.shape[0]:
            raise ValueError(f"For '{self._who}', the model's predict must return [N, C] "
                             f"scores for {batch.shape[0]} inputs, but got shape {out.shape}.")
        self.count += batch.shape[0]
        if (out >= 0).all() and np.allclose(out.sum(axis=1), 1.0, atol=1e-3):
            return out
        return softmax(out)

    def labels(self, batch):
        """Predicted classes [N] of the batch."""
        return self.probs(batch).argmax(axis=1)


def attack_each(counter, inputs, labels, attack_one):
    """Runs attack_one(index, x, label, rng) -> (success, adversarial x) on every sample
    with one generator seeded from numpy's global one; returns (success [N] bool,
    adversarial examples [N, ...], queries [N]) counted by counter."""
    rng = np.random.default_rng(np.random.randint(2 ** 31))
    success, adv, queries = [], [], []
    for i, (x, label) in enumerate(zip(inputs, labels)):
        start = counter.count
        ok, a = attack_one(i, x, label, rng)
        success.append(ok)
        adv.append(a)
        queries.append(counter.count - start)
    return np.array(success, bool), np.stack(adv), np.array(queries)

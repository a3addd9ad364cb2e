"""PaddedDataset: rows given as dicts, to pad a data set before sharding it, MindSpore's way of
giving every shard the same number of rows: ``(data + PaddedDataset(fillers)).use_sampler(
DistributedSampler(n, i, shuffle=False))`` (ConcatDataset.use_sampler, engine.py, says how a
concatenation is sharded).
"""
from mycel.dataset.sources import GeneratorDataset


class _PaddedSource:
    """The random-access source behind PaddedDataset: row i is padded_samples[i]'s values in
    the column order of the first sample."""

    def __init__(self, samples, names):
        self._samples, self._names = samples, names

    def __getitem__(self, i):
        return tuple(self._samples[i][k] for k in self._names)

    def __len__(self):
        return len(self._samples)


class PaddedDataset(GeneratorDataset):
    """PaddedDataset(padded_samples): a data set whose rows are the dicts of padded_samples
    ({column name: array}), in order (never shuffled). The columns are the first dict's keys;
    every dict must have exactly those keys. Used to pad another data set before a sharded
    concatenation (module doc).

    Raises ValueError for an empty list or dicts with different keys, TypeError when
    padded_samples is not a list of dicts."""

    def __init__(self, padded_samples):
        func = "PaddedDataset"
        if isinstance(padded_samples, list) and not padded_samples:
            raise ValueError(f"{func}: padded_samples cannot be empty.")
        if not isinstance(padded_samples, list):
            raise TypeError(f"{func}: Argument padded_samples with value {padded_samples!r} is "
                            f"not of type [<class 'list'>], but got {type(padded_samples)}.")
        for i, s in enumerate(padded_samples):
            if not isinstance(s, dict):
                raise TypeError(f"{func}: Argument padded_element with value {s!r} is not of "
                                f"type [<class 'dict'>], but got {type(s)} (padded_samples[{i}]).")
        names = [str(k) for k in padded_samples[0]]
        if not names:
            raise ValueError(f"{func}: padded_samples[0] has no columns.")
        for i, s in enumerate(padded_samples):
            if sorted(map(str, s)) != sorted(names):
                raise ValueError(f"{func}: padded_samples[{i}] has the columns {list(s)}, but "
                                 f"padded_samples[0] has {names}.")
        self.padded_samples = padded_samples
        super().__init__(_PaddedSource(padded_samples, names), column_names=names,
                         shuffle=False)

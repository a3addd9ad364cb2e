"""Text transforms, MindSpore's ``mindspore.dataset.text``: ``PythonTokenizer``, ``Vocab`` and
``Lookup``.

Text samples are numpy arrays of ``str`` (a 0-d array per sentence, a 1-d array of tokens);
the iterators hand string columns out as such arrays (mycel Tensors hold numbers only). These
transforms are Python callables that ``map`` runs as it runs any Python function.
"""
import collections

import numpy as np

import mycel
from mycel.dataset._validate import check_int


def _strings(who, x):
    """A sample as a numpy array of str (bytes are decoded as UTF-8)."""
    a = x if isinstance(x, np.ndarray) else np.asarray(x)
    if a.dtype.kind == "S":
        a = np.char.decode(a, "utf-8")
    if a.dtype.kind != "U":
        raise TypeError(f"{who}: the input must be a string (or an array of strings), but got "
                        f"dtype {a.dtype}.")
    return a


class PythonTokenizer:
    """PythonTokenizer(tokenizer): split each string by ``tokenizer(str) -> list of str``;
    the result is a 1-d array of the tokens."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError(f"PythonTokenizer: tokenizer must be callable, but got "
                            f"{type(tokenizer).__name__}.")
        self.tokenizer = tokenizer

    def __call__(self, in_array):
        a = _strings("PythonTokenizer", in_array)
        if a.ndim != 0:
            raise ValueError(f"PythonTokenizer: the input must be one string (a 0-d array), but "
                             f"got shape {a.shape}.")
        tokens = self.tokenizer(str(a))
        if not isinstance(tokens, (list, tuple, np.ndarray)) or \
                not all(isinstance(t, (str, np.str_)) for t in tokens):
            raise TypeError("PythonTokenizer: the tokenizer must return a list of str, but got "
                            f"{tokens!r}.")
        return np.array([str(t) for t in tokens], dtype=np.str_)


class Vocab:
    """A vocabulary: words and their ids. Build it with ``Vocab.from_dataset``,
    ``Vocab.from_list`` or ``Vocab.from_dict``; ``vocab()`` is the ``{word: id}`` dict."""

    def __init__(self, word_ids=None):
        self._ids = dict(word_ids or {})
        self._words = {i: w for w, i in self._ids.items()}

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None,
                     special_tokens=None, special_first=True):
        """The words of ``columns`` (default: every column) of one epoch of ``dataset``, most
        frequent first, ties in the words' order (MindSpore's rule). ``freq_range=(min, max)``
        keeps the words seen that many times (inclusive); ``top_k`` keeps the first k after
        that; ``special_tokens`` take the first ids (``special_first``) or the last."""
        who = "Vocab.from_dataset"
        if isinstance(columns, str):
            columns = [columns]
        for i, c in enumerate(columns or []):
            if not isinstance(c, str):
                raise TypeError(f"{who}: Argument col[{i}] with value {c} is not of type "
                                "[<class 'str'>].")
        if freq_range is not None and (not isinstance(freq_range, tuple) or len(freq_range) != 2):
            raise ValueError(f"{who}: freq_range needs to be a tuple of 2 element.")
        if top_k is not None:
            if isinstance(top_k, bool) or not isinstance(top_k, int):
                raise TypeError(f"{who}: Argument top_k with value {top_k} is not of type "
                                "[<class 'int'>, <class 'NoneType'>].")
            if top_k <= 0:
                raise ValueError(f"{who}: top_k must be greater than 0, but got {top_k}.")
        counts = collections.Counter()
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            names = columns if columns is not None else list(row)
            for name in names:
                if name not in row:
                    raise ValueError(f"Vocab.from_dataset: column {name!r} is not in the dataset "
                                     f"(columns: {list(row)}).")
                counts.update(str(w) for w in _strings("Vocab.from_dataset",
                                                       row[name]).reshape(-1))
        lo, hi = (None, None) if freq_range is None else freq_range
        lo = 0 if lo is None else lo
        for v in (lo, hi):
            if v is not None:
                check_int("Vocab.from_dataset", "freq_range", v, 0)
        if hi is not None and lo > hi:
            raise ValueError("Vocab.from_dataset: frequency range [a,b] should be 0 <= a <= b "
                             f"(a,b are inclusive), but got {freq_range}.")
        words = sorted((w for w, c in counts.items()
                        if c >= lo and (hi is None or c <= hi)), key=lambda w: (-counts[w], w))
        if top_k is not None:
            words = words[:top_k]
        return cls._with_specials("Vocab.from_dataset", words, special_tokens, special_first)

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in the list's order (``special_tokens`` first or last); words must be unique."""
        return cls._with_specials("Vocab.from_list", [str(w) for w in word_list],
                                  special_tokens, special_first)

    @classmethod
    def from_dict(cls, word_dict):
        """The given ``{word: id}``; ids must be non-negative ints."""
        for w, i in word_dict.items():
            check_int("Vocab.from_dict", f"the id of {w!r}", i, 0)
        return cls({str(w): int(i) for w, i in word_dict.items()})

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None,
                  special_first=True):
        """The words of a file, one per line (the part before ``delimiter`` when it is not
        empty), ids in file order; ``vocab_size`` keeps the first that many words;
        ``special_tokens`` as from_list."""
        who = "Vocab.from_file"
        if not isinstance(file_path, str):
            raise TypeError(f"{who}: file_path must be a str, but got {type(file_path).__name__}.")
        if vocab_size is not None:
            if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
                raise TypeError(f"{who}: vocab_size must be an int, but got {vocab_size!r}.")
            if vocab_size <= 0:
                raise ValueError(f"{who}: Input vocab_size must be greater than 0, but got "
                                 f"{vocab_size}.")
        words = []
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                line = line.rstrip("\r\n")
                word = line.split(delimiter, 1)[0] if delimiter else line
                word = word.strip()
                if word:
                    words.append(word)
        if vocab_size is not None:
            words = words[:vocab_size]
        return cls._with_specials(who, words, special_tokens, special_first)

    @classmethod
    def _with_specials(cls, who, words, special_tokens, special_first):
        specials = [str(s) for s in (special_tokens or [])]
        for name, seq in (("word_list", words), ("special_tokens", specials)):
            dup = [w for w, c in collections.Counter(seq).items() if c > 1]
            if dup:
                raise ValueError(f"{who}: {name} contains duplicate word: {dup[0]!r}.")
        both = set(words) & set(specials)
        if both:
            raise ValueError(f"{who}: special_tokens and word_list contain duplicate word: "
                             f"{sorted(both)[0]!r}.")
        ordered = specials + words if special_first else words + specials
        return cls({w: i for i, w in enumerate(ordered)})

    def vocab(self):
        """The ``{word: id}`` dict."""
        return dict(self._ids)

    def _check_built(self, who):
        if not self._ids:
            raise RuntimeError(f"Vocab.{who}: the vocab is empty; build it with from_list, "
                               "from_dict, from_file or from_dataset.")

    def tokens_to_ids(self, tokens):
        """The id of a word, or a list of ids for a list of words (-1 for an unknown word)."""
        self._check_built("tokens_to_ids")
        if isinstance(tokens, np.ndarray):
            tokens = str(tokens) if tokens.ndim == 0 else tokens.tolist()
        if isinstance(tokens, (str, np.str_)):
            return self._ids.get(str(tokens), -1)
        if not isinstance(tokens, (list, tuple)) or \
                not all(isinstance(t, (str, np.str_)) for t in tokens):
            raise TypeError(f"Vocab.tokens_to_ids: tokens must be a str or a list of str, but "
                            f"got {tokens!r}.")
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """The word of an id, or a list of words for a list of ids ('' for an unknown id)."""
        self._check_built("ids_to_tokens")
        if isinstance(ids, np.ndarray):
            ids = int(ids) if ids.ndim == 0 else ids.tolist()
        single = isinstance(ids, (int, np.integer))
        seq = [ids] if single else ids
        if not isinstance(seq, (list, tuple)) or not all(
                isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in seq):
            raise TypeError(f"Vocab.ids_to_tokens: ids must be an int or a list of int, but got "
                            f"{ids!r}.")
        if any(i < 0 for i in seq):
            raise ValueError(f"Vocab.ids_to_tokens: ids must be non-negative, but got {ids!r}.")
        words = [self._words.get(int(i), "") for i in seq]
        return words[0] if single else words


class Lookup:
    """Lookup(vocab, unknown_token=None, data_type=mycel.int32): each word's id in ``vocab``;
    a word not in it takes ``unknown_token``'s id, or is a ValueError without one."""

    def __init__(self, vocab, unknown_token=None, data_type=mycel.int32):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, but got "
                            f"{type(vocab).__name__}.")
        if not isinstance(data_type, mycel.DType):
            raise TypeError(f"Lookup: data_type must be a mycel dtype, but got {data_type!r}.")
        if data_type == mycel.bfloat16 or np.dtype(data_type.name).kind not in "biuf":
            raise TypeError("Lookup : The parameter data_type must be numeric including bool, "
                            f"but got {data_type!r}.")
        self._ids = vocab.vocab()
        self._unknown = None
        if unknown_token is not None:
            if not isinstance(unknown_token, str):
                raise TypeError(f"Lookup: Argument unknown_token with value {unknown_token!r} is "
                                f"not of type [<class 'str'>], but got {type(unknown_token)}.")
            if unknown_token not in self._ids:
                raise ValueError(f"Lookup: unknown_token: \"{unknown_token}\" doesn't exist in "
                                 "vocab.")
            self._unknown = self._ids[unknown_token]
        self._dtype = np.dtype(data_type.name)

    def __call__(self, in_array):
        a = _strings("Lookup", in_array)
        out = np.empty(a.shape, self._dtype)
        for idx, w in np.ndenumerate(a):
            i = self._ids.get(str(w), self._unknown)
            if i is None:
                raise RuntimeError(f"Lookup: token: \"{w}\" doesn't exist in vocab and no "
                                   "unknown token is specified.")
            out[idx] = i
        return out


__all__ = ["PythonTokenizer", "Vocab", "Lookup"]

# Tokenizers, string maps and token-array transforms (text_ops.py) and the word vectors
# (text_vectors.py) import this module: mycel.dataset attaches their names here
# (dataset/__init__.py), so no import cycle. MindSpore's text.utils (NormalizeForm, to_str,
# to_bytes, Vocab) is this module itself.
import sys as _sys  # noqa: E402

utils = _sys.modules[__name__]
_sys.modules.setdefault(__name__ + ".utils", utils)

"""More of MindSpore's ``mindspore.dataset.text``: tokenizers and string maps run by the C++
engine (src/data/transforms_text.cc, on ICU), and array transforms on token lists written
here in numpy (SlidingWindow, Ngram, Truncate, TruncateSequencePair, AddToken, ToNumber).
``text.py`` re-exports every name; ``text.utils`` holds NormalizeForm, to_str and to_bytes.

Tokenizers take one string (a 0-d str array) and give a 1-d str array of tokens; with
``with_offsets=True`` they give three columns (tokens, offsets_start, offsets_limit: uint32
byte offsets into the UTF-8 string), so a map names three output_columns. A string without
tokens gives [""].
"""
import enum
import re

import numpy as np

from mycel import _mycel
from mycel.dataset._validate import _ms_type, check_bool, check_int
from mycel.dataset.transforms import TensorOperation

_data = _mycel._data


def _check_str(func, name, value):
    if not isinstance(value, str):
        raise TypeError(f"{func}: {_ms_type(name, value, str)}")
    return value


class NormalizeForm(enum.IntEnum):
    """Unicode normalization forms of NormalizeUTF8."""
    NONE = 0
    NFC = 1
    NFKC = 2
    NFD = 3
    NFKD = 4


def to_str(array, encoding="utf8"):
    """A numpy array of bytes as an array of str (decoded with `encoding`)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"to_str: the input must be a numpy array, but got "
                        f"{type(array).__name__}.")
    return np.char.decode(array, encoding) if array.dtype.kind == "S" else array


def to_bytes(array, encoding="utf8"):
    """A numpy array of str as an array of bytes (encoded with `encoding`)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"to_bytes: the input must be a numpy array, but got "
                        f"{type(array).__name__}.")
    return np.char.encode(array, encoding) if array.dtype.kind == "U" else array


# ----- C++ transforms -----

def _refuse_bytes(func, a):
    """MindSpore's text ops take str, not bytes (decode first, or use text.to_str)."""
    if isinstance(a, (bytes, bytearray)) or (isinstance(a, np.ndarray) and a.dtype.kind == "S"):
        raise RuntimeError(f"{func}: the input type should be string, but got bytes; decode it "
                           "(text.to_str) first.")


class _TextOp(TensorOperation):
    def __call__(self, *inputs):
        for x in inputs:
            _refuse_bytes(type(self).__name__, x)
        inputs = tuple(x if isinstance(x, np.ndarray) else np.asarray(x) for x in inputs)
        return super().__call__(*inputs)


class UnicodeCharTokenizer(_TextOp):
    """UnicodeCharTokenizer(with_offsets=False): each Unicode character a token."""

    def __init__(self, with_offsets=False):
        self.with_offsets = check_bool("UnicodeCharTokenizer", "with_offsets", with_offsets)
        self._op = _data.UnicodeCharTokenizer(self.with_offsets)


class WhitespaceTokenizer(_TextOp):
    """WhitespaceTokenizer(with_offsets=False): tokens are the runs between Unicode
    whitespace."""

    def __init__(self, with_offsets=False):
        self.with_offsets = check_bool("WhitespaceTokenizer", "with_offsets", with_offsets)
        self._op = _data.WhitespaceTokenizer(self.with_offsets)


class UnicodeScriptTokenizer(_TextOp):
    """UnicodeScriptTokenizer(keep_whitespace=False, with_offsets=False): tokens are the runs
    of one Unicode script (Latin, Han, Common punctuation, ...); whitespace runs are tokens
    when keep_whitespace."""

    def __init__(self, keep_whitespace=False, with_offsets=False):
        func = "UnicodeScriptTokenizer"
        self.keep_whitespace = check_bool(func, "keep_whitespace", keep_whitespace)
        self.with_offsets = check_bool(func, "with_offsets", with_offsets)
        self._op = _data.UnicodeScriptTokenizer(self.keep_whitespace, self.with_offsets)


class RegexTokenizer(_TextOp):
    """RegexTokenizer(delim_pattern, keep_delim_pattern='', with_offsets=False): split at the
    matches of delim_pattern (ICU regular expressions: \\p{Han}, \\s, ...); a delimiter that
    matches keep_delim_pattern is kept as a token."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        func = "RegexTokenizer"
        self.delim_pattern = _check_str(func, "delim_pattern", delim_pattern)
        self.keep_delim_pattern = _check_str(func, "keep_delim_pattern", keep_delim_pattern)
        self.with_offsets = check_bool(func, "with_offsets", with_offsets)
        self._op = _data.RegexTokenizer(delim_pattern, keep_delim_pattern, self.with_offsets)


class CaseFold(_TextOp):
    """CaseFold(): Unicode case folding of every string (a caseless form, lower case for most
    scripts)."""

    def __init__(self):
        self._op = _data.CaseFold()


class NormalizeUTF8(_TextOp):
    """NormalizeUTF8(normalize_form=NormalizeForm.NFKC): Unicode normalization of every
    string."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        if not isinstance(normalize_form, NormalizeForm):
            why = _ms_type("normalize_form", normalize_form, NormalizeForm)
            raise TypeError(f"NormalizeUTF8: {why}")
        self.normalize_form = normalize_form
        self._op = _data.NormalizeUTF8(normalize_form.name)


class RegexReplace(_TextOp):
    """RegexReplace(pattern, replace, replace_all=True): replace the matches of pattern (ICU
    regular expression) in every string by replace (all, or the first)."""

    def __init__(self, pattern, replace, replace_all=True):
        func = "RegexReplace"
        self.pattern = _check_str(func, "pattern", pattern)
        self.replace = _check_str(func, "replace", replace)
        self.replace_all = check_bool(func, "replace_all", replace_all)
        self._op = _data.RegexReplace(pattern, replace, self.replace_all)


def _vocab_words(func, vocab):
    from mycel.dataset.text import Vocab
    if not isinstance(vocab, Vocab):
        raise TypeError(f"{func}: vocab must be a text.Vocab, but got {type(vocab).__name__}.")
    return list(vocab.vocab())


def _wordpiece_args(func, suffix_indicator, max_bytes_per_token, unknown_token):
    return (_check_str(func, "suffix_indicator", suffix_indicator),
            check_int(func, "max_bytes_per_token", max_bytes_per_token, 0, 2**31 - 1),
            _check_str(func, "unknown_token", unknown_token))


def _form(func, normalization_form):
    if not isinstance(normalization_form, NormalizeForm):
        why = _ms_type("normalization_form", normalization_form, NormalizeForm)
        raise TypeError(f"{func}: {why}")
    return normalization_form.name


class WordpieceTokenizer(_TextOp):
    """WordpieceTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100,
    unknown_token='[UNK]', with_offsets=False): split each token (a string or a 1-d array of
    tokens) into the longest pieces in vocab, greedily from the left; pieces after the first
    carry suffix_indicator. A token that cannot be split, or longer than max_bytes_per_token
    bytes, becomes unknown_token (the token itself when unknown_token is '')."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", with_offsets=False):
        func = "WordpieceTokenizer"
        self.vocab = vocab
        self.with_offsets = check_bool(func, "with_offsets", with_offsets)
        self._op = _data.WordpieceTokenizer(
            _vocab_words(func, vocab),
            *_wordpiece_args(func, suffix_indicator, max_bytes_per_token, unknown_token),
            self.with_offsets)


class BasicTokenizer(_TextOp):
    """BasicTokenizer(lower_case=False, keep_whitespace=False,
    normalization_form=NormalizeForm.NONE, preserve_unused_token=True, with_offsets=False):
    BERT's basic tokenization: lower_case case-folds, decomposes (NFD) and drops accents (else
    normalization_form applies); control characters become spaces; the text is split at
    whitespace (kept as tokens when keep_whitespace), punctuation, symbols and CJK ideographs
    (each its own token). preserve_unused_token keeps [CLS], [SEP], [UNK], [PAD], [MASK] and
    [unusedN] whole. Offsets are into the normalized text."""

    def __init__(self, lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        func = "BasicTokenizer"
        args = [check_bool(func, n, v) for n, v in (("lower_case", lower_case),
                                                     ("keep_whitespace", keep_whitespace))]
        self._op = _data.BasicTokenizer(
            *args, _form(func, normalization_form),
            check_bool(func, "preserve_unused_token", preserve_unused_token),
            check_bool(func, "with_offsets", with_offsets))


class BertTokenizer(_TextOp):
    """BertTokenizer(vocab, suffix_indicator='##', max_bytes_per_token=100,
    unknown_token='[UNK]', lower_case=False, keep_whitespace=False,
    normalization_form=NormalizeForm.NONE, preserve_unused_token=True, with_offsets=False):
    BasicTokenizer, then WordpieceTokenizer on each of its tokens; offsets are into the
    normalized text."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100,
                 unknown_token="[UNK]", lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        func = "BertTokenizer"
        self.vocab = vocab
        self._op = _data.BertTokenizer(
            _vocab_words(func, vocab),
            *_wordpiece_args(func, suffix_indicator, max_bytes_per_token, unknown_token),
            check_bool(func, "lower_case", lower_case),
            check_bool(func, "keep_whitespace", keep_whitespace),
            _form(func, normalization_form),
            check_bool(func, "preserve_unused_token", preserve_unused_token),
            check_bool(func, "with_offsets", with_offsets))


class JiebaMode(enum.IntEnum):
    """JiebaTokenizer's segmentation modes."""
    MIX = 0
    MP = 1
    HMM = 2


class JiebaTokenizer(_TextOp):
    """JiebaTokenizer(hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False): Chinese word
    segmentation by Jieba's algorithm (src/data/transforms_jieba.h): MP takes the
    maximum-probability route through the dictionary's word DAG (mp_path: lines "word freq"),
    HMM labels characters with the B/E/M/S model of hmm_path by Viterbi, MIX re-cuts MP's runs
    of single characters with the HMM. add_word / add_dict add user words before use."""

    def __init__(self, hmm_path, mp_path, mode=JiebaMode.MIX, with_offsets=False):
        func = "JiebaTokenizer"
        import os
        for name, path in (("hmm_path", hmm_path), ("mp_path", mp_path)):
            _check_str(func, name, path)
            if not os.path.isfile(path):
                raise ValueError(f"{func}: the file {path} does not exist or permission denied.")
        if not isinstance(mode, JiebaMode):
            raise TypeError(f"{func}: {_ms_type('mode', mode, JiebaMode)}")
        self.hmm_path, self.mp_path, self.mode = hmm_path, mp_path, mode
        self.with_offsets = check_bool(func, "with_offsets", with_offsets)
        self.words = []
        self._built = None

    @property
    def _op(self):
        """The C++ transform, built (and the dictionary loaded) at first use."""
        if self._built is None:
            self._built = _data.JiebaTokenizer(self.hmm_path, self.mp_path, self.mode.name,
                                               self.with_offsets, self.words)
        return self._built

    def add_word(self, word, freq=None):
        """Add a user word, with a frequency (an int >= 0) or the default weight."""
        _check_str("JiebaTokenizer.add_word", "word", word)
        if freq is not None:
            check_int("JiebaTokenizer.add_word", "freq", freq, 0)
        self.words.append((word, -1.0 if freq is None else float(freq)))
        self._built = None

    def add_dict(self, user_dict):
        """Add user words: a {word: freq} dict, or a file path of lines "word [freq]"."""
        if isinstance(user_dict, dict):
            for w, f in user_dict.items():
                self.add_word(w, f)
            return
        _check_str("JiebaTokenizer.add_dict", "user_dict", user_dict)
        with open(user_dict, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                parts = line.split()
                if not parts:
                    continue
                if len(parts) > 2 or (len(parts) == 2 and not parts[1].isdigit()):
                    raise ValueError(f"JiebaTokenizer.add_dict: {user_dict}:{no}: expected "
                                     f"'word [freq]', got {line.strip()!r}.")
                self.add_word(parts[0], int(parts[1]) if len(parts) == 2 else None)


# ----- numpy transforms -----

def _one(func, inputs, strings=False):
    """The single input as a numpy array; bytes are decoded, or refused when `strings` (an
    op on text, as MindSpore's)."""
    if len(inputs) != 1:
        raise RuntimeError(f"{func}: The op is OneToOne, can only accept one tensor as input.")
    if strings:
        _refuse_bytes(func, inputs[0])
    a = np.asarray(inputs[0])
    return np.char.decode(a, "utf-8") if a.dtype.kind == "S" else a


class SlidingWindow:
    """SlidingWindow(width, axis=0): the windows of `width` consecutive elements of a 1-d
    array, as a 2-d array [n - width + 1, width] (empty when width > n)."""

    def __init__(self, width, axis=0):
        self.width = check_int("SlidingWindow", "width", width, 1, 2**31 - 1)
        self.axis = check_int("SlidingWindow", "axis", axis)

    def __call__(self, *inputs):
        a = _one("SlidingWindow", inputs)
        if self.axis not in (0, -1):
            raise RuntimeError("SlidingWindow: The parameter axis supports 0 or -1 only for now, "
                               f"but got {self.axis}.")
        if a.ndim != 1:
            raise RuntimeError("SlidingWindow: SlidingWindow supports 1D input only for now, but "
                               f"got {a.ndim}D.")
        n = a.shape[0] - self.width + 1
        if n <= 0:
            return np.empty((0,), a.dtype)
        return np.stack([a[i:i + self.width] for i in range(n)])


def _check_pad(pad):
    if not (isinstance(pad, tuple) and len(pad) == 2 and isinstance(pad[0], str) and
            isinstance(pad[1], int) and not isinstance(pad[1], bool)):
        raise ValueError("Ngram: pad needs to be a tuple of (str, int), but got "
                         f"{pad!r}.")
    if pad[1] < 0:
        raise ValueError("Ngram: padding width need to be positive numbers, but got "
                         f"{pad[1]}.")
    return pad


class Ngram:
    """Ngram(n, left_pad=("", 0), right_pad=("", 0), separator=" "): the n-grams of a 1-d str
    array, for each n of `n` (an int or a list), joined by separator, after padding the
    sequence with min(left_pad[1], n - 1) copies of left_pad[0] and min(right_pad[1], n - 1)
    of right_pad[0]. A padded sequence shorter than n gives one "" for that n."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" "):
        grams = [n] if isinstance(n, int) and not isinstance(n, bool) else n
        if not isinstance(grams, list) or not grams:
            raise ValueError("Ngram: n needs to be a non-empty list of positive ints, but got "
                             f"{n!r}.")
        for i, g in enumerate(grams):
            if isinstance(g, bool) or not isinstance(g, int):
                raise TypeError(f"Ngram: Argument gram[{i}] with value {g} is not of type "
                                f"[<class 'int'>], but got {type(g)}.")
            if g <= 0:
                raise ValueError(f"Ngram: gram_{i} must be greater than 0, but got {g}.")
        self.n = grams
        self.left_pad, self.right_pad = _check_pad(left_pad), _check_pad(right_pad)
        self.separator = _check_str("Ngram", "separator", separator)

    def __call__(self, *inputs):
        a = _one("Ngram", inputs, strings=True)
        if a.ndim != 1 or a.dtype.kind != "U":
            raise RuntimeError(f"Ngram: the input must be a 1-D array of strings, but got "
                               f"{a.dtype} with shape {list(a.shape)}.")
        words = [str(s) for s in a]
        out = []
        for g in self.n:  # an n-gram takes at most n - 1 pads on each side
            seq = [self.left_pad[0]] * min(self.left_pad[1], g - 1) + words + \
                [self.right_pad[0]] * min(self.right_pad[1], g - 1)
            if g > len(seq):
                out.append("")
            else:
                out += [self.separator.join(seq[i:i + g]) for i in range(len(seq) - g + 1)]
        return np.array(out, dtype=np.str_)


class Truncate:
    """Truncate(max_seq_len): the first max_seq_len elements of a 1-d array (of each row of a
    2-d one)."""

    def __init__(self, max_seq_len):
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int):
            raise TypeError(f"Truncate: Argument max_seq_len with value {max_seq_len} is not of "
                            f"type [<class 'int'>], but got {type(max_seq_len)}.")
        if not 1 <= max_seq_len <= 2**31 - 1:
            raise ValueError("Truncate: Input max_seq_len is not within the required interval "
                             "of [1, 2147483647].")
        self.max_seq_len = max_seq_len

    def __call__(self, *inputs):
        a = _one("Truncate", inputs)
        if a.dtype.kind not in "biufU":
            raise RuntimeError("Truncate: the input tensor should be in type of [bool, int, "
                               f"float, double, string], but got {a.dtype}.")
        if a.ndim not in (1, 2):
            raise RuntimeError(f"Truncate: the input tensor should be of dimension 1 or 2, but "
                               f"got {a.ndim}.")
        return a[..., :self.max_seq_len].copy()


class TruncateSequencePair:
    """TruncateSequencePair(max_length): truncate two 1-d arrays so that their total length is
    at most max_length, taking from the longer one first (equal lengths: the first)."""

    def __init__(self, max_length):
        self.max_length = check_int("TruncateSequencePair", "max_length", max_length, 1)

    def __call__(self, *inputs):
        if len(inputs) != 2:
            raise RuntimeError(f"TruncateSequencePair: expects two input columns, but got "
                               f"{len(inputs)}.")
        a, b = (np.asarray(x) for x in inputs)
        for x in (a, b):
            if x.ndim != 1:
                raise RuntimeError(f"TruncateSequencePair: the inputs must be 1-D, but got shape "
                                   f"{list(x.shape)}.")
        la, lb = len(a), len(b)
        while la + lb > self.max_length:
            if la > lb:
                la -= 1
            else:
                lb -= 1
        return a[:la].copy(), b[:lb].copy()


class AddToken:
    """AddToken(token, begin=True): a 1-d str array with token added at the front (or the
    back); each row of a 2-d array."""

    def __init__(self, token, begin=True):
        self.token = _check_str("AddToken", "token", token)
        if not isinstance(begin, bool):
            raise TypeError(f"AddToken: {_ms_type('begin', begin, bool)}")
        self.begin = begin

    def __call__(self, *inputs):
        a = _one("AddToken", inputs)
        if a.dtype.kind != "U" or a.ndim not in (1, 2):
            raise RuntimeError(f"AddToken: the input must be a 1-D or 2-D array of strings, but "
                               f"got {a.dtype} with shape {list(a.shape)}.")
        tok = np.full(a.shape[:-1] + (1,), self.token)
        parts = (tok, a) if self.begin else (a, tok)
        return np.concatenate(parts, axis=-1)


_WIKI_RULES = [  # (pattern, replacement, flags), applied in order (Matt Mahoney's wikifil rules)
    (r"<ref[^<]*</ref>", "", 0), (r"<[^>]*>", "", 0), (r"&amp;", "&", 0), (r"&lt;", "<", 0),
    (r"&gt;", ">", 0), (r"<[^>]*>", "", 0), (r"\[http:[^\] ]*", "[", 0), (r"\|thumb", "", re.I),
    (r"\|left", "", re.I), (r"\|right", "", re.I), (r"\|\d+px", "", re.I),
    (r"\[\[image:[^\[\]]*\|", "", re.I), (r"\[\[category:([^|\]]*)[^\]]*\]\]", r"[[\1]]", re.I),
    (r"\[\[[a-z\-]*:[^\]]*\]\]", "", 0), (r"\[\[[^|\]]*\|", "[[", 0), (r"\{\{[^}]*\}\}", "", 0),
    (r"\{[^}]*\}", "", 0), (r"[\[\]]", "", 0), (r"&[^;]*;", " ", 0)]
_DIGITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


def _filter_wiki(text):
    for pattern, repl, flags in _WIKI_RULES:
        text = re.sub(pattern, repl, text, flags=flags)
    text = text.lower()
    text = re.sub(r"[0-9]", lambda m: f" {_DIGITS[int(m.group())]} ", text)
    return re.sub(r"[^a-z]+", " ", text).strip()


class FilterWikipediaXML:
    """FilterWikipediaXML(): Wikipedia XML text to plain lower-case words (Matt Mahoney's
    wikifil rules): references, tags, links' targets, images, templates and entities are
    removed, digits spelled out ("1" -> "one"), every run of other characters (non-ASCII
    letters included) becomes one space, and the ends are trimmed. Applies to every string
    of a str array."""

    def __call__(self, *inputs):
        a = _one("FilterWikipediaXML", inputs, strings=True)
        if a.dtype.kind != "U":
            raise RuntimeError(f"FilterWikipediaXML: the input must be strings, but got "
                               f"{a.dtype}.")
        out = np.empty(a.shape, dtype=object)
        for idx, v in np.ndenumerate(a):
            out[idx] = _filter_wiki(str(v))
        return out.astype(np.str_)


class ToNumber:
    """ToNumber(data_type): strings parsed as numbers of a numeric mycel or numpy dtype; a
    string that is not a number of that type (or out of its range) is a RuntimeError."""

    def __init__(self, data_type):
        from mycel.dataset.transforms import _numpy_dtype
        self.data_type = _numpy_dtype("ToNumber", data_type)

    def __call__(self, *inputs):
        a = _one("ToNumber", inputs, strings=True)
        if a.dtype.kind != "U":
            raise RuntimeError(f"ToNumber: the input must be strings, but got {a.dtype}.")
        out = np.empty(a.shape, self.data_type)
        for idx, s in np.ndenumerate(a):
            s = str(s)
            try:
                v = int(s) if self.data_type.kind in "iu" else float(s)
            except ValueError:
                raise RuntimeError(f"ToNumber: cannot convert '{s}' to {self.data_type}.") \
                    from None
            if self.data_type.kind in "iu":
                info = np.iinfo(self.data_type)
                if not info.min <= v <= info.max:
                    raise RuntimeError(f"ToNumber: '{s}' is out of the range of "
                                       f"{self.data_type}.")
            elif self.data_type.kind == "f" and np.isfinite(v) and \
                    abs(v) > np.finfo(self.data_type).max:
                raise RuntimeError(f"ToNumber: '{s}' is out of the range of {self.data_type}.")
            out[idx] = v
        return out


__all__ = ["UnicodeCharTokenizer", "WhitespaceTokenizer", "UnicodeScriptTokenizer",
           "RegexTokenizer", "CaseFold", "NormalizeUTF8", "RegexReplace", "WordpieceTokenizer",
           "BasicTokenizer", "BertTokenizer", "JiebaMode", "JiebaTokenizer", "SlidingWindow",
           "Ngram", "Truncate", "TruncateSequencePair", "AddToken", "ToNumber",
           "FilterWikipediaXML", "NormalizeForm", "to_str", "to_bytes"]

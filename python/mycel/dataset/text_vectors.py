"""Pre-trained token vectors of MindSpore's ``dataset.text``: Vectors, GloVe, FastText and
CharNGram (``from_file``) and the ToVectors transform (a Python transform the pipeline calls).

A vectors file has one token per line followed by its values, separated by whitespace; an
optional first line "count dim" is skipped. Every vector must have the same number of values;
a later line with a single value is an error (a stray "count dim" line). ``max_vectors`` keeps
the first that many tokens; a token seen twice keeps its first vector. Values are float32.
"""
import io
import os
import re

import numpy as np

from mycel.dataset._validate import _ms_type


def _check_max_vectors(func, max_vectors):
    if max_vectors is None:
        return None
    if isinstance(max_vectors, bool) or not isinstance(max_vectors, int):
        raise TypeError(f"{func}: Argument max_vectors with value {max_vectors} is not of type "
                        f"[<class 'int'>], but got {type(max_vectors)}.")
    if max_vectors < 0:
        raise ValueError(f"{func}: Input max_vectors is not within the required interval of "
                         f"[0, 2147483647], but got {max_vectors}.")
    return max_vectors


def _load(func, file_path, max_vectors):
    """(tokens -> row, matrix [n, dim] float32) of a vectors file."""
    if not isinstance(file_path, str):
        raise TypeError(f"{func}: {_ms_type('file_path', file_path, str)}")
    if not os.path.isfile(file_path):
        raise RuntimeError(f"{func}: get real path failed, the file {file_path} does not exist "
                           "or is not a regular file.")
    index, rows, dim = {}, [], None
    try:
        with open(file_path, "rb") as f:
            text = f.read().decode("utf-8")
    except UnicodeDecodeError as err:
        raise RuntimeError(f"{func}: {file_path}: invalid file, it is not UTF-8 text (byte "
                           f"{err.start}).") from None
    # the lines as a text-mode file gives them (universal newlines)
    for no, line in enumerate(io.StringIO(text, newline=None), 1):
        parts = line.split()
        if not parts:
            continue
        if no == 1 and len(parts) == 2 and all(p.isdigit() for p in parts):
            continue  # the "count dim" header
        if len(parts) == 2:
            raise RuntimeError(f"{func}: {file_path}:{no}: invalid file, found token with "
                               "1-dimensional vector.")
        if dim is None:
            dim = len(parts) - 1
        elif len(parts) - 1 != dim:
            raise RuntimeError(f"{func}: {file_path}:{no}: all vectors must have the same "
                               f"number of dimensions, but got dim {len(parts) - 1} while "
                               f"expecting {dim}.")
        if max_vectors is not None and len(rows) >= max_vectors:
            break
        if parts[0] in index:
            continue
        try:
            values = [float(v) for v in parts[1:]]
        except ValueError:
            raise RuntimeError(f"{func}: {file_path}:{no}: a value is not a number.") \
                from None
        index[parts[0]] = len(rows)
        rows.append(values)
    if dim is None:
        raise RuntimeError(f"{func}: invalid file, file is empty. ({file_path})")
    wide = np.asarray(rows, np.float64).reshape(len(rows), dim)
    with np.errstate(over="ignore"):
        matrix = wide.astype(np.float32)
    overflow = np.isinf(matrix) & np.isfinite(wide)  # as std::stof, a finite value past float32
    if overflow.any():
        token = next(t for t, r in index.items() if r == int(np.argwhere(overflow)[0][0]))
        raise RuntimeError(f"{func}: {file_path}: invalid file, the vector of {token!r} has a "
                           "value out of the float32 range.")
    return index, matrix


class Vectors:
    """Token vectors read from a file (module doc). ``from_file(file_path,
    max_vectors=None)`` builds one."""

    _name = "Vectors"

    def __init__(self, index=None, matrix=None):
        self._index = index or {}
        self._matrix = np.zeros((0, 0), np.float32) if matrix is None else matrix

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        func = f"{cls._name}.from_file"
        max_vectors = _check_max_vectors(func, max_vectors)
        cls._check_name(file_path)
        return cls(*_load(func, file_path, max_vectors))

    @classmethod
    def _check_name(cls, file_path):
        pass

    @property
    def dim(self):
        """The number of values of each vector."""
        return self._matrix.shape[1]

    def _vector(self, token, unk, lower_case_backup):
        i = self._index.get(token)
        if i is None and lower_case_backup:
            i = self._index.get(token.lower())
        return unk if i is None else self._matrix[i]


class GloVe(Vectors):
    """GloVe vectors: a file named glove.6B.*.txt."""

    _name = "GloVe"

    @classmethod
    def _check_name(cls, file_path):
        if not re.fullmatch(r"glove\.6B\..*\.txt", os.path.basename(str(file_path))):
            raise RuntimeError("GloVe: invalid file, can not find file 'glove.6B.*.txt', but got "
                               f"{file_path}.")


class FastText(Vectors):
    """FastText vectors: a file named *.vec."""

    _name = "FastText"

    @classmethod
    def _check_name(cls, file_path):
        if not str(file_path).endswith(".vec"):
            raise RuntimeError("FastText: invalid file, can not find file '*.vec', but got "
                               f"{file_path}.")


class CharNGram(Vectors):
    """Character n-gram vectors (tokens "2gram-ab", ...): a word's vector is the mean of the
    vectors of its 2-, 3- and 4-grams found in the file, the word framed by #BEGIN# and #END#
    (no n-gram found: the same for the word in lower case when lower_case_backup, else the
    unknown vector)."""

    _name = "CharNGram"

    def _vector(self, token, unk, lower_case_backup):
        vec = self._mean(token)
        if vec is None and lower_case_backup:
            vec = self._mean(token.lower())
        return unk if vec is None else vec

    def _mean(self, token):
        chars = ["#BEGIN#"] + list(token) + ["#END#"]
        total, count = np.zeros(self.dim, np.float32), 0
        for n in (2, 3, 4):
            for i in range(len(chars) - n + 1):
                j = self._index.get(f"{n}gram-{''.join(chars[i:i + n])}")
                if j is not None:
                    total += self._matrix[j]
                    count += 1
        return total / count if count else None


class ToVectors:
    """ToVectors(vectors, unk_init=None, lower_case_backup=False): each token's vector (a str
    scalar gives [dim], a 1-d array of tokens [n, dim], float32). A token not found tries its
    lower case when lower_case_backup, else gets unk_init (default zeros)."""

    def __init__(self, vectors, unk_init=None, lower_case_backup=False):
        if not isinstance(vectors, Vectors):
            raise TypeError(f"ToVectors: {_ms_type('vectors', vectors, Vectors)}")
        if not isinstance(lower_case_backup, bool):
            raise TypeError(f"ToVectors: Argument lower_case_backup with value {lower_case_backup}"
                            f" is not of type [<class 'bool'>], but got {type(lower_case_backup)}.")
        self.vectors, self.lower_case_backup = vectors, lower_case_backup
        if unk_init is None:
            self._unk = np.zeros(vectors.dim, np.float32)
        else:
            self._unk = np.asarray(unk_init, np.float32).reshape(-1)
            if self._unk.size != vectors.dim:
                raise RuntimeError(f"ToVectors: unk_init must be the same length as vectors, but "
                                   f"got unk_init: {self._unk.size} and vectors: {vectors.dim}.")

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise RuntimeError("ToVectors: The op is OneToOne, can only accept one tensor as "
                               "input.")
        a = np.asarray(inputs[0])
        if a.dtype.kind == "S":
            a = np.char.decode(a, "utf-8")
        if a.dtype.kind != "U":
            raise RuntimeError(f"ToVectors: input tensor type should be string. (got {a.dtype})")
        if a.ndim > 1:
            raise RuntimeError(f"ToVectors: the input must be a token or a 1-d array of tokens, "
                               f"but got shape {list(a.shape)}.")
        vecs = [self.vectors._vector(str(t), self._unk, self.lower_case_backup)
                for t in a.reshape(-1)]
        out = np.stack(vecs).astype(np.float32) if vecs else np.zeros((0, self.vectors.dim),
                                                                       np.float32)
        return out[0] if a.ndim == 0 else out


__all__ = ["Vectors", "GloVe", "FastText", "CharNGram", "ToVectors"]

"""SentencePiece in dataset.text (MindSpore 2.x's ``SentencePieceVocab``,
``SentencePieceTokenizer``, ``SentencePieceModel``, ``SPieceTokenizerOutType``,
``SPieceTokenizerLoadType``), over Google's sentencepiece library
(src/data/transforms_sentencepiece.h).

A ``SentencePieceVocab`` is a trained model: ``from_file`` trains on text files,
``from_dataset`` on the strings of some columns of one epoch of a dataset; ``save_model``
writes it as a ``.model`` file the library (and ``SentencePieceTokenizer``) loads. The
tokenizer takes a vocab or a model file path and encodes each string into pieces (str) or ids
(int32)."""
import enum
import os

import numpy as np

from mycel import _mycel
from mycel.dataset._validate import _ms_type, check_int
from mycel.dataset.text_ops import _TextOp

_data = _mycel._data


class SentencePieceModel(enum.IntEnum):
    """The model a SentencePieceVocab trains."""
    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerOutType(enum.IntEnum):
    """What SentencePieceTokenizer gives: the pieces (STRING) or their ids (INT)."""
    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(enum.IntEnum):
    """How a SentencePieceTokenizer gets its model (MindSpore 1.x's name): a file or a vocab."""
    FILE = 0
    MODEL = 1


def _train_args(who, vocab_size, character_coverage, model_type, params):
    check_int(who, "vocab_size", vocab_size, 1)
    if isinstance(character_coverage, bool) or not isinstance(character_coverage, (int, float)):
        raise TypeError(f"{who}: {_ms_type('character_coverage', character_coverage, float)}")
    if not 0.98 <= character_coverage <= 1.0:
        raise ValueError(f"{who}: character_coverage must be in [0.98, 1.0], but got "
                         f"{character_coverage}.")
    if not isinstance(model_type, SentencePieceModel):
        raise TypeError(f"{who}: {_ms_type('model_type', model_type, SentencePieceModel)}")
    if not isinstance(params, dict):
        raise TypeError(f"{who}: {_ms_type('params', params, dict)}")
    return {str(k): str(v) for k, v in params.items()}


class SentencePieceVocab:
    """A trained SentencePiece model (its serialized ModelProto)."""

    def __init__(self, model_proto=b""):
        self._proto = bytes(model_proto)

    @classmethod
    def from_file(cls, file_path, vocab_size, character_coverage, model_type, params):
        """Trains on the text files `file_path` (a list of paths), one sentence per line."""
        who = "SentencePieceVocab.from_file"
        if not isinstance(file_path, list):
            raise TypeError(f"{who}: {_ms_type('file_path', file_path, list)}")
        for f in file_path:
            if not isinstance(f, str):
                raise TypeError(f"{who}: {_ms_type('file_path', f, str)}")
            if not os.path.isfile(f):
                raise ValueError(f"{who}: the file {f} does not exist or is not a file.")
        args = _train_args(who, vocab_size, character_coverage, model_type, params)
        return cls(_data.train_sentencepiece(file_path, [], vocab_size,
                                             float(character_coverage), model_type.name, args))

    @classmethod
    def from_dataset(cls, dataset, col_names, vocab_size, character_coverage, model_type,
                     params):
        """Trains on the strings of `col_names` (a list; every column when empty) of one epoch
        of `dataset`, each string a sentence."""
        who = "SentencePieceVocab.from_dataset"
        if not isinstance(col_names, list):
            raise TypeError(f"{who}: {_ms_type('col_names', col_names, list)}")
        args = _train_args(who, vocab_size, character_coverage, model_type, params)
        sentences = []
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for name in col_names or list(row):
                if name not in row:
                    raise ValueError(f"{who}: column {name!r} is not in the dataset (columns: "
                                     f"{list(row)}).")
                a = np.asarray(row[name])
                if a.dtype.kind not in "US":
                    raise TypeError(f"{who}: column {name!r} must hold strings, but got "
                                    f"{a.dtype}.")
                sentences.extend(v.decode() if isinstance(v, bytes) else str(v)
                                 for v in a.reshape(-1))
        return cls(_data.train_sentencepiece([], sentences, vocab_size,
                                             float(character_coverage), model_type.name, args))

    @classmethod
    def save_model(cls, vocab, path, filename):
        """Writes `vocab` as the model file path/filename."""
        who = "SentencePieceVocab.save_model"
        if not isinstance(vocab, SentencePieceVocab):
            raise TypeError(f"{who}: {_ms_type('vocab', vocab, SentencePieceVocab)}")
        for name, v in (("path", path), ("filename", filename)):
            if not isinstance(v, str):
                raise TypeError(f"{who}: {_ms_type(name, v, str)}")
        if not os.path.isdir(path):
            raise ValueError(f"{who}: the folder {path} does not exist.")
        with open(os.path.join(path, filename), "wb") as f:
            f.write(vocab._proto)


class SentencePieceTokenizer(_TextOp):
    """SentencePieceTokenizer(mode, out_type=SPieceTokenizerOutType.INT): encodes each string
    with a SentencePiece model: `mode` is a SentencePieceVocab or the path of a model file."""

    def __init__(self, mode, out_type=SPieceTokenizerOutType.INT):
        who = "SentencePieceTokenizer"
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError(f"{who}: {_ms_type('out_type', out_type, SPieceTokenizerOutType)}")
        out_int = out_type == SPieceTokenizerOutType.INT
        if isinstance(mode, SentencePieceVocab):
            self._op = _data.SentencePieceTokenizer(mode._proto, False, out_int)
        elif isinstance(mode, str):
            if not os.path.isfile(mode):
                raise ValueError(f"{who}: the model file {mode} does not exist or is not a "
                                 "file.")
            self._op = _data.SentencePieceTokenizer(mode.encode(), True, out_int)
        else:
            raise TypeError(f"{who}: {_ms_type('mode', mode, str, SentencePieceVocab)}")
        self.mode, self.out_type = mode, out_type


__all__ = ["SentencePieceModel", "SPieceTokenizerOutType", "SPieceTokenizerLoadType",
           "SentencePieceVocab", "SentencePieceTokenizer"]

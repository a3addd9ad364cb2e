"""dataset.text's SentencePiece (SentencePieceVocab, SentencePieceTokenizer) against the
sentencepiece library's own Python binding (Debian's python3-sentencepiece, the same library
version; test-only oracle): the same trainer arguments give the same model, pieces and ids,
for every model type, from files and from a dataset, eager and in a pipeline."""
import io

import numpy as np
import pytest
import sentencepiece as spm

import mycel.dataset as ds
from mycel.dataset import text
from mycel.dataset.text import SentencePieceModel, SPieceTokenizerOutType

CORPUS = ["I use MindSpore to train my model.", "MindSpore is a deep learning framework.",
          "Tokenizers split text into pieces.", "A piece may be a word or a part of one.",
          "Models learn from the data they are given, one batch at a time.",
          "The quick brown fox jumps over the lazy dog.", "Training 123 steps took 4.5 seconds."]


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(CORPUS * 3) + "\n", encoding="utf-8")
    return str(path)


def oracle(corpus, model_type, vocab_size):
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(input=corpus, vocab_size=vocab_size,
                                   character_coverage=0.9995, model_type=model_type.lower(),
                                   minloglevel=1, model_writer=buf)
    return spm.SentencePieceProcessor(model_proto=buf.getvalue())


@pytest.mark.parametrize("model", list(SentencePieceModel))
def test_vocab_from_file_tokenizes_as_the_library(corpus, model):
    size = 40 if model == SentencePieceModel.WORD else 60  # WORD: the corpus has ~50 words
    vocab = text.SentencePieceVocab.from_file([corpus], size, 0.9995, model, {})
    want = oracle(corpus, model.name, size)
    sentence = "I use MindSpore to train a model."
    pieces = text.SentencePieceTokenizer(vocab, out_type=SPieceTokenizerOutType.STRING)(sentence)
    assert list(pieces) == want.encode(sentence, out_type=str)
    ids = text.SentencePieceTokenizer(vocab, out_type=SPieceTokenizerOutType.INT)(sentence)
    assert ids.dtype == np.int32 and list(ids) == want.encode(sentence)


def test_save_model_and_load_it_by_path(corpus, tmp_path):
    vocab = text.SentencePieceVocab.from_file([corpus], 60, 0.9995, SentencePieceModel.BPE, {})
    text.SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    lib = spm.SentencePieceProcessor(model_file=str(tmp_path / "m.model"))
    tok = text.SentencePieceTokenizer(str(tmp_path / "m.model"),
                                      out_type=SPieceTokenizerOutType.STRING)
    for s in CORPUS:
        assert list(tok(s)) == lib.encode(s, out_type=str)


def test_vocab_from_dataset_equals_from_file_and_runs_in_a_pipeline(corpus):
    data = ds.TextFileDataset(corpus, shuffle=False)
    from_ds = text.SentencePieceVocab.from_dataset(data, ["text"], 60, 0.9995,
                                                   SentencePieceModel.BPE, {})
    from_file = text.SentencePieceVocab.from_file([corpus], 60, 0.9995, SentencePieceModel.BPE,
                                                  {})
    tok = text.SentencePieceTokenizer(from_ds, out_type=SPieceTokenizerOutType.STRING)
    ref = text.SentencePieceTokenizer(from_file, out_type=SPieceTokenizerOutType.STRING)
    rows = ds.TextFileDataset(corpus, shuffle=False).map(operations=tok)
    got = [list(r["text"]) for r in rows.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert got == [list(ref(s)) for s in CORPUS * 3]


def test_trainer_params_pass_through_and_errors(corpus, tmp_path):
    vocab = text.SentencePieceVocab.from_file([corpus], 60, 0.9995, SentencePieceModel.BPE,
                                              {"split_digits": "true"})
    pieces = text.SentencePieceTokenizer(vocab, out_type=SPieceTokenizerOutType.STRING)("123")
    assert [p.strip("▁") for p in pieces if p.strip("▁")] == ["1", "2", "3"]
    with pytest.raises(RuntimeError, match="SentencePieceVocab"):  # vocab larger than the corpus
        text.SentencePieceVocab.from_file([corpus], 100000, 0.9995, SentencePieceModel.BPE, {})
    with pytest.raises(ValueError, match="params cannot set 'input'"):
        text.SentencePieceVocab.from_file([corpus], 60, 0.9995, SentencePieceModel.BPE,
                                          {"input": corpus})
    with pytest.raises(TypeError, match="model_type"):
        text.SentencePieceVocab.from_file([corpus], 60, 0.9995, "BPE", {})
    with pytest.raises(ValueError, match="does not exist"):
        text.SentencePieceTokenizer(str(tmp_path / "missing.model"))
    bad = tmp_path / "bad.model"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match="cannot load the model"):
        text.SentencePieceTokenizer(str(bad))
    tok = text.SentencePieceTokenizer(vocab)
    with pytest.raises(TypeError, match="SentencePieceTokenizer"):
        tok(np.array([1, 2]))

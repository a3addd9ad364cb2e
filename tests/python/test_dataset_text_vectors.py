"""dataset.text's Vectors/GloVe/FastText/CharNGram and ToVectors (text_vectors.py): files
written here, vectors checked against the values written (numpy), in a pipeline and eagerly."""
import numpy as np
import pytest

import mycel.dataset as ds
from mycel.dataset import text

ROWS = {"ok": [0.5, -1.25, 2.0], "this": [1.0, 0.0, -3.5], "Dog": [0.25, 0.75, 1.5]}


def _file(tmp_path, name="vectors.txt", header=True, extra=""):
    lines = (["3 3"] if header else []) + [f"{w} " + " ".join(map(str, v)) for w, v in
                                           ROWS.items()]
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n" + extra, encoding="utf-8")
    return str(p)


def test_vectors_lookup_unknown_and_lower_case(tmp_path):
    v = text.Vectors.from_file(_file(tmp_path))
    assert v.dim == 3
    op = text.ToVectors(v)
    np.testing.assert_array_equal(op("ok"), np.float32(ROWS["ok"]))
    np.testing.assert_array_equal(op("missing"), np.zeros(3, np.float32))
    backup = text.ToVectors(v, unk_init=[9, 9, 9], lower_case_backup=True)
    np.testing.assert_array_equal(backup("OK"), np.float32(ROWS["ok"]))
    np.testing.assert_array_equal(backup("dog"), np.float32([9, 9, 9]))  # only "Dog" exists
    got = op(np.array(["this", "ok"]))
    assert got.shape == (2, 3) and got.dtype == np.float32
    np.testing.assert_array_equal(got, np.float32([ROWS["this"], ROWS["ok"]]))
    limited = text.ToVectors(text.Vectors.from_file(_file(tmp_path), max_vectors=1))
    np.testing.assert_array_equal(limited("this"), np.zeros(3, np.float32))


def test_vectors_in_pipeline(tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("ok\nnone\nthis\n", encoding="utf-8")
    d = ds.TextFileDataset(str(words), shuffle=False)
    d = d.map(operations=text.ToVectors(text.Vectors.from_file(_file(tmp_path))),
              input_columns=["text"])
    got = [r["text"] for r in d.create_dict_iterator(num_epochs=1, output_numpy=True)]
    np.testing.assert_array_equal(np.stack(got), np.float32([ROWS["ok"], [0, 0, 0],
                                                             ROWS["this"]]))


def test_vectors_errors(tmp_path):
    with pytest.raises(RuntimeError, match="same number of dimensions, but got dim 2"):
        text.Vectors.from_file(_file(tmp_path, extra="bad 1 2\n"))
    with pytest.raises(RuntimeError, match="1-dimensional vector"):
        text.Vectors.from_file(_file(tmp_path, header=False, extra="6 6\n"))
    (tmp_path / "empty.txt").write_text("")
    with pytest.raises(RuntimeError, match="file is empty"):
        text.Vectors.from_file(str(tmp_path / "empty.txt"))
    with pytest.raises(RuntimeError, match="unk_init must be the same length"):
        text.ToVectors(text.Vectors.from_file(_file(tmp_path)), unk_init=[1])
    with pytest.raises(RuntimeError, match="input tensor type should be string"):
        text.ToVectors(text.Vectors.from_file(_file(tmp_path)))(1.0)
    with pytest.raises(RuntimeError, match="glove.6B"):
        text.GloVe.from_file(_file(tmp_path))
    with pytest.raises(RuntimeError, match=r"\*\.vec"):
        text.FastText.from_file(_file(tmp_path))
    assert text.GloVe.from_file(_file(tmp_path, "glove.6B.3d.txt")).dim == 3


def test_char_n_gram_mean_of_grams(tmp_path):
    grams = {"2gram-#BEGIN#a": [1, 0], "2gram-ab": [0, 2], "3gram-ab#END#": [4, 4],
             "4gram-zzzz": [9, 9]}
    p = tmp_path / "char.txt"
    p.write_text("".join(f"{k} {a} {b}\n" for k, (a, b) in grams.items()), encoding="utf-8")
    op = text.ToVectors(text.CharNGram.from_file(str(p)))
    # "ab": 2-grams #BEGIN#a, ab, b#END#; 3-grams #BEGIN#ab, ab#END#; 4-gram #BEGIN#ab#END#
    expect = np.mean([grams["2gram-#BEGIN#a"], grams["2gram-ab"], grams["3gram-ab#END#"]],
                     axis=0)
    np.testing.assert_allclose(op("ab"), expect.astype(np.float32))
    np.testing.assert_array_equal(op("q"), np.zeros(2, np.float32))


def test_char_n_gram_lower_case_backup(tmp_path):
    p = tmp_path / "char.txt"
    p.write_text("2gram-#BEGIN#t 1 2\n2gram-he 3 4\n", encoding="utf-8")
    v = text.CharNGram.from_file(str(p))
    np.testing.assert_allclose(text.ToVectors(v, lower_case_backup=True)("THE"), [2, 3])
    np.testing.assert_array_equal(text.ToVectors(v)("THE"), [0, 0])

"""dataset.text's tokenizers, string maps and token-array transforms (text_ops.py,
src/data/transforms_text.cc), called eagerly and in a pipeline, against Python's own Unicode
rules (str.casefold, unicodedata.normalize, re) and hand-computed tokens and byte offsets."""
import re
import unicodedata

import numpy as np
import pytest

import mycel.dataset as ds
from mycel.dataset import text

SAMPLES = ["Welcome to Beijing!", "北京欢迎您！", "我喜欢English!", "  ", "Ǆemo ﬁ Straße ΣΑΣ"]


def byte_offsets(s, pieces):
    """(tokens, starts, limits) of character ranges of s, as UTF-8 byte offsets."""
    b = [len(s[:i].encode()) for i in range(len(s) + 1)]
    return ([s[i:j] for i, j in pieces], [b[i] for i, _ in pieces], [b[j] for _, j in pieces])


def runs(s, key):
    """Character ranges of the runs of equal key (key None: not a token)."""
    out, cur = [], object()
    for i, c in enumerate(s):
        k = key(c)
        if k is not None and k == cur:
            out[-1][1] = i + 1
        elif k is not None:
            out.append([i, i + 1])
        cur = k
    return out


def pipeline(op, values, columns=("text",)):
    d = ds.NumpySlicesDataset({"text": np.array(values)}, shuffle=False)
    if len(columns) > 1:
        d = d.map(operations=op, input_columns=["text"], output_columns=list(columns))
    else:
        d = d.map(operations=op, input_columns=["text"])
    return [tuple(r[c].tolist() for c in columns)
            for r in d.create_dict_iterator(num_epochs=1, output_numpy=True)]


def test_unicode_char_tokenizer_offsets():
    for s in SAMPLES:
        toks, starts, limits = byte_offsets(s, [(i, i + 1) for i in range(len(s))])
        out = text.UnicodeCharTokenizer(with_offsets=True)(np.array(s))
        assert out[0].tolist() == toks
        assert out[1].dtype == np.uint32
        assert out[1].tolist() == starts and out[2].tolist() == limits
    assert pipeline(text.UnicodeCharTokenizer(), SAMPLES[:2]) == [
        (list(SAMPLES[0]),), (list(SAMPLES[1]),)]


def test_whitespace_tokenizer():
    for s in SAMPLES:
        pieces = runs(s, lambda c: None if c.isspace() else 0)
        expect = byte_offsets(s, pieces) if pieces else ([""], [0], [0])
        got = text.WhitespaceTokenizer(with_offsets=True)(np.array(s))
        assert [g.tolist() for g in got] == [list(e) for e in expect]
    got = pipeline(text.WhitespaceTokenizer(True), SAMPLES[:1],
                   ("token", "offsets_start", "offsets_limit"))
    assert got == [(["Welcome", "to", "Beijing!"], [0, 8, 11], [7, 10, 19])]


def test_unicode_script_tokenizer():
    # Latin, Han and Common (punctuation) runs, by hand
    op = text.UnicodeScriptTokenizer(keep_whitespace=False, with_offsets=True)
    tokens, starts, limits = op(np.array("我喜欢English!"))
    assert tokens.tolist() == ["我喜欢", "English", "!"]
    assert starts.tolist() == [0, 9, 16] and limits.tolist() == [9, 16, 17]
    keep = text.UnicodeScriptTokenizer(keep_whitespace=True)
    assert keep(np.array("Hi  there")).tolist() == ["Hi", "  ", "there"]
    assert text.UnicodeScriptTokenizer()(np.array("  ")).tolist() == [""]


def test_case_fold_and_normalize_match_python():
    # NFKC_Casefold: compatibility forms fold too (fullwidth "！" -> "!", "ﬁ" -> "fi")
    folded = text.CaseFold()(np.array(SAMPLES))
    nfkc = lambda s: unicodedata.normalize("NFKC", s)  # noqa: E731
    assert folded.tolist() == [nfkc(nfkc(s).casefold()) for s in SAMPLES]
    assert "！" not in str(folded[1]) and "!" in str(folded[1])
    for form in ("NFC", "NFKC", "NFD", "NFKD"):
        op = text.NormalizeUTF8(getattr(text.utils.NormalizeForm, form))
        for s in ["ṩ", "ḍ̇", "q̣̇", "ﬁ", "2⁵", "ẛ̣"]:
            assert str(op(np.array(s))) == unicodedata.normalize(form, s)
    assert text.NormalizeUTF8(text.NormalizeForm.NONE)(np.array("ﬁ")).tolist() == "ﬁ"
    with pytest.raises(TypeError):
        text.NormalizeUTF8("NFC")


def test_regex_replace_and_tokenizer_match_re():
    s = "Hello  World\tof  regex"
    assert str(text.RegexReplace(r"\s+", "_")(np.array(s))) == re.sub(r"\s+", "_", s)
    assert str(text.RegexReplace(r"\s+", "_", replace_all=False)(np.array(s))) == \
        re.sub(r"\s+", "_", s, count=1)
    assert str(text.RegexReplace(r"(\w+)@(\w+)", "$2 at $1")(np.array("me@home"))) == \
        "home at me"
    # ICU's Unicode properties
    assert str(text.RegexReplace(r"\p{Ll}", "_")(np.array("Hello W"))) == "H____ W"
    tok = text.RegexTokenizer(r"\s+", r"\s+", with_offsets=True)
    tokens, starts, limits = tok(np.array("a  bc d"))
    assert tokens.tolist() == ["a", "  ", "bc", " ", "d"]
    assert starts.tolist() == [0, 1, 3, 5, 6] and limits.tolist() == [1, 3, 5, 6, 7]
    han = text.RegexTokenizer(r"\p{Han}", r"\p{Han}")
    assert han(np.array("北京!Hi")).tolist() == ["北", "京", "!Hi"]
    assert text.RegexTokenizer(r"\s+")(np.array("a b")).tolist() == ["a", "b"]
    with pytest.raises(ValueError, match="not a valid regular expression"):
        text.RegexTokenizer("(")


def test_text_ops_refuse_bytes():
    for op in (text.CaseFold(), text.UnicodeCharTokenizer(), text.Ngram(2),
               text.FilterWikipediaXML()):
        with pytest.raises(RuntimeError, match="type should be string"):
            op(b"abc")


def test_tokenizer_errors():
    with pytest.raises(TypeError, match="UnicodeCharTokenizer: the input must be a string"):
        text.UnicodeCharTokenizer()(np.array([1, 2]))
    with pytest.raises(ValueError, match="must be one string"):
        text.WhitespaceTokenizer()(np.array(["a", "b"]))


def test_sliding_window():
    op = text.SlidingWindow(2, 0)
    out = op(["a", "b", "c"])
    assert out.tolist() == [["a", "b"], ["b", "c"]]
    assert op(np.arange(5)).tolist() == np.lib.stride_tricks.sliding_window_view(
        np.arange(5), 2).tolist()
    assert text.SlidingWindow(9)(np.arange(3)).shape == (0,)
    with pytest.raises(RuntimeError, match="supports 1D input only for now, but got 2D"):
        op([["a", "b"]])
    with pytest.raises(RuntimeError, match="OneToOne"):
        op(["a"], ["b"])
    with pytest.raises(ValueError):
        text.SlidingWindow(0)


def test_ngram():
    words = np.array(["a", "b", "c"])
    assert text.Ngram(2)(words).tolist() == ["a b", "b c"]
    # an n-gram takes at most n - 1 pads per side: none for n = 1
    assert text.Ngram([1, 3], ("_", 5), ("_", 1), "-")(words).tolist() == [
        "a", "b", "c", "_-_-a", "_-a-b", "a-b-c", "b-c-_"]
    assert text.Ngram(4)(words).tolist() == [""]
    with pytest.raises(ValueError, match="gram_0 must be greater than 0"):
        text.Ngram(0)
    with pytest.raises(ValueError, match="padding width need to be positive"):
        text.Ngram(1, ("x", -1))


def test_truncate_pair_add_token_to_number():
    assert text.Truncate(2)([[1, 2, 3], [4, 5, 6]]).tolist() == [[1, 2], [4, 5]]
    a, b = text.TruncateSequencePair(3)(np.array([1, 2, 3, 4]), np.array(["x", "y"]))
    assert a.tolist() == [1, 2] and b.tolist() == ["x"]
    a, b = text.TruncateSequencePair(4)(np.array([1, 2]), np.array([3, 4, 5, 6, 7]))
    assert a.tolist() == [1, 2] and b.tolist() == [3, 4]
    assert text.AddToken("<s>", True)(["a", "b"]).tolist() == ["<s>", "a", "b"]
    assert text.AddToken("</s>", False)(["a"]).tolist() == ["a", "</s>"]
    with pytest.raises(TypeError, match="Argument begin"):
        text.AddToken("x", begin=1.5)
    import mycel
    out = text.ToNumber(mycel.int16)(np.array(["-3", "12"]))
    assert out.dtype == np.int16 and out.tolist() == [-3, 12]
    with pytest.raises(RuntimeError, match="out of the range"):
        text.ToNumber(mycel.int8)(np.array(["300"]))
    with pytest.raises(RuntimeError, match="cannot convert"):
        text.ToNumber(mycel.float32)(np.array(["abc"]))


def test_text_ops_in_pipeline_match_eager():
    values = ["Hello World", "Straße x"]
    for op in (text.CaseFold(), text.RegexReplace("o", "0"),
               text.NormalizeUTF8(text.NormalizeForm.NFD)):
        assert [r[0] for r in pipeline(op, values)] == [op(np.array(v)).tolist() for v in values]


# ----- JiebaTokenizer: a small dictionary and HMM written here, against Python oracles -----

JIEBA_DICT = {"今天": 30, "天气": 20, "今天天气": 5, "很": 50, "好": 40, "很好": 10, "我们": 30,
              "去": 20, "公园": 15, "公": 2, "园": 2}


def _jieba_files(tmp_path):
    mp = tmp_path / "dict.utf8"
    mp.write_text("".join(f"{w} {f} n\n" for w, f in JIEBA_DICT.items()), encoding="utf-8")
    # B, E, M, S; a model that prefers two-character words
    start = [-0.5, -3.14e100, -3.14e100, -1.0]
    trans = [[-3.14e100, -0.2, -1.7, -3.14e100], [-0.6, -3.14e100, -3.14e100, -0.8],
             [-3.14e100, -0.3, -1.4, -3.14e100], [-0.7, -3.14e100, -3.14e100, -0.7]]
    chars = "今天气很好我们去公园玩吧乐"
    emit = [{c: -2.0 - 0.1 * i for i, c in enumerate(chars)},
            {c: -2.1 - 0.05 * i for i, c in enumerate(chars)},
            {c: -3.0 for c in chars},
            {c: -2.5 + (0.3 if c in "玩吧" else 0) for c in chars}]
    lines = ["#start", " ".join(map(str, start)), "#trans"] + \
        [" ".join(map(str, r)) for r in trans] + ["#emit"] + \
        [",".join(f"{c}:{p}" for c, p in e.items()) for e in emit]
    hmm = tmp_path / "hmm.utf8"
    hmm.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(hmm), str(mp), start, trans, emit


def _mp_oracle(s, words):
    """Every segmentation's total weight (log freq/total; unknown single chars the smallest
    dictionary weight), best first: the maximum-probability cut."""
    import math
    total = sum(words.values())
    w = {k: math.log(v / total) for k, v in words.items()}
    lo = min(w.values())
    best = {len(s): (0.0, [])}
    for i in range(len(s) - 1, -1, -1):
        cands = []
        for j in range(i + 1, len(s) + 1):
            piece = s[i:j]
            if piece in w or j == i + 1:
                val = w.get(piece, lo) + best[j][0]
                cands.append((val, [piece] + best[j][1]))
        best[i] = max(cands, key=lambda c: c[0])
    return best[0][1]


def _viterbi_oracle(s, start, trans, emit):
    """Brute force over all B/E/M/S label sequences ending in E or S."""
    import itertools
    best, arg = -float("inf"), None
    for labels in itertools.product(range(4), repeat=len(s)):
        if labels[-1] not in (1, 3):
            continue
        v = start[labels[0]] + emit[labels[0]].get(s[0], -3.14e100)
        for k in range(1, len(s)):
            v += trans[labels[k - 1]][labels[k]] + emit[labels[k]].get(s[k], -3.14e100)
        if v > best:
            best, arg = v, labels
    words, cur = [], ""
    for c, lab in zip(s, arg):
        cur += c
        if lab in (1, 3):
            words.append(cur)
            cur = ""
    return words


def test_jieba_mp_matches_brute_force(tmp_path):
    hmm, mp, *_ = _jieba_files(tmp_path)
    op = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MP)
    for s in ["今天天气很好", "我们去公园", "今天很好我们去玩", "好"]:
        assert op(np.array(s)).tolist() == _mp_oracle(s, JIEBA_DICT), s


def test_jieba_hmm_matches_viterbi_and_ascii_runs(tmp_path):
    hmm, mp, start, trans, emit = _jieba_files(tmp_path)
    op = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.HMM, with_offsets=True)
    for s in ["今天气很好", "我们去公园玩吧"]:
        assert op(np.array(s))[0].tolist() == _viterbi_oracle(s, start, trans, emit), s
    tokens, starts, limits = op(np.array("去abc12 3.5公园"))
    words = tokens.tolist()
    assert words == ["去", "abc12", " ", "3.5"] + _viterbi_oracle("公园", start, trans, emit)
    enc = "去abc12 3.5公园".encode()
    assert [enc[b:e].decode() for b, e in zip(starts, limits)] == words


def test_jieba_mix_user_words_and_pipeline(tmp_path):
    hmm, mp, start, trans, emit = _jieba_files(tmp_path)
    mix = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MIX)
    mp_words = _mp_oracle("我们去玩吧", JIEBA_DICT)  # ['我们', '去', '玩', '吧']
    singles = "".join(w for w in mp_words if len(w) == 1)
    expect = ["我们"] + _viterbi_oracle(singles, start, trans, emit)
    assert mix(np.array("我们去玩吧")).tolist() == expect
    mix.add_word("玩吧", 1000)
    assert mix(np.array("我们去玩吧")).tolist() == _mp_oracle(
        "我们去玩吧", {**JIEBA_DICT, "玩吧": 1000})[:1] + ["去", "玩吧"]
    d = ds.NumpySlicesDataset({"text": np.array(["今天天气很好"])}, shuffle=False)
    d = d.map(operations=text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MP))
    got = [r["text"].tolist() for r in d.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert got == [_mp_oracle("今天天气很好", JIEBA_DICT)]
    with pytest.raises(ValueError, match="does not exist"):
        text.JiebaTokenizer(hmm, str(tmp_path / "none.utf8"))


def test_filter_wikipedia_xml():
    op = text.FilterWikipediaXML()
    got = op(np.array(["Welcome to <b>China</b>", "中国", "In 1984 [[Category:Books|x]] "
                       "{{cite}} a&amp;b <ref name=r>cut</ref>end"]))
    assert got.tolist() == ["welcome to china", "",
                            "in one nine eight four books a b end"]


def test_jieba_separators_split_the_sentence(tmp_path):
    hmm, mp, start, trans, emit = _jieba_files(tmp_path)
    op = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.HMM)
    assert op(np.array("今天气，很好")).tolist() == \
        _viterbi_oracle("今天气", start, trans, emit) + ["，"] + \
        _viterbi_oracle("很好", start, trans, emit)
    mp_op = text.JiebaTokenizer(hmm, mp, mode=text.JiebaMode.MP)
    assert mp_op(np.array("今天。天气")).tolist() == ["今天", "。", "天气"]

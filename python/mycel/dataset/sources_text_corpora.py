"""Text corpora of MindSpore's dataset API: AG News, Amazon Review, DBpedia, Sogou News, Yahoo
Answers, Yelp Review and SST-2 (CSV/TSV records), Penn Treebank, WikiText and EnWik9 (lines),
CoNLL2000 and UDPOS (token tables), CLUE (JSON lines), SQuAD (JSON), Multi30k and IWSLT
(parallel text) and IMDB (review folders).

Each class finds its files under dataset_dir from ``usage`` (the file names MindSpore's
classes expect), checks its arguments, and builds a C++ source: the CSV and line corpora
reuse CSVDataset's and TextFileDataset's sources (src/data/sources_text.cc), the others are
parsed by src/data/sources_text_corpora.cc. All columns are str (0-d, or 1-d for token lists
and answers) except where a class says otherwise.

Row order follows sources_text.py's file datasets (shuffle True/Shuffle.GLOBAL, Shuffle.FILES,
False: MindSpore's reader order, see ``_init_file_source``); IMDBDataset is a mappable dataset
(sampler, shuffle as for image folders).
"""
import os

from mycel import _mycel
from mycel.dataset.sources import SourceDataset
from mycel.dataset.sources_text import Shuffle, _find_files, _init_file_source

_data = _mycel._data

def _check_dir(func, dataset_dir):
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"{func}: dataset_dir must be a str, but got "
                        f"{type(dataset_dir).__name__} {dataset_dir!r}.")
    dataset_dir = os.fspath(dataset_dir)
    if not os.path.isdir(dataset_dir):
        raise ValueError(f"{func}: The folder {dataset_dir} does not exist or is not a directory "
                         "or permission denied!")
    return dataset_dir


def _check_usage(func, usage, valid, default):
    if usage is None:
        return default
    if not isinstance(usage, str):
        raise TypeError(f"{func}: usage must be a str, but got {type(usage).__name__} "
                        f"{usage!r}.")
    if usage not in valid:
        raise ValueError(f"{func}: Input usage is not within the valid set of {list(valid)}.")
    return usage


def _files(func, dataset_dir, names, keep_order=False):
    """dataset_dir/name for each name, sorted (MindSpore's order for most corpora) or in the
    given order; RuntimeError naming a missing one."""
    paths = [os.path.join(dataset_dir, n) for n in names]
    if not keep_order:
        paths.sort()
    for p in paths:
        if not os.path.isfile(p):
            raise RuntimeError(f"{func}: the file {p} does not exist or is not a regular file.")
    return paths


class _TextCorpus(SourceDataset):
    """A corpus of files read in MindSpore's file-reader order (module doc)."""

    def _setup(self, func, source, num_samples, num_parallel_workers, shuffle, num_shards,
               shard_id):
        if shuffle is None:
            shuffle = Shuffle.GLOBAL
        _init_file_source(self, func, source, shuffle, (Shuffle.FILES,), num_samples,
                          num_parallel_workers, None, num_shards, shard_id, reader_order=True)


# ----- CSV corpora -----

def _csv_corpus(cls, func, dataset_dir, usage, usages, names, columns, args):
    """The __init__ of a CSV corpus: names[u] is usage u's file, in the order 'all' reads them
    (MindSpore's, which differs between corpora); columns the column names."""
    cls.dataset_dir = _check_dir(func, dataset_dir)
    cls.usage = _check_usage(func, usage, usages, "all")
    picked = list(names.values()) if cls.usage == "all" else [names[cls.usage]]
    cls.dataset_files = _files(func, cls.dataset_dir, picked, keep_order=True)
    source = _data.csv_source(cls.dataset_files, ",", [], columns)
    cls._setup(func, source, *args)


class AGNewsDataset(_TextCorpus):
    """AGNewsDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None): the AG News CSV files
    train.csv / test.csv (usage 'train', 'test' or 'all', the default: train then test, as
    for the other CSV corpora but Amazon Review). Columns "index", "title", "description" (str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _csv_corpus(self, "AGNewsDataset", dataset_dir, usage, ("train", "test", "all"),
                    {"train": "train.csv", "test": "test.csv"}, ["index", "title", "description"],
                    (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class AmazonReviewDataset(_TextCorpus):
    """AmazonReviewDataset(dataset_dir, usage=None, ...): Amazon Review (polarity or full: the
    folder given) train.csv / test.csv ('all': test then train, as MindSpore). Columns
    "label", "title", "content" (str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _csv_corpus(self, "AmazonReviewDataset", dataset_dir, usage, ("train", "test", "all"),
                    {"test": "test.csv", "train": "train.csv"}, ["label", "title", "content"],
                    (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class DBpediaDataset(_TextCorpus):
    """DBpediaDataset(dataset_dir, usage=None, ...): DBpedia train.csv / test.csv. Columns
    "class", "title", "content" (str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _csv_corpus(self, "DBpediaDataset", dataset_dir, usage, ("train", "test", "all"),
                    {"train": "train.csv", "test": "test.csv"}, ["class", "title", "content"],
                    (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class SogouNewsDataset(_TextCorpus):
    """SogouNewsDataset(dataset_dir, usage=None, ...): Sogou News train.csv / test.csv.
    Columns "index", "title", "content" (str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _csv_corpus(self, "SogouNewsDataset", dataset_dir, usage, ("train", "test", "all"),
                    {"train": "train.csv", "test": "test.csv"}, ["index", "title", "content"],
                    (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class YahooAnswersDataset(_TextCorpus):
    """YahooAnswersDataset(dataset_dir, usage=None, ...): Yahoo Answers train.csv / test.csv.
    Columns "class", "title", "content", "answer" (str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _csv_corpus(self, "YahooAnswersDataset", dataset_dir, usage, ("train", "test", "all"),
                    {"train": "train.csv", "test": "test.csv"},
                    ["class", "title", "content", "answer"],
                    (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class YelpReviewDataset(_TextCorpus):
    """YelpReviewDataset(dataset_dir, usage=None, ...): Yelp Review (polarity or full: the
    folder given) train.csv / test.csv. Columns "label", "text" (str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _csv_corpus(self, "YelpReviewDataset", dataset_dir, usage, ("train", "test", "all"),
                    {"train": "train.csv", "test": "test.csv"}, ["label", "text"],
                    (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class SST2Dataset(_TextCorpus):
    """SST2Dataset(dataset_dir, usage=None, ...): SST-2's tab-separated train.tsv, dev.tsv
    (columns "sentence", "label") or test.tsv (column "sentence"), each with a header line.
    usage 'train' (the default), 'dev' or 'test'. All columns str."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        func = "SST2Dataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage, ("train", "test", "dev"), "train")
        self.dataset_files = _files(func, self.dataset_dir, [self.usage + ".tsv"])
        names = ["index", "sentence"] if self.usage == "test" else ["sentence", "label"]
        source = _data.csv_source(self.dataset_files, "\t", [], [])
        if list(source.columns()) != names:
            raise RuntimeError(f"{func}: {self.dataset_files[0]} has the header "
                               f"{list(source.columns())}, not {names}.")
        if self.usage == "test":  # the file's index column is not one of MindSpore's
            source = _data.select_columns_source(source, [1])
        self._setup(func, source, num_samples, num_parallel_workers, shuffle, num_shards,
                    shard_id)


# ----- line corpora -----

def _line_corpus(obj, func, dataset_dir, usage, names, args):
    obj.dataset_dir = _check_dir(func, dataset_dir)
    obj.usage = _check_usage(func, usage, tuple(names) + ("all",), "all")
    picked = list(names.values()) if obj.usage == "all" else [names[obj.usage]]
    obj.dataset_files = _files(func, obj.dataset_dir, picked)
    obj._setup(func, _data.text_file_source(obj.dataset_files), *args)


class PennTreebankDataset(_TextCorpus):
    """PennTreebankDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None): the lines of
    ptb.train.txt, ptb.test.txt, ptb.valid.txt (usage 'train', 'test', 'valid' or 'all', the
    default). Column "text" (str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _line_corpus(self, "PennTreebankDataset", dataset_dir, usage,
                     {"train": "ptb.train.txt", "test": "ptb.test.txt", "valid": "ptb.valid.txt"},
                     (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class WikiTextDataset(_TextCorpus):
    """WikiTextDataset(dataset_dir, usage=None, ...): the lines of wiki.train.tokens,
    wiki.test.tokens, wiki.valid.tokens (usage as PennTreebankDataset). Column "text"."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _line_corpus(self, "WikiTextDataset", dataset_dir, usage,
                     {"train": "wiki.train.tokens", "test": "wiki.test.tokens",
                      "valid": "wiki.valid.tokens"},
                     (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class EnWik9Dataset(_TextCorpus):
    """EnWik9Dataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True,
    num_shards=None, shard_id=None, cache=None): the lines of dataset_dir/enwik9. Column
    "text"."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=True,
                 num_shards=None, shard_id=None, cache=None):
        func = "EnWik9Dataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.dataset_files = _files(func, self.dataset_dir, ["enwik9"])
        self._setup(func, _data.text_file_source(self.dataset_files), num_samples,
                    num_parallel_workers, shuffle, num_shards, shard_id)


# ----- token tables -----

def _token_corpus(obj, func, dataset_dir, usage, names, delim, columns, args):
    obj.dataset_dir = _check_dir(func, dataset_dir)
    obj.usage = _check_usage(func, usage, tuple(names) + ("all",), "all")
    picked = list(names.values()) if obj.usage == "all" else [names[obj.usage]]
    obj.dataset_files = _files(func, obj.dataset_dir, picked)
    obj._setup(func, _data.token_table_source(func, obj.dataset_files, delim, columns), *args)


class CoNLL2000Dataset(_TextCorpus):
    """CoNLL2000Dataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None): CoNLL-2000 chunking
    train.txt / test.txt (usage 'train', 'test' or 'all', the default): one row per sentence
    (sentences end at a blank line), lines "word POS chunk". Columns "word", "pos_tag",
    "chunk_tag" (1-d str, one entry per token)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _token_corpus(self, "CoNLL2000Dataset", dataset_dir, usage,
                      {"train": "train.txt", "test": "test.txt"}, " ",
                      ["word", "pos_tag", "chunk_tag"],
                      (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


class UDPOSDataset(_TextCorpus):
    """UDPOSDataset(dataset_dir, usage=None, ...): the UDPOS files en-ud-tag.v2.train.txt,
    .dev.txt ('valid'), .test.txt (usage 'train', 'valid', 'test' or 'all', the default): one
    row per sentence, tab-separated lines "word universal-tag stanford-tag". Columns "word",
    "universal", "stanford" (1-d str)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        _token_corpus(self, "UDPOSDataset", dataset_dir, usage,
                      {"train": "en-ud-tag.v2.train.txt", "test": "en-ud-tag.v2.test.txt",
                       "valid": "en-ud-tag.v2.dev.txt"}, "\t",
                      ["word", "universal", "stanford"],
                      (num_samples, num_parallel_workers, shuffle, num_shards, shard_id))


# ----- CLUE -----

_CLUE_TASKS = {  # task: (train/eval columns, test columns), column: JSON key path
    "AFQMC": ({"sentence1": "sentence1", "sentence2": "sentence2", "label": "label"},
              {"id": "id", "sentence1": "sentence1", "sentence2": "sentence2"}),
    "CMNLI": ({"sentence1": "sentence1", "sentence2": "sentence2", "label": "label"},
              {"id": "id", "sentence1": "sentence1", "sentence2": "sentence2"}),
    "TNEWS": ({"label": "label", "label_desc": "label_desc", "sentence": "sentence",
               "keywords": "keywords"},
              {"id": "id", "sentence": "sentence", "keywords": "keywords"}),
    "IFLYTEK": ({"label": "label", "label_des": "label_des", "sentence": "sentence"},
                {"id": "id", "sentence": "sentence"}),
    "CSL": ({"id": "id", "abst": "abst", "keyword": "keyword", "label": "label"},
            {"id": "id", "abst": "abst", "keyword": "keyword"}),
}
_WSC = {"span1_index": "target/span1_index", "span2_index": "target/span2_index",
        "span1_text": "target/span1_text", "span2_text": "target/span2_text", "idx": "idx"}
_CLUE_TASKS["WSC"] = ({**_WSC, "label": "label", "text": "text"}, {**_WSC, "text": "text"})


class CLUEDataset(_TextCorpus):
    """CLUEDataset(dataset_files, task='AFQMC', usage='train', num_samples=None,
    num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None,
    cache=None): CLUE benchmark files (one JSON object per line). task is 'AFQMC', 'TNEWS',
    'IFLYTEK', 'CMNLI', 'WSC' or 'CSL'; usage 'train', 'test' or 'eval' picks the columns
    (MindSpore's table; test files have an "id" and no label). JSON strings give str columns,
    integers int64, arrays of strings 1-d str."""

    def __init__(self, dataset_files, task="AFQMC", usage="train", num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, cache=None):
        func = "CLUEDataset"
        self.dataset_files = _find_files(func, dataset_files)
        if task not in _CLUE_TASKS:
            raise ValueError(f"{func}: task must be one of {list(_CLUE_TASKS)}, but got "
                             f"{task!r}.")
        self.usage = _check_usage(func, usage, ("train", "test", "eval"), "train")
        self.task = task
        columns = _CLUE_TASKS[task][1 if self.usage == "test" else 0]
        source = _data.json_lines_source(func, self.dataset_files, list(columns.items()))
        self._setup(func, source, num_samples, num_parallel_workers, shuffle, num_shards,
                    shard_id)


# ----- SQuAD -----

class SQuADDataset(_TextCorpus):
    """SQuADDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None): SQuAD 1.1 or 2.0
    (train-v*.json, dev-v*.json in dataset_dir; usage 'train', 'dev' or 'all', the default).
    One row per question: "context", "question" (str), "text" (1-d str, the answers) and
    "answer_start" (1-d uint32). An unanswerable question has text [""] and answer_start
    [4294967295] (-1)."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        func = "SQuADDataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage, ("train", "dev", "all"), "all")
        files = {}
        for name in sorted(os.listdir(self.dataset_dir)):
            for u in ("train", "dev"):
                if name.startswith(u + "-v") and name.endswith(".json"):
                    files.setdefault(u, os.path.join(self.dataset_dir, name))
        picked = ("train", "dev") if self.usage == "all" else (self.usage,)
        for u in picked:
            if u not in files:
                raise RuntimeError(f"{func}: {self.dataset_dir} has no {u}-v*.json file.")
        self.dataset_files = [files[u] for u in picked]  # train before dev, as MindSpore
        self._setup(func, _data.squad_source(self.dataset_files), num_samples,
                    num_parallel_workers, shuffle, num_shards, shard_id)


# ----- parallel text -----

def _check_pair(func, language_pair, valid):
    if not isinstance(language_pair, (list, tuple)):
        raise TypeError(f"{func}: language_pair must be a list or tuple, but got "
                        f"{type(language_pair).__name__}.")
    if len(language_pair) != 2:
        raise ValueError(f"{func}: language_pair should be a list or tuple of length 2, but "
                         f"got {len(language_pair)}")
    pair = [str(x) for x in language_pair]
    if tuple(pair) not in valid:
        shown = " or ".join(str(list(v)) for v in valid)
        raise ValueError(f"{func}: language_pair can only be {shown}, but got {pair}")
    return pair


class Multi30kDataset(_TextCorpus):
    """Multi30kDataset(dataset_dir, usage=None, language_pair=None, num_samples=None,
    num_parallel_workers=None, shuffle=None, num_shards=None, shard_id=None, cache=None):
    Multi30k's parallel files training/train.{en,de}, validation/val.{en,de},
    mmt16_task1_test/test.{en,de} (usage 'train', 'valid', 'test' or 'all', the default).
    language_pair ['en', 'de'] (the default) or ['de', 'en'] says which language is "text"
    and which "translation" (str)."""

    _FILES = {"train": "training/train", "valid": "validation/val",
              "test": "mmt16_task1_test/test"}

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, num_shards=None, shard_id=None,
                 cache=None):
        func = "Multi30kDataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage, ("train", "test", "valid", "all"), "all")
        src, tgt = _check_pair(func, ["en", "de"] if language_pair is None else language_pair,
                               (("en", "de"), ("de", "en")))
        picked = self._FILES.values() if self.usage == "all" else [self._FILES[self.usage]]
        pairs = []
        for stem in sorted(picked):
            a, b = (_files(func, self.dataset_dir, [f"{stem}.{lang}"])[0] for lang in (src, tgt))
            pairs.append((a, b))
        self.dataset_files = [p for pair in pairs for p in pair]
        source = _data.parallel_text_source(func, pairs, ["lines"] * len(pairs),
                                            ["text", "translation"])
        self._setup(func, source, num_samples, num_parallel_workers, shuffle, num_shards,
                    shard_id)


def _iwslt_pairs(func, folder, prefix, src, tgt, usage, valid_set, test_set):
    """The (source, target) files of an IWSLT usage: train.tags.* (format 'tags') and the
    <prefix>.TED.<set>.* .xml files (format 'xml')."""
    sets = {"train": None, "valid": valid_set, "test": test_set}
    picked = ("train", "valid", "test") if usage == "all" else (usage,)
    out = []
    for u in picked:
        if sets[u] is None:
            names = [f"train.tags.{src}-{tgt}.{lang}" for lang in (src, tgt)]
            fmt = "tags"
        else:
            names = [f"{prefix}.TED.{sets[u]}.{src}-{tgt}.{lang}.xml" for lang in (src, tgt)]
            fmt = "xml"
        a, b = (os.path.join(folder, n) for n in names)
        for p in (a, b):
            if not os.path.isfile(p):
                raise RuntimeError(f"{func}: the file {p} does not exist or is not a regular "
                                   "file.")
        out.append(((a, b), fmt))
    return out


def _iwslt_source(func, groups):
    return _data.parallel_text_source(func, [p for p, _ in groups], [f for _, f in groups],
                                      ["text", "translation"])


class IWSLT2016Dataset(_TextCorpus):
    """IWSLT2016Dataset(dataset_dir, usage=None, language_pair=None, valid_set=None,
    test_set=None, num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
    num_shards=None, shard_id=None, cache=None): IWSLT 2016 TED talks under
    dataset_dir/texts/<src>/<tgt>/<src>-<tgt>/: train.tags.<src>-<tgt>.<lang> (tag lines
    skipped) and IWSLT16.TED.<set>.<src>-<tgt>.<lang>.xml (<seg> elements). usage 'train',
    'valid', 'test' or 'all' (the default); language_pair default ['de', 'en']; valid_set
    default 'tst2013', test_set 'tst2014'. Columns "text", "translation" (str)."""

    _PAIRS = tuple((a, b) for x in ("ar", "cs", "de", "fr") for a, b in (("en", x), (x, "en")))
    _SETS = ("dev2010", "tst2010", "tst2011", "tst2012", "tst2013", "tst2014")

    def __init__(self, dataset_dir, usage=None, language_pair=None, valid_set=None,
                 test_set=None, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        func = "IWSLT2016Dataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage, ("train", "valid", "test", "all"), "all")
        src, tgt = _check_pair(func, ["de", "en"] if language_pair is None else language_pair,
                               self._PAIRS)
        valid_set = _check_usage(func, valid_set, self._SETS, "tst2013")
        test_set = _check_usage(func, test_set, self._SETS, "tst2014")
        folder = os.path.join(self.dataset_dir, "texts", src, tgt, f"{src}-{tgt}")
        groups = _iwslt_pairs(func, folder, "IWSLT16", src, tgt, self.usage, valid_set,
                              test_set)
        self._setup(func, _iwslt_source(func, groups), num_samples, num_parallel_workers,
                    shuffle, num_shards, shard_id)


class IWSLT2017Dataset(_TextCorpus):
    """IWSLT2017Dataset(dataset_dir, usage=None, language_pair=None, num_samples=None,
    num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None,
    cache=None): IWSLT 2017 multilingual TED talks under
    dataset_dir/texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo/ (languages en, de, it, nl,
    ro; language_pair default ['de', 'en']); valid is dev2010, test tst2010. Otherwise as
    IWSLT2016Dataset."""

    _LANGS = ("en", "de", "it", "nl", "ro")

    def __init__(self, dataset_dir, usage=None, language_pair=None, num_samples=None,
                 num_parallel_workers=None, shuffle=Shuffle.GLOBAL, num_shards=None,
                 shard_id=None, cache=None):
        func = "IWSLT2017Dataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage, ("train", "valid", "test", "all"), "all")
        pairs = tuple((a, b) for a in self._LANGS for b in self._LANGS if a != b)
        src, tgt = _check_pair(func, ["de", "en"] if language_pair is None else language_pair,
                               pairs)
        folder = os.path.join(self.dataset_dir, "texts", "DeEnItNlRo", "DeEnItNlRo",
                              "DeEnItNlRo-DeEnItNlRo")
        groups = _iwslt_pairs(func, folder, "IWSLT17", src, tgt, self.usage, "dev2010",
                              "tst2010")
        self._setup(func, _iwslt_source(func, groups), num_samples, num_parallel_workers,
                    shuffle, num_shards, shard_id)


# ----- IMDB -----

class IMDBDataset(SourceDataset):
    """IMDBDataset(dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
    shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None): the reviews of
    an aclImdb folder: <usage>/pos/*.txt (label 1) then <usage>/neg/*.txt (label 0), files in
    sorted order, usage 'train', 'test' or 'all' (the default; train then test). Columns
    "text" (str) and "label" (uint32). A mappable dataset: sampler, shuffle and shards as
    ImageFolderDataset's."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        func = "IMDBDataset"
        self.dataset_dir = _check_dir(func, dataset_dir)
        self.usage = _check_usage(func, usage, ("train", "test", "all"), "all")
        source = _data.imdb_source(self.dataset_dir, self.usage)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


__all__ = ["AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset", "SogouNewsDataset",
           "YahooAnswersDataset", "YelpReviewDataset", "SST2Dataset", "PennTreebankDataset",
           "WikiTextDataset", "EnWik9Dataset", "CoNLL2000Dataset", "UDPOSDataset", "CLUEDataset",
           "SQuADDataset", "Multi30kDataset", "IWSLT2016Dataset", "IWSLT2017Dataset",
           "IMDBDataset"]

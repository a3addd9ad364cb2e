"""Audio datasets: YesNoDataset, LJSpeechDataset, SpeechCommandsDataset, GTZANDataset,
CMUArcticDataset, LibriTTSDataset, TedliumDataset (MindSpore's, with its columns).

Each class finds its files and parses the dataset's text metadata here (file lists,
transcripts: small text files), then hands the file paths and metadata to one C++ source
(src/data/sources_audio.cc) that decodes the audio (RIFF WAVE; NIST SPHERE for TED-LIUM,
src/data/audio_file.cc) when a row is read, on the engine's worker threads. Waveforms are
float32 [channels, samples] in [-1, 1) (GTZAN's float64), sample_rate a 0-d uint32 (int32
for TED-LIUM). A missing directory or metadata file is an error at construction; a missing or
malformed audio file is a RuntimeError when its row is read.
"""
import glob
import os
import re

import numpy as np

from mycel import _mycel
from mycel.dataset.sources import SourceDataset

_data = _mycel._data


def _check_dir(func, dataset_dir):
    if not isinstance(dataset_dir, (str, os.PathLike)):
        raise TypeError(f"Argument dataset_dir with value {dataset_dir} is not of type "
                        f"[{str}], but got {type(dataset_dir)}.")
    path = os.fspath(dataset_dir)
    if not os.path.isdir(path):
        raise ValueError(f"{func}: the folder {path} does not exist or is not a directory or "
                         f"permission denied!")
    return path


def _check_choice(name, value, choices, default):
    """MindSpore's check of a string option (usage, release, name)."""
    if value is None:
        return default
    if not isinstance(value, str):
        raise TypeError(f"Argument {name} with value {value} is not of type [{str}], but got "
                        f"{type(value)}.")
    if value not in choices:
        raise ValueError(f"Input {name} is not within the valid set of {choices}.")
    return value


def _text_lines(func, path):
    """The lines of the UTF-8 text file at path (metadata, transcripts, lists). RuntimeError
    naming the class and the file when it cannot be read or is not UTF-8."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise RuntimeError(f"{func}: cannot read {path}: {err.strerror}.") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise RuntimeError(f"{func}: {path}:{line} is not UTF-8 text (byte {err.start}).") \
            from None
    # the lines a text-mode file gives (universal newlines), each with its "\n"
    parts = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _strings(*values):
    return [np.array(v) for v in values]


class _AudioDataset(SourceDataset):
    """Builds the C++ source from (paths, extras) prepared by the subclass."""

    _columns_names = ()
    _waveform_type = "float32"
    _sph = False
    _signed_rate = False

    def _build(self, paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
               num_shards, shard_id, segments=()):
        func = type(self).__name__
        source = _data.audio_file_source(func, list(self._columns_names), paths, list(segments),
                                         extras, self._sph, self._waveform_type,
                                         self._signed_rate)
        super().__init__(func, source, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)


class YesNoDataset(_AudioDataset):
    """YesNoDataset(dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
    sampler=None, num_shards=None, shard_id=None): the Yes/No corpus, the .wav files of
    dataset_dir named by their eight 0/1 labels ("0_1_0_0_1_0_1_1.wav"). Columns waveform,
    sample_rate, label (int32 [8])."""

    _columns_names = ("waveform", "sample_rate", "label")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir("YesNoDataset", dataset_dir)
        paths, extras = [], []
        for path in sorted(glob.glob(os.path.join(self.dataset_dir, "*.wav"))):
            stem = os.path.splitext(os.path.basename(path))[0]
            try:
                label = np.array([int(v) for v in stem.split("_")], np.int32)
            except ValueError:
                continue
            paths.append(path)
            extras.append([label])
        self._build(paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
                    num_shards, shard_id)


class LJSpeechDataset(_AudioDataset):
    """LJSpeechDataset(dataset_dir, ...): LJ Speech, dataset_dir/metadata.csv
    ("id|transcription|normalized transcription") and dataset_dir/wavs/<id>.wav. Columns
    waveform, sample_rate, transcription, normalized_transcription."""

    _columns_names = ("waveform", "sample_rate", "transcription", "normalized_transcription")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir("LJSpeechDataset", dataset_dir)
        meta = os.path.join(self.dataset_dir, "metadata.csv")
        if not os.path.isfile(meta):
            raise RuntimeError(f"LJSpeechDataset: {meta} does not exist.")
        paths, extras = [], []
        for line in _text_lines("LJSpeechDataset", meta):
            line = line.rstrip("\n")
            if line:
                parts = line.split("|")
                if len(parts) != 3:
                    raise RuntimeError(f"LJSpeechDataset: a line of {meta} does not have 3 "
                                       f"'|'-separated fields: {line!r}.")
                paths.append(os.path.join(self.dataset_dir, "wavs", parts[0] + ".wav"))
                extras.append(_strings(parts[1], parts[2]))
        self._build(paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
                    num_shards, shard_id)


class SpeechCommandsDataset(_AudioDataset):
    """SpeechCommandsDataset(dataset_dir, usage=None, ...): Speech Commands, one folder per word
    of "<speaker>_nohash_<n>.wav" files (_background_noise_ excluded). usage "test" and "valid"
    read the files listed in testing_list.txt / validation_list.txt, "train" the others, "all"
    (default) every file. Columns waveform, sample_rate, label, speaker_id, utterance_number
    (uint32)."""

    _columns_names = ("waveform", "sample_rate", "label", "speaker_id", "utterance_number")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir("SpeechCommandsDataset", dataset_dir)
        self.usage = _check_choice("usage", usage, ["train", "test", "valid", "all"], "all")

        def listed(name):
            path = os.path.join(self.dataset_dir, name)
            if not os.path.isfile(path):
                return set()
            return {os.path.normpath(line.strip())
                    for line in _text_lines("SpeechCommandsDataset", path) if line.strip()}
        test, valid = listed("testing_list.txt"), listed("validation_list.txt")
        paths, extras = [], []
        for path in sorted(glob.glob(os.path.join(self.dataset_dir, "*", "*.wav"))):
            rel = os.path.normpath(os.path.relpath(path, self.dataset_dir))
            label = os.path.basename(os.path.dirname(path))
            if label == "_background_noise_":
                continue
            keep = {"all": True, "test": rel in test, "valid": rel in valid,
                    "train": rel not in test and rel not in valid}[self.usage]
            if not keep:
                continue
            stem = os.path.splitext(os.path.basename(path))[0]
            speaker, _, number = stem.partition("_nohash_")
            paths.append(path)
            extras.append(_strings(label, speaker) +
                          [np.array(int(number) if number.isdigit() else 0, np.uint32)])
        self._build(paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
                    num_shards, shard_id)


class GTZANDataset(_AudioDataset):
    """GTZANDataset(dataset_dir, usage=None, ...): GTZAN, dataset_dir/<genre>/<genre>.<n>.wav.
    usage "all" (default) reads every file. MindSpore's "train" / "valid" / "test" are fixed
    lists of file names that this implementation does not ship: they raise ValueError.
    Columns waveform (float64), sample_rate, label (the genre)."""

    _columns_names = ("waveform", "sample_rate", "label")
    _waveform_type = "float64"

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir("GTZANDataset", dataset_dir)
        self.usage = _check_choice("usage", usage, ["train", "valid", "test", "all"], "all")
        if self.usage != "all":
            raise ValueError(f"GTZANDataset: usage '{self.usage}' needs the filtered split "
                             f"lists of GTZAN, which are not available; use usage='all'.")
        paths, extras = [], []
        for path in sorted(glob.glob(os.path.join(self.dataset_dir, "*", "*.wav"))):
            paths.append(path)
            extras.append(_strings(os.path.basename(os.path.dirname(path))))
        self._build(paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
                    num_shards, shard_id)


_ARCTIC_NAMES = ["aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk",
                 "ksp", "ljm", "lnh", "rms", "rxr", "slp", "slt"]


class CMUArcticDataset(_AudioDataset):
    """CMUArcticDataset(dataset_dir, name=None, ...): CMU ARCTIC for speaker name (default
    "aew"): dataset_dir/cmu_us_<name>_arctic/etc/txt.done.data ('( arctic_a0001 "text" )')
    and wav/arctic_<id>.wav. Columns waveform, sample_rate, transcript, utterance_id
    ("a0001")."""

    _columns_names = ("waveform", "sample_rate", "transcript", "utterance_id")

    def __init__(self, dataset_dir, name=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir("CMUArcticDataset", dataset_dir)
        self.name = _check_choice("name", name, _ARCTIC_NAMES, "aew")
        root = os.path.join(self.dataset_dir, f"cmu_us_{self.name}_arctic")
        meta = os.path.join(root, "etc", "txt.done.data")
        if not os.path.isfile(meta):
            raise RuntimeError(f"CMUArcticDataset: {meta} does not exist.")
        line_re = re.compile(r'^\(\s*(\S+)\s+"(.*)"\s*\)\s*$')
        paths, extras = [], []
        for line in _text_lines("CMUArcticDataset", meta):
            m = line_re.match(line.strip())
            if not m:
                continue
            file_id, text = m.group(1), m.group(2)
            paths.append(os.path.join(root, "wav", file_id + ".wav"))
            extras.append(_strings(text, file_id.split("_", 1)[-1]))
        self._build(paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
                    num_shards, shard_id)


_LIBRITTS_USAGES = ["dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100",
                    "train-clean-360", "train-other-500", "all"]


class LibriTTSDataset(_AudioDataset):
    """LibriTTSDataset(dataset_dir, usage=None, ...): LibriTTS subsets (usage, default "all":
    every subset present) of <speaker>/<chapter>/<speaker>_<chapter>.trans.tsv
    ("utterance\\toriginal\\tnormalized") and <utterance>.wav. Columns waveform, sample_rate,
    original_text, normalized_text, speaker_id (uint32), chapter_id (uint32), utterance_id."""

    _columns_names = ("waveform", "sample_rate", "original_text", "normalized_text", "speaker_id",
                      "chapter_id", "utterance_id")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        self.dataset_dir = _check_dir("LibriTTSDataset", dataset_dir)
        self.usage = _check_choice("usage", usage, _LIBRITTS_USAGES, "all")
        subsets = _LIBRITTS_USAGES[:-1] if self.usage == "all" else [self.usage]
        paths, extras = [], []
        for subset in subsets:
            pattern = os.path.join(self.dataset_dir, subset, "*", "*", "*.trans.tsv")
            for tsv in sorted(glob.glob(pattern)):
                folder = os.path.dirname(tsv)
                for line in _text_lines("LibriTTSDataset", tsv):
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) != 3:
                        continue
                    utt = parts[0]
                    ids = utt.split("_")
                    speaker, chapter = (int(ids[0]), int(ids[1])) if len(ids) >= 2 and \
                        ids[0].isdigit() and ids[1].isdigit() else (0, 0)
                    if max(speaker, chapter) >= 2**32:
                        raise RuntimeError(f"LibriTTSDataset: {tsv}: the utterance {utt!r} has "
                                           "a speaker or chapter id past uint32.")
                    paths.append(os.path.join(folder, utt + ".wav"))
                    extras.append(_strings(parts[1], parts[2]) +
                                  [np.array(speaker, np.uint32), np.array(chapter, np.uint32),
                                   np.array(utt)])
        self._build(paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
                    num_shards, shard_id)


class TedliumDataset(_AudioDataset):
    """TedliumDataset(dataset_dir, release, usage=None, extensions=None, ...): TED-LIUM
    release1/release2 (usage "train", "test", "dev" or "all": dataset_dir/<usage>/stm/*.stm and
    sph/*.sph) or release3 (dataset_dir/data/). Each STM line "talk channel speaker start end
    <identifier> transcript" is a row: the [start, end) seconds of the talk's .sph file.
    Columns waveform, sample_rate (int32), transcript, talk_id, speaker_id, identifier."""

    _columns_names = ("waveform", "sample_rate", "transcript", "talk_id", "speaker_id",
                      "identifier")
    _sph = True
    _signed_rate = True

    def __init__(self, dataset_dir, release, usage=None, extensions=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, cache=None):
        self.dataset_dir = _check_dir("TedliumDataset", dataset_dir)
        if not isinstance(release, str):
            raise TypeError(f"Argument release with value {release} is not of type [{str}], but "
                            f"got {type(release)}.")
        releases = ["release1", "release2", "release3"]
        if release not in releases:
            raise ValueError(f"Input release is not within the valid set of {releases}.")
        self.release = release
        if release == "release3":
            self.usage = _check_choice("usage", usage, ["all"], "all")
            folders = [os.path.join(self.dataset_dir, "data")]
        else:
            self.usage = _check_choice("usage", usage, ["train", "test", "dev", "all"], "all")
            parts = ["train", "test", "dev"] if self.usage == "all" else [self.usage]
            folders = [os.path.join(self.dataset_dir, p) for p in parts]
        if extensions is not None and not isinstance(extensions, str):
            raise TypeError(f"Argument extensions with value {extensions} is not of type "
                            f"[{str}], but got {type(extensions)}.")
        ext = ".sph" if extensions is None else extensions
        if ext != ".sph":
            raise RuntimeError(f"TedliumDataset: extensions {ext!r} is not supported.")
        paths, extras, segments = [], [], []
        for folder in folders:
            for stm in sorted(glob.glob(os.path.join(folder, "stm", "*.stm"))):
                talk = os.path.splitext(os.path.basename(stm))[0]
                sph = os.path.join(folder, "sph", talk + ext)
                if not os.path.isfile(sph):
                    raise RuntimeError(f"TedliumDataset: the audio file {sph} of {stm} does not "
                                       f"exist.")
                for no, line in enumerate(_text_lines("TedliumDataset", stm), 1):
                    fields = line.strip().split(" ", 6)
                    if len(fields) < 6 or "ignore_time_segment_in_scoring" in line:
                        continue
                    talk_id, _, speaker, start, end, ident = fields[:6]
                    text = fields[6] if len(fields) > 6 else ""
                    try:
                        start, end = float(start), float(end)
                    except ValueError:
                        start = end = float("nan")
                    if not 0 <= start <= end < float("inf"):  # NaN fails too
                        raise RuntimeError(f"TedliumDataset: {stm}:{no}: the segment's start "
                                           f"and end are not seconds with 0 <= start <= end: "
                                           f"{fields[3]!r}, {fields[4]!r}.")
                    paths.append(sph)
                    segments.append([start, end])
                    extras.append(_strings(text, talk_id, speaker, ident))
        self._build(paths, extras, num_samples, num_parallel_workers, shuffle, sampler,
                    num_shards, shard_id, segments)

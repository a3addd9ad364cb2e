"""The audio file readers (RIFF WAVE, NIST SPHERE) against files written by Python's wave
module and by hand, the fuzz corpus of fuzz_audio, and the audio datasets (YesNo, LJSpeech,
SpeechCommands, GTZAN, CMUArctic, LibriTTS, TED-LIUM) on small trees built here."""
import os
import struct
import wave

import numpy as np
import pytest

import mycel.dataset as ds
from mycel import _mycel

RNG = np.random.default_rng(1)
CORPUS = os.path.join(os.path.dirname(__file__), "..", "..", "fuzz", "corpus", "audio")


def _write_wav(path, samples, rate=16000, width=2):
    """samples: int array [frames, channels] of the given byte width."""
    frames = np.asarray(samples)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(frames.shape[1])
        w.setsampwidth(width)
        w.setframerate(rate)
        if width == 1:
            w.writeframes((frames + 128).astype(np.uint8).tobytes())
        else:
            w.writeframes(frames.astype({2: "<i2", 4: "<i4"}[width]).tobytes())


@pytest.mark.parametrize("width,channels", [(1, 1), (2, 1), (2, 3), (4, 2)])
def test_decode_wav_matches_the_wave_module(tmp_path, width, channels):
    bits = 8 * width
    samples = RNG.integers(-2 ** (bits - 1), 2 ** (bits - 1), (50, channels))
    path = tmp_path / "a.wav"
    _write_wav(path, samples, 22050, width)
    wave_out, rate = _mycel._data.decode_audio(path.read_bytes())
    assert rate == 22050 and wave_out.shape == (channels, 50) and wave_out.dtype == np.float32
    np.testing.assert_allclose(wave_out, (samples / 2.0 ** (bits - 1)).T, rtol=1e-6, atol=1e-9)


def test_decode_wav_chunks_float_and_errors():
    with open(os.path.join(CORPUS, "float32_mono.wav"), "rb") as f:
        out, rate = _mycel._data.decode_audio(f.read()[1:])
    np.testing.assert_array_equal(out, [[0.5, -0.25, 1.0]])
    with open(os.path.join(CORPUS, "list_chunk_odd.wav"), "rb") as f:  # a padded LIST chunk first
        out, _ = _mycel._data.decode_audio(f.read()[1:])
    np.testing.assert_allclose(out, [[7 / 32768, -7 / 32768]])
    with open(os.path.join(CORPUS, "truncated_data.wav"), "rb") as f:  # data chunk past the end
        out, _ = _mycel._data.decode_audio(f.read()[1:])
    assert out.shape == (1, 3)
    with pytest.raises(RuntimeError, match="not a RIFF WAVE file"):
        _mycel._data.decode_audio(b"RIFX0000WAVE")
    with pytest.raises(RuntimeError, match="no data chunk"):
        _mycel._data.decode_audio(b"RIFF" + struct.pack("<I", 28) + b"WAVEfmt " +
                                  struct.pack("<IHHIIHH", 16, 1, 1, 8000, 16000, 2, 16))
    with pytest.raises(RuntimeError, match="unsupported WAVE format tag 2"):
        _mycel._data.decode_audio(b"RIFF" + struct.pack("<I", 36) + b"WAVEfmt " +
                                  struct.pack("<IHHIIHH", 16, 2, 1, 8000, 16000, 2, 16) +
                                  b"data" + struct.pack("<I", 0))


def test_decode_sph_both_byte_orders():
    values = np.array([0, 100, -100, 32767]) / 32768.0
    for name in ("pcm16_le.sph", "pcm16_be.sph"):
        with open(os.path.join(CORPUS, name), "rb") as f:
            out, rate = _mycel._data.decode_audio(f.read()[1:], True)
        assert rate == 16000
        np.testing.assert_allclose(out, [values], rtol=1e-7)
    with pytest.raises(RuntimeError, match="no end_head"):
        _mycel._data.decode_audio(b"NIST_1A\n   1024\n".ljust(1024, b" "), True)


def test_fuzz_corpus_loads_or_fails_typed():
    ok = 0
    for name in sorted(os.listdir(CORPUS)):
        with open(os.path.join(CORPUS, name), "rb") as f:
            data = f.read()
        try:
            _mycel._data.decode_audio(data[1:], bool(data[0] & 1))
            ok += 1
        except (ValueError, TypeError, RuntimeError):
            pass
    assert ok >= 8


def _tone(n):
    return RNG.integers(-3000, 3000, (n, 1))


def test_yes_no_and_lj_speech(tmp_path):
    yes = tmp_path / "yesno"
    yes.mkdir()
    for name in ("0_1_1_0_0_1_0_1", "1_1_1_1_0_0_0_0"):
        _write_wav(yes / f"{name}.wav", _tone(80), 8000)
    rows = list(ds.YesNoDataset(str(yes), shuffle=False).create_dict_iterator(
        num_epochs=1, output_numpy=True))
    assert [r["label"].tolist() for r in rows] == [[0, 1, 1, 0, 0, 1, 0, 1], [1, 1, 1, 1, 0, 0, 0, 0]]
    assert rows[0]["waveform"].shape == (1, 80) and rows[0]["sample_rate"] == 8000
    lj = tmp_path / "lj"
    (lj / "wavs").mkdir(parents=True)
    samples = _tone(33)
    _write_wav(lj / "wavs" / "LJ001.wav", samples, 22050)
    (lj / "metadata.csv").write_text("LJ001|Hello, World.|hello world\n")
    row = next(ds.LJSpeechDataset(str(lj)).create_dict_iterator(num_epochs=1, output_numpy=True))
    assert row["transcription"] == "Hello, World." and row["normalized_transcription"] == "hello world"
    np.testing.assert_allclose(row["waveform"], samples.T / 32768.0)


def test_speech_commands_usage(tmp_path):
    root = tmp_path / "sc"
    for word, files in (("yes", ["aa_nohash_0", "bb_nohash_1"]), ("no", ["cc_nohash_2"]),
                        ("_background_noise_", ["noise"])):
        (root / word).mkdir(parents=True)
        for f in files:
            _write_wav(root / word / f"{f}.wav", _tone(10))
    (root / "testing_list.txt").write_text("yes/bb_nohash_1.wav\n")
    (root / "validation_list.txt").write_text("no/cc_nohash_2.wav\n")

    def rows(usage):
        data = ds.SpeechCommandsDataset(str(root), usage=usage, shuffle=False)
        return [(str(r["label"]), str(r["speaker_id"]), int(r["utterance_number"]))
                for r in data.create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert rows("all") == [("no", "cc", 2), ("yes", "aa", 0), ("yes", "bb", 1)]
    assert rows("test") == [("yes", "bb", 1)]
    assert rows("valid") == [("no", "cc", 2)]
    assert rows("train") == [("yes", "aa", 0)]
    with pytest.raises(ValueError, match=r"usage is not within the valid set"):
        ds.SpeechCommandsDataset(str(root), usage="bad")


def test_gtzan_arctic_libritts(tmp_path):
    (tmp_path / "g" / "jazz").mkdir(parents=True)
    _write_wav(tmp_path / "g" / "jazz" / "jazz.00000.wav", _tone(5))
    row = next(ds.GTZANDataset(str(tmp_path / "g")).create_dict_iterator(num_epochs=1,
                                                                          output_numpy=True))
    assert row["label"] == "jazz" and row["waveform"].dtype == np.float64
    arctic = tmp_path / "a" / "cmu_us_slt_arctic"
    (arctic / "etc").mkdir(parents=True)
    (arctic / "wav").mkdir()
    _write_wav(arctic / "wav" / "arctic_b0007.wav", _tone(5))
    (arctic / "etc" / "txt.done.data").write_text('( arctic_b0007 "Say \\"hi\\" now." )\n')
    row = next(ds.CMUArcticDataset(str(tmp_path / "a"), name="slt").create_dict_iterator(
        num_epochs=1, output_numpy=True))
    assert row["utterance_id"] == "b0007" and row["transcript"] == 'Say \\"hi\\" now.'
    libri = tmp_path / "l" / "dev-clean" / "19" / "198"
    libri.mkdir(parents=True)
    _write_wav(libri / "19_198_000000_000001.wav", _tone(7), 24000)
    (libri / "19_198.trans.tsv").write_text("19_198_000000_000001\tHi there\thi there\n")
    row = next(ds.LibriTTSDataset(str(tmp_path / "l")).create_dict_iterator(num_epochs=1,
                                                                            output_numpy=True))
    assert (int(row["speaker_id"]), int(row["chapter_id"])) == (19, 198)
    assert row["original_text"] == "Hi there" and row["sample_rate"] == 24000


def test_tedlium_segments(tmp_path):
    folder = tmp_path / "ted" / "dev"
    (folder / "sph").mkdir(parents=True)
    (folder / "stm").mkdir()
    samples = np.arange(1600, dtype=np.int16)
    header = (b"NIST_1A\n   1024\nsample_n_bytes -i 2\nchannel_count -i 1\n"
              b"sample_byte_format -s2 01\nsample_rate -i 16000\nsample_coding -s3 pcm\n"
              b"end_head\n").ljust(1024, b" ")
    (folder / "sph" / "talk.sph").write_bytes(header + samples.astype("<i2").tobytes())
    (folder / "stm" / "talk.stm").write_text(
        "talk 1 spk 0.01 0.03 <o,f0,male> hello there\n"
        "talk 1 inter_segment_gap 0.03 0.04 <o,,unknown> ignore_time_segment_in_scoring\n")
    rows = list(ds.TedliumDataset(str(tmp_path / "ted"), "release1", usage="dev").
                create_dict_iterator(num_epochs=1, output_numpy=True))
    assert len(rows) == 1
    np.testing.assert_allclose(rows[0]["waveform"], [samples[160:480] / 32768.0], rtol=1e-6)
    assert rows[0]["transcript"] == "hello there" and rows[0]["sample_rate"].dtype == np.int32
    with pytest.raises(ValueError, match="release is not within the valid set"):
        ds.TedliumDataset(str(tmp_path / "ted"), "release9")


def test_missing_audio_file_is_a_runtime_error(tmp_path):
    lj = tmp_path / "lj"
    lj.mkdir()
    (lj / "metadata.csv").write_text("gone|a|b\n")
    data = ds.LJSpeechDataset(str(lj))
    with pytest.raises(RuntimeError, match="gone.wav"):
        list(data.create_dict_iterator(num_epochs=1, output_numpy=True))

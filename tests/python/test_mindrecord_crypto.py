"""Encrypted MindRecord files (mycel.mindrecord.set_enc_key / set_enc_mode / set_dec_mode):
round trips in every mode through FileReader and MindDataset against the numpy rows written;
the file layout checked with an independent decryptor (the ``cryptography`` package) built
from the format's description (src/data/mindrecord_crypto.h), and a file encrypted by that
independent encryptor read back; wrong keys, wrong modes, plain vs encrypted mismatches,
tampered and truncated files are clear RuntimeErrors; a user's cipher (a function); the key
and mode checks."""
import os
import stat
import struct

import numpy as np
import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import mycel.dataset as ds
from mycel import _mycel
from mycel.mindrecord import FileReader, FileWriter, set_dec_mode, set_enc_key, set_enc_mode

SCHEMA = {"id": {"type": "int32"}, "name": {"type": "string"}, "data": {"type": "bytes"},
          "vec": {"type": "float32", "shape": [3]}}
SECRET = b"THE-PLAIN-TEXT-MARKER"
MAGIC = {"AES-GCM": 0x7F3A5ED8, "AES-CBC": 0x7F3A5ED9, "SM4-CBC": 0x7F3A5EDA}
HAVE_SM4 = _mycel._data.mindrecord_crypto_mode_known("SM4-CBC")
MODES = ["AES-GCM", "AES-CBC"] + (["SM4-CBC"] if HAVE_SM4 else [])
FAILED = "Failed to decrypt data, please check if enc_key and enc_mode / dec_mode is valid."


@pytest.fixture(autouse=True)
def _plain_afterwards():
    yield
    set_enc_key(None)
    set_enc_mode("AES-GCM")
    set_dec_mode(None)


def _rows(n=12):
    rng = np.random.default_rng(0)
    return [{"id": i, "name": f"row-{i}", "data": SECRET + bytes([i]) * i,
             "vec": rng.standard_normal(3).astype(np.float32)} for i in range(n)]


def _write(path, rows=None, small=True):
    """Writes rows (default _rows()) to path; small: a 16 KiB header room, else MindSpore's
    default 16 MiB (so the file spans several 4 MiB encrypted chunks)."""
    rows = _rows() if rows is None else rows
    w = FileWriter(str(path))
    if small:
        w.set_header_size(1 << 14)
        w.set_page_size(1 << 15)
    w.add_schema(SCHEMA, "crypto test")
    w.write_raw_data(rows)
    w.commit()
    return rows


def _check_reader(path, rows):
    r = FileReader(str(path))
    got = list(r.get_next())
    r.close()
    assert len(got) == len(rows)
    for g, w in zip(got, rows):
        assert g["id"] == w["id"] and g["name"] == w["name"] and g["data"] == w["data"]
        np.testing.assert_array_equal(g["vec"], w["vec"])


def _check_dataset(path, rows):
    d = ds.MindDataset(str(path), shuffle=False)
    got = list(d.create_dict_iterator(num_epochs=1, output_numpy=True))
    assert len(got) == len(rows)
    for g, w in zip(got, rows):
        assert int(g["id"]) == w["id"] and str(g["name"]) == w["name"]
        assert g["data"].tobytes() == w["data"]
        np.testing.assert_array_equal(g["vec"], w["vec"])


def _key(mode, n=16):
    return ("0123456789abcdefghijklmnopqrstuv")[:n] if mode != "SM4-CBC" else "fedcba9876543210"


# ---- an independent reader and writer of the layout (mindrecord_crypto.h) --------------------

def _oracle_decrypt(blob, key, mode):
    """The plain bytes of an encrypted file, parsed and decrypted with `cryptography`."""
    assert blob.endswith(b"ENCRYPT") and blob[-14:-7] == mode.encode()
    body, out, at = blob[:-14], [], 0
    while True:
        (n,) = struct.unpack(">i", body[at:at + 4])
        at += 4
        if n == 0:
            assert at == len(body)
            return b"".join(out)
        block = body[at:at + n]
        at += n
        (magic,) = struct.unpack("<I", block[:4])
        assert magic == MAGIC[mode]
        pos = 4
        tag = None
        if mode == "AES-GCM":
            tag, pos = block[4:20], 20
        m, iv_len = struct.unpack("<ii", block[pos:pos + 8])
        assert m == len(block) - pos - 4 and iv_len == 16
        iv = block[pos + 8:pos + 24]
        (c,) = struct.unpack("<i", block[pos + 24:pos + 28])
        cipher = block[pos + 28:]
        assert len(cipher) == c
        if mode == "AES-GCM":
            out.append(AESGCM(key).decrypt(iv, cipher + tag, None))
        else:
            algo = algorithms.AES(key) if mode == "AES-CBC" else algorithms.SM4(key)
            dec = Cipher(algo, modes.CBC(iv)).decryptor()
            unpad = padding.PKCS7(128).unpadder()
            out.append(unpad.update(dec.update(cipher) + dec.finalize()) + unpad.finalize())


def _oracle_encrypt(plain, key, mode, chunk=5000):
    """An encrypted file of plain bytes, made with `cryptography` from the layout."""
    out = []
    for start in range(0, len(plain), chunk):
        part, iv = plain[start:start + chunk], os.urandom(16)
        if mode == "AES-GCM":
            sealed = AESGCM(key).encrypt(iv, part, None)
            cipher, tag = sealed[:-16], sealed[-16:]
        else:
            pad = padding.PKCS7(128).padder()
            algo = algorithms.AES(key) if mode == "AES-CBC" else algorithms.SM4(key)
            enc = Cipher(algo, modes.CBC(iv)).encryptor()
            cipher, tag = enc.update(pad.update(part) + pad.finalize()) + enc.finalize(), b""
        block = (struct.pack("<I", MAGIC[mode]) + tag +
                 struct.pack("<ii", 24 + len(cipher), 16) + iv +
                 struct.pack("<i", len(cipher)) + cipher)
        out += [struct.pack(">i", len(block)), block]
    return b"".join(out) + struct.pack(">i", 0) + mode.encode() + b"ENCRYPT"


# ---- round trips -------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("key_len", [16, 24, 32])
def test_round_trip(tmp_path, mode, key_len):
    if mode == "SM4-CBC" and key_len != 16:
        set_enc_mode(mode)
        set_enc_key(_key("AES-GCM", key_len))
        with pytest.raises(ValueError, match="SM4-CBC key must be 16"):
            _write(tmp_path / "x.mr")
        return
    key = _key(mode, key_len)
    set_enc_key(key)
    set_enc_mode(mode)
    path = tmp_path / "enc.mr"
    rows = _write(path, small=key_len == 32)
    for f in (path, tmp_path / "enc.mr.db"):
        blob = f.read_bytes()
        assert blob.endswith(mode.encode() + b"ENCRYPT")
        assert SECRET not in blob and b"SQLite format" not in blob
    _check_reader(path, rows)
    _check_dataset(path, rows)
    # The decrypted copies are the independent decryptor's plain bytes, in a private folder.
    folder = tmp_path / ".decrypt_mindrecord"
    assert stat.S_IMODE(os.stat(folder).st_mode) == 0o700
    for name in ("enc.mr", "enc.mr.db"):
        plain = (folder / name).read_bytes()
        assert stat.S_IMODE(os.stat(folder / name).st_mode) == 0o600
        assert _oracle_decrypt((tmp_path / name).read_bytes(), key.encode(), mode) == plain
    # Without a key the plain copy reads as any MindRecord file.
    set_enc_key(None)
    _check_reader(folder / "enc.mr", rows)


@pytest.mark.parametrize("mode", MODES)
def test_reads_files_encrypted_from_the_layout(tmp_path, mode):
    """A plain set encrypted by the independent encryptor (several chunks) reads back."""
    plain = tmp_path / "plain.mr"
    rows = _write(plain)
    key = _key(mode)
    # The header names the file it was written as: the encrypted copy keeps that name.
    (tmp_path / "d").mkdir()
    for name in ("plain.mr", "plain.mr.db"):
        blob = _oracle_encrypt((tmp_path / name).read_bytes(), key.encode(), mode)
        (tmp_path / "d" / name).write_bytes(blob)
    set_enc_key(key)
    set_enc_mode(mode)
    _check_reader(tmp_path / "d" / "plain.mr", rows)
    _check_dataset(tmp_path / "d" / "plain.mr", rows)


def test_empty_set_and_dataset_save(tmp_path):
    set_enc_key("k" * 32)
    w = FileWriter(str(tmp_path / "empty.mr"))
    w.add_schema(SCHEMA)
    w.commit()
    assert FileReader(str(tmp_path / "empty.mr")).len() == 0
    src = ds.NumpySlicesDataset({"a": np.arange(6, dtype=np.int64)}, shuffle=False)
    src.save(str(tmp_path / "saved.mr"))
    assert b"ENCRYPT" == (tmp_path / "saved.mr").read_bytes()[-7:]
    got = [int(r["a"]) for r in ds.MindDataset(str(tmp_path / "saved.mr"), shuffle=False)
           .create_dict_iterator(num_epochs=1, output_numpy=True)]
    assert got == list(range(6))
    with pytest.raises(RuntimeError, match="automatic sharding function is unavailable"):
        src.save(str(tmp_path / "two.mr"), num_files=2)
    with pytest.raises(RuntimeError, match="automatic sharding function is unavailable"):
        FileWriter(str(tmp_path / "s.mr"), 2)


def test_user_cipher(tmp_path):
    """A function as the mode: applied as given, recorded as UDF-ENC, read with its inverse."""
    calls = []

    def enc(f_in, size, f_out, key):
        calls.append(size)
        data = f_in.read(size)
        pad = key.encode() * (len(data) // len(key) + 1)
        f_out.write(bytes(a ^ b for a, b in zip(data, pad)))

    def dec(f_in, size, f_out, key):
        data = f_in.read(size - 11)  # up to be32(0) + "UDF-ENC"
        pad = key.encode() * (len(data) // len(key) + 1)
        f_out.write(bytes(a ^ b for a, b in zip(data, pad)))

    set_enc_key("0123456789012345")
    set_enc_mode(enc)
    rows = _write(tmp_path / "u.mr")
    assert len(calls) == 2  # the file and its index
    assert (tmp_path / "u.mr").read_bytes().endswith(b"\0\0\0\0UDF-ENCENCRYPT")
    with pytest.raises(RuntimeError, match="custom decryption"):
        FileReader(str(tmp_path / "u.mr"))
    set_dec_mode(dec)
    _check_reader(tmp_path / "u.mr", rows)
    set_dec_mode("AES-GCM")
    with pytest.raises(RuntimeError, match=FAILED):
        FileReader(str(tmp_path / "u.mr"))


# ---- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", MODES)
def test_wrong_key_is_a_clear_error(tmp_path, mode):
    set_enc_mode(mode)
    set_enc_key(_key(mode))
    _write(tmp_path / "w.mr")
    other = "X" + _key(mode)[1:]
    set_enc_key(other)
    for read in (lambda p: FileReader(p), lambda p: ds.MindDataset(p)):
        # CBC has no tag: a wrong key fails the padding (nearly always) or, past it, the
        # MindRecord reader's own checks; either way a RuntimeError, never a crash.
        match = FAILED if mode == "AES-GCM" else "Failed to decrypt|truncated or corrupt"
        with pytest.raises(RuntimeError, match=match):
            read(str(tmp_path / "w.mr"))
    # A failed decryption leaves no partial or temporary copy behind.
    left = os.listdir(tmp_path / ".decrypt_mindrecord")
    assert all(name in ("w.mr", "w.mr.db") for name in left), left
    if mode == "AES-GCM":
        assert left == []


def test_plain_encrypted_and_mode_mismatches(tmp_path):
    _write(tmp_path / "plain.mr")
    set_enc_key("abcdefghijklmnop")
    with pytest.raises(RuntimeError, match="The mindrecord file is not encrypted. You can set"):
        FileReader(str(tmp_path / "plain.mr"))
    with pytest.raises(RuntimeError, match="The mindrecord file is not encrypted. You can set"):
        ds.MindDataset(str(tmp_path / "plain.mr"))
    _write(tmp_path / "enc.mr")
    set_enc_key(None)
    with pytest.raises(RuntimeError, match="The mindrecord file is encrypted. You need to"):
        FileReader(str(tmp_path / "enc.mr"))
    with pytest.raises(RuntimeError, match="The mindrecord file is encrypted. You need to"):
        ds.MindDataset([str(tmp_path / "enc.mr")])
    set_enc_key("abcdefghijklmnop")
    set_enc_mode("AES-CBC")
    with pytest.raises(RuntimeError, match=FAILED):
        FileReader(str(tmp_path / "enc.mr"))
    set_dec_mode("AES-GCM")  # dec_mode wins over enc_mode
    assert FileReader(str(tmp_path / "enc.mr")).len() == 12


def test_tampered_and_truncated_files_are_detected(tmp_path):
    key = "abcdefghijklmnop"
    set_enc_key(key)
    _write(tmp_path / "t.mr")
    good = (tmp_path / "t.mr").read_bytes()
    n = len(good)
    # Every region: the framing, the magic, the tag, the lengths, the IV, the ciphertext,
    # the end mark.
    spots = [0, 3, 4, 8, 20, 24, 30, 40, 60, 100, n // 3, n // 2, n - 200, n - 30, n - 20,
             n - 15, n - 12, n - 3]
    for pos in spots:
        bad = bytearray(good)
        bad[pos] ^= 0x01
        (tmp_path / "t.mr").write_bytes(bytes(bad))
        with pytest.raises(RuntimeError, match="Failed to decrypt|is encrypted|is not encrypted"):
            FileReader(str(tmp_path / "t.mr"))
    for cut in [1, 7, 14, 15, 100, n // 2, n - 1]:
        (tmp_path / "t.mr").write_bytes(good[:n - cut])
        with pytest.raises(RuntimeError, match="Failed to decrypt|is not encrypted"):
            FileReader(str(tmp_path / "t.mr"))
    (tmp_path / "t.mr").write_bytes(good)
    assert FileReader(str(tmp_path / "t.mr")).len() == 12
    (tmp_path / "t.mr").write_bytes(b"")
    with pytest.raises(RuntimeError, match="is not encrypted"):
        FileReader(str(tmp_path / "t.mr"))


def test_key_and_mode_checks():
    for bad in (b"0123456789abcdef", 1234567890123456, ["k"] * 16):
        with pytest.raises(ValueError, match="enc_key is not str"):
            set_enc_key(bad)
    for bad in ("short", "x" * 17, "é" * 16):
        with pytest.raises(ValueError, match="length of input enc_key"):
            set_enc_key(bad)
    for bad in ("AES-ECB", "aes-gcm", ""):
        with pytest.raises(ValueError, match="enc_mode is invalid"):
            set_enc_mode(bad)
        with pytest.raises(ValueError, match="dec_mode is invalid"):
            set_dec_mode(bad)
    with pytest.raises(ValueError, match="enc_mode is not str"):
        set_enc_mode(5)
    set_enc_key("a" * 24)
    set_enc_mode("AES-CBC")
    set_dec_mode(None)


def test_sm4_is_available_in_this_openssl():
    """Debian's OpenSSL 3 provides SM4 (the default provider); this build must find it."""
    assert HAVE_SM4

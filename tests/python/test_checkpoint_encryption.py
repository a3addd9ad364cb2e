"""Encrypted checkpoints (issue #18 scope 8): save_checkpoint(enc_key, enc_mode),
load_checkpoint(dec_key, dec_mode) and load_distributed_checkpoint(dec_key, dec_mode)
through the ``cryptography`` package (mycel/train/_ckpt_crypto.py). The oracle: the file
decrypted here by hand with the same library's AES-GCM / AES-CBC / SM4-CBC is byte for byte
the checkpoint save_checkpoint writes in the clear; the values load back; a wrong key, a
wrong mode, an altered file, an encrypted file without a key and a key for a plain file are
ValueErrors."""
import numpy as np
import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

import mycel as ms
from mycel import nn
from mycel.parallel.checkpoint import load_distributed_checkpoint
from mycel.train import _ckpt_crypto

KEYS = {"AES-GCM": bytes(range(32)), "AES-CBC": bytes(range(16, 40)),
        "SM4-CBC": bytes(range(100, 116))}


def net():
    ms.set_seed(3)
    return nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])


def by_hand(data, key, mode):
    """The plaintext of an encrypted file, decrypted without mycel."""
    head = len(_ckpt_crypto.MAGIC)
    assert data[:head] == _ckpt_crypto.MAGIC and data[head] == _ckpt_crypto.MODES[mode]
    if mode == "AES-GCM":
        return AESGCM(key).decrypt(data[head + 1:head + 13], data[head + 13:],
                                   _ckpt_crypto.MAGIC)
    algo = algorithms.SM4(key) if mode == "SM4-CBC" else algorithms.AES(key)
    dec = Cipher(algo, modes.CBC(data[head + 1:head + 17])).decryptor()
    padded = dec.update(data[head + 17:]) + dec.finalize()
    unpad = padding.PKCS7(128).unpadder()
    return unpad.update(padded) + unpad.finalize()


@pytest.mark.parametrize("mode", sorted(KEYS))
@pytest.mark.parametrize("async_save", [False, True])
def test_an_encrypted_checkpoint_is_the_plain_one_encrypted(tmp_path, mode, async_save):
    n, key = net(), KEYS[mode]
    plain, enc = str(tmp_path / "plain.ckpt"), str(tmp_path / "enc.ckpt")
    ms.save_checkpoint(n, plain)
    ms.save_checkpoint(n, enc, enc_key=key, enc_mode=mode, async_save=async_save)
    loaded = ms.load_checkpoint(enc, dec_key=key, dec_mode=mode)  # waits for an async save
    with open(plain, "rb") as f:
        clear = f.read()
    with open(enc, "rb") as f:
        data = f.read()
    assert by_hand(data, key, mode) == clear
    assert clear[-64:] not in data  # not stored in the clear
    for p in n.trainable_params():
        np.testing.assert_array_equal(loaded[p.name].asnumpy(), p.asnumpy())
    # Into a network with other weights: they become the saved ones.
    m = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])
    ms.load_checkpoint(enc, m, dec_key=key, dec_mode=mode)
    for p, q in zip(n.trainable_params(), m.trainable_params()):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())


def test_two_saves_differ_but_load_alike(tmp_path):
    # A fresh nonce per save: the same checkpoint encrypts to different bytes.
    n, key = net(), KEYS["AES-GCM"]
    a, b = str(tmp_path / "a.ckpt"), str(tmp_path / "b.ckpt")
    ms.save_checkpoint(n, a, enc_key=key)
    ms.save_checkpoint(n, b, enc_key=key)
    assert open(a, "rb").read() != open(b, "rb").read()
    la, lb = ms.load_checkpoint(a, dec_key=key), ms.load_checkpoint(b, dec_key=key)
    for name in la:
        np.testing.assert_array_equal(la[name].asnumpy(), lb[name].asnumpy())


def test_the_errors(tmp_path):
    n = net()
    enc, plain = str(tmp_path / "enc.ckpt"), str(tmp_path / "plain.ckpt")
    ms.save_checkpoint(n, enc, enc_key=KEYS["AES-GCM"])
    ms.save_checkpoint(n, plain)
    with pytest.raises(ValueError, match="is encrypted: pass its key"):
        ms.load_checkpoint(enc)
    with pytest.raises(ValueError, match="is not encrypted, but dec_key was given"):
        ms.load_checkpoint(plain, dec_key=KEYS["AES-GCM"])
    with pytest.raises(ValueError, match="cannot be decrypted: a wrong dec_key"):
        ms.load_checkpoint(enc, dec_key=bytes(32))
    with pytest.raises(ValueError, match="encrypted with AES-GCM, but dec_mode is 'AES-CBC'"):
        ms.load_checkpoint(enc, dec_key=KEYS["AES-CBC"], dec_mode="AES-CBC")
    data = bytearray(open(enc, "rb").read())
    data[-20] ^= 1  # altered: the tag no longer matches
    altered = tmp_path / "altered.ckpt"
    altered.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="cannot be decrypted"):
        ms.load_checkpoint(str(altered), dec_key=KEYS["AES-GCM"])
    # AES-CBC is not authenticated: a wrong key fails the padding or the checkpoint's CRC.
    cbc = str(tmp_path / "cbc.ckpt")
    ms.save_checkpoint(n, cbc, enc_key=KEYS["AES-CBC"], enc_mode="AES-CBC")
    with pytest.raises(ValueError, match="cannot be decrypted|not valid once decrypted"):
        ms.load_checkpoint(cbc, dec_key=bytes(24), dec_mode="AES-CBC")
    for kwargs, err, msg in (
            ({"enc_key": "secret" * 4}, TypeError, "'enc_key' must be bytes"),
            ({"enc_key": bytes(10)}, ValueError, "16 or 24 or 32 bytes long for AES-GCM"),
            ({"enc_key": bytes(32), "enc_mode": "SM4-CBC"}, ValueError, "16 bytes long"),
            ({"enc_key": bytes(16), "enc_mode": "DES"}, ValueError, "'enc_mode' must be one of"),
            ({"enc_key": bytes(16), "enc_mode": 1}, TypeError, "'enc_mode' must be a str")):
        with pytest.raises(err, match=msg):
            ms.save_checkpoint(n, str(tmp_path / "bad.ckpt"), **kwargs)
    with pytest.raises(ValueError, match="'dec_key' must be 16 or 24 or 32 bytes long"):
        ms.load_checkpoint(enc, dec_key=b"short")


def test_load_distributed_checkpoint_takes_the_keys(tmp_path):
    # Two rank files (whole copies: no strategy file), encrypted: the distributed loader
    # decrypts each with dec_key and dec_mode.
    n, key = net(), KEYS["SM4-CBC"]
    files = [str(tmp_path / f"rank{r}.ckpt") for r in range(2)]
    for f in files:
        ms.save_checkpoint(n, f, enc_key=key, enc_mode="SM4-CBC")
    m = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2)])
    load_distributed_checkpoint(m, files, dec_key=key, dec_mode="SM4-CBC")
    for p, q in zip(n.trainable_params(), m.trainable_params()):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())
    with pytest.raises(ValueError, match="is encrypted: pass its key"):
        load_distributed_checkpoint(m, files)
    with pytest.raises(ValueError, match="cannot be decrypted|not valid once decrypted"):
        load_distributed_checkpoint(m, files, dec_key=bytes(16), dec_mode="SM4-CBC")

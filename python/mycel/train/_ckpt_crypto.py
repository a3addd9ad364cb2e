"""Encrypted checkpoints: save_checkpoint(enc_key, enc_mode), load_checkpoint(dec_key,
dec_mode) and load_distributed_checkpoint(dec_key, dec_mode) (MindSpore's arguments). The
whole checkpoint file (MindSpore's format, header to footer, as save_checkpoint writes it in
the clear) is encrypted with the ``cryptography`` package (OpenSSL's ciphers):

- "AES-GCM" (the default): a random 12-byte nonce, the 16-byte tag after the ciphertext;
  authenticated, so a wrong key or an altered file is detected. Key: 16, 24 or 32 bytes.
- "AES-CBC": a random 16-byte IV, PKCS7 padding (not authenticated: a wrong key is caught
  by the padding or by the checkpoint's own CRC). Key: 16, 24 or 32 bytes.
- "SM4-CBC": as AES-CBC with SM4 (a 16-byte key).

The file: MAGIC, one byte naming the mode (MODES), the nonce or IV, the ciphertext. It is
mycel's own layout (MindSpore's encrypted files are not read, nor are these by MindSpore).
"""
import os

MAGIC = b"MYCEL-ENCRYPTED-CKPT\x00"
MODES = {"AES-GCM": 1, "AES-CBC": 2, "SM4-CBC": 3}
_NONCE = {"AES-GCM": 12, "AES-CBC": 16, "SM4-CBC": 16}


def check(func, key_name, key, mode_name, mode):
    """The key as bytes after the checks: TypeError for a key not bytes or a mode not str,
    ValueError for an unknown mode or a key length the mode does not take."""
    if not isinstance(mode, str):
        raise TypeError(f"For '{func}', '{mode_name}' must be a str, but got "
                        f"{type(mode).__name__}.")
    if mode not in MODES:
        raise ValueError(f"For '{func}', '{mode_name}' must be one of {sorted(MODES)}, but got "
                         f"{mode!r}.")
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"For '{func}', '{key_name}' must be bytes, but got "
                        f"{type(key).__name__}.")
    sizes = (16,) if mode == "SM4-CBC" else (16, 24, 32)
    if len(key) not in sizes:
        raise ValueError(f"For '{func}', '{key_name}' must be {' or '.join(map(str, sizes))} "
                         f"bytes long for {mode}, but got {len(key)} bytes.")
    return bytes(key)


def _cbc(mode, key, iv):
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    algo = algorithms.SM4(key) if mode == "SM4-CBC" else algorithms.AES(key)
    return Cipher(algo, modes.CBC(iv))


def encrypt(plain, key, mode, magic=MAGIC):
    """The encrypted file's bytes for the checkpoint bytes `plain` (`magic`: the file's first
    bytes, also authenticated by AES-GCM; export's MINDIR files have their own)."""
    nonce = os.urandom(_NONCE[mode])
    if mode == "AES-GCM":
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        body = AESGCM(key).encrypt(nonce, bytes(plain), magic)
    else:
        from cryptography.hazmat.primitives import padding
        padder = padding.PKCS7(128).padder()
        padded = padder.update(bytes(plain)) + padder.finalize()
        enc = _cbc(mode, key, nonce).encryptor()
        body = enc.update(padded) + enc.finalize()
    return magic + bytes([MODES[mode]]) + nonce + body


def is_encrypted(path):
    """Whether the regular file at path starts as an encrypted checkpoint (False for anything
    else, which the reader then judges: a FIFO or a device is never opened here)."""
    if not os.path.isfile(path):
        return False
    with open(path, "rb") as f:
        return f.read(len(MAGIC)) == MAGIC


def decrypt_file(path, key, mode, func):
    """The checkpoint bytes of the encrypted file at path. ValueError: not an encrypted
    checkpoint, saved with another mode, or a wrong key / an altered file."""
    if not os.path.isfile(path):
        raise ValueError(f"For '{func}', the checkpoint file {path} does not exist or is not a "
                         f"regular file.")
    with open(path, "rb") as f:
        data = f.read()
    return decrypt(data, key, mode, func, f"the checkpoint file {path}")


def decrypt(data, key, mode, func, what, magic=MAGIC):
    """The plain bytes of the encrypted bytes `data` (`what` names them in errors: a file).
    ValueError: not encrypted with `magic`, saved with another mode, or a wrong key / altered
    bytes."""
    if not data.startswith(magic) or len(data) < len(magic) + 1:
        raise ValueError(f"For '{func}', {what} is not encrypted, but dec_key was given.")
    code = data[len(magic)]
    saved = {v: k for k, v in MODES.items()}.get(code)
    if saved != mode:
        raise ValueError(f"For '{func}', {what} was encrypted with "
                         f"{saved or 'an unknown mode'}, but dec_mode is {mode!r}.")
    start = len(magic) + 1
    nonce, body = data[start:start + _NONCE[mode]], data[start + _NONCE[mode]:]
    wrong = ValueError(f"For '{func}', {what} cannot be decrypted: a wrong "
                       f"dec_key, or the file was altered.")
    try:
        if mode == "AES-GCM":
            from cryptography.exceptions import InvalidTag
            from cryptography.hazmat.primitives.ciphers.aead import AESGCM
            try:
                return AESGCM(key).decrypt(nonce, body, magic)
            except InvalidTag:
                raise wrong from None
        from cryptography.hazmat.primitives import padding
        dec = _cbc(mode, key, nonce).decryptor()
        padded = dec.update(body) + dec.finalize()
        unpadder = padding.PKCS7(128).unpadder()
        return unpadder.update(padded) + unpadder.finalize()
    except ValueError as e:
        if e is wrong:
            raise
        raise wrong from None

"""mycel.mindrecord.config: encrypted MindRecord files (MindSpore's ``set_enc_key``,
``set_enc_mode``, ``set_dec_mode``).

With a key set, ``FileWriter.commit`` encrypts the shard and its ``.db`` index as a whole (one
shard per writer, as MindSpore), and ``FileReader``/``MindDataset`` decrypt each file they are
given into ``.decrypt_mindrecord/`` beside it (a folder of mode 0700, files of mode 0600) and
read the plain copy. The layout is MindSpore's (src/data/mindrecord_crypto.h), so files
encrypted by either are read by the other: chunks of at most 4 MiB, each under a fresh random
IV, then ``be32(0)``, the 7-byte mode name and ``ENCRYPT``. The ciphers are OpenSSL's (EVP):
"AES-GCM" (the default; each chunk carries an authentication tag, so a wrong key or an altered
file is detected), "AES-CBC" and "SM4-CBC" (PKCS#7 padding, not authenticated: the MindRecord
reader's own checks catch most damage). A function as the mode is the user's cipher:
``enc_mode(f_in, file_size, f_out, key)`` writes the encrypted bytes of the open file ``f_in``
to ``f_out`` (``dec_mode`` the inverse, set with ``set_dec_mode``); such files record the
mode "UDF-ENC".

The plain copies stay on disk after reading (as in MindSpore): remove ``.decrypt_mindrecord``
when done. Settings are process-wide, like MindSpore's.
"""
import os
import stat
import tempfile

from mycel import _mycel

__all__ = ["set_enc_key", "set_enc_mode", "set_dec_mode"]

_MODES = ("AES-GCM", "AES-CBC", "SM4-CBC")
_UDF = "UDF-ENC"  # the mode name recorded for a user's cipher
DECRYPT_DIRECTORY = ".decrypt_mindrecord"
ENCRYPT_END_FLAG = b"ENCRYPT"

_state = {"key": None, "enc_mode": "AES-GCM", "dec_mode": None}


def set_enc_key(enc_key):
    """Sets the key MindRecord files are encrypted and decrypted with: a str of 16, 24 or 32
    characters (its UTF-8 bytes are the key, which must then have that many bytes too; SM4-CBC
    takes 16), or None to write and read plain files (the default).

    Raises ValueError for anything else (MindSpore's type)."""
    if enc_key is None:
        _state["key"] = None
        return
    if not isinstance(enc_key, str):
        raise ValueError(f"The input enc_key is not str, but got {type(enc_key).__name__}.")
    if len(enc_key) not in (16, 24, 32) or len(enc_key.encode()) != len(enc_key):
        raise ValueError(f"The length of input enc_key is not 16, 24, 32 (got "
                         f"{len(enc_key)} characters, {len(enc_key.encode())} UTF-8 bytes).")
    _state["key"] = enc_key


def _check_mode(arg, mode):
    if callable(mode):
        return mode
    if not isinstance(mode, str):
        raise ValueError(f"The input {arg} is not str, but got {type(mode).__name__}.")
    if mode not in _MODES:
        raise ValueError(f"The input {arg} is invalid: {mode!r}; the modes are "
                         f"{', '.join(_MODES)} or a function.")
    if not _mycel._data.mindrecord_crypto_mode_known(mode):
        raise ValueError(f"The input {arg} {mode!r} is not available: this OpenSSL lacks it.")
    return mode


def set_enc_mode(enc_mode="AES-GCM"):
    """Sets the cipher of files written with a key: "AES-GCM" (default), "AES-CBC", "SM4-CBC",
    or a function ``enc_mode(f_in, file_size, f_out, key)`` (module doc). Readers decrypt with
    it too unless ``set_dec_mode`` names another. Raises ValueError for anything else."""
    _state["enc_mode"] = _check_mode("enc_mode", enc_mode)


def set_dec_mode(dec_mode="AES-GCM"):
    """Sets the cipher readers decrypt with: a mode name as set_enc_mode's, a function
    ``dec_mode(f_in, file_size, f_out, key)`` (the inverse of a user's enc_mode; f_in is
    positioned at 0 and file_size excludes the 'ENCRYPT' mark, as MindSpore), or None: the
    enc_mode (default). Raises ValueError for anything else."""
    _state["dec_mode"] = None if dec_mode is None else _check_mode("dec_mode", dec_mode)


def _get_enc_key():
    return _state["key"]


def _get_enc_mode():
    return _state["enc_mode"]


def _get_dec_mode():
    """The decryption mode: dec_mode, else enc_mode (a user's enc_mode needs a dec_mode)."""
    if _state["dec_mode"] is not None:
        return _state["dec_mode"]
    if callable(_state["enc_mode"]):
        raise RuntimeError("You use custom encryption, so you must also define custom "
                           "decryption with mycel.mindrecord.set_dec_mode(...).")
    return _state["enc_mode"]


def _mode_name(mode):
    return _UDF if callable(mode) else mode


def check_writer(func, shard_num):
    """RuntimeError when a key is set and a writer would make several shards."""
    if _state["key"] is not None and shard_num > 1:
        raise RuntimeError(f"{func}: When encode mode is enabled, the automatic sharding "
                           f"function is unavailable (shard_num={shard_num}); write one file "
                           f"per FileWriter.")


def encrypt_with_udf(path, key, enc_mode):
    """Encrypts the file at path in place with the user's function (MindSpore's framing)."""
    tmp = path + ".encrypt"
    try:
        with open(path, "rb") as f_in, open(tmp, "wb") as f_out:
            enc_mode(f_in, os.path.getsize(path), f_out, key)
            f_out.write((0).to_bytes(4, "big") + _UDF.encode() + ENCRYPT_END_FLAG)
        os.chmod(tmp, stat.S_IRUSR | stat.S_IWUSR)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _decrypt_dir(path):
    """The folder (mode 0700) beside path that holds plain copies; a RuntimeError when it
    exists as anything but a folder of this user's."""
    parent = os.path.dirname(os.path.realpath(path))
    folder = os.path.join(parent, DECRYPT_DIRECTORY)
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
        raise RuntimeError(f"{folder} exists and is not a folder of this user's; it holds the "
                           f"decrypted copies of MindRecord files.")
    os.chmod(folder, 0o700)
    return folder


def _decrypt_one(func, src, dst, key, mode):
    if callable(mode):
        size = os.path.getsize(src) - len(ENCRYPT_END_FLAG)
        # A unique temporary file (0600) renamed over dst when complete, as in C++.
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(dst) + ".",
                                   dir=os.path.dirname(dst))
        try:
            with open(src, "rb") as f_in, os.fdopen(fd, "wb") as f_out:
                mode(f_in, size, f_out, key)
            os.replace(tmp, dst)
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        return
    _mycel._data.mindrecord_decrypt_file(src, dst, key, mode, func)


def readable_path(func, path):
    """The file to read for `path` (and its ``.db`` beside it): path itself without a key;
    with a key, the decrypted copy in ``.decrypt_mindrecord/`` (module doc).

    RuntimeError (MindSpore's words) for an encrypted file without a key, a plain file with a
    key, a mode other than the file's, or a wrong key / damaged file."""
    key = _state["key"]
    if not os.path.isfile(path):
        return path  # the reader names a missing file
    recorded = _mycel._data.mindrecord_encrypted_mode(path)
    if key is None:
        if recorded:
            raise RuntimeError(f"{func}: The mindrecord file is encrypted. You need to configure "
                               f"'mycel.mindrecord.set_enc_key(...)' and "
                               f"'mycel.mindrecord.set_enc_mode(...)' for decryption ({path}).")
        return path
    if not recorded:
        raise RuntimeError(f"{func}: The mindrecord file is not encrypted. You can set "
                           f"'mycel.mindrecord.set_enc_key(None)' to disable the decryption "
                           f"({path}).")
    mode = _get_dec_mode()
    if recorded != _mode_name(mode):
        raise RuntimeError(f"{func}: Failed to decrypt data, please check if enc_key and "
                           f"enc_mode / dec_mode is valid. ({path} was encrypted with "
                           f"{recorded}, the mode set is {_mode_name(mode)}.)")
    folder = _decrypt_dir(path)
    dst = os.path.join(folder, os.path.basename(os.path.realpath(path)))
    _decrypt_one(func, path, dst, key, mode)
    index = path + ".db"
    if os.path.isfile(index):
        if _mycel._data.mindrecord_encrypted_mode(index) != recorded:
            raise RuntimeError(f"{func}: Failed to decrypt data, please check if enc_key and "
                               f"enc_mode / dec_mode is valid. (the index {index} is not "
                               f"encrypted as {path} is.)")
        _decrypt_one(func, index, dst + ".db", key, mode)
    return dst

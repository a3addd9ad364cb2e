"""mycel.export(..., enc_key, enc_mode) and mycel.load(..., dec_key, dec_mode): an encrypted
MINDIR file loads back with its key and mode (AES-GCM, AES-CBC, SM4-CBC, or the user's own
cipher function) and runs as the original network; the bytes on disk are not the plain file;
a wrong key, a wrong mode or a missing key is a ValueError, never a crash."""
import numpy as np
import pytest

import mycel as ms
from mycel import nn


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)

    def construct(self, x):
        return ms.ops.relu(self.fc(x)) * 2


X = ms.Tensor(np.random.RandomState(3).randn(2, 4).astype(np.float32))
KEY = b"0123456789abcdef"


@pytest.mark.parametrize("enc_mode", ["AES-GCM", "AES-CBC", "SM4-CBC"])
def test_encrypted_export_loads_back_with_its_key(tmp_path, enc_mode):
    net = Net()
    want = net(X).asnumpy()
    ms.export(net, X, file_name=str(tmp_path / "m"), enc_key=KEY, enc_mode=enc_mode)
    ms.export(net, X, file_name=str(tmp_path / "plain"))
    data = (tmp_path / "m.mindir").read_bytes()
    plain = (tmp_path / "plain.mindir").read_bytes()
    assert data != plain and plain not in data  # the model is not in the clear
    g = ms.load(str(tmp_path / "m.mindir"), dec_key=KEY, dec_mode=enc_mode)
    np.testing.assert_array_equal(nn.GraphCell(g)(X).asnumpy(), want)
    with pytest.raises(ValueError, match="encrypted"):
        ms.load(str(tmp_path / "m.mindir"))
    with pytest.raises(ValueError, match="wrong dec_key|cannot be decrypted"):
        ms.load(str(tmp_path / "m.mindir"), dec_key=b"fedcba9876543210", dec_mode=enc_mode)


def test_wrong_mode_and_bad_keys_are_value_or_type_errors(tmp_path):
    net = Net()
    ms.export(net, X, file_name=str(tmp_path / "m"), enc_key=KEY, enc_mode="AES-GCM")
    with pytest.raises(ValueError, match="AES-GCM"):
        ms.load(str(tmp_path / "m.mindir"), dec_key=KEY, dec_mode="AES-CBC")
    with pytest.raises(ValueError, match="16"):
        ms.export(net, X, file_name=str(tmp_path / "n"), enc_key=b"short", enc_mode="SM4-CBC")
    with pytest.raises(ValueError, match="enc_mode"):
        ms.export(net, X, file_name=str(tmp_path / "n"), enc_key=KEY, enc_mode="ROT13")
    with pytest.raises(TypeError, match="enc_key"):
        ms.export(net, X, file_name=str(tmp_path / "n"), enc_key="not bytes")
    with pytest.raises(ValueError, match="not supported"):
        ms.export(net, X, file_name=str(tmp_path / "n"), obf_config={})


def test_user_cipher_functions(tmp_path):
    def xor(data, key):
        k = np.frombuffer(key, np.uint8)
        a = np.frombuffer(data, np.uint8)
        return (a ^ np.resize(k, a.shape)).tobytes()

    net = Net()
    ms.export(net, X, file_name=str(tmp_path / "m"), enc_key=KEY, enc_mode=xor)
    g = ms.load(str(tmp_path / "m.mindir"), dec_key=KEY, dec_mode=xor)
    np.testing.assert_array_equal(nn.GraphCell(g)(X).asnumpy(), net(X).asnumpy())
    with pytest.raises(TypeError, match="must return bytes"):
        ms.export(net, X, file_name=str(tmp_path / "n"), enc_key=KEY,
                  enc_mode=lambda d, k: None)

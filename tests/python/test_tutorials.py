"""MindSpore 2.x's beginner tutorials (tutorials/source_en/beginner/ of mindspore-ai/docs), each
run as a program of its own: every code cell's MindSpore API, in the tutorial's order, with
the names and arguments the tutorial uses, under ``import mycel as mindspore``. Only the data
source changes: the MNIST download becomes Debian's Fashion-MNIST files (MNIST's layout,
``usage='train'``/``'test'`` for the download's ``train``/``test`` folders), and where a
tutorial trains for epochs a few batches are taken (the quick start, where accuracy is the
point, runs in full in test_quickstart.py). What the cells print is checked against numpy or
analytic values. The programs are written for these tests (the tutorials are not copied).

Cells run / code cells: quick start (test_quickstart.py), tensor 15/15, dataset 18/18,
transforms 18/18, model 12/12, autograd 17/17, train (r2.2: data pipeline, network,
hyperparameters, loss, optimizer, step, train and test loops, epochs) all, save and load 6/6,
accelerating with static graphs 5/5 and mixed precision 10/10 (not among the eight: its
``@ms.jit`` train step with the loss scaler over the gradient tuple inside ``if is_finite:``
in GRAPH mode). The download cells become the local data.
"""
import math
import os
import re

import numpy as np
import pytest

import mycel as mindspore
from mycel import nn, ops, Tensor, Parameter

DATA = "/usr/share/datasets/fashion-mnist"


def lines_of(capsys):
    return capsys.readouterr().out


def test_tensor_tutorial(capsys):
    from mycel import CSRTensor, COOTensor
    from mycel.common.initializer import One, Normal

    data = [1, 0, 1, 0]
    x_data = Tensor(data)
    np_array = np.array(data)
    x_np = Tensor(np_array)
    assert x_data.dtype == mindspore.int64 and (x_np.asnumpy() == np_array).all()

    mindspore.set_seed(3)
    tensor1 = mindspore.Tensor(shape=(2, 2), dtype=mindspore.float32, init=One())
    tensor2 = mindspore.Tensor(shape=(2, 2), dtype=mindspore.float32, init=Normal())
    print("tensor1:\n", tensor1)
    print("tensor2:\n", tensor2)
    assert (tensor1.asnumpy() == 1).all() and tensor1.dtype == mindspore.float32
    t2 = tensor2.asnumpy()
    assert t2.shape == (2, 2) and 0 < np.abs(t2).max() < 0.06   # N(0, 0.01^2)

    x_ones = ops.ones_like(x_data)
    print(f"Ones Tensor: \n {x_ones} \n")
    x_zeros = ops.zeros_like(x_data)
    print(f"Zeros Tensor: \n {x_zeros} \n")

    x = Tensor(np.array([[1, 2], [3, 4]]), mindspore.int32)
    print("x_shape:", x.shape)
    print("x_dtype:", x.dtype)
    print("x_itemsize:", x.itemsize)
    print("x_nbytes:", x.nbytes)
    print("x_ndim:", x.ndim)
    print("x_size:", x.size)
    print("x_strides:", x.strides)

    tensor = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
    print("First row: {}".format(tensor[0]))
    print("value of bottom right corner: {}".format(tensor[1, 1]))
    print("Last column: {}".format(tensor[:, -1]))
    print("First column: {}".format(tensor[..., 0]))

    x = Tensor(np.array([1, 2, 3]), mindspore.float32)
    y = Tensor(np.array([4, 5, 6]), mindspore.float32)
    print("add:", x + y)
    print("sub:", x - y)
    print("mul:", x * y)
    print("div:", y / x)
    print("mod:", y % x)
    print("floordiv:", y // x)

    data1 = Tensor(np.array([[0, 1], [2, 3]]).astype(np.float32))
    data2 = Tensor(np.array([[4, 5], [6, 7]]).astype(np.float32))
    output = ops.concat((data1, data2), axis=0)
    print(output)
    print("shape:\n", output.shape)
    output = ops.stack([data1, data2])
    print(output)
    print("shape:\n", output.shape)

    t = ops.ones(5, mindspore.float32)
    print(f"t: {t}")
    n = t.asnumpy()
    print(f"n: {n}")
    n = np.ones(5)
    t = Tensor.from_numpy(n)
    np.add(n, 1, out=n)
    print(f"t: {t}")
    print(f"n: {n}")

    indptr = Tensor([0, 1, 2])
    indices = Tensor([0, 1])
    values = Tensor([1, 2], dtype=mindspore.float32)
    shape = (2, 4)
    csr_tensor = CSRTensor(indptr, indices, values, shape)
    print(csr_tensor.astype(mindspore.float64).dtype)
    np.testing.assert_array_equal(csr_tensor.to_dense().asnumpy(),
                                  [[1, 0, 0, 0], [0, 2, 0, 0]])

    indices = Tensor([[0, 1], [1, 2]], dtype=mindspore.int32)
    values = Tensor([1, 2], dtype=mindspore.float32)
    shape = (3, 4)
    coo_tensor = COOTensor(indices, values, shape)
    print(coo_tensor.values)
    print(coo_tensor.indices)
    print(coo_tensor.shape)
    print(coo_tensor.astype(mindspore.float64).dtype)
    dense = np.zeros((3, 4), np.float32)
    dense[0, 1], dense[1, 2] = 1, 2
    np.testing.assert_array_equal(coo_tensor.to_dense().asnumpy(), dense)
    np.testing.assert_array_equal(coo_tensor.to_csr().to_dense().asnumpy(), dense)

    out = lines_of(capsys)
    assert "tensor1:\n [[1. 1.]\n [1. 1.]]\n" in out
    assert "Ones Tensor: \n [1 1 1 1] \n" in out and "Zeros Tensor: \n [0 0 0 0] \n" in out
    assert ("x_shape: (2, 2)\nx_dtype: Int32\nx_itemsize: 4\nx_nbytes: 16\nx_ndim: 2\n"
            "x_size: 4\nx_strides: (8, 4)\n") in out
    assert ("First row: [0. 1.]\nvalue of bottom right corner: 3.0\nLast column: [1. 3.]\n"
            "First column: [0. 2.]\n") in out
    assert ("add: [5. 7. 9.]\nsub: [-3. -3. -3.]\nmul: [ 4. 10. 18.]\ndiv: [4.  2.5 2. ]\n"
            "mod: [0. 1. 0.]\nfloordiv: [4. 2. 2.]\n") in out
    assert "[[0. 1.]\n [2. 3.]\n [4. 5.]\n [6. 7.]]\nshape:\n (4, 2)\n" in out
    assert "[[[0. 1.]\n  [2. 3.]]\n\n [[4. 5.]\n  [6. 7.]]]\nshape:\n (2, 2, 2)\n" in out
    assert "t: [1. 1. 1. 1. 1.]\nn: [1. 1. 1. 1. 1.]\n" in out
    assert "t: [2. 2. 2. 2. 2.]\nn: [2. 2. 2. 2. 2.]\n" in out   # from_numpy shares memory
    assert "Float64\n[1. 2.]\n[[0 1]\n [1 2]]\n(3, 4)\nFloat64\n" in out


def test_sparse_tensors_reject_bad_input():
    from mycel import CSRTensor, COOTensor
    with pytest.raises(ValueError, match="CSRTensor.*indptr must hold shape\\[0\\] \\+ 1"):
        CSRTensor(Tensor([0, 1]), Tensor([0, 1]), Tensor([1.0, 2.0]), (2, 4))
    with pytest.raises(TypeError, match="CSRTensor.*indices must be int16, int32 or int64"):
        CSRTensor(Tensor([0, 1, 2]), Tensor([0.0, 1.0]), Tensor([1.0, 2.0]), (2, 4))
    with pytest.raises(ValueError, match="COOTensor.*shape must be a tuple of 2"):
        COOTensor(Tensor([[0, 1]]), Tensor([1.0]), (3, 4, 5))
    with pytest.raises(ValueError, match="an index lies outside the shape"):
        COOTensor(Tensor([[0, 7]]), Tensor([1.0]), (3, 4)).to_dense()
    with pytest.raises(TypeError, match="Tensor\\(init=...\\) needs a shape"):
        Tensor(np.ones(2), init="ones")


def test_dataset_tutorial(capsys):
    from mycel.dataset import vision
    from mycel.dataset import MnistDataset, GeneratorDataset

    train_dataset = MnistDataset(DATA, usage="train", shuffle=False)
    print(type(train_dataset))

    seen = []

    def visualize(dataset):   # the tutorial draws a 3x3 grid; here the titles are kept
        cols, rows = 3, 3
        titles = []
        for idx, (image, label) in enumerate(dataset.create_tuple_iterator()):
            titles.append(int(label))
            assert image.asnumpy().squeeze().shape == (28, 28)
            if idx == cols * rows - 1:
                break
        seen.append(titles)

    visualize(train_dataset)
    train_dataset = train_dataset.shuffle(buffer_size=64)
    visualize(train_dataset)

    image, label = next(train_dataset.create_tuple_iterator())
    print(image.shape, image.dtype)
    train_dataset = train_dataset.map(vision.Rescale(1.0 / 255.0, 0), input_columns='image')
    image, label = next(train_dataset.create_tuple_iterator())
    print(image.shape, image.dtype)
    assert 0.0 <= float(image.max()) <= 1.0
    train_dataset = train_dataset.batch(batch_size=32)
    image, label = next(train_dataset.create_tuple_iterator())
    print(image.shape, image.dtype)

    class RandomAccessDataset:
        def __init__(self):
            self._data = np.ones((5, 2))
            self._label = np.zeros((5, 1))

        def __getitem__(self, index):
            return self._data[index], self._label[index]

        def __len__(self):
            return len(self._data)

    loader = RandomAccessDataset()
    dataset = GeneratorDataset(source=loader, column_names=["data", "label"])
    for data in dataset:
        print(data)

    loader = [np.array(0), np.array(1), np.array(2)]
    dataset = GeneratorDataset(source=loader, column_names=["data"])
    got = []
    for data in dataset:
        got.append(int(data[0]))
    assert sorted(got) == [0, 1, 2]   # shuffled by default, as MindSpore's

    class IterableDataset():
        def __init__(self, start, end):
            self.start = start
            self.end = end

        def __next__(self):
            return next(self.data)

        def __iter__(self):
            self.data = iter(range(self.start, self.end))
            return self

    loader = IterableDataset(1, 5)
    dataset = GeneratorDataset(source=loader, column_names=["data"])
    for d in dataset:
        print(d)

    def my_generator(start, end):
        for i in range(start, end):
            yield i

    dataset = GeneratorDataset(source=lambda: my_generator(3, 6), column_names=["data"])
    for d in dataset:
        print(d)

    out = lines_of(capsys)
    labels = np.frombuffer(__import__("gzip").open(
        os.path.join(DATA, "train-labels-idx1-ubyte.gz")).read()[8:], np.uint8)
    assert seen[0] == labels[:9].tolist()
    assert "MnistDataset'>" in out
    assert "(28, 28, 1) UInt8\n(28, 28, 1) Float32\n(32, 28, 28, 1) Float32\n" in out
    row = ("[Tensor(shape=[2], dtype=Float64, value= [ 1.00000000e+00,  1.00000000e+00]), "
           "Tensor(shape=[1], dtype=Float64, value= [ 0.00000000e+00])]\n")
    assert out.count(row) == 5
    for i in (1, 2, 3, 4, 3, 4, 5):
        assert f"[Tensor(shape=[], dtype=Int64, value= {i})]\n" in out


def test_transforms_tutorial(capsys):
    from PIL import Image
    from mycel.dataset import transforms, vision, text
    from mycel.dataset import GeneratorDataset, MnistDataset

    train_dataset = MnistDataset(DATA, usage="train")
    image, label = next(train_dataset.create_tuple_iterator())
    print(image.shape)
    composed = transforms.Compose(
        [
            vision.Rescale(1.0 / 255.0, 0),
            vision.Normalize(mean=(0.1307,), std=(0.3081,)),
            vision.HWC2CHW()
        ]
    )
    train_dataset = train_dataset.map(composed, 'image')
    image, label = next(train_dataset.create_tuple_iterator())
    print(image.shape)

    random_np = np.random.randint(0, 255, (48, 48), np.uint8)
    random_image = Image.fromarray(random_np)
    rescale = vision.Rescale(1.0 / 255.0, 0)
    rescaled_image = rescale(random_image)
    np.testing.assert_allclose(rescaled_image, random_np / 255.0, rtol=1e-6)
    normalize = vision.Normalize(mean=(0.1307,), std=(0.3081,))
    normalized_image = normalize(rescaled_image)
    np.testing.assert_allclose(normalized_image, (random_np / 255.0 - 0.1307) / 0.3081,
                               rtol=1e-5, atol=1e-6)
    hwc_image = np.expand_dims(normalized_image, -1)
    hwc2chw = vision.HWC2CHW()
    chw_image = hwc2chw(hwc_image)
    print(hwc_image.shape, chw_image.shape)

    texts = ['Welcome to Beijing']
    test_dataset = GeneratorDataset(texts, 'text')

    def my_tokenizer(content):
        return content.split()

    test_dataset = test_dataset.map(text.PythonTokenizer(my_tokenizer))
    tokens = next(test_dataset.create_tuple_iterator())
    assert tokens[0].tolist() == ['Welcome', 'to', 'Beijing']
    vocab = text.Vocab.from_dataset(test_dataset)
    print(vocab.vocab())
    test_dataset = test_dataset.map(text.Lookup(vocab))
    print(next(test_dataset.create_tuple_iterator()))

    test_dataset = GeneratorDataset([1, 2, 3], 'data', shuffle=False)
    test_dataset = test_dataset.map(lambda x: x * 2)
    print(list(test_dataset.create_tuple_iterator()))

    def func(x):
        return x * x + 2

    test_dataset = test_dataset.map(lambda x: func(x))
    print(list(test_dataset.create_tuple_iterator()))

    out = lines_of(capsys)
    assert "(28, 28, 1)\n(1, 28, 28)\n(48, 48, 1) (1, 48, 48)\n" in out
    assert "{'Beijing': 0, 'Welcome': 1, 'to': 2}\n" in out
    assert "[Tensor(shape=[3], dtype=Int32, value= [1, 2, 0])]\n" in out
    assert ("[[Tensor(shape=[], dtype=Int64, value= 2)], [Tensor(shape=[], dtype=Int64, value= "
            "4)], [Tensor(shape=[], dtype=Int64, value= 6)]]\n") in out
    assert ("[[Tensor(shape=[], dtype=Int64, value= 6)], [Tensor(shape=[], dtype=Int64, value= "
            "18)], [Tensor(shape=[], dtype=Int64, value= 38)]]\n") in out


def test_text_transforms_semantics():
    from mycel.dataset import NumpySlicesDataset, text
    d = NumpySlicesDataset({"s": np.array(["b a", "c a a", "b d"])}, shuffle=False)
    d = d.map(text.PythonTokenizer(str.split))
    # counts a:3 b:2 c:1 d:1; most frequent first, ties by the word
    v = text.Vocab.from_dataset(d, columns="s", special_tokens=["<unk>"])
    assert v.vocab() == {"<unk>": 0, "a": 1, "b": 2, "c": 3, "d": 4}
    assert text.Vocab.from_dataset(d, freq_range=(2, 3), top_k=1).vocab() == {"a": 0}
    ids = [r[0].asnumpy().tolist() for r in d.map(text.Lookup(v)).create_tuple_iterator()]
    assert ids == [[2, 1], [3, 1, 1], [2, 4]]
    small = text.Vocab.from_list(["a", "b"], special_tokens=["<unk>"], special_first=False)
    assert small.vocab() == {"a": 0, "b": 1, "<unk>": 2}
    assert small.tokens_to_ids(["b", "zz"]) == [1, -1] and small.ids_to_tokens(2) == "<unk>"
    np.testing.assert_array_equal(text.Lookup(small, "<unk>")(np.array(["a", "q"])), [0, 2])
    with pytest.raises(RuntimeError, match="Lookup: token: \"q\" doesn't exist in vocab"):
        text.Lookup(small)(np.array(["q"]))
    with pytest.raises(ValueError, match="Vocab.from_list: word_list contains duplicate word"):
        text.Vocab.from_list(["a", "a"])
    with pytest.raises(TypeError, match="PythonTokenizer: the input must be a string"):
        text.PythonTokenizer(str.split)(np.array([1, 2]))


class _Network(nn.Cell):
    """The network of the model, train, save/load, static-graph and mixed-precision tutorials."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(28*28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10)
        )

    def construct(self, x):
        x = self.flatten(x)
        logits = self.dense_relu_sequential(x)
        return logits


def _mlp(params, x):
    """numpy oracle of _Network on x (N, 28, 28) with the cell's parameters."""
    h = x.reshape(len(x), -1)
    for i in (0, 2, 4):
        h = h @ params[f"dense_relu_sequential.{i}.weight"].T + \
            params[f"dense_relu_sequential.{i}.bias"]
        if i != 4:
            h = np.maximum(h, 0)
    return h


def test_model_tutorial(capsys):
    Network = _Network
    model = Network()
    print(model)
    X = ops.ones((1, 28, 28), mindspore.float32)
    logits = model(X)
    print(logits)
    params = {n: p.asnumpy() for n, p in model.parameters_and_names()}
    want = _mlp(params, np.ones((1, 28, 28), np.float32))
    np.testing.assert_allclose(logits.asnumpy(), want, rtol=1e-4, atol=1e-5)
    pred_probab = nn.Softmax(axis=1)(logits)
    y_pred = pred_probab.argmax(1)
    print(f"Predicted class: {y_pred}")
    assert int(y_pred[0]) == int(want.argmax())

    input_image = ops.ones((3, 28, 28), mindspore.float32)
    print(input_image.shape)
    flatten = nn.Flatten()
    flat_image = flatten(input_image)
    print(flat_image.shape)
    layer1 = nn.Dense(in_channels=28*28, out_channels=20)
    hidden1 = layer1(flat_image)
    print(hidden1.shape)
    before = hidden1.asnumpy()
    print(f"Before ReLU: {hidden1}\n\n")
    hidden1 = nn.ReLU()(hidden1)
    print(f"After ReLU: {hidden1}")
    np.testing.assert_array_equal(hidden1.asnumpy(), np.maximum(before, 0))
    seq_modules = nn.SequentialCell(
        flatten,
        layer1,
        nn.ReLU(),
        nn.Dense(20, 10)
    )
    logits = seq_modules(input_image)
    print(logits.shape)
    softmax = nn.Softmax(axis=1)
    pred_probab = softmax(logits)
    np.testing.assert_allclose(pred_probab.asnumpy().sum(1), 1, rtol=1e-6)

    print(f"Model structure: {model}\n\n")
    for name, param in model.parameters_and_names():
        print(f"Layer: {name}\nSize: {param.shape}\nValues : {param[:2]} \n")

    out = lines_of(capsys)
    structure = ("Network<\n  (flatten): Flatten<>\n  (dense_relu_sequential): SequentialCell<\n"
                 "    (0): Dense<input_channels=784, output_channels=512, has_bias=True>\n"
                 "    (1): ReLU<>\n"
                 "    (2): Dense<input_channels=512, output_channels=512, has_bias=True>\n"
                 "    (3): ReLU<>\n"
                 "    (4): Dense<input_channels=512, output_channels=10, has_bias=True>\n"
                 "    >\n  >")
    assert out.count(structure.replace("Network<", "_Network<")) == 2, out[:600]
    assert "(3, 28, 28)\n(3, 784)\n(3, 20)\nBefore ReLU: [[" in out and "(3, 10)\n" in out
    assert re.search(r"^\[\[[- ]\d\.\d+", out, re.M)   # print(logits): the values, as str()
    assert "Layer: dense_relu_sequential.0.weight\nSize: (512, 784)\nValues : [[" in out
    assert "Layer: dense_relu_sequential.4.bias\nSize: (10,)\nValues : [" in out


def _bce_grads(x, y, w, b):
    """Analytic d/dw, d/db of mean(BCE-with-logits(x @ w + b, y)) (and z)."""
    z = x @ w + b
    dz = (1 / (1 + np.exp(-z)) - y) / z.size
    return np.outer(x, dz), dz, z


def test_autograd_tutorial(capsys, mode):
    np.random.seed(42)
    x = ops.ones(5, mindspore.float32)  # input tensor
    y = ops.zeros(3, mindspore.float32)  # expected output
    w = Parameter(Tensor(np.random.randn(5, 3), mindspore.float32), name='w')  # weight
    b = Parameter(Tensor(np.random.randn(3,), mindspore.float32), name='b')  # bias

    def function(x, y, w, b):
        z = ops.matmul(x, w) + b
        loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
        return loss

    loss = function(x, y, w, b)
    print(loss)
    grad_fn = mindspore.grad(function, (2, 3))
    grads = grad_fn(x, y, w, b)
    print(grads)

    gw, gb, z_np = _bce_grads(np.ones(5), np.zeros(3), w.asnumpy().astype(np.float64),
                              b.asnumpy().astype(np.float64))
    bce = np.mean(np.log1p(np.exp(z_np)))
    assert float(loss) == pytest.approx(bce, rel=1e-5)
    assert f"{float(loss):.6f}" == "1.342315"   # the tutorial's printed loss (same seed)
    np.testing.assert_allclose(grads[0].asnumpy(), gw, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), gb, rtol=1e-5)

    def function_with_logits(x, y, w, b):
        z = ops.matmul(x, w) + b
        loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
        return loss, z

    grad_fn = mindspore.grad(function_with_logits, (2, 3))
    grads = grad_fn(x, y, w, b)
    print(grads)
    # both outputs are differentiated: d(sum z)/dw adds x (ones) to each column, d/db adds 1
    np.testing.assert_allclose(grads[0].asnumpy(), gw + 1, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), gb + 1, rtol=1e-5)

    def function_stop_gradient(x, y, w, b):
        z = ops.matmul(x, w) + b
        loss = ops.binary_cross_entropy_with_logits(z, y, ops.ones_like(z), ops.ones_like(z))
        return loss, ops.stop_gradient(z)

    grad_fn = mindspore.grad(function_stop_gradient, (2, 3))
    grads = grad_fn(x, y, w, b)
    print(grads)
    np.testing.assert_allclose(grads[0].asnumpy(), gw, rtol=1e-5)

    grad_fn = mindspore.grad(function_with_logits, (2, 3), has_aux=True)
    grads, (z,) = grad_fn(x, y, w, b)
    print(grads, z)
    np.testing.assert_allclose(grads[1].asnumpy(), gb, rtol=1e-5)
    np.testing.assert_allclose(z.asnumpy(), z_np, rtol=1e-5)

    class Network(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = w
            self.b = b

        def construct(self, x):
            z = ops.matmul(x, self.w) + self.b
            return z

    model = Network()
    loss_fn = nn.BCEWithLogitsLoss()

    def forward_fn(x, y):
        z = model(x)
        loss = loss_fn(z, y)
        return loss

    grad_fn = mindspore.value_and_grad(forward_fn, None, weights=model.trainable_params())
    loss, grads = grad_fn(x, y)
    print(grads)
    np.testing.assert_allclose(grads[0].asnumpy(), gw, rtol=1e-5)
    np.testing.assert_allclose(grads[1].asnumpy(), gb, rtol=1e-5)
    assert float(loss) == pytest.approx(bce, rel=1e-5)
    assert "1.342315" in lines_of(capsys)


def test_train_tutorial(capsys, mode):
    from mycel.dataset import vision, transforms
    from mycel.dataset import MnistDataset

    def datapipe(path, batch_size, usage):
        image_transforms = [
            vision.Rescale(1.0 / 255.0, 0),
            vision.Normalize(mean=(0.1307,), std=(0.3081,)),
            vision.HWC2CHW()
        ]
        label_transform = transforms.TypeCast(mindspore.int32)

        dataset = MnistDataset(path, usage=usage)
        dataset = dataset.map(image_transforms, 'image')
        dataset = dataset.map(label_transform, 'label')
        dataset = dataset.batch(batch_size)
        return dataset

    mindspore.set_seed(1)
    mindspore.dataset.config.set_seed(1)
    # Bounded: 300 of the 938 training batches, 40 test batches, one epoch.
    train_dataset = datapipe(DATA, batch_size=64, usage="train").take(300)
    test_dataset = datapipe(DATA, batch_size=64, usage="test").take(40)

    model = _Network()
    epochs = 1
    learning_rate = 1e-2
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), learning_rate=learning_rate)

    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        return loss, logits

    grad_fn = mindspore.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    def train_loop(model, dataset):
        size = dataset.get_dataset_size()
        model.set_train()
        for batch, (data, label) in enumerate(dataset.create_tuple_iterator()):
            loss = train_step(data, label)

            if batch % 100 == 0:
                loss, current = loss.asnumpy(), batch
                print(f"loss: {loss:>7f}  [{current:>3d}/{size:>3d}]")

    def test_loop(model, dataset, loss_fn):
        num_batches = dataset.get_dataset_size()
        model.set_train(False)
        total, test_loss, correct = 0, 0, 0
        for data, label in dataset.create_tuple_iterator():
            pred = model(data)
            total += len(data)
            test_loss += loss_fn(pred, label).asnumpy()
            correct += (pred.argmax(1) == label).asnumpy().sum()
        test_loss /= num_batches
        correct /= total
        print(f"Test: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")

    for t in range(epochs):
        print(f"Epoch {t+1}\n-------------------------------")
        train_loop(model, train_dataset)
        test_loop(model, test_dataset, loss_fn)
    print("Done!")

    out = lines_of(capsys)
    losses = re.findall(r"^loss: (\d+\.\d+)  \[\s*(\d+)/300\]$", out, re.M)
    assert [int(b) for _, b in losses] == [0, 100, 200]
    assert float(losses[0][0]) == pytest.approx(math.log(10), abs=0.2)   # untrained: ln 10
    acc = float(re.search(r"^ Accuracy: (\d+\.\d)%, Avg loss: \d+\.\d{6} $", out, re.M)[1])
    assert acc >= 60.0, out          # 300 SGD steps on Fashion-MNIST
    assert out.startswith("Epoch 1\n-------------------------------\n") and \
        out.endswith("Done!\n")


def test_save_load_tutorial(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    def network():
        model = nn.SequentialCell(
            nn.Flatten(),
            nn.Dense(28*28, 512),
            nn.ReLU(),
            nn.Dense(512, 512),
            nn.ReLU(),
            nn.Dense(512, 10))
        return model

    model = network()
    mindspore.save_checkpoint(model, "model.ckpt")
    saved = {n: p.asnumpy() for n, p in model.parameters_and_names()}

    model = network()
    param_dict = mindspore.load_checkpoint("model.ckpt")
    param_not_load, _ = mindspore.load_param_into_net(model, param_dict)
    print(param_not_load)
    for n, p in model.parameters_and_names():
        np.testing.assert_array_equal(p.asnumpy(), saved[n])

    model = network()
    inputs = Tensor(np.ones([1, 1, 28, 28]).astype(np.float32))
    mindspore.export(model, inputs, file_name="model", file_format="MINDIR")
    expected = model(inputs).asnumpy()

    old = mindspore.get_context("mode")
    mindspore.set_context(mode=mindspore.GRAPH_MODE)
    try:
        graph = mindspore.load("model.mindir")
        model = nn.GraphCell(graph)
        outputs = model(inputs)
        print(outputs.shape)
    finally:
        mindspore.set_context(mode=old)
    np.testing.assert_allclose(outputs.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    assert lines_of(capsys) == "[]\n(1, 10)\n"


def test_accelerate_with_static_graph_tutorial(capsys):
    ms = mindspore
    old = ms.get_context("mode")
    input = Tensor(np.ones([64, 1, 28, 28]).astype(np.float32))  # noqa: A001 (the tutorial's)
    outputs = []
    try:
        for context_mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):  # cells 1 and 5
            ms.set_context(mode=context_mode)
            model = _Network()
            output = model(input)
            print(output)
            outputs.append((model, output))
        ms.set_context(mode=ms.PYNATIVE_MODE)

        # The networks made inside the jit functions: their weights are drawn after the same
        # seed as the oracle's twin below.
        ms.set_seed(7)

        @ms.jit  # the decorated function runs in static graph mode
        def run(x):
            model = _Network()
            return model(x)

        output = run(input)
        print(output)
        ms.set_seed(7)
        outputs.append((_Network(), output))

        def run2(x):
            model = _Network()
            return model(x)

        ms.set_seed(8)
        run_with_jit = ms.jit(run2)
        output = run_with_jit(input)
        print(output)
        ms.set_seed(8)
        outputs.append((_Network(), output))

        class Network(_Network):
            @ms.jit
            def construct(self, x):
                x = self.flatten(x)
                logits = self.dense_relu_sequential(x)
                return logits

        model = Network()
        output = model(input)
        print(output)
        outputs.append((model, output))
    finally:
        ms.set_context(mode=old)
    for model, output in outputs:
        params = {n: p.asnumpy() for n, p in model.parameters_and_names()}
        np.testing.assert_allclose(output.asnumpy(), _mlp(params, np.ones((64, 28, 28))),
                                   rtol=1e-4, atol=1e-5)
    assert lines_of(capsys).count("[[") == 5


def test_mixed_precision_tutorial(capsys):
    from mycel import value_and_grad
    from mycel.dataset import vision, transforms
    from mycel.dataset import MnistDataset
    from mycel.amp import auto_mixed_precision, DynamicLossScaler, all_finite
    from mycel.amp import build_train_network, FixedLossScaleManager
    from mycel.train import Model, LossMonitor

    def datapipe(path, batch_size):
        image_transforms = [
            vision.Rescale(1.0 / 255.0, 0),
            vision.Normalize(mean=(0.1307,), std=(0.3081,)),
            vision.HWC2CHW()
        ]
        label_transform = transforms.TypeCast(mindspore.int32)

        dataset = MnistDataset(path, usage="train")
        dataset = dataset.map(image_transforms, 'image')
        dataset = dataset.map(label_transform, 'label')
        dataset = dataset.batch(batch_size)
        return dataset

    mindspore.set_seed(1)
    mindspore.dataset.config.set_seed(1)
    # Bounded: 300 of the 938 training batches.
    train_dataset = datapipe(DATA, 64).take(300)

    Network = _Network  # the quick start's network, as the tutorial imports it

    # Automatic type conversion.
    model = Network()
    model = auto_mixed_precision(model, 'O2')

    # Cell granularity and custom granularity: the Dense layers compute in float16.
    class NetworkFP16(nn.Cell):
        def __init__(self):
            super().__init__()
            self.flatten = nn.Flatten()
            self.dense_relu_sequential = nn.SequentialCell(
                nn.Dense(28*28, 512).to_float(mindspore.float16), nn.ReLU(),
                nn.Dense(512, 512).to_float(mindspore.float16), nn.ReLU(),
                nn.Dense(512, 10).to_float(mindspore.float16))

        def construct(self, x):
            x = self.flatten(x)
            logits = self.dense_relu_sequential(x)
            return logits

    class NetworkFP16Manual(_Network):  # the same layers; float16 between two casts
        def construct(self, x):
            x = self.flatten(x)
            x = x.astype(mindspore.float16)
            logits = self.dense_relu_sequential(x)
            logits = logits.astype(mindspore.float32)
            return logits

    x = Tensor(np.random.default_rng(0).standard_normal((2, 1, 28, 28)).astype(np.float32))
    assert NetworkFP16()(x).dtype == mindspore.float16
    assert NetworkFP16Manual()(x).dtype == mindspore.float32

    # Loss scaling: the training step with DynamicLossScaler, compiled by @jit.
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), 1e-2)
    loss_scaler = DynamicLossScaler(scale_value=2**16, scale_factor=2, scale_window=50)

    def forward_fn(data, label):
        logits = model(data)
        loss = loss_fn(logits, label)
        loss = loss_scaler.scale(loss)
        return loss, logits

    grad_fn = value_and_grad(forward_fn, None, model.trainable_params(), has_aux=True)

    @mindspore.jit
    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        loss = loss_scaler.unscale(loss)

        is_finite = all_finite(grads)
        if is_finite:
            grads = loss_scaler.unscale(grads)
            optimizer(grads)
        loss_scaler.adjust(is_finite)

        return loss

    size = train_dataset.get_dataset_size()
    model.set_train()
    for batch, (data, label) in enumerate(train_dataset.create_tuple_iterator()):
        loss = train_step(data, label)

        if batch % 100 == 0:
            loss, current = loss.asnumpy(), batch
            print(f"loss: {loss:>7f}  [{current:>3d}/{size:>3d}]")

    out = lines_of(capsys)
    losses = re.findall(r"^loss: (\d+\.\d+)  \[\s*(\d+)/300\]$", out, re.M)
    assert [int(b) for _, b in losses] == [0, 100, 200], out
    assert float(losses[0][0]) == pytest.approx(math.log(10), abs=0.2)   # untrained: ln 10
    assert float(losses[-1][0]) < float(losses[0][0])                    # it learns

    # Cell configuration and Model configuration (a few batches).
    model = Network()
    loss_scale_manager = FixedLossScaleManager()
    model = build_train_network(model, optimizer, loss_fn, level="O2",
                                loss_scale_manager=loss_scale_manager)

    model = Network()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.SGD(model.trainable_params(), 1e-2)
    loss_scale_manager = FixedLossScaleManager()
    trainer = Model(model, loss_fn=loss_fn, optimizer=optimizer, metrics={'accuracy'},
                    amp_level="O2", loss_scale_manager=loss_scale_manager)
    loss_callback = LossMonitor(100)
    trainer.train(1, train_dataset.take(200), callbacks=[loss_callback])
    steps = re.findall(r"^epoch: 1 step: (\d+), loss is (\d+\.\d+)", lines_of(capsys), re.M)
    assert [int(s) for s, _ in steps] == [100, 200]
    assert all(math.isfinite(float(v)) for _, v in steps)

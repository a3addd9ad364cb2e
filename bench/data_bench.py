"""Data-pipeline throughput, mycel's dataset engine against PyTorch's DataLoader, one framework
per process: `data_bench.py mycel` or `data_bench.py torch` prints one JSON object of images/s
(bench/run.py runs both and writes the "Data pipeline" section of RESULTS.md).

The same work on both sides, with 1 and 2 workers (mycel: ``config.set_num_parallel_workers``,
the threads of every op; each op's threads run concurrently with the others' and the consumer's.
PyTorch: ``DataLoader(num_workers=...)``, that many worker processes besides the main one):

1. Fashion-MNIST training set (60,000 images, the Debian gzipped idx files), shuffled, pixels
   scaled to [0, 1] and normalised with mean 0.2860 / std 0.3530, HWC to CHW float32, int
   labels, batches of 64 (the remainder dropped). mycel: FashionMnistDataset -> map
   [Rescale, Normalize, HWC2CHW] on "image", TypeCast(int32) on "label" -> batch(64);
   PyTorch: torchvision's FashionMNIST (the idx files un-gzipped once into the cache, as its
   download step leaves them) with ToTensor + Normalize. Reading the files is the dataset's
   construction, timed separately and not in the epochs: ``fashion_construct_s`` is the first
   construction in the process (mycel: decompressing the .gz files, then cached per process;
   torchvision: reading the raw files into a tensor), mycel's ``fashion_reconstruct_s`` a
   second one (from its cache).
2. An image folder of N_IMAGES JPEGs (quality 90, 300-500 px a side, 10 classes; generated
   once, deterministically, into the cache), shuffled, decoded, the shorter side resized to
   256 (bilinear), a random 224x224 crop, a random horizontal flip, scaled to [0, 1],
   normalised with ImageNet's mean/std, CHW float32, batches of 32. mycel:
   ImageFolderDataset -> map [Decode, Resize, RandomCrop, RandomHorizontalFlip, Rescale,
   Normalize, HWC2CHW]; PyTorch: torchvision's ImageFolder (PIL decode) with Resize,
   RandomCrop, RandomHorizontalFlip, ToTensor, Normalize. Both decode with libjpeg-turbo;
   PIL's bilinear downscale is antialiased (its filter widens with the scale), mycel's is
   OpenCV-style (2x2 taps), so PyTorch's resize does more arithmetic per output pixel.
3. The same folder resized with PIL's bicubic on both sides: mycel's ``Inter.PILCUBIC`` (PIL's
   resampling, equal to PIL's output to within 1 in a few pixels per 10,000:
   tests/python/test_dataset_vision.py) and torchvision's ``InterpolationMode.BICUBIC`` (PIL):
   the same arithmetic on both sides.

A pass is one epoch from a fresh iterator (mycel: a new pipeline and its threads; PyTorch: new
worker processes, as without persistent_workers), consumed as training would: mycel Tensors
(``create_tuple_iterator()``; the Fashion-MNIST workload also with ``output_numpy=True``),
torch tensors. Reported: images/s of the best of PASSES passes (the machine is shared: the
least disturbed pass; the first pass also warms up).
"""
import gzip
import json
import os
import shutil
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FASHION = os.environ.get("FASHION_MNIST", "/usr/share/datasets/fashion-mnist")
CACHE = os.environ.get("MYCEL_BENCH_CACHE", "/tmp/mycel-bench-cache")
THREADS = int(os.environ.get("BENCH_THREADS", "2"))
WORKERS = (1, 2)
PASSES = 3
N_IMAGES, N_CLASSES = 2000, 10
MNIST_MEAN, MNIST_STD = 0.2860, 0.3530
IMAGENET_MEAN, IMAGENET_STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def jpeg_folder():
    """The benchmark's image folder (created on first use): N_IMAGES JPEGs in N_CLASSES class
    folders, smooth random colour fields plus noise, sides drawn from [300, 500]."""
    from PIL import Image
    root = os.path.join(CACHE, f"jpeg{N_IMAGES}")
    if os.path.exists(os.path.join(root, "done")):
        return root
    shutil.rmtree(root, ignore_errors=True)
    rng = np.random.default_rng(0)
    for i in range(N_IMAGES):
        folder = os.path.join(root, f"class{i % N_CLASSES}")
        os.makedirs(folder, exist_ok=True)
        h, w = (int(v) for v in rng.integers(300, 501, 2))
        coarse = Image.fromarray(rng.integers(0, 256, (6, 6, 3), dtype=np.uint8))
        smooth = np.asarray(coarse.resize((w, h), Image.BICUBIC), np.int16)
        pixels = np.clip(smooth + rng.integers(-20, 21, (h, w, 3)), 0, 255).astype(np.uint8)
        Image.fromarray(pixels).save(os.path.join(folder, f"{i:05d}.jpg"), quality=90)
    open(os.path.join(root, "done"), "w").close()
    return root


def fashion_raw():
    """A torchvision FashionMNIST root: the training idx files un-gzipped (created once)."""
    root = os.path.join(CACHE, "torchvision")
    raw = os.path.join(root, "FashionMNIST", "raw")
    os.makedirs(raw, exist_ok=True)
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                 "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"):
        if not os.path.exists(os.path.join(raw, name)):
            with gzip.open(os.path.join(FASHION, name + ".gz"), "rb") as src, \
                    open(os.path.join(raw, name + ".part"), "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.replace(os.path.join(raw, name + ".part"), os.path.join(raw, name))
    return root


def best_rate(epoch):
    """images/s of the best of PASSES timed epochs; epoch() runs one and returns its images."""
    best = 0.0
    for _ in range(PASSES):
        t0 = time.perf_counter()
        n = epoch()
        best = max(best, n / (time.perf_counter() - t0))
    return best


def bench_mycel():
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import mycel as ms
    import mycel.dataset as ds
    from mycel.dataset import transforms, vision
    ms._mycel.set_num_threads(THREADS)
    folder = jpeg_folder()
    out = {}
    t0 = time.perf_counter()
    ds.FashionMnistDataset(FASHION, usage="train")
    out["fashion_construct_s"] = time.perf_counter() - t0  # decompresses the .gz files
    t0 = time.perf_counter()
    ds.FashionMnistDataset(FASHION, usage="train")
    out["fashion_reconstruct_s"] = time.perf_counter() - t0  # from the per-process cache

    def fashion():
        data = ds.FashionMnistDataset(FASHION, usage="train", shuffle=True)
        data = data.map([vision.Rescale(1.0 / 255.0, 0.0),
                         vision.Normalize((MNIST_MEAN,), (MNIST_STD,)), vision.HWC2CHW()],
                        input_columns="image")
        data = data.map(transforms.TypeCast(ms.int32), input_columns="label")
        return data.batch(64, drop_remainder=True)

    def folder_pipeline(interpolation=vision.Inter.LINEAR):
        data = ds.ImageFolderDataset(folder, shuffle=True)
        data = data.map([vision.Decode(), vision.Resize(256, interpolation), vision.RandomCrop(224),
                         vision.RandomHorizontalFlip(), vision.Rescale(1.0 / 255.0, 0.0),
                         vision.Normalize(IMAGENET_MEAN, IMAGENET_STD), vision.HWC2CHW()],
                        input_columns="image")
        return data.batch(32)

    def epoch_of(data, output_numpy):
        def epoch():
            n = 0
            for image, _ in data.create_tuple_iterator(num_epochs=1, output_numpy=output_numpy):
                n += image.shape[0]
            return n
        return epoch

    for w in WORKERS:
        ds.config.set_num_parallel_workers(w)
        data = fashion()
        out[f"fashion_w{w}"] = best_rate(epoch_of(data, False))
        out[f"fashion_numpy_w{w}"] = best_rate(epoch_of(data, True))
        out[f"folder_w{w}"] = best_rate(epoch_of(folder_pipeline(), False))
        out[f"folder_pil_w{w}"] = best_rate(epoch_of(folder_pipeline(vision.Inter.PILCUBIC),
                                                     False))
    return out


def bench_torch():
    import torch
    import torchvision
    from torchvision import transforms as T
    torch.set_num_threads(THREADS)
    folder, root = jpeg_folder(), fashion_raw()
    out = {}
    t0 = time.perf_counter()
    fashion = torchvision.datasets.FashionMNIST(
        root, train=True, transform=T.Compose([T.ToTensor(), T.Normalize((MNIST_MEAN,),
                                                                         (MNIST_STD,))]))
    out["fashion_construct_s"] = time.perf_counter() - t0

    def images(interpolation=T.InterpolationMode.BILINEAR):
        return torchvision.datasets.ImageFolder(folder, transform=T.Compose([
            T.Resize(256, interpolation), T.RandomCrop(224), T.RandomHorizontalFlip(),
            T.ToTensor(), T.Normalize(IMAGENET_MEAN, IMAGENET_STD)]))

    def epoch_of(loader):
        def epoch():
            n = 0
            for image, _ in loader:
                n += image.shape[0]
            return n
        return epoch

    for w in WORKERS:
        out[f"fashion_w{w}"] = best_rate(epoch_of(torch.utils.data.DataLoader(
            fashion, batch_size=64, shuffle=True, num_workers=w, drop_last=True)))
        out[f"folder_w{w}"] = best_rate(epoch_of(torch.utils.data.DataLoader(
            images(), batch_size=32, shuffle=True, num_workers=w)))
        out[f"folder_pil_w{w}"] = best_rate(epoch_of(torch.utils.data.DataLoader(
            images(T.InterpolationMode.BICUBIC), batch_size=32, shuffle=True, num_workers=w)))
    return out


if __name__ == "__main__":
    res = bench_torch() if sys.argv[1] == "torch" else bench_mycel()
    print(json.dumps(res))

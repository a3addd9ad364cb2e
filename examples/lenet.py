"""LeNet-5 for 28x28 single-channel images (Fashion-MNIST), as MindSpore's model zoo writes
it: the first convolution pads by 2, so the layer sizes are the classic 32x32 ones."""
from mycel import nn


class LeNet5(nn.Cell):
    """conv(6, 5x5) - pool - conv(16, 5x5) - pool - 120 - 84 - num_class, with ReLUs.
    padding=0 is the model zoo's original for 32x32 inputs."""

    def __init__(self, num_class=10, num_channel=1, padding=2):
        super().__init__()
        self.conv1 = nn.Conv2d(num_channel, 6, 5, pad_mode="pad" if padding else "valid",
                               padding=padding)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, num_class)

    def construct(self, x):
        x = self.max_pool2d(self.relu(self.conv1(x)))
        x = self.max_pool2d(self.relu(self.conv2(x)))
        x = self.flatten(x)
        x = self.relu(self.fc1(x))
        x = self.relu(self.fc2(x))
        return self.fc3(x)


def fashion_mnist(data_dir, usage, batch_size, shuffle=None, drop_remainder=False):
    """The Fashion-MNIST split `usage` ('train' or 'test') as batches of (image [N, 1, 28, 28]
    float32 normalised, label int32), through mycel.dataset."""
    import mycel
    from mycel.dataset import FashionMnistDataset, transforms, vision
    ds = FashionMnistDataset(data_dir, usage=usage, shuffle=shuffle)
    ds = ds.map([vision.Rescale(1.0 / 255.0, 0.0), vision.Normalize((0.2860,), (0.3530,)),
                 vision.HWC2CHW()], "image")
    ds = ds.map(transforms.TypeCast(mycel.int32), "label")
    return ds.batch(batch_size, drop_remainder=drop_remainder)

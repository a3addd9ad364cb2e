"""ResNet-18 and ResNet-50 (He et al., 2016), as MindSpore's model zoo and torchvision lay them
out: a 7x7 stride-2 convolution, BatchNorm, ReLU and a 3x3 stride-2 max pooling, four stages of
residual blocks (basic blocks of two 3x3 convolutions for ResNet-18, bottlenecks 1x1 -> 3x3 ->
1x1 with 4x expansion for ResNet-50; the first block of stages 2-4 strides by 2 in its 3x3
convolution, with a 1x1 stride-2 convolution and BatchNorm on the shortcut), global average
pooling and a Dense classifier. NCHW input; convolutions without bias."""
from mycel.nn.cell import Cell
from mycel.nn.layer.activation import ReLU
from mycel.nn.layer.basic import Dense
from mycel.nn.layer.container import SequentialCell
from mycel.nn.layer.conv import Conv2d
from mycel.nn.layer.normalization import BatchNorm2d
from mycel.nn.layer.pooling import MaxPool2d


def _conv(cin, cout, k, stride=1):
    return Conv2d(cin, cout, k, stride=stride, pad_mode="pad", padding=k // 2, has_bias=False)


class BasicBlock(Cell):
    """Two 3x3 convolutions with BatchNorm, and the shortcut."""
    expansion = 1

    def __init__(self, cin, width, stride=1):
        super().__init__()
        self.conv1, self.bn1 = _conv(cin, width, 3, stride), BatchNorm2d(width)
        self.conv2, self.bn2 = _conv(width, width, 3), BatchNorm2d(width)
        self.relu = ReLU()
        self.down_sample = _shortcut(cin, width, stride)

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.down_sample is None else self.down_sample(x)
        return self.relu(out + identity)


class Bottleneck(Cell):
    """1x1 (width), 3x3 (width, the stride), 1x1 (4 * width) with BatchNorm, and the shortcut."""
    expansion = 4

    def __init__(self, cin, width, stride=1):
        super().__init__()
        cout = width * self.expansion
        self.conv1, self.bn1 = _conv(cin, width, 1), BatchNorm2d(width)
        self.conv2, self.bn2 = _conv(width, width, 3, stride), BatchNorm2d(width)
        self.conv3, self.bn3 = _conv(width, cout, 1), BatchNorm2d(cout)
        self.relu = ReLU()
        self.down_sample = _shortcut(cin, cout, stride)

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.down_sample is None else self.down_sample(x)
        return self.relu(out + identity)


def _shortcut(cin, cout, stride):
    """The projection shortcut (1x1 convolution and BatchNorm) where the shape changes."""
    if stride == 1 and cin == cout:
        return None
    return SequentialCell([_conv(cin, cout, 1, stride), BatchNorm2d(cout)])


class ResNet(Cell):
    """ResNet(block, layers, num_classes=1000, in_channels=3, widths=(64, 128, 256, 512)):
    `layers` blocks in each of the four stages (see the module)."""

    def __init__(self, block, layers, num_classes=1000, in_channels=3,
                 widths=(64, 128, 256, 512)):
        super().__init__()
        self.conv1 = Conv2d(in_channels, widths[0], 7, stride=2, pad_mode="pad", padding=3,
                            has_bias=False)
        self.bn1 = BatchNorm2d(widths[0])
        self.relu = ReLU()
        self.maxpool = MaxPool2d(kernel_size=3, stride=2, pad_mode="pad", padding=1)
        cin, stages = widths[0], []
        for i, (n, width) in enumerate(zip(layers, widths)):
            blocks = []
            for j in range(n):
                blocks.append(block(cin, width, 2 if i > 0 and j == 0 else 1))
                cin = width * block.expansion
            stages.append(SequentialCell(blocks))
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.fc = Dense(cin, num_classes)

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(x.mean((2, 3)))


def resnet18(num_classes=1000, in_channels=3, widths=(64, 128, 256, 512)):
    """ResNet-18: basic blocks, (2, 2, 2, 2) per stage."""
    return ResNet(BasicBlock, (2, 2, 2, 2), num_classes, in_channels, widths)


def resnet50(num_classes=1000, in_channels=3, widths=(64, 128, 256, 512)):
    """ResNet-50: bottleneck blocks, (3, 4, 6, 3) per stage."""
    return ResNet(Bottleneck, (3, 4, 6, 3), num_classes, in_channels, widths)

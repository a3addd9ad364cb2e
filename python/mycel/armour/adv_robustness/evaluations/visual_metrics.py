"""A radar chart of robustness metrics (MindArmour's ``RadarMetric``), drawn by a small
rasteriser in numpy and written as a PNG with zlib and struct (no plotting library)."""
import struct
import zlib

import numpy as np

from mycel.armour.adv_robustness._util import check_type

_SCALES = {"hide": 0, "sparse": 3, "dense": 10, "norm": 5}
_COLORS = np.array([[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40],
                    [148, 103, 189], [140, 86, 75], [227, 119, 194], [127, 127, 127],
                    [188, 189, 34], [23, 190, 207]], np.float64)


def write_png(path, image, text=None):
    """Writes image (uint8 [H, W, 3]) as an 8-bit RGB PNG; text: {keyword: value} tEXt
    chunks (Latin-1)."""
    h, w, _ = image.shape

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    rows = np.concatenate([np.zeros((h, 1), np.uint8), image.reshape(h, w * 3)], axis=1)
    out = [b"\x89PNG\r\n\x1a\n", chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))]
    for key, value in (text or {}).items():
        out.append(chunk(b"tEXt", key.encode("latin-1") + b"\0" +
                         str(value).encode("latin-1", "replace")))
    out.append(chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)))
    out.append(chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(b"".join(out))


class _Canvas:
    """An RGB float image with alpha-blended discs, lines and filled polygons."""

    def __init__(self, size):
        self.img = np.full((size, size, 3), 255.0)
        self.yy, self.xx = np.mgrid[0:size, 0:size] + 0.5

    def blend(self, mask, color, alpha):
        self.img[mask] = (1 - alpha) * self.img[mask] + alpha * color

    def line(self, p, q, color, width=1.5, alpha=1.0):
        """A segment of the given width (distance of each pixel centre to the segment)."""
        p, q = np.asarray(p, float), np.asarray(q, float)
        d = q - p
        t = ((self.xx - p[0]) * d[0] + (self.yy - p[1]) * d[1]) / max(d @ d, 1e-12)
        t = np.clip(t, 0, 1)
        dist = np.hypot(self.xx - (p[0] + t * d[0]), self.yy - (p[1] + t * d[1]))
        self.blend(dist <= width / 2, color, alpha)

    def polygon(self, pts, color, alpha):
        """Fills a closed polygon (even-odd rule over pixel centres)."""
        inside = np.zeros(self.xx.shape, bool)
        for (x0, y0), (x1, y1) in zip(pts, np.roll(pts, -1, axis=0)):
            if y0 == y1:
                continue
            crosses = (self.yy >= min(y0, y1)) & (self.yy < max(y0, y1))
            x_at = x0 + (self.yy - y0) * (x1 - x0) / (y1 - y0)
            inside ^= crosses & (self.xx < x_at)
        self.blend(inside, color, alpha)


class RadarMetric:
    """RadarMetric(metrics_name, metrics_data, labels, title, scale='hide'): one polygon per
    label (row of metrics_data [len(labels), len(metrics_name)], values in [0, 1]) over one
    axis per metric. scale: 'hide' (no rings), 'sparse' (3 rings), 'dense' (10 rings), or
    'norm' (each metric divided by its largest value over the labels, 5 rings).

    ``draw(size=480)`` returns the picture as uint8 [size, size, 3]; ``show(path=None)``
    draws it, writes it as a PNG when path is given, and returns it; ``save(path)`` writes
    the PNG. Text is not rasterised: the title, metric names and labels (with their colours,
    in matplotlib's default cycle) are stored in the PNG's tEXt chunks."""

    def __init__(self, metrics_name, metrics_data, labels, title, scale="hide"):
        who = "RadarMetric"
        self._names = [str(n) for n in check_type(who, "metrics_name", metrics_name,
                                                   (list, tuple))]
        self._labels = [str(n) for n in check_type(who, "labels", labels, (list, tuple))]
        data = np.asarray(metrics_data, np.float64)
        if len(self._names) < 3:
            raise ValueError(f"For '{who}', a radar chart needs at least 3 metrics, but got "
                             f"{len(self._names)}.")
        if data.shape != (len(self._labels), len(self._names)):
            raise ValueError(f"For '{who}', 'metrics_data' must be [len(labels), "
                             f"len(metrics_name)] = [{len(self._labels)}, {len(self._names)}], "
                             f"but got shape {data.shape}.")
        if len(self._labels) > len(_COLORS):
            raise ValueError(f"For '{who}', at most {len(_COLORS)} labels can be drawn, but "
                             f"got {len(self._labels)}.")
        if scale not in _SCALES:
            raise ValueError(f"For '{who}', 'scale' must be one of {sorted(_SCALES)}, but got "
                             f"{scale!r}.")
        if scale == "norm":
            data = data / np.maximum(np.abs(data).max(axis=0, keepdims=True), 1e-12)
        elif not ((data >= 0) & (data <= 1)).all():
            raise ValueError(f"For '{who}', 'metrics_data' must be in [0, 1] unless "
                             f"scale='norm'.")
        self._data, self._title, self._scale = data, str(title), scale

    def _vertices(self, values, centre, radius):
        angles = np.pi / 2 - 2 * np.pi * np.arange(len(self._names)) / len(self._names)
        r = radius * np.asarray(values, float)
        return np.stack([centre + r * np.cos(angles), centre - r * np.sin(angles)], axis=1)

    def draw(self, size=480):
        """The chart as uint8 [size, size, 3]."""
        canvas = _Canvas(size)
        centre, radius = size / 2, size * 0.42
        grey = np.array([170.0, 170.0, 170.0])
        outer = self._vertices(np.ones(len(self._names)), centre, radius)
        for v in outer:
            canvas.line((centre, centre), v, grey, 1.0)
        rings = _SCALES[self._scale]
        for k in range(1, rings + 1):
            ring = self._vertices(np.full(len(self._names), k / rings), centre, radius)
            for p, q in zip(ring, np.roll(ring, -1, axis=0)):
                canvas.line(p, q, grey, 1.0, 0.6)
        for row, color in zip(self._data, _COLORS):
            pts = self._vertices(row, centre, radius)
            canvas.polygon(pts, color, 0.25)
            for p, q in zip(pts, np.roll(pts, -1, axis=0)):
                canvas.line(p, q, color, 2.5)
        return np.clip(np.rint(canvas.img), 0, 255).astype(np.uint8)

    def _text(self):
        legend = "; ".join(f"{lab}: rgb{tuple(int(c) for c in col)}"
                           for lab, col in zip(self._labels, _COLORS))
        axes = ", ".join(f"{name} (clockwise from top #{i})"
                         for i, name in enumerate(self._names))
        return {"Title": self._title, "Description": f"axes: {axes}; labels: {legend}"}

    def save(self, path, size=480):
        """Writes the chart as a PNG file."""
        write_png(path, self.draw(size), self._text())

    def show(self, path=None, size=480):
        """Draws the chart, writes it to path (a PNG) when given, and returns the image."""
        image = self.draw(size)
        if path is not None:
            write_png(path, image, self._text())
        return image

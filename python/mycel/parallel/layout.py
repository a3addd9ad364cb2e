"""Tensor layouts on a device matrix: MindSpore's ``Layout``, and the redistribution plans of
the C++ parallel layer (``src/parallel``) between two of them.

``Layout((2, 4), ("dp", "mp"))`` names the axes of a device matrix of 8 devices;
``layout("dp", "None")`` is the layout of a 2-D tensor whose dimension 0 is split over "dp"
and whose dimension 1 is whole, replicated over "mp"; a tuple of names splits one dimension
over several axes, the first the most significant. As in MindSpore, ``to_dict()`` gives the
tensor map with the axes counted from the right (the last axis is 0, "None" is -1).

The helpers ``_layout_slice`` and ``_plan_redistribution`` ask the C++ layer which block of a
tensor a rank holds and which collectives take a tensor from one layout to another; partial
sums (a value that still has to be summed over some axes) are given by axis names beside the
layout, since MindSpore's ``Layout`` has no such state. The program-rewriting pass that will
use them is not built yet.
"""
import copy

from mycel import _mycel as _C

_INTERLEAVED = "interleaved_parallel"


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _check_seq(arg, value, kind, element_ok, element_kind):
    """TypeError unless ``value`` is a ``kind`` whose elements pass ``element_ok``."""
    if not isinstance(value, kind):
        raise TypeError(f"For 'Layout', '{arg}' must be a {kind.__name__}, but got "
                        f"{type(value).__name__}.")
    for v in value:
        if not element_ok(v):
            raise TypeError(f"For 'Layout', the elements of '{arg}' must be {element_kind}, "
                            f"but got {type(v).__name__}.")


class Layout:
    """The device matrix of a parallel job and, once called, a tensor's layout on it.

    Args:
        device_matrix (tuple[int]): the shape of the device arrangement; its product is the
            number of devices.
        alias_name (tuple[str]): a name for each axis of ``device_matrix``; not empty, not
            ``"None"``, no two equal.
        rank_list (list[int], optional): the rank of each device, in row-major order of the
            matrix. Default: ``None``, ranks ``0 .. n-1``.

    Raises:
        TypeError: ``device_matrix`` or ``alias_name`` is not a tuple, ``rank_list`` not a
            list, or an element of the wrong type.
        ValueError: lengths that differ, an empty, ``"None"`` or repeated name, a size below
            1, or a rank list that is not one distinct rank per device.

    Calling the layout with one entry per tensor dimension (an axis name, ``"None"`` for a
    whole dimension, or a tuple of names) returns the tensor's layout::

        >>> layout = Layout((2, 2, 2), ("dp", "sp", "mp"))
        >>> layout("dp", "mp").to_dict()["tensor_map"]
        (2, 0)
    """

    def __init__(self, device_matrix, alias_name, rank_list=None):
        _check_seq("device_matrix", device_matrix, tuple, _is_int, "int")
        _check_seq("alias_name", alias_name, tuple, lambda v: isinstance(v, str), "str")
        if rank_list is not None:
            _check_seq("rank_list", rank_list, list, _is_int, "int")
        if _INTERLEAVED in alias_name:
            raise ValueError("For 'Layout', the alias 'interleaved_parallel' (several copies "
                             "of an operator on one device) is not supported.")
        try:
            _C._check_device_mesh(list(device_matrix), list(alias_name), rank_list)
        except ValueError as e:
            raise ValueError(f"For 'Layout', {e}") from None
        n = 1
        for d in device_matrix:
            n *= d
        self._device_matrix = device_matrix
        self._alias_name = alias_name
        self._rank_list = list(rank_list) if rank_list is not None else list(range(n))
        self._tensor_map = None  # per dimension: -1, a right-counted axis, or a tuple of them

    def __call__(self, *tensor_map):
        """The layout of a tensor with one dimension per argument (see the class)."""
        out = []
        used = set()
        for entry in tensor_map:
            names = entry if isinstance(entry, tuple) else (entry,)
            axes = []
            for name in names:
                if not isinstance(name, str):
                    raise TypeError(f"For 'Layout', a tensor map entry must be an axis name, "
                                    f"'None' or a tuple of names, but got {entry!r}.")
                if name == "None":
                    if len(names) > 1:
                        raise ValueError("For 'Layout', 'None' cannot be part of a tuple of "
                                         "axis names.")
                    continue
                if name not in self._alias_name:
                    raise ValueError(f"For 'Layout', '{name}' is not one of the axis names "
                                     f"{self._alias_name}.")
                if name in used:
                    raise ValueError(f"For 'Layout', the axis '{name}' splits the tensor twice.")
                used.add(name)
                axes.append(len(self._alias_name) - 1 - self._alias_name.index(name))
            out.append(-1 if not axes else axes[0] if not isinstance(entry, tuple)
                       else tuple(axes))
        layout = copy.copy(self)
        layout._tensor_map = tuple(out)
        return layout

    def to_dict(self):
        """The layout as MindSpore's dictionary: device_matrix, tensor_map (axes counted from
        the right, -1 for a whole dimension), interleaved_parallel, alias_name and rank_list.
        Raises ValueError when the layout was not called with a tensor map."""
        if self._tensor_map is None:
            raise ValueError("For 'Layout.to_dict', the tensor map is not set: call the layout "
                             "with one entry per tensor dimension first.")
        return {"device_matrix": self._device_matrix, "tensor_map": self._tensor_map,
                "interleaved_parallel": False, "alias_name": self._alias_name,
                "rank_list": list(self._rank_list)}

    def __repr__(self):
        tm = "" if self._tensor_map is None else f", tensor_map={self._tensor_map}"
        return f"Layout(device_matrix={self._device_matrix}, alias_name={self._alias_name}{tm})"

    # The C++ view: mesh axes counted from the left, one list per tensor dimension.
    def _mesh(self):
        return list(self._device_matrix), list(self._alias_name), list(self._rank_list)

    def _axes_map(self, func):
        if self._tensor_map is None:
            raise ValueError(f"For '{func}', the layout has no tensor map: call it with one "
                             f"entry per tensor dimension.")
        last = len(self._device_matrix) - 1
        return [[] if e == -1 else [last - a for a in (e if isinstance(e, tuple) else (e,))]
                for e in self._tensor_map]

    def _axes_of(self, names, func):
        if isinstance(names, str):
            names = (names,)
        for name in names:
            if name not in self._alias_name:
                raise ValueError(f"For '{func}', '{name}' is not one of the axis names "
                                 f"{self._alias_name}.")
        return [self._alias_name.index(name) for name in names]


def _check_layout(layout, func, arg):
    if not isinstance(layout, Layout):
        raise TypeError(f"For '{func}', '{arg}' must be a Layout, but got "
                        f"{type(layout).__name__}.")


def _layout_slice(shape, layout, rank, partial=()):
    """The block of a tensor of ``shape`` that device ``rank`` holds under ``layout``:
    ``(offsets, slice_shape)``. ``partial``: axis names along which the value is a pending
    sum. Raises ValueError when a split does not divide its dimension."""
    func = "_layout_slice"
    _check_layout(layout, func, "layout")
    return _C._layout_slice(list(shape), *layout._mesh(), layout._axes_map(func),
                            layout._axes_of(partial, func), rank)


def _plan_redistribution(shape, from_layout, to_layout, from_partial=(), to_partial=(),
                         elem_bytes=4):
    """The moves that take a tensor of ``shape`` from ``from_layout`` to ``to_layout`` (same
    device matrix, names and ranks), as ``(kind, axis names, dims, bytes)`` tuples.

    ``from_partial``/``to_partial`` name the axes along which the value is a pending sum.
    kind is "Split" (local), "AllGather", "AllToAll", "AllReduce", "ReduceScatter" or
    "Partial" (local); dims is ``(dim,)``, ``(split_dim, concat_dim)`` for an AllToAll, or
    ``()``; bytes is what each device sends, for elements of ``elem_bytes`` bytes. The moves,
    their groups and the cost formula are documented in ``src/parallel/redistribution.h``.
    """
    func = "_plan_redistribution"
    _check_layout(from_layout, func, "from_layout")
    _check_layout(to_layout, func, "to_layout")
    if from_layout._mesh() != to_layout._mesh():
        raise ValueError(f"For '{func}', the layouts are on different device matrices: "
                         f"{from_layout!r} and {to_layout!r}.")
    return _C._plan_redistribution(
        list(shape), *from_layout._mesh(), from_layout._axes_map(func),
        from_layout._axes_of(from_partial, func), to_layout._axes_map(func),
        to_layout._axes_of(to_partial, func), elem_bytes)

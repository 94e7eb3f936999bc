"""gtcc.zeros / gtcc.empty: NumPy arrays laid out as the runtime's presets lay out a storage,
the first interior point aligned, carrying __gt_origin__ (and __gt_dims__)."""

import math
import operator

import numpy as np


class GtArray(np.ndarray):
    """A NumPy array with __gt_origin__ and __gt_dims__ (GT4Py's attributes). A copy of one
    (its copy method, copy.copy, copy.deepcopy, pickle) keeps them: the same points along the
    same axes. A view or the result of arithmetic is a plain array again (origin 0, dims I,
    J, K: NumPy does not say which axes it keeps)."""

    def __array_finalize__(self, obj):
        self.__gt_origin__ = None
        self.__gt_dims__ = None

    # a reduction to one value (g.sum(), g.max(), np.mean(g)) is a NumPy scalar, as an
    # ndarray's is, not a 0-d GtArray (NumPy's default for a subclass): json.dumps,
    # isinstance(x, float) checks and f"{x:.3f}" of a model's diagnostics treat it as a number.
    # (NumPy 2 says return_scalar; NumPy 1's __array_wrap__ takes two arguments only.)
    def __array_wrap__(self, arr, context=None, return_scalar=False):
        if return_scalar:
            return arr[()]
        return super().__array_wrap__(arr, context)

    def _keep(self, new):
        new.__gt_origin__ = self.__gt_origin__
        new.__gt_dims__ = self.__gt_dims__
        return new

    def copy(self, order="C"):
        return self._keep(super().copy(order))

    def __copy__(self):
        return self._keep(super().__copy__())

    def __deepcopy__(self, memo):
        return self._keep(super().__deepcopy__(memo))

    # pickle: NumPy's state and then ours
    def __reduce__(self):
        fn, args, state = super().__reduce__()
        return fn, args, (state, self.__gt_origin__, self.__gt_dims__)

    def __setstate__(self, state):
        if isinstance(state, tuple) and len(state) == 3 and isinstance(state[0], tuple):
            state, self.__gt_origin__, self.__gt_dims__ = state
        super().__setstate__(state)


def _layout(layout, axes):
    if layout is not None and not isinstance(layout, str):      # as NumPy's order=
        t = type(layout).__name__
        raise TypeError("layout %r (%s %s): give a str, \"cpu\", \"cuda\", \"C\", \"F\" or the "
                        "axes by decreasing stride" % (layout, "an" if t[:1] in "aeiou" else "a",
                                                        t))
    if layout is None or layout.lower() in ("cpu", "cuda"):
        return "".join(c for c in "KJI" if c in axes)     # I contiguous, K slowest
    if layout in ("C", "c"):        # (NumPy's order= takes either case)
        return axes
    if layout in ("F", "f"):
        return axes[::-1]
    lay = "".join(c for c in layout.upper() if c in axes)
    if sorted(lay) != sorted(axes) or any(c not in "IJK" for c in layout.upper()):
        raise ValueError("layout %r is not a permutation of the axes %s" % (layout, axes))
    return lay


def empty(shape, dtype=np.float64, halo=0, layout=None, aligned=True, axes=None):
    """An uninitialised array of `shape` (halo included, as gt_empty takes it).

    halo: an int (every side), or per axis an int or a (lower, upper) pair; the lower halo is
    the origin (__gt_origin__). axes: the array's dims (default IJK, IJ, I by ndim), also
    __gt_dims__. layout: "cpu" (default) or "cuda" (I contiguous, then J, K slowest: the
    runtime's presets), "C", "F", or the axes by decreasing stride ("KJI"). aligned: the
    first interior point of every row (along the contiguous axis) on 64 bytes ("cuda": 128
    bytes), the contiguous axis padded to a multiple of the alignment: the runtime's
    `alignment` option (docs/runtime.md section 4)."""
    return _make(shape, dtype, halo, layout, aligned, axes, np.empty)


def _int(x, what, *args):
    """x as an int (NumPy's rule for sizes: a float, 2.0 too, is refused, not truncated)."""
    try:
        return operator.index(x)
    except TypeError:
        t = type(x).__name__
        raise TypeError("%s: %r (%s %s) is not an integer"
                        % (what % args, x, "an" if t[:1] in "aeiou" else "a", t)) from None


def _halo_pair(h, d, axes):
    """One axis's halo: an int (both sides) or a (lower, upper) pair of ints."""
    try:
        return (operator.index(h),) * 2
    except TypeError:
        pass
    if isinstance(h, (str, bytes)) or not hasattr(h, "__len__") or len(h) != 2:
        raise ValueError("halo along %s: %r is neither an int nor a (lower, upper) pair"
                         % (axes[d], h))
    return tuple(_int(x, "halo along %s %r", axes[d], h) for x in h)


def _axes(axes, nd):
    """axes as a str of axis names: a str ("KJI"), or a sequence of one-letter strs as
    GT4Py's dimensions=["I", "J", "K"] and __gt_dims__ itself (("K", "J", "I")) are; None:
    "IJK"[:nd]. Anything else is a TypeError naming it (not an AttributeError of .upper)."""
    if axes is None:
        return "IJK"[:nd]
    items = axes if isinstance(axes, str) else None
    if items is None and not isinstance(axes, (bytes, bytearray)):
        try:
            items = list(axes)
        except TypeError:
            pass
    if items is None or not all(isinstance(c, str) and len(c) == 1 for c in items):
        t = type(axes).__name__
        raise TypeError("axes %r (%s %s): give the axis names as a str (\"KJI\") or a "
                        "sequence of one-letter strs ((\"K\", \"J\", \"I\"))"
                        % (axes, "an" if t[:1] in "aeiou" else "a", t))
    return "".join(items).upper()


def _make(shape, dtype, halo, layout, aligned, axes, alloc):
    try:                            # one int (a 0-d integer array too, as np.zeros takes it)
        given = (operator.index(shape),)
    except TypeError:
        given = shape if hasattr(shape, "__len__") and np.ndim(shape) else (shape,)
    shape = tuple(_int(n, "shape %r", given) for n in given)
    if any(n < 0 for n in shape):
        raise ValueError("shape %r: negative dimensions are not allowed" % (shape,))
    nd = len(shape)
    if not 1 <= nd <= 3:            # (a 0-d array has no axis a field could have)
        raise ValueError("shape %r: a field's array has 1 to 3 dimensions" % (shape,))
    axes = _axes(axes, nd)
    if len(axes) != nd:
        raise ValueError("axes %r for a shape of %d dimensions" % (axes, nd))
    if any(c not in "IJK" or axes.count(c) > 1 for c in axes):
        raise ValueError("axes %r: each of I, J and K at most once, nothing else" % axes)
    dtype = np.dtype(dtype)
    try:
        halo = [(operator.index(halo),) * 2] * nd
    except TypeError:
        if not hasattr(halo, "__len__") or isinstance(halo, (str, bytes)):
            raise TypeError("halo %r: an int, or one int or (lower, upper) pair per axis"
                            % (halo,)) from None
        if len(halo) != nd:
            raise ValueError("halo %r for a shape of %d dimensions" % (halo, nd)) from None
        halo = [_halo_pair(h, d, axes) for d, h in enumerate(halo)]
    for d, (lo, hi) in enumerate(halo):
        if lo < 0 or hi < 0:
            raise ValueError("halo along %s is (%d, %d); it must be >= 0" % (axes[d], lo, hi))
        if lo + hi > shape[d]:
            raise ValueError("halo along %s is (%d, %d): wider than the shape's %d points"
                             % (axes[d], lo, hi, shape[d]))
    lay = _layout(layout, axes)
    size = dtype.itemsize
    align_bytes = 128 if isinstance(layout, str) and layout.lower() == "cuda" else 64
    A = max(1, align_bytes // size) if aligned else 1
    order = [axes.index(c) for c in lay]              # dims, slowest first
    extents = [shape[d] for d in order]
    if nd and A > 1:
        extents[-1] = -(-extents[-1] // A) * A        # padded contiguous axis
    strides = [0] * nd
    acc = 1
    for k in range(nd - 1, -1, -1):
        strides[order[k]] = acc
        acc *= max(extents[k], 1)
    total = acc if nd else 1
    # lcm(A * size, 64) (math.lcm is Python 3.9's; pyproject says 3.8)
    base_align = A * size * 64 // math.gcd(A * size, 64) if A > 1 else 64
    # the element at the lower halo sits on base_align bytes
    first = sum(halo[d][0] * strides[d] for d in range(nd)) * size
    raw = alloc(total * size + 2 * base_align, dtype=np.uint8)
    addr = raw.ctypes.data
    off = (-(addr + first)) % base_align
    arr = np.ndarray(shape, dtype=dtype, buffer=raw, offset=off,
                     strides=tuple(s * size for s in strides)).view(GtArray)
    arr.__gt_origin__ = tuple(h[0] for h in halo)
    arr.__gt_dims__ = tuple(axes)
    return arr


def zeros(shape, dtype=np.float64, halo=0, layout=None, aligned=True, axes=None):
    """empty(...) with every element 0 (halo and padding included)."""
    return _make(shape, dtype, halo, layout, aligned, axes, np.zeros)

"""A compiled stencil, called on arrays: arrays wrapped zero-copy with gt_wrap (gt_wrap_device
for device arrays), origins and domains by GT4Py's rules, the runtime's checks and messages."""

import ctypes
import math
import operator
import os
import re
import threading
import weakref

import numpy as np

from ._errors import StencilError
from . import _dlpack
from ._toolchain import runtime, gt_storage_opts, gt_domain

DTYPES = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.int32): 2,
          np.dtype(np.bool_): 3}                     # gt_dtype
NP_DTYPE = {"float32": np.dtype(np.float32), "float64": np.dtype(np.float64),
            "int32": np.dtype(np.int32), "bool": np.dtype(np.bool_)}
CTYPE = {"float32": ctypes.c_float, "float64": ctypes.c_double, "int32": ctypes.c_int32,
         "bool": ctypes.c_bool}


def _a(x):
    """'2.5 (a float)': a value and its type's name, for a message."""
    if x is None:
        return "None"
    t = type(x).__name__
    return "%r (%s %s)" % (x, "an" if t[:1] in "aeiou" else "a", t)


def _operator_index(x):
    """operator.index, a NumPy bool (or a 0-d bool array) included: NumPy casts a bool to
    an integer safely, as Python's own bool is one, but np.bool_ has no __index__."""
    if isinstance(x, np.bool_) or (isinstance(x, np.ndarray) and x.shape == ()
                                   and x.dtype == np.bool_):
        return int(bool(x))
    return operator.index(x)


def _index(x, what, *args, bits=64):
    """x as an int: an int, a NumPy integer, a bool or a 0-d integer array, in the range of
    the C integer of `bits` bits it goes to (int64_t; 32: int), which ctypes would otherwise
    wrap silently (2**64 + 4 as 4). A float (2.0 too) is refused, not truncated, and a string
    is not parsed: `what % args` names it (the message is formatted only then)."""
    try:
        v = _operator_index(x)
    except TypeError:
        raise StencilError("%s is %s; it must be an integer" % (what % args, _a(x))) from None
    if not -(1 << (bits - 1)) <= v < 1 << (bits - 1):
        raise StencilError("%s is %d, out of the range of a %d-bit integer"
                           % (what % args, v, bits))
    return v


def _entries(v, what, *args, of="integers (I, J, K)"):
    """v's entries (a tuple, a list, an array...); `what % args` names it if it has none,
    `of` says what they are."""
    # a set has no order: {2, 1, 0} would be the origin (0, 1, 2), {2, 2} one entry
    # (a 0-d array has __iter__ but raises "iteration over a 0-d array")
    if isinstance(v, (str, bytes, set, frozenset)) or not hasattr(v, "__iter__") or (
            isinstance(v, np.ndarray) and v.ndim == 0):
        raise StencilError("%s is %s; it must be a sequence of %s" % (what % args, _a(v), of))
    return v


B63 = 1 << 63


def _sizes(v, what, where, *args):
    """v's three integers (NI, NJ, NK), a tuple of ints as it is; `what` names v in the
    messages, after `where % args` (formatted only for one)."""
    out = list(v) if type(v) is tuple and all(type(n) is int and -B63 <= n < B63
                                               for n in v) else [
        _index(n, "%s: an entry of %s %r", where % args, what, v)
        for n in _entries(v, "%s: %s", where % args, what)]
    if len(out) != 3:
        raise StencilError("%s: %s %r has %d entries; it takes 3 (NI, NJ, NK)"
                           % (where % args, what, v, len(out)))
    return out


# The scalars take what NumPy casts to their type safely: a float scalar an int or a bool too,
# an int scalar no float, a bool scalar only True or False; a string never.
def _int32(x):
    try:
        v = _operator_index(x)
    except TypeError:
        raise TypeError("%s is not an integer" % _a(x)) from None
    if not -2**31 <= v < 2**31:
        raise OverflowError("%d is out of int32's range" % v)
    return v


def _float(x):
    if type(x) is float:            # the common case, quickly
        return x
    # a NumPy value only of a number kind, as NumPy casts: float() would parse a 0-d str
    # array, drop a complex's imaginary part and take a timedelta's count of units
    if not isinstance(x, (str, bytes, bytearray)) and (
            not isinstance(x, (np.generic, np.ndarray)) or
            (x.dtype.kind in "biuf" and x.ndim == 0)):
        try:
            v = float(x)
        except TypeError:
            pass
        except OverflowError:       # an int beyond a double's range: say which
            raise OverflowError("%s is out of float64's range" % _a(x)) from None
        else:
            if math.isinf(v) and x != v:    # a longdouble or Decimal beyond it: not inf
                raise OverflowError("%s is out of float64's range" % _a(x))
            return v
    raise TypeError("%s is not a real number" % _a(x))


def _float32(x):
    try:
        v = _float(x)
    except OverflowError:
        raise OverflowError("%s is out of float32's range" % _a(x)) from None
    if math.isinf(ctypes.c_float(v).value) and not math.isinf(v):
        raise OverflowError("%r is out of float32's range" % v)
    return v


def _bool(x):
    if isinstance(x, (bool, np.bool_)) or (isinstance(x, np.ndarray) and x.shape == ()
                                           and x.dtype == np.bool_):
        return bool(x)
    raise TypeError("%s is not a bool (True or False)" % _a(x))


CONVERT = {"float32": _float32, "float64": _float, "int32": _int32, "bool": _bool}
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED = 1, 2, 3, 13
I64x3 = ctypes.c_int64 * 3


class _Required:
    """The default of steps' nsteps, which tells a call without it (help() shows it so)."""

    def __repr__(self):
        return "<required>"


_NO_NSTEPS = _Required()


class _Field:
    __slots__ = ("name", "axes", "dtype", "output", "steps_output", "upper", "index", "ndim",
                 "zero", "read_bool")

    def __init__(self, p, index, pairs=()):
        self.name = p["name"]
        self.axes = p["axes"]
        self.dtype = p["dtype"]
        self.output = p["intent"] != "in"
        # steps write both fields of an iterate pair (the result in cur, which a step reads)
        self.steps_output = self.output or self.name in pairs
        # the upper halo the stencil needs per axis name (for the default domain)
        self.upper = {c: h[1] for c, h in zip(p["axes"], p["halo"])}
        self.index = index
        self.ndim = len(self.axes)
        self.zero = (0,) * self.ndim
        # a bool field the stencil reads: its bytes are checked (_bool_bytes)
        self.read_bool = self.dtype == "bool" and p["intent"] != "out"


class _Device:
    """A device array: its pointer, shape, strides (bytes) and dtype, from
    __cuda_array_interface__ (v3) or DLPack."""

    def __init__(self, ptr, shape, strides, dtype, readonly, keep):
        self.ptr, self.shape, self.strides, self.dtype = ptr, shape, strides, dtype
        self.readonly = readonly
        self.keep = keep
        self.ndim = len(shape)


def _from_cai(obj, stencil, fname):
    try:
        cai = obj.__cuda_array_interface__
        dtype = np.dtype(cai["typestr"])
        shape = tuple(int(n) for n in cai["shape"])
        strides = cai.get("strides")
        if strides is None:
            strides, acc = [], dtype.itemsize
            for n in reversed(shape):
                strides.insert(0, acc)
                acc *= n
        strides = tuple(int(x) for x in strides)
        ptr, readonly = cai["data"]
        mask = cai.get("mask")
        stream = cai.get("stream")
    except Exception as e:
        # a producer's malformed interface: not a KeyError from deep inside the call
        raise StencilError("stencil '%s': field '%s': a %s whose __cuda_array_interface__ "
                           "cannot be read: %s: %s" % (stencil, fname, type(obj).__name__,
                                                       type(e).__name__, e)) from e
    if mask is not None:
        # (v3: a consumer that does not handle masked elements must refuse them)
        raise StencilError("stencil '%s': field '%s': a %s with a mask (its "
                           "__cuda_array_interface__ has one): the stencil would use the values "
                           "under it; pass the data without a mask" % (stencil, fname,
                                                                      type(obj).__name__))
    if stream not in (None, 1, 2):
        _sync_stream(stream, stencil, fname)
    return _Device(ptr, shape, strides, dtype, readonly, obj)


def _sync_stream(stream, stencil, fname):
    # CAI v3: the producer's work on `stream` must be done before we use the data
    try:
        cudart = ctypes.CDLL("libcudart.so")
    except OSError:
        raise StencilError("stencil '%s': field '%s': its __cuda_array_interface__ names "
                           "stream %r, but libcudart.so cannot be loaded to wait for it"
                           % (stencil, fname, stream)) from None
    cudart.cudaStreamSynchronize(ctypes.c_void_p(stream))


class Stencil:
    """mod.NAME: call it as NAME(arg, ..., origin=None, domain=None) with the .stn parameters
    in order (or by name); NAME.steps(..., nsteps=N) where the stencil has `iterate`."""

    def __init__(self, meta, lib, backend, entry=None):
        self.meta = meta
        self._entry = entry          # the cache entry of its module (for pickling)
        self.name = meta["name"]
        self.backend = backend
        self.params = meta["params"]
        # the Python arguments: every parameter but the out scalars (returned), in order
        self.arg_pos = [i for i, p in enumerate(self.params)
                        if p["kind"] == "field" or p["intent"] != "out"]
        self.names = [self.params[i]["name"] for i in self.arg_pos]
        self.fields = []
        self.scalars = []            # (position, ctype, convert)
        self.outs = []               # (position, ctype)
        pairs = {x[k] for x in meta.get("iterate") or () for k in ("next", "cur")}
        for pos, p in enumerate(self.params):
            if p["kind"] == "field":
                self.fields.append(_Field(p, pos, pairs))
            elif p["intent"] == "out":
                self.outs.append((pos, CTYPE[p["dtype"]], p["name"]))
            else:
                self.scalars.append((pos, CTYPE[p["dtype"]], CONVERT[p["dtype"]], p["name"]))
        self._rt = runtime()
        if backend == "openmp":
            _omp_runtime(lib)
        self._local = threading.local()   # per thread: the last storage wrapped per field
        self._fn = self._bind(lib, meta["function"], steps=False)
        self._steps_fn = self._bind(lib, meta["steps"], steps=True) if meta.get("steps") \
            else None
        self._info_ptr = ctypes.addressof(ctypes.c_char.in_dll(lib, meta["info"]))
        # what help(), IPython's `mod.S?` and an editor's hints show of mod.S: its parameters
        # (inspect.signature), and per parameter its kind, type, axes and intent (__doc__);
        # on the instance (a property would be what inspect.signature(gtcc.Stencil) finds)
        self.__doc__ = self._describe()
        self.__signature__ = self._signature()

    def _signature(self):
        import inspect
        import keyword
        P = inspect.Parameter
        try:
            if any(keyword.iskeyword(n) or n in ("origin", "domain") for n in self.names):
                return None         # (no def could say it: inspect's own reading then)
            return inspect.Signature(
                [P(n, P.POSITIONAL_OR_KEYWORD, annotation=self._kind(n)) for n in self.names] +
                [P("origin", P.KEYWORD_ONLY, default=None),
                 P("domain", P.KEYWORD_ONLY, default=None)])
        except (ValueError, TypeError):
            return None

    def _kind(self, name):
        p = next(q for q in self.params if q["name"] == name)
        if p["kind"] == "field":
            return "field<%s, %s>" % (p["dtype"], p["axes"])
        return p["dtype"]

    def _describe(self):
        intent = {"in": "read", "out": "written", "inout": "read and written"}
        lines = ["%s(%s, origin=None, domain=None): the stencil %r of the .stn program "
                 "(docs/python.md, 'Calling a stencil')." % (self.name, ", ".join(self.names),
                                                             self.name), ""]
        for n in self.names:
            p = next(q for q in self.params if q["name"] == n)
            lines.append("%s: %s%s" % (n, self._kind(n), ", " + intent.get(p["intent"], "")
                                       if p["kind"] == "field" else " scalar"))
        outs = ["%s (%s)" % (o[2], next(q["dtype"] for q in self.params if q["name"] == o[2]))
                for o in self.outs]
        lines.append("returns: %s" % (", ".join(outs) if outs else "None"))
        if self._steps_fn is not None:
            lines.append("%s.steps(..., nsteps=N): N steps of its iterate" % self.name)
        return "\n".join(lines)

    def _bind(self, lib, symbol, steps):
        fn = getattr(lib, symbol)
        types = []
        for p in self.params:
            if p["kind"] == "field":
                types.append(ctypes.c_void_p)
            elif p["intent"] == "out":
                types.append(ctypes.c_void_p)
            else:
                types.append(CTYPE[p["dtype"]])
        if steps:
            types.append(ctypes.c_int64)
        types.append(ctypes.POINTER(gt_domain))
        fn.argtypes = types
        fn.restype = ctypes.c_int
        return fn

    def __repr__(self):
        return "<gtcc stencil %s(%s)>" % (self.name, ", ".join(self.names))

    def __reduce__(self):           # (as its module's: the cache entry loaded again)
        from ._compile import _stencil
        return _stencil, (self._entry, self.backend, self.name)

    # self (and decomp) positional-only: a stencil parameter may be named so and passed by
    # keyword. The call's own keywords (origin, domain; nsteps, overlap, tblock) win over a
    # parameter of that name, which then goes by position (_args says so if it is missing).
    def __call__(self, /, *args, origin=None, domain=None, **kwargs):
        return self._call(self._fn, args, kwargs, origin, domain, None,
                          opts=("origin", "domain"))

    # (nsteps is required: its default only tells the call without it, which Python words
    # "Stencil.steps() missing ...", naming the class, not the stencil)
    def steps(self, /, *args, nsteps=_NO_NSTEPS, origin=None, domain=None, **kwargs):
        """NAME_steps: nsteps steps of an `iterate` stencil; the result in each pair's cur."""
        if self._steps_fn is None:
            raise StencilError("stencil '%s' has no iterate: no steps" % self.name)
        if nsteps is _NO_NSTEPS:
            # (the arguments' own errors first, as Python's order is)
            self._args(args, kwargs, ("nsteps", "origin", "domain"), self.name + ".steps")
            raise TypeError("%s.steps() missing 1 required keyword-only argument: 'nsteps'"
                            % self.name)
        return self._call(self._steps_fn, args, kwargs, origin, domain,
                          _index(nsteps, "stencil '%s': steps: nsteps", self.name),
                          opts=("nsteps", "origin", "domain"), who=self.name + ".steps")

    # Under MPI what the package refuses before the collective call (an argument, a
    # read-only array, a wrap) is agreed on by every rank first (_mpi.agree): refused on one
    # rank only, the others would wait in the collective call forever.
    def mpi(self, decomp, /, *args, overlap=False, origin=None, **kwargs):
        """S_mpi: the call on this rank's box of a gtcc.Decomposition (docs/mpi.md): halos
        exchanged, out scalars combined over the ranks. Collective."""
        entered = []
        try:
            _decomposition(decomp, self.name, "mpi")
            return self._call(self._fn, args, kwargs, origin, None, None,
                              (decomp, overlap, None, entered), opts=("overlap", "origin"))
        except Exception as e:
            _refused(decomp, self.name, e, entered)

    def steps_mpi(self, decomp, /, *args, nsteps=_NO_NSTEPS, tblock=0, origin=None, **kwargs):
        """S_steps_mpi: nsteps steps on this rank's box (gt_mpi_steps, docs/mpi.md), the
        halos exchanged tblock steps deep once every tblock steps (0: the default), the
        result in each pair's cur; arrays with gt_mpi_steps_halo's halos
        (Decomposition.zeros(S, field, tblock=...)). Collective."""
        entered = []
        try:
            _decomposition(decomp, self.name, "steps_mpi")
            if self._steps_fn is None:
                raise StencilError("stencil '%s' has no iterate: no steps" % self.name)
            if nsteps is _NO_NSTEPS:
                raise TypeError("%s.steps_mpi() missing 1 required keyword-only argument: "
                                "'nsteps'" % self.name)
            return self._call(self._fn, args, kwargs, origin, None, None,
                              (decomp, False,
                               (_index(nsteps, "stencil '%s': steps_mpi: nsteps", self.name),
                                _index(tblock, "stencil '%s': steps_mpi: tblock", self.name,
                                       bits=32)), entered),
                              opts=("nsteps", "tblock", "origin"))
        except Exception as e:
            _refused(decomp, self.name, e, entered)

    # -- the call ---------------------------------------------------------------------
    def _args(self, args, kwargs, opts, who=None):
        """The parameters' values in .stn order from the call's; TypeError worded as Python's
        for a def named who (the stencil's name; "S.steps" for its steps)."""
        n = len(self.names)
        who = who or self.name
        # the messages are Python's own for a function called wrongly
        if len(args) > n:
            raise TypeError("%s() takes %d positional argument%s but %d %s given%s"
                            % (who, n, "" if n == 1 else "s", len(args),
                               "was" if len(args) == 1 else "were", self._outs_note()))
        if kwargs or len(args) != n:
            vals = list(args) + [_MISSING] * (n - len(args))
            for k, v in kwargs.items():
                try:
                    i = self.names.index(k)
                except ValueError:
                    raise TypeError("%s() got an unexpected keyword argument %r%s"
                                    % (who, k, " (%r is an out scalar: the call returns "
                                       "it)" % k if any(o[2] == k for o in self.outs) else
                                       "")) from None
                if vals[i] is not _MISSING:
                    raise TypeError("%s() got multiple values for argument %r" % (who, k))
                vals[i] = v
            missing = ["'%s'" % self.names[i] for i, v in enumerate(vals) if v is _MISSING]
            clash = [m for m in missing if m[1:-1] in opts]
            if clash:
                raise TypeError("%s() missing 1 required argument: %s (%s= is the call's own "
                                "keyword: pass the stencil's parameter %s by position)"
                                % (who, clash[0], clash[0][1:-1], clash[0]))
            if missing:
                names = (missing[0] if len(missing) == 1 else
                         "%s and %s" % (", ".join(missing[:-1]) + ("," if len(missing) > 2 else ""),
                                        missing[-1]))
                raise TypeError("%s() missing %d required argument%s: %s"
                                % (who, len(missing), "" if len(missing) == 1 else "s",
                                   names))
            args = vals
        full = [None] * len(self.params)
        for i, v in zip(self.arg_pos, args):
            full[i] = v
        return full

    def _outs_note(self):
        """' (the out scalar 's' is returned, not passed)' where the stencil has out scalars
        (a caller used to C's or Fortran's argument for them), else ''."""
        if not self.outs:
            return ""
        names = ", ".join("'%s'" % o[2] for o in self.outs)
        return " (the out scalar%s %s %s returned, not passed)" % (
            "s" if len(self.outs) > 1 else "", names, "are" if len(self.outs) > 1 else "is")

    def _array(self, obj, f, output=False):
        """obj as a NumPy array (host) or a _Device; raises StencilError otherwise. output:
        the call writes it (a DLPack producer is asked not to copy it, and one that says it
        copied it is refused)."""
        if isinstance(obj, np.ma.MaskedArray):
            # a stencil reads and writes every point: the values under a mask would be used
            if np.ma.getmask(obj) is not np.ma.nomask and obj.mask.any():
                raise StencilError("stencil '%s': field '%s': a masked array with %d masked "
                                   "point(s): the stencil would use the values under the mask; "
                                   "pass a.filled(value), or a.data to use them" % (
                                       self.name, f.name, int(np.count_nonzero(obj.mask))))
            return obj.data
        if isinstance(obj, np.ndarray):
            return obj
        dev = getattr(obj, "__dlpack_device__", None)
        if dev is not None:
            try:
                kind = dev()[0]
                t = _dlpack.consume(obj, output) if kind in (DL_CPU, DL_CUDA_HOST, DL_CUDA,
                                                     DL_CUDA_MANAGED) else None
            except Exception as e:
                # the producer's refusal (PyTorch's RuntimeError for a tensor that requires
                # grad, a BufferError, a capsule of DLPack 2.x), naming the field
                raise StencilError("stencil '%s': field '%s': a %s whose DLPack export "
                                   "failed: %s: %s" % (self.name, f.name, type(obj).__name__,
                                                       type(e).__name__, e)) from e
            if t is not None:                # versioned capsules first; deleter run once
                if t.dtype is None:
                    raise StencilError("stencil '%s': field '%s': %s has no gtcc type" % (
                        self.name, f.name, t.dtype_desc))
                if output and t.copied:
                    # written into a copy, the results would be dropped with it, silently
                    raise StencilError("stencil '%s': field '%s': the %s's DLPack export is a "
                                       "copy (its producer flagged it IS_COPIED), but the "
                                       "stencil writes the field: its results would be lost "
                                       "with the copy; pass an array the producer exports in "
                                       "place" % (self.name, f.name, type(obj).__name__))
                if t.device in (DL_CPU, DL_CUDA_HOST):
                    return t.numpy()
                return _Device(t.data, t.shape, t.strides, t.dtype, t.readonly, t)
            raise StencilError("stencil '%s': field '%s': DLPack device type %d is neither "
                               "the CPU nor CUDA" % (self.name, f.name, kind))
        if hasattr(obj, "__cuda_array_interface__"):
            return _from_cai(obj, self.name, f.name)
        if hasattr(obj, "__array_interface__") or hasattr(obj, "__array_struct__"):
            try:
                return np.asarray(obj)
            except (TypeError, ValueError) as e:     # an interface NumPy does not take
                raise StencilError("stencil '%s': field '%s': a %s whose array interface NumPy "
                                   "refuses: %s" % (self.name, f.name, type(obj).__name__, e)) \
                    from None
        try:
            return np.asarray(memoryview(obj))
        except TypeError:
            pass
        if hasattr(obj, "__array__"):
            # (xarray's DataArray, a pandas DataFrame): np.asarray(obj) may be a copy, whose
            # results the call would write and drop; the caller knows whether it is
            raise StencilError("stencil '%s': field '%s': a %s offers only __array__, which "
                               "may copy, not its memory in place (DLPack, "
                               "__cuda_array_interface__, the array interface or a buffer): "
                               "pass its NumPy array (x.values, x.to_numpy(), np.asarray(x))"
                               % (self.name, f.name, type(obj).__name__))
        raise StencilError("stencil '%s': field '%s': a %s is not an array (DLPack, "
                           "__cuda_array_interface__, the array interface or a buffer)"
                           % (self.name, f.name, type(obj).__name__))

    def _call(self, fn, args, kwargs, origin, domain, nsteps, mpi=None, opts=(), who=None):
        """fn (S, or S_steps with nsteps) on the arguments; under MPI, mpi is (decomposition,
        overlap, None, entered) for S_mpi or (decomposition, False, (nsteps, tblock),
        entered) for S_steps_mpi, fn then S itself; entered gets an entry once every rank
        has agreed to call."""
        vals = self._args(args, kwargs, opts, who)
        rt = self._rt
        name = self.name
        if isinstance(origin, dict):
            for k in origin:
                if k != "_all_" and all(k != f.name for f in self.fields):
                    raise StencilError("stencil '%s': origin names %r, which is not a field "
                                       "(its fields: %s; \"_all_\" for every field)" % (
                                           name, k, ", ".join(f.name for f in self.fields)))
        elif hasattr(origin, "__next__") and hasattr(origin, "__iter__"):
            # an iterator (a generator, map(int, ...)): read once for every field, not used
            # up by the first and then empty for the others
            origin = tuple(origin)
        # 1. the arrays, their dims and origins (by axis name); nothing wrapped yet
        arrs = []
        ndarray = np.ndarray
        steps = nsteps is not None or (mpi is not None and mpi[2] is not None)
        for f in self.fields:
            obj = vals[f.index]
            output = f.steps_output if steps else f.output
            if type(obj) is ndarray:          # the common case, quickly
                if output and not obj.flags.writeable:
                    raise StencilError("stencil '%s': field '%s': the array is read-only, but "
                                       "the stencil writes it" % (name, f.name))
                if obj.ndim == f.ndim and self.backend != "cuda":
                    if f.read_bool:
                        _bool_bytes(obj, name, f.name)
                    arrs.append((f, obj, f.axes, f.zero if origin is None else
                                 _origin(origin, f, obj, f.axes, name), False))
                    continue
            a = self._array(obj, f, output)
            dims = getattr(obj, "__gt_dims__", None)
            dims = f.axes if dims is None else _dims(dims, name, f.name)
            if len(dims) != a.ndim:
                raise StencilError("stencil '%s': field '%s': the array has %d dimension%s but "
                                   "the field has axes %s%s" % (
                                       name, f.name, a.ndim, "" if a.ndim == 1 else "s",
                                       f.axes, "" if dims == f.axes else
                                       " (__gt_dims__ %s)" % dims))
            dev = isinstance(a, _Device)
            if output and (a.readonly if dev else not a.flags.writeable):
                raise StencilError("stencil '%s': field '%s': the array is read-only, but the "
                                   "stencil writes it" % (name, f.name))
            if dev and self.backend != "cuda":
                raise StencilError("stencil '%s': field '%s': a device (CUDA) array, but the "
                                   "module was built for the %s backend: compile with "
                                   "backend='cuda' (on a machine with a GPU and a runtime "
                                   "built with CUDA)" % (name, f.name, self.backend))
            if not dev and self.backend == "cuda":
                raise StencilError("stencil '%s': field '%s': a host array, but the module was "
                                   "built for the cuda backend: pass device arrays (CuPy)"
                                   % (name, f.name))
            o = _origin(origin, f, obj, dims, name)
            if f.read_bool and not dev:
                _bool_bytes(a, name, f.name)
            arrs.append((f, a, dims, o, dev))
        # 2. the domain: given, or the largest that fits every field (GT4Py's rule)
        if mpi is not None:
            size = list(mpi[0].box[1])      # this rank's box: the storages' interiors
            _not_global(mpi[0], arrs, vals, origin, size, name)
        elif domain is None:
            size = []
            for c in "IJK":
                best = None
                for f, a, dims, o, dev in arrs:
                    if c in dims:
                        d = dims.index(c)
                        room = a.shape[d] - o[d] - f.upper.get(c, 0)
                        if room < 0:
                            # no domain fits: say why, not "domain size along I is -1"
                            # of a domain the caller did not give
                            raise StencilError(
                                "stencil '%s': field '%s': no domain fits along %s: the array "
                                "has %d points along %s, from its origin %d, and the stencil "
                                "reads %d beyond the domain" % (
                                    name, f.name, c, a.shape[d], c, o[d], f.upper.get(c, 0)))
                        best = room if best is None or room < best else best
                size.append(1 if best is None else best)
        else:
            size = _sizes(domain, "the domain", "stencil '%s'", name)
        dom = gt_domain(I64x3(*size))
        # 3. wrapped (or the storage of the last call on the same memory, the same way:
        #    a host storage is its pointer and numbers, nothing else), called
        slots = getattr(self._local, "slots", None)
        if slots is None:
            slots = self._local.slots = _Slots(rt, len(self.params))
            if self.backend == "openmp":
                _omp_threads.add(threading.get_ident())
        cargs = list(vals)
        made = []
        try:
            for f, a, dims, o, dev in arrs:
                if dev or mpi is not None:
                    # under MPI the interior is the box: the upper halo is the rest
                    up = None if mpi is None else \
                        [a.shape[d] - o[d] - size["IJK".index(c)] for d, c in enumerate(dims)]
                    s = self._wrap(rt, f, a, dims, o, dev, up, steps)
                    made.append(s)
                else:
                    # the same array object with the same shape, strides, dtype, dims and
                    # origin: the same storage (an array's memory stays where it is while it
                    # lives; ndarray.resize moves it only with a new size, a new shape)
                    key = (a.shape, a.strides, a.dtype, dims, o)
                    last = slots[f.index]
                    if last is not None and last[0]() is a and last[1] == key:
                        s = last[2]
                    else:
                        s = self._wrap(rt, f, a, dims, o, dev, None, steps)
                        slots[f.index] = (weakref.ref(a), key, s)
                        if last is not None:
                            rt.gt_release(last[2])
                cargs[f.index] = s
            for pos, ct, conv, sname in self.scalars:
                try:
                    cargs[pos] = conv(vals[pos])
                except (TypeError, ValueError, OverflowError) as e:
                    raise StencilError("stencil '%s': scalar '%s': %s" % (name, sname, e)) \
                        from None
            outs = []
            for pos, ct, oname in self.outs:
                box = ct()
                outs.append(box)
                cargs[pos] = ctypes.addressof(box)
            if nsteps is not None:
                cargs.append(nsteps)
            cargs.append(ctypes.byref(dom))
            if mpi is None:
                rc = fn(*cargs)
            else:
                from ._mpi import agree, call_mpi, call_mpi_steps
                mpi[3].append(True)          # from here on, every rank calls alike
                agree(mpi[0], name, None)
                fields = [cargs[f.index] for f in self.fields]
                if mpi[2] is not None:
                    rc = call_mpi_steps(self, fn, cargs, fields, mpi[0], *mpi[2])
                else:
                    rc = call_mpi(self, fn, cargs, fields, mpi[0], mpi[1])
            if rc != 0:
                msg = rt.gt_last_error().decode(errors="replace")
                if rc == GT_EHALO and mpi is None:
                    msg += _halo_fix(msg)
                elif rc == GT_ESHAPE and mpi is None:
                    msg += _shape_fix(msg)
                elif rc in (GT_EDTYPE, GT_EALIAS):
                    read_only = {f.name for f in self.fields
                                 if not (f.steps_output if steps else f.output)}
                    msg += (_dtype_fix if rc == GT_EDTYPE else _alias_fix)(msg, read_only)
                raise StencilError(msg, rc)
        finally:
            for s in made:
                rt.gt_release(s)
        if not outs:
            return None
        if len(outs) == 1:
            return outs[0].value
        return tuple(b.value for b in outs)

    def _wrap(self, rt, f, a, dims, o, dev, up=None, steps=False):
        dt = a.dtype
        code = DTYPES.get(dt)
        if code is None:
            raise StencilError("stencil '%s': field '%s': dtype %s has no gtcc type (float32, "
                               "float64, int32, bool; native byte order); the field is %s"
                               % (self.name, f.name, dt, f.dtype))
        size = dt.itemsize
        st = []
        for s, n in zip(a.strides, a.shape):
            if n == 1 and (s < 0 or s % size):
                # an axis of one point: its stride moves to no other element (NumPy calls
                # x[:, :, ::-1] of nk = 1 contiguous), so any stride says the same
                s = 0
            if s % size:
                raise StencilError("stencil '%s': field '%s': a stride of %d bytes is not a "
                                   "multiple of the element size %d" % (self.name, f.name, s,
                                                                        size))
            st.append(s // size)
        n = len(dims)
        opts = gt_storage_opts()
        for d in range(n):
            opts.halo[d][0] = o[d]
            if up is not None:
                opts.halo[d][1] = up[d]
        shape = I64x3(*a.shape)
        strides = I64x3(*st)
        if dev:
            s = rt.gt_wrap_device(a.ptr, code, dims.encode(), shape, strides, opts)
        else:
            # an empty array: NumPy's strides along its axes can be anything (0 included);
            # it addresses nothing, so dense strides say the same
            s = rt.gt_wrap(a.ctypes.data if a.size else None, code, dims.encode(), shape,
                           strides if a.size else None, opts)
        if not s:
            msg = rt.gt_last_error().decode(errors="replace")
            if not dev and any(x == 0 and n > 1 for x, n in zip(a.strides, a.shape)):
                # a stride of 0: NumPy's broadcasting (np.broadcast_to, stride tricks)
                msg += (" (a broadcast array: pass a copy, np.ascontiguousarray(x), or give "
                        "the field only the axes it varies along, as field<double, K>)")
            elif not dev:
                msg += _view_fix(msg, f.steps_output if steps else f.output)
            raise StencilError("stencil '%s': field '%s': %s" % (self.name, f.name, msg),
                               rt.gt_last_error_code())
        return s


_MISSING = object()


def _view_fix(msg, written):
    """What to do with a NumPy view gt_wrap refuses: a reversed one (x[::-1], a negative
    stride) or one at an odd byte offset (np.frombuffer(b, offset=1), a field of a packed
    structured array): a copy the stencil reads, or for a field it writes (whose results a
    copy would drop) an array of its own whose result is copied back ('' for another
    message)."""
    if "negative strides are not supported" in msg:
        what = "a reversed view (x[::-1])"
    elif "is not aligned to" in msg:
        what = "a view at an offset that is no multiple of the element size"
    else:
        return ""
    if written:
        return (" (%s: the stencil writes it, so write into an array of its own, "
                "np.empty_like(x, order='C'), and copy the result into the view)" % what)
    return " (%s: pass a copy, x.copy(), which the stencil only reads)" % what


GT_EDTYPE, GT_ESHAPE, GT_EHALO, GT_EALIAS = -3, -5, -6, -7
_ALIAS = re.compile(r"output '[^']*' shares memory with field '([^']*)'")


def _alias_fix(msg, read_only):
    """What to pass where the runtime refuses aliasing (GT_EALIAS): a copy of the field the
    stencil only reads, as NumPy's ufuncs copy an input that overlaps their output; arrays of
    their own for fields it writes (steps: both of an iterate pair), whose results a copy
    would drop ('' for a message of another form). read_only: the names of the fields the
    call only reads."""
    m = _ALIAS.search(msg)
    if m is not None and m.group(1) in read_only:
        return (" (pass a copy of '%s', %s.copy(), as NumPy's ufuncs copy an input that "
                "overlaps their output)" % (m.group(1), m.group(1)))
    if "share memory" in msg or m is not None:
        return " (give each field the stencil writes an array of its own)"
    return ""


_SHAPE = re.compile(r"the domain is (\d+) along ([IJK]) but the storage's interior is (\d+) "
                    r"\(shape (\d+), halo \[(\d+),")


def _shape_fix(msg):
    """The runtime's GT_ESHAPE message names a storage's interior: from Python, what the
    array has from the field's origin on ('' for a message of another form)."""
    m = _SHAPE.search(msg)
    if m is None:
        return ""
    axis, inner, lo = m.group(2, 3, 5)
    return (" (the array has %s points along %s from its origin %s: give a smaller domain= "
            "(none: the largest that fits) or a larger array)" % (inner, axis, lo))


_DTYPE = re.compile(r"field '([^']*)' is (\w+) but the storage is (\w+)")


def _dtype_fix(msg, read_only):
    """The runtime's GT_EDTYPE message names a storage, which a Python caller never made: the
    array's dtype and how to give the field's ('' for a message of another form). A field the
    stencil writes is not told to pass a copy (x.astype), whose results would be dropped.
    read_only: the names of the fields the call only reads."""
    m = _DTYPE.search(msg)
    if m is None:
        return ""
    name, want, have = m.groups()
    written = name not in read_only
    np_name = "np.bool_" if want == "bool" else "np." + want
    return (" (the array's dtype is %s: make it %s where it is made, dtype=%s%s)"
            % (have, want, np_name, "" if written else
               ", or pass %s.astype(%s), a copy the stencil only reads" % (name, np_name)))


_HALO = re.compile(r"field '[^']*': halo along ([IJK]) is \[(\d+),(\d+)\] but the stencil "
                   r"needs \[(\d+),(\d+)\]")


def _halo_fix(msg):
    """The runtime's GT_EHALO message says 'halo', which a Python caller never gave: its
    lower halo is the field's origin, its upper what the array has beyond origin + domain.
    What to change, in those terms ('' for a message of another form)."""
    m = _HALO.search(msg)
    if m is None:
        return ""
    axis = m.group(1)
    lo, hi, need_lo, need_hi = (int(x) for x in m.group(2, 3, 4, 5))
    if lo < need_lo:
        return (" (below the domain the halo is the origin: %d along %s where the stencil reads "
                "%d below: give origin= with at least %d along %s, or an array with that "
                "__gt_origin__, as gtcc.zeros(..., halo=...) makes)"
                % (lo, axis, need_lo, need_lo, axis))
    return (" (above the domain the halo is what the array has beyond origin + domain: %d "
            "along %s where the stencil reads %d beyond: give a smaller domain= (none: the "
            "largest that fits) or a larger array)" % (hi, axis, need_hi))


def _bool_bytes(a, stencil, field):
    """Refuses a NumPy bool array holding a byte other than 0 and 1 (a uint8 mask viewed as
    bool, np.frombuffer of a file's bytes): NumPy reads any nonzero byte as True, C's bool
    is 0 or 1, so the stencil would compute with it wrongly (!2 is 3, a true; 2 == true is
    false), silently. One pass over the array's bytes (a bool field the stencil reads)."""
    if a.dtype == np.bool_ and a.size and a.view(np.uint8).max() > 1:
        raise StencilError("stencil '%s': field '%s': the bool array holds bytes other than 0 "
                           "and 1 (%d of them; a view of other data as bool?), which NumPy "
                           "reads as True but C's bool does not: pass %s != 0, its truth as "
                           "0 and 1" % (stencil, field,
                                        int(np.count_nonzero(a.view(np.uint8) > 1)), field))


def _not_global(decomp, arrs, vals, origin, size, stencil):
    """Under MPI, an array without an origin (none given for it, no __gt_origin__) whose extent
    along I or J is the global domain's where this rank's box is smaller: the global array, not
    this rank's local one. Wrapped with this rank's box as interior from its first point and
    the rest as upper halo, it was taken: each rank computed its box on the global array's
    first points, silently (a local array of that shape without lower halo is unlikely; it
    takes an explicit origin)."""
    for f, a, dims, o, dev in arrs:
        if any(o) or getattr(vals[f.index], "__gt_origin__", None) is not None:
            continue
        if origin is not None and (not isinstance(origin, dict) or f.name in origin or
                                   "_all_" in origin):
            continue
        for d, c in enumerate(dims):
            x = "IJK".index(c)
            if x < 2 and a.shape[d] == decomp.global_shape[x] and size[x] < a.shape[d]:
                raise StencilError(
                    "stencil '%s': field '%s': the array has %d points along %s, the global "
                    "domain's, but this rank's box is %d points (from %d): a distributed call "
                    "takes each rank's local array (Decomposition.zeros(stencil, '%s'): its "
                    "box and halo), not the global one; give origin= for a local array of "
                    "that shape" % (stencil, f.name, a.shape[d], c, size[x],
                                    decomp.box[0][x], f.name))


def _decomposition(decomp, stencil, what):
    """decomp if it is a gtcc.Decomposition, else a StencilError naming it (not an
    AttributeError from deep inside the call)."""
    from ._mpi import Decomposition
    if not isinstance(decomp, Decomposition):
        raise StencilError("stencil '%s': %s: the decomposition is %s; it must be a "
                           "gtcc.Decomposition" % (stencil, what, _a(decomp)))


def _refused(decomp, stencil, e, entered):
    """Raises e, a distributed call's failure on this rank: agreed on with the other ranks
    first where it came before the collective call (every rank then raises)."""
    if entered or not hasattr(decomp, "_comm"):
        raise e
    from ._mpi import agree
    agree(decomp, stencil, e)

# A fork after OpenMP ran: libgomp keeps, per thread, the pool of threads of that thread's
# last parallel region, which a forked child does not have, so the child's next parallel
# region on more than one thread waits for them forever (multiprocessing's default "fork"
# pool hung at its first openmp call). The child of a thread that called an openmp stencil
# runs its stencils on one thread instead.
_omp_threads = set()        # threading.get_ident() of the threads that called one
_omp_set = {}               # the omp_set_num_threads of each OpenMP runtime, by address


def _omp_runtime(lib):
    """Notes the omp_set_num_threads of an openmp module's OpenMP runtime (a dependency of
    its library)."""
    try:
        fn = lib.omp_set_num_threads
    except AttributeError:
        return
    fn.argtypes = [ctypes.c_int]
    fn.restype = None
    _omp_set[ctypes.cast(fn, ctypes.c_void_p).value] = fn


def _after_fork_in_child():
    if threading.get_ident() in _omp_threads:
        for fn in _omp_set.values():
            fn(1)


os.register_at_fork(after_in_child=_after_fork_in_child)


class _Slots(list):
    """One thread's last wrapped storage per field, (key, storage) or None; released with
    the thread's slots."""

    def __init__(self, rt, n):
        super().__init__([None] * n)
        self._rt = rt

    def __del__(self):
        try:
            for e in self:
                if e is not None:
                    self._rt.gt_release(e[2])
        except Exception:           # at interpreter exit the library may be gone
            pass


def _dims(d, stencil, field):
    """An array's __gt_dims__ as a string of axis names ("KJI"): a str, or a sequence of
    one-letter strs (GT4Py's); anything else (an int, bytes, ("IJ", "K")) is a StencilError
    naming it, not a TypeError of the join or a string of its pieces. The runtime checks the
    letters and repeats."""
    items = d if isinstance(d, str) else None
    if items is None and not isinstance(d, (bytes, bytearray)):
        try:
            items = list(d)
        except TypeError:
            pass
    if items is None or not all(isinstance(x, str) and len(x) == 1 for x in items):
        raise StencilError("stencil '%s': field '%s': __gt_dims__ is %s; it must be a sequence "
                           "of axis names ('I', 'J', 'K'), one per dimension of the array"
                           % (stencil, field, _a(d)))
    return "".join(items).upper()


def _origin(origin, f, obj, dims, stencil):
    """Field f's origin in the array's dims order: explicit per field > '_all_' >
    __gt_origin__ > 0. An explicit origin has 3 entries (I, J, K) or one per axis of the
    field (in I, J, K order); __gt_origin__ one per array dimension."""
    o = None
    if origin is not None:
        o = origin.get(f.name, origin.get("_all_")) if isinstance(origin, dict) else origin
    if o is not None:
        if type(o) is not tuple or any(type(x) is not int for x in o):   # else as it is
            o = tuple(_index(x, "stencil '%s': field '%s': an entry of origin %r", stencil,
                             f.name, o)
                      for x in _entries(o, "stencil '%s': field '%s': origin", stencil, f.name))
        if len(o) == 3:
            by = dict(zip("IJK", o))
        elif len(o) == len(f.axes):
            by = dict(zip(f.axes, o))
        else:
            raise StencilError("stencil '%s': field '%s': origin %r has %d entries; give 3 "
                               "(I, J, K) or one per axis of the field (%s)"
                               % (stencil, f.name, o, len(o), f.axes))
        return _inside(tuple(by.get(c, 0) for c in dims), "origin", f, obj, dims, stencil)
    g = getattr(obj, "__gt_origin__", None)
    if g is not None:
        g = tuple(_index(x, "stencil '%s': field '%s': an entry of __gt_origin__ %r", stencil,
                         f.name, g)
              for x in _entries(g, "stencil '%s': field '%s': __gt_origin__", stencil, f.name,
                                of="integers, one per dimension of the array"))
        if len(g) != len(dims):
            raise StencilError("stencil '%s': field '%s': __gt_origin__ %r has %d entries but "
                               "the array has %d dimensions" % (stencil, f.name, g, len(g),
                                                                 len(dims)))
        return _inside(g, "__gt_origin__", f, obj, dims, stencil)
    return (0,) * len(dims)


def _inside(o, what, f, obj, dims, stencil):
    """o (in dims order) if every entry is an index of the array's points along its axis (the
    first interior point), else StencilError naming the axis and the numbers."""
    shape = getattr(obj, "shape", None)
    for d, (c, x) in enumerate(zip(dims, o)):
        if x < 0:
            raise StencilError("stencil '%s': field '%s': %s along %s is %d; it must be >= 0 "
                               "(the index of the first interior point in the array)"
                               % (stencil, f.name, what, c, x))
        if shape is not None and d < len(shape) and x > shape[d]:
            raise StencilError("stencil '%s': field '%s': %s along %s is %d but the array has "
                               "%d points along %s" % (stencil, f.name, what, c, x, shape[d], c))
    return o

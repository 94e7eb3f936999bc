"""MPI from Python: a decomposition over an mpi4py communicator (gt_mpi_decompose), local
arrays with the halo a distributed call needs (gt_mpi_halo), and S.mpi(decomp, ...), the
generated S_mpi: the runtime's gt__mpi_entry (what S_mpi calls) with a callback that calls S
on this rank's box. libgtrt-mpi.so is loaded on first use (docs/mpi.md, docs/python.md)."""

import ctypes
import os

import numpy as np

from ._errors import GtccError, StencilError
from ._toolchain import toolchain, runtime
from ._alloc import zeros
from ._stencil import Stencil, _a, _entries, _index, _sizes

_lib = None
CALLBACK = None
STEP_CALLBACK = None


def _mpi_lib():
    global _lib, CALLBACK, STEP_CALLBACK
    if _lib is not None:
        return _lib
    runtime()
    path = os.path.join(toolchain().libdir, "libgtrt-mpi.so")
    if not os.path.exists(path):
        raise GtccError("gtcc: %s not found: libgtrt was built without MPI (mpicc)" % path)
    lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    P = ctypes.POINTER
    I64x3 = ctypes.c_int64 * 3
    lib.gt_mpi_decompose.argtypes = [ctypes.c_void_p, P(ctypes.c_int64), P(ctypes.c_int),
                                     P(ctypes.c_int)]
    lib.gt_mpi_decompose.restype = ctypes.c_void_p
    lib.gt_mpi_decomp_release.argtypes = [ctypes.c_void_p]
    lib.gt_mpi_decomp_release.restype = None
    lib.gt_mpi_box.argtypes = [ctypes.c_void_p, I64x3, I64x3]
    lib.gt_mpi_box.restype = ctypes.c_int
    lib.gt_mpi_halo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                P((ctypes.c_int64 * 2) * 3)]
    lib.gt_mpi_halo.restype = ctypes.c_int
    from ._toolchain import gt_domain
    CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, P(gt_domain))
    lib.gt__mpi_entry.argtypes = [ctypes.c_void_p, ctypes.c_void_p, P(ctypes.c_void_p),
                                  CALLBACK, ctypes.c_void_p, ctypes.c_int,
                                  P(ctypes.c_double * 2)]
    lib.gt__mpi_entry.restype = ctypes.c_int
    STEP_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, P(ctypes.c_void_p),
                                     P(gt_domain))
    lib.gt_mpi_steps.argtypes = [ctypes.c_void_p, ctypes.c_void_p, P(ctypes.c_void_p),
                                 ctypes.c_int64, ctypes.c_int, STEP_CALLBACK, ctypes.c_void_p,
                                 P(ctypes.c_double * 2)]
    lib.gt_mpi_steps.restype = ctypes.c_int
    lib.gt_mpi_steps_halo.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p,
                                      ctypes.c_int, P((ctypes.c_int64 * 2) * 3)]
    lib.gt_mpi_steps_halo.restype = ctypes.c_int
    _lib = lib
    return lib


def _comm_handle(comm):
    try:
        from mpi4py import MPI
    except ImportError:
        raise GtccError("gtcc.Decomposition: mpi4py is not installed") from None
    return MPI._handleof(comm)


class Decomposition:
    """The IJ plane of `global_shape` (NI, NJ, NK) split over the processes of `comm` (an
    mpi4py communicator): gt_mpi_decompose. dims: processes along I and J (None or 0: MPI
    chooses); periodic: per I and J. Collective."""

    def __init__(self, comm, global_shape, dims=None, periodic=(False, False)):
        lib = _mpi_lib()
        handle = _comm_handle(comm)
        # what the package refuses here, on one rank only, is agreed on by every rank first:
        # the others would wait in gt_mpi_decompose forever
        try:
            shape, d, p = self._arguments(global_shape, dims, periodic)
        except Exception as e:
            _agree_comm(comm, "gtcc.Decomposition", e)
            raise
        _agree_comm(comm, "gtcc.Decomposition", None)
        self._lib = lib
        self._comm = comm           # kept alive: the decomposition's communicator is a dup
        self._d = lib.gt_mpi_decompose(handle, (ctypes.c_int64 * 3)(*shape), d, p)
        if not self._d:
            rt = runtime()
            raise StencilError(rt.gt_last_error().decode(errors="replace"),
                               rt.gt_last_error_code())
        self.global_shape = tuple(shape)

    @staticmethod
    def _arguments(global_shape, dims, periodic):
        """global_shape, dims and periodic checked and converted (StencilError otherwise)."""
        shape = _sizes(global_shape, "global_shape", "gtcc.Decomposition")
        if dims is not None and not (type(dims) is int and dims == 0):
            dims = [_index(n, "gtcc.Decomposition: an entry of dims %r", dims, bits=32)
                    for n in _entries(dims, "gtcc.Decomposition: dims", of="processes along "
                                      "I and J; None: MPI chooses")]
            if len(dims) != 2:
                raise StencilError("gtcc.Decomposition: dims %r has %d entries; it takes 2 "
                                   "(processes along I and J)" % (dims, len(dims)))
        d = (ctypes.c_int * 2)(*dims) if dims else None
        per = list(_entries(periodic, "gtcc.Decomposition: periodic", of="bools (I, J)"))
        if len(per) != 2 or not all(isinstance(x, (bool, np.bool_)) for x in per):
            raise StencilError("gtcc.Decomposition: periodic %r must be two bools (I, J)"
                               % (periodic,))
        p = (ctypes.c_int * 2)(*[1 if x else 0 for x in per])
        return shape, d, p

    def __del__(self):
        d, self._d = getattr(self, "_d", None), None
        if d:
            try:
                self._lib.gt_mpi_decomp_release(d)
            except Exception:
                pass

    @property
    def box(self):
        """(offset, size): this rank's box of the global domain, per I, J, K."""
        off = (ctypes.c_int64 * 3)()
        size = (ctypes.c_int64 * 3)()
        self._lib.gt_mpi_box(self._d, off, size)
        return tuple(off), tuple(size)

    def zeros(self, stencil, field, layout=None, tblock=None):
        """A local array for `field` (a name) of `stencil`: this rank's box along the field's
        axes grown by the halo a distributed call needs (gt_mpi_halo), or with tblock the
        halo S.steps_mpi needs for blocks of tblock >= 1 steps (gt_mpi_steps_halo; on such
        arrays steps_mpi's default tblock=0 takes that block, up to 8), __gt_origin__ its
        lower halo."""
        st = stencil
        if not isinstance(st, Stencil):
            raise StencilError("Decomposition.zeros: the stencil is %s; give the gtcc.Stencil, "
                               "as mod.%s" % (_a(st), st if isinstance(st, str) and
                                              st.isidentifier() else "NAME"))
        names = [f.name for f in st.fields]
        if field not in names:
            raise StencilError("stencil '%s' has no field '%s' (its fields: %s)"
                               % (st.name, field, ", ".join(names)))
        idx = names.index(field)
        f = st.fields[idx]
        halo = ((ctypes.c_int64 * 2) * 3)()
        if tblock is None:
            rc = self._lib.gt_mpi_halo(st._info_ptr, idx, f.axes.encode(), ctypes.byref(halo))
        else:
            rc = self._lib.gt_mpi_steps_halo(st._info_ptr, idx, f.axes.encode(),
                                             _index(tblock, "Decomposition.zeros: tblock",
                                                    bits=32),
                                             ctypes.byref(halo))
        if rc:
            raise StencilError(runtime().gt_last_error().decode(errors="replace"), rc)
        off, size = self.box
        shape, h = [], []
        for d, c in enumerate(f.axes):
            lo, hi = halo[d][0], halo[d][1]
            shape.append(size["IJK".index(c)] + lo + hi)
            h.append((lo, hi))
        return zeros(tuple(shape), np.dtype(f.dtype), halo=h, layout=layout, axes=f.axes)


def _agree_comm(comm, what, failure):
    """This rank's failure (an exception, or None) agreed on by every rank of comm before a
    collective call: where a rank failed, each rank that did returns (its caller raises its
    own exception) and the others raise a StencilError naming the lowest one and its
    message."""
    from mpi4py import MPI
    if comm == MPI.COMM_NULL:
        return                  # no rank to tell: gt_mpi_decompose refuses it on this one
    rank, size = comm.Get_rank(), comm.Get_size()
    who = np.empty(1, np.int64)
    comm.Allreduce(np.array([size if failure is None else rank], np.int64), who, op=MPI.MIN)
    who = int(who[0])
    if who == size:
        return
    text = comm.bcast(str(failure) if rank == who else None, root=who)
    if failure is None:
        raise StencilError("%s: rank %d failed (%s); nothing was done" % (what, who, text))


def agree(decomp, stencil, failure):
    """A distributed call's outcome on this rank before the collective call (failure: the
    exception that refused it here, or None), agreed on by every rank, as the runtime agrees
    on its own checks: where a rank failed, each rank that did raises its own exception and
    the others a StencilError naming the lowest one and its message (without it they would
    wait in the collective call forever)."""
    _agree_comm(decomp._comm, "stencil '%s'" % stencil, failure)
    if failure is not None:
        raise failure


def _guarded(failure, body):
    """body as a callback that never raises through C: an exception is kept in failure (the
    caller raises it after the C call) and the callback returns -1."""
    def cb(*args):
        try:
            return body(*args)
        except BaseException as e:
            failure.append(e)
            return -1
    return cb


def call_mpi(stencil, fn, cargs, fields, decomp, overlap):
    """gt__mpi_entry(info, decomp, fields, callback calling fn on its domain, ...)."""
    lib = _mpi_lib()
    failure = []

    def call(ctx, domain):
        cargs[-1] = domain
        return fn(*cargs)
    cfn = CALLBACK(_guarded(failure, call))
    arr = (ctypes.c_void_p * max(len(fields), 1))(*fields)
    rc = lib.gt__mpi_entry(stencil._info_ptr, decomp._d, arr, cfn, None,
                           1 if overlap else 0, None)
    if failure:
        raise failure[0]
    return rc


def call_mpi_steps(stencil, fn, cargs, fields, decomp, nsteps, tblock):
    """gt_mpi_steps(decomp, info, fields, nsteps, tblock, a step calling fn on the storages
    and the domain it is given, ...): fn is the stencil's single step."""
    lib = _mpi_lib()
    failure = []
    pos = [f.index for f in stencil.fields]

    def step(ctx, storages, domain):
        for x, p in enumerate(pos):
            cargs[p] = storages[x]
        cargs[-1] = domain
        return fn(*cargs)
    cfn = STEP_CALLBACK(_guarded(failure, step))
    arr = (ctypes.c_void_p * max(len(fields), 1))(*fields)
    rc = lib.gt_mpi_steps(decomp._d, stencil._info_ptr, arr, nsteps, tblock, cfn, None, None)
    if failure:
        raise failure[0]
    return rc

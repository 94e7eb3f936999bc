"""DLPack producers: versioned capsules first, the legacy ones otherwise, zero-copy, the
producer's deleter run exactly once; __cuda_array_interface__ without a GPU."""
import ctypes
import gc

import numpy as np
import pytest

import gtcc


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER_V = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", DELETER_V), ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]

PyCapsule_New = ctypes.pythonapi.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
NAME_V = ctypes.create_string_buffer(b"dltensor_versioned")
NAME = ctypes.create_string_buffer(b"dltensor")


class Producer:
    """A float64 array served only through DLPack, with a deleter that counts its runs."""

    def __init__(self, arr, versioned=True, read_only=False):
        self.arr = arr                  # the memory (kept alive by the producer)
        self.versioned = versioned
        self.read_only = read_only
        self.deleted = 0
        self.exported = 0
        self._keep = []

    def __dlpack_device__(self):
        return (1, 0)

    def _tensor(self, t):
        a = self.arr
        shape = (ctypes.c_int64 * a.ndim)(*a.shape)
        strides = (ctypes.c_int64 * a.ndim)(*(s // a.itemsize for s in a.strides))
        t.data = a.ctypes.data
        t.device = DLDevice(1, 0)
        t.ndim = a.ndim
        t.dtype = DLDataType(2, 64, 1)            # kDLFloat, 64 bits
        t.shape = shape
        t.strides = strides
        t.byte_offset = 0
        return shape, strides

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if self.versioned and max_version is not None and max_version[0] >= 1:
            m = DLManagedTensorVersioned()
            m.version = DLPackVersion(1, 0)
            m.flags = 1 if self.read_only else 0    # DLPACK_FLAG_BITMASK_READ_ONLY
            keep = self._tensor(m.dl_tensor)

            def deleter(p):
                self.deleted += 1
            cb = DELETER_V(deleter)
            m.deleter = cb
            name = NAME_V
        else:
            if max_version is not None and not self.versioned:
                raise TypeError("max_version")     # an older producer
            m = DLManagedTensor()
            keep = self._tensor(m.dl_tensor)

            def deleter(p):
                self.deleted += 1
            cb = DELETER(deleter)
            m.deleter = cb
            name = NAME
        self._keep.append((m, keep, cb))
        self.exported += 1
        return PyCapsule_New(ctypes.addressof(m), name, None)


SRC = "stencil axpy(field<double> x, field<double> y, double a) { y = a * x + y; }"


@pytest.fixture(scope="module")
def m():
    return gtcc.compile(SRC)


@pytest.mark.parametrize("versioned", [True, False])
def test_dlpack_zero_copy_deleter_once(m, versioned):
    x = np.arange(24.0).reshape(4, 3, 2)
    y = np.ones((4, 3, 2), order="F")
    px, py = Producer(x, versioned), Producer(y, versioned)
    m.axpy(px, py, 2.0)
    gc.collect()
    np.testing.assert_array_equal(y, 2.0 * x + 1.0)           # written in place
    assert px.exported == 1 and py.exported == 1
    assert px.deleted == 1 and py.deleted == 1                 # exactly once


def test_dlpack_read_only_output(m):
    x = np.arange(24.0).reshape(4, 3, 2)
    y = np.ones((4, 3, 2))
    py = Producer(y, True, read_only=True)
    with pytest.raises(gtcc.StencilError) as e:
        m.axpy(x, py, 2.0)
    msg = e.value.message
    del e                      # its traceback holds the consumed array
    gc.collect()
    assert "field 'y': the array is read-only" in msg
    assert (y == 1.0).all() and py.deleted == 1


def test_dlpack_export_refused(m):
    # a producer that refuses to export (PyTorch's RuntimeError for a tensor that requires
    # grad), or returns no capsule: a StencilError naming the field and the producer's
    # words (it was the producer's bare exception), nothing written
    class Grad:
        def __dlpack_device__(self):
            return (1, 0)

        def __dlpack__(self, max_version=None):
            raise RuntimeError("Can't export tensors that require gradient, use "
                               "tensor.detach()")

    class NoCapsule(Grad):
        def __dlpack__(self, max_version=None):
            return 42

    x = np.arange(24.0).reshape(4, 3, 2)
    y = np.ones((4, 3, 2))
    for obj, words in ((Grad(), "RuntimeError: Can't export tensors that require gradient"),
                       (NoCapsule(), "ValueError: __dlpack__ returned no DLPack capsule")):
        for args in ((obj, y, 2.0), (x, obj, 2.0)):
            with pytest.raises(gtcc.StencilError) as e:
                m.axpy(*args)
            field = "x" if args[0] is obj else "y"
            assert e.value.message.startswith(
                "stencil 'axpy': field '%s': a %s whose DLPack export failed: %s"
                % (field, type(obj).__name__, words)), e.value.message
            assert (y == 1.0).all()


class FakeDevice:
    """Only __cuda_array_interface__ (v3), pointing at no real device memory."""

    def __init__(self, shape):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f8",
                                         "data": (0xdead0000, False), "version": 3,
                                         "strides": None, "stream": None}


def test_cuda_array_interface_without_gpu(m):
    y = np.ones((4, 3, 2))
    with pytest.raises(gtcc.StencilError) as e:
        m.axpy(FakeDevice((4, 3, 2)), y, 2.0)
    assert "field 'x': a device (CUDA) array, but the module was built for the openmp " \
        "backend" in e.value.message
    assert (y == 1.0).all()


def test_cuda_array_interface_malformed_or_masked(m):
    # a __cuda_array_interface__ without typestr (a producer's bug): a StencilError naming
    # the field, not a bare KeyError; one with a mask (v3: a consumer that does not handle
    # masked elements must refuse them) is refused, not read with the mask ignored
    y = np.ones((4, 3, 2))
    bad = FakeDevice((4, 3, 2))
    del bad.__cuda_array_interface__["typestr"]
    masked = FakeDevice((4, 3, 2))
    masked.__cuda_array_interface__["mask"] = FakeDevice((4, 3, 2))
    for obj, words in ((bad, "a FakeDevice whose __cuda_array_interface__ cannot be read: "
                        "KeyError: 'typestr'"),
                       (masked, "a FakeDevice with a mask (its __cuda_array_interface__ has "
                        "one): the stencil would use the values under it")):
        with pytest.raises(gtcc.StencilError) as e:
            m.axpy(obj, y, 2.0)
        assert e.value.message.startswith("stencil 'axpy': field 'x': " + words), \
            e.value.message
        assert (y == 1.0).all()


def test_wrap_device_without_cuda():
    # the runtime's own answer to a device array when it has no device layer (here: no GPU)
    from gtcc._toolchain import runtime, gt_storage_opts
    rt = runtime()
    shape = (ctypes.c_int64 * 3)(4, 3, 2)
    s = rt.gt_wrap_device(0xdead0000, 1, b"IJK", shape, None, gt_storage_opts())
    if s:
        rt.gt_release(s)
        pytest.skip("this runtime has a working device layer")
    assert rt.gt_last_error_code() == -8
    assert b"gt_wrap_device" in rt.gt_last_error()


def test_buffer_protocol(m):
    x = np.arange(6.0).reshape(3, 2, 1)
    y = np.zeros((3, 2, 1))
    m.axpy(memoryview(x), memoryview(y), 1.0)
    np.testing.assert_array_equal(y, x)
    with pytest.raises(gtcc.StencilError) as e:
        m.axpy(x, memoryview(y).toreadonly(), 1.0)
    assert "read-only" in e.value.message


CUDA_CHECK = """
import ctypes, sys
import numpy as np
import gtcc
from gtcc._toolchain import runtime, gt_storage_opts
SRC = %r
mc = gtcc.compile(SRC, backend="cuda")        # the first module of this process
rt = runtime()
s = rt.gt_wrap_device(0xdead0000, 1, b"IJK", (ctypes.c_int64 * 3)(4, 3, 2), None,
                      gt_storage_opts())
if s:                       # a device: the fake pointer must not reach a kernel
    print("DEVICE")
    sys.exit(0)
class FakeDevice:
    def __init__(self, shape):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": "<f8",
                                         "data": (0xdead0000, False), "version": 3}
y = np.ones((4, 3, 2))
for args in ((np.ones((4, 3, 2)), y, 2.0), (FakeDevice((4, 3, 2)), FakeDevice((4, 3, 2)), 2.0)):
    try:
        mc.axpy(*args)
        print("NO ERROR")
    except gtcc.StencilError as e:
        print(e.code, e.message)
print("untouched", bool((y == 1.0).all()))
"""


def test_cuda_backend_without_gpu(tmp_path):
    # the cuda backend's module (nvcc, libgtrt-cuda) builds and loads here, as the first
    # module of a process; without a GPU a device array gets the runtime's GT_EDEVICE from
    # gt_wrap_device, a host array the package's refusal; nothing is written. The
    # libraries lie in a directory whose name has a comma, which nvcc's -L and -Xlinker
    # cut ("ld: cannot find x", "cannot find -lgtrt-cuda" before)
    import os
    import shutil
    import subprocess
    import sys
    if not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")) or \
            not os.path.exists(os.path.join(os.environ["GTCC_LIBDIR"], "libgtrt-cuda.so")):
        pytest.skip("no nvcc or no libgtrt-cuda.so")
    if "libasan" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("SANITIZE=1: nvcc does not run with libasan preloaded (it crashes)")
    libdir = tmp_path / "lib, x"
    libdir.mkdir()
    for name in ("libgtrt.so", "libgtrt-cuda.so"):
        shutil.copy(os.path.join(os.environ["GTCC_LIBDIR"], name), libdir)
    r = subprocess.run([sys.executable, "-c", CUDA_CHECK % SRC], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=600,
                       env=dict(os.environ, GTCC_LIBDIR=str(libdir)))
    assert r.returncode == 0, r.stdout
    if r.stdout.strip() == "DEVICE":
        pytest.skip("a device is there")
    lines = r.stdout.splitlines()
    assert "0 stencil 'axpy': field 'x': a host array, but the module was built for the cuda " \
        "backend" in lines[0]
    assert lines[1].startswith("-8 stencil 'axpy': field 'x': gt_wrap_device:"), lines[1]
    assert lines[2] == "untouched True"


class Copying:
    """An array API producer over a NumPy array whose __dlpack__ copies unless told not to
    (copy=None allows a copy): NumPy's own export, of the array or of a copy of it (NumPy
    flags that one DLPACK_FLAG_BITMASK_IS_COPIED). always: it copies even with copy=False
    (a producer that cannot export in place); no_copy_kw: it takes max_version, not copy, and
    exports in place (a producer older than copy=)."""

    def __init__(self, arr, always=False, no_copy_kw=False):
        self.arr, self.always, self.no_copy_kw = arr, always, no_copy_kw
        self.asked = []

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None, max_version=None, **kw):
        if self.no_copy_kw:
            if kw:
                raise TypeError("__dlpack__() got an unexpected keyword argument 'copy'")
            return self.arr.__dlpack__(max_version=max_version)
        copy = kw.get("copy")
        self.asked.append(copy)
        if copy is False and not self.always:
            return self.arr.__dlpack__(max_version=max_version, copy=False)
        return self.arr.copy().__dlpack__(max_version=max_version, copy=True)


def test_dlpack_output_not_a_copy(m):
    # an output's producer is asked not to copy (copy=False): one that copies where copy is
    # None (as the array API allows) had the stencil write into its copy, dropped with the
    # results, silently; one that copies anyway (flagged IS_COPIED) is refused; an input may
    # be a copy (it is only read)
    x = np.arange(24.0).reshape(4, 3, 2)
    y = np.ones((4, 3, 2))
    px, py = Copying(x), Copying(y)
    m.axpy(px, py, 2.0)
    np.testing.assert_array_equal(y, 2.0 * x + 1.0)
    assert py.asked == [False] and px.asked == [None]
    y[...] = 1.0
    m.axpy(x, Copying(y, no_copy_kw=True), 2.0)        # asked again without copy=
    np.testing.assert_array_equal(y, 2.0 * x + 1.0)
    y[...] = 1.0
    with pytest.raises(gtcc.StencilError) as e:
        m.axpy(x, Copying(y, always=True), 2.0)
    assert e.value.message == (
        "stencil 'axpy': field 'y': the Copying's DLPack export is a copy (its producer "
        "flagged it IS_COPIED), but the stencil writes the field: its results would be lost "
        "with the copy; pass an array the producer exports in place")
    assert e.value.code == 0 and (y == 1.0).all()

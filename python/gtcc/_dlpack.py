"""A DLPack consumer through ctypes: versioned capsules (DLPack 1.x, "dltensor_versioned")
first, legacy ones ("dltensor") from producers that do not take max_version. The capsule is
renamed "used_..." (consumed) and the producer's deleter runs exactly once, when the array
made over its memory is freed."""

import ctypes

import numpy as np


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


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_api = ctypes.pythonapi
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
# the names a consumed capsule gets must outlive it: module-level buffers
_USED_V = ctypes.create_string_buffer(b"used_dltensor_versioned")
_USED = ctypes.create_string_buffer(b"used_dltensor")

READ_ONLY = 1           # DLPACK_FLAG_BITMASK_READ_ONLY
IS_COPIED = 2           # DLPACK_FLAG_BITMASK_IS_COPIED (DLPack 1.0)
_CODES = {(0, 32): "i4", (1, 8): "u1", (2, 32): "f4", (2, 64): "f8", (6, 8): "b1",
          (0, 64): "i8", (2, 16): "f2", (1, 32): "u4", (0, 8): "i1", (0, 16): "i2",
          (1, 16): "u2", (1, 64): "u8"}


class Tensor:
    """A consumed tensor: data (element 0 with the byte offset), shape, strides in bytes,
    dtype, device type, read-only, copied (the producer says it made a copy); the producer's
    deleter runs when this object is freed."""

    def __init__(self, ptr, deleter, t, readonly, copied=False):
        self._ptr = ptr
        self._deleter = DELETER(deleter) if deleter else None
        self.device = t.device.device_type
        self.ndim = t.ndim
        code = (t.dtype.code, t.dtype.bits)
        if t.dtype.lanes != 1 or code not in _CODES:
            self.dtype = None
            self.dtype_desc = "DLPack type code %d, %d bits, %d lanes" % (
                t.dtype.code, t.dtype.bits, t.dtype.lanes)
        else:
            self.dtype = np.dtype(_CODES[code])
            self.dtype_desc = str(self.dtype)
        item = self.dtype.itemsize if self.dtype is not None else max(t.dtype.bits // 8, 1)
        self.shape = tuple(t.shape[d] for d in range(t.ndim))
        if t.strides:
            st = [t.strides[d] for d in range(t.ndim)]
        else:                      # NULL: C-contiguous
            st, acc = [0] * t.ndim, 1
            for d in range(t.ndim - 1, -1, -1):
                st[d] = acc
                acc *= self.shape[d]
        self.strides = tuple(s * item for s in st)
        self.data = (t.data or 0) + t.byte_offset
        self.readonly = readonly
        self.copied = copied

    def __del__(self):
        d, self._deleter = self._deleter, None
        if d is not None:
            d(self._ptr)

    def numpy(self):
        """A NumPy array over the memory (host tensors), keeping self alive."""
        holder = _Holder(self)
        return np.asarray(holder)


class _Holder:
    def __init__(self, t):
        self._t = t
        self.__array_interface__ = {"data": (t.data, t.readonly), "shape": t.shape,
                                    "strides": t.strides, "typestr": t.dtype.str,
                                    "version": 3}


def consume(obj, output=False):
    """obj.__dlpack__() consumed: a Tensor. For an output (written in place) the producer is asked
    not to copy (copy=False: the array API's __dlpack__ may copy where copy is None, and a
    stencil's results written into a copy would be lost); one that does not take copy= (or
    max_version=) is asked again without it."""
    asks = ([{"max_version": (1, 0), "copy": False}] if output else []) + \
        [{"max_version": (1, 0)}, {}]
    for n, kw in enumerate(asks):
        try:
            cap = obj.__dlpack__(**kw)
            break
        except TypeError:
            if n == len(asks) - 1:
                raise
    if _api.PyCapsule_IsValid(cap, b"dltensor_versioned"):
        ptr = _api.PyCapsule_GetPointer(cap, b"dltensor_versioned")
        m = DLManagedTensorVersioned.from_address(ptr)
        if m.version.major != 1:
            raise ValueError("DLPack version %d.%d is not 1.x" % (m.version.major,
                                                                  m.version.minor))
        _api.PyCapsule_SetName(cap, _USED_V)
        return Tensor(ptr, m.deleter, m.dl_tensor, bool(m.flags & READ_ONLY),
                      bool(m.flags & IS_COPIED))
    if _api.PyCapsule_IsValid(cap, b"dltensor"):
        ptr = _api.PyCapsule_GetPointer(cap, b"dltensor")
        m = DLManagedTensor.from_address(ptr)
        _api.PyCapsule_SetName(cap, _USED)
        return Tensor(ptr, m.deleter, m.dl_tensor, False)
    raise ValueError("__dlpack__ returned no DLPack capsule")

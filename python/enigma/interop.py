"""interop.py — arrays from other libraries, seen without copying.

Needs: NumPy. Guarantees: `view(obj)` describes any array-like object by its memory (address,
bytes, element type, shape, contiguity, device) without copying it, through the first
protocol the object offers:
  1. `__cuda_array_interface__` (CuPy, PyTorch and Numba CUDA arrays): GPU memory;
  2. `__dlpack__` with `__dlpack_device__` (PyTorch, JAX, CuPy, NumPy >= 1.22): CPU memory
     becomes a NumPy view (np.from_dlpack); GPU memory is read from the DLPack capsule;
  3. `__array_interface__` / the buffer protocol (NumPy, array.array, bytearray, memoryview).
The ArrayView keeps the source object (and any capsule) alive for as long as it lives, so
the runtime may bind its address to a kernel in place.
"""

import ctypes

import numpy as np

from .errors import InvalidArgumentError

# DLPack's device types (dlpack.h: DLDeviceType)
DL_CPU, DL_CUDA, DL_CUDA_HOST, DL_CUDA_MANAGED = 1, 2, 3, 13


class ArrayView:
    """An array's memory: `address` of `nbytes`, elements of NumPy `dtype` (None when NumPy
    has no such type, e.g. bfloat16; `typestr` names it then), `shape`, `contiguous` (C order,
    no gaps), `device` "cpu" or "cuda", `readonly`. `host` is a NumPy view of host memory
    (None for GPU memory)."""

    __slots__ = ("address", "nbytes", "dtype", "typestr", "shape", "contiguous", "device",
                 "readonly", "host", "keepalive")

    def __init__(self, address, nbytes, dtype, typestr, shape, contiguous, device, readonly,
                 host=None, keepalive=None):
        self.address = int(address)
        self.nbytes = int(nbytes)
        self.dtype = dtype
        self.typestr = typestr
        self.shape = tuple(int(s) for s in shape)
        self.contiguous = bool(contiguous)
        self.device = device
        self.readonly = bool(readonly)
        self.host = host
        self.keepalive = keepalive

    @property
    def type_name(self):
        return str(self.dtype) if self.dtype is not None else self.typestr


def is_array_like(obj):
    """True for objects view() can describe (not Python numbers, lists or tuples)."""
    if isinstance(obj, (np.ndarray, bytes, bytearray, memoryview)):
        return True
    if any(hasattr(obj, a) for a in ("__cuda_array_interface__", "__dlpack__",
                                     "__array_interface__", "__array__")):
        return True
    try:
        memoryview(obj)  # the buffer protocol (array.array, mmap, ...)
    except TypeError:
        return False
    return True


def view(obj):
    """The ArrayView of obj, or raises InvalidArgumentError saying what obj is not."""
    if isinstance(obj, np.ndarray):
        return _from_numpy(obj, obj)
    if hasattr(obj, "__cuda_array_interface__"):
        return _from_cuda_array_interface(obj)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        device_type, _ = obj.__dlpack_device__()
        if int(device_type) in (DL_CPU, DL_CUDA_HOST):
            return _from_numpy(np.from_dlpack(obj), obj)
        if int(device_type) in (DL_CUDA, DL_CUDA_MANAGED):
            return _from_dlpack_capsule(obj)
        raise InvalidArgumentError("an array on DLPack device type %d is neither host nor "
                                   "CUDA memory" % int(device_type))
    if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
        return _from_numpy(np.asarray(obj), obj)
    try:
        return _from_numpy(np.asarray(memoryview(obj)), obj)
    except TypeError:
        pass
    raise InvalidArgumentError("%s is not an array: it has no __cuda_array_interface__, "
                               "__dlpack__, __array_interface__ or buffer protocol"
                               % type(obj).__name__)


def _from_numpy(arr, owner):
    if arr.dtype.hasobject:
        raise InvalidArgumentError("an array of Python objects (dtype object) has no bytes "
                                   "a kernel can read")
    return ArrayView(arr.ctypes.data, arr.nbytes, arr.dtype, arr.dtype.str, arr.shape,
                     arr.flags.c_contiguous, "cpu", not arr.flags.writeable, host=arr,
                     keepalive=(owner, arr))


def _dense(shape, strides, itemsize):
    """Are `strides` (bytes, or None) those of a C-contiguous array of `shape`?"""
    if strides is None:
        return True
    expect = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def _np_dtype(typestr):
    try:
        dt = np.dtype(typestr)
    except TypeError:
        return None
    return None if dt.kind == "V" else dt


def _from_cuda_array_interface(obj):
    cai = obj.__cuda_array_interface__
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    dt = _np_dtype(typestr)
    itemsize = dt.itemsize if dt is not None else int(typestr[2:])
    address, readonly = cai["data"]
    count = int(np.prod(shape)) if shape else 1
    return ArrayView(address or 0, count * itemsize, dt, typestr, shape,
                     _dense(shape, cai.get("strides"), itemsize), "cuda", readonly,
                     keepalive=obj)


# ---- DLPack capsules (GPU memory that offers no __cuda_array_interface__, e.g. JAX) ----------
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", ctypes.CFUNCTYPE(None, ctypes.c_void_p))]

_DL_CODES = {0: "i", 1: "u", 2: "f", 4: "b"}  # kDLInt, kDLUInt, kDLFloat, kDLBfloat
_capsule_get = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get.restype = ctypes.c_void_p
_capsule_get.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_rename = ctypes.pythonapi.PyCapsule_SetName
_capsule_rename.restype = ctypes.c_int
_capsule_rename.argtypes = [ctypes.py_object, ctypes.c_char_p]


class _Capsule:
    """Owns a consumed DLPack capsule: its deleter runs when the view goes."""

    def __init__(self, owner, managed):
        self.owner = owner
        self.managed = managed

    def __del__(self):
        m = ctypes.cast(self.managed, ctypes.POINTER(_DLManagedTensor)).contents
        if m.deleter:
            m.deleter(self.managed)


def _from_dlpack_capsule(obj):
    capsule = obj.__dlpack__()
    managed = _capsule_get(capsule, b"dltensor")
    _capsule_rename(capsule, b"used_dltensor")  # consumed: the capsule's destructor skips it
    keep = _Capsule(obj, managed)
    t = ctypes.cast(managed, ctypes.POINTER(_DLManagedTensor)).contents.dl_tensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    bits, code = t.dtype.bits, t.dtype.code
    kind = _DL_CODES.get(code, "V")
    itemsize = bits // 8 * max(1, t.dtype.lanes)
    typestr = "<%s%d" % (kind, itemsize) if kind != "b" else "<bfloat%d" % bits
    strides = None if not t.strides else tuple(t.strides[i] * itemsize for i in range(t.ndim))
    count = int(np.prod(shape)) if shape else 1
    return ArrayView((t.data or 0) + t.byte_offset, count * itemsize,
                     _np_dtype(typestr) if kind != "b" else None, typestr, shape,
                     _dense(shape, strides, itemsize), "cuda", False, keepalive=keep)

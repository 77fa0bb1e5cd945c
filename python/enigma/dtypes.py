"""dtypes.py — the DSL's scalar types (f32, u32, ...) and Scalar(T).

A DType names one MSL scalar type and the NumPy dtype that holds it on the host. Used as a
kernel parameter annotation it declares a device buffer of that element type; called inside a
kernel it makes a typed constant (`enigma.f32(0.0)`) or a conversion (`enigma.u32(x)`).
bfloat has no NumPy dtype: its host form is the raw 16 bits in uint16 (see to_bfloat16).
"""

import numpy as np


class DType:
    __slots__ = ("name", "msl", "np", "size", "kind", "bits")

    def __init__(self, name, msl, np_dtype, size, kind):
        self.name = name      # "f32"
        self.msl = msl        # "float"
        self.np = np.dtype(np_dtype)
        self.size = size      # bytes
        self.kind = kind      # "float", "int", "uint" or "bool"
        self.bits = size * 8

    @property
    def is_float(self):
        return self.kind == "float"

    @property
    def is_int(self):
        return self.kind in ("int", "uint")

    @property
    def is_signed(self):
        return self.kind in ("int", "float")

    def __call__(self, value):
        """A constant of this type (Python number) or a conversion (symbolic value)."""
        from . import trace
        return trace.cast(value, self)

    def __repr__(self):
        return "enigma." + self.name

    def __reduce__(self):
        return (by_name, (self.name,))


f32 = DType("f32", "float", np.float32, 4, "float")
f16 = DType("f16", "half", np.float16, 2, "float")
bf16 = DType("bf16", "bfloat", np.uint16, 2, "float")
i8 = DType("i8", "char", np.int8, 1, "int")
i16 = DType("i16", "short", np.int16, 2, "int")
i32 = DType("i32", "int", np.int32, 4, "int")
i64 = DType("i64", "long", np.int64, 8, "int")
u8 = DType("u8", "uchar", np.uint8, 1, "uint")
u16 = DType("u16", "ushort", np.uint16, 2, "uint")
u32 = DType("u32", "uint", np.uint32, 4, "uint")
u64 = DType("u64", "ulong", np.uint64, 8, "uint")
bool_ = DType("bool", "bool", np.bool_, 1, "bool")

ALL = [f32, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, bool_]
_BY_NAME = {}
for _t in ALL:
    _BY_NAME[_t.name] = _t
    _BY_NAME[_t.msl] = _t
# common aliases, so threadgroup_alloc("float", n) and friends read naturally
_BY_NAME.update({"float32": f32, "float16": f16, "bfloat16": bf16, "int8": i8, "int16": i16,
                 "int32": i32, "int64": i64, "uint8": u8, "uint16": u16, "uint32": u32,
                 "uint64": u64, "int8_t": i8, "int16_t": i16, "int32_t": i32, "int64_t": i64,
                 "uint8_t": u8, "uint16_t": u16, "uint32_t": u32, "uint64_t": u64,
                 "unsigned int": u32, "bool_": bool_})

# the enigma_scalar enum of include/enigma.h -> DType
BY_ENIGMA_SCALAR = {1: bool_, 2: i8, 3: u8, 4: i16, 5: u16, 6: i32, 7: u32, 8: i64, 9: u64,
                    10: f16, 11: bf16, 12: f32}


def by_name(name):
    return _BY_NAME[name]


def as_dtype(t):
    """A DType from a DType, a name ("float", "f32", "uint"), or a NumPy dtype."""
    if isinstance(t, DType):
        return t
    if isinstance(t, Scalar):
        return t.dtype
    if isinstance(t, str):
        try:
            return _BY_NAME[t.strip()]
        except KeyError:
            raise TypeError("unknown enigma type %r; use one of %s"
                            % (t, ", ".join(x.name for x in ALL))) from None
    try:
        d = np.dtype(t)
    except TypeError:
        raise TypeError("not an enigma type: %r" % (t,)) from None
    for x in ALL:
        if x.np == d and x is not bf16:
            return x
    raise TypeError("no enigma type for NumPy dtype %s" % d)


class Scalar:
    """Annotation for a by-value parameter: `K: enigma.Scalar(enigma.u32)` becomes
    `constant uint& K [[buffer(i)]]`; pass it a one-element array or a Python number."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = as_dtype(dtype)

    def __repr__(self):
        return "enigma.Scalar(%r)" % (self.dtype,)


def to_bfloat16(a):
    """float32 values -> the uint16 bit patterns of bfloat (round to nearest even)."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(a, dtype=np.float32))
    out = rounded.astype(np.uint16)
    out[nan] = 0x7FC0
    return out


def from_bfloat16(bits):
    """uint16 bfloat bit patterns -> float32 values."""
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)

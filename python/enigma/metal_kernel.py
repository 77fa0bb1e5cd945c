"""metal_kernel.py — MLX's `mx.fast.metal_kernel` API on enigma.

Code written for MLX runs by changing the import:

    kernel = enigma.metal_kernel(name="myexp", input_names=["inp"], output_names=["out"],
                                 source="uint elem = thread_position_in_grid.x;\n"
                                        "out[elem] = metal::exp(inp[elem]);")
    (b,) = kernel(inputs=[a], template=[("T", np.float32)], grid=(a.size, 1, 1),
                  threadgroup=(256, 1, 1), output_shapes=[a.shape], output_dtypes=[a.dtype])

Needs: runtime.Runtime.launch (binding by name, arrays in place). Guarantees MLX's documented
semantics for the body-only `source`: the kernel signature is generated from the inputs'
element types (`const device T* name`; a 0-d input is `const constant T& name`), the outputs
(`device T* name`, `device atomic<T>* name` with atomic_outputs), `name_shape` (int),
`name_strides` (int64_t, in elements) and `name_ndim` (int) for each input whose names the
source uses, and every Metal thread attribute the source names; `template` pairs become
typedefs and constexpr values at the top of the body; `header` goes before the kernel, after
enigma's small prelude (float16_t, bfloat16_t, elem_to_loc, ceildiv). `grid` counts threads
(dispatchThreads). Outputs come back as arrays of the inputs' library (NumPy, or PyTorch and
CuPy tensors on their device); `init_value` fills them first.
"""

import re
import threading

import numpy as np

from . import dtypes as T
from . import interop
from .errors import InvalidArgumentError
from .kernel import compile_source

# Metal's thread attributes (MSL specification, table "Attributes for kernel function input
# arguments") and the types MLX declares them with
ATTRIBUTES = {
    "thread_position_in_grid": "uint3", "thread_position_in_threadgroup": "uint3",
    "threadgroup_position_in_grid": "uint3", "threads_per_grid": "uint3",
    "threads_per_threadgroup": "uint3", "threadgroups_per_grid": "uint3",
    "dispatch_threads_per_threadgroup": "uint3",
    "thread_index_in_threadgroup": "uint", "thread_index_in_simdgroup": "uint",
    "simdgroup_index_in_threadgroup": "uint", "simdgroups_per_threadgroup": "uint",
    "dispatch_simdgroups_per_threadgroup": "uint", "threads_per_simdgroup": "uint",
    "thread_execution_width": "uint", "thread_index_in_quadgroup": "uint",
    "quadgroup_index_in_threadgroup": "uint", "quadgroups_per_threadgroup": "uint",
    "dispatch_quadgroups_per_threadgroup": "uint",
}

# What every generated kernel can use, as MLX's kernels include its utils.h.
PRELUDE = """#include <metal_stdlib>
using namespace metal;
typedef half float16_t;
typedef bfloat bfloat16_t;

// the memory offset of row-major element `elem` of an array of `ndim` dimensions
template <typename IdxT = int64_t>
inline IdxT elem_to_loc(uint elem, constant const int *shape, constant const int64_t *strides,
                        int ndim) {
    IdxT loc = 0;
    for (int d = ndim - 1; d >= 0 && elem > 0; --d) {
        loc += IdxT(elem % uint(shape[d])) * IdxT(strides[d]);
        elem /= uint(shape[d]);
    }
    return loc;
}

template <typename T, typename U>
inline T ceildiv(T n, U d) { return (n + T(d) - 1) / T(d); }
"""

_MSL_NAMES = {
    np.dtype(np.float32): "float", np.dtype(np.float16): "float16_t",
    np.dtype(np.int8): "int8_t", np.dtype(np.int16): "int16_t", np.dtype(np.int32): "int32_t",
    np.dtype(np.int64): "int64_t", np.dtype(np.uint8): "uint8_t",
    np.dtype(np.uint16): "uint16_t", np.dtype(np.uint32): "uint32_t",
    np.dtype(np.uint64): "uint64_t", np.dtype(np.bool_): "bool",
}


def msl_type(dtype, what):
    """The MSL spelling of an element type given as a NumPy dtype (or type), an enigma DType,
    a PyTorch dtype, or a string NumPy understands."""
    if isinstance(dtype, T.DType):
        return "bfloat16_t" if dtype is T.bf16 else _MSL_NAMES[dtype.np]
    text = str(dtype)
    if text.endswith("bfloat16"):
        return "bfloat16_t"
    try:
        try:
            dt = np.dtype(dtype)
        except TypeError:  # a PyTorch dtype prints as torch.float32
            dt = np.dtype(text.replace("torch.", ""))
        return _MSL_NAMES[dt]
    except (TypeError, KeyError):
        raise InvalidArgumentError("%s: %r is not an element type Metal kernels take (float32, "
                                   "float16, bfloat16, int8..int64, uint8..uint64, bool)"
                                   % (what, dtype)) from None


def _template_line(name, value):
    if isinstance(value, (bool, np.bool_)):
        return "constexpr bool %s = %s;" % (name, "true" if value else "false")
    if isinstance(value, (int, np.integer)):
        return "constexpr int %s = %d;" % (name, int(value))
    return "typedef %s %s;" % (msl_type(value, "template argument %s" % name), name)


class _Input:
    """One input as the kernel sees it: its array, element type, shape and strides."""

    def __init__(self, name, value, contiguous):
        self.name = name
        if not interop.is_array_like(value):
            value = np.asarray(value)
        self.view = interop.view(value)
        if contiguous and not self.view.contiguous:
            value = _contiguous(value)
            self.view = interop.view(value)
        self.value = value
        self.msl = msl_type(self.view.dtype if self.view.dtype is not None else self.view.typestr,
                            "input %s" % name)
        self.shape = self.view.shape
        self.strides = _element_strides(value, self.view)
        if not self.view.contiguous:
            # in place: the span from the first element to the last, as one flat buffer
            self.value = _strided_span(value, self.view, self.strides)


def _contiguous(value):
    for attr in ("contiguous",):  # PyTorch
        f = getattr(value, attr, None)
        if callable(f):
            return f()
    mod = type(value).__module__.split(".")[0]
    if mod == "cupy":
        import cupy
        return cupy.ascontiguousarray(value)
    return np.ascontiguousarray(np.asarray(value))


def _element_strides(value, v):
    itemsize = v.dtype.itemsize if v.dtype is not None else 2
    if v.host is not None:
        byte_strides = v.host.strides
    else:
        cai = getattr(value, "__cuda_array_interface__", None)
        byte_strides = cai.get("strides") if cai else None
    if byte_strides is None or v.contiguous:
        out, step = [], 1
        for n in reversed(v.shape):
            out.append(step)
            step *= n
        return tuple(reversed(out))
    return tuple(s // itemsize for s in byte_strides)


def _strided_span(value, v, strides):
    if v.host is None or any(s < 0 for s in strides):
        raise InvalidArgumentError("ensure_row_contiguous=False takes host arrays with "
                                   "non-negative strides; pass a contiguous array")
    span = 1 + sum((n - 1) * s for n, s in zip(v.shape, strides)) if all(v.shape) else 1
    return np.lib.stride_tricks.as_strided(v.host, shape=(span,), strides=(v.host.itemsize,))


def _array_module(inputs):
    """NumPy, or the library (PyTorch, CuPy) of the first GPU or torch input."""
    for i in inputs:
        mod = type(i.value).__module__.split(".")[0]
        if mod in ("torch", "cupy"):
            return mod, i.value
    return "numpy", None


def _new_output(kind, like, shape, dtype, init_value):
    if kind == "torch":
        import torch
        tdt = dtype if isinstance(dtype, torch.dtype) else getattr(torch, np.dtype(dtype).name)
        out = torch.empty(tuple(shape), dtype=tdt, device=like.device)
        if init_value is not None:
            out.fill_(init_value)
        return out
    if kind == "cupy":
        import cupy
        out = cupy.empty(tuple(shape), dtype=dtype)
        if init_value is not None:
            out.fill(init_value)
        return out
    if dtype is T.bf16:
        dtype = np.uint16
    out = np.empty(tuple(shape), dtype=dtype)
    if init_value is not None:
        out.fill(init_value)
    return out


class MetalKernel:
    """A kernel made by metal_kernel(); call it to run. The MSL it generates for one call is
    compiled once per distinct signature and cached on the object."""

    def __init__(self, name, input_names, output_names, source, header="",
                 ensure_row_contiguous=True, atomic_outputs=False):
        if not re.match(r"^[A-Za-z_]\w*$", name or ""):
            raise InvalidArgumentError("metal_kernel: name %r is not an identifier" % (name,))
        for n in list(input_names) + list(output_names):
            if not re.match(r"^[A-Za-z_]\w*$", n):
                raise InvalidArgumentError("metal_kernel: %r is not a parameter name" % (n,))
        dup = set(input_names) & set(output_names)
        if dup:
            raise InvalidArgumentError("metal_kernel: %s is both an input and an output"
                                       % ", ".join(sorted(dup)))
        self.name = name
        self.input_names = list(input_names)
        self.output_names = list(output_names)
        self.source = source
        self.header = header
        self.ensure_row_contiguous = ensure_row_contiguous
        self.atomic_outputs = atomic_outputs
        self._compiled = {}
        self._lock = threading.Lock()

    def _uses(self, word):
        return re.search(r"\b%s\b" % re.escape(word), self.source) is not None

    def generate(self, inputs, output_msl, template):
        """The whole MSL for one call: prelude, header, signature, template lines, body."""
        params = []
        for i in inputs:
            if len(i.shape) == 0:
                params.append("const constant %s& %s" % (i.msl, i.name))
            else:
                params.append("const device %s* %s" % (i.msl, i.name))
            if self._uses(i.name + "_shape"):
                params.append("const constant int* %s_shape" % i.name)
            if self._uses(i.name + "_strides"):
                params.append("const constant int64_t* %s_strides" % i.name)
            if self._uses(i.name + "_ndim"):
                params.append("const constant int& %s_ndim" % i.name)
        for name, t in zip(self.output_names, output_msl):
            params.append("device %s* %s" % ("atomic<%s>" % t if self.atomic_outputs else t,
                                             name))
        params = ["%s [[buffer(%d)]]" % (p, k) for k, p in enumerate(params)]
        params += ["%s %s [[%s]]" % (ty, a, a) for a, ty in ATTRIBUTES.items() if self._uses(a)]
        kname = "custom_kernel_" + self.name
        lines = [PRELUDE, self.header, "",
                 "[[kernel]] void %s(\n    %s) {" % (kname, ",\n    ".join(params))]
        lines += ["    " + _template_line(n, v) for n, v in template]
        lines += [self.source, "}", ""]
        return kname, "\n".join(lines)

    def __call__(self, inputs, output_shapes, output_dtypes, grid, threadgroup, template=(),
                 init_value=None, verbose=False, runtime=None, stream=None):
        inputs = list(inputs)
        if len(inputs) != len(self.input_names):
            raise InvalidArgumentError("metal_kernel %s takes %d inputs (%s), got %d"
                                       % (self.name, len(self.input_names),
                                          ", ".join(self.input_names), len(inputs)))
        if not (len(output_shapes) == len(output_dtypes) == len(self.output_names)):
            raise InvalidArgumentError("metal_kernel %s has %d outputs (%s): give as many "
                                       "output_shapes and output_dtypes"
                                       % (self.name, len(self.output_names),
                                          ", ".join(self.output_names)))
        ins = [_Input(n, v, self.ensure_row_contiguous) for n, v in zip(self.input_names, inputs)]
        out_msl = [msl_type(d, "output %s" % n) for n, d in zip(self.output_names, output_dtypes)]
        template = [(str(n), v) for n, v in template]
        kname, msl = self.generate(ins, out_msl, template)
        if verbose:
            print(msl)
        with self._lock:
            compiled = self._compiled.get(msl)
            if compiled is None:
                compiled = compile_source(msl, kname, filename=self.name + ".metal")
                self._compiled[msl] = compiled
        rt = runtime if runtime is not None else default_runtime()
        kind, like = _array_module(ins)
        outs = [_new_output(kind, like, shape, dt, init_value)
                for shape, dt in zip(output_shapes, output_dtypes)]
        args = {}
        for i in ins:
            args[i.name] = i.value
            if self._uses(i.name + "_shape"):
                args[i.name + "_shape"] = np.array(i.shape or (1,), np.int32)
            if self._uses(i.name + "_strides"):
                args[i.name + "_strides"] = np.array(i.strides or (1,), np.int64)
            if self._uses(i.name + "_ndim"):
                args[i.name + "_ndim"] = np.int32(len(i.shape))
        args.update(zip(self.output_names, outs))
        rt.launch(compiled, grid, threadgroup, args)
        return outs


def metal_kernel(name, input_names, output_names, source, header="", ensure_row_contiguous=True,
                 atomic_outputs=False):
    """A custom Metal kernel from the body of its function, as MLX's mx.fast.metal_kernel."""
    return MetalKernel(name, input_names, output_names, source, header, ensure_row_contiguous,
                       atomic_outputs)


_default = None
_default_lock = threading.Lock()


def default_runtime():
    """The Runtime that metal_kernel calls use unless given one: Runtime("auto") (cuda where
    a GPU is present, else cpu), opened on first use."""
    global _default
    with _default_lock:
        if _default is None:
            from .runtime import Runtime
            _default = Runtime("auto")
        return _default

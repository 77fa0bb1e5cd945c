"""runtime.py — enigma.Runtime (alias MetalRuntime): a device, buffers, and execute().

Needs: libenigma's device, buffer, pipeline and command API (_lib.py); a Compiled from
enigma.compile or enigma.compile_source.
Guarantees: execute() dispatches *by threads* (the grid counts threads, as Metal's
dispatchThreads), binds NumPy inputs to the kernel's buffer parameters in order, skipping the
output, and returns the output buffer's bytes. Every C failure becomes the exception of its
status with libenigma's message; dispatch errors also carry the kernel's source position
(.file/.line/.column: the Python def of a traced kernel, or the `kernel` line of MSL).
"""

import ctypes
import re
import threading

import numpy as np

from . import _lib
from . import dtypes as T
from . import interop
from .errors import CheckFailedError, InvalidArgumentError, UnavailableError
from .kernel import Compiled, Param


class DeviceCapabilities:
    """What the device offers: its limits (from enigma_device_info) and the features enigma
    implements. `require(feature)` raises UnavailableError naming a missing feature."""

    # enigma implements these on every backend (cpu and cuda)
    FEATURES = {
        "simd_group_functions", "simdgroup_functions", "simd_reduction", "simd_sum",
        "simd_shuffle", "simd_prefix", "simd_ballot", "simd_vote", "quad_group_functions",
        "quadgroup_functions", "threadgroup_memory", "dynamic_threadgroup_memory",
        "threadgroup_barrier", "simdgroup_barrier", "atomics", "device_atomics",
        "threadgroup_atomics", "atomic_float", "simdgroup_matrix",
        "simdgroup_matrix_multiply_accumulate", "simdgroup_multiply_accumulate",
        "simdgroup_matrix_load", "simdgroup_matrix_store", "half", "float16", "bfloat",
        "bfloat16", "int64", "long", "dispatch_threads", "non_uniform_threadgroups",
        "dispatch_threadgroups", "math_functions", "fast_math",
    }
    CPU_ONLY = {"checked_execution", "checked_mode"}
    # refused by name: enigma runs compute kernels only
    UNSUPPORTED = {
        "textures": "textures are not supported by enigma",
        "texture": "textures are not supported by enigma",
        "samplers": "samplers are not supported by enigma",
        "raytracing": "ray tracing is not supported by enigma",
        "ray_tracing": "ray tracing is not supported by enigma",
        "mesh_shaders": "mesh shaders are not supported by enigma (compute kernels only)",
        "render_pipelines": "render pipelines are not supported by enigma (compute kernels only)",
        "function_pointers": "function pointers are not supported by enigma",
        "indirect_command_buffers": "indirect command buffers are not supported by enigma",
        "argument_buffers": "argument buffers are not supported by enigma",
        "double": "double is not supported by Metal or enigma",
        "float64": "double is not supported by Metal or enigma",
    }

    def __init__(self, info):
        self.name = _lib.decode(info.name) or ""
        self.backend = _lib.decode(info.backend) or ""
        self.max_threads_per_threadgroup = int(info.max_threads_per_threadgroup)
        self.max_threadgroup_memory = int(info.max_threadgroup_memory)
        self.max_threadgroup_memory_length = self.max_threadgroup_memory
        self.simd_width = int(info.simd_width)
        self.thread_execution_width = self.simd_width
        self.compute_units = int(info.compute_units)
        self.memory_bytes = int(info.memory_bytes)
        self.features = set(self.FEATURES)
        if self.backend == "cpu":
            self.features |= self.CPU_ONLY

    def __repr__(self):
        return ("<DeviceCapabilities %s (%s): %d threads/threadgroup, %d B threadgroup memory, "
                "SIMD width %d, %d compute units>"
                % (self.name, self.backend, self.max_threads_per_threadgroup,
                   self.max_threadgroup_memory, self.simd_width, self.compute_units))

    def as_dict(self):
        return {k: getattr(self, k) for k in (
            "name", "backend", "max_threads_per_threadgroup", "max_threadgroup_memory",
            "simd_width", "compute_units", "memory_bytes")}

    @staticmethod
    def _key(feature):
        return re.sub(r"[\s\-]+", "_", str(feature).strip().lower())

    def supports(self, feature):
        return self._key(feature) in self.features

    def require(self, feature):
        """Returns None when the device has `feature`, else raises UnavailableError."""
        key = self._key(feature)
        if key in self.features:
            return None
        if key in self.UNSUPPORTED:
            raise UnavailableError("feature %r is missing on %s: %s"
                                   % (feature, self.name, self.UNSUPPORTED[key]),
                                   "ENIGMA_ERROR_UNAVAILABLE")
        if key in self.CPU_ONLY:
            raise UnavailableError("feature %r is missing on %s: it needs the cpu backend"
                                   % (feature, self.name), "ENIGMA_ERROR_UNAVAILABLE")
        raise UnavailableError("feature %r is missing on %s: enigma does not know it; known "
                               "features: %s" % (feature, self.name,
                                                 ", ".join(sorted(self.features))),
                               "ENIGMA_ERROR_UNAVAILABLE")

    def require_m3(self, feature):
        """Metal gates some features on M3-class GPUs; enigma implements them on every
        backend, so this is require(feature)."""
        return self.require(feature)


class Device:
    """An open enigma_device (one per Runtime)."""

    def __init__(self, backend="auto", checked=False):
        self.handle = None
        L = _lib.lib()
        self.lib = L
        handle = ctypes.c_void_p()
        L.check(L.enigma_device_open(backend.encode() if backend else None, ctypes.byref(handle)))
        self.handle = handle
        self.checked = checked
        self._owned_libraries = []
        info = _lib.DeviceInfo()
        L.check(L.enigma_device_get_info(handle, ctypes.byref(info)))
        self.capabilities = DeviceCapabilities(info)

    def close(self):
        if self.handle is not None and self.handle.value:
            for compiled, key, lib in self._owned_libraries:
                compiled._forget(key)
                self.lib.enigma_library_destroy(lib)
            self._owned_libraries = []
            self.lib.enigma_device_close(self.handle)
        self.handle = None


class Buffer:
    """A device buffer; `Runtime.buffer(array)` makes one, `.numpy(dtype)` reads it."""

    def __init__(self, device, nbytes=None, data=None, borrow=None):
        self.handle = None
        L = device.lib
        self.lib = L
        self.device = device
        self.borrowed = borrow  # the ArrayView whose memory this buffer is, kept alive
        handle = ctypes.c_void_p()
        if borrow is not None:
            L.check(L.enigma_buffer_create_from_memory(device.handle, borrow.address,
                                                       borrow.nbytes, ctypes.byref(handle)))
        elif data is not None:
            data = np.ascontiguousarray(data)
            if data.nbytes == 0:
                raise InvalidArgumentError("a buffer needs at least one byte (the array is empty)")
            L.check(L.enigma_buffer_create_with_data(device.handle, data.ctypes.data,
                                                     data.nbytes, ctypes.byref(handle)))
        else:
            if not nbytes or nbytes <= 0:
                raise InvalidArgumentError("a buffer needs a positive size, not %r" % (nbytes,))
            L.check(L.enigma_buffer_create(device.handle, int(nbytes), ctypes.byref(handle)))
        self.handle = handle

    @property
    def nbytes(self):
        return int(self.lib.enigma_buffer_size(self.handle))

    def read(self, nbytes=None, offset=0):
        n = self.nbytes - offset if nbytes is None else int(nbytes)
        out = ctypes.create_string_buffer(n)
        self.lib.check(self.lib.enigma_buffer_read(self.handle, offset, out, n))
        return out.raw

    def write(self, data, offset=0):
        data = np.ascontiguousarray(data)
        self.lib.check(self.lib.enigma_buffer_write(self.handle, offset, data.ctypes.data,
                                                    data.nbytes))

    def numpy(self, dtype=np.uint8):
        return np.frombuffer(self.read(), dtype=dtype).copy()

    def destroy(self):
        if self.handle is not None:
            self.lib.enigma_buffer_destroy(self.handle)
            self.handle = None

    __del__ = destroy

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.destroy()


class Runtime:
    """Runs compiled kernels on one device.

    backend: "auto" (cuda where a GPU is present, else cpu), "cpu" or "cuda".
    checked: compile for checked execution (cpu backend): out-of-bounds accesses, races,
    divergent barriers... raise CheckFailedError with the reports."""

    def __init__(self, backend="auto", checked=False):
        self._pipelines = {}
        self.device = None
        self.device = Device(backend, checked)
        self.backend = self.device.capabilities.backend
        self._pipelines = {}
        self._lock = threading.Lock()
        self._running = set()  # command handles being dispatched, for cancel()
        self.last_duration_ns = 0

    def __repr__(self):
        return "<enigma.Runtime %s>" % self.device.capabilities.name

    def device_capabilities(self):
        return self.device.capabilities

    def close(self):
        if self.device is None:
            return
        L = self.device.lib
        for compiled, handle, _ in self._pipelines.values():
            L.enigma_pipeline_destroy(handle)
        self._pipelines = {}
        self.device.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def buffer(self, data=None, nbytes=None):
        """A new device buffer: `nbytes` zeros, or a copy of `data` (any array: NumPy,
        PyTorch, CuPy, DLPack, buffer protocol; GPU arrays are copied through the host)."""
        if data is not None and interop.is_array_like(data) and not isinstance(data, np.ndarray):
            v = interop.view(data)
            data = v.host if v.host is not None else _device_to_host(data, v)
        return Buffer(self.device, nbytes=nbytes, data=data)

    def wrap(self, array, name="array"):
        """A buffer that *is* `array`'s memory (no copy): kernels read and write the
        caller's array in place. Host arrays on the cpu backend; CUDA arrays (PyTorch,
        CuPy, DLPack) on the cuda backend. The array must be contiguous; the buffer keeps
        it alive."""
        v = interop.view(array)
        self._check_device(v, name, None)
        if not v.contiguous:
            raise InvalidArgumentError("%s is not contiguous (shape %s): pass a contiguous "
                                       "array (np.ascontiguousarray, .contiguous())"
                                       % (name, v.shape))
        if v.nbytes == 0:
            raise InvalidArgumentError("%s is empty: a buffer needs at least one byte" % name)
        return Buffer(self.device, borrow=v)

    def _check_device(self, v, name, kernel):
        where = " of kernel %s" % kernel if kernel else ""
        if v.device == "cuda" and self.backend != "cuda":
            raise InvalidArgumentError(
                "%s%s is in CUDA device memory but this runtime runs on the %s backend: move "
                "it to the host (.cpu(), .get()) or use Runtime(\"cuda\")"
                % (name, where, self.backend))
        if v.device == "cpu" and self.backend == "cuda" and v.host is None:
            raise InvalidArgumentError("%s%s has no host memory enigma can read" % (name, where))

    # -- pipelines
    def _pipeline(self, compiled):
        with self._lock:
            entry = self._pipelines.get(id(compiled))
            if entry is not None and entry[0] is compiled:
                return entry
        L = self.device.lib
        lib = compiled.library_for(self.device)
        handle = ctypes.c_void_p()
        L.check(L.enigma_pipeline_create(lib, compiled.name.encode() if compiled.name else None,
                                         ctypes.byref(handle)))
        params = self._introspect(compiled, handle)
        entry = (compiled, handle, params)
        with self._lock:
            self._pipelines[id(compiled)] = entry
        return entry

    def _introspect(self, compiled, handle):
        L = self.device.lib
        info = _lib.PipelineInfo()
        L.check(L.enigma_pipeline_get_info(handle, ctypes.byref(info)))
        if compiled.name is None:
            compiled.name = _lib.decode(info.name)
        traced = {p.name: p for p in (compiled.params or [])}
        params = []
        for i in range(info.param_count):
            pi = _lib.ParamInfo()
            L.check(L.enigma_pipeline_get_param(handle, i, ctypes.byref(pi)))
            name = _lib.decode(pi.name)
            if pi.kind == _lib.PARAM_ATTRIBUTE:
                continue
            kind = "buffer" if pi.kind == _lib.PARAM_BUFFER else "threadgroup"
            dt = T.BY_ENIGMA_SCALAR.get(pi.element_scalar) if pi.element_lanes == 1 else None
            if name in traced:
                written = traced[name].written
            else:
                written = kind == "buffer" and not pi.is_const and not pi.is_reference
            params.append(Param(name, pi.index, kind, dt, bool(pi.is_reference), written,
                                int(pi.element_size) or None))
        if compiled.params is None:
            compiled._params = [p for p in params if p.kind == "buffer"]
        return params

    # -- running
    def execute(self, compiled, inputs=(), output_size=None, grid=(1, 1, 1), threads=(1, 1, 1),
                output=None, threadgroup_memory=None, dtype=None, out=None, timeout=None):
        """Runs `compiled` once over `grid` threads in threadgroups of `threads` and returns
        the output buffer's bytes (output_size of them), or `out` when it is given.

        inputs: arrays (NumPy, PyTorch, CuPy, anything with __dlpack__,
        __cuda_array_interface__ or the buffer protocol) or numbers for Scalar parameters,
        bound in order to the buffer parameters other than the output. The output is the
        buffer the kernel writes (for MSL text: the last non-const device pointer); pass
        output="name" to pick another. If the inputs cover every buffer parameter, the output
        starts with its input's data.
        Arrays are used in place where they can be (host arrays on the cpu backend, CUDA
        arrays on the cuda backend, C-contiguous, of the parameter's element type): the
        kernel's writes land in the caller's array, on every backend (a host array on the
        cuda backend is copied in and its written bytes copied back).
        out: an array the output is written into (in place where it can be); returned.
        threadgroup_memory: {index: bytes} for [[threadgroup(index)]] parameters.
        timeout: seconds; a dispatch that runs longer is stopped and raises
        DispatchTimeoutError (default: $ENIGMA_DISPATCH_TIMEOUT, else no limit)."""
        if not isinstance(compiled, Compiled):
            raise InvalidArgumentError("execute needs the result of enigma.compile or "
                                       "enigma.compile_source, not %r" % (compiled,))
        L = self.device.lib
        _, pipe, params = self._pipeline(compiled)
        buffers = [p for p in params if p.kind == "buffer"]
        inputs = list(inputs)
        out_param = self._output_param(compiled, buffers, inputs, output)
        if out is not None and len(inputs) == len(buffers) - 1:
            inputs.insert(buffers.index(out_param), out)
        elif out is not None:
            raise InvalidArgumentError(
                "kernel %s: out= gives the output %s, so inputs must leave it out (%d inputs "
                "for %d buffer parameters)" % (compiled.name, out_param.name, len(inputs),
                                                len(buffers)))
        if len(inputs) == len(buffers):
            bound = list(zip(buffers, inputs))
        elif len(inputs) == len(buffers) - 1:
            others = [p for p in buffers if p is not out_param]
            bound = list(zip(others, inputs))
        else:
            raise InvalidArgumentError(
                "kernel %s has %d buffer parameters (%s); execute got %d inputs: pass one per "
                "parameter, leaving out the output %s" % (
                    compiled.name, len(buffers), ", ".join(p.name for p in buffers),
                    len(inputs), out_param.name))
        grid3 = _size3("grid", grid)
        group3 = _size3("threads", threads)
        cmd = ctypes.c_void_p()
        made = []
        try:
            L.check(L.enigma_command_create(pipe, ctypes.byref(cmd)))
            out_buf = None
            copied_back = []  # (Buffer, caller's host array) for written arrays bound by copy
            shared = {}
            for p, value in sorted(bound, key=lambda pv: not _writes(pv[0])):
                grow = output_size if p is out_param and output_size is not None else None
                b = self._bind_shared(p, value, compiled.name, grow, shared, made, copied_back)
                L.check(L.enigma_command_set_buffer(cmd, p.index, b.handle, 0))
                if p is out_param:
                    out_buf = b
            if out_buf is None:
                if output_size is None:
                    raise InvalidArgumentError("execute needs output_size (bytes of the output "
                                               "buffer %s)" % out_param.name)
                out_buf = Buffer(self.device, nbytes=int(output_size))
                made.append(out_buf)
                L.check(L.enigma_command_set_buffer(cmd, out_param.index, out_buf.handle, 0))
            for index, nbytes in (threadgroup_memory or {}).items():
                L.check(L.enigma_command_set_threadgroup_memory(cmd, int(index), int(nbytes)))
            status = self._dispatch(cmd, _lib.DISPATCH_THREADS, grid3, group3, timeout)
            if status != 0:
                raise self._dispatch_error(status, compiled, cmd)
            self.last_duration_ns = int(L.enigma_command_last_duration_ns(cmd))
            for b, host in copied_back:
                host.view(np.uint8).reshape(-1)[:] = np.frombuffer(b.read(host.nbytes), np.uint8)
            if out is not None:
                return out
            n = out_buf.nbytes if output_size is None else int(output_size)
            return out_buf.read(n)
        finally:
            for b in made:
                b.destroy()
            if cmd.value:
                L.enigma_command_destroy(cmd)

    def launch(self, compiled, grid, threads, args=None, threadgroups=False,
               threadgroup_memory=None, timeout=None, **named):
        """Binds every buffer parameter by name and dispatches once; returns nothing: the
        results are in the arrays passed (used in place where they can be, as in execute).

        args / keywords: {parameter name: array or number}. grid counts threads (Metal's
        dispatchThreads); with threadgroups=True it counts threadgroups instead
        (dispatchThreadgroups)."""
        if not isinstance(compiled, Compiled):
            raise InvalidArgumentError("launch needs the result of enigma.compile or "
                                       "enigma.compile_source, not %r" % (compiled,))
        values = dict(args or {}, **named)
        L = self.device.lib
        _, pipe, params = self._pipeline(compiled)
        buffers = [p for p in params if p.kind == "buffer"]
        missing = [p.name for p in buffers if p.name not in values]
        if missing:
            raise InvalidArgumentError("kernel %s: no value for parameter%s %s"
                                       % (compiled.name, "s" if len(missing) > 1 else "",
                                          ", ".join(missing)))
        unknown = sorted(set(values) - {p.name for p in buffers})
        if unknown:
            raise InvalidArgumentError("kernel %s has no buffer parameter %s (it has %s)"
                                       % (compiled.name, ", ".join(unknown),
                                          ", ".join(p.name for p in buffers)))
        grid3, group3 = _size3("grid", grid), _size3("threads", threads)
        cmd = ctypes.c_void_p()
        made, copied_back = [], []
        try:
            L.check(L.enigma_command_create(pipe, ctypes.byref(cmd)))
            shared = {}
            for p in sorted(buffers, key=lambda p: not _writes(p)):
                b = self._bind_shared(p, values[p.name], compiled.name, None, shared, made,
                                      copied_back)
                L.check(L.enigma_command_set_buffer(cmd, p.index, b.handle, 0))
            for index, nbytes in (threadgroup_memory or {}).items():
                L.check(L.enigma_command_set_threadgroup_memory(cmd, int(index), int(nbytes)))
            how = _lib.DISPATCH_THREADGROUPS if threadgroups else _lib.DISPATCH_THREADS
            status = self._dispatch(cmd, how, grid3, group3, timeout)
            if status != 0:
                raise self._dispatch_error(status, compiled, cmd)
            self.last_duration_ns = int(L.enigma_command_last_duration_ns(cmd))
            for b, host in copied_back:
                host.view(np.uint8).reshape(-1)[:] = np.frombuffer(b.read(host.nbytes), np.uint8)
        finally:
            for b in made:
                b.destroy()
            if cmd.value:
                L.enigma_command_destroy(cmd)

    def _dispatch(self, cmd, how, grid3, group3, timeout):
        """Dispatches and waits, with the time limit if one is given; cancel() from another
        thread stops it. Returns the enigma_status."""
        L = self.device.lib
        if timeout is not None:
            if not timeout > 0:
                raise InvalidArgumentError("timeout must be a positive number of seconds, not %r"
                                           % (timeout,))
            L.check(L.enigma_command_set_timeout(cmd, int(timeout * 1e9)))
        with self._lock:
            self._running.add(cmd.value)
        try:
            return L.enigma_command_dispatch(cmd, how, grid3, group3)
        finally:
            with self._lock:
                self._running.discard(cmd.value)

    def cancel(self):
        """From another thread: stops the dispatches this runtime is running; each raises
        CancelledError. Nothing happens when none is running."""
        L = self.device.lib
        with self._lock:
            for handle in self._running:  # under the lock: no command is destroyed meanwhile
                L.check(L.enigma_command_cancel(ctypes.c_void_p(handle)))

    def _bind_shared(self, p, value, kernel, grow, shared, made, copied_back):
        """_bind, except that an array already bound to another parameter of this dispatch
        gets that parameter's buffer: one buffer bound twice, as Metal binds one MTLBuffer to
        two indices, so that the kernel sees equal pointers on every backend (ggml's kernels
        compare them to tell a missing operand, bound as src0, from a real one). Callers bind
        the parameters the kernel writes first: their binding checks that the array can be
        written and copies the kernel's writes back where the buffer is a copy."""
        if isinstance(value, Buffer):
            # an enigma Buffer binds as itself (seed 002's tensors over enigma buffers)
            if value.device is not self.device:
                raise InvalidArgumentError("the Buffer for %s of kernel %s belongs to another "
                                           "runtime's device" % (p.name, kernel))
            return value
        key = id(value) if interop.is_array_like(value) else None
        if key is not None and key in shared:
            _check_element_type(p, interop.view(value), kernel)
            return shared[key]
        b, back = self._bind(p, value, kernel, grow)
        made.append(b)
        if back is not None:
            copied_back.append((b, back))
        if key is not None:
            shared[key] = b
        return b

    def _bind(self, p, value, kernel, grow):
        """The buffer for parameter p: the caller's array in place where it can be, else a
        copy. Returns (Buffer, host array to copy the kernel's writes back into, or None)."""
        if not interop.is_array_like(value) or isinstance(value, (bytes, bytearray, memoryview)):
            return Buffer(self.device, data=_grown(_as_array(p, value, kernel), grow)), None
        v = interop.view(value)
        name = "input for %s" % p.name
        self._check_device(v, name, kernel)
        if p.dtype is T.bf16 and v.host is not None and v.dtype is not None and v.dtype.kind == "f":
            # floats for a bfloat parameter: rounded to bfloat bits, a copy
            return Buffer(self.device, data=_grown(T.to_bfloat16(v.host), grow)), None
        _check_element_type(p, v, kernel)
        if v.nbytes == 0:
            raise InvalidArgumentError("%s of kernel %s is empty: a buffer needs at least one "
                                       "byte" % (name, kernel))
        writes = _writes(p)
        if writes and v.readonly:
            raise InvalidArgumentError("%s of kernel %s is read-only, but the kernel writes %s"
                                       % (name, kernel, p.name))
        if not v.contiguous:
            if writes:
                raise InvalidArgumentError(
                    "%s of kernel %s is not contiguous (shape %s), so the kernel cannot write "
                    "it in place: pass a contiguous array (np.ascontiguousarray, .contiguous())"
                    % (name, kernel, v.shape))
            host = v.host if v.host is not None else _device_to_host(value, v)
            return Buffer(self.device, data=_grown(np.ascontiguousarray(host), grow)), None
        if grow is not None and v.nbytes < grow:  # output_size asks for more than it holds
            host = v.host if v.host is not None else _device_to_host(value, v)
            return Buffer(self.device, data=_grown(host, grow)), None
        if (v.device == "cuda") == (self.backend == "cuda"):
            return Buffer(self.device, borrow=v), None
        # a host array on the cuda backend: in by copy, and the kernel's writes back out
        return Buffer(self.device, data=v.host), (v.host if writes else None)

    def _output_param(self, compiled, buffers, inputs, output):
        if not buffers:
            raise InvalidArgumentError("kernel %s has no buffer parameter to return"
                                       % compiled.name)
        if output is not None:
            for p in buffers:
                if p.name == output or p.index == output:
                    return p
            raise InvalidArgumentError("kernel %s has no buffer parameter %r (it has %s)"
                                       % (compiled.name, output,
                                          ", ".join(p.name for p in buffers)))
        written = [p for p in buffers if p.written and not p.is_scalar]
        if not written:
            raise InvalidArgumentError(
                "kernel %s writes no buffer parameter, so execute has nothing to return; "
                "pass output=\"name\"" % compiled.name)
        if len(inputs) == len(buffers):
            return written[0]   # every parameter has an input: the first written one, in place
        return written[-1]

    def _dispatch_error(self, status, compiled, cmd):
        L = self.device.lib
        msg = L.last_error()
        where = _kernel_location(compiled)
        kw = {}
        if where:
            kw = dict(file=where[0], line=where[1], column=where[2])
            msg = "%s\n  in kernel %s at %s:%d:%d" % (msg, compiled.name, *where)
        from .errors import error_for_status
        if status == 6:
            reports = []
            for i in range(L.enigma_command_report_count(cmd)):
                r = _lib.CheckReport()
                if L.enigma_command_get_report(cmd, i, ctypes.byref(r)) == 0:
                    rep = {"kind": _lib.decode(r.kind_name), "file": _lib.decode(r.file),
                           "line": r.line, "column": r.column,
                           "message": _lib.decode(r.message), "count": int(r.count),
                           "python_location": None}
                    if rep["file"] == compiled.filename:
                        rep["python_location"] = compiled.line_map.get(rep["line"])
                    reports.append(rep)
            text = _lib.decode(L.enigma_command_reports_text(cmd)) or ""
            if reports:
                # the first problem's place: its Python line for a traced kernel, else MSL
                first = reports[0]
                if first["python_location"]:
                    kw = dict(file=first["python_location"][0], line=first["python_location"][1],
                              column=None)
                else:
                    kw = dict(file=first["file"], line=first["line"], column=first["column"])
                notes = ["%s:%d: note: %s here" % (r["python_location"] + (r["kind"],))
                         for r in reports if r["python_location"]]
                if notes:
                    text = text.rstrip("\n") + "\n" + "\n".join(notes)
            return CheckFailedError(msg + ("\n" + text if text else ""), reports, **kw)
        return error_for_status(status, msg, **kw)


MetalRuntime = Runtime


def _kernel_location(compiled):
    loc = compiled.location
    if loc:
        return (loc[0], loc[1], 1)
    if compiled.source and compiled.name:
        for n, line in enumerate(compiled.source.splitlines(), 1):
            m = re.search(r"\bkernel\s+void\s+%s\b" % re.escape(compiled.name), line)
            if m:
                return (compiled.filename, n, m.start() + 1)
    return None


def _size3(what, v):
    if isinstance(v, (int, np.integer)):
        v = (int(v),)
    v = tuple(int(x) for x in v)
    if not 1 <= len(v) <= 3:
        raise InvalidArgumentError("%s must have 1 to 3 sizes, not %r" % (what, v))
    if any(x < 0 for x in v):
        raise InvalidArgumentError("%s sizes must not be negative: %r" % (what, v))
    v = v + (1,) * (3 - len(v))
    return _lib.Size3(*v)


def _writes(p):
    """Does the kernel write the memory bound to parameter p?"""
    return p.written and not p.is_scalar


def _grown(arr, size):
    """arr's bytes, zero-extended to `size` bytes when it holds fewer."""
    if size is None or arr.nbytes >= size:
        return arr
    grown = np.zeros(int(size), dtype=np.uint8)
    grown[:arr.nbytes] = np.ascontiguousarray(arr).view(np.uint8).ravel()
    return grown


def _device_to_host(obj, v):
    """A host copy of a GPU array (for a copy the runtime needs anyway)."""
    for attr in ("get", "cpu"):  # CuPy, PyTorch
        f = getattr(obj, attr, None)
        if callable(f):
            host = f()
            return np.ascontiguousarray(host.numpy() if hasattr(host, "numpy") else host)
    raise InvalidArgumentError("cannot copy a %s from the GPU to the host"
                               % type(obj).__name__)


def _check_element_type(p, v, kernel):
    """The array's elements must be the parameter's (Metal would reinterpret the bytes
    silently; enigma refuses instead)."""
    dt = p.dtype
    if dt is None:
        return
    if dt is T.bf16 and (v.typestr.startswith("<bfloat16") or v.dtype == np.uint16):
        return
    if v.dtype != dt.np:
        hint = ("convert it with .astype(np.%s)" % dt.np.name) if dt is not T.bf16 else \
            "pass bfloat16 bits as uint16 (enigma.to_bfloat16) or a bfloat16 tensor"
        raise InvalidArgumentError(
            "input for %s of kernel %s has dtype %s but the parameter holds %s: %s"
            % (p.name, kernel, v.type_name, dt.msl, hint))


def _as_array(p, value, kernel_name):
    """The bytes to upload for parameter p: NumPy arrays must already have p's element
    type (Metal would reinterpret the bytes silently; we refuse instead); Python numbers
    and lists are converted."""
    dt = p.dtype
    if isinstance(value, (bytes, bytearray, memoryview)):
        return np.frombuffer(bytes(value), dtype=np.uint8)
    if isinstance(value, np.ndarray):
        if dt is not None and value.dtype != dt.np:
            if dt is T.bf16 and value.dtype.kind == "f":
                return T.to_bfloat16(value)
            raise InvalidArgumentError(
                "input for %s of kernel %s has dtype %s but the parameter holds %s: convert "
                "it with .astype(np.%s)" % (p.name, kernel_name, value.dtype, dt.msl,
                                            dt.np.name))
        return np.ascontiguousarray(value)
    if dt is None:
        raise InvalidArgumentError("input for %s of kernel %s must be a NumPy array or bytes"
                                   % (p.name, kernel_name))
    if dt is T.bf16:
        return T.to_bfloat16(np.asarray(value, dtype=np.float32).reshape(-1))
    return np.ascontiguousarray(np.asarray(value, dtype=dt.np).reshape(-1))


def version():
    """libenigma's version string."""
    return _lib.decode(_lib.lib().enigma_version())


def library_path():
    return _lib.lib().path


def available_backends():
    """The backends that open on this machine."""
    out = []
    for b in ("cpu", "cuda"):
        L = _lib.lib()
        h = ctypes.c_void_p()
        if L.enigma_device_open(b.encode(), ctypes.byref(h)) == 0:
            L.enigma_device_close(h)
            out.append(b)
    return out


__all__ = ["Runtime", "MetalRuntime", "DeviceCapabilities", "Buffer", "version",
           "available_backends"]

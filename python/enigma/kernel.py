"""kernel.py — @enigma.kernel, enigma.compile and enigma.compile_source.

Needs: trace.py (MSL from a Python function), rewrite.py (assignment tracking), _lib.py
(the C compiler, only when compiling).
Guarantees: a Compiled holds the MSL text (`.source`), the kernel name, and what the runtime
needs to bind arguments: the buffer parameters in order and which of them the kernel writes.
enigma.compile checks the source with libenigma's front end right away (no device needed),
so a CompileError surfaces at compile time with file/line/column; each Runtime then compiles
it for its own device on first use and keeps the pipeline.
"""

import ctypes
import functools
import inspect
import os
import sys
import threading
import warnings

from . import _lib
from . import dtypes as T
from . import rewrite
from . import trace
from .errors import CompileError, Diagnostic, TraceError


class Kernel:
    """A Python function decorated with @enigma.kernel. Calling it directly is an error;
    pass it to enigma.compile."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.name = fn.__name__
        self._traced = None

    def __call__(self, *args, **kwargs):
        if trace.current(required=False) is not None:
            # a kernel used as a helper inside another kernel: inline its body
            return self.fn(*args, **kwargs)
        from .jit import BoundKernel, _context
        from .tensor import Tensor
        if not kwargs and (_context() is not None or any(isinstance(a, Tensor) for a in args)):
            # seed 002: kernel(tensors, layouts...).launch(grid=..., block=...)
            return BoundKernel(self, args)
        raise TypeError("a @enigma.kernel function is not called directly: compile it with "
                        "enigma.compile(%s) and run it with Runtime.execute" % self.name)

    def __repr__(self):
        return "<enigma.kernel %s>" % self.name

    def launch(self, *args, grid=None, block=None, runtime=None):
        """kernel.launch(args..., grid=, block=) is kernel(args...).launch(grid=, block=):
        grid counts threadgroups, block the threads of one (see jit.py)."""
        from .errors import InvalidArgumentError
        if not args:
            raise InvalidArgumentError(
                "%s.launch needs the kernel's arguments: write %s(tensors, layouts...)"
                ".launch(grid=..., block=...) or %s.launch(tensors, ..., grid=..., block=...)"
                % (self.name, self.name, self.name))
        if grid is None or block is None:
            raise InvalidArgumentError("%s.launch needs grid= (threadgroups) and block= "
                                       "(threads per threadgroup)" % self.name)
        from .jit import BoundKernel
        return BoundKernel(self, args).launch(grid, block, runtime=runtime)

    def trace(self):
        """Traces the function (once) and returns the trace."""
        if self._traced is None:
            self._traced = _trace_function(self.fn)
        return self._traced

    @property
    def source(self):
        """The MSL this kernel traces to (no C library needed)."""
        return self.trace().source()


def kernel(fn):
    """Decorator: marks a Python function as an enigma kernel (see the package docs)."""
    if isinstance(fn, Kernel):
        return fn
    return Kernel(fn)


def func(fn):
    """Decorator for a helper function called from kernels: it gets the same assignment
    tracking as a kernel body (names rebound inside enigma blocks become MSL assignments).
    Undecorated helpers work too, but only for straight-line code."""
    state = {}

    @functools.wraps(fn)
    def helper(*args, **kwargs):
        if "fn" not in state:
            state["fn"] = rewrite.rewrite(fn) or fn
        return state["fn"](*args, **kwargs)
    return helper


def _annotations(fn):
    sig = inspect.signature(fn)
    out = {}
    names = []
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TraceError("kernel %s: *args and **kwargs parameters are not supported"
                             % fn.__name__)
        ann = p.annotation
        if isinstance(ann, str):
            try:
                ann = eval(ann, fn.__globals__)  # from __future__ import annotations
            except Exception as e:
                raise TraceError("kernel %s: cannot evaluate the annotation %r of %s: %s"
                                 % (fn.__name__, ann, p.name, e)) from None
        if ann is inspect.Parameter.empty:
            ann = None
        if isinstance(ann, str) or (ann is not None and not isinstance(ann, (T.DType, T.Scalar))):
            try:
                ann = T.as_dtype(ann)
            except TypeError:
                pass
        out[p.name] = ann
        names.append(p.name)
    return out, names


def _trace_function(fn):
    annotations, names = _annotations(fn)
    tracked = rewrite.rewrite(fn)
    target = tracked if tracked is not None else fn
    tr = trace.run(target, fn.__name__, annotations, names, kernel_code=target.__code__,
                   assignment_tracking=tracked is not None)
    tr.python_function = fn
    if tracked is None and any(t.rstrip().endswith("{") for _, t, _ in tr.body):
        warnings.warn(
            "enigma: the source of kernel %s is not available (defined at an interactive "
            "prompt, from stdin or by exec), so names rebound inside enigma blocks are not "
            "tracked and loops cannot carry values through them; run it from a file, or "
            "assign explicitly with enigma.assign(var, value)" % fn.__name__, stacklevel=4)
    return tr


class Param:
    """A kernel parameter as the runtime binds it."""

    def __init__(self, name, index, kind, dtype, is_scalar, written, element_size=None):
        self.name = name
        self.index = index        # [[buffer(index)]]
        self.kind = kind          # "buffer", "threadgroup" or "attribute"
        self.dtype = dtype        # DType or None (structs, vectors)
        self.is_scalar = is_scalar
        self.written = written
        self.element_size = element_size or (dtype.size if dtype else None)

    def __repr__(self):
        return "<Param %s [[buffer(%s)]] %s%s>" % (
            self.name, self.index, self.dtype.name if self.dtype else "?",
            " written" if self.written else "")


class Compiled:
    """A compiled kernel: `.source` (MSL), `.name`, `.params` (its buffer parameters in
    order) and `.outputs` (the names of the buffers it writes)."""

    def __init__(self, source, name, params=None, filename=None, line_map=None,
                 python_function=None, defines=(), include_dirs=(), assignment_tracking=None,
                 constants=None):
        self.source = source
        self.name = name
        self.filename = filename or (name + ".metal" if name else "<source>")
        self._params = params
        self.line_map = line_map or {}
        self.python_function = python_function
        self.defines = list(defines)
        self.include_dirs = list(include_dirs)
        self.constants = _constant_strings(constants)
        self.assignment_tracking = assignment_tracking
        self._libraries = {}
        self._lock = threading.Lock()

    def __repr__(self):
        return "<enigma.Compiled %s>" % self.name

    @property
    def params(self):
        return self._params

    @property
    def outputs(self):
        return [p.name for p in (self._params or []) if p.written]

    @property
    def location(self):
        """(file, line) of the Python kernel definition, or None."""
        fn = self.python_function
        if fn is None:
            return None
        code = fn.__code__
        return (code.co_filename, code.co_firstlineno)

    # -- C compilation
    def _options(self, checked=False):
        opts = _lib.CompileOptions()
        keep = []
        if self.defines:
            arr = (ctypes.c_char_p * len(self.defines))(*[d.encode() for d in self.defines])
            keep.append(arr)
            opts.defines = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
            opts.define_count = len(self.defines)
        if self.include_dirs:
            arr = (ctypes.c_char_p * len(self.include_dirs))(
                *[d.encode() for d in self.include_dirs])
            keep.append(arr)
            opts.include_dirs = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
            opts.include_dir_count = len(self.include_dirs)
        if self.constants:
            arr = (ctypes.c_char_p * len(self.constants))(*[c.encode() for c in self.constants])
            keep.append(arr)
            opts.function_constants = ctypes.cast(arr, ctypes.POINTER(ctypes.c_char_p))
            opts.function_constant_count = len(self.constants)
        opts.checked = bool(checked)
        return opts, keep

    def _create_library(self, device_handle, checked=False):
        L = _lib.lib()
        src = self.source.encode("utf-8")
        opts, keep = self._options(checked)
        out = ctypes.c_void_p()
        status = L.enigma_library_create_from_source(
            device_handle, src, len(src), self.filename.encode(), ctypes.byref(opts),
            ctypes.byref(out))
        del keep
        if status == 2:  # ENIGMA_ERROR_COMPILE: the library holds the diagnostics
            err = self._compile_error(out, L)
            if out.value:
                L.enigma_library_destroy(out)
            raise err
        L.check(status)
        return out

    def _compile_error(self, handle, L):
        diags = []
        text = ""
        if handle.value:
            n = L.enigma_library_diagnostic_count(handle)
            for i in range(n):
                d = _lib.DiagnosticC()
                if L.enigma_library_get_diagnostic(handle, i, ctypes.byref(d)) == 0:
                    diags.append(Diagnostic(_lib.decode(d.file), d.line, d.column,
                                            _lib.SEVERITY_NAMES.get(d.severity, "error"),
                                            _lib.decode(d.message)))
            text = _lib.decode(L.enigma_library_diagnostics_text(handle)) or ""
        if not text:
            text = "\n".join(str(d) for d in diags) or L.last_error()
        pylocs = [self.line_map.get(d.line) if d.file == self.filename else None for d in diags]
        if any(pylocs):
            notes = ["%s:%d: note: generated from this Python line" % loc
                     for loc in dict.fromkeys(l for l in pylocs if l)]
            text = text.rstrip("\n") + "\n" + "\n".join(notes)
        if self.python_function is not None:
            text += "\n-- generated MSL (%s) --\n%s" % (self.filename, _numbered(self.source))
        return CompileError(text, diags, self.source, pylocs)

    def check(self):
        """Runs libenigma's front end on the source (no device); raises CompileError."""
        L = _lib.lib()
        if not L.has("enigma_library_create_from_source"):
            return self
        L.enigma_library_destroy(self._create_library(None))
        return self

    def emit(self, what="c", checked=False):
        """What a stage makes of this kernel, as text: "ir" (the kernel IR), "c" (the cpu
        backend's C) or "cuda" (the cuda backend's CUDA C). Needs no device."""
        L = _lib.lib()
        lib = self._create_library(None, checked)
        try:
            text = ctypes.c_void_p()
            L.check(L.enigma_library_emit(lib, what.encode(), ctypes.byref(text)))
            try:
                return ctypes.string_at(text.value).decode("utf-8", "replace")
            finally:
                L.enigma_free(text)
        finally:
            L.enigma_library_destroy(lib)

    def library_for(self, device):
        """The library compiled for `device` (a runtime.Device), compiled once."""
        key = (id(device), device.checked)
        with self._lock:
            lib = self._libraries.get(key)
            if lib is None:
                with _compiling_note(self.name):
                    lib = self._create_library(device.handle, device.checked)
                self._libraries[key] = lib
                device._owned_libraries.append((self, key, lib))
            return lib

    def _forget(self, key):
        with self._lock:
            self._libraries.pop(key, None)


class _compiling_note:
    """Says once on stderr that a kernel is compiling when the compile passes a second, so
    that a cold compile of a large kernel does not look like a hang. Only when stderr is a
    terminal; ENIGMA_QUIET=1 silences it."""

    def __init__(self, name):
        self.name = name or "kernel"
        self.timer = None

    def _say(self):
        sys.stderr.write("enigma: compiling %s (the first time takes a while; later runs "
                         "come from the cache)...\n" % self.name)
        sys.stderr.flush()

    def __enter__(self):
        quiet = os.environ.get("ENIGMA_QUIET", "") not in ("", "0")
        if not quiet and sys.stderr is not None and sys.stderr.isatty():
            self.timer = threading.Timer(1.0, self._say)
            self.timer.daemon = True
            self.timer.start()
        return self

    def __exit__(self, *exc):
        if self.timer is not None:
            self.timer.cancel()


def _numbered(src):
    return "\n".join("%4d  %s" % (i + 1, l) for i, l in enumerate(src.splitlines()))


def compile(k, check=True):  # noqa: A001 - the seeds call enigma.compile
    """Traces a @enigma.kernel function into MSL and checks it with libenigma's front end.
    Returns a Compiled; `.source` is the MSL."""
    if not isinstance(k, Kernel):
        if callable(k):
            k = Kernel(k)
        else:
            raise TypeError("enigma.compile needs a @enigma.kernel function; for MSL text use "
                            "enigma.compile_source")
    tr = k.trace()
    source = tr.source()
    params = [Param(p.name, p.index, "buffer", p.dtype, p.is_scalar, p.written)
              for p in tr.params]
    c = Compiled(source, tr.name, params, filename=tr.name + ".metal", line_map=tr.line_map,
                 python_function=tr.python_function,
                 assignment_tracking=tr.assignment_tracking)
    if check:
        c.check()
    return c


def _constant_strings(constants):
    """{name or index: value} (or "NAME=VALUE" strings) as the C API's "NAME=VALUE" list."""
    if not constants:
        return []
    if isinstance(constants, dict):
        items = constants.items()
    else:
        items = [tuple(str(c).split("=", 1)) for c in constants]
    out = []
    for key, value in items:
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif isinstance(value, float):
            value = repr(value)
        out.append("%s=%s" % (key, value))
    return out


def compile_source(source, name=None, filename=None, defines=(), include_dirs=(), check=True,
                   constants=None):
    """Compiles MSL written by hand. `name` picks the kernel (None: the source's only
    kernel); `filename` is the name diagnostics use (default "<name>.metal").
    `constants` gives [[function_constant]] values, by name or index:
    {"use_bias": True, 600: 4}; the kernels are specialised to them.

    Binding rule for Runtime.execute: inputs go to the buffer parameters in order, skipping
    the output; the output is the last non-const `device` pointer parameter (override with
    execute(..., output="param name"))."""
    c = Compiled(source, name, None, filename=filename or ((name or "kernel") + ".metal"),
                 defines=defines, include_dirs=include_dirs, constants=constants)
    if check:
        c.check()
    return c

"""jit.py — @enigma.jit host functions and kernels launched on tensors (seed 002).

    @enigma.jit
    def copy(mS: enigma.Tensor, mD: enigma.Tensor):
        tiler, tv = enigma.make_layout_tv(thr, val)        # layout work, on the host
        gS = enigma.tensor_zipped_divide(mS, tiler)

        @enigma.kernel
        def inner(blkS, blkD, tv):                          # traced per layout
            t = enigma.thread_position_in_threadgroup
            thrS = enigma.tensor_composition(blkS, tv, tiler)[(t, None)]
            ...
        inner(gS, gD, tv).launch(grid=(enigma.size(gS, mode=[1]), 1, 1),
                                 block=(enigma.size(tv, mode=[0]), 1, 1))

    copy(src_array, dst_array)        # NumPy arrays become tensors; results land in them

Calling a @jit function turns its NumPy-array arguments into host Tensors (make_tensor) and
runs it as plain Python. `kernel(args...)` inside it binds a kernel to arguments and
`.launch(grid=, block=)` specialises the kernel to them: each Tensor argument becomes a
device buffer parameter with its layout baked in, Layouts and Python numbers are
compile-time constants. The kernel is traced at each launch (cheap) and compiled once per
distinct MSL text.

Launch semantics are Metal's dispatchThreadgroups: `grid` counts threadgroups and `block`
is the threads of one threadgroup. A tensor made by tensor_zipped_divide is seen inside the
kernel as one tile: the tile whose index in mode 1 is threadgroup_position_in_grid.x, so the
grid has one threadgroup per tile (more is an error).

The runtime is the jit function's `runtime=` keyword, else a shared default Runtime whose
backend is $ENIGMA_BACKEND, else $ENIGMA_TEST_BACKEND, else "auto" (cuda where a GPU is).
"""

import functools
import inspect
import os
import threading

import numpy as np

from . import rewrite
from . import trace
from .errors import InvalidArgumentError, TraceError
from .layout import Layout, size
from .tensor import Tensor, _symbolic_offset, make_tensor

_state = threading.local()
_default = {}
_compiled_by_source = {}
_lock = threading.Lock()


def default_runtime():
    """The Runtime @enigma.jit functions launch on when given none (see the module doc)."""
    backend = (os.environ.get("ENIGMA_BACKEND") or os.environ.get("ENIGMA_TEST_BACKEND")
               or "auto")
    with _lock:
        rt = _default.get(backend)
        if rt is None:
            from .runtime import Runtime
            rt = _default[backend] = Runtime(backend)
        return rt


def _context():
    return getattr(_state, "jit", None)


class JitFunction:
    """A host function decorated with @enigma.jit; call it with arrays or tensors (and
    runtime=, optionally). `last_launch` is (runtime, Compiled, {parameter: array}, grid,
    block) of its latest kernel launch: `.source` of the Compiled is the MSL, and
    Runtime.launch(compiled, grid, block, args, threadgroups=True) runs it again (benches)."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.last_launch = None   # (runtime, Compiled, {param: array}, grid, block)

    def __repr__(self):
        return "<enigma.jit %s>" % self.fn.__name__

    def __call__(self, *args, runtime=None, **kwargs):
        sig = inspect.signature(self.fn)
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise InvalidArgumentError("%s: %s" % (self.fn.__name__, e)) from None
        for name, value in bound.arguments.items():
            ann = sig.parameters[name].annotation
            if isinstance(value, np.ndarray) or ann is Tensor and not isinstance(value, Tensor):
                bound.arguments[name] = _as_tensor(value, name, self.fn.__name__)
        prev = _context()
        _state.jit = _Call(self, runtime)
        try:
            return self.fn(*bound.args, **bound.kwargs)
        finally:
            _state.jit = prev


class _Call:
    """One running call of a jit function: where its launches go and are recorded."""

    def __init__(self, function, runtime):
        self.function = function
        self.runtime = runtime

    def _runtime(self):
        return self.runtime if self.runtime is not None else default_runtime()


def jit(fn):
    """Decorator: a host function that builds layouts and tensors and launches kernels on
    them (seed 002's tiled_gemm). See the module documentation."""
    if isinstance(fn, JitFunction):
        return fn
    return JitFunction(fn)


def _as_tensor(value, name, fn_name):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        return make_tensor(value)
    raise InvalidArgumentError("%s: parameter %s is an enigma.Tensor; pass a NumPy array or a "
                               "Tensor, not %s" % (fn_name, name, type(value).__name__))


class BoundKernel:
    """A kernel with its arguments, ready to launch: `kernel(args...).launch(grid, block)`."""

    def __init__(self, kernel, args):
        self.kernel = kernel
        self.args = [make_tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        names = list(inspect.signature(kernel.fn).parameters)
        if len(names) != len(self.args):
            raise InvalidArgumentError("kernel %s takes %d arguments (%s), got %d"
                                       % (kernel.name, len(names), ", ".join(names),
                                          len(self.args)))
        self.names = names

    def __repr__(self):
        return "<enigma.kernel %s bound to %d arguments>" % (self.kernel.name, len(self.args))

    def compile(self):
        """The Compiled kernel specialised to these arguments (its `.source` is the MSL)."""
        return _specialise(self.kernel, self.names, self.args)[0]

    @property
    def source(self):
        return self.compile().source

    def launch(self, grid, block, runtime=None):
        """Runs the kernel once: `grid` threadgroups of `block` threads (Metal's
        dispatchThreadgroups). Writes land in the tensors' arrays."""
        grid3, block3 = _dims("grid", grid), _dims("block", block)
        groups = grid3[0] * grid3[1] * grid3[2]
        for name, a in zip(self.names, self.args):
            if isinstance(a, Tensor) and a.divided:
                if grid3[1:] != (1, 1):
                    raise InvalidArgumentError(
                        "kernel %s: %s is divided into tiles, which threadgroups take by "
                        "threadgroup_position_in_grid.x: launch a 1-D grid (%d, 1, 1), not %s"
                        % (self.kernel.name, name, groups, grid3))
                tiles = size(a, mode=[1])
                if groups > tiles:
                    raise InvalidArgumentError(
                        "kernel %s: the grid has %d threadgroups but %s has %d tiles (mode 1 "
                        "of %s); a divided tensor gives each threadgroup one tile"
                        % (self.kernel.name, groups, name, tiles, a.layout))
        compiled, tensor_params = _specialise(self.kernel, self.names, self.args)
        values = {pname: a.engine for pname, a in tensor_params}
        ctx = _context()
        rt = runtime or (ctx._runtime() if ctx is not None else default_runtime())
        rt.launch(compiled, grid=grid3, threads=block3, args=values, threadgroups=True)
        if ctx is not None:
            ctx.function.last_launch = (rt, compiled, values, grid3, block3)


def _dims(what, v):
    if isinstance(v, (int, np.integer)):
        v = (v,)
    try:
        dims = [int(x) for x in v]
    except (TypeError, ValueError):
        raise InvalidArgumentError("%s must be up to three positive integers, not %r"
                                   % (what, v)) from None
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise InvalidArgumentError("%s must be up to three positive integers, not %r" % (what, v))
    return tuple(dims + [1] * (3 - len(dims)))


def _specialise(kernel, names, args):
    """(Compiled, [(parameter name, host Tensor)]): `kernel` traced with its tensor
    arguments as buffer parameters of known layouts; compiled once per distinct MSL."""
    from .kernel import Compiled, Param
    fn = kernel.fn
    tracked = rewrite.rewrite(fn)
    target = tracked if tracked is not None else fn
    tensor_params = []

    def make_args(tr):
        out = []
        for name, a in zip(names, args):
            if isinstance(a, Tensor):
                if a.in_kernel:
                    raise TraceError("kernel %s: argument %s is a kernel-side tensor; launch "
                                     "with host tensors" % (kernel.name, name))
                index = len(tensor_params)
                pn = tr.unique(name)
                spec = trace.ParamSpec(pn, a.dtype, False, index)
                tr.params.append(spec)
                tensor_params.append((pn, a))
                buf = trace.Buffer(pn, a.dtype, "device", tr, param_index=index)
                out.append(_device_view(a, buf, tr, pn))
            elif isinstance(a, (Layout, int, float, tuple, str, type(None), np.integer,
                                np.floating)):
                out.append(a)
            else:
                raise TraceError("kernel %s: argument %s is a %s; a launched kernel takes "
                                 "tensors (arrays), layouts and Python numbers"
                                 % (kernel.name, name, type(a).__name__))
        return out

    tr = trace.run(target, fn.__name__, {}, [], kernel_code=target.__code__,
                   assignment_tracking=tracked is not None, make_args=make_args)
    tr.python_function = fn
    source = tr.source()
    with _lock:
        hit = _compiled_by_source.get(source)
    if hit is not None:
        return hit, tensor_params
    params = [Param(p.name, p.index, "buffer", p.dtype, p.is_scalar, p.written)
              for p in tr.params]
    c = Compiled(source, tr.name, params, filename=tr.name + ".metal", line_map=tr.line_map,
                 python_function=fn, assignment_tracking=tr.assignment_tracking)
    c.check()
    with _lock:
        _compiled_by_source[source] = c
    return c, tensor_params


def _device_view(a, buf, tr, name, divided=None):
    """The kernel's view of host tensor `a`: its layout over `buf`, or, for a divided
    tensor, the tile of this threadgroup; its coordinate tensors (partial tiles) alike."""
    divided = a.divided if divided is None else divided
    bounds = [(_device_view(ct, buf, tr, "%s_coord%d" % (name, k), divided), extent)
              for k, (ct, extent) in enumerate(a.bounds)]
    if not divided:
        return Tensor(buf, a.layout, _host_offset(a), a.dtype, bounds=bounds)
    from .dsl import threadgroup_position_in_grid
    block = _symbolic_offset(a.layout[1], threadgroup_position_in_grid("x"), wrap=False)
    const = _host_offset(a)
    if block is None:   # one tile, or tiles that all start at the same element
        return Tensor(buf, a.layout[0], const, a.dtype, bounds=bounds)
    var = tr.new_var("%s_tile" % name, block)
    return Tensor(buf, a.layout[0], (var, const), a.dtype, bounds=bounds)


def _host_offset(a):
    if isinstance(a.offset, tuple):
        raise TraceError("a host tensor has a constant offset")
    return int(a.offset)


__all__ = ["jit", "JitFunction", "BoundKernel", "default_runtime"]

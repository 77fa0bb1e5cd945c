"""dsl.py — the kernel-building functions of the tracing DSL.

Needs: an active trace (trace.current()); every function here is called from inside a
@enigma.kernel function while enigma.compile traces it.
Guarantees: each function either returns a symbolic Value (an MSL expression) or emits
statements into the trace: positions are kernel attributes, control flow blocks are
context managers, SIMD/quad functions and barriers map one to one onto their MSL names.
"""

from . import dtypes as T
from .errors import TraceError
from .trace import (Buffer, Value, Var, as_value, binary, call, cast, compare, current,
                    _conv, _strip_parens)

_AXES = {"x": 0, "y": 1, "z": 2, 0: 0, 1: 1, 2: 2}


def _axis(axis):
    try:
        return "xyz"[_AXES[axis.lower() if isinstance(axis, str) else axis]]
    except (KeyError, AttributeError):
        raise TraceError("axis must be 'x', 'y', 'z' or 0, 1, 2, not %r" % (axis,)) from None


# ---- thread positions -----------------------------------------------------------------

class Attribute:
    """A Metal thread-position attribute. Vector attributes (uint3) are used as
    `enigma.thread_position_in_grid` (its x), `.x/.y/.z`, or called with an axis:
    `enigma.threadgroup_position_in_grid("x")`. Scalar ones are called with no argument."""

    def __init__(self, attr, vector):
        self.attr = attr
        self.hint = attr    # the kernel parameter carries the attribute's own name
        self.vector = vector

    def __repr__(self):
        return "enigma." + self.attr

    def _var(self):
        return current().attribute(self.attr, "uint3" if self.vector else "uint", self.hint)

    def __call__(self, axis="x"):
        if not self.vector:
            if axis != "x":
                raise TraceError("%s is a scalar; it takes no axis" % self.attr)
            return Value(self._var(), T.u32)
        return Value("%s.%s" % (self._var(), _axis(axis)), T.u32)

    def _enigma_value(self):
        return self()

    x = property(lambda self: self("x"))
    y = property(lambda self: self("y"))
    z = property(lambda self: self("z"))

    # used bare in an expression, a vector attribute stands for its x component
    def __getitem__(self, axis):
        return self(axis)

    def _v(self):
        return self()

    def __add__(self, o): return self._v() + o
    def __radd__(self, o): return o + self._v()
    def __sub__(self, o): return self._v() - o
    def __rsub__(self, o): return o - self._v()
    def __mul__(self, o): return self._v() * o
    def __rmul__(self, o): return o * self._v()
    def __truediv__(self, o): return self._v() / o
    def __rtruediv__(self, o): return o / self._v()
    def __floordiv__(self, o): return self._v() // o
    def __rfloordiv__(self, o): return o // self._v()
    def __mod__(self, o): return self._v() % o
    def __rmod__(self, o): return o % self._v()
    def __and__(self, o): return self._v() & o
    def __or__(self, o): return self._v() | o
    def __xor__(self, o): return self._v() ^ o
    def __lshift__(self, o): return self._v() << o
    def __rshift__(self, o): return self._v() >> o
    def __lt__(self, o): return self._v() < o
    def __le__(self, o): return self._v() <= o
    def __gt__(self, o): return self._v() > o
    def __ge__(self, o): return self._v() >= o
    def __eq__(self, o): return self._v() == o
    def __ne__(self, o): return self._v() != o
    __hash__ = object.__hash__


thread_position_in_grid = Attribute("thread_position_in_grid", True)
thread_position_in_threadgroup = Attribute("thread_position_in_threadgroup", True)
threadgroup_position_in_grid = Attribute("threadgroup_position_in_grid", True)
threads_per_threadgroup = Attribute("threads_per_threadgroup", True)
threadgroups_per_grid = Attribute("threadgroups_per_grid", True)
threads_per_grid = Attribute("threads_per_grid", True)
dispatch_threads_per_threadgroup = Attribute("dispatch_threads_per_threadgroup", True)
thread_index_in_threadgroup = Attribute("thread_index_in_threadgroup", False)
thread_index_in_simdgroup = Attribute("thread_index_in_simdgroup", False)
simdgroup_index_in_threadgroup = Attribute("simdgroup_index_in_threadgroup", False)
simdgroups_per_threadgroup = Attribute("simdgroups_per_threadgroup", False)
threads_per_simdgroup = Attribute("threads_per_simdgroup", False)
thread_index_in_quadgroup = Attribute("thread_index_in_quadgroup", False)
quadgroup_index_in_threadgroup = Attribute("quadgroup_index_in_threadgroup", False)
quadgroups_per_threadgroup = Attribute("quadgroups_per_threadgroup", False)


def thread_position_in_grid_xyz(axis):
    """thread_position_in_grid along one axis ('x', 'y' or 'z')."""
    return thread_position_in_grid(axis)


# ---- memory ------------------------------------------------------------------------------

def threadgroup_alloc(dtype, n):
    """`threadgroup T name[n];` — memory shared by the threadgroup, declared at the top of
    the kernel (MSL allows threadgroup variables only at kernel scope)."""
    tr = current()
    t = T.as_dtype(dtype)
    n = int(n)
    if n <= 0:
        raise TraceError("threadgroup_alloc needs a positive length, not %d" % n)
    name = tr.unique("shared")
    tr.hoist("threadgroup %s %s[%d];" % (t.msl, name, n))
    buf = Buffer(name, t, "threadgroup", tr, length=n)
    buf.hoist_index = len(tr.hoisted) - 1   # renamed after the Python name it is bound to
    return buf


def load(buffer, index):
    """buffer[index], as a function."""
    return buffer[index]


def store(buffer, index, value):
    """buffer[index] = value, as a function."""
    buffer[index] = value


def load_if(buffer, index, mask, other=0):
    """buffer[index] where mask holds, else `other`; the load happens only under the mask,
    so a bounds mask (e.g. cmp_lt(i, n)) keeps it inside the buffer."""
    if not isinstance(buffer, Buffer):
        raise TraceError("load_if needs a kernel buffer or threadgroup array, not %r" % (buffer,))
    m = as_value(mask)
    elem = buffer[index]
    o = as_value(other, like=elem)
    return Value("(%s ? %s : %s)" % (_strip_parens(m.expr), elem.expr, _conv(o, elem.dtype)),
                 elem.dtype)


def store_if(buffer, index, value, mask):
    """buffer[index] = value where mask holds."""
    with if_(mask):
        buffer[index] = value


# ---- comparisons, selection, math ----------------------------------------------------------

def cmp_eq(a, b): return compare("==", a, b)
def cmp_ne(a, b): return compare("!=", a, b)
def cmp_lt(a, b): return compare("<", a, b)
def cmp_le(a, b): return compare("<=", a, b)
def cmp_gt(a, b): return compare(">", a, b)
def cmp_ge(a, b): return compare(">=", a, b)


def logical_and(a, b): return binary("&", cast(a, T.bool_), cast(b, T.bool_))
def logical_or(a, b): return binary("|", cast(a, T.bool_), cast(b, T.bool_))
def logical_not(a): return Value("(!%s)" % as_value(a).expr, T.bool_)


def where(cond, a, b):
    """cond ? a : b (both arms are evaluated only as the ternary does)."""
    c = as_value(cond)
    if isinstance(a, Value) or getattr(a, "_enigma_value", None):
        av = as_value(a)
        bv = as_value(b, like=av)
    else:
        bv = as_value(b)
        av = as_value(a, like=bv)
    from .trace import promote
    t = av.dtype if av.dtype is bv.dtype else promote(av.dtype, bv.dtype)
    return Value("(%s ? %s : %s)" % (_strip_parens(c.expr), _conv(av, t), _conv(bv, t)), t)


def select(a, b, cond):
    """MSL's select(a, b, cond): cond ? b : a."""
    return where(cond, b, a)


def fma(a, b, c):
    """a * b + c, fused (floats)."""
    return call("fma", a, b, c, float_only=True)


def mad(a, b, c):
    return call("mad", a, b, c, float_only=True)


def _math1(name, float_only=True, result=None):
    def f(x):
        return call(name, x, float_only=float_only, result=result)
    f.__name__ = name
    f.__doc__ = "MSL %s(x)." % name
    return f


def _math2(name, float_only=True):
    def f(x, y):
        return call(name, x, y, float_only=float_only)
    f.__name__ = name
    f.__doc__ = "MSL %s(x, y)." % name
    return f


_FLOAT1 = ["fabs", "floor", "ceil", "round", "rint", "trunc", "fract", "exp", "exp2", "exp10",
           "log", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan",
           "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sinpi", "cospi", "tanpi",
           "saturate", "sign"]
_FLOAT2 = ["pow", "powr", "atan2", "fmod", "fdim", "fmin", "fmax", "copysign", "step"]
_PRED = ["isnan", "isinf", "isfinite", "signbit"]

_math = {}
for _n in _FLOAT1:
    _math[_n] = _math1(_n)
for _n in _FLOAT2:
    _math[_n] = _math2(_n)
for _n in _PRED:
    _math[_n] = _math1(_n, result=T.bool_)


def abs(x):  # noqa: A001 - mirrors MSL's abs
    return call("abs", x)


def min(a, b):  # noqa: A001
    return call("min", a, b)


def max(a, b):  # noqa: A001
    return call("max", a, b)


def clamp(x, lo, hi):
    return call("clamp", x, lo, hi)


def mix(a, b, t):
    return call("mix", a, b, t, float_only=True)


def smoothstep(e0, e1, x):
    return call("smoothstep", e0, e1, x, float_only=True)


def ldexp(x, e):
    xv = as_value(x)
    xt = xv.dtype if xv.dtype.is_float else T.f32
    return Value("ldexp(%s, %s)" % (_strip_parens(_conv(xv, xt)),
                                    _strip_parens(_conv(as_value(e, like=Value("", T.i32)), T.i32))),
                 xt)


# ---- SIMD-group and quad-group functions -----------------------------------------------

def _collective(name, kind="any"):
    def f(x):
        v = as_value(x)
        if kind == "int" and not v.dtype.is_int:
            raise TraceError("%s needs an integer value, not %s" % (name, v.dtype.name))
        if v.dtype is T.bool_ or v.dtype.bits == 64:
            raise TraceError("%s does not take %s (Metal: no bool, long or ulong)"
                             % (name, v.dtype.name))
        return Value("%s(%s)" % (name, _strip_parens(v.expr)), v.dtype)
    f.__name__ = name
    f.__doc__ = "MSL %s(x): over the active lanes of the %s-group." % (
        name, "SIMD" if name.startswith("simd") else "quad")
    return f


def _lane_op(name):
    def f(x, lane):
        v = as_value(x)
        lv = as_value(lane, like=Value("", T.u16))
        return Value("%s(%s, %s)" % (name, _strip_parens(v.expr), _strip_parens(_conv(lv, T.u16))),
                     v.dtype)
    f.__name__ = name
    f.__doc__ = "MSL %s(x, lane/delta/mask)." % name
    return f


def _fill_op(name):
    def f(data, filling, delta, modulo=None):
        d = as_value(data)
        fl = as_value(filling, like=d)
        dl = as_value(delta, like=Value("", T.u16))
        args = [_strip_parens(d.expr), _strip_parens(_conv(fl, d.dtype)),
                _strip_parens(_conv(dl, T.u16))]
        if modulo is not None:
            args.append(_strip_parens(_conv(as_value(modulo, like=Value("", T.u16)), T.u16)))
        return Value("%s(%s)" % (name, ", ".join(args)), d.dtype)
    f.__name__ = name
    return f


def _pred_op(name, result):
    def f(pred=None):
        if name.endswith(("_is_first", "_active_threads_mask")):
            text = "%s()" % name
        else:
            text = "%s(%s)" % (name, _strip_parens(cast(pred, T.bool_).expr))
        if result is T.u64:
            text = "ulong(%s)" % text   # simd_vote converts explicitly to its 64-bit vote_t
        return Value(text, result)
    f.__name__ = name
    return f


_collectives = {}
for _g in ("simd", "quad"):
    for _op in ("sum", "product", "min", "max", "prefix_inclusive_sum",
                "prefix_inclusive_product", "prefix_exclusive_sum", "prefix_exclusive_product",
                "broadcast_first"):
        _collectives["%s_%s" % (_g, _op)] = _collective("%s_%s" % (_g, _op))
    for _op in ("and", "or", "xor"):
        _collectives["%s_%s" % (_g, _op)] = _collective("%s_%s" % (_g, _op), "int")
    for _op in ("shuffle", "shuffle_up", "shuffle_down", "shuffle_xor", "shuffle_rotate_up",
                "shuffle_rotate_down", "broadcast"):
        _collectives["%s_%s" % (_g, _op)] = _lane_op("%s_%s" % (_g, _op))
    for _op in ("shuffle_and_fill_up", "shuffle_and_fill_down"):
        _collectives["%s_%s" % (_g, _op)] = _fill_op("%s_%s" % (_g, _op))
    _collectives["%s_all" % _g] = _pred_op("%s_all" % _g, T.bool_)
    _collectives["%s_any" % _g] = _pred_op("%s_any" % _g, T.bool_)
    _collectives["%s_is_first" % _g] = _pred_op("%s_is_first" % _g, T.bool_)
    _collectives["%s_ballot" % _g] = _pred_op("%s_ballot" % _g, T.u64)
    _collectives["%s_active_threads_mask" % _g] = _pred_op("%s_active_threads_mask" % _g, T.u64)


# ---- barriers ------------------------------------------------------------------------------

_MEM_FLAGS = {"none": "mem_none", "threadgroup": "mem_threadgroup", "device": "mem_device",
              "texture": "mem_texture"}


def _flags(mem_flags):
    if mem_flags is None:
        mem_flags = "mem_none"
    if isinstance(mem_flags, str):
        parts = [p.strip() for p in mem_flags.replace(",", "|").split("|") if p.strip()]
    else:
        parts = list(mem_flags)
    out = []
    for p in parts:
        p = p.replace("mem_flags::", "")
        key = p[4:] if p.startswith("mem_") else p
        if key not in _MEM_FLAGS:
            raise TraceError("unknown mem_flags %r: use mem_none, mem_threadgroup, mem_device "
                             "or mem_texture" % p)
        out.append("mem_flags::" + _MEM_FLAGS[key])
    return " | ".join(out) if out else "mem_flags::mem_none"


def barrier(mem_flags="mem_threadgroup"):
    """threadgroup_barrier(mem_flags::...): every thread of the threadgroup must reach it."""
    current().emit("threadgroup_barrier(%s);" % _flags(mem_flags))


threadgroup_barrier = barrier


def simdgroup_barrier(mem_flags="mem_none"):
    current().emit("simdgroup_barrier(%s);" % _flags(mem_flags))


# ---- control flow ------------------------------------------------------------------------

class _Block:
    def __init__(self, header):
        self.header = header

    def __enter__(self):
        tr = current()
        self.tr = tr
        tr.emit(self.header)
        tr.depth += 1
        return None

    def __exit__(self, et, ev, tb):
        tr = self.tr
        tr.depth -= 1
        tr.emit("}")
        return False


class if_(_Block):
    """`with enigma.if_(cond):` — the block runs where cond holds. An `else_()` or
    `elif_(c)` block may follow it directly."""

    def __init__(self, cond):
        c = as_value(cond)
        super().__init__("if (%s) {" % _strip_parens(c.expr))

    def __exit__(self, et, ev, tb):
        super().__exit__(et, ev, tb)
        self.tr.last_closed_if = len(self.tr.body) - 1
        return False


class elif_(if_):
    def __enter__(self):
        tr = current()
        _join_else(tr, "elif_")
        self.tr = tr
        tr.body[-1] = (tr.body[-1][0], "} else " + self.header, tr.body[-1][2])
        tr.depth += 1
        return None


class else_(_Block):
    """`with enigma.else_():` right after an if_ block."""

    def __init__(self):
        super().__init__("else {")

    def __enter__(self):
        tr = current()
        _join_else(tr, "else_")
        self.tr = tr
        tr.body[-1] = (tr.body[-1][0], "} else {", tr.body[-1][2])
        tr.depth += 1
        return None


def _join_else(tr, what):
    if tr.last_closed_if is None or tr.last_closed_if != len(tr.body) - 1:
        raise TraceError("enigma.%s() must follow an enigma.if_ block directly" % what)


class for_range:
    """`with enigma.for_range(start, stop[, step]) as i:` or, with loop-carried values,
    `with enigma.for_range(start, stop, init=[v0, ...]) as (i, a0, ...):`.

    The body runs once while tracing and becomes an MSL for loop. Each init value becomes a
    variable declared before the loop; assigning its name in the body updates it, and after
    the block the name holds the final value. A Python-number step may be negative (the
    loop then runs while i > stop); a symbolic step must be positive."""

    def __init__(self, start, stop=None, step=1, init=None, name=None):
        if stop is None:
            start, stop = 0, start
        self.start, self.stop, self.step = start, stop, step
        self.init = list(init) if init is not None else None
        self.names = (name,) if name else ()

    def _enigma_names(self, names):
        self.names = names
        return self

    def __enter__(self):
        tr = current()
        self.tr = tr
        sym = [as_value(x) for x in (self.start, self.stop, self.step)
               if isinstance(x, Value) or getattr(x, "_enigma_value", None)]
        from .trace import promote
        t = sym[0].dtype if sym else T.i32
        for v in sym[1:]:
            t = promote(t, v.dtype)
        if not t.is_int:
            raise TraceError("for_range bounds must be integers, not %s" % t.name)
        if t.bits < 32:
            t = T.i32
        like = Value("", t)
        start = _strip_parens(_conv(as_value(self.start, like=like), t))
        stop = _strip_parens(_conv(as_value(self.stop, like=like), t))
        step_v = as_value(self.step, like=like)
        step = _strip_parens(_conv(step_v, t))
        negative = not isinstance(self.step, Value) and not hasattr(self.step, "_enigma_value") \
            and self.step < 0
        if not isinstance(self.step, Value) and not hasattr(self.step, "_enigma_value") \
                and self.step == 0:
            raise TraceError("for_range step must not be zero")
        carried = []
        for k, v in enumerate(self.init or []):
            hint = self.names[k + 1] if len(self.names) > k + 1 and self.names[k + 1] else "acc"
            carried.append(tr.new_var(hint, v, carried=True))
        ivar = Var(tr.unique(self.names[0] if self.names and self.names[0] else "i"), t,
                   tr.depth + 1, tr)
        if negative:
            header = "for (%s %s = %s; %s > %s; %s -= %s) {" % (
                t.msl, ivar.name, start, ivar.name, stop, ivar.name,
                _strip_parens(_conv(as_value(-self.step, like=like), t)))
        else:
            header = "for (%s %s = %s; %s < %s; %s += %s) {" % (
                t.msl, ivar.name, start, ivar.name, stop, ivar.name, step)
        tr.emit(header)
        tr.depth += 1
        if self.init is None:
            return ivar
        return (ivar,) + tuple(carried)

    def __exit__(self, et, ev, tb):
        self.tr.depth -= 1
        self.tr.emit("}")
        return False


class while_(_Block):
    """`with enigma.while_(cond):` — cond is evaluated before each iteration; it must
    read variables that the body assigns."""

    def __init__(self, cond):
        super().__init__("while (%s) {" % _strip_parens(as_value(cond).expr))


def break_():
    current().emit("break;")


def continue_():
    current().emit("continue;")


def return_():
    """Ends this thread's kernel (a Python `return` would only end the tracing)."""
    current().emit("return;")


def assign(var, value):
    """Assigns a variable explicitly (for code traced without assignment tracking)."""
    if not isinstance(var, Var):
        raise TraceError("enigma.assign needs a variable made by an assignment or init=[...]")
    tr = current()
    tr.emit("%s = %s;" % (var.name, _strip_parens(_conv(as_value(value, like=var), var.dtype))))
    return var


def var(value, dtype=None, name="v"):
    """A mutable variable with an initial value, declared here."""
    return current().new_var(name, value, dtype=T.as_dtype(dtype) if dtype else None)


# ---- simdgroup matrices (8x8, collective over the SIMD group) ------------------------------

class SimdgroupMatrix:
    """An 8x8 simdgroup matrix variable (simdgroup_float8x8, _half8x8 or _bfloat8x8)."""

    def __init__(self, name, dtype, trace):
        self.name = name
        self.dtype = dtype
        self.trace = trace

    @property
    def msl_type(self):
        return "simdgroup_%s8x8" % self.dtype.msl

    def __repr__(self):
        return "<enigma %s %s>" % (self.msl_type, self.name)


def _matrix_dtype(dtype):
    t = T.as_dtype(dtype)
    if t not in (T.f32, T.f16, T.bf16):
        raise TraceError("simdgroup matrices hold float, half or bfloat, not %s" % t.name)
    return t


def _new_matrix(tr, dtype, hint="mat"):
    m = SimdgroupMatrix(tr.unique(hint), dtype, tr)
    tr.hoist("%s %s;" % (m.msl_type, m.name))
    m.hoist_index = len(tr.hoisted) - 1
    return m


def _pointer(buf, offset):
    if not isinstance(buf, Buffer):
        raise TraceError("simdgroup matrix loads and stores need a kernel buffer or "
                         "threadgroup array, not %r" % (buf,))
    buf.hoist_index = None
    if offset is None or (not isinstance(offset, Value) and offset == 0):
        return buf.name
    return "%s + %s" % (buf.name, _strip_parens(as_value(offset, like=Value("", T.u32)).expr))


def _matrix_args(elements_per_row, origin, transpose):
    args = [_strip_parens(as_value(elements_per_row, like=Value("", T.u64)).expr)]
    if origin is not None or transpose:
        ox, oy = origin if origin is not None else (0, 0)
        args.append("ulong2(%s, %s)" % (_strip_parens(as_value(ox, like=Value("", T.u64)).expr),
                                        _strip_parens(as_value(oy, like=Value("", T.u64)).expr)))
    if transpose:
        args.append("true")
    return args


def make_filled_simdgroup_matrix(value, dtype=T.f32):
    """A matrix with every element `value`."""
    tr = current()
    t = _matrix_dtype(dtype)
    m = _new_matrix(tr, t)
    v = as_value(value, like=Value("", t))
    tr.emit("%s = make_filled_simdgroup_matrix<%s, 8, 8>(%s);"
            % (m.name, t.msl, _strip_parens(_conv(v, t))))
    return m


def simdgroup_matrix_load(buffer, elements_per_row=8, origin=None, transpose=False, offset=None):
    """simdgroup_load from device or threadgroup memory, starting `offset` elements in."""
    tr = current()
    m = _new_matrix(tr, _matrix_dtype(buffer.dtype))
    tr.emit("simdgroup_load(%s);" % ", ".join(
        [m.name, _pointer(buffer, offset)] + _matrix_args(elements_per_row, origin, transpose)))
    return m


def simdgroup_matrix_store(matrix, buffer, elements_per_row=8, origin=None, transpose=False,
                           offset=None):
    tr = current()
    tr.emit("simdgroup_store(%s);" % ", ".join(
        [matrix.name, _pointer(buffer, offset)] + _matrix_args(elements_per_row, origin, transpose)))
    tr.stored.add(buffer.name)


def simdgroup_multiply(a, b):
    tr = current()
    d = _new_matrix(tr, a.dtype)
    tr.emit("simdgroup_multiply(%s, %s, %s);" % (d.name, a.name, b.name))
    return d


def simdgroup_multiply_accumulate(a, b, c):
    """a * b + c."""
    tr = current()
    d = _new_matrix(tr, c.dtype)
    tr.emit("simdgroup_multiply_accumulate(%s, %s, %s, %s);" % (d.name, a.name, b.name, c.name))
    return d


simdgroup_load = simdgroup_matrix_load
simdgroup_store = simdgroup_matrix_store

"""trace.py — runs a @kernel function once on symbolic values and writes MSL.

Needs: the kernel function (its parameters annotated with DTypes or Scalar(T)), usually
rewritten by rewrite.py so that every `name = value` goes through `bind`.
Guarantees: `Trace.source()` is one MSL kernel whose statements are in the order the
Python code executed them, with control flow from the `with enigma.if_/else_/for_range`
blocks.

How values work. A symbolic Value holds an MSL expression and its type; operators build
bigger expressions without emitting anything. Statements are emitted only by stores
(`A[i] = v`), barriers, control flow and *assignments to Python names*. An assignment makes
the name an MSL variable, so Python's "a name is rebound" becomes MSL's "a variable is
assigned":
  - the first assignment of a name declares a variable (`float acc = 0.0f;`). At the kernel's
    top level it is declared where it is assigned; inside a block its declaration is hoisted
    to the top of the kernel so that the value is still visible after the block, as it is in
    Python (`final` in seed 000, values set in both arms of an if/else);
  - a later assignment of the same name assigns the same variable (`final = final + ...;`),
    which is what makes loops accumulate. A rebinding with another type at the same block
    level makes a new variable, as Python would; inside a deeper block (a loop body or an
    arm) it converts to the variable's type, because only the one variable reaches later code.
Values kept in names are therefore snapshots taken at the assignment, like Python values.
"""

import os
import sys
import threading

from . import dtypes as T
from .errors import TraceError

_state = threading.local()


def current(required=True):
    tr = getattr(_state, "trace", None)
    if tr is None and required:
        raise TraceError("this enigma function builds kernel code and can only be called while "
                         "a @enigma.kernel function is being compiled (enigma.compile)")
    return tr


# MSL/C++ words a Python name must not become
RESERVED = set("""
alignas alignof and asm auto bool break case catch char class const constexpr const_cast
constant continue decltype default delete device do double dynamic_cast else enum explicit
export extern false float for friend goto half bfloat if inline int kernel long mutable
namespace new noexcept not nullptr operator or private protected public register
reinterpret_cast return short signed sizeof static static_assert static_cast struct switch
template this thread threadgroup threadgroup_imageblock throw true try typedef typeid typename
uchar uint ulong union unsigned ushort using virtual void volatile wchar_t while xor vertex
fragment metal ray_data object mesh char2 float2 float3 float4 half2 half3 half4 int2 int3
int4 uint2 uint3 uint4 size_t ptrdiff_t min max abs select fma sqrt exp log
""".split())


def _strip_parens(e):
    """`(a + b)` -> `a + b` when the outer parentheses enclose the whole expression."""
    if not (e.startswith("(") and e.endswith(")")):
        return e
    depth = 0
    for i, ch in enumerate(e):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(e) - 1:
                return e
    return e[1:-1]


class Value:
    """A symbolic scalar inside a traced kernel: an MSL expression and its DType."""

    __slots__ = ("expr", "dtype")
    __array_priority__ = 1000  # NumPy scalars on the left defer to our reflected operators

    def __init__(self, expr, dtype):
        self.expr = expr
        self.dtype = dtype

    def __repr__(self):
        return "<enigma %s %s>" % (self.dtype.name, self.expr)

    def __bool__(self):
        raise TraceError("a symbolic value has no Python truth value: use `with enigma.if_(c):` "
                         "or enigma.where(c, a, b) instead of Python if/while/and/or")

    def __index__(self):
        raise TraceError("a symbolic value cannot be a Python integer (e.g. a range() bound); "
                         "use enigma.for_range for loops over symbolic bounds")

    __hash__ = object.__hash__

    # arithmetic
    def __add__(self, o): return binary("+", self, o)
    def __radd__(self, o): return binary("+", o, self)
    def __sub__(self, o): return binary("-", self, o)
    def __rsub__(self, o): return binary("-", o, self)
    def __mul__(self, o): return binary("*", self, o)
    def __rmul__(self, o): return binary("*", o, self)
    def __truediv__(self, o): return binary("/", self, o)
    def __rtruediv__(self, o): return binary("/", o, self)
    def __floordiv__(self, o): return floordiv(self, o)
    def __rfloordiv__(self, o): return floordiv(o, self)
    def __mod__(self, o): return binary("%", self, o)
    def __rmod__(self, o): return binary("%", o, self)
    def __pow__(self, o): return call("pow", self, o, float_only=True)
    def __rpow__(self, o): return call("pow", o, self, float_only=True)
    def __and__(self, o): return binary("&", self, o)
    def __rand__(self, o): return binary("&", o, self)
    def __or__(self, o): return binary("|", self, o)
    def __ror__(self, o): return binary("|", o, self)
    def __xor__(self, o): return binary("^", self, o)
    def __rxor__(self, o): return binary("^", o, self)
    def __lshift__(self, o): return binary("<<", self, o)
    def __rlshift__(self, o): return binary("<<", o, self)
    def __rshift__(self, o): return binary(">>", self, o)
    def __rrshift__(self, o): return binary(">>", o, self)
    def __neg__(self): return unary("-", self)
    def __pos__(self): return self
    def __invert__(self):
        return unary("!", self) if self.dtype is T.bool_ else unary("~", self)
    def __abs__(self): return call("abs", self)

    # comparisons give bool values
    def __eq__(self, o): return compare("==", self, o)
    def __ne__(self, o): return compare("!=", self, o)
    def __lt__(self, o): return compare("<", self, o)
    def __le__(self, o): return compare("<=", self, o)
    def __gt__(self, o): return compare(">", self, o)
    def __ge__(self, o): return compare(">=", self, o)

    def cast(self, dtype):
        return cast(self, dtype)

    astype = cast


class Var(Value):
    """A named MSL variable; assignments to its Python name assign it."""

    __slots__ = ("name", "depth", "carried", "trace", "attribute")

    def __init__(self, name, dtype, depth, trace, carried=False):
        super().__init__(name, dtype)
        self.name = name
        self.depth = depth
        self.carried = carried
        self.trace = trace
        self.attribute = None   # `pos = enigma.thread_position_in_grid`: pos.y still works

    def _axis(self, axis):
        if self.attribute is None:
            raise AttributeError("%s is a scalar kernel value; it has no .%s" % (self.name, axis))
        return self if axis == "x" else self.attribute(axis)

    x = property(lambda self: self._axis("x"))
    y = property(lambda self: self._axis("y"))
    z = property(lambda self: self._axis("z"))


# ---- literals and type rules ----------------------------------------------------------

def literal(x, dtype):
    """The MSL text of Python number `x` as a constant of `dtype`."""
    if dtype is T.bool_:
        return "true" if x else "false"
    if dtype.is_float:
        x = float(x)
        if x != x:
            text = "NAN"
        elif x in (float("inf"), float("-inf")):
            text = "INFINITY" if x > 0 else "(-INFINITY)"
        else:
            text = repr(x)
            if "e" not in text and "." not in text:
                text += ".0"
        if text in ("NAN", "INFINITY", "(-INFINITY)"):
            return text if dtype is T.f32 else "%s(%s)" % (dtype.msl, text)
        if dtype is T.f32:
            out = text + "f"
        elif dtype is T.f16:
            out = text + "h"
        else:
            out = "bfloat(%sf)" % text
        return "(%s)" % out if out.startswith("-") else out
    if isinstance(x, float):
        if x != int(x):
            raise TraceError("the constant %r is not a whole number, so it cannot be an %s"
                             % (x, dtype.name))
        x = int(x)
    x = int(x)
    lo = -(1 << (dtype.bits - 1)) if dtype.kind == "int" else 0
    hi = (1 << (dtype.bits - 1)) - 1 if dtype.kind == "int" else (1 << dtype.bits) - 1
    if not lo <= x <= hi:
        raise TraceError("the constant %d does not fit in %s" % (x, dtype.name))
    if dtype is T.i32:
        if x == lo:
            return "(-2147483647 - 1)"
        return str(x) if x >= 0 else "(%d)" % x
    if dtype is T.u32:
        return "%du" % x
    return "%s(%d)" % (dtype.msl, x)


def _is_number(x):
    import numpy as np
    return isinstance(x, (bool, int, float, np.integer, np.floating, np.bool_))


def _number_dtype(x):
    import numpy as np
    if isinstance(x, (np.integer, np.floating, np.bool_)):
        return T.as_dtype(np.asarray(x).dtype)
    if isinstance(x, bool):
        return T.bool_
    if isinstance(x, int):
        return T.i32
    return T.f32


def _rank(t):
    return (t.bits, t.kind == "uint")


def promote(a, b):
    """The type of `a op b` for two symbolic operands: MSL's usual arithmetic conversions."""
    if a is b:
        return a if a.bits >= 32 or a.is_float else T.i32
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return a if a.bits > b.bits else b if b.bits > a.bits else T.f32
        return a if a.is_float else b
    # integers: bool/char/short promote to int first
    a = a if a.bits >= 32 else T.i32
    b = b if b.bits >= 32 else T.i32
    return a if _rank(a) >= _rank(b) else b


def as_value(x, like=None):
    """Turns an operand into a Value. Python numbers take the type of `like` (the other
    operand), so `x * 2` keeps x's type, as an MSL literal would; a float constant next to an
    integer makes a float."""
    if isinstance(x, Value):
        return x
    res = getattr(x, "_enigma_value", None)
    if res is not None:
        return res()
    if _is_number(x):
        if like is not None:
            t = like.dtype
            if isinstance(x, float) and not t.is_float:
                t = T.f32  # `i * 0.5` is a float, as in MSL
            if t is T.bool_ and not isinstance(x, bool):
                t = T.i32
            return Value(literal(x, t), t)
        t = _number_dtype(x)
        return Value(literal(x, t), t)
    raise TraceError("cannot use %r (%s) in a kernel expression" % (x, type(x).__name__))


def _operands(a, b):
    av = a if isinstance(a, Value) or getattr(a, "_enigma_value", None) else None
    bv = b if isinstance(b, Value) or getattr(b, "_enigma_value", None) else None
    if av is not None:
        av = as_value(av)
    if bv is not None:
        bv = as_value(bv)
    if av is None and bv is None:
        return as_value(a), as_value(b)
    if av is None:
        av = as_value(a, like=_arith_like(bv))
    if bv is None:
        bv = as_value(b, like=_arith_like(av))
    return av, bv


def _arith_like(v):
    # a literal next to a bool/char/short is an int, as after MSL's integer promotion
    if v.dtype is T.bool_ or (v.dtype.is_int and v.dtype.bits < 32):
        return Value("", T.i32)
    return v


def binary(op, a, b):
    a, b = _operands(a, b)
    if op in ("&", "|", "^") and a.dtype is T.bool_ and b.dtype is T.bool_:
        if op == "^":
            return Value("(%s != %s)" % (a.expr, b.expr), T.bool_)
        return Value("(%s %s %s)" % (a.expr, op + op, b.expr), T.bool_)
    if op in ("<<", ">>"):
        if not (a.dtype.is_int and b.dtype.is_int):
            raise TraceError("shifts need integer operands, not %s and %s"
                             % (a.dtype.name, b.dtype.name))
        t = a.dtype if a.dtype.bits >= 32 else T.i32
        return Value("(%s %s %s)" % (a.expr, op, b.expr), t)
    t = promote(a.dtype, b.dtype)
    if op in ("&", "|", "^") and t.is_float:
        raise TraceError("bitwise %s needs integer operands, not %s" % (op, t.name))
    if op == "%" and t.is_float:
        return Value("fmod(%s, %s)" % (_conv(a, t), _conv(b, t)), t)
    return Value("(%s %s %s)" % (a.expr, op, b.expr), t)


def _conv(v, t):
    return v.expr if v.dtype is t else "%s(%s)" % (t.msl, _strip_parens(v.expr))


def floordiv(a, b):
    """Python's // : floor of the quotient (for floats and for signed integers that differ
    in sign, not C's truncation)."""
    a, b = _operands(a, b)
    t = promote(a.dtype, b.dtype)
    if t.is_float:
        return Value("floor(%s / %s)" % (a.expr, b.expr), t)
    if t.kind == "uint":
        return Value("(%s / %s)" % (a.expr, b.expr), t)
    ae, be = _conv(a, t), _conv(b, t)
    return Value("(%s / %s - ((%s %% %s != 0) && ((%s < 0) != (%s < 0)) ? 1 : 0))"
                 % (ae, be, ae, be, ae, be), t)


def unary(op, a):
    a = as_value(a)
    if op == "!":
        return Value("(!%s)" % a.expr, T.bool_)
    t = a.dtype if a.dtype.is_float or a.dtype.bits >= 32 else T.i32
    return Value("(%s%s)" % (op, a.expr), t)


def compare(op, a, b):
    a, b = _operands(a, b)
    return Value("(%s %s %s)" % (a.expr, op, b.expr), T.bool_)


def cast(x, dtype):
    dtype = T.as_dtype(dtype)
    if _is_number(x):
        return Value(literal(x, dtype), dtype)
    v = as_value(x)
    if v.dtype is dtype:
        return Value(v.expr, dtype)
    return Value("%s(%s)" % (dtype.msl, _strip_parens(v.expr)), dtype)


def call(name, *args, float_only=False, result=None, same_type=True):
    """A pure MSL function call. Arguments are converted to one common type (as MSL's
    overloads need); float_only functions turn integer arguments into float."""
    vals = [a for a in args if isinstance(a, Value) or getattr(a, "_enigma_value", None)]
    vals = [as_value(a) for a in vals]
    if not vals:
        vals = [as_value(a) for a in args]
    t = vals[0].dtype
    for v in vals[1:]:
        t = promote(t, v.dtype) if t is not v.dtype else t
    if float_only and not t.is_float:
        t = T.f32
    like = Value("", t)
    texts = []
    for a in args:
        v = as_value(a, like=like)
        texts.append(_strip_parens(_conv(v, t)) if same_type else _strip_parens(v.expr))
    out = result if result is not None else t
    return Value("%s(%s)" % (name, ", ".join(texts)), out)


# ---- buffers ------------------------------------------------------------------------------

class Buffer:
    """A kernel buffer parameter or a threadgroup array, indexable: `A[i]` loads,
    `A[i] = v` stores."""

    def __init__(self, name, dtype, space, trace, param_index=None, length=None):
        self.name = name
        self.dtype = dtype
        self.space = space          # "device" or "threadgroup"
        self.trace = trace
        self.param_index = param_index
        self.length = length
        self.hoist_index = None   # threadgroup arrays: where their declaration is

    def rename(self, hint):
        """Gives a fresh threadgroup array the Python name it is first bound to."""
        if self.hoist_index is None or self.trace is not current(required=False):
            return
        tr = self.trace
        tr.names.discard(self.name)
        new = tr.unique(hint)
        tr.hoisted[self.hoist_index] = tr.hoisted[self.hoist_index].replace(
            " %s[" % self.name, " %s[" % new, 1)
        self.name = new
        self.hoist_index = None

    def __repr__(self):
        return "<enigma %s buffer %s of %s>" % (self.space, self.name, self.dtype.name)

    def _index(self, index):
        self.hoist_index = None   # used: its name is fixed now
        if isinstance(index, tuple):
            raise TraceError("buffer %s is one-dimensional: index it with one integer "
                             "expression, e.g. A[row * N + col]" % self.name)
        i = as_value(index)
        if not (i.dtype.is_int or i.dtype is T.bool_):
            raise TraceError("index of %s must be an integer, not %s" % (self.name, i.dtype.name))
        if _is_number(index) and self.length is not None and not 0 <= int(index) < self.length:
            raise TraceError("index %d is outside %s[%d]" % (int(index), self.name, self.length))
        return _strip_parens(i.expr)

    def __getitem__(self, index):
        return Value("%s[%s]" % (self.name, self._index(index)), self.dtype)

    def __setitem__(self, index, value):
        tr = current()
        v = as_value(value, like=Value("", self.dtype))
        tr.emit("%s[%s] = %s;" % (self.name, self._index(index), _strip_parens(_conv(v, self.dtype))))
        tr.stored.add(self.name)

    def __len__(self):
        if self.length is None:
            raise TraceError("the length of device buffer %s is not known while tracing"
                             % self.name)
        return self.length


# ---- the trace ---------------------------------------------------------------------------

class Trace:
    def __init__(self, name, kernel_code=None):
        self.name = name
        self.kernel_code = kernel_code   # code object of the traced function (for locations)
        self.params = []                 # ParamSpec
        self.attrs = {}                  # attribute -> (msl type, variable name)
        self.hoisted = []                # lines declared at the top of the body
        self.body = []                   # (depth, text, (file, line))
        self.hoisted_locs = []
        self.depth = 1
        self.names = set()
        self.stored = set()
        self.last_closed_if = None       # index in body of the "}" of the last if at self.depth
        self.assignment_tracking = False
        self.number_binds = {}           # name -> (Python number, (file, line), depth)

    # -- names
    def unique(self, hint):
        base = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in str(hint)) or "v"
        if base[0].isdigit():
            base = "v" + base
        if base in RESERVED or base.startswith("__"):
            base = base.strip("_") + "_" if base.strip("_") else "v"
        name, n = base, 1
        while name in self.names:
            name = "%s_%d" % (base, n)
            n += 1
        self.names.add(name)
        return name

    # -- emission
    def python_location(self):
        f = sys._getframe(1)
        fallback = None
        while f is not None:
            if self.kernel_code is not None and f.f_code is self.kernel_code:
                return (f.f_code.co_filename, f.f_lineno)
            if fallback is None and not f.f_code.co_filename.startswith(_PKG_DIR):
                fallback = (f.f_code.co_filename, f.f_lineno)
            f = f.f_back
        return fallback

    def emit(self, text, depth=None):
        self.body.append((self.depth if depth is None else depth, text, self.python_location()))
        self.last_closed_if = None

    def hoist(self, text):
        self.hoisted.append(text)
        self.hoisted_locs.append(self.python_location())

    def attribute(self, attr, msl_type, hint):
        if attr not in self.attrs:
            self.attrs[attr] = (msl_type, self.unique(hint))
        return self.attrs[attr][1]

    # -- assignments (see the module comment)
    def note_number(self, name, value):
        """A Python number bound to a name: remembered with its place, in case a deeper
        block later rebinds the name to a symbolic value (`total = 0` before a loop that
        does `total = total + A[i]`)."""
        self.number_binds[name] = (value, self.python_location(), self.depth)

    def _check_number_rebinding(self, name, old):
        rec = self.number_binds.get(name)
        if rec is None or rec[0] is not old or self.depth <= rec[2]:
            return
        loc = rec[1]
        where = " (line %d)" % loc[1] if loc else ""
        raise TraceError(
            "%r holds the Python number %r%s and is reassigned a kernel value inside an "
            "enigma block; a Python number is a constant of the trace, so the new value would "
            "not reach the next iteration or the code after the block. Make it a kernel "
            "variable first, e.g. %s = enigma.f32(%r) (or the type you need)"
            % (name, old, where, name, old))

    def assign(self, name, value, old):
        v = as_value(value)
        if not isinstance(old, Var) and _is_number(old):
            self._check_number_rebinding(name, old)
        if isinstance(old, Var) and old.trace is self:
            if v is old:
                return old
            if old.dtype is v.dtype or old.carried or self.depth > old.depth:
                self.emit("%s = %s;" % (old.name, _strip_parens(_conv(v, old.dtype))))
                return old
        var = Var(self.unique(name), v.dtype, self.depth, self)
        if self.depth == 1:
            self.emit("%s %s = %s;" % (v.dtype.msl, var.name, _strip_parens(v.expr)))
        else:
            var.depth = 1
            self.hoist("%s %s;" % (v.dtype.msl, var.name))
            self.emit("%s = %s;" % (var.name, _strip_parens(v.expr)))
        return var

    def new_var(self, hint, value, dtype=None, carried=False):
        """A variable declared here with an initial value (loop-carried values)."""
        v = as_value(value) if dtype is None else as_value(value, like=Value("", dtype))
        t = dtype or v.dtype
        var = Var(self.unique(hint), t, self.depth, self, carried=carried)
        self.emit("%s %s = %s;" % (t.msl, var.name, _strip_parens(_conv(v, t))))
        return var

    # -- output
    def source(self):
        lines = ["#include <metal_stdlib>", "using namespace metal;", ""]
        plist = []
        for p in self.params:
            plist.append(p.declaration())
        for attr, (msl_type, var) in self.attrs.items():
            plist.append("%s %s [[%s]]" % (msl_type, var, attr))
        lines.append("kernel void %s(" % self.name)
        for i, p in enumerate(plist):
            lines.append("    " + p + ("," if i + 1 < len(plist) else ")"))
        if not plist:
            lines[-1] += ")"
        lines.append("{")
        self.line_map = {}
        for text, loc in zip(self.hoisted, self.hoisted_locs):
            lines.append("    " + text)
            self.line_map[len(lines)] = loc
        for depth, text, loc in self.body:
            lines.append("    " * depth + text)
            self.line_map[len(lines)] = loc
        lines.append("}")
        return "\n".join(lines) + "\n"


_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


class ParamSpec:
    """One kernel parameter as the tracer declared it."""

    def __init__(self, name, dtype, is_scalar, index):
        self.name = name
        self.dtype = dtype
        self.is_scalar = is_scalar   # constant T& (Scalar(T)) rather than a device T*
        self.index = index           # [[buffer(index)]]
        self.written = False

    def declaration(self):
        if self.is_scalar:
            return "constant %s& %s [[buffer(%d)]]" % (self.dtype.msl, self.name, self.index)
        const = "" if self.written else "const "
        return "device %s%s* %s [[buffer(%d)]]" % (const, self.dtype.msl, self.name, self.index)

    def __repr__(self):
        kind = "Scalar(%s)" % self.dtype.name if self.is_scalar else self.dtype.name
        return "<param %d %s: %s%s>" % (self.index, self.name, kind,
                                        " (written)" if self.written else "")


def run(fn, name, annotations, param_names, kernel_code=None, assignment_tracking=False,
        make_args=None):
    """Traces `fn` and returns the finished Trace. `make_args(trace)`, if given, declares
    the parameters and returns the arguments itself (jit.py: tensors of known layouts)."""
    tr = Trace(name, kernel_code)
    tr.name = tr.unique(name)   # a Python name may be an MSL word ("double")
    tr.assignment_tracking = assignment_tracking
    args = []
    for i, pname in enumerate(param_names):
        ann = annotations.get(pname)
        if isinstance(ann, T.Scalar):
            dt, is_scalar = ann.dtype, True
        elif isinstance(ann, T.DType):
            dt, is_scalar = ann, False
        else:
            raise TraceError("parameter %r of kernel %s needs an enigma type annotation "
                             "(e.g. `%s: enigma.f32` for a buffer, or "
                             "`%s: enigma.Scalar(enigma.u32)` for a value), not %r"
                             % (pname, name, pname, pname, ann))
        pn = tr.unique(pname)
        spec = ParamSpec(pn, dt, is_scalar, i)
        tr.params.append(spec)
        if is_scalar:
            args.append(Value(pn, dt))
        else:
            args.append(Buffer(pn, dt, "device", tr, param_index=i))
    prev = getattr(_state, "trace", None)
    _state.trace = tr
    try:
        if make_args is not None:
            args = make_args(tr)
        fn(*args)
    finally:
        _state.trace = prev
    if tr.depth != 1:
        raise TraceError("kernel %s ended inside an unfinished block" % name)
    for spec in tr.params:
        spec.written = spec.name in tr.stored
    return tr

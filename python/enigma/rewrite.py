"""rewrite.py — assignment tracking: rewrites a kernel's Python source so the tracer sees
every rebinding of a local name.

Why: tracing runs the body of `with enigma.for_range(...)` once. In seed 000,
`final = final + scratch[i]` inside the loop must update one MSL variable on every
iteration, and `Result[0] = final` after the loop must read that variable; in seed 002,
`acc = enigma.fma(a, b, acc)` must update the loop-carried accumulator. Plain tracing only
sees Python objects, not that a *name* was assigned, so we rewrite the function's AST:

    x = expr          ->  x = __enigma_bind__("x", expr, locals())
    x += expr         ->  x = __enigma_bind__("x", x + expr, locals())
    x: T = expr       ->  x: T = __enigma_bind__("x", expr, locals())
    a, b = expr       ->  a, b = __enigma_bind_many__(("a", "b"), expr, locals())
    with cm as (i, acc):  ->  with __enigma_with__(cm, ("i", "acc")) as (i, acc):

`__enigma_bind__` hands symbolic values to Trace.assign (which emits the MSL declaration or
assignment, see trace.py) and returns every other object unchanged, so ordinary Python code
in a kernel (constants, helper objects, Python loops that unroll) behaves as before.
`__enigma_with__` only passes the `as` names to for_range so the MSL loop variables carry
the Python names.

Needs: the function's source (inspect.getsource). Where there is none (a function made by
exec or typed at the interactive prompt), the kernel is traced unchanged: straight-line code
works, but names rebound inside blocks do not become MSL assignments; use enigma.assign then.
Guarantees: the rewritten function has the original's globals, closure values, defaults,
file name and line numbers, so tracebacks and MSL-to-Python locations point at the user's
code.
"""

import ast
import inspect
import textwrap

from . import trace

BIND = "__enigma_bind__"
BIND_MANY = "__enigma_bind_many__"
WITH = "__enigma_with__"


def bind(name, value, scope):
    tr = trace.current(required=False)
    if tr is None:
        return value
    if isinstance(value, trace.Buffer):
        value.rename(name)
        return value
    if getattr(value, "_enigma_fresh", None):
        # a tensor view or fragment that just declared variables: they take the name
        from .tensor import rename_fresh
        rename_fresh(value, name)
        return value
    from .dsl import Attribute
    if isinstance(value, Attribute) and value.vector:
        # the name becomes a variable holding .x, and keeps .y/.z of the attribute
        var = tr.assign(name, value, scope.get(name))
        if var is not scope.get(name):
            var.attribute = value
        return var
    from .dsl import SimdgroupMatrix
    if isinstance(value, SimdgroupMatrix):
        return _bind_matrix(tr, name, value, scope.get(name))
    if isinstance(value, trace.Value) or getattr(value, "_enigma_value", None) is not None:
        return tr.assign(name, value, scope.get(name))
    if trace._is_number(value):
        tr.note_number(name, value)
    return value


def _bind_matrix(tr, name, m, old):
    """A matrix bound to a name: a name already holding a matrix of the same type is
    assigned (so `matC = multiply_accumulate(a, b, matC)` in a loop accumulates); a fresh
    matrix takes the Python name."""
    from .dsl import SimdgroupMatrix
    if m is old:
        return m
    if isinstance(old, SimdgroupMatrix) and old.trace is tr and old.dtype is m.dtype:
        tr.emit("%s = %s;" % (old.name, m.name))
        return old
    idx = getattr(m, "hoist_index", None)
    if idx is not None:
        tr.names.discard(m.name)
        new = tr.unique(name)
        tr.hoisted[idx] = tr.hoisted[idx].replace(" %s;" % m.name, " %s;" % new, 1)
        tr.body = [(d, _rename(t, m.name, new), loc) for d, t, loc in tr.body]
        m.name = new
        m.hoist_index = None
    return m


def _rename(text, old, new):
    import re
    return re.sub(r"\b%s\b" % re.escape(old), new, text)


def bind_many(names, value, scope):
    tr = trace.current(required=False)
    if tr is None:
        return value
    values = list(value)
    if len(values) != len(names):
        return value  # Python raises the unpacking error itself
    return tuple(bind(n, v, scope) if n else v for n, v in zip(names, values))


def with_names(cm, names):
    hook = getattr(cm, "_enigma_names", None)
    return hook(names) if hook is not None else cm


def _call(fn, *args):
    return ast.Call(func=ast.Name(id=fn, ctx=ast.Load()), args=list(args), keywords=[])


def _locals():
    return _call("locals")


class _Rewriter(ast.NodeTransformer):
    def visit_Assign(self, node):
        self.generic_visit(node)
        if len(node.targets) != 1:
            return node
        target = node.targets[0]
        if isinstance(target, ast.Name):
            node.value = _call(BIND, ast.Constant(target.id), node.value, _locals())
        elif isinstance(target, (ast.Tuple, ast.List)) and all(
                isinstance(e, (ast.Name, ast.Starred)) for e in target.elts) and not any(
                isinstance(e, ast.Starred) for e in target.elts):
            names = ast.Tuple(elts=[ast.Constant(e.id) for e in target.elts], ctx=ast.Load())
            node.value = _call(BIND_MANY, names, node.value, _locals())
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        load = ast.Name(id=node.target.id, ctx=ast.Load())
        value = _call(BIND, ast.Constant(node.target.id),
                      ast.BinOp(left=load, op=node.op, right=node.value), _locals())
        new = ast.Assign(targets=[ast.Name(id=node.target.id, ctx=ast.Store())], value=value)
        return ast.copy_location(new, node)

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if node.value is not None and isinstance(node.target, ast.Name):
            node.value = _call(BIND, ast.Constant(node.target.id), node.value, _locals())
        return node

    def visit_With(self, node):
        self.generic_visit(node)
        for item in node.items:
            v = item.optional_vars
            if v is None:
                continue
            if isinstance(v, ast.Name):
                names = [v.id]
            elif isinstance(v, (ast.Tuple, ast.List)):
                names = [e.id if isinstance(e, ast.Name) else None for e in v.elts]
            else:
                continue
            item.context_expr = _call(WITH, item.context_expr, ast.Tuple(
                elts=[ast.Constant(n) for n in names], ctx=ast.Load()))
        return node


def rewrite(fn):
    """The function with assignment tracking, or None when its source is unavailable."""
    try:
        src = inspect.getsource(fn)
        filename = inspect.getsourcefile(fn) or fn.__code__.co_filename
        _, firstline = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    try:
        tree = ast.parse(textwrap.dedent(src))
    except SyntaxError:
        return None
    if not tree.body or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    fdef = tree.body[0]
    fdef.decorator_list = []
    # annotations and defaults are evaluated where the def stands, in scopes the factory
    # does not have: drop them here and take the originals' values instead
    a = fdef.args
    for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
        if arg is not None:
            arg.annotation = None
    fdef.returns = None
    a.defaults = [ast.Constant(None) for _ in a.defaults]
    a.kw_defaults = [None if d is None else ast.Constant(None) for d in a.kw_defaults]
    fdef = _Rewriter().visit(fdef)
    freevars = fn.__code__.co_freevars
    closure = fn.__closure__ or ()
    helper_args = [BIND, BIND_MANY, WITH] + list(freevars)
    factory = ast.FunctionDef(
        name="__enigma_factory__",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in helper_args],
                           vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params") or "type_params" in ast.FunctionDef._fields:
        factory.type_params = []
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    # the factory wraps the function one level deep; line numbers stay the user's
    ast.increment_lineno(module, firstline - 1)
    try:
        code = compile(module, filename, "exec")
    except (SyntaxError, ValueError):
        return None
    namespace = {}
    exec(code, fn.__globals__, namespace)
    try:
        cells = [c.cell_contents for c in closure]
    except ValueError:
        return None  # a closure variable is not bound yet
    new = namespace["__enigma_factory__"](bind, bind_many, with_names, *cells)
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    return new

"""tensor.py — tensors (seed 002): a buffer plus a layout, on the host and inside kernels.

    >>> a = np.arange(12, dtype=np.float32).reshape(3, 4)
    >>> t = enigma.make_tensor(a)                 # layout (3,4):(4,1), row-major as NumPy
    >>> t[(1, 2)], t[(1, None)].layout
    (np.float32(6.0), Layout(4:1))

A Tensor is an engine (a NumPy array or an enigma Buffer on the host; a kernel buffer
parameter inside a traced kernel), a Layout from coordinates to element offsets, and a base
offset. Indexing by a full coordinate gives an element; a coordinate with None in some modes
gives the tensor of those modes (CuTe's slicing: `t[(i, None)]` is row i's tensor).

Inside a kernel every layout is known while tracing, so all layout arithmetic happens in
Python (through the C algebra of layout.py) and only what depends on a kernel value (the
thread or threadgroup position, a loop index) becomes MSL: a slice by a symbolic index emits
one `uint` variable holding the view's offset, and each element access is that variable plus
a folded constant. `.load()` unrolls into one load per value of the view into a Fragment (a
thread-private array of MSL variables); `.store(fragment)` writes them back.

A tensor divided into tiles that do not fit its shape (tensor_zipped_divide) carries, for
each such mode, a coordinate tensor of the same layout structure: every view of the data
is taken of the coordinates too, so each value knows its coordinate as one more `uint`
variable plus a constant, and its load or store is predicated on that coordinate being
below the real extent.

A symbolic index into a mode is taken modulo the mode's size (its coordinate in each
sub-mode is (i / stride_of_index) % extent), so thread_position_in_grid selects the thread
inside its threadgroup when the threadgroup is exactly the mode's size, as seed 002 launches
it. Constant indices are checked: an index outside its mode raises TraceError (in a kernel)
or InvalidArgumentError (on the host).
"""

import numpy as np

from . import dtypes as T
from .errors import InvalidArgumentError, TraceError
from .layout import Layout, coalesce, composition, make_layout, size, zipped_divide, _text
from . import trace


def _is_symbolic(x):
    return isinstance(x, trace.Value) or getattr(x, "_enigma_value", None) is not None


def _flat(shape, stride):
    if isinstance(shape, tuple):
        out = []
        for s, d in zip(shape, stride):
            out.extend(_flat(s, d))
        return out
    return [(shape, stride)]


def _error(in_kernel, message):
    return TraceError(message) if in_kernel else InvalidArgumentError(message)


class Tensor:
    """A buffer and a layout. `Tensor` is also the annotation of @enigma.jit parameters that
    take arrays (seed 002: `mA: enigma.Tensor`)."""

    def __init__(self, engine, layout, offset=0, dtype=None, divided=False, bounds=()):
        if not isinstance(layout, Layout):
            layout = Layout(layout)
        self.engine = engine
        self.layout = layout
        self.offset = offset       # int, or (symbolic Value, int) inside a kernel
        self.divided = divided     # made by tensor_zipped_divide: mode 1 counts the tiles
        # a tensor divided into partial tiles: [(coordinate tensor, extent)], one per padded
        # mode; the coordinate tensor has this tensor's layout structure and gives each
        # element's coordinate in that mode, which must stay below the extent
        self.bounds = list(bounds)
        if dtype is None:
            dtype = engine.dtype if isinstance(engine, trace.Buffer) else T.as_dtype(engine.dtype)
        self.dtype = dtype

    # -- what it is
    @property
    def in_kernel(self):
        return isinstance(self.engine, trace.Buffer)

    @property
    def shape(self):
        return self.layout.shape

    @property
    def stride(self):
        return self.layout.stride

    def __len__(self):
        return len(self.layout)

    def __repr__(self):
        where = "kernel buffer %s" % self.engine.name if self.in_kernel else "host array"
        return "Tensor(%s of %s, %s)" % (self.layout, self.dtype.name, where)

    # -- offsets
    def _base(self):
        if isinstance(self.offset, tuple):
            return self.offset
        return (None, int(self.offset))

    def _mode_offset(self, mode, coord, where):
        """(symbolic part or None, constant part) of `coord` in layout mode `mode`."""
        if coord is None:
            raise AssertionError("slices are handled by the caller")
        if isinstance(coord, tuple):
            if not isinstance(mode.shape, tuple) or len(coord) != len(mode.shape):
                raise _error(self.in_kernel, "coordinate %r has rank %d but %s has shape %s"
                             % (coord, len(coord), where, _text(mode.shape)))
            sym, const = None, 0
            for k, c in enumerate(coord):
                s, c0 = self._mode_offset(mode[k], c, "%s, mode %d" % (where, k))
                sym = s if sym is None else (sym if s is None else sym + s)
                const += c0
            return sym, const
        if _is_symbolic(coord):
            if not self.in_kernel:
                raise InvalidArgumentError("a kernel value indexes a host tensor (%s)" % where)
            value = trace.as_value(coord)
            if not value.dtype.is_int:
                raise TraceError("a tensor coordinate must be an integer, not %s (%s)"
                                 % (value.dtype.name, where))
            return _symbolic_offset(mode, value), 0   # sym may be None
        try:
            i = int(coord)
        except (TypeError, ValueError):
            raise _error(self.in_kernel, "tensor coordinates are integers, kernel values, None "
                         "or tuples of those, not %r" % (coord,)) from None
        n = size(mode)
        if not 0 <= i < n:
            raise _error(self.in_kernel, "index %d is outside %s, which has %d elements "
                         "(layout %s)" % (i, where, n, mode))
        return None, mode(i)

    def _locate(self, coord):
        """(kept layout modes or None, offset (sym, const)) for a coordinate."""
        sym, const = self._base()
        if not isinstance(coord, tuple):
            if coord is None:
                return [self.layout], (sym, const)
            s, c = self._mode_offset(self.layout, coord, "the tensor")
            return None, (_add(sym, s), const + c)
        rank = len(self.layout)
        if len(coord) != rank:
            raise _error(self.in_kernel, "a coordinate of rank %d indexes a tensor of rank %d "
                         "(shape %s)" % (len(coord), rank, _text(self.layout.shape)))
        kept = []
        for k, c in enumerate(coord):
            if c is None:
                kept.append(self.layout[k])
                continue
            s, c0 = self._mode_offset(self.layout[k], c, "mode %d of the tensor" % k)
            sym, const = _add(sym, s), const + c0
        return (kept or None), (sym, const)

    # -- indexing
    def __getitem__(self, coord):
        kept, (sym, const) = self._locate(coord)
        if kept is not None:
            fresh = []
            view = self._slice(kept, sym, const, fresh, "view_offset")
            view.bounds = []
            for k, (ct, extent) in enumerate(self.bounds):
                ckept, (csym, cconst) = ct._locate(coord)
                view.bounds.append((ct._slice(ckept, csym, cconst, fresh, "view_coord"), extent))
            if fresh:
                _mark_fresh(view, *fresh)
            return view
        pred = self._predicate(coord)
        if self.in_kernel:
            if pred is True:
                return self.engine[_index(sym, const)]
            from .dsl import load_if
            return load_if(self.engine, _index(sym, const), pred, 0)
        if pred is not True:
            raise InvalidArgumentError("coordinate %r is in the padding of a partial tile, "
                                       "outside the tensor" % (coord,))
        return self._host_flat()[const]

    def __setitem__(self, coord, value):
        kept, (sym, const) = self._locate(coord)
        if kept is not None:
            raise _error(self.in_kernel, "assign to one element: the coordinate %r leaves "
                         "modes open (None)" % (coord,))
        pred = self._predicate(coord)
        if self.in_kernel:
            if pred is True:
                self.engine[_index(sym, const)] = value
            else:
                from .dsl import store_if
                store_if(self.engine, _index(sym, const), value, pred)
        else:
            if pred is not True:
                raise InvalidArgumentError("coordinate %r is in the padding of a partial "
                                           "tile, outside the tensor" % (coord,))
            self._host_flat()[const] = value

    def _slice(self, kept, sym, const, fresh, hint):
        layout = kept[0] if len(kept) == 1 else make_layout(*kept)
        if sym is not None and not isinstance(sym, trace.Var):
            # one variable per view: every access is then that variable plus a constant
            sym = trace.current().new_var(hint, sym)
            fresh.append(sym)
        return Tensor(self.engine, layout, self._offset_value(sym, const), self.dtype)

    def _predicate(self, coord=None, value=None):
        """True, False or a kernel bool: whether the element at `coord` (or value index
        `value` of this view) lies inside every padded mode's extent."""
        conds = []
        for ct, extent in self.bounds:
            if coord is not None:
                _, (csym, cconst) = ct._locate(coord)
            else:
                csym, cconst = ct._base()
                cconst += ct.layout(value)
            if csym is None:
                if cconst >= extent:
                    return False
                continue
            conds.append(_index(csym, cconst) < extent)
        if not conds:
            return True
        out = conds[0]
        for c in conds[1:]:
            out = out & c
        return out

    def _offset_value(self, sym, const):
        if sym is None:
            return const
        return (sym, const)

    def _host_flat(self):
        e = self.engine
        arr = e if isinstance(e, np.ndarray) else None
        if arr is None:
            raise InvalidArgumentError("this host tensor's engine (%r) cannot be read on the "
                                       "host" % (e,))
        return arr.reshape(-1)

    def shifted(self, index, stride=1):
        """The same view index * stride elements further into the buffer; `index` is an
        int or, in a kernel, a kernel value such as a loop index (a stride of 1 or 0 folds
        away)."""
        sym, const = self._base()
        if stride == 0:
            return self
        elements = index if stride == 1 else index * stride
        if _is_symbolic(elements):
            if not self.in_kernel:
                raise InvalidArgumentError("a kernel value shifts a host tensor")
            offset = (_add(sym, trace.as_value(elements)), const)
        elif sym is None:
            offset = const + int(elements)
        else:
            offset = (sym, const + int(elements))
        # the coordinates stay: a shift moves along a mode the view does not have
        return Tensor(self.engine, self.layout, offset, self.dtype, bounds=self.bounds)

    # -- fragments
    def load(self):
        """Every value of this view into a Fragment of MSL variables (kernel only), in the
        layout's (column-major) order."""
        self._need_kernel("load")
        tr = trace.current()
        sym, const = self._base()
        values, by_offset = [], {}
        from .dsl import load_if
        for v in range(size(self.layout)):
            # a view that repeats an element (a stride-0 mode) loads it once; an element in
            # the padding of a partial tile reads as 0
            off = self.layout(v)
            pred = self._predicate(value=v)
            key = (off, pred if isinstance(pred, bool) else pred.expr)
            if key not in by_offset:
                index = _index(sym, const + off)
                if pred is True:
                    value = self.engine[index]
                elif pred is False:
                    value = trace.cast(0, self.dtype)
                else:
                    value = load_if(self.engine, index, pred, 0)
                by_offset[key] = tr.new_var("frag", value, dtype=self.dtype)
            values.append(by_offset[key])
        frag = Fragment(values, Layout(self.layout.shape), self.dtype)
        _mark_fresh(frag, *by_offset.values())
        return frag

    def store(self, fragment):
        """Writes a Fragment (or a list of values) to this view, value v to element v."""
        self._need_kernel("store")
        values = list(fragment)
        n = size(self.layout)
        if len(values) != n:
            raise TraceError("store: the fragment has %d values but the tensor view has %d "
                             "(layout %s)" % (len(values), n, self.layout))
        sym, const = self._base()
        from .dsl import store_if
        for v, value in enumerate(values):
            pred = self._predicate(value=v)
            index = _index(sym, const + self.layout(v))
            if pred is True:
                self.engine[index] = value
            elif pred is not False:   # in the padding of a partial tile: not stored
                store_if(self.engine, index, value, pred)

    def _need_kernel(self, what):
        if not self.in_kernel:
            raise InvalidArgumentError("Tensor.%s moves values between memory and registers "
                                       "inside a kernel; on the host, read the array" % what)


class Fragment:
    """A thread's values (a thread-private array of MSL variables), as `Tensor.load()` makes
    them: `frag[i]` reads value i, `frag[i] = v` assigns it (so a loop can accumulate into
    it), `len(frag)` and enigma.size(frag) count them."""

    def __init__(self, values, layout, dtype):
        self.values = list(values)
        self.layout = layout
        self.dtype = dtype

    def __len__(self):
        return len(self.values)

    def __iter__(self):
        return iter(self.values)

    def _at(self, i):
        if isinstance(i, tuple):
            i = _colex_index(i, self.layout.shape)
        if _is_symbolic(i):
            raise TraceError("a fragment lives in registers: index it with Python integers "
                             "(a Python loop unrolls), not kernel values")
        i = int(i)
        if not 0 <= i < len(self.values):
            raise TraceError("index %d is outside the fragment of %d values" % (i, len(self.values)))
        return i

    def __getitem__(self, i):
        return self.values[self._at(i)]

    def __setitem__(self, i, value):
        from .dsl import assign
        i = self._at(i)
        var = self.values[i]
        if sum(v is var for v in self.values) > 1:
            # loaded once for several values (a repeated element): give value i its own
            # register, declared here; only possible where the fragment was loaded
            tr = trace.current()
            if isinstance(var, trace.Var) and tr.depth > var.depth:
                raise TraceError("value %d of this fragment shares its register with other "
                                 "values (the view repeats an element) and is assigned inside "
                                 "a block: copy the fragment first, where it was loaded" % i)
            self.values[i] = tr.new_var("frag", value, dtype=self.dtype)
            return
        assign(var, value)

    def __repr__(self):
        return "<enigma fragment of %d %s>" % (len(self.values), self.dtype.name)


def _colex_index(coord, shape):
    index, scale = 0, 1
    for c, s in zip(coord, shape):
        index += int(c) * scale
        scale *= size(s)
    return index


def _add(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _index(sym, const):
    if sym is None:
        return const
    return sym + const if const else sym


def _symbolic_offset(mode, i, wrap=True):
    """MSL for the offset of index i (a kernel value) in `mode`, modulo its size; with
    wrap=False the caller guarantees i < size(mode), and the outermost coordinate is not
    reduced (jit.py: the tile index, which launch keeps below the number of tiles; on an
    H100 that one modulo cost the layout GEMM 8%)."""
    flat = [(s, d) for s, d in _flat(*_shape_stride(coalesce(mode)))]
    outer = max([k for k, (s, _) in enumerate(flat) if s != 1], default=-1)
    total, extent = None, 1
    for k, (s, d) in enumerate(flat):
        if s != 1 and d != 0:
            c = i if extent == 1 else i / extent
            if wrap or k != outer:
                c = c % s
            term = c if d == 1 else c * d
            total = term if total is None else total + term
        extent *= s
    return total   # None: the offset does not depend on i (one element, or stride 0)


def _shape_stride(layout):
    return layout.shape, layout.stride


def _mark_fresh(obj, *variables):
    """Remembers the MSL variables an object just declared, so that binding it to a Python
    name (rewrite.bind) can give them that name."""
    obj._enigma_fresh = [v for v in variables if isinstance(v, trace.Var)]


def rename_fresh(obj, name):
    """Called by rewrite.bind: the variables `obj` declared take the Python name `name`."""
    fresh = getattr(obj, "_enigma_fresh", None)
    if not fresh:
        return
    obj._enigma_fresh = None
    tr = fresh[0].trace
    if tr is not trace.current(required=False):
        return
    from .rewrite import _rename
    renames = []
    coords = 0
    for var in fresh:
        if isinstance(obj, Fragment):   # named after the first value it holds
            hint = "%s_%d" % (name, next(i for i, v in enumerate(obj.values) if v is var))
        elif var.name.startswith("view_coord"):
            hint = "%s_coord%d" % (name, coords)
            coords += 1
        else:
            hint = "%s_off" % name
        tr.names.discard(var.name)
        new = tr.unique(hint)
        renames.append((var.name, new))
        var.name = var.expr = new
    first = len(tr.body)
    for k in range(len(tr.body) - 1, -1, -1):
        if any(old in tr.body[k][1] for old, _ in renames):
            first = k
        else:
            if first != len(tr.body):
                break
    for k in range(first, len(tr.body)):
        d, text, loc = tr.body[k]
        for old, new in renames:
            text = _rename(text, old, new)
        tr.body[k] = (d, text, loc)


# ---- making and dividing tensors ----------------------------------------------------------

def make_tensor(data, layout=None, dtype=None):
    """A host tensor over `data`: a NumPy array (its layout defaults to the array's own
    shape and strides, row-major for a C-contiguous array), an enigma Buffer (layout and
    dtype needed), or a Tensor (the same memory under another layout)."""
    if isinstance(data, Tensor):
        if data.in_kernel:
            base = data._base()
            return Tensor(data.engine, layout if layout is not None else data.layout,
                          data.offset if base[0] is not None else base[1], data.dtype)
        return make_tensor(data.engine, layout if layout is not None else data.layout,
                           dtype or data.dtype)
    if isinstance(data, np.ndarray):
        if not data.flags.c_contiguous:
            raise InvalidArgumentError("make_tensor: the array (shape %s) is not C-contiguous; "
                                       "pass np.ascontiguousarray(a)" % (data.shape,))
        if data.ndim == 0:
            raise InvalidArgumentError("make_tensor: a 0-d array has no layout; pass an array")
        if layout is None:
            strides = tuple(s // data.itemsize for s in data.strides)
            layout = Layout(data.shape if data.ndim > 1 else data.shape[0],
                            strides if data.ndim > 1 else strides[0])
        layout = layout if isinstance(layout, Layout) else Layout(layout)
        _check_fits(layout, data.size, "the array of %d elements" % data.size)
        return Tensor(data, layout, 0, T.as_dtype(dtype or data.dtype))
    from .runtime import Buffer as RuntimeBuffer
    if isinstance(data, RuntimeBuffer):
        if layout is None or dtype is None:
            raise InvalidArgumentError("make_tensor of an enigma Buffer needs layout= and dtype=")
        dt = T.as_dtype(dtype)
        layout = layout if isinstance(layout, Layout) else Layout(layout)
        _check_fits(layout, data.nbytes // dt.size, "the buffer of %d bytes" % data.nbytes)
        return Tensor(data, layout, 0, dt)
    raise InvalidArgumentError("make_tensor needs a NumPy array, an enigma Buffer or a "
                               "Tensor, not %s" % type(data).__name__)


def _check_fits(layout, n, what):
    from .layout import cosize
    lo = sum(d * (s - 1) for s, d in _flat(layout.shape, layout.stride) if d < 0)
    hi = cosize(layout)
    if lo < 0 or hi > n:
        raise InvalidArgumentError("layout %s reaches offsets up to %d, outside %s"
                                   % (layout, hi - 1, what))


def tensor_zipped_divide(tensor, tiler, partial=True):
    """The tensor under zipped_divide(layout, tiler): mode 0 is one tile, mode 1 indexes the
    tiles. A kernel that takes such a tensor sees the tile of its threadgroup (see jit.py).

    A mode that is not a multiple of its tile gets a last, partial tile: the layout is
    divided as if the mode were rounded up to whole tiles, and the tensor remembers the real
    extent, so that loads and stores of elements past it are predicated off (a load reads
    0, a store does nothing). That needs a flat mode and a tile given as an int (or a
    compact n:1 layout); partial=False refuses partial tiles instead, naming the mode."""
    if not isinstance(tensor, Tensor):
        raise InvalidArgumentError("tensor_zipped_divide needs a Tensor, not %s"
                                   % type(tensor).__name__)
    tiles = tiler if isinstance(tiler, (tuple, list)) else (tiler,)
    if isinstance(tiler, Layout):
        tiles = (tiler,)
    shape = tensor.layout.shape if isinstance(tensor.layout.shape, tuple) else \
        (tensor.layout.shape,)
    if len(tiles) > len(shape):
        raise InvalidArgumentError("tensor_zipped_divide: the tiler %s has rank %d but the "
                                   "tensor (shape %s) has rank %d"
                                   % (_tiler_str(tiler), len(tiles), _text(tensor.layout.shape),
                                      len(shape)))
    padded, bounds = list(shape), []
    for k, t in enumerate(tiles):
        extent, tile = size(shape[k]), size(t)
        if extent % tile == 0:
            continue
        why = None
        if not partial:
            why = "partial tiles are refused (partial=False)"
        elif isinstance(shape[k], tuple):
            why = "a partial tile needs a flat mode, and this one is %s" % _text(shape[k])
        elif isinstance(t, Layout) and t != Layout(tile):
            why = "a partial tile needs a tile of n:1, not %s" % t
        elif tensor.bounds:
            why = "the tensor already has partial tiles"
        if why:
            raise InvalidArgumentError(
                "tensor_zipped_divide: mode %d of the tensor has %d elements, not a multiple "
                "of the tile's %d (shape %s, tiler %s), and %s"
                % (k, extent, tile, _text(tensor.layout.shape), _tiler_str(tiler), why))
        padded[k] = -(-extent // tile) * tile
        bounds.append((k, extent))
    if not bounds:
        return Tensor(tensor.engine, zipped_divide(tensor.layout, tiler), tensor.offset,
                      tensor.dtype, divided=True,
                      bounds=[(Tensor(ct.engine, zipped_divide(ct.layout, tiler), ct.offset,
                                      ct.dtype), extent) for ct, extent in tensor.bounds])
    rank1 = not isinstance(tensor.layout.shape, tuple)
    full_shape = padded[0] if rank1 else tuple(padded)
    layout = Layout(full_shape, tensor.layout.stride)
    coords = []
    for k, extent in bounds:
        stride = 1 if rank1 else tuple(1 if j == k else 0 for j in range(len(padded)))
        coord = Tensor(tensor.engine, zipped_divide(Layout(full_shape, stride), tiler), 0,
                       tensor.dtype)
        coords.append((coord, extent))
    return Tensor(tensor.engine, zipped_divide(layout, tiler), tensor.offset, tensor.dtype,
                  divided=True, bounds=coords)


def _tiler_str(t):
    if isinstance(t, (tuple, list)):
        return "(" + ",".join(_tiler_str(e) for e in t) + ")"
    return str(t)


def tensor_composition(tensor, layout, tiler=None):
    """The tensor seen through `layout` (layout ∘ tensor's layout: CuTe's composition):
    with a thread-value layout, `tensor_composition(tile, tv, tiler)[(thread, None)]` is the
    thread's values. `tiler`, if given, must be the tile's shape (a check that the tv
    layout was made for this tile)."""
    if not isinstance(tensor, Tensor):
        raise InvalidArgumentError("tensor_composition needs a Tensor, not %s"
                                   % type(tensor).__name__)
    if tiler is not None:
        want = tuple(size(t) for t in (tiler if isinstance(tiler, (tuple, list)) else (tiler,)))
        shape = tensor.layout.shape if isinstance(tensor.layout.shape, tuple) else \
            (tensor.layout.shape,)
        have = tuple(size(s) for s in shape)
        if have != want:
            raise _error(tensor.in_kernel, "tensor_composition: the tensor's tile is %s but "
                         "the tiler is %s (pass the tile of a tensor_zipped_divide by that "
                         "tiler)" % (_text(have), _text(want)))
    if isinstance(layout, Layout) and size(layout) > size(tensor.layout):
        raise _error(tensor.in_kernel, "tensor_composition: the layout %s has %d elements, more "
                     "than the tensor's %d" % (layout, size(layout), size(tensor.layout)))
    return Tensor(tensor.engine, composition(tensor.layout, layout), tensor.offset, tensor.dtype,
                  bounds=[(Tensor(ct.engine, composition(ct.layout, layout), ct.offset, ct.dtype),
                           extent) for ct, extent in tensor.bounds])


__all__ = ["Tensor", "Fragment", "make_tensor", "tensor_zipped_divide", "tensor_composition"]

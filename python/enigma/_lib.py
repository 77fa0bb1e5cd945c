"""_lib.py — loads libenigma with ctypes and declares the C API of include/enigma.h.

Where the library comes from, first match wins:
  1. the ENIGMA_LIBRARY environment variable (a path to libenigma.so);
  2. a libenigma.so next to this package (a wheel may carry one);
  3. the repository's build folder (build/libenigma.so above python/), for a source checkout;
  4. the system's loader search path (ctypes.util.find_library("enigma")).

Every function is declared with argtypes/restype so that ctypes converts and checks
arguments. A function the loaded library does not export (an older build) is reported when
it is first called, as UnavailableError naming it, so the rest of the API keeps working.
`check(status)` raises the exception for a failed call with enigma_last_error()'s text.
"""

import ctypes
import ctypes.util
import os
import threading

from .errors import UnavailableError, error_for_status

c_size3_fields = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("backend", ctypes.c_char_p),
        ("max_threads_per_threadgroup", ctypes.c_uint32),
        ("max_threadgroup_memory", ctypes.c_uint64),
        ("simd_width", ctypes.c_uint32),
        ("compute_units", ctypes.c_uint32),
        ("memory_bytes", ctypes.c_uint64),
    ]


class CompileOptions(ctypes.Structure):
    _fields_ = [
        ("include_dirs", ctypes.POINTER(ctypes.c_char_p)),
        ("include_dir_count", ctypes.c_int),
        ("defines", ctypes.POINTER(ctypes.c_char_p)),
        ("define_count", ctypes.c_int),
        ("backend_flags", ctypes.c_char_p),
        ("checked", ctypes.c_bool),
        ("no_cache", ctypes.c_bool),
        ("function_constants", ctypes.POINTER(ctypes.c_char_p)),
        ("function_constant_count", ctypes.c_int),
    ]


class DiagnosticC(ctypes.Structure):
    _fields_ = [
        ("severity", ctypes.c_int),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_int),
        ("column", ctypes.c_int),
        ("message", ctypes.c_char_p),
    ]


class ParamInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("kind", ctypes.c_int),
        ("index", ctypes.c_int),
        ("type_name", ctypes.c_char_p),
        ("element_type", ctypes.c_char_p),
        ("element_scalar", ctypes.c_int),
        ("element_lanes", ctypes.c_int),
        ("element_size", ctypes.c_size_t),
        ("is_const", ctypes.c_bool),
        ("is_reference", ctypes.c_bool),
        ("attribute", ctypes.c_char_p),
    ]


class PipelineInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("max_total_threads_per_threadgroup", ctypes.c_uint32),
        ("thread_execution_width", ctypes.c_uint32),
        ("static_threadgroup_memory_length", ctypes.c_uint64),
        ("param_count", ctypes.c_int),
    ]


class Size3(ctypes.Structure):
    _fields_ = c_size3_fields


class CheckReport(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("kind_name", ctypes.c_char_p),
        ("file", ctypes.c_char_p),
        ("line", ctypes.c_int),
        ("column", ctypes.c_int),
        ("message", ctypes.c_char_p),
        ("count", ctypes.c_uint64),
    ]


# enum values of include/enigma.h
PARAM_BUFFER, PARAM_THREADGROUP_MEMORY, PARAM_ATTRIBUTE = 0, 1, 2
DISPATCH_THREADGROUPS, DISPATCH_THREADS = 0, 1
SEVERITY_NAMES = {0: "note", 1: "warning", 2: "error"}

_vp = ctypes.c_void_p
_pp = ctypes.POINTER(ctypes.c_void_p)
_st = ctypes.c_int  # enigma_status
_cs = ctypes.c_char_p

# name: (restype, argtypes)
PROTOTYPES = {
    "enigma_version": (_cs, []),
    "enigma_last_error": (_cs, []),
    "enigma_status_name": (_cs, [ctypes.c_int]),
    "enigma_free": (None, [_vp]),
    "enigma_device_open": (_st, [_cs, _pp]),
    "enigma_device_close": (None, [_vp]),
    "enigma_device_get_info": (_st, [_vp, ctypes.POINTER(DeviceInfo)]),
    "enigma_buffer_create": (_st, [_vp, ctypes.c_size_t, _pp]),
    "enigma_buffer_create_with_data": (_st, [_vp, _vp, ctypes.c_size_t, _pp]),
    "enigma_buffer_create_from_memory": (_st, [_vp, _vp, ctypes.c_size_t, _pp]),
    "enigma_buffer_destroy": (None, [_vp]),
    "enigma_buffer_size": (ctypes.c_size_t, [_vp]),
    "enigma_buffer_write": (_st, [_vp, ctypes.c_size_t, _vp, ctypes.c_size_t]),
    "enigma_buffer_read": (_st, [_vp, ctypes.c_size_t, _vp, ctypes.c_size_t]),
    "enigma_buffer_map": (_st, [_vp, _pp]),
    "enigma_buffer_unmap": (_st, [_vp]),
    "enigma_library_create_from_source": (
        _st, [_vp, _cs, ctypes.c_size_t, _cs, ctypes.POINTER(CompileOptions), _pp]),
    "enigma_library_create_from_file": (_st, [_vp, _cs, ctypes.POINTER(CompileOptions), _pp]),
    "enigma_library_destroy": (None, [_vp]),
    "enigma_library_diagnostic_count": (ctypes.c_int, [_vp]),
    "enigma_library_get_diagnostic": (_st, [_vp, ctypes.c_int, ctypes.POINTER(DiagnosticC)]),
    "enigma_library_diagnostics_text": (_cs, [_vp]),
    "enigma_library_kernel_count": (ctypes.c_int, [_vp]),
    "enigma_library_kernel_name": (_cs, [_vp, ctypes.c_int]),
    "enigma_library_emit": (_st, [_vp, _cs, ctypes.POINTER(ctypes.c_void_p)]),
    "enigma_pipeline_create": (_st, [_vp, _cs, _pp]),
    "enigma_pipeline_destroy": (None, [_vp]),
    "enigma_pipeline_get_info": (_st, [_vp, ctypes.POINTER(PipelineInfo)]),
    "enigma_pipeline_get_param": (_st, [_vp, ctypes.c_int, ctypes.POINTER(ParamInfo)]),
    "enigma_pipeline_find_param": (ctypes.c_int, [_vp, _cs]),
    "enigma_command_create": (_st, [_vp, _pp]),
    "enigma_command_destroy": (None, [_vp]),
    "enigma_command_set_buffer": (_st, [_vp, ctypes.c_int, _vp, ctypes.c_size_t]),
    "enigma_command_set_bytes": (_st, [_vp, ctypes.c_int, _vp, ctypes.c_size_t]),
    "enigma_command_set_buffer_by_name": (_st, [_vp, _cs, _vp, ctypes.c_size_t]),
    "enigma_command_set_bytes_by_name": (_st, [_vp, _cs, _vp, ctypes.c_size_t]),
    "enigma_command_set_threadgroup_memory": (_st, [_vp, ctypes.c_int, ctypes.c_size_t]),
    "enigma_command_dispatch": (_st, [_vp, ctypes.c_int, Size3, Size3]),
    "enigma_command_enqueue": (_st, [_vp, ctypes.c_int, Size3, Size3]),
    "enigma_command_wait": (_st, [_vp]),
    "enigma_command_last_duration_ns": (ctypes.c_uint64, [_vp]),
    "enigma_command_set_timeout": (_st, [_vp, ctypes.c_uint64]),
    # include/enigma_layout.h
    "enigma_layout_parse": (_st, [_cs, _pp]),
    "enigma_layout_text": (_vp, [_vp]),
    "enigma_layout_destroy": (None, [_vp]),
    "enigma_layout_size": (ctypes.c_int64, [_vp]),
    "enigma_layout_cosize": (ctypes.c_int64, [_vp]),
    "enigma_layout_rank": (ctypes.c_int, [_vp]),
    "enigma_layout_depth": (ctypes.c_int, [_vp]),
    "enigma_layout_offset": (_st, [_vp, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]),
    "enigma_layout_coalesce": (_st, [_vp, _pp]),
    "enigma_layout_right_inverse": (_st, [_vp, _pp]),
    "enigma_layout_left_inverse": (_st, [_vp, _pp]),
    "enigma_layout_complement": (_st, [_vp, ctypes.c_int64, _pp]),
    "enigma_layout_make_ordered": (_st, [ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_int64),
                                         ctypes.c_int, _pp]),
    "enigma_layout_make_tv": (_st, [_vp, _vp, _pp, _pp]),
    "enigma_layout_composition": (_st, [_vp, _vp, _pp]),
    "enigma_layout_logical_divide": (_st, [_vp, _vp, _pp]),
    "enigma_layout_zipped_divide": (_st, [_vp, _vp, _pp]),
    "enigma_layout_tiled_divide": (_st, [_vp, _vp, _pp]),
    "enigma_layout_logical_product": (_st, [_vp, _vp, _pp]),
    "enigma_layout_zipped_product": (_st, [_vp, _vp, _pp]),
    "enigma_layout_tiled_product": (_st, [_vp, _vp, _pp]),
    "enigma_layout_blocked_product": (_st, [_vp, _vp, _pp]),
    "enigma_layout_raked_product": (_st, [_vp, _vp, _pp]),
    "enigma_command_cancel": (_st, [_vp]),
    "enigma_command_report_count": (ctypes.c_int, [_vp]),
    "enigma_command_get_report": (_st, [_vp, ctypes.c_int, ctypes.POINTER(CheckReport)]),
    "enigma_command_reports_text": (_cs, [_vp]),
}


def _candidates():
    env = os.environ.get("ENIGMA_LIBRARY")
    if env:
        yield env, "ENIGMA_LIBRARY"
        return  # an explicit choice is never silently replaced by another library
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libenigma.so", "libenigma.dylib"):
        yield os.path.join(here, name), "next to the package"
    repo = os.path.dirname(os.path.dirname(here))
    for name in ("libenigma.so", "libenigma.dylib"):
        yield os.path.join(repo, "build", name), "the repository's build folder"
    found = ctypes.util.find_library("enigma")
    if found:
        yield found, "the system"


def find_library():
    """The path libenigma is loaded from and how it was found, or raises UnavailableError."""
    tried = []
    for path, how in _candidates():
        if how == "the system" or os.path.exists(path):
            return path, how
        tried.append("%s (%s)" % (path, how))
    raise UnavailableError(
        "libenigma not found; build it (cmake -S . -B build -G Ninja && ninja -C build) or set "
        "ENIGMA_LIBRARY to its path. Tried: " + ", ".join(tried), "ENIGMA_ERROR_UNAVAILABLE")


class Library:
    """The loaded libenigma: its functions are attributes with the C names."""

    def __init__(self, path=None):
        if path is None:
            path, self.found_by = find_library()
        else:
            self.found_by = "argument"
        self.path = path
        try:
            self._dll = ctypes.CDLL(path)
        except OSError as e:
            raise UnavailableError("libenigma could not be loaded from %s: %s" % (path, e),
                                   "ENIGMA_ERROR_UNAVAILABLE") from None
        for name, (restype, argtypes) in PROTOTYPES.items():
            try:
                fn = getattr(self._dll, name)
            except AttributeError:
                setattr(self, name, _missing(name, path))
                continue
            fn.restype = restype
            fn.argtypes = argtypes
            setattr(self, name, fn)

    def has(self, name):
        return not getattr(getattr(self, name, None), "enigma_missing", False)

    def last_error(self):
        msg = self.enigma_last_error()
        return msg.decode("utf-8", "replace") if msg else ""

    def check(self, status, **kw):
        """Raises the exception for `status` (an enigma_status) unless it is ENIGMA_OK."""
        if status != 0:
            raise error_for_status(status, self.last_error(), **kw)


def _missing(name, path):
    def call(*args):
        raise UnavailableError("%s is not available in %s (the library is older than this "
                               "package, or that part is not built yet)" % (name, path),
                               "ENIGMA_ERROR_UNAVAILABLE")
    call.enigma_missing = True
    return call


_lock = threading.Lock()
_library = None


def lib():
    """The process's libenigma, loaded on first use."""
    global _library
    with _lock:
        if _library is None:
            _library = Library()
        return _library


def decode(b):
    return b.decode("utf-8", "replace") if b is not None else None

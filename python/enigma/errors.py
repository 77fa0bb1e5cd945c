"""errors.py — the Python exceptions that carry libenigma's diagnostics.

Every C call that fails returns an enigma_status and leaves a message for the calling thread
(enigma_last_error()). `raise_for_status` turns the pair into the exception class for that
status, so callers can catch exactly what they expect (LimitError for a dispatch over a
limit, CompileError for bad source, UnavailableError for a missing backend). Every exception
is an EnigmaError; the status name is kept in `.status`.
"""


class EnigmaError(RuntimeError):
    """Base class of every error raised by the enigma package.

    `.status` is the enigma_status name ("ENIGMA_ERROR_LIMIT", ...) or None for errors that
    the Python layer found itself. `.file`, `.line`, `.column` give a source position when one
    is known (a compile diagnostic, or the kernel a dispatch ran)."""

    def __init__(self, message, status=None, file=None, line=None, column=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.file = file
        self.line = line
        self.column = column


class Diagnostic(tuple):
    """One compiler diagnostic: a (file, line, column, severity, message) tuple with names."""

    __slots__ = ()

    def __new__(cls, file, line, column, severity, message):
        return super().__new__(cls, (file, line, column, severity, message))

    file = property(lambda self: self[0])
    line = property(lambda self: self[1])
    column = property(lambda self: self[2])
    severity = property(lambda self: self[3])
    message = property(lambda self: self[4])

    def __str__(self):
        where = "%s:%d:%d: " % (self.file, self.line, self.column) if self.file else ""
        return "%s%s: %s" % (where, self.severity, self.message)


class CompileError(EnigmaError):
    """The MSL source has errors. `.diagnostics` lists Diagnostic tuples; str() is the
    rendered text ("file:line:col: error: message", the source line and a caret). For a
    traced kernel, `.source` is the generated MSL and `.python_locations` maps each
    diagnostic to the Python line that produced the MSL line (or None)."""

    def __init__(self, message, diagnostics=(), source=None, python_locations=()):
        first = next((d for d in diagnostics if d.severity == "error"), None)
        if first is None and diagnostics:
            first = diagnostics[0]
        super().__init__(message, "ENIGMA_ERROR_COMPILE",
                         first.file if first else None,
                         first.line if first else None,
                         first.column if first else None)
        self.diagnostics = list(diagnostics)
        self.source = source
        self.python_locations = list(python_locations)


class InvalidArgumentError(EnigmaError, ValueError):
    """A parameter is wrong; the message names it."""


class DispatchError(EnigmaError):
    """A dispatch could not run or failed while running."""


class LimitError(DispatchError):
    """A dispatch exceeds a device or pipeline limit; the message has the numbers."""


class KernelFaultError(DispatchError):
    """A kernel faulted, or the device failed (ENIGMA_ERROR_RUNTIME)."""


class CheckFailedError(DispatchError):
    """Checked execution found problems; `.reports` holds them."""

    def __init__(self, message, reports=(), **kw):
        super().__init__(message, "ENIGMA_ERROR_CHECK_FAILED", **kw)
        self.reports = list(reports)


class DispatchTimeoutError(DispatchError, TimeoutError):
    """A dispatch ran past its time limit and was stopped; the device stays usable."""


class CancelledError(DispatchError):
    """A dispatch was stopped by Runtime.cancel() (enigma_command_cancel)."""


class UnavailableError(EnigmaError):
    """A backend, a device, a library function or a feature is missing."""


class EnigmaIOError(EnigmaError, OSError):
    """A file could not be read or written."""


class EnigmaMemoryError(EnigmaError, MemoryError):
    """Out of memory."""


class InternalError(EnigmaError):
    """A bug in enigma; the message has the details."""


class TraceError(EnigmaError):
    """The Python kernel could not be traced into MSL (a DSL misuse); the message names the
    Python line."""


# enigma_status values, as in include/enigma.h
STATUS_NAMES = [
    "ENIGMA_OK",
    "ENIGMA_ERROR_INVALID_ARGUMENT",
    "ENIGMA_ERROR_COMPILE",
    "ENIGMA_ERROR_LIMIT",
    "ENIGMA_ERROR_UNAVAILABLE",
    "ENIGMA_ERROR_RUNTIME",
    "ENIGMA_ERROR_CHECK_FAILED",
    "ENIGMA_ERROR_IO",
    "ENIGMA_ERROR_OUT_OF_MEMORY",
    "ENIGMA_ERROR_INTERNAL",
    "ENIGMA_ERROR_TIMEOUT",
    "ENIGMA_ERROR_CANCELLED",
]

_CLASS_OF_STATUS = {
    1: InvalidArgumentError,
    2: CompileError,
    3: LimitError,
    4: UnavailableError,
    5: KernelFaultError,
    6: CheckFailedError,
    7: EnigmaIOError,
    8: EnigmaMemoryError,
    9: InternalError,
    10: DispatchTimeoutError,
    11: CancelledError,
}


def status_name(status):
    if 0 <= status < len(STATUS_NAMES):
        return STATUS_NAMES[status]
    return "ENIGMA_STATUS_%d" % status


def error_for_status(status, message, **kw):
    """The exception object for a failed call (status != 0) and its message."""
    cls = _CLASS_OF_STATUS.get(status, EnigmaError)
    if not message:
        message = "%s (no message)" % status_name(status)
    if cls is CompileError:
        return CompileError(message)
    if cls is CheckFailedError:
        return CheckFailedError(message, **kw)
    return cls(message, status_name(status), **kw)

"""The package's exceptions."""

import errno


class GtccError(Exception):
    """A failure of gtcc, the C compiler or the package (a build, a missing tool).

    ``log`` holds the build log (gtcc's and the C compiler's diagnostics) when there is one,
    ``log_path`` the file it is kept in."""

    def __init__(self, message, log=None, log_path=None):
        super().__init__(message)
        self.log = log
        self.log_path = log_path


class NoSuchFile(GtccError, FileNotFoundError):
    """gtcc.compile of a path that does not exist: a GtccError that is also Python's
    FileNotFoundError (errno ENOENT, filename the path), as open() raises."""

    def __init__(self, message, filename):
        super().__init__(message)
        self.errno = errno.ENOENT
        self.strerror = "No such file or directory"
        self.filename = filename

    def __str__(self):
        return self.args[0]

    def __reduce__(self):           # (a worker's exception, pickled to its parent)
        return NoSuchFile, (self.args[0], self.filename)


class StencilError(GtccError, ValueError):
    """A refused stencil call: ``message`` is the runtime's ``gt_last_error()`` (or the
    package's own text for what the runtime cannot see: a read-only output, a dtype the runtime
    has no type for, a device array), ``code`` the ``GT_E...`` code (negative; 0 when the
    package refused the call itself). Nothing has been written. Also a ValueError, as NumPy's
    refusal of arrays that do not fit a call is: ``except ValueError`` catches it."""

    def __init__(self, message, code=0):
        super().__init__(message)
        self.message = message
        self.code = code


class GtccWarning(UserWarning):
    """gtcc's warnings about a program that it compiled (a -D that matches no const, a
    statement that never runs, ...), issued by gtcc.compile on a build and on a cache hit
    alike; the text is gtcc's diagnostics, their source lines included."""

"""Finding gtcc, libgtrt, its headers and the C compiler; the runtime loaded through ctypes.

Overrides (environment): GTCC (the gtcc program: a path or a command on PATH), GTCC_LIBDIR
(the directory of libgtrt.so), GTCC_INCLUDEDIR (the directory holding gt/gt.h), CC (the C
compiler), NVCC (the CUDA compiler, for backend='cuda'). Defaults: gtcc on PATH; the library
and headers beside it (BIN/../lib, BIN/../include: a `make install` prefix) or beside the file
it links to, else from `pkg-config gtrt`."""

import ctypes
import hashlib
import os
import shutil
import subprocess

from ._errors import GtccError


class Toolchain:
    def __init__(self, gtcc, libdir, includedir, cc):
        self.gtcc = gtcc
        self.libdir = libdir
        self.includedir = includedir
        self.cc = cc
        self.libgtrt = os.path.join(libdir, "libgtrt.so")

    # Read for every compile, memoized by the files' identity (_stat): a gtcc, C compiler or
    # libgtrt rebuilt or replaced while the process lives (a notebook, make install again)
    # is a new key, as in a new process, not the entry of the one found first.
    @property
    def gtcc_version(self):
        return _memo(("gtcc", self.gtcc), _stat(self.gtcc), lambda: _run(
            [self.gtcc, "--version"]).strip() + " " + _file_hash(self.gtcc))

    @property
    def cc_version(self):
        words = self.cc.split()
        exe = shutil.which(words[0]) if words else None

        def version():
            out = _run(words + ["--version"])
            return out.splitlines()[0] if out else ""
        return _memo(("cc", self.cc), _stat(exe) if exe else None, version)

    @property
    def runtime_version(self):
        # the library's bytes and the headers' text: a rebuilt runtime is a new key
        h = hashlib.sha256(_file_hash(self.libgtrt).encode())
        gtdir = os.path.join(self.includedir, "gt")
        for name in sorted(os.listdir(gtdir)):
            if name.endswith(".h"):
                h.update(name.encode())
                h.update(_file_hash(os.path.join(gtdir, name)).encode())
        return h.hexdigest()


def _stat(path):
    """A file's identity and age: its device, inode, size, modification time and status
    change time (None if it is gone). The ctime, which no tool sets, tells a file rewritten in
    place with its size and mtime kept (cp -p, install -p onto the installed gtcc: the same
    inode) from the one seen before."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


_versions = {}


def _memo(what, stat, compute):
    """compute() once per what and stat (the file's _stat: a new file is computed again)."""
    v = _versions.get(what)
    if v is None or v[0] != stat or stat is None:
        v = _versions[what] = (stat, compute())
    return v[1]


def _run(cmd):
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
    except OSError as e:
        raise GtccError("gtcc: cannot run %s: %s" % (cmd[0], e)) from None
    return r.stdout


_hash_memo = {}


def _file_hash(path):
    """The SHA-256 of a file's bytes, read again where its _stat changed."""
    key = (path, _stat(path))
    if key[1] is None:
        os.stat(path)               # (its OSError, as before)
    h = _hash_memo.get(key)
    if h is None:
        with open(path, "rb") as f:
            h = hashlib.sha256(f.read()).hexdigest()
        _hash_memo[key] = h
    return h


def _pkg_config(var):
    try:
        r = subprocess.run(["pkg-config", "--variable=" + var, "gtrt"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True, timeout=60)
    except OSError:
        return None
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


_toolchain = None
_ENV = ("GTCC", "GTCC_LIBDIR", "GTCC_INCLUDEDIR", "CC", "PATH")
_toolchain_env = None


def toolchain():
    """The Toolchain found now: found again where one of the variables it is found by
    (_ENV) changed since the last call (os.environ["CC"] = "clang" in a notebook), not the
    one of the process's first compile."""
    global _toolchain, _toolchain_env
    env = tuple(os.environ.get(v) for v in _ENV)
    if _toolchain is not None and env == _toolchain_env:
        return _toolchain
    env_gtcc = os.environ.get("GTCC")
    if env_gtcc:
        # a path (build/bin/gtcc) or, as CC and NVCC, a command on PATH (gtcc-1.2): a name
        # without a slash was looked for in the current directory only, and refused with
        # "put it on PATH" where it was on PATH
        gtcc = shutil.which(env_gtcc)
        if not gtcc:
            raise GtccError("gtcc: GTCC=%s is no executable file, nor a command on PATH: set "
                            "GTCC to the gtcc program (/path/to/gtcc)" % env_gtcc)
    else:
        gtcc = shutil.which("gtcc")
        if not gtcc:
            raise GtccError("gtcc: the gtcc program was not found: put it on PATH (make "
                            "install PREFIX=DIR; PATH=DIR/bin:$PATH) or set "
                            "GTCC=/path/to/gtcc")
    gtcc = os.path.abspath(gtcc)
    # the prefix of gtcc as found, then of the file it links to (a gtcc symlinked into
    # ~/.local/bin finds the lib/ and include/ of its make install prefix)
    prefixes = [os.path.dirname(os.path.dirname(p)) for p in (gtcc, os.path.realpath(gtcc))]

    def beside(sub, probe, var):
        for prefix in prefixes:
            d = os.path.join(prefix, sub)
            if os.path.exists(os.path.join(d, probe)):
                return d
        return _pkg_config(var) or os.path.join(prefixes[0], sub)
    libdir = os.environ.get("GTCC_LIBDIR") or beside("lib", "libgtrt.so", "libdir")
    includedir = os.environ.get("GTCC_INCLUDEDIR") or \
        beside("include", os.path.join("gt", "gt.h"), "includedir")
    if not os.path.exists(os.path.join(libdir, "libgtrt.so")):
        raise GtccError("gtcc: libgtrt.so not found in %s: set GTCC_LIBDIR to the directory "
                        "that holds it (a `make install` prefix's lib/)" % libdir)
    if not os.path.exists(os.path.join(includedir, "gt", "gt.h")):
        raise GtccError("gtcc: gt/gt.h not found in %s: set GTCC_INCLUDEDIR to the directory "
                        "that holds gt/ (a `make install` prefix's include/)" % includedir)
    cc = os.environ.get("CC") or "cc"
    _toolchain = Toolchain(gtcc, os.path.abspath(libdir), os.path.abspath(includedir), cc)
    _toolchain_env = env
    return _toolchain


class gt_storage_opts(ctypes.Structure):
    # runtime/include/gt/gt_storage.h
    _fields_ = [("halo", (ctypes.c_int64 * 2) * 3),
                ("alignment", ctypes.c_int64),
                ("aligned_index", ctypes.c_int64 * 3),
                ("has_aligned_index", ctypes.c_int),
                ("layout", ctypes.c_char_p),
                ("defaults", ctypes.c_char_p),
                ("device", ctypes.c_int),
                ("managed", ctypes.c_int)]


class gt_domain(ctypes.Structure):
    # runtime/include/gt/gt_stencil.h
    _fields_ = [("size", ctypes.c_int64 * 3)]


_runtime = None
_runtime_file = None        # (path, SHA-256) of the libgtrt.so loaded


def check_runtime(tc):
    """A GtccError where the process has loaded another libgtrt.so than tc's (GTCC_LIBDIR
    changed, the library rebuilt since): a library built now would be linked with tc's but
    bound to the loaded one (the dynamic loader keeps one libgtrt.so per process)."""
    if _runtime_file is None:
        return
    path, digest = _runtime_file
    if not (os.path.exists(tc.libgtrt) and _file_hash(tc.libgtrt) == digest):
        raise GtccError("gtcc.compile: this process loaded %s, and %s is another library "
                        "(GTCC_LIBDIR changed, or libgtrt rebuilt since): a stencil built now "
                        "would run with the loaded one; compile it in a new process"
                        % (path, tc.libgtrt))


def runtime():
    """libgtrt.so, loaded once (RTLD_GLOBAL, so that the stencil libraries bind to it)."""
    global _runtime
    if _runtime is not None:
        return _runtime
    tc = toolchain()
    lib = ctypes.CDLL(tc.libgtrt, mode=ctypes.RTLD_GLOBAL)
    global _runtime_file
    _runtime_file = (tc.libgtrt, _file_hash(tc.libgtrt))
    P = ctypes.POINTER
    wrap_args = [ctypes.c_void_p, ctypes.c_int, ctypes.c_char_p, P(ctypes.c_int64),
                 P(ctypes.c_int64), P(gt_storage_opts)]
    lib.gt_wrap.argtypes = wrap_args
    lib.gt_wrap.restype = ctypes.c_void_p
    lib.gt_wrap_device.argtypes = wrap_args
    lib.gt_wrap_device.restype = ctypes.c_void_p
    lib.gt_release.argtypes = [ctypes.c_void_p]
    lib.gt_release.restype = None
    lib.gt_last_error.argtypes = []
    lib.gt_last_error.restype = ctypes.c_char_p
    lib.gt_last_error_code.argtypes = []
    lib.gt_last_error_code.restype = ctypes.c_int
    _runtime = lib
    return lib

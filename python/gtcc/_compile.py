"""gtcc.compile: a .stn program built into a shared library, cached, loaded with ctypes.

The cache key hashes the program text and every file it imports (as `gtcc -M` lists them),
gtcc's version and binary, the C compiler's version, libgtrt (library, its directory, headers), the
backend, the defines, the prefix and the C flags. The cache lives in $GTCC_CACHE_DIR, else
$XDG_CACHE_HOME/gtcc, else ~/.cache/gtcc: one directory per key, KEY[:2]/KEY, holding
gen.c, gen.h, meta.json (gtcc --emit=meta), libstencils.so, build.log, warnings.txt and
files.json (the loaded files' sizes and SHA-256, checked before a load). A build goes to a
temporary directory beside it and is renamed into place, under an exclusive fcntl.flock on
KEY[:2]/KEY.lock: two processes (or MPI ranks) compiling the same program build it once and
never see a half-written directory. A failed build's log is kept as KEY[:2]/KEY.failed.log."""

import contextlib
import ctypes
import errno
import fcntl
import glob
import hashlib
import json
import numbers
import os
import re
import shlex
import shutil
import stat
import subprocess
import tempfile
import time
import warnings

import numpy as np

from ._errors import GtccError, GtccWarning, NoSuchFile
from ._toolchain import toolchain, runtime, check_runtime, _file_hash
from ._stencil import Stencil

# of a cache entry; a change of layout or of how it is built gets a new number (2:
# warnings.txt; 3: linked with -Bsymbolic; 4: files.json)
FORMAT = 4
# the files of an entry that are loaded, whose size and SHA-256 files.json records
CHECKED = ("meta.json", "libstencils.so")
# The library's own references to its functions and data (S_steps calling S, &S_info) bind
# to its definitions, not to a symbol of that name already loaded: a stencil named like a
# C library function that gen.c does not declare (sync, time, wait, read, signal, ...) had
# S_steps call libc's (sync: silently nothing computed; read: a bare -1).
SYMBOLIC = ["-Xlinker", "-Bsymbolic"]
BACKENDS = ("naive", "openmp", "cuda")


def cache_dir():
    """The cache's root directory (not created)."""
    # a leading ~ is the home directory, as pip takes PIP_CACHE_DIR: one quoted in a job
    # script (export GTCC_CACHE_DIR="~/cache", which the shell leaves) or set from Python
    # made a directory named '~' in the current one (that `rm -rf ~` would then "clean")
    d = os.environ.get("GTCC_CACHE_DIR")
    if d:
        return os.path.abspath(os.path.expanduser(d))
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return os.path.abspath(os.path.join(os.path.expanduser(xdg), "gtcc"))


class Module:
    """What gtcc.compile returns: one attribute per stencil (its .stn name)."""

    def __init__(self, meta, lib, path, built, backend):
        self.meta = meta
        self.path = path            # the cache entry's directory
        self.built = built          # True: this call built it; False: a cache hit
        self.backend = backend
        self._lib = lib
        self.stencils = {}
        for s in meta["stencils"]:
            st = Stencil(s, lib, backend, path)
            self.stencils[s["name"]] = st
            if not hasattr(self, s["name"]):
                setattr(self, s["name"], st)

    def __repr__(self):
        return "<gtcc module %s: %s>" % (self.path, ", ".join(self.stencils))

    # pickled (multiprocessing's spawn, joblib, a closure sent to a worker): the cache entry,
    # loaded again where it is unpickled, not built again
    def __reduce__(self):
        return _load, (self.path, self.backend)


def _load(path, backend, built=False):
    """The Module of the cache entry at path (compile's, or one unpickled)."""
    if not os.path.isdir(path):
        raise GtccError("gtcc: the cache entry %s of a pickled gtcc module does not exist "
                        "here: compile the program in this process (a cache shared by the "
                        "processes has it)" % path)
    try:
        with open(os.path.join(path, "meta.json")) as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        _broken(path, built, e)
    if not built:
        try:
            _verify(path)
        except (OSError, ValueError, KeyError, TypeError) as e:
            _broken(path, built, e)
    runtime()
    # (the cuda backend's library brings libgtrt-cuda.so through its rpath)
    try:
        lib = ctypes.CDLL(os.path.join(path, "libstencils.so"))
        return Module(meta, lib, path, built, backend)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        _broken(path, built, e)


def _verify(path):
    """Raises where a file of the entry at path is not the one its build wrote (files.json:
    each one's size and SHA-256). A libstencils.so truncated after its build (a crash before
    it reached the disk, a copy cut short) killed the process in dlopen with SIGBUS, its
    segments reaching past the end of the file; changed, it would run other code."""
    with open(os.path.join(path, "files.json")) as f:
        files = json.load(f)
    for name in CHECKED:
        want = files[name]
        p = os.path.join(path, name)
        size = os.path.getsize(p)
        if size != want["size"]:
            raise ValueError("%s has %d bytes, not the %d it had when built: truncated or "
                             "changed since" % (name, size, want["size"]))
        if _file_hash(p) != want["sha256"]:
            raise ValueError("%s is not the file its build wrote (another SHA-256): changed "
                             "since" % name)


def _stencil(path, backend, name):
    """Stencil name of the cache entry at path (one unpickled)."""
    return _load(path, backend).stencils[name]


def _is_path(x):
    if isinstance(x, os.PathLike):
        return True
    # one line without '{' (no program: a stencil has a body) ending in .stn, or naming a
    # file or directory that exists (model.gt; a directory, refused by name, not compiled
    # as the program text "stencils/"): a path
    return isinstance(x, str) and "\n" not in x and "{" not in x and (
        x.endswith(".stn") or os.path.isfile(x) or os.path.isdir(x))


def _define_text(name, v):
    """A define's VALUE for gtcc -D: a bool (Python's or NumPy's) true/false, an integer its
    digits, a real number its shortest round-trip text (repr), a string as it is."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, str):
        return v
    if isinstance(v, numbers.Integral):
        return str(int(v))
    if isinstance(v, numbers.Real):
        x = float(v)
        if x != x or x in (float("inf"), float("-inf")):
            # no .stn literal says it (gtcc would refuse "-D A=nan" in the build)
            raise GtccError("gtcc.compile: defines[%r] is %r: a const takes a finite number"
                            % (name, v))
        return repr(x)
    raise GtccError("gtcc.compile: defines[%r] is %r (a %s): give a number, a bool or a "
                    "string (gtcc -D NAME=VALUE)" % (name, v, type(v).__name__))


def _options(backend, defines, prefix, include_dirs):
    opts = ["-b", backend]
    if prefix:
        opts += ["-P", prefix]
    for k in sorted(defines):
        opts += ["-D", "%s=%s" % (k, _define_text(k, defines[k]))]
    for d in include_dirs:
        opts += ["-I", os.path.abspath(d)]
    return opts


def _run(cmd, log, cwd=None, out=None, env=None):
    """cmd's exit status, its output into log (and appended to the list out); env: variables
    added to this process's environment for it."""
    log.write("".join("%s=%s " % kv for kv in (env or {}).items()) + "$ " + " ".join(cmd) + "\n")
    log.flush()
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           cwd=cwd, timeout=600, env=dict(os.environ, **env) if env else None)
    except (OSError, subprocess.TimeoutExpired) as e:
        log.write("%s\n" % e)
        return 1
    log.write(r.stdout)
    if out is not None:
        out.append(r.stdout)
    if r.returncode:
        log.write("(exit status %d)\n" % r.returncode)
    return r.returncode


def _read(path):
    """A file's bytes, None if it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def _deps(tc, stn, opts):
    """The files the program reads (itself and its imports), from gtcc -M. A program that
    gtcc -M rejects: the file alone (the build then fails with gtcc's diagnostics, its log
    kept like any failed build's)."""
    r = subprocess.run([tc.gtcc, "-M", "-MT", "deps"] + opts + [stn], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=600)
    if r.returncode or not r.stdout.startswith("deps:"):
        return [stn]
    # the rule "deps: FILE ... \<newline> FILE ...", up to the imports' empty rules
    rule = r.stdout[len("deps:"):].replace("\\\n", " ").split("\n", 1)[0]
    return _make_words(rule) or [stn]


def _make_words(text):
    """The paths of a make rule as gtcc -M writes them, GCC's escapes undone: a space or
    tab after an odd run of backslashes is in the path (with half of them, rounded down),
    '\\#' is '#', '$$' is '$'; other whitespace separates paths."""
    words, cur, i, n = [], [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            j = i
            while j < n and text[j] == "\\":
                j += 1
            k = j - i
            if j < n and text[j] in " \t":
                cur.append("\\" * (k // 2))
                if k % 2:
                    cur.append(text[j])
                    j += 1
            elif j < n and text[j] == "#":
                cur.append("\\" * (k - 1) + "#")
                j += 1
            else:
                cur.append("\\" * k)
            i = j
        elif c in " \t":
            if cur:
                words.append("".join(cur))
                cur = []
            i += 1
        else:
            cur.append(c)
            i += 2 if c == "$" and text[i + 1:i + 2] == "$" else 1
    if cur:
        words.append("".join(cur))
    return words


def compile(source_or_path, backend="openmp", defines=None, prefix=None, cflags=None,
            include_dirs=()):
    """Compile a .stn program (a path, or its text) and return a Module of its stencils."""
    if backend not in BACKENDS:
        raise GtccError("gtcc.compile: backend %r is not one of %s" % (backend,
                        ", ".join(BACKENDS)))
    try:
        defines = dict(defines or {})
    except (TypeError, ValueError):
        raise GtccError("gtcc.compile: defines %r: give a dict {NAME: value} (gtcc -D "
                        "NAME=VALUE)" % (defines,)) from None
    if prefix is not None and not isinstance(prefix, str):
        raise GtccError("gtcc.compile: prefix %r is not a string (gtcc -P PREFIX)" % (prefix,))
    if isinstance(cflags, str):     # split as a shell does ("-DNAME='a b'" is one flag)
        try:
            cflags = shlex.split(cflags)
        except ValueError as e:
            raise GtccError("gtcc.compile: cflags %r: %s (one string is split as a shell "
                            "splits it: close the quote, or give a list of strings)"
                            % (cflags, e)) from None
    elif cflags is None or (hasattr(cflags, "__iter__") and
                            all(isinstance(x, str) for x in cflags)):
        cflags = list(cflags or [])
    else:
        raise GtccError("gtcc.compile: cflags %r: give a list of strings or one string"
                        % (cflags,))
    # one directory (a str or os.PathLike) or several
    if isinstance(include_dirs, (str, bytes, os.PathLike)):
        include_dirs = [include_dirs]
    elif include_dirs is None:
        include_dirs = []
    elif not (hasattr(include_dirs, "__iter__") and all(
            isinstance(d, (str, bytes, os.PathLike)) for d in include_dirs)):
        raise GtccError("gtcc.compile: include_dirs %r: give a directory (a str or path) or a "
                        "sequence of them (gtcc -I)" % (include_dirs,))
    if not isinstance(source_or_path, (str, bytes, os.PathLike)):
        t = type(source_or_path).__name__
        raise GtccError("gtcc.compile: source_or_path is %r (%s %s): give the program's text "
                        "or a path" % (source_or_path, "an" if t[:1] in "aeiou" else "a", t))
    tc = toolchain()
    check_runtime(tc)
    root = cache_dir()
    with _writing(root):
        os.makedirs(root, exist_ok=True)

    include_dirs = [os.path.abspath(os.fsdecode(d)) for d in include_dirs]
    user_dirs = list(include_dirs)      # in the key; the imports found are keyed by path
    if _is_path(source_or_path):
        stn = os.path.abspath(os.fspath(source_or_path))
        if not os.path.exists(stn):
            raise NoSuchFile("gtcc.compile: %s: no such file" % stn, stn)
        if os.path.isdir(stn):
            raise GtccError("gtcc.compile: %s is a directory, not a .stn file" % stn)
    else:
        text = source_or_path.encode() if isinstance(source_or_path, str) else source_or_path
        srcdir = os.path.join(root, "src")
        stn = os.path.join(srcdir, "gtcc_%s.stn" % hashlib.sha256(text).hexdigest()[:20])
        # written unless it holds the text: one truncated by a crash (or another program
        # whose name has the same 20 digits) would be compiled and keyed in its place
        if _read(stn) != text:
            with _writing(root):
                os.makedirs(srcdir, exist_ok=True)
                fd, tmp = tempfile.mkstemp(dir=srcdir, suffix=".tmp")
                with os.fdopen(fd, "wb") as f:
                    f.write(text)
                _shared(tmp, srcdir, 0o666)
                os.replace(tmp, stn)
        include_dirs.append(os.getcwd())   # imports of a program given as text: from here

    opts = _options(backend, defines, prefix, include_dirs)
    h = hashlib.sha256()
    parts = {"format": FORMAT, "gtcc": tc.gtcc_version, "cc": tc.cc + " " + tc.cc_version,
             "runtime": tc.runtime_version,
             # the library's run path names it: an entry built against a directory since
             # removed cannot load libgtrt-cuda (the same bytes elsewhere are another key)
             "libdir": tc.libdir, "backend": backend, "defines": sorted(
                 (str(k), _define_text(k, v)) for k, v in defines.items()), "prefix": prefix or "",
             "cflags": cflags, "include_dirs": user_dirs}
    if backend == "cuda":
        parts["nvcc"] = _nvcc_version()
    elif any("native" in f for f in cflags):
        parts["native"] = _native_target(tc.cc, cflags)
    h.update(json.dumps(parts, sort_keys=True).encode())
    for f in _deps(tc, stn, opts):
        with open(f, "rb") as fh:
            data = fh.read()
        # the main file by content only (its text's place in the cache is no part of it)
        h.update((os.path.basename(f) if f == stn or os.path.abspath(f) == stn else
                  os.path.abspath(f)).encode() + b"\0")
        h.update(hashlib.sha256(data).digest())
    key = h.hexdigest()

    shard = os.path.join(root, key[:2])
    final = os.path.join(shard, key)
    built = False
    if not os.path.exists(os.path.join(final, "meta.json")):
        with _writing(root):
            os.makedirs(shard, exist_ok=True)
            lockf = open(os.path.join(shard, key + ".lock"), "a")
        with lockf:
            locked = _lock(lockf)
            try:
                if not os.path.exists(os.path.join(final, "meta.json")):
                    if os.path.lexists(final) and not (os.path.isdir(final) and
                                                       not os.listdir(final)):
                        # an entry without its meta.json (removed by hand, a copy cut
                        # short): broken, not built again to fail renaming onto it
                        _broken(final, False, FileNotFoundError(
                            errno.ENOENT, os.strerror(errno.ENOENT),
                            os.path.join(final, "meta.json")))
                    with _writing(root):        # (a disk that fills up meanwhile)
                        built = _build(tc, stn, opts, backend, cflags, shard, final, key)
            finally:
                if locked:
                    fcntl.flock(lockf, fcntl.LOCK_UN)
    try:
        with open(os.path.join(final, "warnings.txt")) as f:
            said = f.read()
    except OSError:
        said = ""
    if said.strip():
        warnings.warn(GtccWarning("gtcc.compile: gtcc warns about %s:\n%s"
                                  % (stn, said.rstrip("\n"))), stacklevel=2)
    return _load(final, backend, built)


def _without_libc_warnings(text):
    """gtcc's output without its warnings about a stencil named like a C library function
    (each with its quoted line and caret): they say that a shared library may bind a call of
    the stencil to the C library's, which the package's libraries, linked -Bsymbolic, do
    not."""
    out, drop = [], False
    for line in text.splitlines(keepends=True):
        if re.match(r"\S.*?:\d+:\d+: (warning|error|note): ", line):
            drop = " is a function of the C library: " in line
        if not drop:
            out.append(line)
    return "".join(out)


@contextlib.contextmanager
def _writing(root):
    """Turns an OSError of writing into the cache (a read-only file system, a directory of
    another user's) into a GtccError naming the cache and the way out; a cache filled
    elsewhere is still read where it cannot be written (a hit writes nothing)."""
    try:
        yield
    except GtccError:
        raise
    except OSError as e:
        raise GtccError("gtcc.compile: cannot write the cache %s (%s): set GTCC_CACHE_DIR to a "
                        "directory this process can write" % (root, e)) from e


def _broken(final, built, e):
    """An entry found in the cache that cannot be used (a file of it removed, truncated or
    changed since its build was renamed into place): a GtccError saying so, not the bare
    error of json or ctypes; the entry is left for the user to look at and remove. (What
    this call built itself raises as it is.)"""
    if built:
        raise e
    raise GtccError("gtcc.compile: the cache entry %s is broken (%s: %s); remove it (rm -r) "
                    "and compile again to rebuild it" % (final, type(e).__name__, e)) from None


def _shared(path, parent, bits):
    """path (made by mkstemp or mkdtemp: 0600 or 0700, for this user only) given the
    permissions of the directory it goes into, within bits (0666 for a file): what a file made
    there with open or makedirs gets from the umask. An entry 0700 could not be read by another
    user, so a cache that another user filled (docs: read, as a hit writes nothing) was a miss
    that failed to write, and a text program's source 0600 likewise. Where the file system
    does not take it (vfat, some network file systems), the path keeps its mode."""
    try:
        os.chmod(path, stat.S_IMODE(os.stat(parent).st_mode) & bits)
    except OSError:
        pass


# flock's answers on a file system that has no such locks (Lustre mounted without -o flock:
# ENOSYS; some NFS servers: ENOLCK)
_NO_FLOCK = {errno.ENOLCK, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL}


def _lock(f):
    """An exclusive flock on f: True; False where the cache's file system has no flock (a
    cluster's scratch: the compile failed there with a bare OSError, "[Errno 38] Function not
    implemented"). Without the lock processes racing may each build the entry; the first
    renamed into place is the one every one of them uses (_build)."""
    try:
        fcntl.flock(f, fcntl.LOCK_EX)
        return True
    except OSError as e:
        if e.errno in _NO_FLOCK:
            return False
        raise


_targets = {}


def _native_target(cc, cflags):
    """What cflags such as -march=native mean on this machine, for the key: the compiler
    proper's command line as the driver prints it (-###: gcc's cc1 with -march=znver3 and
    each -mavx512f, clang's -cc1 with -target-cpu), so that a cache shared by the nodes of
    a cluster (a home directory) does not give a node a library built for another's CPU
    (SIGILL). Once per process and flags."""
    k = (cc, tuple(cflags))
    if k not in _targets:
        try:
            r = subprocess.run(cc.split() + list(cflags) + ["-###", "-E", "-x", "c", os.devnull],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=60)
            lines = [ln for ln in r.stdout.splitlines() if "cc1" in ln]
            _targets[k] = "\n".join(lines) if lines else r.stdout
        except (OSError, subprocess.TimeoutExpired) as e:
            _targets[k] = str(e)  # the build says what is wrong
    return _targets[k]


def _nvcc_version():
    nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    try:
        r = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE, text=True, timeout=60)
    except OSError:
        raise GtccError("gtcc.compile: backend 'cuda' needs nvcc (not found; set NVCC)") \
            from None
    return nvcc + " " + r.stdout


def _nvcc_dirs(tc):
    """nvcc's options for the headers, the library and its run path, and the environment
    variables for the directories nvcc would cut: it splits the values of -I, -L and
    -Xlinker at commas, so a directory with one goes as CPATH, LIBRARY_PATH and LD_RUN_PATH
    (which gcc and ld read) instead."""
    dirs, env = [], {}
    for d, opts, var in ((tc.includedir, ["-I" + tc.includedir], "CPATH"),
                         (tc.libdir, ["-L" + tc.libdir], "LIBRARY_PATH"),
                         (tc.libdir, ["-Xlinker", "-rpath," + tc.libdir], "LD_RUN_PATH")):
        if "," not in d:
            dirs += opts
        else:
            old = os.environ.get(var)
            env[var] = d + (os.pathsep + old if old else "")
    return dirs, env


# a build's temporary directory: .tmp-KEY8-HOST-PID-XXXXXXXX (mkdtemp's suffix)
_TMP = re.compile(r"\.tmp-[0-9a-f]{8}-(.+)-([0-9]+)-[^-]+$")
# a temporary directory left this long is removed whoever made it (no build takes a week)
_TMP_STALE = 7 * 24 * 3600


def _host():
    return re.sub(r"[^A-Za-z0-9.]", "_", os.uname().nodename)[:64] or "host"


def _gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:             # (EPERM: another user's process)
        pass
    return False


def _sweep(root):
    """Removes the temporary directories of builds that were killed (SIGKILL, a batch job's
    time limit, a node lost): left forever, they filled the cache. Those of this host whose
    process is gone go at once; any other (another node's, or named before the host and pid
    were in the name) once it is _TMP_STALE old. What cannot be removed (another user's) is
    left."""
    host, now = _host(), time.time()
    for d in glob.glob(os.path.join(glob.escape(root), "??", ".tmp-*")):
        m = _TMP.match(os.path.basename(d))
        try:
            dead = m is not None and m.group(1) == host and _gone(int(m.group(2)))
            if not dead and now - os.lstat(d).st_mtime < _TMP_STALE:
                continue
        except (OSError, ValueError, OverflowError):
            continue
        shutil.rmtree(d, ignore_errors=True)


def _build(tc, stn, opts, backend, cflags, shard, final, key):
    """Builds the entry final in a temporary directory renamed to it: True; False where
    another process's complete entry took its place meanwhile (no flock)."""
    _sweep(os.path.dirname(shard))
    tmp = tempfile.mkdtemp(dir=shard, prefix=".tmp-%s-%s-%d-" % (key[:8], _host(), os.getpid()))
    logpath = os.path.join(tmp, "build.log")
    ok = False
    try:
        with open(logpath, "w") as log:
            src = os.path.join(tmp, "gen.cu" if backend == "cuda" else "gen.c")
            lib = os.path.join(tmp, "libstencils.so")
            said = []
            ok = (_run([tc.gtcc] + opts + ["-o", src, stn], log, out=said) == 0 and
                  _run([tc.gtcc, "--emit=meta"] + opts + ["-o", os.path.join(tmp, "meta.json"),
                        stn], log) == 0)
            if ok and backend == "cuda":
                nvcc = os.environ.get("NVCC") or shutil.which("nvcc") or \
                    "/usr/local/cuda/bin/nvcc"
                dirs, env = _nvcc_dirs(tc)
                ok = _run([nvcc, "-O2", "-shared", "-Xcompiler", "-fPIC"] + dirs + SYMBOLIC +
                          [src, "-lgtrt-cuda", "-lgtrt", "-o", lib] + cflags, log, env=env) == 0
            elif ok:
                omp = ["-fopenmp"] if backend == "openmp" else []
                # (-Xlinker: -Wl, would split a directory at its commas)
                ok = _run(tc.cc.split() + ["-O2", "-fPIC", "-shared"] + omp +
                          ["-I" + tc.includedir, src, "-L" + tc.libdir, "-Xlinker", "-rpath",
                           "-Xlinker", tc.libdir] + SYMBOLIC +
                          ["-lgtrt", "-lm", "-o", lib] + cflags, log) == 0
        if ok:
            # gtcc's warnings (its whole output where it succeeded), shown on every compile
            with open(os.path.join(tmp, "warnings.txt"), "w") as f:
                f.write(_without_libc_warnings(said[0]))
            with open(os.path.join(tmp, "files.json"), "w") as f:
                json.dump({n: {"size": os.path.getsize(os.path.join(tmp, n)),
                               "sha256": _file_hash(os.path.join(tmp, n))} for n in CHECKED},
                          f, indent=1, sort_keys=True)
            _shared(tmp, shard, 0o777)
            try:
                os.rename(tmp, final)
            except OSError as e:
                # (without flock) another process renamed its complete build there first:
                # that one, built from the same inputs
                if e.errno in (errno.ENOTEMPTY, errno.EEXIST) and \
                        os.path.exists(os.path.join(final, "meta.json")):
                    return False
                raise
            return True
        failed = os.path.join(shard, key + ".failed.log")
        shutil.copyfile(logpath, failed)
        with open(failed) as f:
            text = f.read()
        raise GtccError("gtcc.compile: building %s failed (log kept in %s):\n%s"
                        % (stn, failed, text), log=text, log_path=failed)
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp, ignore_errors=True)

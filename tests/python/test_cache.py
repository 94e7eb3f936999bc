"""The build cache: a hit, a miss on every change of the key, the XDG default, two processes
racing to build one program (built once), no temporary directory left."""
import multiprocessing
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import gtcc

SRC = "stencil cp(field<double> a, field<double> b) { b = a + K0; }\nconst double K0 = 1.0;\n"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("GTCC_CACHE_DIR", str(d))
    return d


def entries(d):
    return sorted(p.name for p in d.glob("??/*") if p.is_dir())


def test_hit_and_misses(cache, tmp_path):
    m1 = gtcc.compile(SRC)
    assert m1.built and m1.path.startswith(str(cache))
    m2 = gtcc.compile(SRC)
    assert not m2.built and m2.path == m1.path
    a = np.ones((3, 3, 3))
    b = np.zeros_like(a)
    m2.cp(a, b)
    assert (b == 2.0).all()
    paths = {m1.path}
    for kw in ({"backend": "naive"}, {"defines": {"K0": "2.0"}}, {"prefix": "p_"},
               {"cflags": ["-O1"]}):
        m = gtcc.compile(SRC, **kw)
        assert m.built and m.path not in paths, kw
        paths.add(m.path)
        assert not gtcc.compile(SRC, **kw).built
    m = gtcc.compile(SRC.replace("1.0", "3.0"))
    assert m.built and m.path not in paths
    paths.add(m.path)
    b[...] = 0
    gtcc.compile(SRC, defines={"K0": "2.0"}).cp(a, b)
    assert (b == 3.0).all()
    assert len(entries(cache)) == len(paths)
    assert not list(cache.rglob(".tmp-*"))


def test_import_change_is_a_miss(cache, tmp_path):
    lib = tmp_path / "lib.stn"
    main = tmp_path / "main.stn"
    check_import_change(lib, main, "lib.stn")


def check_import_change(lib, main, spelled):
    """main imports lib (as `spelled`): a hit, then a miss when lib changes."""
    lib.write_text("function twice(f) { return 2.0 * f; }\n")
    main.write_text('import "%s";\nstencil t(field<double> a, field<double> b) '
                    '{ b = twice(a); }\n' % spelled)
    m1 = gtcc.compile(main)
    assert m1.built and not gtcc.compile(str(main)).built
    lib.write_text("function twice(f) { return 2.0 * f + 1.0; }\n")
    m2 = gtcc.compile(main)
    assert m2.built and m2.path != m1.path
    a = np.ones((2, 2, 2))
    b = np.zeros_like(a)
    m2.t(a, b)
    assert (b == 3.0).all()


def test_paths_with_spaces_and_make_characters(cache, tmp_path):
    # gtcc -M escapes a path's spaces, '#' and '$' as make (GCC) does; split on every
    # space, "My Models/main.stn" was the file 'My\\' ('FileNotFoundError: ... My\\'),
    # a ':' cut a path of an import's rule in two
    d = tmp_path / "My Models" / "lib #1$x:y"
    d.mkdir(parents=True)
    check_import_change(d / "lib a.stn", tmp_path / "My Models" / "main 1.stn",
                        "lib #1$x:y/lib a.stn")


def probe(env):
    """compile(SRC) in a fresh interpreter with env: (built, path)."""
    code = ("import gtcc; m = gtcc.compile(%r); print(int(m.built), m.path)" % SRC)
    r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    built, path = r.stdout.split()
    return built == "1", path


def test_toolchain_changes_are_misses(cache, tmp_path):
    env = dict(os.environ)
    built, p0 = probe(env)
    assert built and probe(env) == (False, p0)
    # another gtcc binary (the same program, one byte longer): a miss
    g = tmp_path / "gtcc"
    shutil.copy(os.environ["GTCC"], g)
    with open(g, "ab") as f:
        f.write(b"\0")
    built, p1 = probe(dict(env, GTCC=str(g)))
    assert built and p1 != p0
    # another C compiler: a miss
    if shutil.which("clang"):
        built, p2 = probe(dict(env, CC="clang"))
        assert built and p2 not in (p0, p1)
    # another libgtrt (the same library, one byte longer): a miss; in a directory whose
    # name has a comma ('-Wl,-rpath,DIR' gave the linker 'x' as a file: 'cannot find x')
    libdir = tmp_path / "lib, x"
    libdir.mkdir()
    shutil.copy(os.path.join(os.environ["GTCC_LIBDIR"], "libgtrt.so"), libdir)
    with open(libdir / "libgtrt.so", "ab") as f:
        f.write(b"\0")
    built, p3 = probe(dict(env, GTCC_LIBDIR=str(libdir)))
    assert built and p3 != p0
    # the same libgtrt in another directory: a miss too, since the library's run path names
    # the directory (a cuda entry built against one since removed could not load
    # libgtrt-cuda.so: 'the cache entry ... is broken' on the second run of
    # test_cuda_backend_without_gpu with one cache)
    other = tmp_path / "lib2"
    other.mkdir()
    shutil.copy(libdir / "libgtrt.so", other)
    built, p4 = probe(dict(env, GTCC_LIBDIR=str(other)))
    assert built and p4 not in (p0, p3)
    if shutil.which("readelf"):
        rpath = subprocess.run(["readelf", "-d", os.path.join(p4, "libstencils.so")],
                               stdout=subprocess.PIPE, text=True).stdout
        assert str(other) in rpath and str(libdir) not in rpath


def test_toolchain_changes_in_one_process(cache, tmp_path, monkeypatch):
    # the same changes while the process lives (a notebook; make install again): the
    # toolchain was found once per process, so GTCC and CC set later were ignored and a
    # gtcc rebuilt in place kept its first key (a hit on the old build); a libgtrt other
    # than the one loaded is refused, since a library built now would bind to the loaded one
    m0 = gtcc.compile(SRC)
    g = tmp_path / "gtcc"
    shutil.copy(os.environ["GTCC"], g)
    monkeypatch.setenv("GTCC", str(g))
    m1 = gtcc.compile(SRC)                  # the same bytes: the same key
    assert not m1.built and m1.path == m0.path
    with open(g, "ab") as f:
        f.write(b"\0")
    m2 = gtcc.compile(SRC)
    assert m2.built and m2.path != m0.path
    cc = tmp_path / "mycc"
    cc.write_text('#!/bin/sh\n[ "$1" = --version ] && echo "mycc 1.0" && exit 0\n'
                  'exec cc "$@"\n')
    cc.chmod(0o755)
    monkeypatch.setenv("CC", str(cc))
    m3 = gtcc.compile(SRC)
    assert m3.built and m3.path not in (m0.path, m2.path)
    assert "mycc" in open(os.path.join(m3.path, "build.log")).read()
    libdir = tmp_path / "lib"
    libdir.mkdir()
    shutil.copy(os.path.join(os.environ["GTCC_LIBDIR"], "libgtrt.so"), libdir)
    monkeypatch.setenv("GTCC_LIBDIR", str(libdir))
    gtcc.compile(SRC)                       # (the same bytes as the library loaded: taken)
    with open(libdir / "libgtrt.so", "ab") as f:
        f.write(b"\0")
    with pytest.raises(gtcc.GtccError, match="this process loaded .*libgtrt.so, and %s is "
                       "another library" % os.path.join(str(libdir), "libgtrt.so")):
        gtcc.compile(SRC)
    a = np.ones((2, 2, 2))
    b = np.zeros_like(a)
    m3.cp(a, b)
    assert (b == 2.0).all()


def test_gtcc_rewritten_keeping_size_and_mtime(cache, tmp_path, monkeypatch):
    # a gtcc rewritten in place with its size and modification time kept (cp -p or install
    # -p of a build whose version string has the same length onto the installed file, which
    # keeps its inode): a new key. The process knew a file by inode, size and mtime only, so
    # it kept the old binary's hash and reused the entry the old gtcc built
    g = tmp_path / "gtcc"
    shutil.copy(os.environ["GTCC"], g)
    with open(g, "ab") as f:
        f.write(b"\0")
    monkeypatch.setenv("GTCC", str(g))
    m0 = gtcc.compile(SRC.replace("1.0", "12.0"))
    st = os.stat(g)
    with open(g, "r+b") as f:
        f.seek(-1, os.SEEK_END)
        f.write(b"\1")
    os.utime(g, ns=(st.st_atime_ns, st.st_mtime_ns))
    st2 = os.stat(g)
    assert (st2.st_ino, st2.st_size, st2.st_mtime_ns) == (st.st_ino, st.st_size, st.st_mtime_ns)
    m1 = gtcc.compile(SRC.replace("1.0", "12.0"))
    assert m1.built and m1.path != m0.path


FAKE_CC = """#!/bin/sh
# cc, but for -### it prints the target that $FAKE_CPU names, as if on another machine
for a in "$@"; do
    if [ "$a" = "-###" ]; then
        echo " /usr/lib/gcc/cc1 -E -quiet /dev/null \\"-march=$FAKE_CPU\\" -mavx" >&2
        exit 0
    fi
done
exec cc "$@"
"""


def test_native_is_the_machine(cache, tmp_path):
    # cflags=["-march=native"] keyed by the target it means here: a cache shared by
    # nodes of different CPUs (a home directory) built on one gave the other its library,
    # whose instructions it may not have (SIGILL); keyed by the text, the second node's
    # compile was a hit
    fake = tmp_path / "cc"
    fake.write_text(FAKE_CC)
    fake.chmod(0o755)
    code = ("import gtcc; m = gtcc.compile(%r, cflags=['-march=native']); "
            "print(int(m.built), m.path)" % SRC)
    seen = []
    for cpu in ("znver3", "znver3", "skylake"):
        r = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=300,
                           env=dict(os.environ, CC=str(fake), FAKE_CPU=cpu))
        assert r.returncode == 0, r.stderr
        seen.append(r.stdout.split())
    assert seen[0][0] == "1" and seen[1] == ["0", seen[0][1]]  # the same machine: a hit
    assert seen[2][0] == "1" and seen[2][1] != seen[0][1]      # another CPU: built again


def test_gtcc_a_command_on_path(cache, tmp_path, monkeypatch):
    # GTCC a command name, as CC and NVCC may be: looked for on PATH (it was looked for in the
    # current directory only, and refused with "put it on PATH" where it was on PATH); a name
    # found nowhere is named in the message
    m0 = gtcc.compile(SRC)
    d = tmp_path / "bin"
    d.mkdir()
    os.symlink(os.environ["GTCC"], d / "gtcc-dev")
    monkeypatch.setenv("PATH", "%s%s%s" % (d, os.pathsep, os.environ["PATH"]))
    monkeypatch.setenv("GTCC", "gtcc-dev")
    monkeypatch.setenv("GTCC_LIBDIR", os.environ["GTCC_LIBDIR"])
    m1 = gtcc.compile(SRC)
    assert not m1.built and m1.path == m0.path          # the same gtcc: the same key
    monkeypatch.setenv("GTCC", "gtcc-none")
    with pytest.raises(gtcc.GtccError, match=r"^gtcc: GTCC=gtcc-none is no executable file, "
                       r"nor a command on PATH: set GTCC to the gtcc program \(/path/to/gtcc\)$"):
        gtcc.compile(SRC)


def test_gtcc_symlinked(cache, tmp_path):
    # gtcc on PATH as a symbolic link to a make install prefix's bin/gtcc: the library and
    # the headers are found beside the file it links to ('libgtrt.so not found in
    # SBIN/../lib' before, unless GTCC_LIBDIR was set)
    prefix = tmp_path / "prefix"
    for sub in ("bin", "lib", "include"):
        (prefix / sub).mkdir(parents=True)
    shutil.copy(os.environ["GTCC"], prefix / "bin" / "gtcc")
    shutil.copy(os.path.join(os.environ["GTCC_LIBDIR"], "libgtrt.so"), prefix / "lib")
    shutil.copytree(os.path.join(os.environ["GTCC_INCLUDEDIR"], "gt"), prefix / "include" / "gt")
    sbin = tmp_path / "sbin"
    sbin.mkdir()
    (sbin / "gtcc").symlink_to(prefix / "bin" / "gtcc")
    env = {k: v for k, v in os.environ.items()
           if k not in ("GTCC", "GTCC_LIBDIR", "GTCC_INCLUDEDIR")}
    env["PATH"] = str(sbin) + os.pathsep + env.get("PATH", "")
    code = ("import gtcc; from gtcc._toolchain import toolchain; gtcc.compile(%r); "
            "t = toolchain(); print(t.libdir, t.includedir)" % SRC)
    r = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == [str(prefix / "lib"), str(prefix / "include")]


def test_xdg_default(tmp_path):
    env = dict(os.environ)
    env.pop("GTCC_CACHE_DIR")
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    built, path = probe(env)
    assert built and path.startswith(str(tmp_path / "xdg" / "gtcc") + os.sep)


def test_cache_dir_tilde(tmp_path, monkeypatch):
    # "~/..." as a job script's quotes leave it, or as set from Python: the home directory
    # (it was a directory named '~' in the current one)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GTCC_CACHE_DIR", "~/gtcc-cache")
    assert gtcc.cache_dir() == str(tmp_path / "home" / "gtcc-cache")
    m = gtcc.compile(SRC.replace("1.0", "31.0"))
    assert m.path.startswith(str(tmp_path / "home" / "gtcc-cache") + os.sep)
    assert not (tmp_path / "~").exists()
    monkeypatch.delenv("GTCC_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", "~/xdg")
    assert gtcc.cache_dir() == str(tmp_path / "home" / "xdg" / "gtcc")


def test_cache_not_writable(tmp_path, monkeypatch):
    # a cache that cannot be written (a read-only file system, another user's directory;
    # here a file where a directory must go, which root cannot write through either): a
    # GtccError naming the cache and GTCC_CACHE_DIR, not a bare OSError; a cache filled
    # before is still read (a hit writes nothing)
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("GTCC_CACHE_DIR", str(tmp_path / "file" / "cache"))
    with pytest.raises(gtcc.GtccError, match=r"^gtcc.compile: cannot write the cache %s "
                       r"\(.*\): set GTCC_CACHE_DIR to a directory this process can write$"
                       % (tmp_path / "file" / "cache")) as e:
        gtcc.compile(SRC.replace("1.0", "41.0"))
    assert isinstance(e.value.__cause__, OSError)
    monkeypatch.setenv("GTCC_CACHE_DIR", str(tmp_path / "c"))
    m = gtcc.compile(SRC.replace("1.0", "42.0"))
    for n in range(43, 60):          # (an entry in another shard than m's)
        src = SRC.replace("1.0", "%d.0" % n)
        m2 = gtcc.compile(src)
        if os.path.dirname(m2.path) != os.path.dirname(m.path):
            break
    shutil.rmtree(m2.path)
    shard = os.path.dirname(m2.path)
    shutil.rmtree(shard)
    with open(shard, "w"):           # the entry's shard cannot be made
        pass
    with pytest.raises(gtcc.GtccError, match="^gtcc.compile: cannot write the cache "):
        gtcc.compile(src)
    assert not gtcc.compile(SRC.replace("1.0", "42.0")).built


def racer(barrier, queue, src):
    barrier.wait()
    m = gtcc.compile(src)
    a = np.ones((2, 2, 2))
    b = np.zeros_like(a)
    m.cp(a, b)
    queue.put((m.built, m.path, float(b.sum())))


def test_two_processes_race(cache):
    src = SRC.replace("1.0", "5.0")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    queue = ctx.Queue()
    procs = [ctx.Process(target=racer, args=(barrier, queue, src)) for _ in range(2)]
    for p in procs:
        p.start()
    res = [queue.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert sorted(r[0] for r in res) == [False, True]        # built once
    assert res[0][1] == res[1][1] and res[0][2] == res[1][2] == 48.0
    assert len(entries(cache)) == 1 and not list(cache.rglob(".tmp-*"))


def test_text_from_another_directory_is_a_hit(cache, tmp_path, monkeypatch):
    m1 = gtcc.compile(SRC)
    monkeypatch.chdir(tmp_path)
    m2 = gtcc.compile(SRC)
    assert m1.built and not m2.built and m2.path == m1.path


def test_defines_python_values(cache):
    # Python values as gtcc -D takes them: True/False (Python's and NumPy's) as true/false,
    # NumPy numbers as numbers, a float exactly (repr), a string as written; a value of no
    # such kind refused before gtcc runs
    src = ("const bool B = false;\nconst int N = 1;\nconst double A = 1.0;\n"
           "stencil s(field<double> u, field<double> v) { v = A * u + N; "
           "if (B) { v = v + 100.0; } }\n")
    a = np.ones((2, 2, 2))
    for defines, want in (({"B": True}, 102.0), ({"B": np.bool_(True)}, 102.0),
                          ({"B": False, "N": np.int64(3)}, 4.0), ({"A": 1 / 3}, 1 / 3 + 1),
                          ({"A": np.float32(0.1)}, float(np.float32(0.1)) + 1),
                          ({"N": "5"}, 6.0)):
        b = np.zeros_like(a)
        gtcc.compile(src, defines=defines).s(a, b)
        assert (b == want).all(), (defines, b[0, 0, 0], want)
    # True and "true" are one define: one cache entry
    assert not gtcc.compile(src, defines={"B": "true"}).built
    for bad in (None, [1], 1j):
        with pytest.raises(gtcc.GtccError, match=r"defines\['A'\] is .*: give a number, a bool "
                                                 r"or a string"):
            gtcc.compile(src, defines={"A": bad})
    with pytest.raises(gtcc.GtccError, match="const 'N' is an int"):
        gtcc.compile(src, defines={"N": 2.5})
    # NaN and infinities: refused before gtcc runs (no build, no failed log)
    for bad in (float("nan"), np.float32("inf"), -float("inf")):
        with pytest.raises(gtcc.GtccError, match=r"defines\['A'\] is .*: a const takes a "
                                                 r"finite number"):
            gtcc.compile(src, defines={"A": bad})


def test_gtcc_warnings_shown(cache):
    # gtcc's warnings (a misspelt define, which then changes nothing) reach the Python user
    # as a GtccWarning, on the build and on a cache hit alike; a program without any: none
    src = "const double A = 1.0;\nstencil s(field<double> u, field<double> v) { v = A * u; }\n"
    for built in (True, False):
        with pytest.warns(gtcc.GtccWarning, match=r"gtcc warns about .*\n<command line>: "
                                                  r"warning: -D AA matches no const"):
            m = gtcc.compile(src, defines={"AA": 2.0})
        assert m.built == built
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gtcc.compile(src, defines={"A": 2.0})
        gtcc.compile(src, defines={"A": 2.0})


def test_compile_arguments(cache, tmp_path):
    # include_dirs: one directory as a str (not its characters) or a list; prefix and
    # cflags of the wrong type refused by name
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "lib.stn").write_text("function twice(f) { return 2.0 * f; }\n")
    src = 'import "lib.stn";\nstencil t(field<double> a, field<double> b) { b = twice(a); }\n'
    a = np.ones((2, 2, 2))
    for dirs in (str(inc), inc, [str(inc)], (inc,)):
        b = np.zeros_like(a)
        gtcc.compile(src, include_dirs=dirs).t(a, b)
        assert (b == 2.0).all(), dirs
    # a file of another suffix is a path too (not a program whose text is its name)
    other = tmp_path / "model.gt"
    other.write_text("stencil t(field<double> a, field<double> b) { b = 3.0 * a; }\n")
    b = np.zeros_like(a)
    gtcc.compile(str(other)).t(a, b)
    assert (b == 3.0).all()
    # a path that does not exist: a GtccError that is also FileNotFoundError, as open's
    missing = tmp_path / "nope" / "x.stn"
    for path in (missing, str(missing)):
        with pytest.raises(FileNotFoundError, match=r"^gtcc.compile: .*/nope/x.stn: no such "
                                                    r"file$") as e:
            gtcc.compile(path)
        assert isinstance(e.value, gtcc.GtccError) and e.value.filename == str(missing)
    import pickle                  # as a multiprocessing worker's exception is sent back
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is type(e.value) and str(again) == str(e.value)
    assert again.filename == str(missing)
    # a directory: a GtccError naming it, not a bare IsADirectoryError from reading it
    with pytest.raises(gtcc.GtccError, match=r"^gtcc.compile: .* is a directory, not a .stn "
                                              r"file$"):
        gtcc.compile(tmp_path)
    # named by a str too: it was taken for the program's text, "/tmp/...", and compiled
    # (a syntax error at its '/', nothing said of the directory)
    with pytest.raises(gtcc.GtccError, match=r"^gtcc.compile: .* is a directory, not a .stn "
                                              r"file$"):
        gtcc.compile(str(tmp_path))
    with pytest.raises(gtcc.GtccError, match=r"prefix 3 is not a string"):
        gtcc.compile(src, prefix=3, include_dirs=inc)
    with pytest.raises(gtcc.GtccError, match=r"cflags 3: give a list of strings or one string"):
        gtcc.compile(src, cflags=3, include_dirs=inc)
    # cflags as one string split as a shell splits it: a quoted define with a space is one
    # flag, the entry the list's (str.split made '-DTAG="a' and 'b"', a file cc could not find)
    m1 = gtcc.compile(src, cflags='-O1 -DTAG=\'"a b"\'', include_dirs=inc)
    m2 = gtcc.compile(src, cflags=["-O1", '-DTAG="a b"'], include_dirs=inc)
    assert not m2.built and m2.path == m1.path
    with pytest.raises(gtcc.GtccError, match=r"cflags '-DTAG=\"a': No closing quotation \(one "
                                              r"string is split as a shell splits it"):
        gtcc.compile(src, cflags='-DTAG="a', include_dirs=inc)
    # include_dirs and the source of a wrong type: a GtccError naming them, not Python's
    # bare "'int' object is not iterable" or "object supporting the buffer API required"
    for bad in (3, [inc, 3]):
        with pytest.raises(gtcc.GtccError, match=r"include_dirs .*: give a directory \(a str or "
                                                  r"path\) or a sequence of them"):
            gtcc.compile(src, include_dirs=bad)
    with pytest.raises(gtcc.GtccError, match=r"defines 3: give a dict \{NAME: value\}"):
        gtcc.compile(src, defines=3, include_dirs=inc)
    with pytest.raises(gtcc.GtccError, match=r"source_or_path is 3 \(an int\): give the "
                                              r"program's text or a path"):
        gtcc.compile(3)


def test_broken_entry_named(cache):
    # an entry whose files were truncated or removed after its build (a crash before they
    # reached the disk, a hand at work) was a bare JSONDecodeError, KeyError or ctypes's
    # OSError; now a GtccError naming the entry and what to do. Built by another process,
    # so that this one has not loaded the library (dlopen would find it loaded)
    # (an entry without meta.json was built again and the rename onto it failed: a bare
    # OSError 'Directory not empty' on every compile)
    srcs = [SRC.replace("1.0", "%d.0" % n) for n in (11, 12, 13, 14)]
    code = "import gtcc, sys\nfor s in sys.argv[1:]: print(gtcc.compile(s).path)"
    paths = subprocess.run([sys.executable, "-c", code] + srcs, check=True, text=True,
                           stdout=subprocess.PIPE).stdout.split()
    with open(os.path.join(paths[0], "meta.json"), "w") as f:
        f.write('{"stencils": [')
    with open(os.path.join(paths[1], "libstencils.so"), "w"):
        pass
    os.remove(os.path.join(paths[2], "libstencils.so"))
    os.remove(os.path.join(paths[3], "meta.json"))
    for src, path, what in zip(srcs, paths, ("JSONDecodeError", "libstencils.so has 0 bytes",
                                             "No such file", "No such file or directory: "
                                             "'%s'" % os.path.join(paths[3], "meta.json"))):
        with pytest.raises(gtcc.GtccError) as e:
            gtcc.compile(src)
        assert str(e.value).startswith("gtcc.compile: the cache entry %s is broken (" % path)
        assert what in str(e.value) and "remove it (rm -r)" in str(e.value)
    shutil.rmtree(paths[0])
    m = gtcc.compile(srcs[0])
    assert m.built


LOAD = """import sys, gtcc
try:
    gtcc.compile(sys.argv[1])
    print("LOADED")
except gtcc.GtccError as e:
    print(e)
"""


def test_library_truncated_or_changed_is_broken(cache):
    # a libstencils.so truncated after its build (a crash before it reached the disk, a copy
    # cut short) killed the process in dlopen (SIGBUS: its segments reach past the end of
    # the file), one changed would run other code: both are a broken entry, checked against
    # the size and SHA-256 its build recorded (files.json). In a child process: the crash
    # would end pytest
    srcs = [SRC.replace("1.0", "%d.0" % n) for n in (21, 22, 23)]
    code = "import gtcc, sys\nfor s in sys.argv[1:]: print(gtcc.compile(s).path)"
    paths = subprocess.run([sys.executable, "-c", code] + srcs, check=True, text=True,
                           stdout=subprocess.PIPE).stdout.split()
    lib = [os.path.join(p, "libstencils.so") for p in paths]
    size = os.path.getsize(lib[0])
    with open(lib[0], "r+b") as f:
        f.truncate(size // 2)
    with open(lib[1], "r+b") as f:            # one byte of its code, the size kept
        f.seek(size // 3)
        b = f.read(1)
        f.seek(size // 3)
        f.write(bytes([b[0] ^ 0xff]))
    os.remove(os.path.join(paths[2], "files.json"))
    for src, path, what in zip(srcs, paths, (
            "ValueError: libstencils.so has %d bytes, not the %d it had when built: truncated "
            "or changed since" % (size // 2, size),
            "ValueError: libstencils.so is not the file its build wrote (another SHA-256): "
            "changed since", "FileNotFoundError: ")):
        r = subprocess.run([sys.executable, "-c", LOAD, src], text=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        assert r.returncode == 0, (r.returncode, r.stdout)
        assert r.stdout.startswith("gtcc.compile: the cache entry %s is broken (%s"
                                   % (path, what)), r.stdout
        assert "remove it (rm -r) and compile again to rebuild it" in r.stdout
    shutil.rmtree(paths[0])
    assert gtcc.compile(srcs[0]).built


def test_truncated_text_file_rewritten(cache):
    # a program given as text is compiled from cache/src/gtcc_HASH.stn, which was written
    # only where it did not exist: one left empty by a crash was compiled and keyed in the
    # text's place, a module without stencils (gtcc's warning 'no stencil is defined')
    src = SRC.replace("1.0", "21.0")
    m = gtcc.compile(src)
    (stn,) = [p for p in (cache / "src").glob("*.stn") if p.read_text() == src]
    stn.write_text("")
    shutil.rmtree(m.path)
    m = gtcc.compile(src)
    assert m.built and stn.read_text() == src
    a = np.ones((2, 2, 2))
    b = np.zeros_like(a)
    m.cp(a, b)
    assert (b == 22.0).all()


def test_cache_without_flock(cache, monkeypatch):
    # a cache on a file system without flock (Lustre mounted without -o flock answers
    # ENOSYS): the build goes on without the lock (a bare OSError before); a process that
    # finds another's complete entry renamed into place first uses that one
    import errno
    import fcntl
    real_flock = fcntl.flock

    def no_flock(f, op):
        if op & fcntl.LOCK_EX:
            raise OSError(errno.ENOSYS, "Function not implemented")
        return real_flock(f, op)
    monkeypatch.setattr(fcntl, "flock", no_flock)
    src = SRC.replace("1.0", "6.0")
    m = gtcc.compile(src)
    a = np.ones((2, 2, 2))
    b = np.zeros_like(a)
    m.cp(a, b)
    assert m.built and (b == 7.0).all()

    # the race lost: another process's entry appears at the key while this one builds
    src = SRC.replace("1.0", "8.0")
    real_rename = os.rename
    other = []

    def rename(tmp, final):
        if os.path.basename(tmp).startswith(".tmp-"):
            shutil.copytree(tmp, final)         # the other process, first
            other.append(final)
        return real_rename(tmp, final)
    monkeypatch.setattr(os, "rename", rename)
    m = gtcc.compile(src)
    m.cp(a, b)
    assert other == [m.path] and not m.built and (b == 9.0).all()
    assert not [p for p in cache.glob("??/.tmp-*")]          # its own build removed


@pytest.mark.parametrize("umask,dmode,fmode", [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640),
                                               (0o077, 0o700, 0o600)])
def test_entries_readable_as_the_umask_says(cache, umask, dmode, fmode):
    # an entry (mkdtemp's directory renamed) and a text program's source (mkstemp's file)
    # get the permissions that the umask gives what else the cache holds: they were 0700
    # and 0600 whatever it said, so another user could not read a cache that this one
    # filled (docs: another user's cache is read) and compiled it again, failing to write
    import stat
    old = os.umask(umask)
    try:
        m = gtcc.compile(SRC.replace("1.0", "%d.0" % (100 + umask)))
    finally:
        os.umask(old)
    src = [p for p in (cache / "src").iterdir()]
    assert stat.S_IMODE(os.stat(m.path).st_mode) == dmode
    assert len(src) == 1 and stat.S_IMODE(os.stat(src[0]).st_mode) == fmode
    assert stat.S_IMODE(os.stat(os.path.join(m.path, "meta.json")).st_mode) == fmode


def test_entry_permissions_where_chmod_is_refused(cache, monkeypatch):
    # a file system that refuses chmod (vfat, some network ones): the entry keeps mkdtemp's
    # mode and is built and used all the same, not a "cannot write the cache"
    def refuse(path, mode, **kw):
        raise PermissionError(1, "Operation not permitted", path)
    monkeypatch.setattr(os, "chmod", refuse)
    m = gtcc.compile(SRC.replace("1.0", "31.0"))
    a = np.ones((2, 2, 2))
    b = np.zeros_like(a)
    m.cp(a, b)
    assert m.built and (b == 32.0).all()


def test_killed_builds_are_swept(cache):
    """A build killed (SIGKILL, a batch job's time limit) left its temporary directory in the
    cache forever. The next build removes those of this host whose process is gone, and any
    a week old; a live process's (this one's) and a recent one of another host stay."""
    import socket
    import time
    import re
    gtcc.compile(SRC)
    shard = next(p for p in cache.glob("??") if p.is_dir())
    host = re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname())[:64]
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    # a process killed in the middle of its build: a real one, SIGKILLed
    killed = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    killed.kill()
    killed.wait()
    names = {"dead": ".tmp-0123abcd-%s-%d-abc_12xy" % (host, dead.pid),
             "killed": ".tmp-0123abcd-%s-%d-zz9" % (host, killed.pid),
             "alive": ".tmp-0123abcd-%s-%d-q1" % (host, os.getpid()),
             "other": ".tmp-0123abcd-elsewhere-%d-q2" % dead.pid,
             "old_other": ".tmp-0123abcd-elsewhere-%d-q3" % dead.pid,
             "old_unnamed": ".tmp-0123abcd-k2j4"}
    for k, n in names.items():
        (shard / n).mkdir()
        (shard / n / "gen.c").write_text("x")
        if k.startswith("old"):
            t = time.time() - 8 * 24 * 3600
            os.utime(shard / n, (t, t))
    assert gtcc.compile(SRC, defines={"K0": "5.0"}).built
    left = {p.name for p in cache.rglob(".tmp-*")}
    assert left == {names["alive"], names["other"]}, left

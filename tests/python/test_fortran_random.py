"""The random programs of the differential test (tests/diff/gen.c) through the Fortran
interface (gtcc --emit=fortran, docs/fortran.md): every stencil of a program, and its
_steps where it has iterate, called from a Fortran program that gfortran builds against the
openmp backend's C, on three kinds of actual argument:

* W: whole allocatable arrays with lower bounds 1 - halo, the halos and the domain given;
* S: sections of larger arrays, stride 2 along the first dimension that is not K and a
  frame of padding along I and J (nothing may be written there);
* D: as W without domain= (the interior of the first output);
* B: as W with a halo one point wider on every side than the stencil needs (the extra ring
  must stay as it was; the steps' frame copy must stay within what the stencil needs); but
  along I and J only ("Bij") where the package refuses a read at a run-time K level
  outside the levels its storages hold, which one more level would hold.

The wrappers' dummy names are read from the module (so renamed ones are used as named).
Every result must equal the package's naive call on C-order arrays (tests/python/
test_random.py checks that against the other layouts and backends) bit for bit, the out
scalars to 1e-9 (reduction order); a call the package refuses must give the same message
from gtrt_last_error() and a non-zero rc. GTCC_F_RANDOM=A-B[,fuzz] runs seeds A to B
instead (a longer hunt)."""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from conftest import HERE, bits, random_case, random_program, random_seeds
from test_random import call, same_result

ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
FC = os.environ.get("FC", "gfortran")
CC = os.environ.get("CC", "cc")
PAD = 2
FILL = 7
KIND = {"float64": "real(c_double)", "float32": "real(c_float)",
        "int32": "integer(c_int32_t)", "bool": "logical(c_bool)"}
DEFAULT_SEEDS = [(s, False) for s in (1, 2, 5, 7, 10, 130)] + [(s, True) for s in (1, 3, 49)]


def san():
    return os.environ.get("SANFLAGS", "").split()


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout}{r.stderr}"


@pytest.fixture(scope="module")
def gtrt_mod(tmp_path_factory):
    """The runtime's module gtrt, compiled (its .mod and object) for every program here."""
    if shutil.which(FC) is None:
        pytest.fail(f"{FC} not found (Debian: gfortran; tools/deps.sh installs it)")
    d = tmp_path_factory.mktemp("gtrt")
    fsan = ["-fsanitize=address,undefined"] if san() else []
    run([FC, "-std=f2008", "-Wall", "-Wextra", "-Werror", "-fcheck=all", "-O1"] + fsan +
        ["-c", os.path.join(ROOT, "runtime", "fortran", "gtrt.f90")], str(d))
    return str(d)


def dummies(module, sub):
    """The dummy arguments of subroutine `sub` in the generated module, in order."""
    m = re.search(r"^\s*(?:recursive\s+)?subroutine %s\((.*?)\)\s*$" % re.escape(sub), module,
                  re.M | re.S | re.I)
    assert m, f"no subroutine {sub} in the generated module"
    return [a.strip() for a in m.group(1).replace("&", " ").split(",")]


def wider(kind, ax):
    """How much wider than the stencil needs kind makes the halo along axis ax."""
    return 1 if kind == "B" or (kind == "Bij" and ax != "K") else 0


def halo_literal(p, halo, kind):
    """A field's halo as the wrappers take it: (lower, upper) per axis I, J, K, each side
    as wide as kind makes it."""
    cols = {ax: (h[0] + wider(kind, ax), h[1] + wider(kind, ax))
            for ax, h in zip(p["axes"], halo)}
    vals = [v for ax in "IJK" for v in cols.get(ax, (0, 0))]
    return "reshape([%s], [2, 3])" % ", ".join(str(v) for v in vals)


def layout(p, shape, kind, halo):
    """Per dimension of a field's actual array: (its lower bound, its extent, the section
    passed in Fortran, the section as a Python slice of the array). Kind S: lower bound 1,
    padding along I and J, stride 2 along the first dimension that is not K; otherwise the
    whole array from 1 - halo (B: one point more on every side)."""
    dims = []
    first = True
    for ax, n, h in zip(p["axes"], shape, halo):
        if kind == "S" and ax != "K":
            s = 2 if first else 1
            first = False
            dims.append((1, 2 * PAD + s * (n - 1) + 1,
                         "%d:%d:%d" % (PAD + 1, PAD + 1 + s * (n - 1), s),
                         slice(PAD, PAD + s * (n - 1) + 1, s)))
        elif kind == "S":
            dims.append((1, n, ":", slice(0, n)))
        else:
            w = wider(kind, ax)
            dims.append((1 - h[0] - w, n + 2 * w, ":", slice(w, w + n)))
    return dims


def big_array(L, dims):
    """L inside an array of FILL (Fortran order) at the section of `dims`."""
    a = np.full(tuple(d[1] for d in dims), FILL, dtype=L.dtype, order="F")
    a[tuple(d[3] for d in dims)] = L
    return a


def case_source(c, st, sub, names, halos, logical, domain, kind, nsteps):
    """One block of the driver: read the inputs of case c, call, write what came out."""
    fields = [p for p in st["params"] if p["kind"] == "field"]
    decl, alloc, reads, writes, args = [], [], [], [], []
    for x, p in enumerate(st["params"]):
        v = "v%d" % x
        if p["kind"] == "field":
            L = logical[p["name"]]
            rank = ", ".join(":" for _ in p["axes"])
            decl.append("%s, allocatable, target :: %s(%s)" % (KIND[p["dtype"]], v, rank))
            dims = layout(p, L.shape, kind, halos[p["name"]])
            alloc.append("allocate (%s(%s))" % (v, ", ".join(
                "%d:%d" % (lb, lb + n - 1) for lb, n, _, _ in dims)))
            sections = [d[2] for d in dims]
            args.append(v if set(sections) == {":"} else "%s(%s)" % (v, ", ".join(sections)))
            reads.append(v)
            writes.append(v)
        else:
            decl.append("%s :: %s" % (KIND[p["dtype"]], v))
            args.append(v)
            (reads if p["intent"] == "in" else writes).append(v)
    named = list(args)
    n = len(args)
    rest = names[n:]
    if nsteps is not None:
        named.append("%s=%d" % (rest[0], nsteps))
        rest = rest[1:]
    for p, hname in zip(fields, rest[1:1 + len(fields)]):
        named.append("%s=%s" % (hname, halo_literal(p, halos[p["name"]], kind)))
    if kind != "D":
        named.append("%s=[%s]" % (rest[-2], ", ".join(str(d) for d in domain)))
    named.append("%s=rc" % rest[-1])
    lines = ["block"] + ["    " + d for d in decl] + ["    integer :: rc, u"]
    lines += ["    " + a for a in alloc]
    lines += ["    open (newunit=u, file='c%d.in', access='stream', form='unformatted', "
              "status='old', action='read')" % c]
    lines += ["    read (u) %s" % v for v in reads]
    lines += ["    close (u)",
              "    call %s(%s)" % (sub, ", &\n        ".join(named)),
              "    open (newunit=u, file='c%d.out', access='stream', form='unformatted', "
              "status='replace', action='write')" % c,
              "    write (u) rc"]
    lines += ["    write (u) %s" % v for v in writes]
    lines += ["    if (rc /= GT_OK) write (u) gtrt_last_error()", "    close (u)", "end block"]
    return "\n".join(lines)


def input_bytes(st, halos, logical, scalars, kind):
    out = []
    for p in st["params"]:
        if p["kind"] == "field":
            L = logical[p["name"]]
            a = big_array(L, layout(p, L.shape, kind, halos[p["name"]]))
            out.append(np.asfortranarray(a).tobytes(order="F"))
        elif p["intent"] == "in":
            out.append(np.array(scalars[p["name"]], dtype=p["dtype"]).tobytes())
    return b"".join(out)


def read_output(path, st, halos, logical, kind):
    """(result or "refused: message", {field: logical array}) from a case's output file;
    nothing may have been written outside the section."""
    data = open(path, "rb").read()
    rc = int(np.frombuffer(data[:4], dtype=np.int32)[0])
    pos = 4
    out, scal = {}, []
    for p in st["params"]:
        if p["kind"] == "field":
            L = logical[p["name"]]
            dims = layout(p, L.shape, kind, halos[p["name"]])
            shape = tuple(d[1] for d in dims)
            size = int(np.prod(shape)) * L.dtype.itemsize
            a = np.frombuffer(data[pos:pos + size], dtype=L.dtype).reshape(shape, order="F")
            pos += size
            inner = tuple(d[3] for d in dims)
            rest = a.copy()
            rest[inner] = FILL
            assert np.all(rest == np.array(FILL).astype(a.dtype)), \
                f"{st['name']}: field '{p['name']}' written outside its section"
            out[p["name"]] = np.array(a[inner])
        elif p["intent"] == "out":
            size = np.dtype(p["dtype"]).itemsize
            scal.append(np.frombuffer(data[pos:pos + size], dtype=p["dtype"])[0].item())
            pos += size
    if rc != 0:
        return "refused: " + data[pos:].decode(), out
    return (None if not scal else scal[0] if len(scal) == 1 else tuple(scal)), out


@pytest.mark.parametrize("seed,fuzz", random_seeds("GTCC_F_RANDOM", DEFAULT_SEEDS))
def test_fortran_random_program(gen, gtrt_mod, tmp_path, seed, fuzz):
    src, mods = random_program(gen, seed, fuzz, ("naive",))
    d = str(tmp_path)
    with open(os.path.join(d, "prog.stn"), "w") as f:
        f.write(src)
    gtcc = os.environ["GTCC"]
    run([gtcc, "--emit=fortran", "-o", "prog_gt.f90", "prog.stn"], d)
    run([gtcc, "-b", "openmp", "-o", "prog.c", "prog.stn"], d)
    module = open(os.path.join(d, "prog_gt.f90")).read()
    cases, blocks = [], []
    for st in mods["naive"].meta["stencils"]:
        domain, halos, logical, scalars = random_case(st, seed)
        for nsteps in [None] + ([3] if st.get("steps") else []):
            sub = st["name"].lower() + ("" if nsteps is None else "_steps")
            names = dummies(module, sub)
            ref = call(mods["naive"], st, halos, logical, scalars, domain, "C", nsteps)
            kdyn = type(ref[0]) is str and "outside the levels" in ref[0]
            for kind in ("W", "S", "D", "Bij" if kdyn else "B"):
                c = len(cases)
                with open(os.path.join(d, "c%d.in" % c), "wb") as f:
                    f.write(input_bytes(st, halos, logical, scalars, kind))
                blocks.append(case_source(c, st, sub, names, halos, logical, domain, kind,
                                          nsteps))
                what = f"seed {seed}{' --fuzz' if fuzz else ''}, {sub} on {domain}, {kind}"
                cases.append((c, st, halos, logical, kind, ref, what))
    with open(os.path.join(d, "drv.f90"), "w") as f:
        f.write("program drv\n    use iso_c_binding\n    use gtrt\n    use prog_gt\n"
                "    implicit none\n%s\nend program drv\n" % "\n".join(blocks))
    fsan = ["-fsanitize=address,undefined"] if san() else []
    fflags = ["-std=f2008", "-fcheck=all", "-O1", "-g", "-I", gtrt_mod] + fsan
    run([FC] + fflags + ["-Wall", "-Wextra", "-Werror", "-c", "prog_gt.f90"], d)
    run([FC] + fflags + ["-c", "drv.f90"], d)
    run([CC, "-std=c11", "-O2", "-fopenmp", "-I", os.environ["GTCC_INCLUDEDIR"]] + san() +
        ["-c", "prog.c"], d)
    run([FC, "-fopenmp"] + fsan + ["-o", "drv", "drv.o", "prog_gt.o",
        os.path.join(gtrt_mod, "gtrt.o"), "prog.o",
        os.path.join(os.environ["GTCC_LIBDIR"], "libgtrt.a"), "-lm"], d)
    r = subprocess.run(["./drv"], cwd=d, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, f"seed {seed}: the driver exited {r.returncode}\n{r.stderr}"
    for c, st, halos, logical, kind, (ref_res, ref_out), what in cases:
        res, out = read_output(os.path.join(d, "c%d.out" % c), st, halos, logical, kind)
        assert same_result(ref_res, res), f"{what}: {res!r}, the package's naive {ref_res!r}"
        for field, a in out.items():
            assert np.array_equal(bits(ref_out[field]), bits(a)), \
                f"{what}: field '{field}' differs from the package's naive call"

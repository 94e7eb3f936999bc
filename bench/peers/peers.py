"""peers.py: gtcc against Devito and GT4Py on the same machine, alternated in one run
(make bench-peers; bench/peers/run.sh sets it up).

Each contestant runs in a process of its own, started once, that times one measurement a
command (several calls back to back, then the time per call): gtcc_worker (C), a Devito
worker and a GT4Py worker (this file with --worker). Every round asks the gtcc worker for an
OpenMP copy's bandwidth first, then each probe of each contestant in turn, with a pause
between measurements so that one process's OpenMP threads have stopped spinning before the
next runs. The table gives medians over the rounds: ms per call, % of that round's copy
(compulsory bytes: every field read once, every output written once) and the ratio
peer time / gtcc time (above 1: gtcc is faster).

    python3 peers.py ROUNDS LABEL=WORKER...   (WORKER: a gtcc_worker binary, LABEL its name in
                                              the table: one per C compiler)
"""
import os
import subprocess
import sys
import time

# probe: (label, compulsory bytes per call, peer, gtcc target ratio)
PROBES = {
    "hdiff": ("hdiff f64 256x256x64", 256 * 256 * 64 * 8 * 3, "gt4py", 1.3),
    "lap7": ("3-D 7-point f32 384^3", 384 ** 3 * 4 * 2, "devito", 1.15),
    "lap5": ("2-D 5-point f32 8192^2", 8192 ** 2 * 4 * 2, "devito", 1.3),
    # the same time loops with S_steps (iterate; the openmp backend tiles time), against
    # Devito's same operator, which does not tile time: issue 24's goals for S_steps over
    # one step at a time (2.0x for 2-D, 1.3x for 3-D), here over Devito's steps
    "lap7s": ("3-D 7-point 384^3 steps", 384 ** 3 * 4 * 2, "devito", 1.3),
    "lap5s": ("2-D 5-point 8192^2 steps", 8192 ** 2 * 4 * 2, "devito", 2.0),
}


# ------------------------------------------------------------------------ workers
def devito_worker():
    os.environ.setdefault("DEVITO_LANGUAGE", "openmp")
    os.environ.setdefault("DEVITO_LOGGING", "ERROR")
    # Devito's default compiler ("custom", Devito 4.8) compiles its OpenMP operators without
    # -fopenmp: the pragmas are ignored and the operator runs on one thread (it linked with
    # -fopenmp all the same); its GNU compiler class builds them parallel
    os.environ.setdefault("DEVITO_ARCH", "gcc")
    import numpy as np
    from devito import Eq, Grid, Operator, TimeFunction

    ops = {}
    for name, shape, steps in (("lap7", (384, 384, 384), 16), ("lap5", (8192, 8192), 64)):
        grid = Grid(shape=shape, dtype=np.float32)
        u = TimeFunction(name="u", grid=grid, space_order=2, time_order=1)
        rng = np.random.default_rng(1)
        u.data[:] = (0.5 + 0.5 * rng.random(u.data.shape[1:])).astype(np.float32)
        op = Operator([Eq(u.forward, u + 0.1 * u.laplace)])
        op.apply(time_M=1)
        check_parallel(op)
        ops[name] = ops[name + "s"] = (op, steps)
    serve(lambda name: run_devito(*ops[name]))


def check_parallel(op):
    """Stops the worker unless the operator's library starts OpenMP threads (calls
    GOMP_parallel or __kmpc_fork_call): a serial peer would make the table a lie."""
    path = getattr(getattr(op, "_lib", None), "_name", None)
    try:
        with open(path, "rb") as f:
            lib = f.read()
    except (TypeError, OSError) as e:
        sys.exit("bench-peers: cannot read Devito's operator library (%s)" % e)
    if b"GOMP_parallel" not in lib and b"__kmpc_fork_call" not in lib:
        sys.exit("bench-peers: Devito compiled its operator without OpenMP (%s starts no "
                 "threads; DEVITO_ARCH=%s): it would run on one thread"
                 % (path, os.environ.get("DEVITO_ARCH")))


def run_devito(op, steps):
    t0 = time.perf_counter()
    op.apply(time_M=steps - 1)
    return (time.perf_counter() - t0) / steps


def gt4py_worker():
    import numpy as np
    import gt4py.cartesian.gtscript as gtscript
    import gt4py.storage as gs
    from gt4py.cartesian.gtscript import PARALLEL, computation, interval

    backend = os.environ.get("PEERS_GT4PY_BACKEND", "gt:cpu_ifirst")

    @gtscript.function
    def lap(f):
        return 4.0 * f[0, 0, 0] - (f[-1, 0, 0] + f[1, 0, 0] + f[0, -1, 0] + f[0, 1, 0])

    @gtscript.stencil(backend=backend)
    def hdiff(u: gtscript.Field[np.float64], coeff: gtscript.Field[np.float64],
              out_u: gtscript.Field[np.float64]):
        with computation(PARALLEL), interval(...):
            lp = lap(u)
            flx = lp[1, 0, 0] - lp[0, 0, 0]
            flx = 0.0 if flx * (u[1, 0, 0] - u[0, 0, 0]) > 0.0 else flx
            fly = lp[0, 1, 0] - lp[0, 0, 0]
            fly = 0.0 if fly * (u[0, 1, 0] - u[0, 0, 0]) > 0.0 else fly
            out_u = u - coeff * (flx - flx[-1, 0, 0] + fly - fly[0, -1, 0])

    n, h = (256, 256, 64), 2
    shape = (n[0] + 2 * h, n[1] + 2 * h, n[2])
    rng = np.random.default_rng(1)
    u = gs.from_array(0.5 + 0.5 * rng.random(shape), backend=backend, aligned_index=(h, h, 0))
    c = gs.from_array(0.5 + 0.5 * rng.random(shape), backend=backend, aligned_index=(h, h, 0))
    o = gs.zeros(shape, np.float64, backend=backend, aligned_index=(h, h, 0))

    def run(name):
        t0 = time.perf_counter()
        for _ in range(8):
            hdiff(u, c, o, origin=(h, h, 0), domain=n)
        return (time.perf_counter() - t0) / 8

    run("hdiff")
    serve(run)


def serve(run):
    print("ready", flush=True)
    for line in sys.stdin:
        name = line.strip()
        if name == "quit":
            break
        print("%.9g" % run(name), flush=True)


# ------------------------------------------------------------------------- driver
class Worker:
    def __init__(self, label, argv):
        self.label = label
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True)

    def wait_ready(self):
        line = self.p.stdout.readline()
        if line.strip() != "ready":
            sys.exit("bench-peers: the %s worker failed to start" % self.label)

    def ask(self, cmd):
        self.p.stdin.write(cmd + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            sys.exit("bench-peers: the %s worker died on '%s'" % (self.label, cmd))
        return float(line)

    def close(self):
        try:
            self.p.stdin.write("quit\n")
            self.p.stdin.close()
        except OSError:
            pass
        self.p.wait()


def median(xs):
    s = sorted(xs)
    return s[len(s) // 2]


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--worker":
        {"devito": devito_worker, "gt4py": gt4py_worker}[sys.argv[2]]()
        return
    if len(sys.argv) < 3 or any("=" not in a for a in sys.argv[2:]):
        sys.exit("usage: peers.py ROUNDS LABEL=GTCC_WORKER...")
    rounds = int(sys.argv[1])
    me = [sys.executable, os.path.abspath(__file__), "--worker"]
    print("bench-peers: starting the workers (Devito and GT4Py compile their stencils)",
          flush=True)
    peers = {"devito": Worker("devito", me + ["devito"]), "gt4py": Worker("gt4py", me + ["gt4py"])}
    for w in peers.values():
        w.wait_ready()
    gtccs = []
    for e in sys.argv[2:]:
        label, binary = e.split("=", 1)
        gtccs.append((label, Worker(label, [binary])))
    for _, w in gtccs:
        w.wait_ready()
    times = {}
    copies = []
    for r in range(rounds):
        copies.append(gtccs[0][1].ask("copy"))
        for probe, (_, _, peer, _) in PROBES.items():
            for label, w in gtccs + [(peer, peers[peer])]:
                time.sleep(0.3)
                times.setdefault((probe, label), []).append((w.ask(probe), copies[-1]))
    for w in list(peers.values()) + [w for _, w in gtccs]:
        w.close()

    def row(probe, label):
        ts = times[(probe, label)]
        nbytes = PROBES[probe][1]
        return (median([t for t, _ in ts]) * 1e3,
                100 * median([nbytes / t / c for t, c in ts]))

    print("\ncopy: %.1f GB/s (median over %d rounds, 2^26 doubles, OpenMP, 16 bytes an element)"
          % (median(copies) / 1e9, rounds))
    print("%-24s %-11s %10s %8s %10s  %s" % ("probe", "who", "ms/call", "%copy", "peer/gtcc",
                                               "target"))
    for probe, (title, _, peer, target) in PROBES.items():
        for label, _ in gtccs + [(peer, None)]:
            ms, pc = row(probe, label)
            ratio = ""
            if label != peer:
                ratios = [tp / tg for (tg, _), (tp, _) in
                          zip(times[(probe, label)], times[(probe, peer)])]
                ratio = "%.2f" % median(ratios)
                verdict = "met" if median(ratios) >= target else "NOT met"
            print("%-24s %-11s %10.3f %7.1f%% %10s  %s" % (
                title, label, ms, pc, ratio,
                (">=%.2f %s" % (target, verdict)) if ratio else ""))


if __name__ == "__main__":
    main()

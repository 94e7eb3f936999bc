/* check_mpi_misuse.c: every refusal of every collective function of libgtrt-mpi under
 * mpirun (tests/mpi/run.sh runs it on 1 to 4 processes): gt_mpi_decompose, gt_mpi_empty
 * and gt_mpi_zeros, gt_halo_exchange (blocking, and begin/end), gt_mpi_call.
 *
 * Each case makes one call on every rank, with bad arguments on every rank or on one, or
 * with arguments that differ between ranks (the agreement rule of docs/mpi.md), and checks
 * on every rank: the same code, a message naming the problem and the rank (for arguments
 * that differ, what differs and the two ranks, with their values), and nothing written:
 * every storage the call was given (halo, interior and the padding between) is filled
 * with a byte pattern first and compared byte for byte afterwards, and out scalars keep
 * their sentinel. Refusals found only after the stencil ran (out scalars that differ)
 * check the code and the message. A few cases check what the rule allows (NULL dims on
 * one rank and zeros on another; NULL widths on one rank and the halos on another;
 * explicit widths on an output of a distributed call, blocking and overlapped).
 *
 * A hang is a failure, not a stuck test: every case runs under a watchdog (SIGALRM, 60 s,
 * or $MISUSE_WATCHDOG) that prints "HANG misuse N: name" and ends the process, and
 * tests/mpi/run.sh then reruns the program from the case after it (argument: the first
 * case to run). Rank 0 prints "BEGIN N name" before case N, then "PASS misuse N: name
 * (np P)" or "FAIL misuse N: name (np P): why", and "DONE" at the end; the exit status is
 * the number of failures. */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* misuse_twin.stn's twin, built under the name twin_int; included before <gt/gt_mpi.h>, so
   that its header declares no distributed entry (twin_mpi is misuse.h's) */
#define twin twin_int
#define twin_info twin_int_info
#include "misuse_twin.h"
#undef twin
#undef twin_info

#include <gt/gt_mpi.h>

#include "rt.h"   /* gt__set_allocator: out of memory on one rank; gt__set_device_ops */

#include "misuse.h"

static int rank, nproc, last, failures, number, first;
static unsigned watchdog = 60;
static char current[240];

/* ---- cases, the watchdog ------------------------------------------------------------------ */

static void on_alarm(int sig)
{
    (void)sig;
    char line[400];
    int len = snprintf(line, sizeof line, "HANG misuse %d: %s (np %d): rank %d had no answer "
                       "in %u s\n", number, current, nproc, rank, watchdog);
    if (write(STDOUT_FILENO, line, (size_t)len) < 0)
        _exit(4);
    _exit(3);
}

/* Starts the next case (false: it comes before the first case asked for, skip it). */
static bool begin_case(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(current, sizeof current, fmt, ap);
    va_end(ap);
    if (++number < first)
        return false;
    if (rank == 0) {
        printf("BEGIN %d %s\n", number, current);
        fflush(stdout);
    }
    alarm(watchdog);
    return true;
}

/* Ends the case: it passes when ok on every rank; the reason of the lowest failing rank. */
static void end_case(bool ok, char *why, size_t len)
{
    int mine = ok, all = 0, bad = ok ? nproc : rank, lowest = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&bad, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all && lowest != 0 && lowest < nproc) {
        if (rank == lowest)
            MPI_Send(why, (int)len, MPI_CHAR, 0, 7, MPI_COMM_WORLD);
        if (rank == 0)
            MPI_Recv(why, (int)len, MPI_CHAR, lowest, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    alarm(0);
    if (rank == 0) {
        if (all)
            printf("PASS misuse %d: %s (np %d)\n", number, current, nproc);
        else
            printf("FAIL misuse %d: %s (np %d): rank %d: %s\n", number, current, nproc, lowest,
                   why);
        fflush(stdout);
    }
    failures += !all;
}

/* The outcome of a refused call: code on every rank and a message that holds each of the
   (up to two) texts given; the first problem into why. */
static void expect_refusal(char *why, size_t len, int rc, int code, const char *text1,
                           const char *text2)
{
    const char *msg = gt_last_error();
    if (why[0])
        return;
    if (rc != code)
        snprintf(why, len, "status %d, want %d (message \"%s\")", rc, code, msg);
    else if (text1 && !strstr(msg, text1))
        snprintf(why, len, "message \"%s\" lacks \"%s\"", msg, text1);
    else if (text2 && !strstr(msg, text2))
        snprintf(why, len, "message \"%s\" lacks \"%s\"", msg, text2);
}

/* ---- storages filled with a byte pattern, compared byte for byte ------------------------- */

/* The bytes from element (0,0,0) to the last element: halo, interior and padding. */
static size_t span(gt_storage *s)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    int64_t end = 0;
    for (int x = 0; x < gt_ndim(s); x++)
        end += (shape[x] - 1) * st[x];
    return (size_t)(end + 1) * gt_dtype_size(gt_dtype_of(s));
}

typedef struct {
    gt_storage *s;
    unsigned char *copy;
} Snap;

/* Fills s with the byte pattern and keeps a copy. */
static Snap sentinel(gt_storage *s, unsigned char pattern)
{
    Snap sn = {s, NULL};
    if (!s)
        return sn;
    size_t n = span(s);
    memset(gt_host(s, GT_WRITE), pattern, n);
    sn.copy = malloc(n);
    memcpy(sn.copy, gt_host(s, GT_READ), n);
    return sn;
}

/* Compares s with its copy (and frees the copy): the differing bytes into why. */
static void untouched(Snap *sn, const char *what, char *why, size_t len)
{
    if (!sn->s)
        return;
    size_t n = span(sn->s), differ = 0, at = 0;
    const unsigned char *p = gt_host(sn->s, GT_READ);
    for (size_t b = 0; b < n; b++)
        if (p[b] != sn->copy[b] && differ++ == 0)
            at = b;
    if (differ && !why[0])
        snprintf(why, len, "%s: %zu of its %zu bytes were written (the first at byte %zu)", what,
                 differ, n, at);
    free(sn->copy);
    sn->copy = NULL;
}

/* ---- out of memory on one rank ------------------------------------------------------------ */

static long allocations, fail_at;   /* the allocation that fails, counted from 1 */

static void *test_alloc(size_t nbytes, void *ctx)
{
    (void)ctx;
    return ++allocations == fail_at ? NULL : malloc(nbytes ? nbytes : 1);
}

static void test_release(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

/* On rank r only, the nth host allocation of the runtime fails from now on (nth 0: none). */
static void fail_allocation(int r, long nth)
{
    static const gt__allocator failing = {test_alloc, test_release, NULL};
    allocations = 0;
    fail_at = nth;
    gt__set_allocator(rank == r && nth > 0 ? &failing : NULL);
}

/* ---- gt_mpi_decompose -------------------------------------------------------------------- */

static const int64_t G[3] = {13, 11, 3};
static const int PERIODIC[2] = {1, 1};

/* gt_mpi_decompose with this rank's arguments must give NULL with code on every rank. */
static void decompose_refused(const char *name, MPI_Comm comm, const int64_t *global,
                              const int *dims, const int *periodic, int code, const char *text1,
                              const char *text2)
{
    if (!begin_case("gt_mpi_decompose: %s", name))
        return;
    char why[600] = "";
    gt_decomp *d = gt_mpi_decompose(comm, global, dims, periodic);
    if (d)
        snprintf(why, sizeof why, "made a decomposition");
    expect_refusal(why, sizeof why, d ? 0 : gt_last_error_code(), code, text1, text2);
    gt_mpi_decomp_release(d);
    end_case(!why[0], why, sizeof why);
}

static void decompose_cases(int not_initialized)
{
    char who[40], pair[80];
    snprintf(who, sizeof who, "rank %d", last);
    if (begin_case("gt_mpi_decompose: MPI not initialized yet")) {
        char why[200] = "";
        if (not_initialized != GT_EMPI)
            snprintf(why, sizeof why, "status %d before MPI_Init, want GT_EMPI",
                     not_initialized);
        end_case(!why[0], why, sizeof why);
    }
    decompose_refused("MPI_COMM_NULL", MPI_COMM_NULL, G, NULL, NULL, GT_EINVAL,
                      "MPI_COMM_NULL", NULL);
    decompose_refused("global NULL on the last rank", MPI_COMM_WORLD, rank == last ? NULL : G,
                      NULL, NULL, GT_EINVAL, who, NULL);
    const int64_t empty[3] = {13, 0, 3};
    decompose_refused("a global size of 0 on the last rank", MPI_COMM_WORLD,
                      rank == last ? empty : G, NULL, NULL, GT_EINVAL, who, NULL);
    decompose_refused("negative dims", MPI_COMM_WORLD, G, (const int[2]){-1, 0}, NULL,
                      GT_EINVAL, "negative", NULL);
    /* 65536 x 65536 processes: 2^32, beyond int (it used to wrap to 0) */
    decompose_refused("dims whose product overflows int", MPI_COMM_WORLD, G,
                      (const int[2]){65536, 65536}, NULL, GT_EINVAL, "needs 4294967296 processes",
                      NULL);
    char need[60];
    snprintf(need, sizeof need, "needs %d processes", nproc + 1);
    decompose_refused("a grid of another size than the communicator", MPI_COMM_WORLD, G,
                      (const int[2]){nproc + 1, 1}, NULL, GT_EINVAL, need, NULL);
    decompose_refused("processes along I that do not divide the communicator", MPI_COMM_WORLD,
                      G, (const int[2]){nproc + 1, 0}, NULL, GT_EINVAL, "cannot be split", NULL);
    if (nproc > 1)
        decompose_refused("more processes along I than points", MPI_COMM_WORLD,
                          (const int64_t[3]){1, 1, 1}, (const int[2]){nproc, 1}, NULL,
                          GT_ESHAPE, "each must own at least one", NULL);
    if (nproc > 1)
        decompose_refused("more processes than points, the grid chosen", MPI_COMM_WORLD,
                          (const int64_t[3]){1, 1, 1}, NULL, NULL, GT_ESHAPE,
                          "no grid of the communicator's processes gives each one", NULL);
    if (begin_case("gt_mpi_decompose: out of memory on the last rank")) {
        char why[600] = "";
        fail_allocation(last, 1);
        gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, G, NULL, PERIODIC);
        fail_allocation(last, 0);
        if (d)
            snprintf(why, sizeof why, "made a decomposition");
        expect_refusal(why, sizeof why, d ? 0 : gt_last_error_code(), GT_ENOMEM, who, NULL);
        gt_mpi_decomp_release(d);
        end_case(!why[0], why, sizeof why);
    }
    if (nproc < 2)
        return;
    /* arguments that differ between ranks: the last rank's from the others' */
    const int64_t wider[3] = {14, 11, 3}, deeper[3] = {13, 11, 4};
    snprintf(pair, sizeof pair, "ranks 0 and %d disagree", last);
    decompose_refused("global[0] differs on the last rank", MPI_COMM_WORLD,
                      rank == last ? wider : G, NULL, NULL, GT_EINVAL, pair,
                      "global size along I (global[0])");
    char values[80];
    snprintf(values, sizeof values, "(13 on rank 0, 14 on rank %d)", last);
    decompose_refused("global[0] differs on the last rank: the values", MPI_COMM_WORLD,
                      rank == last ? wider : G, NULL, NULL, GT_EINVAL, pair, values);
    decompose_refused("global[2] (K) differs on the last rank", MPI_COMM_WORLD,
                      rank == last ? deeper : G, NULL, NULL, GT_EINVAL, pair,
                      "global size along K (global[2])");
    decompose_refused("dims differ on the last rank", MPI_COMM_WORLD, G,
                      rank == last ? (const int[2]){1, nproc} : (const int[2]){nproc, 1}, NULL,
                      GT_EINVAL, pair, "processes along I (dims[0])");
    decompose_refused("periodic differs on the last rank", MPI_COMM_WORLD, G, NULL,
                      rank == last ? (const int[2]){0, 1} : PERIODIC, GT_EINVAL, pair,
                      "periodic along I (periodic[0])");
    decompose_refused("periodic NULL on the last rank", MPI_COMM_WORLD, G, NULL,
                      rank == last ? NULL : PERIODIC, GT_EINVAL, pair, "periodic[0]");
    if (begin_case("gt_mpi_decompose: NULL dims on the last rank, {0, 0} elsewhere (alike)")) {
        char why[600] = "";
        gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, G,
                                        rank == last ? NULL : (const int[2]){0, 0}, PERIODIC);
        if (!d)
            snprintf(why, sizeof why, "refused: %s", gt_last_error());
        gt_mpi_decomp_release(d);
        end_case(!why[0], why, sizeof why);
    }
}

/* ---- gt_mpi_empty, gt_mpi_zeros ------------------------------------------------------------ */

/* Both functions with this rank's arguments must give NULL with code on every rank; fail:
   the rank whose nth allocation fails (-1: none). */
static void local_refused(const char *name, const gt_decomp *d, gt_dtype t, const char *axes,
                          const gt_storage_opts *opts, int fail, int code, const char *text1,
                          const char *text2)
{
    for (int zero = 0; zero < 2; zero++) {
        if (!begin_case("%s: %s", zero ? "gt_mpi_zeros" : "gt_mpi_empty", name))
            continue;
        char why[600] = "";
        fail_allocation(fail, fail >= 0 ? 1 : 0);
        gt_storage *s = zero ? gt_mpi_zeros(d, t, axes, opts) : gt_mpi_empty(d, t, axes, opts);
        fail_allocation(fail, 0);
        if (s)
            snprintf(why, sizeof why, "made a storage");
        expect_refusal(why, sizeof why, s ? 0 : gt_last_error_code(), code, text1, text2);
        gt_release(s);
        end_case(!why[0], why, sizeof why);
    }
}

static void local_cases(const gt_decomp *d)
{
    char who[40], pair[80];
    snprintf(who, sizeof who, "rank %d", last);
    snprintf(pair, sizeof pair, "ranks 0 and %d disagree", last);
    gt_storage_opts o = {0}, bad = {0}, other = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    bad = o;
    bad.halo[1][1] = -1;
    local_refused("decomposition NULL", NULL, GT_FLOAT64, "IJK", &o, -1, GT_EINVAL,
                  "decomposition is NULL", NULL);
    /* every rank names the last one and repeats its reason (which it sends them) */
    local_refused("axes \"IJX\" on the last rank", d, GT_FLOAT64, rank == last ? "IJX" : "IJK",
                  &o, -1, GT_EINVAL, who, "IJX");
    local_refused("an invalid dtype on the last rank", d, rank == last ? (gt_dtype)99 : GT_FLOAT64,
                  "IJK", &o, -1, GT_EINVAL, who, NULL);
    local_refused("a negative halo on the last rank", d, GT_FLOAT64, "IJK",
                  rank == last ? &bad : &o, -1, GT_EINVAL, who, NULL);
    local_refused("out of memory on the last rank", d, GT_FLOAT64, "IJK", &o, last, GT_ENOMEM,
                  who, "out of memory");
    if (nproc < 2)
        return;
    /* axes that are not axes are an invalid argument, as in gt_zeros: "IIJ" (which gt_zeros
       refuses) and "IJX" (which mpi.c refuses) alike */
    local_refused("axes \"IIJ\" on the last rank", d, GT_FLOAT64, rank == last ? "IIJ" : "IJK",
                  &o, -1, GT_EINVAL, who, "repeat I");
    /* two ranks fail with different codes: every rank returns the worst (most negative) */
    local_refused("an invalid dtype on rank 0, out of memory on the last rank", d,
                  rank == 0 ? (gt_dtype)99 : GT_FLOAT64, "IJK", &o, last, GT_ENOMEM, who,
                  "out of memory");
    char values[80];
    snprintf(values, sizeof values, "(float64 on rank 0, float32 on rank %d)", last);
    local_refused("dtype differs on the last rank", d, rank == last ? GT_FLOAT32 : GT_FLOAT64,
                  "IJK", &o, -1, GT_EINVAL, pair, values);
    local_refused("axes differ on the last rank", d, GT_FLOAT64, rank == last ? "KJI" : "IJK",
                  &o, -1, GT_EINVAL, pair, "on the axes");
    other = o;
    other.halo[0][1] = 2;
    local_refused("halo differs on the last rank", d, GT_FLOAT64, "IJK",
                  rank == last ? &other : &o, -1, GT_EINVAL, pair, "opts->halo[0][1]");
    other = o;
    other.layout = "IJK";   /* K contiguous, where the preset makes I contiguous */
    local_refused("layout differs on the last rank", d, GT_FLOAT64, "IJK",
                  rank == last ? &other : &o, -1, GT_EINVAL, pair, "on the layout");
}

/* ---- gt_halo_exchange, gt_halo_exchange_begin/_end ---------------------------------------- */

/* A local storage of d: axes IJK, layout as given (NULL: preset), halo h along I and J and
   kh along K. */
static gt_storage *storage(const gt_decomp *d, gt_dtype t, const char *axes,
                           const char *layout, int64_t h, const int64_t kh[2])
{
    gt_storage_opts o = {0};
    o.layout = layout;
    for (int x = 0; axes[x]; x++) {
        o.halo[x][0] = axes[x] == 'K' ? kh[0] : h;
        o.halo[x][1] = axes[x] == 'K' ? kh[1] : h;
    }
    return gt_mpi_empty(d, t, axes, &o);
}

/* The exchange with this rank's arguments, blocking and split, must fail with code on
   every rank and write nothing into any of the storages watched. */
static void exchange_refused(const char *name, const gt_decomp *d, gt_storage *const *s, int n,
                             const gt_halo_widths *w, int code, const char *text1,
                             const char *text2, gt_storage *const *watch, int nwatch)
{
    for (int split = 0; split < 2; split++) {
        if (!begin_case("gt_halo_exchange%s: %s", split ? "_begin" : "", name))
            continue;
        char why[600] = "";
        Snap sn[4];
        for (int k = 0; k < nwatch; k++)
            sn[k] = sentinel(watch[k], (unsigned char)(0xA5 + k));
        int rc;
        if (split) {
            gt_exchange *x = gt_halo_exchange_begin(d, s, n, w);
            rc = x ? 0 : gt_last_error_code();
            if (x) {
                snprintf(why, sizeof why, "begin returned an exchange");
                gt_halo_exchange_end(x);
            }
        } else {
            rc = gt_halo_exchange(d, s, n, w);
        }
        expect_refusal(why, sizeof why, rc, code, text1, text2);
        /* the message starts with the function called (begin's once said gt_halo_exchange) */
        const char *fn = split ? "gt_halo_exchange_begin: " : "gt_halo_exchange: ";
        if (!why[0] && strncmp(gt_last_error(), fn, strlen(fn)) != 0)
            snprintf(why, sizeof why, "message \"%.400s\" does not start with \"%s\"",
                     gt_last_error(), fn);
        for (int k = 0; k < nwatch; k++) {
            char what[40];
            snprintf(what, sizeof what, "storage %d", k);
            untouched(&sn[k], what, why, sizeof why);
        }
        end_case(!why[0], why, sizeof why);
    }
}

static void exchange_cases(const gt_decomp *d, const gt_decomp *deeper)
{
    char who[40], pair[80];
    snprintf(who, sizeof who, "rank %d", last);
    snprintf(pair, sizeof pair, "ranks 0 and %d disagree", last);
    const int64_t k1[2] = {1, 1}, k2[2] = {2, 2}, k10[2] = {1, 0}, k01[2] = {0, 1};
    gt_storage *a = storage(d, GT_FLOAT64, "IJK", NULL, 1, k1);
    gt_storage *b = storage(d, GT_FLOAT64, "IJK", NULL, 1, k1);
    gt_storage *wide = storage(d, GT_FLOAT64, "IJK", NULL, 20, k1);
    gt_storage *elsewhere = storage(deeper, GT_FLOAT64, "IJK", NULL, 1, k1);
    gt_storage *single = storage(d, GT_FLOAT32, "IJK", NULL, 1, k1);
    gt_storage *kji = storage(d, GT_FLOAT64, "KJI", NULL, 1, k1);
    gt_storage *kfast = storage(d, GT_FLOAT64, "IJK", "IJK", 1, k1);
    gt_storage *kdeep = storage(d, GT_FLOAT64, "IJK", NULL, 1, k2);
    gt_storage *klow = storage(d, GT_FLOAT64, "IJK", NULL, 1, k10);
    gt_storage *khigh = storage(d, GT_FLOAT64, "IJK", NULL, 1, k01);
    if (!a || !b || !wide || !elsewhere || !single || !kji || !kfast || !kdeep || !klow ||
        !khigh) {
        if (begin_case("gt_halo_exchange: the storages")) {
            char why[600];
            snprintf(why, sizeof why, "%s", gt_last_error());
            end_case(false, why, sizeof why);
        }
        return;
    }
    gt_storage *one[1] = {a}, *two[2] = {a, b};
    const gt_halo_widths ones[2] = {{{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}};
    exchange_refused("decomposition NULL", NULL, one, 1, NULL, GT_EINVAL,
                     "decomposition is NULL", NULL, one, 1);
    /* the messages say what is wrong ("1 storages at (nil)" did not) */
    exchange_refused("n = -1", d, one, -1, NULL, GT_EINVAL,
                     "-1 storages; the count must be >= 0", NULL, one, 1);
    exchange_refused("storages NULL", d, NULL, 1, NULL, GT_EINVAL,
                     "storages is NULL, for 1 storages", NULL, one, 1);
    gt_storage *hole[1] = {rank == last ? NULL : a};
    exchange_refused("a NULL storage on the last rank", d, hole, 1, NULL, GT_EINVAL, who, NULL,
                     one, 1);
    enum { MANY = 32767 / 9 + 1 };
    gt_storage **many = malloc(sizeof *many * MANY);
    for (int k = 0; k < MANY; k++)
        many[k] = a;
    exchange_refused("3641 storages (one more than the tags allow)", d, many, MANY, NULL,
                     GT_EINVAL, "at most 3640", NULL, one, 1);
    free(many);
    const gt_halo_widths negative[1] = {{{1, -1}, {1, 1}}};
    exchange_refused("a negative width", d, one, 1, negative, GT_EINVAL, "negative width", NULL,
                     one, 1);
    const gt_halo_widths twice_halo[1] = {{{1, 1}, {2, 1}}};
    /* the messages say what to change: the halo, the process grid, the domain */
    exchange_refused("widths wider than the halo", d, one, 1, twice_halo, GT_EHALO,
                     "the exchange needs 2", "make the storage with a halo of at least 2 there "
                     "(gt_storage_opts.halo), or exchange narrower widths", one, 1);
    gt_storage *w1[1] = {wide};
    int grid[2];
    gt_mpi_grid(d, grid, NULL, NULL);
    char fix[120];
    if (grid[0] > 1)
        snprintf(fix, sizeof fix, "fewer than the halo width 20 it must send: split I over "
                 "fewer processes (%d now), or use a larger domain", grid[0]);
    else
        snprintf(fix, sizeof fix, "the periodic axis I has 13 point(s) on its one process, "
                 "fewer than the halo width 20");
    exchange_refused("a box narrower than the widths", d, w1, 1, NULL, GT_ESHAPE, fix, NULL,
                     w1, 1);
    gt_storage *mixed[2] = {a, elsewhere};
    exchange_refused("a storage of another decomposition (K differs)", d, mixed, 2, NULL,
                     GT_ESHAPE, "storage 1 has 4 points along K", NULL, mixed, 2);
    gt_storage *same[2] = {a, a};
    exchange_refused("one storage twice", d, same, 2, NULL, GT_EALIAS, "share a buffer", NULL,
                     one, 1);
    {
        /* a device-only storage (gt_wrap_device; over host memory here, through a device
           layer that only says it is there) on the last rank: GT_EDEVICE on every rank,
           naming it there; its memory untouched too */
        static const gt__device_ops present = {.name = "present"};
        gt__set_device_ops(&present);
        size_t n = span(a) / sizeof(double);
        double *mem = malloc(n * sizeof *mem);
        for (size_t e = 0; e < n; e++)
            mem[e] = (double)e;
        gt_storage_opts o = {0};
        for (int x = 0; x < 3; x++)
            for (int side = 0; side < 2; side++)
                o.halo[x][side] = gt_halo(a)[x][side];
        gt_storage *dev = gt_wrap_device(mem, GT_FLOAT64, "IJK", gt_shape(a), gt_strides(a), &o);
        gt_storage *mine[1] = {rank == last ? dev : a};
        char it[80];
        snprintf(it, sizeof it, "rank %d: storage 0 is device-only (gt_wrap_device)", last);
        exchange_refused("a device-only storage on the last rank", d, mine, 1, NULL,
                         GT_EDEVICE, who, rank == last ? it : NULL, one, 1);
        if (begin_case("gt_halo_exchange: a device-only storage's memory untouched")) {
            char why[600] = "";
            if (!dev)
                snprintf(why, sizeof why, "gt_wrap_device: %s", gt_last_error());
            for (size_t e = 0; e < n && !why[0]; e++)
                if (mem[e] != (double)e)
                    snprintf(why, sizeof why, "element %zu was written", e);
            end_case(!why[0], why, sizeof why);
        }
        gt_release(dev);
        free(mem);
        gt__set_device_ops(NULL);
    }
    if (begin_case("gt_halo_exchange_end: exchange NULL")) {
        char why[600] = "";
        expect_refusal(why, sizeof why, gt_halo_exchange_end(NULL), GT_EINVAL,
                       "exchange is NULL", NULL);
        end_case(!why[0], why, sizeof why);
    }
    if (nproc > 1) {
        /* two ranks fail with different codes: every rank returns the worst */
        const gt_halo_widths *w = rank == 0 ? twice_halo : rank == last ? negative : ones;
        exchange_refused("widths wider than the halo on rank 0, negative on the last rank", d,
                         one, 1, w, GT_EHALO, "rank 0", NULL, one, 1);
        /* arguments that differ between ranks */
        char values[80];
        snprintf(values, sizeof values, "(1 on rank 0, 2 on rank %d)", last);
        exchange_refused("n differs on the last rank", d, rank == last ? two : one,
                         rank == last ? 2 : 1, ones, GT_EINVAL, pair, values, two, 2);
        gt_storage *t1[1] = {rank == last ? single : a};
        exchange_refused("dtype differs on the last rank", d, t1, 1, NULL, GT_EINVAL, pair,
                         "storage 0's dtype (float64 on rank 0, float32", t1, 1);
        gt_storage *t2[1] = {rank == last ? kji : a};
        exchange_refused("axes differ on the last rank", d, t2, 1, NULL, GT_EINVAL, pair,
                         "storage 0's axes", t2, 1);
        gt_storage *t3[1] = {rank == last ? kfast : a};
        exchange_refused("layout differs on the last rank", d, t3, 1, NULL, GT_EINVAL, pair,
                         "storage 0's layout", t3, 1);
        gt_storage *t4[1] = {rank == last ? kdeep : a};
        snprintf(values, sizeof values, "halo included (5 on rank 0, 7 on rank %d)", last);
        exchange_refused("the K extent (K halo) differs on the last rank", d, t4, 1, NULL,
                         GT_EINVAL, "storage 0's extent along K", values, t4, 1);
        gt_storage *t5[1] = {rank == last ? khigh : klow};
        exchange_refused("the K halo differs on the last rank, the K extent alike", d, t5, 1,
                         NULL, GT_EINVAL, pair, "storage 0's lower halo along K", t5, 1);
        const gt_halo_widths narrow[1] = {{{0, 1}, {1, 1}}};
        exchange_refused("widths differ on the last rank", d, one, 1,
                         rank == last ? narrow : ones, GT_EINVAL, pair,
                         "storage 0's width of the lower halo along I", one, 1);
        const gt_halo_widths wide2[2] = {{{1, 1}, {1, 1}}, {{1, 1}, {1, 0}}};
        exchange_refused("the second storage's widths differ on the last rank", d, two, 2,
                         rank == last ? wide2 : ones, GT_EINVAL, pair,
                         "storage 1's width of the upper halo along J", two, 2);
        /* 30 storages: 300 values, agreed in two rounds of MPI_Allreduce (256 a round) */
        enum { NS = 30 };
        gt_storage *lots[NS];
        gt_halo_widths lw[NS];
        for (int k = 0; k < NS; k++) {
            lots[k] = storage(d, GT_FLOAT64, "IJK", NULL, 1, k1);
            memcpy(lw[k], ones[0], sizeof lw[k]);
        }
        if (rank == last)
            lw[NS - 1][0][1] = 0;
        exchange_refused("the 30th storage's widths differ on the last rank", d, lots, NS, lw,
                         GT_EINVAL, pair, "storage 29's width of the upper halo along I",
                         lots + NS - 4, 4);
        if (begin_case("gt_halo_exchange: 30 storages alike (agreed in two rounds)")) {
            char why[600] = "";
            if (gt_halo_exchange(d, lots, NS, NULL) != 0)
                snprintf(why, sizeof why, "refused: %s", gt_last_error());
            end_case(!why[0], why, sizeof why);
        }
        for (int k = 0; k < NS; k++)
            gt_release(lots[k]);
        if (begin_case("gt_halo_exchange: NULL widths on the last rank, the halos elsewhere "
                       "(alike)")) {
            char why[600] = "";
            if (gt_halo_exchange(d, one, 1, rank == last ? NULL : ones) != 0)
                snprintf(why, sizeof why, "refused: %s", gt_last_error());
            end_case(!why[0], why, sizeof why);
        }
    }
    /* out of memory at each allocation of the last rank in turn, until none fails: every
       rank fails alike, nothing written, or every rank succeeds */
    for (int split = 0; split < 2; split++) {
        if (!begin_case("gt_halo_exchange%s: out of memory at each allocation of the last rank",
                        split ? "_begin" : ""))
            continue;
        char why[600] = "";
        for (long nth = 1; nth < 200 && !why[0]; nth++) {
            Snap sn[2] = {sentinel(a, 0x5A), sentinel(b, 0x5B)};
            fail_allocation(last, nth);
            int rc;
            if (split) {
                gt_exchange *x = gt_halo_exchange_begin(d, two, 2, ones);
                rc = x ? gt_halo_exchange_end(x) : gt_last_error_code();
            } else {
                rc = gt_halo_exchange(d, two, 2, ones);
            }
            fail_allocation(last, 0);
            int worst = 0, best = 0;
            MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&rc, &best, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (worst != best)
                snprintf(why, sizeof why, "allocation %ld: status %d here, %d to %d over the "
                         "ranks", nth, rc, worst, best);
            else if (rc != 0 && rc != GT_ENOMEM)
                snprintf(why, sizeof why, "allocation %ld: status %d (%s)", nth, rc,
                         gt_last_error());
            if (rc != 0) {
                untouched(&sn[0], "storage 0", why, sizeof why);
                untouched(&sn[1], "storage 1", why, sizeof why);
            } else {
                free(sn[0].copy);
                free(sn[1].copy);
                if (nth == 1 && !why[0])
                    snprintf(why, sizeof why, "no allocation failed: none went through the "
                             "runtime's allocator");
                break;
            }
        }
        end_case(!why[0], why, sizeof why);
    }
    gt_storage *all[10] = {a, b, wide, elsewhere, single, kji, kfast, kdeep, klow, khigh};
    for (int k = 0; k < 10; k++)
        gt_release(all[k]);
}

/* ---- gt_mpi_call ------------------------------------------------------------------------------ */

/* SHIFT_NULL: shift, out scalar NULL; SHIFT_OWN: shift, then 1 (the function's own
   failure, no code of the runtime's); SHIFT_OWN_LATE: the same after the checking call */
enum { SHIFT, LIFT, TWIN, TWIN_INT, SHIFT_NULL, SHIFT_OWN, SHIFT_OWN_LATE };

typedef struct {
    int stencil[4];       /* per rank (the last for ranks beyond): SHIFT, LIFT, ... */
    gt_storage *u, *res;
    double total;         /* out scalars: shift's and twin's, */
    int32_t top;          /* lift's and twin_int's */
    int calls;            /* calls of run in this gt_mpi_call */
} Call;

static int run(void *ctx, const gt_domain *dom)
{
    Call *c = ctx;
    int rc;
    c->calls++;
    switch (c->stencil[rank < 4 ? rank : 3]) {
    case SHIFT: return shift(c->u, c->res, &c->total, dom);
    case SHIFT_OWN:
        rc = shift(c->u, c->res, &c->total, dom);
        return rc ? rc : 1;
    case SHIFT_OWN_LATE:
        rc = shift(c->u, c->res, &c->total, dom);
        return rc || c->calls == 1 ? rc : 1;
    case LIFT: return lift(c->u, c->res, &c->top, dom);
    case TWIN: return twin(c->u, c->res, &c->total, dom);
    case SHIFT_NULL: return shift(c->u, c->res, NULL, dom);
    default: return twin_int(c->u, c->res, &c->top, dom);
    }
}

static const double UNSET = -7777.0;

/* gt_mpi_call with this rank's arguments (c: the stencils and out scalars; s, n and w as
   passed; blocking) must fail with code on every rank, c's storages and those passed
   untouched, the out scalars unset; written: the refusal comes after the stencil ran
   (check the outcome only). */
static void call_refused(const char *name, const gt_decomp *d, Call *c, gt_storage *const *s,
                         int n, const gt_halo_widths *w, gt_mpi_stencil_fn *fn, bool written,
                         int code, const char *text1, const char *text2)
{
    if (!begin_case("gt_mpi_call: %s", name))
        return;
    char why[600] = "";
    gt_storage *watch[4] = {c->u, c->res, NULL, NULL};
    int nwatch = 2;
    for (int k = 0; s && k < n && k < 2; k++)
        if (s[k] && s[k] != c->u && s[k] != c->res)
            watch[nwatch++] = s[k];
    Snap sn[4];
    for (int k = 0; k < nwatch; k++)
        sn[k] = sentinel(watch[k], (unsigned char)(0x3C + k));
    c->total = UNSET;
    c->top = (int32_t)UNSET;
    c->calls = 0;
    int rc = gt_mpi_call(d, s, n, w, fn, c, 0, NULL);
    expect_refusal(why, sizeof why, rc, code, text1, text2);
    for (int k = 0; k < nwatch; k++) {
        if (written) {
            free(sn[k].copy);
            continue;
        }
        char what[40];
        snprintf(what, sizeof what, "storage %d", k);
        untouched(&sn[k], k == 0 ? "u" : k == 1 ? "res" : what, why, sizeof why);
    }
    if (!written && !why[0] && (c->total != UNSET || c->top != (int32_t)UNSET))
        snprintf(why, sizeof why, "an out scalar was written: %g, %d", c->total, (int)c->top);
    end_case(!why[0], why, sizeof why);
}

static int64_t wrap(int64_t g, int64_t n)
{
    return (g % n + n) % n;
}

/* u and res's values at global (i, j, k) (wrapped): res's before the call */
static double u_at(int64_t i, int64_t j, int64_t k)
{
    return (double)(wrap(i, G[0]) * 97 + wrap(j, G[1]) * 13 + k) * 0.125 + 1.0;
}

static double res_before(int64_t i, int64_t j, int64_t k)
{
    return -1000.0 - (double)(wrap(i, G[0]) * 131 + wrap(j, G[1]) * 7 + k);
}

/* Explicit widths on the output of a distributed call (what docs/mpi.md allows): shift on
   a periodic decomposition, res's halo 2 exchanged 1 below along I and 2 above along J.
   Its interior must hold 2 u(i-1) + u(i+1) - u(j+1) (the same operations in the same
   order: bit for bit), its halo within the widths the neighbours' res from before the call
   (sent when the exchange begins, before the computation, blocking or overlapped), the
   rest of its halo untouched; total the sum of res over the domain (to a relative 1e-12). */
static void output_widths_case(const gt_decomp *d, bool overlap)
{
    if (!begin_case("gt_mpi_call: explicit widths on an output, %s",
                    overlap ? "overlapped" : "blocking"))
        return;
    char why[600] = "";
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    const int64_t k0[2] = {0, 0};
    Call c = {{SHIFT, SHIFT, SHIFT, SHIFT}, storage(d, GT_FLOAT64, "IJK", NULL, 1, k0),
              storage(d, GT_FLOAT64, "IJK", NULL, 2, k0), UNSET, 0, 0};
    gt_storage *s[2] = {c.u, c.res};
    /* u: its whole storage from the function (the exchange writes the same values); res:
       the function before the call, its halo the sentinel */
    const double SENT = -5.5;
    for (int f = 0; f < 2; f++) {
        gt_storage *st = s[f];
        const int64_t *shape = gt_shape(st), *str = gt_strides(st);
        const int64_t (*h)[2] = gt_halo(st);
        double *p = gt_host(st, GT_WRITE);
        for (int64_t k = 0; k < shape[2]; k++)
            for (int64_t j = 0; j < shape[1]; j++)
                for (int64_t i = 0; i < shape[0]; i++) {
                    int64_t gi = off[0] + i - h[0][0], gj = off[1] + j - h[1][0];
                    bool inside = i >= h[0][0] && i < shape[0] - h[0][1] && j >= h[1][0] &&
                                  j < shape[1] - h[1][1];
                    p[i * str[0] + j * str[1] + k * str[2]] =
                        f == 0 ? u_at(gi, gj, k) : inside ? res_before(gi, gj, k) : SENT;
                }
    }
    const gt_halo_widths w[2] = {{{1, 1}, {0, 1}}, {{1, 0}, {0, 2}}};
    int rc = gt_mpi_call(d, s, 2, w, run, &c, overlap, NULL);
    if (rc)
        snprintf(why, sizeof why, "gt_mpi_call: %s", gt_last_error());
    const int64_t *shape = gt_shape(c.res), *str = gt_strides(c.res);
    const int64_t (*h)[2] = gt_halo(c.res);
    const double *p = gt_host(c.res, GT_READ);
    long bad = 0;
    for (int64_t k = 0; k < shape[2] && !why[0]; k++)
        for (int64_t j = 0; j < shape[1]; j++)
            for (int64_t i = 0; i < shape[0]; i++) {
                int64_t li = i - h[0][0], lj = j - h[1][0];   /* from the box's corner */
                int64_t gi = off[0] + li, gj = off[1] + lj;
                bool in_i = li >= 0 && li < box[0], in_j = lj >= 0 && lj < box[1];
                double want = SENT;
                if (in_i && in_j)
                    want = 2.0 * u_at(gi - 1, gj, k) + u_at(gi + 1, gj, k) - u_at(gi, gj + 1, k);
                else if (li >= -1 && li < box[0] && lj >= 0 && lj < box[1] + 2)
                    want = res_before(gi, gj, k);   /* within widths: I lower 1, J upper 2 */
                double got = p[i * str[0] + j * str[1] + k * str[2]];
                if (memcmp(&got, &want, sizeof got) != 0 && bad++ == 0)
                    snprintf(why, sizeof why, "res at global (%lld, %lld, %lld): %.17g, want "
                             "%.17g", (long long)gi, (long long)gj, (long long)k, got, want);
            }
    double sum = 0;
    for (int64_t k = 0; k < G[2]; k++)
        for (int64_t j = 0; j < G[1]; j++)
            for (int64_t i = 0; i < G[0]; i++)
                sum += 2.0 * u_at(i - 1, j, k) + u_at(i + 1, j, k) - u_at(i, j + 1, k);
    double tol = 1e-12 * fmax(1.0, fmax(fabs(sum), fabs(c.total)));   /* as tests/diff */
    if (!why[0] && !(fabs(c.total - sum) <= tol))
        snprintf(why, sizeof why, "total %.17g, want %.17g within %.3g", c.total, sum, tol);
    gt_release(c.u);
    gt_release(c.res);
    end_case(!why[0], why, sizeof why);
}

static void call_cases(const gt_decomp *d)
{
    char who[40], pair[80];
    snprintf(who, sizeof who, "rank %d", last);
    snprintf(pair, sizeof pair, "ranks 0 and %d disagree", last);
    const int64_t k1[2] = {1, 1}, k2[2] = {2, 2};
    Call c = {{SHIFT, SHIFT, SHIFT, SHIFT}, storage(d, GT_FLOAT64, "IJK", NULL, 1, k1),
              storage(d, GT_FLOAT64, "IJK", NULL, 1, k1), UNSET, 0, 0};
    gt_storage *kdeep = storage(d, GT_FLOAT64, "IJK", NULL, 1, k2);
    gt_storage *narrow = storage(d, GT_FLOAT64, "IJK", NULL, 0, k1);
    gt_storage *s[2] = {c.u, c.res};
    const gt_halo_widths w[2] = {{{1, 1}, {0, 1}}, {{0, 0}, {0, 0}}};
    call_refused("decomposition NULL", NULL, &c, s, 2, w, run, false, GT_EINVAL,
                 "decomposition is NULL", NULL);
    call_refused("stencil function NULL", d, &c, s, 2, w, NULL, false, GT_EINVAL,
                 "stencil function is NULL", NULL);
    call_refused("n = -1", d, &c, s, -1, w, run, false, GT_EINVAL,
                 "-1 storages; the count must be >= 0", NULL);
    call_refused("storages NULL", d, &c, NULL, 2, w, run, false, GT_EINVAL,
                 "storages is NULL, for 2 storages", NULL);
    gt_storage *hole[2] = {c.u, rank == last ? NULL : c.res};
    call_refused("a NULL storage on the last rank", d, &c, hole, 2, w, run, false, GT_EINVAL,
                 who, NULL);
    const gt_halo_widths wider[2] = {{{1, 1}, {0, 1}}, {{0, 0}, {0, 2}}};
    call_refused("widths wider than an output's halo", d, &c, s, 2, wider, run, false,
                 GT_EHALO, "the exchange needs 2", NULL);
    Call thin = c;
    thin.u = narrow;
    gt_storage *thin_s[2] = {narrow, c.res};
    call_refused("an input's halo narrower than the stencil reads", d, &thin, thin_s, 2, NULL,
                 run, false, GT_EHALO, "halo", NULL);
    enum { MANY = 32767 / 9 + 1 };
    gt_storage **many = malloc(sizeof *many * MANY);
    for (int k = 0; k < MANY; k++)
        many[k] = k % 2 ? c.res : c.u;
    call_refused("3641 storages (one more than an exchange takes)", d, &c, many, MANY, NULL,
                 run, false, GT_EINVAL, "at most 3640", NULL);
    free(many);
    /* the stencil's own checks (gt__bind's) fail in the checking call: the failing rank's
       message names it as every other message of the layer does (it said "stencil 'shift':
       out scalar 'total' is NULL", no rank; and, where every rank failed, each one's
       message named none) */
    Call nulled = c;
    nulled.stencil[last < 4 ? last : 3] = SHIFT_NULL;
    char mine[80];
    snprintf(mine, sizeof mine, "stencil 'shift': rank %d: out scalar 'total' is NULL", last);
    call_refused("a NULL out scalar on the last rank (the stencil's check names the rank)", d,
                 &nulled, s, 2, w, run, false, GT_EINVAL, mine, NULL);
    /* a code of the function's own (positive) on the last rank: it failed every rank (the
       agreement took the most negative code, 0 from the other ranks: every rank returned 0,
       the failing one too, and computed on) */
    Call own = c;
    own.stencil[last < 4 ? last : 3] = SHIFT_OWN;
    snprintf(mine, sizeof mine, "rank %d: the function calling the stencil returned 1", last);
    call_refused("the function returns 1 on the last rank in the checking call", d, &own, s, 2,
                 w, run, false, 1, mine, NULL);
    own.stencil[last < 4 ? last : 3] = SHIFT_OWN_LATE;
    call_refused("the function returns 1 on the last rank after the checking call", d, &own, s,
                 2, w, run, true, 1, mine, NULL);
    gt_storage_opts lone_o = {{{1, 1}, {1, 1}, {0, 0}}, 0, {0, 0, 0}, 0, NULL, NULL, 0, 0};
    gt_storage *lone = gt_zeros(GT_FLOAT64, "IJK", (int64_t[]){4, 4, 3}, &lone_o);
    Call single = c;
    single.u = lone;
    gt_storage *single_s[2] = {lone, c.res};
    /* refused by gt_mpi_call itself, saying what to make (until 2026-11 the stencil's
       binding in the checking call said "field 'u': the domain is 4 along I", a domain the
       caller never gave, and no fix) */
    snprintf(mine, sizeof mine, "gt_mpi_call: rank %d: storage 0 has 2 points along I", rank);
    call_refused("a single-process storage on every rank (each rank's message names it)", d,
                 &single, single_s, 2, NULL, run, false, GT_ESHAPE, mine,
                 "make local storages with gt_mpi_empty or gt_mpi_zeros of this decomposition");
    gt_release(lone);
    fail_allocation(last, 1);
    call_refused("out of memory on the last rank", d, &c, s, 2, w, run, false, GT_ENOMEM, who,
                 NULL);
    fail_allocation(last, 0);
    if (nproc > 1) {
        char values[80];
        snprintf(values, sizeof values, "(1 on rank 0, 2 on rank %d)", last);
        call_refused("n differs on the last rank", d, &c, s, rank == last ? 2 : 1, w, run,
                     false, GT_EINVAL, "the number of storages (n)", values);
        call_refused("widths NULL on the last rank", d, &c, s, 2, rank == last ? NULL : w, run,
                     false, GT_EINVAL, pair, "the widths (widths)");
        const gt_halo_widths more[2] = {{{1, 1}, {1, 1}}, {{0, 0}, {0, 0}}};
        call_refused("widths differ on the last rank", d, &c, s, 2, rank == last ? more : w, run,
                     false, GT_EINVAL, pair, "storage 0's width of the lower halo along J");
        gt_storage *deep[2] = {rank == last ? kdeep : c.u, c.res};
        call_refused("the K extent (K halo) of u differs on the last rank", d, &c, deep, 2, w,
                     run, false, GT_EINVAL, pair, "storage 0's extent along K");
        Call other = c;
        other.stencil[last < 4 ? last : 3] = LIFT;
        call_refused("another stencil on the last rank", d, &other, s, 2, w, run, false,
                     GT_EINVAL, pair, "the stencil called");
        Call twins = c;
        for (int r = 0; r < 4; r++)
            twins.stencil[r] = r == last || (r == 3 && last > 3) ? TWIN_INT : TWIN;
        const gt_halo_widths none[2] = {{{0, 0}, {0, 0}}, {{0, 0}, {0, 0}}};
        call_refused("out scalars differ on the last rank (the same stencil name and fields)",
                     d, &twins, s, 2, none, run, true, GT_EINVAL, pair,
                     "out scalar 0's operation");
    }
    /* out of memory at each allocation of the last rank in turn, until none fails: every
       rank returns the same, nothing hangs */
    if (begin_case("gt_mpi_call: out of memory at each allocation of the last rank")) {
        char why[600] = "";
        for (long nth = 1; nth < 200 && !why[0]; nth++) {
            fail_allocation(last, nth);
            int rc = gt_mpi_call(d, s, 2, w, run, &c, (int)(nth % 2), NULL);
            fail_allocation(last, 0);
            int worst = 0, best = 0;
            MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(&rc, &best, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            if (worst != best)
                snprintf(why, sizeof why, "allocation %ld: status %d here, %d to %d over the "
                         "ranks (%s)", nth, rc, worst, best, gt_last_error());
            else if (rc != 0 && rc != GT_ENOMEM)
                snprintf(why, sizeof why, "allocation %ld: status %d (%s)", nth, rc,
                         gt_last_error());
            if (best == 0 && worst == 0) {
                if (nth == 1 && !why[0])
                    snprintf(why, sizeof why, "no allocation failed: none went through the "
                             "runtime's allocator");
                break;
            }
        }
        end_case(!why[0], why, sizeof why);
    }
    gt_release(c.u);
    gt_release(c.res);
    gt_release(kdeep);
    gt_release(narrow);
    output_widths_case(d, false);
    output_widths_case(d, true);
}

/* ---- a rank that makes another call ------------------------------------------------------ */

/* The last rank makes another collective call than the others (it skipped theirs, or made
   one more): it meets their call's first agreement, and every rank must refuse alike,
   naming both calls, with every storage untouched. Before, the first agreements of the calls
   had different sizes: MPI_ERR_TRUNCATE on the ranks of the smaller one (GT_EMPI), and the
   others waited for ever (here the watchdog's HANG). others(ctx) is the others' call,
   mine(ctx) the last rank's; each returns its status. */
typedef int CallFn(void *ctx);

static void other_call(const char *name, CallFn *others, CallFn *mine, void *ctx,
                       gt_storage *const *watch, int nwatch, const char *theirs,
                       const char *lasts)
{
    if (!begin_case("another call on the last rank: %s", name))
        return;
    char why[600] = "", want[200];
    Snap sn[4];
    for (int k = 0; k < nwatch; k++)
        sn[k] = sentinel(watch[k], (unsigned char)(0x5A + k));
    int rc = rank == last ? mine(ctx) : others(ctx);
    snprintf(want, sizeof want, "ranks 0 and %d are in different collective calls (%s on rank "
             "0, %s on rank %d)", last, theirs, lasts, last);
    expect_refusal(why, sizeof why, rc, GT_EINVAL, want, "skipped a call, or made one more");
    for (int k = 0; k < nwatch; k++)
        untouched(&sn[k], k == 0 ? "u" : "res", why, sizeof why);
    end_case(!why[0], why, sizeof why);
}

typedef struct {
    const gt_decomp *d;
    Call *c;
    double s;
} Other;

static int exchange_u(void *ctx)
{
    Other *o = ctx;
    gt_storage *s[2] = {o->c->u, o->c->res};
    return gt_halo_exchange(o->d, s, 2, NULL);
}

static int zeros_one(void *ctx)
{
    Other *o = ctx;
    gt_storage_opts op = {0};
    gt_storage *s = gt_mpi_zeros(o->d, GT_FLOAT32, "IJ", &op);
    gt_release(s);
    return s ? 0 : gt_last_error_code();
}

static int call_shift(void *ctx)
{
    Other *o = ctx;
    gt_storage *s[2] = {o->c->u, o->c->res};
    return gt_mpi_call(o->d, s, 2, NULL, run, o->c, 0, NULL);
}

static int shift_entry(void *ctx)
{
    Other *o = ctx;
    return shift_mpi(o->d, o->c->u, o->c->res, &o->c->total, 1, NULL);
}

static int calm_entry(void *ctx)
{
    Other *o = ctx;
    return calm_mpi(o->d, 0.5, &o->s, 0, NULL);
}

static void other_call_cases(const gt_decomp *d)
{
    if (nproc < 2)
        return;
    const int64_t k1[2] = {1, 1};
    Call c = {{SHIFT, SHIFT, SHIFT, SHIFT}, storage(d, GT_FLOAT64, "IJK", NULL, 1, k1),
              storage(d, GT_FLOAT64, "IJK", NULL, 1, k1), UNSET, 0, 0};
    Other o = {d, &c, UNSET};
    gt_storage *watch[2] = {c.u, c.res};
    other_call("gt_halo_exchange, gt_mpi_zeros on the last rank", exchange_u, zeros_one, &o,
               watch, 2, "gt_halo_exchange", "gt_mpi_empty or gt_mpi_zeros");
    other_call("gt_mpi_call, gt_halo_exchange on the last rank", call_shift, exchange_u, &o,
               watch, 2, "gt_mpi_call", "gt_halo_exchange");
    other_call("shift_mpi, gt_mpi_call on the last rank", shift_entry, call_shift, &o, watch, 2,
               "a stencil's S_mpi", "gt_mpi_call");
    /* both S_mpi, one without fields: its first agreement is that of the others */
    if (begin_case("another stencil on the last rank: shift_mpi, calm_mpi (no field) on the "
                   "last rank")) {
        char why[600] = "";
        Snap sn[2] = {sentinel(c.u, 0x61), sentinel(c.res, 0x62)};
        o.s = UNSET;
        int rc = rank == last ? calm_entry(&o) : shift_entry(&o);
        expect_refusal(why, sizeof why, rc, GT_EINVAL, "the ranks call stencils of 0 to 2 "
                       "fields", NULL);
        untouched(&sn[0], "u", why, sizeof why);
        untouched(&sn[1], "res", why, sizeof why);
        if (!why[0] && o.s != UNSET)
            snprintf(why, sizeof why, "calm's out scalar was written: %g", o.s);
        end_case(!why[0], why, sizeof why);
    }
    /* and after all that, the calls agree again */
    if (begin_case("another call on the last rank: then the same call on every rank")) {
        char why[600] = "";
        int rc = exchange_u(&o);
        if (rc)
            snprintf(why, sizeof why, "status %d (%s)", rc, gt_last_error());
        end_case(!why[0], why, sizeof why);
    }
    gt_release(c.u);
    gt_release(c.res);
}

int main(int argc, char **argv)
{
    /* before MPI_Init: GT_EMPI, on each process by itself */
    gt_decomp *early = gt_mpi_decompose(MPI_COMM_WORLD, G, NULL, NULL);
    int not_initialized = early ? 0 : gt_last_error_code();
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    last = nproc - 1;
    first = argc > 1 ? atoi(argv[1]) : 0;
    const char *wd = getenv("MISUSE_WATCHDOG");
    if (wd && atoi(wd) > 0)
        watchdog = (unsigned)atoi(wd);
    signal(SIGALRM, on_alarm);
    decompose_cases(not_initialized);
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, G, NULL, PERIODIC);
    gt_decomp *deeper = gt_mpi_decompose(MPI_COMM_WORLD, (const int64_t[3]){13, 11, 4}, NULL,
                                         PERIODIC);
    if (!d || !deeper) {
        if (rank == 0)
            printf("FAIL misuse: the decompositions: %s\n", gt_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    local_cases(d);
    exchange_cases(d, deeper);
    call_cases(d);
    other_call_cases(d);
    gt_mpi_decomp_release(d);
    gt_mpi_decomp_release(deeper);
    if (rank == 0) {
        printf("DONE\n");
        fflush(stdout);
    }
    MPI_Finalize();
    return failures;
}

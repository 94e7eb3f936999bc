/* mpi.c: distributed runs over MPI, libgtrt-mpi (gt/gt_mpi.h says what each function
 * does; docs/mpi.md how to use them).
 *
 * A decomposition is a Cartesian communicator (MPI_Cart_create over I and J, with
 * MPI_ERRORS_RETURN) and this rank's box. A halo exchange sends to each of the up to 8
 * neighbours (sides and corners, found with MPI_Cart_rank; MPI_PROC_NULL past a
 * non-periodic edge) the strip of its interior that the neighbour's halo mirrors, packed
 * into one contiguous buffer per storage and neighbour, all messages posted at once
 * (MPI_Irecv, MPI_Isend) and the received strips unpacked into the halos once every
 * message has arrived. A message's tag is its storage's index times 9 plus the direction
 * it travels, so a receiver matches it with the neighbour in the opposite direction even
 * when that neighbour is itself (a periodic axis of one process). A storage whose device
 * side holds the newest data is packed and unpacked on the device, only its strips crossing
 * the bus (through pinned staging, or straight to a CUDA-aware MPI: "strips packed on the
 * device" below); any other is packed on the host side, brought up to date first.
 *
 * Errors and arguments are agreed on before anything is sent (agree_same): every rank
 * checks its arguments, then one MPI_Allreduce of a fixed size agrees on the worst error
 * code and on what every rank must pass alike (docs/mpi.md, "Agreement"), before any
 * collective whose size depends on the arguments; a list as long as the storages is
 * agreed once their number is. Every rank then fails alike, with the same code (the
 * others' message names the rank that failed, or the two ranks whose arguments differ and
 * what), so no rank is left waiting for a message that never comes and no halo is
 * written. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt_mpi.h>
/* Open MPI's extensions: MPIX_Query_cuda_support (OMPI_HAVE_MPI_EXT_CUDA), whether the
   library takes device buffers; other MPIs, or an Open MPI without them, never do */
#if defined(OPEN_MPI) && defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

#include "call.h"
#include "relay.h"

struct gt_decomp {
    MPI_Comm comm;       /* Cartesian, dims[0] along I and dims[1] along J */
    int dims[2], coords[2], periodic[2], rank;
    int64_t offset[3], box[3], global[3];
    int neighbour[3][3]; /* [di + 1][dj + 1]: the rank in that direction, or MPI_PROC_NULL */
};

static int mpi_fail(const char *fn, int rank, const char *call, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", err);
    return gt__error(GT_EMPI, "%s: rank %d: %s failed: %s", fn, rank, call, text);
}

/* count zeroed elements of size bytes, from the runtime's allocator (gt__malloc, which tests
   make fail), or NULL. */
static void *zalloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = gt__malloc(count * size);
    if (p)
        memset(p, 0, count * size);
    return p;
}

/* ---- errors and arguments agreed by every rank ---------------------------------------------

   Every collective function checks its arguments on each rank, then agrees with the other
   ranks in one MPI_Allreduce of a fixed size, before any collective whose size depends on
   them: on the worst error code (the most negative, and the lowest rank that has it), and
   on the values that every rank must pass alike (their largest and smallest, as the MAX of
   v and -v). A list whose length comes from the arguments (one set of values per storage)
   is agreed in a second round, once its length has been agreed in the first. A failure or
   a disagreement returns the same code on every rank, before anything is sent or
   written. */

/* How an agreed value reads in a message. */
typedef enum {
    V_NUMBER,   /* a count, size or width */
    V_DTYPE,    /* a gt_dtype */
    V_AXES,     /* axes or a layout (axes_code) */
    V_GIVEN,    /* a pointer: 1 given, 0 NULL */
    V_HASH,     /* a digest (hash_text): no value to show */
    V_REAL,     /* a real scalar argument's bits (gt__scalar_real) */
    V_BOOL      /* a bool scalar argument */
} ValueKind;

/* One value that every rank must pass alike: what it is, for messages. */
typedef struct {
    const char *what;
    ValueKind kind;
} Item;

/* What the values of one agreement are: items[i], or, with a group, items[i % per] of
   member i / per of the group ("storage 2's dtype"). */
typedef struct {
    const Item *items;
    int per;              /* items per member (with a group) */
    const char *group;    /* NULL, "storage" or "out scalar" */
    const char *outcome;  /* what a failure leaves (NULL: "nothing was done") */
} Agreed;

/* The fields the storages of this thread's gt_mpi_call stand for (gt__mpi_entry's), for
   messages that name a storage by its index. */
static _Thread_local const char *const *storage_names;
static _Thread_local int storage_named;

void gt__mpi_storage_names(const char *const *names, int n)
{
    storage_names = names;
    storage_named = names ? n : 0;
}

/* " (field 'u')" where storage k stands for field u, else "" (a thread's buffer). */
static const char *field_of(int k)
{
    static _Thread_local char text[160];
    text[0] = 0;
    if (k >= 0 && k < storage_named && storage_names[k])
        snprintf(text, sizeof text, " (field '%s')", storage_names[k]);
    return text;
}

/* The values of an agreement, produced one by one (so that long lists need no memory). */
typedef int64_t ValueFn(const void *ctx, int i);

static int64_t array_value(const void *ctx, int i)
{
    return ((const int64_t *)ctx)[i];
}

/* Axes or a layout as a number: per letter (1 + I, J or K) in base 4. */
static int64_t axes_code(const char *axes)
{
    int64_t code = 0;
    for (int x = (int)strlen(axes) - 1; x >= 0; x--)
        code = code * 4 + (axes[x] - 'I' + 1);
    return code;
}

/* A digest of a text, within +-2^62 (agreed values must negate safely). */
static int64_t hash_text(int64_t h, const char *text)
{
    uint64_t u = (uint64_t)h ^ 1469598103934665603ull;
    for (; text && *text; text++)
        u = (u ^ (unsigned char)*text) * 1099511628211ull;
    return (int64_t)(u >> 2);
}

static void describe(char *out, size_t len, ValueKind kind, int64_t v)
{
    char axes[4] = "";
    switch (kind) {
    case V_DTYPE:
        snprintf(out, len, "%s", gt_dtype_name((gt_dtype)v));
        break;
    case V_AXES:
        for (int x = 0; x < 3 && v > 0; x++, v /= 4)
            axes[x] = (char)('I' + v % 4 - 1);
        snprintf(out, len, "\"%s\"", axes);
        break;
    case V_GIVEN:
        snprintf(out, len, "%s", v ? "given" : "NULL");
        break;
    case V_REAL: {
        /* the fewest digits that give the value back */
        union { int64_t i; double d; } u = {v};
        for (int digits = 6; digits <= 17; digits++) {
            snprintf(out, len, "%.*g", digits, u.d);
            if (strtod(out, NULL) == u.d)
                break;
        }
        break;
    }
    case V_BOOL:
        snprintf(out, len, "%s", v ? "true" : "false");
        break;
    default:
        snprintf(out, len, "%lld", (long long)v);
        break;
    }
}

/* Value i disagrees (this rank has mine; hi and lo the largest and smallest): every rank
   fails with GT_EINVAL, naming it and the lowest ranks that hold its smallest and largest
   value. */
static int disagree(MPI_Comm comm, const char *fn, int rank, int i, int64_t mine, int64_t lo,
                    int64_t hi, const Agreed *what)
{
    const char *outcome = what->outcome ? what->outcome : "nothing was done";
    int have[2] = {mine == lo ? rank : INT_MAX, mine == hi ? rank : INT_MAX}, first[2];
    int err = MPI_Allreduce(have, first, 2, MPI_INT, MPI_MIN, comm);
    if (err != MPI_SUCCESS)
        return mpi_fail(fn, rank, "MPI_Allreduce", err);
    const Item *it = &what->items[what->group ? i % what->per : i];
    char name[160], a[40], b[40];
    if (what->group)
        snprintf(name, sizeof name, "%s %d's %s%s", what->group, i / what->per, it->what,
                 strcmp(what->group, "storage") ? "" : field_of(i / what->per));
    else
        snprintf(name, sizeof name, "%s", it->what);
    int r0 = first[0] < first[1] ? first[0] : first[1];
    int r1 = first[0] < first[1] ? first[1] : first[0];
    if (it->kind == V_HASH)
        return gt__error(GT_EINVAL, "%s: ranks %d and %d disagree on %s: every rank must pass "
                         "it alike; %s", fn, r0, r1, name, outcome);
    describe(a, sizeof a, it->kind, r0 == first[0] ? lo : hi);
    describe(b, sizeof b, it->kind, r0 == first[0] ? hi : lo);
    return gt__error(GT_EINVAL, "%s: ranks %d and %d disagree on %s (%s on rank %d, %s on "
                     "rank %d): every rank must pass it alike; %s", fn, r0, r1, name, a, r0, b,
                     r1, outcome);
}

/* The opening round (relay.h): which call this thread's next agreement opens (0: none). */
static _Thread_local int opening;

void gt__mpi_open(gt__mpi_collective call)
{
    opening = (int)call;
}

static const char *collective_name(int64_t call)
{
    static const char *const names[] = {"?", "gt_mpi_decompose", "gt_mpi_empty or gt_mpi_zeros",
                                        "gt_halo_exchange", "gt_mpi_call", "gt_mpi_steps",
                                        "a stencil's S_mpi"};
    return call > 0 && call <= GT_MPI_ENTRY ? names[call] : names[0];
}

int gt__mpi_open_allreduce(MPI_Comm comm, const char *fn, int rank, const int64_t *mine,
                           int64_t *most, int n)
{
    const int call = opening;
    opening = 0;
    int err;
    if (!call || n > GT_MPI_OPENING - 2) {
        err = MPI_Allreduce(mine, most, n, MPI_INT64_T, MPI_MAX, comm);
        return err == MPI_SUCCESS ? 0 : mpi_fail(fn, rank, "MPI_Allreduce", err);
    }
    int64_t a[GT_MPI_OPENING] = {0}, b[GT_MPI_OPENING];
    memcpy(a, mine, sizeof *a * (size_t)n);
    for (int i = n; i < GT_MPI_OPENING - 2; i++)
        a[i] = INT64_MIN;
    a[GT_MPI_OPENING - 2] = call;
    a[GT_MPI_OPENING - 1] = -call;
    err = MPI_Allreduce(a, b, GT_MPI_OPENING, MPI_INT64_T, MPI_MAX, comm);
    if (err != MPI_SUCCESS)
        return mpi_fail(fn, rank, "MPI_Allreduce", err);
    const int64_t lo = -b[GT_MPI_OPENING - 1], hi = b[GT_MPI_OPENING - 2];
    if (lo == hi) {
        memcpy(most, b, sizeof *most * (size_t)n);
        return 0;
    }
    /* the lowest rank in the first call (by number) and the lowest in the last */
    int have[2] = {call == lo ? rank : INT_MAX, call == hi ? rank : INT_MAX}, first[2];
    err = MPI_Allreduce(have, first, 2, MPI_INT, MPI_MIN, comm);
    if (err != MPI_SUCCESS)
        return mpi_fail(fn, rank, "MPI_Allreduce", err);
    const int swap = first[1] < first[0];
    const int r0 = first[swap], r1 = first[!swap];
    return gt__error(GT_EINVAL, "%s: ranks %d and %d are in different collective "
                     "calls (%s on rank %d, %s on rank %d): every rank must make the same "
                     "calls in the same order (a rank skipped a call, or made one more); "
                     "nothing was done", fn, r0, r1, collective_name(swap ? hi : lo), r0,
                     collective_name(swap ? lo : hi), r1);
}

enum { AGREE_CHUNK = 256 };   /* values per MPI_Allreduce of an agreement (8 KiB of stack) */

/* Agrees on rc (this rank's outcome so far) and on the values value(ctx, 0 .. count - 1),
   which every rank must hold alike; count must itself be alike on every rank (a constant,
   or agreed by an earlier agreement). Returns 0, or the same code on every rank: the worst
   rc (this rank's message kept where it failed with that code; the others' naming the
   lowest rank that did), else GT_EINVAL for the first value that differs; GT_EMPI where
   MPI fails; with what NULL, 1 for a value that differs, nothing recorded (the caller names
   it). Any nonzero rc is a failure: a positive one (what a caller's function of
   gt_mpi_call may return) too, ranked after every negative one, the smallest first.
   Values beyond +-2^62 compare as +-2^62. */
static int agree_same(MPI_Comm comm, const char *fn, int rc, int count, ValueFn *value,
                      const void *ctx, const Agreed *what)
{
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const int64_t bound = (int64_t)1 << 62;
    int start = 0;
    do {
        int m = count - start < AGREE_CHUNK ? count - start : AGREE_CHUNK;
        int64_t mine[1 + 2 * AGREE_CHUNK], most[1 + 2 * AGREE_CHUNK];
        mine[0] = gt__mpi_fail_key(rc, rank);
        for (int i = 0; i < m; i++) {
            int64_t v = value(ctx, start + i);
            mine[1 + i] = v < -bound ? -bound : v > bound ? bound : v;
            mine[1 + m + i] = -mine[1 + i];
        }
        int err = gt__mpi_open_allreduce(comm, fn, rank, mine, most, 1 + 2 * m);
        if (err != 0)
            return err;
        int who = 0, worst = gt__mpi_fail_worst(most[0], &who);
        if (worst != 0)   /* the failing rank's reason, to every rank (each rank's own
                             program may print only rank 0's messages) */
            return gt__mpi_failed(comm, fn, rank, rc, worst, who, what ? what->outcome : NULL);
        for (int i = 0; i < m; i++)
            if (most[1 + i] != -most[1 + m + i])
                return what ? disagree(comm, fn, rank, start + i, mine[1 + i],
                                       -most[1 + m + i], most[1 + i], what)
                            : 1;
        start += m;
    } while (start < count);
    return 0;
}

static const Item scalar_count_items[] = {{"the number of scalar arguments of the stencil",
                                           V_NUMBER}};
static const Agreed scalar_count_agreed = {scalar_count_items, 1, NULL, NULL};

int gt__mpi_same_scalars(MPI_Comm comm, const char *fn, int rank, const gt_stencil_info *info,
                         const gt__scalar *scalars, int n, int error)
{
    /* one round where they agree (every call of a correct program): a digest of their number
       and values; only where it differs, their number, then each value */
    uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)scalars[i].bits) * 1099511628211ull;
    const int64_t digest = (int64_t)(h >> 2), count = n;
    int rc = error ? gt__error(error, "%s: rank %d: out of memory", fn, rank) : 0;
    if ((rc = agree_same(comm, fn, rc, 1, array_value, &digest, NULL)) <= 0)
        return rc;
    if ((rc = agree_same(comm, fn, 0, 1, array_value, &count, &scalar_count_agreed)) != 0)
        return rc;
    /* each value: the largest of v and of ~v (the smallest of v; ~ does not overflow) */
    for (int start = 0; start < n; start += AGREE_CHUNK) {
        int m = n - start < AGREE_CHUNK ? n - start : AGREE_CHUNK;
        int64_t mine[2 * AGREE_CHUNK], most[2 * AGREE_CHUNK];
        for (int i = 0; i < m; i++) {
            mine[i] = scalars[start + i].bits;
            mine[m + i] = ~mine[i];
        }
        int err = MPI_Allreduce(mine, most, 2 * m, MPI_INT64_T, MPI_MAX, comm);
        if (err != MPI_SUCCESS)
            return agree_same(comm, fn, mpi_fail(fn, rank, "MPI_Allreduce", err), 0, NULL,
                              NULL, NULL);
        for (int i = 0; i < m; i++) {
            if (most[i] == ~most[m + i])
                continue;
            const gt__scalar *sc = &scalars[start + i];
            char what[200];
            snprintf(what, sizeof what, "scalar '%s' of stencil '%s'", sc->name,
                     info && info->name ? info->name : "?");
            const Item item = {what, sc->kind == 0 ? V_REAL : sc->kind == 2 ? V_BOOL
                                                                            : V_NUMBER};
            const Agreed agreed = {&item, 1, NULL, NULL};
            return disagree(comm, fn, rank, 0, mine[i], ~most[m + i], most[i], &agreed);
        }
    }
    return 0;
}

/* The worst of every rank's rc, the same on every rank (agree_same without values). */
static int agree(MPI_Comm comm, const char *fn, int rc)
{
    return agree_same(comm, fn, rc, 0, NULL, NULL, NULL);
}

int gt__mpi_agree(MPI_Comm comm, const char *fn, int rc, const char *outcome)
{
    const Agreed what = {NULL, 0, NULL, outcome};
    return agree_same(comm, fn, rc, 0, NULL, NULL, &what);
}

/* The same, once the stencil of a distributed call has run. */
static const Agreed ran_agreed = {NULL, 0, NULL, "the stencil may have run: its outputs may be "
                                   "written"};
static int agree_ran(MPI_Comm comm, const char *fn, int rc)
{
    return agree_same(comm, fn, rc, 0, NULL, NULL, &ran_agreed);
}

/* ---- decompositions ----------------------------------------------------------------------- */

/* The part of n points that coordinate c of p owns: remainders to the first ranks. */
static void split(int64_t n, int p, int c, int64_t *offset, int64_t *size)
{
    int64_t base = n / p, extra = n % p;
    *size = base + (c < extra);
    *offset = (int64_t)c * base + (c < extra ? c : extra);
}

/* What every rank must pass gt_mpi_decompose alike (dims and periodic as given, NULL as 0). */
static const Item decomposition_items[] = {
    {"the global size (global)", V_GIVEN},  {"the global size along I (global[0])", V_NUMBER},
    {"the global size along J (global[1])", V_NUMBER},
    {"the global size along K (global[2])", V_NUMBER},
    {"the processes along I (dims[0])", V_NUMBER}, {"the processes along J (dims[1])", V_NUMBER},
    {"periodic along I (periodic[0])", V_NUMBER}, {"periodic along J (periodic[1])", V_NUMBER}};
static const Agreed decomposition_agreed = {decomposition_items, 8, NULL, NULL};

/* 0 when MPI is up (initialized and not finalized), else GT_EMPI recorded for fn: the
   first thing every collective function does, since MPI forbids every other MPI call
   before MPI_Init and after MPI_Finalize (Open MPI aborts the process there). MPI_Initialized
   and MPI_Finalized may be called at any time. A rank that has finalized cannot tell the
   others: each rank that calls after its MPI_Finalize returns GT_EMPI at once. */
int gt__mpi_down(const char *fn)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        return gt__error(GT_EMPI, "%s: MPI is not initialized (call MPI_Init first)", fn);
    MPI_Finalized(&finalized);
    if (finalized)
        return gt__error(GT_EMPI, "%s: MPI is finalized (MPI_Finalize was called): no MPI "
                         "call is allowed any more", fn);
    return 0;
}

static int mpi_not_up(void)
{
    return gt__mpi_down("gt_mpi_decompose");
}

gt_decomp *gt_mpi_decompose(MPI_Comm comm, const int64_t global[3], const int dims_in[2],
                            const int periodic_in[2])
{
    static const char fn[] = "gt_mpi_decompose";
    if (mpi_not_up())
        return NULL;
    gt__mpi_open(GT_MPI_DECOMPOSE);
    if (comm == MPI_COMM_NULL)
        return gt__error(GT_EINVAL, "%s: the communicator is MPI_COMM_NULL", fn), NULL;
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int rc = 0;
    int dims[2] = {dims_in ? dims_in[0] : 0, dims_in ? dims_in[1] : 0};
    int periodic[2] = {periodic_in && periodic_in[0], periodic_in && periodic_in[1]};
    /* what every rank must pass alike (decomposition_items) */
    const int64_t same[8] = {global != NULL, global ? global[0] : 0, global ? global[1] : 0,
                             global ? global[2] : 0, dims[0], dims[1], periodic[0],
                             periodic[1]};
    if (!global)
        rc = gt__error(GT_EINVAL, "%s: rank %d: global size is NULL", fn, rank);
    for (int a = 0; !rc && a < 3; a++)
        if (global[a] < 1)
            rc = gt__error(GT_EINVAL, "%s: rank %d: global size along %c is %lld (must be >= 1)",
                           fn, rank, "IJK"[a], (long long)global[a]);
    if (!rc && (dims[0] < 0 || dims[1] < 0))
        rc = gt__error(GT_EINVAL, "%s: rank %d: process grid %d x %d has a negative entry", fn,
                       rank, dims[0], dims[1]);
    const int64_t grid = (int64_t)dims[0] * dims[1];   /* beyond int: no overflow */
    if (!rc && dims[0] > 0 && dims[1] > 0 && grid != size)
        rc = gt__error(GT_EINVAL, "%s: rank %d: a process grid of %d x %d needs %lld processes, "
                       "the communicator has %d", fn, rank, dims[0], dims[1], (long long)grid,
                       size);
    if (!rc && ((dims[0] > 0 && size % dims[0]) || (dims[1] > 0 && size % dims[1])))
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d processes cannot be split with %d along %c",
                       fn, rank, size, dims[0] > 0 && size % dims[0] ? dims[0] : dims[1],
                       dims[0] > 0 && size % dims[0] ? 'I' : 'J');
    const bool chosen = !rc && (dims[0] == 0 || dims[1] == 0);
    if (!rc) {
        int err = MPI_Dims_create(size, 2, dims);
        if (err != MPI_SUCCESS)
            rc = mpi_fail(fn, rank, "MPI_Dims_create", err);
    }
    /* MPI_Dims_create knows nothing of the global size: where its grid leaves a rank
       without a point and another grid (with the dims given) does not, the most balanced
       such grid (1 x 4 for 1 x 50 points, not 2 x 2) */
    if (!rc && chosen && (global[0] < dims[0] || global[1] < dims[1])) {
        int best = 0;
        for (int p = 1; p <= size; p++) {
            int q = size / p;
            if (size % p || (dims_in && dims_in[0] > 0 && p != dims_in[0]) ||
                (dims_in && dims_in[1] > 0 && q != dims_in[1]) || p > global[0] || q > global[1])
                continue;
            if (!best || (p > q ? p : q) < (best > size / best ? best : size / best))
                best = p;
        }
        if (best) {
            dims[0] = best;
            dims[1] = size / best;
        }
    }
    for (int a = 0; !rc && a < 2; a++)
        if (global[a] < dims[a])
            rc = gt__error(GT_ESHAPE, "%s: rank %d: %lld points along %c cannot be split over %d "
                           "processes (each must own at least one%s)", fn, rank,
                           (long long)global[a], "IJ"[a], dims[a],
                           !chosen ? ""
                           : dims_in && (dims_in[0] || dims_in[1])
                               ? "; no grid with the dims given gives each one"
                               : "; no grid of the communicator's processes gives each one");
    /* allocated before the agreement: a rank out of memory fails every rank */
    gt_decomp *d = rc ? NULL : zalloc(1, sizeof *d);
    if (!rc && !d)
        rc = gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, rank);
    if (agree_same(comm, fn, rc, 8, array_value, same, &decomposition_agreed) != 0) {
        gt__free(d);
        return NULL;
    }
    d->comm = MPI_COMM_NULL;
    int err = MPI_Cart_create(comm, 2, dims, periodic, 0, &d->comm);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_set_errhandler(d->comm, MPI_ERRORS_RETURN);
    rc = err != MPI_SUCCESS ? mpi_fail(fn, rank, "MPI_Cart_create", err) : 0;
    if (agree(comm, fn, rc) != 0) {
        if (d->comm != MPI_COMM_NULL)
            MPI_Comm_free(&d->comm);
        gt__free(d);
        return NULL;
    }
    MPI_Comm_rank(d->comm, &d->rank);
    MPI_Cart_coords(d->comm, d->rank, 2, d->coords);
    for (int a = 0; a < 2; a++) {
        d->dims[a] = dims[a];
        d->periodic[a] = periodic[a];
        split(global[a], dims[a], d->coords[a], &d->offset[a], &d->box[a]);
    }
    d->offset[2] = 0;
    d->box[2] = global[2];
    memcpy(d->global, global, sizeof d->global);
    for (int di = -1; di <= 1; di++)
        for (int dj = -1; dj <= 1; dj++) {
            int c[2] = {d->coords[0] + di, d->coords[1] + dj}, r = MPI_PROC_NULL;
            bool inside = true;
            for (int a = 0; a < 2; a++) {
                if (c[a] >= 0 && c[a] < dims[a])
                    continue;
                if (periodic[a])
                    c[a] = (c[a] + dims[a]) % dims[a];
                else
                    inside = false;
            }
            if (inside)
                MPI_Cart_rank(d->comm, c, &r);
            d->neighbour[di + 1][dj + 1] = r;
        }
    return d;
}

/* gt_mpi_decompose for Fortran (the module gtrt_mpi, docs/fortran.md): comm a Fortran
   handle (`use mpi`'s integer, mpi_f08's comm%MPI_VAL). MPI_Comm_f2c needs MPI up. */
gt_decomp *gt_mpi_decompose_f(MPI_Fint comm, const int64_t global[3], const int dims[2],
                              const int periodic[2])
{
    if (mpi_not_up())   /* MPI_Comm_f2c needs MPI up too */
        return NULL;
    return gt_mpi_decompose(MPI_Comm_f2c(comm), global, dims, periodic);
}

void gt_mpi_decomp_release(gt_decomp *d)
{
    if (!d)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Comm_free(&d->comm);
    gt__free(d);
}

int gt_mpi_box(const gt_decomp *d, int64_t offset[3], int64_t size[3])
{
    if (!d)
        return gt__error(GT_EINVAL, "gt_mpi_box: decomposition is NULL");
    if (offset)
        memcpy(offset, d->offset, sizeof d->offset);
    if (size)
        memcpy(size, d->box, sizeof d->box);
    return 0;
}

int gt_mpi_grid(const gt_decomp *d, int dims[2], int coords[2], int *rank)
{
    if (!d)
        return gt__error(GT_EINVAL, "gt_mpi_grid: decomposition is NULL");
    if (dims)
        memcpy(dims, d->dims, sizeof d->dims);
    if (coords)
        memcpy(coords, d->coords, sizeof d->coords);
    if (rank)
        *rank = d->rank;
    return 0;
}

MPI_Comm gt_mpi_comm(const gt_decomp *d)
{
    return d ? d->comm : MPI_COMM_NULL;
}

/* ---- local storages ------------------------------------------------------------------------ */

/* What every rank must pass gt_mpi_empty and gt_mpi_zeros alike: the storages of one role
   take part in the same exchanges (opts->halo by storage axis, 0 beyond them; the layout
   as made, from opts->layout or the preset). */
static const Item local_items[] = {
    {"the dtype", V_DTYPE}, {"the axes", V_AXES}, {"the layout", V_AXES},
    {"opts->halo[0][0]", V_NUMBER}, {"opts->halo[0][1]", V_NUMBER},
    {"opts->halo[1][0]", V_NUMBER}, {"opts->halo[1][1]", V_NUMBER},
    {"opts->halo[2][0]", V_NUMBER}, {"opts->halo[2][1]", V_NUMBER}};
static const Agreed local_agreed = {local_items, 9, NULL, NULL};

static gt_storage *local(const char *fn, const gt_decomp *d, gt_dtype t, const char *axes,
                         const gt_storage_opts *opts, bool zero)
{
    int rc = 0;
    int64_t shape[3] = {0, 0, 0};
    const char *ax = axes ? axes : "IJK";
    if (!d)
        return gt__error(GT_EINVAL, "%s: decomposition is NULL", fn), NULL;
    if (gt__mpi_down(fn))
        return NULL;
    gt__mpi_open(GT_MPI_LOCAL);
    size_t nd = strlen(ax);
    if (nd < 1 || nd > 3)
        rc = gt__error(GT_EINVAL, "%s: rank %d: axes \"%s\" (one to three of I, J, K)", fn,
                       d->rank, ax);
    for (size_t x = 0; !rc && x < nd; x++) {
        int a = ax[x] - 'I';
        int64_t lo = opts ? opts->halo[x][0] : 0, hi = opts ? opts->halo[x][1] : 0;
        if (a < 0 || a > 2)
            rc = gt__error(GT_EINVAL, "%s: rank %d: axes \"%s\": '%c' is not I, J or K", fn,
                           d->rank, ax, ax[x]);
        else if (lo < 0 || hi < 0 || lo > INT64_MAX / 4 || hi > INT64_MAX / 4)
            rc = gt__error(GT_EINVAL, "%s: rank %d: halo (%lld, %lld) along %c", fn, d->rank,
                           (long long)lo, (long long)hi, ax[x]);
        else
            shape[x] = d->box[a] + lo + hi;
    }
    gt_storage *s = NULL;
    if (!rc) {
        s = zero ? gt_zeros(t, ax, shape, opts) : gt_empty(t, ax, shape, opts);
        if (!s) {
            char why[900];
            snprintf(why, sizeof why, "%s", gt_last_error());
            rc = gt__error(gt_last_error_code(), "%s: rank %d: %s", fn, d->rank, why);
        }
    }
    int64_t same[9] = {t, 0, 0, 0, 0, 0, 0, 0, 0};
    if (s) {
        same[1] = axes_code(s->axes);
        same[2] = axes_code(s->layout);
        for (int x = 0; x < s->ndim; x++)
            for (int side = 0; side < 2; side++)
                same[3 + 2 * x + side] = s->halo[x][side];
    }
    if (agree_same(d->comm, fn, rc, 9, array_value, same, &local_agreed) != 0) {
        gt_release(s);
        return NULL;
    }
    return s;
}

gt_storage *gt_mpi_empty(const gt_decomp *d, gt_dtype t, const char *axes,
                         const gt_storage_opts *opts)
{
    return local("gt_mpi_empty", d, t, axes, opts, false);
}

gt_storage *gt_mpi_zeros(const gt_decomp *d, gt_dtype t, const char *axes,
                         const gt_storage_opts *opts)
{
    return local("gt_mpi_zeros", d, t, axes, opts, true);
}

int gt_mpi_widths(const gt_stencil_info *info, int field, gt_halo_widths out)
{
    if (!info || !out || field < 0 || field >= info->nfields || !info->fields)
        return gt__error(GT_EINVAL, "gt_mpi_widths: bad arguments (info %s, field %d of %d)",
                         info ? "given" : "NULL", field, info ? info->nfields : 0);
    for (int a = 0; a < 2; a++)
        for (int side = 0; side < 2; side++)
            out[a][side] = info->fields[field].reach[a][side];
    return 0;
}

/* ---- halo exchanges ------------------------------------------------------------------------ */

/* One message: a box of one storage (per storage axis: first element and count, in the
   storage's own index space, halo included), its peer and tag, and its packed bytes: in a
   host buffer of its own, or (dev) at off in the exchange's device block and, staged, at
   the same offset in its pinned staging buffer (buf points into the one MPI uses). */
typedef struct {
    int storage, peer, tag;
    int64_t lo[3], n[3];
    size_t bytes;
    unsigned char *buf;
    bool dev;
    size_t off;
} Strip;

/* The pinned staging buffer and the stream of an exchange whose strips are packed on the
   device, kept between exchanges (one set, taken and given back atomically, so that
   exchanges in flight at once each get their own; freed at exit and by gt__mpi_trim). */
typedef struct {
    const gt__device_ops *ops;
    void *stream;
    unsigned char *pinned;   /* NULL until a staged exchange needs it */
    size_t bytes;            /* of pinned */
} Staging;

static Staging *_Atomic kept_staging;
static atomic_flag staging_hook = ATOMIC_FLAG_INIT;

static void staging_destroy(Staging *st)
{
    if (!st)
        return;
    if (st->stream)
        st->ops->stream_destroy(st->stream);
    if (st->pinned)
        st->ops->release_pinned(st->pinned);
    gt__free(st);
}

void gt__mpi_trim(void)
{
    staging_destroy(atomic_exchange(&kept_staging, NULL));
}

static void staging_at_exit(void)
{
    gt__mpi_trim();
}

struct gt_exchange {
    const gt_decomp *d;
    gt_storage **s;
    Strip *recv, *send;
    int nrecv, nsend;
    MPI_Request *req;     /* nrecv receives, then nsend sends */
    /* the strips packed on the device (runtime.md section 4's device layer, ops) */
    bool *on_device;      /* per storage: its strips are packed on the device */
    const gt__device_ops *ops;
    bool direct;          /* MPI takes the device block itself (CUDA-aware), no staging */
    size_t dbytes;        /* of the device block (and of the staging buffer, staged) */
    unsigned char *dev;   /* the device block, from the pool (dev_raw, dev_pool) */
    void *dev_raw;
    size_t dev_pool;
    Staging *st;          /* stream and staging, while the exchange holds them */
    bool failed;          /* a device call failed: the staging set is not kept */
};

/* The box of storage s that a message travelling in direction (di, dj) covers: sent (recv
   false) from the interior strip the neighbour's halo mirrors, or received (recv true) into
   this rank's halo on the side the message comes from (-di, -dj). w: the widths
   [I/J][lower/upper]. */
static void strip_box(const gt_storage *s, const gt_halo_widths w, int di, int dj, bool recv,
                      Strip *st)
{
    int dir[2] = {di, dj};
    size_t count = 1;
    for (int x = 0; x < s->ndim; x++) {
        int a = s->axes[x] - 'I';
        int64_t h = s->halo[x][0], n = s->shape[x] - s->halo[x][0] - s->halo[x][1];
        if (a == 2 || dir[a] == 0) {  /* K (whole, halo too), or an axis not crossed */
            st->lo[x] = a == 2 ? 0 : h;
            st->n[x] = a == 2 ? s->shape[x] : n;
        } else {
            /* going up (+1): the neighbour above fills its lower halo, of width w[a][0] */
            int64_t width = dir[a] > 0 ? w[a][0] : w[a][1];
            st->n[x] = width;
            if (!recv)
                st->lo[x] = dir[a] > 0 ? h + n - width : h;
            else  /* what goes up comes from below: into this rank's lower halo */
                st->lo[x] = dir[a] > 0 ? h - width : h + n;
        }
        count *= (size_t)st->n[x];
    }
    st->bytes = count * gt_dtype_size(s->dtype);
}

/* Copies between a storage's box and a packed buffer (unpack: buffer to storage): the
   buffer holds the box densely in the storage's own layout (its smallest stride
   innermost), so both sides run along the storage's rows (gt__copy_box). */
static void pack(gt_storage *s, const Strip *st, bool unpack)
{
    size_t es = gt_dtype_size(s->dtype);
    unsigned char *base = (unsigned char *)gt__host_raw(s);
    int64_t off = 0, dense[3] = {0, 0, 0};   /* st->buf's strides */
    for (int x = 0; x < s->ndim; x++)
        off += st->lo[x] * s->strides[x];
    gt__dense_strides(s, st->n, dense);
    if (st->bytes == 0)
        return;
    if (unpack)
        gt__copy_box(base + off * (int64_t)es, s->strides, st->buf, dense, st->n, s->ndim, es);
    else
        gt__copy_box(st->buf, dense, base + off * (int64_t)es, s->strides, st->n, s->ndim, es);
}

static void exchange_free(gt_exchange *x)
{
    if (!x)
        return;
    for (int m = 0; m < x->nrecv; m++)
        if (!x->recv[m].dev)
            gt__free(x->recv[m].buf);
    for (int m = 0; m < x->nsend; m++)
        if (!x->send[m].dev)
            gt__free(x->send[m].buf);
    if (x->st) {
        /* nothing queued may still use the staging buffer or the device block */
        if (x->ops->stream_wait(x->st->stream) != 0 || x->failed)
            staging_destroy(x->st);
        else
            staging_destroy(atomic_exchange(&kept_staging, x->st));
    }
    if (x->dev_raw)
        gt__pool_put(x->ops, x->dev_raw, x->dev_pool);
    gt__free(x->on_device);
    gt__free(x->recv);
    gt__free(x->send);
    gt__free(x->req);
    gt__free(x->s);
    gt__free(x);
}

static bool packs_on_device(const gt_storage *s, const gt__device_ops *ops, bool direct);

/* GT_ESHAPE unless storage s has this rank's box of d along its dimension x; the message
   names it as `storage k`, or as field's storage after the stencil's name (field given). */
static int check_box(const char *fn, const gt_decomp *d, const gt_storage *s, int x, int k,
                     const char *stencil, const char *field)
{
    static const char box_fix[] = " make local storages with gt_mpi_empty or gt_mpi_zeros of "
                                  "this decomposition";
    int a = s->axes[x] - 'I';
    int64_t n = s->shape[x] - s->halo[x][0] - s->halo[x][1];
    if (n == d->box[a])
        return 0;
    if (field)
        return gt__error(GT_ESHAPE, "stencil '%s': %s: rank %d: the storage of field '%s' has "
                         "%lld points along %c, the decomposition gives this rank %lld (a "
                         "storage of another decomposition?%s)", stencil, fn, d->rank, field,
                         (long long)n, s->axes[x], (long long)d->box[a], box_fix);
    return gt__error(GT_ESHAPE, "%s: rank %d: storage %d%s has %lld points along %c, the "
                     "decomposition gives this rank %lld (a storage of another "
                     "decomposition?%s)", fn, d->rank, k, field_of(k), (long long)n, s->axes[x],
                     (long long)d->box[a], box_fix);
}

/* Checks storage k for the exchange: a local storage of d, with halos as wide as w, and
   this rank's box as wide as w along each axis split over several processes; a
   device-only one only where the device layer packs its strips (direct: MPI takes device
   buffers). */
static int check_storage(const char *fn, const gt_decomp *d, const gt_storage *s, int k,
                         const gt_halo_widths w, bool direct)
{
    const gt__device_ops *ops = gt__device_ops_get();
    if (s->buf->device_only && !packs_on_device(s, ops, direct))
        return gt__error(GT_EDEVICE, "%s: rank %d: storage %d is device-only (gt_wrap_device): "
                         "the device layer (%s) cannot pack its halo strips on the device, "
                         "and it has no host side to exchange through", fn, d->rank, k,
                         ops->name);
    for (int x = 0; x < s->ndim; x++) {
        int a = s->axes[x] - 'I';
        int64_t n = s->shape[x] - s->halo[x][0] - s->halo[x][1];
        int rc = check_box(fn, d, s, x, k, NULL, NULL);
        if (rc)
            return rc;
        if (a == 2)
            continue;
        for (int side = 0; side < 2; side++) {
            if (w[a][side] < 0)
                return gt__error(GT_EINVAL, "%s: rank %d: storage %d%s: negative width %lld "
                                 "along %c", fn, d->rank, k, field_of(k),
                                 (long long)w[a][side], s->axes[x]);
            if (w[a][side] > s->halo[x][side])
                return gt__error(GT_EHALO, "%s: rank %d: storage %d%s: its %s halo along %c is "
                                 "%lld, the exchange needs %lld: make the storage with a halo "
                                 "of at least %lld there (gt_storage_opts.halo), or exchange "
                                 "narrower widths", fn, d->rank, k, field_of(k),
                                 side ? "upper" : "lower", s->axes[x],
                                 (long long)s->halo[x][side], (long long)w[a][side],
                                 (long long)w[a][side]);
            /* the lower halo's width goes up, to the rank above along the axis, the
               upper halo's down: a rank on a non-periodic global edge sends nothing across
               it (the last rank along I of 3 points over 2 owns 1, and sends 1 column down
               for widths of 2 below and 1 above) */
            int dir[2] = {0, 0};
            dir[a] = side == 0 ? 1 : -1;
            bool sends = d->neighbour[dir[0] + 1][dir[1] + 1] != MPI_PROC_NULL;
            if (w[a][side] > n && d->dims[a] > 1 && sends)
                return gt__error(GT_ESHAPE, "%s: rank %d: storage %d%s: this rank owns %lld "
                                 "point(s) along %c, fewer than the halo width %lld it must "
                                 "send: split %c over fewer processes (%d now), or use a "
                                 "larger domain", fn, d->rank, k, field_of(k), (long long)n,
                                 s->axes[x], (long long)w[a][side], s->axes[x], d->dims[a]);
            if (w[a][side] > n && d->periodic[a])
                return gt__error(GT_ESHAPE, "%s: rank %d: storage %d%s: the periodic axis %c "
                                 "has %lld point(s) on its one process, fewer than the halo "
                                 "width %lld it must send across the seam: use a larger "
                                 "domain, or narrower widths", fn, d->rank, k, field_of(k),
                                 s->axes[x], (long long)n, (long long)w[a][side]);
        }
    }
    return 0;
}

/* The widths of storage k: given, or its whole halo along I and J. */
static void widths_of(const gt_storage *s, const gt_halo_widths *given, int k, gt_halo_widths w)
{
    memset(w, 0, sizeof(gt_halo_widths));
    for (int x = 0; x < s->ndim; x++) {
        int a = s->axes[x] - 'I';
        if (a == 2)
            continue;
        for (int side = 0; side < 2; side++)
            w[a][side] = given ? given[k][a][side] : s->halo[x][side];
    }
}

/* ---- strips packed on the device ------------------------------------------------------------

   A storage whose device side holds the newest data (CLEAN or DEVICE_DIRTY, the runtime
   keeping its sides in sync) is exchanged without touching its host side: each strip it
   sends is packed on the device (ops->pack, a kernel per strip) into one device block of
   the exchange, copied into a pinned staging buffer (ops->copy_async), and sent from there;
   each strip it receives arrives in the staging buffer, is copied into the device block and
   unpacked into the storage's device side (ops->unpack), which then is the newer side
   (DEVICE_DIRTY). Only the strips cross the bus, all on one stream, waited for once before
   the sends are posted and once after the strips are unpacked. Where MPI takes device
   buffers (CUDA-aware: GT_MPI_CUDA_AWARE, else MPIX_Query_cuda_support), it sends from and
   receives into the device block directly, and nothing is staged. */

/* Bytes at which a device strip of the exchange starts in its device block (and staging
   buffer): strips one after another, each on GT__POOL_ALIGN bytes. */
static size_t device_place(gt_exchange *x, size_t bytes)
{
    size_t off = x->dbytes;
    x->dbytes += (bytes + GT__POOL_ALIGN - 1) / GT__POOL_ALIGN * GT__POOL_ALIGN;
    return off;
}

/* Whether MPI takes device buffers: GT_MPI_CUDA_AWARE=1 or 0 if set, else Open MPI's answer
   at run time (MPIX_Query_cuda_support), else not. -1 for another value (error set). */
static int cuda_aware(const char *fn, int rank)
{
    const char *e = getenv("GT_MPI_CUDA_AWARE");
    if (e && *e) {
        if (strcmp(e, "0") == 0 || strcmp(e, "1") == 0)
            return e[0] == '1';
        return gt__error(GT_EINVAL, "%s: rank %d: GT_MPI_CUDA_AWARE is \"%.40s\" (it must be 0 "
                         "or 1, or unset)", fn, rank, e), -1;
    }
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#else
    return 0;
#endif
}

/* Whether s's strips are packed on the device: it is device-only (gt_wrap_device), or its
   device side holds the newest data and the runtime keeps its sides in sync
   (GT_MANAGED_RUNTIME; not unified memory, not GT_MANAGED_NONE, whose host side the caller
   keeps); and ops, the device layer of its device side, packs and has streams (and,
   staged, pinned memory and asynchronous copies). */
static bool packs_on_device(const gt_storage *s, const gt__device_ops *ops, bool direct)
{
    const gt__buffer *b = s->buf;
    if (!b->device || b->ops != ops || ops->unavailable)
        return false;
    if (!b->device_only && (b->managed != GT_MANAGED_RUNTIME || b->state == GT__HOST_DIRTY))
        return false;
    if (!ops->pack || !ops->unpack || !ops->stream_create || !ops->stream_destroy ||
        !ops->stream_wait)
        return false;
    return direct || (ops->alloc_pinned && ops->release_pinned && ops->copy_async);
}

/* A device call of the exchange failed (err): GT_EDEVICE naming what, the device layer's
   words; the staging set is not kept. */
static int device_fail(const char *fn, gt_exchange *x, const char *what, int err)
{
    x->failed = true;
    return gt__error(GT_EDEVICE, "%s: rank %d: %s failed (%s: %s)", fn, x->d->rank, what,
                     x->ops->name, gt__device_why(x->ops, err));
}

/* The device address of strip st's first element in its storage, and the strides of its
   packed form (dense, in the storage's own order of strides). */
static unsigned char *strip_on_device(const gt_storage *s, const Strip *st, int64_t dense[3])
{
    int64_t off = 0;
    for (int x = 0; x < s->ndim; x++)
        off += st->lo[x] * s->strides[x];
    dense[0] = dense[1] = dense[2] = 0;
    gt__dense_strides(s, st->n, dense);
    return (unsigned char *)gt__device_raw(s) + off * (int64_t)gt_dtype_size(s->dtype);
}

/* The device block, the stream and (staged) the staging buffer of the exchange; then each
   strip sent packed on the device (and copied into the staging buffer), waited for; and
   every device strip's buf set to where MPI finds it. */
static int device_pack(const char *fn, gt_exchange *x)
{
    if (x->dbytes == 0)
        return 0;
    const gt__device_ops *o = x->ops;
    int err = 0;
    x->dev = gt__pool_get(o, x->dbytes, &x->dev_raw, &x->dev_pool, &err);
    if (!x->dev) {
        x->dev_raw = NULL;
        return device_fail(fn, x, "allocating the device block of the halo strips", err);
    }
    Staging *st = atomic_exchange(&kept_staging, NULL);
    if (st && st->ops != o) {
        staging_destroy(st);
        st = NULL;
    }
    if (!st) {
        if (!(st = gt__malloc(sizeof *st)))
            return gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, x->d->rank);
        *st = (Staging){o, NULL, NULL, 0};
        if ((err = o->stream_create(&st->stream)) != 0) {
            st->stream = NULL;
            staging_destroy(st);
            return device_fail(fn, x, "creating a stream for the halo strips", err);
        }
        if (!atomic_flag_test_and_set(&staging_hook))
            atexit(staging_at_exit);
    }
    x->st = st;
    if (!x->direct && st->bytes < x->dbytes) {
        if (st->pinned)
            o->release_pinned(st->pinned);
        st->pinned = NULL;
        st->bytes = 0;
        void *p = NULL;
        if ((err = o->alloc_pinned(&p, x->dbytes)) != 0)
            return device_fail(fn, x, "allocating the pinned staging buffer of the halo strips",
                               err);
        st->pinned = p;
        st->bytes = x->dbytes;
    }
    for (int m = 0; m < x->nsend; m++) {
        Strip *t = &x->send[m];
        if (!t->dev)
            continue;
        const gt_storage *s = x->s[t->storage];
        int64_t dense[3];
        const unsigned char *box = strip_on_device(s, t, dense);
        if ((err = o->pack(x->dev + t->off, dense, box, s->strides, t->n, s->ndim,
                           gt_dtype_size(s->dtype), st->stream)) != 0)
            return device_fail(fn, x, "packing a halo strip on the device", err);
        if (!x->direct &&
            (err = o->copy_async(st->pinned + t->off, t->bytes, x->dev + t->off, t->bytes,
                                 t->bytes, 1, 0, st->stream)) != 0)
            return device_fail(fn, x, "copying a halo strip device to host", err);
    }
    if ((err = o->stream_wait(st->stream)) != 0)
        return device_fail(fn, x, "waiting for the halo strips' packing", err);
    for (int m = 0; m < x->nsend; m++)
        if (x->send[m].dev)
            x->send[m].buf = (x->direct ? x->dev : st->pinned) + x->send[m].off;
    for (int m = 0; m < x->nrecv; m++)
        if (x->recv[m].dev)
            x->recv[m].buf = (x->direct ? x->dev : st->pinned) + x->recv[m].off;
    return 0;
}

/* The strips received for storages packed on the device: each storage's device side
   brought up to date and marked newer (an inner box that ran on the host meanwhile made
   its host side newer: it is uploaded whole), then each strip copied from the staging
   buffer into the device block (staged) and unpacked into the storage, waited for. */
static int device_unpack(const char *fn, gt_exchange *x)
{
    const gt__device_ops *o = x->ops;
    int rc = 0, err = 0;
    for (int m = 0; !rc && m < x->nrecv; m++)
        if (x->recv[m].dev && (m == 0 || x->recv[m].storage != x->recv[m - 1].storage))
            rc = gt__sync_device(fn, x->s[x->recv[m].storage], GT_READWRITE);
    for (int m = 0; !rc && m < x->nrecv; m++) {
        Strip *r = &x->recv[m];
        if (!r->dev)
            continue;
        const gt_storage *s = x->s[r->storage];
        int64_t dense[3];
        unsigned char *box = strip_on_device(s, r, dense);
        if (!x->direct &&
            (err = o->copy_async(x->dev + r->off, r->bytes, x->st->pinned + r->off, r->bytes,
                                 r->bytes, 1, 1, x->st->stream)) != 0)
            rc = device_fail(fn, x, "copying a halo strip host to device", err);
        else if ((err = o->unpack(box, s->strides, x->dev + r->off, dense, r->n, s->ndim,
                                  gt_dtype_size(s->dtype), x->st->stream)) != 0)
            rc = device_fail(fn, x, "unpacking a halo strip on the device", err);
    }
    if (x->st && (err = o->stream_wait(x->st->stream)) != 0 && !rc)
        rc = device_fail(fn, x, "waiting for the halo strips' unpacking", err);
    return rc;
}

/* The strips of storage k (its number in the exchange), packing what is sent. */
static int plan_storage(const char *fn, gt_exchange *x, int k, const gt_halo_widths *widths)
{
    const gt_decomp *d = x->d;
    gt_storage *s = x->s[k];
    gt_halo_widths w;
    widths_of(s, widths, k, w);
    bool has[2] = {false, false};
    for (int e = 0; e < s->ndim; e++)
        if (s->axes[e] != 'K')
            has[s->axes[e] - 'I'] = true;
    for (int di = -1; di <= 1; di++)
        for (int dj = -1; dj <= 1; dj++) {
            if ((di == 0 && dj == 0) || (di && !has[0]) || (dj && !has[1]))
                continue;
            /* send towards (di, dj); receive what travels the same way, from (-di, -dj) */
            int tag = k * 9 + (di + 1) * 3 + (dj + 1);
            Strip snd = {.storage = k, .peer = d->neighbour[di + 1][dj + 1], .tag = tag};
            Strip rcv = {.storage = k, .peer = d->neighbour[1 - di][1 - dj], .tag = tag};
            strip_box(s, w, di, dj, false, &snd);
            strip_box(s, w, di, dj, true, &rcv);
            if (snd.bytes > INT_MAX || rcv.bytes > INT_MAX)
                return gt__error(GT_EINVAL, "%s: rank %d: storage %d: a halo strip of %zu bytes "
                                 "(one message holds at most %d)", fn, d->rank, k,
                                 snd.bytes > rcv.bytes ? snd.bytes : rcv.bytes, INT_MAX);
            if (snd.peer != MPI_PROC_NULL && snd.bytes) {
                if (x->on_device[k]) {   /* packed by device_pack */
                    snd.dev = true;
                    snd.off = device_place(x, snd.bytes);
                } else {
                    if (!(snd.buf = gt__malloc(snd.bytes)))
                        return gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn,
                                         d->rank);
                    pack(s, &snd, false);
                }
                x->send[x->nsend++] = snd;
            }
            if (rcv.peer != MPI_PROC_NULL && rcv.bytes) {
                if (x->on_device[k]) {
                    rcv.dev = true;
                    rcv.off = device_place(x, rcv.bytes);
                } else if (!(rcv.buf = gt__malloc(rcv.bytes))) {
                    return gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
                }
                x->recv[x->nrecv++] = rcv;
            }
        }
    return 0;
}

/* What every rank must pass alike for each storage of an exchange: what sizes its messages
   and orders their elements (a message holds the storage's whole extent along K, halo
   included, packed in the storage's layout). */
static const Item storage_items[] = {
    {"dtype", V_DTYPE}, {"axes", V_AXES}, {"layout", V_AXES},
    {"extent along K, halo included", V_NUMBER}, {"lower halo along K", V_NUMBER},
    {"upper halo along K", V_NUMBER}, {"width of the lower halo along I", V_NUMBER},
    {"width of the upper halo along I", V_NUMBER}, {"width of the lower halo along J", V_NUMBER},
    {"width of the upper halo along J", V_NUMBER}};
enum { STORAGE_ITEMS = 10 };
static const Agreed storage_agreed = {storage_items, STORAGE_ITEMS, "storage", NULL};

/* The storages of an exchange or of a distributed call, for agree_same. */
typedef struct {
    gt_storage *const *s;
    const gt_halo_widths *widths;
    bool call;   /* gt_mpi_call: NULL widths are what the stencil reads (agreed later): 0 here */
} Storages;

/* Value i of the storages: item i % STORAGE_ITEMS of storage i / STORAGE_ITEMS. */
static int64_t storage_value(const void *ctx, int i)
{
    const Storages *st = ctx;
    int k = i / STORAGE_ITEMS, item = i % STORAGE_ITEMS;
    const gt_storage *s = st->s[k];
    if (item == 0)
        return s->dtype;
    if (item < 3)
        return axes_code(item == 1 ? s->axes : s->layout);
    if (item < 6) {
        for (int x = 0; x < s->ndim; x++)
            if (s->axes[x] == 'K')
                return item == 3 ? s->shape[x] : s->halo[x][item - 4];
        return 0;
    }
    gt_halo_widths w = {{0, 0}, {0, 0}};
    if (!st->call || st->widths)
        widths_of(s, st->widths, k, w);
    return w[(item - 6) / 2][(item - 6) % 2];
}

static const Item exchange_items[] = {{"the number of storages (n)", V_NUMBER}};
static const Agreed exchange_agreed = {exchange_items, 1, NULL, NULL};

/* gt_halo_exchange_begin, its messages starting with fn: the function the caller called
   (gt_halo_exchange, gt_halo_exchange_begin; gt_mpi_call's exchange says gt_halo_exchange) */
static gt_exchange *exchange_begin(const char *fn, const gt_decomp *d,
                                   gt_storage *const *storages, int n,
                                   const gt_halo_widths *widths)
{
    if (!d)
        return gt__error(GT_EINVAL, "%s: decomposition is NULL", fn), NULL;
    if (gt__mpi_down(fn))
        return NULL;
    /* first what can be checked without reading the storages, and their number */
    int rc = 0;
    if (n < 0)
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d storages; the count must be >= 0", fn,
                       d->rank, n);
    else if (n > 0 && !storages)
        rc = gt__error(GT_EINVAL, "%s: rank %d: storages is NULL, for %d storages", fn,
                       d->rank, n);
    else if (n > 32767 / 9)
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d storages in one exchange (at most %d)", fn,
                       d->rank, n, 32767 / 9);
    for (int k = 0; !rc && k < n; k++)
        if (!storages[k])
            rc = gt__error(GT_EINVAL, "%s: rank %d: storage %d is NULL", fn, d->rank, k);
    const int64_t count = n;
    if (agree_same(d->comm, fn, rc, 1, array_value, &count, &exchange_agreed) != 0)
        return NULL;
    /* whether MPI takes device buffers (GT_MPI_CUDA_AWARE checked on every rank) */
    int aware = cuda_aware(fn, d->rank);
    if (aware < 0)
        rc = GT_EINVAL;
    /* then each storage: this rank's checks, and what every rank must pass alike */
    for (int k = 0; !rc && k < n; k++) {
        gt_halo_widths w;
        widths_of(storages[k], widths, k, w);
        rc = check_storage(fn, d, storages[k], k, w, aware == 1);
    }
    for (int k = 0; !rc && k < n; k++)
        for (int m = 0; !rc && m < k; m++)
            if (storages[k]->buf == storages[m]->buf)
                rc = gt__error(GT_EALIAS, "%s: rank %d: storages %d and %d share a buffer", fn,
                               d->rank, m, k);
    const Storages st = {storages, widths, false};
    if (agree_same(d->comm, fn, rc, n * STORAGE_ITEMS, storage_value, &st, &storage_agreed))
        return NULL;
    int err;
    gt_exchange *x = NULL;
    size_t most = (size_t)(n > 0 ? n : 1) * 8;
    if (!rc) {
        x = zalloc(1, sizeof *x);
        if (x) {
            x->d = d;
            x->ops = gt__device_ops_get();
            x->direct = aware == 1;
            x->s = zalloc((size_t)(n > 0 ? n : 1), sizeof *x->s);
            x->on_device = zalloc((size_t)(n > 0 ? n : 1), sizeof *x->on_device);
            x->recv = zalloc(most, sizeof *x->recv);
            x->send = zalloc(most, sizeof *x->send);
            x->req = zalloc(2 * most, sizeof *x->req);
        }
        if (!x || !x->s || !x->on_device || !x->recv || !x->send || !x->req)
            rc = gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
    }
    /* each storage packed on the device where its device side is the newest, else on the
       host, whose side is brought up to date first and marked newer */
    for (int k = 0; !rc && k < n; k++) {
        x->s[k] = storages[k];
        x->on_device[k] = packs_on_device(storages[k], x->ops, x->direct);
        if (!x->on_device[k])
            rc = gt__sync_host(fn, storages[k], GT_READWRITE);
    }
    for (int k = 0; !rc && k < n; k++)
        rc = plan_storage(fn, x, k, widths);
    if (!rc)
        rc = device_pack(fn, x);
    if (agree(d->comm, fn, rc) != 0) {
        exchange_free(x);
        return NULL;
    }
    /* every rank agreed: post every receive, then every send */
    for (int m = 0; !rc && m < x->nrecv; m++) {
        Strip *r = &x->recv[m];
        err = MPI_Irecv(r->buf, (int)r->bytes, MPI_BYTE, r->peer, r->tag, d->comm, &x->req[m]);
        if (err != MPI_SUCCESS)
            rc = mpi_fail(fn, d->rank, "MPI_Irecv", err);
    }
    for (int m = 0; !rc && m < x->nsend; m++) {
        Strip *t = &x->send[m];
        err = MPI_Isend(t->buf, (int)t->bytes, MPI_BYTE, t->peer, t->tag, d->comm,
                        &x->req[x->nrecv + m]);
        if (err != MPI_SUCCESS)
            rc = mpi_fail(fn, d->rank, "MPI_Isend", err);
    }
    if (rc) {  /* (MPI itself failed: the requests posted are left to MPI) */
        exchange_free(x);
        return NULL;
    }
    return x;
}

/* gt_halo_exchange_end, its messages starting with fn, as exchange_begin's */
static int exchange_end(const char *fn, gt_exchange *x)
{
    if (!x)
        return gt__error(GT_EINVAL, "%s: exchange is NULL", fn);
    if (gt__mpi_down(fn)) {
        /* its messages died with MPI: its buffers are freed, its halos left as they were */
        x->failed = true;
        exchange_free(x);
        return GT_EMPI;
    }
    int rc = 0;
    int err = MPI_Waitall(x->nrecv + x->nsend, x->req, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
        rc = mpi_fail(fn, x->d->rank, "MPI_Waitall", err);
    /* a storage exchanged through its host side may have been used on the device since
       begin (the inner box of gt_mpi_call uploads its inputs): its host side is brought up
       to date again and marked newer before its halos are written */
    for (int m = 0; !rc && m < x->nrecv; m++)
        if (!x->recv[m].dev && (m == 0 || x->recv[m].storage != x->recv[m - 1].storage))
            rc = gt__sync_host(fn, x->s[x->recv[m].storage], GT_READWRITE);
    for (int m = 0; !rc && m < x->nrecv; m++)
        if (!x->recv[m].dev)
            pack(x->s[x->recv[m].storage], &x->recv[m], true);
    if (!rc)
        rc = device_unpack(fn, x);
    exchange_free(x);
    return rc;
}

gt_exchange *gt_halo_exchange_begin(const gt_decomp *d, gt_storage *const *storages, int n,
                                    const gt_halo_widths *widths)
{
    gt__mpi_open(GT_MPI_EXCHANGE);
    return exchange_begin("gt_halo_exchange_begin", d, storages, n, widths);
}

int gt_halo_exchange_end(gt_exchange *x)
{
    return exchange_end("gt_halo_exchange_end", x);
}

int gt_halo_exchange(const gt_decomp *d, gt_storage *const *storages, int n,
                     const gt_halo_widths *widths)
{
    gt__mpi_open(GT_MPI_EXCHANGE);
    gt_exchange *x = exchange_begin("gt_halo_exchange", d, storages, n, widths);
    return x ? exchange_end("gt_halo_exchange", x) : gt_last_error_code();
}

/* ---- distributed calls ----------------------------------------------------------------- */

/* The failing rank's message of a call of the stencil (the checking call, a part) names the
   rank, as every message of this layer does: the stencil's own checks (gt__bind: a NULL out scalar, a dtype, a storage
   whose interior is not this rank's box) know nothing of ranks, and said "stencil 'lap':
   field 'u': the domain is 6 along J ..." on the rank that failed (and on every rank when all
   failed) with no word of which. "rank R: " goes after the "stencil 'S': " it starts with,
   unless it names the rank already (the layer's hooks do). A code that is not the
   runtime's last error's (the caller's function returned one of its own, a positive one
   say) has no message of the runtime: the message says what it returned. */
static int name_rank(int rank, int rc)
{
    if (rc != gt_last_error_code())
        return gt__error(rc, "rank %d: the function calling the stencil returned %d, not "
                         "the code of the runtime's last error (a failure of its own?)", rank,
                         rc);
    char msg[1024], mine[40];
    snprintf(msg, sizeof msg, "%s", gt_last_error());
    snprintf(mine, sizeof mine, "rank %d: ", rank);
    if (strstr(msg, mine))
        return rc;
    size_t head = 0;
    if (strncmp(msg, "stencil '", 9) == 0) {
        const char *q = strstr(msg + 9, "': ");
        if (q)
            head = (size_t)(q + 3 - msg);
    }
    return gt__error(rc, "%.*s%s%s", (int)head, msg, mine, msg + head);
}

/* call() over local positions [lo, lo + size) along I and J (beyond the box where the part
   is grown into the halos), whose first point is the global point origin. */
static int call_piece(gt__mpi_call *c, const int64_t lo[2], const int64_t size[2],
                      const int64_t origin[2], int64_t nk, gt_mpi_stencil_fn *call, void *ctx)
{
    if (size[0] <= 0 || size[1] <= 0)
        return 0;
    gt__placement *p = &c->place;
    for (int a = 0; a < 2; a++) {
        p->origin[a] = origin[a];
        p->size[a] = size[a];
        p->part[a] = lo[a];
    }
    gt_domain dom = {{size[0], size[1], nk}};
    p->in_part = 1;
    gt__placement_set(p);
    int rc = call(ctx, &dom);
    gt__placement_set(NULL);
    p->in_part = 0;
    return rc ? name_rank(c->rank, rc) : 0;
}

/* call() over the part [lo, lo + size) of the box (nothing if empty), the part made the
   current placement of the stencil (gt__place): its global origin and size, and the
   interior that the binding of each storage sees (gt__halo; the storages are not
   changed). */
static int call_part(const gt_decomp *d, gt__mpi_call *c, const int64_t lo[2],
                     const int64_t size[2], int64_t nk, gt_mpi_stencil_fn *call, void *ctx)
{
    const int64_t origin[2] = {d->offset[0] + lo[0], d->offset[1] + lo[1]};
    return call_piece(c, lo, size, origin, nk, call, ctx);
}

/* call() over the whole box with gt__place returning check: 1, the checking call (the
   stencil returns after its argument checks; it must call one generated stencil, and
   learns what that stencil reads of each storage on the internal sides, c->needed), or 2,
   the check of the run-time K levels after the exchange (gt__levels_now deferred it: the
   check reads halos the exchange fills; the stencil checks its levels and returns). */
static int check_call(const gt_decomp *d, gt__mpi_call *c, int check, gt_mpi_stencil_fn *call,
                      void *ctx)
{
    static const char fn[] = "gt_mpi_call";
    gt__placement *p = &c->place;
    gt_domain dom = {{d->box[0], d->box[1], d->box[2]}};
    for (int a = 0; a < 2; a++) {
        p->origin[a] = d->offset[a];
        p->size[a] = d->box[a];
    }
    p->check = check;
    gt__placement_set(p);
    int rc = call(ctx, &dom);
    gt__placement_set(NULL);
    p->check = 0;
    if (check == 1 && rc == 0 && p->calls != 1)
        rc = gt__error(GT_EINVAL, "%s: rank %d: the function called %d generated stencil(s); "
                       "it must call exactly one, compiled by this gtcc (older generated code "
                       "cannot take part in distributed calls)", fn, d->rank, p->calls);
    return rc ? name_rank(d->rank, rc) : 0;
}

/* What the ranks' stencils must have alike: their out scalars (each slot's operation and
   dtype; combine_results), and the stencil itself (its name and fields; stencil_digest). */
static const Item results_items[] = {{"the number of out scalars of the stencil", V_NUMBER}};
static const char ran[] = "the stencil has run: its outputs are written, its out scalars hold "
                         "this rank's part";
static const Agreed results_agreed = {results_items, 1, NULL, ran};
static const Item slot_items[] = {{"operation (0 sum, 1 min, 2 max)", V_NUMBER},
                                  {"dtype", V_DTYPE}};
static const Agreed slot_agreed = {slot_items, 2, "out scalar", ran};

static int64_t slot_value(const void *ctx, int i)
{
    const gt__reduction *r = &((const gt__mpi_call *)ctx)->red[i / 2];
    return i % 2 ? (int64_t)r->dtype : (int64_t)r->op;
}

/* Combines each out scalar over the ranks, in rank order, and writes it where the stencil
   wrote its part's value. Every rank's stencil must have the same out scalars: their
   number agreed first, then each one's operation and dtype, then one MPI_Allgather of
   every value. */
static int combine_results(const gt_decomp *d, gt__mpi_call *w)
{
    static const char fn[] = "gt_mpi_call";
    int size = 0, rc = w->red_error
                           ? gt__error(w->red_error, "%s: rank %d: the out scalars could not "
                                       "be combined (%s)", fn, d->rank,
                                       w->red_error == GT_ENOMEM ? "out of memory"
                                                                 : "their parts disagree")
                           : 0;
    MPI_Comm_size(d->comm, &size);
    size_t bytes = sizeof w->red->value, slots = (size_t)(w->nred > 0 ? w->nred : 1);
    /* every rank's values, rank after rank, slot after slot */
    unsigned char *mine = zalloc(slots, bytes), *all = zalloc((size_t)size * slots, bytes);
    if (!rc && (!mine || !all))
        rc = gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
    const int64_t count = w->nred;
    rc = agree_same(d->comm, fn, rc, 1, array_value, &count, &results_agreed);
    if (!rc)
        rc = agree_same(d->comm, fn, 0, 2 * w->nred, slot_value, w, &slot_agreed);
    if (!rc && w->nred > 0) {
        for (int slot = 0; slot < w->nred; slot++)
            memcpy(mine + (size_t)slot * bytes, &w->red[slot].value, bytes);
        int each = (int)(slots * bytes);
        int err = MPI_Allgather(mine, each, MPI_BYTE, all, each, MPI_BYTE, d->comm);
        rc = agree_same(d->comm, fn, err == MPI_SUCCESS ? 0 : mpi_fail(fn, d->rank,
                        "MPI_Allgather", err), 0, NULL, NULL, &results_agreed);
    }
    for (int slot = 0; !rc && slot < w->nred; slot++) {
        gt__reduction *r = &w->red[slot];
        gt__reduction total = {.op = r->op, .dtype = r->dtype};
        for (int k = 0; k < size; k++)
            gt__reduction_combine(&total, all + ((size_t)k * slots + (size_t)slot) * bytes);
        if (r->result)
            memcpy(r->result, &total.value, gt_dtype_size(r->dtype));
    }
    gt__free(mine);
    gt__free(all);
    return rc;
}

/* A digest of the stencil the checking call saw: its name and each field's name, dtype,
   axes and role (0 where it called none). */
static int64_t stencil_digest(const gt_stencil_info *info)
{
    if (!info)
        return 0;
    int64_t h = hash_text(info->nfields, info->name);
    for (int f = 0; f < info->nfields; f++) {
        h = hash_text(h, info->fields[f].name);
        h = hash_text(h ^ (info->fields[f].dtype * 2 + (info->fields[f].is_output != 0)),
                      info->fields[f].axes);
    }
    return h;
}

/* What every rank must pass gt_mpi_call alike before the checking call (then each
   storage: storage_items, explicit widths only), and after it. */
static const Item call_items[] = {{"the number of storages (n)", V_NUMBER},
                                  {"the widths (widths)", V_GIVEN}};
static const Agreed call_agreed = {call_items, 2, NULL, NULL};
static const Item checked_items[] = {{"the stencil called (its name or fields)", V_HASH}};
static const Agreed checked_agreed = {checked_items, 1, NULL, NULL};

int gt_mpi_call(const gt_decomp *d, gt_storage *const *storages, int n,
                const gt_halo_widths *widths, gt_mpi_stencil_fn *call, void *ctx, int overlap,
                double times[2])
{
    static const char fn[] = "gt_mpi_call";
    if (!d)
        return gt__error(GT_EINVAL, "%s: decomposition is NULL", fn);
    if (gt__mpi_down(fn))
        return GT_EMPI;
    gt__mpi_open(GT_MPI_CALL);
    double t[2] = {0, 0};
    int rc = call ? 0 : gt__error(GT_EINVAL, "%s: rank %d: stencil function is NULL", fn,
                                  d->rank);
    if (!rc && n < 0)
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d storages; the count must be >= 0", fn,
                       d->rank, n);
    else if (!rc && n > 0 && !storages)
        rc = gt__error(GT_EINVAL, "%s: rank %d: storages is NULL, for %d storages", fn,
                       d->rank, n);
    else if (!rc && n > 32767 / 9)   /* as gt_halo_exchange */
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d storages (at most %d)", fn, d->rank, n,
                       32767 / 9);
    for (int k = 0; !rc && k < n; k++)
        if (!storages[k])
            rc = gt__error(GT_EINVAL, "%s: rank %d: storage %d is NULL", fn, d->rank, k);
    /* every storage is exchanged, so each must hold this rank's box: said here, with the
       fix, before the checking call's binding says "the domain is N" (of a domain the
       caller never gave) */
    for (int k = 0; !rc && k < n; k++)
        for (int x = 0; !rc && x < storages[k]->ndim; x++)
            if (storages[k]->axes[x] != 'K')
                rc = check_box(fn, d, storages[k], x, k, NULL, NULL);
    size_t count = (size_t)(n > 0 ? n : 1);
    /* one more: whether the run-time K levels are checked after the exchange */
    gt_halo_widths *needed = zalloc(count + 1, sizeof *needed);
    const char **needed_by = zalloc(count, sizeof *needed_by);
    gt__mpi_call w;
    gt__mpi_call_init(&w, d->rank, n, storages, needed, needed_by);
    if (!rc && (!needed || !needed_by))
        rc = gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
    /* the number of storages before anything sized by it, then each storage */
    const int64_t same[2] = {n, widths != NULL};
    const Storages st = {storages, widths, true};
    rc = agree_same(d->comm, fn, rc, 2, array_value, same, &call_agreed);
    if (!rc)
        rc = agree_same(d->comm, fn, 0, n * STORAGE_ITEMS, storage_value, &st, &storage_agreed);
    if (rc) {
        gt__free(needed);
        gt__free(needed_by);
        return rc;
    }
    for (int a = 0; a < 2; a++) {
        w.place.global[a] = d->global[a];
        w.place.wrap[a] = d->periodic[a];
        w.place.inner[a][0] = d->periodic[a] || d->offset[a] > 0;
        w.place.inner[a][1] = d->periodic[a] || d->offset[a] + d->box[a] < d->global[a];
    }
    /* the checking call, then the widths: as given (at least what the stencil reads on
       the internal sides) or, NULL, what the stencil reads */
    rc = check_call(d, &w, 1, call, ctx);
    /* one exchange for all: what any rank's stencil reads (a rank on a global edge reads
       nothing beyond it; the exchange wants the same widths everywhere); and whether any
       rank checks the run-time K levels only after the exchange (gt__levels_now). n is
       agreed: the same count on every rank */
    needed[n][0][0] = w.levels == 2;
    needed[n][0][1] = w.place.whole;
    {
        int err = MPI_Allreduce(MPI_IN_PLACE, needed, 4 * (n + 1), MPI_INT64_T, MPI_MAX,
                                d->comm);
        if (err != MPI_SUCCESS && !rc)
            rc = mpi_fail(fn, d->rank, "MPI_Allreduce", err);
    }
    const bool levels_after = needed[n][0][0] > 0;
    /* a stencil that reads a field it writes beyond the point: parts computed one after
       another would read what the parts before wrote (docs/mpi.md): one part */
    const bool whole = needed[n][0][1] > 0;
    for (int k = 0; !rc && widths && k < n; k++)
        for (int a = 0; !rc && a < 2; a++)
            for (int side = 0; !rc && side < 2; side++)
                if (widths[k][a][side] < needed[k][a][side])
                    rc = gt__error(GT_EHALO, "%s: rank %d: widths[%d] exchange %lld point(s) "
                                   "of the %s %s halo, but field '%s' of the stencil reads "
                                   "%lld there: give widths[%d] at least that, or NULL widths "
                                   "(as far as the stencil reads)", fn, d->rank, k,
                                   (long long)widths[k][a][side], side ? "upper" : "lower",
                                   a ? "J" : "I", needed_by[k], (long long)needed[k][a][side],
                                   k);
    const gt_halo_widths *use = widths ? widths : (const gt_halo_widths *)needed;
    w.widths = (const gt__mpi_widths *)use;
    /* every rank's checks passed, and every rank calls the same stencil */
    const int64_t digest = stencil_digest(w.place.info);
    rc = agree_same(d->comm, fn, rc, 1, array_value, &digest, &checked_agreed);
    /* ... with the same scalar arguments */
    if (!rc)
        rc = gt__mpi_same_scalars(d->comm, fn, d->rank, w.place.info, w.scalars, w.nscalars,
                                  w.scalars_error);
    if (rc != 0) {
        gt__free(needed);
        gt__free(needed_by);
        gt__mpi_call_free(&w);
        gt__mpi_call_end(&w, 0);   /* nothing was written */
        return rc;
    }
    /* the widest width on each side of each axis: the inner box needs none of the halo */
    int64_t wide[2][2] = {{0, 0}, {0, 0}};
    for (int k = 0; k < n; k++) {
        gt_halo_widths x;
        widths_of(storages[k], use, k, x);
        for (int a = 0; a < 2; a++)
            for (int side = 0; side < 2; side++)
                wide[a][side] = x[a][side] > wide[a][side] ? x[a][side] : wide[a][side];
    }
    const int64_t box[2] = {d->box[0], d->box[1]}, nk = d->box[2];
    double t0 = MPI_Wtime();
    gt_exchange *x = exchange_begin("gt_halo_exchange", d, storages, n, use);
    if (!x) {
        gt__free(needed);
        gt__free(needed_by);
        gt__mpi_call_free(&w);
        gt__mpi_call_end(&w, 0);
        return gt_last_error_code();
    }
    if (levels_after) {
        /* the check of the run-time K levels reads halos: once they are exchanged, every
           rank checks, then they agree, then the box is computed (no overlap) */
        rc = exchange_end("gt_halo_exchange", x);
        double t1 = MPI_Wtime();
        t[0] = t1 - t0;
        if (!rc)
            rc = check_call(d, &w, 2, call, ctx);
        rc = agree(d->comm, fn, rc);
        const int64_t origin[2] = {0, 0};
        if (!rc)
            rc = call_part(d, &w, origin, box, nk, call, ctx);
        t[1] = MPI_Wtime() - t1;
    } else if (!overlap || whole) {
        rc = exchange_end("gt_halo_exchange", x);
        double t1 = MPI_Wtime();
        t[0] = t1 - t0;
        const int64_t origin[2] = {0, 0};
        if (!rc)
            rc = call_part(d, &w, origin, box, nk, call, ctx);
        t[1] = MPI_Wtime() - t1;
    } else {
        double t1 = MPI_Wtime();
        const int64_t in_lo[2] = {wide[0][0], wide[1][0]};
        const int64_t in_n[2] = {box[0] - wide[0][0] - wide[0][1], box[1] - wide[1][0] - wide[1][1]};
        rc = call_part(d, &w, in_lo, in_n, nk, call, ctx);
        double t2 = MPI_Wtime();
        int end = exchange_end("gt_halo_exchange", x);
        double t3 = MPI_Wtime();
        rc = rc ? rc : end;
        /* the strips: lower and upper along J over the whole I range, then lower and upper
           along I between them (where the inner box is empty, the strips cover the box) */
        int64_t jlo = in_n[0] > 0 && in_n[1] > 0 ? in_lo[1] : box[1];
        int64_t jhi = in_n[0] > 0 && in_n[1] > 0 ? in_lo[1] + in_n[1] : box[1];
        const int64_t part_lo[4][2] = {{0, 0}, {0, jhi}, {0, jlo}, {in_lo[0] + in_n[0], jlo}};
        const int64_t part_n[4][2] = {{box[0], jlo}, {box[0], box[1] - jhi},
                                      {in_lo[0], jhi - jlo},
                                      {box[0] - in_lo[0] - in_n[0], jhi - jlo}};
        for (int p = 0; p < 4 && !rc; p++)
            rc = call_part(d, &w, part_lo[p], part_n[p], nk, call, ctx);
        t[0] = (t1 - t0) + (t3 - t2);   /* posting (packing), then the wait */
        t[1] = (t2 - t1) + (MPI_Wtime() - t3);
    }
    gt__free(needed);
    gt__free(needed_by);
    if (times) {
        times[0] = t[0];
        times[1] = t[1];
    }
    /* a stencil that failed on one rank fails the call on every rank; the outputs a
       stencil with run-time K levels read as computed kept are put back (gt__keep) */
    rc = agree_ran(d->comm, fn, rc);
    rc = gt__mpi_call_end(&w, rc);
    if (!rc)
        rc = combine_results(d, &w);
    gt__mpi_call_free(&w);
    return rc;
}

/* ---- distributed steps (gt_mpi_steps) ------------------------------------------------------

   S_steps over the decomposition, communication-avoiding: the halos of the pairs' current
   storages are exchanged T * w deep once per block of T steps (w: how far a step reads its
   pairs' fields beyond the domain, per axis and side), and step s of a block (1 .. T) is
   computed on this rank's box grown by (T - s) * w on its inner edges, so that the region a
   step computes covers what the next step reads and the box is exact after the block. The
   growth lies in the halos; on a periodic axis the grown part is called in pieces cut at
   the global edge, each with its own global origin (index(i), index(j) as one process). */

enum { STEPS_BLOCK_CAP = 8 };   /* the default steps per exchange at most */

/* w: the widest reach beyond the domain of any field of a pair, per axis I, J and side. */
static void steps_growth(const gt_stencil_info *info, int64_t w[2][2])
{
    memset(w, 0, sizeof(int64_t[2][2]));
    for (int p = 0; p < info->npairs; p++)
        for (int m = 0; m < 2; m++) {
            const gt_field_info *fi = &info->fields[m ? info->pairs[p].cur : info->pairs[p].next];
            for (int a = 0; a < 2; a++)
                for (int side = 0; side < 2; side++)
                    if (strchr(fi->axes, "IJ"[a]) && fi->reach[a][side] > w[a][side])
                        w[a][side] = fi->reach[a][side];
        }
}

static int steps_in_pair(const gt_stencil_info *info, int f)
{
    for (int p = 0; p < info->npairs; p++)
        if (info->pairs[p].next == f || info->pairs[p].cur == f)
            return 1;
    return 0;
}

/* How deep the exchange fills field f's halo along axis a (0 I, 1 J) and side for blocks
   of t steps: a pair's field t * w, another field (t - 1) * w + its reach (read by the
   grown steps, exchanged once). Each rank sends that much of its box (where the axis is
   split or periodic), which must be as wide. */
static int64_t steps_width(const gt_stencil_info *info, int f, int a, int side, int64_t t)
{
    int64_t w[2][2];
    steps_growth(info, w);
    return steps_in_pair(info, f) ? t * w[a][side]
                                  : (t - 1) * w[a][side] + info->fields[f].reach[a][side];
}

/* The halo field f needs along axis a and side for blocks of t steps: what the exchange
   fills, at least its single call's halo. */
static int64_t steps_need(const gt_stencil_info *info, int f, int a, int side, int64_t t)
{
    int64_t need = steps_width(info, f, a, side, t), halo = info->fields[f].halo[a][side];
    return need > halo ? need : halo;
}

int gt_mpi_steps_halo(const gt_stencil_info *info, int field, const char *axes, int tblock,
                      int64_t halo[3][2])
{
    static const char fn[] = "gt_mpi_steps_halo";
    if (!info || !info->fields || !halo || field < 0 || field >= info->nfields)
        return gt__error(GT_EINVAL, "%s: bad arguments (info %s, field %d of %d, halo %s)", fn,
                         info ? "given" : "NULL", field, info ? info->nfields : 0,
                         halo ? "given" : "NULL");
    /* said apart (until 2026-11 one list, "0 pair(s) of iterate, tblock 2: it must be >=
       1", read as if tblock 2 were wrong) */
    if (info->npairs < 1 || !info->pairs)
        return gt__error(GT_EINVAL, "%s: stencil '%s' has no iterate: gt_mpi_steps_halo gives "
                         "the halos of gt_mpi_steps (S_steps_mpi); for gt_mpi_call (S_mpi) "
                         "use gt_mpi_halo", fn, info->name ? info->name : "?");
    if (tblock < 1)
        return gt__error(GT_EINVAL, "%s: stencil '%s': tblock is %d; it must be >= 1 (the "
                         "steps per exchange the storages are made for: gt_mpi_steps takes "
                         "0 as the most they allow)", fn, info->name ? info->name : "?",
                         tblock);
    int64_t out[3][2];
    int rc = gt_mpi_halo(info, field, axes, out);
    if (rc)
        return rc;
    /* along K the larger of the pair's two fields' halos: the storages swap roles from step
       to step */
    int64_t other[3][2];
    int partner = -1;
    for (int p = 0; p < info->npairs; p++)
        if (info->pairs[p].next == field || info->pairs[p].cur == field)
            partner = info->pairs[p].next == field ? info->pairs[p].cur : info->pairs[p].next;
    if (partner >= 0 && (rc = gt_mpi_halo(info, partner, axes, other)) != 0)
        return rc;
    const char *ax = axes ? axes : info->fields[field].axes;
    for (size_t x = 0; ax[x]; x++) {
        int a = ax[x] - 'I';
        for (int side = 0; side < 2; side++)
            if (a < 2)
                out[x][side] = steps_need(info, field, a, side, tblock);
            else if (partner >= 0 && other[x][side] > out[x][side])
                out[x][side] = other[x][side];
    }
    memcpy(halo, out, sizeof out);
    return 0;
}

/* The step function of gt_mpi_steps called as a gt_mpi_stencil_fn, on the storages in
   their current roles. */
typedef struct {
    gt_mpi_step_fn *step;
    void *ctx;
    gt_storage **cur;
} StepCall;

static int step_call(void *ctx, const gt_domain *domain)
{
    StepCall *sc = ctx;
    return sc->step(sc->ctx, sc->cur, domain);
}

static void steps_swap(const gt_stencil_info *info, gt_storage **f)
{
    for (int p = 0; p < info->npairs; p++) {
        gt_storage *t = f[info->pairs[p].next];
        f[info->pairs[p].next] = f[info->pairs[p].cur];
        f[info->pairs[p].cur] = t;
    }
}

/* The largest number of steps per exchange (1 .. cap) that this rank's storages allow: the
   halos gt_mpi_steps_halo gives fit, and the exchanged depth fits in this rank's box along
   the axes split over several processes; 0 if even one step does not. */
static int64_t steps_allowed(const gt_decomp *d, const gt_stencil_info *info,
                             gt_storage *const *fields, int64_t cap)
{
    for (int64_t t = cap; t >= 1; t--) {
        int fits = 1;
        for (int f = 0; f < info->nfields && fits; f++) {
            const gt_storage *s = fields[f];
            for (int x = 0; x < s->ndim && fits; x++) {
                int a = s->axes[x] - 'I';
                for (int side = 0; a < 2 && side < 2 && fits; side++) {
                    fits = s->halo[x][side] >= steps_need(info, f, a, side, t);
                    if (fits && (d->dims[a] > 1 || d->periodic[a]))
                        fits = steps_width(info, f, a, side, t) <= d->box[a];
                }
            }
        }
        if (fits)
            return t;
    }
    return 0;
}

/* Why blocks of t steps do not fit this rank's storages (the first field that refuses), as
   steps_allowed finds: GT_EHALO or GT_ESHAPE with the error set. */
static int steps_refuse(const gt_decomp *d, const gt_stencil_info *info,
                        gt_storage *const *fields, int64_t t)
{
    for (int f = 0; f < info->nfields; f++) {
        const gt_storage *s = fields[f];
        for (int x = 0; x < s->ndim; x++) {
            int a = s->axes[x] - 'I';
            for (int side = 0; a < 2 && side < 2; side++) {
                int64_t need = steps_need(info, f, a, side, t);
                if (s->halo[x][side] < need)
                    return gt__error(GT_EHALO, "stencil '%s': gt_mpi_steps: rank %d: field "
                                     "'%s' has a %s halo of %lld along %c, blocks of %lld "
                                     "step(s) need %lld (gt_mpi_steps_halo gives it)",
                                     info->name, d->rank, info->fields[f].name,
                                     side ? "upper" : "lower", (long long)s->halo[x][side],
                                     s->axes[x], (long long)t, (long long)need);
                int64_t width = steps_width(info, f, a, side, t);
                if ((d->dims[a] > 1 || d->periodic[a]) && width > d->box[a])
                    return gt__error(GT_ESHAPE, "stencil '%s': gt_mpi_steps: rank %d owns "
                                     "%lld point(s) along %c, fewer than the %lld-deep halo "
                                     "of field '%s' that blocks of %lld step(s) exchange: "
                                     "fewer steps per exchange (tblock)", info->name, d->rank,
                                     (long long)d->box[a], s->axes[x], (long long)width,
                                     info->fields[f].name, (long long)t);
            }
        }
    }
    return 0;
}


/* One step on this rank's box grown by g[a][side]: along a periodic axis in pieces cut at
   the global edges (at most three per axis), elsewhere in one piece. */
static int step_grown(const gt_decomp *d, gt__mpi_call *c, const int64_t g[2][2],
                      gt_mpi_stencil_fn *call, void *ctx)
{
    int64_t lo[2][3], n[2][3], org[2][3];
    int np[2];
    for (int a = 0; a < 2; a++) {
        int64_t gs = d->offset[a] - g[a][0], ge = d->offset[a] + d->box[a] + g[a][1];
        int64_t N = d->global[a];
        np[a] = 0;
        const int64_t cut[4] = {INT64_MIN, 0, N, INT64_MAX};
        for (int q = 0; q < 3; q++) {
            int64_t s = gs > cut[q] ? gs : cut[q], e = ge < cut[q + 1] ? ge : cut[q + 1];
            if (s >= e)
                continue;
            if (!d->periodic[a] && q != 1)
                continue;   /* never: no growth beyond a non-periodic global edge */
            lo[a][np[a]] = s - d->offset[a];
            n[a][np[a]] = e - s;
            org[a][np[a]] = s < 0 ? s + N : s >= N ? s - N : s;
            np[a]++;
        }
    }
    int rc = 0;
    for (int pj = 0; pj < np[1] && !rc; pj++)
        for (int pi = 0; pi < np[0] && !rc; pi++) {
            const int64_t l[2] = {lo[0][pi], lo[1][pj]}, s[2] = {n[0][pi], n[1][pj]};
            const int64_t o[2] = {org[0][pi], org[1][pj]};
            rc = call_piece(c, l, s, o, d->box[2], call, ctx);
        }
    return rc;
}

/* Whether the steps' copies between storages a and b run on the device: both have a device
   side that is up to date (no storage crosses the bus whole for them), else on the host. */
static int steps_on_device(const gt_storage *a, const gt_storage *b)
{
    const gt_storage *s[2] = {a, b};
    for (int k = 0; k < 2; k++)
        if (!s[k]->buf->device || (!s[k]->buf->device_only && s[k]->buf->state == GT__HOST_DIRTY))
            return 0;
    return 1;
}

/* The frame, after the first exchange (of the pairs' storages): each pair's cur
   (fields in parameter order, the caller's roles) copied into next where it lies outside
   the global domain: the halo both storages have on a global edge the decomposition does
   not wrap, and along K, each slab over the whole of both storages' halos along the other
   axes (the rows of cur's K halo over a neighbour's columns, which a grown step reads, came
   with the exchange). Inside the global domain next keeps the caller's values, this rank's
   and (exchanged) its neighbours', as one process's S_steps keeps them (docs/mpi.md). */
static int steps_frame(const char *what, const gt_decomp *d, const gt_stencil_info *info,
                       gt_storage *const *fields, int check)
{
    int64_t w[3][2];   /* as deep as the storages go */
    int edge[3][2];
    for (int a = 0; a < 3; a++)
        for (int side = 0; side < 2; side++) {
            w[a][side] = INT64_MAX;
            edge[a][side] = a == 2 || (!d->periodic[a] &&
                                       (side ? d->offset[a] + d->box[a] >= d->global[a]
                                             : d->offset[a] == 0));
        }
    int rc = 0;
    for (int p = 0; p < info->npairs && !rc; p++) {
        gt_storage *to = fields[info->pairs[p].next];
        const gt_storage *from = fields[info->pairs[p].cur];
        rc = gt__steps_copy_frame(what, to, from, info->fields[info->pairs[p].cur].axes, d->box,
                                  (const int64_t (*)[2])w, (const int (*)[2])edge,
                                  steps_on_device(to, from), check);
    }
    return rc;
}

/* After an odd count the last step wrote each pair's next: its box copied into cur, the
   result (with check set, only whether the copy would be refused). */
static int steps_result(const char *what, const gt_decomp *d, const gt_stencil_info *info,
                        gt_storage *const *fields, int check)
{
    int rc = 0;
    for (int p = 0; p < info->npairs && !rc; p++) {
        const gt_iterate_pair *q = &info->pairs[p];
        rc = gt__steps_copy_result(what, fields[q->cur], fields[q->next],
                                   info->fields[q->cur].axes, d->box,
                                   steps_on_device(fields[q->cur], fields[q->next]), check);
    }
    return rc;
}

/* What every rank must pass gt_mpi_steps alike. */
static const Item steps_items[] = {{"nsteps", V_NUMBER},
                                   {"the steps per exchange (tblock)", V_NUMBER},
                                   {"the stencil (its name or fields)", V_HASH}};
static const Agreed steps_agreed = {steps_items, 3, NULL, NULL};

int gt_mpi_steps(const gt_decomp *d, const gt_stencil_info *info, gt_storage *const *fields,
                 int64_t nsteps, int tblock, gt_mpi_step_fn *step, void *ctx, double times[2])
{
    static const char fn[] = "gt_mpi_steps";
    if (!d)
        return gt__error(GT_EINVAL, "%s: decomposition is NULL", fn);
    if (gt__mpi_down(fn))
        return GT_EMPI;
    gt__mpi_open(GT_MPI_STEPS);
    int rc = 0;
    const char *sn = info && info->name ? info->name : "?";
    if (!info || !info->name || !info->fields || info->nfields < 1 || info->npairs < 1 ||
        !info->pairs)
        rc = gt__error(GT_EINVAL, "%s: rank %d: the stencil info is not that of a stencil "
                       "with iterate", fn, d->rank);
    else if (!fields || !step)
        rc = gt__error(GT_EINVAL, "stencil '%s': %s: rank %d: %s is NULL", sn, fn, d->rank,
                       fields ? "the step function" : "the field array");
    else if (nsteps < 0)
        rc = gt__error(GT_EINVAL, "stencil '%s': %s: rank %d: nsteps is %lld; it must be >= 0",
                       sn, fn, d->rank, (long long)nsteps);
    else if (tblock < 0)
        rc = gt__error(GT_EINVAL, "stencil '%s': %s: rank %d: tblock is %d; it must be >= 0 "
                       "(0: the default)", sn, fn, d->rank, tblock);
    for (int f = 0; !rc && f < info->nfields; f++)
        if (!fields[f])
            rc = gt__error(GT_EINVAL, "stencil '%s': %s: rank %d: the storage of field '%s' is "
                           "NULL", sn, fn, d->rank, info->fields[f].name);
    const int64_t same[3] = {nsteps, tblock, rc ? 0 : stencil_digest(info)};
    if ((rc = agree_same(d->comm, fn, rc, 3, array_value, same, &steps_agreed)) != 0)
        return rc;
    const int nf = info->nfields;
    gt_storage **cur = zalloc((size_t)nf, sizeof *cur);
    gt_storage **st = zalloc((size_t)nf, sizeof *st);
    int *pair_of = zalloc((size_t)nf, sizeof *pair_of);    /* per storage: in a pair */
    gt_halo_widths *needed = zalloc((size_t)nf + 1, sizeof *needed);
    gt_halo_widths *widths = zalloc((size_t)nf, sizeof *widths);
    gt_halo_widths *xw = zalloc((size_t)nf, sizeof *xw);
    gt_storage **xs = zalloc((size_t)nf, sizeof *xs);
    const char **needed_by = zalloc((size_t)nf, sizeof *needed_by);
    int n = 0;
    if (!cur || !st || !pair_of || !needed || !widths || !xw || !xs || !needed_by)
        rc = gt__error(GT_ENOMEM, "stencil '%s': %s: rank %d: out of memory", sn, fn, d->rank);
    /* the storages, each once; a pair's storages share no memory, nor a storage with
       another field */
    for (int f = 0; !rc && f < nf; f++) {
        int k = 0;
        while (k < n && st[k] != fields[f])
            k++;
        if (k < n && (pair_of[k] || steps_in_pair(info, f)))
            rc = gt__error(GT_EALIAS, "stencil '%s': %s: rank %d: field '%s' shares its "
                           "storage with another field, one of them in a pair of iterate",
                           sn, fn, d->rank, info->fields[f].name);
        if (k == n)
            st[n++] = fields[f];
        pair_of[k] = steps_in_pair(info, f);
    }
    for (int p = 0; !rc && p < info->npairs; p++) {
        const gt_iterate_pair *q = &info->pairs[p];
        if (gt__overlap(fields[q->next], fields[q->cur], 0))
            rc = gt__error(GT_EALIAS, "stencil '%s': %s: rank %d: the storages of '%s' and "
                           "'%s' (pair %s -> %s of iterate) share memory; each step writes the "
                           "one while it reads the other: give the pair two storages", sn, fn,
                           d->rank,
                           info->fields[q->next].name, info->fields[q->cur].name,
                           info->fields[q->next].name, info->fields[q->cur].name);
    }
    /* every storage's interior is this rank's box: a next storage that no exchange takes
       (keeps 0) is checked here, as gt_mpi_call's exchange checks each of its storages */
    for (int f = 0; !rc && f < nf; f++)
        for (int x = 0; !rc && x < fields[f]->ndim; x++)
            rc = check_box(fn, d, fields[f], x, f, sn, info->fields[f].name);
    gt__mpi_call w;
    gt__mpi_call_init(&w, d->rank, n, st, needed, needed_by);
    for (int a = 0; a < 2; a++) {
        w.place.global[a] = d->global[a];
        w.place.wrap[a] = d->periodic[a];
        w.place.inner[a][0] = d->periodic[a] || d->offset[a] > 0;
        w.place.inner[a][1] = d->periodic[a] || d->offset[a] + d->box[a] < d->global[a];
    }
    StepCall sc = {step, ctx, cur};
    /* the single call's checks on this rank's box, in the order of the first step and,
       with two steps or more, swapped */
    if (!rc) {
        memcpy(cur, fields, sizeof *cur * (size_t)nf);
        rc = check_call(d, &w, 1, step_call, &sc);
        if (!rc && nsteps >= 2) {
            steps_swap(info, cur);
            w.place.calls = 0;
            rc = gt__steps_swapped_error(info, check_call(d, &w, 1, step_call, &sc));
            steps_swap(info, cur);
        }
        if (!rc && w.levels)
            rc = gt__error(GT_EINVAL, "stencil '%s': %s: rank %d: the stencil reads at "
                           "run-time K levels, which gt_mpi_steps does not run (gt_mpi_call "
                           "each step)", sn, fn, d->rank);
        rc = gt__mpi_call_end(&w, rc);
    }
    rc = agree(d->comm, fn, rc);
    if (!rc)
        rc = gt__mpi_same_scalars(d->comm, fn, d->rank, info, w.scalars, w.nscalars,
                                  w.scalars_error);
    /* the steps per exchange: given, or the most every rank's storages allow (capped) */
    int64_t t = 0;
    if (!rc) {
        /* a tblock given is taken up to nsteps; only the default is capped */
        int64_t most = nsteps < 1 ? 1 : nsteps;
        int64_t cap = most < STEPS_BLOCK_CAP ? most : STEPS_BLOCK_CAP;
        t = tblock > 0 ? (tblock < most ? tblock : most) : steps_allowed(d, info, fields, cap);
        int err = MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_INT64_T, MPI_MIN, d->comm);
        if (err != MPI_SUCCESS)
            rc = mpi_fail(fn, d->rank, "MPI_Allreduce", err);
        if (t < 1)
            t = 1;
        if (!rc)
            rc = steps_refuse(d, info, fields, t);
        rc = agree(d->comm, fn, rc);
    }
    if (rc || nsteps == 0) {
        gt__mpi_call_free(&w);
        gt__free(cur), gt__free(st), gt__free(pair_of), gt__free(needed);
        gt__free(widths), gt__free(xw), gt__free(xs), gt__free((void *)needed_by);
        return rc;
    }
    double t0 = MPI_Wtime(), tx = 0;
    char what[160];
    snprintf(what, sizeof what, "stencil '%s': %s: rank %d", sn, fn, d->rank);
    memcpy(cur, fields, sizeof *cur * (size_t)nf);
    /* an odd count ends with the result's copy, and the frames' copies come after the
       first exchange: each refused (if at all) before anything is written */
    if (nsteps & 1)
        rc = agree(d->comm, fn, steps_result(what, d, info, fields, 1));
    if (!rc && nsteps > 0)
        rc = agree(d->comm, fn, steps_frame(what, d, info, fields, 1));
    int64_t grow[2][2];
    steps_growth(info, grow);
    w.widths = (const gt__mpi_widths *)widths;
    for (int64_t done = 0; done < nsteps && !rc;) {
        int64_t tb = nsteps - done < t ? nsteps - done : t;
        /* the exchange: the pairs' current storages tb * w deep, and their next storages
           where a step may depend on what next held (pair.keeps: a step grown by (tb - 1)
           * w writes next there, and may keep next's values where it does not write it,
           or read them first); the other fields once, as deep as the grown steps read
           them */
        int nx = 0;
        for (int k = 0; k < n; k++) {
            int wanted = 0;
            for (int p = 0; p < info->npairs; p++)
                wanted |= cur[info->pairs[p].cur] == st[k] ||
                          (info->pairs[p].keeps && cur[info->pairs[p].next] == st[k]);
            for (int a = 0; a < 2; a++)
                for (int side = 0; side < 2; side++) {
                    int64_t v = 0;
                    if (pair_of[k])
                        v = tb * grow[a][side];
                    else
                        for (int f = 0; f < nf; f++)
                            if (fields[f] == st[k]) {
                                int64_t r = (t - 1) * grow[a][side] +
                                            info->fields[f].reach[a][side];
                                v = r > v ? r : v;
                            }
                    if (!pair_of[k] && done > 0)
                        continue;   /* exchanged before the first block: kept */
                    widths[k][a][side] = v;
                }
            if (wanted || (!pair_of[k] && done == 0)) {
                xs[nx] = st[k];
                memcpy(xw[nx], widths[k], sizeof xw[nx]);
                nx++;
            }
        }
        double e0 = MPI_Wtime();
        rc = gt_halo_exchange(d, xs, nx, (const gt_halo_widths *)xw);
        tx += MPI_Wtime() - e0;
        if (!rc && done == 0)
            rc = steps_frame(what, d, info, fields, 0);
        for (int64_t s = 1; s <= tb && !rc; s++) {
            int64_t g[2][2];
            for (int a = 0; a < 2; a++)
                for (int side = 0; side < 2; side++)
                    g[a][side] = w.place.inner[a][side] ? (tb - s) * grow[a][side] : 0;
            rc = step_grown(d, &w, g, step_call, &sc);
            steps_swap(info, cur);
        }
        done += tb;
        /* a step that failed on one rank stops every rank before the next exchange */
        rc = agree_ran(d->comm, fn, rc);
    }
    if (!rc && (nsteps & 1))
        rc = agree_ran(d->comm, fn, steps_result(what, d, info, fields, 0));
    if (times) {
        times[0] = tx;
        times[1] = MPI_Wtime() - t0 - tx;
    }
    gt__mpi_call_free(&w);
    gt__free(cur), gt__free(st), gt__free(pair_of), gt__free(needed);
    gt__free(widths), gt__free(xw), gt__free(xs), gt__free((void *)needed_by);
    return rc;
}

/* check_mpi_device.c: halo exchanges of storages whose device side holds the newest data
 * (docs/mpi.md, "Storages on a device"), under mpirun (tests/mpi/run.sh: 1 to 4 processes),
 * on the fake device of strip_device.h, which counts every byte that would cross the bus.
 *
 * Three storages at once (float64 IJK with uneven halos and a K halo, int32 IJK laid out
 * with K fastest, float32 IJ), on three process grids (chosen and open; P x 1, periodic
 * along I; 1 x P, periodic along both). Their interiors hold a function of the global
 * position (the K halo too: a strip holds the whole K extent), their I and J halos a
 * sentinel. For each case the test derives on its own, from the process grid (gt_mpi_grid),
 * the box and the halos, which neighbours exist and how big each strip is, and checks:
 *   - device side newer (CLEAN after gt_sync, or DEVICE_DIRTY with the true values written
 *     on the device and stale ones on the host): the bytes moved device to host equal the
 *     strips sent, host to device the strips received, no whole-storage copy, one pack per
 *     strip sent and one unpack per strip received; the host side untouched and the storage
 *     DEVICE_DIRTY where it received anything; after gt_host, every halo element holds the
 *     function where its (wrapped) global position lies in the domain, the sentinel
 *     elsewhere, and the whole storage is bitwise the host path's result;
 *   - host side newer: the host path (no pack, no byte across the bus, still HOST_DIRTY);
 *   - GT_MPI_CUDA_AWARE=1 (MPI given the device buffers; the fake's device memory is host
 *     memory, so MPI can read it here): no byte across the bus and no pinned buffer, the
 *     same results; another value of it: GT_EINVAL on every rank, nothing packed;
 *   - device-only storages (gt_wrap_device over the fake's device memory, the same
 *     strides), staged and direct: as above, the wrapped memory read directly;
 *   - a device call failing on the last rank: at begin (pack, copy to the host) GT_EDEVICE on
 *     every rank, no storage changed; at the end (unpack) on that rank alone; nothing lost;
 *   - gt_mpi_call of tests/mpi/regions.stn built by the cuda backend (SIMT emulator),
 *     blocking and overlapped, explicit widths: the bytes moved during the call are u's
 *     strips, and u and res are bitwise those of the same call on nan_device.h's device,
 *     which cannot pack (the host path, which check_mpi_stencil.c compares with one
 *     process);
 *   - at the end no device block, pinned buffer or stream is left (after gt__mpi_trim and
 *     gt__pool_trim), and nothing queued was lost.
 * Prints PASS/FAIL lines from rank 0; exits with the number of failures. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt_mpi.h>

#include "mpi/call.h"
#include "regions_cuda.h"
#include "strip_device.h"

static int rank, nproc, failures;

#include "report.h"

/* ---- the storages -------------------------------------------------------------------------- */

typedef struct {
    gt_dtype t;
    const char *axes, *layout;
    int64_t halo[3][2];   /* by storage axis */
} Spec;

enum { NS = 3 };
static const Spec specs[NS] = {
    {GT_FLOAT64, "IJK", NULL, {{2, 1}, {1, 2}, {1, 1}}},
    {GT_INT32, "IJK", "IJK", {{1, 1}, {1, 1}, {0, 0}}},
    {GT_FLOAT32, "IJ", NULL, {{1, 1}, {2, 0}, {0, 0}}},
};

static const double sentinel = -5.0;

/* The function held at a global position (exact in float32 and int32 here). */
static double value(int which, int64_t gi, int64_t gj, int64_t k)
{
    return (double)(gi * 1009 + gj * 37 + k * 5 + which * 3 + 1);
}

static void put(void *p, gt_dtype t, int64_t e, double v)
{
    if (t == GT_FLOAT64)
        ((double *)p)[e] = v;
    else if (t == GT_FLOAT32)
        ((float *)p)[e] = (float)v;
    else
        ((int32_t *)p)[e] = (int32_t)v;
}

static double get(const void *p, gt_dtype t, int64_t e)
{
    return t == GT_FLOAT64 ? ((const double *)p)[e]
           : t == GT_FLOAT32 ? (double)((const float *)p)[e] : (double)((const int32_t *)p)[e];
}

/* The elements of s from element (0,0,0), halo included: one past the farthest. */
static int64_t span(const gt_storage *s)
{
    const int64_t *shape = gt_shape(s), *st = gt_strides(s);
    int64_t last = 0;
    for (int x = 0; x < gt_ndim(s); x++)
        last += (shape[x] - 1) * st[x];
    return last + 1;
}

/* Calls f(s, position of element by storage axis, element offset) for every element. */
typedef struct {
    int64_t idx[3];   /* by storage axis */
    int64_t e;
} Elem;

static int64_t count_elems(const gt_storage *s)
{
    int64_t n = 1;
    for (int x = 0; x < gt_ndim(s); x++)
        n *= gt_shape(s)[x];
    return n;
}

static Elem elem(const gt_storage *s, int64_t flat)
{
    Elem el = {{0, 0, 0}, 0};
    for (int x = 0; x < gt_ndim(s); x++) {
        el.idx[x] = flat % gt_shape(s)[x];
        flat /= gt_shape(s)[x];
        el.e += el.idx[x] * gt_strides(s)[x];
    }
    return el;
}

/* The input of storage `which` at element el of s (this rank's box at off): the function
   in the interior along I and J (the whole K extent, K halo too), shifted by `shift`; the
   sentinel in the I and J halos. */
static double input(const gt_storage *s, int which, const Elem *el, const int64_t off[3],
                    double shift)
{
    const char *axes = gt_axes(s);
    const int64_t (*h)[2] = gt_halo(s);
    int64_t g[3] = {0, 0, 0};
    for (int x = 0; x < gt_ndim(s); x++) {
        int a = axes[x] - 'I';
        int64_t n = gt_shape(s)[x] - h[x][0] - h[x][1];
        if (a < 2 && (el->idx[x] < h[x][0] || el->idx[x] >= h[x][0] + n))
            return sentinel;
        g[a] = a < 2 ? off[a] + el->idx[x] - h[x][0] : el->idx[x];
    }
    return value(which, g[0], g[1], g[2]) + shift;
}

/* What the exchange must leave at el: the function where the element's global position
   (wrapped along periodic axes) lies in the domain, the sentinel elsewhere (halos on a
   global edge of an open axis). */
static double expected(const gt_storage *s, int which, const Elem *el, const int64_t off[3],
                       const int64_t global[3], const int periodic[2])
{
    const char *axes = gt_axes(s);
    const int64_t (*h)[2] = gt_halo(s);
    int64_t g[3] = {0, 0, 0};
    for (int x = 0; x < gt_ndim(s); x++) {
        int a = axes[x] - 'I';
        if (a == 2) {
            g[2] = el->idx[x];
            continue;
        }
        g[a] = off[a] + el->idx[x] - h[x][0];
        if (g[a] < 0 || g[a] >= global[a]) {
            if (!periodic[a])
                return sentinel;
            g[a] = (g[a] % global[a] + global[a]) % global[a];
        }
    }
    return value(which, g[0], g[1], g[2]);
}

static void fill(const gt_storage *s, void *p, int which, const int64_t off[3], double shift)
{
    for (int64_t f = 0, n = count_elems(s); f < n; f++) {
        Elem el = elem(s, f);
        put(p, gt_dtype_of(s), el.e, input(s, which, &el, off, shift));
    }
}

static gt_storage *make(const gt_decomp *d, int which)
{
    const Spec *sp = &specs[which];
    gt_storage_opts o = {0};
    memcpy(o.halo, sp->halo, sizeof o.halo);
    o.layout = sp->layout;
    o.device = GT_CUDA;
    return gt_mpi_empty(d, sp->t, sp->axes, &o);
}

/* The strips a storage sends (incoming false) or receives, as the test derives them: per
   direction of travel (di, dj) whose peer exists (the rank at coords + (di, dj) for a send,
   coords - (di, dj) for a receive: inside the grid, or wrapped along a periodic axis), a box
   of the width of the halo the message fills (travelling up: the receiver's lower one)
   along each axis crossed, this rank's box along the others, the whole extent along K. */
static void strips(const gt_decomp *d, const gt_storage *s, const int64_t w[2][2],
                   const int periodic[2], bool incoming, size_t *bytes, int *count)
{
    int dims[2], coords[2];
    int64_t off[3], box[3];
    gt_mpi_grid(d, dims, coords, NULL);
    gt_mpi_box(d, off, box);
    const char *axes = gt_axes(s);
    bool has[2] = {strchr(axes, 'I') != NULL, strchr(axes, 'J') != NULL};
    int64_t nk = 1;
    for (int x = 0; x < gt_ndim(s); x++)
        if (axes[x] == 'K')
            nk = gt_shape(s)[x];
    *bytes = 0;
    *count = 0;
    for (int di = -1; di <= 1; di++)
        for (int dj = -1; dj <= 1; dj++) {
            int dir[2] = {di, dj};
            if ((di == 0 && dj == 0) || (di && !has[0]) || (dj && !has[1]))
                continue;
            bool exists = true;
            int64_t n = nk;
            for (int a = 0; a < 2; a++) {
                int c = coords[a] + (incoming ? -dir[a] : dir[a]);
                if ((c < 0 || c >= dims[a]) && !periodic[a])
                    exists = false;
                if (has[a])
                    n *= dir[a] ? (dir[a] > 0 ? w[a][0] : w[a][1]) : box[a];
            }
            if (exists && n > 0) {
                *bytes += (size_t)n * gt_dtype_size(gt_dtype_of(s));
                (*count)++;
            }
        }
}

/* The halo widths of s as an exchange with NULL widths takes them: [I/J][lower/upper]. */
static void whole_halo(const gt_storage *s, int64_t w[2][2])
{
    memset(w, 0, 4 * sizeof(int64_t));
    for (int x = 0; x < gt_ndim(s); x++)
        if (gt_axes(s)[x] != 'K')
            for (int side = 0; side < 2; side++)
                w[gt_axes(s)[x] - 'I'][side] = gt_halo(s)[x][side];
}

/* Zero counts, the live ones kept. */
static void reset_counts(void)
{
    int pinned = sd.pinned_live, streams = sd.streams_live;
    memset(&sd, 0, sizeof sd);
    sd.pinned_live = pinned;
    sd.streams_live = streams;
}

/* ---- raw exchanges ------------------------------------------------------------------------- */

enum { HOST_NEWER, CLEAN, DEVICE_NEWER, DIRECT, DEVICE_ONLY, DEVICE_ONLY_DIRECT, BAD_SWITCH };
static const char *const mode_name[] = {"host side newer: the host path",
                                        "clean: packed on the device, staged",
                                        "device side newer: packed on the device, staged",
                                        "clean, GT_MPI_CUDA_AWARE=1: device buffers to MPI",
                                        "device-only (gt_wrap_device): packed on the device, staged",
                                        "device-only, GT_MPI_CUDA_AWARE=1",
                                        "GT_MPI_CUDA_AWARE=yes: refused"};

/* Each storage's whole contents after the host path's exchange (HOST_NEWER), for the
   bitwise comparison of the other modes. */
static void *host_result[NS];

/* The name of a process grid: NULL (chosen), P x 1 or 1 x P. */
static const char *grid_name(const int *dims)
{
    return !dims ? "chosen" : dims[0] == nproc && dims[1] == 1 ? "P x 1" : "1 x P";
}

static void exchange_case(const int64_t global[3], const int *dims, const int periodic[2],
                          int mode)
{
    char name[300], why[600] = "";
    snprintf(name, sizeof name, "device exchange %lld x %lld x %lld, grid %s, periodic %d %d: %s",
             (long long)global[0], (long long)global[1], (long long)global[2],
             grid_name(dims), periodic[0], periodic[1],
             mode_name[mode]);
    gt__set_device_ops(&strip_device);
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, periodic);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *s[NS] = {NULL};
    void *before[NS] = {NULL};   /* the host side before the exchange, raw */
    void *mem[NS] = {NULL};      /* device-only: the device memory wrapped */
    const bool device_only = mode == DEVICE_ONLY || mode == DEVICE_ONLY_DIRECT;
    for (int k = 0; k < NS; k++) {
        s[k] = make(d, k);
        if (s[k] && device_only) {
            /* the same storage over device memory of its own (the same strides) */
            const Spec *sp = &specs[k];
            gt_storage_opts o = {0};
            memcpy(o.halo, sp->halo, sizeof o.halo);
            size_t bytes = (size_t)span(s[k]) * gt_dtype_size(sp->t);
            gt_storage *made = s[k];
            s[k] = NULL;
            if (strip_device.alloc(&mem[k], bytes) == 0) {
                fill(made, mem[k], k, off, 0.0);
                s[k] = gt_wrap_device(mem[k], sp->t, sp->axes, gt_shape(made), gt_strides(made),
                                      &o);
            }
            gt_release(made);
        }
        if (!s[k]) {
            snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
            break;
        }
        if (device_only)
            continue;
        /* DEVICE_NEWER: a stale host side (shifted by 1000), the true values on the device */
        fill(s[k], gt_host(s[k], GT_WRITE), k, off, mode == DEVICE_NEWER ? 1000.0 : 0.0);
        if (mode != HOST_NEWER)
            gt_sync(s[k]);
        if (mode == DEVICE_NEWER)
            fill(s[k], gt_device_ptr(s[k], GT_READWRITE), k, off, 0.0);
        size_t bytes = (size_t)span(s[k]) * gt_dtype_size(specs[k].t);
        before[k] = malloc(bytes);
        memcpy(before[k], gt__host_raw(s[k]), bytes);
    }
    gt__sync_state state0 = mode == HOST_NEWER ? GT__HOST_DIRTY
                            : mode == DEVICE_NEWER ? GT__DEVICE_DIRTY : GT__CLEAN;
    if (mode == DIRECT || mode == DEVICE_ONLY_DIRECT)
        setenv("GT_MPI_CUDA_AWARE", "1", 1);
    if (mode == BAD_SWITCH)
        setenv("GT_MPI_CUDA_AWARE", "yes", 1);
    reset_counts();
    int rc = why[0] ? -1 : gt_halo_exchange(d, s, NS, NULL);
    unsetenv("GT_MPI_CUDA_AWARE");
    if (why[0]) {
    } else if (mode == BAD_SWITCH) {
        if (rc != GT_EINVAL || !strstr(gt_last_error(), "GT_MPI_CUDA_AWARE") || sd.packs ||
            sd.up || sd.down)
            snprintf(why, sizeof why, "rank %d: %d (%s), %d packs, %zu + %zu bytes moved", rank,
                     rc, gt_last_error(), sd.packs, sd.up, sd.down);
    } else if (rc != 0) {
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
    } else {
        size_t out = 0, in = 0;
        int nout = 0, nin = 0;
        bool received[NS];
        for (int k = 0; k < NS; k++) {
            int64_t w[2][2];
            size_t b;
            int c;
            whole_halo(s[k], w);
            strips(d, s[k], w, periodic, false, &b, &c);
            out += b, nout += c;
            strips(d, s[k], w, periodic, true, &b, &c);
            in += b, nin += c;
            received[k] = c > 0;
        }
        bool on_device = mode != HOST_NEWER;
        bool direct = mode == DIRECT || mode == DEVICE_ONLY_DIRECT;
        bool staged = on_device && !direct;
        size_t want_down = staged ? out : 0, want_up = staged ? in : 0;
        if (sd.down != want_down || sd.up != want_up || sd.copies != 0)
            snprintf(why, sizeof why, "rank %d: %zu bytes device to host, %zu host to device, "
                     "%d whole copies; the strips: %zu out, %zu in (%s)", rank, sd.down, sd.up,
                     sd.copies, out, in, staged ? "staged" : "none should cross");
        else if (sd.packs != (on_device ? nout : 0) || sd.unpacks != (on_device ? nin : 0))
            snprintf(why, sizeof why, "rank %d: %d packs, %d unpacks for %d strips out, %d in",
                     rank, sd.packs, sd.unpacks, nout, nin);
        else if (direct && sd.pinned_allocs + sd.async != 0)
            snprintf(why, sizeof why, "rank %d: direct, yet %d pinned buffers, %d async copies",
                     rank, sd.pinned_allocs, sd.async);
        else if (sd.bad || sd.lost)
            snprintf(why, sizeof why, "rank %d: the fake device saw %d bad copies, %d lost",
                     rank, sd.bad, sd.lost);
        for (int k = 0; k < NS && !why[0] && !device_only; k++) {
            gt__sync_state want = on_device && received[k] ? GT__DEVICE_DIRTY : state0;
            size_t bytes = (size_t)span(s[k]) * gt_dtype_size(specs[k].t);
            if (gt__sync_state_of(s[k]) != want)
                snprintf(why, sizeof why, "rank %d: storage %d: sync state %d, want %d", rank, k,
                         (int)gt__sync_state_of(s[k]), (int)want);
            else if (on_device && memcmp(before[k], gt__host_raw(s[k]), bytes) != 0)
                snprintf(why, sizeof why, "rank %d: storage %d: its host side was written", rank,
                         k);
        }
        for (int k = 0; k < NS && !why[0]; k++) {
            const void *p = device_only ? mem[k] : gt_host(s[k], GT_READ);
            for (int64_t f = 0, n = count_elems(s[k]); f < n && !why[0]; f++) {
                Elem el = elem(s[k], f);
                double want = expected(s[k], k, &el, off, global, periodic);
                double got = get(p, specs[k].t, el.e);
                if (got != want)
                    snprintf(why, sizeof why, "rank %d: storage %d at (%lld, %lld, %lld): %g, "
                             "want %g", rank, k, (long long)el.idx[0], (long long)el.idx[1],
                             (long long)el.idx[2], got, want);
            }
            size_t bytes = (size_t)span(s[k]) * gt_dtype_size(specs[k].t);
            if (mode == HOST_NEWER) {
                free(host_result[k]);
                host_result[k] = malloc(bytes);
                memcpy(host_result[k], p, bytes);
            } else if (!why[0] && (!host_result[k] || memcmp(host_result[k], p, bytes) != 0)) {
                snprintf(why, sizeof why, "rank %d: storage %d differs from the host path's",
                         rank, k);
            }
        }
    }
    report("", name, !why[0], why, sizeof why);
    for (int k = 0; k < NS; k++) {
        gt_release(s[k]);
        free(before[k]);
        if (mem[k])
            strip_device.release(mem[k]);
    }
    gt_mpi_decomp_release(d);
}

/* ---- device failures ----------------------------------------------------------------------- */

/* A device call failing on the last rank, on a decomposition periodic along both axes (every
   rank has strips, one rank too): at begin (the pack, or the copy to the staging buffer)
   every rank fails with GT_EDEVICE, the last one naming the call, and no storage changes
   (device side and state); at the end (the unpack), which does not agree, the last rank
   alone fails, naming it. Nothing queued is lost either way. */
static void fault_case(const int64_t global[3], int which)
{
    static const char *const what[3] = {"packing a halo strip on the device",
                                        "copying a halo strip device to host",
                                        "unpacking a halo strip on the device"};
    char name[300], why[600] = "";
    snprintf(name, sizeof name, "device exchange: %s fails on the last rank", what[which]);
    const int both[2] = {1, 1};
    const int last = nproc - 1;
    gt__set_device_ops(&strip_device);
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, NULL, both);
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage *s[NS] = {NULL};
    void *before[NS] = {NULL};   /* the device side before the exchange */
    size_t bytes[NS];
    for (int k = 0; k < NS && !why[0]; k++) {
        if (!(s[k] = make(d, k))) {
            snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
            break;
        }
        fill(s[k], gt_host(s[k], GT_WRITE), k, off, 0.0);
        gt_sync(s[k]);
        bytes[k] = (size_t)span(s[k]) * gt_dtype_size(specs[k].t);
        before[k] = malloc(bytes[k]);
        memcpy(before[k], gt__device_raw(s[k]), bytes[k]);
    }
    reset_counts();
    if (rank == last) {
        if (which == 0)
            sd.fail_pack = 2;
        else if (which == 1)
            sd.fail_async = 2;
        else
            sd.fail_unpack = 2;
    }
    int rc = why[0] ? 0 : gt_halo_exchange(d, s, NS, NULL);
    char want[200];
    snprintf(want, sizeof want, "%s failed (fake: illegal address)", what[which]);
    if (why[0]) {
    } else if (which < 2) {
        char other[40];
        snprintf(other, sizeof other, "rank %d failed", last);
        if (rc != GT_EDEVICE || !strstr(gt_last_error(), rank == last ? want : other))
            snprintf(why, sizeof why, "rank %d: %d (%s)", rank, rc, gt_last_error());
        for (int k = 0; k < NS && !why[0]; k++)
            if (memcmp(before[k], gt__device_raw(s[k]), bytes[k]) != 0 ||
                gt__sync_state_of(s[k]) != GT__CLEAN)
                snprintf(why, sizeof why, "rank %d: storage %d changed (state %d)", rank, k,
                         (int)gt__sync_state_of(s[k]));
    } else if (rank == last ? rc != GT_EDEVICE || !strstr(gt_last_error(), want) : rc != 0) {
        snprintf(why, sizeof why, "rank %d: %d (%s)", rank, rc, rc ? gt_last_error() : "");
    } else if (rank == last && strncmp(gt_last_error(), "gt_halo_exchange: ", 18) != 0) {
        /* the end's failure is the called function's: it said gt_halo_exchange_end */
        snprintf(why, sizeof why, "rank %d: \"%.300s\" does not start with gt_halo_exchange",
                 rank, gt_last_error());
    }
    if (!why[0] && (sd.lost || sd.bad))
        snprintf(why, sizeof why, "rank %d: %d queued works lost, %d bad", rank, sd.lost,
                 sd.bad);
    sd.fail_pack = sd.fail_async = sd.fail_unpack = 0;
    report("", name, !why[0], why, sizeof why);
    for (int k = 0; k < NS; k++) {
        gt_release(s[k]);
        free(before[k]);
    }
    gt_mpi_decomp_release(d);
}

/* ---- gt_mpi_call of the cuda backend's regions (SIMT emulator) -------------------------- */

typedef struct {
    gt_storage *f[2];   /* u, res */
} Regions;

static int run_regions(void *ctx, const gt_domain *dom)
{
    Regions *r = ctx;
    return cuda_regions(r->f[0], r->f[1], dom);
}

/* u: the function at every element of this rank's box and of the halo beyond the global
   edges, the sentinel in the halos another rank's exchange fills; res: zeros. Both synced to
   the device. */
static int make_regions(const gt_decomp *d, const int64_t global[3], Regions *r)
{
    int64_t off[3], box[3];
    gt_mpi_box(d, off, box);
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 3;
    o.device = GT_CUDA;
    r->f[0] = gt_mpi_empty(d, GT_FLOAT64, "IJK", &o);
    r->f[1] = gt_mpi_zeros(d, GT_FLOAT64, "IJK", &o);
    if (!r->f[0] || !r->f[1])
        return -1;
    gt_storage *u = r->f[0];
    double *p = gt_host(u, GT_WRITE);
    for (int64_t f = 0, n = count_elems(u); f < n; f++) {
        Elem el = elem(u, f);
        int64_t g[2] = {off[0] + el.idx[0] - 3, off[1] + el.idx[1] - 3};
        bool inside = g[0] >= 0 && g[0] < global[0] && g[1] >= 0 && g[1] < global[1];
        bool mine = el.idx[0] >= 3 && el.idx[0] < 3 + box[0] && el.idx[1] >= 3 &&
                    el.idx[1] < 3 + box[1];
        p[el.e] = inside && !mine ? sentinel : value(0, g[0], g[1], el.idx[2]);
    }
    return gt_sync(u) || gt_sync(r->f[1]) ? -1 : 0;
}

static void call_case(const int64_t global[3], const int *dims, bool overlap)
{
    char name[300], why[600] = "";
    snprintf(name, sizeof name, "device gt_mpi_call of regions (cuda, SIMT) %lld x %lld x %lld, "
             "grid %s, %s: only u's strips cross, results bitwise the host path's",
             (long long)global[0], (long long)global[1], (long long)global[2],
             grid_name(dims), overlap ? "overlapped" : "blocking");
    const int open[2] = {0, 0};
    /* u: what regions reads, at most (2 along I, 1 along J) and more; res: nothing */
    const gt_halo_widths widths[2] = {{{2, 2}, {2, 2}}, {{0, 0}, {0, 0}}};
    Regions dev = {{NULL, NULL}}, host = {{NULL, NULL}};
    /* the host path: storages of a device that cannot pack */
    gt__set_device_ops(&nan_device);
    gt_decomp *d = gt_mpi_decompose(MPI_COMM_WORLD, global, dims, open);
    if (make_regions(d, global, &host) != 0 ||
        gt_mpi_call(d, host.f, 2, widths, run_regions, &host, overlap, NULL) != 0)
        snprintf(why, sizeof why, "rank %d: host path: %s", rank, gt_last_error());
    gt__set_device_ops(&strip_device);
    if (!why[0] && make_regions(d, global, &dev) != 0)
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
    reset_counts();
    int rc = why[0] ? 0 : gt_mpi_call(d, dev.f, 2, widths, run_regions, &dev, overlap, NULL);
    if (!why[0] && rc != 0)
        snprintf(why, sizeof why, "rank %d: %s", rank, gt_last_error());
    if (!why[0]) {
        size_t out, in, none_out, none_in;
        int nout, nin, c;
        strips(d, dev.f[0], widths[0], open, false, &out, &nout);
        strips(d, dev.f[0], widths[0], open, true, &in, &nin);
        strips(d, dev.f[1], widths[1], open, false, &none_out, &c);
        strips(d, dev.f[1], widths[1], open, true, &none_in, &c);
        out += none_out, in += none_in;
        if (sd.down != out || sd.up != in || sd.copies != 0 || sd.packs != nout ||
            sd.unpacks != nin || sd.bad || sd.lost)
            snprintf(why, sizeof why, "rank %d: %zu bytes device to host, %zu host to device, "
                     "%d whole copies, %d packs, %d unpacks (%d bad, %d lost); u's strips: "
                     "%zu bytes in %d out, %zu in %d in", rank, sd.down, sd.up, sd.copies,
                     sd.packs, sd.unpacks, sd.bad, sd.lost, out, nout, in, nin);
    }
    for (int f = 0; f < 2 && !why[0]; f++) {
        size_t bytes = (size_t)span(dev.f[f]) * sizeof(double);
        const void *a = gt_host(dev.f[f], GT_READ), *b = gt_host(host.f[f], GT_READ);
        if (!a || !b || memcmp(a, b, bytes) != 0)
            snprintf(why, sizeof why, "rank %d: %s differs from the host path's", rank,
                     f ? "res" : "u");
    }
    report("", name, !why[0], why, sizeof why);
    for (int f = 0; f < 2; f++) {
        gt_release(dev.f[f]);
        gt_release(host.f[f]);
    }
    gt_mpi_decomp_release(d);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const int64_t g[3] = {13, 11, 3};
    const int open[2] = {0, 0}, along_i[2] = {1, 0}, both[2] = {1, 1};
    const int p1[2] = {nproc, 1}, p2[2] = {1, nproc};
    const int *grids[3] = {NULL, p1, p2};
    const int *periodic[3] = {open, along_i, both};
    for (int c = 0; c < 3; c++)
        for (int mode = HOST_NEWER; mode <= BAD_SWITCH; mode++)
            exchange_case(g, grids[c], periodic[c], mode);
    for (int which = 0; which < 3; which++)
        fault_case(g, which);
    for (int ov = 0; ov < 2; ov++) {
        call_case(g, NULL, ov);
        call_case(g, p1, ov);
        call_case(g, p2, ov);
    }
    /* nothing left behind */
    char why[300] = "";
    gt__mpi_trim();
    gt__pool_trim();
    if (nblocks || sd.pinned_live || sd.streams_live || sd.lost)
        snprintf(why, sizeof why, "rank %d: %d device blocks, %d pinned buffers, %d streams "
                 "left, %d queued works lost", rank, nblocks, sd.pinned_live, sd.streams_live,
                 sd.lost);
    report("", "device exchanges leave no device block, pinned buffer or stream", !why[0], why,
           sizeof why);
    for (int k = 0; k < NS; k++)
        free(host_result[k]);
    gt__set_device_ops(NULL);
    MPI_Finalize();
    return failures;
}

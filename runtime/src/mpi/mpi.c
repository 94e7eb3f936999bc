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
 * when that neighbour is itself (a periodic axis of one process).
 *
 * Errors are agreed on before anything is sent: every rank checks its arguments, then one
 * MPI_Allreduce of the worst error code makes every rank fail alike (the others' message
 * names the rank that failed), so no rank is left waiting for a message that never comes
 * and no halo is written. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt_mpi.h>

#include "rt.h"

struct gt_decomp {
    MPI_Comm comm;       /* Cartesian, dims[0] along I and dims[1] along J */
    int dims[2], coords[2], periodic[2], rank;
    int64_t offset[3], box[3], global[3];
    int neighbour[3][3]; /* [di + 1][dj + 1]: the rank in that direction, or MPI_PROC_NULL */
};

/* ---- errors agreed by every rank ---------------------------------------------------------- */

/* The worst (most negative) of every rank's rc; where another rank failed, this rank's
   message says which. MPI failures of the reduction itself are GT_EMPI. */
static int agree(MPI_Comm comm, const char *fn, int rc)
{
    int mine[2] = {rc, 0}, worst[2];
    MPI_Comm_rank(comm, &mine[1]);
    /* MINLOC: the most negative code and the lowest rank that has it */
    int err = MPI_Allreduce(mine, worst, 1, MPI_2INT, MPI_MINLOC, comm);
    if (err != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, text, &len);
        return gt__error(GT_EMPI, "%s: rank %d: MPI_Allreduce failed: %s", fn, mine[1], text);
    }
    if (worst[0] == 0 || rc != 0)
        return worst[0] ? rc : 0;
    return gt__error(worst[0], "%s: rank %d failed (see its message); nothing was exchanged",
                     fn, worst[1]);
}

static int mpi_fail(const char *fn, int rank, const char *call, int err)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(err, text, &len) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", err);
    return gt__error(GT_EMPI, "%s: rank %d: %s failed: %s", fn, rank, call, text);
}

/* ---- decompositions ----------------------------------------------------------------------- */

/* The part of n points that coordinate c of p owns: remainders to the first ranks. */
static void split(int64_t n, int p, int c, int64_t *offset, int64_t *size)
{
    int64_t base = n / p, extra = n % p;
    *size = base + (c < extra);
    *offset = (int64_t)c * base + (c < extra ? c : extra);
}

gt_decomp *gt_mpi_decompose(MPI_Comm comm, const int64_t global[3], const int dims_in[2],
                            const int periodic_in[2])
{
    static const char fn[] = "gt_mpi_decompose";
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized)
        return gt__error(GT_EMPI, "%s: MPI is not initialized (call MPI_Init first)", fn), NULL;
    if (comm == MPI_COMM_NULL)
        return gt__error(GT_EINVAL, "%s: the communicator is MPI_COMM_NULL", fn), NULL;
    int rank = 0, size = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int rc = 0;
    int dims[2] = {dims_in ? dims_in[0] : 0, dims_in ? dims_in[1] : 0};
    int periodic[2] = {periodic_in && periodic_in[0], periodic_in && periodic_in[1]};
    if (!global)
        rc = gt__error(GT_EINVAL, "%s: rank %d: global size is NULL", fn, rank);
    for (int a = 0; !rc && a < 3; a++)
        if (global[a] < 1)
            rc = gt__error(GT_EINVAL, "%s: rank %d: global size along %c is %lld (must be >= 1)",
                           fn, rank, "IJK"[a], (long long)global[a]);
    if (!rc && (dims[0] < 0 || dims[1] < 0))
        rc = gt__error(GT_EINVAL, "%s: rank %d: process grid %d x %d has a negative entry", fn,
                       rank, dims[0], dims[1]);
    if (!rc && dims[0] > 0 && dims[1] > 0 && dims[0] * dims[1] != size)
        rc = gt__error(GT_EINVAL, "%s: rank %d: a process grid of %d x %d needs %d processes, "
                       "the communicator has %d", fn, rank, dims[0], dims[1], dims[0] * dims[1],
                       size);
    if (!rc && ((dims[0] > 0 && size % dims[0]) || (dims[1] > 0 && size % dims[1])))
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d processes cannot be split with %d along %c",
                       fn, rank, size, dims[0] > 0 && size % dims[0] ? dims[0] : dims[1],
                       dims[0] > 0 && size % dims[0] ? 'I' : 'J');
    if (!rc) {
        int err = MPI_Dims_create(size, 2, dims);
        if (err != MPI_SUCCESS)
            rc = mpi_fail(fn, rank, "MPI_Dims_create", err);
    }
    for (int a = 0; !rc && a < 2; a++)
        if (global[a] < dims[a])
            rc = gt__error(GT_ESHAPE, "%s: rank %d: %lld points along %c cannot be split over %d "
                           "processes (each must own at least one)", fn, rank,
                           (long long)global[a], "IJ"[a], dims[a]);
    if ((rc = agree(comm, fn, rc)) != 0)
        return NULL;
    gt_decomp *d = calloc(1, sizeof *d);
    if (!d) {
        agree(comm, fn, gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, rank));
        return NULL;
    }
    int err = MPI_Cart_create(comm, 2, dims, periodic, 0, &d->comm);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_set_errhandler(d->comm, MPI_ERRORS_RETURN);
    if (err != MPI_SUCCESS) {
        mpi_fail(fn, rank, "MPI_Cart_create", err);
        free(d);
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

void gt_mpi_decomp_release(gt_decomp *d)
{
    if (!d)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Comm_free(&d->comm);
    free(d);
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

static gt_storage *local(const char *fn, const gt_decomp *d, gt_dtype t, const char *axes,
                         const gt_storage_opts *opts, bool zero)
{
    int rc = 0;
    int64_t shape[3] = {0, 0, 0};
    const char *ax = axes ? axes : "IJK";
    if (!d)
        return gt__error(GT_EINVAL, "%s: decomposition is NULL", fn), NULL;
    size_t nd = strlen(ax);
    if (nd < 1 || nd > 3)
        rc = gt__error(GT_EAXES, "%s: rank %d: axes \"%s\" (one to three of I, J, K)", fn,
                       d->rank, ax);
    for (size_t x = 0; !rc && x < nd; x++) {
        int a = ax[x] - 'I';
        if (a < 0 || a > 2)
            rc = gt__error(GT_EAXES, "%s: rank %d: axes \"%s\": '%c' is not I, J or K", fn,
                           d->rank, ax, ax[x]);
        else
            shape[x] = d->box[a] + (opts ? opts->halo[x][0] + opts->halo[x][1] : 0);
    }
    gt_storage *s = NULL;
    if (!rc) {
        s = zero ? gt_zeros(t, ax, shape, opts) : gt_empty(t, ax, shape, opts);
        if (!s)
            rc = gt__error(gt_last_error_code(), "%s: rank %d: %s", fn, d->rank, gt_last_error());
    }
    if (agree(d->comm, fn, rc) != 0) {
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
   storage's own index space, halo included), its peer and tag, and its packed bytes. */
typedef struct {
    int storage, peer, tag;
    int64_t lo[3], n[3];
    size_t bytes;
    unsigned char *buf;
} Strip;

struct gt_exchange {
    const gt_decomp *d;
    gt_storage **s;
    Strip *recv, *send;
    int nrecv, nsend;
    MPI_Request *req;     /* nrecv receives, then nsend sends */
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
    int64_t off = 0, dense[3] = {0, 0, 0};
    for (int x = 0; x < s->ndim; x++)
        off += st->lo[x] * s->strides[x];
    /* dense strides: the axes by increasing storage stride */
    int order[3] = {0, 1, 2};
    for (int x = 0; x < s->ndim; x++)
        for (int y = x + 1; y < s->ndim; y++)
            if (s->strides[order[y]] < s->strides[order[x]]) {
                int t = order[x];
                order[x] = order[y];
                order[y] = t;
            }
    int64_t step = 1;
    for (int x = 0; x < s->ndim; x++) {
        dense[order[x]] = step;
        step *= st->n[order[x]];
    }
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
        free(x->recv[m].buf);
    for (int m = 0; m < x->nsend; m++)
        free(x->send[m].buf);
    free(x->recv);
    free(x->send);
    free(x->req);
    free(x->s);
    free(x);
}

/* Checks storage k for the exchange: a local storage of d, with halos as wide as w, and
   this rank's box as wide as w along each axis split over several processes. */
static int check_storage(const char *fn, const gt_decomp *d, const gt_storage *s, int k,
                         const gt_halo_widths w)
{
    for (int x = 0; x < s->ndim; x++) {
        int a = s->axes[x] - 'I';
        int64_t n = s->shape[x] - s->halo[x][0] - s->halo[x][1];
        if (n != d->box[a])
            return gt__error(GT_ESHAPE, "%s: rank %d: storage %d has %lld points along %c, the "
                             "decomposition gives this rank %lld (a storage of another "
                             "decomposition?)", fn, d->rank, k, (long long)n, s->axes[x],
                             (long long)d->box[a]);
        if (a == 2)
            continue;
        for (int side = 0; side < 2; side++) {
            if (w[a][side] < 0)
                return gt__error(GT_EINVAL, "%s: rank %d: storage %d: negative width %lld along "
                                 "%c", fn, d->rank, k, (long long)w[a][side], s->axes[x]);
            if (w[a][side] > s->halo[x][side])
                return gt__error(GT_EHALO, "%s: rank %d: storage %d: its %s halo along %c is "
                                 "%lld, the exchange needs %lld", fn, d->rank, k,
                                 side ? "upper" : "lower", s->axes[x],
                                 (long long)s->halo[x][side], (long long)w[a][side]);
            if (w[a][side] > n && (d->dims[a] > 1 || d->periodic[a]))
                return gt__error(GT_ESHAPE, "%s: rank %d: storage %d: this rank owns %lld points "
                                 "along %c, fewer than the halo width %lld it must send",
                                 fn, d->rank, k, (long long)n, s->axes[x],
                                 (long long)w[a][side]);
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
            Strip snd = {k, d->neighbour[di + 1][dj + 1], tag, {0}, {0}, 0, NULL};
            Strip rcv = {k, d->neighbour[1 - di][1 - dj], tag, {0}, {0}, 0, NULL};
            strip_box(s, w, di, dj, false, &snd);
            strip_box(s, w, di, dj, true, &rcv);
            if (snd.bytes > INT_MAX || rcv.bytes > INT_MAX)
                return gt__error(GT_EINVAL, "%s: rank %d: storage %d: a halo strip of %zu bytes "
                                 "(one message holds at most %d)", fn, d->rank, k,
                                 snd.bytes > rcv.bytes ? snd.bytes : rcv.bytes, INT_MAX);
            if (snd.peer != MPI_PROC_NULL && snd.bytes) {
                if (!(snd.buf = malloc(snd.bytes)))
                    return gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
                pack(s, &snd, false);
                x->send[x->nsend++] = snd;
            }
            if (rcv.peer != MPI_PROC_NULL && rcv.bytes) {
                if (!(rcv.buf = malloc(rcv.bytes)))
                    return gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
                x->recv[x->nrecv++] = rcv;
            }
        }
    return 0;
}

/* A signature of what this rank exchanges (the number of storages, each one's dtype, axes,
   halo and widths): ranks whose signatures differ would post messages that do not match,
   and wait for ever. */
static long long signature(gt_storage *const *storages, int n, const gt_halo_widths *widths)
{
    unsigned long long h = 1469598103934665603ull;
#define MIX(v) (h = (h ^ (unsigned long long)(v)) * 1099511628211ull)
    MIX(n);
    for (int k = 0; k < n; k++) {
        const gt_storage *s = storages[k];
        gt_halo_widths w;
        widths_of(s, widths, k, w);
        MIX(s->dtype);
        for (int x = 0; x < s->ndim; x++)
            MIX(s->axes[x]);
        for (int a = 0; a < 2; a++)
            for (int side = 0; side < 2; side++)
                MIX(w[a][side]);
    }
#undef MIX
    return (long long)(h >> 1);
}

gt_exchange *gt_halo_exchange_begin(const gt_decomp *d, gt_storage *const *storages, int n,
                                    const gt_halo_widths *widths)
{
    static const char fn[] = "gt_halo_exchange";
    if (!d)
        return gt__error(GT_EINVAL, "%s: decomposition is NULL", fn), NULL;
    int rc = 0;
    if (n < 0 || (n > 0 && !storages))
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d storages at %p", fn, d->rank, n,
                       (const void *)storages);
    for (int k = 0; !rc && k < n; k++) {
        if (!storages[k]) {
            rc = gt__error(GT_EINVAL, "%s: rank %d: storage %d is NULL", fn, d->rank, k);
            break;
        }
        gt_halo_widths w;
        widths_of(storages[k], widths, k, w);
        rc = check_storage(fn, d, storages[k], k, w);
    }
    for (int k = 0; !rc && k < n; k++)
        for (int m = 0; !rc && m < k; m++)
            if (storages[k]->buf == storages[m]->buf)
                rc = gt__error(GT_EALIAS, "%s: rank %d: storages %d and %d share a buffer", fn,
                               d->rank, m, k);
    if (!rc && n > 32767 / 9)
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d storages in one exchange (at most %d)", fn,
                       d->rank, n, 32767 / 9);
    if (agree(d->comm, fn, rc) != 0)
        return NULL;
    /* the same storages and widths on every rank */
    long long sig[2] = {signature(storages, n, widths), 0}, range[2];
    sig[1] = -sig[0];
    int err = MPI_Allreduce(sig, range, 2, MPI_LONG_LONG, MPI_MIN, d->comm);
    if (err != MPI_SUCCESS)
        return mpi_fail(fn, d->rank, "MPI_Allreduce", err), NULL;
    if (range[0] != -range[1])
        return gt__error(GT_EINVAL, "%s: rank %d: the ranks were called with different "
                         "storages or widths (their number, dtypes, axes or widths differ)",
                         fn, d->rank), NULL;
    for (int k = 0; !rc && k < n; k++)
        rc = gt__sync_host(fn, storages[k], GT_READWRITE);
    gt_exchange *x = NULL;
    size_t most = (size_t)(n > 0 ? n : 1) * 8;
    if (!rc) {
        x = calloc(1, sizeof *x);
        if (x) {
            x->d = d;
            x->s = calloc((size_t)(n > 0 ? n : 1), sizeof *x->s);
            x->recv = calloc(most, sizeof *x->recv);
            x->send = calloc(most, sizeof *x->send);
            x->req = calloc(2 * most, sizeof *x->req);
        }
        if (!x || !x->s || !x->recv || !x->send || !x->req)
            rc = gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
    }
    for (int k = 0; !rc && k < n; k++) {
        x->s[k] = storages[k];
        rc = plan_storage(fn, x, k, widths);
    }
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

int gt_halo_exchange_end(gt_exchange *x)
{
    static const char fn[] = "gt_halo_exchange_end";
    if (!x)
        return gt__error(GT_EINVAL, "%s: exchange is NULL", fn);
    int rc = 0;
    int err = MPI_Waitall(x->nrecv + x->nsend, x->req, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS)
        rc = mpi_fail(fn, x->d->rank, "MPI_Waitall", err);
    /* a storage with a device side may have been used on the device since begin (the
       inner box of gt_mpi_call uploads its inputs): its host side is brought up to date
       again and marked newer before its halos are written */
    for (int m = 0; !rc && m < x->nrecv; m++)
        if (m == 0 || x->recv[m].storage != x->recv[m - 1].storage)
            rc = gt__sync_host(fn, x->s[x->recv[m].storage], GT_READWRITE);
    for (int m = 0; !rc && m < x->nrecv; m++)
        pack(x->s[x->recv[m].storage], &x->recv[m], true);
    exchange_free(x);
    return rc;
}

int gt_halo_exchange(const gt_decomp *d, gt_storage *const *storages, int n,
                     const gt_halo_widths *widths)
{
    gt_exchange *x = gt_halo_exchange_begin(d, storages, n, widths);
    return x ? gt_halo_exchange_end(x) : gt_last_error_code();
}

/* ---- distributed calls ----------------------------------------------------------------- */

/* Moves the interiors of the storages to [lo, lo + size) of this rank's box along I and J
   (their halos grown by what is left out), or back (restore: the saved halos). */
static void move_interiors(gt_storage *const *s, int n, const int64_t lo[2],
                           const int64_t size[2], const int64_t (*saved)[3][2], bool restore)
{
    for (int k = 0; k < n; k++)
        for (int x = 0; x < s[k]->ndim; x++) {
            int a = s[k]->axes[x] - 'I';
            if (restore) {
                s[k]->halo[x][0] = saved[k][x][0];
                s[k]->halo[x][1] = saved[k][x][1];
            } else if (a < 2) {
                int64_t n0 = s[k]->shape[x] - saved[k][x][0] - saved[k][x][1];
                s[k]->halo[x][0] = saved[k][x][0] + lo[a];
                s[k]->halo[x][1] = saved[k][x][1] + (n0 - lo[a] - size[a]);
            }
        }
}

/* call() over the part [lo, lo + size) of the box (nothing if empty), the part made the
   current place of the stencil (gt__place): its global origin and size. */
static int call_part(const gt_decomp *d, gt__where *w, gt_storage *const *s, int n,
                     const int64_t lo[2], const int64_t size[2], int64_t nk,
                     const int64_t (*saved)[3][2], gt_mpi_stencil_fn *call, void *ctx)
{
    if (size[0] <= 0 || size[1] <= 0)
        return 0;
    for (int a = 0; a < 2; a++) {
        w->origin[a] = d->offset[a] + lo[a];
        w->size[a] = size[a];
    }
    move_interiors(s, n, lo, size, saved, false);
    gt_domain dom = {{size[0], size[1], nk}};
    gt__where_set(w);
    int rc = call(ctx, &dom);
    gt__where_set(NULL);
    move_interiors(s, n, lo, size, saved, true);
    return rc;
}

/* The checking call: call() over the whole box, the stencil returning after its argument
   checks (gt__place returns 1 then). It must call one generated stencil, and learns what
   that stencil reads of each storage on the internal sides (w->needed). */
static int check_call(const gt_decomp *d, gt__where *w, gt_mpi_stencil_fn *call, void *ctx)
{
    static const char fn[] = "gt_mpi_call";
    gt_domain dom = {{d->box[0], d->box[1], d->box[2]}};
    for (int a = 0; a < 2; a++) {
        w->origin[a] = d->offset[a];
        w->size[a] = d->box[a];
    }
    w->check = 1;
    gt__where_set(w);
    int rc = call(ctx, &dom);
    gt__where_set(NULL);
    w->check = 0;
    if (rc == 0 && w->calls != 1)
        rc = gt__error(GT_EINVAL, "%s: rank %d: the function called %d generated stencil(s); "
                       "it must call exactly one, compiled by this gtcc (older generated code "
                       "cannot take part in distributed calls)", fn, d->rank, w->calls);
    return rc;
}

/* The check of the run-time K levels after the exchange (gt__levels_now deferred it: the
   check reads halos the exchange fills): call() over the whole box, the stencil checking
   its levels and returning (gt__place returns 2). */
static int level_call(const gt_decomp *d, gt__where *w, gt_mpi_stencil_fn *call, void *ctx)
{
    gt_domain dom = {{d->box[0], d->box[1], d->box[2]}};
    for (int a = 0; a < 2; a++) {
        w->origin[a] = d->offset[a];
        w->size[a] = d->box[a];
    }
    w->check = 2;
    gt__where_set(w);
    int rc = call(ctx, &dom);
    gt__where_set(NULL);
    w->check = 0;
    return rc;
}

/* Combines each out scalar over the ranks, in rank order, and writes it where the stencil
   wrote its part's value. */
static int combine_results(const gt_decomp *d, gt__where *w)
{
    static const char fn[] = "gt_mpi_call";
    int size = 0, rc = w->red_error
                           ? gt__error(w->red_error, "%s: rank %d: the out scalars could not "
                                       "be combined (%s)", fn, d->rank,
                                       w->red_error == GT_ENOMEM ? "out of memory"
                                                                 : "their parts disagree")
                           : 0;
    MPI_Comm_size(d->comm, &size);
    gt__reduction *all = calloc((size_t)size, sizeof *all);
    size_t bytes = sizeof all->value;
    if (!rc && !all)
        rc = gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
    /* every rank ran the same stencil: the same out scalars */
    int counts[2] = {w->nred, -w->nred}, most[2];
    int err = MPI_Allreduce(counts, most, 2, MPI_INT, MPI_MAX, d->comm);
    if (err != MPI_SUCCESS) {
        rc = rc ? rc : mpi_fail(fn, d->rank, "MPI_Allreduce", err);
    } else if (!rc) {
        if (most[0] != -most[1])
            rc = gt__error(GT_EINVAL, "%s: rank %d: the ranks' stencils have different out "
                           "scalars (%d here, up to %d elsewhere)", fn, d->rank, w->nred,
                           most[0]);
    }
    rc = agree(d->comm, fn, rc);
    for (int slot = 0; !rc && slot < w->nred; slot++) {
        gt__reduction *r = &w->red[slot];
        /* packed: one value per rank, back to back at the start of all */
        err = MPI_Allgather(&r->value, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE,
                            d->comm);
        if (err != MPI_SUCCESS) {
            rc = agree(d->comm, fn, mpi_fail(fn, d->rank, "MPI_Allgather", err));
            break;
        }
        unsigned char *packed = (unsigned char *)all;
        gt__reduction total = {.op = r->op, .dtype = r->dtype};
        for (int k = 0; k < size; k++)
            gt__reduction_combine(&total, packed + (size_t)k * bytes);
        if (r->result)
            memcpy(r->result, &total.value, gt_dtype_size(r->dtype));
    }
    free(all);
    return rc;
}

int gt_mpi_call(const gt_decomp *d, gt_storage *const *storages, int n,
                const gt_halo_widths *widths, gt_mpi_stencil_fn *call, void *ctx, int overlap,
                double times[2])
{
    static const char fn[] = "gt_mpi_call";
    if (!d)
        return gt__error(GT_EINVAL, "%s: decomposition is NULL", fn);
    double t[2] = {0, 0};
    int rc = call ? 0 : gt__error(GT_EINVAL, "%s: rank %d: stencil function is NULL", fn,
                                  d->rank);
    if (!rc && (n < 0 || (n > 0 && !storages)))
        rc = gt__error(GT_EINVAL, "%s: rank %d: %d storages at %p", fn, d->rank, n,
                       (const void *)storages);
    for (int k = 0; !rc && k < n; k++)
        if (!storages[k])
            rc = gt__error(GT_EINVAL, "%s: rank %d: storage %d is NULL", fn, d->rank, k);
    if (agree(d->comm, fn, rc) != 0)
        return rc ? rc : gt_last_error_code();
    size_t count = (size_t)(n > 0 ? n : 1);
    int64_t (*saved)[3][2] = calloc(count, sizeof *saved);
    /* one more: whether the run-time K levels are checked after the exchange */
    gt_halo_widths *needed = calloc(count + 1, sizeof *needed);
    const char **needed_by = calloc(count, sizeof *needed_by);
    gt__where w = {.rank = d->rank, .n = n, .storages = storages, .needed = needed,
                   .needed_by = needed_by};
    if (!saved || !needed || !needed_by)
        rc = gt__error(GT_ENOMEM, "%s: rank %d: out of memory", fn, d->rank);
    if (agree(d->comm, fn, rc) != 0) {
        free(saved);
        free(needed);
        free(needed_by);
        return rc ? rc : gt_last_error_code();
    }
    for (int a = 0; a < 2; a++) {
        w.global[a] = d->global[a];
        w.wrap[a] = d->periodic[a];
        w.internal[a][0] = d->periodic[a] || d->offset[a] > 0;
        w.internal[a][1] = d->periodic[a] || d->offset[a] + d->box[a] < d->global[a];
    }
    for (int k = 0; k < n; k++)
        memcpy(saved[k], storages[k]->halo, sizeof saved[k]);
    /* the checking call, then the widths: as given (at least what the stencil reads on
       the internal sides) or, NULL, what the stencil reads */
    rc = check_call(d, &w, call, ctx);
    /* one exchange for all: what any rank's stencil reads (a rank on a global edge reads
       nothing beyond it; the exchange wants the same widths everywhere); and whether any
       rank checks the run-time K levels only after the exchange (gt__levels_now) */
    needed[n][0][0] = w.levels == 2;
    {
        int err = MPI_Allreduce(MPI_IN_PLACE, needed, 4 * (n + 1), MPI_INT64_T, MPI_MAX,
                                d->comm);
        if (err != MPI_SUCCESS && !rc)
            rc = mpi_fail(fn, d->rank, "MPI_Allreduce", err);
    }
    const bool levels_after = needed[n][0][0] > 0;
    for (int k = 0; !rc && widths && k < n; k++)
        for (int a = 0; !rc && a < 2; a++)
            for (int side = 0; !rc && side < 2; side++)
                if (widths[k][a][side] < needed[k][a][side])
                    rc = gt__error(GT_EHALO, "%s: rank %d: widths[%d] exchange %lld point(s) "
                                   "of the %s %s halo, but field '%s' of the stencil reads "
                                   "%lld there", fn, d->rank, k,
                                   (long long)widths[k][a][side], side ? "upper" : "lower",
                                   a ? "J" : "I", needed_by[k], (long long)needed[k][a][side]);
    const gt_halo_widths *use = widths ? widths : (const gt_halo_widths *)needed;
    w.widths = (const gt_halo_widths_ *)use;
    if (agree(d->comm, fn, rc) != 0) {
        free(saved);
        free(needed);
        free(needed_by);
        free(w.red);
        gt__where_end(&w, 0);   /* nothing was written */
        return rc ? rc : gt_last_error_code();
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
    const int64_t (*halos)[3][2] = (const int64_t(*)[3][2])saved;
    double t0 = MPI_Wtime();
    gt_exchange *x = gt_halo_exchange_begin(d, storages, n, use);
    if (!x) {
        free(saved);
        free(needed);
        free(needed_by);
        free(w.red);
        gt__where_end(&w, 0);
        return gt_last_error_code();
    }
    if (levels_after) {
        /* the check of the run-time K levels reads halos: once they are exchanged, every
           rank checks, then they agree, then the box is computed (no overlap) */
        rc = gt_halo_exchange_end(x);
        double t1 = MPI_Wtime();
        t[0] = t1 - t0;
        if (!rc)
            rc = level_call(d, &w, call, ctx);
        rc = agree(d->comm, fn, rc);
        const int64_t origin[2] = {0, 0};
        if (!rc)
            rc = call_part(d, &w, storages, n, origin, box, nk, halos, call, ctx);
        t[1] = MPI_Wtime() - t1;
    } else if (!overlap) {
        rc = gt_halo_exchange_end(x);
        double t1 = MPI_Wtime();
        t[0] = t1 - t0;
        const int64_t origin[2] = {0, 0};
        if (!rc)
            rc = call_part(d, &w, storages, n, origin, box, nk, halos, call, ctx);
        t[1] = MPI_Wtime() - t1;
    } else {
        double t1 = MPI_Wtime();
        const int64_t in_lo[2] = {wide[0][0], wide[1][0]};
        const int64_t in_n[2] = {box[0] - wide[0][0] - wide[0][1], box[1] - wide[1][0] - wide[1][1]};
        rc = call_part(d, &w, storages, n, in_lo, in_n, nk, halos, call, ctx);
        double t2 = MPI_Wtime();
        int end = gt_halo_exchange_end(x);
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
            rc = call_part(d, &w, storages, n, part_lo[p], part_n[p], nk, halos, call, ctx);
        t[0] = (t1 - t0) + (t3 - t2);   /* posting (packing), then the wait */
        t[1] = (t2 - t1) + (MPI_Wtime() - t3);
    }
    free(saved);
    free(needed);
    free(needed_by);
    if (times) {
        times[0] = t[0];
        times[1] = t[1];
    }
    /* a stencil that failed on one rank fails the call on every rank; the outputs a
       stencil with run-time K levels read as computed kept are put back (gt__keep) */
    rc = agree(d->comm, fn, rc);
    rc = gt__where_end(&w, rc);
    if (!rc)
        rc = combine_results(d, &w);
    free(w.red);
    return rc;
}

/* entry.c: what the generated distributed entries S_mpi build on (gt__mpi_entry), and the
 * halo a local storage needs for them (gt_mpi_halo); gt/gt_mpi.h says what each does,
 * docs/mpi.md how to use them.
 *
 * S_mpi is a static inline function of the generated header (compiler/emit_abi.c): it
 * puts S's arguments into a context, its field storages into an array, and calls
 * gt__mpi_entry with S_info and a function that calls S from the context. Here the
 * storages become gt_mpi_call's (each once: a stencil may take one storage for an input
 * read at offset 0 and an output, which one exchange cannot hold twice), or, for a
 * stencil without fields, the one point every process computes alike. */
#include <stdio.h>
#include <string.h>

#include <gt/gt_mpi.h>

#include "call.h"
#include "relay.h"

int gt_mpi_halo(const gt_stencil_info *info, int field, const char *axes, int64_t halo[3][2])
{
    static const char fn[] = "gt_mpi_halo";
    if (!info || !info->fields || !halo || field < 0 || field >= info->nfields)
        return gt__error(GT_EINVAL, "%s: bad arguments (info %s, field %d of %d, halo %s)", fn,
                         info ? "given" : "NULL", field, info ? info->nfields : 0,
                         halo ? "given" : "NULL");
    const gt_field_info *fi = &info->fields[field];
    const char *ax = axes ? axes : fi->axes;
    size_t n = strlen(ax);
    int same = fi->axes && n == strlen(fi->axes);
    for (size_t x = 0; same && x < n; x++)
        same = strchr(fi->axes, ax[x]) && !memchr(ax, ax[x], x);
    if (!same)
        return gt__error(GT_EAXES, "%s: stencil '%s': field '%s' has axes %s, a storage of "
                         "axes \"%s\" cannot hold it", fn, info->name ? info->name : "?",
                         fi->name ? fi->name : "?", fi->axes ? fi->axes : "(null)", ax);
    int64_t out[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    for (size_t x = 0; x < n; x++) {
        int a = ax[x] - 'I';
        for (int side = 0; side < 2; side++) {
            int64_t h = fi->halo[a][side], r = fi->reach[a][side];
            out[x][side] = a < 2 && r > h ? r : h;
        }
    }
    memcpy(halo, out, sizeof out);
    return 0;
}

/* The worst of every rank's rc, the same on every rank (where another rank failed, this
   rank's message names it), as mpi.c's agreements: a positive rc fails too. */
static int agree(const gt_stencil_info *info, MPI_Comm comm, int rc, const char *what)
{
    char fn[300];
    snprintf(fn, sizeof fn, "stencil '%s'", info->name);
    return gt__mpi_agree(comm, fn, rc, what);
}

static int same_storages(const gt_stencil_info *info, const gt_decomp *d, gt_storage **fields,
                         int rc);

/* A stencil without fields: its arguments checked on every rank (the stencil returns after
   its checks, as in gt_mpi_call's checking call), the outcome agreed, then one call as one
   process makes it. */
static int without_fields(const gt_stencil_info *info, const gt_decomp *d,
                          gt_mpi_stencil_fn *call, void *ctx, double times[2])
{
    int rank = 0;
    gt_mpi_grid(d, NULL, NULL, &rank);
    MPI_Comm comm = gt_mpi_comm(d);
    /* the checking call: a one-point domain at the global origin, nothing exchanged */
    gt__mpi_call w;
    gt__mpi_call_init(&w, rank, 0, NULL, NULL, NULL);
    w.place.check = 1;
    w.place.global[0] = w.place.global[1] = 1;
    w.place.size[0] = w.place.size[1] = 1;
    gt__placement_set(&w.place);
    int rc = call(ctx, NULL);
    gt__placement_set(NULL);
    if (rc == 0 && w.place.calls != 1)
        rc = gt__error(GT_EINVAL, "stencil '%s': rank %d: the entry's function called %d "
                       "generated stencil(s)", info->name, rank, w.place.calls);
    /* agreed as a stencil with fields agrees on its storages (the same round: ranks that
       call a stencil with fields meet it, and every rank refuses the call) */
    rc = same_storages(info, d, NULL, rc);
    /* every rank computes the whole: with the same scalar arguments */
    if (!rc)
        rc = gt__mpi_same_scalars(comm, "gt_mpi_call", rank, info, w.scalars, w.nscalars,
                                  w.scalars_error);
    gt__mpi_call_free(&w);
    if (rc != 0)
        return rc;
    double t0 = MPI_Wtime();
    rc = call(ctx, NULL);
    if (times) {
        times[0] = 0;
        times[1] = MPI_Wtime() - t0;
    }
    return agree(info, comm, rc, "the call failed");
}

/* The first field whose storage field f has (f itself if none before it has it). */
static int first_with(gt_storage **fields, int f)
{
    int g = 0;
    while (fields[g] != fields[f])
        g++;
    return g;
}

/* Every field's storage given (GT_EINVAL naming the field otherwise), and the same fields
   sharing a storage on every rank (each storage goes to gt_mpi_call once: a NULL storage or
   one shared on some ranks only gave the ranks different numbers of storages, refused
   as "the number of storages (n)", which S_mpi's caller never passed), agreed by every rank
   before gt_mpi_call in one MPI_Allreduce of a fixed size: the worst failure, the number of
   fields (ranks calling stencils of other numbers of fields must not go on to a collective
   sized by it) and a digest of which fields share a storage; only where the digests differ,
   a second round names the field. */
static int same_storages(const gt_stencil_info *info, const gt_decomp *d, gt_storage **fields,
                         int rc)
{
    int rank = 0, nf = info->nfields;
    gt_mpi_grid(d, NULL, NULL, &rank);
    /* for the second round, made before the first (a rank out of memory fails every rank,
       rather than leave the second round without it) */
    int *first = gt__malloc(sizeof *first * 4 * (size_t)(nf > 0 ? nf : 1));
    if (!first && !rc)
        rc = gt__error(GT_ENOMEM, "stencil '%s': rank %d: out of memory", info->name, rank);
    for (int f = 0; f < nf && !rc; f++)
        if (!fields[f])
            rc = gt__error(GT_EINVAL, "stencil '%s': rank %d: the storage of field '%s' is NULL",
                           info->name, rank, info->fields[f].name);
    int64_t digest = 0;
    for (int f = 0; f < nf && !rc; f++)
        digest = (digest * 1000003 + first_with(fields, f) + 1) % ((int64_t)1 << 40);
    int64_t mine[5] = {gt__mpi_fail_key(rc, rank), nf, -nf, digest, -digest};
    int64_t most[5];
    MPI_Comm comm = gt_mpi_comm(d);
    char fn[300];
    snprintf(fn, sizeof fn, "stencil '%s'", info->name);
    int err = gt__mpi_open_allreduce(comm, fn, rank, mine, most, 5);
    int who = 0, worst = err == 0 ? gt__mpi_fail_worst(most[0], &who) : 0;
    if (worst != 0) {
        rc = gt__mpi_failed(comm, fn, rank, rc, worst, who, NULL);
    } else if (err != 0) {
        rc = err;
    } else if (most[1] != -most[2]) {
        rc = gt__error(GT_EINVAL, "stencil '%s': the ranks call stencils of %lld to %lld "
                       "fields: every rank must call the same stencil; nothing was done",
                       info->name, (long long)-most[2], (long long)most[1]);
    } else if (most[3] != -most[4]) {
        /* which field: per field, the least and (negated) the most of the first field with
           its storage (nf agreed above) */
        int *least = first + 2 * nf;
        for (int f = 0; f < nf; f++) {
            first[f] = first_with(fields, f);
            first[nf + f] = -first[f];
        }
        if (MPI_Allreduce(first, least, 2 * nf, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
            rc = gt__error(GT_EMPI, "stencil '%s': rank %d: MPI_Allreduce failed", info->name,
                           rank);
        for (int f = 0; f < nf && !rc; f++)
            if (least[f] != -least[nf + f])
                rc = gt__error(GT_EINVAL, "stencil '%s': the ranks disagree on which fields "
                               "share a storage: field '%s' has the storage of field '%s' on "
                               "some ranks only; every rank must pass them alike; nothing "
                               "was done", info->name, info->fields[f].name,
                               info->fields[least[f]].name);
    }
    gt__free(first);
    return rc;
}

int gt__mpi_entry(const gt_stencil_info *info, const gt_decomp *d, gt_storage **fields,
                  gt_mpi_stencil_fn *call, void *ctx, int overlap, double times[2])
{
    if (!info || !info->name || info->nfields < 0 || (info->nfields > 0 && !fields) || !call)
        return gt__error(GT_EINVAL, "gt__mpi_entry: invalid call (generated code of another "
                         "gtcc?)");
    if (!d)
        return gt__error(GT_EINVAL, "stencil '%s': decomposition is NULL", info->name);
    char who[300];
    snprintf(who, sizeof who, "stencil '%s'", info->name);
    if (gt__mpi_down(who))
        return GT_EMPI;
    gt__mpi_open(GT_MPI_ENTRY);
    if (info->nfields == 0)
        return without_fields(info, d, call, ctx, times);
    int rc = same_storages(info, d, fields, 0);
    if (rc)
        return rc;
    /* each storage once, named after its first field in gt_mpi_call's messages (without
       the names where they cannot be had: the messages then say "storage 1" alone) */
    const char **names = gt__malloc(sizeof *names * (size_t)info->nfields);
    int n = 0;
    for (int f = 0; f < info->nfields; f++) {
        int seen = 0;
        for (int g = 0; g < n && !seen; g++)
            seen = fields[g] == fields[f];
        if (!seen) {
            if (names)
                names[n] = info->fields[f].name;
            fields[n++] = fields[f];
        }
    }
    gt__mpi_storage_names(names, n);
    rc = gt_mpi_call(d, fields, n, NULL, call, ctx, overlap, times);
    gt__mpi_storage_names(NULL, 0);
    gt__free(names);
    return rc;
}

/* place.c: where a stencil call's compute domain lies in the global domain (gt__place),
 * and the out scalars of a distributed call (gt__place_result).
 *
 * Every generated stencil asks gt__place once per call, after binding its arguments. A
 * single process's call is the whole global domain: origin 0, bounds [0, size), periodic
 * boundary conditions wrap within the domain. While a distributed call runs
 * (gt_mpi_call, runtime/src/mpi/mpi.c), the calling thread has a current gt__where: the
 * part of the global domain the stencil computes, which sides of the rank's box are
 * internal (their halos come from the exchange), and what was exchanged. gt__place then
 * checks the call against it, before the stencil touches any data, and tells the
 * generated code the global origin (index(i), index(j)) and the global edges (boundary
 * conditions apply there only).
 *
 * Reads at run-time K levels (language.md 10.3, compiler/emit_kcheck.c): when the stencil
 * checks the levels that depend on inputs only (gt__levels_now: before any rank computes
 * anything), the record of the first failure of those that depend on computed values
 * (gt__kfail_note), and the outputs such a stencil keeps to put them back when the call
 * fails (gt__keep: in a distributed call, kept by the checking call and put back by
 * gt_mpi_call once the ranks agree that one failed, gt__where_end). */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static _Thread_local gt__where *current;

void gt__where_set(gt__where *w)
{
    current = w;
}

int64_t gt__halo(const gt_storage *s, int d, int side)
{
    const gt__where *w = current;
    int64_t h = s->halo[d][side];
    int a = s->axes[d] - 'I';
    if (!w || !w->in_part || a > 1)
        return h;
    for (int k = 0; k < w->n; k++)
        if (w->storages[k] == s) {
            int64_t n0 = s->shape[d] - s->halo[d][0] - s->halo[d][1];
            return side == 0 ? h + w->part[a] : h + (n0 - w->part[a] - w->size[a]);
        }
    return h;
}

static const char *const axis_name[2] = {"I", "J"};
static const char *const side_name[2] = {"lower", "upper"};

/* Whether storage s has room for what field f reads beyond the internal side `side` of
   axis a (r points), from the halo the exchange fills: a storage made with S_info's halo
   has none along an axis with a boundary condition, which one process applies instead. */
static int check_room(const gt__where *w, const gt_stencil_info *info, int f,
                      const gt_storage *s, int a, int side, int64_t r)
{
    int x = gt__axis_pos(s, "IJ"[a]);
    if (x < 0 || gt__halo(s, x, side) >= r)
        return 0;
    return gt__error(GT_EHALO, "stencil '%s': rank %d: field '%s' reads %lld point(s) beyond "
                     "the %s %s edge of this rank's box, from its halo, but the storage's "
                     "halo there is %lld: a distributed call needs the halo gt_mpi_halo gives "
                     "(S_info.fields[%d].reach along I and J)", info->name, w->rank,
                     info->fields[f].name, (long long)r, side_name[side], axis_name[a],
                     (long long)gt__halo(s, x, side), f);
}

/* What field f of a distributed call needs: each internal side's halo exchanged as far as
   it reads (its reach), and a periodic bc only along an axis that the decomposition wraps.
   The checking call records the reach per storage in w->needed. */
static int check_field(gt__where *w, const gt_stencil_info *info, int f, gt_storage *s)
{
    const gt_field_info *fi = &info->fields[f];
    for (int a = 0; a < 2; a++) {
        if (!strchr(fi->axes, "IJ"[a]))
            continue;
        if (fi->bc[a] == 1 + GT_BC_PERIODIC && !w->wrap[a])
            return gt__error(GT_EINVAL, "stencil '%s': rank %d: field '%s' has a periodic "
                             "boundary condition along %s, but the decomposition is not "
                             "periodic along %s (gt_mpi_decompose's periodic[%d])",
                             info->name, w->rank, fi->name, axis_name[a], axis_name[a], a);
        for (int side = 0; side < 2; side++) {
            int64_t r = fi->reach[a][side];
            if (r == 0 || !w->internal[a][side])
                continue;
            int k = 0;
            while (k < w->n && w->storages[k] != s)
                k++;
            if (k == w->n)
                return gt__error(GT_EINVAL, "stencil '%s': rank %d: field '%s' reads %lld "
                                 "point(s) beyond the %s %s edge of this rank's box, from "
                                 "its halo, but its storage is not among gt_mpi_call's "
                                 "storages: nothing would fill that halo", info->name,
                                 w->rank, fi->name, (long long)r, side_name[side],
                                 axis_name[a]);
            if (w->check == 1) {
                int rc = check_room(w, info, f, s, a, side, r);
                if (rc)
                    return rc;
                if (w->needed[k][a][side] < r) {
                    w->needed[k][a][side] = r;
                    w->needed_by[k] = fi->name;
                }
            } else if (w->widths[k][a][side] < r) {
                return gt__error(GT_EHALO, "stencil '%s': rank %d: field '%s' reads %lld "
                                 "point(s) beyond the %s %s edge of this rank's box, but "
                                 "gt_mpi_call exchanged %lld there", info->name, w->rank,
                                 fi->name, (long long)r, side_name[side], axis_name[a],
                                 (long long)w->widths[k][a][side]);
            }
        }
    }
    return 0;
}

int gt__place(const gt_stencil_info *info, gt_storage *const *fields, const int64_t size[3],
              gt_place *place)
{
    gt__where *w = current;
    if (!w) {
        for (int a = 0; a < 2; a++) {
            place->origin[a] = 0;
            place->lo[a] = 0;
            place->hi[a] = size[a];
            place->wrap[a] = 1;
        }
        place->distributed = NULL;
        return 0;
    }
    w->calls++;
    w->info = info;
    if (size[0] != w->size[0] || size[1] != w->size[1])
        return gt__error(GT_ESHAPE, "stencil '%s': rank %d: called with a domain of %lld x "
                         "%lld along I and J in a distributed call whose part is %lld x "
                         "%lld: call the stencil with the domain gt_mpi_call gives",
                         info->name, w->rank, (long long)size[0], (long long)size[1],
                         (long long)w->size[0], (long long)w->size[1]);
    for (int f = 0; f < info->nfields; f++) {
        int rc = check_field(w, info, f, fields[f]);
        if (rc)
            return rc;
    }
    /* positions beyond +-2^30 compare alike with any position of a storage (below 2^29
       along an axis for 32-bit kernels, gt__index32): the bounds fit every index type */
    const int64_t far = (int64_t)1 << 30;
    for (int a = 0; a < 2; a++) {
        int64_t lo = -w->origin[a], hi = w->global[a] - w->origin[a];
        place->origin[a] = w->origin[a];
        place->lo[a] = lo < -far ? -far : lo;
        place->hi[a] = hi > far ? far : hi;
        place->wrap[a] = 0;
    }
    place->distributed = w;
    return w->check;
}

void gt__reduction_combine(gt__reduction *r, const void *value)
{
    if (!r->set) {
        memcpy(&r->value, value, gt_dtype_size(r->dtype));
        r->set = 1;
        return;
    }
    switch (r->dtype) {
    case GT_FLOAT64: {
        double v;
        memcpy(&v, value, sizeof v);
        r->value.d = r->op == 0 ? r->value.d + v : r->op == 1 ? fmin(r->value.d, v)
                                                              : fmax(r->value.d, v);
        break;
    }
    case GT_FLOAT32: {
        float v;
        memcpy(&v, value, sizeof v);
        r->value.f = r->op == 0 ? r->value.f + v : r->op == 1 ? fminf(r->value.f, v)
                                                              : fmaxf(r->value.f, v);
        break;
    }
    case GT_INT32: {
        int32_t v;
        memcpy(&v, value, sizeof v);
        /* a sum in unsigned arithmetic: wraps as the generated code's would, defined */
        r->value.i = r->op == 0   ? (int32_t)((uint32_t)r->value.i + (uint32_t)v)
                     : r->op == 1 ? (v < r->value.i ? v : r->value.i)
                                  : (v > r->value.i ? v : r->value.i);
        break;
    }
    case GT_BOOL: {
        bool v;
        memcpy(&v, value, sizeof v);
        /* min: all, max: any; a sum of bools is not a language reduction */
        r->value.b = r->op == 1 ? (r->value.b && v) : (r->value.b || v);
        break;
    }
    }
}

void gt__place_result(const gt_place *place, int slot, int op, gt_dtype dtype, void *result)
{
    gt__where *w = place->distributed;
    if (!w || slot < 0)
        return;
    if (slot >= w->cap) {
        int cap = slot + 8;
        gt__reduction *red = realloc(w->red, sizeof *red * (size_t)cap);
        if (!red) {
            w->red_error = GT_ENOMEM;
            return;
        }
        memset(red + w->cap, 0, sizeof *red * (size_t)(cap - w->cap));
        w->red = red;
        w->cap = cap;
    }
    if (slot >= w->nred)
        w->nred = slot + 1;
    gt__reduction *r = &w->red[slot];
    if (r->set && (r->op != op || r->dtype != dtype || r->result != result)) {
        w->red_error = GT_EINVAL;
        return;
    }
    r->op = op;
    r->dtype = dtype;
    r->result = result;
    gt__reduction_combine(r, result);
}

/* ---- reads at run-time K levels ----------------------------------------------------------- */

int gt__levels_now(const gt_place *place, int checking, const int64_t reach[4])
{
    gt__where *w = place->distributed;
    if (!w || checking == 2)
        return 1;
    if (checking == 0)
        return 0;   /* a part: checked before any part ran */
    /* the checking call: now, unless the check reads a halo the exchange fills */
    for (int a = 0; a < 2; a++)
        for (int side = 0; side < 2; side++)
            if (reach[2 * a + side] > 0 && w->internal[a][side]) {
                w->levels = 2;
                return 0;
            }
    w->levels = 1;
    return 1;
}

void gt__kfail_init(gt_kfail *f)
{
    memset(f, 0, sizeof *f);
    f->key[0] = INT64_MAX;
    f->read = -1;
}

static atomic_flag kfail_lock = ATOMIC_FLAG_INIT;

void gt__kfail_note(gt_kfail *f, int64_t phase, int64_t korder, int32_t read, int64_t i,
                    int64_t j, int64_t k, int64_t level)
{
    const int64_t key[5] = {phase, korder, read, j, i};
    while (atomic_flag_test_and_set_explicit(&kfail_lock, memory_order_acquire))
        ;
    int x = 0;
    while (x < 5 && key[x] == f->key[x])
        x++;
    if (x < 5 && key[x] < f->key[x]) {
        memcpy(f->key, key, sizeof key);
        f->k = k;
        f->level = level;
        f->read = read;
    }
    atomic_flag_clear_explicit(&kfail_lock, memory_order_release);
}

/* One output kept: its box on the host (a dense copy, the storage's smallest stride
   innermost), or its bytes on the device (a block of the pool). */
typedef struct {
    gt_storage *s;
    int device;
    size_t bytes;              /* of the copy */
    void *copy;                /* host: the box; device: the block's start */
    int64_t offset;            /* host: elements from element (0,0,0) to the box's first */
    int64_t extent[3], dense[3];
    unsigned char *at;         /* device: the storage's first byte */
    void *raw;                 /* device: the block, for gt__pool_put, and its size */
    size_t raw_bytes;
} Kept;

/* An out scalar kept: where it is, its bytes. */
typedef struct {
    void *result;
    size_t bytes;
    unsigned char value[8];
} KeptResult;

struct gt__kept {
    Kept *fields;
    int nfields, cap;
    KeptResult *results;
    int nresults, rcap;
};

/* The device copy of nbytes from src to dst (device addresses): the device layer's, or
   through the host where it has none. */
static int device_within(const gt__device_ops *ops, void *dst, const void *src, size_t nbytes)
{
    if (ops->device_copy)
        return ops->device_copy(dst, src, nbytes);
    void *tmp = gt__malloc(nbytes ? nbytes : 1);
    if (!tmp)
        return -1;
    int err = ops->to_host(tmp, src, nbytes);
    if (!err)
        err = ops->to_device(dst, tmp, nbytes);
    gt__free(tmp);
    return err;
}

/* Keeps output s of stencil sn: its box of size[] (by axis name) on the host, or all its
   bytes on the device. */
static int keep_one(const char *sn, gt__kept *k, gt_storage *s, const int64_t size[3],
                    int device)
{
    char what[160];
    snprintf(what, sizeof what, "stencil '%s'", sn);
    if (k->nfields == k->cap) {
        int cap = k->cap ? 2 * k->cap : 4;
        Kept *f = realloc(k->fields, sizeof *f * (size_t)cap);
        if (!f)
            return gt__error(GT_ENOMEM, "%s: no memory to keep its outputs", what);
        k->fields = f;
        k->cap = cap;
    }
    Kept *e = &k->fields[k->nfields];
    memset(e, 0, sizeof *e);
    e->s = s;
    e->device = device;
    size_t es = gt_dtype_size(s->dtype);
    if (device) {
        const gt__device_ops *ops = s->buf->ops ? s->buf->ops : gt__device_ops_get();
        uintptr_t lo, hi;
        gt__byte_range(s, &lo, &hi);
        e->bytes = hi - lo;
        if (e->bytes == 0) {
            k->nfields++;
            return 0;
        }
        e->at = gt__device_raw(s); /* its lowest element (a device-only storage's too) */
        int err = 0;
        e->copy = gt__pool_get(ops, e->bytes, &e->raw, &e->raw_bytes, &err);
        if (!e->copy)
            return gt__error(GT_EDEVICE, "%s: no device memory to keep an output (%zu "
                             "bytes: %s)", what, e->bytes, gt__device_why(ops, err));
        k->nfields++;   /* gt__keep_end gives the block back */
        err = device_within(ops, e->copy, e->at, e->bytes);
        if (err)
            return gt__error(GT_EDEVICE, "%s: keeping an output on the device failed (%s: "
                             "%s)", what, ops->name, gt__device_why(ops, err));
        return 0;
    }
    int rc = gt__sync_host(what, s, GT_READ);
    if (rc)
        return rc;
    /* the box, dense in the storage's order of strides */
    size_t count = 1;
    for (int x = 0; x < s->ndim; x++) {
        e->extent[x] = size[s->axes[x] - 'I'];
        e->offset += gt__halo(s, x, 0) * s->strides[x];
        count *= (size_t)e->extent[x];
    }
    gt__dense_strides(s, e->extent, e->dense);
    e->bytes = count * es;
    e->copy = gt__malloc(e->bytes ? e->bytes : 1);
    if (!e->copy)
        return gt__error(GT_ENOMEM, "%s: no memory to keep an output (%zu bytes)", what,
                         e->bytes);
    k->nfields++;
    if (count)
        gt__copy_box(e->copy, e->dense, (unsigned char *)gt__host_raw(s) + e->offset *
                     (int64_t)es, s->strides, e->extent, s->ndim, es);
    return 0;
}

int gt__keep(const gt_place *place, const gt_stencil_info *info, gt_storage *const *fields,
             const int64_t size[3], int checking, int device, gt__kept **kept)
{
    *kept = NULL;
    gt__where *w = place->distributed;
    if (w && checking != 1)
        return 0;   /* kept by the checking call */
    gt__kept *k = w && w->kept ? w->kept : calloc(1, sizeof *k);
    if (!k)
        return gt__error(GT_ENOMEM, "stencil '%s': no memory to keep its outputs", info->name);
    int rc = 0;
    for (int f = 0; f < info->nfields && !rc; f++)
        if (info->fields[f].is_output)
            rc = keep_one(info->name, k, fields[f], size, w ? 0 : device);
    if (w)
        w->kept = k;   /* freed (and put back) by gt__where_end */
    else if (rc)
        gt__keep_end(k, 0);
    else
        *kept = k;
    return rc;
}

void gt__keep_result(const gt_place *place, int checking, const void *result, size_t bytes)
{
    gt__where *w = place->distributed;
    if (!w || checking != 1 || bytes > sizeof ((KeptResult *)0)->value)
        return;
    gt__kept *k = w->kept ? w->kept : calloc(1, sizeof *k);
    if (!k)
        goto nomem;
    w->kept = k;
    if (k->nresults == k->rcap) {
        int cap = k->rcap ? 2 * k->rcap : 4;
        KeptResult *r = realloc(k->results, sizeof *r * (size_t)cap);
        if (!r)
            goto nomem;
        k->results = r;
        k->rcap = cap;
    }
    KeptResult *r = &k->results[k->nresults++];
    r->result = (void *)result;
    r->bytes = bytes;
    memcpy(r->value, result, bytes);
    return;
nomem:
    w->red_error = GT_ENOMEM;   /* the call fails (combine_results) */
}

int gt__keep_end(gt__kept *k, int rc)
{
    if (!k)
        return rc;
    int fail = 0;
    for (int n = 0; n < k->nfields; n++) {
        Kept *e = &k->fields[n];
        gt_storage *s = e->s;
        size_t es = gt_dtype_size(s->dtype);
        if (e->device) {
            const gt__device_ops *ops = s->buf->ops ? s->buf->ops : gt__device_ops_get();
            int err = rc && e->bytes ? device_within(ops, e->at, e->copy, e->bytes) : 0;
            if (err && !fail)
                fail = gt__error(GT_EDEVICE, "putting an output back on the device failed "
                                 "(%s: %s)", ops->name, gt__device_why(ops, err));
            if (e->raw)
                gt__pool_put(ops, e->raw, e->raw_bytes);
            continue;
        }
        if (rc && e->bytes) {
            int err = gt__sync_host("putting an output back", s, GT_READWRITE);
            if (err && !fail)
                fail = err;
            if (!err)
                gt__copy_box((unsigned char *)gt__host_raw(s) + e->offset * (int64_t)es,
                             s->strides, e->copy, e->dense, e->extent, s->ndim, es);
        }
        gt__free(e->copy);
    }
    for (int n = 0; rc && n < k->nresults; n++)
        memcpy(k->results[n].result, k->results[n].value, k->results[n].bytes);
    free(k->fields);
    free(k->results);
    free(k);
    return fail ? fail : rc;
}

int gt__where_end(gt__where *w, int rc)
{
    gt__kept *k = w->kept;
    w->kept = NULL;
    return gt__keep_end(k, rc);
}

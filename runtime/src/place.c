/* place.c: where a stencil call's compute domain lies in the global domain (gt__place).
 *
 * Every generated stencil asks gt__place once per call, after binding its arguments. A
 * single process's call is the whole global domain: origin 0, bounds [0, size), periodic
 * boundary conditions wrap within the domain. A placed call (a gt__placement current for
 * the calling thread, made by a layer above the core: libgtrt-mpi's gt_mpi_call) lies
 * somewhere in a larger global index space: gt__place checks the call against the
 * placement (the domain it must get, periodic conditions only where the space wraps, and,
 * through the layer's hook, every read beyond an inner edge) before the stencil touches any
 * data, and tells the generated code the global origin (index(i), index(j)) and the global
 * edges (boundary conditions apply there only). The core knows the placement and its hooks,
 * nothing of ranks, exchanges or how results are combined.
 *
 * Reads at run-time K levels (language.md 10.3, compiler/emit_kcheck.c): when the stencil
 * checks the levels that depend on inputs only (gt__levels_now), the record of the first
 * failure of those that depend on computed values (gt__kfail_note), and the outputs such a
 * stencil keeps to put them back when the call fails (gt__keep, gt__keep_end; a placed
 * call's through the layer's hooks, with gt__kept_add). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static _Thread_local gt__placement *current;

void gt__placement_set(gt__placement *p)
{
    current = p;
}

static _Thread_local int check_only;

void gt__check_only(int on)
{
    check_only = on;
}

int64_t gt__halo(const gt_storage *s, int d, int side)
{
    const gt__placement *p = current;
    int64_t h = s->halo[d][side];
    int a = s->axes[d] - 'I';
    if (!p || !p->in_part || (a == 2 && p->size_k == 0) || !p->layer->holds(p, s))
        return h;
    int64_t n0 = s->shape[d] - s->halo[d][0] - s->halo[d][1];
    int64_t lo = a < 2 ? p->part[a] : p->part_k, n = a < 2 ? p->size[a] : p->size_k;
    return side == 0 ? h + lo : h + (n0 - lo - n);
}

static const char *const axis_name[2] = {"I", "J"};

/* What field f of a placed call needs: a periodic bc only along an axis that the global
   space wraps, and each inner edge it reads beyond (its reach) as the layer says. */
static int check_field(gt__placement *p, const gt_stencil_info *info, int f, gt_storage *s)
{
    const gt_field_info *fi = &info->fields[f];
    for (int a = 0; a < 2; a++) {
        if (!strchr(fi->axes, "IJ"[a]))
            continue;
        if (fi->bc[a] == 1 + GT_BC_PERIODIC && !p->wrap[a])
            return gt__error(GT_EINVAL, "stencil '%s': %s: field '%s' has a periodic "
                             "boundary condition along %s, but the decomposition is not "
                             "periodic along %s (%s[%d])", info->name, p->who, fi->name,
                             axis_name[a], axis_name[a], p->layer->wraps, a);
        for (int side = 0; side < 2; side++) {
            int64_t r = fi->reach[a][side];
            if (r == 0 || !p->inner[a][side])
                continue;
            int rc = p->layer->reads(p, info, f, s, a, side, r);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int gt__placed_reads(const gt_stencil_info *info, const unsigned char *read_at_offset)
{
    gt__placement *p = current;
    if (!p)
        return 0;
    /* one part where a part after another would read what that one wrote: a field written
       and read beyond the point (read_at_offset & 24), or an output lacking I or J, which
       every part writes all of along that axis (in-out, or through a storage it shares with
       an input: `ok = ok + 1.0` on a K field added 1 once per part) */
    for (int f = 0; f < info->nfields; f++) {
        const gt_field_info *fi = &info->fields[f];
        if ((read_at_offset && (read_at_offset[f] & 24)) ||
            (fi->is_output && (!strchr(fi->axes, 'I') || !strchr(fi->axes, 'J'))))
            p->whole = 1;
    }
    if (!read_at_offset)
        return 0;
    for (int f = 0; f < info->nfields; f++)
        for (int a = 0; a < 2; a++)
            if ((read_at_offset[f] & (2 << a)) && (p->inner[a][0] || p->inner[a][1]))
                return gt__error(GT_EINVAL, "stencil '%s': %s: field '%s' is read beyond the "
                                 "point along %c after the stencil wrote it (by a later "
                                 "computation or statement, or at the levels before in a "
                                 "sweep; at an offset or through a temporary computed around "
                                 "the point); beyond this part's inner edge along %c that read "
                                 "would find the values from before the call, where one "
                                 "process reads the new ones, so a distributed call cannot "
                                 "run it: split the stencil after the computation that writes "
                                 "'%s' and call the two in turn, or read '%s' only at the "
                                 "point there", info->name, p->who, info->fields[f].name,
                                 "IJ"[a], "IJ"[a], info->fields[f].name, info->fields[f].name);
    return 0;
}

/* A mirror reflects a read beyond an edge back into the domain only as far as the domain
   is wide (u[-p - 1], u[2n - p - 1]): a field read further beyond the domain along an axis
   of its mirror condition (n the global size there) would read outside it. */
static int check_mirror(const gt_stencil_info *info, const int64_t n[3])
{
    for (int f = 0; f < info->nfields; f++) {
        const gt_field_info *fi = &info->fields[f];
        for (int a = 0; a < 3; a++) {
            int64_t r = fi->reach[a][0] > fi->reach[a][1] ? fi->reach[a][0] : fi->reach[a][1];
            if (fi->bc[a] == 1 + GT_BC_MIRROR && strchr(fi->axes, 'I' + a) && n[a] > 0 &&
                r > n[a])
                return gt__error(GT_ESHAPE, "stencil '%s': field '%s' has a mirror boundary "
                                 "condition along %c and is read up to %lld point(s) beyond "
                                 "the domain there, which is %lld wide: a mirror reflects "
                                 "only within the domain, so it must be at least %lld wide "
                                 "along %c", info->name, fi->name, 'I' + a, (long long)r,
                                 (long long)n[a], (long long)r, 'I' + a);
        }
    }
    return 0;
}

int gt__place(const gt_stencil_info *info, gt_storage *const *fields, const int64_t size[3],
              const gt__scalar *scalars, int nscalars, gt_place *place)
{
    gt__placement *p = current;
    const int64_t global[3] = {p ? p->global[0] : size[0], p ? p->global[1] : size[1], size[2]};
    int rc = check_mirror(info, global);
    if (rc)
        return rc;
    if (!p) {
        for (int a = 0; a < 2; a++) {
            place->origin[a] = 0;
            place->lo[a] = 0;
            place->hi[a] = size[a];
            place->wrap[a] = 1;
        }
        place->distributed = NULL;
        return check_only;
    }
    p->calls++;
    p->info = info;
    if (size[0] != p->size[0] || size[1] != p->size[1])
        return gt__error(GT_ESHAPE, "stencil '%s': %s: called with a domain of %lld x "
                         "%lld along I and J in a distributed call whose part is %lld x "
                         "%lld: call the stencil with the domain %s gives",
                         info->name, p->who, (long long)size[0], (long long)size[1],
                         (long long)p->size[0], (long long)p->size[1], p->layer->caller);
    for (int f = 0; f < info->nfields && !rc; f++)
        rc = check_field(p, info, f, fields[f]);
    if (rc)
        return rc;
    /* positions beyond +-2^30 compare alike with any position of a storage (below 2^29
       along an axis for 32-bit kernels, gt__index32): the bounds fit every index type */
    const int64_t far = (int64_t)1 << 30;
    for (int a = 0; a < 2; a++) {
        int64_t lo = -p->origin[a], hi = p->global[a] - p->origin[a];
        place->origin[a] = p->origin[a];
        place->lo[a] = lo < -far ? -far : lo;
        place->hi[a] = hi > far ? far : hi;
        place->wrap[a] = p->wrap_here[a];
    }
    place->distributed = p;
    if (p->check == 1)
        p->layer->scalars(p, scalars, scalars ? nscalars : 0);
    return p->check;
}

void gt__place_result(const gt_place *place, int slot, int op, gt_dtype dtype, void *result)
{
    gt__placement *p = place->distributed;
    if (p && slot >= 0)
        p->layer->result(p, slot, op, dtype, result);
}

/* ---- reads at run-time K levels ----------------------------------------------------------- */

int gt__levels_now(const gt_place *place, int checking, const int64_t reach[4])
{
    gt__placement *p = place->distributed;
    if (!p || checking == 2)
        return 1;
    if (checking == 0)
        return 0;   /* a part: checked before any part ran */
    /* the checking call: now, unless the check reads a halo beyond an inner edge, which
       the layer fills later */
    for (int a = 0; a < 2; a++)
        for (int side = 0; side < 2; side++)
            if (reach[2 * a + side] > 0 && p->inner[a][side]) {
                p->layer->levels(p, 1);
                return 0;
            }
    p->layer->levels(p, 0);
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
    unsigned char value[GT__KEPT_VALUE];
} KeptResult;

struct gt__kept {
    Kept *fields;
    int nfields, cap;
    KeptResult *results;
    int nresults, rcap;
};

/* The device copy of nbytes from src to dst (device addresses): the device layer's, or
   through the host where it has none. */
int gt__device_within(const gt__device_ops *ops, void *dst, const void *src, size_t nbytes)
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

int gt__kept_add(gt__kept **kp, const char *sn, gt_storage *s, const int64_t size[3],
                 int device)
{
    char what[160];
    snprintf(what, sizeof what, "stencil '%s'", sn);
    if (!*kp && !(*kp = calloc(1, sizeof **kp)))
        return gt__error(GT_ENOMEM, "%s: no memory to keep its outputs", what);
    gt__kept *k = *kp;
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
        err = gt__device_within(ops, e->copy, e->at, e->bytes);
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
    gt__placement *p = place->distributed;
    if (p)
        return p->layer->keep(p, info, fields, size, checking);
    gt__kept *k = NULL;
    int rc = 0;
    for (int f = 0; f < info->nfields && !rc; f++)
        if (info->fields[f].is_output)
            rc = gt__kept_add(&k, info->name, fields[f], size, device);
    if (!rc && !k && !(k = calloc(1, sizeof *k)))
        rc = gt__error(GT_ENOMEM, "stencil '%s': no memory to keep its outputs", info->name);
    if (rc)
        gt__keep_end(k, 0);
    else
        *kept = k;
    return rc;
}

int gt__kept_add_result(gt__kept **kp, const void *result, size_t bytes)
{
    if (bytes > GT__KEPT_VALUE)
        return 0;   /* no out scalar is wider */
    gt__kept *k = *kp ? *kp : calloc(1, sizeof *k);
    if (!k)
        return GT_ENOMEM;
    *kp = k;
    if (k->nresults == k->rcap) {
        int cap = k->rcap ? 2 * k->rcap : 4;
        KeptResult *r = realloc(k->results, sizeof *r * (size_t)cap);
        if (!r)
            return GT_ENOMEM;
        k->results = r;
        k->rcap = cap;
    }
    KeptResult *r = &k->results[k->nresults++];
    r->result = (void *)result;
    r->bytes = bytes;
    memcpy(r->value, result, bytes);
    return 0;
}

void gt__keep_result(const gt_place *place, int checking, const void *result, size_t bytes)
{
    gt__placement *p = place->distributed;
    if (p)
        p->layer->keep_result(p, checking, result, bytes);
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
            int err = rc && e->bytes ? gt__device_within(ops, e->at, e->copy, e->bytes) : 0;
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

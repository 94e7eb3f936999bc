/* bind.c: gt__bind, the one function through which generated stencil code (every backend)
 * checks its arguments, infers the compute domain and binds each field to an origin and
 * strides by axis name (runtime.md section 3).
 *
 * Checks run in a fixed order, all before any data is touched: per field NULL, dtype and
 * axes; then the domain (given or inferred), its fit in every field's interior and the halo
 * room around it; then aliasing between outputs and the other arguments. Only then are the
 * storages synchronised (inputs read, outputs read-write) and the fields bound. */
#include <stdio.h>
#include <string.h>

#include "rt.h"

static const char axis_names[] = "IJK";

/* Whether field axes text (a stencil's own field info) is a valid axes string. */
static int valid_axes(const char *axes)
{
    if (!axes)
        return 0;
    size_t n = strlen(axes);
    if (n < 1 || n > 3)
        return 0;
    for (size_t k = 0; k < n; k++)
        if (!strchr(axis_names, axes[k]) || memchr(axes, axes[k], k))
            return 0;
    return 1;
}

/* Interior size of s along axis name c. */
static int64_t interior(const gt_storage *s, char c)
{
    int d = gt__axis_pos(s, c);
    return s->shape[d] - gt__halo(s, d, 0) - gt__halo(s, d, 1);
}

static int is_empty(const gt_storage *s)
{
    for (int d = 0; d < s->ndim; d++)
        if (s->shape[d] == 0)
            return 1;
    return 0;
}

/* One stride of the equation of meets_at: its index difference c lies in [lo, hi]. */
typedef struct {
    int64_t stride; /* elements, >= 1 */
    int64_t lo, hi;
} Term;

#define MEET_WORK 4096 /* candidates tried before meets_at gives up (answering 1) */

static int64_t floor_div(int64_t a, int64_t b) /* b > 0 */
{
    return a / b - (a % b < 0);
}

/* Whether rest = sum of c[k] * t[k].stride with each c[k] in [t[k].lo, t[k].hi], k < n (t
   by increasing stride): the largest stride's c leaves for the smaller ones what they can
   add, which where neither storage addresses an element twice is two or three values of
   c at most; 1 beyond *work's bound. */
static int meets_at(const Term *t, int n, int64_t rest, int64_t *work)
{
    if (n == 0)
        return rest == 0;
    int64_t below_lo = 0, below_hi = 0;
    for (int k = 0; k < n - 1; k++) {
        below_lo += t[k].lo * t[k].stride;
        below_hi += t[k].hi * t[k].stride;
    }
    const Term *top = &t[n - 1];
    int64_t cmin = -floor_div(below_hi - rest, top->stride); /* ceil((rest - hi) / s) */
    int64_t cmax = floor_div(rest - below_lo, top->stride);
    if (cmin < top->lo)
        cmin = top->lo;
    if (cmax > top->hi)
        cmax = top->hi;
    for (int64_t c = cmin; c <= cmax; c++) {
        if (++*work > MEET_WORK)
            return 1;
        if (meets_at(t, n - 1, rest - c * top->stride, work))
            return 1;
    }
    return 0;
}

/* Whether a (its element (0,0,0) at address abase) and b (at bbase), whose byte ranges
   intersect, address an element in common: views of one array at other places whose
   elements interleave or lie between each other's (the components q[..., 0] and q[..., 1]
   of a NumPy array, the upper and lower levels of a C-ordered one) share none. Exact for
   elements of one size at a distance that is a multiple of it: a common element is one
   solution of sum(i[d] * a.stride[d]) - sum(j[d] * b.stride[d]) = bbase - abase (in
   elements) with each index inside its shape, strides equal in a and b merged into one
   index difference; 1 otherwise, as for intersecting byte ranges. */
static int elements_meet(const gt_storage *a, const gt_storage *b, uintptr_t abase,
                         uintptr_t bbase)
{
    int64_t es = (int64_t)gt_dtype_size(a->dtype);
    if (es != (int64_t)gt_dtype_size(b->dtype))
        return 1;
    int64_t delta = (int64_t)(bbase - abase);
    if (delta % es)
        return 1;
    Term t[6];
    int n = 0;
    for (int side = 0; side < 2; side++) {
        const gt_storage *s = side ? b : a;
        for (int d = 0; d < s->ndim; d++) {
            if (s->shape[d] <= 1) /* index 0 only: no term */
                continue;
            int64_t lo = side ? -(s->shape[d] - 1) : 0, hi = side ? 0 : s->shape[d] - 1;
            int k = 0;
            while (k < n && t[k].stride < s->strides[d])
                k++;
            if (side && k < n && t[k].stride == s->strides[d] && t[k].lo == 0) {
                t[k].lo = lo; /* a's index minus b's, one term */
                continue;
            }
            memmove(&t[k + 1], &t[k], (size_t)(n - k) * sizeof t[0]);
            t[k] = (Term){s->strides[d], lo, hi};
            n++;
        }
    }
    int64_t work = 0;
    return meets_at(t, n, delta / es, &work);
}

/* Whether a and b may share memory: views of one buffer, or intersecting byte ranges (in
   host memory, or a device-only storage's device memory; bound on the device, their
   device sides too: a device-only storage may wrap another storage's device side) where
   elements of both meet (elements_meet). */
int gt__overlap(const gt_storage *a, const gt_storage *b, int device)
{
    if (is_empty(a) || is_empty(b))
        return 0;
    if (a->buf == b->buf)
        return 1;
    uintptr_t alo, ahi, blo, bhi;
    gt__byte_range(a, &alo, &ahi);
    gt__byte_range(b, &blo, &bhi);
    if (alo < bhi && blo < ahi && elements_meet(a, b, alo, blo))
        return 1;
    if (!device)
        return 0;
    gt__device_byte_range(a, &alo, &ahi);
    gt__device_byte_range(b, &blo, &bhi);
    return alo < bhi && blo < ahi && elements_meet(a, b, alo, blo);
}

/* Binding of s: its first interior point (on the host, or on the device) and its
   strides by axis name. (gt__host_raw is NULL for a device-only storage, which only the
   device binds.) */
static void bind_at(const gt_storage *s, gt_bound *b, int device)
{
    int64_t off = 0;
    for (int a = 0; a < 3; a++) {
        int d = gt__axis_pos(s, axis_names[a]);
        b->stride[a] = d < 0 ? 0 : s->strides[d];
        off += d < 0 ? 0 : gt__halo(s, d, 0) * s->strides[d];
    }
    unsigned char *base = device ? gt__device_raw(s) : gt__host_raw(s);
    b->origin = base ? base + off * (int64_t)gt_dtype_size(s->dtype) : NULL;
}

/* Whether a and b address the same element at every point of the domain: on the host, or
   on the device where one of them is device-only. */
static int same_binding(const gt_storage *a, const gt_storage *b)
{
    int device = a->buf->device_only || b->buf->device_only;
    gt_bound ba, bb;
    bind_at(a, &ba, device);
    bind_at(b, &bb, device);
    return a->dtype == b->dtype && ba.origin == bb.origin &&
           memcmp(ba.stride, bb.stride, sizeof ba.stride) == 0;
}

static int check_fields(const gt_stencil_info *info, gt_storage *const *fields, int device)
{
    const char *sn = info->name;
    for (int f = 0; f < info->nfields; f++) {
        const gt_field_info *fi = &info->fields[f];
        const gt_storage *s = fields[f];
        const char *fname = fi->name ? fi->name : "?";
        if (!valid_axes(fi->axes))
            return gt__error(GT_EINVAL, "stencil '%s': field '%s': invalid field axes \"%.8s\"",
                             sn, fname, fi->axes ? fi->axes : "(null)");
        if (!s)
            return gt__error(GT_EINVAL, "stencil '%s': field '%s': storage is NULL", sn, fname);
        if (s->dtype != fi->dtype)
            return gt__error(GT_EDTYPE, "stencil '%s': field '%s' is %s but the storage is %s",
                             sn, fname, gt_dtype_name(fi->dtype), gt_dtype_name(s->dtype));
        int same = strlen(fi->axes) == (size_t)s->ndim;
        for (const char *c = fi->axes; *c && same; c++)
            same = gt__axis_pos(s, *c) >= 0;
        if (!same)
            return gt__error(GT_EAXES, "stencil '%s': field '%s' has axes %s but the storage "
                             "has axes %s", sn, fname, fi->axes, s->axes);
        if (!device && s->buf->device_only) {
            char desc[GT__DESC_MAX];
            return gt__error(GT_EDEVICE, "stencil '%s': field '%s': storage %s is device-only "
                             "(gt_wrap_device) but this stencil runs on the host (naive or "
                             "openmp code, or the naive code the cuda backend falls back to "
                             "for a stencil it does not fuse)", sn, fname,
                             gt__describe(s, desc));
        }
    }
    return 0;
}

static int has_axis(const gt_field_info *fi, char c)
{
    return strchr(fi->axes, c) != NULL;
}

/* The compute domain: *domain, or the interior of the first output field (first field if
   none), sizes along axes it lacks from the first field having them, 1 along axes no field
   has. */
int gt__compute_domain(const gt_stencil_info *info, gt_storage *const *fields,
                       const gt_domain *domain, int64_t size[3])
{
    const gt_field_info *fi = info->fields;
    int ref = 0;
    for (int f = info->nfields - 1; f >= 0; f--)
        if (fi[f].is_output)
            ref = f;
    for (int a = 0; a < 3; a++) {
        char c = axis_names[a];
        int pick = -1;
        if (info->nfields > 0 && has_axis(&fi[ref], c))
            pick = ref;
        for (int f = 0; f < info->nfields && pick < 0; f++)
            if (has_axis(&fi[f], c))
                pick = f;
        if (domain) {
            if (domain->size[a] < 0)
                return gt__error(GT_EINVAL, "stencil '%s': domain size along %c is %lld; must "
                                 "be >= 0", info->name, c, (long long)domain->size[a]);
            size[a] = pick >= 0 || domain->size[a] == 0 ? domain->size[a] : 1;
        } else {
            size[a] = pick >= 0 ? interior(fields[pick], c) : 1;
        }
    }
    return 0;
}

/* What a distributed call needs of field fi's storage along I and J, where it is more than
   one process needs (a boundary condition: one process applies it, a rank reads its halo
   on an internal edge): "; a distributed run needs [2,2] along I and [1,1] along J
   (gt_mpi_halo)", or "". */
static void distributed_need(const gt_field_info *fi, char *buf, size_t len)
{
    int more = 0;
    for (int a = 0; a < 2; a++)
        for (int side = 0; side < 2; side++)
            more |= has_axis(fi, axis_names[a]) && fi->reach[a][side] > fi->halo[a][side];
    buf[0] = '\0';
    if (!more)
        return;
    size_t at = (size_t)snprintf(buf, len, "; a distributed run needs");
    for (int a = 0, n = 0; a < 2 && at < len; a++) {
        if (!has_axis(fi, axis_names[a]))
            continue;
        int64_t need[2];
        for (int side = 0; side < 2; side++)
            need[side] = fi->reach[a][side] > fi->halo[a][side] ? fi->reach[a][side]
                                                                 : fi->halo[a][side];
        at += (size_t)snprintf(buf + at, len - at, "%s [%lld,%lld] along %c", n++ ? " and" : "",
                               (long long)need[0], (long long)need[1], axis_names[a]);
    }
    if (at < len)
        snprintf(buf + at, len - at, " (gt_mpi_halo)");
}

static int check_fit(const gt_stencil_info *info, gt_storage *const *fields,
                     const int64_t size[3])
{
    for (int f = 0; f < info->nfields; f++) {
        const gt_field_info *fi = &info->fields[f];
        const gt_storage *s = fields[f];
        for (int a = 0; a < 3; a++) {
            char c = axis_names[a];
            if (!has_axis(fi, c))
                continue;
            int d = gt__axis_pos(s, c);
            int64_t lo = gt__halo(s, d, 0), hi = gt__halo(s, d, 1), n = s->shape[d] - lo - hi;
            if (size[a] > n)
                return gt__error(GT_ESHAPE, "stencil '%s': field '%s': the domain is %lld along "
                                 "%c but the storage's interior is %lld (shape %lld, halo "
                                 "[%lld,%lld])", info->name, fi->name, (long long)size[a], c,
                                 (long long)n, (long long)s->shape[d], (long long)lo,
                                 (long long)hi);
            int64_t room = s->shape[d] - lo - size[a];
            if (lo < fi->halo[a][0] || room < fi->halo[a][1]) {
                char need[120];
                distributed_need(fi, need, sizeof need);
                return gt__error(GT_EHALO, "stencil '%s': field '%s': halo along %c is "
                                 "[%lld,%lld] but the stencil needs [%lld,%lld]%s", info->name,
                                 fi->name, c, (long long)lo, (long long)room,
                                 (long long)fi->halo[a][0], (long long)fi->halo[a][1], need);
            }
        }
    }
    return 0;
}

static int check_alias(const gt_stencil_info *info, const unsigned char *read_at_offset,
                       gt_storage *const *fields, int device)
{
    const gt_field_info *fi = info->fields;
    for (int o = 0; o < info->nfields; o++) {
        if (!fi[o].is_output)
            continue;
        for (int g = 0; g < info->nfields; g++) {
            if (g == o || (fi[g].is_output && g < o) ||
                !gt__overlap(fields[o], fields[g], device))
                continue;
            if (fi[g].is_output)
                return gt__error(GT_EALIAS, "stencil '%s': outputs '%s' and '%s' share memory",
                                 info->name, fi[o].name, fi[g].name);
            int at_offset = read_at_offset ? read_at_offset[g] != 0 : 1;
            if (at_offset)
                return gt__error(GT_EALIAS, "stencil '%s': output '%s' shares memory with "
                                 "field '%s', which the stencil reads at an offset", info->name,
                                 fi[o].name, fi[g].name);
            if (!same_binding(fields[o], fields[g]))
                return gt__error(GT_EALIAS, "stencil '%s': output '%s' shares memory with "
                                 "field '%s' at other positions (a shifted view), so a read "
                                 "at offset 0 would see written points", info->name,
                                 fi[o].name, fi[g].name);
        }
    }
    return 0;
}

/* gt__bind and gt__bind_device: the same checks, then the side the code runs on synced
   and bound. */
static int bind(const gt_stencil_info *info, const unsigned char *read_at_offset,
                gt_storage *const *fields, const gt_domain *domain, int64_t size_out[3],
                gt_bound *bound_out, int device)
{
    if (!info || !info->name)
        return gt__error(GT_EINVAL, "gt__bind: stencil info or its name is NULL");
    if (info->nfields < 0 || !size_out ||
        (info->nfields > 0 && (!info->fields || !fields || !bound_out)))
        return gt__error(GT_EINVAL, "stencil '%s': invalid call (nfields %d, fields %s, "
                         "size_out %s, bound_out %s)", info->name, info->nfields,
                         fields ? "given" : "NULL", size_out ? "given" : "NULL",
                         bound_out ? "given" : "NULL");
    for (int f = 0; f < info->nfields; f++)
        if (!info->fields[f].name)
            return gt__error(GT_EINVAL, "stencil '%s': field %d has no name", info->name, f);
    int64_t size[3];
    int rc = check_fields(info, fields, device);
    if (!rc)
        rc = gt__compute_domain(info, fields, domain, size);
    if (!rc)
        rc = check_fit(info, fields, size);
    if (!rc)
        rc = check_alias(info, read_at_offset, fields, device);
    if (!rc)
        rc = gt__placed_reads(info, read_at_offset);
    if (rc)
        return rc;
    for (int pass = 0; pass < 2; pass++) { /* inputs first, then outputs */
        for (int f = 0; f < info->nfields; f++) {
            if ((info->fields[f].is_output != 0) != pass)
                continue;
            char what[160];
            snprintf(what, sizeof what, "stencil '%s': field '%s'", info->name,
                     info->fields[f].name);
            gt_access access = pass ? GT_READWRITE : GT_READ;
            rc = device ? gt__sync_device(what, fields[f], access)
                        : gt__sync_host(what, fields[f], access);
            if (rc)
                return rc;
        }
    }
    for (int f = 0; f < info->nfields; f++)
        bind_at(fields[f], &bound_out[f], device);
    memcpy(size_out, size, sizeof size);
    return 0;
}

int gt__bind(const gt_stencil_info *info, const unsigned char *read_at_offset,
             gt_storage *const *fields, const gt_domain *domain, int64_t size_out[3],
             gt_bound *bound_out)
{
    return bind(info, read_at_offset, fields, domain, size_out, bound_out, 0);
}

int gt__bind_device(const gt_stencil_info *info, const unsigned char *read_at_offset,
                    gt_storage *const *fields, const gt_domain *domain, int64_t size_out[3],
                    gt_bound *bound_out)
{
    return bind(info, read_at_offset, fields, domain, size_out, bound_out, 1);
}

/* Offsets inside a kernel are sums of three terms (I, J and K), each at most a buffer's
   elements from the block's base, so below 2^29 elements per buffer none of them, nor their
   sum, leaves int32_t. */
static _Atomic int64_t index32_limit = GT__INDEX32_LIMIT;

void gt__set_index32_limit(int64_t elements)
{
    index32_limit = elements >= 0 && elements <= GT__INDEX32_LIMIT ? elements : GT__INDEX32_LIMIT;
}

void gt__levels(const gt_storage *s, int64_t levels[2])
{
    levels[0] = levels[1] = 0;
    for (int a = 0; a < s->ndim; a++)
        if (s->axes[a] == 'K') {
            levels[0] = -s->halo[a][0];
            levels[1] = s->shape[a] - s->halo[a][0];
        }
}

int gt__index32(gt_storage *const *storages, int n, const int64_t size[3])
{
    int64_t limit = index32_limit;
    for (int a = 0; a < 3; a++)
        if (size[a] < 0 || size[a] >= limit)
            return 0;
    for (int s = 0; s < n; s++) {
        const gt_storage *st = storages[s];
        if (st && st->buf && (int64_t)(st->buf->nbytes / gt_dtype_size(st->dtype)) >= limit)
            return 0;
    }
    return 1;
}

/* storage.c: creating storages (gt_empty, gt_zeros, gt_ones, gt_full, gt_wrap,
 * gt_wrap_device, gt_domain_view), reference counting, accessors and the halo setter.
 *
 * Creation first validates everything (dtype, axes, shape, options, layout, sizes), then
 * allocates the storage record, the buffer record and the host block, then the device side;
 * a failure at any step frees what the previous steps took, so the caller sees NULL and an
 * unchanged world. Strides follow the layout (largest first); with alignment A the
 * contiguous axis is padded to a multiple of A and the start of the data is shifted so that
 * the element at aligned_index sits on lcm(A elements, 64 bytes) (docs/runtime.md). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* ---- dtypes ----------------------------------------------------------------------------- */

size_t gt_dtype_size(gt_dtype t)
{
    switch (t) {
    case GT_FLOAT32: return 4;
    case GT_FLOAT64: return 8;
    case GT_INT32: return 4;
    case GT_BOOL: return 1;
    }
    return 0;
}

const char *gt_dtype_name(gt_dtype t)
{
    switch (t) {
    case GT_FLOAT32: return "float32";
    case GT_FLOAT64: return "float64";
    case GT_INT32: return "int32";
    case GT_BOOL: return "bool";
    }
    return "invalid";
}

/* value in the fewest digits that read back as it: "%g" said "value 1 is not an int32" of
   1.0000001 and "2.14748e+09" of 2147483647.5 */
static const char *exact(double value, char buf[32])
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, 32, "%.*g", digits, value);
        if (strtod(buf, NULL) == value)
            break;
    }
    return buf;
}

int gt__encode_value(const char *fn, gt_dtype dtype, double value, void *out)
{
    char text[32];
    switch (dtype) {
    case GT_FLOAT32: { /* rounded to nearest: beyond FLT_MAX by less than half its ulp
                          (3.4028235e38, FLT_MAX's usual decimal) is FLT_MAX, from there on
                          infinity (a plain cast of those would be undefined) */
        const double edge = 0x1.ffffffp127; /* FLT_MAX + half an ulp: a tie, rounds up */
        float v = value >= edge ? HUGE_VALF : value <= -edge ? -HUGE_VALF
                : value > FLT_MAX ? FLT_MAX : value < -FLT_MAX ? -FLT_MAX : (float)value;
        memcpy(out, &v, sizeof v);
        return 0;
    }
    case GT_FLOAT64:
        memcpy(out, &value, sizeof value);
        return 0;
    case GT_INT32: {
        if (!(value >= -2147483648.0 && value <= 2147483647.0) || (double)(int32_t)value != value)
            return gt__error(GT_EINVAL, "%s: value %s is not an int32 (an integer in "
                             "[-2147483648, 2147483647])", fn, exact(value, text));
        int32_t v = (int32_t)value;
        memcpy(out, &v, sizeof v);
        return 0;
    }
    case GT_BOOL: {
        _Bool v = value != 0;
        memcpy(out, &v, sizeof v);
        return 0;
    }
    }
    return gt__error(GT_EINVAL, "%s: invalid dtype %d " GT__DTYPES, fn, (int)dtype);
}

/* ---- layout presets ----------------------------------------------------------------------
 * The one table of presets. "C" and "F" order the axes by position (as given, reversed);
 * "cpu" and "cuda" order them by name, whatever order the axes are given in. Both backends
 * want I contiguous and K slowest: horizontal stencils vectorize along I with their J
 * neighbours one row away, and vertical solvers (sequential in K) vectorize across columns
 * only when I is contiguous; on GPUs threads of a warp take consecutive I (coalescing). */
typedef enum { ORDER_AS_GIVEN, ORDER_REVERSED, ORDER_BY_NAME } preset_order;

static const struct {
    const char *name;   /* the `defaults` string */
    preset_order order; /* how it orders the storage's axes */
    const char *names;  /* ORDER_BY_NAME: axes names by decreasing stride */
    int row_bytes;      /* with alignment 0: the first interior point of every row on this many
                           bytes (alignment = row_bytes / element size); 0: none */
} presets[] = {
    {"C", ORDER_AS_GIVEN, NULL, 0},
    {"F", ORDER_REVERSED, NULL, 0},
    {"cpu", ORDER_BY_NAME, "KJI", 0},
    /* a warp's row of 32 floats or 16 doubles in whole 128-byte lines (4 sectors), not 5 */
    {"cuda", ORDER_BY_NAME, "KJI", 128},
};

#define DEFAULT_PRESET "cpu"

/* Keeps the characters of names ("IJK" order of strides) that are axes of the storage. */
static void restrict_by_name(const char *names, const char *axes, char out[4])
{
    int n = 0;
    for (const char *c = names; *c; c++)
        if (strchr(axes, *c))
            out[n++] = *c;
    out[n] = 0;
}

/* The preset called name, or -1 (an error set) if none is. */
static int preset_find(const char *fn, const char *name)
{
    for (size_t k = 0; k < sizeof presets / sizeof presets[0]; k++)
        if (strcmp(presets[k].name, name) == 0)
            return (int)k;
    return gt__error(GT_EINVAL, "%s: unknown defaults preset '%s' (known: \"C\", \"F\", "
                     "\"cpu\", \"cuda\")", fn, name), -1;
}

static void preset_layout(int k, const char *axes, int ndim, char out[4])
{
    switch (presets[k].order) {
    case ORDER_AS_GIVEN:
        memcpy(out, axes, 4);
        break;
    case ORDER_REVERSED:
        for (int d = 0; d < ndim; d++)
            out[d] = axes[ndim - 1 - d];
        out[ndim] = 0;
        break;
    case ORDER_BY_NAME:
        restrict_by_name(presets[k].names, axes, out);
        break;
    }
}

/* ---- parameter validation ------------------------------------------------------------- */

int gt__parse_axes(const char *fn, const char *axes, char out[4])
{
    if (!axes)
        axes = "IJK";
    size_t n = strlen(axes);
    if (n < 1 || n > 3)
        return gt__error(GT_EINVAL, "%s: axes \"%.8s\" must name 1 to 3 of I, J, K", fn, axes);
    for (size_t d = 0; d < n; d++) {
        if (axes[d] != 'I' && axes[d] != 'J' && axes[d] != 'K') {
            unsigned char c = (unsigned char)axes[d];
            if (c < 0x20 || c > 0x7e) /* not printed raw: a control or a stray UTF-8 byte */
                return gt__error(GT_EINVAL, "%s: axes: character %zu is byte 0x%02x, not I, J "
                                 "or K", fn, d + 1, c);
            return gt__error(GT_EINVAL, "%s: axes \"%s\": '%c' is not I, J or K", fn, axes,
                             axes[d]);
        }
        if (memchr(axes, axes[d], d))
            return gt__error(GT_EINVAL, "%s: axes \"%s\" repeat %c", fn, axes, axes[d]);
    }
    memcpy(out, axes, n + 1);
    return (int)n;
}

/* Whether s is a permutation of the distinct characters of of. */
static int is_permutation(const char *s, const char *of)
{
    size_t n = strlen(s);
    if (n != strlen(of))
        return 0;
    for (size_t d = 0; d < n; d++)
        if (!strchr(of, s[d]) || memchr(s, s[d], d))
            return 0;
    return 1;
}

/* layout: a permutation of the axes, or of "IJK" (then restricted to the axes by name). */
static int parse_layout(const char *fn, const char *layout, const char *axes, int ndim, char out[4])
{
    size_t n = strlen(layout);
    if (n == 3 && ndim < 3 && is_permutation(layout, "IJK")) {
        restrict_by_name(layout, axes, out);
        return 0;
    }
    if (n != (size_t)ndim || !is_permutation(layout, axes))
        return gt__error(GT_EINVAL, "%s: layout \"%.8s\" is not a permutation of the axes "
                         "\"%s\" (nor of \"IJK\")", fn, layout, axes);
    memcpy(out, layout, n + 1);
    return 0;
}

static int parse_halo(const char *fn, const char *axes, int ndim, const int64_t *shape,
                      const int64_t (*halo)[2], int64_t out[3][2])
{
    memset(out, 0, 3 * sizeof out[0]);
    for (int d = 0; d < ndim && halo; d++) {
        int64_t lo = halo[d][0], hi = halo[d][1];
        if (lo < 0 || hi < 0)
            return gt__error(GT_EINVAL, "%s: halo along %c is [%lld,%lld]; must be >= 0", fn,
                             axes[d], (long long)lo, (long long)hi);
        if (lo > shape[d] || hi > shape[d] - lo)
            return gt__error(GT_EINVAL, "%s: halo along %c is [%lld,%lld], more than the "
                             "shape %lld", fn, axes[d], (long long)lo, (long long)hi,
                             (long long)shape[d]);
        out[d][0] = lo;
        out[d][1] = hi;
    }
    return 0;
}

/* Everything gt_empty & co. and gt_wrap share: dtype, axes, shape, options, layout. fresh:
   the runtime allocates the buffer, so a preset's row alignment applies where opts gives
   none (wrapped memory is checked only for an alignment the caller claims). */
static int parse_params(const char *fn, gt_dtype dtype, const char *axes, const int64_t *shape,
                        const gt_storage_opts *opts, int fresh, gt__params *p)
{
    static const gt_storage_opts zero_opts;
    if (!opts)
        opts = &zero_opts;
    memset(p, 0, sizeof *p);
    if (gt_dtype_size(dtype) == 0)
        return gt__error(GT_EINVAL, "%s: invalid dtype %d " GT__DTYPES, fn, (int)dtype);
    p->dtype = dtype;
    int ndim = gt__parse_axes(fn, axes, p->axes);
    if (ndim < 0)
        return ndim;
    p->ndim = ndim;
    if (!shape)
        return gt__error(GT_EINVAL, "%s: shape is NULL", fn);
    for (int d = 0; d < ndim; d++) {
        if (shape[d] < 0)
            return gt__error(GT_EINVAL, "%s: shape along %c is %lld; must be >= 0", fn,
                             p->axes[d], (long long)shape[d]);
        p->shape[d] = shape[d];
    }
    if (opts->device != GT_HOST && opts->device != GT_CUDA)
        return gt__error(GT_EINVAL, "%s: invalid device %d (GT_HOST or GT_CUDA)", fn,
                         (int)opts->device);
    if (opts->managed != GT_MANAGED_RUNTIME && opts->managed != GT_MANAGED_NONE &&
        opts->managed != GT_MANAGED_CUDA)
        return gt__error(GT_EINVAL, "%s: invalid managed mode %d (GT_MANAGED_RUNTIME, "
                         "GT_MANAGED_NONE or GT_MANAGED_CUDA)", fn, (int)opts->managed);
    p->device = opts->device;
    p->managed = opts->managed;
    int rc = parse_halo(fn, p->axes, ndim, p->shape, (const int64_t(*)[2])opts->halo, p->halo);
    if (rc)
        return rc;
    /* the rows past the last axis: an entry there meant for an axis by name (K of an "IK"
       storage in halo[2]) would otherwise be dropped without a word */
    for (int d = ndim; d < 3; d++)
        if (opts->halo[d][0] || opts->halo[d][1])
            return gt__error(GT_EINVAL, "%s: halo[%d] is [%lld,%lld], but axes \"%s\" have "
                             "%d entries: halo follows the axes' order, and the rows past "
                             "the last axis must be 0", fn, d, (long long)opts->halo[d][0],
                             (long long)opts->halo[d][1], p->axes, ndim);
    if (opts->alignment < 0 || opts->alignment > GT__MAX_ALIGNMENT)
        return gt__error(GT_EINVAL, "%s: alignment %lld is not in [0, %lld]", fn,
                         (long long)opts->alignment, (long long)GT__MAX_ALIGNMENT);
    for (int d = 0; d < ndim; d++) {
        int64_t ai = opts->has_aligned_index ? opts->aligned_index[d] : p->halo[d][0];
        if (ai < 0 || ai > p->shape[d])
            return gt__error(GT_EINVAL, "%s: aligned_index along %c is %lld, outside [0, %lld]",
                             fn, p->axes[d], (long long)ai, (long long)p->shape[d]);
        p->aligned_index[d] = ai;
    }
    for (int d = ndim; d < 3 && opts->has_aligned_index; d++)
        if (opts->aligned_index[d])
            return gt__error(GT_EINVAL, "%s: aligned_index[%d] is %lld, but axes \"%s\" have "
                             "%d entries: aligned_index follows the axes' order, and the "
                             "entries past the last axis must be 0", fn, d,
                             (long long)opts->aligned_index[d], p->axes, ndim);
    int preset = preset_find(fn, opts->defaults ? opts->defaults : DEFAULT_PRESET);
    if (preset < 0)
        return gt_last_error_code();
    p->alignment = opts->alignment > 1 ? opts->alignment : 1;
    if (fresh && opts->alignment == 0 && presets[preset].row_bytes > 0)
        p->alignment = presets[preset].row_bytes / (int64_t)gt_dtype_size(dtype);
    if (opts->layout)
        return parse_layout(fn, opts->layout, p->axes, ndim, p->layout);
    preset_layout(preset, p->axes, ndim, p->layout);
    return 0;
}

/* ---- sizes ------------------------------------------------------------------------------- */

/* Bytes a buffer may have at most: keeps every offset computation inside int64_t. */
#define MAX_BYTES ((int64_t)1 << 60)

static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* *r = a * b unless it exceeds MAX_BYTES (a, b >= 0). */
static int mul_small(int64_t a, int64_t b, int64_t *r)
{
    if (a != 0 && b > MAX_BYTES / a)
        return -1;
    *r = a * b;
    return 0;
}

static int layout_perm(const char *axes, const char *layout, int ndim, int perm[3])
{
    for (int k = 0; k < ndim; k++)
        perm[k] = (int)(strchr(axes, layout[k]) - axes);
    return 0;
}

/* "IJK float64 (10,12,5)" into buf (GT__DESC_MAX bytes): gt__describe, and the messages
   about a storage not yet made */
static const char *describe(const char *axes, gt_dtype dtype, int ndim, const int64_t *shape,
                            char *buf)
{
    int n = snprintf(buf, GT__DESC_MAX, "%s %s (", axes, gt_dtype_name(dtype));
    for (int d = 0; d < ndim && n > 0 && n < GT__DESC_MAX; d++)
        n += snprintf(buf + n, (size_t)(GT__DESC_MAX - n), "%s%lld", d ? "," : "",
                      (long long)shape[d]);
    if (n > 0 && n < GT__DESC_MAX)
        snprintf(buf + n, (size_t)(GT__DESC_MAX - n), ")");
    return buf;
}

/* Strides, element offset of element (0,0,0), bytes and base alignment of a fresh buffer. */
static int plan_buffer(const char *fn, const gt__params *p, int64_t strides[3], int64_t *offset,
                       int64_t *nbytes, int64_t *base_align)
{
    int64_t esize = (int64_t)gt_dtype_size(p->dtype), a = p->alignment;
    int perm[3] = {0, 0, 0};   /* set for the ndim axes; the rest keeps gcc quiet */
    layout_perm(p->axes, p->layout, p->ndim, perm);
    int inner = perm[p->ndim - 1];
    int64_t run = p->shape[inner] > 0 ? p->shape[inner] : 1;
    if (run > MAX_BYTES)   /* before rounding up: run + a - 1 must not overflow */
        goto too_big;
    if (a > 1)
        run = (run + a - 1) / a * a;
    int empty = p->shape[inner] == 0;
    strides[inner] = 1;
    for (int k = p->ndim - 2; k >= 0; k--) {
        int d = perm[k];
        strides[d] = run;
        if (mul_small(run, p->shape[d] > 0 ? p->shape[d] : 1, &run))
            goto too_big;
        empty |= p->shape[d] == 0;
    }
    int64_t span;   /* run is the span in elements, zero extents counted as 1: in bytes too */
    if (mul_small(run, esize, &span))
        goto too_big;
    int64_t total = empty ? 0 : run, off = 0, align = GT__BASE_ALIGN;
    if (a > 1) {
        /* the element at aligned_index on lcm(A * esize, 64) bytes */
        int64_t ab = a * esize;
        align = ab / gcd64(ab, GT__BASE_ALIGN) * GT__BASE_ALIGN;
        int64_t q = align / esize, lin = 0;
        for (int d = 0; d < p->ndim; d++)
            lin += (p->aligned_index[d] % q) * (strides[d] % q) % q;
        off = (q - lin % q) % q;
    }
    if (mul_small(total + off, esize, nbytes) || *nbytes + align > MAX_BYTES)
        goto too_big;
    *offset = off;
    *base_align = align;
    return 0;
too_big:;
    char what[GT__DESC_MAX];
    describe(p->axes, p->dtype, p->ndim, p->shape, what);
    for (int d = 0; d < p->ndim; d++)
        if (p->shape[d] == 0) /* no bytes, but its strides must still fit */
            return gt__error(GT_ENOMEM, "%s: storage %s has no elements, but its strides "
                             "would span more than 2^60 bytes", fn, what);
    return gt__error(GT_ENOMEM, "%s: storage %s needs more than 2^60 bytes", fn, what);
}

/* ---- records --------------------------------------------------------------------------- */

static void fill_storage(gt_storage *s, const gt__params *p, gt__buffer *buf,
                         const int64_t strides[3], int64_t offset)
{
    atomic_init(&s->refs, 1);
    s->buf = buf;
    s->dtype = p->dtype;
    s->ndim = p->ndim;
    memcpy(s->axes, p->axes, 4);
    memcpy(s->layout, p->layout, 4);
    memcpy(s->shape, p->shape, sizeof s->shape);
    memcpy(s->strides, strides, sizeof s->strides);
    memcpy(s->halo, p->halo, sizeof s->halo);
    s->offset = offset;
    s->alignment = p->alignment;
    memcpy(s->aligned_index, p->aligned_index, sizeof s->aligned_index);
    s->device = p->device;
    s->whole = 1;
}

static void buffer_free(gt__buffer *b)
{
    gt__device_free(b);
    if (b->host_pool_bytes)
        gt__pool_put(&gt__host_pool_ops, b->host_block, b->host_pool_bytes);
    else
        gt__free(b->host_block);
    gt__free(b);
}

static void buffer_release(gt__buffer *b)
{
    if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        buffer_free(b);
}

static void fill_elements(void *host, int64_t nbytes, size_t esize, const unsigned char *value)
{
    unsigned char *p = host;
    int64_t n = nbytes / (int64_t)esize;
    if (esize == 8) {
        uint64_t v;
        memcpy(&v, value, 8);
        for (int64_t i = 0; i < n; i++)
            memcpy(p + 8 * i, &v, 8);
    } else if (esize == 4) {
        uint32_t v;
        memcpy(&v, value, 4);
        for (int64_t i = 0; i < n; i++)
            memcpy(p + 4 * i, &v, 4);
    } else {
        memset(p, value[0], (size_t)n);
    }
}

gt_storage *gt__create(const char *fn, const gt__params *p, gt__init init, double value)
{
    int64_t strides[3] = {0, 0, 0}, offset, nbytes, align;
    unsigned char encoded[8];
    if (plan_buffer(fn, p, strides, &offset, &nbytes, &align))
        return NULL;
    if (init == GT__INIT_VALUE && gt__encode_value(fn, p->dtype, value, encoded))
        return NULL;
    int managed_block = p->device == GT_CUDA && p->managed == GT_MANAGED_CUDA;
    if (p->device == GT_CUDA && gt__device_available(fn, "a CUDA device buffer"))
        return NULL;

    gt_storage *s = gt__malloc(sizeof *s);
    gt__buffer *b = s ? gt__malloc(sizeof *b) : NULL;
    if (!b)
        goto nomem;
    memset(b, 0, sizeof *b);
    atomic_init(&b->refs, 1);
    b->nbytes = (size_t)nbytes;
    b->managed = p->managed;
    b->state = GT__CLEAN;
    if (!managed_block) {
        /* the host block: the pool's (gt__temporary; advised huge pages as it was made), or
           a fresh one */
        void *start;
        if (p->pooled_host) {
            int err;
            start = gt__pool_get(&gt__host_pool_ops, (size_t)(nbytes + align), &b->host_block,
                                 &b->host_pool_bytes, &err);
        } else {
            start = b->host_block = gt__malloc((size_t)(nbytes + align));
            if (start)
                gt__advise_huge(start, (size_t)(nbytes + align));
        }
        if (!start)
            goto nomem;
        uintptr_t raw = (uintptr_t)start;
        b->host = (unsigned char *)start + ((uintptr_t)align - raw % (uintptr_t)align);
    }
    if (p->device == GT_CUDA && gt__device_alloc(fn, "a CUDA device buffer", b, managed_block,
                                                 p->pooled, (size_t)align)) {
        gt__free(b->host_block);
        gt__free(b);
        gt__free(s);
        return NULL;
    }
    if (init == GT__INIT_ZERO)
        memset(b->host, 0, (size_t)nbytes);
    else if (init == GT__INIT_VALUE)
        fill_elements(b->host, nbytes, gt_dtype_size(p->dtype), encoded);
    if (init != GT__INIT_NONE && b->device && !managed_block)
        b->state = GT__HOST_DIRTY;
    fill_storage(s, p, b, strides, offset);
    return s;

nomem:
    if (b)
        gt__free(b->host_block);   /* never a pool block: the pool's failure leaves it NULL */
    gt__free(b);
    gt__free(s);
    char what[GT__DESC_MAX];
    gt__error(GT_ENOMEM, "%s: out of memory allocating storage %s (%lld bytes)", fn,
              describe(p->axes, p->dtype, p->ndim, p->shape, what), (long long)nbytes);
    return NULL;
}

/* GT_MANAGED_CUDA is one unified-memory buffer that the device allocated (or, for gt_wrap,
   that cudaMallocManaged gave the caller): a host storage with it would report a managed mode
   it does not have (gt_wrap_device has its own message: there GT_HOST means the device). */
static int unified_needs_device(const char *fn, const gt__params *p)
{
    if (p->managed == GT_MANAGED_CUDA && p->device != GT_CUDA)
        return gt__error(GT_EINVAL, "%s: managed = GT_MANAGED_CUDA (one unified-memory buffer) "
                         "needs device = GT_CUDA; a host storage (device = GT_HOST) has "
                         "nothing to keep in sync", fn);
    return 0;
}

static gt_storage *create(const char *fn, gt_dtype dtype, const char *axes, const int64_t *shape,
                          const gt_storage_opts *opts, gt__init init, double value)
{
    gt__params p;
    if (parse_params(fn, dtype, axes, shape, opts, 1, &p) || unified_needs_device(fn, &p))
        return NULL;
    return gt__create(fn, &p, init, value);
}

gt_storage *gt_empty(gt_dtype dtype, const char *axes, const int64_t *shape,
                     const gt_storage_opts *opts)
{
    return create("gt_empty", dtype, axes, shape, opts, GT__INIT_NONE, 0);
}

gt_storage *gt__empty_pooled(const char *fn, gt_dtype dtype, const char *axes,
                             const int64_t *shape, const gt_storage_opts *opts)
{
    gt__params p;
    if (parse_params(fn, dtype, axes, shape, opts, 1, &p) || unified_needs_device(fn, &p))
        return NULL;
    p.pooled = p.device == GT_CUDA && p.managed != GT_MANAGED_CUDA;
    p.pooled_host = p.device == GT_HOST;
    return gt__create(fn, &p, GT__INIT_NONE, 0);
}

gt_storage *gt_zeros(gt_dtype dtype, const char *axes, const int64_t *shape,
                     const gt_storage_opts *opts)
{
    return create("gt_zeros", dtype, axes, shape, opts, GT__INIT_ZERO, 0);
}

gt_storage *gt_ones(gt_dtype dtype, const char *axes, const int64_t *shape,
                    const gt_storage_opts *opts)
{
    return create("gt_ones", dtype, axes, shape, opts, GT__INIT_VALUE, 1);
}

gt_storage *gt_full(gt_dtype dtype, const char *axes, const int64_t *shape, double value,
                    const gt_storage_opts *opts)
{
    return create("gt_full", dtype, axes, shape, opts, GT__INIT_VALUE, value);
}

/* ---- gt_wrap --------------------------------------------------------------------------- */

/* Checks that strides address no element twice: sorted by increasing stride, each axis's
   stride must exceed the largest offset the smaller axes reach. *span: that largest offset
   over all axes. */
static int check_strides(const char *fn, const gt__params *p, const int64_t *strides,
                         int64_t *span)
{
    int order[3], n = 0;
    for (int d = 0; d < p->ndim; d++) {
        if (strides[d] < 0)
            return gt__error(GT_EINVAL, "%s: stride along %c is %lld; negative strides are "
                             "not supported", fn, p->axes[d], (long long)strides[d]);
        /* unused to address an axis of extent 0 or 1, but a halo there moves the
           origin by it (gt_domain_view, gt__bind): bounded as any other */
        if (p->shape[d] <= 1 && strides[d] > MAX_BYTES)
            return gt__error(GT_EINVAL, "%s: stride along %c is %lld, more than 2^60", fn,
                             p->axes[d], (long long)strides[d]);
        if (p->shape[d] > 1)
            order[n++] = d;
    }
    for (int a = 1; a < n; a++) /* insertion sort by stride */
        for (int b = a; b > 0 && strides[order[b]] < strides[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    /* (reach + 1) elements in at most 2^60 bytes: the byte sizes and ranges computed from
       reach (wrap_params, gt__byte_range) stay inside int64_t */
    int64_t reach = 0, max_reach = MAX_BYTES / (int64_t)gt_dtype_size(p->dtype) - 1;
    for (int k = 0; k < n; k++) {
        int d = order[k];
        if (strides[d] <= reach) {
            if (k == 0)
                return gt__error(GT_EINVAL, "%s: stride along %c is 0 but the shape is %lld: "
                                 "elements overlap", fn, p->axes[d], (long long)p->shape[d]);
            int e = order[k - 1];
            return gt__error(GT_EINVAL, "%s: strides overlap: stride %lld along %c does not "
                             "clear the %lld elements spanned by the axes of smaller stride "
                             "(%c: shape %lld, stride %lld)", fn, (long long)strides[d],
                             p->axes[d], (long long)(reach + 1), p->axes[e],
                             (long long)p->shape[e], (long long)strides[e]);
        }
        int64_t step;
        if (mul_small(p->shape[d] - 1, strides[d], &step) || step > max_reach - reach)
            return gt__error(GT_EINVAL, "%s: strides and shape span more than 2^60 bytes", fn);
        reach += step;
    }
    *span = reach;
    return 0;
}

/* The interior's first point (the origin of gt_domain_view and gt__bind: each axis's
   lower halo times its stride) of a wrapped buffer whose largest element offset is span
   lies inside it, or where the interior is empty one past its end along each axis whose
   lower halo is the whole axis (an array's last corner: NumPy's a[4:, 5:] of a (4, 5, 6)
   array is 150 elements into 120), by at most span + 1 per such axis: a halo on an axis of
   extent 1 with a huge stride would put it anywhere (before the array, once the products
   overflowed). */
static int check_origin(const char *fn, int ndim, const char *axes, const int64_t *shape,
                        const int64_t *strides, const int64_t (*halo)[2], int64_t span)
{
    int64_t off = 0, limit = span + 1;
    for (int d = 0; d < ndim; d++)
        if (halo[d][0] && halo[d][0] == shape[d])
            limit += strides[d] < span + 1 ? strides[d] : span + 1;
    for (int d = 0; d < ndim; d++) {
        int64_t step;
        int huge = mul_small(halo[d][0], strides[d], &step);
        if (huge || step > limit - off) { /* off <= limit: no overflow */
            char at[32] = "more than 2^60";
            if (!huge)
                snprintf(at, sizeof at, "%lld", (long long)(off + step));
            return gt__error(GT_EINVAL, "%s: the lower halo along %c (%lld, stride %lld) puts "
                             "the interior's first point %s elements into a wrapped buffer "
                             "of %lld", fn, axes[d], (long long)halo[d][0],
                             (long long)strides[d], at, (long long)(span + 1));
        }
        off += step;
    }
    return 0;
}

/* Layout of given strides: axes by decreasing stride, ties in axes order. */
static void layout_of_strides(const gt__params *p, const int64_t *strides, char out[4])
{
    int order[3] = {0, 1, 2};
    for (int a = 1; a < p->ndim; a++)
        for (int b = a; b > 0 && strides[order[b]] > strides[order[b - 1]]; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    for (int k = 0; k < p->ndim; k++)
        out[k] = p->axes[order[k]];
    out[p->ndim] = 0;
}

/* What gt_wrap and gt_wrap_device check of the caller's array: the parameters, strides
   (given, or dense in the layout of opts) that address no element twice, the interior's
   origin inside the array, data non-NULL unless the storage is empty, aligned to its
   element, and on the boundary opts->alignment claims for the element at aligned_index.
   Fills *p, st and *nbytes (the bytes the strides span), or fails: GT_EINVAL (GT_ENOMEM
   for dense strides beyond 2^60 bytes). */
static int wrap_params(const char *fn, void *data, gt_dtype dtype, const char *axes,
                       const int64_t *shape, const int64_t *strides,
                       const gt_storage_opts *opts, gt__params *pp, int64_t st[3],
                       int64_t *nbytes_out)
{
    gt__params p;
    int rc = parse_params(fn, dtype, axes, shape, opts, 0, &p);
    if (rc)
        return rc;
    int64_t span = 0, esize = (int64_t)gt_dtype_size(dtype);
    st[0] = st[1] = st[2] = 0;
    if (strides) {
        memcpy(st, strides, (size_t)p.ndim * sizeof st[0]);
        layout_of_strides(&p, st, p.layout);
    } else {
        gt__params dense = p;
        int64_t off, nb, al;
        dense.alignment = 1;
        if ((rc = plan_buffer(fn, &dense, st, &off, &nb, &al)))
            return rc;
    }
    if ((rc = check_strides(fn, &p, st, &span)) ||
        (rc = check_origin(fn, p.ndim, p.axes, p.shape, st, (const int64_t (*)[2])p.halo,
                           span)))
        return rc;
    int empty = 0;
    for (int d = 0; d < p.ndim; d++)
        empty |= p.shape[d] == 0;
    int64_t nbytes = empty ? 0 : (span + 1) * esize;
    if (!data && !empty)
        return gt__error(GT_EINVAL, "%s: data is NULL for a %s storage of %lld bytes", fn,
                         gt_dtype_name(dtype), (long long)nbytes);
    if ((uintptr_t)data % (uintptr_t)esize)
        return gt__error(GT_EINVAL, "%s: data %p is not aligned to the %lld bytes of a %s", fn,
                         data, (long long)esize, gt_dtype_name(dtype));
    if (p.alignment > 1 && !empty) {
        int64_t lin = 0;
        for (int d = 0; d < p.ndim; d++)
            lin += p.aligned_index[d] * st[d];
        /* lin < 2^63 elements (strides along extents of 1 reach 2^60); its bytes may not
           fit in int64_t, and the address wraps as the element's would */
        uintptr_t at = (uintptr_t)data + (uintptr_t)lin * (uintptr_t)esize;
        if (at % (uintptr_t)(p.alignment * esize))
            return gt__error(GT_EINVAL, "%s: the element at aligned_index (%lld,%lld,%lld) is "
                             "at %p, not on a boundary of %lld elements", fn,
                             (long long)p.aligned_index[0], (long long)p.aligned_index[1],
                             (long long)p.aligned_index[2], (void *)at,
                             (long long)p.alignment);
    }
    *pp = p;
    *nbytes_out = nbytes;
    return 0;
}

/* The records of a wrapped storage: NULL with GT_ENOMEM. */
static gt_storage *wrap_records(const char *fn, gt_storage **s, gt__buffer **b, size_t nbytes,
                                gt_managed managed)
{
    *s = gt__malloc(sizeof **s);
    *b = gt__malloc(sizeof **b);
    if (!*s || !*b) {
        gt__free(*s);
        gt__free(*b);
        return gt__error(GT_ENOMEM, "%s: out of memory", fn), NULL;
    }
    memset(*b, 0, sizeof **b);
    atomic_init(&(*b)->refs, 1);
    (*b)->wrapped = 1;
    (*b)->nbytes = nbytes;
    (*b)->managed = managed;
    (*b)->state = GT__CLEAN;
    return *s;
}

gt_storage *gt_wrap(void *data, gt_dtype dtype, const char *axes, const int64_t *shape,
                    const int64_t *strides, const gt_storage_opts *opts)
{
    static const char fn[] = "gt_wrap";
    gt__params p;
    int64_t st[3], nbytes;
    if (wrap_params(fn, data, dtype, axes, shape, strides, opts, &p, st, &nbytes) ||
        unified_needs_device(fn, &p))
        return NULL;
    int managed_block = p.device == GT_CUDA && p.managed == GT_MANAGED_CUDA;
    if (p.device == GT_CUDA && gt__device_available(fn, "a CUDA device buffer"))
        return NULL;

    gt_storage *s;
    gt__buffer *b;
    if (!wrap_records(fn, &s, &b, (size_t)nbytes, p.managed))
        return NULL;
    b->host = data;
    if (managed_block) {
        /* the caller's unified memory, and the layer host accesses wait on (gt__sync_host,
           gt_sync: barrier); it used to be left NULL, and gt_host crashed on it */
        b->device = data;
        b->ops = gt__device_ops_get();
    } else if (p.device == GT_CUDA) {
        if (gt__device_alloc(fn, "a CUDA device mirror", b, 0, 0, GT__BASE_ALIGN)) {
            gt__free(s);
            gt__free(b);
            return NULL;
        }
        b->state = GT__HOST_DIRTY;
        /* elements fewer than the span's: a download must not write the caller's memory
           between them (it wrote the whole span, clobbering the other components of
           interleaved arrays and the rest of a larger array around a slice) */
        int64_t count = 1;
        for (int d = 0; d < p.ndim; d++)
            count *= p.shape[d];
        if (nbytes > 0 && count * (int64_t)gt_dtype_size(dtype) < nbytes) {
            b->gaps = 1;
            b->gap_ndim = p.ndim;
            b->gap_esize = gt_dtype_size(dtype);
            memcpy(b->gap_shape, p.shape, sizeof b->gap_shape);
            memcpy(b->gap_strides, st, sizeof b->gap_strides);
        }
    }
    fill_storage(s, &p, b, st, 0);
    return s;
}

gt_storage *gt_wrap_device(void *device_data, gt_dtype dtype, const char *axes,
                           const int64_t *shape, const int64_t *strides,
                           const gt_storage_opts *opts)
{
    static const char fn[] = "gt_wrap_device";
    gt__params p;
    int64_t st[3], nbytes;
    if (wrap_params(fn, device_data, dtype, axes, shape, strides, opts, &p, st, &nbytes))
        return NULL;
    /* GT_HOST (0, the default) means "the device" here: the memory is nowhere else */
    if (p.managed == GT_MANAGED_CUDA)
        return gt__error(GT_EINVAL, "%s: managed = GT_MANAGED_CUDA: unified memory has a host "
                         "side; wrap it with gt_wrap (device = GT_CUDA, managed = "
                         "GT_MANAGED_CUDA)", fn), NULL;
    if (gt__device_available(fn, "a device-only storage"))
        return NULL;
    gt_storage *s;
    gt__buffer *b;
    /* nothing to keep in sync: GT_MANAGED_NONE whatever opts said */
    if (!wrap_records(fn, &s, &b, (size_t)nbytes, GT_MANAGED_NONE))
        return NULL;
    b->ops = gt__device_ops_get(); /* for device copies; device_block NULL: never freed */
    b->device = device_data;
    b->device_only = 1;
    p.device = GT_CUDA;
    p.managed = GT_MANAGED_NONE;
    fill_storage(s, &p, b, st, 0);
    return s;
}

int gt__device_only_error(const char *fn, const gt_storage *s)
{
    char desc[GT__DESC_MAX];
    return gt__error(GT_EDEVICE, "%s: storage %s is device-only (gt_wrap_device): it has no "
                     "host side", fn, gt__describe(s, desc));
}

int gt_is_device_only(const gt_storage *s)
{
    if (!s)
        return gt__error(GT_EINVAL, "gt_is_device_only: storage is NULL");
    return s->buf->device_only;
}

/* ---- views, references -------------------------------------------------------------------- */

gt_storage *gt_domain_view(gt_storage *s)
{
    if (!s)
        return gt__error(GT_EINVAL, "gt_domain_view: storage is NULL"), NULL;
    gt_storage *v = gt__malloc(sizeof *v);
    if (!v)
        return gt__error(GT_ENOMEM, "gt_domain_view: out of memory"), NULL;
    *v = *s; /* plain copy: the atomic is re-initialized below */
    atomic_init(&v->refs, 1);
    for (int d = 0; d < s->ndim; d++) {
        if (s->halo[d][0] || s->halo[d][1])
            v->whole = 0; /* fewer elements than its parent */
        v->offset += s->halo[d][0] * s->strides[d];
        v->shape[d] = s->shape[d] - s->halo[d][0] - s->halo[d][1];
        int64_t ai = s->aligned_index[d] - s->halo[d][0];
        v->aligned_index[d] = ai < 0 ? 0 : ai > v->shape[d] ? v->shape[d] : ai;
        v->halo[d][0] = v->halo[d][1] = 0;
    }
    atomic_fetch_add_explicit(&s->buf->refs, 1, memory_order_relaxed);
    return v;
}

void gt_retain(gt_storage *s)
{
    if (s)
        atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
}

void gt_release(gt_storage *s)
{
    if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    buffer_release(s->buf);
    gt__free(s);
}

int gt__refcount(const gt_storage *s)
{
    return atomic_load(&((gt_storage *)s)->refs);
}

int gt__buffer_refcount(const gt_storage *s)
{
    return atomic_load(&s->buf->refs);
}

void gt__params_of(const gt_storage *s, gt__params *p)
{
    memset(p, 0, sizeof *p);
    p->dtype = s->dtype;
    p->ndim = s->ndim;
    memcpy(p->axes, s->axes, 4);
    memcpy(p->layout, s->layout, 4);
    memcpy(p->shape, s->shape, sizeof p->shape);
    memcpy(p->halo, s->halo, sizeof p->halo);
    p->alignment = s->alignment;
    memcpy(p->aligned_index, s->aligned_index, sizeof p->aligned_index);
    p->device = s->device;
    p->managed = s->buf->managed;
}

/* ---- accessors ------------------------------------------------------------------------- */

int gt__axis_pos(const gt_storage *s, char c)
{
    const char *at = strchr(s->axes, c);
    return c && at ? (int)(at - s->axes) : -1;
}

const char *gt__describe(const gt_storage *s, char *buf)
{
    return describe(s->axes, s->dtype, s->ndim, s->shape, buf);
}

void *gt__host_raw(const gt_storage *s)
{
    if (!s->buf->host)
        return NULL; /* an empty wrapped storage over NULL */
    return (unsigned char *)s->buf->host + s->offset * (int64_t)gt_dtype_size(s->dtype);
}

/* [*lo, *hi): the bytes of s's elements from base, the address of its lowest element (NULL:
   none, an empty range). */
static void byte_range_at(const gt_storage *s, const void *base, uintptr_t *lo, uintptr_t *hi)
{
    int64_t span = 0;
    *lo = *hi = (uintptr_t)base;
    if (!*lo)
        return;
    for (int d = 0; d < s->ndim; d++) {
        if (s->shape[d] == 0)
            return;
        span += (s->shape[d] - 1) * s->strides[d];
    }
    *hi = *lo + (uintptr_t)((span + 1) * (int64_t)gt_dtype_size(s->dtype));
}

void gt__byte_range(const gt_storage *s, uintptr_t *lo, uintptr_t *hi)
{
    byte_range_at(s, s->buf->device_only ? gt__device_raw(s) : gt__host_raw(s), lo, hi);
}

void gt__device_byte_range(const gt_storage *s, uintptr_t *lo, uintptr_t *hi)
{
    byte_range_at(s, gt__device_raw(s), lo, hi);
}

#define NULL_STORAGE(fn) gt__error(GT_EINVAL, fn ": storage is NULL")

gt_dtype gt_dtype_of(const gt_storage *s)
{
    if (!s)
        return NULL_STORAGE("gt_dtype_of"), (gt_dtype)-1;
    return s->dtype;
}

const char *gt_axes(const gt_storage *s)
{
    if (!s)
        return NULL_STORAGE("gt_axes"), NULL;
    return s->axes;
}

const char *gt_layout(const gt_storage *s)
{
    if (!s)
        return NULL_STORAGE("gt_layout"), NULL;
    return s->layout;
}

int gt_ndim(const gt_storage *s)
{
    if (!s)
        return NULL_STORAGE("gt_ndim"), -1;
    return s->ndim;
}

const int64_t *gt_shape(const gt_storage *s)
{
    if (!s)
        return NULL_STORAGE("gt_shape"), NULL;
    return s->shape;
}

const int64_t *gt_strides(const gt_storage *s)
{
    if (!s)
        return NULL_STORAGE("gt_strides"), NULL;
    return s->strides;
}

const int64_t (*gt_halo(const gt_storage *s))[2]
{
    if (!s)
        return NULL_STORAGE("gt_halo"), NULL;
    return (const int64_t(*)[2])s->halo;
}

int gt_set_halo(gt_storage *s, const int64_t halo[][2])
{
    if (!s)
        return NULL_STORAGE("gt_set_halo");
    int64_t h[3][2];
    int rc = parse_halo("gt_set_halo", s->axes, s->ndim, s->shape, halo, h);
    if (!rc && s->buf->wrapped) {
        int64_t span = 0; /* the largest element offset of the wrapped array */
        for (int d = 0; d < s->ndim; d++)
            span += s->shape[d] > 1 ? (s->shape[d] - 1) * s->strides[d] : 0;
        rc = check_origin("gt_set_halo", s->ndim, s->axes, s->shape, s->strides,
                          (const int64_t (*)[2])h, span);
    }
    if (rc)
        return rc;
    memcpy(s->halo, h, sizeof h);
    return 0;
}

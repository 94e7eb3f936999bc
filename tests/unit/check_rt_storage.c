/* check_rt_storage.c: storages (runtime.md section 2): creation swept over axes x layouts x
 * halos x alignments x dtypes (strides, padding, alignment, no overlap, every element
 * addressable), presets, fill values, accessors, gt_set_halo, gt_wrap and its validation,
 * gt_domain_view, reference counting, every creation error path, and the thread-local
 * error state. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "rt_check.h"

/* Asserts that the last failure has code and a message containing text. */

static int64_t offset_of(const gt_storage *s, const int64_t *idx)
{
    int64_t off = 0;
    for (int d = 0; d < gt_ndim(s); d++)
        off += idx[d] * gt_strides(s)[d];
    return off;
}

/* Calls f(s, idx, ctx) for every index of s's shape. */
static void for_each(const gt_storage *s, void (*f)(const gt_storage *, const int64_t *, void *),
                     void *ctx)
{
    const int64_t *n = gt_shape(s);
    int nd = gt_ndim(s);
    int64_t idx[3] = {0, 0, 0};
    for (int d = 0; d < nd; d++)
        if (n[d] == 0)
            return;
    for (;;) {
        f(s, idx, ctx);
        int d = nd - 1;
        while (d >= 0 && ++idx[d] == n[d])
            idx[d--] = 0;
        if (d < 0)
            return;
    }
}

/* ---- the creation sweep --------------------------------------------------------------- */

static const char *const sweep_axes[] = {"IJK", "KJI", "JKI", "IJ", "KI", "J"};
static const char *const sweep_presets[] = {NULL, "C", "F", "cpu", "cuda", "explicit"};
static const int64_t sweep_halos[][3][2] = {
    {{0, 0}, {0, 0}, {0, 0}}, {{1, 2}, {2, 1}, {1, 1}}, {{3, 0}, {0, 3}, {2, 0}}};
static const int64_t sweep_alignments[] = {0, 1, 4, 8, 3};
#define N_AXES 6
#define N_PRESETS 6
#define N_HALOS 3
#define N_ALIGN 5

/* The layout a preset must give, computed independently of the runtime. */
static void expected_layout(const char *axes, const char *preset, char out[4])
{
    size_t n = strlen(axes);
    if (preset && strcmp(preset, "C") == 0) {
        strcpy(out, axes);
    } else if (preset && strcmp(preset, "F") == 0) {
        for (size_t d = 0; d < n; d++)
            out[d] = axes[n - 1 - d];
        out[n] = 0;
    } else { /* cpu, cuda, default: K slowest, I contiguous, by name */
        int k = 0;
        for (const char *c = "KJI"; *c; c++)
            if (strchr(axes, *c))
                out[k++] = *c;
        out[k] = 0;
    }
}

typedef struct {
    unsigned char *base; /* element (0,0,0) */
    size_t esize;
    int64_t count;
    unsigned char *seen; /* one flag per element offset */
} walk;

static void mark(const gt_storage *s, const int64_t *idx, void *ctx)
{
    walk *w = ctx;
    int64_t off = offset_of(s, idx);
    ck_assert_int_eq(w->seen[off], 0); /* no two indices share an element */
    w->seen[off] = 1;
    memset(w->base + off * (int64_t)w->esize, 0x5a, w->esize); /* addressable (ASan) */
    w->count++;
}

/* One loop iteration per axes x preset; inside, every halo x alignment x dtype. */
START_TEST(create_sweep)
{
    const char *axes = sweep_axes[_i % N_AXES];
    const char *preset = sweep_presets[_i / N_AXES];
    int nd = (int)strlen(axes);
    static const int64_t base_shape[3] = {5, 7, 4};
    for (int combo = 0; combo < N_HALOS * N_ALIGN * 4; combo++) {
        int h = combo % N_HALOS;
        int64_t a = sweep_alignments[combo / N_HALOS % N_ALIGN];
        int t = combo / (N_HALOS * N_ALIGN);
        gt_dtype dtype = (gt_dtype)t;
        size_t es = gt_dtype_size(dtype);
        gt_storage_opts o = {0};
        int64_t shape[3];
        for (int d = 0; d < nd; d++) {
            o.halo[d][0] = sweep_halos[h][d][0];
            o.halo[d][1] = sweep_halos[h][d][1];
            shape[d] = base_shape[d] + o.halo[d][0] + o.halo[d][1];
        }
        o.alignment = a;
        /* the alignment in effect: the "cuda" preset's rows on 128 bytes when none is given */
        if (a == 0 && preset && strcmp(preset, "cuda") == 0)
            a = 128 / (int64_t)es;
        char want[4];
        if (preset && strcmp(preset, "explicit") == 0) {
            /* a permutation that no preset gives for 3 axes: middle axis first */
            strcpy(want, axes);
            if (nd >= 2) {
                want[0] = axes[nd - 2];
                want[nd - 2] = axes[0];
            }
            o.layout = want;
        } else {
            o.defaults = preset;
            expected_layout(axes, preset, want);
        }
        gt_storage *s = gt_empty(dtype, axes, shape, preset ? &o : (a || h ? &o : NULL));
        ck_assert_msg(s != NULL, "%s", gt_last_error());
        ck_assert_int_eq(gt_ndim(s), nd);
        ck_assert_str_eq(gt_axes(s), axes);
        ck_assert_int_eq(gt_dtype_of(s), dtype);
        ck_assert_str_eq(gt_layout(s), want);
        const int64_t *st = gt_strides(s);
        const int64_t(*hh)[2] = gt_halo(s);
        for (int d = 0; d < nd; d++) {
            ck_assert_int_eq(gt_shape(s)[d], shape[d]);
            ck_assert_int_eq(hh[d][0], o.halo[d][0]);
            ck_assert_int_eq(hh[d][1], o.halo[d][1]);
        }
        /* strides follow the layout: contiguous axis stride 1, padded to the alignment */
        int inner = (int)(strchr(axes, want[nd - 1]) - axes);
        ck_assert_int_eq(st[inner], 1);
        for (int k = nd - 2; k >= 0; k--) {
            int d = (int)(strchr(axes, want[k]) - axes);
            int e = (int)(strchr(axes, want[k + 1]) - axes);
            int64_t ext = shape[e];
            if (e == inner && a > 1)
                ext = (ext + a - 1) / a * a;
            ck_assert_int_eq(st[d], st[e] * ext);
            if (a > 1)
                ck_assert_int_eq(st[d] % a, 0);
        }
        /* alignment: the element at aligned_index (default: the lower halo) of every row */
        unsigned char *base = gt_host(s, GT_READWRITE);
        ck_assert_ptr_nonnull(base);
        if (a > 1) {
            int64_t idx[3];
            for (int d = 0; d < nd; d++)
                idx[d] = o.halo[d][0];
            uintptr_t at = (uintptr_t)(base + offset_of(s, idx) * (int64_t)es);
            ck_assert_uint_eq(at % (uintptr_t)(a * (int64_t)es), 0);
            ck_assert_uint_eq(at % 64, 0);
            for (int d = 0; d < nd; d++) /* one row further along each other axis */
                if (d != inner && shape[d] > 1) {
                    idx[d]++;
                    at = (uintptr_t)(base + offset_of(s, idx) * (int64_t)es);
                    ck_assert_uint_eq(at % (uintptr_t)(a * (int64_t)es), 0);
                    idx[d]--;
                }
        } else {
            ck_assert_uint_eq((uintptr_t)base % 64, 0);
        }
        /* every element addressable, no two indices on one element */
        int64_t span = 1;
        for (int d = 0; d < nd; d++)
            span += (shape[d] - 1) * st[d];
        walk w = {base, es, 0, calloc((size_t)span, 1)};
        for_each(s, mark, &w);
        ck_assert_int_eq(w.count, shape[0] * (nd > 1 ? shape[1] : 1) * (nd > 2 ? shape[2] : 1));
        free(w.seen);
        gt_release(s);
    }
}
END_TEST

/* ---- presets and layouts --------------------------------------------------------------- */

START_TEST(presets_table)
{
    static const struct {
        const char *axes, *preset, *layout;
    } cases[] = {
        {"IJK", "C", "IJK"},  {"IJK", "F", "KJI"},  {"IJK", "cpu", "KJI"}, {"IJK", "cuda", "KJI"},
        {"KJI", "C", "KJI"},  {"KJI", "F", "IJK"},  {"KJI", "cpu", "KJI"}, {"KJI", "cuda", "KJI"},
        {"JI", "cpu", "JI"},  {"IJ", "cpu", "JI"},  {"IJ", "C", "IJ"},     {"K", "F", "K"},
        {"IK", NULL, "KI"},
    };
    int64_t shape[3] = {3, 4, 5};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gt_storage_opts o = {0};
        o.defaults = cases[c].preset;
        gt_storage *s = gt_empty(GT_FLOAT64, cases[c].axes, shape, &o);
        ck_assert_ptr_nonnull(s);
        ck_assert_str_eq(gt_layout(s), cases[c].layout);
        gt_release(s);
    }
    /* NULL options: the "cpu" preset; NULL axes: "IJK" */
    gt_storage *s = gt_empty(GT_FLOAT32, NULL, shape, NULL);
    ck_assert_str_eq(gt_axes(s), "IJK");
    ck_assert_str_eq(gt_layout(s), "KJI");
    ck_assert_int_eq(gt_strides(s)[0], 1);
    ck_assert_int_eq(gt_strides(s)[1], 3);
    ck_assert_int_eq(gt_strides(s)[2], 12);
    gt_release(s);
}
END_TEST

/* The "cuda" preset puts the first interior point of every row on 128 bytes when no
   alignment is given: a 516-double row with a halo of 2 (the review's case, 16 bytes off a
   sector before) is padded to 528 (33 lines of 16 doubles); an explicit alignment, 1
   included, overrides it, and so does nothing else (an explicit layout keeps it). */
START_TEST(cuda_rows)
{
    static const struct {
        gt_dtype t;
        int64_t alignment; /* given */
        const char *layout;
        int64_t row;       /* expected J stride: ceil(516 / (128 / size)) * (128 / size) */
        int64_t line;      /* expected alignment of each row's first interior point, bytes */
    } cases[] = {
        {GT_FLOAT64, 0, NULL, 528, 128},  {GT_FLOAT32, 0, NULL, 544, 128},
        {GT_INT32, 0, NULL, 544, 128},    {GT_BOOL, 0, NULL, 640, 128},
        {GT_FLOAT64, 1, NULL, 516, 8},    {GT_FLOAT64, 4, NULL, 516, 32},
        {GT_FLOAT64, 0, "KJI", 528, 128},
    };
    const int64_t shape[3] = {516, 6, 5};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gt_storage_opts o = {0};
        o.defaults = "cuda";
        o.alignment = cases[c].alignment;
        o.layout = cases[c].layout;
        o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 2;
        gt_storage *s = gt_empty(cases[c].t, "IJK", shape, &o);
        ck_assert_msg(s != NULL, "%s", gt_last_error());
        ck_assert_int_eq(gt_strides(s)[0], 1);
        ck_assert_int_eq(gt_strides(s)[1], cases[c].row);
        unsigned char *base = gt_host(s, GT_READWRITE);
        int64_t es = (int64_t)gt_dtype_size(cases[c].t);
        for (int64_t j = 2; j < 4; j++)
            for (int64_t k = 0; k < 5; k += 4) {
                uintptr_t at = (uintptr_t)(base + (2 + j * gt_strides(s)[1] +
                                                   k * gt_strides(s)[2]) * es);
                ck_assert_msg(at % (uintptr_t)cases[c].line == 0,
                              "case %zu: row (j %lld, k %lld) starts %llu bytes off %lld", c,
                              (long long)j, (long long)k,
                              (unsigned long long)(at % (uintptr_t)cases[c].line),
                              (long long)cases[c].line);
            }
        gt_release(s);
    }
    /* gt_wrap arranges nothing: the preset's alignment is not claimed of the caller's memory */
    static _Alignas(128) double mem[1 + 8 * 3 * 2]; /* mem + 1: 8 bytes off 128 */
    gt_storage_opts o = {0};
    o.defaults = "cuda";
    const int64_t small[3] = {8, 3, 2};
    gt_storage *w = gt_wrap(mem + 1, GT_FLOAT64, "IJK", small, NULL, &o);
    ck_assert_msg(w != NULL, "%s", gt_last_error());
    ck_assert_int_eq(gt_strides(w)[1], 8);
    gt_release(w);
}
END_TEST

START_TEST(explicit_layout)
{
    int64_t shape[3] = {3, 4, 5};
    gt_storage_opts o = {0};
    o.defaults = "C";
    o.layout = "JKI"; /* overrides the preset */
    gt_storage *s = gt_empty(GT_INT32, "IJK", shape, &o);
    ck_assert_str_eq(gt_layout(s), "JKI");
    ck_assert_int_eq(gt_strides(s)[0], 1);
    ck_assert_int_eq(gt_strides(s)[2], 3);
    ck_assert_int_eq(gt_strides(s)[1], 15);
    gt_release(s);
    /* a 3-letter layout for a 2-d storage is restricted to its axes by name */
    o.layout = "IKJ";
    s = gt_empty(GT_INT32, "JK", shape, &o);
    ck_assert_str_eq(gt_layout(s), "KJ");
    ck_assert_int_eq(gt_strides(s)[0], 1);
    ck_assert_int_eq(gt_strides(s)[1], 3);
    gt_release(s);
}
END_TEST

START_TEST(aligned_index_explicit)
{
    /* aligned_index given: that element (not the lower halo) sits on the boundary */
    int64_t shape[3] = {6, 5, 9};
    gt_storage_opts o = {0};
    o.alignment = 16;
    o.has_aligned_index = 1;
    o.aligned_index[0] = 1, o.aligned_index[1] = 2, o.aligned_index[2] = 3;
    o.halo[2][0] = 1;
    o.defaults = "C";
    gt_storage *s = gt_empty(GT_FLOAT32, "IJK", shape, &o);
    unsigned char *base = gt_host(s, GT_READ);
    int64_t idx[3] = {1, 2, 3};
    uintptr_t at = (uintptr_t)(base + offset_of(s, idx) * 4);
    ck_assert_uint_eq(at % 64, 0);
    ck_assert_int_eq(gt_strides(s)[1], 16); /* 9 padded to 16 */
    gt_release(s);
}
END_TEST

/* ---- values ---------------------------------------------------------------------------- */

typedef struct {
    unsigned char *base;
    gt_dtype dtype;
    double want;
} value_check;

static void check_value(const gt_storage *s, const int64_t *idx, void *ctx)
{
    value_check *c = ctx;
    unsigned char *p = c->base + offset_of(s, idx) * (int64_t)gt_dtype_size(c->dtype);
    double got = 0;
    switch (c->dtype) {
    case GT_FLOAT32: got = *(float *)p; break;
    case GT_FLOAT64: got = *(double *)p; break;
    case GT_INT32: got = *(int32_t *)p; break;
    case GT_BOOL: got = *(_Bool *)p; break;
    }
    ck_assert_double_eq_tol(got, c->want, 1e-6);
}

START_TEST(fill_values)
{
    gt_dtype dtype = (gt_dtype)_i;
    int64_t shape[3] = {4, 3, 5};
    gt_storage_opts o = {0};
    o.alignment = 8;
    o.halo[0][0] = o.halo[0][1] = 1;
    gt_storage *z = gt_zeros(dtype, "IJK", shape, &o);
    gt_storage *one = gt_ones(dtype, "KIJ", shape, &o);
    gt_storage *f = gt_full(dtype, "IJK", shape, dtype == GT_BOOL ? 1 : -7, &o);
    ck_assert(z && one && f);
    value_check c = {gt_host(z, GT_READ), dtype, 0};
    for_each(z, check_value, &c);
    c = (value_check){gt_host(one, GT_READ), dtype, 1};
    for_each(one, check_value, &c);
    c = (value_check){gt_host(f, GT_READ), dtype, dtype == GT_BOOL ? 1 : -7};
    for_each(f, check_value, &c);
    gt_release(z);
    gt_release(one);
    gt_release(f);
}
END_TEST

START_TEST(full_conversions)
{
    int64_t shape[1] = {3};
    gt_storage *s = gt_full(GT_INT32, "K", shape, 2.5, NULL);
    ck_assert_ptr_null(s);
    ck_assert_error(GT_EINVAL, "value 2.5 is not an int32");
    ck_assert_ptr_null(gt_full(GT_INT32, "K", shape, 3e9, NULL));
    ck_assert_error(GT_EINVAL, "gt_full");
    ck_assert_ptr_null(gt_full(GT_INT32, "K", shape, 0.0 / 0.0, NULL));
    ck_assert_int_eq(gt_last_error_code(), GT_EINVAL);
    /* the value as given, not in %g's six digits ("value 1 is not an int32") */
    ck_assert_ptr_null(gt_full(GT_INT32, "K", shape, 1.0000001, NULL));
    ck_assert_error(GT_EINVAL, "gt_full: value 1.0000001 is not an int32");
    ck_assert_ptr_null(gt_full(GT_INT32, "K", shape, 2147483647.5, NULL));
    ck_assert_error(GT_EINVAL, "gt_full: value 2147483647.5 is not an int32");
    s = gt_full(GT_INT32, "K", shape, -2147483648.0, NULL);
    ck_assert_int_eq(((int32_t *)gt_host(s, GT_READ))[2], INT32_MIN);
    gt_release(s);
    s = gt_full(GT_BOOL, "K", shape, 0.25, NULL); /* nonzero is true */
    ck_assert_int_eq(((_Bool *)gt_host(s, GT_READ))[1], 1);
    gt_release(s);
    s = gt_full(GT_FLOAT32, "K", shape, 0.1, NULL);
    ck_assert(((float *)gt_host(s, GT_READ))[0] == 0.1f);
    gt_release(s);
    s = gt_full(GT_FLOAT32, "K", shape, -1e300, NULL); /* beyond float: infinity */
    ck_assert(((float *)gt_host(s, GT_READ))[0] < -FLT_MAX);
    gt_release(s);
    /* rounded to nearest at the top too: 3.4028235e38 (what C and NumPy print for FLT_MAX,
       a little above it) is FLT_MAX, as (float)3.4028235e38 is; it once gave infinity. From
       FLT_MAX + half an ulp (a tie, which rounds to even: up) on it is infinity */
    static const struct {
        double value;
        float want;
    } top[] = {{3.4028235e38, FLT_MAX},         {-3.4028235e38, -FLT_MAX},
               {0x1.fffffefffffffp127, FLT_MAX}, {0x1.ffffffp127, HUGE_VALF},
               {-0x1.ffffffp127, -HUGE_VALF},    {FLT_MAX, FLT_MAX}};
    for (size_t n = 0; n < sizeof top / sizeof top[0]; n++) {
        s = gt_full(GT_FLOAT32, "K", shape, top[n].value, NULL);
        float got = ((float *)gt_host(s, GT_READ))[1];
        ck_assert_msg(got == top[n].want, "gt_full(%a) gave %a, not %a", top[n].value,
                      (double)got, (double)top[n].want);
        gt_release(s);
    }
    /* the same conversion for a Dirichlet halo */
    gt_storage_opts o = {.halo = {{1, 1}}};
    s = gt_zeros(GT_FLOAT32, "K", shape, &o);
    ck_assert_int_eq(gt_fill_halo(s, "K", GT_BC_DIRICHLET, 3.4028235e38), 0);
    ck_assert(((float *)gt_host(s, GT_READ))[0] == FLT_MAX);
    gt_release(s);
}
END_TEST

START_TEST(empty_shapes)
{
    int64_t shape[3] = {0, 4, 3};
    gt_storage *s = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(gt_host(s, GT_READ));
    ck_assert_int_eq(gt_shape(s)[0], 0);
    gt_storage *c = gt_copy(s);
    ck_assert_ptr_nonnull(c);
    ck_assert_int_eq(gt_copy_into(c, s), 0);
    gt_release(c);
    gt_release(s);
    /* no bytes, but strides beyond 2^60 bytes: refused, without claiming it needs memory
       (the message said "needs more than 2^60 bytes" of a storage of 0 bytes) */
    int64_t huge[2] = {0, (int64_t)1 << 61};
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "JI", huge, NULL));
    ck_assert_error(GT_ENOMEM, "gt_zeros: storage JI float64 (0,2305843009213693952) has no "
                               "elements, but its strides would span more than 2^60 bytes");
    /* the span counts bytes, not elements: 2^60 doubles (K's stride 2^30 * 2^30) are 2^63
       bytes, and were taken (its byte stride overflowed int64); 2^57 doubles fit */
    int64_t wide[3] = {1 << 30, 1 << 30, 0};
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "IJK", wide, NULL));
    ck_assert_error(GT_ENOMEM, "gt_zeros: storage IJK float64 (1073741824,1073741824,0) has no "
                               "elements, but its strides would span more than 2^60 bytes");
    int64_t fits[3] = {1 << 28, 1 << 29, 0};
    s = gt_zeros(GT_FLOAT64, "IJK", fits, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(gt_strides(s)[2], (int64_t)1 << 57);
    gt_release(s);
}
END_TEST

/* ---- dtypes, errors, accessors ------------------------------------------------------------ */

START_TEST(dtype_info)
{
    ck_assert_uint_eq(gt_dtype_size(GT_FLOAT32), 4);
    ck_assert_uint_eq(gt_dtype_size(GT_FLOAT64), 8);
    ck_assert_uint_eq(gt_dtype_size(GT_INT32), 4);
    ck_assert_uint_eq(gt_dtype_size(GT_BOOL), sizeof(_Bool));
    ck_assert_uint_eq(gt_dtype_size((gt_dtype)9), 0);
    ck_assert_str_eq(gt_dtype_name(GT_FLOAT64), "float64");
    ck_assert_str_eq(gt_dtype_name(GT_BOOL), "bool");
    ck_assert_str_eq(gt_dtype_name((gt_dtype)-1), "invalid");
    ck_assert_str_eq(gt_strerror(0), "success");
    ck_assert_str_eq(gt_strerror(GT_EHALO), "halo too small");
    ck_assert_str_eq(gt_strerror(GT_EMPI), "MPI error");
    ck_assert_str_eq(gt_strerror(-100), "unknown error");
    ck_assert_int_lt(GT_EINVAL, 0);
    ck_assert_int_ne(GT_EINVAL, GT_EDEVICE);
}
END_TEST

START_TEST(create_errors)
{
    int64_t shape[3] = {4, 4, 4}, bad[3] = {4, 4, -1};
    gt_storage_opts o = {0};
    ck_assert_ptr_null(gt_empty((gt_dtype)7, "IJK", shape, NULL));
    /* the messages of invalid enum values list the valid ones (they gave the value only) */
    ck_assert_error(GT_EINVAL, "gt_empty: invalid dtype 7 (GT_FLOAT32, GT_FLOAT64, GT_INT32 "
                               "or GT_BOOL)");
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "", shape, NULL));
    ck_assert_error(GT_EINVAL, "gt_zeros: axes \"\" must name 1 to 3");
    ck_assert_ptr_null(gt_ones(GT_FLOAT64, "IJKI", shape, NULL));
    ck_assert_error(GT_EINVAL, "must name 1 to 3");
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IXK", shape, NULL));
    ck_assert_error(GT_EINVAL, "'X' is not I, J or K");
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJI", shape, NULL));
    ck_assert_error(GT_EINVAL, "repeat I");
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "ijk", shape, NULL));
    ck_assert_error(GT_EINVAL, "'i' is not I, J or K");
    /* a byte that is no printable character is given as a number (it was printed raw) */
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "I\001K", shape, NULL));
    ck_assert_error(GT_EINVAL, "gt_empty: axes: character 2 is byte 0x01, not I, J or K");
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "J\303\251", shape, NULL)); /* "Jé" in UTF-8 */
    ck_assert_error(GT_EINVAL, "gt_empty: axes: character 2 is byte 0xc3, not I, J or K");
    ck_assert_ptr_null(gt_full(GT_FLOAT64, "IJK", NULL, 1, NULL));
    ck_assert_error(GT_EINVAL, "gt_full: shape is NULL");
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", bad, NULL));
    ck_assert_error(GT_EINVAL, "shape along K is -1");

    o.halo[1][0] = -1;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "halo along J is [-1,0]");
    o.halo[1][0] = 3, o.halo[1][1] = 2;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "halo along J is [3,2], more than the shape 4");
    memset(&o, 0, sizeof o);

    o.alignment = -2;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "alignment -2");
    o.alignment = GT__MAX_ALIGNMENT + 1;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "alignment");
    o.alignment = 4;
    o.has_aligned_index = 1;
    o.aligned_index[2] = 5;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "aligned_index along K is 5, outside [0, 4]");
    o.aligned_index[2] = -1;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "aligned_index along K is -1");
    /* in the documented order: the aligned index before the preset name (it came after) */
    o.defaults = "gpu";
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "aligned_index along K is -1");
    memset(&o, 0, sizeof o);

    o.layout = "IJ";
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "layout \"IJ\" is not a permutation of the axes \"IJK\"");
    o.layout = "IIK";
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "layout \"IIK\"");
    o.layout = "JI";
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IK", shape, &o));
    ck_assert_error(GT_EINVAL, "layout \"JI\"");
    o.layout = NULL;
    o.defaults = "gpu";
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "unknown defaults preset 'gpu'");
    o.defaults = NULL;
    o.device = (gt_device)5;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "gt_empty: invalid device 5 (GT_HOST or GT_CUDA)");
    o.device = GT_HOST;
    o.managed = (gt_managed)9;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "gt_empty: invalid managed mode 9 (GT_MANAGED_RUNTIME, "
                               "GT_MANAGED_NONE or GT_MANAGED_CUDA)");
    /* unified memory is a device allocation: a host storage cannot have it (gt_empty and
       gt_wrap alike; it used to be made and to report GT_MANAGED_CUDA) */
    o.managed = GT_MANAGED_CUDA;
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EINVAL, "gt_zeros: managed = GT_MANAGED_CUDA (one unified-memory buffer) "
                               "needs device = GT_CUDA");
    double cell[1];
    int64_t one[3] = {1, 1, 1};
    ck_assert_ptr_null(gt_wrap(cell, GT_FLOAT64, "IJK", one, NULL, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap: managed = GT_MANAGED_CUDA");
    o.managed = GT_MANAGED_RUNTIME;
    o.device = GT_CUDA;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EDEVICE, "built without CUDA");

    int64_t huge[3] = {INT64_MAX / 4, 1 << 20, 1 << 20};
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", huge, NULL));
    ck_assert_error(GT_ENOMEM, "needs more than 2^60 bytes");
    int64_t big[3] = {(int64_t)1 << 40, (int64_t)1 << 17, 1};
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJK", big, NULL));
    ck_assert_int_eq(gt_last_error_code(), GT_ENOMEM);
}
END_TEST

/* halo and aligned_index follow the storage's axes: an entry past its last axis (K's halo
 * put in halo[2] for an "IK" storage, by name) was dropped without a word, leaving K
 * without halo; it is refused, by gt_empty and gt_wrap alike, and zero rows stay fine */
START_TEST(opts_past_last_axis)
{
    static double buf[64];
    int64_t shape[3] = {4, 6, 1};
    gt_storage_opts o = {0};
    o.halo[2][0] = o.halo[2][1] = 1;
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "IK", shape, &o));
    ck_assert_error(GT_EINVAL, "gt_zeros: halo[2] is [1,1], but axes \"IK\" have 2 entries");
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IK", shape, NULL, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap: halo[2] is [1,1]");
    memset(&o, 0, sizeof o);
    o.halo[1][1] = 2;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "K", shape, &o));
    ck_assert_error(GT_EINVAL, "gt_empty: halo[1] is [0,2], but axes \"K\" have 1 entries");
    memset(&o, 0, sizeof o);
    o.has_aligned_index = 1;
    o.aligned_index[2] = 3;
    ck_assert_ptr_null(gt_empty(GT_FLOAT64, "IJ", shape, &o));
    ck_assert_error(GT_EINVAL, "gt_empty: aligned_index[2] is 3, but axes \"IJ\" have 2");
    o.has_aligned_index = 0;   /* not used then: not looked at */
    gt_storage *s = gt_empty(GT_FLOAT64, "IJ", shape, &o);
    ck_assert_ptr_nonnull(s);
    gt_release(s);
    memset(&o, 0, sizeof o);
    o.halo[0][0] = o.halo[1][1] = 1;
    s = gt_zeros(GT_FLOAT64, "IK", shape, &o);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(gt_halo(s)[0][0], 1);
    ck_assert_int_eq(gt_halo(s)[1][1], 1);
    gt_release(s);
}
END_TEST

START_TEST(accessors_null)
{
    ck_assert_int_eq((int)gt_dtype_of(NULL), -1);
    ck_assert_error(GT_EINVAL, "gt_dtype_of: storage is NULL");
    ck_assert_ptr_null(gt_axes(NULL));
    ck_assert_error(GT_EINVAL, "gt_axes");
    ck_assert_ptr_null(gt_layout(NULL));
    ck_assert_int_eq(gt_ndim(NULL), -1);
    ck_assert_ptr_null(gt_shape(NULL));
    ck_assert_ptr_null(gt_strides(NULL));
    ck_assert_ptr_null(gt_halo(NULL));
    ck_assert_error(GT_EINVAL, "gt_halo");
    ck_assert_int_eq(gt_set_halo(NULL, NULL), GT_EINVAL);
    ck_assert_ptr_null(gt_host(NULL, GT_READ));
    ck_assert_error(GT_EINVAL, "gt_host: storage is NULL");
    ck_assert_ptr_null(gt_domain_view(NULL));
    ck_assert_error(GT_EINVAL, "gt_domain_view");
    ck_assert_ptr_null(gt_copy(NULL));
    ck_assert_error(GT_EINVAL, "gt_copy");
    gt_retain(NULL);
    gt_release(NULL);
    int64_t shape[1] = {2};
    gt_storage *s = gt_zeros(GT_FLOAT64, "I", shape, NULL);
    ck_assert_ptr_null(gt_host(s, (gt_access)0));
    ck_assert_error(GT_EINVAL, "access 0 is not GT_READ");
    ck_assert_ptr_null(gt_host(s, (gt_access)4));
    ck_assert_int_eq(gt_last_error_code(), GT_EINVAL);
    gt_release(s);
}
END_TEST

START_TEST(set_halo)
{
    int64_t shape[2] = {6, 5};
    gt_storage *s = gt_zeros(GT_FLOAT64, "IJ", shape, NULL);
    int64_t strides[2] = {gt_strides(s)[0], gt_strides(s)[1]};
    const int64_t h[2][2] = {{1, 2}, {0, 5}};
    ck_assert_int_eq(gt_set_halo(s, h), 0);
    ck_assert_int_eq(gt_halo(s)[0][1], 2);
    ck_assert_int_eq(gt_halo(s)[1][1], 5);
    ck_assert_int_eq(gt_strides(s)[0], strides[0]);
    ck_assert_int_eq(gt_strides(s)[1], strides[1]);
    gt_storage *v = gt_domain_view(s);
    ck_assert_int_eq(gt_shape(v)[0], 3);
    ck_assert_int_eq(gt_shape(v)[1], 0);
    const int64_t bad[2][2] = {{4, 3}, {0, 0}};
    ck_assert_int_eq(gt_set_halo(s, bad), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_set_halo: halo along I is [4,3], more than the shape 6");
    ck_assert_int_eq(gt_halo(s)[0][0], 1); /* unchanged */
    const int64_t neg[2][2] = {{0, 0}, {-1, 0}};
    ck_assert_int_eq(gt_set_halo(s, neg), GT_EINVAL);
    ck_assert_int_eq(gt_set_halo(s, NULL), 0); /* no halo */
    ck_assert_int_eq(gt_halo(s)[1][1], 0);
    ck_assert_int_eq(gt_halo(v)[0][0], 0); /* the view's own */
    gt_release(v);
    gt_release(s);
}
END_TEST

/* ---- gt_wrap ------------------------------------------------------------------------------ */

START_TEST(wrap_c_array)
{
    static double a[4][5][6];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++)
            for (int k = 0; k < 6; k++)
                a[i][j][k] = i * 100 + j * 10 + k;
    int64_t shape[3] = {4, 5, 6};
    gt_storage_opts o = {0};
    o.defaults = "C";
    gt_storage *s = gt_wrap(a, GT_FLOAT64, "IJK", shape, NULL, &o);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_eq(gt_host(s, GT_READ), a); /* no copy */
    ck_assert_int_eq(gt_strides(s)[0], 30);
    ck_assert_int_eq(gt_strides(s)[2], 1);
    ck_assert_str_eq(gt_layout(s), "IJK");
    /* explicit strides, Fortran view of the same memory: axes KJI */
    int64_t fshape[3] = {6, 5, 4}, fstrides[3] = {1, 6, 30};
    gt_storage *f = gt_wrap(a, GT_FLOAT64, "KJI", fshape, fstrides, NULL);
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(gt_layout(f), "IJK");
    double *p = gt_host(f, GT_READ);
    ck_assert_double_eq(p[3 * 1 + 2 * 6 + 1 * 30], 123);
    gt_storage *c = gt_copy(f); /* a fresh dense buffer with the same layout */
    ck_assert_str_eq(gt_layout(c), "IJK");
    ck_assert_ptr_ne(gt_host(c, GT_READ), a);
    ck_assert_double_eq(((double *)gt_host(c, GT_READ))[3 + 2 * 6 + 30], 123);
    gt_release(c);
    gt_release(f);
    gt_release(s); /* never frees a (a static array: freeing it would crash) */
    ck_assert_double_eq(a[3][4][5], 345);
}
END_TEST

START_TEST(wrap_padded_and_halo)
{
    static float buf[8 * 10];
    int64_t shape[2] = {7, 8}, strides[2] = {10, 1}; /* rows padded to 10 */
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = 1;
    o.halo[1][0] = 2;
    gt_storage *s = gt_wrap(buf, GT_FLOAT32, "IJ", shape, strides, &o);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(gt_halo(s)[1][0], 2);
    gt_storage *v = gt_domain_view(s);
    ck_assert_ptr_eq(gt_host(v, GT_READ), buf + 10 + 2);
    ck_assert_int_eq(gt_shape(v)[0], 5);
    ck_assert_int_eq(gt_shape(v)[1], 6);
    gt_release(s);
    gt_release(v);
}
END_TEST

START_TEST(wrap_errors)
{
    static double buf[64];
    int64_t shape[2] = {4, 4};
    int64_t overlap[2] = {3, 1}, zero[2] = {0, 1}, neg[2] = {-4, 1}, fine[2] = {1, 4};
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJ", shape, overlap, NULL));
    ck_assert_error(GT_EINVAL, "gt_wrap: strides overlap: stride 3 along I");
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJ", shape, zero, NULL));
    ck_assert_error(GT_EINVAL, "stride along I is 0 but the shape is 4");
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJ", shape, neg, NULL));
    ck_assert_error(GT_EINVAL, "stride along I is -4; negative strides are not supported");
    ck_assert_ptr_null(gt_wrap(NULL, GT_FLOAT64, "IJ", shape, fine, NULL));
    ck_assert_error(GT_EINVAL, "data is NULL");
    ck_assert_ptr_null(gt_wrap((char *)buf + 4, GT_FLOAT64, "IJ", shape, fine, NULL));
    ck_assert_error(GT_EINVAL, "is not aligned to the 8 bytes of a float64");
    int64_t huge[2] = {INT64_MAX / 2, 2}, hs[2] = {1, INT64_MAX / 2};
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJ", huge, hs, NULL));
    ck_assert_error(GT_EINVAL, "span more than 2^60");
    /* alignment claims are checked */
    gt_storage_opts o = {0};
    o.alignment = 8;
    double *al = (double *)(((uintptr_t)buf + 63) & ~(uintptr_t)63);
    gt_storage *s = gt_wrap(al, GT_FLOAT64, "IJ", shape, fine, &o);
    ck_assert_ptr_nonnull(s);
    gt_release(s);
    ck_assert_ptr_null(gt_wrap(al + 1, GT_FLOAT64, "IJ", shape, fine, &o));
    ck_assert_error(GT_EINVAL, "not on a boundary of 8 elements");
    /* a zero stride is fine along an axis of extent 1; NULL data for no elements */
    int64_t one[2] = {1, 4}, z2[2] = {0, 1};
    s = gt_wrap(buf, GT_FLOAT64, "IJ", one, z2, NULL);
    ck_assert_ptr_nonnull(s);
    gt_release(s);
    int64_t none[2] = {0, 4};
    s = gt_wrap(NULL, GT_FLOAT64, "IJ", none, NULL, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_null(gt_host(s, GT_READ));
    gt_storage *c = gt_copy(s);
    ck_assert_ptr_nonnull(c);
    gt_release(c);
    gt_release(s);
    /* parameters are validated as for gt_empty */
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IQ", shape, fine, NULL));
    ck_assert_int_eq(gt_last_error_code(), GT_EINVAL);
    o.alignment = 0;
    o.device = GT_CUDA;
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJ", shape, fine, &o));
    ck_assert_error(GT_EDEVICE, "gt_wrap");
}
END_TEST

/* A huge stride along an axis of extent 1 addresses nothing, but a halo there moved the
   origin of gt_domain_view and gt__bind by it: the products overflowed and the view's host
   pointer landed before the array. Such strides and halos are refused. */
START_TEST(wrap_stride_on_extent_one)
{
    static double buf[64];
    int64_t shape[2] = {1, 4}, huge[2] = {INT64_MAX / 2, 1}, big[2] = {(int64_t)1 << 59, 1};
    gt_storage_opts o = {0};
    o.halo[0][0] = 1;
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJ", shape, huge, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap: stride along I is 4611686018427387903, more than 2^60");
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJ", shape, big, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap: the lower halo along I (1, stride 576460752303423488) "
                               "puts the interior's first point");
    /* without the halo the storage is fine; gt_set_halo then refuses it */
    gt_storage *s = gt_wrap(buf, GT_FLOAT64, "IJ", shape, big, NULL);
    ck_assert_ptr_nonnull(s);
    const int64_t h[2][2] = {{1, 0}, {0, 0}};
    ck_assert_int_eq(gt_set_halo(s, h), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_set_halo: the lower halo along I");
    ck_assert_int_eq(gt_halo(s)[0][0], 0);
    /* a halo that keeps the origin inside the array (or one past an empty interior) is fine */
    int64_t fine[2] = {4, 1}, s44[2] = {4, 4};
    gt_storage *w = gt_wrap(buf, GT_FLOAT64, "IJ", s44, fine, NULL);
    ck_assert_ptr_nonnull(w);
    const int64_t all[2][2] = {{4, 0}, {0, 0}};
    ck_assert_int_eq(gt_set_halo(w, all), 0);
    gt_storage *v = gt_domain_view(w);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(gt_shape(v)[0], 0);
    gt_release(v);
    /* one past the end along both axes (NumPy's a[4:, 4:]): 20 elements into 16, refused
       before */
    const int64_t corner[2][2] = {{4, 0}, {4, 0}};
    ck_assert_msg(gt_set_halo(w, corner) == 0, "%s", gt_last_error());
    v = gt_domain_view(w);
    ck_assert_ptr_nonnull(v);
    ck_assert(gt_shape(v)[0] == 0 && gt_shape(v)[1] == 0);
    gt_release(v);
    gt_storage *c = gt_wrap(buf, GT_FLOAT64, "IJ", s44, fine, &(gt_storage_opts){
                                .halo = {{4, 0}, {4, 0}}});
    ck_assert_msg(c != NULL, "%s", gt_last_error());
    gt_release(c);
    gt_release(w);
    gt_release(s);
}
END_TEST

/* Strides whose span reaches 2^60 elements of 8 bytes were accepted: the wrapped buffer's
   size in bytes, (span + 1) * 8, overflowed int64_t. The span is bounded in bytes. */
START_TEST(wrap_span_in_bytes)
{
    static double buf[8];
    int64_t two[1] = {2}, far[1] = {(int64_t)1 << 60};
    int64_t many[1] = {((int64_t)1 << 60) + 1}, dense[1] = {1};
    int64_t most[1] = {((int64_t)1 << 57) + 1};
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "I", two, far, NULL));
    ck_assert_error(GT_EINVAL, "gt_wrap: strides and shape span more than 2^60 bytes");
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "I", many, dense, NULL));
    ck_assert_error(GT_EINVAL, "span more than 2^60 bytes");
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "I", most, dense, NULL));
    ck_assert_error(GT_EINVAL, "span more than 2^60 bytes");
    /* 2^57 doubles are 2^60 bytes: the largest span (the array itself never touched) */
    int64_t fits[1] = {(int64_t)1 << 57};
    gt_storage *s = gt_wrap(buf, GT_FLOAT64, "I", fits, dense, NULL);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    gt_release(s);
}
END_TEST

/* An alignment claimed for an element beyond axes of extent 1 with strides near 2^60: the
   element's byte offset, computed in int64_t, overflowed (UBSan, make check SANITIZE=1). */
START_TEST(wrap_alignment_claim_far)
{
    static double buf[8];
    int64_t shape[3] = {1, 1, 1}, far[3] = {(int64_t)1 << 60, (int64_t)1 << 60, 1};
    gt_storage_opts o = {0};
    o.alignment = 2;
    o.has_aligned_index = 1;
    o.aligned_index[0] = o.aligned_index[1] = 1;
    double *al = (double *)(((uintptr_t)buf + 15) & ~(uintptr_t)15);
    gt_storage *s = gt_wrap(al, GT_FLOAT64, "IJK", shape, far, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    gt_release(s);
    ck_assert_ptr_null(gt_wrap(al + 1, GT_FLOAT64, "IJK", shape, far, &o));
    ck_assert_error(GT_EINVAL, "not on a boundary of 2 elements");
}
END_TEST

/* gt_zeros with an alignment and an extent near INT64_MAX: GT_ENOMEM, and no signed
   overflow on the way (rounding the row up to the alignment overflowed; UBSan under
   make check SANITIZE=1 reports it). */
START_TEST(huge_aligned_extent)
{
    gt_storage_opts o = {0};
    o.alignment = 64;
    for (int64_t back = 0; back < 70; back += 7) {
        int64_t shape[1] = {INT64_MAX - back};
        ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "I", shape, &o));
        ck_assert_error(GT_ENOMEM, "needs more than 2^60 bytes");
        /* the message gives the storage's own axes and sizes, no others */
        char want[64];
        snprintf(want, sizeof want, "storage I float64 (%lld) needs", (long long)shape[0]);
        ck_assert_error(GT_ENOMEM, want);
        int64_t shape2[2] = {2, INT64_MAX - back};
        ck_assert_ptr_null(gt_zeros(GT_FLOAT32, "IJ", shape2, &o));
        ck_assert_error(GT_ENOMEM, "needs more than 2^60 bytes");
        snprintf(want, sizeof want, "storage IJ float32 (2,%lld) needs", (long long)shape2[1]);
        ck_assert_error(GT_ENOMEM, want);
    }
}
END_TEST

/* ---- views and references ----------------------------------------------------------------- */

START_TEST(domain_view)
{
    int64_t shape[3] = {6, 7, 5};
    gt_storage_opts o = {0};
    o.halo[0][0] = 1, o.halo[0][1] = 2;
    o.halo[1][0] = o.halo[1][1] = 1;
    o.alignment = 4;
    gt_storage *s = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    gt_storage *v = gt_domain_view(s);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(gt_shape(v)[0], 3);
    ck_assert_int_eq(gt_shape(v)[1], 5);
    ck_assert_int_eq(gt_shape(v)[2], 5);
    ck_assert_int_eq(gt_halo(v)[0][0], 0);
    ck_assert_int_eq(gt_halo(v)[1][1], 0);
    ck_assert_int_eq(gt_strides(v)[0], gt_strides(s)[0]);
    ck_assert_str_eq(gt_layout(v), gt_layout(s));
    double *ps = gt_host(s, GT_READWRITE), *pv = gt_host(v, GT_READWRITE);
    int64_t idx[3] = {1, 1, 0};
    ck_assert_ptr_eq(pv, ps + offset_of(s, idx));
    pv[0] = 42; /* visible through the parent */
    ck_assert_double_eq(ps[offset_of(s, idx)], 42);
    ck_assert_int_eq(gt__refcount(s), 1);
    ck_assert_int_eq(gt__buffer_refcount(s), 2);
    gt_storage *vv = gt_domain_view(v); /* a view of a view: the same region */
    ck_assert_ptr_eq(gt_host(vv, GT_READ), pv);
    gt_release(s); /* the view keeps the buffer */
    ck_assert_int_eq(gt__buffer_refcount(v), 2);
    pv[1] = 43;
    ck_assert_double_eq(((double *)gt_host(vv, GT_READ))[1], 43);
    gt_storage *c = gt_copy(v); /* copy of a view: its own shape, no halo */
    ck_assert_int_eq(gt_shape(c)[0], 3);
    ck_assert_double_eq(((double *)gt_host(c, GT_READ))[0], 42);
    ck_assert_uint_eq((uintptr_t)gt_host(c, GT_READ) % 64, 0);
    gt_release(c);
    gt_release(vv);
    gt_release(v);
}
END_TEST

START_TEST(refcounts)
{
    int64_t shape[1] = {10};
    gt_storage *s = gt_ones(GT_INT32, "J", shape, NULL);
    gt_retain(s);
    gt_retain(s);
    ck_assert_int_eq(gt__refcount(s), 3);
    gt_release(s);
    gt_release(s);
    ck_assert_int_eq(gt__refcount(s), 1);
    ck_assert_int_eq(((int32_t *)gt_host(s, GT_READ))[9], 1);
    gt_release(s); /* freed here: ASan and valgrind see any leak or double free */
}
END_TEST

/* ---- the thread-local error state ------------------------------------------------------------ */

static void *other_thread(void *arg)
{
    (void)arg;
    int64_t shape[1] = {-5};
    if (gt_last_error()[0] != 0 || gt_last_error_code() != 0)
        return (void *)1; /* a new thread starts clean */
    if (gt_empty(GT_FLOAT64, "K", shape, NULL) != NULL)
        return (void *)2;
    if (!strstr(gt_last_error(), "shape along K is -5"))
        return (void *)3;
    return NULL;
}

START_TEST(error_thread_local)
{
    ck_assert_ptr_null(gt_empty((gt_dtype)8, "IJK", NULL, NULL));
    ck_assert_error(GT_EINVAL, "invalid dtype 8");
    pthread_t t;
    void *rc = (void *)9;
    ck_assert_int_eq(pthread_create(&t, NULL, other_thread, NULL), 0);
    pthread_join(t, &rc);
    ck_assert_ptr_null(rc);
    ck_assert_error(GT_EINVAL, "invalid dtype 8"); /* untouched by the other thread */
    int64_t shape[1] = {3};
    gt_storage *s = gt_zeros(GT_FLOAT64, "K", shape, NULL); /* success keeps the message */
    ck_assert_error(GT_EINVAL, "invalid dtype 8");
    gt_release(s);
}
END_TEST

Suite *suite_rt_storage(void); /* collected by tests/unit/main.c */

Suite *suite_rt_storage(void)
{
    Suite *s = suite_create("rt_storage");
    TCase *t = tcase_create("sweep");
    tcase_add_loop_test(t, create_sweep, 0, N_AXES * N_PRESETS);
    suite_add_tcase(s, t);
    t = tcase_create("storage");
    tcase_add_test(t, presets_table);
    tcase_add_test(t, cuda_rows);
    tcase_add_test(t, explicit_layout);
    tcase_add_test(t, aligned_index_explicit);
    tcase_add_loop_test(t, fill_values, 0, 4);
    tcase_add_test(t, full_conversions);
    tcase_add_test(t, empty_shapes);
    tcase_add_test(t, dtype_info);
    tcase_add_test(t, create_errors);
    tcase_add_test(t, opts_past_last_axis);
    tcase_add_test(t, accessors_null);
    tcase_add_test(t, set_halo);
    tcase_add_test(t, wrap_c_array);
    tcase_add_test(t, wrap_padded_and_halo);
    tcase_add_test(t, wrap_errors);
    tcase_add_test(t, wrap_stride_on_extent_one);
    tcase_add_test(t, wrap_span_in_bytes);
    tcase_add_test(t, wrap_alignment_claim_far);
    tcase_add_test(t, huge_aligned_extent);
    tcase_add_test(t, domain_view);
    tcase_add_test(t, refcounts);
    tcase_add_test(t, error_thread_local);
    suite_add_tcase(s, t);
    return s;
}

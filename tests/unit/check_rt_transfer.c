/* check_rt_transfer.c: gt_copy_into between a host side and a device side of different
 * layouts, streamed through two pinned staging buffers on two streams (transfer.c), on the
 * fake device of fake_device.h, whose copies run late (when waited for, or at random later
 * points) and whose staging buffers start as 0xff bytes: a missing wait, or a staging buffer
 * refilled before its copy ran, gives wrong numbers here.
 *
 * The sweep draws random cases: 1 to 3 axes in any order on either side, layouts (presets,
 * permutations, wrapped buffers with padded or strided rows), interiors of 0, 1 and more
 * points, halos that differ between the sides, the four dtypes, staging buffers of 64 bytes
 * to the default, both directions, destinations that are views; each element of the
 * destination, halo included, is compared with a value computed from its coordinates
 * (copied elements) or with what it held before (the rest). Then: the chunking (two buffers,
 * two streams, both used, many chunks, kept between transfers), the sync states around a
 * transfer, device failures at each step, and the paths that stay on the host. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_device.h"
#include "rt.h"

/* ---- values by coordinates --------------------------------------------------------------- */

/* The value a storage filled with seed holds at interior coordinates c (by axis name I, J,
   K; negative in the lower halo): exact in every dtype but bool, which keeps its parity. */
static double value_at(int seed, const int64_t c[3])
{
    int64_t v = ((c[0] + 5) * 7919 + (c[1] + 5) * 104729 + (c[2] + 5) * 31 + seed * 977) %
                1000003;
    return (double)v;
}

static void put(gt_dtype t, void *base, int64_t i, double v)
{
    switch (t) {
    case GT_FLOAT64: ((double *)base)[i] = v; break;
    case GT_FLOAT32: ((float *)base)[i] = (float)v; break;
    case GT_INT32: ((int32_t *)base)[i] = (int32_t)v; break;
    case GT_BOOL: ((unsigned char *)base)[i] = (unsigned char)((int64_t)v % 2); break;
    }
}

static double get(gt_dtype t, const void *base, int64_t i)
{
    switch (t) {
    case GT_FLOAT64: return ((const double *)base)[i];
    case GT_FLOAT32: return ((const float *)base)[i];
    case GT_INT32: return ((const int32_t *)base)[i];
    case GT_BOOL: return ((const unsigned char *)base)[i];
    }
    return -1;
}

static double expect(gt_dtype t, double v)
{
    return t == GT_BOOL ? (double)((int64_t)v % 2) : v;
}

/* Calls f for every element of s (halo included): its element offset and coordinates. */
#define FOR_ELEMENTS(s, off, c, body)                                                         \
    do {                                                                                     \
        const int64_t *sh_ = gt_shape(s), *st_ = gt_strides(s);                              \
        const int64_t(*h_)[2] = gt_halo(s);                                                  \
        int nd_ = gt_ndim(s);                                                                \
        const char *ax_ = gt_axes(s);                                                        \
        int64_t n_[3] = {1, 1, 1};                                                           \
        for (int d_ = 0; d_ < nd_; d_++)                                                     \
            n_[d_] = sh_[d_];                                                                \
        for (int64_t a_ = 0; a_ < n_[0]; a_++)                                               \
            for (int64_t b_ = 0; b_ < n_[1]; b_++)                                           \
                for (int64_t e_ = 0; e_ < n_[2]; e_++) {                                     \
                    int64_t ix_[3] = {a_, b_, e_}, off = 0, c[3] = {0, 0, 0};                \
                    for (int d_ = 0; d_ < nd_; d_++) {                                       \
                        off += ix_[d_] * st_[d_];                                            \
                        c[ax_[d_] - 'I'] = ix_[d_] - h_[d_][0];                              \
                    }                                                                        \
                    body;                                                                    \
                }                                                                            \
    } while (0)

static void fill(const gt_storage *s, void *base, int seed)
{
    FOR_ELEMENTS(s, off, c, put(gt_dtype_of(s), base, off, value_at(seed, c)));
}

/* Checks every element of s at base: value_at(src_seed) inside the box [lo, hi) (by axis
   name, interior coordinates), value_at(old_seed) outside. Returns the number of wrong
   elements, printing the first. */
static int check_box(const gt_storage *s, const void *base, const int64_t lo[3],
                     const int64_t hi[3], int src_seed, int old_seed, const char *what)
{
    int bad = 0;
    gt_dtype t = gt_dtype_of(s);
    FOR_ELEMENTS(s, off, c, {
        int in = 1;
        for (int a = 0; a < 3; a++)
            in &= c[a] >= lo[a] && c[a] < hi[a];
        double want = expect(t, value_at(in ? src_seed : old_seed, c));
        double got = get(t, base, off);
        if (got != want && bad++ == 0)
            fprintf(stderr, "%s: (%lld,%lld,%lld) %s: %g, expected %g\n", what,
                    (long long)c[0], (long long)c[1], (long long)c[2], in ? "copied" : "kept",
                    got, want);
    });
    return bad;
}

/* ---- storages ---------------------------------------------------------------------------- */

static uint64_t rng;

static uint64_t rnd(uint64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
}

static const gt_dtype dtypes[4] = {GT_FLOAT64, GT_FLOAT32, GT_INT32, GT_BOOL};

/* One side of a case: axes, layout (NULL: the preset), interior by axis name, halo by axis
   name, device, wrapped with padding. */
typedef struct {
    char axes[4];
    char layout[4];
    const char *preset;
    int64_t halo[3][2]; /* by axis name */
    int device;
    int wrap;           /* 0: gt_empty; 1: padded rows; 2: innermost stride 2 */
} side;

typedef struct {
    gt_storage *s;
    void *data; /* a wrapped buffer, freed after the storage */
} made;

static void random_perm(const char *set, int n, char out[4])
{
    char c[4];
    memcpy(c, set, 4);
    for (int k = n - 1; k > 0; k--) {
        int j = (int)rnd((uint64_t)k + 1);
        char t = c[k];
        c[k] = c[j];
        c[j] = t;
    }
    memcpy(out, c, (size_t)n);
    out[n] = 0;
}

static made make(const side *sd, gt_dtype t, const int64_t interior[3])
{
    int nd = (int)strlen(sd->axes);
    int64_t shape[3];
    gt_storage_opts o = {0};
    for (int d = 0; d < nd; d++) {
        int a = sd->axes[d] - 'I';
        o.halo[d][0] = sd->halo[a][0];
        o.halo[d][1] = sd->halo[a][1];
        shape[d] = sd->halo[a][0] + interior[a] + sd->halo[a][1];
    }
    o.device = sd->device ? GT_CUDA : GT_HOST;
    o.layout = sd->preset ? NULL : sd->layout;
    o.defaults = sd->preset;
    made m = {NULL, NULL};
    if (!sd->wrap) {
        m.s = gt_empty(t, sd->axes, shape, &o);
        ck_assert_msg(m.s != NULL, "%s", gt_last_error());
        return m;
    }
    /* strides by the layout, largest first, each row padded by 3 elements (wrap 1), or every
       other element used along the innermost axis (wrap 2) */
    int64_t strides[3], run = sd->wrap == 2 ? 2 : 1;
    for (int k = nd - 1; k >= 0; k--) {
        int d = (int)(strchr(sd->axes, sd->layout[k]) - sd->axes);
        strides[d] = run;
        run *= shape[d] > 0 ? shape[d] : 1;
        run += sd->wrap == 1 ? 3 : 0;
    }
    m.data = calloc((size_t)run + 8, 8);
    m.s = gt_wrap(m.data, t, sd->axes, shape, strides, &o);
    ck_assert_msg(m.s != NULL, "%s", gt_last_error());
    return m;
}

static void unmake(made m)
{
    gt_release(m.s);
    free(m.data);
}

/* Whether a copy between these storages transposes, worked out independently of copy.c:
   among the axes along which more than one element is copied, the one with the smallest
   stride differs between the two. */
static int transposes(const gt_storage *d, const gt_storage *s, const int64_t lo[3],
                      const int64_t hi[3])
{
    char fd = 0, fs = 0;
    int64_t bd = INT64_MAX, bs = INT64_MAX;
    for (int k = 0; k < gt_ndim(d); k++) {
        char a = gt_axes(d)[k];
        if (hi[a - 'I'] - lo[a - 'I'] <= 1)
            continue;
        int e = (int)(strchr(gt_axes(s), a) - gt_axes(s));
        if (gt_strides(d)[k] < bd)
            bd = gt_strides(d)[k], fd = a;
        if (gt_strides(s)[e] < bs)
            bs = gt_strides(s)[e], fs = a;
    }
    return fd != fs;
}

/* ---- the sweep --------------------------------------------------------------------------- */

static const char *const layout_presets[] = {"C", "F", "cpu", "cuda", NULL};

static void random_side(side *sd, const char *axes_set, int nd, int device)
{
    memset(sd, 0, sizeof *sd);
    random_perm(axes_set, nd, sd->axes);
    random_perm(sd->axes, nd, sd->layout);
    sd->preset = layout_presets[rnd(5)];
    if (sd->preset) { /* the layout the preset gives, for wrapping */
        if (strcmp(sd->preset, "C") == 0) {
            memcpy(sd->layout, sd->axes, 4);
        } else if (strcmp(sd->preset, "F") == 0) {
            for (int d = 0; d < nd; d++)
                sd->layout[d] = sd->axes[nd - 1 - d];
        } else {
            int n = 0;
            for (const char *c = "KJI"; *c; c++)
                if (strchr(sd->axes, *c))
                    sd->layout[n++] = *c;
        }
    }
    for (int a = 0; a < 3; a++)
        for (int h = 0; h < 2; h++)
            sd->halo[a][h] = (int64_t)rnd(3);
    sd->device = device;
    sd->wrap = rnd(4) == 0 ? 1 + (int)rnd(2) : 0;
    if (sd->wrap)
        sd->preset = NULL;
}

static const size_t staging_sizes[] = {64, 100, 256, 1000, 4096, 0};

START_TEST(sweep)
{
    rng = 0x9e3779b97f4a7c15ull * (uint64_t)(_i + 1);
    for (int r = 0; r < 8; r++)
        rnd(2);
    fake.mode = rnd(2) ? FAKE_DEFER : FAKE_RANDOM;
    fake.rng = rng | 1;
    gt__set_staging_bytes(staging_sizes[rnd(6)]);
    int nd = 1 + (int)rnd(3);
    char set[4];
    random_perm("IJK", 3, set);
    set[nd] = 0;
    static const int64_t sizes[] = {0, 1, 2, 3, 5, 9, 17, 33, 40};
    int64_t interior[3] = {1, 1, 1};
    for (int k = 0; k < nd; k++)
        interior[set[k] - 'I'] = rnd(12) == 0 ? 0 : sizes[1 + rnd(8)];
    gt_dtype t = dtypes[rnd(4)];
    int up = (int)rnd(2), view = up && rnd(4) == 0;
    side ds, ss;
    random_side(&ds, set, nd, up);
    random_side(&ss, set, nd, !up);
    if (view)
        ds.wrap = 0, ds.preset = "cuda";
    made dm = make(&ds, t, interior), sm = make(&ss, t, interior);
    gt_storage *dst = view ? gt_domain_view(dm.s) : dm.s, *src = sm.s;

    /* the box: interior and the halo both sides have */
    int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    for (int k = 0; k < nd; k++) {
        int a = set[k] - 'I';
        int64_t dlo = view ? 0 : ds.halo[a][0], dhi = view ? 0 : ds.halo[a][1];
        lo[a] = -(dlo < ss.halo[a][0] ? dlo : ss.halo[a][0]);
        hi[a] = interior[a] + (dhi < ss.halo[a][1] ? dhi : ss.halo[a][1]);
    }
    int empty = 0;
    for (int a = 0; a < 3; a++)
        empty |= hi[a] <= lo[a];
    int streamed = !empty && transposes(dst, src, lo, hi);

    /* the destination's old contents (seed 2) on its newer side, the source's (seed 1) on
       its own; the other side of a device storage holds different values (seed 3) */
    if (up) {
        fill(src, gt_host(src, GT_WRITE), 1);
        int device_newer = (int)rnd(2);
        if (device_newer) {
            fill(dm.s, gt__host_raw(dm.s), 3);
            fill(dm.s, gt_device_ptr(dm.s, GT_WRITE), 2);
        } else {
            fill(dm.s, gt_host(dm.s, GT_WRITE), 2);
        }
    } else {
        fill(dst, gt_host(dst, GT_WRITE), 2);
        fill(src, gt_host(src, GT_WRITE), 3);
        fill(src, gt_device_ptr(src, GT_WRITE), 1);
    }
    int uploads = fake.uploads, downloads = fake.downloads;
    ck_assert_msg(gt_copy_into(dst, src) == 0, "%s", gt_last_error());
    ck_assert_int_eq(fake.lost, 0);
    ck_assert_int_eq(fake.unpinned, 0);
    ck_assert_int_eq(fake.async_copies > 0, streamed);
    char what[200];
    snprintf(what, sizeof what, "case %d: %s %s %s <- %s %s, %s, interior (%lld,%lld,%lld)",
             _i, up ? "up" : "down", gt_axes(dst), gt_layout(dst), gt_axes(src),
             gt_layout(src), gt_dtype_name(t), (long long)interior[0],
             (long long)interior[1], (long long)interior[2]);
    if (up) {
        if (streamed) { /* the destination's device side, read directly */
            ck_assert_int_eq(gt__sync_state_of(dst), GT__DEVICE_DIRTY);
            ck_assert_int_eq(fake.downloads, downloads);
            ck_assert_int_eq(check_box(dm.s, gt__device_raw(dm.s), lo, hi, 1, 2, what), 0);
        }
        ck_assert_int_eq(check_box(dm.s, gt_host(dm.s, GT_READ), lo, hi, 1, 2, what), 0);
    } else {
        ck_assert_int_eq(check_box(dst, gt__host_raw(dst), lo, hi, 1, 2, what), 0);
        if (streamed) { /* the source's device side stays the newer one, not downloaded */
            ck_assert_int_eq(gt__sync_state_of(src), GT__DEVICE_DIRTY);
            ck_assert_int_eq(fake.downloads + fake.uploads, downloads + uploads);
        }
    }
    if (streamed) {
        ck_assert_int_eq(fake.pinned_allocs, 2);
        ck_assert_int_eq(fake.streams_created, 2);
    }
    if (view)
        gt_release(dst);
    unmake(dm);
    unmake(sm);
    gt__transfer_trim();
    ck_assert_int_eq(fake.pinned_live + fake.streams_live + fake.lost, 0);
}
END_TEST

/* ---- chunking ---------------------------------------------------------------------------- */

static gt_storage *cube(gt_dtype t, const char *defaults, int device, const int64_t shape[3])
{
    gt_storage_opts o = {0};
    o.defaults = defaults;
    o.alignment = 1; /* dense rows, also in the "cuda" layout: the chunk counts depend on it */
    o.device = device ? GT_CUDA : GT_HOST;
    gt_storage *s = gt_empty(t, "IJK", shape, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    return s;
}

static const int64_t every[3] = {-99, -99, -99}, none[3] = {99, 99, 99};

/* 40 x 30 x 20 doubles from C order into the cuda layout and back with staging buffers of
   4 KiB (512 doubles): a K plane (1200 doubles) is more than a buffer, so the chunks are
   slabs of 12 J rows of 40 in a plane (the last of a plane 6), 3 per plane, each contiguous
   on the device (one copy); both buffers and both streams used in turn. */
START_TEST(chunked)
{
    const int64_t shape[3] = {40, 30, 20};
    fake.mode = FAKE_DEFER;
    gt__set_staging_bytes(4096);
    gt_storage *h = cube(GT_FLOAT64, "C", 0, shape), *d = cube(GT_FLOAT64, "cuda", 1, shape);
    fill(h, gt_host(h, GT_WRITE), 1);
    ck_assert_int_eq(gt_copy_into(d, h), 0);
    int chunks = 20 * 3;
    ck_assert_int_eq(fake.pinned_allocs, 2);
    ck_assert_int_eq(fake.streams_created, 2);
    ck_assert_int_eq(fake.async_copies, chunks); /* contiguous on the device: one copy each */
    ck_assert_int_eq(fake.copies_on[0], (chunks + 1) / 2);
    ck_assert_int_eq(fake.copies_on[1], chunks / 2);
    ck_assert_int_eq(fake.lost + fake.unpinned, 0);
    ck_assert_int_eq(check_box(d, gt__device_raw(d), every, none, 1, 0, "up"), 0);
    /* and back, into another C-order storage: the same two buffers, not allocated again */
    gt_storage *back = cube(GT_FLOAT64, "C", 0, shape);
    fill(back, gt_host(back, GT_WRITE), 2);
    ck_assert_int_eq(gt_copy_into(back, d), 0);
    ck_assert_int_eq(fake.async_copies, 2 * chunks);
    ck_assert_int_eq(fake.pinned_allocs, 2);
    ck_assert_int_eq(fake.streams_created, 2);
    ck_assert_int_eq(check_box(back, gt__host_raw(back), every, none, 1, 0, "down"), 0);
    ck_assert_int_eq(fake.pinned_live, 2); /* kept for the next transfer */
    gt__transfer_trim();
    ck_assert_int_eq(fake.pinned_live + fake.streams_live + fake.lost, 0);
    /* the default staging (4 MiB): one chunk */
    gt__set_staging_bytes(0);
    int copies = fake.async_copies;
    gt_device_ptr(d, GT_WRITE);
    ck_assert_int_eq(gt_copy_into(h, d), 0);
    ck_assert_int_eq(fake.async_copies, copies + 1);
    gt_release(back);
    gt_release(h);
    gt_release(d);
}
END_TEST

/* Chunks of whole planes (a plane fits a buffer), and a destination with more halo than the
   source: the chunks are not contiguous on the device, one 2-D copy per plane. */
START_TEST(chunked_planes_with_halo)
{
    const int64_t shape[3] = {10, 12, 9}, inner[3] = {6, 8, 9};
    fake.mode = FAKE_DEFER;
    gt__set_staging_bytes(3 * 8 * 6 * 8); /* 3 planes of 8 x 6 doubles */
    gt_storage_opts o = {0};
    o.defaults = "cuda";
    o.device = GT_CUDA;
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 2;
    gt_storage *d = gt_empty(GT_FLOAT64, "IJK", shape, &o);
    gt_storage *h = cube(GT_FLOAT64, "C", 0, inner);
    fill(d, gt_host(d, GT_WRITE), 2); /* host-dirty: uploaded first, the halo kept */
    fill(h, gt_host(h, GT_WRITE), 1);
    ck_assert_int_eq(gt_copy_into(d, h), 0);
    ck_assert_int_eq(fake.uploads, 1);
    ck_assert_int_eq(fake.async_copies, 9); /* 3 chunks of 3 planes: 3 2-D copies each */
    ck_assert_int_eq(fake.async_rows, 9 * 8);
    const int64_t lo[3] = {0, 0, 0}, hi[3] = {6, 8, 9};
    ck_assert_int_eq(check_box(d, gt__device_raw(d), lo, hi, 1, 2, "halo"), 0);
    gt_release(d);
    gt_release(h);
}
END_TEST

/* ---- sync states ------------------------------------------------------------------------- */

START_TEST(states)
{
    const int64_t shape[3] = {7, 6, 5};
    fake.mode = FAKE_RANDOM;
    gt_storage *h = cube(GT_FLOAT32, "C", 0, shape), *d = cube(GT_FLOAT32, "cuda", 1, shape);
    fill(h, gt_host(h, GT_WRITE), 1);
    /* host-dirty destination covered whole: not uploaded first */
    gt_host(d, GT_WRITE);
    ck_assert_int_eq(gt_copy_into(d, h), 0);
    ck_assert_int_eq(fake.uploads, 0);
    ck_assert_int_eq(gt__sync_state_of(d), GT__DEVICE_DIRTY);
    /* device to host when the device is newer; the source stays device-dirty */
    gt_storage *h2 = cube(GT_FLOAT32, "C", 0, shape);
    ck_assert_int_eq(gt_copy_into(h2, d), 0);
    ck_assert_int_eq(fake.downloads, 0);
    ck_assert_int_eq(gt__sync_state_of(d), GT__DEVICE_DIRTY);
    ck_assert_int_eq(check_box(h2, gt__host_raw(h2), every, none, 1, 0, "down"), 0);
    /* a clean source is read on the host: nothing streamed */
    ck_assert_int_eq(gt_sync(d), 0);
    int copies = fake.async_copies;
    ck_assert_int_eq(gt_copy_into(h2, d), 0);
    ck_assert_int_eq(fake.async_copies, copies);
    /* device to device storage: the source's host side brought up to date (downloaded),
       then streamed into the destination's device side */
    gt_storage *d2 = cube(GT_FLOAT32, "C", 1, shape);
    fill(d2, gt_device_ptr(d2, GT_WRITE), 4);
    int downloads = fake.downloads;
    ck_assert_int_eq(gt_copy_into(d, d2), 0);
    ck_assert_int_eq(fake.downloads, downloads + 1);
    ck_assert_int_eq(gt__sync_state_of(d2), GT__CLEAN);
    ck_assert_int_eq(gt__sync_state_of(d), GT__DEVICE_DIRTY);
    ck_assert_int_eq(check_box(d, gt__device_raw(d), every, none, 4, 0, "d2d"), 0);
    ck_assert_int_eq(fake.lost + fake.unpinned, 0);
    gt_release(h);
    gt_release(h2);
    gt_release(d);
    gt_release(d2);
}
END_TEST

/* ---- paths that stay on the host --------------------------------------------------------- */

START_TEST(host_paths)
{
    const int64_t shape[3] = {7, 6, 5};
    gt_storage *h = cube(GT_FLOAT64, "C", 0, shape), *dc = cube(GT_FLOAT64, "C", 1, shape);
    fill(h, gt_host(h, GT_WRITE), 1);
    /* same layout: copied on the host, host-dirty (uploaded whole when needed) */
    ck_assert_int_eq(gt_copy_into(dc, h), 0);
    ck_assert_int_eq(gt__sync_state_of(dc), GT__HOST_DIRTY);
    /* user-managed and unified memory: the host side, as before */
    gt_storage_opts o = {0};
    o.defaults = "cuda";
    o.device = GT_CUDA;
    for (int m = 1; m < 3; m++) {
        o.managed = (gt_managed)m;
        gt_storage *d = gt_empty(GT_FLOAT64, "IJK", shape, &o);
        ck_assert_int_eq(gt_copy_into(d, h), 0);
        ck_assert_int_eq(check_box(d, gt__host_raw(d), every, none, 1, 0, "managed"), 0);
        gt_release(d);
    }
    ck_assert_int_eq(fake.async_copies + fake.pinned_allocs, 0);
    /* a device layer without streams (the diff tests' fake): on the host */
    gt__device_ops plain = fake_ops;
    plain.copy_async = NULL;
    gt__set_device_ops(&plain);
    o.managed = GT_MANAGED_RUNTIME;
    gt_storage *d = gt_empty(GT_FLOAT64, "IJK", shape, &o);
    ck_assert_int_eq(gt_copy_into(d, h), 0);
    ck_assert_int_eq(gt__sync_state_of(d), GT__HOST_DIRTY);
    ck_assert_int_eq(fake.async_copies + fake.pinned_allocs, 0);
    gt_release(d);
    gt_release(dc);
    gt_release(h);
}
END_TEST

/* ---- device failures --------------------------------------------------------------------- */

START_TEST(failures)
{
    const int64_t shape[3] = {16, 12, 10};
    fake.mode = FAKE_DEFER;
    gt__set_staging_bytes(1024);
    gt_storage *h = cube(GT_INT32, "C", 0, shape), *d = cube(GT_INT32, "cuda", 1, shape);
    fill(h, gt_host(h, GT_WRITE), 1);
    /* no pinned memory: nothing changed */
    fake.fail_pinned = 1;
    ck_assert_int_eq(gt_copy_into(d, h), GT_EDEVICE);
    ck_assert_msg(strstr(gt_last_error(), "gt_copy_into: allocating a pinned staging buffer of "
                                          "1024 bytes failed (fake: out of device memory)"),
                  "%s", gt_last_error());
    ck_assert_int_eq(gt__sync_state_of(d), GT__CLEAN);
    ck_assert_int_eq(fake.pinned_live + fake.streams_live, 0);
    /* the second stream cannot be created: the first and both buffers freed */
    fake.fail_stream = 2;
    ck_assert_int_eq(gt_copy_into(d, h), GT_EDEVICE);
    ck_assert_msg(strstr(gt_last_error(), "gt_copy_into: creating a stream failed (fake: out "
                                          "of device memory)"), "%s", gt_last_error());
    ck_assert_int_eq(fake.streams_created, 1);
    ck_assert_int_eq(fake.pinned_allocs, 2);
    ck_assert_int_eq(gt__sync_state_of(d), GT__CLEAN);
    ck_assert_int_eq(fake.pinned_live + fake.streams_live, 0);
    /* the 5th copy fails: the error names it, what was queued is waited for, the buffers and
       streams freed; the device side, written in part, is not marked newer: the host side
       (value 7, uploaded before) is, and it is what the device side gets back */
    fill(d, gt_host(d, GT_WRITE), 7);
    ck_assert_int_eq(gt_sync(d), 0);
    ck_assert_int_eq(gt__sync_state_of(d), GT__CLEAN);
    fake.fail_async = 5;
    ck_assert_int_eq(gt_copy_into(d, h), GT_EDEVICE);
    ck_assert_msg(strstr(gt_last_error(), "gt_copy_into: dst IJK int32 (16,12,10): queueing the "
                                          "copy of chunk 5 of 10 (host to device) failed (fake: "
                                          "illegal address)"), "%s", gt_last_error());
    ck_assert_int_eq(fake.pinned_live + fake.streams_live + fake.lost, 0);
    ck_assert_int_eq(gt__sync_state_of(d), GT__HOST_DIRTY);
    ck_assert_int_eq(check_box(d, gt__host_raw(d), every, none, 7, 0, "host kept"), 0);
    ck_assert_ptr_nonnull(gt_device_ptr(d, GT_READ));
    ck_assert_int_eq(check_box(d, gt__device_raw(d), every, none, 7, 0, "device restored"), 0);
    /* a failed wait */
    fake.fail_wait = 1;
    ck_assert_int_eq(gt_copy_into(d, h), GT_EDEVICE);
    ck_assert_msg(strstr(gt_last_error(), "gt_copy_into: dst IJK int32 (16,12,10): waiting for "
                                          "the copy of chunk 1 of 10 (host to device) failed"),
                  "%s", gt_last_error());
    ck_assert_int_eq(fake.pinned_live + fake.streams_live + fake.lost, 0);
    /* the same downwards */
    gt_device_ptr(d, GT_WRITE);
    fake.fail_async = 2;
    ck_assert_int_eq(gt_copy_into(h, d), GT_EDEVICE);
    ck_assert_msg(strstr(gt_last_error(), "gt_copy_into: src IJK int32 (16,12,10): queueing the "
                                          "copy of chunk 2 of 10 (device to host) failed"),
                  "%s", gt_last_error());
    ck_assert_int_eq(fake.pinned_live + fake.streams_live + fake.lost, 0);
    /* and then it works */
    ck_assert_int_eq(gt_copy_into(d, h), 0);
    ck_assert_int_eq(check_box(d, gt__device_raw(d), every, none, 1, 0, "after"), 0);
    gt_release(h);
    gt_release(d);
}
END_TEST

Suite *suite_rt_transfer(void); /* collected by tests/unit/main.c */

Suite *suite_rt_transfer(void)
{
    Suite *s = suite_create("rt_transfer");
    TCase *t = tcase_create("sweep");
    tcase_add_checked_fixture(t, fake_setup, fake_teardown);
    tcase_add_loop_test(t, sweep, 0, 400);
    tcase_set_timeout(t, 120);
    suite_add_tcase(s, t);
    t = tcase_create("transfer");
    tcase_add_checked_fixture(t, fake_setup, fake_teardown);
    tcase_add_test(t, chunked);
    tcase_add_test(t, chunked_planes_with_halo);
    tcase_add_test(t, states);
    tcase_add_test(t, host_paths);
    tcase_add_test(t, failures);
    tcase_set_timeout(t, 60);
    suite_add_tcase(s, t);
    return s;
}

/* check_rt_wrapdev.c: device-only storages (gt_wrap_device, docs/runtime.md section 2).
 *
 * With the fake device of fake_device.h (device memory is host memory, so a test reads what
 * a "kernel" or a copy left there), plus a device_copy and a release that records every
 * pointer it frees: the validation gt_wrap_device shares with gt_wrap and its own (device
 * layer present, managed mode); that the caller's memory is never freed; the device pointer
 * and views; every refusal of a host-side call with its message, each writing nothing (the
 * caller's bytes and the fake's transfer counters unchanged); gt_copy_into to and from
 * device-only storages (device to device, from and to a GT_CUDA storage's device side with
 * its sync state, from and to host memory) and its refusals; gt__bind refusing and
 * gt__bind_device taking them, with aliasing on the device; gt__keep of a device-only
 * output. Expected values are the test's own patterns (value = f(i, j, k)). */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_device.h"
#include "rt.h"
#include "rt_check.h"

/* ---- the fake device, with device copies and recorded frees ------------------------------ */

static struct {
    int device_copies, frees;
    void *freed[64];
    int fail_dcopy;
} dv;

static void dv_release(void *p)
{
    if (dv.frees < 64)
        dv.freed[dv.frees] = p;
    dv.frees++;
    fake_release(p);
}

static int dv_copy(void *dst, const void *src, size_t n)
{
    if (dv.fail_dcopy) {
        dv.fail_dcopy = 0;
        return 700;
    }
    memmove(dst, src, n);
    dv.device_copies++;
    return 0;
}

static gt__device_ops dv_ops;

static void setup(void)
{
    fake_setup();
    memset(&dv, 0, sizeof dv);
    dv_ops = fake_ops;
    dv_ops.release = dv_release;
    dv_ops.device_copy = dv_copy;
    gt__set_device_ops(&dv_ops);
}

static void teardown(void)
{
    fake_teardown();
}

/* ---- "another library's" device arrays ---------------------------------------------------- */

enum { NI = 6, NJ = 5, NK = 4, N = NI * NJ * NK };

/* A dense KJI float64 array (I contiguous) of NI x NJ x NK with value base + i + 10j + 100k,
   in memory the test owns (as CuPy or PyTorch would: the runtime must never free it). */
static double *array(double base)
{
    double *a = malloc(N * sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++)
                a[i + NI * (j + NJ * k)] = base + i + 10 * j + 100 * k;
    return a;
}

static double at(const double *a, int i, int j, int k)
{
    return a[i + NI * (j + NJ * k)];
}

static const int64_t shape[3] = {NI, NJ, NK};

/* A device-only storage over a with halo 1 along I and J. */
static gt_storage *wrap(double *a)
{
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    gt_storage *s = gt_wrap_device(a, GT_FLOAT64, "IJK", shape, NULL, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    return s;
}

/* ---- creation ------------------------------------------------------------------------------ */

/* The wrap: the device pointer is the caller's (views: moved by the halo), nothing is
   allocated, copied or freed, not even with the last reference, and the caller's bytes stay
   as they were. */
START_TEST(wrap_and_release)
{
    double *a = array(0), *ref = array(0);
    int allocs = fake.allocs;
    gt_storage *s = wrap(a);
    ck_assert_int_eq(gt_is_device_only(s), 1);
    ck_assert_ptr_eq(gt_device_ptr(s, GT_READ), a);
    ck_assert_ptr_eq(gt_device_ptr(s, GT_READWRITE), a);
    ck_assert_int_eq(gt_ndim(s), 3);
    ck_assert_int_eq(gt_strides(s)[1], NI); /* dense in the cpu layout */
    ck_assert_str_eq(gt_layout(s), "KJI");
    gt_storage *v = gt_domain_view(s);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(gt_is_device_only(v), 1);
    ck_assert_ptr_eq(gt_device_ptr(v, GT_READ), a + 1 + NI); /* halo (1,1,0) */
    ck_assert_int_eq(gt_shape(v)[0], NI - 2);
    ck_assert_ptr_null(gt_host(v, GT_READ)); /* still device-only */
    ck_assert_error(GT_EDEVICE, "device-only");
    ck_assert_int_eq(gt_set_device_modified(v), 0); /* the only side: always the newest */
    int64_t halo[3][2] = {{0, 0}, {2, 2}, {0, 0}};
    ck_assert_int_eq(gt_set_halo(s, halo), 0);
    gt_release(s);
    ck_assert_ptr_eq(gt_device_ptr(v, GT_READ), a + 1 + NI); /* v keeps the buffer */
    gt_release(v);
    ck_assert_int_eq(dv.frees, 0);
    ck_assert_int_eq(fake.live, 0);
    ck_assert_int_eq(fake.allocs, allocs);
    ck_assert_int_eq(fake.uploads + fake.downloads + dv.device_copies, 0);
    ck_assert_int_eq(memcmp(a, ref, N * sizeof *a), 0);
    free(a); /* ours to free: the runtime did not */
    free(ref);
    /* opts: GT_CUDA and GT_MANAGED_NONE are accepted too; explicit strides, a 2-D wrap */
    float *f = calloc(64, sizeof *f);
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    o.managed = GT_MANAGED_NONE;
    int64_t sh2[2] = {4, 3}, st2[2] = {1, 8};
    s = gt_wrap_device(f, GT_FLOAT32, "IJ", sh2, st2, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    ck_assert_ptr_eq(gt_device_ptr(s, GT_WRITE), f);
    ck_assert_int_eq(gt_strides(s)[1], 8);
    gt_release(s);
    ck_assert_int_eq(dv.frees, 0);
    free(f);
    ck_assert_int_eq(gt_is_device_only(NULL), GT_EINVAL);
    gt_storage *h = gt_zeros(GT_FLOAT64, "IJK", shape, NULL);
    ck_assert_int_eq(gt_is_device_only(h), 0);
    gt_release(h);
}
END_TEST

/* gt_wrap's checks (strides, overlap, origin, alignment claims, NULL data), then its own:
   the managed mode and a device layer being there. */
START_TEST(wrap_validation)
{
    double *a = array(0);
    gt_storage_opts o = {0};
    int64_t overlap[3] = {1, 3, 30}, negative[3] = {1, -6, 30};
    ck_assert_ptr_null(gt_wrap_device(a, GT_FLOAT64, "IJK", shape, overlap, NULL));
    ck_assert_error(GT_EINVAL, "gt_wrap_device: strides overlap");
    ck_assert_ptr_null(gt_wrap_device(a, GT_FLOAT64, "IJK", shape, negative, NULL));
    ck_assert_error(GT_EINVAL, "gt_wrap_device: stride along J is -6");
    int64_t flat[3] = {1, NI, (int64_t)1 << 40}, one[3] = {NI, NJ, 1};
    o.halo[2][0] = 1;
    ck_assert_ptr_null(gt_wrap_device(a, GT_FLOAT64, "IJK", one, flat, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap_device: the lower halo along K");
    o.halo[2][0] = 0;
    ck_assert_ptr_null(gt_wrap_device(NULL, GT_FLOAT64, "IJK", shape, NULL, NULL));
    ck_assert_error(GT_EINVAL, "gt_wrap_device: data is NULL");
    ck_assert_ptr_null(gt_wrap_device((char *)a + 4, GT_FLOAT64, "IJK", shape, NULL, NULL));
    ck_assert_error(GT_EINVAL, "is not aligned to the 8 bytes of a float64");
    o.alignment = 4; /* element (0,0,0) at a + 1: not on 32 bytes */
    o.has_aligned_index = 1;
    ck_assert_ptr_null(gt_wrap_device(a + 1, GT_FLOAT64, "IJK", shape, NULL, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap_device: the element at aligned_index (0,0,0)");
    o.alignment = 0;
    o.has_aligned_index = 0;
    o.device = (gt_device)7;
    ck_assert_ptr_null(gt_wrap_device(a, GT_FLOAT64, "IJK", shape, NULL, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap_device: invalid device 7");
    o.device = GT_CUDA;
    o.managed = GT_MANAGED_CUDA;
    ck_assert_ptr_null(gt_wrap_device(a, GT_FLOAT64, "IJK", shape, NULL, &o));
    ck_assert_error(GT_EINVAL, "gt_wrap_device: managed = GT_MANAGED_CUDA: unified memory has "
                               "a host side; wrap it with gt_wrap");
    /* an empty storage may wrap NULL; it is still device-only */
    int64_t empty[3] = {0, NJ, NK};
    gt_storage *e = gt_wrap_device(NULL, GT_FLOAT64, "IJK", empty, NULL, NULL);
    ck_assert_msg(e != NULL, "%s", gt_last_error());
    ck_assert_int_eq(gt_is_device_only(e), 1);
    ck_assert_ptr_null(gt_host(e, GT_READ));
    ck_assert_error(GT_EDEVICE, "gt_host: storage IJK float64 (0,5,4) is device-only");
    gt_release(e);
    /* no device layer: the runtime without CUDA */
    gt__set_device_ops(NULL);
    ck_assert_ptr_null(gt_wrap_device(a, GT_FLOAT64, "IJK", shape, NULL, NULL));
    ck_assert_error(GT_EDEVICE, "gt_wrap_device: a device-only storage was requested, but "
                                "libgtrt was built without CUDA");
    gt__set_device_ops(&dv_ops);
    ck_assert_int_eq(dv.frees + fake.allocs, 0);
    free(a);
}
END_TEST

/* Out of memory at each of its two allocations (storage and buffer records): NULL,
   GT_ENOMEM, nothing leaked; then it succeeds after exactly two. */
static long al_calls, al_live, al_fail;

static void *al_alloc(size_t n, void *ctx)
{
    (void)ctx;
    if (al_calls++ == al_fail)
        return NULL;
    void *p = malloc(n);
    al_live += p != NULL;
    return p;
}

static void al_release(void *p, void *ctx)
{
    (void)ctx;
    al_live -= p != NULL;
    free(p);
}

START_TEST(wrap_out_of_memory)
{
    double *a = array(0);
    const gt__allocator al = {al_alloc, al_release, NULL};
    gt__set_allocator(&al);
    for (al_fail = 0; al_fail < 2; al_fail++) {
        al_calls = al_live = 0;
        ck_assert_ptr_null(gt_wrap_device(a, GT_FLOAT64, "IJK", shape, NULL, NULL));
        ck_assert_error(GT_ENOMEM, "gt_wrap_device: out of memory");
        ck_assert_int_eq(al_live, 0);
    }
    al_fail = -1;
    al_calls = al_live = 0;
    gt_storage *s = gt_wrap_device(a, GT_FLOAT64, "IJK", shape, NULL, NULL);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(al_calls, 2);
    gt_release(s);
    ck_assert_int_eq(al_live, 0);
    gt__set_allocator(NULL);
    ck_assert_int_eq(dv.frees, 0);
    free(a);
}
END_TEST

/* ---- the host side refused ------------------------------------------------------------------ */

/* Every call that would touch the host side: GT_EDEVICE naming the function, the storage
   and "device-only"; the caller's bytes unchanged, no transfer, nothing allocated. */
START_TEST(host_side_refused)
{
    double *a = array(0), *ref = array(0);
    gt_storage *s = wrap(a), *v = gt_domain_view(s);
    static const char is[] = "storage IJK float64 (6,5,4) is device-only (gt_wrap_device): "
                             "it has no host side";
    char want[200];
    ck_assert_ptr_null(gt_host(s, GT_READ));
    snprintf(want, sizeof want, "gt_host: %s", is);
    ck_assert_error(GT_EDEVICE, want);
    ck_assert_ptr_null(gt_host(s, GT_WRITE));
    ck_assert_error(GT_EDEVICE, want);
    ck_assert_ptr_null(gt_host(v, GT_READWRITE));
    ck_assert_error(GT_EDEVICE, "gt_host: storage IJK float64 (4,3,4) is device-only");
    ck_assert_int_eq(gt_sync(s), GT_EDEVICE);
    snprintf(want, sizeof want, "gt_sync: %s", is);
    ck_assert_error(GT_EDEVICE, want);
    ck_assert_int_eq(gt_host_to_device(s, 1), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "gt_host_to_device: storage IJK float64 (6,5,4) is device-only");
    ck_assert_int_eq(gt_device_to_host(s, 0), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "gt_device_to_host: storage IJK float64 (6,5,4) is device-only");
    ck_assert_int_eq(gt_set_host_modified(s), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "gt_set_host_modified: storage IJK float64 (6,5,4) is "
                                "device-only");
    ck_assert_int_eq(gt_set_synchronized(v), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "gt_set_synchronized: storage IJK float64 (4,3,4) is "
                                "device-only");
    ck_assert_int_eq(gt_fill_halo(s, "IJ", GT_BC_DIRICHLET, 7.0), GT_EDEVICE);
    snprintf(want, sizeof want, "gt_fill_halo: %s", is);
    ck_assert_error(GT_EDEVICE, want);
    ck_assert_int_eq(gt_fill_halo(s, NULL, GT_BC_PERIODIC, 0), GT_EDEVICE);
    ck_assert_ptr_null(gt_copy(s));
    ck_assert_error(GT_EDEVICE, "gt_copy: storage IJK float64 (6,5,4) is device-only "
                                "(gt_wrap_device): the runtime does not allocate device-only "
                                "copies");
    ck_assert_int_eq(memcmp(a, ref, N * sizeof *a), 0);
    ck_assert_int_eq(fake.uploads + fake.downloads + fake.barriers + dv.device_copies, 0);
    ck_assert_int_eq(fake.allocs + dv.frees, 0);
    gt_release(v);
    gt_release(s);
    free(a);
    free(ref);
}
END_TEST

/* ---- gt_copy_into ------------------------------------------------------------------------- */

/* Device to device through device_copy, one run per row: the interior and the halo both
   have (here: the halo along I and J of dst is 1, of src 2 along I), the rest of dst as it
   was. */
START_TEST(copy_device_to_device)
{
    double *a = array(0), *b = array(1000);
    gt_storage *dst = wrap(a); /* halo 1 along I and J */
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = 1;
    int64_t sh[3] = {NI, NJ - 2, NK}, st[3] = {1, NI, NI * NJ};
    /* src: the rows j = 1 .. NJ-2 of b, no halo along J */
    gt_storage *src = gt_wrap_device(b + NI, GT_FLOAT64, "IJK", sh, st, &o);
    ck_assert_msg(src != NULL, "%s", gt_last_error());
    ck_assert_int_eq(gt_copy_into(dst, src), 0);
    /* the NJ - 2 rows of a level are contiguous on both sides (I whole, J strides NI):
       one run, one device copy, per level */
    ck_assert_int_eq(dv.device_copies, NK);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++) {
                double want = j >= 1 && j < NJ - 1 ? 1000 + i + 10 * j + 100 * k
                                                   : i + 10 * j + 100 * k;
                ck_assert_msg(at(a, i, j, k) == want, "(%d,%d,%d): %g, not %g", i, j, k,
                              at(a, i, j, k), want);
            }
    ck_assert_int_eq(fake.uploads + fake.downloads, 0);
    ck_assert_int_eq(gt_copy_into(dst, dst), 0); /* the same storage: nothing to do */
    gt_release(dst);
    gt_release(src);
    ck_assert_int_eq(dv.frees, 0);
    free(a);
    free(b);
}
END_TEST

/* Two device-only views of one device array whose elements interleave (the components of
   pairs): byte ranges intersect, elements do not, so the copy is made; one pair on, they
   meet and it is refused. */
START_TEST(copy_device_interleaved)
{
    double *a = array(0), *ref = array(0);
    int64_t half[1] = {N / 2}, less[1] = {N / 2 - 1}, two[1] = {2};
    gt_storage *c0 = gt_wrap_device(a, GT_FLOAT64, "K", half, two, NULL);
    gt_storage *c1 = gt_wrap_device(a + 1, GT_FLOAT64, "K", half, two, NULL);
    gt_storage *c0s = gt_wrap_device(a, GT_FLOAT64, "K", less, two, NULL);
    gt_storage *c2 = gt_wrap_device(a + 2, GT_FLOAT64, "K", less, two, NULL);
    ck_assert(c0 && c1 && c0s && c2);
    ck_assert_msg(gt_copy_into(c0, c1) == 0, "%s", gt_last_error());
    for (int n = 0; n < N; n++)
        ck_assert_msg(a[n] == ref[n | 1], "a[%d] = %g, not %g", n, a[n], ref[n | 1]);
    ck_assert_int_eq(gt_copy_into(c0s, c2), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "overlap in device memory");
    gt_release(c0);
    gt_release(c1);
    gt_release(c0s);
    gt_release(c2);
    free(a);
    free(ref);
}
END_TEST

/* With a GT_CUDA storage the runtime manages: its device side is read (uploaded first when
   the host is newer) or written (then device-dirty, and gt_host downloads it). */
START_TEST(copy_with_cuda_storage)
{
    double *a = array(0), *b = array(0);
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    gt_storage *d = wrap(a);
    gt_storage *c = gt_full(GT_FLOAT64, "IJK", shape, 5.0, &o); /* host-dirty */
    ck_assert_int_eq(gt__sync_state_of(c), GT__HOST_DIRTY);
    ck_assert_int_eq(gt_copy_into(d, c), 0); /* into the device-only storage */
    ck_assert_int_eq(fake.uploads, 1);      /* c's device side brought up to date first */
    ck_assert_int_eq(gt__sync_state_of(c), GT__CLEAN);
    for (int n = 0; n < N; n++)
        ck_assert(a[n] == 5.0);
    /* back: from the device-only storage into c's device side */
    gt_storage *e = wrap(b);
    ck_assert_int_eq(gt_copy_into(c, e), 0);
    ck_assert_int_eq(gt__sync_state_of(c), GT__DEVICE_DIRTY);
    ck_assert_int_eq(fake.downloads, 0);
    const double *h = gt_host(c, GT_READ); /* downloads */
    ck_assert_int_eq(fake.downloads, 1);
    const int64_t *st = gt_strides(c);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++)
                ck_assert(h[i * st[0] + j * st[1] + k * st[2]] == i + 10 * j + 100 * k);
    /* a failed copy into c: its host side holds the old contents whole, so it is marked
       newer, not the device side written in part */
    dv.fail_dcopy = 1;
    ck_assert_int_eq(gt_copy_into(c, d), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "gt_copy_into: dst IJK float64 (6,5,4) and src IJK float64 "
                                "(6,5,4): copying device to device failed (fake: illegal "
                                "address)");
    ck_assert_int_eq(gt__sync_state_of(c), GT__HOST_DIRTY);
    gt_release(c);
    gt_release(d);
    gt_release(e);
    ck_assert_int_eq(dv.frees, 1); /* c's device buffer, and only it */
    ck_assert_int_eq(fake.live, 0);
    free(a);
    free(b);
}
END_TEST

/* With host memory (a storage without a device side): host to device and device to host
   through the device layer, row by row. */
START_TEST(copy_with_host_storage)
{
    double *a = array(0);
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    gt_storage *d = wrap(a);
    gt_storage *h = gt_full(GT_FLOAT64, "IJK", shape, -2.0, &o);
    ck_assert_int_eq(gt_copy_into(h, d), 0); /* device to host */
    ck_assert_int_eq(fake.downloads, 1);     /* same dense layout and halos: one run */
    const double *p = gt_host(h, GT_READ);
    const int64_t *st = gt_strides(h);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++)
                ck_assert(p[i * st[0] + j * st[1] + k * st[2]] == at(a, i, j, k));
    ck_assert_int_eq(gt_fill_halo(h, "IJ", GT_BC_DIRICHLET, 9.0), 0);
    ck_assert_int_eq(gt_copy_into(d, h), 0); /* host to device */
    ck_assert_int_eq(fake.uploads, 1);
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            for (int i = 0; i < NI; i++) {
                int halo = i == 0 || i == NI - 1 || j == 0 || j == NJ - 1;
                ck_assert(at(a, i, j, k) == (halo ? 9.0 : i + 10 * j + 100 * k));
            }
    gt_release(h);
    gt_release(d);
    free(a);
}
END_TEST

/* Refusals, each writing nothing: another layout (a transpose), overlapping device memory
   (two wraps of one array; a wrap of a GT_CUDA storage's device side), a device layer that
   cannot copy device memory, and the usual dtype check first. */
START_TEST(copy_refused)
{
    double *a = array(0), *b = array(1000), *ref = array(0);
    gt_storage *d = wrap(a);
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    o.layout = "IJK"; /* K contiguous */
    gt_storage *t = gt_wrap_device(b, GT_FLOAT64, "IJK", shape, NULL, &o);
    ck_assert_msg(t != NULL, "%s", gt_last_error());
    ck_assert_int_eq(gt_copy_into(d, t), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_copy_into: dst IJK float64 (6,5,4) (layout KJI) and src "
                               "IJK float64 (6,5,4) (layout IJK): a device-only storage is "
                               "copied only between storages of the same layout");
    o.layout = NULL;
    gt_storage *twin = gt_wrap_device(a, GT_FLOAT64, "IJK", shape, NULL, &o);
    ck_assert_int_eq(gt_copy_into(d, twin), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "overlap in device memory");
    o.device = GT_CUDA;
    gt_storage *c = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    o.device = GT_HOST;
    gt_storage *over = gt_wrap_device(gt_device_ptr(c, GT_READ), GT_FLOAT64, "IJK", shape,
                                      gt_strides(c), &o);
    ck_assert_msg(over != NULL, "%s", gt_last_error());
    ck_assert_int_eq(gt_copy_into(c, over), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "overlap in device memory");
    gt_storage *f = gt_wrap_device(b, GT_FLOAT32, "IJK", shape, NULL, NULL);
    ck_assert_int_eq(gt_copy_into(d, f), GT_EDTYPE);
    gt__device_ops no_dcopy = dv_ops;
    no_dcopy.device_copy = NULL;
    gt__set_device_ops(&no_dcopy);
    gt_storage *u = gt_wrap_device(b, GT_FLOAT64, "IJK", shape, NULL, &(gt_storage_opts){
        .halo = {{1, 1}, {1, 1}, {0, 0}}});
    ck_assert_int_eq(gt_copy_into(u, d), GT_EDEVICE); /* dst u's layer has no device copy */
    ck_assert_error(GT_EDEVICE, "the device layer \"fake\" cannot copy device memory to "
                                "device memory");
    gt__set_device_ops(&dv_ops);
    ck_assert_int_eq(memcmp(a, ref, N * sizeof *a), 0);
    for (int n = 0; n < N; n++)
        ck_assert(b[n] == ref[n] + 1000);
    ck_assert_int_eq(dv.device_copies + fake.downloads, 0);
    gt_release(u);
    gt_release(f);
    gt_release(over);
    gt_release(c);
    gt_release(twin);
    gt_release(t);
    gt_release(d);
    free(a);
    free(b);
    free(ref);
}
END_TEST

/* ---- stencils -------------------------------------------------------------------------------- */

static const gt_field_info fields[2] = {
    {"in", "IJK", GT_FLOAT64, 0, {{1, 1}, {0, 0}, {0, 0}}, {{1, 1}, {0, 0}, {0, 0}}, {0}},
    {"out", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}, {{0, 0}, {0, 0}, {0, 0}}, {0}},
};
static const gt_stencil_info info = {"copy", 2, fields};
static const unsigned char offs[2] = {1, 0};

/* gt__bind (naive, openmp) refuses a device-only field before syncing anything; the cuda
   backend's gt__bind_device binds it at its device address; aliasing is seen on the
   device. */
START_TEST(bind)
{
    double *a = array(0), *b = array(0);
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    o.halo[0][0] = o.halo[0][1] = o.halo[1][0] = o.halo[1][1] = 1;
    gt_storage *in = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    gt_device_ptr(in, GT_WRITE); /* device-dirty: a host bind would download it */
    gt_storage *out = wrap(a);
    gt_storage *args[2] = {in, out};
    int64_t size[3];
    gt_bound bd[2];
    ck_assert_int_eq(gt__bind(&info, offs, args, NULL, size, bd), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "stencil 'copy': field 'out': storage IJK float64 (6,5,4) is "
                                "device-only (gt_wrap_device) but this stencil runs on the "
                                "host");
    ck_assert_int_eq(fake.downloads, 0);
    ck_assert_int_eq(gt__sync_state_of(in), GT__DEVICE_DIRTY);
    ck_assert_int_eq(gt__bind_device(&info, offs, args, NULL, size, bd), 0);
    ck_assert_int_eq(size[0], NI - 2);
    ck_assert_int_eq(size[1], NJ - 2);
    ck_assert_int_eq(size[2], NK);
    ck_assert_ptr_eq(bd[1].origin, a + 1 + NI); /* the interior's first point */
    ck_assert_int_eq(bd[1].stride[1], NI);
    ck_assert_ptr_eq(bd[0].origin, (double *)gt_device_ptr(in, GT_READ) + 1 + gt_strides(in)[1]);
    /* a device-only input too */
    gt_storage *w = wrap(b);
    args[0] = w;
    ck_assert_int_eq(gt__bind_device(&info, offs, args, NULL, size, bd), 0);
    ck_assert_ptr_eq(bd[0].origin, b + 1 + NI);
    /* the output wraps the input's device side, read at an offset: aliasing */
    args[0] = in;
    args[1] = gt_wrap_device(gt_device_ptr(in, GT_READ), GT_FLOAT64, "IJK", shape,
                             gt_strides(in), &(gt_storage_opts){
                                 .halo = {{1, 1}, {1, 1}, {0, 0}}});
    ck_assert_ptr_nonnull(args[1]);
    ck_assert_int_eq(gt__bind_device(&info, offs, args, NULL, size, bd), GT_EALIAS);
    ck_assert_error(GT_EALIAS, "stencil 'copy': output 'out' shares memory with field 'in'");
    /* two device-only views of one array */
    gt_release(args[1]);
    args[0] = w;
    args[1] = gt_wrap_device(b, GT_FLOAT64, "IJK", shape, NULL, &(gt_storage_opts){
                                 .halo = {{1, 1}, {1, 1}, {0, 0}}});
    ck_assert_int_eq(gt__bind_device(&info, offs, args, NULL, size, bd), GT_EALIAS);
    gt_release(args[1]);
    gt_release(w);
    gt_release(in);
    gt_release(out);
    ck_assert_int_eq(dv.frees, 1); /* in's device buffer only */
    free(a);
    free(b);
}
END_TEST

/* The cuda backend keeps a device-only output's bytes on the device (reads at run-time K
   levels) and puts them back when the call fails. */
START_TEST(keep_output)
{
    double *a = array(0), *b = array(0), *ref = array(0);
    gt_storage *in = wrap(b), *out = wrap(a);
    gt_storage *args[2] = {in, out};
    int64_t size[3];
    gt_bound bd[2];
    ck_assert_int_eq(gt__bind_device(&info, offs, args, NULL, size, bd), 0);
    gt_place p = {{0, 0}, {0, 0}, {NI - 2, NJ - 2}, {1, 1}, NULL};
    gt__kept *kept = NULL;
    ck_assert_int_eq(gt__keep(&p, &info, args, size, 0, 1, &kept), 0);
    ck_assert_int_eq(dv.device_copies, 1);
    for (int n = 0; n < N; n++)
        a[n] = -1.0; /* the "kernel" writes everything */
    ck_assert_int_eq(gt__keep_end(kept, GT_ESHAPE), GT_ESHAPE);
    ck_assert_int_eq(memcmp(a, ref, N * sizeof *a), 0);
    gt_release(in);
    gt_release(out);
    gt__pool_trim();
    free(a);
    free(b);
    free(ref);
}
END_TEST

Suite *suite_rt_wrapdev(void); /* collected by tests/unit/main.c */

Suite *suite_rt_wrapdev(void)
{
    Suite *s = suite_create("rt_wrapdev");
    TCase *t = tcase_create("device_only");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, wrap_and_release);
    tcase_add_test(t, wrap_validation);
    tcase_add_test(t, wrap_out_of_memory);
    tcase_add_test(t, host_side_refused);
    tcase_add_test(t, copy_device_to_device);
    tcase_add_test(t, copy_device_interleaved);
    tcase_add_test(t, copy_with_cuda_storage);
    tcase_add_test(t, copy_with_host_storage);
    tcase_add_test(t, copy_refused);
    tcase_add_test(t, bind);
    tcase_add_test(t, keep_output);
    suite_add_tcase(s, t);
    return s;
}

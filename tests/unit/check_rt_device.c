/* check_rt_device.c: the device layer (runtime.md section 4). Without CUDA every device
 * request fails with GT_EDEVICE. With a fake device backed by host memory (installed with
 * gt__set_device_ops), the sync-state machine: CLEAN / HOST_DIRTY / DEVICE_DIRTY shared by
 * all views of a buffer, transfers counted, the three managed modes, the explicit calls,
 * device failures at each step (clean failure, state unchanged), the sync that gt_copy,
 * gt_copy_into, gt_fill_halo and gt__bind do, and the pool that device temporaries come
 * from. (The streamed transfers of gt_copy_into: check_rt_transfer.c.) */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "fake_device.h"
#include "rt.h"
#include "rt_check.h"

/* ---- the fake device (fake_device.h) ------------------------------------------------------ */

static void setup(void)
{
    fake_setup();
}

static void teardown(void)
{
    fake_teardown();
}

static gt_storage *dev(gt_managed m, int zeros)
{
    int64_t shape[3] = {6, 5, 4};
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    o.managed = m;
    o.halo[0][0] = o.halo[0][1] = 1;
    gt_storage *s = zeros ? gt_zeros(GT_FLOAT64, "IJK", shape, &o)
                          : gt_empty(GT_FLOAT64, "IJK", shape, &o);
    ck_assert_msg(s != NULL, "%s", gt_last_error());
    return s;
}

#define STATE(s) gt__sync_state_of(s)

/* ---- without CUDA ------------------------------------------------------------------------ */

START_TEST(no_cuda)
{
    int64_t shape[2] = {3, 3};
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    for (int m = 0; m < 3; m++) {
        o.managed = (gt_managed)m;
        ck_assert_ptr_null(gt_empty(GT_FLOAT32, "IJ", shape, &o));
        ck_assert_error(GT_EDEVICE, "gt_empty: a CUDA device buffer was requested, but libgtrt "
                                    "was built without CUDA");
        ck_assert_ptr_null(gt_ones(GT_FLOAT32, "IJ", shape, &o));
        ck_assert_error(GT_EDEVICE, "gt_ones");
    }
    static float buf[9];
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT32, "IJ", shape, NULL, &o));
    ck_assert_error(GT_EDEVICE, "without CUDA");
    gt_storage *s = gt_zeros(GT_FLOAT32, "IJ", shape, NULL);
    ck_assert_ptr_null(gt_device_ptr(s, GT_READ));
    ck_assert_error(GT_EDEVICE, "gt_device_ptr: a device pointer was requested, but libgtrt was "
                                "built without CUDA");
    /* the explicit calls are no-ops on host storages, so code runs unchanged */
    ck_assert_int_eq(gt_sync(s), 0);
    ck_assert_int_eq(gt_host_to_device(s, 1), 0);
    ck_assert_int_eq(gt_device_to_host(s, 1), 0);
    ck_assert_int_eq(gt_set_host_modified(s), 0);
    ck_assert_int_eq(gt_set_device_modified(s), 0);
    ck_assert_int_eq(gt_set_synchronized(s), 0);
    ck_assert_int_eq(STATE(s), GT__CLEAN);
    gt_release(s);
    ck_assert_int_eq(gt_sync(NULL), GT_EINVAL);
    ck_assert_int_eq(gt_host_to_device(NULL, 0), GT_EINVAL);
    ck_assert_int_eq(gt_device_to_host(NULL, 0), GT_EINVAL);
    ck_assert_int_eq(gt_set_host_modified(NULL), GT_EINVAL);
    ck_assert_int_eq(gt_set_device_modified(NULL), GT_EINVAL);
    ck_assert_int_eq(gt_set_synchronized(NULL), GT_EINVAL);
    ck_assert_error(GT_EINVAL, "gt_set_synchronized: storage is NULL");
    ck_assert_ptr_null(gt_device_ptr(NULL, GT_READ));
}
END_TEST

/* ---- the state machine (managed by the runtime) ------------------------------------------- */

START_TEST(runtime_managed)
{
    gt_storage *s = dev(GT_MANAGED_RUNTIME, 0);
    ck_assert_int_eq(STATE(s), GT__CLEAN); /* gt_empty: both undefined, nothing to copy */
    ck_assert_int_eq(fake.live, 1);
    double *h = gt_host(s, GT_WRITE);
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
    h[0] = 1.5;
    double *d = gt_device_ptr(s, GT_READ); /* uploads first */
    ck_assert_int_eq(fake.uploads, 1);
    ck_assert_int_eq(STATE(s), GT__CLEAN);
    ck_assert_ptr_ne(d, h);
    ck_assert_double_eq(d[0], 1.5);
    d = gt_device_ptr(s, GT_READWRITE); /* clean: no copy; now the device is newer */
    ck_assert_int_eq(fake.uploads, 1);
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    d[0] = 2.5; /* a "kernel" writes on the device */
    h = gt_host(s, GT_READ);
    ck_assert_int_eq(fake.downloads, 1);
    ck_assert_int_eq(STATE(s), GT__CLEAN);
    ck_assert_double_eq(h[0], 2.5);
    gt_host(s, GT_READ); /* clean: nothing */
    ck_assert_int_eq(fake.downloads, 1);
    gt_device_ptr(s, GT_WRITE);
    gt_host(s, GT_WRITE); /* a write-only host access still downloads first */
    ck_assert_int_eq(fake.downloads, 2);
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
    gt_device_ptr(s, GT_WRITE); /* a write-only device access still uploads first */
    ck_assert_int_eq(fake.uploads, 2);
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    ck_assert_ptr_null(gt_device_ptr(s, (gt_access)7));
    ck_assert_error(GT_EINVAL, "access 7");
    gt_release(s);
    ck_assert_int_eq(fake.live, 0); /* the device buffer goes with the last view */
}
END_TEST

START_TEST(host_only_with_device_layer)
{
    int64_t shape[1] = {4};
    gt_storage *s = gt_zeros(GT_INT32, "K", shape, NULL);
    ck_assert_ptr_null(gt_device_ptr(s, GT_READ));
    ck_assert_error(GT_EDEVICE, "gt_device_ptr: storage K int32 (4) has no device buffer (it "
                                "was created with device = GT_HOST)");
    ck_assert_int_eq(gt_sync(s), 0); /* nothing to do */
    ck_assert_int_eq(fake.live + fake.uploads + fake.downloads + fake.barriers, 0);
    gt_release(s);
}
END_TEST

START_TEST(filled_start_host_dirty)
{
    gt_storage *s = dev(GT_MANAGED_RUNTIME, 1);
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY); /* zeros are on the host only */
    double *d = gt_device_ptr(s, GT_READ);
    ck_assert_int_eq(fake.uploads, 1);
    ck_assert_double_eq(d[5], 0);
    gt_release(s);
}
END_TEST

START_TEST(views_share_state)
{
    gt_storage *s = dev(GT_MANAGED_RUNTIME, 1);
    gt_storage *v = gt_domain_view(s);
    char *dv = gt_device_ptr(v, GT_WRITE);
    char *ds = gt_device_ptr(s, GT_READ);
    ck_assert_int_eq(fake.uploads, 1); /* one buffer, one upload */
    ck_assert_ptr_eq(dv, ds + gt_strides(s)[0] * 8); /* first interior point: I halo 1 */
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    ck_assert_int_eq(STATE(v), GT__DEVICE_DIRTY);
    ((double *)dv)[0] = 9;
    double *hs = gt_host(s, GT_READ); /* the parent's read downloads the view's write */
    ck_assert_int_eq(fake.downloads, 1);
    ck_assert_double_eq(hs[gt_strides(s)[0]], 9);
    ck_assert_int_eq(STATE(v), GT__CLEAN);
    gt_set_device_modified(v);
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    gt_release(s);
    ck_assert_int_eq(fake.live, 1); /* the view keeps the device buffer */
    gt_release(v);
    ck_assert_int_eq(fake.live, 0);
}
END_TEST

START_TEST(explicit_calls)
{
    for (int m = 0; m < 2; m++) { /* runtime-managed and user-managed alike */
        gt_storage *s = dev(m ? GT_MANAGED_NONE : GT_MANAGED_RUNTIME, 0);
        ck_assert_int_eq(gt_set_host_modified(s), 0);
        ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
        ck_assert_int_eq(gt_sync(s), 0);
        ck_assert_int_eq(fake.uploads, 1);
        ck_assert_int_eq(STATE(s), GT__CLEAN);
        ck_assert_int_eq(gt_sync(s), 0); /* clean: nothing */
        ck_assert_int_eq(gt_set_device_modified(s), 0);
        ck_assert_int_eq(gt_sync(s), 0);
        ck_assert_int_eq(fake.downloads, 1);
        ck_assert_int_eq(gt_host_to_device(s, 0), 0); /* clean: no copy */
        ck_assert_int_eq(fake.uploads, 1);
        ck_assert_int_eq(gt_host_to_device(s, 1), 0); /* forced */
        ck_assert_int_eq(fake.uploads, 2);
        ck_assert_int_eq(gt_device_to_host(s, 0), 0);
        ck_assert_int_eq(fake.downloads, 1);
        ck_assert_int_eq(gt_device_to_host(s, 1), 0);
        ck_assert_int_eq(fake.downloads, 2);
        gt_set_device_modified(s);
        ck_assert_int_eq(gt_host_to_device(s, 0), 0); /* device newer: left alone */
        ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
        ck_assert_int_eq(gt_device_to_host(s, 0), 0);
        ck_assert_int_eq(fake.downloads, 3);
        ck_assert_int_eq(STATE(s), GT__CLEAN);
        gt_set_host_modified(s);
        ck_assert_int_eq(gt_device_to_host(s, 0), 0); /* host newer: left alone */
        ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
        ck_assert_int_eq(gt_set_synchronized(s), 0);
        ck_assert_int_eq(STATE(s), GT__CLEAN);
        gt_release(s);
        memset(&fake, 0, sizeof fake);
    }
}
END_TEST

START_TEST(user_managed)
{
    gt_storage *s = dev(GT_MANAGED_NONE, 1);
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
    gt_device_ptr(s, GT_READWRITE); /* nothing implicit */
    gt_host(s, GT_READWRITE);
    gt_device_ptr(s, GT_READ);
    ck_assert_int_eq(fake.uploads + fake.downloads, 0);
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
    ck_assert_int_eq(gt_sync(s), 0);
    ck_assert_int_eq(fake.uploads, 1);
    gt_release(s);
}
END_TEST

START_TEST(cuda_managed)
{
    gt_storage *s = dev(GT_MANAGED_CUDA, 1);
    ck_assert_int_eq(fake.managed_live, 1);
    double *h = gt_host(s, GT_READWRITE), *d = gt_device_ptr(s, GT_READWRITE);
    ck_assert_ptr_eq(h, d); /* one unified buffer */
    ck_assert_double_eq(h[3], 0);
    ck_assert_int_eq(fake.barriers, 1); /* host access waits for the device */
    ck_assert_int_eq(gt_sync(s), 0);
    ck_assert_int_eq(gt_device_to_host(s, 1), 0);
    ck_assert_int_eq(fake.barriers, 3);
    ck_assert_int_eq(gt_host_to_device(s, 1), 0);
    ck_assert_int_eq(gt_set_device_modified(s), 0);
    ck_assert_int_eq(STATE(s), GT__CLEAN); /* CUDA keeps the sync */
    ck_assert_int_eq(fake.uploads + fake.downloads, 0);
    fake.fail_barrier = 1;
    ck_assert_ptr_null(gt_host(s, GT_READ));
    ck_assert_error(GT_EDEVICE, "waiting for the device failed (fake: device error)");
    gt_release(s);
    ck_assert_int_eq(fake.live, 0);
}
END_TEST

/* ---- device failures ------------------------------------------------------------------------ */

START_TEST(device_failures)
{
    int64_t shape[3] = {6, 5, 4};
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    fake.fail_alloc = 1;
    ck_assert_ptr_null(gt_zeros(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_error(GT_EDEVICE, "gt_zeros: allocating a CUDA device buffer of");
    ck_assert_error(GT_EDEVICE, "(fake: out of device memory)");
    o.managed = GT_MANAGED_CUDA;
    fake.fail_alloc = 1;
    ck_assert_ptr_null(gt_ones(GT_FLOAT64, "IJK", shape, &o));
    ck_assert_int_eq(gt_last_error_code(), GT_EDEVICE);
    ck_assert_int_eq(fake.live, 0);

    gt_storage *s = dev(GT_MANAGED_RUNTIME, 1);
    fake.fail_up = 1;
    ck_assert_ptr_null(gt_device_ptr(s, GT_READ));
    ck_assert_error(GT_EDEVICE, "gt_device_ptr: storage IJK float64 (6,5,4): copying 960 bytes "
                                "host to device failed (fake: illegal address)");
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY); /* unchanged */
    fake.fail_up = 1;
    ck_assert_int_eq(gt_sync(s), GT_EDEVICE);
    fake.fail_up = 1;
    ck_assert_int_eq(gt_host_to_device(s, 0), GT_EDEVICE);
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
    ck_assert_ptr_nonnull(gt_device_ptr(s, GT_WRITE));
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    fake.fail_down = 1;
    ck_assert_ptr_null(gt_host(s, GT_READ));
    ck_assert_error(GT_EDEVICE, "gt_host: storage IJK float64 (6,5,4): copying 960 bytes device "
                                "to host failed");
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    fake.fail_down = 1;
    ck_assert_int_eq(gt_sync(s), GT_EDEVICE);
    fake.fail_down = 1;
    ck_assert_int_eq(gt_device_to_host(s, 1), GT_EDEVICE);
    fake.fail_down = 1;
    ck_assert_ptr_null(gt_copy(s)); /* gt_copy must read the device's data */
    ck_assert_int_eq(gt_last_error_code(), GT_EDEVICE);
    ck_assert_int_eq(fake.live, 1); /* the half-made copy is gone */
    gt_storage_opts ho = {0};
    ho.halo[0][0] = ho.halo[0][1] = 1;
    gt_storage *h = gt_zeros(GT_FLOAT64, "IJK", shape, &ho);
    fake.fail_down = 1;
    ck_assert_int_eq(gt_copy_into(h, s), GT_EDEVICE);
    fake.fail_down = 1;
    ck_assert_int_eq(gt_fill_halo(s, "I", GT_BC_PERIODIC, 0), GT_EDEVICE);
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    gt_release(h);
    gt_release(s);
    ck_assert_int_eq(fake.live, 0);
}
END_TEST

/* ---- what the other functions sync ---------------------------------------------------------- */

START_TEST(sync_by_operations)
{
    gt_storage *s = dev(GT_MANAGED_RUNTIME, 1);
    double *d = gt_device_ptr(s, GT_WRITE);
    for (int k = 0; k < 6 * 5 * 4; k++)
        d[k] = k;
    gt_storage *c = gt_copy(s); /* downloads s, gets its own device buffer, host newer */
    ck_assert_int_eq(fake.downloads, 1);
    ck_assert_int_eq(fake.live, 2);
    ck_assert_int_eq(STATE(s), GT__CLEAN);
    ck_assert_int_eq(STATE(c), GT__HOST_DIRTY);
    ck_assert_double_eq(((double *)gt_host(c, GT_READ))[7], 7);
    gt_device_ptr(s, GT_WRITE);
    gt_device_ptr(c, GT_WRITE);
    ck_assert_int_eq(gt_copy_into(c, s), 0); /* reads s on the host, writes c on the host */
    ck_assert_int_eq(STATE(s), GT__CLEAN);
    ck_assert_int_eq(STATE(c), GT__HOST_DIRTY);
    gt_device_ptr(s, GT_WRITE);
    ck_assert_int_eq(gt_fill_halo(s, "I", GT_BC_NEUMANN, 0), 0);
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
    gt_release(c);
    gt_release(s);
}
END_TEST

/* gt_copy_into(s, s) is a no-op (docs/runtime.md section 8): it synced s for read-write,
   downloading a device-dirty buffer and leaving it host-dirty, so that the next device use
   uploaded the whole buffer again, or failing on a failed download. */
START_TEST(copy_into_itself)
{
    gt_storage *s = dev(GT_MANAGED_RUNTIME, 1);
    ck_assert_int_eq(gt_sync(s), 0);
    ck_assert_int_eq(gt_copy_into(s, s), 0);
    ck_assert_int_eq(STATE(s), GT__CLEAN);
    ck_assert_ptr_nonnull(gt_device_ptr(s, GT_WRITE));
    int downloads = fake.downloads, uploads = fake.uploads;
    fake.fail_down = 1;
    ck_assert_int_eq(gt_copy_into(s, s), 0);
    ck_assert_int_eq(STATE(s), GT__DEVICE_DIRTY);
    ck_assert_int_eq(fake.downloads, downloads);
    ck_assert_int_eq(fake.uploads, uploads);
    fake.fail_down = 0;
    gt_release(s);
}
END_TEST

START_TEST(bind_syncs)
{
    static const gt_field_info fields[2] = {
        {"in", "IJK", GT_FLOAT64, 0, {{1, 1}, {0, 0}, {0, 0}}},
        {"out", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}},
    };
    static const gt_stencil_info info = {"copy", 2, fields};
    static const unsigned char offs[2] = {1, 0};
    gt_storage *in = dev(GT_MANAGED_RUNTIME, 1), *out = dev(GT_MANAGED_RUNTIME, 1);
    gt_device_ptr(in, GT_WRITE);
    gt_device_ptr(out, GT_WRITE);
    gt_storage *args[2] = {in, out};
    int64_t size[3];
    gt_bound b[2];
    gt_domain too_big = {{9, 9, 9}};
    int uploads = fake.uploads, downloads = fake.downloads;
    ck_assert_int_eq(gt__bind(&info, offs, args, &too_big, size, b), GT_ESHAPE);
    ck_assert_int_eq(fake.downloads, downloads); /* nothing touched on error */
    ck_assert_int_eq(STATE(in), GT__DEVICE_DIRTY);
    ck_assert_int_eq(gt__bind(&info, offs, args, NULL, size, b), 0);
    ck_assert_int_eq(fake.downloads, downloads + 2);
    ck_assert_int_eq(fake.uploads, uploads);
    ck_assert_int_eq(STATE(in), GT__CLEAN);
    ck_assert_int_eq(STATE(out), GT__HOST_DIRTY);
    gt_device_ptr(in, GT_WRITE);
    fake.fail_down = 1;
    ck_assert_int_eq(gt__bind(&info, offs, args, NULL, size, b), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "stencil 'copy': field 'in': storage IJK float64 (6,5,4): copying");
    gt_release(in);
    gt_release(out);
}
END_TEST

/* gt__bind_device: the same checks as gt__bind, then inputs uploaded when the host is newer,
 * outputs marked device-dirty, origins on the device (the fake device's own block: the host
 * origin plus the distance between the two blocks), and a host-only field refused. */
START_TEST(bind_device_syncs)
{
    static const gt_field_info fields[2] = {
        {"in", "IJK", GT_FLOAT64, 0, {{1, 1}, {0, 0}, {0, 0}}},
        {"out", "IJK", GT_FLOAT64, 1, {{0, 0}, {0, 0}, {0, 0}}},
    };
    static const gt_stencil_info info = {"copy", 2, fields};
    static const unsigned char offs[2] = {1, 0};
    gt_storage *in = dev(GT_MANAGED_RUNTIME, 1), *out = dev(GT_MANAGED_RUNTIME, 1);
    gt_host(in, GT_WRITE);
    gt_storage *args[2] = {in, out};
    int64_t size[3];
    gt_bound b[2];
    gt_domain too_big = {{9, 9, 9}};
    int uploads = fake.uploads;
    ck_assert_int_eq(gt__bind_device(&info, offs, args, &too_big, size, b), GT_ESHAPE);
    ck_assert_int_eq(fake.uploads, uploads); /* nothing touched on error */
    ck_assert_int_eq(STATE(in), GT__HOST_DIRTY);
    ck_assert_int_eq(gt__bind_device(&info, offs, args, NULL, size, b), 0);
    /* both were filled on the host (gt_zeros): both uploaded, the output read-write since a
     * stencil may write only part of it */
    ck_assert_int_eq(fake.uploads, uploads + 2);
    ck_assert_int_eq(STATE(in), GT__CLEAN);
    ck_assert_int_eq(STATE(out), GT__DEVICE_DIRTY);
    /* in: halo 1 along I, stride 1 along I in the cpu layout: origin one element in */
    unsigned char *base = gt_device_ptr(in, GT_READ);
    ck_assert_ptr_eq(b[0].origin, base + sizeof(double));
    ck_assert_int_eq(b[0].stride[0], 1);
    ck_assert_int_eq(size[0], 4);
    /* a storage without a device buffer cannot be bound on the device */
    int64_t shape[3] = {6, 5, 4};
    gt_storage_opts o = {0};
    o.halo[0][0] = o.halo[0][1] = 1;
    gt_storage *host_in = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
    args[0] = host_in;
    ck_assert_int_eq(gt__bind_device(&info, offs, args, NULL, size, b), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "has no device buffer");
    gt_release(host_in);
    gt_release(in);
    gt_release(out);
}
END_TEST

/* gt__device_temporary: a device block with the halo and cpu-layout strides of
 * gt__temporary, from the pool (back to it when released); gt__device_copy and
 * gt__device_wait go through the device layer and turn its failures into GT_EDEVICE. */
START_TEST(device_temporary_and_copies)
{
    gt_storage *t = NULL;
    const int64_t size[3] = {4, 3, 2}, halo[6] = {1, 2, 0, 0, 0, 0};
    int64_t stride[3];
    int live = fake.live;
    double *p = gt__device_temporary(&t, GT_FLOAT64, "IJK", size, halo, stride);
    ck_assert_msg(p != NULL, "%s", gt_last_error());
    ck_assert_int_eq(fake.live, live + 1);
    ck_assert_int_eq(stride[0], 1);
    ck_assert_int_eq(stride[1], 1 + 4 + 2);
    ck_assert_ptr_eq(p, (double *)gt_device_ptr(t, GT_READ) + 1);
    double v = 2.5, w = 0;
    ck_assert_int_eq(gt__device_copy("test", p, &v, sizeof v, 1), 0);
    ck_assert_int_eq(gt__device_copy("test", &w, p, sizeof w, 0), 0);
    ck_assert(w == 2.5);
    fake.fail_down = 1;
    ck_assert_int_eq(gt__device_copy("stencil 's'", &w, p, sizeof w, 0), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "stencil 's': copying 8 bytes device to host failed (fake: illegal address)");
    ck_assert_int_eq(gt__device_wait("stencil 's'"), 0);
    fake.fail_barrier = 1;
    ck_assert_int_eq(gt__device_wait("stencil 's'"), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "stencil 's': the device failed (fake:");
    gt_release(t);
    ck_assert_int_eq(fake.live, live + 1); /* kept by the pool */
    ck_assert_uint_gt(gt__pool_trim(), 0);
    ck_assert_int_eq(fake.live, live);
}
END_TEST

START_TEST(wrap_with_device)
{
    static double buf[6 * 5 * 4];
    int64_t shape[3] = {6, 5, 4};
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    gt_storage *s = gt_wrap(buf, GT_FLOAT64, "IJK", shape, NULL, &o);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(fake.live, 1); /* a device mirror */
    ck_assert_int_eq(STATE(s), GT__HOST_DIRTY);
    buf[3] = 4;
    ck_assert_double_eq(((double *)gt_device_ptr(s, GT_READ))[3], 4);
    ck_assert_ptr_eq(gt_host(s, GT_READ), buf);
    fake.fail_alloc = 1;
    ck_assert_ptr_null(gt_wrap(buf, GT_FLOAT64, "IJK", shape, NULL, &o));
    ck_assert_error(GT_EDEVICE, "gt_wrap: allocating a CUDA device mirror");
    o.managed = GT_MANAGED_CUDA; /* the caller's unified memory: nothing allocated */
    gt_storage *u = gt_wrap(buf, GT_FLOAT64, "IJK", shape, NULL, &o);
    ck_assert_ptr_eq(gt_device_ptr(u, GT_READ), buf);
    ck_assert_int_eq(fake.live, 1);
    /* host accesses of wrapped unified memory wait for the device, as for a unified buffer
       the runtime allocated (they dereferenced the buffer's NULL device layer: SIGSEGV) */
    int barriers = fake.barriers;
    ck_assert_ptr_eq(gt_host(u, GT_READ), buf);
    ck_assert_int_eq(gt_sync(u), 0);
    ck_assert_int_eq(gt_device_to_host(u, 1), 0);
    ck_assert_int_eq(fake.barriers, barriers + 3);
    fake.fail_barrier = 1;
    ck_assert_int_eq(gt_fill_halo(u, NULL, GT_BC_PERIODIC, 0), GT_EDEVICE);
    ck_assert_error(GT_EDEVICE, "gt_fill_halo: storage IJK float64 (6,5,4): waiting for the "
                                "device failed (fake: device error)");
    gt_storage *c = gt_copy(u); /* a fresh unified buffer with the same data */
    ck_assert_ptr_nonnull(c);
    ck_assert_double_eq(((double *)gt_host(c, GT_READ))[3], 4);
    ck_assert_int_eq(fake.managed_live, 1);
    gt_release(c);
    gt_release(u);
    gt_release(s);
    ck_assert_int_eq(fake.live, 0); /* buf itself is never freed */
}
END_TEST

/* A wrapped storage whose elements leave gaps (one component of interleaved arrays, a slice
   of a larger array) has a mirror of its whole span, but the bytes between its elements are
   the caller's: a download writes its elements only. It wrote the whole span, putting back
   what the mirror held there (the other component's values at upload time, or never-written
   device memory) over the caller's newer values. */
START_TEST(wrap_with_gaps_downloads_elements)
{
    double q[2 * 12]; /* two interleaved components: q[2 * i + c] */
    for (int i = 0; i < 24; i++)
        q[i] = i;
    int64_t n1[1] = {12}, st1[1] = {2};
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    gt_storage *c0 = gt_wrap(q, GT_FLOAT64, "I", n1, st1, &o);
    ck_assert_ptr_nonnull(c0);
    double *d = gt_device_ptr(c0, GT_READWRITE); /* uploads, then device-dirty */
    d[0] = 100;
    d[2 * 11] = 111;
    d[1] = -100;  /* a gap on the device: nothing of c0 */
    q[1] = -1;    /* the caller writes the other component meanwhile */
    q[23] = -23;
    double *h = gt_host(c0, GT_READ);
    ck_assert_ptr_eq(h, q);
    ck_assert_double_eq(q[0], 100); /* c0's elements downloaded */
    ck_assert_double_eq(q[22], 111);
    ck_assert_double_eq(q[2], 2);
    ck_assert_double_eq(q[1], -1); /* the other component untouched */
    ck_assert_double_eq(q[23], -23);
    ck_assert_double_eq(q[3], 3);
    ck_assert_int_eq(STATE(c0), GT__CLEAN);
    gt_release(c0);

    /* a 3x2 slice of a 5x4 C-ordered array, with a halo of 1 along I: rows of 2 elements,
       4 apart; the rest of the array is the caller's */
    double a[5 * 4];
    for (int i = 0; i < 20; i++)
        a[i] = i;
    int64_t n2[2] = {3, 2}, st2[2] = {4, 1};
    o.halo[0][0] = 1;
    gt_storage *s = gt_wrap(&a[1 * 4 + 1], GT_FLOAT64, "IJ", n2, st2, &o);
    ck_assert_ptr_nonnull(s);
    gt_storage *v = gt_domain_view(s); /* the interior: rows 2 and 3 of a */
    d = gt_device_ptr(v, GT_WRITE);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            d[4 * i + j] = -(10 * i + j) - 1;
    for (int i = 0; i < 20; i++) /* the caller's memory, slice included */
        if (i % 4 == 0 || i % 4 == 3 || i < 4 || i >= 16)
            a[i] = 1000 + i;
    ck_assert_int_eq(gt_device_to_host(s, 0), 0);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) {
            double want = 1000 + 4 * i + j; /* outside the slice: the caller's */
            if (i >= 1 && i <= 3 && j >= 1 && j <= 2)
                want = i == 1 ? 4 * i + j /* the halo row: its uploaded value */
                              : -(10 * (i - 2) + (j - 1)) - 1;
            ck_assert_msg(a[4 * i + j] == want, "a[%d][%d] is %g, not %g", i, j,
                          a[4 * i + j], want);
        }
    gt_release(v);
    gt_release(s);
    ck_assert_int_eq(fake.live, 0);
}
END_TEST

/* Device and unified buffers are aligned like host ones (the fake allocator only gives 16
   bytes): the element at aligned_index sits on lcm(A * 8, 64) = 192 bytes for A = 3. */
START_TEST(device_alignment)
{
    int64_t shape[3] = {7, 5, 4};
    gt_storage_opts o = {0};
    o.device = GT_CUDA;
    o.alignment = 3;
    o.halo[0][0] = o.halo[0][1] = 1;
    for (int m = 0; m < 3; m++) {
        o.managed = (gt_managed)m;
        gt_storage *s = gt_zeros(GT_FLOAT64, "IJK", shape, &o);
        ck_assert_ptr_nonnull(s);
        uintptr_t h = (uintptr_t)gt_host(s, GT_READ), d = (uintptr_t)gt_device_ptr(s, GT_READ);
        int64_t first = gt_strides(s)[0]; /* aligned_index: the lower halo, (1,0,0) */
        ck_assert_uint_eq((h + (uintptr_t)first * 8) % 192, 0);
        ck_assert_uint_eq((d + (uintptr_t)first * 8) % 192, 0);
        gt_release(s);
    }
    ck_assert_int_eq(fake.live, 0);
}
END_TEST

Suite *suite_rt_device(void); /* collected by tests/unit/main.c */

Suite *suite_rt_device(void)
{
    Suite *s = suite_create("rt_device");
    TCase *t = tcase_create("no_cuda");
    tcase_add_test(t, no_cuda);
    suite_add_tcase(s, t);
    t = tcase_create("fake_device");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, runtime_managed);
    tcase_add_test(t, host_only_with_device_layer);
    tcase_add_test(t, filled_start_host_dirty);
    tcase_add_test(t, views_share_state);
    tcase_add_test(t, explicit_calls);
    tcase_add_test(t, user_managed);
    tcase_add_test(t, cuda_managed);
    tcase_add_test(t, device_failures);
    tcase_add_test(t, sync_by_operations);
    tcase_add_test(t, copy_into_itself);
    tcase_add_test(t, bind_syncs);
    tcase_add_test(t, bind_device_syncs);
    tcase_add_test(t, device_temporary_and_copies);
    tcase_add_test(t, wrap_with_device);
    tcase_add_test(t, wrap_with_gaps_downloads_elements);
    tcase_add_test(t, device_alignment);
    suite_add_tcase(s, t);
    return s;
}

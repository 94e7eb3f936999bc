/* check_pack.c: the device layer's pack and unpack (rt.h; the CUDA layer's box_copy kernel,
 * runtime/src/cuda/pack.cu, which the MPI exchange packs halo strips with) on the device
 * the layer installed, `make check-gpu` (tests/gpu/run.sh). Built with -DPACK_FAKE it runs
 * on tests/mpi/strip_device.h's fake device instead (a check of this test without a GPU).
 *
 * Random boxes (one to three dimensions, extents 0 to 9, of 1, 4 and 8-byte elements) in
 * random storages (the dimensions in any order of strides, rows padded), and boxes that
 * reach the kernel's grid limits (more than 65,535 blocks along y, more than 65,535
 * indices along z): the storage uploaded, the box packed on the device into a dense buffer
 * (strides in the storage's order, as gt__dense_strides gives them), downloaded and compared
 * element by element with the storage; then a dense buffer of other bytes unpacked into the
 * storage on the device, downloaded and compared: the box holds the buffer, every other
 * element its old bytes. Prints PASS/FAIL lines; exits with the number of failures. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#ifdef PACK_FAKE
#include "strip_device.h"
#endif

static unsigned long long rng = 0x2545f4914f6cdd1dull;

static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One box: 0, or 1 with why set. */
/* Element e of a box of extents ext (the first dimension fastest): its offset *so in
 * elements in the storage (strides) and *d in the dense buffer (dense). */
static void element(int64_t e, const int64_t *ext, const int64_t *strides, const int64_t *dense,
                    int ndim, int64_t *so, int64_t *d)
{
    *so = *d = 0;
    for (int x = 0; x < ndim; x++) {
        int64_t i = e % ext[x];
        e /= ext[x];
        *so += i * strides[x];
        *d += i * dense[x];
    }
}

static int one_box(const gt__device_ops *o, void *stream, int ndim, const int64_t *ext,
                   const int64_t *strides, size_t es, char *why, size_t len)
{
    /* the storage's span and the dense strides, by increasing storage stride */
    int64_t last = 0, n = 1, dense[3] = {0, 0, 0};
    int order[3] = {0, 1, 2};
    for (int x = 0; x < ndim; x++) {
        last += (ext[x] > 0 ? ext[x] - 1 : 0) * strides[x];
        n *= ext[x];
    }
    for (int x = 0; x < ndim; x++)
        for (int y = x + 1; y < ndim; y++)
            if (strides[order[y]] < strides[order[x]]) {
                int t = order[x];
                order[x] = order[y];
                order[y] = t;
            }
    for (int x = 0, step = 1; x < ndim; x++) {
        dense[order[x]] = step;
        step *= (int)ext[order[x]];
    }
    size_t sbytes = (size_t)(last + 1) * es, dbytes = (size_t)(n > 0 ? n : 1) * es;
    unsigned char *hs = malloc(sbytes), *hd = malloc(dbytes), *back = malloc(sbytes);
    unsigned char *fresh = malloc(dbytes);
    void *ds = NULL, *dd = NULL;
    int rc = 0, err = 0;
    for (size_t b = 0; b < sbytes; b++)
        hs[b] = (unsigned char)next();
    for (size_t b = 0; b < dbytes; b++)
        fresh[b] = (unsigned char)next();
    if ((err = o->alloc(&ds, sbytes)) || (err = o->alloc(&dd, dbytes)) ||
        (err = o->to_device(ds, hs, sbytes)) ||
        (err = o->pack(dd, dense, ds, strides, ext, ndim, es, stream)) ||
        (err = o->stream_wait(stream)) || (err = o->to_host(hd, dd, n > 0 ? dbytes : 0))) {
        snprintf(why, len, "packing: device error %d (%s)", err, gt__device_why(o, err));
        rc = 1;
    }
    /* every element of the box, I of the first dimension fastest */
    for (int64_t e = 0; !rc && e < n; e++) {
        int64_t so, d;
        element(e, ext, strides, dense, ndim, &so, &d);
        if (memcmp(hd + d * (int64_t)es, hs + so * (int64_t)es, es) != 0) {
            snprintf(why, len, "pack: element %lld of the box (dense offset %lld) differs",
                     (long long)e, (long long)d);
            rc = 1;
        }
    }
    if (!rc && ((err = o->to_device(dd, fresh, n > 0 ? dbytes : 0)) ||
                (err = o->unpack(ds, strides, dd, dense, ext, ndim, es, stream)) ||
                (err = o->stream_wait(stream)) || (err = o->to_host(back, ds, sbytes)))) {
        snprintf(why, len, "unpacking: device error %d (%s)", err, gt__device_why(o, err));
        rc = 1;
    }
    if (!rc) {
        /* what the storage must hold: its old bytes, the box from fresh */
        for (int64_t e = 0; e < n; e++) {
            int64_t so, d;
            element(e, ext, strides, dense, ndim, &so, &d);
            memcpy(hs + so * (int64_t)es, fresh + d * (int64_t)es, es);
        }
        if (memcmp(back, hs, sbytes) != 0) {
            size_t b = 0;
            while (back[b] == hs[b])
                b++;
            snprintf(why, len, "unpack: the storage differs at byte %zu", b);
            rc = 1;
        }
    }
    if (ds)
        o->release(ds);
    if (dd)
        o->release(dd);
    free(hs);
    free(hd);
    free(back);
    free(fresh);
    return rc;
}

int main(void)
{
#ifdef PACK_FAKE
    gt__set_device_ops(&strip_device);
#else
    gt__cuda_init();   /* (linked statically, the layer's constructor is not pulled in) */
#endif
    const gt__device_ops *o = gt__device_ops_get();
    void *stream = NULL;
    if (o->unavailable || !o->pack || !o->unpack || o->stream_create(&stream) != 0) {
        printf("FAIL pack: the device layer \"%s\" cannot pack (%s)\n", o->name,
               o->unavailable ? o->unavailable : "no pack, unpack or stream");
        return 1;
    }
    int failures = 0, cases = 0;
    char why[200] = "", name[200];
    static const size_t sizes[3] = {1, 4, 8};
    for (int c = 0; c < 300 && !failures; c++) {
        int ndim = 1 + (int)(next() % 3);
        int64_t ext[3] = {1, 1, 1}, shape[3], strides[3];
        int perm[3] = {0, 1, 2};
        for (int x = 0; x < ndim; x++) {
            ext[x] = (int64_t)(next() % 10);
            if (c % 7 == 0 && x == 0)
                ext[x] = 1;
            shape[x] = ext[x] + (int64_t)(next() % 4);
        }
        for (int x = ndim - 1; x > 0; x--) {
            int y = (int)(next() % (unsigned)(x + 1)), t = perm[x];
            perm[x] = perm[y];
            perm[y] = t;
        }
        int64_t step = 1;   /* perm[0] fastest, each row padded by up to 2 elements */
        for (int x = 0; x < ndim; x++) {
            strides[perm[x]] = step;
            step *= shape[perm[x]] + (int64_t)(next() % 3);
        }
        size_t es = sizes[next() % 3];
        cases++;
        if (one_box(o, stream, ndim, ext, strides, es, why, sizeof why)) {
            printf("FAIL pack: random box %d (%dD, extent %lld %lld %lld, strides %lld %lld "
                   "%lld, %zu-byte elements): %s\n", c, ndim, (long long)ext[0],
                   (long long)ext[1], (long long)ext[2], (long long)strides[0],
                   (long long)strides[1], (long long)strides[2], es, why);
            failures++;
        }
    }
    if (!failures)
        printf("PASS pack: %d random boxes packed and unpacked on the device\n", cases);
    /* the grid's limits: more than 65,535 blocks along y (a short first dimension, 8 rows a
       block), more than 65,535 indices along z */
    static const int64_t big[2][3] = {{2, 600000, 1}, {2, 3, 70000}};
    for (int b = 0; b < 2; b++) {
        int64_t strides[3] = {1, big[b][0] + 1, (big[b][0] + 1) * (big[b][1] + 2)};
        snprintf(name, sizeof name, "box of %lld x %lld x %lld", (long long)big[b][0],
                 (long long)big[b][1], (long long)big[b][2]);
        if (one_box(o, stream, 3, big[b], strides, 4, why, sizeof why)) {
            printf("FAIL pack: %s: %s\n", name, why);
            failures++;
        } else {
            printf("PASS pack: %s packed and unpacked on the device\n", name);
        }
    }
    o->stream_destroy(stream);
    return failures;
}

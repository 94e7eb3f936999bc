/* bench/python/call.c: the C side of bench/python/bench.py: the very library the Python
 * package built for bench.py's program (the cache entry's libstencils.so, gtcc -b openmp,
 * compiled with the package's flags), loaded with dlopen and called from C on storages of
 * the runtime: the same machine code on the same kind of storages, only the caller differs.
 *
 *   call LIB TINY_CALLS N NK LARGE_CALLS
 *
 * prints "tiny US" (median over 31 batches of TINY_CALLS calls of add3 on 4x4x1 storages, per
 * call) and "large S" (median of LARGE_CALLS calls of hdiff on N x N x NK). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <gt/gt.h>
#include "bench.h"

typedef int stencil3(gt_storage *, gt_storage *, gt_storage *, const gt_domain *);

int main(int argc, char **argv)
{
    if (argc != 6)
        return 2;
    void *lib = dlopen(argv[1], RTLD_NOW);
    stencil3 *add3 = lib ? (stencil3 *)dlsym(lib, "add3") : NULL;
    stencil3 *hdiff = lib ? (stencil3 *)dlsym(lib, "hdiff") : NULL;
    if (!add3 || !hdiff) {
        fprintf(stderr, "call: %s: %s\n", argv[1], dlerror());
        return 1;
    }
    int tiny = atoi(argv[2]), n = atoi(argv[3]), nk = atoi(argv[4]), large = atoi(argv[5]);
    gt_storage *a = gt_zeros(GT_FLOAT64, "IJK", (int64_t[]){4, 4, 1}, NULL);
    gt_storage *b = gt_zeros(GT_FLOAT64, "IJK", (int64_t[]){4, 4, 1}, NULL);
    gt_storage *c = gt_zeros(GT_FLOAT64, "IJK", (int64_t[]){4, 4, 1}, NULL);
    double t[64];
    for (int r = 0; r < 31; r++) {
        double t0 = now();
        for (int i = 0; i < tiny; i++)
            if (add3(a, b, c, NULL)) {
                fprintf(stderr, "call: %s\n", gt_last_error());
                return 1;
            }
        t[r] = (now() - t0) / tiny;
    }
    printf("tiny %.3f\n", 1e6 * median(t, 31));
    gt_storage_opts h = {.halo = {{2, 2}, {2, 2}, {0, 0}}};
    int64_t shape[3] = {n + 4, n + 4, nk};
    gt_storage *u = gt_full(GT_FLOAT64, "IJK", shape, 1.0, &h);
    gt_storage *co = gt_full(GT_FLOAT64, "IJK", shape, 0.025, &h);
    gt_storage *o = gt_zeros(GT_FLOAT64, "IJK", shape, &h);
    gt_domain dom = {{n, n, nk}};
    if (!u || !co || !o || hdiff(u, co, o, &dom)) {
        fprintf(stderr, "call: %s\n", gt_last_error());
        return 1;
    }
    if (large > 64)
        large = 64;
    for (int r = 0; r < large; r++) {
        double t0 = now();
        hdiff(u, co, o, &dom);
        t[r] = now() - t0;
    }
    printf("large %.6e\n", median(t, large));
    gt_release(a), gt_release(b), gt_release(c), gt_release(u), gt_release(co), gt_release(o);
    return 0;
}

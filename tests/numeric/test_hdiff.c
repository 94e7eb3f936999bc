/* test_hdiff.c: hdiff.stn against the textbook horizontal diffusion with a flux limiter,
 * written as separate passes over arrays: the Laplacian on the domain grown by one, the
 * fluxes on the domain grown by one on their lower side, limited where they would
 * amplify, then the update. Same operations in the same order: tolerance 1e-12.
 * Also GT_ENOMEM: each allocation of a temporary made to fail in turn (through the
 * runtime's allocator hook), the call fails, nothing is written, nothing leaks. */
#include <stdio.h>
#include <stdlib.h>

#include "hdiff.h"
#include "numeric.h"
#include "rt.h"   /* gt__set_allocator: the runtime's test hook for allocation failures */

enum { NI = 12, NJ = 10, NK = 4 };

static double lap(const Arr *u, int64_t i, int64_t j, int64_t k)
{
    return 4.0 * A(*u, i, j, k) -
           (A(*u, i - 1, j, k) + A(*u, i + 1, j, k) + A(*u, i, j - 1, k) + A(*u, i, j + 1, k));
}

static void reference(const Arr *u, const Arr *coeff, Arr *out, const int64_t d[3])
{
    int64_t ni = d[0], nj = d[1], nk = d[2];
    /* planes with one point of margin on each side: index + 1 */
    size_t plane = (size_t)((ni + 2) * (nj + 2));
    double *l = malloc(plane * sizeof *l), *flx = malloc(plane * sizeof *flx),
           *fly = malloc(plane * sizeof *fly);
#define P(a, i, j) a[((i) + 1) * (nj + 2) + (j) + 1]
    for (int64_t k = 0; k < nk; k++) {
        for (int64_t i = -1; i <= ni; i++)
            for (int64_t j = -1; j <= nj; j++)
                P(l, i, j) = lap(u, i, j, k);
        for (int64_t i = -1; i < ni; i++)
            for (int64_t j = 0; j < nj; j++) {
                P(flx, i, j) = P(l, i + 1, j) - P(l, i, j);
                if (P(flx, i, j) * (A(*u, i + 1, j, k) - A(*u, i, j, k)) > 0.0)
                    P(flx, i, j) = 0.0;
            }
        for (int64_t i = 0; i < ni; i++)
            for (int64_t j = -1; j < nj; j++) {
                P(fly, i, j) = P(l, i, j + 1) - P(l, i, j);
                if (P(fly, i, j) * (A(*u, i, j + 1, k) - A(*u, i, j, k)) > 0.0)
                    P(fly, i, j) = 0.0;
            }
        for (int64_t i = 0; i < ni; i++)
            for (int64_t j = 0; j < nj; j++)
                A(*out, i, j, k) = A(*u, i, j, k) -
                                   A(*coeff, i, j, k) * (P(flx, i, j) - P(flx, i - 1, j) +
                                                         P(fly, i, j) - P(fly, i, j - 1));
    }
#undef P
    free(l);
    free(flx);
    free(fly);
}

static void run(const char *name, Layout lay, const int64_t *domain)
{
    int64_t n[3] = {NI, NJ, NK};
    int64_t h2[3][2] = {{2, 2}, {2, 2}, {0, 0}}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Fld u = fld_new(GT_FLOAT64, lay, n, h2);
    Fld coeff = fld_new_range(GT_FLOAT64, lay, n, h0, 0, 0.2);
    Fld out = fld_new(GT_FLOAT64, lay, n, h2);
    int64_t d[3] = {NI, NJ, NK};
    gt_domain dom;
    if (domain)
        for (int a = 0; a < 3; a++)
            d[a] = dom.size[a] = domain[a];
    char label[160];
    int rc = hdiff(u.s, coeff.s, out.s, domain ? &dom : NULL);
    snprintf(label, sizeof label, "hdiff %s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr want = arr_like(&out);
        reference(&u.before, &coeff.before, &want, d);
        snprintf(label, sizeof label, "hdiff %s: output", name);
        check_field(label, &out, &want, d, 1e-12);
        snprintf(label, sizeof label, "hdiff %s: inputs unchanged", name);
        check(label, check_unchanged("u", &u) && check_unchanged("coeff", &coeff), "%s",
              "an input changed");
        arr_free(&want);
    }
    fld_free(&u);
    fld_free(&coeff);
    fld_free(&out);
}

static int allowed;   /* allocations that may still succeed */

static void *failing_alloc(size_t nbytes, void *ctx)
{
    (void)ctx;
    return allowed-- > 0 ? malloc(nbytes) : NULL;
}

static void plain_free(void *p, void *ctx)
{
    (void)ctx;
    free(p);
}

static void out_of_memory(void)
{
    int64_t n[3] = {NI, NJ, NK};
    int64_t h2[3][2] = {{2, 2}, {2, 2}, {0, 0}}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Layout c = {"IJK", NULL, "C"};
    Fld u = fld_new(GT_FLOAT64, c, n, h2), coeff = fld_new(GT_FLOAT64, c, n, h0);
    Fld out = fld_new(GT_FLOAT64, c, n, h0);
    const gt__allocator failing = {failing_alloc, plain_free, NULL};
    int rc = GT_ENOMEM;
    for (int k = 0; k < 16 && rc == GT_ENOMEM; k++) {
        allowed = k;
        gt__set_allocator(&failing);
        rc = hdiff(u.s, coeff.s, out.s, NULL);
        gt__set_allocator(NULL);
        char label[96];
        if (rc == 0)
            break;
        snprintf(label, sizeof label, "ENOMEM after %d allocations", k);
        const char *needles[] = {NULL};
        check_error(label, rc, GT_ENOMEM, needles);
        snprintf(label, sizeof label, "ENOMEM after %d allocations: output unchanged", k);
        check_unchanged(label, &out);
    }
    check("ENOMEM: succeeds once allocations do", rc == 0, "returned %d", rc);
    fld_free(&u);
    fld_free(&coeff);
    fld_free(&out);
}

int main(void)
{
    rng_seed(2);
    run("C order", (Layout){"IJK", NULL, "C"}, NULL);
    run("Fortran order", (Layout){"IJK", NULL, "F"}, NULL);
    run("axes KJI", (Layout){"KJI", NULL, "C"}, NULL);
    run("smaller domain", (Layout){"IJK", NULL, "C"}, (int64_t[3]){7, 5, 2});
    out_of_memory();
    return failures() != 0;
}

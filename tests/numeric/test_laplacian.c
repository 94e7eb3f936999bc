/* test_laplacian.c: laplacian.stn on every layout and axis order, with the domain inferred
 * and given, and every error code of the generated API with its message and the output left
 * unchanged. Reference: the five-point formula in plain loops. Tolerance 1e-12 relative:
 * the generated code evaluates the same operations in the same order, so the results are
 * equal unless the compiler reassociates (it may not under -std=c11). */
#include <stdio.h>

#include "laplacian.h"
#include "numeric.h"

enum { NI = 11, NJ = 9, NK = 5 };

static void reference(const Fld *u, Arr *out, const int64_t d[3])
{
    const Arr *a = &u->before;
    for (int64_t i = 0; i < d[0]; i++)
        for (int64_t j = 0; j < d[1]; j++)
            for (int64_t k = 0; k < d[2]; k++)
                A(*out, i, j, k) = -4.0 * A(*a, i, j, k) + A(*a, i - 1, j, k) +
                                   A(*a, i + 1, j, k) + A(*a, i, j - 1, k) + A(*a, i, j + 1, k);
}

static void run(const char *name, Layout lu, Layout lo, int64_t hu[3][2],
                int64_t ho[3][2], const int64_t *domain)
{
    int64_t n[3] = {NI, NJ, NK};
    Fld u = fld_new(GT_FLOAT64, lu, n, hu);
    Fld out = fld_new(GT_FLOAT64, lo, n, ho);
    int64_t d[3] = {NI, NJ, NK};
    gt_domain dom;
    if (domain) {
        for (int a = 0; a < 3; a++)
            d[a] = dom.size[a] = domain[a];
    }
    int rc = laplacian(u.s, out.s, domain ? &dom : NULL);
    char label[128];
    snprintf(label, sizeof label, "%s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr want = arr_like(&out);
        reference(&u, &want, d);
        snprintf(label, sizeof label, "%s: output", name);
        check_field(label, &out, &want, d, 1e-12);
        snprintf(label, sizeof label, "%s: input unchanged", name);
        check_unchanged(label, &u);
        arr_free(&want);
    }
    fld_free(&u);
    fld_free(&out);
}

/* A failing call: code and message, and nothing written. */
static void fails(const char *name, gt_storage *u, Fld *out, gt_storage *out_s,
                  const gt_domain *dom, int code, const char *needle)
{
    const char *needles[] = {"laplacian", needle, NULL};
    check_error(name, laplacian(u, out_s, dom), code, needles);
    char label[128];
    snprintf(label, sizeof label, "%s: output unchanged", name);
    check_unchanged(label, out);
}

static void errors(void)
{
    Layout c = {"IJK", NULL, "C"};
    int64_t n[3] = {NI, NJ, NK};
    int64_t h1[3][2] = {{1, 1}, {1, 1}, {0, 0}}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Fld u = fld_new(GT_FLOAT64, c, n, h1);
    Fld out = fld_new(GT_FLOAT64, c, n, h0);

    fails("EINVAL: NULL storage", NULL, &out, out.s, NULL, GT_EINVAL, "'u'");
    gt_domain negative = {{-1, NJ, NK}};
    fails("EINVAL: negative domain", u.s, &out, out.s, &negative, GT_EINVAL, "-1");

    Fld uf = fld_new(GT_FLOAT32, c, n, h1);
    fails("EDTYPE: float storage for a double field", uf.s, &out, out.s, NULL, GT_EDTYPE, "'u'");
    fld_free(&uf);

    Fld u2 = fld_new(GT_FLOAT64, (Layout){"IJ", NULL, "C"}, n, h1);
    fails("EAXES: IJ storage for an IJK field", u2.s, &out, out.s, NULL, GT_EAXES, "'u'");
    fld_free(&u2);

    gt_domain big = {{NI + 1, NJ, NK}};
    fails("ESHAPE: domain larger than the interior", u.s, &out, out.s, &big, GT_ESHAPE, "12");

    Fld small = fld_new(GT_FLOAT64, c, (int64_t[3]){NI - 2, NJ, NK}, h0);
    fails("ESHAPE: inferred domain does not fit the input", small.s, &out, out.s, NULL,
          GT_ESHAPE, "'u'");
    fld_free(&small);

    Fld nohalo = fld_new(GT_FLOAT64, c, n, h0);
    fails("EHALO: input without halo", nohalo.s, &out, out.s, NULL, GT_EHALO, "'u'");
    fld_free(&nohalo);

    Fld lowhalo = fld_new(GT_FLOAT64, c, n, (int64_t[3][2]){{1, 0}, {1, 1}, {0, 0}});
    fails("EHALO: upper halo missing along I", lowhalo.s, &out, out.s, NULL, GT_EHALO, "I");
    fld_free(&lowhalo);

    /* the output is the input itself, then a view of the input's buffer */
    fails("EALIAS: output is the input", u.s, &u, u.s, NULL, GT_EALIAS, "'u'");
    gt_storage *view = gt_domain_view(u.s);
    fails("EALIAS: output is a view of the input", u.s, &u, view, NULL, GT_EALIAS, "'u'");
    gt_release(view);

    check_unchanged("errors: input unchanged", &u);
    fld_free(&u);
    fld_free(&out);
}

int main(void)
{
    rng_seed(1);
    int64_t h1[3][2] = {{1, 1}, {1, 1}, {0, 0}};
    int64_t h2[3][2] = {{2, 3}, {1, 2}, {1, 1}};
    int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Layout c = {"IJK", NULL, "C"}, f = {"IJK", NULL, "F"};
    Layout kji = {"KJI", NULL, "C"}, jki = {"JKI", "KIJ", NULL};
    run("C order", c, c, h1, h0, NULL);
    run("Fortran order", f, f, h1, h0, NULL);
    run("axes KJI", kji, kji, h1, h0, NULL);
    run("axes JKI with layout KIJ, output in F order with a halo", jki, f, h2, h1, NULL);
    run("C input, KJI output", c, kji, h2, h2, NULL);
    int64_t smaller[3] = {7, 4, 3};
    run("explicit smaller domain", c, c, h1, h1, smaller);
    run("explicit smaller domain, Fortran order", f, kji, h2, h0, smaller);
    fld_alignment = 8;
    run("aligned to 8 elements (padded rows), C order", c, c, h2, h1, NULL);
    run("aligned to 8 elements (padded rows), axes KJI", kji, f, h1, h0, smaller);
    fld_alignment = 0;
    int64_t empty[3] = {0, NJ, NK};
    run("empty domain", c, c, h1, h0, empty);
    errors();
    return failures() != 0;
}

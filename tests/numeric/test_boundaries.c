/* test_boundaries.c: boundaries.stn. The reference extends each input by the table of
 * language.md section 7 (bc_value below: periodic p -/+ n, dirichlet the constant if any
 * dirichlet axis is outside, neumann the nearest edge, mirror -p-1 / 2n-p-1) and evaluates
 * the formulas on plain arrays. Inputs have no halo (a boundary condition needs none), so a
 * read outside the storage would be caught by the sanitizers. Exact to 1e-12. */
#include <stdio.h>
#include <string.h>

#include "boundaries.h"
#include "numeric.h"

enum { NI = 9, NJ = 8, NK = 7 };
enum { NONE, PERIODIC, DIRICHLET, NEUMANN, MIRROR };

typedef struct {
    int kind[3];
    double value;
} Bc;

/* The value of input u at (i, j, k), possibly outside the domain d. */
static double bc_value(const Arr *u, Bc bc, const int64_t d[3], int64_t i, int64_t j, int64_t k)
{
    int64_t p[3] = {i, j, k};
    for (int a = 0; a < 3; a++) {
        if (p[a] >= 0 && p[a] < d[a])
            continue;
        if (bc.kind[a] == DIRICHLET)
            return bc.value;
    }
    for (int a = 0; a < 3; a++) {
        int64_t n = d[a];
        if (p[a] >= 0 && p[a] < n)
            continue;
        switch (bc.kind[a]) {
        case PERIODIC: p[a] = p[a] < 0 ? p[a] + n : p[a] - n; break;
        case NEUMANN: p[a] = p[a] < 0 ? 0 : n - 1; break;
        case MIRROR: p[a] = p[a] < 0 ? -p[a] - 1 : 2 * n - p[a] - 1; break;
        default: break;
        }
    }
    return A(*u, p[0], p[1], p[2]);
}

static int64_t H0[3][2] = {{0, 0}, {0, 0}, {0, 0}};

typedef int (*Two)(gt_storage *, gt_storage *, const gt_domain *);

static void horizontal(const char *name, Two fn, Bc bc, Layout lay, const int64_t *domain)
{
    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    gt_domain dom;
    if (domain)
        for (int a = 0; a < 3; a++)
            d[a] = dom.size[a] = domain[a];
    Fld u = fld_new(GT_FLOAT64, lay, n, H0);
    Fld out = fld_new(GT_FLOAT64, lay, n, H0);
    char label[128];
    int rc = fn(u.s, out.s, domain ? &dom : NULL);
    snprintf(label, sizeof label, "%s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr want = arr_like(&out);
        for (int64_t i = 0; i < d[0]; i++)
            for (int64_t j = 0; j < d[1]; j++)
                for (int64_t k = 0; k < d[2]; k++) {
#define U(di, dj) bc_value(&u.before, bc, d, i + (di), j + (dj), k)
#define T(di) (U((di) + 2, 0) - U((di), -1))
                    A(want, i, j, k) = T(-1) + T(1) + 0.5 * U(-2, 1);
#undef T
#undef U
                }
        snprintf(label, sizeof label, "%s: output", name);
        check_field(label, &out, &want, d, 1e-12);
        arr_free(&want);
    }
    fld_free(&u);
    fld_free(&out);
}

/* A mirror reflects a read back into the domain only as far as the domain is wide: a call
   on a domain narrower than the field's reach along a mirror axis is GT_ESHAPE, naming the
   field and the axis, with nothing written. */
static void mirror_refused(const char *name, int vertical, const int64_t domain[3],
                           const char *want)
{
    int64_t n[3] = {NI, NJ, NK};
    Layout c = {"IJK", NULL, "C"};
    gt_domain dom = {{domain[0], domain[1], domain[2]}};
    Fld u = fld_new(GT_FLOAT64, c, n, H0), v = fld_new(GT_FLOAT64, c, n, H0);
    Fld out = fld_new(GT_FLOAT64, c, n, H0);
    int rc = vertical ? vertical_bc(u.s, v.s, out.s, &dom) : mirror_bc(u.s, out.s, &dom);
    char label[128];
    snprintf(label, sizeof label, "%s: GT_ESHAPE", name);
    check(label, rc == GT_ESHAPE && strstr(gt_last_error(), want) != NULL,
          "returned %d: %s (wanted GT_ESHAPE and \"%s\")", rc, gt_last_error(), want);
    snprintf(label, sizeof label, "%s: nothing written", name);
    check_unchanged(label, &out);
    fld_free(&u);
    fld_free(&v);
    fld_free(&out);
}

int main(void)
{
    rng_seed(8);
    Layout c = {"IJK", NULL, "C"}, f = {"KJI", NULL, "F"};
    int64_t small[3] = {5, 6, 3};
    horizontal("periodic", periodic_bc, (Bc){{PERIODIC, PERIODIC, NONE}, 0}, c, NULL);
    horizontal("periodic, KJI", periodic_bc, (Bc){{PERIODIC, PERIODIC, NONE}, 0}, f, NULL);
    horizontal("periodic, smaller domain", periodic_bc, (Bc){{PERIODIC, PERIODIC, NONE}, 0}, c,
               small);
    horizontal("dirichlet", dirichlet_bc, (Bc){{DIRICHLET, DIRICHLET, NONE}, 2.5}, c, NULL);
    horizontal("dirichlet, KJI", dirichlet_bc, (Bc){{DIRICHLET, DIRICHLET, NONE}, 2.5}, f, NULL);
    horizontal("neumann", neumann_bc, (Bc){{NEUMANN, NEUMANN, NONE}, 0}, c, NULL);
    horizontal("neumann, smaller domain", neumann_bc, (Bc){{NEUMANN, NEUMANN, NONE}, 0}, f, small);
    horizontal("mirror", mirror_bc, (Bc){{MIRROR, MIRROR, NONE}, 0}, c, NULL);
    horizontal("mirror, KJI", mirror_bc, (Bc){{MIRROR, MIRROR, NONE}, 0}, f, NULL);
    /* mirror_bc reads u up to 3 points beyond the domain along I, 1 along J */
    int64_t edge[3] = {3, 1, 2}, narrow[3] = {2, 6, 3};
    horizontal("mirror, a domain as wide as the reach", mirror_bc,
               (Bc){{MIRROR, MIRROR, NONE}, 0}, c, edge);
    mirror_refused("mirror, a domain narrower than the reach along I", 0, narrow,
                   "field 'u' has a mirror boundary condition along I and is read up to 3 "
                   "point(s) beyond the domain there, which is 2 wide");
    /* vertical_bc reads v (mirror along K) 2 levels below the domain */
    int64_t flat[3] = {NI, NJ, 1};
    mirror_refused("mirror along K, one level", 1, flat,
                   "field 'v' has a mirror boundary condition along K and is read up to 2 "
                   "point(s) beyond the domain there, which is 1 wide");

    int64_t n[3] = {NI, NJ, NK}, d[3] = {NI, NJ, NK};
    char label[128];
    {
        Fld u = fld_new(GT_FLOAT64, c, n, H0), v = fld_new(GT_FLOAT64, f, n, H0);
        Fld out = fld_new(GT_FLOAT64, c, n, H0);
        int rc = vertical_bc(u.s, v.s, out.s, NULL);
        if (check("vertical: returns 0", rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Bc bu = {{NONE, NONE, NEUMANN}, 0}, bv = {{NONE, NONE, MIRROR}, 0};
            Arr want = arr_like(&out);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++)
                        A(want, i, j, k) = bc_value(&u.before, bu, d, i, j, k - 1) -
                                           2.0 * bc_value(&u.before, bu, d, i, j, k) +
                                           bc_value(&u.before, bu, d, i, j, k + 2) +
                                           bc_value(&v.before, bv, d, i, j, k - 2) *
                                               bc_value(&v.before, bv, d, i, j, k + 1);
            check_field("vertical: output", &out, &want, d, 1e-12);
            arr_free(&want);
        }
        fld_free(&u);
        fld_free(&v);
        fld_free(&out);
    }
    for (int l = 0; l < 2; l++) {
        Layout lay = l ? f : c;
        Fld u = fld_new(GT_FLOAT64, lay, n, H0), v = fld_new(GT_FLOAT64, lay, n, H0);
        /* w: periodic along J only, so it needs a halo of 1 along I */
        Fld w = fld_new(GT_FLOAT64, lay, n, (int64_t[3][2]){{0, 1}, {0, 0}, {0, 0}});
        Fld out = fld_new(GT_FLOAT64, lay, n, H0);
        int rc = mixed_bc(u.s, v.s, w.s, out.s, NULL);
        snprintf(label, sizeof label, "mixed %d: returns 0", l);
        if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            Bc bu = {{PERIODIC, DIRICHLET, NONE}, -1.0}, bv = {{MIRROR, NEUMANN, NONE}, 0};
            Bc bw = {{NONE, PERIODIC, NONE}, 0};
            Arr want = arr_like(&out);
            for (int64_t i = 0; i < NI; i++)
                for (int64_t j = 0; j < NJ; j++)
                    for (int64_t k = 0; k < NK; k++)
                        A(want, i, j, k) =
                            bc_value(&u.before, bu, d, i - 1, j + 1, k) +
                            bc_value(&u.before, bu, d, i + 1, j - 1, k) *
                                bc_value(&v.before, bv, d, i + 2, j - 2, k) -
                            bc_value(&v.before, bv, d, i - 1, j + 1, k) +
                            bc_value(&w.before, bw, d, i, j + 2, k) *
                                bc_value(&w.before, bw, d, i + 1, j, k);
            snprintf(label, sizeof label, "mixed %d: output", l);
            check_field(label, &out, &want, d, 1e-12);
            arr_free(&want);
        }
        fld_free(&u);
        fld_free(&v);
        fld_free(&w);
        fld_free(&out);
    }
    return failures() != 0;
}

/* test_rows.c: rows.stn. The reference extends each input by the table of language.md
 * section 7 (a read outside along several Dirichlet axes gives the constant of the first
 * of them in I, J, K order) and evaluates the formulas on plain arrays, on domains whose
 * rows are shorter than, as long as, and longer than the 16 points the openmp backend's
 * row loop takes at once, in both layouts (I contiguous or not), over the whole storage
 * and a smaller domain. Inputs have no halo where a condition applies, so a read outside
 * the storage would be caught by the sanitizers. Exact to 1e-12. */
#include <stdio.h>

#include "numeric.h"
#include "rows.h"

enum { NONE, PERIODIC, DIRICHLET };

typedef struct {
    int kind[3];
    double value[3];
} Bc;

/* Input u at (i, j, k), possibly outside the domain d. */
static double at(const Arr *u, Bc bc, const int64_t d[3], int64_t i, int64_t j, int64_t k)
{
    int64_t p[3] = {i, j, k};
    for (int a = 0; a < 3; a++)
        if ((p[a] < 0 || p[a] >= d[a]) && bc.kind[a] == DIRICHLET)
            return bc.value[a];
    for (int a = 0; a < 3; a++)
        if (bc.kind[a] == PERIODIC && (p[a] < 0 || p[a] >= d[a]))
            p[a] = p[a] < 0 ? p[a] + d[a] : p[a] - d[a];
    return A(*u, p[0], p[1], p[2]);
}

#define D3(c) {{DIRICHLET, DIRICHLET, DIRICHLET}, {c, c, c}}

static int64_t H0[3][2] = {{0, 0}, {0, 0}, {0, 0}};

/* One size, layout and domain (d: NULL for the whole storage). */
static void run(const int64_t n[3], Layout lay, const int64_t *dom)
{
    int64_t d[3] = {n[0], n[1], n[2]};
    gt_domain domain;
    if (dom)
        for (int a = 0; a < 3; a++)
            d[a] = domain.size[a] = dom[a];
    const gt_domain *dp = dom ? &domain : NULL;
    char tag[96], label[160];
    snprintf(tag, sizeof tag, "%lldx%lldx%lld %s%s", (long long)n[0], (long long)n[1],
             (long long)n[2], lay.axes, dom ? ", smaller domain" : "");
    Fld u = fld_new(GT_FLOAT64, lay, n, H0);
    Fld uh = fld_new(GT_FLOAT64, lay, n, (int64_t[3][2]){{1, 1}, {0, 0}, {1, 0}});
    Fld w = fld_new(GT_FLOAT64, lay, n, (int64_t[3][2]){{0, 1}, {1, 0}, {0, 0}});
    Fld p = fld_new(GT_FLOAT64, lay, n, H0);
    Fld v = fld_new(GT_FLOAT64, lay, n, H0);
    Fld out = fld_new(GT_FLOAT64, lay, n, H0);
    Bc none = {{NONE, NONE, NONE}, {0, 0, 0}};
    for (int s = 0; s < 6; s++) {
        static const char *const label_of[] = {"box", "jk", "split", "inout", "ring", "names"};
        int rc = 0;
        Fld *res = &out;
        switch (s) {
        case 0: rc = box(u.s, w.s, out.s, dp); break;
        case 1: rc = jk(uh.s, out.s, dp); break;
        case 2: rc = split(u.s, out.s, dp); break;
        case 3: rc = inout(u.s, v.s, dp); res = &v; break;
        case 4: rc = ring(u.s, p.s, out.s, dp); break;
        case 5: rc = names(uh.s, out.s, 3.0, 5.0, 7.0, 11.0, dp); break;
        }
        snprintf(label, sizeof label, "%s %s: returns 0", label_of[s], tag);
        if (!check(label, rc == 0, "returned %d: %s", rc, gt_last_error()))
            continue;
        Arr want = arr_like(res);
        for (int64_t i = 0; i < d[0]; i++)
            for (int64_t j = 0; j < d[1]; j++)
                for (int64_t k = 0; k < d[2]; k++) {
                    double x = 0;
#define U(bc, di, dj, dk) at(&u.before, bc, d, i + (di), j + (dj), k + (dk))
                    if (s == 0) {
                        Bc b = D3(1.5);
                        x = U(b, 0, 0, 0) + U(b, -1, 0, 0) + 2.0 * U(b, 1, 0, 0) +
                            3.0 * U(b, 0, -1, 0) + 5.0 * U(b, 0, 2, 0) + 7.0 * U(b, 0, 0, -1) +
                            11.0 * U(b, 0, 0, 1) + 13.0 * U(b, 1, -1, 1) +
                            at(&w.before, none, d, i + 1, j, k) * at(&w.before, none, d, i, j - 1, k);
                    } else if (s == 1) {
                        Bc b = {{NONE, DIRICHLET, DIRICHLET}, {0, -2.0, -2.0}};
#define UH(di, dj, dk) at(&uh.before, b, d, i + (di), j + (dj), k + (dk))
                        x = UH(-1, -1, 0) + 0.5 * UH(1, 0, 1) - UH(-1, 1, -1);
#undef UH
                    } else if (s == 2) {
                        Bc b = {{DIRICHLET, DIRICHLET, NONE}, {1.0, 2.0, 0}};
                        x = U(b, -1, 0, 0) + 10.0 * U(b, 0, 1, 0) + 100.0 * U(b, 1, -1, 0);
                    } else if (s == 3) {
                        Bc b = {{DIRICHLET, DIRICHLET, NONE}, {0.5, 0.5, 0}};
                        x = 0.5 * A(v.before, i, j, k) + U(b, -1, 0, 0) + U(b, 0, 1, 0);
                    } else if (s == 5) {
                        /* K has no condition: uh's K halo is read (1 below) */
                        Bc b = {{DIRICHLET, DIRICHLET, NONE}, {0.25, 0.25, 0}};
                        x = at(&uh.before, b, d, i - 1, j, k) * 3.0 +
                            at(&uh.before, b, d, i, j + 1, k) * 5.0 +
                            at(&uh.before, b, d, i + 1, j, k - 1) * 7.0 + 11.0;
                    } else {
                        Bc b = {{DIRICHLET, DIRICHLET, NONE}, {3.0, 3.0, 0}};
                        Bc bp = {{NONE, PERIODIC, NONE}, {0, 0, 0}};
                        x = U(b, 0, -1, 0) * at(&p.before, bp, d, i, j - 1, k) + U(b, 1, 0, 0) -
                            at(&p.before, bp, d, i, j + 2, k) * U(b, -1, 1, 0);
                    }
#undef U
                    A(want, i, j, k) = x;
                }
        snprintf(label, sizeof label, "%s %s: output", label_of[s], tag);
        check_field(label, res, &want, d, 1e-12);
        arr_free(&want);
    }
    fld_free(&u);
    fld_free(&uh);
    fld_free(&w);
    fld_free(&p);
    fld_free(&v);
    fld_free(&out);
}

int main(void)
{
    rng_seed(24);
    Layout c = {"KJI", NULL, "C"}, f = {"IJK", NULL, "C"};
    static const int64_t sizes[][3] = {{5, 7, 4}, {16, 6, 5}, {18, 9, 6}, {37, 8, 5}};
    for (int s = 0; s < 4; s++) {
        run(sizes[s], c, NULL);
        run(sizes[s], f, NULL);
        int64_t dom[3] = {sizes[s][0] - 1, sizes[s][1] - 2, sizes[s][2] - 1};
        run(sizes[s], c, dom);
    }
    return failures() != 0;
}

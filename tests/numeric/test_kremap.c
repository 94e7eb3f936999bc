/* test_kremap.c: kremap.stn (reads at run-time K levels) against plain loops: levels at
 * both ends of the column and in the storages' K halos (readable), then levels past them
 * (GT_ESHAPE naming the field, the level and the position; outputs untouched; one a million
 * levels up, which ASan would report if the check let it be read), also with
 * an explicit domain shorter than the storages (the levels above it are readable). */
#include <stdio.h>
#include <string.h>

#include "numeric.h"
#include "kremap.h"

enum { NI = 6, NJ = 5, NK = 9 };

static void reference(const Fld *pe, const Fld *q, const Fld *n, const Fld *kbot, int s,
                      int top, Arr *a, Arr *b, const int64_t d[3])
{
    for (int64_t i = 0; i < d[0]; i++)
        for (int64_t j = 0; j < d[1]; j++)
            for (int64_t k = 0; k < d[2]; k++) {
                int nn = (int)A(n->before, i, j, k), nw = (int)A(n->before, i - 1, j, k);
                int kb = (int)A(kbot->before, i, j, 0);
                double t = A(pe->before, i, j, k + nn), tw = A(pe->before, i - 1, j, k + nw);
                A(*a, i, j, k) = A(q->before, i, j, kb) + 2.0 * (t + tw);
                int64_t c = k + s < 0 ? 0 : k + s > top ? top : k + s;
                A(*b, i, j, k) = A(q->before, i + 1, j, k - (nn + 1)) * A(pe->before, i, j, c);
            }
}

typedef struct {
    Fld pe, q, n, kbot, a, b;
} Fields;

/* Fields over NI x NJ x NK (pe and q with one K halo level each side, so levels -1 to NK
 * are readable) whose run-time levels all lie in them, for a domain of d[2] levels. */
static Fields fields(Layout lay, int64_t dk)
{
    int64_t sz[3] = {NI, NJ, NK};
    int64_t hpe[3][2] = {{1, 0}, {0, 0}, {1, 1}}, hq[3][2] = {{0, 1}, {0, 0}, {1, 1}};
    int64_t hn[3][2] = {{1, 0}, {0, 0}, {0, 0}}, h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};
    Layout ij = {strchr(lay.axes, 'K') == lay.axes ? "JI" : "IJ", NULL, lay.defaults};
    Fields f;
    f.pe = fld_new(GT_FLOAT64, lay, sz, hpe);
    f.q = fld_new(GT_FLOAT64, lay, sz, hq);
    f.n = fld_new(GT_INT32, lay, sz, hn);
    f.kbot = fld_new_range(GT_INT32, ij, (int64_t[3]){NI, NJ, 1}, h0, -1, NK);
    f.a = fld_new(GT_FLOAT64, lay, sz, h0);
    f.b = fld_new(GT_FLOAT64, lay, sz, h0);
    /* n: k + n and k - n - 1 both in [-1, NK] (the storage's levels) */
    for (int64_t i = -1; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = 0; k < NK; k++) {
                int64_t lo = -1 - k > k - NK - 1 ? -1 - k : k - NK - 1;
                int64_t hi = NK - k < k ? NK - k : k;
                fld_set(&f.n, i, j, k, lo + (int64_t)rng_uniform(0, (double)(hi - lo + 1) - 1e-9));
            }
    /* both ends of the column and both halo levels, at the domain's first and last level */
    fld_set(&f.n, 0, 0, 0, -1);         /* pe at level -1 */
    fld_set(&f.n, 1, 0, 0, 0);          /* q at level -1 */
    fld_set(&f.n, 0, 1, dk - 1, NK - dk + 1);   /* pe at level NK */
    fld_set(&f.n, 1, 1, dk - 1, dk - NK - 2);   /* q at level NK */
    fld_set(&f.kbot, 0, 0, 0, -1);
    fld_set(&f.kbot, 1, 0, 0, NK);
    return f;
}

static void release(Fields *f)
{
    fld_free(&f->pe);
    fld_free(&f->q);
    fld_free(&f->n);
    fld_free(&f->kbot);
    fld_free(&f->a);
    fld_free(&f->b);
}

static int call(Fields *f, int s, int top, const int64_t d[3])
{
    gt_domain dom = {{d[0], d[1], d[2]}};
    return kremap(f->pe.s, f->q.s, f->n.s, f->kbot.s, s, top, f->a.s, f->b.s, &dom);
}

static void run(const char *name, Layout lay, int64_t dk, int s)
{
    int64_t d[3] = {NI, NJ, dk};
    Fields f = fields(lay, dk);
    char label[160];
    int rc = call(&f, s, (int)dk - 1, d);
    snprintf(label, sizeof label, "%s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        Arr a = arr_like(&f.a), b = arr_like(&f.b);
        reference(&f.pe, &f.q, &f.n, &f.kbot, s, (int)dk - 1, &a, &b, d);
        snprintf(label, sizeof label, "%s: a", name);
        check_field(label, &f.a, &a, d, 0);
        snprintf(label, sizeof label, "%s: b", name);
        check_field(label, &f.b, &b, d, 0);
        arr_free(&a);
        arr_free(&b);
    }
    release(&f);
}

/* One level past the storage at (i, j, k) (set by bad), then GT_ESHAPE and nothing
 * written. */
static void refused(const char *name, int64_t dk, void (*bad)(Fields *f, int64_t dk),
                    const char *const *needles)
{
    int64_t d[3] = {NI, NJ, dk};
    Fields f = fields((Layout){"IJK", NULL, "C"}, dk);
    bad(&f, dk);
    char label[160];
    snprintf(label, sizeof label, "%s: GT_ESHAPE", name);
    check_error(label, call(&f, 1, (int)dk - 1, d), GT_ESHAPE, needles);
    snprintf(label, sizeof label, "%s: a unchanged", name);
    check_unchanged(label, &f.a);
    snprintf(label, sizeof label, "%s: b unchanged", name);
    check_unchanged(label, &f.b);
    release(&f);
}

static void pe_above(Fields *f, int64_t dk) { fld_set(&f->n, 2, 3, dk - 1, NK - dk + 2); }
static void pe_below(Fields *f, int64_t dk) { (void)dk; fld_set(&f->n, 4, 2, 0, -2); }
static void t_west(Fields *f, int64_t dk) { (void)dk; fld_set(&f->n, -1, 4, 3, -5); }
static void q_kbot(Fields *f, int64_t dk) { (void)dk; fld_set(&f->kbot, 3, 2, 0, NK + 1); }
static void q_rel(Fields *f, int64_t dk) { (void)dk; fld_set(&f->n, 5, 0, 1, 3); }
/* far past every buffer: a read there is what ASan (make numeric SANITIZE=1) would report */
static void pe_far(Fields *f, int64_t dk) { (void)dk; fld_set(&f->n, 0, 0, 0, 1000000); }

int main(void)
{
    rng_seed(17);
    run("C order", (Layout){"IJK", NULL, "C"}, NK, 2);
    run("Fortran order", (Layout){"IJK", NULL, "F"}, NK, -3);
    run("axes KJI", (Layout){"KJI", NULL, "C"}, NK, 0);
    run("domain of 6 levels", (Layout){"IJK", NULL, "C"}, 6, 1);

    refused("pe at level NK + 1", NK, pe_above,
            (const char *const[]){"kremap", "'pe' read at level 10 at (2, 3, 8)",
                                  "levels -1 to 9", NULL});
    refused("pe at level -2", NK, pe_below,
            (const char *const[]){"'pe' read at level -2 at (4, 2, 0)", NULL});
    refused("pe at level -2 for t[i-1]", NK, t_west,
            (const char *const[]){"'pe' read at level -2 at (-1, 4, 3)", NULL});
    refused("q at level kbot = NK + 1", NK, q_kbot,
            (const char *const[]){"'q' read at level 10 at (3, 2, 0)", NULL});
    refused("q at level -3", NK, q_rel,
            (const char *const[]){"'q' read at level -3 at (5, 0, 1)", NULL});
    refused("pe a million levels up", NK, pe_far,
            (const char *const[]){"'pe' read at level 1000000 at (0, 0, 0)", NULL});
    refused("domain of 6 levels: pe past the storage", 6, pe_above,
            (const char *const[]){"'pe' read at level 10 at (2, 3, 5)", NULL});
    return failures() != 0;
}

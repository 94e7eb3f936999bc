/* test_vremap.c: vremap.stn (run-time K levels computed from computed values, checked as
 * they are read) against plain loops. vremap: a forward computation advancing a column
 * index while the next source interface lies below the target, then interpolating the
 * source at the levels it found; vnext: a backward computation reading at levels held by
 * a field it writes. Then levels past the storages: GT_ESHAPE naming the first failure in
 * the stencil's own order (the level first, then the read, then j, then i; whatever other
 * points ran off too, and however the backend ran them), the outputs byte for byte as they
 * were, no read outside a buffer (ASan in `make numeric SANITIZE=1`: one level is a
 * million past the storage), and a while loop that would run for ever on the clamped
 * level ends. */
#include <stdio.h>
#include <string.h>

#include "numeric.h"
#include "vremap.h"

enum { NI = 7, NJ = 5, NK = 8 };

static const int64_t h0[3][2] = {{0, 0}, {0, 0}, {0, 0}};

/* ---- vremap ------------------------------------------------------------------------ */

typedef struct {
    Fld pe1, q1, pe2, q2, kout;
} Remap;

/* Source interfaces pe1 at levels 0 .. NK (one K halo level above the domain's NK), rising
   by 0.5 to 1.5 a level; q1 at the same levels (top: 0 when q1 has only NK levels, qtop
   0); targets pe2 rising through [pe1(0), pe1(NK - 1)), so that every level read lies in
   0 .. NK - 1 (NK with the interpolation's kk + 1). */
static Remap remap_fields(Layout lay, int qtop)
{
    int64_t sz[3] = {NI, NJ, NK};
    int64_t hi[3][2] = {{0, 0}, {0, 0}, {0, 1}}, hq[3][2] = {{0, 0}, {0, 0}, {0, qtop}};
    int64_t none[3][2];
    memcpy(none, h0, sizeof none);
    Remap f;
    f.pe1 = fld_new(GT_FLOAT64, lay, sz, hi);
    f.q1 = fld_new(GT_FLOAT64, lay, sz, hq);
    f.pe2 = fld_new(GT_FLOAT64, lay, sz, none);
    f.q2 = fld_new(GT_FLOAT64, lay, sz, none);
    f.kout = fld_new(GT_INT32, lay, sz, none);
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++) {
            double p = rng_uniform(-1, 1);
            for (int64_t k = 0; k <= NK; k++) {
                fld_set(&f.pe1, i, j, k, p);
                p += rng_uniform(0.5, 1.5);
            }
            double lo = A(f.pe1.before, i, j, 0), top = A(f.pe1.before, i, j, NK - 1);
            double t = lo;
            for (int64_t k = 0; k < NK; k++) {
                t += rng_uniform(0, (top - t) / 3);
                fld_set(&f.pe2, i, j, k, t);
            }
        }
    return f;
}

static void remap_free(Remap *f)
{
    fld_free(&f->pe1);
    fld_free(&f->q1);
    fld_free(&f->pe2);
    fld_free(&f->q2);
    fld_free(&f->kout);
}

static int remap_call(Remap *f)
{
    return vremap(f->pe1.s, f->q1.s, f->pe2.s, f->q2.s, f->kout.s, NULL);
}

/* The remapping by hand: per column, kk from 0, advanced while pe1(kk + 1) < pe2(k). */
static void remap_reference(const Remap *f, Arr *q2, Arr *kout)
{
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++) {
            int64_t kk = 0;
            for (int64_t k = 0; k < NK; k++) {
                double target = A(f->pe2.before, i, j, k);
                while (A(f->pe1.before, i, j, kk + 1) < target)
                    kk++;
                double lo = A(f->pe1.before, i, j, kk);
                double w = (target - lo) / (A(f->pe1.before, i, j, kk + 1) - lo);
                double a = A(f->q1.before, i, j, kk), b = A(f->q1.before, i, j, kk + 1);
                A(*q2, i, j, k) = a + w * (b - a);
                A(*kout, i, j, k) = (double)kk;
            }
        }
}

static void remap_run(const char *name, Layout lay)
{
    Remap f = remap_fields(lay, 1);
    char label[160];
    int rc = remap_call(&f);
    snprintf(label, sizeof label, "vremap %s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        int64_t d[3] = {NI, NJ, NK};
        Arr q2 = arr_like(&f.q2), kout = arr_like(&f.kout);
        remap_reference(&f, &q2, &kout);
        snprintf(label, sizeof label, "vremap %s: q2", name);
        check_field(label, &f.q2, &q2, d, 0);
        snprintf(label, sizeof label, "vremap %s: kout", name);
        check_field(label, &f.kout, &kout, d, 0);
        /* the data does make kk advance (the test would be weak otherwise) */
        snprintf(label, sizeof label, "vremap %s: kk reaches NK - 2", name);
        double most = 0;
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                most = A(kout, i, j, NK - 1) > most ? A(kout, i, j, NK - 1) : most;
        check(label, most >= NK - 3, "the largest kk is %g", most);
        arr_free(&q2);
        arr_free(&kout);
    }
    remap_free(&f);
}

/* The targets at the points given (i, j, k, then 0: at the top of pe1's column, 1: between
   pe1(NK - 1) and pe1(NK)), then GT_ESHAPE with needles, every field unchanged. */
static void remap_refused(const char *name, int qtop, const int (*at)[4], int nat,
                          const char *const *needles)
{
    Remap f = remap_fields((Layout){"IJK", NULL, "C"}, qtop);
    for (int p = 0; p < nat; p++) {
        int i = at[p][0], j = at[p][1], k = at[p][2];
        double top = A(f.pe1.before, i, j, NK), below = A(f.pe1.before, i, j, NK - 1);
        fld_set(&f.pe2, i, j, k, at[p][3] ? (top + below) / 2 : top + 1.0);
    }
    char label[160];
    snprintf(label, sizeof label, "vremap %s: GT_ESHAPE", name);
    check_error(label, remap_call(&f), GT_ESHAPE, needles);
    snprintf(label, sizeof label, "vremap %s: q2 unchanged", name);
    check_unchanged(label, &f.q2);
    snprintf(label, sizeof label, "vremap %s: kout unchanged", name);
    check_unchanged(label, &f.kout);
    snprintf(label, sizeof label, "vremap %s: pe2 unchanged", name);
    check_unchanged(label, &f.pe2);
    remap_free(&f);
}

/* ---- vnext ------------------------------------------------------------------------- */

typedef struct {
    Fld a, kw, b;
} Next;

static Next next_fields(int64_t below, int64_t above)
{
    int64_t sz[3] = {NI, NJ, NK};
    int64_t ha[3][2] = {{0, 0}, {0, 0}, {below, above}}, none[3][2];
    memcpy(none, h0, sizeof none);
    Next f;
    f.a = fld_new(GT_FLOAT64, (Layout){"IJK", NULL, "C"}, sz, ha);
    f.kw = fld_new(GT_INT32, (Layout){"KJI", NULL, "C"}, sz, none);
    f.b = fld_new(GT_FLOAT64, (Layout){"IJK", NULL, "F"}, sz, none);
    return f;
}

static void next_free(Next *f)
{
    fld_free(&f->a);
    fld_free(&f->kw);
    fld_free(&f->b);
}

/* From the top level down: kw = k at the top and where a > 0, else kw one level up; b =
   a(kw + s), plus half of b one level up below the top. */
static void next_reference(const Next *f, int s, Arr *kw, Arr *b)
{
    for (int64_t i = 0; i < NI; i++)
        for (int64_t j = 0; j < NJ; j++)
            for (int64_t k = NK - 1; k >= 0; k--) {
                bool top = k == NK - 1;
                int64_t w = top || A(f->a.before, i, j, k) > 0.0 ? k : (int64_t)A(*kw, i, j, k + 1);
                A(*kw, i, j, k) = (double)w;
                double v = A(f->a.before, i, j, w + s);
                A(*b, i, j, k) = top ? v : v + 0.5 * A(*b, i, j, k + 1);
            }
}

static void next_run(const char *name, int s, int64_t below, int64_t above)
{
    Next f = next_fields(below, above);
    char label[160];
    int rc = vnext(f.a.s, s, f.kw.s, f.b.s, NULL);
    snprintf(label, sizeof label, "vnext %s: returns 0", name);
    if (check(label, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        int64_t d[3] = {NI, NJ, NK};
        Arr kw = arr_like(&f.kw), b = arr_like(&f.b);
        next_reference(&f, s, &kw, &b);
        snprintf(label, sizeof label, "vnext %s: kw", name);
        check_field(label, &f.kw, &kw, d, 0);
        snprintf(label, sizeof label, "vnext %s: b", name);
        check_field(label, &f.b, &b, d, 0);
        arr_free(&kw);
        arr_free(&b);
    }
    next_free(&f);
}

/* a > 0 at level 0 only at the points given (elsewhere -0.5 there), then GT_ESHAPE with
   needles and kw and b unchanged. */
static void next_refused(const char *name, int s, const int (*pos)[2], int npos,
                         const char *const *needles)
{
    Next f = next_fields(0, 0);
    if (npos) {
        for (int64_t i = 0; i < NI; i++)
            for (int64_t j = 0; j < NJ; j++)
                fld_set(&f.a, i, j, 0, -0.5);
        for (int p = 0; p < npos; p++)
            fld_set(&f.a, pos[p][0], pos[p][1], 0, 0.5);
    }
    char label[160];
    snprintf(label, sizeof label, "vnext %s: GT_ESHAPE", name);
    check_error(label, vnext(f.a.s, s, f.kw.s, f.b.s, NULL), GT_ESHAPE, needles);
    snprintf(label, sizeof label, "vnext %s: kw unchanged", name);
    check_unchanged(label, &f.kw);
    snprintf(label, sizeof label, "vnext %s: b unchanged", name);
    check_unchanged(label, &f.b);
    next_free(&f);
}

int main(void)
{
    rng_seed(29);
    remap_run("C order", (Layout){"IJK", NULL, "C"});
    remap_run("Fortran order", (Layout){"IJK", NULL, "F"});
    remap_run("axes KJI", (Layout){"KJI", NULL, "C"});

    /* a target above the source column: the loop runs kk to NK and reads pe1 at NK + 1
       (clamped, the failure recorded, the loop ended: it would run for ever on the top
       level's value) */
    remap_refused("a target above the column", 1, (const int[][4]){{3, 2, 5, 0}}, 1,
                  (const char *const[]){"stencil 'vremap': 'pe1' read at level 9 at (3, 2, 5)",
                                        "outside the levels 0 to 8",
                                        "run-time K offset at line 12, column 12", NULL});
    /* the first failure by level, then j, then i, whatever the other points do */
    remap_refused("two columns, the lower level first", 1,
                  (const int[][4]){{4, 1, 6, 0}, {2, 3, 4, 0}}, 2,
                  (const char *const[]){"'pe1' read at level 9 at (2, 3, 4)", NULL});
    remap_refused("two columns at one level, j before i", 1,
                  (const int[][4]){{0, 2, 5, 0}, {6, 1, 5, 0}}, 2,
                  (const char *const[]){"'pe1' read at level 9 at (6, 1, 5)", NULL});
    /* q1 without the level NK: pe1 is read in range, q1 at kk + 1 = NK is not */
    remap_refused("q1 one level short", 0, (const int[][4]){{5, 4, 3, 1}}, 1,
                  (const char *const[]){"'q1' read at level 8 at (5, 4, 3)",
                                        "outside the levels 0 to 7",
                                        "run-time K offset at line 17, column 30", NULL});

    next_run("s = 0", 0, 0, 0);
    next_run("s = 1, a K halo level above", 1, 0, 1);
    next_run("s = -1, a K halo level below", -1, 1, 0);
    /* the top level reads a at NK first (a backward computation: the top comes first) */
    next_refused("s = 1 past the top", 1, NULL, 0,
                 (const char *const[]){"stencil 'vnext': 'a' read at level 8 at (0, 0, 7)",
                                       "outside the levels 0 to 7", NULL});
    /* kw = 0 where a > 0 at level 0: level -1 there, the first by j then i */
    next_refused("s = -1 below the bottom", -1, (const int[][2]){{2, 3}, {5, 1}}, 2,
                 (const char *const[]){"'a' read at level -1 at (5, 1, 0)",
                                       "run-time K offset at line 33, column 11", NULL});
    next_refused("a million levels up", 1000000, NULL, 0,
                 (const char *const[]){"'a' read at level 1000007 at (0, 0, 7)", NULL});
    return failures() != 0;
}

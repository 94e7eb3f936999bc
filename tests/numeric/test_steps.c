/* test_steps.c: steps.stn. S_steps(n) against the definition of language.md section 11,
 * written here: the caller's storages made to agree on the frame (the points around the
 * domain a step reads: here, by hand from each stencil's reads, the domain grown by the
 * frame widths in `Case`, minus the domain, copied from cur into next in the reference),
 * then n calls of S with the pairs swapped between calls. The result of S_steps in each
 * pair's cur must equal the reference's current cur bitwise on the domain; every point of
 * cur outside the domain and every input is unchanged. For n in {0, 1, 2, 3, 7, 8, 9, 13,
 * 64} (7, 8, 9 around a time tile of 8), domain sizes that are no multiples of a tile,
 * storages with halos wider than needed (random frame points in next that S_steps must
 * overwrite from cur), and explicit sub-domains, also on storages with no upper halo (or
 * one of 1) whose frame above the domain is interior (as a NumPy array's). (A domain
 * narrower than a mirror condition reaches is refused: test_boundaries.c.) Then the
 * refusals: nsteps < 0, a storage the single call refuses, a pair whose storages share
 * memory; each leaves every storage as it was. Built for the naive and the openmp backend
 * (BACKENDS), run with 1 and 2 threads (THREADS). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numeric.h"
#include "rt.h"   /* gt__cache_sizes */
#include "steps.h"

enum { MAXF = 5 };

typedef struct {
    const char *name;
    int nf;                       /* fields, in parameter order */
    const char *axes;             /* of every field: "IJ" or "IJK" */
    gt_dtype dtype;
    int npairs;
    int pairs[2][2];              /* next, cur: field positions */
    int64_t frame[2][3][2];       /* per pair: what a step reads of cur beyond the domain
                                     (0 where a boundary condition applies), by hand */
    int (*one)(gt_storage **f, const gt_domain *d);
    int (*steps)(gt_storage **f, int64_t n, const gt_domain *d);
} Case;

static int heat_dir_one(gt_storage **f, const gt_domain *d) { return heat_dir(f[0], f[1], 0.125f, d); }
static int heat_dir_n(gt_storage **f, int64_t n, const gt_domain *d) { return heat_dir_steps(f[0], f[1], 0.125f, n, d); }
static int heat_neu_one(gt_storage **f, const gt_domain *d) { return heat_neu(f[0], f[1], 0.125f, d); }
static int heat_neu_n(gt_storage **f, int64_t n, const gt_domain *d) { return heat_neu_steps(f[0], f[1], 0.125f, n, d); }
static int heat_mir_one(gt_storage **f, const gt_domain *d) { return heat_mir(f[0], f[1], 0.1, d); }
static int heat_mir_n(gt_storage **f, int64_t n, const gt_domain *d) { return heat_mir_steps(f[0], f[1], 0.1, n, d); }
static int heat_per_one(gt_storage **f, const gt_domain *d) { return heat_per(f[0], f[1], 0.1, d); }
static int heat_per_n(gt_storage **f, int64_t n, const gt_domain *d) { return heat_per_steps(f[0], f[1], 0.1, n, d); }
static int ring_j_one(gt_storage **f, const gt_domain *d) { return ring_j(f[0], f[1], 0.125f, d); }
static int ring_j_n(gt_storage **f, int64_t n, const gt_domain *d) { return ring_j_steps(f[0], f[1], 0.125f, n, d); }
static int per_i_one(gt_storage **f, const gt_domain *d) { return per_i(f[0], f[1], 0.1, d); }
static int per_i_n(gt_storage **f, int64_t n, const gt_domain *d) { return per_i_steps(f[0], f[1], 0.1, n, d); }
static int jac_one(gt_storage **f, const gt_domain *d) { return jac(f[0], f[1], f[2], d); }
static int jac_n(gt_storage **f, int64_t n, const gt_domain *d) { return jac_steps(f[0], f[1], f[2], n, d); }
static int wave_one(gt_storage **f, const gt_domain *d) { return wave(f[0], f[1], f[2], f[3], f[4], 0.05, d); }
static int wave_n(gt_storage **f, int64_t n, const gt_domain *d) { return wave_steps(f[0], f[1], f[2], f[3], f[4], 0.05, n, d); }
static int wave2_one(gt_storage **f, const gt_domain *d) { return wave2(f[0], f[1], f[2], f[3], f[4], 0.05f, d); }
static int wave2_n(gt_storage **f, int64_t n, const gt_domain *d) { return wave2_steps(f[0], f[1], f[2], f[3], f[4], 0.05f, n, d); }
static int sweep_one(gt_storage **f, const gt_domain *d) { return sweep(f[0], f[1], d); }
static int sweep_n(gt_storage **f, int64_t n, const gt_domain *d) { return sweep_steps(f[0], f[1], n, d); }
static int decay_one(gt_storage **f, const gt_domain *d) { return decay(f[0], f[1], d); }
static int decay_n(gt_storage **f, int64_t n, const gt_domain *d) { return decay_steps(f[0], f[1], n, d); }

static const Case cases[] = {
    {"heat_dir", 2, "IJ", GT_FLOAT32, 1, {{1, 0}}, {{{0}}}, heat_dir_one, heat_dir_n},
    {"heat_neu", 2, "IJ", GT_FLOAT32, 1, {{1, 0}}, {{{0}}}, heat_neu_one, heat_neu_n},
    {"heat_mir", 2, "IJ", GT_FLOAT64, 1, {{1, 0}}, {{{0}}}, heat_mir_one, heat_mir_n},
    {"heat_per", 2, "IJ", GT_FLOAT64, 1, {{1, 0}}, {{{0}}}, heat_per_one, heat_per_n},
    {"jac", 3, "IJK", GT_FLOAT64, 1, {{1, 0}}, {{{1, 2}, {1, 1}, {1, 0}}}, jac_one, jac_n},
    {"wave", 5, "IJ", GT_FLOAT64, 2, {{1, 0}, {3, 2}}, {{{0}}, {{0, 0}, {1, 0}, {0, 0}}},
     wave_one, wave_n},
    {"wave2", 5, "IJ", GT_FLOAT32, 2, {{1, 0}, {3, 2}}, {{{0}}, {{1, 0}, {0, 0}, {0, 0}}},
     wave2_one, wave2_n},
    {"sweep", 2, "IJK", GT_FLOAT64, 1, {{1, 0}}, {{{1, 1}, {0, 0}, {0, 0}}}, sweep_one, sweep_n},
    {"decay", 2, "IJK", GT_FLOAT64, 1, {{1, 0}}, {{{0}}}, decay_one, decay_n},
    {"ring_j", 2, "IJ", GT_FLOAT32, 1, {{1, 0}}, {{{1, 1}, {0, 0}, {0, 0}}}, ring_j_one, ring_j_n},
    {"per_i", 2, "IJK", GT_FLOAT64, 1, {{1, 0}}, {{{0, 0}, {0, 0}, {0, 1}}}, per_i_one, per_i_n},
};

static bool has(const Case *c, int a) { return strchr(c->axes, "IJK"[a]) != NULL; }

/* The upper halo of the storages; 0 with an explicit domain that leaves the frame's upper
   side in the interior beyond it (as NumPy arrays with an origin have: the room above the
   domain is interior, not halo), which the steps copy from cur into next too. */
static int64_t upper_halo = 3;

/* The storages of case c: interior n, halo 3 along the fields' axes (upper_halo above). */
static void make(const Case *c, Fld *f, const int64_t n[3])
{
    int64_t h[3][2];
    for (int a = 0; a < 3; a++) {
        h[a][0] = has(c, a) ? 3 : 0;
        h[a][1] = has(c, a) ? upper_halo : 0;
    }
    for (int x = 0; x < c->nf; x++)
        f[x] = fld_new(c->dtype, (Layout){c->axes, NULL, x % 2 ? "F" : "C"}, n, h);
}

/* One run: S_steps(nsteps) on one set of storages, the definition on a copy. */
static void run(const Case *c, int64_t nsteps, const int64_t n[3], const int64_t *sub)
{
    char label[200];
    const char *tile = getenv("GT_STEPS_TILE");
    snprintf(label, sizeof label,
             "%s: n %lld, interior %lldx%lldx%lld, upper halo %lld, domain %s, tiles %s",
             c->name, (long long)nsteps, (long long)n[0], (long long)n[1], (long long)n[2],
             (long long)upper_halo, sub ? "explicit" : "NULL", tile ? tile : "default");
    int64_t d[3];
    gt_domain dom;
    for (int a = 0; a < 3; a++)
        d[a] = dom.size[a] = !has(c, a) ? 1 : sub ? sub[a] : n[a];
    Fld f[MAXF], r[MAXF];
    make(c, f, n);
    make(c, r, n);
    for (int x = 0; x < c->nf; x++)
        gt_copy_into(r[x].s, f[x].s);
    /* the definition's precondition: next agrees with cur on the frame */
    for (int p = 0; p < c->npairs; p++) {
        const int64_t (*w)[2] = c->frame[p];
        for (int64_t i = -w[0][0]; i < d[0] + w[0][1]; i++)
            for (int64_t j = -w[1][0]; j < d[1] + w[1][1]; j++)
                for (int64_t k = -w[2][0]; k < d[2] + w[2][1]; k++)
                    if (i < 0 || i >= d[0] || j < 0 || j >= d[1] || k < 0 || k >= d[2])
                        fld_set(&r[c->pairs[p][0]], i, j, k,
                                fld_get(&r[c->pairs[p][1]], i, j, k));
    }
    int at[MAXF];   /* which reference storage plays field x now */
    gt_storage *rs[MAXF];
    for (int x = 0; x < c->nf; x++)
        at[x] = x;
    int rc = 0;
    for (int64_t s = 0; s < nsteps && rc == 0; s++) {
        for (int x = 0; x < c->nf; x++)
            rs[x] = r[at[x]].s;
        rc = c->one(rs, sub ? &dom : NULL);
        for (int p = 0; p < c->npairs; p++) {
            int t = at[c->pairs[p][0]];
            at[c->pairs[p][0]] = at[c->pairs[p][1]];
            at[c->pairs[p][1]] = t;
        }
    }
    char what[240];
    snprintf(what, sizeof what, "%s: the reference's single calls", label);
    if (check(what, rc == 0, "returned %d: %s", rc, gt_last_error())) {
        gt_storage *fs[MAXF];
        for (int x = 0; x < c->nf; x++)
            fs[x] = f[x].s;
        rc = c->steps(fs, nsteps, sub ? &dom : NULL);
        snprintf(what, sizeof what, "%s: returns 0", label);
        if (check(what, rc == 0, "returned %d: %s", rc, gt_last_error())) {
            for (int x = 0; x < c->nf; x++) {
                bool cur = false, next = false;
                for (int p = 0; p < c->npairs; p++)
                    cur |= c->pairs[p][1] == x, next |= c->pairs[p][0] == x;
                if (next)
                    continue;   /* scratch */
                snprintf(what, sizeof what, "%s: field %d", label, x);
                if (!cur) {
                    check_unchanged(what, &f[x]);
                    continue;
                }
                Arr want = arr_like(&f[x]);
                for (int64_t i = 0; i < d[0]; i++)
                    for (int64_t j = 0; j < d[1]; j++)
                        for (int64_t k = 0; k < d[2]; k++)
                            A(want, i, j, k) = fld_get(&r[at[x]], i, j, k);
                check_field(what, &f[x], &want, d, 0);
                arr_free(&want);
            }
        }
    }
    for (int x = 0; x < c->nf; x++) {
        fld_free(&f[x]);
        fld_free(&r[x]);
    }
}

/* The refusals: nothing written. */
static void refusals(void)
{
    const Case *c = &cases[4];   /* jac */
    int64_t n[3] = {7, 6, 4};
    Fld f[MAXF];
    make(c, f, n);
    gt_storage *fs[MAXF] = {f[0].s, f[1].s, f[2].s};
    static const char *const neg[] = {"nsteps", "-1", NULL};
    check_error("jac: nsteps -1", c->steps(fs, -1, NULL), GT_EINVAL, neg);
    /* w, an input, too small for the domain: the single call's check */
    gt_domain big = {{8, 6, 4}};
    static const char *const fit[] = {"jac", NULL};
    check_error("jac: a domain larger than the storages", c->steps(fs, 3, &big), GT_ESHAPE,
                fit);
    for (int x = 0; x < c->nf; x++) {
        char what[64];
        snprintf(what, sizeof what, "jac: refused calls: field %d unchanged", x);
        check_unchanged(what, &f[x]);
        fld_free(&f[x]);
    }
    /* decay reads u at offset 0 only: S accepts un and u as one storage, S_steps refuses */
    c = &cases[8];
    make(c, f, n);
    fs[0] = fs[1] = f[0].s;
    static const char *const alias[] = {"the storages of 'un' and 'u' (pair un -> u of "
                                        "iterate) share memory; each step writes the one "
                                        "while it reads the other: give the pair two storages",
                                        NULL};
    for (int64_t k = 0; k < 3; k++) {
        char what[64];
        snprintf(what, sizeof what, "decay: u and un one storage, n %lld", (long long)k);
        check_error(what, c->steps(fs, k, NULL), GT_EALIAS, alias);
    }
    check_unchanged("decay: refused calls: u unchanged", &f[0]);
    fld_free(&f[0]);
    fld_free(&f[1]);
}

/* GT_STEPS_TILE malformed: refused before anything is written where S_steps tiles. */
static void bad_tiles(void)
{
    const Case *c = &cases[0];   /* heat_dir */
    int64_t n[3] = {7, 30, 1};
    Fld f[MAXF];
    make(c, f, n);
    gt_storage *fs[MAXF] = {f[0].s, f[1].s};
    static const char *const why[] = {"GT_STEPS_TILE", "4,x", "ROWS,STEPS[,LEVELS[,COLUMNS]]",
                                      NULL};
    setenv("GT_STEPS_TILE", "4,x", 1);
    int rc = c->steps(fs, 5, NULL);
    if (heat_dir_info.tiles_time)
        check_error("heat_dir: GT_STEPS_TILE 4,x", rc, GT_EINVAL, why);
    else
        check("heat_dir: GT_STEPS_TILE 4,x ignored without time tiles", rc == 0, "returned %d: %s",
              rc, gt_last_error());
    unsetenv("GT_STEPS_TILE");
    if (heat_dir_info.tiles_time)
        check_unchanged("heat_dir: GT_STEPS_TILE 4,x: u unchanged", &f[0]);
    fld_free(&f[0]);
    fld_free(&f[1]);
}

/* Rows wider than a quarter of a thread's cache share (tile_plan's tile of w = 0 rows: a
   division by zero until the plan fell back to the loop of single steps there): heat_dir,
   which needs no halo, on one row of (L2 + L3) / 32 + 1 floats, 2 and 3 steps against the
   single calls. */
static void wide_rows(void)
{
    int64_t l2, l3;
    gt__cache_sizes(&l2, &l3);
    int64_t shape[2] = {(l2 + l3) / 32 + 1, 1};
    gt_storage *u = gt_empty(GT_FLOAT32, "IJ", shape, NULL);
    gt_storage *un = gt_zeros(GT_FLOAT32, "IJ", shape, NULL);
    gt_storage *ru = gt_empty(GT_FLOAT32, "IJ", shape, NULL);
    gt_storage *run_ = gt_zeros(GT_FLOAT32, "IJ", shape, NULL);
    for (int64_t n = 2; n <= 3; n++) {
        float *p = gt_host(u, GT_WRITE), *q = gt_host(ru, GT_WRITE);
        for (int64_t i = 0; i < shape[0]; i++)
            p[i] = q[i] = (float)(i % 97) * 0.25f;
        int rc = heat_dir_steps(u, un, 0.125f, n, NULL);
        check("heat_dir: rows wider than the cache: steps", rc == 0, "n %lld returned %d: %s",
              (long long)n, rc, gt_last_error());
        for (int64_t s = 0; s < n; s++)
            heat_dir(s % 2 ? run_ : ru, s % 2 ? ru : run_, 0.125f, NULL);
        const float *a = gt_host(u, GT_READ), *b = gt_host(n % 2 ? run_ : ru, GT_READ);
        int64_t bad = 0;
        for (int64_t i = 0; i < shape[0]; i++)
            bad += memcmp(&a[i], &b[i], sizeof *a) != 0;
        check("heat_dir: rows wider than the cache: bitwise the single calls", bad == 0,
              "n %lld: %lld of %lld points differ", (long long)n, (long long)bad,
              (long long)shape[0]);
    }
    gt_release(u);
    gt_release(un);
    gt_release(ru);
    gt_release(run_);
    /* irow, which reads along I only, on 3 rows of share / 64 doubles for 1 to 4 threads: a
       tile of one row in a quarter of the share, 3 tiles, rounded up to a multiple of the
       threads: 4 tiles of 0 rows (a division by zero until the count was cut to the rows) */
    for (int64_t th = 1; th <= 4; th++) {
        int64_t sh[2] = {(l2 + l3 / th) / 64, 3};
        u = gt_full(GT_FLOAT64, "IJ", sh, 0.75, NULL);
        un = gt_zeros(GT_FLOAT64, "IJ", sh, NULL);
        ru = gt_copy(u);
        run_ = gt_copy(un);
        int rc = irow_steps(u, un, 3, NULL);
        check("irow: rows of a quarter of the cache: steps", rc == 0, "threads %lld: %d: %s",
              (long long)th, rc, gt_last_error());
        for (int64_t s = 0; s < 3; s++)
            irow(s % 2 ? run_ : ru, s % 2 ? ru : run_, NULL);
        const double *a = gt_host(u, GT_READ), *b = gt_host(run_, GT_READ);
        int64_t bad = 0;
        for (int64_t x = 0; x < sh[0] * sh[1]; x++)
            bad += memcmp(&a[x], &b[x], sizeof *a) != 0;
        check("irow: rows of a quarter of the cache: bitwise the single calls", bad == 0,
              "threads %lld: %lld points differ", (long long)th, (long long)bad);
        gt_release(u);
        gt_release(un);
        gt_release(ru);
        gt_release(run_);
    }
}

int main(void)
{
    rng_seed(24);
    static const int64_t ns[] = {0, 1, 2, 3, 7, 8, 9, 13, 64};
    static const int64_t sizes[][3] = {{13, 11, 5}, {37, 5, 3}, {2, 9, 2}};
    static const int64_t sub[3] = {9, 7, 3};
    /* tall domains, many tiles: n around the depth of the tiles (T - 1, T, T + 1, odd) */
    static const int64_t tall[3] = {6, 47, 3}, tallsub[3] = {5, 40, 2};
    static const int64_t tns[] = {2, 3, 4, 5, 6, 7, 11, 12, 13, 37};
    /* GT_STEPS_TILE: unset (these domains are too small to tile), rows,steps forced small
       (steps cut to fit rows >= reach (2 steps + 1); a tile of 2 rows cannot fit one step
       of reach 1), off */
    static const char *const tilings[] = {NULL, "3,1", "4,2", "5,2", "7,3", "10,3", "13,6",
                                          "2,4", "0"};
    check("heat_dir_info.tiles_time", heat_dir_info.tiles_time ==
          (strcmp(GT_TEST_BACKEND, "openmp") == 0), "%d on the %s backend",
          heat_dir_info.tiles_time, GT_TEST_BACKEND);
    /* periodic fields: the rows a ring (heat_per, ring_j, wave), the parts spanning I (per_i) */
    const gt_stencil_info *const tiled[] = {&heat_per_info, &ring_j_info, &per_i_info,
                                            &wave_info};
    int omp = strcmp(GT_TEST_BACKEND, "openmp") == 0;
    for (size_t x = 0; x < sizeof tiled / sizeof *tiled; x++)
        check("periodic: tiles_time", tiled[x]->tiles_time ==
              (omp ? 1 + (tiled[x] == &per_i_info) : 0), "%s: %d on the %s backend",
              tiled[x]->name, tiled[x]->tiles_time, GT_TEST_BACKEND);
    /* 2 where every level is computed alike (the parts may cut the levels), 1 for IJ
       outputs and for the forward sweep */
    check("jac_info.tiles_time", jac_info.tiles_time == 2 * omp, "%d", jac_info.tiles_time);
    check("decay_info.tiles_time", decay_info.tiles_time == 2 * omp, "%d",
          decay_info.tiles_time);
    check("sweep_info.tiles_time", sweep_info.tiles_time == omp, "%d", sweep_info.tiles_time);
    /* an output read at an offset by a later statement: along K, rows only (1); along J, not
       tiled (0): a part computes it on its own points only */
    check("nextk_info.tiles_time", nextk_info.tiles_time == omp, "%d", nextk_info.tiles_time);
    check("nextj_info.tiles_time", nextj_info.tiles_time == 0, "%d", nextj_info.tiles_time);
    for (size_t t = 0; t < sizeof tilings / sizeof *tilings; t++) {
        if (tilings[t])
            setenv("GT_STEPS_TILE", tilings[t], 1);
        else
            unsetenv("GT_STEPS_TILE");
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            for (size_t k = 0; k < sizeof tns / sizeof *tns; k++) {
                run(&cases[c], tns[k], tall, NULL);
                if (k % 3 == 0)
                    run(&cases[c], tns[k], tall, tallsub);
            }
            if (t > 2)
                continue;
            for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
                run(&cases[c], ns[k], sizes[0], NULL);
            for (size_t s = 1; s < sizeof sizes / sizeof *sizes; s++)
                for (int64_t k = 2; k <= 3; k++)
                    run(&cases[c], k, sizes[s], NULL);
            for (int64_t k = 1; k <= 4; k++)
                run(&cases[c], k, sizes[0], sub);
            /* the frame's upper side in the interior beyond the domain, not in the halo */
            upper_halo = 0;
            for (int64_t k = 1; k <= 4; k++)
                run(&cases[c], k, sizes[0], sub);
            upper_halo = 1;   /* tall's room above tallsub is 1 along I and K */
            run(&cases[c], 5, tall, tallsub);
            upper_halo = 3;
        }
    }
    /* the levels as a wavefront (LEVELS a wave; only where tiles_time is 2: jac, decay,
       per_i; the others ignore it) and columns cut along I as well (COLUMNS; a ring along I
       where periodic: heat_per, wave, per_i), on a domain wide along I, J and K */
    static const int64_t cube[3] = {13, 29, 11}, cubesub[3] = {11, 25, 9};
    static const int64_t cns[] = {2, 3, 5, 8, 13};
    static const char *const tilings3[] = {"7,3,2", "9,4,1", "10,3,3,7", "6,2,0,5",
                                           "13,6,4,13", "5,2,5,3"};
    for (size_t t = 0; t < sizeof tilings3 / sizeof *tilings3; t++) {
        setenv("GT_STEPS_TILE", tilings3[t], 1);
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++)
            for (size_t k = 0; k < sizeof cns / sizeof *cns; k++) {
                run(&cases[c], cns[k], cube, k % 2 ? cubesub : NULL);
                if (k % 2) {
                    upper_halo = 0;
                    run(&cases[c], cns[k], cube, cubesub);
                    upper_halo = 3;
                }
            }
    }
    unsetenv("GT_STEPS_TILE");
    refusals();
    bad_tiles();
    wide_rows();
    return 0;
}

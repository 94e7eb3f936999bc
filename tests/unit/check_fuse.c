/* check_fuse.c: the fusion plan (fuse.c) on programs compiled in process:
 * structural facts only (classes of temporaries, kernels, groups, shared
 * buffers, columnar sweeps), each derived by hand in the comment above it. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "testutil.h"

/* text compiled and planned with the parameters of backend (compile: openmp's) */
static IrStencil *compile_for(Comp *k, const char *text, const char *backend)
{
    comp_open(k);
    comp_lower(k, text);
    comp_extents(k);
    fuse_plan(k->c, backend_find(backend)->plan);
    fflush(k->out);
    return stencil0(k);
}

static IrStencil *compile(Comp *k, const char *text)
{
    return compile_for(k, text, "openmp");
}

static const IrInterval *interval(IrStencil *st, int c, int i)
{
    return st->computations.items[c]->intervals.items[i];
}

/* hdiff: the fluxes (an assignment and its limiter, read at two offsets each)
 * are cheaper to recompute than to tile: 5 extra loads against a tile's
 * 4 + 1 + 2; the Laplacian read at five offsets stays a tile. Left: the
 * Laplacian's loop and the output's, in one group. */
START_TEST(hdiff_plan)
{
    Comp k;
    IrStencil *st = compile(&k, HDIFF_STN);
    ck_assert(st->fused);
    ck_assert_int_eq(field(st, "l")->temp_class, IR_TEMP_TILE);
    ck_assert_int_eq(field(st, "flx")->temp_class, IR_TEMP_RECOMPUTE);
    ck_assert_int_eq(field(st, "flx")->nproducer, 2);
    ck_assert_int_eq(field(st, "fly")->temp_class, IR_TEMP_RECOMPUTE);
    const IrInterval *iv = interval(st, 0, 0);
    ck_assert_int_eq(iv->kernels.len, 2);
    ck_assert_int_eq(iv->kernels.items[0].group, iv->kernels.items[1].group);
    /* rows: the output's row j reads l's rows j-1 .. j+1, so it trails the
     * Laplacian's by one row (lag 1); l's live rows are j-1 .. j+1: 3 */
    ck_assert_int_eq(iv->kernels.items[0].lag, 0);
    ck_assert_int_eq(iv->kernels.items[1].lag, 1);
    ck_assert_int_eq(field(st, "l")->tile_rows, 3);
    done(&k);
}
END_TEST

/* The openmp backend's per-thread tiles for hdiff: l's ring of 4 rows (3 live,
 * rounded up to a power of two), each row 256 points of the I block plus
 * l's halo of one on each side, the lower halo padded to 8 doubles so that the
 * block's first point is 64-byte aligned: 8 + 256 + 1 = 265, rounded up to
 * 8 doubles: 272 doubles, 2176 bytes; 4 rows: 8704 bytes. A thread's slice:
 * whole pages (12288) plus a page of gap: 16384 bytes, the block page-aligned. */
START_TEST(tile_slices)
{
    Comp k;
    IrStencil *st = compile(&k, HDIFF_STN);
    ck_assert(st->fused);
    char *src = NULL, *hdr = NULL;
    size_t src_len = 0, hdr_len = 0;
    FILE *fs = open_memstream(&src, &src_len), *fh = open_memstream(&hdr, &hdr_len);
    ck_assert(emit_files(k.c, backend_find("openmp"), fs, "hdiff.c", fh, "hdiff.h"));
    fclose(fs);
    fclose(fh);
    ck_assert_ptr_nonnull(strstr(src, "+ ((j) & 3) * 272]"));
    /* the slices from malloc, a page more, rounded up to a page (not C11's aligned_alloc,
       which -std=c99 leaves undeclared) */
    ck_assert_ptr_nonnull(strstr(src, "tiles_mem = malloc((size_t)nthreads * 16384 + 4095);"));
    ck_assert_ptr_nonnull(strstr(src, "tiles = tiles_mem + (-(uintptr_t)tiles_mem & 4095);"));
    ck_assert_ptr_null(strstr(src, "aligned_alloc"));
    ck_assert_ptr_nonnull(strstr(src, "omp_get_thread_num() * 16384)"));
    free(src);
    free(hdr);
    done(&k);
}
END_TEST

static const char row_lags_stn[] =
    "stencil s(field<double> a, field<double> c, field<double> res) {\n"
    "  double t = a;\n"
    "  double b = t[j+1] - t[j-1];\n"
    "  t = c * 2.0 + b[i+1];\n"
    "  res = t[j+1] + t[j-1] + b;\n"
    "}\n";

/* Row lags (plan_lags), one group of four kernels:
 *   [0] t = a          writes t at row r                     lag 0
 *   [1] b = t[j+/-1]   reads t rows r-1 .. r+1: after [0]'s  lag 0 + 1 = 1
 *   [2] t = c + b[i+1] overwrites t row r, which [1] reads last at step
 *                      r + 1 + 1: lag >= 1 - (-1) = 2; b at 0: >= 1  lag 2
 *   [3] res = t[j+/-1] + b  reads the second t rows r-1 .. r+1: 2 + 1 = 3
 * t is live from [0]'s row (step - 0) to the oldest row still read, by [3]
 * at step - 3 - 1: 5 rows; b from [1]'s row (step - 1) to [3]'s (step - 3):
 * 3 rows. Two tiles of one group never share a buffer. */
START_TEST(row_lags)
{
    Comp k;
    IrStencil *st = compile(&k, row_lags_stn);
    ck_assert(st->fused);
    const IrInterval *iv = interval(st, 0, 0);
    ck_assert_int_eq(iv->kernels.len, 4);
    static const int lag[4] = {0, 1, 2, 3};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(iv->kernels.items[i].group, iv->kernels.items[0].group);
        ck_assert_int_eq(iv->kernels.items[i].lag, lag[i]);
    }
    ck_assert_int_eq(field(st, "t")->temp_class, IR_TEMP_TILE);
    ck_assert_int_eq(field(st, "b")->temp_class, IR_TEMP_TILE);
    ck_assert_int_eq(field(st, "t")->tile_rows, 5);
    ck_assert_int_eq(field(st, "b")->tile_rows, 3);
    ck_assert_int_ne(field(st, "t")->buffer, field(st, "b")->buffer);
    done(&k);
}
END_TEST

/* Zero-offset temporaries fuse into one loop nest as scalars; a single
 * assignment from an input read at one offset is substituted. */
START_TEST(scalars_and_substitution)
{
    Comp k;
    IrStencil *st = compile(&k,
        "stencil s(field<double> u, field<double> o) {\n"
        "  double a = u * 2.0;\n"
        "  double b = a + 1.0;\n"
        "  double c = u[i+1] * 3.0;\n"
        "  o = b * a + c[i-1];\n"
        "}\n");
    ck_assert_int_eq(field(st, "a")->temp_class, IR_TEMP_SCALAR);
    ck_assert_int_eq(field(st, "b")->temp_class, IR_TEMP_SCALAR);
    ck_assert_int_eq(field(st, "c")->temp_class, IR_TEMP_RECOMPUTE);
    ck_assert_int_eq(interval(st, 0, 0)->kernels.len, 1);
    done(&k);
}
END_TEST

/* A temporary read at a K offset in a parallel computation cannot be a tile:
 * FULL (index(k) keeps it from being recomputed), and the reader starts a new
 * group. Two FULL temporaries with disjoint lifetimes (p dies in the second
 * group, q is born in the third) share a buffer. */
START_TEST(full_and_sharing)
{
    Comp k;
    IrStencil *st = compile(&k,
        "stencil s(field<double> u, field<double> o1, field<double> o2) {\n"
        "  computation(parallel) {\n"
        "    interval(0, end) { double p = u * 2.0 + index(k); }\n"
        "  }\n"
        "  computation(parallel) {\n"
        "    interval(1, end) { o1 = p[k-1] + p; }\n"
        "  }\n"
        "  computation(parallel) {\n"
        "    interval(0, end) { double q = u[i+1] + u * index(k); }\n"
        "  }\n"
        "  computation(parallel) {\n"
        "    interval(1, end) { o2 = q[k-1] + q; }\n"
        "  }\n"
        "}\n");
    ck_assert_int_eq(field(st, "p")->temp_class, IR_TEMP_FULL);
    ck_assert_int_eq(field(st, "q")->temp_class, IR_TEMP_FULL);
    ck_assert_int_eq(field(st, "p")->buffer, field(st, "q")->buffer);
    done(&k);
}
END_TEST

/* The tridiagonal solver: both sweeps read only at zero horizontal offset,
 * so they run by columns; m is a scalar of the second interval's kernel. */
START_TEST(columnar_sweeps)
{
    Comp k;
    IrStencil *st = compile(&k, TRIDIAGONAL_STN);
    ck_assert(st->computations.items[0]->columnar);
    ck_assert(st->computations.items[1]->columnar);
    ck_assert_int_eq(field(st, "m")->temp_class, IR_TEMP_SCALAR);
    ck_assert_int_eq(interval(st, 0, 1)->kernels.len, 1);
    done(&k);
}
END_TEST

/* Two sweeps in one column group run interleaved, column by column: p (index(k):
 * not recomputed), read
 * at an I offset by the first sweep, is still needed by the next columns when
 * the second sweep writes g, so the two FULL temporaries (same type and axes)
 * may not share a buffer, although p's last reader comes before g's first
 * writer in program order. */
START_TEST(column_group_lifetimes)
{
    Comp k;
    IrStencil *st = compile(&k,
        "stencil s(field<double> u, field<double> a, field<double> b) {\n"
        "  computation(parallel) { interval(0, end) { double p = u[i+1] + u[j+1] * index(k); } }\n"
        "  computation(backward) {\n"
        "    interval(end-1, end) { a = p[i-1]; }\n"
        "    interval(0, end-1) { a = a[k+1] * 0.5 + p[i-1]; }\n"
        "  }\n"
        "  computation(forward) {\n"
        "    interval(0, 1) { double g = u; b = g; }\n"
        "    interval(1, end) { g = g[k-1] * 0.5 + u; b = g; }\n"
        "  }\n"
        "}\n");
    ck_assert(st->fused);
    ck_assert_int_eq(st->computations.items[1]->column_group, 0);
    ck_assert_int_eq(st->computations.items[2]->column_group, 0);
    ck_assert_int_eq(field(st, "p")->temp_class, IR_TEMP_FULL);
    ck_assert_int_eq(field(st, "g")->temp_class, IR_TEMP_FULL);
    ck_assert_int_ne(field(st, "p")->buffer, field(st, "g")->buffer);
    done(&k);
}
END_TEST

static const char barriers_stn[] =
    "stencil s(field<double> u, field<double> v) {\n"
    "  computation(forward) {\n"
    "    interval(0, 1) { double t = u; v = t; }\n"
    "    interval(1, end) { t = t[k-1] + u; v = t[i+1] + u; }\n"
    "  }\n"
    "}\n";

/* A forward sweep reading a temporary it writes at a horizontal offset runs
 * level by level, and the read starts a new kernel. */
START_TEST(barriers)
{
    Comp k;
    IrStencil *st = compile(&k, barriers_stn);
    ck_assert(!st->computations.items[0]->columnar);
    ck_assert_int_eq(interval(st, 0, 1)->kernels.len, 2);
    done(&k);
}
END_TEST

/* The backend's plan parameters decide, not constants of the pass. hdiff
 * with openmp's parameters: l a tile, flx and fly recomputed (hdiff_plan).
 * Without tiles, l (read at offsets by other kernels) can only be FULL;
 * with no extra operations allowed, flx and fly (read at two offsets, about
 * 10 operations each) are not recomputed but tiles. c = u[i+1] * 3.0 (3
 * nodes, one load) read at 7 offsets is substituted with a limit of 3 nodes;
 * with 2, recomputing its kernel would add 3 x (7 - 1) = 18 > 16 operations:
 * a tile. */
START_TEST(plan_params)
{
    PlanParams p = *backend_find("openmp")->plan;
    p.tiles = false;
    Comp k;
    comp_open(&k);
    comp_lower(&k, HDIFF_STN);
    comp_extents(&k);
    fuse_plan(k.c, &p);
    IrStencil *st = stencil0(&k);
    ck_assert_int_eq(field(st, "l")->temp_class, IR_TEMP_FULL);
    ck_assert_int_eq(field(st, "flx")->temp_class, IR_TEMP_RECOMPUTE);
    done(&k);

    p = *backend_find("openmp")->plan;
    p.recompute_max_ops = 0;
    comp_open(&k);
    comp_lower(&k, HDIFF_STN);
    comp_extents(&k);
    fuse_plan(k.c, &p);
    st = stencil0(&k);
    ck_assert_int_eq(field(st, "l")->temp_class, IR_TEMP_TILE);
    ck_assert_int_eq(field(st, "flx")->temp_class, IR_TEMP_TILE);
    ck_assert_int_eq(field(st, "fly")->temp_class, IR_TEMP_TILE);
    done(&k);

    static const char *const prog =
        "stencil s(field<double> u, field<double> o) {\n"
        "  double c = u[i+1] * 3.0;\n"
        "  o = c[i-1] + c[i+1] + c[j-1] + c[j+1] + c[i-2] + c[i+2] + c[j+2];\n"
        "}\n";
    for (int nodes = 2; nodes <= 3; nodes++) {
        p = *backend_find("openmp")->plan;
        p.recompute_max_nodes = nodes;
        comp_open(&k);
        comp_lower(&k, prog);
        comp_extents(&k);
        fuse_plan(k.c, &p);
        IrTempClass want = nodes == 3 ? IR_TEMP_RECOMPUTE : IR_TEMP_TILE;
        ck_assert_int_eq(field(stencil0(&k), "c")->temp_class, want);
        done(&k);
    }
}
END_TEST

/* A temporary that no tile can serve (read at a K offset, or by a later
 * computation) is recomputed when reads x loads <= recompute_full_loads (12)
 * + reads - 1. p (2 loads) at k and k-1: 4 <= 13, recomputed, and the
 * producer's computation keeps no kernel; e (1 load) read at zero offset by a
 * later computation: 1 <= 12; the Laplacian l (5 loads) at three levels:
 * 15 > 14, FULL; m (2 loads) at three levels: 6 <= 14. With
 * recompute_full_loads 2, p (4 > 2 + 1) and m (6 > 2 + 2) stay FULL, e
 * (1 <= 2) is still recomputed. c = v * p reads p: recomputed too where p is
 * (its expression with p's substituted: 3 loads, at two levels, 6 <= 13), an
 * array where p is one (it reads an array that is written). */
START_TEST(recompute_across_levels)
{
    static const char *const prog =
        "stencil s(field<double> u, field<double> v, field<double> o1, field<double> o2,\n"
        "          field<double> o3, field<double> o4) {\n"
        "  computation(parallel) {\n"
        "    interval(0, end) {\n"
        "      double p = 0.5 * (u + u[k+1]);\n"
        "      double e = v * 3.0;\n"
        "      double l = 4.0 * u - (u[i-1] + u[i+1] + u[j-1] + u[j+1]);\n"
        "      double m = u + v[k+1];\n"
        "      double c = v * p;\n"
        "    }\n"
        "  }\n"
        "  computation(parallel) {\n"
        "    interval(1, end-1) {\n"
        "      o1 = p - p[k-1] + e;\n"
        "      o2 = l[k-1] + l + l[k+1];\n"
        "      o3 = m[k-1] + m + m[k+1];\n"
        "      o4 = c - c[k-1];\n"
        "    }\n"
        "  }\n"
        "}\n";
    for (int full = 12; full >= 2; full -= 10) {
        PlanParams p = *backend_find("openmp")->plan;
        ck_assert_int_eq(p.recompute_full_loads, 12);
        ck_assert_int_eq(backend_find("cuda")->plan->recompute_full_loads, 12);
        p.recompute_full_loads = full;
        Comp k;
        comp_open(&k);
        comp_lower(&k, prog);
        comp_extents(&k);
        fuse_plan(k.c, &p);
        IrStencil *st = stencil0(&k);
        IrTempClass pc = full == 12 ? IR_TEMP_RECOMPUTE : IR_TEMP_FULL;
        ck_assert_int_eq(field(st, "p")->temp_class, pc);
        ck_assert_int_eq(field(st, "e")->temp_class, IR_TEMP_RECOMPUTE);
        ck_assert_int_eq(field(st, "l")->temp_class, IR_TEMP_FULL);
        ck_assert_int_eq(field(st, "m")->temp_class, full == 12 ? IR_TEMP_RECOMPUTE
                                                                 : IR_TEMP_FULL);
        ck_assert_int_eq(field(st, "c")->temp_class, pc);
        /* the first computation computes only l (and p, m where kept) */
        ck_assert_int_eq(interval(st, 0, 0)->kernels.len, 1);
        done(&k);
    }
}
END_TEST

/* ------------------------------------------------ former limits of fuse.c
 * The plan once gave up past fixed array sizes, so that a program crossing
 * one got another plan. Each test runs at and past the old limit. */

/* A program made by gen(f, n) for size n, compiled (the text is copied by
 * the parser, and freed here). */
static IrStencil *compile_generated(Comp *k, void (*gen)(FILE *f, int n), int n)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    gen(f, n);
    fclose(f);
    IrStencil *st = compile(k, text);
    free(text);
    return st;
}

/* The n-th of the horizontal offsets (di, dj), |di|, |dj| <= 8, in a fixed
 * order: "i+3, j-8" for n = 0 .. 288. */
static void print_offset(FILE *f, int di, int dj)
{
    fprintf(f, "i%s%d, j%s%d", di < 0 ? "-" : "+", abs(di), dj < 0 ? "-" : "+", abs(dj));
}

static void nth_offset(FILE *f, int n)
{
    print_offset(f, n % 17 - 8, n / 17 - 8);
}

/* " + name[OFFSET]" for the first n offsets of nth_offset. */
static void print_reads(FILE *f, const char *name, int n)
{
    for (int x = 0; x < n; x++) {
        fprintf(f, " + %s[", name);
        nth_offset(f, x);
        fprintf(f, "]");
    }
}

/* For each n of counts, the plan of the program gen(n) recomputes t by
 * nproducer statements. */
static void assert_recomputed(void (*gen)(FILE *f, int n), const int *counts, size_t ncounts,
                              int nproducer)
{
    for (size_t c = 0; c < ncounts; c++) {
        Comp k;
        const IrField *t = field(compile_generated(&k, gen, counts[c]), "t");
        ck_assert_msg(t->temp_class == IR_TEMP_RECOMPUTE, "n = %d: t is %s", counts[c],
                      ir_temp_class_names[t->temp_class]);
        ck_assert_int_eq(t->nproducer, nproducer);
        done(&k);
    }
}

/* t = 2 * u, read at n distinct offsets. */
static void gen_offsets(FILE *f, int n)
{
    fprintf(f, "stencil s(field<double> u, field<double> o) {\n  double t = 2.0 * u;\n  o = 0.0");
    print_reads(f, "t", n);
    fprintf(f, ";\n}\n");
}

/* plan_recompute kept at most 64 distinct read offsets (past them: not
 * recomputed). t = 2 * u has one load, so recomputing costs n loads for n
 * reads against n + 1 for a tile (n * 1 <= n + 1): recomputed for every n. */
START_TEST(recompute_offsets)
{
    static const int counts[] = {63, 64, 65, 100};
    assert_recomputed(gen_offsets, counts, sizeof counts / sizeof *counts, 1);
}
END_TEST

/* t = the sum of n reads of u, corrected by an if, read once at i+1. */
static void gen_kernel_reads(FILE *f, int n)
{
    fprintf(f, "stencil s(field<double> u, field<double> o) {\n  double t = 0.0");
    print_reads(f, "u", n);
    fprintf(f, ";\n  if (t > 1.0) t = 1.0;\n  o = t[i+1];\n}\n");
}

/* plan_recompute_kernels kept at most 64 distinct reads of the producing
 * kernel (lp; past them: not recomputed). Its kernel t = sum of n reads of
 * u, corrected by an if, read once at i+1: a tile would cost n + 1 + 1
 * elements, recomputing at most the n shifted reads, with no extra
 * arithmetic (one read offset): recomputed (two producing statements) for
 * every n. (uni, the shifted reads, was cut at 512 = 64 x 8: past 64
 * producer reads that could not matter.) */
START_TEST(recompute_kernel_reads)
{
    static const int counts[] = {63, 64, 65, 200};
    assert_recomputed(gen_kernel_reads, counts, sizeof counts / sizeof *counts, 2);
}
END_TEST

/* t = four reads of u along I, corrected by an if, read at j-1 and j+1 by a
 * statement that first loads w at n distinct offsets, then u where t's
 * shifted reads do. */
static void gen_consumer_loads(FILE *f, int n)
{
    fprintf(f, "stencil s(field<double> u, field<double> w, field<double> o) {\n"
               "  double t = u[i-2] + u[i-1] + u[i+1] + u[i+2];\n"
               "  if (t > 1.0) t = 1.0;\n  o = 0.0");
    print_reads(f, "w", n);
    fprintf(f, " + t[j-1] + t[j+1]");
    for (int dj = -1; dj <= 1; dj += 2)
        for (int di = -2; di <= 2; di++)
            if (di) {
                fprintf(f, " + u[");
                print_offset(f, di, dj);
                fprintf(f, "]");
            }
    fprintf(f, ";\n}\n");
}

/* plan_recompute_kernels counted at most 256 distinct loads of the consumers
 * (cons): loads past them were taken for extra ones. The kernel t = four
 * reads of u along I, corrected by an if (10 operations), is read at j-1 and
 * j+1: a tile costs 4 + 1 + 2 = 7 elements; recomputing, the 8 shifted reads
 * of u, none extra when the consumer loads them itself, and 10 x (2 - 1) =
 * 10 <= 16 extra operations: recomputed. The consumer first loads w at n
 * distinct offsets (n = 250: 8 + 250 < 256; n = 256, 280: the u loads came
 * past the limit, all 8 extra > 7: a tile). */
START_TEST(recompute_consumer_loads)
{
    static const int counts[] = {250, 256, 280};
    assert_recomputed(gen_consumer_loads, counts, sizeof counts / sizeof *counts, 2);
}
END_TEST

/* n temporaries, each written by its own statement (index(k): never
 * recomputed), read at i-1, k-1 and at i+1 in a later computation. */
static void gen_many_statements(FILE *f, int n)
{
    fprintf(f, "stencil s(field<double> u, field<double> o) {\n"
               "  computation(parallel) { interval(0, end) {\n");
    for (int x = 0; x < n; x++)
        fprintf(f, "    double t%d = u * %d.0 + index(k);\n", x, x + 1);
    fprintf(f, "  } }\n  computation(parallel) { interval(1, end) {\n    o = 0.0");
    for (int x = 0; x < n; x++)
        fprintf(f, " + t%d[i-1, k-1] + t%d[i+1]", x, x);
    fprintf(f, ";\n  } }\n}\n");
}

/* The openmp emitter grew FULL halos over at most 256 pending statements of
 * an interval (the first ones were dropped); extents.c now computes every
 * temporary's alloc_halo once, over all of them. n temporaries t0 .. t(n-1),
 * each written by its own statement over the whole domain grown by one
 * point along I and read at i-1 and i+1 and at k-1 (so FULL) from the
 * levels 1 .. end: halo [1, 1] along I, [1, 0] along K, none along J, for
 * every one. */
START_TEST(alloc_halo_many_statements)
{
    static const int counts[] = {255, 256, 300};
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        Comp k;
        IrStencil *st = compile_generated(&k, gen_many_statements, counts[c]);
        for (int n = 0; n < counts[c]; n++) {
            char name[16];
            snprintf(name, sizeof name, "t%d", n);
            const IrField *f = field(st, name);
            ck_assert_int_eq(f->temp_class, IR_TEMP_FULL);
            ck_assert_int_eq(f->alloc_halo[AXIS_I][0], 1);
            ck_assert_int_eq(f->alloc_halo[AXIS_I][1], 1);
            ck_assert_int_eq(f->alloc_halo[AXIS_J][0] + f->alloc_halo[AXIS_J][1], 0);
            ck_assert_int_eq(f->alloc_halo[AXIS_K][0], 1);
            ck_assert_int_eq(f->alloc_halo[AXIS_K][1], 0);
        }
        done(&k);
    }
}
END_TEST

/* The facts the plan records on each kernel for the emitters (fuse.c:
 * kernel_facts), against the classes checked above.
 * hdiff (hdiff_plan): kernel [0] writes only l, a tile: redundant; kernel
 * [1] (flx's and fly's producers, left out, then out) writes out: a
 * partition. One group, one tile: l, listed on both kernels. No reduction.
 * row_lags' program: [0]-[2] write only the tiles t and b: redundant; [3]
 * writes res: a partition; the group's tiles are t and b, in field order.
 * A reduction is a kernel of its own, whose statement is recorded; the
 * kernel before it writes o: a partition with no reduction. Scalars are
 * not tiles: scalars_and_substitution's one kernel is a partition with no
 * tiles. */
START_TEST(kernel_facts)
{
    Comp k;
    IrStencil *st = compile(&k, HDIFF_STN);
    const IrInterval *iv = interval(st, 0, 0);
    ck_assert_int_eq(iv->kernels.len, 2);
    ck_assert(iv->kernels.items[0].redundant);
    ck_assert(!iv->kernels.items[1].redundant);
    for (int i = 0; i < 2; i++) {
        ck_assert_ptr_null(iv->kernels.items[i].reduce);
        ck_assert_int_eq(iv->kernels.items[i].ntiles, 1);
        ck_assert_int_eq(iv->kernels.items[i].tiles[0], field(st, "l")->id);
    }
    done(&k);

    st = compile(&k, row_lags_stn);
    iv = interval(st, 0, 0);
    ck_assert_int_eq(iv->kernels.len, 4);
    int t = field(st, "t")->id, b = field(st, "b")->id;
    for (int i = 0; i < 4; i++) {
        ck_assert(iv->kernels.items[i].redundant == (i < 3));
        ck_assert_ptr_null(iv->kernels.items[i].reduce);
        ck_assert_int_eq(iv->kernels.items[i].ntiles, 2);
        ck_assert_int_eq(iv->kernels.items[i].tiles[0], t < b ? t : b);
        ck_assert_int_eq(iv->kernels.items[i].tiles[1], t < b ? b : t);
    }
    done(&k);

    st = compile(&k,
        "stencil s(field<double> u, field<double> o, out double total) {\n"
        "  o = u * 2.0;\n"
        "  total = sum(u * u);\n"
        "}\n");
    iv = interval(st, 0, 0);
    ck_assert_int_eq(iv->kernels.len, 2);
    ck_assert_int_eq(iv->kernels.items[1].first, 1);
    ck_assert_int_eq(iv->stmts.items[1]->kind, IR_REDUCE);
    ck_assert_ptr_eq(iv->kernels.items[1].reduce, iv->stmts.items[1]);
    ck_assert_ptr_null(iv->kernels.items[0].reduce);
    for (int i = 0; i < 2; i++) {
        ck_assert(!iv->kernels.items[i].redundant);
        ck_assert_int_eq(iv->kernels.items[i].ntiles, 0);
    }
    done(&k);

    st = compile(&k,
        "stencil s(field<double> u, field<double> o) {\n"
        "  double a = u * 2.0;\n"
        "  double b = a + 1.0;\n"
        "  o = b * a;\n"
        "}\n");
    iv = interval(st, 0, 0);
    ck_assert_int_eq(field(st, "a")->temp_class, IR_TEMP_SCALAR);
    ck_assert_int_eq(iv->kernels.len, 1);
    ck_assert(!iv->kernels.items[0].redundant);
    ck_assert_int_eq(iv->kernels.items[0].ntiles, 0);
    done(&k);
}
END_TEST

/* The cuda plan stages in shared memory (IrKernel.stages) a parameter a group with tiles
 * reads only at level k, at 3 or more horizontal offsets, never writes and has no boundary
 * condition for. hdiff: the Laplacian's tile l runs over I -1..+1, J -1..+1 and reads u at
 * (0,0), (+-1,0), (0,+-1): u's box is I -2..+2, J -2..+2 around the 32 x 8 block, 36 x 12
 * doubles (3456 bytes); coeff is read at one offset: not staged. The openmp plan stages
 * nothing. smooth2 is smooth of tests/golden/ir/cuda_plan.stn with u also read at k+1 (not
 * staged); smooth3 with u read at two offsets only (not staged); smooth4 with a periodic
 * boundary on u (not staged); smooth5 writes u in a later computation (not staged: an
 * output may share its storage). */
START_TEST(stages)
{
    Comp k;
    IrStencil *st = compile_for(&k, HDIFF_STN, "cuda");
    const IrInterval *iv = interval(st, 0, 0);
    ck_assert_int_eq(iv->kernels.len, 2);
    for (int i = 0; i < 2; i++) {
        const IrKernel *kn = &iv->kernels.items[i];
        ck_assert_int_eq(kn->nstages, 1);
        ck_assert_int_eq(kn->stages[0].field, field(st, "u")->id);
        ck_assert(kn->stages[0].lo[0] == -2 && kn->stages[0].hi[0] == 2);
        ck_assert(kn->stages[0].lo[1] == -2 && kn->stages[0].hi[1] == 2);
        ck_assert(kn->stages[0].w == 36 && kn->stages[0].h == 12);
        ck_assert_int_eq(kn->stages[0].bytes, 3456);
    }
    done(&k);

    st = compile(&k, HDIFF_STN);
    iv = interval(st, 0, 0);
    for (int i = 0; i < iv->kernels.len; i++)
        ck_assert_int_eq(iv->kernels.items[i].nstages, 0);
    done(&k);

    static const char *const unstaged[] = {
        "stencil smooth2(field<double> u, field<double> res) {\n"
        "  double l = u[i-1] + u[i+1] - 2.0 * u[k+1];\n"
        "  double d = l[j-1] + l[j+1] + l[i-1] + l[i+1] + l;\n"
        "  res = u + 0.1 * d;\n"
        "}\n",
        "stencil smooth3(field<double> u, field<double> res) {\n"
        "  double l = u[i-1] + u[i+1];\n"
        "  double d = l[j-1] + l[j+1] + l[i-1] + l[i+1] + l;\n"
        "  res = u[i-1] + 0.1 * d;\n"
        "}\n",
        "stencil smooth4(field<double> u, field<double> res) {\n"
        "  boundary u: periodic;\n"
        "  double l = u[i-1] + u[i+1] - 2.0 * u;\n"
        "  double d = l[j-1] + l[j+1] + l[i-1] + l[i+1] + l;\n"
        "  res = u + 0.1 * d;\n"
        "}\n",
        "stencil smooth5(field<double> u, field<double> res) {\n"
        "  computation(parallel) { interval(0, end) {\n"
        "    double l = u[i-1] + u[i+1] - 2.0 * u;\n"
        "    double d = l[j-1] + l[j+1] + l[i-1] + l[i+1] + l;\n"
        "    res = u + 0.1 * d;\n"
        "  } }\n"
        "  computation(parallel) { interval(0, end) { u = res * 0.5; } }\n"
        "}\n",
    };
    for (size_t x = 0; x < sizeof unstaged / sizeof *unstaged; x++) {
        st = compile_for(&k, unstaged[x], "cuda");
        iv = interval(st, 0, 0);
        ck_assert_int_gt(iv->kernels.items[0].ntiles, 0);
        for (int i = 0; i < iv->kernels.len; i++)
            ck_assert_msg(iv->kernels.items[i].nstages == 0, "%s", unstaged[x]);
        done(&k);
    }
}
END_TEST

/* plan_columns_alike: the tridiagonal solver's kernels (columnar_sweeps) all
 * run over the domain's columns, in either computation and across both; in
 * barriers' second interval the kernel writing t, which v reads at i+1,
 * runs over I 0..+1 and v's over I 0 only: not alike. */
START_TEST(columns_alike)
{
    Comp k;
    IrStencil *st = compile(&k, TRIDIAGONAL_STN);
    const Extent *same = NULL;
    ck_assert(plan_columns_alike(st->computations.items[0], &same));
    ck_assert_ptr_nonnull(same);
    for (int a = 0; a < 2; a++)
        ck_assert(same->r[a].lo == 0 && same->r[a].hi == 0);
    ck_assert(plan_columns_alike(st->computations.items[1], &same));
    done(&k);

    st = compile(&k, barriers_stn);
    same = NULL;
    ck_assert(!plan_columns_alike(st->computations.items[0], &same));
    done(&k);
}
END_TEST

Suite *suite_fuse(void);
Suite *suite_fuse(void)
{
    Suite *s = suite_create("fuse");
    TCase *tc = tcase_create("plan");
    tcase_add_test(tc, hdiff_plan);
    tcase_add_test(tc, scalars_and_substitution);
    tcase_add_test(tc, full_and_sharing);
    tcase_add_test(tc, columnar_sweeps);
    tcase_add_test(tc, barriers);
    tcase_add_test(tc, column_group_lifetimes);
    tcase_add_test(tc, row_lags);
    tcase_add_test(tc, tile_slices);
    tcase_add_test(tc, plan_params);
    tcase_add_test(tc, recompute_offsets);
    tcase_add_test(tc, recompute_across_levels);
    tcase_add_test(tc, recompute_kernel_reads);
    tcase_add_test(tc, recompute_consumer_loads);
    tcase_add_test(tc, alloc_halo_many_statements);
    tcase_add_test(tc, kernel_facts);
    tcase_add_test(tc, columns_alike);
    tcase_add_test(tc, stages);
    suite_add_tcase(s, tc);
    return s;
}

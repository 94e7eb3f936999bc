/* testutil.h: what the unit tests that compile programs from strings in
 * process share (check_parser.c, check_sema.c, check_extents.c,
 * check_fuse.c). Every helper is static inline: each file uses what it needs. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"

/* bench/stencils/hdiff.stn's program, for the tests of its analyses. */
#define HDIFF_STN                                                                          \
    "function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }\n"            \
    "stencil hdiff(field<double> u, field<double> coeff, field<double> out_u) {\n"           \
    "  double l   = lap(u);\n"                                                              \
    "  double flx = l[i+1] - l;\n"                                                          \
    "  if (flx * (u[i+1] - u) > 0.0) flx = 0.0;\n"                                          \
    "  double fly = l[j+1] - l;\n"                                                          \
    "  if (fly * (u[j+1] - u) > 0.0) fly = 0.0;\n"                                          \
    "  out_u = u - coeff * (flx - flx[i-1] + fly - fly[j-1]);\n"                            \
    "}\n"

/* A tridiagonal solve: a forward sweep and a backward one, reading back only
 * along K (check_parser.c, check_fuse.c). */
#define TRIDIAGONAL_STN                                                                    \
    "stencil tridiagonal(field<double> a, field<double> b, field<double> c,\n"               \
    "                    field<double> d, field<double> x) {\n"                              \
    "  computation(forward) {\n"                                                            \
    "    interval(0, 1)   { c = c / b; d = d / b; }\n"                                      \
    "    interval(1, end) { double m = 1.0 / (b - a * c[k-1]);\n"                           \
    "                       c = c * m; d = (d - a * d[k-1]) * m; }\n"                       \
    "  }\n"                                                                                 \
    "  computation(backward) {\n"                                                           \
    "    interval(end-1, end) { x = d; }\n"                                                 \
    "    interval(0, end-1)   { x = d - c * x[k+1]; }\n"                                    \
    "  }\n"                                                                                 \
    "}\n"

/* One compilation; its diagnostics are collected in diag (diag_len bytes,
 * complete after a fflush of out). */
typedef struct {
    Compiler *c;
    Module *m;                /* check_parser.c: what parse_string returned */
    char *diag;
    size_t diag_len;
    FILE *out;
} Comp;

/* Starts a compilation whose diagnostics go to k->diag. */
static inline void comp_open(Comp *k)
{
    k->out = open_memstream(&k->diag, &k->diag_len);
    k->c = compiler_new(k->out);
}

/* Parses text as the main module "t.stn", which must be free of syntax
 * errors, resolves its imports, lowers each stencil and checks its access
 * rules (then, without errors, sema_unique_names), as the driver does. */
static inline void comp_lower(Comp *k, const char *text)
{
    k->c->main = parse_string(k->c, "t.stn", text);
    ck_assert_msg(k->c->main && k->c->diag.errors == 0, "syntax errors in the test program");
    import_resolve(k->c);
    sema_check_program(k->c);
    for (int i = 0; i < k->c->main->stencils.len && !diag_full(&k->c->diag); i++)
        access_check(k->c, sema_lower_stencil(k->c, i));
    if (k->c->diag.errors == 0)
        sema_unique_names(k->c);
}

/* After comp_lower, which must have found no error: ext_compute. */
static inline void comp_extents(Comp *k)
{
    ck_assert_msg(k->c->diag.errors == 0, "sema errors:\n%s", (fflush(k->out), k->diag));
    ext_compute(k->c);
}

/* No error was reported (out flushed). */
static inline void assert_no_errors(Comp *k)
{
    ck_assert_msg(k->c->diag.errors == 0, "unexpected errors:\n%s", k->diag);
}

static inline void done(Comp *k)
{
    compiler_free(k->c);
    fclose(k->out);
    free(k->diag);
}

/* The first stencil of the IR (there must be one). */
static inline IrStencil *stencil0(Comp *k)
{
    ck_assert_int_ge(k->c->ir->stencils.len, 1);
    return k->c->ir->stencils.items[0];
}

/* The field (or temporary) of st named name; fails the test if none. */
static inline IrField *field(IrStencil *st, const char *name)
{
    for (int i = 0; i < st->fields.len; i++)
        if (strcmp(st->fields.items[i]->name, name) == 0)
            return st->fields.items[i];
    ck_abort_msg("no field '%s'", name);
    return NULL;
}

static inline bool has_field(IrStencil *st, const char *name)
{
    for (int i = 0; i < st->fields.len; i++)
        if (strcmp(st->fields.items[i]->name, name) == 0)
            return true;
    return false;
}

#endif /* TESTUTIL_H */

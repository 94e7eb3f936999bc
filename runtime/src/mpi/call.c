/* call.c: what a distributed call knows that the core's placed call does not (call.h): the
 * hooks of its placement, through which gt__place, gt__halo, gt__place_result,
 * gt__levels_now, gt__keep and gt__keep_result reach the call's storages, widths, out
 * scalars and kept outputs. No MPI here: mpi.c runs the call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call.h"

static const char *const axis_name[2] = {"I", "J"};
static const char *const side_name[2] = {"lower", "upper"};

static gt__mpi_call *call_of(const gt__placement *p)
{
    return p->ctx;
}

/* Storage s's number among the call's storages, n if absent. */
static int storage_index(const gt__mpi_call *c, const gt_storage *s)
{
    int k = 0;
    while (k < c->n && c->storages[k] != s)
        k++;
    return k;
}

static int holds(const gt__placement *p, const gt_storage *s)
{
    const gt__mpi_call *c = call_of(p);
    return storage_index(c, s) < c->n;
}

/* Whether storage s has room for what field f reads beyond the internal side `side` of
   axis a (r points), from the halo the exchange fills: a storage made with S_info's halo
   has none along an axis with a boundary condition, which one process applies instead. */
static int check_room(const gt__mpi_call *c, const gt_stencil_info *info, int f,
                      const gt_storage *s, int a, int side, int64_t r)
{
    int x = gt__axis_pos(s, "IJ"[a]);
    if (x < 0 || gt__halo(s, x, side) >= r)
        return 0;
    return gt__error(GT_EHALO, "stencil '%s': rank %d: field '%s' reads %lld point(s) beyond "
                     "the %s %s edge of this rank's box, from its halo, but the storage's "
                     "halo there is %lld: a distributed call needs the halo gt_mpi_halo gives "
                     "(S_info.fields[%d].reach along I and J)", info->name, c->rank,
                     info->fields[f].name, (long long)r, side_name[side], axis_name[a],
                     (long long)gt__halo(s, x, side), f);
}

/* Field f reads r points beyond an internal side: its storage must be exchanged, as far as
   it reads; the checking call checks the storage's halo and records the reach per storage
   in c->needed. */
static int reads(gt__placement *p, const gt_stencil_info *info, int f, const gt_storage *s,
                 int a, int side, int64_t r)
{
    gt__mpi_call *c = call_of(p);
    const gt_field_info *fi = &info->fields[f];
    int k = storage_index(c, s);
    if (k == c->n)
        return gt__error(GT_EINVAL, "stencil '%s': rank %d: field '%s' reads %lld "
                         "point(s) beyond the %s %s edge of this rank's box, from "
                         "its halo, but its storage is not among gt_mpi_call's "
                         "storages: nothing would fill that halo", info->name,
                         c->rank, fi->name, (long long)r, side_name[side],
                         axis_name[a]);
    if (p->check == 1) {
        int rc = check_room(c, info, f, s, a, side, r);
        if (rc)
            return rc;
        if (c->needed[k][a][side] < r) {
            c->needed[k][a][side] = r;
            c->needed_by[k] = fi->name;
        }
    } else if (c->widths[k][a][side] < r) {
        return gt__error(GT_EHALO, "stencil '%s': rank %d: field '%s' reads %lld "
                         "point(s) beyond the %s %s edge of this rank's box, but "
                         "gt_mpi_call exchanged %lld there", info->name, c->rank,
                         fi->name, (long long)r, side_name[side], axis_name[a],
                         (long long)c->widths[k][a][side]);
    }
    return 0;
}

/* min and max of reals as the language computes them (language.md 5.6, gt_min_double in
   gt_generated.h): a NaN loses to a number, and where the two compare equal (+0 and -0)
   the second wins, the later part's or rank's value. C's fmin gave glibc's answer there,
   the first: ranks whose parts were +0 and -0 combined to +0 where one process's min is
   -0. */
#define GT_MIN(a, b) ((a) < (b) || (b) != (b) ? (a) : (b))
#define GT_MAX(a, b) ((a) > (b) || (b) != (b) ? (a) : (b))

void gt__reduction_combine(gt__reduction *r, const void *value)
{
    if (!r->set) {
        memcpy(&r->value, value, gt_dtype_size(r->dtype));
        r->set = 1;
        return;
    }
    switch (r->dtype) {
    case GT_FLOAT64: {
        double v;
        memcpy(&v, value, sizeof v);
        r->value.d = r->op == 0   ? r->value.d + v
                     : r->op == 1 ? GT_MIN(r->value.d, v)
                                  : GT_MAX(r->value.d, v);
        break;
    }
    case GT_FLOAT32: {
        float v;
        memcpy(&v, value, sizeof v);
        r->value.f = r->op == 0   ? r->value.f + v
                     : r->op == 1 ? GT_MIN(r->value.f, v)
                                  : GT_MAX(r->value.f, v);
        break;
    }
    case GT_INT32: {
        int32_t v;
        memcpy(&v, value, sizeof v);
        /* a sum in unsigned arithmetic: wraps as the generated code's would, defined */
        r->value.i = r->op == 0   ? (int32_t)((uint32_t)r->value.i + (uint32_t)v)
                     : r->op == 1 ? (v < r->value.i ? v : r->value.i)
                                  : (v > r->value.i ? v : r->value.i);
        break;
    }
    case GT_BOOL: {
        bool v;
        memcpy(&v, value, sizeof v);
        /* min: all, max: any; a sum of bools is not a language reduction */
        r->value.b = r->op == 1 ? (r->value.b && v) : (r->value.b || v);
        break;
    }
    }
}

/* A part's out scalar: combined into its slot (the parts must agree on it). */
static void result(gt__placement *p, int slot, int op, gt_dtype dtype, void *value)
{
    gt__mpi_call *c = call_of(p);
    if (slot >= c->cap) {
        int cap = slot + 8;
        gt__reduction *red = realloc(c->red, sizeof *red * (size_t)cap);
        if (!red) {
            c->red_error = GT_ENOMEM;
            return;
        }
        memset(red + c->cap, 0, sizeof *red * (size_t)(cap - c->cap));
        c->red = red;
        c->cap = cap;
    }
    if (slot >= c->nred)
        c->nred = slot + 1;
    gt__reduction *r = &c->red[slot];
    if (r->set && (r->op != op || r->dtype != dtype || r->result != value)) {
        c->red_error = GT_EINVAL;
        return;
    }
    r->op = op;
    r->dtype = dtype;
    r->result = value;
    gt__reduction_combine(r, value);
}

/* The checking call keeps every output's box on the host (whatever the backend), in the
   call's state, for gt__mpi_call_end; the parts keep nothing. */
static int keep(gt__placement *p, const gt_stencil_info *info, gt_storage *const *fields,
                const int64_t size[3], int checking)
{
    gt__mpi_call *c = call_of(p);
    if (checking != 1)
        return 0;
    int rc = 0;
    for (int f = 0; f < info->nfields && !rc; f++)
        if (info->fields[f].is_output)
            rc = gt__kept_add(&c->kept, info->name, fields[f], size, 0);
    return rc;
}

static void keep_result(gt__placement *p, int checking, const void *value, size_t bytes)
{
    gt__mpi_call *c = call_of(p);
    if (checking != 1)
        return;
    if (gt__kept_add_result(&c->kept, value, bytes))
        c->red_error = GT_ENOMEM;   /* the call fails (combine_results) */
}

static void levels(gt__placement *p, int after)
{
    call_of(p)->levels = after ? 2 : 1;
}

/* The checking call's scalar arguments, kept for the ranks to compare (gt_mpi_call). */
static void scalars(gt__placement *p, const gt__scalar *given, int n)
{
    gt__mpi_call *c = call_of(p);
    free(c->scalars);
    c->scalars = NULL;
    c->nscalars = n;
    c->scalars_error = 0;
    if (n > 0 && !(c->scalars = malloc(sizeof *given * (size_t)n)))
        c->scalars_error = GT_ENOMEM;
    else if (n > 0)
        memcpy(c->scalars, given, sizeof *given * (size_t)n);
}

static const gt__layer layer = {"gt_mpi_call", "gt_mpi_decompose's periodic", reads, holds,
                                result, keep, keep_result, levels, scalars};

void gt__mpi_call_init(gt__mpi_call *c, int rank, int n, gt_storage *const *storages,
                       gt__mpi_widths *needed, const char **needed_by)
{
    memset(c, 0, sizeof *c);
    c->rank = rank;
    c->n = n;
    c->storages = storages;
    c->needed = needed;
    c->needed_by = needed_by;
    snprintf(c->place.who, sizeof c->place.who, "rank %d", rank);
    c->place.layer = &layer;
    c->place.ctx = c;
}

int gt__mpi_call_end(gt__mpi_call *c, int rc)
{
    gt__kept *k = c->kept;
    c->kept = NULL;
    return gt__keep_end(k, rc);
}

void gt__mpi_call_free(gt__mpi_call *c)
{
    free(c->red);
    c->red = NULL;
    c->nred = c->cap = 0;
    free(c->scalars);
    c->scalars = NULL;
    c->nscalars = 0;
}

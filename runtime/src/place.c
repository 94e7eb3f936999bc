/* place.c: where a stencil call's compute domain lies in the global domain (gt__place),
 * and the out scalars of a distributed call (gt__place_result).
 *
 * Every generated stencil asks gt__place once per call, after binding its arguments. A
 * single process's call is the whole global domain: origin 0, bounds [0, size), periodic
 * boundary conditions wrap within the domain. While a distributed call runs
 * (gt_mpi_call, runtime/src/mpi/mpi.c), the calling thread has a current gt__where: the
 * part of the global domain the stencil computes, which sides of the rank's box are
 * internal (their halos come from the exchange), and what was exchanged. gt__place then
 * checks the call against it, before the stencil touches any data, and tells the
 * generated code the global origin (index(i), index(j)) and the global edges (boundary
 * conditions apply there only). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static _Thread_local gt__where *current;

void gt__where_set(gt__where *w)
{
    current = w;
}

static const char *const axis_name[2] = {"I", "J"};
static const char *const side_name[2] = {"lower", "upper"};

/* Whether storage s has room for what field f reads beyond the internal side `side` of
   axis a (r points), from the halo the exchange fills: a storage made with S_info's halo
   has none along an axis with a boundary condition, which one process applies instead. */
static int check_room(const gt__where *w, const gt_stencil_info *info, int f,
                      const gt_storage *s, int a, int side, int64_t r)
{
    int x = gt__axis_pos(s, "IJ"[a]);
    if (x < 0 || s->halo[x][side] >= r)
        return 0;
    return gt__error(GT_EHALO, "stencil '%s': rank %d: field '%s' reads %lld point(s) beyond "
                     "the %s %s edge of this rank's box, from its halo, but the storage's "
                     "halo there is %lld: a distributed call needs the halo gt_mpi_halo gives "
                     "(S_info.fields[%d].reach along I and J)", info->name, w->rank,
                     info->fields[f].name, (long long)r, side_name[side], axis_name[a],
                     (long long)s->halo[x][side], f);
}

/* What field f of a distributed call needs: each internal side's halo exchanged as far as
   it reads (its reach), and a periodic bc only along an axis that the decomposition wraps.
   The checking call records the reach per storage in w->needed. */
static int check_field(gt__where *w, const gt_stencil_info *info, int f, gt_storage *s)
{
    const gt_field_info *fi = &info->fields[f];
    for (int a = 0; a < 2; a++) {
        if (!strchr(fi->axes, "IJ"[a]))
            continue;
        if (fi->bc[a] == 1 + GT_BC_PERIODIC && !w->wrap[a])
            return gt__error(GT_EINVAL, "stencil '%s': rank %d: field '%s' has a periodic "
                             "boundary condition along %s, but the decomposition is not "
                             "periodic along %s (gt_mpi_decompose's periodic[%d])",
                             info->name, w->rank, fi->name, axis_name[a], axis_name[a], a);
        for (int side = 0; side < 2; side++) {
            int64_t r = fi->reach[a][side];
            if (r == 0 || !w->internal[a][side])
                continue;
            int k = 0;
            while (k < w->n && w->storages[k] != s)
                k++;
            if (k == w->n)
                return gt__error(GT_EINVAL, "stencil '%s': rank %d: field '%s' reads %lld "
                                 "point(s) beyond the %s %s edge of this rank's box, from "
                                 "its halo, but its storage is not among gt_mpi_call's "
                                 "storages: nothing would fill that halo", info->name,
                                 w->rank, fi->name, (long long)r, side_name[side],
                                 axis_name[a]);
            if (w->check) {
                int rc = check_room(w, info, f, s, a, side, r);
                if (rc)
                    return rc;
                if (w->needed[k][a][side] < r) {
                    w->needed[k][a][side] = r;
                    w->needed_by[k] = fi->name;
                }
            } else if (w->widths[k][a][side] < r) {
                return gt__error(GT_EHALO, "stencil '%s': rank %d: field '%s' reads %lld "
                                 "point(s) beyond the %s %s edge of this rank's box, but "
                                 "gt_mpi_call exchanged %lld there", info->name, w->rank,
                                 fi->name, (long long)r, side_name[side], axis_name[a],
                                 (long long)w->widths[k][a][side]);
            }
        }
    }
    return 0;
}

int gt__place(const gt_stencil_info *info, gt_storage *const *fields, const int64_t size[3],
              gt_place *place)
{
    gt__where *w = current;
    if (!w) {
        for (int a = 0; a < 2; a++) {
            place->origin[a] = 0;
            place->lo[a] = 0;
            place->hi[a] = size[a];
            place->wrap[a] = 1;
        }
        place->distributed = NULL;
        return 0;
    }
    w->calls++;
    w->info = info;
    if (size[0] != w->size[0] || size[1] != w->size[1])
        return gt__error(GT_ESHAPE, "stencil '%s': rank %d: called with a domain of %lld x "
                         "%lld along I and J in a distributed call whose part is %lld x "
                         "%lld: call the stencil with the domain gt_mpi_call gives",
                         info->name, w->rank, (long long)size[0], (long long)size[1],
                         (long long)w->size[0], (long long)w->size[1]);
    for (int f = 0; f < info->nfields; f++) {
        int rc = check_field(w, info, f, fields[f]);
        if (rc)
            return rc;
    }
    /* positions beyond +-2^30 compare alike with any position of a storage (below 2^29
       along an axis for 32-bit kernels, gt__index32): the bounds fit every index type */
    const int64_t far = (int64_t)1 << 30;
    for (int a = 0; a < 2; a++) {
        int64_t lo = -w->origin[a], hi = w->global[a] - w->origin[a];
        place->origin[a] = w->origin[a];
        place->lo[a] = lo < -far ? -far : lo;
        place->hi[a] = hi > far ? far : hi;
        place->wrap[a] = 0;
    }
    place->distributed = w;
    return w->check ? 1 : 0;
}

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
        r->value.d = r->op == 0 ? r->value.d + v : r->op == 1 ? fmin(r->value.d, v)
                                                              : fmax(r->value.d, v);
        break;
    }
    case GT_FLOAT32: {
        float v;
        memcpy(&v, value, sizeof v);
        r->value.f = r->op == 0 ? r->value.f + v : r->op == 1 ? fminf(r->value.f, v)
                                                              : fmaxf(r->value.f, v);
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

void gt__place_result(const gt_place *place, int slot, int op, gt_dtype dtype, void *result)
{
    gt__where *w = place->distributed;
    if (!w || slot < 0)
        return;
    if (slot >= w->cap) {
        int cap = slot + 8;
        gt__reduction *red = realloc(w->red, sizeof *red * (size_t)cap);
        if (!red) {
            w->red_error = GT_ENOMEM;
            return;
        }
        memset(red + w->cap, 0, sizeof *red * (size_t)(cap - w->cap));
        w->red = red;
        w->cap = cap;
    }
    if (slot >= w->nred)
        w->nred = slot + 1;
    gt__reduction *r = &w->red[slot];
    if (r->set && (r->op != op || r->dtype != dtype || r->result != result)) {
        w->red_error = GT_EINVAL;
        return;
    }
    r->op = op;
    r->dtype = dtype;
    r->result = result;
    gt__reduction_combine(r, result);
}

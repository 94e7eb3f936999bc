/* fake_layer.h: a layer above the core's placed call (gt__placement, rt.h) for the unit
 * tests of place.c (check_rt_place.c, check_rt_klevels.c): no MPI, no storages list, no
 * widths; it holds one storage (gt__halo's part applies to it only) and records every hook
 * call, so that tests see what the core asked of the layer and what it answered from the
 * placement alone. Every function here is static. */
#ifndef FAKE_LAYER_H
#define FAKE_LAYER_H

#include <string.h>

#include "rt.h"

enum { FAKE_MAX = 16 };

typedef struct {
    const gt_storage *held;   /* the one storage whose interior the part lies in */
    int reads_rc;             /* what reads answers (0 or a code it sets the error for) */
    int nreads;               /* reads calls, and each one's arguments */
    struct { int f, a, side, check; int64_t r; const gt_storage *s; } read[FAKE_MAX];
    int nholds;
    int nresults, slot, op;   /* result calls, and the last one's arguments */
    gt_dtype dtype;
    void *result;
    int nkeep, keep_checking, nkeep_results;
    int nlevels, after;       /* levels calls, and the last one's argument */
    int nscalar_calls, nscalars;   /* scalars calls, and the last one's count and first */
    gt__scalar scalar0;
} fake_layer;

static fake_layer *fake_of(const gt__placement *p)
{
    return p->ctx;
}

static int fake_reads(gt__placement *p, const gt_stencil_info *info, int f,
                      const gt_storage *s, int a, int side, int64_t r)
{
    fake_layer *l = fake_of(p);
    if (l->nreads < FAKE_MAX) {
        l->read[l->nreads].f = f;
        l->read[l->nreads].a = a;
        l->read[l->nreads].side = side;
        l->read[l->nreads].check = p->check;
        l->read[l->nreads].r = r;
        l->read[l->nreads].s = s;
    }
    l->nreads++;
    if (l->reads_rc)
        return gt__error(l->reads_rc, "stencil '%s': %s: the fake refuses field %d", info->name,
                         p->who, f);
    return 0;
}

static int fake_holds(const gt__placement *p, const gt_storage *s)
{
    fake_layer *l = fake_of(p);
    l->nholds++;
    return s == l->held;
}

static void fake_result(gt__placement *p, int slot, int op, gt_dtype dtype, void *result)
{
    fake_layer *l = fake_of(p);
    l->nresults++;
    l->slot = slot;
    l->op = op;
    l->dtype = dtype;
    l->result = result;
}

static int fake_keep(gt__placement *p, const gt_stencil_info *info, gt_storage *const *fields,
                     const int64_t size[3], int checking)
{
    fake_layer *l = fake_of(p);
    l->nkeep++;
    l->keep_checking = checking;
    return 0;
}

static void fake_keep_result(gt__placement *p, int checking, const void *result, size_t bytes)
{
    fake_of(p)->nkeep_results++;
}

static void fake_levels(gt__placement *p, int after)
{
    fake_layer *l = fake_of(p);
    l->nlevels++;
    l->after = after;
}

static void fake_scalars(gt__placement *p, const gt__scalar *scalars, int n)
{
    fake_layer *l = fake_of(p);
    l->nscalar_calls++;
    l->nscalars = n;
    if (n > 0)
        l->scalar0 = scalars[0];
}

static const gt__layer fake_hooks = {"fake_call", "fake_wraps", fake_reads, fake_holds,
                                     fake_result, fake_keep, fake_keep_result, fake_levels,
                                     fake_scalars};

/* A placement over the fake layer l, zero elsewhere: "part 7" in messages. */
static void fake_placement(gt__placement *p, fake_layer *l)
{
    memset(p, 0, sizeof *p);
    memset(l, 0, sizeof *l);
    strcpy(p->who, "part 7");
    p->layer = &fake_hooks;
    p->ctx = l;
}

#endif /* FAKE_LAYER_H */

/* load.h: a build of a generated program with the call shims of gen --wrap, loaded for a
 * driver (tests/diff/driver.c, tests/mpi/check_mpi_random.c): dlopen, then its table. */
#ifndef DIFF_LOAD_H
#define DIFF_LOAD_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "diff.h"

/* The diff_stencils table of the shared object at path (exits with 2, naming who, where
   it cannot be loaded); *lib (may be NULL) gets its handle. */
static inline const DiffStencil *diff_load(const char *path, const char *who, void **lib)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "%s: %s\n", who, dlerror());
        exit(2);
    }
    if (lib)
        *lib = h;
    const DiffStencil *t = dlsym(h, "diff_stencils");
    if (!t) {
        fprintf(stderr, "%s: %s: no diff_stencils\n", who, path);
        exit(2);
    }
    return t;
}

#endif

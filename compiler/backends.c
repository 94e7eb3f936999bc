/* backends.c: the table of code generators behind `-b NAME`. A backend that
 * is not built yet is absent from the table, and gtcc says so. */
#include <string.h>

#include "gtcc.h"

static const Backend *const backends[] = {
    &backend_naive,
    &backend_openmp,
    NULL,
};

const Backend *backend_find(const char *name)
{
    for (size_t i = 0; backends[i]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

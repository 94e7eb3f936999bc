/* backends.c: the table of code generators behind `-b NAME`: every name the
 * command line accepts, with its file suffix, comes from here. A backend
 * listed but not built yet would have a name and a suffix but no hooks, and
 * gtcc would say it is not available. */
#include <string.h>

#include "gtcc.h"

/* One row a backend, in the order --help lists them: X(NAME) for the
 * `const Backend backend_NAME` that compiler/emit_NAME.c defines. */
#define BACKENDS(X) \
    X(naive)        \
    X(openmp)       \
    X(cuda)

#define X(name) extern const Backend backend_##name;
BACKENDS(X)
#undef X

static const Backend *const backends[] = {
#define X(name) &backend_##name,
    BACKENDS(X)
#undef X
    NULL,
};

const Backend *const backend_default = &backend_openmp;

const Backend *backend_find(const char *name)
{
    for (size_t i = 0; backends[i]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

bool backend_available(const Backend *b)
{
    return b->stencil != NULL;
}

const char *backend_list(Arena *arena, const char *sep, const char *last_sep,
                         bool mark_default)
{
    const char *text = "";
    for (size_t i = 0; backends[i]; i++)
        text = arena_printf(arena, "%s%s%s%s", text,
                            i == 0 ? "" : backends[i + 1] ? sep : last_sep, backends[i]->name,
                            mark_default && backends[i] == backend_default ? " (default)" : "");
    return text;
}

/* backends.c: the table of code generators behind `-b NAME`: every name the
 * command line accepts, with its file suffix, comes from here. A backend
 * that is not built yet has a name and a suffix but no hooks, and gtcc says
 * it is not available. */
#include <string.h>

#include "gtcc.h"

/* Known to the command line (cli.md), not built yet. */
static const Backend backend_cuda = {.name = "cuda", .suffix = ".cu"};

/* In the order --help lists them. */
static const Backend *const backends[] = {
    &backend_naive,
    &backend_openmp,
    &backend_cuda,
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

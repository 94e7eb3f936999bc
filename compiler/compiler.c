/* compiler.c: the compilation context. One Compiler holds the arena that
 * every stage allocates from, the options, the diagnostics and the results of
 * each stage; compiler_free releases all of it at once. */
#include <stdlib.h>

#include "gtcc.h"

Compiler *compiler_new(FILE *diag_out)
{
    Arena *arena = arena_new();
    Compiler *c = arena_alloc(arena, sizeof *c);
    c->arena = arena;
    c->diag.out = diag_out ? diag_out : stderr;
    c->opts.backend = backend_default->name;
    c->opts.emit = EMIT_C;
    return c;
}

void compiler_free(Compiler *c)
{
    if (c)
        arena_free(c->arena);
}

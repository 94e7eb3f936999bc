/* import.c: resolving `import "path";` (language.md section 3).
 *
 * A path is looked up relative to the directory of the importing file, then
 * in each -I directory, in order; the first file that exists is taken. Files
 * are identified by device and inode, so a module imported twice, through any
 * spelling of its path, is read and parsed once. An import that leads back to
 * a file still being resolved is a cycle, reported with the whole chain.
 * c->modules ends up in dependency order: each module after its imports.
 */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "gtcc.h"

typedef enum { VISITING, DONE } VisitState;

typedef struct {
    dev_t dev;
    ino_t ino;
    bool known;          /* dev and ino are valid (the file could be stat'ed) */
    Module *module;
    VisitState state;
} Seen;

typedef struct {
    Compiler *c;
    VEC(Seen) seen;
    VEC(Module *) stack;     /* the chain of imports being resolved */
} Resolver;

static int find_seen(Resolver *r, const struct stat *st)
{
    for (int i = 0; i < r->seen.len; i++)
        if (r->seen.items[i].known && r->seen.items[i].dev == st->st_dev
            && r->seen.items[i].ino == st->st_ino)
            return i;
    return -1;
}

static int add_seen(Resolver *r, Module *m, const struct stat *st)
{
    Seen s = {0};
    s.module = m;
    s.state = VISITING;
    if (st) {
        s.known = true;
        s.dev = st->st_dev;
        s.ino = st->st_ino;
    }
    vec_push(r->c->arena, &r->seen, s);
    return r->seen.len - 1;
}

/* "dir/" of a path, or "" when it has no directory part. */
static const char *dir_of(Compiler *c, const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? arena_strndup(c->arena, path, (size_t)(slash - path) + 1) : "";
}

/* The chain "a.stn -> b.stn -> a.stn" from module `from` on the stack. */
static const char *cycle_text(Resolver *r, Module *from)
{
    const char *text = NULL;
    bool on = false;
    for (int i = 0; i < r->stack.len; i++) {
        Module *m = r->stack.items[i];
        if (m == from)
            on = true;
        if (on)
            text = text ? arena_printf(r->c->arena, "%s -> %s", text, m->path) : m->path;
    }
    return arena_printf(r->c->arena, "%s -> %s", text, from->path);
}

static void resolve(Resolver *r, Module *m, int seen_index);

static void resolve_import(Resolver *r, Module *m, Import *imp)
{
    Compiler *c = r->c;
    if (imp->path[0] == '\0') {
        diag_error(&c->diag, imp->loc, "empty import path");
        return;
    }
    /* Candidates: beside the importing file, then in each -I directory. */
    const char *found = NULL;
    struct stat st;
    const char *tried = NULL;
    int ndirs = imp->path[0] == '/' ? 0 : c->opts.include_dirs.len;
    for (int i = -1; i < ndirs && !found; i++) {
        const char *cand;
        if (imp->path[0] == '/')
            cand = imp->path;
        else if (i < 0)
            cand = arena_printf(c->arena, "%s%s", dir_of(c, m->path), imp->path);
        else {
            const char *dir = c->opts.include_dirs.items[i];
            size_t n = strlen(dir);
            cand = arena_printf(c->arena, "%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", imp->path);
        }
        if (stat(cand, &st) == 0)
            found = cand;
        else
            tried = tried ? arena_printf(c->arena, "%s, '%s'", tried, cand)
                          : arena_printf(c->arena, "'%s'", cand);
    }
    if (!found) {
        diag_error(&c->diag, imp->loc, "cannot find imported file '%s' (looked for %s)",
                   imp->path, tried);
        return;
    }
    int i = find_seen(r, &st);
    if (i >= 0 && r->seen.items[i].state == VISITING) {
        Module *from = r->seen.items[i].module;
        if (from == m)
            diag_error(&c->diag, imp->loc, "'%s' imports itself", m->path);
        else
            diag_error(&c->diag, imp->loc, "import cycle: %s", cycle_text(r, from));
        return;
    }
    if (i >= 0) {
        imp->module = r->seen.items[i].module;
        return;
    }
    Module *dep = parse_file(c, found, imp->loc);
    if (!dep)
        return;
    imp->module = dep;
    resolve(r, dep, add_seen(r, dep, &st));
}

static void resolve(Resolver *r, Module *m, int seen_index)
{
    vec_push(r->c->arena, &r->stack, m);
    for (int i = 0; i < m->imports.len && !diag_full(&r->c->diag); i++)
        resolve_import(r, m, m->imports.items[i]);
    r->stack.len--;
    r->seen.items[seen_index].state = DONE;
    vec_push(r->c->arena, &r->c->modules, m);
}

void import_resolve(Compiler *c)
{
    if (!c->main)
        return;
    Resolver r = {.c = c};
    struct stat st;
    bool known = stat(c->main->path, &st) == 0;
    resolve(&r, c->main, add_seen(&r, c->main, known ? &st : NULL));
}

/* depfile.c: make dependencies, as GCC's -M, -MD, -MF and -MT write them.
 *
 *     TARGET: main.stn lib/a.stn \
 *       lib/b.stn
 *
 *     lib/a.stn:
 *
 *     lib/b.stn:
 *
 * The target is the generated source (what `gtcc FILE.stn` writes, or -o),
 * unless -MT gives one (verbatim; several -MT make several targets) or -MQ
 * (quoted for make, as the prerequisites are). -MMD is -MD (a program has no
 * system headers to leave out) and -MP is accepted and changes nothing. The
 * prerequisites are the main file and every imported file, as gtcc opened
 * them. Each import also gets an empty rule, as with GCC's -MP, so that make
 * does not fail when an import is deleted; gtcc always writes them. -M prints
 * the rule on stdout (or to the -MF file) and compiles nothing; -MD writes it
 * to the -MF file or beside the output, with suffix .d, after a successful
 * compilation: with the generated files, all or none (driver_write_files).
 * Dependency files are written atomically, like every output.
 */
#include <errno.h>
#include <string.h>

#include "gtcc.h"

/* path with make's special characters escaped, as GCC does (for -MQ too). */
const char *depfile_quote(Arena *arena, const char *path)
{
    size_t n = strlen(path);
    char *q = arena_alloc(arena, 2 * n + 1), *d = q;
    for (const char *s = path; *s; s++) {
        if (*s == ' ' || *s == '\t') {
            for (const char *b = s; b > path && b[-1] == '\\'; b--)
                *d++ = '\\';
            *d++ = '\\';
        } else if (*s == '#') {
            *d++ = '\\';
        } else if (*s == '$') {
            *d++ = '$';
        }
        *d++ = *s;
    }
    *d = '\0';
    return q;
}

static void put_escaped(Compiler *c, FILE *out, const char *path)
{
    fputs(depfile_quote(c->arena, path), out);
}

void depfile_rule(Compiler *c, FILE *out, const char *target)
{
    if (c->opts.dep_target)
        fputs(c->opts.dep_target, out);
    else
        put_escaped(c, out, target);
    fputc(':', out);
    size_t col = strlen(c->opts.dep_target ? c->opts.dep_target : target) + 1;
    /* The main file first, then the imports in the order they were read. */
    for (int i = -1; i < c->modules.len; i++) {
        const Module *m = i < 0 ? c->main : c->modules.items[i];
        if (i >= 0 && m == c->main)
            continue;
        size_t n = strlen(m->path);
        if (col + n + 1 > 76 && col > 0) {
            fputs(" \\\n ", out);
            col = 1;
        }
        fputc(' ', out);
        put_escaped(c, out, m->path);
        col += n + 1;
    }
    fputc('\n', out);
    for (int i = 0; i < c->modules.len; i++) {
        const Module *m = c->modules.items[i];
        if (m == c->main)
            continue;
        fputc('\n', out);
        put_escaped(c, out, m->path);
        fputs(":\n", out);
    }
}

bool depfile_write(Compiler *c, const char *target)
{
    const Options *o = &c->opts;
    if (o->dep_M && !o->dep_file) {
        depfile_rule(c, stdout, target);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            diag_error(&c->diag, (Loc){0}, "cannot write to standard output: %s",
                       strerror(errno));
            return false;
        }
        return true;
    }
    OutFile out;
    if (driver_program_file(c, depfile_path(c, target))
        || !outfile_open(c, &out, depfile_path(c, target)))
        return false;
    depfile_rule(c, out.f, target);
    return outfile_commit(c, &out);
}

const char *depfile_path(Compiler *c, const char *target)
{
    return c->opts.dep_file ? c->opts.dep_file : driver_sibling_path(c, target, ".d");
}

/* parse.c: reading a .stn file and running the scanner and the parser on it
 * (grammar/stencil.l and grammar/stencil.y).
 *
 * The whole file is read into the arena and registered with the diagnostics,
 * so that messages can quote its lines; the scanner works on a copy of it, so
 * NUL bytes and a missing final newline are handled like any other input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gtcc.h"
#include "parser.h"
#include "lexer.h"

/* Larger files are refused: no stencil program is that big, and flex
 * counts its buffer in ints. */
#define MAX_SOURCE_SIZE ((size_t)64 << 20)

static Module *parse_source(Compiler *c, SourceFile *src)
{
    /* a UTF-8 byte order mark opening the file is no part of the program, as in C
       compilers: skipped, so that columns and quoted lines start after it */
    if (src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0) {
        src->text += 3;
        src->len -= 3;
    }
    Module *m = arena_alloc(c->arena, sizeof *m);
    m->path = src->path;
    vec_push(c->arena, &c->diag.sources, src);

    Parser *p = arena_alloc(c->arena, sizeof *p);
    p->c = c;
    p->mod = m;
    p->file = src->path;
    p->line = 1;
    p->col = 1;
    p->prev_tok = p->tok = TOK_YYEOF;

    yyscan_t scanner;
    if (yylex_init_extra(p, &scanner) != 0)
        gtcc_die("out of memory");
    YY_BUFFER_STATE buf = yy_scan_bytes(src->text, (int)src->len, scanner);
    yyparse(scanner, p);
    yy_delete_buffer(buf, scanner);
    yylex_destroy(scanner);
    return m;
}

Module *parse_string(Compiler *c, const char *name, const char *text)
{
    SourceFile *src = arena_alloc(c->arena, sizeof *src);
    src->path = arena_strdup(c->arena, name);
    src->len = strlen(text);
    src->text = arena_strndup(c->arena, text, src->len);
    return parse_source(c, src);
}

/* Reads a whole file into the arena; NULL and a reason on failure. */
static char *read_all(Compiler *c, const char *path, size_t *len, const char **why)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        *why = strerror(errno);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *why = strerror(errno);
        close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        *why = "it is a directory";
        close(fd);
        return NULL;
    }
    size_t cap = S_ISREG(st.st_mode) && (size_t)st.st_size < MAX_SOURCE_SIZE
        ? (size_t)st.st_size + 2 : 65536;
    char *buf = malloc(cap);
    size_t n = 0;
    if (!buf)
        gtcc_die("out of memory");
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > MAX_SOURCE_SIZE) {
                *why = "the file is too large (more than 64 MiB)";
                free(buf);
                close(fd);
                return NULL;
            }
            char *bigger = realloc(buf, cap * 2);
            if (!bigger)
                gtcc_die("out of memory");
            buf = bigger;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + n, cap - n - 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *why = strerror(errno);
            free(buf);
            close(fd);
            return NULL;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    if (n > MAX_SOURCE_SIZE) {
        *why = "the file is too large (more than 64 MiB)";
        free(buf);
        return NULL;
    }
    char *text = arena_strndup(c->arena, buf, n);
    free(buf);
    *len = n;
    return text;
}

Module *parse_file(Compiler *c, const char *path, Loc from)
{
    size_t len = 0;
    const char *why = NULL;
    char *text = read_all(c, path, &len, &why);
    if (!text) {
        if (from.file)
            diag_error(&c->diag, from, "cannot read imported file '%s': %s", path, why);
        else
            diag_error(&c->diag, (Loc){0}, "cannot read '%s': %s", path, why);
        return NULL;
    }
    SourceFile *src = arena_alloc(c->arena, sizeof *src);
    src->path = arena_strdup(c->arena, path);
    src->text = text;
    src->len = len;
    return parse_source(c, src);
}

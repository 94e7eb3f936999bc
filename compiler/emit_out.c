/* emit_out.c: the text of generated files, built in memory (Out) so that
 * the line count that #line directives need is known: lines that evaluate
 * .stn code are preceded by `#line N "FILE.stn"`, so that compiler messages
 * and debuggers show .stn lines, and the next line of scaffolding switches
 * back to the generated file's own lines. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"

static void out_reserve(Out *o, size_t more)
{
    if (o->len + more <= o->cap)
        return;
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + more)
        cap *= 2;
    char *buf = realloc(o->buf, cap);
    if (!buf)
        gtcc_die("out of memory");
    o->buf = buf;
    o->cap = cap;
}

static void out_vprintf(Out *o, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        gtcc_die("bad format");
    out_reserve(o, (size_t)n + 1);
    vsnprintf(o->buf + o->len, (size_t)n + 1, fmt, ap);
    for (int i = 0; i < n; i++)
        if (o->buf[o->len + i] == '\n')
            o->line++;
    o->len += (size_t)n;
}

void emit_text(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    out_vprintf(o, fmt, ap);
    va_end(ap);
}

OutMark emit_mark(const Out *o)
{
    return (OutMark){o->len, o->line, o->indent, o->stn_next, o->stn_file};
}

void emit_rewind(Out *o, OutMark m)
{
    o->len = m.len;
    o->line = m.line;
    o->indent = m.indent;
    o->stn_next = m.stn_next;
    o->stn_file = m.stn_file;
}

const char *emit_out_string(Arena *arena, Out *t)
{
    char *text = arena_alloc(arena, t->len + 1);
    if (t->len)
        memcpy(text, t->buf, t->len);
    text[t->len] = '\0';
    free(t->buf);
    *t = (Out){0};
    return text;
}

static void indent(Out *o)
{
    for (int i = 0; i < o->indent; i++)
        emit_text(o, "    ");
}

void emit_begin_line(Out *o)
{
    if (o->stn_file) {
        /* The directive is line o->line + 1; the next line is o->line + 2. */
        emit_text(o, "#line %d \"", o->line + 2);
        emit_quoted(o, o->line_name ? o->line_name : o->name);
        emit_text(o, "\"\n");
        o->stn_file = NULL;
    }
    indent(o);
}

void emit_quoted(Out *o, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\' || *s == '?')   /* '?': "??=" would be a trigraph */
            emit_text(o, "\\%c", *s);
        else if (isprint((unsigned char)*s))
            emit_text(o, "%c", *s);
        else
            emit_text(o, "\\%03o", (unsigned char)*s);
    }
}

void emit_begin_stn_line(Out *o, Loc loc)
{
    if (!loc.file || loc.line <= 0) {
        emit_begin_line(o);
        return;
    }
    if (!o->stn_file || strcmp(o->stn_file, loc.file) != 0 || o->stn_next != loc.line) {
        emit_text(o, "#line %d \"", loc.line);
        emit_quoted(o, loc.file);
        emit_text(o, "\"\n");
    }
    o->stn_file = loc.file;
    o->stn_next = loc.line + 1;
    indent(o);
}

void emit_end_line(Out *o)
{
    emit_text(o, "\n");
}

void emit_blank(Out *o)
{
    emit_begin_line(o);
    /* no indentation on an empty line */
    while (o->len > 0 && o->buf[o->len - 1] == ' ')
        o->len--;
    emit_end_line(o);
}

/* One line of scaffolding, printf-formatted. */
static void line_v(Out *o, const char *fmt, va_list ap)
{
    emit_begin_line(o);
    out_vprintf(o, fmt, ap);
    emit_end_line(o);
}

void emit_line(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line_v(o, fmt, ap);
    va_end(ap);
}

void emit_open(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line_v(o, fmt, ap);
    va_end(ap);
    o->indent++;
}

void emit_close(Out *o)
{
    o->indent--;
    emit_line(o, "}");
}

/* A line one step out; the indentation after it: `after` steps in from there. */
static void outer_line_v(Out *o, int after, const char *fmt, va_list ap)
{
    o->indent--;
    line_v(o, fmt, ap);
    o->indent += after;
}

void emit_close_with(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    outer_line_v(o, 0, fmt, ap);
    va_end(ap);
}

void emit_reopen(Out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    outer_line_v(o, 1, fmt, ap);
    va_end(ap);
}

void emit_else(Out *o)
{
    emit_reopen(o, "} else {");
}

void emit_end_open(Out *o)
{
    emit_end_line(o);
    o->indent++;
}

void emit_indent(Out *o)
{
    o->indent++;
}

void emit_dedent(Out *o)
{
    o->indent--;
}

int emit_column(const Out *o)
{
    return o->indent * 4;
}

void emit_begin_directive(Out *o)
{
    int saved = o->indent;
    o->indent = 0;
    emit_begin_line(o);
    o->indent = saved;
}

void emit_directive(Out *o, const char *fmt, ...)
{
    emit_begin_directive(o);
    va_list ap;
    va_start(ap, fmt);
    out_vprintf(o, fmt, ap);
    va_end(ap);
    emit_end_line(o);
}

void emit_comment(Out *o, const char *text)
{
    for (const char *p = text;;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        emit_begin_line(o);
        emit_text(o, "%s%s%.*s%s", p == text ? "/*" : " *", n ? " " : "", (int)n, p,
                  end ? "" : " */");
        emit_end_line(o);
        if (!end)
            break;
        p = end + 1;
    }
}

/* false when the write failed (a full disk, ulimit -f): errno says why, and the caller
 * (driver_write_files) names the file, an I/O error, exit status 2 */
bool emit_flush(Out *o, FILE *f)
{
    bool ok = fwrite(o->buf, 1, o->len, f) == o->len;
    int saved = errno;
    free(o->buf);
    o->buf = NULL;
    o->len = o->cap = 0;
    errno = saved;
    return ok;
}

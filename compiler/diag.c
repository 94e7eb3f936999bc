/* diag.c: printing errors, warnings and notes (language.md section 8).
 *
 * A diagnostic is `FILE:LINE:COL: error: MESSAGE`, then the source line and a
 * caret under the column, like GCC and Clang. Errors without a file are
 * command-line or I/O errors, printed `gtcc: error: MESSAGE`. -Werror turns
 * warnings into errors (marked `[-Werror]`), -w drops them. After
 * DIAG_MAX_ERRORS errors, the next one prints a note "too many errors,
 * stopping" instead, and everything after that is dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"

/* Longest source line quoted whole; longer ones are quoted around the column. */
enum { QUOTE_MAX = 200, QUOTE_BEFORE = 80 };

static SourceFile *find_source(const Diag *d, const char *path)
{
    for (int i = 0; i < d->sources.len; i++)
        if (d->sources.items[i]->path == path)
            return d->sources.items[i];
    for (int i = 0; i < d->sources.len; i++)
        if (strcmp(d->sources.items[i]->path, path) == 0)
            return d->sources.items[i];
    return NULL;
}

/* The length of the valid UTF-8 character at s (at most n bytes), or 1. */
static size_t utf8_length(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc2 ? 2 : 1;
    if (len == 1 || len > n)
        return 1;
    for (size_t i = 1; i < len; i++)
        if ((u[i] & 0xc0) != 0x80)
            return 1;
    return len;
}

/* The end of the line that starts at p: its LF, CR LF or lone CR, as the
 * scanner counts lines (stencil.l), or the end of the text. */
static const char *line_end(const char *p, const char *end)
{
    while (p < end && *p != '\n' && *p != '\r')
        p++;
    return p;
}

/* Prints the text of line `line` and a caret under byte column `col`. Control
 * characters are shown as spaces; tabs are kept so that the caret lines up. */
static void quote_line(FILE *out, SourceFile *src, int line, int col)
{
    const char *p = src->text, *end = src->text + src->len;
    int l = 1;
    if (src->quoted_line > 0 && src->quoted_line <= line) {   /* on from the last one */
        l = src->quoted_line;
        p = src->text + src->quoted_at;
    }
    for (; l < line; l++) {
        const char *nl = line_end(p, end);
        if (nl == end)
            return;
        p = nl + (nl[0] == '\r' && nl + 1 < end && nl[1] == '\n' ? 2 : 1);
    }
    src->quoted_line = line;
    src->quoted_at = (size_t)(p - src->text);
    const char *eol = line_end(p, end);
    size_t len = (size_t)(eol - p);
    size_t caret = col > 0 ? (size_t)col - 1 : 0;
    if (caret > len)
        caret = len;
    if (len == 0 && caret == 0 && p == end)
        return;   /* end of file after a final newline: nothing to show */

    size_t from = 0, to = len;
    bool cut_left = false, cut_right = false;
    if (len > QUOTE_MAX) {
        if (caret > QUOTE_BEFORE) {
            from = caret - QUOTE_BEFORE;
            cut_left = true;
        }
        if (len - from > QUOTE_MAX) {
            to = from + QUOTE_MAX;
            cut_right = true;
        }
    }
    fputs(cut_left ? " ..." : " ", out);
    for (size_t i = from; i < to;) {
        unsigned char ch = (unsigned char)p[i];
        size_t n = utf8_length(p + i, to - i);
        if (n > 1)
            fwrite(p + i, 1, n, out);
        else
            fputc(ch == '\t' || (ch >= 0x20 && ch < 0x7f) ? ch : ch >= 0x80 ? '?' : ' ', out);
        i += n;
    }
    fputs(cut_right ? "...\n" : "\n", out);
    fputs(cut_left ? "    " : " ", out);
    for (size_t i = from; i < caret;) {
        fputc(p[i] == '\t' ? '\t' : ' ', out);   /* one column per character */
        i += utf8_length(p + i, to - i);
    }
    fputs("^\n", out);
}

/* Prints a message, shortening every quoted word ('name', no spaces inside)
 * longer than QUOTED_MAX to its first QUOTED_KEEP bytes and "...": a
 * 100,000-character identifier must not make a 100 KB diagnostic. A file name
 * (a word with a '/' or a '.', which no identifier has) is kept whole up to
 * PATH_MAX_SHOWN bytes, since its end names the file: 'cannot read
 * '/home/me/build/CMakeFi...'' left the user guessing which file failed. */
enum { QUOTED_MAX = 64, QUOTED_KEEP = 40, PATH_MAX_SHOWN = 4096 };
static void print_clipped(FILE *out, const char *msg)
{
    const char *p = msg;
    while (*p) {
        const char *open = strchr(p, '\'');
        if (!open) {
            fputs(p, out);
            return;
        }
        fwrite(p, 1, (size_t)(open + 1 - p), out);
        const char *close = strchr(open + 1, '\'');
        size_t len = close ? (size_t)(close - open - 1) : 0;
        size_t max = close && (memchr(open + 1, '/', len) || memchr(open + 1, '.', len))
                   ? PATH_MAX_SHOWN : QUOTED_MAX;
        if (close && len > max && !memchr(open + 1, ' ', len)) {
            fwrite(open + 1, 1, QUOTED_KEEP, out);
            fputs("...", out);
            p = close;
        } else {
            p = open + 1;
        }
    }
}

static void emit(Diag *d, Loc loc, const char *kind, const char *suffix, bool quote,
                 const char *fmt, va_list ap)
{
    FILE *out = d->out ? d->out : stderr;
    if (!loc.file)
        fputs("gtcc: ", out);
    else if (loc.line <= 0)
        fprintf(out, "%s: ", loc.file);
    else
        fprintf(out, "%s:%d:%d: ", loc.file, loc.line, loc.col);
    fprintf(out, "%s: ", kind);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char small[512];
    char *msg = n >= 0 && (size_t)n < sizeof small ? small : malloc(n >= 0 ? (size_t)n + 1 : 1);
    if (msg && n >= 0) {
        vsnprintf(msg, (size_t)n + 1, fmt, ap);
        print_clipped(out, msg);
    }
    if (msg != small)
        free(msg);
    fprintf(out, "%s\n", suffix);
    if (quote && loc.file && loc.line > 0) {
        SourceFile *src = find_source(d, loc.file);
        if (src)
            quote_line(out, src, loc.line, loc.col);
    }
}

/* Has the same diagnostic (kind, place and text) been shown lately? Remembers it if not. */
static bool repeated(Diag *d, Loc loc, const char *kind, const char *fmt, va_list ap)
{
    char buf[1024];
    va_list ap2;
    va_copy(ap2, ap);
    vsnprintf(buf, sizeof buf, fmt, ap2);
    va_end(ap2);
    uint64_t h = 1469598103934665603u;   /* FNV-1a */
    const char *parts[3] = {kind, loc.file ? loc.file : "", buf};
    for (int p = 0; p < 3; p++) {
        for (const char *c = parts[p]; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211u;
        h = (h ^ 0xff) * 1099511628211u;
    }
    h = (h ^ (uint64_t)(uint32_t)loc.line) * 1099511628211u;
    h = (h ^ (uint64_t)(uint32_t)loc.col) * 1099511628211u;
    int n = d->nseen < 32 ? d->nseen : 32;
    for (int i = 0; i < n; i++)
        if (d->seen[i] == h)
            return true;
    d->seen[d->nseen++ % 32] = h;
    if (d->nseen >= 64)
        d->nseen -= 32;   /* stays >= 32: the ring is full */
    return false;
}

/* Counts an error; false (and the limit note, once) when it must not be shown. */
static bool admit_error(Diag *d, Loc loc)
{
    if (d->stopped) {
        d->last_shown = false;
        return false;
    }
    if (d->errors >= DIAG_MAX_ERRORS) {
        d->stopped = true;
        d->last_shown = false;
        FILE *out = d->out ? d->out : stderr;
        if (loc.file && loc.line > 0)
            fprintf(out, "%s:%d:%d: ", loc.file, loc.line, loc.col);
        else
            fputs("gtcc: ", out);
        fputs("note: too many errors, stopping\n", out);
        return false;
    }
    d->errors++;
    d->last_shown = true;
    return true;
}

void diag_verror(Diag *d, Loc loc, const char *fmt, va_list ap)
{
    if (!d->stopped && repeated(d, loc, "error", fmt, ap)) {
        d->last_shown = false;
        return;
    }
    if (!admit_error(d, loc))
        return;
    emit(d, loc, "error", "", true, fmt, ap);
}

void diag_error(Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    diag_verror(d, loc, fmt, ap);
    va_end(ap);
}

void diag_warning(Diag *d, Loc loc, const char *fmt, ...)
{
    va_list ap;
    if (d->no_warnings) {
        d->last_shown = false;
        return;
    }
    va_start(ap, fmt);
    bool again = !d->stopped && repeated(d, loc, "warning", fmt, ap);
    va_end(ap);
    if (again) {
        d->last_shown = false;
        return;
    }
    if (d->werror) {
        if (!admit_error(d, loc))
            return;
        va_start(ap, fmt);
        emit(d, loc, "error", " [-Werror]", true, fmt, ap);
        va_end(ap);
        return;
    }
    if (d->stopped) {
        d->last_shown = false;
        return;
    }
    d->warnings++;
    d->last_shown = true;
    va_start(ap, fmt);
    emit(d, loc, "warning", "", true, fmt, ap);
    va_end(ap);
}

void diag_note(Diag *d, Loc loc, const char *fmt, ...)
{
    if (!d->last_shown)
        return;
    va_list ap;
    va_start(ap, fmt);
    emit(d, loc, "note", "", true, fmt, ap);
    va_end(ap);
}

bool diag_full(const Diag *d)
{
    return d->stopped;
}

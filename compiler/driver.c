/* driver.c: the whole compilation as one flat list of stages (gtcc_compile),
 * and the atomic writing of output files.
 *
 * Each stage reports its own errors; the driver stops after the first stage
 * that reported any. Output files are written to temporary files in their
 * target directory and renamed into place only when everything succeeded, so
 * that a failed compilation never leaves a partial or stale-looking output.
 */
#define _XOPEN_SOURCE 700   /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gtcc.h"
#include "plan.h"

/* ------------------------------------------------------------ atomic files */

/* Temporary files alive right now, removed if a signal ends the process (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT; SIGPIPE from a -MF /dev/stdout nobody reads; SIGXFSZ). */
enum { MAX_TEMPS = 8, TEMP_BASE_MAX = 200 };
static char *volatile live_temps[MAX_TEMPS];

static void remove_temps_and_die(int sig)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (live_temps[i])
            unlink(live_temps[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void track_temp(char *path, bool alive)
{
    static bool handlers;
    if (!handlers) {
        /* a signal ignored by whoever started gtcc (nohup, a background job's SIGINT)
           stays ignored, as in cc: the compilation then goes on and commits */
        static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ};
        handlers = true;
        for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
            struct sigaction old;
            if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_IGN)
                signal(sigs[i], remove_temps_and_die);
        }
    }
    for (int i = 0; i < MAX_TEMPS; i++) {
        if (alive && !live_temps[i]) {
            live_temps[i] = path;
            return;
        }
        if (!alive && live_temps[i] == path) {
            live_temps[i] = NULL;
            return;
        }
    }
}

/* The file a chain of symbolic links from path names, which does not exist yet; path
 * itself when it is no link (or after 40 links, a loop: then rename replaces path). */
static const char *dangling_target(Compiler *c, const char *path)
{
    const char *at = path;
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(at, &st) != 0 || !S_ISLNK(st.st_mode))
            return at;
        size_t cap = (size_t)st.st_size + 1;
        char *to = arena_alloc(c->arena, cap + 1);
        ssize_t n = readlink(at, to, cap);
        if (n < 0 || (size_t)n >= cap)
            return path;
        to[n] = '\0';
        const char *base = path_base(at);
        at = to[0] == '/' || base == at ? to
           : arena_printf(c->arena, "%.*s%s", (int)(base - at), at, to);
    }
    return path;
}

/* The open descriptor that path names (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N), or -1. Such a name leads to whatever the descriptor reaches: where
 * that is a regular file (gtcc -MF /dev/stdout >>deps), reopening or replacing it would
 * drop the text the shell wrote into it before, so the text goes into the descriptor. */
static int descriptor_named(const char *path)
{
    int fd = -1;
    if (strcmp(path, "/dev/stdout") == 0)
        fd = STDOUT_FILENO;
    else if (strcmp(path, "/dev/stderr") == 0)
        fd = STDERR_FILENO;
    else {
        const char *digits = strncmp(path, "/dev/fd/", 8) == 0 ? path + 8
                           : strncmp(path, "/proc/self/fd/", 14) == 0 ? path + 14 : NULL;
        if (!digits || !*digits || strspn(digits, "0123456789") != strlen(digits) ||
            strlen(digits) > 6)
            return -1;
        fd = atoi(digits);
    }
    return fcntl(fd, F_GETFD) == -1 ? -1 : fd;
}

bool outfile_open(Compiler *c, OutFile *out, const char *path)
{
    *out = (OutFile){.path = path, .dest = path, .fd = descriptor_named(path)};
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        diag_error(&c->diag, (Loc){0}, "cannot write '%s': it is a directory", path);
        return false;
    }
    if (out->fd >= 0 || (exists && !S_ISREG(st.st_mode))) {
        /* a device or a FIFO: a file renamed over it would replace /dev/null itself */
        out->in_place = true;
        out->f = open_memstream(&out->mem, &out->mem_len);
        if (!out->f) {
            diag_error(&c->diag, (Loc){0}, "cannot write '%s': %s", path, strerror(errno));
            return false;
        }
        return true;
    }
    char *real = realpath(path, NULL);  /* a link to a file: the file is replaced */
    if (real) {
        out->dest = arena_strdup(c->arena, real);
        free(real);
    } else {
        out->dest = dangling_target(c, path);   /* a link to no file yet: that file made */
    }
    /* the temporary file is named after the output, cut so that its name stays within
       NAME_MAX (255) however long the output's is: ".NAME.XXXXXX" is 8 bytes longer, and
       an output named with 248 to 255 bytes was "File name too long" */
    const char *base = path_base(out->dest);
    int keep = strlen(base) > TEMP_BASE_MAX ? TEMP_BASE_MAX : (int)strlen(base);
    out->tmp = arena_printf(c->arena, "%.*s.%.*s.XXXXXX", (int)(base - out->dest), out->dest,
                            keep, base);
    int fd = mkstemp(out->tmp);
    if (fd < 0 && exists && (errno == EACCES || errno == EPERM || errno == EROFS)) {
        /* the file may well be writable: its directory is not (before: "cannot create
           'x.h'", of a file that is there) */
        diag_error(&c->diag, (Loc){0}, "cannot write '%s': gtcc writes a new file beside it "
                   "and renames it into place, and its directory is not writable: %s", path,
                   strerror(errno));
        out->tmp = NULL;
        return false;
    }
    if (fd < 0) {
        diag_error(&c->diag, (Loc){0}, "cannot create '%s': %s", path, strerror(errno));
        out->tmp = NULL;
        return false;
    }
    mode_t mask = umask(0);
    umask(mask);
    (void)fchmod(fd, 0666 & ~mask);
    track_temp(out->tmp, true);
    out->f = fdopen(fd, "w");
    if (!out->f) {
        diag_error(&c->diag, (Loc){0}, "cannot create '%s': %s", path, strerror(errno));
        close(fd);
        outfile_discard(out);
        return false;
    }
    return true;
}

/* Closes the temporary file (or the memory stream); false after reporting a
 * write error. */
static bool outfile_close(Compiler *c, OutFile *out)
{
    if (!out->f)
        return out->tmp != NULL || out->in_place;
    bool ok = !ferror(out->f);
    int saved = errno;
    if (fclose(out->f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    out->f = NULL;
    if (!ok)
        diag_error(&c->diag, (Loc){0}, "cannot write '%s': %s", out->path,
                   strerror(saved ? saved : EIO));
    return ok;
}

/* The text kept for a device, a FIFO or a descriptor, written into it. */
static bool write_in_place(Compiler *c, OutFile *out)
{
    if (out->fd >= 0) {
        size_t done = 0;
        while (done < out->mem_len) {
            ssize_t n = write(out->fd, out->mem + done, out->mem_len - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                diag_error(&c->diag, (Loc){0}, "cannot write '%s': %s", out->path,
                           strerror(n < 0 ? errno : EIO));
                return false;
            }
            done += (size_t)n;
        }
        return true;
    }
    FILE *f = fopen(out->path, "w");
    bool ok = f && fwrite(out->mem, 1, out->mem_len, f) == out->mem_len;
    int saved = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        diag_error(&c->diag, (Loc){0}, "cannot write '%s': %s", out->path,
                   strerror(saved ? saved : EIO));
    return ok;
}

bool outfile_commit(Compiler *c, OutFile *out)
{
    if (!outfile_close(c, out)) {
        outfile_discard(out);
        return false;
    }
    if (out->in_place) {
        bool ok = write_in_place(c, out);
        outfile_discard(out);
        return ok;
    }
    if (rename(out->tmp, out->dest) != 0) {
        diag_error(&c->diag, (Loc){0}, "cannot write '%s': %s", out->path, strerror(errno));
        outfile_discard(out);
        return false;
    }
    track_temp(out->tmp, false);
    out->tmp = NULL;
    return true;
}

void outfile_discard(OutFile *out)
{
    if (out->f) {
        fclose(out->f);
        out->f = NULL;
    }
    free(out->mem);
    out->mem = NULL;
    if (out->tmp) {
        unlink(out->tmp);
        track_temp(out->tmp, false);
        out->tmp = NULL;
    }
}

/* ---------------------------------------------------------------- outputs */

static const char *strip_suffix(Compiler *c, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(path, '.');
    if (dot && dot != path && (!slash || dot > slash + 1))   /* ".c" is a name, as "d/.c" */
        return arena_strndup(c->arena, path, (size_t)(dot - path));
    return path;
}

const char *driver_output_path(Compiler *c)
{
    if (c->opts.output)
        return c->opts.output;
    if (c->opts.emit == EMIT_FORTRAN)
        return arena_printf(c->arena, "%s.f90", emit_fortran_module(c));
    const char *base = path_base(c->opts.input);
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".stn") == 0)
        n -= 4;
    const Backend *be = backend_find(c->opts.backend);
    const char *suffix = be ? be->suffix : ".c";
    return arena_printf(c->arena, "%.*s%s", (int)n, base, suffix);
}

const char *driver_sibling_path(Compiler *c, const char *path, const char *suffix)
{
    return arena_printf(c->arena, "%s%s", strip_suffix(c, path), suffix);
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev
        && sa.st_ino == sb.st_ino;
}

/* The file that writing path replaces, spelled one way (its directory resolved, or the
 * whole path when it exists: a link names its file), or NULL for a device or a FIFO. */
static const char *output_identity(Compiler *c, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return NULL;
    char *real = realpath(path, NULL);
    const char *base = path_base(path);
    if (!real) {
        char *dir = arena_strndup(c->arena, path, (size_t)(base - path));
        real = realpath(*dir ? dir : ".", NULL);
        if (!real)
            return NULL;
        const char *id = arena_printf(c->arena, "%s/%s", real, base);
        free(real);
        return id;
    }
    const char *id = arena_strdup(c->arena, real);
    free(real);
    return id;
}

/* Do two outputs name one file (-MF ./x.h beside the header x.h, or a link to it)? Two
 * descriptors do not: their texts go into them one after the other (--emit=ir -o - -MD
 * -MF -: the IR, then the rule). */
static bool same_output(Compiler *c, const char *a, const char *b)
{
    if (descriptor_named(a) >= 0 && descriptor_named(b) >= 0)
        return false;
    if (strcmp(a, b) == 0)
        return true;
    const char *ia = output_identity(c, a), *ib = output_identity(c, b);
    return ia && ib && strcmp(ia, ib) == 0;
}

bool driver_program_file(Compiler *c, const char *path)
{
    if (!output_identity(c, path))   /* a device or a FIFO is written, not replaced */
        return false;
    for (int m = -1; m < c->modules.len; m++) {
        const Module *mod = m < 0 ? c->main : c->modules.items[m];
        if (mod && same_file(mod->path, path)) {
            diag_error(&c->diag, (Loc){0}, "output '%s' is the %s file '%s'", path,
                       mod == c->main ? "input" : "imported", mod->path);
            return true;
        }
    }
    return false;
}

/* --emit=ir and --emit=meta: one text, on stdout or into -o's file (whole or not at all). */
static bool write_text(Compiler *c, FILE *f)
{
    if (c->opts.emit == EMIT_META)
        return emit_meta(c, f);
    ir_dump(f, c->ir, backend_find(c->opts.backend));
    return true;
}

static bool write_text_file(Compiler *c, FILE *const *files, void *ctx)
{
    (void)ctx;
    return write_text(c, files[0]);
}

static int emit_ir(Compiler *c)
{
    if (c->opts.output)
        return driver_write_files(c, &c->opts.output, 1, write_text_file, NULL);
    if (c->opts.dep_MD && fcntl(STDOUT_FILENO, F_GETFD) != -1) {
        /* the text into descriptor 1 with the dependency file, all or none: a -MF file
           that cannot be made prints nothing (before, the IR came out, then the error) */
        static const char *const out[] = {"/dev/stdout"};
        return driver_write_files(c, out, 1, write_text_file, NULL);
    }
    if (!write_text(c, stdout))
        return 1;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_error(&c->diag, (Loc){0}, "cannot write to standard output: %s", strerror(errno));
        return 2;
    }
    return 0;
}

int driver_write_files(Compiler *c, const char *const *given, int ngiven, OutWriter *write,
                       void *ctx)
{
    /* -MD: the dependency file is written with the outputs, or neither is */
    int n = ngiven + (c->opts.dep_MD ? 1 : 0);
    const char **paths = arena_alloc(c->arena, sizeof *paths * (size_t)n);
    memcpy(paths, given, sizeof *paths * (size_t)ngiven);
    if (c->opts.dep_MD)
        paths[ngiven] = depfile_path(c, driver_output_path(c));
    for (int i = 0; i < n; i++) {
        /* not onto a file of the program: -o x.c x.h's header, -MD -o p.c p.d's rule */
        if (driver_program_file(c, paths[i]))
            return 2;
        for (int j = 0; j < i; j++)
            if (same_output(c, paths[i], paths[j])) {
                diag_error(&c->diag, (Loc){0}, "two outputs would both be '%s'", paths[i]);
                return 2;
            }
    }
    OutFile *out = arena_alloc(c->arena, sizeof *out * (size_t)n);
    FILE **files = arena_alloc(c->arena, sizeof *files * (size_t)n);
    int opened = 0;
    for (; opened < n; opened++) {
        if (!outfile_open(c, &out[opened], paths[opened]))
            break;
        files[opened] = out[opened].f;
    }
    int errors = c->diag.errors, status = 0;
    if (opened < n) {
        status = 2;
    } else if (!write(c, files, ctx) || c->diag.errors > errors) {
        status = c->diag.errors > errors ? 1 : 2;
        if (status == 2) {
            /* a write that failed unreported (a full disk, ulimit -f): an I/O error, which
               names its file (before: "cannot write the generated code", status 1) */
            int saved = errno, i = 0;
            while (i + 1 < n && !ferror(out[i].f))
                i++;
            diag_error(&c->diag, (Loc){0}, "cannot write '%s': %s", out[i].path,
                       strerror(saved ? saved : EIO));
        }
    } else if (n > ngiven) {
        depfile_rule(c, files[ngiven], driver_output_path(c));
    }
    for (int i = 0; i < opened && status == 0; i++)
        if (!outfile_close(c, &out[i]))
            status = 2;
    if (status != 0) {
        for (int i = 0; i < opened; i++)
            outfile_discard(&out[i]);
        return status;
    }
    /* devices and FIFOs first: one that fails (-MF /dev/full) leaves every file unchanged */
    for (int i = 0; i < n; i++)
        if (out[i].in_place && !outfile_commit(c, &out[i])) {
            for (int j = 0; j < n; j++)
                outfile_discard(&out[j]);
            return 2;
        }
    /* then the files, in order, the last one last: a failed rename takes back the ones made */
    for (int i = 0; i < n; i++)
        if (!out[i].in_place && !outfile_commit(c, &out[i])) {
            for (int j = 0; j < i; j++)
                if (!out[j].in_place)
                    unlink(out[j].dest);
            for (int j = i + 1; j < n; j++)
                outfile_discard(&out[j]);
            return 2;
        }
    return 0;
}

typedef struct {
    const Backend *be;
    int nextra;               /* files before the header: the backend's extra files */
    const char *src_path, *hdr_name;   /* the source as given (-o), the header's base name */
} EmitCtx;

/* The files of emit_c in driver_write_files' order: the backend's extra
 * files, the header, the source. */
static bool write_emit(Compiler *c, FILE *const *files, void *ctx)
{
    const EmitCtx *x = ctx;
    if (!emit_files(c, x->be, files[x->nextra + 1], x->src_path, files[x->nextra], x->hdr_name))
        return false;
    return x->nextra == 0 || x->be->extra(c, files, path_base(x->src_path), x->hdr_name);
}

/* Headers a C compiler looks for in the -I directories before its own (ISO C's, the
 * POSIX ones the C library's include, OpenMP's, MPI's and CUDA's, which the generated code
 * and the runtime's headers include). */
static const char *const system_headers[] = {
    "assert.h", "complex.h", "ctype.h", "errno.h", "fenv.h", "float.h", "inttypes.h",
    "iso646.h", "limits.h", "locale.h", "math.h", "setjmp.h", "signal.h", "stdalign.h",
    "stdarg.h", "stdatomic.h", "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h",
    "stdnoreturn.h", "string.h", "tgmath.h", "threads.h", "time.h", "uchar.h", "wchar.h",
    "wctype.h", "alloca.h", "endian.h", "features.h", "pthread.h", "sched.h", "strings.h",
    "unistd.h", "omp.h", "mpi.h", "cuda_runtime.h", "cuda_runtime_api.h", NULL};

static int emit_c(Compiler *c, const char *src_path)
{
    const Backend *be = backend_find(c->opts.backend);
    if (!be || !backend_available(be)) {
        diag_error(&c->diag, (Loc){0}, "backend '%s' is not available yet", c->opts.backend);
        return 2;
    }
    int nextra = 0;
    while (be->extra_suffixes && be->extra_suffixes[nextra])
        nextra++;
    const char **paths = arena_alloc(c->arena, sizeof *paths * (size_t)(nextra + 2));
    for (int i = 0; i < nextra; i++)
        paths[i] = driver_sibling_path(c, src_path, be->extra_suffixes[i]);
    paths[nextra] = driver_sibling_path(c, src_path, ".h");
    paths[nextra + 1] = src_path;
    for (int i = 0; i <= nextra; i++)
        if (strcmp(paths[i], src_path) == 0) {
            diag_error(&c->diag, (Loc){0}, "output '%s' would be overwritten by its %s; "
                       "give the source a suffix such as '%s'", src_path,
                       i == nextra ? "header" : "companion file", be->suffix);
            return 2;
        }
    /* the source names its header in #include "..." by the base name: a quote, a
       backslash or a control character there would not compile, or name another file
       (its #line directives quote src_path as a C string: emit_quoted) */
    for (const char *p = path_base(src_path); *p; p++) {
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) {
            diag_error(&c->diag, (Loc){0}, "output '%s': a file name with a quote, a "
                       "backslash or a control character cannot be written in the generated "
                       "source's #include of its header; rename the output%s", src_path,
                       c->opts.output ? "" : " (with -o: its name comes from the input's)");
            return 2;
        }
        /* a trigraph (??= ??/ ??' ??( ??) ??! ??< ??> ??-): ISO C replaces it
           in the #include, GNU C warns of it (-Wtrigraphs, in -Wall) */
        if (p[0] == '?' && p[1] == '?' && p[2] && strchr("=/'()!<>-", p[2])) {
            diag_error(&c->diag, (Loc){0}, "output '%s': '%.3s' in a file name is a C "
                       "trigraph, which the generated source's #include of its header cannot "
                       "hold; rename the output%s", src_path, p,
                       c->opts.output ? "" : " (with -o: its name comes from the input's)");
            return 2;
        }
    }
    /* a header named as one the compiler takes from its search path: with -I to the
       output's directory (as common as -I.), #include <omp.h> in the generated source read
       the generated omp.h in place of OpenMP's (its include guard then hid it: implicit
       declarations of omp_get_thread_num, an error under -Werror or GCC 14) */
    const char *hdr = path_base(paths[nextra]);
    for (int i = 0; system_headers[i]; i++)
        if (strcmp(hdr, system_headers[i]) == 0) {
            diag_warning(&c->diag, (Loc){0}, "output header '%s' has the name of a system "
                         "header (<%s>%s): a C compiler given -I to its directory reads it in "
                         "place of the system's; rename the output%s", paths[nextra], hdr,
                         strcmp(hdr, "omp.h") == 0 ? ", which the generated source includes"
                         : strcmp(hdr, "cuda_runtime.h") == 0 || strcmp(hdr, "mpi.h") == 0
                         ? ", which the runtime's headers include" : ", of the C library",
                         c->opts.output ? "" : " (with -o: its name comes from the input's)");
            if (c->diag.errors)   /* -Werror */
                return 1;
            break;
        }
    EmitCtx x = {be, nextra, src_path, hdr};
    return driver_write_files(c, paths, nextra + 2, write_emit, &x);
}

/* The pipeline, one stage per line (architecture.md). */
int gtcc_compile(Compiler *c)
{
    Options *o = &c->opts;
    Diag *d = &c->diag;
    const char *output = driver_output_path(c);
    if ((o->emit == EMIT_C || o->emit == EMIT_FORTRAN || o->output) && !o->dep_M &&
        same_file(o->input, output)) {
        diag_error(d, (Loc){0}, "output '%s' is the input file", output);
        return 2;
    }
    if ((o->dep_M || o->dep_MD) && o->dep_file && same_file(o->input, o->dep_file)) {
        diag_error(d, (Loc){0}, "dependency file '%s' (-MF) is the input file", o->dep_file);
        return 2;
    }

    c->main = parse_file(c, o->input, (Loc){0});
    if (!c->main)
        return 2;
    if (d->errors)
        return 1;
    import_resolve(c);
    if (d->errors)
        return 1;
    if (o->dep_M)
        return depfile_write(c, output) ? 0 : 2;
    sema_check_program(c);
    for (int i = 0; i < c->main->stencils.len && !diag_full(d); i++) {
        IrStencil *st = sema_lower_stencil(c, i);
        access_check(c, st);
    }
    if (d->errors)
        return 1;
    sema_unique_names(c);
    ext_compute(c);
    if (d->errors)
        return 1;
    const Backend *be = backend_find(o->backend);
    if (be && be->plan)
        fuse_plan(c, be->plan);
    if (d->errors)   /* a warning of the plan under -Werror */
        return 1;
    int status = o->emit == EMIT_C ? emit_c(c, output)
               : o->emit == EMIT_FORTRAN ? emit_fortran(c, output)
                                         : emit_ir(c);
    return status;   /* with -MD's file: driver_write_files, or emit_ir after stdout */
}

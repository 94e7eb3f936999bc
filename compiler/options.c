/* options.c: the command line of gtcc (docs/gtcc.1, spec cli.md).
 *
 * Options take their argument as the next word or glued to them, like GCC
 * (`-o out.c`, `-oout.c`, `-DN=3`, `-I dir`); long options also take
 * `--opt=VALUE`. A usage error prints `gtcc: error: ...` and gives status 2.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gtcc.h"

static const char usage[] =
    "usage: gtcc [options] FILE.stn\n"
    "Translates a stencil program into C (or CUDA) source and header.\n"
    "\n"
    "  -o PATH              generated source (default: FILE.c, or FILE.cu with the\n"
    "                       cuda backend, in the current directory); the header\n"
    "                       goes beside it, with suffix .h\n"
    "  -b, --backend NAME   %s\n"
    "  --emit=WHAT          c (default: source and header) | ir (the IR after all\n"
    "                       passes, on standard output, or in the -o file; -o - is\n"
    "                       standard output) | meta (JSON: the stencils' names,\n"
    "                       parameters, halos, pairs; printed as ir is) |\n"
    "                       fortran (FILE_gt.f90, or the -o file: a Fortran module\n"
    "                       wrapping the stencils, module FILE_gt after -P)\n"
    "  -D NAME=VALUE        override a 'const' of the program\n"
    "  -I DIR               add an import search directory\n"
    "  -P PREFIX            prefix every name the generated code exports (stencil\n"
    "                       functions, their _info objects, the header guard), so that\n"
    "                       one file compiled twice links into one program; PREFIX is\n"
    "                       the start of a C identifier, not starting with '_'\n"
    "  -M                   print make dependencies, compile nothing\n"
    "  -MD                  also write dependencies to FILE.d beside the output\n"
    "  -MF FILE             write dependencies to FILE (-MF -: standard output)\n"
    "  -MT TARGET           target of the dependency rule\n"
    "  -MQ TARGET           the same, quoted for make ('$' as '$$', ...)\n"
    "  -MMD, -MP            as in GCC: -MMD is -MD, and the imports' empty rules\n"
    "                       that -MP asks for are always written\n"
    "  -Werror              warnings are errors\n"
    "  -w                   no warnings\n"
    "  --version            print the version\n"
    "  --help               print this help\n"
    "\n"
    "Exit status: 0 success, 1 errors in the program, 2 bad command line or I/O.\n";

static int usage_error(Compiler *c, const char *fmt, const char *arg)
{
    diag_error(&c->diag, (Loc){0}, fmt, arg);
    return 2;
}

static bool is_name(const char *s, size_t n)
{
    if (n == 0 || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')
              || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return true;
}

/* A free-form Fortran source suffix, which --emit=fortran's -o file must have. */
static bool fortran_suffix(const char *path)
{
    static const char *const suffixes[] = {".f90", ".F90", ".f03", ".F03", ".f08", ".F08"};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || dot == path || dot[-1] == '/')
        return false;
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
        if (strcmp(dot, suffixes[i]) == 0)
            return true;
    return false;
}

/* A -D value: a decimal number (optionally signed), true or false. */
static bool is_value(const char *s)
{
    if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
        return true;
    if (*s == '-' || *s == '+')
        s++;
    size_t digits = strspn(s, "0123456789");
    const char *p = s + digits;
    size_t frac = 0;
    if (*p == '.') {
        frac = strspn(p + 1, "0123456789");
        p += 1 + frac;
    }
    if (digits + frac == 0)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        size_t e = strspn(p, "0123456789");
        if (e == 0)
            return false;
        p += e;
    }
    return *p == '\0';
}

static int add_define(Compiler *c, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (!eq || !is_name(arg, (size_t)(eq - arg)))
        return usage_error(c, "bad -D '%s': expected NAME=VALUE", arg);
    if (!is_value(eq + 1))
        return usage_error(c, "bad value in -D '%s': expected a number, 'true' or 'false'", arg);
    const char *name = arena_strndup(c->arena, arg, (size_t)(eq - arg));
    for (int i = 0; i < c->opts.defines.len; i++) {
        if (strcmp(c->opts.defines.items[i].name, name) == 0) {
            c->opts.defines.items[i].value = eq + 1;   /* the last one wins, as in cc */
            return 0;
        }
    }
    vec_push(c->arena, &c->opts.defines, ((Define){name, eq + 1, false}));
    return 0;
}

/* The argument of option `opt` at argv[*i]: glued to it, or the next word. */
static const char *argument(Compiler *c, int argc, char **argv, int *i, const char *opt,
                            bool *missing)
{
    const char *word = argv[*i];
    size_t n = strlen(opt);
    if (word[n] == '=' && opt[1] == '-')
        return word + n + 1;
    if (word[n] != '\0')
        return word + n;
    if (*i + 1 >= argc) {
        usage_error(c, "missing argument to '%s'", opt);
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

/* After --help or --version: -1 (done, status 0), or 2 when stdout failed (/dev/full). */
static int printed(Compiler *c)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        diag_error(&c->diag, (Loc){0}, "cannot write to standard output: %s", strerror(errno));
        return 2;
    }
    return -1;
}

/* Does word start with option opt, possibly with its argument glued on? */
static bool starts(const char *word, const char *opt)
{
    return strncmp(word, opt, strlen(opt)) == 0;
}

int options_parse(Compiler *c, int argc, char **argv)
{
    Options *o = &c->opts;
    bool files_only = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool missing = false;
        const char *v = NULL;
        if (!files_only && strcmp(a, "-") == 0) {
            /* a program read from a pipe has no directory to find its imports in, no name
               for its outputs and no file for -MD to list */
            return usage_error(c, "cannot read a program from standard input ('%s'); give its "
                               ".stn file, or './-' for a file named '-'", a);
        } else if (files_only || a[0] != '-') {
            if (o->input)
                return usage_error(c, "more than one input file ('%s')", a);
            o->input = a;
        } else if (strcmp(a, "--") == 0) {
            files_only = true;
        } else if (strcmp(a, "--help") == 0) {
            printf(usage, backend_list(c->arena, " | ", " | ", true));
            return printed(c);
        } else if (strcmp(a, "--version") == 0) {
            printf("gtcc %s\n", GTCC_VERSION);
            return printed(c);
        } else if (strcmp(a, "-M") == 0) {
            o->dep_M = true;
        } else if (strcmp(a, "-MD") == 0 || strcmp(a, "-MMD") == 0) {
            o->dep_MD = true;   /* -MMD: as GCC's, -MD without system headers (none here) */
        } else if (strcmp(a, "-MP") == 0) {
            /* GCC's empty rule per header: gtcc always writes one per import */
        } else if (starts(a, "-MF")) {
            if ((v = argument(c, argc, argv, &i, "-MF", &missing)))
                o->dep_file = v;
        } else if (starts(a, "-MT") || starts(a, "-MQ")) {
            /* -MQ: the target quoted for make, as the prerequisites are */
            bool quote = a[2] == 'Q';
            if ((v = argument(c, argc, argv, &i, quote ? "-MQ" : "-MT", &missing))) {
                v = quote ? depfile_quote(c->arena, v) : v;
                o->dep_target = o->dep_target ? arena_printf(c->arena, "%s %s", o->dep_target, v)
                                              : v;
            }
        } else if (strcmp(a, "-Werror") == 0) {
            c->diag.werror = true;
        } else if (strcmp(a, "-w") == 0) {
            c->diag.no_warnings = true;
        } else if (starts(a, "-o")) {
            if ((v = argument(c, argc, argv, &i, "-o", &missing)))
                o->output = v;
        } else if (starts(a, "--backend") || starts(a, "-b")) {
            const char *opt = a[1] == '-' ? "--backend" : "-b";
            if (a[1] == '-' && a[9] != '\0' && a[9] != '=')
                return usage_error(c, "unknown option '%s'; run 'gtcc --help'", a);
            if ((v = argument(c, argc, argv, &i, opt, &missing))) {
                if (!backend_find(v))
                    return usage_error(c, arena_printf(c->arena, "unknown backend '%%s' "
                                                       "(expected %s)",
                                                       backend_list(c->arena, ", ", " or ", false)),
                                       v);
                o->backend = v;
            }
        } else if (starts(a, "--emit")) {
            if (a[6] != '\0' && a[6] != '=')
                return usage_error(c, "unknown option '%s'; run 'gtcc --help'", a);
            if ((v = argument(c, argc, argv, &i, "--emit", &missing))) {
                if (strcmp(v, "c") == 0)
                    o->emit = EMIT_C;
                else if (strcmp(v, "ir") == 0)
                    o->emit = EMIT_IR;
                else if (strcmp(v, "meta") == 0)
                    o->emit = EMIT_META;
                else if (strcmp(v, "fortran") == 0)
                    o->emit = EMIT_FORTRAN;
                else
                    return usage_error(c, "unknown --emit kind '%s' (expected c, ir, meta or "
                                       "fortran)", v);
            }
        } else if (starts(a, "-D")) {
            if ((v = argument(c, argc, argv, &i, "-D", &missing)) && add_define(c, v) != 0)
                return 2;
        } else if (starts(a, "-P")) {
            if ((v = argument(c, argc, argv, &i, "-P", &missing))) {
                if (!is_name(v, strlen(v)) || v[0] == '_')
                    return usage_error(c, "bad -P prefix '%s': expected the start of a C "
                                       "identifier (letters, digits and '_', not starting with "
                                       "a digit or '_'), e.g. -P iord8_", v);
                o->prefix = v;
            }
        } else if (starts(a, "-I")) {
            if ((v = argument(c, argc, argv, &i, "-I", &missing))) {
                if (*v == '\0')
                    return usage_error(c, "empty directory in '%s'", "-I");
                vec_push(c->arena, &o->include_dirs, v);
            }
        } else {
            return usage_error(c, "unknown option '%s'; run 'gtcc --help'", a);
        }
        if (missing)
            return 2;
    }
    if (!o->input)
        return usage_error(c, "no input file; run '%s'", "gtcc --help");
    if (o->output && *o->output == '\0')
        return usage_error(c, "empty output file name in '%s'", "-o");
    /* '-' is standard output, as in GCC (-E -o -, -MF -): before, gtcc wrote files named
       '-' and '-.h'; './-' still names such a file */
    if (o->output && strcmp(o->output, "-") == 0) {
        if (o->emit == EMIT_C || o->emit == EMIT_FORTRAN)
            return usage_error(c, "-o -: %s, which cannot go to standard output; give the "
                               "file to write (only --emit=ir and --emit=meta print on "
                               "standard output)", o->emit == EMIT_C
                               ? "--emit=c writes a source and a header beside it"
                               : "--emit=fortran writes a module file for gfortran");
        o->output = NULL;   /* the text goes to standard output, as without -o */
    }
    if (o->dep_file && strcmp(o->dep_file, "-") == 0)
        o->dep_file = "/dev/stdout";   /* written into descriptor 1 (driver.c) */
    struct stat st;
    if (o->output && (o->output[strlen(o->output) - 1] == '/' ||
                      (stat(o->output, &st) == 0 && S_ISDIR(st.st_mode))))
        return usage_error(c, "-o '%s' names a directory; -o names the file to write", o->output);
    if (o->emit == EMIT_FORTRAN && o->backend && strcmp(o->backend, "cuda") == 0)
        return usage_error(c, "--emit=fortran with -b %s: the Fortran wrappers wrap host "
                           "arrays, which the cuda backend's stencils refuse (GT_EDEVICE); "
                           "use the naive or openmp backend's C", o->backend);
    if (o->emit == EMIT_FORTRAN && o->output && !fortran_suffix(o->output))
        return usage_error(c, "--emit=fortran writes a free-form Fortran module: the -o file "
                           "'%s' needs a suffix .f90, .F90, .f03, .F03, .f08 or .F08", o->output);
    return 0;
}

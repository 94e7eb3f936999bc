/* check_driver.c: the command line (options.c), diagnostics (diag.c),
 * imports (import.c), and the gtcc binary as a whole: exit statuses, make
 * dependencies, and the rule that a failed compilation leaves no output.
 * The binary is the one the Makefile names in GTCC_BIN; each test that runs
 * it works in a fresh temporary directory. */
#include <check.h>
#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gtcc.h"

/* ------------------------------------------------------------ helpers */

typedef struct {
    Compiler *c;
    char *diag;
    size_t len;
    FILE *out;
} Ctx;

static void ctx_new(Ctx *x)
{
    x->out = open_memstream(&x->diag, &x->len);
    x->c = compiler_new(x->out);
}

static void ctx_done(Ctx *x)
{
    compiler_free(x->c);
    fclose(x->out);
    free(x->diag);
}

/* options_parse on a NULL-terminated list of words (argv[0] is added). */
static int parse_args(Ctx *x, const char *const *words)
{
    char *argv[32] = {(char *)"gtcc"};
    int argc = 1;
    for (; words[argc - 1]; argc++)
        argv[argc] = (char *)words[argc - 1];
    int status = options_parse(x->c, argc, argv);
    fflush(x->out);
    return status;
}

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/gtcc-driver-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

static void write_file(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    char *slash = strrchr(path, '/');
    if (slash > path + strlen(tmpdir)) {
        *slash = '\0';
        mkdir(path, 0777);
        *slash = '/';
    }
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* The contents of tmpdir/name, or NULL; free it. */
static char *read_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Runs `gtcc ARGS` in tmpdir; returns its exit status, stdout and stderr in
 * tmpdir/stdout and tmpdir/stderr. */
static int run_gtcc(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >stdout 2>stderr", tmpdir, GTCC_BIN, args);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* Number of entries of tmpdir/dir, not counting . and .. */
static int count_entries(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, dir);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static const char good[] =
    "// a valid program\n"
    "function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }\n"
    "stencil s(field<double> u, field<double> v) { v = lap(u); }\n";

/* ------------------------------------------------------------ options */

START_TEST(test_options_defaults)
{
    Ctx x;
    ctx_new(&x);
    ck_assert_int_eq(parse_args(&x, (const char *[]){"in.stn", NULL}), 0);
    Options *o = &x.c->opts;
    ck_assert_str_eq(o->input, "in.stn");
    ck_assert_ptr_null(o->output);
    ck_assert_str_eq(o->backend, "openmp");
    ck_assert_int_eq(o->emit, EMIT_C);
    ck_assert(!o->dep_M && !o->dep_MD);
    ck_assert_str_eq(driver_output_path(x.c), "in.c");
    ck_assert_uint_eq(x.len, 0);
    ctx_done(&x);

    ctx_new(&x);
    ck_assert_int_eq(parse_args(&x, (const char *[]){"-b", "cuda", "dir/prog.stn", NULL}), 0);
    ck_assert_str_eq(driver_output_path(x.c), "prog.cu");
    ck_assert_str_eq(driver_sibling_path(x.c, "a.b/c", ".h"), "a.b/c.h");
    ck_assert_str_eq(driver_sibling_path(x.c, "out/x.c", ".d"), "out/x.d");
    ctx_done(&x);
}
END_TEST

START_TEST(test_options_all)
{
    Ctx x;
    ctx_new(&x);
    const char *args[] = {"-o", "out.c", "--backend=naive", "--emit=ir", "-D", "N=3", "-DX=-1.5e3",
                          "-DN=4", "-I", "inc", "-Iinc2", "-M", "-MD", "-MF", "deps.d",
                          "-MTa", "-MT", "b", "-Werror", "-w", "prog.stn", NULL};
    ck_assert_int_eq(parse_args(&x, args), 0);
    Options *o = &x.c->opts;
    ck_assert_str_eq(o->output, "out.c");
    ck_assert_str_eq(o->backend, "naive");
    ck_assert_int_eq(o->emit, EMIT_IR);
    ck_assert_int_eq(o->defines.len, 2);
    ck_assert_str_eq(o->defines.items[0].name, "N");
    ck_assert_str_eq(o->defines.items[0].value, "4");   /* the last -D wins */
    ck_assert_str_eq(o->defines.items[1].value, "-1.5e3");
    ck_assert_int_eq(o->include_dirs.len, 2);
    ck_assert_str_eq(o->include_dirs.items[1], "inc2");
    ck_assert(o->dep_M && o->dep_MD);
    ck_assert_str_eq(o->dep_file, "deps.d");
    ck_assert_str_eq(o->dep_target, "a b");
    ck_assert(x.c->diag.werror && x.c->diag.no_warnings);
    ck_assert_str_eq(o->input, "prog.stn");
    ctx_done(&x);

    ctx_new(&x);
    ck_assert_int_eq(parse_args(&x, (const char *[]){"-oy.c", "-b", "openmp", "--emit", "c",
                                                     "--", "-odd.stn", NULL}), 0);
    ck_assert_str_eq(x.c->opts.output, "y.c");
    ck_assert_str_eq(x.c->opts.input, "-odd.stn");
    ck_assert_int_eq(x.c->opts.emit, EMIT_C);
    ctx_done(&x);
}
END_TEST

static const struct {
    const char *args[4];
    const char *message;
} bad_options[] = {
    {{NULL}, "gtcc: error: no input file; run 'gtcc --help'\n"},
    {{"a.stn", "b.stn"}, "gtcc: error: more than one input file ('b.stn')\n"},
    /* '-' is not standard input (before: "cannot read '-': No such file or directory") */
    {{"-"}, "gtcc: error: cannot read a program from standard input ('-'); give its .stn "
            "file, or './-' for a file named '-'\n"},
    {{"-x", "a.stn"}, "gtcc: error: unknown option '-x'; run 'gtcc --help'\n"},
    {{"--backends=naive", "a.stn"}, "gtcc: error: unknown option '--backends=naive'"},
    {{"a.stn", "-o"}, "gtcc: error: missing argument to '-o'\n"},
    {{"-b", "fortran", "a.stn"},
     "gtcc: error: unknown backend 'fortran' (expected naive, openmp or cuda)\n"},
    {{"--emit=asm", "a.stn"}, "gtcc: error: unknown --emit kind 'asm' (expected c, ir, meta or fortran)\n"},
    {{"-DN", "a.stn"}, "gtcc: error: bad -D 'N': expected NAME=VALUE\n"},
    {{"-D", "3N=1", "a.stn"}, "gtcc: error: bad -D '3N=1': expected NAME=VALUE\n"},
    {{"-DN=abc", "a.stn"},
     "gtcc: error: bad value in -D 'N=abc': expected a number, 'true' or 'false'\n"},
    {{"-DN=1e", "a.stn"}, "gtcc: error: bad value in -D 'N=1e'"},
    {{"-MF", NULL}, "gtcc: error: missing argument to '-MF'\n"},
    {{"-I", "", "a.stn"}, "gtcc: error: empty directory in '-I'\n"},
    /* a directory (or a name ending in '/') is no file to write: not rename()'s errno */
    {{"-o", ".", "a.stn"},
     "gtcc: error: -o '.' names a directory; -o names the file to write\n"},
    {{"-o", "no-such-dir/", "a.stn"}, "gtcc: error: -o 'no-such-dir/' names a directory"},
    {{"-o", "/tmp", "a.stn"}, "gtcc: error: -o '/tmp' names a directory"},
    /* '-' is standard output, which a module file cannot be (was: "needs a suffix .f90") */
    {{"--emit=fortran", "-o-", "a.stn"}, "gtcc: error: -o -: --emit=fortran writes a module "
     "file for gfortran, which cannot go to standard output"},
};

START_TEST(test_options_errors)
{
    Ctx x;
    ctx_new(&x);
    const char *const *args = bad_options[_i].args;
    ck_assert_int_eq(parse_args(&x, args), 2);
    ck_assert_msg(strstr(x.diag, bad_options[_i].message), "got: %s", x.diag);
    ctx_done(&x);
}
END_TEST

/* ------------------------------------------------------------ diagnostics */

START_TEST(test_diag_format)
{
    Ctx x;
    ctx_new(&x);
    Diag *d = &x.c->diag;
    SourceFile src = {.path = "f.stn", .text = "line one\n  two\n", .len = 15};
    vec_push(x.c->arena, &d->sources, &src);
    diag_error(d, (Loc){"f.stn", 2, 3}, "bad '%s'", "two");
    diag_note(d, (Loc){"f.stn", 1, 1}, "see here");
    diag_warning(d, (Loc){"f.stn", 1, 6}, "unused");
    diag_error(d, (Loc){0}, "cannot read '%s'", "x");
    diag_error(d, (Loc){"g.stn", 0, 0}, "no line");
    fflush(x.out);
    ck_assert_str_eq(x.diag, "f.stn:2:3: error: bad 'two'\n"
                             "   two\n"
                             "   ^\n"
                             "f.stn:1:1: note: see here\n"
                             " line one\n"
                             " ^\n"
                             "f.stn:1:6: warning: unused\n"
                             " line one\n"
                             "      ^\n"
                             "gtcc: error: cannot read 'x'\n"
                             "g.stn: error: no line\n");
    ck_assert_int_eq(d->errors, 3);
    ck_assert_int_eq(d->warnings, 1);
    ctx_done(&x);
}
END_TEST

START_TEST(test_diag_werror_and_w)
{
    Ctx x;
    ctx_new(&x);
    x.c->diag.werror = true;
    diag_warning(&x.c->diag, (Loc){0}, "unused '%s'", "t");
    fflush(x.out);
    ck_assert_str_eq(x.diag, "gtcc: error: unused 't' [-Werror]\n");
    ck_assert_int_eq(x.c->diag.errors, 1);
    ctx_done(&x);

    ctx_new(&x);
    x.c->diag.no_warnings = true;
    diag_warning(&x.c->diag, (Loc){0}, "unused");
    diag_note(&x.c->diag, (Loc){0}, "declared here");   /* follows its warning into silence */
    fflush(x.out);
    ck_assert_uint_eq(x.len, 0);
    ck_assert_int_eq(x.c->diag.warnings, 0);
    ck_assert_int_eq(x.c->diag.errors, 0);
    ctx_done(&x);
}
END_TEST

START_TEST(test_diag_limit_and_long_lines)
{
    Ctx x;
    ctx_new(&x);
    Diag *d = &x.c->diag;
    for (int i = 0; i < 25; i++) {
        /* full only once an error past the limit came (the note printed) */
        ck_assert(i <= DIAG_MAX_ERRORS ? !diag_full(d) : diag_full(d));
        diag_error(d, (Loc){0}, "error %d", i);
    }
    fflush(x.out);
    ck_assert_int_eq(d->errors, DIAG_MAX_ERRORS);
    ck_assert_ptr_nonnull(strstr(x.diag, "gtcc: error: error 19\ngtcc: note: too many errors, "
                                         "stopping\n"));
    ck_assert_ptr_null(strstr(x.diag, "error 20"));
    ctx_done(&x);

    /* A 1000-byte line is quoted around the column. */
    ctx_new(&x);
    char *line = malloc(1002);
    memset(line, 'x', 1000);
    strcpy(line + 1000, "\n");
    SourceFile src = {.path = "f.stn", .text = line, .len = 1001};
    vec_push(x.c->arena, &x.c->diag.sources, &src);
    diag_error(&x.c->diag, (Loc){"f.stn", 1, 500}, "here");
    fflush(x.out);
    char *quote = strchr(x.diag, '\n') + 1;
    ck_assert(strncmp(quote, " ...xxx", 7) == 0);
    char *caret = strchr(quote, '\n') + 1;
    ck_assert_int_eq((int)(strchr(caret, '^') - caret), 4 + 80);
    ck_assert_int_lt((int)(caret - quote), 220);
    free(line);
    ctx_done(&x);

    /* A long quoted identifier is clipped; a file name is not (before, a path past 64
       bytes was cut to its first 40, 'cannot read '/tmp/build-directory-of-a-cmake-p...'',
       hiding which file failed), until it is longer than any path a system call takes. */
    ctx_new(&x);
    char name[101], path[200], huge[5001];
    memset(name, 'n', 100);
    name[100] = '\0';
    snprintf(path, sizeof path, "/tmp/build-directory-of-a-cmake-project/CMakeFiles/"
             "target.dir/generated/%s.c", "heat2d");
    memset(huge, 'p', 5000);
    huge[0] = '/';
    huge[5000] = '\0';
    diag_error(&x.c->diag, (Loc){0}, "'%s' is not declared", name);
    diag_error(&x.c->diag, (Loc){0}, "cannot create '%s': No such file", path);
    diag_error(&x.c->diag, (Loc){0}, "cannot create '%s' either", "a_long_generated_name_"
               "that_some_tool_made_without_any_directory_part.stn");
    diag_error(&x.c->diag, (Loc){0}, "cannot read '%s'", huge);
    fflush(x.out);
    char want[512];
    snprintf(want, sizeof want, "gtcc: error: '%.40s...' is not declared\n"
             "gtcc: error: cannot create '%s': No such file\n"
             "gtcc: error: cannot create 'a_long_generated_name_that_some_tool_made_without_"
             "any_directory_part.stn' either\n"
             "gtcc: error: cannot read '/ppppppppppppppppppppppppppppppppppppppp...'\n",
             name, path);
    ck_assert_str_eq(x.diag, want);
    ctx_done(&x);
}
END_TEST

/* ------------------------------------------------------------ imports */

START_TEST(test_imports_in_process)
{
    make_tmpdir();
    write_file("lib/a.stn", "import \"b.stn\";\nconst double A = 1.0;\n");
    write_file("lib/b.stn", "const double B = 2.0;\n");
    write_file("inc/c.stn", "import \"../lib/b.stn\";\n");
    write_file("main.stn", "import \"lib/a.stn\";\nimport \"lib/./b.stn\";\nimport \"c.stn\";\n");
    Ctx x;
    ctx_new(&x);
    char path[512];
    snprintf(path, sizeof path, "%s/main.stn", tmpdir);
    char inc[512];
    snprintf(inc, sizeof inc, "%s/inc", tmpdir);
    vec_push(x.c->arena, &x.c->opts.include_dirs, inc);
    x.c->opts.input = path;
    x.c->main = parse_file(x.c, path, (Loc){0});
    ck_assert_ptr_nonnull(x.c->main);
    import_resolve(x.c);
    fflush(x.out);
    ck_assert_msg(x.c->diag.errors == 0, "%s", x.diag);
    /* b.stn once, whatever the path; imports before importers; main last. */
    ck_assert_int_eq(x.c->modules.len, 4);
    ck_assert_ptr_nonnull(strstr(x.c->modules.items[0]->path, "lib/b.stn"));
    ck_assert_ptr_nonnull(strstr(x.c->modules.items[1]->path, "lib/a.stn"));
    ck_assert_ptr_nonnull(strstr(x.c->modules.items[2]->path, "inc/c.stn"));
    ck_assert_ptr_eq(x.c->modules.items[3], x.c->main);
    Module *b = x.c->modules.items[0];
    ck_assert_ptr_eq(x.c->main->imports.items[1]->module, b);
    ck_assert_ptr_eq(x.c->modules.items[2]->imports.items[0]->module, b);
    ck_assert_str_eq(b->consts.items[0]->name, "B");
    ctx_done(&x);
    remove_tmpdir();
}
END_TEST

/* ------------------------------------------------------------ the binary */

START_TEST(test_exit_status)
{
    make_tmpdir();
    write_file("good.stn", good);
    write_file("bad.stn", "stencil s(field<double> u) { u = ; }\n");
    mkdir(strcat(strcpy((char[512]){0}, tmpdir), "/dir.stn"), 0777);
    ck_assert_int_eq(run_gtcc("--emit=ir good.stn"), 0);
    ck_assert_int_eq(run_gtcc("--emit=ir bad.stn"), 1);
    char *err = read_file("stderr");
    ck_assert_str_eq(err, "bad.stn:1:34: error: expected expression, saw ';'\n"
                          " stencil s(field<double> u) { u = ; }\n"
                          "                                  ^\n");
    free(err);
    ck_assert_int_eq(run_gtcc("--emit=ir missing.stn"), 2);
    err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: cannot read 'missing.stn': No such file or directory\n");
    free(err);
    /* the whole path, not its first 40 bytes and "..." */
    ck_assert_int_eq(run_gtcc("--emit=ir a-directory-whose-name-is-long-enough-to-pass-64-"
                              "bytes/missing.stn"), 2);
    err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: cannot read 'a-directory-whose-name-is-long-enough-to-"
                          "pass-64-bytes/missing.stn': No such file or directory\n");
    free(err);
    ck_assert_int_eq(run_gtcc("--emit=ir dir.stn"), 2);
    err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: cannot read 'dir.stn': it is a directory\n");
    free(err);
    ck_assert_int_eq(run_gtcc("--frobnicate good.stn"), 2);
    ck_assert_int_eq(run_gtcc("--version"), 0);
    char *out = read_file("stdout");
    ck_assert_str_eq(out, "gtcc " GTCC_VERSION "\n");
    free(out);
    ck_assert_int_eq(run_gtcc("--help"), 0);
    out = read_file("stdout");
    ck_assert(strncmp(out, "usage: gtcc [options] FILE.stn\n", 31) == 0);
    free(out);
    /* ... and an output that fails is an I/O error (before: status 0, nothing said) */
    for (int i = 0; i < 2; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >/dev/full 2>stderr", tmpdir, GTCC_BIN,
                 i ? "--help" : "--version");
        int st = system(cmd);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    }
    err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: cannot write to standard output: No space left on device\n");
    free(err);
    remove_tmpdir();
}
END_TEST

/* A UTF-8 byte order mark opening a file (as some editors save it) is skipped, as C
 * compilers do, in the main file and in imports; columns count from after it. Before,
 * it was "invalid character U+FEFF in program". Elsewhere it is still an error. */
START_TEST(test_byte_order_mark)
{
    make_tmpdir();
    write_file("lib.stn", "\xef\xbb\xbf" "const double C = 2.0;\r\n");
    write_file("bom.stn", "\xef\xbb\xbf" "import \"lib.stn\";\n"
                          "stencil s(field<double> u, field<double> v) { v = C * u; }");
    ck_assert_int_eq(run_gtcc("--emit=ir -o /dev/null bom.stn"), 0);
    char *err = read_file("stderr");
    ck_assert_str_eq(err, "");
    free(err);
    write_file("bad.stn", "\xef\xbb\xbf" "stencil s(field<double> u) { u = ; }\n");
    ck_assert_int_eq(run_gtcc("--emit=ir bad.stn"), 1);
    err = read_file("stderr");
    ck_assert_str_eq(err, "bad.stn:1:34: error: expected expression, saw ';'\n"
                          " stencil s(field<double> u) { u = ; }\n"
                          "                                  ^\n");
    free(err);
    write_file("mid.stn", "stencil s(field<double> u) { u = \xef\xbb\xbf" "1.0; }\n");
    ck_assert_int_eq(run_gtcc("--emit=ir mid.stn"), 1);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "mid.stn:1:34: error: invalid character U+FEFF"));
    free(err);
    remove_tmpdir();
}
END_TEST

/* The header and the dependency file take the source's name with its suffix replaced; a
 * name that only starts with a dot has no suffix, in the current directory as in any other
 * (before, -o .c gave .h and .d, but -o d/.c gave d/.c.h and d/.c.d). */
START_TEST(test_sibling_names)
{
    make_tmpdir();
    write_file("good.stn", good);
    mkdir(strcat(strcpy((char[512]){0}, tmpdir), "/d"), 0777);
    ck_assert_int_eq(run_gtcc("-MD -o .c good.stn"), 0);
    ck_assert_int_eq(run_gtcc("-MD -o d/.c good.stn"), 0);
    const char *names[] = {".c", ".c.h", ".c.d", "d/.c", "d/.c.h", "d/.c.d"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char *text = read_file(names[i]);
        ck_assert_msg(text != NULL, "no %s", names[i]);
        free(text);
    }
    ck_assert_int_eq(count_entries("d"), 3);
    ck_assert_int_eq(count_entries("."), 7);   /* good.stn, d, stdout, stderr and 3 above */

    /* The source's #line directives back to itself name it by the -o path (as bison
       does), quoted as a C string, whatever its suffix; its #include names the header
       beside it. (Before, `-o d/x.gen.cc` wrote #line N "x.gen.c".) */
    mkdir(strcat(strcpy((char[512]){0}, tmpdir), "/o\"d"), 0777);
    ck_assert_int_eq(run_gtcc("-b naive -o 'o\"d/x.gen.cc' good.stn"), 0);
    char *src = read_file("o\"d/x.gen.cc");
    ck_assert_ptr_nonnull(src);
    int back = 0;
    for (const char *p = src; (p = strstr(p, "\n#line ")); p++) {
        const char *name = strchr(p + 1, '"');
        static const char stn[] = "\"good.stn\"\n", self[] = "\"o\\\"d/x.gen.cc\"\n";
        if (strncmp(name, stn, strlen(stn)) == 0)
            continue;
        ck_assert_msg(strncmp(name, self, strlen(self)) == 0, "%.40s", p + 1);
        back++;
    }
    ck_assert_int_gt(back, 0);
    ck_assert_ptr_nonnull(strstr(src, "\n#include \"x.gen.h\"\n"));
    free(src);
    remove_tmpdir();
}
END_TEST

/* An output header named as a system header (omp.h, math.h): a compiler given -I to its
 * directory read it in place of OpenMP's or the C library's, and the generated source's
 * #include <omp.h> found the generated header (its guard hiding it). A warning now, an
 * error under -Werror (nothing written); a name that only looks alike is no warning. */
START_TEST(test_system_header_names)
{
    make_tmpdir();
    write_file("good.stn", good);
    ck_assert_int_eq(run_gtcc("-o omp.c good.stn"), 0);
    char *err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: warning: output header 'omp.h' has the name of a system header "
                          "(<omp.h>, which the generated source includes): a C compiler given "
                          "-I to its directory reads it in place of the system's; rename the "
                          "output\n");
    free(err);
    char *h = read_file("omp.h");
    ck_assert_ptr_nonnull(h);
    free(h);
    ck_assert_int_eq(run_gtcc("-Werror -o math.c good.stn"), 1);
    ck_assert_ptr_null(read_file("math.c"));
    ck_assert_ptr_null(read_file("math.h"));
    write_file("stdio.stn", good);
    ck_assert_int_eq(run_gtcc("-w stdio.stn"), 0);
    ck_assert_int_eq(run_gtcc("stdio.stn"), 0);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "'stdio.h' has the name of a system header (<stdio.h>, "
                                      "of the C library)"));
    ck_assert_ptr_nonnull(strstr(err, "(with -o: its name comes from the input's)"));
    free(err);
    ck_assert_int_eq(run_gtcc("-o omp2.c good.stn"), 0);
    err = read_file("stderr");
    ck_assert_str_eq(err, "");
    free(err);
    remove_tmpdir();
}
END_TEST

/* An output whose name is as long as a file name can be (255 bytes) is written: its
 * temporary file, named after it, is cut to stay a legal name (before, ".NAME.XXXXXX"
 * was 8 bytes longer, and any name of 248 to 255 bytes was "File name too long"). */
START_TEST(test_long_output_names)
{
    make_tmpdir();
    write_file("good.stn", good);
    char name[256], args[512];
    memset(name, 'n', 253);
    strcpy(name + 253, ".c");   /* 255 bytes; the header and the .d file too */
    snprintf(args, sizeof args, "-MD -o %s good.stn", name);
    ck_assert_int_eq(run_gtcc(args), 0);
    char *err = read_file("stderr");
    ck_assert_str_eq(err, "");
    free(err);
    for (const char *suffix = "chd"; *suffix; suffix++) {
        name[254] = *suffix;
        char *text = read_file(name);
        ck_assert_msg(text && *text, "no %s", name + 250);
        free(text);
    }
    ck_assert_int_eq(count_entries("."), 6);   /* good.stn, stdout, stderr, .c .h .d */
    remove_tmpdir();
}
END_TEST

/* An output that exists in a directory the user cannot write: the file may be writable, but
 * gtcc writes a new one beside it and renames it, and says so (before: "cannot create
 * 'ro/x.h'", of a file that was there). Root writes anywhere: as root the test runs gtcc as
 * nobody through setpriv, or is skipped without it. */
START_TEST(test_unwritable_directory)
{
    make_tmpdir();
    ck_assert_int_eq(chmod(tmpdir, 0755), 0);
    write_file("good.stn", good);
    write_file("ro/x.c", "old source\n");
    write_file("ro/x.h", "old header\n");
    char dir[512], cmd[1024];
    snprintf(dir, sizeof dir, "%s/ro", tmpdir);
    const char *as = "";
    if (geteuid() == 0) {
        if (system("setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null") != 0) {
            remove_tmpdir();
            return;
        }
        as = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
        ck_assert_int_eq(chmod(dir, 0755), 0);   /* root's: not nobody's to write */
    } else {
        ck_assert_int_eq(chmod(dir, 0555), 0);
    }
    snprintf(cmd, sizeof cmd, "cd '%s' && %s'%s' -o ro/x.c good.stn >stdout 2>stderr", tmpdir,
             as, GTCC_BIN);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 2);
    char *err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: cannot write 'ro/x.h': gtcc writes a new file beside it "
                          "and renames it into place, and its directory is not writable: "
                          "Permission denied\n");
    free(err);
    char *text = read_file("ro/x.h");
    ck_assert_str_eq(text, "old header\n");
    free(text);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    remove_tmpdir();
}
END_TEST

/* --emit=meta is JSON, so UTF-8: an input path that is not (a Latin-1 name, an overlong
 * form, a surrogate) has each of its stray bytes as U+FFFD; a UTF-8 one is kept as it is
 * (before, the bytes went out raw, and Python's json refused the text). */
START_TEST(test_meta_file_names)
{
    make_tmpdir();
    static const struct {
        const char *file, *json;
    } names[] = {
        {"caf\xe9.stn", "\"file\": \"caf\\ufffd.stn\",\n"},
        {"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e.stn",
         "\"file\": \"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e.stn\",\n"},
        {"o\xc0\xafs\xed\xa0\x80.stn",
         "\"file\": \"o\\ufffd\\ufffds\\ufffd\\ufffd\\ufffd.stn\",\n"},
        {"\xe2\x82.stn", "\"file\": \"\\ufffd\\ufffd.stn\",\n"},   /* cut short */
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        write_file(names[i].file, good);
        char args[256];
        snprintf(args, sizeof args, "--emit=meta '%s'", names[i].file);
        ck_assert_int_eq(run_gtcc(args), 0);
        char *out = read_file("stdout");
        ck_assert_msg(strstr(out, names[i].json), "%zu: %.80s", i, out);
        free(out);
    }
    remove_tmpdir();
}
END_TEST

/* A file name with a trigraph (??= ??/ ??- ...): the #line directives write each '?' as
 * "\?", so that no "??" is in them (ISO C compilers replaced "??=" by '#' in the name, GNU
 * C warned, -Wtrigraphs, an error under -Wall -Werror; in comments it warns of none); an
 * output whose #include of its header would hold one is refused, exit 2, nothing written. */
START_TEST(test_trigraph_names)
{
    make_tmpdir();
    write_file("t?\?=x?\?-.stn", good);
    ck_assert_int_eq(run_gtcc("-b naive -o out.c 't?\?=x?\?-.stn'"), 0);
    char *src = read_file("out.c");
    ck_assert_ptr_nonnull(src);
    for (const char *p = src; (p = strstr(p, "\n#line ")); p++) {
        const char *eol = strchr(p + 1, '\n'), *tri = strstr(p + 1, "?\?");
        ck_assert_msg(!tri || tri > eol, "%.60s", p + 1);
    }
    ck_assert_ptr_nonnull(strstr(src, " \"t\\?\\?=x\\?\\?-.stn\"\n"));
    free(src);
    write_file("good.stn", good);
    ck_assert_int_eq(run_gtcc("-b naive -o 'o?\?-.c' good.stn"), 2);
    char *err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: output 'o?\?-.c': '?\?-' in a file name is a C trigraph, "
                          "which the generated source's #include of its header cannot hold; "
                          "rename the output\n");
    free(err);
    ck_assert_int_eq(count_entries("."), 6);   /* the two .stn, out.c, out.h, stdout, stderr */
    ck_assert_int_eq(run_gtcc("-b naive -o 'o?\?.c' good.stn"), 0);   /* no trigraph */
    /* the output named after the input: the message says how to rename it (before, only
       the trigraph's said to, and neither that -o does it) */
    write_file("q\"t.stn", good);
    ck_assert_int_eq(run_gtcc("'q\"t.stn'"), 2);
    err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: output 'q\"t.c': a file name with a quote, a backslash "
                          "or a control character cannot be written in the generated source's "
                          "#include of its header; rename the output (with -o: its name comes "
                          "from the input's)\n");
    free(err);
    ck_assert_int_eq(run_gtcc("'t?\?=x?\?-.stn'"), 2);
    err = read_file("stderr");
    ck_assert_str_eq(err, "gtcc: error: output 't?\?=x?\?-.c': '?\?=' in a file name is a C "
                          "trigraph, which the generated source's #include of its header cannot "
                          "hold; rename the output (with -o: its name comes from the input's)\n");
    free(err);
    ck_assert_ptr_null(read_file("q\"t.c"));
    ck_assert_ptr_null(read_file("q\"t.h"));
    remove_tmpdir();
}
END_TEST

/* A stencil with iterate also exports S_steps, S_info_f and (under MPI) S_steps_mpi: a
 * stencil of one of those names is an error naming both, with every backend (a program
 * with both compiled, but its header failed to compile under MPI). */
START_TEST(test_iterate_api_names)
{
    make_tmpdir();
    write_file("clash.stn",
               "stencil heat(field<double> u, field<double> un) iterate(un -> u) {\n"
               "    un = u + 0.1 * (u[i-1] + u[i+1] - 2.0 * u);\n"
               "}\n"
               "stencil heat_steps_mpi(field<double> a, field<double> b) { b = a; }\n"
               "stencil heat_info_f(field<double> a, field<double> b) { b = a; }\n");
    static const char *const backends[] = {"naive", "openmp", "cuda"};
    for (int b = 0; b < 3; b++) {
        char args[128];
        snprintf(args, sizeof args, "-b %s -o clash.c clash.stn", backends[b]);
        ck_assert_int_eq(run_gtcc(args), 1);
        char *err = read_file("stderr");
        ck_assert_ptr_nonnull(strstr(err, "clash.stn:4:9: error: stencil name 'heat_steps_mpi' "
                                          "is the name of the distributed steps entry of "
                                          "stencil 'heat' (line 1)"));
        ck_assert_ptr_nonnull(strstr(err, "clash.stn:5:9: error: stencil name 'heat_info_f' is "
                                          "the name of the metadata function of stencil "
                                          "'heat' (line 1)"));
        free(err);
        ck_assert_int_eq(count_entries("."), 3);   /* clash.stn, stdout, stderr */
    }
    /* the same names without iterate are free */
    write_file("free.stn",
               "stencil heat(field<double> u, field<double> un) { un = u[i+1]; }\n"
               "stencil heat_steps_mpi(field<double> a, field<double> b) { b = a; }\n"
               "stencil heat_info_f(field<double> a, field<double> b) { b = a; }\n");
    ck_assert_int_eq(run_gtcc("-b naive -o free.c free.stn"), 0);
    remove_tmpdir();
}
END_TEST

/* gt_iterate_pair.keeps: 0 only where a step overwrites all of next (an unconditional write
   over every level, outside any region) without reading it; 1 for each way a step may
   depend on what next held (gt_mpi_steps exchanges next then: docs/mpi.md). */
START_TEST(test_iterate_keeps)
{
    static const struct {
        const char *body;
        int keeps;
    } cases[] = {
        {"un = 0.5 * u[i+1];", 0},
        {"if (u > 0.0) { un = u; } un = 2.0 * u;", 0},   /* an unconditional write after */
        {"computation(forward) { interval(0, end) { un = u[k-1]; } }", 0},
        {"if (u > 0.0) { un = u; }", 1},
        {"if (u > 0.0) { un = u; } else { un = -u; }", 1},   /* conservative */
        {"un = 0.5 * un + u;", 1},
        {"un = u * w; double t = un + 1.0; un = t;", 1},   /* read after the write: conservative */
        {"region(i(0, 2)) { un = u; }", 1},
        {"computation(parallel) { interval(1, end) { un = u; } }", 1},
        {"computation(parallel) { interval(0, 1) { un = u; } interval(1, end) { un = u; } }", 1},
        {"computation(forward) { interval(0, end) { un = u + un[k+1]; } }", 1},
    };
    make_tmpdir();
    for (size_t n = 0; n < sizeof cases / sizeof *cases; n++) {
        char text[512], want[64];
        snprintf(text, sizeof text, "stencil s(field<double> u, field<double> un, "
                 "field<double> w) iterate(un -> u) {\n    %s\n}\n", cases[n].body);
        write_file("keeps.stn", text);
        ck_assert_msg(run_gtcc("-b naive -o keeps.c keeps.stn") == 0, "%s", cases[n].body);
        char *src = read_file("keeps.c");
        snprintf(want, sizeof want, "s_pairs[1] = {{1, 0, %d}};", cases[n].keeps);
        ck_assert_msg(strstr(src, want), "%s: not %s", cases[n].body, want);
        free(src);
    }
    remove_tmpdir();
}
END_TEST

START_TEST(test_depfiles)
{
    char cmd[1024];
    make_tmpdir();
    write_file("lib/m.stn", "function sq(x) { return x * x; }\n");
    write_file("inc/n.stn", "import \"../lib/m.stn\";\nconst double C = 1.0;\n");
    write_file("main.stn", "import \"lib/m.stn\";\nimport \"n.stn\";\n"
                           "stencil s(field<double> u, field<double> v) { v = sq(u) * C; }\n");
    /* -M: the rule on stdout, nothing else written. */
    ck_assert_int_eq(run_gtcc("-M -I inc main.stn"), 0);
    char *out = read_file("stdout");
    ck_assert_str_eq(out, "main.c: main.stn lib/m.stn inc/n.stn\n\nlib/m.stn:\n\ninc/n.stn:\n");
    free(out);
    ck_assert_ptr_null(read_file("main.c"));
    ck_assert_ptr_null(read_file("main.h"));

    ck_assert_int_eq(run_gtcc("-M -MT 'all the' -MT x -b cuda -I inc main.stn"), 0);
    out = read_file("stdout");
    ck_assert(strncmp(out, "all the x: main.stn", 19) == 0);
    free(out);
    ck_assert_int_eq(run_gtcc("-M -b cuda -I inc main.stn"), 0);
    out = read_file("stdout");
    ck_assert(strncmp(out, "main.cu: main.stn", 17) == 0);
    free(out);
    /* GCC's -MQ (the target quoted for make, in order with -MT), -MMD (-MD: no system
       headers here) and -MP (always done) as a Makefile's "-MMD -MP" gives them: before,
       each was "unknown option", exit 2. Expected text as gcc -MQ writes it. */
    ck_assert_int_eq(run_gtcc("-M -MT 'a b' -MQ 'c d$e#' -MP -I inc main.stn"), 0);
    out = read_file("stdout");
    ck_assert_str_eq(out, "a b c\\ d$$e\\#: main.stn lib/m.stn inc/n.stn\n\nlib/m.stn:\n\n"
                          "inc/n.stn:\n");
    free(out);
    ck_assert_int_eq(run_gtcc("-MMD -MP -o gen.c -I inc main.stn"), 0);
    out = read_file("gen.d");
    ck_assert_str_eq(out, "gen.c: main.stn lib/m.stn inc/n.stn\n\nlib/m.stn:\n\ninc/n.stn:\n");
    free(out);
    ck_assert_int_eq(run_gtcc("-M -MQ"), 2);

    /* -MF - is standard output, as in GCC, and -o - with --emit=ir (before: files named
       '-', and '-.h' beside one), the dependency rule after the text; with --emit=c, whose
       header cannot go there, -o - is refused, nothing written */
    ck_assert_int_eq(run_gtcc("-M -MF - -I inc main.stn"), 0);
    out = read_file("stdout");
    ck_assert_str_eq(out, "main.c: main.stn lib/m.stn inc/n.stn\n\nlib/m.stn:\n\ninc/n.stn:\n");
    free(out);
    ck_assert_int_eq(run_gtcc("--emit=ir -o - -MD -MF - -I inc main.stn"), 0);
    out = read_file("stdout");
    ck_assert(strncmp(out, "stencil s\n", 10) == 0);
    ck_assert_ptr_nonnull(strstr(out, "\nmain.c: main.stn lib/m.stn inc/n.stn\n\nlib/m.stn:\n"));
    free(out);
    ck_assert_int_eq(run_gtcc("-o - -I inc main.stn"), 2);
    out = read_file("stderr");
    ck_assert_str_eq(out, "gtcc: error: -o -: --emit=c writes a source and a header beside it, "
                          "which cannot go to standard output; give the file to write (only "
                          "--emit=ir and --emit=meta print on standard output)\n");
    free(out);
    ck_assert_ptr_null(read_file("-"));
    ck_assert_ptr_null(read_file("-.h"));
    ck_assert_ptr_null(read_file("main.c"));

    /* -M -MF: into the file. */
    ck_assert_int_eq(run_gtcc("-M -MF deps/x.d -I inc main.stn"), 2);   /* no such directory */
    ck_assert_int_eq(run_gtcc("-M -MF x.d -o gen/prog.c -I inc main.stn"), 0);
    out = read_file("x.d");
    ck_assert(strncmp(out, "gen/prog.c: main.stn lib/m.stn", 30) == 0);
    free(out);

    /* -MD: beside the output, and the compilation happens. */
    mkdir(strcat(strcpy((char[512]){0}, tmpdir), "/gen"), 0777);
    ck_assert_int_eq(run_gtcc("--emit=ir -MD -o gen/prog.ir -I inc main.stn"), 0);
    out = read_file("gen/prog.d");
    ck_assert_str_eq(out, "gen/prog.ir: main.stn lib/m.stn inc/n.stn\n\nlib/m.stn:\n\ninc/n.stn:\n");
    free(out);
    ck_assert_int_eq(count_entries("gen"), 2);
    /* ... never onto the output itself: refused, the IR kept */
    ck_assert_int_eq(run_gtcc("--emit=ir -MD -MF gen/prog.ir -o gen/prog.ir -I inc main.stn"), 2);
    out = read_file("gen/prog.ir");
    ck_assert_ptr_null(strstr(out, "main.stn lib/m.stn"));
    free(out);
    ck_assert_int_eq(count_entries("gen"), 2);

    /* A failed compilation writes no dependency file. */
    write_file("bad.stn", "import \"lib/m.stn\";\nstencil s(field<double> u) { u = ; }\n");
    ck_assert_int_eq(run_gtcc("--emit=ir -MD -MF bad.d bad.stn"), 1);
    ck_assert_ptr_null(read_file("bad.d"));

    /* -MD with a dependency file that cannot be made: no output either. */
    ck_assert_int_eq(run_gtcc("-b naive -MD -MF deps/x.d -o gen/c.c -I inc main.stn"), 2);
    ck_assert_ptr_null(read_file("gen/c.c"));
    ck_assert_ptr_null(read_file("gen/c.h"));
    /* ... nor the IR on standard output (before, it came out, then the error) */
    ck_assert_int_eq(run_gtcc("--emit=ir -MD -MF deps/x.d -I inc main.stn"), 2);
    out = read_file("stdout");
    ck_assert_str_eq(out, "");
    free(out);
    out = read_file("stderr");
    ck_assert_str_eq(out, "gtcc: error: cannot create 'deps/x.d': No such file or directory\n");
    free(out);
    ck_assert_int_eq(run_gtcc("--emit=meta -MD -I inc main.stn"), 0);   /* both when it can */
    out = read_file("stdout");
    ck_assert(strncmp(out, "{\n  \"gtcc_meta\": 1,", 19) == 0);
    free(out);
    out = read_file("main.d");
    ck_assert(strncmp(out, "main.c: main.stn lib/m.stn", 26) == 0);
    free(out);
    ck_assert_int_eq(run_gtcc("-b naive -MD -o gen/c.c -I inc main.stn"), 0);
    out = read_file("gen/c.d");
    ck_assert(strncmp(out, "gen/c.c: main.stn", 17) == 0);
    free(out);
    /* -MF naming the input or an output is refused, and that file kept. */
    char *main_text = read_file("main.stn");
    ck_assert_int_eq(run_gtcc("-b naive -MD -MF main.stn -o gen/d.c -I inc main.stn"), 2);
    ck_assert_int_eq(run_gtcc("-M -MF main.stn -I inc main.stn"), 2);
    out = read_file("main.stn");
    ck_assert_str_eq(out, main_text);
    free(out);
    free(main_text);
    ck_assert_int_eq(run_gtcc("-b naive -MD -MF gen/c.h -o gen/c.c -I inc main.stn"), 2);
    out = read_file("gen/c.h");
    ck_assert_ptr_null(strstr(out, "gen/c.c: main.stn"));   /* still the header */
    free(out);
    /* ... however it is spelled: another path to it, or a link to it (before, the rule
       silently replaced the header) */
    char abs[512], link[512];
    snprintf(abs, sizeof abs, "'%s/gen/c.h'", tmpdir);
    snprintf(link, sizeof link, "%s/lnk.h", tmpdir);
    ck_assert_int_eq(symlink("gen/c.h", link), 0);
    const char *mf[] = {"./gen/c.h", "gen/../gen/c.h", "lnk.h", abs};
    for (int i = 0; i < 4; i++) {
        snprintf(cmd, sizeof cmd, "-b naive -MD -MF %s -o gen/c.c -I inc main.stn", mf[i]);
        ck_assert_int_eq(run_gtcc(cmd), 2);
        char *err = read_file("stderr");
        ck_assert_ptr_nonnull(strstr(err, "gtcc: error: two outputs would both be '"));
        free(err);
        out = read_file("gen/c.h");
        ck_assert_ptr_null(strstr(out, "gen/c.c: main.stn"));
        free(out);
    }
    unlink(link);

    /* Special characters are escaped for make. */
    write_file("a b$.stn", "const int N = 1;\n");
    write_file("sp.stn", "import \"a b$.stn\";\n");
    ck_assert_int_eq(run_gtcc("-M sp.stn"), 0);
    out = read_file("stdout");
    ck_assert_str_eq(out, "sp.c: sp.stn a\\ b$$.stn\n\na\\ b$$.stn:\n");
    free(out);
    remove_tmpdir();
}
END_TEST

START_TEST(test_no_partial_output)
{
    make_tmpdir();
    write_file("bad.stn", "stencil s(field<double> u) { u = u +; }\n");
    write_file("out.c", "old source\n");
    write_file("out.h", "old header\n");
    write_file("out.ir", "old ir\n");
    ck_assert_int_eq(run_gtcc("-b naive -o out.c bad.stn"), 1);
    ck_assert_int_eq(run_gtcc("--emit=ir -o out.ir bad.stn"), 1);
    char *s = read_file("out.c"), *h = read_file("out.h"), *ir = read_file("out.ir");
    ck_assert_str_eq(s, "old source\n");
    ck_assert_str_eq(h, "old header\n");
    ck_assert_str_eq(ir, "old ir\n");
    free(s);
    free(h);
    free(ir);
    ck_assert_int_eq(count_entries("."), 6);   /* no temporary file left: 4 + stdout, stderr */

    /* An output directory that does not exist: an I/O error, nothing written. */
    write_file("good.stn", good);
    ck_assert_int_eq(run_gtcc("--emit=ir -o nodir/x.ir good.stn"), 2);
    char *err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "gtcc: error: cannot create 'nodir/x.ir': No such file"));
    free(err);

    /* A write that fails (a file size limit here, a full disk alike): an I/O error naming
       the file and why, exit status 2, the old outputs kept (before: "cannot write the
       generated code", status 1, as if the program were wrong, when the write failed in
       fwrite, as the openmp source's, larger than stdio's buffer, does) */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && (trap '' XFSZ; ulimit -f 1; exec '%s' -MD "
             "-o out.c good.stn) 2>stderr", tmpdir, GTCC_BIN);
    int st = system(cmd);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 2);
    err = read_file("stderr");
    ck_assert_msg(strncmp(err, "gtcc: error: cannot write 'out.", 31) == 0 &&
                  strstr(err, "': File too large\n"), "got: %s", err);
    free(err);
    s = read_file("out.c");
    h = read_file("out.h");
    ck_assert_str_eq(s, "old source\n");
    ck_assert_str_eq(h, "old header\n");
    free(s);
    free(h);
    ck_assert_ptr_null(read_file("out.d"));
    ck_assert_int_eq(count_entries("."), 7);   /* the 6 above and good.stn: no temporary */

    /* Writing onto the input is refused. */
    ck_assert_int_eq(run_gtcc("--emit=ir -o good.stn good.stn"), 2);
    s = read_file("good.stn");
    ck_assert_str_eq(s, good);
    free(s);
    /* ... and so is writing the header, the dependency rule or the Fortran module onto
       a file of the program (before, -o x.c x.h replaced the input x.h by its header) */
    write_file("x.h", good);
    write_file("p.d", good);
    write_file("imp.stn", "import \"lib.h\";\n"
                          "stencil s(field<double> u, field<double> v) { v = C * u; }\n");
    write_file("lib.h", "const double C = 2.0;\n");
    static const struct {
        const char *args, *message;
    } onto[] = {
        {"-o x.c x.h", "gtcc: error: output 'x.h' is the input file 'x.h'\n"},
        {"-MD -o p.c p.d", "gtcc: error: output 'p.d' is the input file 'p.d'\n"},
        {"-o lib.c imp.stn", "gtcc: error: output 'lib.h' is the imported file 'lib.h'\n"},
        {"--emit=ir -MD -o lib.ir imp.stn -MF ./lib.h",
         "gtcc: error: output './lib.h' is the imported file 'lib.h'\n"},
        {"-M -MF lib.h imp.stn", "gtcc: error: output 'lib.h' is the imported file 'lib.h'\n"},
    };
    for (size_t i = 0; i < sizeof onto / sizeof *onto; i++) {
        ck_assert_int_eq(run_gtcc(onto[i].args), 2);
        err = read_file("stderr");
        ck_assert_str_eq(err, onto[i].message);
        free(err);
    }
    s = read_file("x.h");
    ck_assert_str_eq(s, good);
    free(s);
    s = read_file("p.d");
    ck_assert_str_eq(s, good);
    free(s);
    s = read_file("lib.h");
    ck_assert_str_eq(s, "const double C = 2.0;\n");
    free(s);
    ck_assert_int_eq(count_entries("."), 11);   /* 7 + x.h, p.d, imp.stn, lib.h: no output */

    /* A source name its #include of the header cannot spell: refused, nothing written. */
    ck_assert_int_eq(run_gtcc("-b naive -o 'q\"x.c' good.stn"), 2);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "gtcc: error: output 'q\"x.c': a file name with a quote"));
    free(err);
    ck_assert_int_eq(run_gtcc("-b naive -o 'q\\x.c' good.stn"), 2);
    ck_assert_int_eq(count_entries("."), 11);   /* nothing new */

    /* A good compilation replaces the old output whole. */
    ck_assert_int_eq(run_gtcc("--emit=ir -o out.ir good.stn"), 0);
    ir = read_file("out.ir");
    ck_assert_str_ne(ir, "old ir\n");
    free(ir);
    ck_assert_int_eq(count_entries("."), 11);
    remove_tmpdir();
}
END_TEST

/* An output that is not a regular file is written, never replaced: a FIFO (or a
 * device: -o /dev/null) receives the text and stays what it was; a symbolic link
 * to a file keeps pointing at the file, which gets the text; a directory is an
 * I/O error. (Before, the temporary file was renamed over each of them: the
 * FIFO's reader waited for ever, and as root -o /dev/null replaced /dev/null.) */
START_TEST(test_special_outputs)
{
    make_tmpdir();
    write_file("good.stn", good);
    ck_assert_int_eq(run_gtcc("--emit=ir good.stn"), 0);
    char *want = read_file("stdout");
    char path[512];
    snprintf(path, sizeof path, "%s/pipe", tmpdir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && { '%s' --emit=ir -o pipe good.stn & cat pipe >got; "
             "wait $!; }", tmpdir, GTCC_BIN);
    int rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    struct stat st;
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    char *got = read_file("got");
    ck_assert_str_eq(got, want);
    free(got);

    write_file("real.ir", "old\n");
    snprintf(path, sizeof path, "%s/link.ir", tmpdir);
    ck_assert_int_eq(symlink("real.ir", path), 0);
    ck_assert_int_eq(run_gtcc("--emit=ir -o link.ir good.stn"), 0);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    got = read_file("real.ir");
    ck_assert_str_eq(got, want);
    free(got);
    /* a link to a file not made yet keeps pointing at it (before, it was replaced) */
    snprintf(path, sizeof path, "%s/dangling.ir", tmpdir);
    ck_assert_int_eq(symlink("new.ir", path), 0);
    ck_assert_int_eq(run_gtcc("--emit=ir -o dangling.ir good.stn"), 0);
    ck_assert_int_eq(lstat(path, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    got = read_file("new.ir");
    ck_assert_ptr_nonnull(got);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);

    snprintf(path, sizeof path, "%s/adir", tmpdir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert_int_eq(run_gtcc("-MD -MF adir -o x.c good.stn"), 2);
    char *err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "gtcc: error: cannot write 'adir': it is a directory"));
    free(err);
    ck_assert_int_eq(count_entries("."), 10);   /* no x.c, x.h or temporary: 7 + 3 above */

    /* A device that refuses the dependency rule (-MF /dev/full): the outputs are left
       as they were, not removed (before, they were renamed into place, then unlinked) */
    write_file("x.c", "old source\n");
    write_file("x.h", "old header\n");
    ck_assert_int_eq(run_gtcc("-MD -MF /dev/full -o x.c good.stn"), 2);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "gtcc: error: cannot write '/dev/full'"));
    free(err);
    got = read_file("x.c");
    ck_assert_str_eq(got, "old source\n");
    free(got);
    got = read_file("x.h");
    ck_assert_str_eq(got, "old header\n");
    free(got);
    ck_assert_int_eq(count_entries("."), 12);   /* x.c and x.h, no temporary */
    remove_tmpdir();
}
END_TEST

/* An output named after a descriptor (-MF /dev/stdout, /dev/fd/N) goes into that
 * descriptor, where a shell's redirection left it: appended to a file the shell wrote
 * before and after. Before, /dev/stdout led (through /proc/self/fd/1) to the regular file
 * behind it, which was replaced by the rule alone: the lines around it were lost. */
START_TEST(test_descriptor_outputs)
{
    make_tmpdir();
    write_file("good.stn", good);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "cd '%s' && { echo first; '%s' -MD -MF /dev/stdout -o out.c "
             "good.stn; echo rc=$?; } >log 2>err && { echo more; '%s' --emit=ir -M -MT t "
             "-MF /dev/fd/3 good.stn 3>&1 >/dev/null; } >>log", tmpdir, GTCC_BIN, GTCC_BIN);
    int rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    char *got = read_file("log");
    ck_assert_str_eq(got, "first\nout.c: good.stn\nrc=0\nmore\nt: good.stn\n");
    free(got);
    got = read_file("err");
    ck_assert_str_eq(got, "");
    free(got);
    /* a descriptor that is closed is no output: an I/O error, nothing made */
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' -MD -MF /dev/fd/7 -o new.c good.stn "
             "2>err7 7>&-", tmpdir, GTCC_BIN);
    rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
    got = read_file("err7");
    ck_assert_ptr_nonnull(strstr(got, "gtcc: error: cannot create '/dev/fd/7'"));
    free(got);
    ck_assert_ptr_null(read_file("new.c"));
    remove_tmpdir();
}
END_TEST

/* A signal that ends gtcc while it holds temporary files removes them (the files are
 * left as they were); a signal its caller ignores (nohup, `trap '' HUP`) stays ignored
 * and the compilation completes. Before, gtcc put its handler over the ignored SIGHUP
 * and died. gtcc waits here on the -MF FIFO, after its temporary out.ir exists. */
START_TEST(test_signals)
{
    make_tmpdir();
    write_file("good.stn", good);
    write_file("out.ir", "old\n");
    char path[512], cmd[1024];
    snprintf(path, sizeof path, "%s/fifo", tmpdir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    const char *run = "'%s' --emit=ir -MD -MF fifo -o out.ir good.stn & p=$!; sleep 1; "
                      "kill -HUP $p; timeout 10 cat fifo >got; wait $p";
    char fmt[512];
    snprintf(fmt, sizeof fmt, "cd '%%s' && { %s; }", run);
    snprintf(cmd, sizeof cmd, fmt, tmpdir, GTCC_BIN);
    int rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 128 + SIGHUP);
    char *got = read_file("out.ir");
    ck_assert_str_eq(got, "old\n");
    free(got);
    ck_assert_int_eq(count_entries("."), 4);   /* good.stn, out.ir, fifo, got */

    snprintf(fmt, sizeof fmt, "cd '%%s' && { trap '' HUP; %s; }", run);
    snprintf(cmd, sizeof cmd, fmt, tmpdir, GTCC_BIN);
    rc = system(cmd);
    ck_assert(WIFEXITED(rc) && WEXITSTATUS(rc) == 0);
    got = read_file("got");
    ck_assert_str_eq(got, "out.ir: good.stn\n");
    free(got);
    got = read_file("out.ir");
    ck_assert_str_ne(got, "old\n");
    free(got);
    ck_assert_int_eq(count_entries("."), 4);

    /* SIGPIPE on a dependency rule written into a pipe nobody reads: no temporary file
       left (before, out.c's and out.h's stayed) and the outputs unchanged */
    snprintf(cmd, sizeof cmd, "cd '%s' && { sleep 1; '%s' -MD -MF /dev/stdout -o out.c "
             "good.stn; } | true", tmpdir, GTCC_BIN);
    rc = system(cmd);
    ck_assert(WIFEXITED(rc));
    ck_assert_ptr_null(read_file("out.c"));
    ck_assert_int_eq(count_entries("."), 4);
    remove_tmpdir();
}
END_TEST

/* driver_write_files, the all-or-none commit of every output of an emission
 * (a backend's extra files, the header, the source): a writer that writes
 * every file, one that fails after writing, one that reports an error, and
 * paths that clash or cannot be made. */
typedef struct {
    int fail_at;              /* -1: write all; else stop (false) at this file */
    bool report;              /* report an error in the program instead */
} FakeWriter;

static bool fake_write(Compiler *c, FILE *const *files, void *ctx)
{
    const FakeWriter *w = ctx;
    for (int i = 0; i < 3; i++) {
        if (i == w->fail_at)
            return false;
        fprintf(files[i], "new %d\n", i);
    }
    if (w->report)
        diag_error(&c->diag, (Loc){0}, "a program error found while writing");
    return true;
}

START_TEST(test_write_files_all_or_none)
{
    make_tmpdir();
    char p[3][512];
    const char *paths[3] = {p[0], p[1], p[2]};
    const char *names[3] = {"x.f90", "x.h", "x.c"};
    for (int i = 0; i < 3; i++)
        snprintf(p[i], sizeof p[i], "%s/%s", tmpdir, names[i]);
    /* every file written */
    Ctx x;
    ctx_new(&x);
    FakeWriter all = {-1, false};
    ck_assert_int_eq(driver_write_files(x.c, paths, 3, fake_write, &all), 0);
    for (int i = 0; i < 3; i++) {
        char want[16], *got = read_file(names[i]);
        snprintf(want, sizeof want, "new %d\n", i);
        ck_assert_str_eq(got, want);
        free(got);
    }
    ck_assert_int_eq(count_entries("."), 3);
    ctx_done(&x);
    /* old contents survive a writer that fails (status 2) or reports an error (1) */
    for (int t = 0; t < 2; t++) {
        for (int i = 0; i < 3; i++)
            write_file(names[i], "old\n");
        ctx_new(&x);
        FakeWriter w = {t == 0 ? 2 : -1, t == 1};
        ck_assert_int_eq(driver_write_files(x.c, paths, 3, fake_write, &w), t == 0 ? 2 : 1);
        for (int i = 0; i < 3; i++) {
            char *got = read_file(names[i]);
            ck_assert_str_eq(got, "old\n");
            free(got);
        }
        ck_assert_int_eq(count_entries("."), 3);   /* no temporary left */
        ctx_done(&x);
    }
    /* two outputs of one name: refused before anything is made */
    ctx_new(&x);
    const char *twice[3] = {p[0], p[2], p[2]};
    ck_assert_int_eq(driver_write_files(x.c, twice, 3, fake_write, &all), 2);
    fflush(x.out);
    ck_assert_ptr_nonnull(strstr(x.diag, "two outputs would both be"));
    ctx_done(&x);
    /* a file that cannot be made (no such directory): nothing written */
    ctx_new(&x);
    char bad[512];
    snprintf(bad, sizeof bad, "%s/nodir/x.c", tmpdir);
    const char *some[3] = {p[0], p[1], bad};
    for (int i = 0; i < 2; i++)
        write_file(names[i], "old\n");
    ck_assert_int_eq(driver_write_files(x.c, some, 3, fake_write, &all), 2);
    for (int i = 0; i < 2; i++) {
        char *got = read_file(names[i]);
        ck_assert_str_eq(got, "old\n");
        free(got);
    }
    ck_assert_int_eq(count_entries("."), 3);
    ctx_done(&x);
    remove_tmpdir();
}
END_TEST

/* A stencil the fusion plan does not cover: a warning, and with -Werror an
 * error that leaves the old outputs as they were (the warning comes after
 * every check of the program, from fuse.c); the naive backend plans nothing
 * and says nothing. */
START_TEST(test_plan_warning)
{
    make_tmpdir();
    write_file("nf.stn", "stencil s(field<double> u, field<double> o) {\n"
                         "  double a = u;\n"
                         "  double b = 2.0 * u;\n"
                         "  if (u > 0.5) { a = u[i+1]; b = a - u; }\n"
                         "  o = a[i+1] + b[j-1];\n"
                         "}\n");
    write_file("out.c", "old source\n");
    write_file("out.h", "old header\n");
    ck_assert_int_eq(run_gtcc("-o new.c nf.stn"), 0);
    char *err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "nf.stn:4:3: warning: stencil 's' is not fused: "));
    free(err);
    ck_assert_int_eq(run_gtcc("-Werror -o out.c nf.stn"), 1);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "nf.stn:4:3: error: stencil 's' is not fused: "));
    ck_assert_ptr_nonnull(strstr(err, " [-Werror]\n"));
    free(err);
    char *c = read_file("out.c"), *h = read_file("out.h");
    ck_assert_str_eq(c, "old source\n");
    ck_assert_str_eq(h, "old header\n");
    free(c);
    free(h);
    ck_assert_int_eq(run_gtcc("-Werror -b naive -o out.c nf.stn"), 0);
    err = read_file("stderr");
    ck_assert_str_eq(err, "");
    free(err);
    remove_tmpdir();
}
END_TEST

START_TEST(test_import_errors)
{
    make_tmpdir();
    write_file("cyc/a.stn", "import \"b.stn\";\n");
    write_file("cyc/b.stn", "import \"c.stn\";\n");
    write_file("cyc/c.stn", "import \"a.stn\";\n");
    write_file("self.stn", "import \"self.stn\";\n");
    write_file("miss.stn", "import \"nowhere.stn\";\n");
    write_file("dir.stn", "import \"cyc\";\n");
    ck_assert_int_eq(run_gtcc("--emit=ir cyc/a.stn"), 1);
    char *err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "cyc/c.stn:1:8: error: import cycle: cyc/a.stn -> "
                                      "cyc/b.stn -> cyc/c.stn -> cyc/a.stn\n"));
    free(err);
    ck_assert_int_eq(run_gtcc("--emit=ir self.stn"), 1);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "self.stn:1:8: error: 'self.stn' imports itself\n"));
    free(err);
    ck_assert_int_eq(run_gtcc("--emit=ir -I cyc miss.stn"), 1);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "miss.stn:1:8: error: cannot find imported file "
                                      "'nowhere.stn' (looked for 'nowhere.stn', "
                                      "'cyc/nowhere.stn')\n"));
    free(err);
    ck_assert_int_eq(run_gtcc("--emit=ir dir.stn"), 1);
    err = read_file("stderr");
    ck_assert_ptr_nonnull(strstr(err, "dir.stn:1:8: error: cannot read imported file 'cyc': "
                                      "it is a directory\n"));
    free(err);
    remove_tmpdir();
}
END_TEST

Suite *suite_driver(void);
Suite *suite_driver(void)
{
    Suite *s = suite_create("driver");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, test_options_defaults);
    tcase_add_test(tc, test_options_all);
    tcase_add_loop_test(tc, test_options_errors, 0,
                        (int)(sizeof bad_options / sizeof bad_options[0]));
    suite_add_tcase(s, tc);
    tc = tcase_create("diagnostics");
    tcase_add_test(tc, test_diag_format);
    tcase_add_test(tc, test_diag_werror_and_w);
    tcase_add_test(tc, test_diag_limit_and_long_lines);
    suite_add_tcase(s, tc);
    tc = tcase_create("gtcc");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_imports_in_process);
    tcase_add_test(tc, test_exit_status);
    tcase_add_test(tc, test_byte_order_mark);
    tcase_add_test(tc, test_sibling_names);
    tcase_add_test(tc, test_system_header_names);
    tcase_add_test(tc, test_long_output_names);
    tcase_add_test(tc, test_meta_file_names);
    tcase_add_test(tc, test_unwritable_directory);
    tcase_add_test(tc, test_trigraph_names);
    tcase_add_test(tc, test_iterate_api_names);
    tcase_add_test(tc, test_iterate_keeps);
    tcase_add_test(tc, test_depfiles);
    tcase_add_test(tc, test_no_partial_output);
    tcase_add_test(tc, test_write_files_all_or_none);
    tcase_add_test(tc, test_special_outputs);
    tcase_add_test(tc, test_descriptor_outputs);
    tcase_add_test(tc, test_signals);
    tcase_add_test(tc, test_plan_warning);
    tcase_add_test(tc, test_import_errors);
    suite_add_tcase(s, tc);
    return s;
}

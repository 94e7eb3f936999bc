/* emit_names.c: C names for what a .stn program names, and for the locals
 * of the generated code.
 *
 * A .stn name keeps its spelling in C where it can (fields become parameters
 * and access macros of the same name); names that C or the generated code
 * reserve get a trailing '_' (emit_user_name), and generated locals are
 * chosen after the user's names so they never clash. */
#include <stdint.h>
#include <string.h>

#include "emit.h"

/* Names the generated code or the headers it includes use, beyond C keywords:
 * a user name equal to one of them gets a trailing '_'. */
static const char *const reserved_names[] = {
    /* C keywords, C11 to C23 */
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "alignas", "alignof", "bool",
    "constexpr", "false", "nullptr", "static_assert", "thread_local", "true", "typeof",
    "typeof_unqual", "asm", "main",
    /* C++ keywords and alternative tokens: the cuda backend's output is C++, and every
     * backend's header may be included from C++ */
    "and", "and_eq", "bitand", "bitor", "catch", "char8_t", "char16_t", "char32_t", "class",
    "compl", "concept", "consteval", "constinit", "const_cast", "co_await", "co_return",
    "co_yield", "decltype", "delete", "dynamic_cast", "explicit", "export", "friend",
    "mutable", "namespace", "new", "noexcept", "not", "not_eq", "operator", "or", "or_eq",
    "private", "protected", "public", "reinterpret_cast", "requires", "static_cast",
    "template", "this", "throw", "try", "typeid", "typename", "using", "virtual", "wchar_t",
    "xor", "xor_eq",
    /* <math.h>, <stdlib.h>: functions and macros the generated code may use */
    "abs", "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "sqrt", "sqrtf", "cbrt",
    "cbrtf", "exp", "expf", "log", "logf", "log10", "log10f", "pow", "powf", "sin", "sinf",
    "cos", "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2",
    "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf", "floor", "floorf", "ceil",
    "ceilf", "trunc", "truncf", "round", "roundf", "fmod", "fmodf", "isnan", "isinf",
    "isfinite", "isnormal", "signbit", "fpclassify", "isgreater", "isgreaterequal",
    "isless", "islessequal", "islessgreater", "isunordered", "math_errhandling",
    "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "HUGE_VALL", "NULL", "EOF", "errno",
    "assert", "offsetof", "free", "malloc", "calloc", "realloc", "exit",
    /* the rest of <math.h>, and C library functions compilers know as builtins: a stencil
     * (a global function) of one of these names would clash with its declaration */
    "acosh", "asinh", "atanh", "exp2", "expm1", "log1p", "log2", "logb", "ilogb", "scalbn",
    "scalbln", "ldexp", "frexp", "modf", "hypot", "erf", "erfc", "lgamma", "tgamma", "gamma",
    "nearbyint", "rint", "lrint", "llrint", "lround", "llround", "remainder", "remquo",
    "copysign", "nan", "nextafter", "nexttoward", "fdim", "fma", "j0", "j1", "jn", "y0", "y1",
    "yn", "printf", "fprintf", "sprintf", "snprintf", "vprintf", "puts", "putchar", "scanf",
    "strlen", "strcpy", "strncpy", "strcmp", "strncmp", "strcat", "strchr", "strdup",
    "memcpy", "memmove", "memset", "memcmp", "abort", "labs", "llabs", "div", "alloca",
    /* the preprocessor's operator: `#define defined(...)` is an error */
    "defined",
    /* macros GNU C compilers predefine outside strict ISO mode (gcc's and clang's default
     * -std=gnu11, g++'s, nvcc's host compiler): `linux` is 1 there, so a field named so
     * broke the header's prototype; and those glibc's <stdlib.h> defines there
     * (_DEFAULT_SOURCE: <endian.h>, <sys/select.h>, <sys/wait.h>): BIG_ENDIAN is 4321 */
    "linux", "unix", "i386", "BIG_ENDIAN", "LITTLE_ENDIAN", "PDP_ENDIAN", "BYTE_ORDER",
    "FD_CLR", "FD_ISSET", "FD_SET", "FD_SETSIZE", "FD_ZERO", "NFDBITS", "WCONTINUED",
    "WEXITED", "WEXITSTATUS", "WIFCONTINUED", "WIFEXITED", "WIFSIGNALED", "WIFSTOPPED",
    "WNOHANG", "WNOWAIT", "WSTOPPED", "WSTOPSIG", "WTERMSIG", "WUNTRACED", "be16toh",
    "be32toh", "be64toh", "htobe16", "htobe32", "htobe64", "htole16", "htole32", "htole64",
    "le16toh", "le32toh", "le64toh",
    /* the rest of <stdlib.h> (C11), and macros of <stdlib.h>, <math.h>, <stdint.h> */
    "atof", "atoi", "atol", "atoll", "strtod", "strtof", "strtold", "strtol", "strtoll",
    "strtoul", "strtoull", "rand", "rand_r", "srand", "aligned_alloc", "atexit",
    "at_quick_exit", "quick_exit", "getenv", "system", "bsearch", "qsort", "ldiv", "lldiv",
    "mblen", "mbtowc", "wctomb", "mbstowcs", "wcstombs", "EXIT_FAILURE", "EXIT_SUCCESS",
    "RAND_MAX", "MB_CUR_MAX", "MATH_ERRNO", "MATH_ERREXCEPT", "SIG_ATOMIC_MAX",
    "SIG_ATOMIC_MIN", "WCHAR_MAX", "WCHAR_MIN", "WINT_MAX", "WINT_MIN",
    /* CUDA's built-in variables and types (the cuda backend's kernels use them) */
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
};

/* Functions of the C library (ISO C's and POSIX's) that the generated code does not
 * declare: a stencil may have such a name, but a program that puts the stencil in a shared
 * library may then call the library's function instead (the dynamic linker finds the C
 * library's first: `stencil sync` through S_steps synced the disks and computed nothing),
 * so such a name is a warning (emit_libc_name). */
static const char *const libc_names[] = {
    /* ISO C: <stdio.h>, <string.h>, <time.h>, <signal.h>, <setjmp.h>, <ctype.h>,
     * <locale.h>, <wchar.h>, <threads.h> */
    "fopen", "freopen", "fclose", "fflush", "fread", "fwrite", "fgetc", "fgets", "fputc",
    "fputs", "getc", "getchar", "gets", "putc", "ungetc", "fscanf", "sscanf", "vfprintf",
    "vsprintf", "vsnprintf", "vscanf", "vsscanf", "vfscanf", "fseek", "ftell", "rewind",
    "fgetpos", "fsetpos", "clearerr", "feof", "ferror", "perror", "remove", "rename",
    "tmpfile", "tmpnam", "setbuf", "setvbuf", "strncat", "strrchr", "strstr", "strspn",
    "strcspn", "strpbrk", "strtok", "strerror", "strcoll", "strxfrm", "memchr", "time",
    "clock", "difftime", "mktime", "asctime", "ctime", "gmtime", "localtime", "strftime",
    "timespec_get", "signal", "raise", "setjmp", "longjmp", "isalnum", "isalpha",
    "isblank", "iscntrl", "isdigit", "isgraph", "islower", "isprint", "ispunct", "isspace",
    "isupper", "isxdigit", "tolower", "toupper", "setlocale", "localeconv", "call_once",
    "thrd_create", "thrd_exit", "thrd_join", "thrd_sleep", "thrd_yield", "mtx_init",
    "mtx_lock", "mtx_unlock", "cnd_wait", "cnd_signal",
    /* POSIX: <unistd.h>, <fcntl.h>, <sys/stat.h>, <sys/wait.h>, <sys/mman.h>,
     * <sys/socket.h>, <poll.h>, <dlfcn.h>, <strings.h>, <stdlib.h>'s extensions */
    "read", "write", "open", "close", "creat", "lseek", "pread", "pwrite", "sync", "fsync",
    "fdatasync", "sleep", "usleep", "nanosleep", "alarm", "pause", "fork", "vfork",
    "execl", "execle", "execlp", "execv", "execve", "execvp", "pipe", "dup", "dup2", "link",
    "unlink", "symlink", "readlink", "rmdir", "mkdir", "chdir", "getcwd", "access", "chmod",
    "chown", "truncate", "ftruncate", "getpid", "getppid", "getuid", "geteuid", "getgid",
    "kill", "wait", "waitpid", "select", "poll", "socket", "bind", "listen", "accept",
    "connect", "send", "recv", "sendto", "recvfrom", "shutdown", "mmap", "munmap",
    "mprotect", "msync", "stat", "fstat", "lstat", "isatty", "nice", "brk", "sbrk",
    "getopt", "sysconf", "umask", "times", "uname", "gethostname", "sigaction",
    "sigprocmask", "clock_gettime", "dlopen", "dlsym", "dlclose", "dlerror", "index",
    "rindex", "bcopy", "bzero", "random", "srandom", "setenv", "unsetenv", "putenv",
    "mkstemp", "realpath", "posix_memalign", "popen", "pclose", "fileno", "fdopen",
};

bool emit_libc_name(const char *name)
{
    for (size_t i = 0; i < sizeof libc_names / sizeof *libc_names; i++)
        if (strcmp(libc_names[i], name) == 0)
            return true;
    return false;
}

/* Prefixes of names that headers the generated code includes declare or
 * define: <omp.h> (GCC's and LLVM's, with its kmp_ extensions), CUDA's macros
 * (CUDA_VERSION, CUDART_...; its functions and types: cudaX, below). */
static const char *const reserved_prefixes[] = {
    "gt_", "GT_", "M_", "FP_", "omp_", "ompt_", "ompd_", "ompc_", "kmp_", "KMP_", "llvm_omp_",
    "CUDA",
};

static bool is_listed(const char *name)
{
    for (size_t i = 0; i < sizeof reserved_names / sizeof *reserved_names; i++)
        if (strcmp(reserved_names[i], name) == 0)
            return true;
    return false;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

bool emit_is_reserved(const char *name)
{
    if (is_listed(name))
        return true;
    for (size_t i = 0; i < sizeof reserved_prefixes / sizeof *reserved_prefixes; i++)
        if (strncmp(name, reserved_prefixes[i], strlen(reserved_prefixes[i])) == 0)
            return true;
    /* CUDA's runtime: cudaMalloc, cudaStream_t (not cuda_step) */
    if (strncmp(name, "cuda", 4) == 0 && name[4] >= 'A' && name[4] <= 'Z')
        return true;
    /* The float and long double forms of <math.h>'s functions: sinf, sinl. */
    size_t len = strlen(name);
    if (len > 1 && len < 32 && (name[len - 1] == 'f' || name[len - 1] == 'l')) {
        char base[32];
        memcpy(base, name, len - 1);
        base[len - 1] = '\0';
        if (is_listed(base))
            return true;
    }
    /* _x: the implementation's; x_t: POSIX types; INTn_MAX ...: macros of
     * <stdint.h>. */
    return name[0] == '_' || ends_with(name, "_t") ||
           ((strncmp(name, "INT", 3) == 0 || strncmp(name, "UINT", 4) == 0 ||
             strncmp(name, "SIZE_", 5) == 0 || strncmp(name, "PTRDIFF_", 8) == 0) &&
            (ends_with(name, "_MAX") || ends_with(name, "_MIN") || ends_with(name, "_C")));
}

static bool set_has(const NameSet *set, const char *name)
{
    for (; set; set = set->parent)
        if (set->taken && map_get(set->taken, name))
            return true;
    return false;
}

void emit_take(Arena *arena, NameSet *set, const char *name)
{
    if (set_has(set, name))
        return;
    if (!set->taken)
        set->taken = map_new(arena);
    map_put(set->taken, name, (void *)name);
    vec_push(arena, &set->list, name);
}

static IrWalk ij_index(void *ctx, const IrExpr *e)
{
    (void)ctx;
    return e->kind == IR_INDEX && e->index_axis != AXIS_K ? IR_WALK_STOP : IR_WALK_ON;
}

/* s reads index(i) or index(j), or has a region (whose bounds are the
 * place's). */
static IrWalk place_stmt(void *ctx, const IrStmt *s)
{
    (void)ctx;
    return area_any(&s->area) || !ir_walk_expr(ir_stmt_expr(s), ij_index, NULL) ? IR_WALK_STOP
                                                                                 : IR_WALK_ON;
}

/* Does the code of st need the place's bounds or origin (EmitStencil.placed):
 * boundary conditions along I or J, index(i), index(j), regions? */
static bool uses_place(const IrStencil *st)
{
    for (int f = 0; f < st->fields.len; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind == IR_PARAM_FIELD && fd->is_read &&
            (fd->bc[AXIS_I].kind != BC_NONE || fd->bc[AXIS_J].kind != BC_NONE))
            return true;
    }
    for (int c = 0; c < st->computations.len; c++) {
        const IrComputation *comp = st->computations.items[c];
        for (int i = 0; i < comp->intervals.len; i++)
            if (!ir_walk_stmts(&comp->intervals.items[i]->stmts, place_stmt, NULL))
                return true;
    }
    return false;
}

/* want, or want_2, want_3, ...: the first not in set; takes it. */
static const char *take_unique(Arena *arena, NameSet *set, const char *want)
{
    const char *name = want;
    if (set_has(set, name)) {
        /* names are never given back: want_2 .. want_N, once taken, stay so */
        intptr_t n = set->numbered ? (intptr_t)map_get(set->numbered, want) : 0;
        n = n < 2 ? 2 : n + 1;
        for (name = arena_printf(arena, "%s_%ld", want, (long)n); set_has(set, name); n++)
            name = arena_printf(arena, "%s_%ld", want, (long)n + 1);
        if (!set->numbered)
            set->numbered = map_new(arena);
        map_put(set->numbered, want, (void *)n);
    }
    emit_take(arena, set, name);
    return name;
}

const char *emit_unique(Arena *arena, NameSet *set, const char *want)
{
    /* A name made from a user's may be one that C or the runtime has: the
     * storage of a temporary `gt` would be `gt_storage`, the runtime's type. */
    if (emit_is_reserved(want))
        want = arena_printf(arena, "%s_", want);
    return take_unique(arena, set, want);
}

const char *emit_user_name(Arena *arena, NameSet *set, const char *stn_name)
{
    /* Appending '_' to reserved names and to names ending in '_' keeps the
     * mapping one-to-one. A leading '_' stays reserved whatever follows
     * (`#undef __STDC_X_` is an error for gcc): such a name gets the prefix
     * 'u' first; emit_unique numbers it if that clashes with a user's name. */
    const char *want = stn_name;
    if (want[0] == '_')
        want = arena_printf(arena, "u%s", want);
    if (emit_is_reserved(want) || ends_with(want, "_"))
        want = arena_printf(arena, "%s_", want);
    return take_unique(arena, set, want);
}

void emit_name_stencil(EmitStencil *es, Arena *arena, const NameSet *globals,
                       const IrStencil *st, const char *prefix)
{
    memset(es, 0, sizeof *es);
    es->st = st;
    es->arena = arena;
    es->names.parent = globals;
    es->fn = arena_printf(arena, "%s%s", prefix, st->name);
    es->info = arena_printf(arena, "%s%s_info", prefix, st->name);
    int nf = st->fields.len, ns = st->scalars.len;
    es->field = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->data = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->stride = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->storage = arena_alloc(arena, sizeof(char *) * (size_t)(nf + 1));
    es->scalar = arena_alloc(arena, sizeof(char *) * (size_t)(ns + 1));
    es->acc = arena_alloc(arena, sizeof(char *) * (size_t)(ns + 1));
    /* The user's names first, in parameter order, then temporaries. */
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (par->is_field)
            es->field[par->field->id] = emit_user_name(arena, &es->names, par->field->name);
        else
            es->scalar[par->scalar->id] =
                emit_user_name(arena, &es->names, par->scalar->name);
    }
    for (int f = 0; f < nf; f++) {
        const IrField *fd = st->fields.items[f];
        if (fd->kind == IR_PARAM_FIELD)
            es->nfield_params++;
        else
            es->field[f] = emit_user_name(arena, &es->names, fd->name);
    }
    es->domain = emit_unique(arena, &es->names, "domain");
    es->size = emit_unique(arena, &es->names, "n");
    es->ni = emit_unique(arena, &es->names, "ni");
    es->nj = emit_unique(arena, &es->names, "nj");
    es->nk = emit_unique(arena, &es->names, "nk");
    es->args = emit_unique(arena, &es->names, "args");
    es->offsets = emit_unique(arena, &es->names, "read_at_offset");
    es->bound = emit_unique(arena, &es->names, "bound");
    es->rc = emit_unique(arena, &es->names, "rc");
    es->bind = "gt__bind";
    es->place = emit_unique(arena, &es->names, "place");
    es->scalars = NULL;
    for (int s = 0; s < st->scalars.len && !es->scalars; s++)
        if (!st->scalars.items[s]->is_output)
            es->scalars = emit_unique(arena, &es->names, "scalar_args");
    es->placed = uses_place(st);
    static const char *const want[2][4] = {{"lo_i", "hi_i", "wrap_i", "origin_i"},
                                           {"lo_j", "hi_j", "wrap_j", "origin_j"}};
    for (int a = 0; a < 2; a++) {
        es->lo[a] = emit_unique(arena, &es->names, want[a][0]);
        es->hi[a] = emit_unique(arena, &es->names, want[a][1]);
        es->wrap[a] = emit_unique(arena, &es->names, want[a][2]);
        es->origin[a] = emit_unique(arena, &es->names, want[a][3]);
    }
    es->lo[AXIS_K] = "0";
    es->hi[AXIS_K] = es->nk;
    for (int f = 0; f < nf; f++) {
        const IrField *fd = st->fields.items[f];
        es->data[f] = emit_unique(arena, &es->names, arena_printf(arena, "%s_p", es->field[f]));
        es->stride[f] =
            emit_unique(arena, &es->names, arena_printf(arena, "%s_s", es->field[f]));
        if (fd->kind == IR_TEMP)
            es->storage[f] =
                emit_unique(arena, &es->names, arena_printf(arena, "%s_storage", es->field[f]));
    }
    for (int s = 0; s < ns; s++)
        if (st->scalars.items[s]->is_output)
            es->acc[s] = emit_unique(arena, &es->names,
                                     arena_printf(arena, "%s_value", es->scalar[s]));
}

bool emit_globals(Compiler *c, NameSet *globals)
{
    bool ok = true;
    NameMap *by_name = map_new(c->arena);
    const char *prefix = c->opts.prefix ? c->opts.prefix : "";
    for (int s = 0; s < c->ir->stencils.len; s++) {
        const IrStencil *st = c->ir->stencils.items[s];
        const char *fn = arena_printf(c->arena, "%s%s", prefix, st->name);
        if (emit_is_reserved(fn)) {
            if (*prefix)
                diag_error(&c->diag, st->loc,
                           "stencil name '%s' with -P prefix '%s' gives '%s', which is reserved "
                           "in the generated C code; choose another prefix", st->name, prefix,
                           fn);
            else
                diag_error(&c->diag, st->loc,
                           "stencil name '%s' is reserved in the generated C code; rename the "
                           "stencil", st->name);
            ok = false;
        } else if (emit_libc_name(fn)) {
            diag_warning(&c->diag, st->loc,
                         "stencil name '%s'%s%s%s is a function of the C library: a program "
                         "that puts the stencil in a shared library may call the library's "
                         "'%s' instead; rename the stencil%s", st->name,
                         *prefix ? " with -P prefix gives '" : "", *prefix ? fn : "",
                         *prefix ? "', which" : "", fn,
                         *prefix ? " or choose another prefix" : " or give gtcc -P PREFIX");
        }
        map_put(by_name, st->name, (void *)st);
        emit_take(c->arena, globals, fn);
    }
    /* S_info is the generated API's name (runtime.md): a stencil of that name
     * cannot be renamed away from it. */
    for (int s = 0; s < c->ir->stencils.len; s++) {
        const IrStencil *st = c->ir->stencils.items[s];
        const char *info = arena_printf(c->arena, "%s_info", st->name);
        const IrStencil *other = map_get(by_name, info);
        if (other) {
            diag_error(&c->diag, other->loc,
                       "stencil name '%s' is the name of the metadata object of stencil "
                       "'%s' (line %d) in the generated C code; rename one of them",
                       other->name, st->name, st->loc.line);
            ok = false;
        }
        emit_take(c->arena, globals, arena_printf(c->arena, "%s%s", prefix, info));
    }
    /* and, of a stencil with iterate (language.md 11), S_steps, S_steps_mpi (the header's
     * distributed steps under MPI) and S_info_f (S_info's address, for Fortran) */
    static const char *const iterate_names[3][2] = {
        {"_steps", "steps function"}, {"_steps_mpi", "distributed steps entry"},
        {"_info_f", "metadata function"}};
    for (int s = 0; s < c->ir->stencils.len; s++) {
        const IrStencil *st = c->ir->stencils.items[s];
        if (!st->pairs.len)
            continue;
        for (int k = 0; k < 3; k++) {
            const char *name = arena_printf(c->arena, "%s%s", st->name, iterate_names[k][0]);
            const IrStencil *other = map_get(by_name, name);
            if (other) {
                diag_error(&c->diag, other->loc,
                           "stencil name '%s' is the name of the %s of stencil '%s' (line %d) "
                           "in the generated C code; rename one of them", other->name,
                           iterate_names[k][1], st->name, st->loc.line);
                ok = false;
            }
            if (k != 1)   /* S_steps_mpi: only under MPI, like S_mpi */
                emit_take(c->arena, globals, arena_printf(c->arena, "%s%s", prefix, name));
        }
    }
    /* and so is S_mpi, the distributed entry the header declares under MPI (docs/mpi.md) */
    for (int s = 0; s < c->ir->stencils.len; s++) {
        const IrStencil *st = c->ir->stencils.items[s];
        const IrStencil *other = map_get(by_name, arena_printf(c->arena, "%s_mpi", st->name));
        if (other) {
            diag_error(&c->diag, other->loc,
                       "stencil name '%s' is the name of the distributed entry of stencil "
                       "'%s' (line %d) in the generated C code; rename one of them",
                       other->name, st->name, st->loc.line);
            ok = false;
        }
    }
    return ok;
}

EmitStencil **emit_name_stencils(Compiler *c, NameSet *globals)
{
    if (!emit_globals(c, globals))
        return NULL;
    int ns = c->ir->stencils.len;
    EmitStencil **stencils = arena_alloc(c->arena, sizeof *stencils * (size_t)(ns + 1));
    for (int s = 0; s < ns; s++) {
        const IrStencil *st = c->ir->stencils.items[s];
        stencils[s] = arena_alloc(c->arena, sizeof **stencils);
        emit_name_stencil(stencils[s], c->arena, globals, st,
                          c->opts.prefix ? c->opts.prefix : "");
    }
    /* Each field table is a static object used only at file scope: named
     * after every stencil's own names (which may shadow it), unlike any
     * stencil or S_info (`s_fields_2` if a stencil is named `s_fields`). */
    for (int s = 0; s < ns; s++)
        stencils[s]->table = emit_unique(
            c->arena, globals, arena_printf(c->arena, "%s_fields", c->ir->stencils.items[s]->name));
    /* S_steps (taken by emit_globals), and its statics: unlike any global and any name
     * of S (the parameters S_steps shares, which would shadow them there) */
    for (int s = 0; s < ns; s++) {
        EmitStencil *es = stencils[s];
        const IrStencil *st = es->st;
        if (!st->pairs.len)
            continue;
        const char *prefix = c->opts.prefix ? c->opts.prefix : "";
        es->steps = arena_printf(c->arena, "%s%s_steps", prefix, st->name);
        const char *want[4] = {"pairs", "step", "step_args", "tiles"};
        const char **name[4] = {&es->pairs, &es->step, &es->step_args, &es->tiles};
        for (int k = 0; k < 4; k++) {
            *name[k] = emit_unique(c->arena, &es->names,
                                   arena_printf(c->arena, "%s_%s", st->name, want[k]));
            emit_take(c->arena, globals, *name[k]);
        }
        es->nsteps = emit_unique(c->arena, &es->names, "nsteps");
        es->steps_scalars = emit_unique(c->arena, &es->names, "scalars");
        es->steps_fields = emit_unique(c->arena, &es->names, "fields");
    }
    return stencils;
}

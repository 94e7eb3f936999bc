/* emit_fortran.c: `gtcc --emit=fortran`, a Fortran module wrapping the stencils of the
 * program (docs/fortran.md): per stencil a bind(C) interface to the generated C function S
 * (and S_steps) and a wrapper subroutine taking ordinary Fortran arrays, which wraps each
 * one in a storage through the runtime's module gtrt (runtime/fortran/gtrt.f90: strides
 * from element addresses, halos from the caller), calls S and releases the storages.
 * Portable Fortran 2003 with iso_c_binding; the stencil's parameters, their axes, types and
 * intents are the ones --emit=meta describes (emit_meta.c). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"

#define FORTRAN_NAME_MAX 63   /* Fortran 2003: a name has at most 63 characters */
#define LINE_WIDTH 100        /* wrap lines before this column (free form allows 132) */
#define FREE_FORM_WIDTH 132   /* a free-form line's most characters */

/* The Fortran names of one stencil's wrappers. Fortran names are case-insensitive and
 * start with a letter: every name is written in lower case. */
typedef struct {
    const EmitStencil *es;
    const char *sub, *steps_sub;       /* the wrappers: S and S_steps (-P applied) */
    const char *iface, *steps_iface;   /* their bind(C) interfaces (private) */
    const char **param;                /* per parameter (st->params order): the dummy */
    const char **halo;                 /* per parameter: a field's <name>_halo, else NULL */
    const char *halo_all, *domain, *rc, *nsteps;
    const char *mpi_sub, *mpi_call;    /* S_mpi and its call back (NULL: no fields) */
    const char *mpi_halo_sub;          /* S_mpi_halo (NULL: no fields) */
    const char *decomp, *overlap, *times;   /* S_mpi's own dummies */
    /* with iterate: S_steps_mpi, its step call back, S_steps_mpi_halo, the interface of
       S_info_f, and S_steps_mpi's dummy tblock (NULL: no iterate) */
    const char *steps_mpi_sub, *steps_mpi_call, *steps_halo_sub, *info_iface, *tblock;
    int nfields;
} FStencil;

/* Names the module and its wrappers use besides the dummies (the intrinsics they call, the
 * names they import from iso_c_binding, gt_... locals and interfaces, gtrt's gtrt_...): a
 * dummy by one of them gets a '_' after it (a field named shape hid the intrinsic of
 * `gt_e(...) = shape(shape, c_int64_t)`), a stencil by one of them is an error. */
static bool fortran_reserved(const char *name)
{
    static const char *const names[] = {"present", "int", "shape", "c_bool", "c_double",
                                        "c_float", "c_int", "c_int32_t", "c_int64_t", "c_loc",
                                        "c_null_ptr", "c_ptr", "c_f_pointer", "c_funloc",
                                        "c_funptr"};
    if (strncmp(name, "gt_", 3) == 0 || strncmp(name, "gtrt", 4) == 0)
        return true;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static char *lower(Arena *arena, const char *s)
{
    char *t = arena_strdup(arena, s);
    for (char *p = t; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return t;
}

static bool taken(const NameSet *set, const char *name)
{
    return set->taken && map_get(set->taken, name);
}

/* want, or want_2, want_3, ...: the first not in set; takes it. (emit_unique would also
 * rename C's reserved names, which Fortran does not reserve.) */
static const char *unique(Arena *arena, NameSet *set, const char *want)
{
    const char *name = want;
    for (int n = 2; taken(set, name); n++)
        name = arena_printf(arena, "%s_%d", want, n);
    emit_take(arena, set, name);
    return name;
}

/* A dummy's name in set: the .stn name in lower case ('f' before a leading '_', '_' after
 * a reserved one), numbered when taken (`u` and `U` are one Fortran name). */
static const char *dummy_name(Arena *arena, NameSet *set, const char *stn_name)
{
    const char *want = lower(arena, stn_name);
    if (want[0] == '_')
        want = arena_printf(arena, "f%s", want);
    if (fortran_reserved(want))
        want = arena_printf(arena, "%s_", want);
    return unique(arena, set, want);
}

/* name (what it names) within Fortran's length; else an error at loc, hint after it. */
static bool check_length(Compiler *c, Loc loc, const char *what, const char *name,
                         const char *hint)
{
    if (strlen(name) <= FORTRAN_NAME_MAX)
        return true;
    diag_error(&c->diag, loc, "--emit=fortran: %s '%s' is longer than the %d characters of a "
               "Fortran name%s", what, name, FORTRAN_NAME_MAX, hint);
    return false;
}

const char *emit_fortran_module(Compiler *c)
{
    const char *base = path_base(c->opts.input);
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".stn") == 0)
        n -= 4;
    char *name = arena_printf(c->arena, "%s%.*s_gt", c->opts.prefix ? c->opts.prefix : "",
                              (int)n, base);
    for (char *p = name; *p; p++)
        *p = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '_';
    if (!isalpha((unsigned char)name[0]))
        name = arena_printf(c->arena, "f_%s", name);
    return name;
}

/* Whether a subroutine of the module cannot have name (lower case): not a Fortran name, or
   one the module uses; reshape too, the intrinsic S_mpi_halo calls, which a module procedure
   of its name would hide (dummies may have the name: no wrapper of theirs calls it). */
static bool bad_sub_name(const char *name)
{
    return !isalpha((unsigned char)name[0]) || fortran_reserved(name) ||
           strcmp(name, "reshape") == 0;
}

/* The wrappers' names; false after reporting a name Fortran cannot take. */
static bool name_stencils(Compiler *c, EmitStencil **stencils, FStencil *fs, const char *module)
{
    Arena *arena = c->arena;
    NameSet globals = {0};   /* module-level names, lower case */
    emit_take(arena, &globals, module);
    NameMap *owner = map_new(arena);   /* each module-level name: what it names, for errors */
    map_put(owner, module, arena_printf(arena, "the module (named after the input file)"));
    bool ok = true;
    if (strlen(module) > FORTRAN_NAME_MAX) {
        diag_error(&c->diag, (Loc){0}, "--emit=fortran: module name '%s' is longer than the %d "
                   "characters of a Fortran name; the module is named after the input file "
                   "(FILE_gt%s): shorten the file's name%s", module, FORTRAN_NAME_MAX,
                   c->opts.prefix ? ", after -P's prefix" : "",
                   c->opts.prefix ? " or the prefix" : "");
        ok = false;
    }
    /* S and S_steps first, every stencil's, then the optional wrappers: S_mpi and S_mpi_halo
       for a stencil with fields (a domain to split), S_steps_mpi and S_steps_mpi_halo with
       iterate. An optional one whose name is taken (by a stencil: `a` and `a_mpi_halo`) or
       too long is left out, with a warning. */
    int ns = c->ir->stencils.len;
    for (int s = 0; s < ns; s++) {
        const EmitStencil *es = stencils[s];
        FStencil *f = &fs[s];
        f->es = es;
        f->nfields = es->nfield_params;
    }
    for (int pass = 0; pass < 2; pass++)
        for (int s = 0; s < ns; s++) {
            const EmitStencil *es = fs[s].es;
            const IrStencil *st = es->st;
            FStencil *f = &fs[s];
            const char *subs[6] = {es->fn, es->steps,
                                   f->nfields ? arena_printf(arena, "%s_mpi", es->fn) : NULL,
                                   f->nfields ? arena_printf(arena, "%s_mpi_halo", es->fn)
                                              : NULL,
                                   es->steps ? arena_printf(arena, "%s_mpi", es->steps) : NULL,
                                   es->steps ? arena_printf(arena, "%s_mpi_halo", es->steps)
                                             : NULL};
            const char **out[6] = {&f->sub, &f->steps_sub, &f->mpi_sub, &f->mpi_halo_sub,
                                   &f->steps_mpi_sub, &f->steps_halo_sub};
            for (int k = pass ? 2 : 0; k < (pass ? 6 : 2); k++) {
                *out[k] = NULL;
                if (!subs[k])
                    continue;
                const char *name = lower(arena, subs[k]);
                if (pass && (strlen(name) > FORTRAN_NAME_MAX || taken(&globals, name))) {
                    if (ok)   /* after an error in the names, no module: nothing it lacks */
                        diag_warning(&c->diag, st->loc, "--emit=fortran: the module has no "
                                     "'%s' (%s); rename the stencil to have it", name,
                                     taken(&globals, name)
                                         ? "a stencil or another wrapper has that Fortran name"
                                         : "longer than the 63 characters of a Fortran name");
                    continue;
                }
                if (bad_sub_name(name)) {
                    /* once, for S: S_steps, S_mpi, ... are bad because S is (no name the
                       module keeps ends in _steps, _mpi or _mpi_halo) */
                    if (k == 0 || !bad_sub_name(lower(arena, es->fn)))
                        diag_error(&c->diag, st->loc, "--emit=fortran: '%s' cannot name a "
                                   "Fortran subroutine (a name starts with a letter; gt_..., "
                                   "gtrt..., the iso_c_binding names it imports and the "
                                   "intrinsics it calls are the module's)", subs[k]);
                    ok = false;
                } else if (strcmp(unique(arena, &globals, name), name) != 0) {
                    diag_error(&c->diag, st->loc, "--emit=fortran: '%s'%s is the Fortran name "
                               "of %s (Fortran names are case-insensitive); rename one of them",
                               subs[k], k ? " (its steps wrapper)" : "",
                               (const char *)map_get(owner, name));
                    ok = false;
                } else {
                    map_put(owner, name, k == 0 ? arena_printf(arena, "stencil '%s' (line %d)",
                                                               st->name, st->loc.line)
                                       : arena_printf(arena, "the %s wrapper of stencil '%s' "
                                                      "(line %d)", subs[k] + strlen(es->fn) + 1,
                                                      st->name, st->loc.line));
                }
                ok = check_length(c, st->loc, "stencil function", name, "") && ok;
                *out[k] = name;
            }
        }
    for (int s = 0; s < ns; s++) {
        const EmitStencil *es = fs[s].es;
        const IrStencil *st = es->st;
        FStencil *f = &fs[s];
        f->iface = arena_printf(arena, "gt_c%d", s + 1);
        f->steps_iface = arena_printf(arena, "gt_c%d_steps", s + 1);
        f->mpi_call = f->mpi_sub ? arena_printf(arena, "gt_c%d_mpi", s + 1) : NULL;
        f->steps_mpi_call = f->steps_mpi_sub ? arena_printf(arena, "gt_c%d_steps_mpi", s + 1)
                                             : NULL;
        /* S_info_f: for S_steps_mpi and S_steps_mpi_halo */
        f->info_iface = f->steps_mpi_sub || f->steps_halo_sub
                            ? arena_printf(arena, "gt_c%d_info", s + 1) : NULL;

        NameSet names = {0};
        emit_take(arena, &names, f->sub);
        if (f->steps_sub)
            emit_take(arena, &names, f->steps_sub);
        const char *const own[4] = {f->mpi_sub, f->mpi_halo_sub, f->steps_mpi_sub,
                                    f->steps_halo_sub};
        for (int k = 0; k < 4; k++)
            if (own[k])
                emit_take(arena, &names, own[k]);
        int np = st->params.len;
        f->param = arena_alloc(arena, sizeof *f->param * (size_t)(np + 1));
        f->halo = arena_alloc(arena, sizeof *f->halo * (size_t)(np + 1));
        for (int p = 0; p < np; p++) {
            const IrParam *par = &st->params.items[p];
            f->param[p] = dummy_name(arena, &names,
                                     par->is_field ? par->field->name : par->scalar->name);
        }
        f->halo_all = unique(arena, &names, "halo");
        f->nsteps = unique(arena, &names, "nsteps");
        f->domain = unique(arena, &names, "domain");
        f->rc = unique(arena, &names, "rc");
        for (int p = 0; p < np; p++) {
            const IrParam *par = &st->params.items[p];
            f->halo[p] = par->is_field ? unique(arena, &names,
                                                     arena_printf(arena, "%s_halo",
                                                                  f->param[p]))
                                       : NULL;
            /* at the parameter's declaration, not the stencil's, saying how short */
            const char *arg = f->halo[p] ? f->halo[p] : f->param[p];
            const char *stn = par->is_field ? par->field->name : par->scalar->name;
            size_t len = strlen(arg), over = len > FORTRAN_NAME_MAX ? len - FORTRAN_NAME_MAX : 0;
            const char *hint = arena_printf(arena, "; shorten %s '%s' to at most %zu characters",
                                            par->is_field ? "field" : "scalar", stn,
                                            strlen(stn) > over ? strlen(stn) - over : (size_t)1);
            ok = check_length(c, par->is_field ? par->field->loc : par->scalar->loc, "argument",
                              arg, hint) && ok;
        }
        f->decomp = unique(arena, &names, "decomp");
        f->overlap = unique(arena, &names, "overlap");
        f->times = unique(arena, &names, "times");
        f->tblock = es->steps ? unique(arena, &names, "tblock") : NULL;
    }
    return ok;
}

/* ------------------------------------------------------------------ text */

/* A statement written item by item, continued with '&' before LINE_WIDTH. */
typedef struct {
    FILE *f;
    int col, margin;            /* the statement's first column */
    bool comment;             /* a comment: continued on a `!` line, without '&' */
} FLine;

static void fl_start(FLine *l, FILE *f, int indent, const char *head)
{
    l->f = f;
    l->margin = indent;
    l->comment = head[0] == '!';
    l->col = fprintf(f, "%*s%s", indent, "", head);
}

/* sep before item (none for the first item of a list: sep ""). A line is continued before
   an item with a separator that would pass LINE_WIDTH, and before one without (a name after
   `subroutine `, the first dummy after `(`: items are whole tokens) that would pass the 132
   columns of free form with the ", &" a next item may add, as long names do (a stencil and
   its first field of 60 characters). */
static void fl_item(FLine *l, const char *sep, const char *item)
{
    int n = (int)(strlen(sep) + strlen(item));
    if (l->col + n + (*sep ? 2 : 3) > (*sep ? LINE_WIDTH : FREE_FORM_WIDTH)) {
        fprintf(l->f, "%s%s\n", sep[0] == ',' ? "," : "", l->comment ? "" : " &");
        while (*sep == ',' || *sep == ' ')   /* the separator's rest starts the new line */
            sep++;
        l->col = fprintf(l->f, "%*s%s%*s%s", l->margin, "", l->comment ? "!" : "",
                         l->comment ? 7 : 8, "", sep);
    } else {
        l->col += fprintf(l->f, "%s", sep);
    }
    l->col += fprintf(l->f, "%s", item);
}

static void fl_end(FLine *l, const char *tail)
{
    fprintf(l->f, "%s\n", tail);
}

/* The character literal of text, after sep: in pieces of at most 60 characters joined by
   `//`, each an item, so that a text that grows with the fields (gtrt_check_fit's axes,
   'IJK IJK ...') is continued, where one literal passed the 132 columns of free form from
   30 fields on. */
static void fl_string(FLine *l, Arena *arena, const char *sep, const char *text)
{
    size_t n = strlen(text);
    size_t at = 0;
    do {
        int len = n - at > 60 ? 60 : (int)(n - at);
        fl_item(l, at ? " // " : sep, arena_printf(arena, "'%.*s'", len, text + at));
        at += (size_t)len;
    } while (at < n);
}

/* The comment text at column indent + 1, "! " before each of its lines: as it is where every
   line fits in the 132 columns of free form (as with short names), else the whole text
   refilled at its spaces and newlines, each further line "!" and hang spaces; the first
   line keeps the text's leading spaces. A word longer than a line is split (none is: names
   have at most 63 characters, and the module's 63 bound the file's). */
static void write_comment_text(FILE *f, int indent, int hang, const char *text)
{
    bool fits = true;
    for (const char *s = text; *s && fits; s += *s == '\n') {
        size_t n = strcspn(s, "\n");
        fits = indent + 2 + (int)n <= FREE_FORM_WIDTH;
        s += n;
    }
    if (fits) {
        for (const char *s = text; *s; s += *s == '\n') {
            int n = (int)strcspn(s, "\n");
            fprintf(f, "%*s! %.*s\n", indent, "", n, s);
            s += n;
        }
        return;
    }
    int lead = (int)strspn(text, " ");
    int col = fprintf(f, "%*s! %.*s", indent, "", lead, text);
    bool first = true;   /* no word yet on this line */
    for (const char *s = text + lead; *(s += strspn(s, " \n"));) {
        int n = (int)strcspn(s, " \n");
        if (!first && col + 1 + n > FREE_FORM_WIDTH) {
            col = fprintf(f, "\n%*s!%*s", indent, "", hang, "") - 1;
            first = true;
        }
        while (col + n > FREE_FORM_WIDTH) {   /* first on its line, and still too long */
            int k = FREE_FORM_WIDTH - col;
            fprintf(f, "%.*s\n", k, s);
            col = fprintf(f, "%*s!%*s", indent, "", hang, "");
            s += k, n -= k;
        }
        col += fprintf(f, "%s%.*s", first ? "" : " ", n, s);
        first = false;
        s += n;
    }
    fputc('\n', f);
}

static const char *kind_of(Type t)
{
    switch (t) {
    case TY_DOUBLE: return "c_double";
    case TY_FLOAT: return "c_float";
    case TY_INT: return "c_int32_t";
    case TY_BOOL: return "c_bool";
    default: break;
    }
    unreachable();
}

static const char *type_of(Arena *arena, Type t)
{
    const char *k = kind_of(t);
    return arena_printf(arena, "%s(%s)", t == TY_DOUBLE || t == TY_FLOAT ? "real"
                                         : t == TY_INT ? "integer" : "logical", k);
}

static int rank_of(unsigned axes)
{
    return (axes & 1u) + ((axes >> 1) & 1u) + ((axes >> 2) & 1u);
}

static const char *shape_of(unsigned axes)
{
    static const char *const s[4] = {"", "(:)", "(:, :)", "(:, :, :)"};
    return s[rank_of(axes)];
}

/* The bind(C) interface of S (steps: S_steps). */
static void write_interface(Compiler *c, FILE *f, const FStencil *fs, bool steps)
{
    const IrStencil *st = fs->es->st;
    const char *name = steps ? fs->steps_iface : fs->iface;
    FLine l;
    fl_start(&l, f, 8, "! int ");
    fl_item(&l, "", steps ? fs->es->steps : fs->es->fn);
    fl_item(&l, "", "(");
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        const char *cty = par->is_field ? "gt_storage *" : emit_c_type(par->scalar->type);
        bool ptr = !par->is_field && par->scalar->is_output;
        const char *cname = par->is_field ? fs->es->field[par->field->id]
                                          : fs->es->scalar[par->scalar->id];
        fl_item(&l, p ? ", " : "", arena_printf(c->arena, "%s%s%s", cty,
                                                 par->is_field ? "" : ptr ? " *" : " ", cname));
    }
    if (steps)
        fl_item(&l, st->params.len ? ", " : "", "int64_t nsteps");
    fl_item(&l, st->params.len || steps ? ", " : "", "const gt_domain *domain)");
    fl_end(&l, "");

    fl_start(&l, f, 8, "function ");
    fl_item(&l, "", name);
    fl_item(&l, "", "(");
    for (int p = 0; p < st->params.len; p++)
        fl_item(&l, p ? ", " : "", fs->param[p]);
    if (steps)
        fl_item(&l, st->params.len ? ", " : "", fs->nsteps);
    fl_item(&l, st->params.len || steps ? ", " : "", fs->domain);
    fl_item(&l, "", arena_printf(c->arena, ") result(%s)", fs->rc));
    fl_item(&l, " ", arena_printf(c->arena, "bind(C, name=\"%s\")",
                                 steps ? fs->es->steps : fs->es->fn));
    fl_end(&l, "");
    /* the kinds it needs */
    bool kinds[TY_DOUBLE + 1] = {0};
    for (int p = 0; p < st->params.len; p++)
        if (!st->params.items[p].is_field)
            kinds[st->params.items[p].scalar->type] = true;
    fl_start(&l, f, 12, "import :: c_ptr, c_int");
    if (steps)
        fl_item(&l, ", ", "c_int64_t");
    static const Type order[] = {TY_BOOL, TY_DOUBLE, TY_FLOAT, TY_INT};
    for (size_t k = 0; k < sizeof order / sizeof *order; k++)
        if (kinds[order[k]])
            fl_item(&l, ", ", kind_of(order[k]));
    fl_end(&l, "");
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (par->is_field)
            fprintf(f, "            type(c_ptr), value :: %s\n", fs->param[p]);
        else
            fprintf(f, "            %s, %s :: %s\n", type_of(c->arena, par->scalar->type),
                    par->scalar->is_output ? "intent(out)" : "value", fs->param[p]);
    }
    if (steps)
        fprintf(f, "            integer(c_int64_t), value :: %s\n", fs->nsteps);
    fprintf(f, "            type(c_ptr), value :: %s\n", fs->domain);
    fprintf(f, "            integer(c_int) :: %s\n", fs->rc);
    fprintf(f, "        end function %s\n", name);
}

/* The comment before a wrapper: its parameters as the C header lists them. */
static void write_comment(Compiler *c, FILE *f, const FStencil *fs)
{
    const IrStencil *st = fs->es->st;
    Arena *arena = c->arena;
    write_comment_text(f, 4, 7, arena_printf(arena, "%s:%d: stencil %s",
                                             st->loc.file ? path_base(st->loc.file) : "",
                                             st->loc.line, st->name));
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (!par->is_field) {
            write_comment_text(f, 4, 7, arena_printf(arena, "  %-10s %s scalar, %s",
                                                     fs->param[p],
                                                     type_of(arena, par->scalar->type),
                                                     par->scalar->is_output ? "out" : "in"));
            continue;
        }
        const IrField *fd = par->field;
        const char *text = arena_printf(arena, "  %-10s %s, %s, rank %d, %s", fs->param[p],
                                        type_of(arena, fd->type), emit_axes_text(fd->axes),
                                        rank_of(fd->axes), emit_field_intent(fd));
        bool any = false;
        for (int a = 0; a < NAXES; a++)
            if ((fd->axes & (1u << a)) && (fd->halo[a][0] || fd->halo[a][1])) {
                text = arena_printf(arena, "%s%s %c[%lld, %lld]", text, any ? "" : ", halo",
                                    'i' + a, (long long)fd->halo[a][0],
                                    (long long)fd->halo[a][1]);
                any = true;
            }
        write_comment_text(f, 4, 7, arena_printf(arena, "%s%s", text,
                                                 any ? "" : ", halo none"));
    }
}

/* A wrapper's optional halo dummies: halo and NAME_halo per field, (2, 3) each; assumed
   shape, checked by write_checks (an explicit halo(2, 3) read past a smaller actual's end). */
static void write_halo_decl(Compiler *c, FILE *f, const FStencil *fs)
{
    FLine l;
    fl_start(&l, f, 8, "integer, intent(in), optional :: ");
    fl_item(&l, "", arena_printf(c->arena, "%s(:, :)", fs->halo_all));
    for (int p = 0; p < fs->es->st->params.len; p++)
        if (fs->halo[p])
            fl_item(&l, ", ", arena_printf(c->arena, "%s(:, :)", fs->halo[p]));
    fl_end(&l, "");
}

/* `if (present(dummy)) call check(gt_rc, 'S', 'dummy', dummy)`: a wrapper's check of the
   shape of an optional dummy, made only where it is present (an absent assumed-shape
   array passed on: see write_wraps). */
static void write_check(Compiler *c, FILE *f, const FStencil *fs, const char *check,
                        const char *dummy)
{
    FLine l;
    fl_start(&l, f, 8, arena_printf(c->arena, "if (present(%s)) call %s(gt_rc, ", dummy, check));
    fl_item(&l, "", arena_printf(c->arena, "'%s'", fs->es->st->name));
    fl_item(&l, ", ", arena_printf(c->arena, "'%s'", dummy));
    fl_item(&l, ", ", arena_printf(c->arena, "%s)", dummy));
    fl_end(&l, "");
}

/* A wrapper's checks of the shapes of its halo dummies (halo_all: halo too, which S_mpi_halo
   and S_steps_mpi_halo lack) and (domain) of its domain, each GT_EINVAL naming the dummy
   where gt_rc is 0 (gtrt_check_halo, gtrt_check_domain). */
static void write_checks(Compiler *c, FILE *f, const FStencil *fs, bool halo_all, bool domain)
{
    const IrStencil *st = fs->es->st;
    for (int p = halo_all ? -1 : 0; p < st->params.len; p++) {
        const char *name = p < 0 ? fs->halo_all : fs->halo[p];
        if (name && fs->nfields)
            write_check(c, f, fs, "gtrt_check_halo", name);
    }
    if (domain)
        write_check(c, f, fs, "gtrt_check_domain", fs->domain);
}

/* A wrapper's fields, each wrapped into gt_s(n) while gt_rc is 0, its halo in gt_h(:, :, n)
   first (gtrt_field_halo of halo, then of NAME_halo, each only where present: an absent
   assumed-shape array passed on made gfortran -fsanitize=undefined report a member access
   within null, or an overflow of the garbage bounds of its descriptor). With fit (S and
   S_steps), which dummy gave the halo in gt_w(n), the extents in gt_e(:, n), and before the
   wraps gtrt_check_fit: whether the arrays fit the call, in the caller's Fortran terms (the
   C call checks the same, in C's); steps: also in the roles of the steps after the first. */
static void write_wraps(Compiler *c, FILE *f, const FStencil *fs, bool fit, bool steps)
{
    const IrStencil *st = fs->es->st;
    FLine l;
    fprintf(f, "        gt_h = 0\n");
    if (fit)
        fprintf(f, "        gt_w = 0\n        gt_e = 0\n");
    for (int p = 0, n = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (!par->is_field)
            continue;
        n++;
        const char *halos[2] = {fs->halo_all, fs->halo[p]};
        for (int h = 0; h < 2; h++) {
            fl_start(&l, f, 8, arena_printf(c->arena, "if (present(%s)) ", halos[h]));
            fl_item(&l, "", arena_printf(c->arena, "call gtrt_field_halo(gt_h(:, :, %d), %s", n,
                                         halos[h]));
            if (fit)
                fl_item(&l, ", ", arena_printf(c->arena, "gt_w(%d), %d)", n, h + 1));
            else
                fl_item(&l, "", ")");
            fl_end(&l, "");
        }
        if (fit)
            fprintf(f, "        gt_e(1:%d, %d) = shape(%s, c_int64_t)\n", rank_of(par->field->axes),
                    n, fs->param[p]);
    }
    if (fit) {
        fl_start(&l, f, 8, "if (gt_rc == 0) call gtrt_check_fit(gt_rc, ");
        fl_item(&l, "", arena_printf(c->arena, "'%s'", st->name));
        const char *sep = ", ";
        for (int p = 0; p < st->params.len; p++)
            if (st->params.items[p].is_field)
                fl_item(&l, sep, arena_printf(c->arena, "'%s%s'", sep[0] == ',' ? "" : " ",
                                              fs->param[p])), sep = " // ";
        fl_item(&l, ", ", arena_printf(c->arena, "'%s'", fs->halo_all));
        for (int p = 0; p < st->params.len; p++)
            if (fs->halo[p])
                fl_item(&l, " // ", arena_printf(c->arena, "' %s'", fs->halo[p]));
        const char *axes = "", *outs = "";
        for (int p = 0; p < st->params.len; p++) {
            const IrParam *par = &st->params.items[p];
            if (!par->is_field)
                continue;
            axes = arena_printf(c->arena, "%s%s%s", axes, *axes ? " " : "",
                                emit_axes_text(par->field->axes));
            outs = arena_printf(c->arena, "%s%c", outs, par->field->is_written ? 'o' : 'i');
        }
        fl_string(&l, c->arena, ", ", axes);
        fl_string(&l, c->arena, ", ", outs);
        fl_item(&l, ", ", "gt_e");
        fl_item(&l, ", ", "gt_h");
        fl_item(&l, ", ", "gt_w");
        sep = ", [";
        for (int p = 0; p < st->params.len; p++) {
            const IrParam *par = &st->params.items[p];
            if (!par->is_field)
                continue;
            for (int a = 0; a < 3; a++)
                for (int side = 0; side < 2; side++) {
                    long long v = (par->field->axes & (1u << a)) ? par->field->halo[a][side] : 0;
                    fl_item(&l, sep, arena_printf(c->arena, "%lld", v));
                    sep = ", ";
                }
        }
        fl_item(&l, "", "]");   /* need(2, 3, *): no reshape, which a dummy may hide */
        /* perm: the field whose array plays field n's role from the second step on */
        sep = ", [";
        for (int p = 0, n = 0; p < st->params.len; p++) {
            const IrParam *par = &st->params.items[p];
            if (!par->is_field)
                continue;
            n++;
            int to = n;
            for (int x = 0; steps && x < st->pairs.len; x++) {
                const IrField *other = st->pairs.items[x].next == par->field
                                           ? st->pairs.items[x].cur
                                           : st->pairs.items[x].cur == par->field
                                                 ? st->pairs.items[x].next
                                                 : NULL;
                for (int q = 0, m = 0; other && q < st->params.len; q++)
                    if (st->params.items[q].is_field && (m++, st->params.items[q].field == other))
                        to = m;
            }
            fl_item(&l, sep, arena_printf(c->arena, "%d", to));
            sep = ", ";
        }
        fl_item(&l, "", "]");
        fl_item(&l, ", ", steps ? arena_printf(c->arena, "%s >= 2", fs->nsteps) : ".false.");
        fl_item(&l, ", ", arena_printf(c->arena, "'%s'", fs->domain));
        fl_item(&l, ", ", arena_printf(c->arena, "present(%s)", fs->domain));
        fl_item(&l, ", ", "gt_dom)");
        fl_end(&l, "");
    }
    for (int p = 0, n = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (!par->is_field)
            continue;
        n++;
        fl_start(&l, f, 8, "if (gt_rc == 0) gt_rc = gtrt_wrap(");
        fl_item(&l, "", fs->param[p]);
        fl_item(&l, ", ", arena_printf(c->arena, "'%s'", emit_axes_text(par->field->axes)));
        fl_item(&l, ", ", arena_printf(c->arena, "gt_h(:, :, %d)", n));
        fl_item(&l, ", ", arena_printf(c->arena, "'%s'", st->name));
        fl_item(&l, ", ", arena_printf(c->arena, "'%s'", fit ? fs->param[p] : par->field->name));
        fl_item(&l, ", ", arena_printf(c->arena, "gt_s(%d))", n));
        fl_end(&l, "");
    }
}

/* The wrapper S (steps: S_steps): wrap, call, release, report. */

/* Whether fd is a field of one of st's iterate pairs: S_steps writes both (the result in
   cur), so the steps wrapper's dummy is intent(inout) even where one step only reads it. */
static bool in_pair(const IrStencil *st, const IrField *fd)
{
    for (int x = 0; x < st->pairs.len; x++)
        if (st->pairs.items[x].next == fd || st->pairs.items[x].cur == fd)
            return true;
    return false;
}
/* Which wrapper declares the stencil's parameters: S, S_steps or S_mpi. */
typedef enum { WRAP_CALL, WRAP_STEPS, WRAP_MPI } WrapKind;

/* The stencil's parameters as a wrapper's dummies. A field is intent(inout) where the
   wrapper writes it: an output; for S_steps a field of a pair too (the result in cur); for
   S_mpi every field (the exchange writes the halos of inputs). */
static void write_param_decls(Compiler *c, FILE *f, const FStencil *fs, WrapKind kind)
{
    const IrStencil *st = fs->es->st;
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (par->is_field) {
            bool inout = kind == WRAP_MPI || par->field->is_written ||
                         (kind == WRAP_STEPS && in_pair(st, par->field));
            fprintf(f, "        %s, intent(%s), target :: %s%s\n",
                    type_of(c->arena, par->field->type), inout ? "inout" : "in",
                    fs->param[p], shape_of(par->field->axes));
        } else {
            fprintf(f, "        %s, intent(%s) :: %s\n", type_of(c->arena, par->scalar->type),
                    par->scalar->is_output ? "out" : "in", fs->param[p]);
        }
    }
}

/* Every procedure the module defines is `recursive` (as gtrt's are): its locals (gt_s,
   gt_dom, ...) are then per call whatever the flags it is compiled with, so that OpenMP
   threads may call a wrapper at once (docs/fortran.md, "Threads"); without it a compiler may
   keep local arrays in static memory unless told -fopenmp, and gfortran's -fcheck=recursion
   stops the second concurrent call. */
static void write_wrapper(Compiler *c, FILE *f, const FStencil *fs, bool steps)
{
    const IrStencil *st = fs->es->st;
    const char *name = steps ? fs->steps_sub : fs->sub;
    int np = st->params.len;
    FLine l;
    fl_start(&l, f, 4, "recursive subroutine ");
    fl_item(&l, "", name);
    fl_item(&l, "", "(");
    const char *sep = "";
    for (int p = 0; p < np; p++, sep = ", ")
        fl_item(&l, sep, fs->param[p]);
    if (steps)
        fl_item(&l, sep, fs->nsteps), sep = ", ";
    if (fs->nfields) {
        fl_item(&l, sep, fs->halo_all), sep = ", ";
        for (int p = 0; p < np; p++)
            if (fs->halo[p])
                fl_item(&l, sep, fs->halo[p]);
    }
    fl_item(&l, sep, fs->domain);
    fl_item(&l, ", ", fs->rc);
    fl_end(&l, ")");
    write_param_decls(c, f, fs, steps ? WRAP_STEPS : WRAP_CALL);
    if (steps)
        fprintf(f, "        integer, intent(in) :: %s\n", fs->nsteps);
    if (fs->nfields)
        write_halo_decl(c, f, fs);
    fprintf(f, "        integer, intent(in), optional :: %s(:)\n", fs->domain);
    fprintf(f, "        integer, intent(out), optional :: %s\n", fs->rc);
    if (fs->nfields)
        fprintf(f, "        type(c_ptr) :: gt_s(%d)\n", fs->nfields);
    if (fs->nfields) {
        fprintf(f, "        integer(c_int64_t) :: gt_h(2, 3, %d), gt_e(3, %d)\n", fs->nfields,
                fs->nfields);
        fprintf(f, "        integer :: gt_w(%d)\n", fs->nfields);
    }
    fprintf(f, "        type(c_ptr) :: gt_d\n");
    fprintf(f, "        integer(c_int64_t), target :: gt_dom(3)\n");
    fprintf(f, "        integer(c_int) :: gt_rc\n\n");
    if (fs->nfields)
        fprintf(f, "        gt_s = c_null_ptr\n");
    fprintf(f, "        gt_d = c_null_ptr\n");
    fprintf(f, "        gt_dom = 0\n");
    fprintf(f, "        gt_rc = 0\n");
    write_checks(c, f, fs, true, true);
    fprintf(f, "        if (gt_rc == 0 .and. present(%s)) then\n", fs->domain);
    fprintf(f, "            gt_dom = int(%s, c_int64_t)\n", fs->domain);
    fprintf(f, "            gt_d = c_loc(gt_dom)\n");
    fprintf(f, "        end if\n");
    if (fs->nfields)
        write_wraps(c, f, fs, true, steps);
    fl_start(&l, f, 8, "if (gt_rc == 0) gt_rc = ");
    fl_item(&l, "", steps ? fs->steps_iface : fs->iface);
    fl_item(&l, "", "(");
    sep = "";
    for (int p = 0, n = 0; p < np; p++, sep = ", ") {
        const IrParam *par = &st->params.items[p];
        fl_item(&l, sep, par->is_field ? arena_printf(c->arena, "gt_s(%d)", ++n)
                                       : fs->param[p]);
    }
    if (steps)
        fl_item(&l, sep, arena_printf(c->arena, "int(%s, c_int64_t)", fs->nsteps)), sep = ", ";
    fl_item(&l, sep, "gt_d)");
    fl_end(&l, "");
    if (fs->nfields)
        fprintf(f, "        call gtrt_release(gt_s)\n");
    fprintf(f, "        call gtrt_finish(gt_rc, %s)\n", fs->rc);
    fprintf(f, "    end subroutine %s\n", name);
}

/* S_mpi (docs/fortran.md, "Under MPI"; steps: S_steps_mpi): the fields wrapped as S wraps
   them, the scalars copied into locals, the arguments' addresses in gt_a for the call back,
   then gtrt_mpi_call (the runtime's gt_mpi_call over the storages, widths from what the
   stencil reads) or gtrt_mpi_steps (gt_mpi_steps with S_info). */
static void write_mpi_wrapper(Compiler *c, FILE *f, const FStencil *fs, bool steps)
{
    const IrStencil *st = fs->es->st;
    int np = st->params.len;
    const char *name = steps ? fs->steps_mpi_sub : fs->mpi_sub;
    FLine l;
    fl_start(&l, f, 4, "recursive subroutine ");
    fl_item(&l, "", name);
    fl_item(&l, "", "(");
    fl_item(&l, "", fs->decomp);
    for (int p = 0; p < np; p++)
        fl_item(&l, ", ", fs->param[p]);
    if (steps)
        fl_item(&l, ", ", fs->nsteps), fl_item(&l, ", ", fs->tblock);
    fl_item(&l, ", ", fs->halo_all);
    for (int p = 0; p < np; p++)
        if (fs->halo[p])
            fl_item(&l, ", ", fs->halo[p]);
    if (!steps)
        fl_item(&l, ", ", fs->overlap);
    fl_item(&l, ", ", fs->times);
    fl_item(&l, ", ", fs->rc);
    fl_end(&l, ")");
    fprintf(f, "        type(c_ptr), intent(in) :: %s\n", fs->decomp);
    write_param_decls(c, f, fs, WRAP_MPI);
    if (steps) {
        fprintf(f, "        integer, intent(in) :: %s\n", fs->nsteps);
        fprintf(f, "        integer, intent(in), optional :: %s\n", fs->tblock);
    }
    write_halo_decl(c, f, fs);
    if (!steps)
        fprintf(f, "        logical, intent(in), optional :: %s\n", fs->overlap);
    fprintf(f, "        real(c_double), intent(out), optional :: %s(:)\n", fs->times);
    fprintf(f, "        integer, intent(out), optional :: %s\n", fs->rc);
    fprintf(f, "        type(c_ptr) :: gt_s(%d)\n", fs->nfields);
    fprintf(f, "        integer(c_int64_t) :: gt_h(2, 3, %d)\n", fs->nfields);
    fprintf(f, "        type(c_ptr), target :: gt_a(%d)\n", np);
    for (int p = 0; p < np; p++) {
        const IrParam *par = &st->params.items[p];
        if (!par->is_field)
            fprintf(f, "        %s, target :: gt_v%d\n", type_of(c->arena, par->scalar->type),
                    p + 1);
    }
    fprintf(f, "        real(c_double), target :: gt_t(2)\n");
    fprintf(f, "        type(c_funptr) :: gt_f\n");
    fprintf(f, "        integer(c_int) :: gt_rc\n\n");
    fprintf(f, "        gt_s = c_null_ptr\n");
    fprintf(f, "        gt_t = 0\n");
    /* a variable, not c_funloc(...) as the actual argument: gfortran puts that constant in
       .rodata, a text relocation in a position-independent executable */
    fprintf(f, "        gt_f = c_funloc(%s)\n", steps ? fs->steps_mpi_call : fs->mpi_call);
    fprintf(f, "        gt_rc = 0\n");
    write_checks(c, f, fs, true, false);
    write_check(c, f, fs, "gtrt_check_times", fs->times);
    write_wraps(c, f, fs, false, false);
    /* the call back of S_steps_mpi takes the storages in their current roles from the
       runtime: gt_a holds S's scalars only */
    for (int p = 0, n = 0; p < np; p++) {
        const IrParam *par = &st->params.items[p];
        if (par->is_field) {
            fprintf(f, "        gt_a(%d) = %s\n", p + 1,
                    steps ? "c_null_ptr" : arena_printf(c->arena, "gt_s(%d)", ++n));
            continue;
        }
        if (!par->scalar->is_output)
            fprintf(f, "        gt_v%d = %s\n", p + 1, fs->param[p]);
        fprintf(f, "        gt_a(%d) = c_loc(gt_v%d)\n", p + 1, p + 1);
    }
    fl_start(&l, f, 8, steps ? "if (gt_rc == 0) gt_rc = gtrt_mpi_steps("
                             : "if (gt_rc == 0) gt_rc = gtrt_mpi_call(");
    fl_item(&l, "", fs->decomp);
    if (steps)
        fl_item(&l, ", ", arena_printf(c->arena, "%s()", fs->info_iface));
    fl_item(&l, ", ", "gt_s");
    if (steps)
        fl_item(&l, ", ", fs->nsteps), fl_item(&l, ", ", fs->tblock);
    fl_item(&l, ", ", "gt_f");
    fl_item(&l, ", ", "c_loc(gt_a)");
    if (!steps)
        fl_item(&l, ", ", fs->overlap);
    fl_item(&l, ", ", "gt_t");
    /* the .stn name for "stencil 'S'", the wrapper's own for what names it (-P pq_ gives
       pq_lap_mpi, which the messages called lap_mpi) */
    fl_item(&l, ", ", arena_printf(c->arena, "'%s'", st->name));
    fl_item(&l, ", ", arena_printf(c->arena, "'%s')", name));
    fl_end(&l, "");
    fprintf(f, "        if (gt_rc == 0) then\n");
    for (int p = 0; p < np; p++) {
        const IrParam *par = &st->params.items[p];
        if (!par->is_field && par->scalar->is_output)
            fprintf(f, "            %s = gt_v%d\n", fs->param[p], p + 1);
    }
    fprintf(f, "            if (present(%s)) %s = gt_t\n", fs->times, fs->times);
    fprintf(f, "        end if\n");
    fprintf(f, "        call gtrt_release(gt_s)\n");
    fprintf(f, "        call gtrt_finish(gt_rc, %s)\n", fs->rc);
    fprintf(f, "    end subroutine %s\n", name);
}

/* S_mpi's call back (gt_mpi_stencil_fn): S over the domain it is given, its arguments
   from the addresses S_mpi put in ctx. S_steps_mpi's (steps; gt_mpi_step_fn): S over the
   storages and the domain it is given, its scalars from ctx. Its C name has the module's in
   it: two modules' call backs are two symbols. */
static void write_mpi_call(Compiler *c, FILE *f, const FStencil *fs, const char *module,
                           bool steps)
{
    const IrStencil *st = fs->es->st;
    int np = st->params.len;
    const char *name = steps ? fs->steps_mpi_call : fs->mpi_call;
    FLine l;
    fl_start(&l, f, 4, "recursive function ");
    fl_item(&l, "", name);
    fl_item(&l, "", steps ? "(gt_ctx, gt_fields, gt_dom) result(gt_rc)"
                          : "(gt_ctx, gt_dom) result(gt_rc)");
    fl_item(&l, " ", arena_printf(c->arena, "bind(C, name=\"%s_%s\")", module, name));
    fl_end(&l, "");
    fprintf(f, "        type(c_ptr), value :: gt_ctx, %sgt_dom\n", steps ? "gt_fields, " : "");
    fprintf(f, "        integer(c_int) :: gt_rc\n");
    fprintf(f, "        type(c_ptr), pointer :: gt_a(:)%s\n", steps ? ", gt_g(:)" : "");
    for (int p = 0; p < np; p++) {
        const IrParam *par = &st->params.items[p];
        if (!par->is_field)
            fprintf(f, "        %s, pointer :: gt_v%d\n", type_of(c->arena, par->scalar->type),
                    p + 1);
    }
    fprintf(f, "\n        call c_f_pointer(gt_ctx, gt_a, [%d])\n", np);
    if (steps)
        fprintf(f, "        call c_f_pointer(gt_fields, gt_g, [%d])\n", fs->nfields);
    for (int p = 0; p < np; p++)
        if (!st->params.items[p].is_field)
            fprintf(f, "        call c_f_pointer(gt_a(%d), gt_v%d)\n", p + 1, p + 1);
    fl_start(&l, f, 8, "gt_rc = ");
    fl_item(&l, "", fs->iface);
    fl_item(&l, "", "(");
    for (int p = 0; p < np; p++) {
        const IrParam *par = &st->params.items[p];
        const char *arg = !par->is_field ? arena_printf(c->arena, "gt_v%d", p + 1)
                          : steps ? arena_printf(c->arena, "gt_g(%d)", par->field->id + 1)
                                  : arena_printf(c->arena, "gt_a(%d)", p + 1);
        fl_item(&l, p ? ", " : "", arg);
    }
    fl_item(&l, np ? ", " : "", "gt_dom)");
    fl_end(&l, "");
    fprintf(f, "    end function %s\n", name);
}

/* The head of S_mpi_halo(NAME_halo..., rc) and of S_steps_mpi_halo(tblock, NAME_halo..., rc)
   (steps): the subroutine line, the dummies' declarations (each NAME_halo assumed-shape,
   an explicit (2, 3) was written past a smaller actual's end) and their checks, a wrong
   shape returning GT_EINVAL at once. */
static void write_halo_sub_head(Compiler *c, FILE *f, const FStencil *fs, bool steps)
{
    int np = fs->es->st->params.len;
    FLine l;
    fl_start(&l, f, 4, "recursive subroutine ");
    fl_item(&l, "", steps ? fs->steps_halo_sub : fs->mpi_halo_sub);
    fl_item(&l, "", "(");
    const char *sep = "";
    if (steps)
        fl_item(&l, sep, fs->tblock), sep = ", ";
    for (int p = 0; p < np; p++)
        if (fs->halo[p])
            fl_item(&l, sep, fs->halo[p]), sep = ", ";
    fl_item(&l, sep, fs->rc);
    fl_end(&l, ")");
    if (steps)
        fprintf(f, "        integer, intent(in) :: %s\n", fs->tblock);
    fl_start(&l, f, 8, "integer, intent(out), optional :: ");
    sep = "";
    for (int p = 0; p < np; p++)
        if (fs->halo[p])
            fl_item(&l, sep, arena_printf(c->arena, "%s(:, :)", fs->halo[p])), sep = ", ";
    fl_end(&l, "");
    fprintf(f, "        integer, intent(out), optional :: %s\n", fs->rc);
    fprintf(f, "        integer(c_int) :: gt_rc\n\n");
    fprintf(f, "        gt_rc = 0\n");
    write_checks(c, f, fs, false, false);
    fprintf(f, "        if (gt_rc /= 0) then\n");
    fprintf(f, "            call gtrt_finish(gt_rc, %s)\n", fs->rc);
    fprintf(f, "            return\n");
    fprintf(f, "        end if\n");
}

/* S_mpi_halo(NAME_halo..., rc): per field whose NAME_halo is present, the halo S_mpi needs
   (gt_mpi_halo: along I and J the larger of the field's halo and reach, along K its halo),
   constants of the stencil, as the halo(2, 3) the wrappers take. */
static void write_mpi_halo(Compiler *c, FILE *f, const FStencil *fs)
{
    const IrStencil *st = fs->es->st;
    write_halo_sub_head(c, f, fs, false);
    for (int p = 0; p < st->params.len; p++) {
        const IrField *fd = st->params.items[p].is_field ? st->params.items[p].field : NULL;
        if (!fd)
            continue;
        int64_t h[3][2] = {{0, 0}, {0, 0}, {0, 0}};
        for (int a = 0; a < NAXES; a++)
            for (int side = 0; side < 2 && (fd->axes & (1u << a)); side++)
                h[a][side] = a < 2 && fd->reach[a][side] > fd->halo[a][side]
                                 ? fd->reach[a][side] : fd->halo[a][side];
        /* two NAME_halo of 58 characters pass the 132 columns: continued; where the
           assignment would pass them even on a continuation line (a NAME_halo of 63 and
           halos of 1000000: 153 columns), each number is an item of its own */
        const char *set = arena_printf(c->arena, "%s = reshape([%lld, %lld, %lld, %lld, "
                                       "%lld, %lld], [2, 3])", fs->halo[p],
                                       (long long)h[0][0], (long long)h[0][1],
                                       (long long)h[1][0], (long long)h[1][1],
                                       (long long)h[2][0], (long long)h[2][1]);
        FLine l;
        fl_start(&l, f, 8, arena_printf(c->arena, "if (present(%s))", fs->halo[p]));
        if (8 + 8 + (int)strlen(set) <= FREE_FORM_WIDTH) {
            fl_item(&l, " ", set);
        } else {
            fl_item(&l, " ", arena_printf(c->arena, "%s = reshape([%lld", fs->halo[p],
                                          (long long)h[0][0]));
            for (int k = 1; k < 6; k++)
                fl_item(&l, ", ", arena_printf(c->arena, "%lld%s", (long long)h[k / 2][k % 2],
                                              k == 5 ? "], [2, 3])" : ""));
        }
        fl_end(&l, "");
    }
    fprintf(f, "        call gtrt_finish(gt_rc, %s)\n", fs->rc);
    fprintf(f, "    end subroutine %s\n", fs->mpi_halo_sub);
}

/* S_steps_mpi_halo(tblock, NAME_halo..., rc): per field whose NAME_halo is present, the
   halo S_steps_mpi needs for blocks of tblock steps (gt_mpi_steps_halo), as the halo(2, 3)
   the wrappers take. */
static void write_steps_halo(Compiler *c, FILE *f, const FStencil *fs)
{
    const IrStencil *st = fs->es->st;
    write_halo_sub_head(c, f, fs, true);
    FLine l;
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        if (!par->is_field)
            continue;
        fl_start(&l, f, 8, arena_printf(c->arena, "if (present(%s)) call gtrt_mpi_steps_halo("
                                        "gt_rc,", fs->halo[p]));
        fl_item(&l, " ", arena_printf(c->arena, "%s()", fs->info_iface));
        fl_item(&l, ", ", arena_printf(c->arena, "%d", par->field->id));
        fl_item(&l, ", ", arena_printf(c->arena, "'%s'", emit_axes_text(par->field->axes)));
        fl_item(&l, ", ", fs->tblock);
        fl_item(&l, ", ", fs->halo[p]);
        fl_item(&l, ", ", arena_printf(c->arena, "'%s'", st->name));
        fl_item(&l, ", ", arena_printf(c->arena, "'%s')", fs->steps_halo_sub));
        fl_end(&l, "");
    }
    fprintf(f, "        call gtrt_finish(gt_rc, %s)\n", fs->rc);
    fprintf(f, "    end subroutine %s\n", fs->steps_halo_sub);
}

static bool write_module(Compiler *c, FILE *const *files, void *ctx)
{
    FILE *f = files[0];
    const char *module = ctx;
    NameSet cglobals = {0};
    EmitStencil **stencils = emit_name_stencils(c, &cglobals);
    if (!stencils)
        return false;
    int ns = c->ir->stencils.len;
    FStencil *fs = arena_alloc(c->arena, sizeof *fs * (size_t)(ns + 1));
    if (!name_stencils(c, stencils, fs, module))
        return false;
    /* what the module uses: the kinds, and which of the optional wrappers it has */
    bool kinds[TY_DOUBLE + 1] = {0}, any_fields = false, any_mpi = false, any_steps_mpi = false,
         any_steps_halo = false;
    for (int s = 0; s < ns; s++) {
        const IrStencil *st = fs[s].es->st;
        for (int p = 0; p < st->params.len; p++) {
            const IrParam *par = &st->params.items[p];
            kinds[par->is_field ? par->field->type : par->scalar->type] = true;
        }
        any_fields |= fs[s].nfields > 0;
        any_mpi |= fs[s].mpi_sub != NULL;
        any_steps_mpi |= fs[s].steps_mpi_sub != NULL;
        any_steps_halo |= fs[s].steps_halo_sub != NULL;
    }
    kinds[TY_DOUBLE] |= any_mpi || any_steps_mpi;   /* their times */
    const char *in = path_base(c->opts.input);
    write_comment_text(f, 0, 1, arena_printf(c->arena, "%s: generated by gtcc %s from %s "
                                             "(--emit=fortran%s%s); do not edit.", module,
                                             GTCC_VERSION, in, c->opts.prefix ? " -P " : "",
                                             c->opts.prefix ? c->opts.prefix : ""));
    write_comment_text(f, 0, 1, arena_printf(c->arena, "Fortran wrappers of the stencils of %s "
                                             "(docs/fortran.md): compile with the module gtrt\n"
                                             "(pkg-config gtrt-fortran), link with the C that "
                                             "gtcc generates from %s\nwith the same -P, and with "
                                             "libgtrt.", in, in));
    fprintf(f, "module %s\n", module);
    FLine l;
    fl_start(&l, f, 4, "use, intrinsic :: iso_c_binding, only: ");
    const char *sep = "";
    if (kinds[TY_BOOL])
        fl_item(&l, sep, "c_bool"), sep = ", ";
    if (kinds[TY_DOUBLE])
        fl_item(&l, sep, "c_double"), sep = ", ";
    if (kinds[TY_FLOAT])
        fl_item(&l, sep, "c_float"), sep = ", ";
    fl_item(&l, sep, "c_int");
    if (kinds[TY_INT])
        fl_item(&l, ", ", "c_int32_t");
    if (any_mpi || any_steps_mpi)   /* the call backs */
        fl_item(&l, ", ", "c_f_pointer"), fl_item(&l, ", ", "c_funloc"),
            fl_item(&l, ", ", "c_funptr");
    static const char *const always[] = {"c_int64_t", "c_loc", "c_null_ptr", "c_ptr"};
    for (size_t k = 0; k < sizeof always / sizeof *always; k++)
        fl_item(&l, ", ", always[k]);
    fl_end(&l, "");
    fl_start(&l, f, 4, "use gtrt, only: gtrt_check_domain");
    if (any_fields)
        fl_item(&l, ", ", "gtrt_check_fit"), fl_item(&l, ", ", "gtrt_check_halo");
    if (any_mpi || any_steps_mpi)
        fl_item(&l, ", ", "gtrt_check_times");
    if (any_fields)
        fl_item(&l, ", ", "gtrt_field_halo");
    fl_item(&l, ", ", "gtrt_finish");
    if (any_mpi)
        fl_item(&l, ", ", "gtrt_mpi_call");
    if (any_steps_mpi)
        fl_item(&l, ", ", "gtrt_mpi_steps");
    if (any_steps_halo)
        fl_item(&l, ", ", "gtrt_mpi_steps_halo");
    if (any_fields)
        fl_item(&l, ", ", "gtrt_release"), fl_item(&l, ", ", "gtrt_wrap");
    fl_end(&l, "");
    fprintf(f, "    implicit none\n    private\n");
    for (int s = 0; s < ns; s++) {
        const char *const names[6] = {fs[s].sub, fs[s].steps_sub, fs[s].mpi_sub,
                                      fs[s].mpi_halo_sub, fs[s].steps_mpi_sub,
                                      fs[s].steps_halo_sub};
        fl_start(&l, f, 4, "public :: ");
        for (int k = 0, n = 0; k < 6; k++)
            if (names[k])
                fl_item(&l, n++ ? ", " : "", names[k]);
        fl_end(&l, "");
    }
    if (ns) {
        fprintf(f, "\n    interface\n");
        for (int s = 0; s < ns; s++) {
            write_interface(c, f, &fs[s], false);
            if (fs[s].steps_sub)
                write_interface(c, f, &fs[s], true);
            if (fs[s].info_iface) {
                write_comment_text(f, 8, 7, arena_printf(c->arena, "const gt_stencil_info "
                                                         "*%s_f(void)", fs[s].es->info));
                fprintf(f, "        function %s() result(gt_info) bind(C, name=\"%s_f\")\n",
                        fs[s].info_iface, fs[s].es->info);
                fprintf(f, "            import :: c_ptr\n");
                fprintf(f, "            type(c_ptr) :: gt_info\n");
                fprintf(f, "        end function %s\n", fs[s].info_iface);
            }
        }
        fprintf(f, "    end interface\n");
    }
    fprintf(f, "\ncontains\n");
    for (int s = 0; s < ns; s++) {
        fprintf(f, "\n");
        write_comment(c, f, &fs[s]);
        write_wrapper(c, f, &fs[s], false);
        if (fs[s].steps_sub) {
            fprintf(f, "\n");
            write_comment_text(f, 4, 3, arena_printf(c->arena, "%s: %s's time steps (iterate)",
                                                     fs[s].steps_sub, fs[s].sub));
            write_wrapper(c, f, &fs[s], true);
        }
        if (fs[s].mpi_sub) {
            fprintf(f, "\n");
            write_comment_text(f, 4, 3, arena_printf(c->arena, "%s: %s on this rank's box of a "
                                                     "decomposition (gtrt_mpi), halos exchanged",
                                                     fs[s].mpi_sub, fs[s].sub));
            write_mpi_wrapper(c, f, &fs[s], false);
            fprintf(f, "\n");
            write_mpi_call(c, f, &fs[s], module, false);
        }
        if (fs[s].mpi_halo_sub) {
            fprintf(f, "\n");
            write_comment_text(f, 4, 3, arena_printf(c->arena, "%s: the halos %s_mpi needs "
                                                     "(gt_mpi_halo)", fs[s].mpi_halo_sub,
                                                     fs[s].sub));
            write_mpi_halo(c, f, &fs[s]);
        }
        if (fs[s].steps_mpi_sub) {
            fprintf(f, "\n");
            write_comment_text(f, 4, 3, arena_printf(c->arena, "%s: %s on a decomposition "
                                                     "(gtrt_mpi), halos exchanged every tblock "
                                                     "steps", fs[s].steps_mpi_sub,
                                                     fs[s].steps_sub));
            write_mpi_wrapper(c, f, &fs[s], true);
            fprintf(f, "\n");
            write_mpi_call(c, f, &fs[s], module, true);
        }
        if (fs[s].steps_halo_sub) {
            fprintf(f, "\n");
            write_comment_text(f, 4, 3, arena_printf(c->arena, "%s: the halos %s_mpi needs for "
                                                     "blocks of tblock steps",
                                                     fs[s].steps_halo_sub, fs[s].steps_sub));
            write_steps_halo(c, f, &fs[s]);
        }
    }
    fprintf(f, "end module %s\n", module);
    return true;
}

int emit_fortran(Compiler *c, const char *path)
{
    const char *paths[1] = {path};
    return driver_write_files(c, paths, 1, write_module, (void *)emit_fortran_module(c));
}

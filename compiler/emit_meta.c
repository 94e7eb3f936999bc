/* emit_meta.c: `gtcc --emit=meta`, a JSON description of every stencil of the program, for
 * callers that bind to the generated code without reading C (the Python package): the C
 * names the generated code exports (with -P), every parameter in order (fields with axes,
 * dtype, intent, the halo a storage needs, the reach and the boundary conditions; scalars,
 * out scalars with their reduction), iterate's pairs, the minimum NK. docs/generated-api.md
 * ("--emit=meta") specifies it; it describes what `gtcc` with the same options generates. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"

/* The length of the well-formed UTF-8 character at p (2 to 4 bytes: no overlong form, no
 * surrogate, nothing past U+10FFFF), or 0. */
static size_t utf8_char(const unsigned char *p)
{
    unsigned lo = 0x80, hi = 0xbf;   /* the range of the second byte */
    size_t len;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        len = 2;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        len = 3;
        lo = p[0] == 0xe0 ? 0xa0 : 0x80;
        hi = p[0] == 0xed ? 0x9f : 0xbf;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        len = 4;
        lo = p[0] == 0xf0 ? 0x90 : 0x80;
        hi = p[0] == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* s as a JSON string (quotes, backslashes and control bytes escaped). JSON is UTF-8: a byte
 * that is no part of a UTF-8 character (a file name in Latin-1, caf\xe9.stn) becomes
 * U+FFFD, as a lenient decoder shows it; before, it went out raw and no JSON parser, the
 * Python package's included, read the text. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        size_t n = *p >= 0x80 ? utf8_char(p) : 1;
        if (*p == '"' || *p == '\\') {
            fprintf(f, "\\%c", *p);
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p);
        } else if (n == 0) {
            fputs("\\ufffd", f);
        } else {
            fwrite(p, 1, n, f);
            p += n - 1;
        }
    }
    fputc('"', f);
}

/* The dtype as NumPy spells it. */
static const char *dtype_name(Type t)
{
    switch (t) {
    case TY_DOUBLE: return "float64";
    case TY_FLOAT: return "float32";
    case TY_INT: return "int32";
    case TY_BOOL: return "bool";
    default: break;
    }
    unreachable();
}

const char *emit_axes_text(unsigned axes)
{
    static const char *const text[8] = {"", "I", "J", "IJ", "K", "IK", "JK", "IJK"};
    return text[axes & 7u];
}

const char *emit_field_intent(const IrField *fd)
{
    return !fd->is_written ? "in" : fd->is_read ? "inout" : "out";
}

static const char *const bc_names[] = {
    [BC_NONE] = NULL, [BC_PERIODIC] = "periodic", [BC_DIRICHLET] = "dirichlet",
    [BC_NEUMANN] = "neumann", [BC_MIRROR] = "mirror",
};

/* The reduction an out scalar gets (its statement), or NULL. */
typedef struct {
    const IrScalar *sc;
    const char *op;
} FindReduce;

static IrWalk find_reduce(void *ctx, const IrStmt *s)
{
    FindReduce *x = ctx;
    if (s->kind == IR_REDUCE && s->reduce.dst == x->sc) {
        x->op = red_op_names[s->reduce.op];
        return IR_WALK_STOP;
    }
    return IR_WALK_ON;
}

static const char *reduce_op(const IrStencil *st, const IrScalar *sc)
{
    FindReduce x = {sc, NULL};
    for (int c = 0; c < st->computations.len && !x.op; c++) {
        const IrComputation *comp = st->computations.items[c];
        for (int i = 0; i < comp->intervals.len && !x.op; i++) {
            const IrInterval *iv = comp->intervals.items[i];
            for (int s = 0; s < iv->stmts.len && !x.op; s++)
                ir_walk_stmt(iv->stmts.items[s], find_reduce, &x);
        }
    }
    return x.op;
}

static void pairs3(FILE *f, const int64_t v[NAXES][2], unsigned axes)
{
    fputc('[', f);
    for (int a = 0, n = 0; a < NAXES; a++)
        if (axes & (1u << a))
            fprintf(f, "%s[%lld, %lld]", n++ ? ", " : "", (long long)v[a][0],
                    (long long)v[a][1]);
    fputc(']', f);
}

static void field_json(FILE *f, const IrField *fd)
{
    fprintf(f, "\"kind\": \"field\", \"axes\": \"%s\", \"dtype\": \"%s\", \"intent\": \"%s\", ",
            emit_axes_text(fd->axes), dtype_name(fd->type), emit_field_intent(fd));
    fprintf(f, "\"halo\": ");
    pairs3(f, fd->halo, fd->axes);
    fprintf(f, ", \"reach\": ");
    pairs3(f, fd->reach, fd->axes);
    fprintf(f, ", \"bc\": [");
    for (int a = 0, n = 0; a < NAXES; a++) {
        if (!(fd->axes & (1u << a)))
            continue;
        fprintf(f, "%s", n++ ? ", " : "");
        BcKind k = fd->bc[a].kind;
        if (k == BC_NONE)
            fprintf(f, "null");
        else if (k == BC_DIRICHLET && isfinite(fd->bc[a].value))
            fprintf(f, "{\"kind\": \"dirichlet\", \"value\": %.17g}", fd->bc[a].value);
        else
            fprintf(f, "{\"kind\": \"%s\"}", bc_names[k]);
    }
    fprintf(f, "], \"read_at_offset\": %s", fd->read_at_offset ? "true" : "false");
}

static void stencil_json(FILE *f, const EmitStencil *es, bool last)
{
    const IrStencil *st = es->st;
    fprintf(f, "    {\n      \"name\": ");
    json_string(f, st->name);
    fprintf(f, ",\n      \"function\": ");
    json_string(f, es->fn);
    fprintf(f, ",\n      \"info\": ");
    json_string(f, es->info);
    fprintf(f, ",\n      \"steps\": ");
    if (es->steps)
        json_string(f, es->steps);
    else
        fprintf(f, "null");
    fprintf(f, ",\n      \"min_nk\": %lld,\n      \"params\": [\n", (long long)st->min_nk);
    for (int p = 0; p < st->params.len; p++) {
        const IrParam *par = &st->params.items[p];
        fprintf(f, "        {\"name\": ");
        json_string(f, par->is_field ? par->field->name : par->scalar->name);
        fprintf(f, ", ");
        if (par->is_field) {
            field_json(f, par->field);
        } else {
            const IrScalar *sc = par->scalar;
            fprintf(f, "\"kind\": \"scalar\", \"dtype\": \"%s\", \"intent\": \"%s\"",
                    dtype_name(sc->type), sc->is_output ? "out" : "in");
            const char *op = sc->is_output ? reduce_op(st, sc) : NULL;
            if (op)
                fprintf(f, ", \"reduce\": \"%s\"", op);
        }
        fprintf(f, "}%s\n", p + 1 < st->params.len ? "," : "");
    }
    fprintf(f, "      ],\n      \"iterate\": [");
    for (int q = 0; q < st->pairs.len; q++) {
        fprintf(f, "%s{\"next\": ", q ? ", " : "");
        json_string(f, st->pairs.items[q].next->name);
        fprintf(f, ", \"cur\": ");
        json_string(f, st->pairs.items[q].cur->name);
        fprintf(f, "}");
    }
    fprintf(f, "]\n    }%s\n", last ? "" : ",");
}

bool emit_meta(Compiler *c, FILE *f)
{
    NameSet globals = {0};
    EmitStencil **stencils = emit_name_stencils(c, &globals);
    if (!stencils)
        return false;
    fprintf(f, "{\n  \"gtcc_meta\": 1,\n  \"file\": ");
    json_string(f, c->opts.input);
    fprintf(f, ",\n  \"backend\": ");
    json_string(f, c->opts.backend);
    fprintf(f, ",\n  \"prefix\": ");
    json_string(f, c->opts.prefix ? c->opts.prefix : "");
    fprintf(f, ",\n  \"stencils\": [\n");
    for (int s = 0; s < c->ir->stencils.len; s++)
        stencil_json(f, stencils[s], s + 1 == c->ir->stencils.len);
    fprintf(f, "  ]\n}\n");
    return true;
}

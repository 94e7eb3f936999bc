/* stencil.y: the grammar of the .stn language (language.md v1) and the
 * building of its AST (gtcc.h).
 *
 * The parser is pure and reentrant: the scanner (stencil.l) and the Parser
 * state are its parameters, everything it builds comes from the Compiler's
 * arena, and it never exits. Syntax errors are reported by
 * yyreport_syntax_error in the house style ("expected ';' after expression,
 * saw '}'", "to close '(' at line 3", hints for common slips); recovery is
 * `error ';'` for statements and declarations and `'{' ... error '}'` for
 * blocks, helped by the scanner, which skips the rest of a broken statement
 * with its brackets balanced (lex_begin_skip). Rules that accept common
 * mistakes (a level `end + 1`, an assignment to `u[i+1]`) exist only to say
 * precisely what is wrong.
 *
 * Top-level statements of a stencil body are gathered into implicit
 * `computation(parallel) { interval(0, end) { ... } }` items; consecutive
 * ones (boundary declarations in between do not count) share one.
 */

%code requires {
#include "gtcc.h"

/* flex's type for the scanner; lexer.h defines it the same way. */
#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

/* The deepest nesting of brackets a file may have (clang allows 256). */
enum { PARSE_MAX_NESTING = 1000 };
/* The deepest parser stack: a chain of 100000 unary operators, say. A flat
 * sum of any length needs only a few levels. */
#define YYMAXDEPTH 100000
/* The deepest expression tree, in operators: a flat sum of N terms is N - 1
 * deep (left-associative, yet only a few levels of parser stack). Every later
 * pass recurses on expression trees, on gtcc's 1 GiB stack (main.c), which a
 * flat sum of 4 million terms overflowed; this limit keeps the deepest tree,
 * inlined calls added, well inside it (under the sanitizers too). */
enum { PARSE_MAX_EXPR_DEPTH = 300000 };

typedef struct Parser Parser;
}

%code provides {
/* One token as the scanner wrapper (stencil.l: yylex) hands it over. */
typedef struct {
    int kind;             /* yytoken_kind_t */
    YYSTYPE val;
    YYLTYPE yloc;
    Loc loc;              /* first byte */
    Loc end;              /* just after the last byte */
    char text[48];        /* its text, cut, for messages */
    size_t len;           /* its whole length */
    bool bad;             /* the scanner reported it (unterminated string or comment) */
} ScannedToken;

/* The state of one parse: shared by the scanner and the parser. */
struct Parser {
    Compiler *c;
    Module *mod;                  /* what is being built */
    const char *file;             /* Loc.file of everything in it */
    int line, col;                /* position of the next byte */
    Loc comment_start;            /* of the '/' '*' being scanned */
    bool scan_bad;                /* the scanner reported the token it is returning */
    bool fatal;                   /* a limit was hit: the parse stops quietly */

    /* Open brackets, innermost last. */
    struct {
        int tok;                  /* TOK_LPAREN, TOK_LBRACKET or TOK_LBRACE */
        int after;                /* the token before it ("region" in 'region(') */
        Loc loc;
    } brackets[PARSE_MAX_NESTING];
    int nbrackets;
    int closed_after;             /* .after of the bracket the last ')' or ']' closed */
    int braces;                   /* '{' among them */

    /* The last two tokens handed to the parser. */
    int tok, prev_tok;
    Loc tok_loc, tok_end, prev_end;
    char tok_text[48];
    size_t tok_len;
    char last_name[48];           /* the text of the previous token */
    bool tok_bad, prev_bad;       /* ScannedToken.bad of each */
    YYLTYPE last_yloc;

    /* Skipping after a syntax error (lex_begin_skip). */
    bool skipping;
    int skip_braces;              /* the block depth of the broken statement */
    int skip_brackets;            /* brackets open where it broke: a ';' inside
                                   * brackets opened later does not end it */
    bool block_skipped;           /* a block inside it just closed */
    ScannedToken block_end;       /* that block's '}' */
    bool has_pending;             /* a token read ahead, returned next */
    ScannedToken pending;
    bool inject_semi;             /* return a ';', then the last token again */
    Loc injected_at;              /* where the last such ';' went */
    ScannedToken last;            /* the last token handed to the parser */

    /* What the grammar actions are building. */
    Function *fn;
    Stencil *st;
    Computation *implicit;        /* the open implicit computation of st, or NULL */
};

int yylex(YYSTYPE *val, YYLTYPE *loc, yyscan_t scanner);
int yyparse(yyscan_t scanner, Parser *p);
/* After a syntax error: the scanner skips to the end of the statement, that
 * is, to a ';' or a '}' at the block depth of the error (a block closed on
 * the way ends the statement too, unless 'else' follows). */
void lex_begin_skip(Parser *p);
/* After "expected ';'" when the next token is on a later line: the scanner
 * hands the parser the missing ';', then that token again, so that the
 * parser recovers on the statement that follows. */
void lex_insert_semi(Parser *p);
}

%code {
#include <string.h>

static void yyerror(const YYLTYPE *loc, yyscan_t scanner, Parser *p, const char *msg);
static Loc at(const Parser *p, YYLTYPE l) { return (Loc){p->file, l.first_line, l.first_column}; }
static Expr *new_expr(Parser *p, ExprKind kind, YYLTYPE l);
static Expr *new_binary(Parser *p, Op op, Expr *a, Expr *b, YYLTYPE l);
static Expr *new_unary(Parser *p, Op op, Expr *a, YYLTYPE l);
static void set_depth(Parser *p, Expr *e, const Expr *const *child, int n);
static Stmt *new_stmt(Parser *p, StmtKind kind, YYLTYPE l);
static void add_offset(Parser *p, Expr *e, Offset o);
static Offset dyn_offset(Parser *p, int axis, KdynMode mode, Expr *e, YYLTYPE l);
static unsigned parse_axes(Parser *p, const char *name, YYLTYPE l);
static void add_toplevel_stmt(Parser *p, Stmt *s, YYLTYPE l);
static void add_item(Parser *p, BodyItem item);
static void push_stmt(Parser *p, StmtVec *v, Stmt *s);
static void region_pos_name(Parser *p, YYLTYPE l, const char *name);
}

%define api.pure full
%locations
%define parse.error custom
%define parse.lac full
%define api.token.prefix {TOK_}
%param {yyscan_t scanner}
%parse-param {Parser *p}
%expect 0

%union {
    const char *name;        /* NAME, STRING */
    int64_t ival;            /* INTLIT */
    struct {
        double value;
        const char *text;
    } flit;                  /* FLOATLIT */
    Expr *expr;
    ExprVec *exprs;
    Stmt *stmt;
    StmtVec *stmts;
    Type type;
    unsigned axes;
    int axis;
    Level level;
    IterOrder order;
    Op op;
    Offset offset;
    Computation *comp;
    Interval *interval;
    BoundaryDecl *boundary;
    RegionRange range;
}

%token
    LPAREN "(" RPAREN ")" LBRACE "{" RBRACE "}" LBRACKET "[" RBRACKET "]"
    SEMI ";" COMMA "," COLON ":" QUESTION "?" ARROW "->"
    ASSIGN "=" ADD_ASSIGN "+=" SUB_ASSIGN "-=" MUL_ASSIGN "*=" DIV_ASSIGN "/="
    PLUS "+" MINUS "-" STAR "*" SLASH "/" PERCENT "%"
    LT "<" LE "<=" GT ">" GE ">=" EQ "==" NE "!=" AND "&&" OR "||" NOT "!"
    MOD_ASSIGN "%="   /* in no rule: scanned so that its error can say there is none */
/* Keywords carry their spelling, for the messages of `name`. */
%token <name>
    STENCIL "stencil" FUNCTION "function" CONST "const" IMPORT "import"
    RETURN "return" IF "if" ELSE "else" COMPUTATION "computation"
    INTERVAL "interval" PARALLEL "parallel" FORWARD "forward"
    BACKWARD "backward" END "end" BOUNDARY "boundary" PERIODIC "periodic"
    DIRICHLET "dirichlet" NEUMANN "neumann" MIRROR "mirror" FIELD "field"
    OUT "out" DOUBLE "double" FLOAT "float" INT "int" BOOL "bool"
    TRUE "true" FALSE "false" AXIS_I "i" AXIS_J "j" AXIS_K "k" INDEX "index"
    REGION "region" WHILE "while"
%token INVALID "invalid character"
%token <name> NAME "identifier" STRING "string literal"
%token <ival> INTLIT "integer literal"
%token <flit> FLOATLIT "floating literal"

%nterm <name> name keyword
%nterm <expr> expr primary offsets constexpr
%nterm <exprs> args
%nterm <stmt> stmt decl assign ifstmt whilestmt return multi regionstmt regionranges
%nterm <exprs> targets
%nterm <range> regionrange
%nterm <level> regionpos
%nterm <stmts> block stmts
%nterm <type> scalartype
%nterm <axes> axes axes_opt bc_axes_opt bc_axis_list
%nterm <axis> axis
%nterm <level> level
%nterm <order> order
%nterm <op> assignop
%nterm <offset> offset
%nterm <comp> computation intervals
%nterm <interval> interval
%nterm <boundary> boundary bc

%precedence THEN
%precedence ELSE
%right "?" ":"
%left "||"
%left "&&"
%left "==" "!="
%left "<" "<=" ">" ">="
%left "+" "-"
%left "*" "/" "%"
%precedence UNARY

%%

/* program = { import | constdecl | function | stencil } */
program:
    %empty
|   program toplevel
;

toplevel:
    import
|   constdecl
|   function
|   stencil
|   error ";"     { yyerrok; }
|   error "}"     { yyerrok; }
;

/* import = 'import' STRING ';' */
import:
    "import" STRING ";" {
        Import *imp = arena_alloc(p->c->arena, sizeof *imp);
        imp->loc = at(p, @2);
        imp->path = $2;
        vec_push(p->c->arena, &p->mod->imports, imp);
    }
;

/* constdecl = 'const' scalartype NAME '=' constexpr ';' */
constdecl:
    "const" scalartype name "=" constexpr ";" {
        ConstDecl *k = arena_alloc(p->c->arena, sizeof *k);
        k->loc = at(p, @3);
        k->type = $2;
        k->name = $3;
        k->value = $5;
        vec_push(p->c->arena, &p->mod->consts, k);
    }
;

constexpr: expr ;

/* function = 'function' NAME '(' [NAME {',' NAME}] ')' '{' { fstatement } freturn '}'
 * The body is parsed as statements (a return may sit anywhere); sema.c
 * checks that it ends with its one return and holds only what a function may. */
function:
    function_head "(" function_params ")" "{" stmts "}" {
        p->fn->body = *$6;
        p->fn->end_loc = at(p, @7);
    }
|   function_head "(" function_params ")" "{" stmts error "}" {
        p->fn->body = *$6;
        p->fn->end_loc = at(p, @8);
        yyerrok;
    }
;

function_head:
    "function" name {
        Function *f = arena_alloc(p->c->arena, sizeof *f);
        f->loc = at(p, @2);
        f->name = $2;
        vec_push(p->c->arena, &p->mod->functions, f);
        p->fn = f;
    }
;

function_params:
    %empty
|   function_param_list
;

function_param_list:
    function_param
|   function_param_list "," function_param
;

function_param:
    name {
        vec_push(p->c->arena, &p->fn->params, $1);
        vec_push(p->c->arena, &p->fn->param_locs, at(p, @1));
    }
;

/* A declared name. A keyword there is an error, named as such, and
 * otherwise taken as the name so that the parse goes on undisturbed. */
name:
    NAME
|   keyword {
        diag_error(&p->c->diag, at(p, @1), "'%s' is a keyword and cannot be a name", $1);
        $$ = $1;
    }
;

keyword:
    "stencil" | "function" | "const" | "import" | "return" | "if" | "else"
|   "computation" | "interval" | "parallel" | "forward" | "backward" | "end"
|   "boundary" | "periodic" | "dirichlet" | "neumann" | "mirror" | "field" | "out"
|   "double" | "float" | "int" | "bool" | "true" | "false" | "i" | "j" | "k" | "index"
|   "region" | "while"
;

/* stencil = 'stencil' NAME '(' param {',' param} ')' [iterate] '{' body '}' */
stencil:
    stencil_head "(" params ")" iterate_opt "{" body "}"
|   stencil_head "(" params ")" iterate_opt "{" body error "}"    { yyerrok; }
;

/* iterate = 'iterate' '(' NAME '->' NAME {',' NAME '->' NAME} ')' (language.md 11).
 * `iterate` is not a keyword: a name there, checked to be that one. */
iterate_opt:
    %empty
|   NAME "(" iterate_pairs ")" {
        if (strcmp($1, "iterate") != 0)
            diag_error(&p->c->diag, at(p, @1), "expected 'iterate' or '{' after the "
                       "parameters of stencil '%s', saw '%s'", p->st->name, $1);
        p->st->iterate_loc = at(p, @1);
    }
;

iterate_pairs:
    iterate_pair
|   iterate_pairs "," iterate_pair
;

iterate_pair:
    name "->" name {
        IterPair *q = arena_alloc(p->c->arena, sizeof *q);
        q->loc = at(p, @2);
        q->next = $1;
        q->next_loc = at(p, @1);
        q->cur = $3;
        q->cur_loc = at(p, @3);
        vec_push(p->c->arena, &p->st->iterate, q);
    }
;

stencil_head:
    "stencil" name {
        Stencil *s = arena_alloc(p->c->arena, sizeof *s);
        s->loc = at(p, @2);
        s->name = $2;
        vec_push(p->c->arena, &p->mod->stencils, s);
        p->st = s;
        p->implicit = NULL;
    }
;

params:
    param
|   params "," param
;

/* param = 'field' '<' scalartype [',' AXES] '>' NAME | scalartype NAME | 'out' scalartype NAME */
param:
    "field" "<" scalartype axes_opt ">" name {
        Param *prm = arena_alloc(p->c->arena, sizeof *prm);
        prm->loc = at(p, @6);
        prm->kind = PARAM_FIELD;
        prm->type = $3;
        prm->axes = $4 ? $4 : AXES_IJK;
        prm->name = $6;
        vec_push(p->c->arena, &p->st->params, prm);
    }
|   scalartype name {
        Param *prm = arena_alloc(p->c->arena, sizeof *prm);
        prm->loc = at(p, @2);
        prm->kind = PARAM_SCALAR;
        prm->type = $1;
        prm->name = $2;
        vec_push(p->c->arena, &p->st->params, prm);
    }
|   "out" scalartype name {
        Param *prm = arena_alloc(p->c->arena, sizeof *prm);
        prm->loc = at(p, @3);
        prm->kind = PARAM_OUT_SCALAR;
        prm->type = $2;
        prm->name = $3;
        vec_push(p->c->arena, &p->st->params, prm);
    }
;

scalartype:
    "double" { $$ = TY_DOUBLE; }
|   "float"  { $$ = TY_FLOAT; }
|   "int"    { $$ = TY_INT; }
|   "bool"   { $$ = TY_BOOL; }
;

/* [',' AXES]: 0 when absent */
axes_opt:
    %empty      { $$ = 0; }
|   "," axes    { $$ = $2; }
;

axes:
    NAME        { $$ = parse_axes(p, $1, @1); }
|   axis        {
        static const char *const upper[] = {"I", "J", "K"};
        diag_error(&p->c->diag, at(p, @1), "axes are written in upper case: '%s'", upper[$1]);
        $$ = 1u << $1;
    }
;

/* body = { statement | computation | boundarydecl } */
body:
    %empty
|   body stmt           { add_toplevel_stmt(p, $2, @2); }
|   body computation    {
        add_item(p, (BodyItem){.kind = ITEM_COMPUTATION, .computation = $2});
        p->implicit = NULL;
    }
|   body boundary       { add_item(p, (BodyItem){.kind = ITEM_BOUNDARY, .boundary = $2}); }
;

/* computation = 'computation' '(' order ')' ( '{' { interval } '}' | interval ) */
computation:
    "computation" "(" order ")" "{" intervals "}" {
        $$ = $6;
        $$->loc = at(p, @1);
        $$->order = $3;
    }
|   "computation" "(" order ")" "{" intervals error "}" {
        yyerrok;
        $$ = $6;
        $$->loc = at(p, @1);
        $$->order = $3;
    }
|   "computation" "(" order ")" interval {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        $$->loc = at(p, @1);
        $$->order = $3;
        vec_push(p->c->arena, &$$->intervals, $5);
    }
;

order:
    "parallel"  { $$ = ORDER_PARALLEL; }
|   "forward"   { $$ = ORDER_FORWARD; }
|   "backward"  { $$ = ORDER_BACKWARD; }
;

intervals:
    %empty              { $$ = arena_alloc(p->c->arena, sizeof *$$); }
|   intervals interval  { $$ = $1; vec_push(p->c->arena, &$$->intervals, $2); }
|   intervals error ";" { $$ = $1; yyerrok; }
;

/* interval = 'interval' '(' level ',' level ')' '{' { statement } '}' */
interval:
    "interval" "(" level "," level ")" "{" stmts "}" {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        $$->loc = at(p, @1);
        $$->lo = $3;
        $$->hi = $5;
        $$->lo_loc = at(p, @3);
        $$->hi_loc = at(p, @5);
        $$->stmts = *$8;
    }
|   "interval" "(" level "," level ")" "{" stmts error "}" {
        yyerrok;
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        $$->loc = at(p, @1);
        $$->lo = $3;
        $$->hi = $5;
        $$->lo_loc = at(p, @3);
        $$->hi_loc = at(p, @5);
        $$->stmts = *$8;
    }
;

/* level = INT | 'end' | 'end' '-' INT */
level:
    INTLIT              { $$ = (Level){false, $1}; }
|   "end"               { $$ = (Level){true, 0}; }
|   "end" "-" INTLIT    { $$ = (Level){true, -$3}; }
|   "end" "+" INTLIT    {
        diag_error(&p->c->diag, at(p, @2), "a level cannot be above 'end' (one past the "
                   "highest level); write 'end' or 'end - N'");
        $$ = (Level){true, 0};
    }
|   "-" INTLIT          {
        diag_error(&p->c->diag, at(p, @1), "levels are counted from 0 at the bottom; "
                   "write 'end - %lld' to count from the top", (long long)$2);
        $$ = (Level){false, 0};
    }
|   NAME                {
        diag_error(&p->c->diag, at(p, @1), "a level is an integer, 'end' or 'end - N', "
                   "not '%s'", $1);
        $$ = (Level){false, 0};
    }
|   "end" "-" NAME      {
        diag_error(&p->c->diag, at(p, @3), "a level is an integer, 'end' or 'end - N', "
                   "not 'end - %s'", $3);
        $$ = (Level){true, 0};
    }
;

/* boundarydecl = 'boundary' NAME [ '(' AXIS {',' AXIS} ')' ] ':' bc ';' */
boundary:
    "boundary" NAME bc_axes_opt ":" bc ";" {
        $$ = $5;
        $$->loc = at(p, @1);
        $$->field = $2;
        $$->field_loc = at(p, @2);
        $$->axes = $3;
    }
;

bc_axes_opt:
    %empty                  { $$ = AXES_NONE; }
|   "(" bc_axis_list ")"    { $$ = $2; }
;

bc_axis_list:
    axis                    { $$ = 1u << $1; }
|   bc_axis_list "," axis   {
        if ($1 & (1u << $3))
            diag_error(&p->c->diag, at(p, @3), "axis '%c' is listed twice", "ijk"[$3]);
        $$ = $1 | (1u << $3);
    }
;

axis:
    "i" { $$ = AXIS_I; }
|   "j" { $$ = AXIS_J; }
|   "k" { $$ = AXIS_K; }
;

/* bc = 'periodic' | 'dirichlet' '(' constexpr ')' | 'neumann' | 'mirror' */
bc:
    "periodic"  {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        $$->kind = BC_PERIODIC;
    }
|   "dirichlet" "(" constexpr ")" {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        $$->kind = BC_DIRICHLET;
        $$->value = $3;
    }
|   "neumann"   {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        $$->kind = BC_NEUMANN;
    }
|   "mirror"    {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        $$->kind = BC_MIRROR;
    }
;

/* statement = localdecl | NAME assignop expr ';' | 'if' '(' expr ')' block ['else' block]
 *           | NAME {',' NAME} '=' call ';' | 'return' expr {',' expr} ';'
 *           | 'region' '(' range {',' range} ')' block | 'while' '(' expr ')' block */
stmt:
    decl
|   assign
|   ifstmt
|   whilestmt
|   multi
|   return
|   regionstmt
|   error ";"   { $$ = NULL; yyerrok; }
;

stmts:
    %empty      { $$ = arena_alloc(p->c->arena, sizeof *$$); }
|   stmts stmt  { $$ = $1; push_stmt(p, $$, $2); }
;

/* localdecl = scalartype NAME '=' expr ';' | 'field' '<' scalartype ',' AXES '>' NAME ['=' expr] ';' */
decl:
    scalartype name "=" expr ";" {
        $$ = new_stmt(p, STMT_DECL, @1);
        $$->decl.type = $1;
        $$->decl.name = $2;
        $$->decl.name_loc = at(p, @2);
        $$->decl.axes = AXES_IJK;
        $$->decl.init = $4;
    }
|   scalartype name ";" {
        diag_error(&p->c->diag, at(p, @2), "local '%s' needs an initial value: write "
                   "'%s %s = ...;', or 'field<%s, IJK> %s;' for a temporary field", $2,
                   type_names[$1], $2, type_names[$1], $2);
        $$ = NULL;
    }
|   "field" "<" scalartype axes_opt ">" name ";" {
        $$ = new_stmt(p, STMT_DECL, @1);
        $$->decl.type = $3;
        $$->decl.name = $6;
        $$->decl.name_loc = at(p, @6);
        $$->decl.is_field = true;
        $$->decl.axes = $4 ? $4 : AXES_IJK;
        if (!$4)
            diag_error(&p->c->diag, at(p, @5), "a temporary field needs its axes: "
                       "'field<%s, IJK> %s'", type_names[$3], $6);
    }
|   "field" "<" scalartype axes_opt ">" name "=" expr ";" {
        $$ = new_stmt(p, STMT_DECL, @1);
        $$->decl.type = $3;
        $$->decl.name = $6;
        $$->decl.name_loc = at(p, @6);
        $$->decl.is_field = true;
        $$->decl.axes = $4 ? $4 : AXES_IJK;
        $$->decl.init = $8;
        if (!$4)
            diag_error(&p->c->diag, at(p, @5), "a temporary field needs its axes: "
                       "'field<%s, IJK> %s'", type_names[$3], $6);
    }
;

assign:
    NAME assignop expr ";" {
        $$ = new_stmt(p, STMT_ASSIGN, @1);
        $$->assign.name = $1;
        $$->assign.name_loc = at(p, @1);
        $$->assign.op = $2;
        $$->assign.value = $3;
    }
|   NAME "[" offsets "]" assignop expr ";" {
        diag_error(&p->c->diag, at(p, @2), "assignments always write at zero offset: "
                   "write '%s %s ...' without '[...]'", $1, $5 == OP_PLUS ? "=" :
                   $5 == OP_ADD ? "+=" : $5 == OP_SUB ? "-=" : $5 == OP_MUL ? "*=" : "/=");
        $$ = NULL;
    }
;

/* multi = NAME ',' NAME {',' NAME} '=' expr ';' (sema.c: the expr must be a call) */
multi:
    NAME "," targets "=" expr ";" {
        $$ = new_stmt(p, STMT_MULTI, @1);
        vec_push(p->c->arena, &$$->multi.names, $1);
        vec_push(p->c->arena, &$$->multi.name_locs, at(p, @1));
        for (int t = 0; t < $3->len; t++) {
            vec_push(p->c->arena, &$$->multi.names, $3->items[t]->access.name);
            vec_push(p->c->arena, &$$->multi.name_locs, $3->items[t]->loc);
        }
        $$->multi.value = $5;
    }
;

/* The targets after the first, as accesses without offsets. */
targets:
    NAME {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        Expr *t = new_expr(p, EXPR_ACCESS, @1);
        t->access.name = $1;
        vec_push(p->c->arena, $$, t);
    }
|   targets "," NAME {
        $$ = $1;
        Expr *t = new_expr(p, EXPR_ACCESS, @3);
        t->access.name = $3;
        vec_push(p->c->arena, $$, t);
    }
;

/* return = 'return' expr {',' expr} ';' */
return:
    "return" args ";" {
        $$ = new_stmt(p, STMT_RETURN, @1);
        $$->ret.values = *$2;
    }
;

assignop:
    "="     { $$ = OP_PLUS; }
|   "+="    { $$ = OP_ADD; }
|   "-="    { $$ = OP_SUB; }
|   "*="    { $$ = OP_MUL; }
|   "/="    { $$ = OP_DIV; }
;

ifstmt:
    "if" "(" expr ")" block %prec THEN {
        $$ = new_stmt(p, STMT_IF, @1);
        $$->iff.cond = $3;
        $$->iff.then = *$5;
    }
|   "if" "(" expr ")" block "else" block {
        $$ = new_stmt(p, STMT_IF, @1);
        $$->iff.cond = $3;
        $$->iff.then = *$5;
        $$->iff.els = *$7;
        $$->iff.has_else = true;
    }
;

/* while = 'while' '(' expr ')' block: an `if` that repeats (sema.c, language.md 10.4) */
whilestmt:
    "while" "(" expr ")" block {
        $$ = new_stmt(p, STMT_IF, @1);
        $$->iff.cond = $3;
        $$->iff.then = *$5;
        $$->iff.loop = true;
    }
;

/* region = 'region' '(' range {',' range} ')' block (sema: at most one range per axis) */
regionstmt:
    regionranges ")" block {
        $$ = $1;
        $$->region.body = *$3;
    }
;

regionranges:
    "region" "(" regionrange {
        $$ = new_stmt(p, STMT_REGION, @1);
        vec_push(p->c->arena, &$$->region.ranges, $3);
    }
|   regionranges "," regionrange {
        $$ = $1;
        vec_push(p->c->arena, &$$->region.ranges, $3);
    }
;

/* range = ('i' | 'j') '(' pos ',' pos ')'; 'k' is parsed for sema's message */
regionrange:
    axis "(" regionpos "," regionpos ")" {
        $$ = (RegionRange){.axis = $1, .loc = at(p, @1), .lo = $3, .hi = $5};
    }
;

/* pos = INT | '-' INT | 'end' | 'end' ('+' | '-') INT */
regionpos:
    INTLIT              { $$ = (Level){false, $1}; }
|   "-" INTLIT          { $$ = (Level){false, -$2}; }
|   "end"               { $$ = (Level){true, 0}; }
|   "end" "-" INTLIT    { $$ = (Level){true, -$3}; }
|   "end" "+" INTLIT    { $$ = (Level){true, $3}; }
|   FLOATLIT            {
        diag_error(&p->c->diag, at(p, @1), "a region position is an integer, 'end' or "
                   "'end +/- N', not a floating literal");
        $$ = (Level){false, 0};
    }
|   "-" FLOATLIT        {
        diag_error(&p->c->diag, at(p, @2), "a region position is an integer, 'end' or "
                   "'end +/- N', not a floating literal");
        $$ = (Level){false, 0};
    }
|   NAME                {
        region_pos_name(p, @1, $1);
        $$ = (Level){false, 0};
    }
|   "-" NAME            {
        region_pos_name(p, @2, $2);
        $$ = (Level){false, 0};
    }
|   "end" "-" NAME      {
        region_pos_name(p, @3, $3);
        $$ = (Level){true, 0};
    }
|   "end" "+" NAME      {
        region_pos_name(p, @3, $3);
        $$ = (Level){true, 0};
    }
;

/* block = '{' { statement } '}' | statement */
block:
    "{" stmts "}"       { $$ = $2; }
|   "{" stmts error "}" { $$ = $2; yyerrok; }
|   stmt                {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        push_stmt(p, $$, $1);
    }
;

/* Expressions, with C's precedence and associativity. */
expr:
    expr "?" expr ":" expr {
        $$ = new_expr(p, EXPR_COND, @2);
        $$->cond.cond = $1;
        $$->cond.then = $3;
        $$->cond.els = $5;
        set_depth(p, $$, (const Expr *const[]){$1, $3, $5}, 3);
    }
|   expr "||" expr  { $$ = new_binary(p, OP_OR, $1, $3, @2); }
|   expr "&&" expr  { $$ = new_binary(p, OP_AND, $1, $3, @2); }
|   expr "==" expr  { $$ = new_binary(p, OP_EQ, $1, $3, @2); }
|   expr "!=" expr  { $$ = new_binary(p, OP_NE, $1, $3, @2); }
|   expr "<" expr   { $$ = new_binary(p, OP_LT, $1, $3, @2); }
|   expr "<=" expr  { $$ = new_binary(p, OP_LE, $1, $3, @2); }
|   expr ">" expr   { $$ = new_binary(p, OP_GT, $1, $3, @2); }
|   expr ">=" expr  { $$ = new_binary(p, OP_GE, $1, $3, @2); }
|   expr "+" expr   { $$ = new_binary(p, OP_ADD, $1, $3, @2); }
|   expr "-" expr   { $$ = new_binary(p, OP_SUB, $1, $3, @2); }
|   expr "*" expr   { $$ = new_binary(p, OP_MUL, $1, $3, @2); }
|   expr "/" expr   { $$ = new_binary(p, OP_DIV, $1, $3, @2); }
|   expr "%" expr   { $$ = new_binary(p, OP_MOD, $1, $3, @2); }
|   "-" expr %prec UNARY { $$ = new_unary(p, OP_NEG, $2, @1); }
|   "!" expr %prec UNARY { $$ = new_unary(p, OP_NOT, $2, @1); }
|   "+" expr %prec UNARY { $$ = new_unary(p, OP_PLUS, $2, @1); }
|   primary
;

primary:
    INTLIT {
        $$ = new_expr(p, EXPR_INT, @1);
        $$->ival = $1;
    }
|   FLOATLIT {
        $$ = new_expr(p, EXPR_FLOAT, @1);
        $$->flit.value = $1.value;
        $$->flit.text = $1.text;
    }
|   "true"  { $$ = new_expr(p, EXPR_BOOL, @1); $$->bval = true; }
|   "false" { $$ = new_expr(p, EXPR_BOOL, @1); $$->bval = false; }
|   NAME {
        $$ = new_expr(p, EXPR_ACCESS, @1);
        $$->access.name = $1;
    }
|   NAME "[" offsets "]" {
        $$ = $3;
        $$->loc = at(p, @1);
        $$->access.name = $1;
        for (int o = 0; o < $$->access.noffsets; o++)
            if ($$->access.offsets[o].dyn)
                set_depth(p, $$, (const Expr *const[]){$$->access.offsets[o].dyn}, 1);
    }
|   NAME "(" ")" {
        $$ = new_expr(p, EXPR_CALL, @1);
        $$->call.name = $1;
    }
|   NAME "(" args ")" {
        $$ = new_expr(p, EXPR_CALL, @1);
        $$->call.name = $1;
        $$->call.args = *$3;
        set_depth(p, $$, (const Expr *const *)$3->items, $3->len);
    }
|   NAME "(" args "," "k" ")" {
        $$ = new_expr(p, EXPR_CALL, @1);
        $$->call.name = $1;
        $$->call.args = *$3;
        set_depth(p, $$, (const Expr *const *)$3->items, $3->len);
        $$->call.along_k = true;
    }
|   NAME "(" args "," "i" ")" {
        diag_error(&p->c->diag, at(p, @5), "a column reduction is along 'k' only");
        $$ = new_expr(p, EXPR_CALL, @1);
        $$->call.name = $1;
        $$->call.args = *$3;
        set_depth(p, $$, (const Expr *const *)$3->items, $3->len);
    }
|   NAME "(" args "," "j" ")" {
        diag_error(&p->c->diag, at(p, @5), "a column reduction is along 'k' only");
        $$ = new_expr(p, EXPR_CALL, @1);
        $$->call.name = $1;
        $$->call.args = *$3;
        set_depth(p, $$, (const Expr *const *)$3->items, $3->len);
    }
|   "index" "(" axis ")" {
        $$ = new_expr(p, EXPR_INDEX, @1);
        $$->index.axis = $3;
    }
|   scalartype "(" expr ")" {
        if ($1 == TY_BOOL)
            diag_error(&p->c->diag, at(p, @1), "there is no conversion to bool; compare "
                       "instead, e.g. x != 0");
        $$ = new_expr(p, EXPR_CONVERT, @1);
        $$->convert.type = $1;
        $$->convert.a = $3;
        set_depth(p, $$, (const Expr *const[]){$3}, 1);
    }
|   "(" expr ")" { $$ = $2; }
;

args:
    expr {
        $$ = arena_alloc(p->c->arena, sizeof *$$);
        vec_push(p->c->arena, $$, $1);
    }
|   args "," expr { $$ = $1; vec_push(p->c->arena, $$, $3); }
;

/* offset = ('i' | 'j' | 'k') [ ('+'|'-') INT ] | 'k' ('+'|'-'|'=') '(' expr ')',
   each axis at most once */
offsets:
    offset {
        $$ = new_expr(p, EXPR_ACCESS, @1);
        $$->access.has_brackets = true;
        add_offset(p, $$, $1);
    }
|   offsets "," offset { $$ = $1; add_offset(p, $$, $3); }
;

offset:
    axis                { $$ = (Offset){$1, 0, at(p, @1), KDYN_NONE, NULL}; }
|   axis "+" INTLIT     { $$ = (Offset){$1, $3, at(p, @1), KDYN_NONE, NULL}; }
|   axis "-" INTLIT     { $$ = (Offset){$1, -$3, at(p, @1), KDYN_NONE, NULL}; }
    /* run-time K offsets (language.md 10.3): k + (e), k - (e), k = (e) */
|   axis "+" "(" expr ")"   { $$ = dyn_offset(p, $1, KDYN_ADD, $4, @1); }
|   axis "-" "(" expr ")"   { $$ = dyn_offset(p, $1, KDYN_SUB, $4, @1); }
|   axis "=" "(" expr ")"   { $$ = dyn_offset(p, $1, KDYN_ABS, $4, @1); }
;

%%

static Expr *new_expr(Parser *p, ExprKind kind, YYLTYPE l)
{
    Expr *e = arena_alloc(p->c->arena, sizeof *e);
    e->kind = kind;
    e->loc = at(p, l);
    return e;
}

/* e->depth from its operands'; an error (once) past PARSE_MAX_EXPR_DEPTH,
 * and the parse stops. */
static void set_depth(Parser *p, Expr *e, const Expr *const *child, int n)
{
    int depth = 0;
    for (int i = 0; i < n; i++)
        if (child[i] && child[i]->depth > depth)
            depth = child[i]->depth;
    e->depth = depth + 1;
    if (e->depth > PARSE_MAX_EXPR_DEPTH && !p->fatal) {
        diag_error(&p->c->diag, e->loc, "expression nested too deeply: more than %d "
                   "operators deep (a sum of that many terms, say); split it with "
                   "temporaries", PARSE_MAX_EXPR_DEPTH);
        p->fatal = true;
    }
}

static Expr *new_binary(Parser *p, Op op, Expr *a, Expr *b, YYLTYPE l)
{
    Expr *e = new_expr(p, EXPR_BINARY, l);
    e->op.op = op;
    e->op.a = a;
    e->op.b = b;
    set_depth(p, e, (const Expr *const[]){a, b}, 2);
    return e;
}

static Expr *new_unary(Parser *p, Op op, Expr *a, YYLTYPE l)
{
    Expr *e = new_expr(p, EXPR_UNARY, l);
    e->op.op = op;
    e->op.a = a;
    set_depth(p, e, (const Expr *const[]){a}, 1);
    return e;
}

static Stmt *new_stmt(Parser *p, StmtKind kind, YYLTYPE l)
{
    Stmt *s = arena_alloc(p->c->arena, sizeof *s);
    s->kind = kind;
    s->loc = at(p, l);
    return s;
}

/* A name where a region position goes (positions are integer literals). */
static void region_pos_name(Parser *p, YYLTYPE l, const char *name)
{
    diag_error(&p->c->diag, at(p, l), "a region position is an integer, 'end' or 'end +/- N', "
               "not '%s'; a const cannot stand for one (write its value), and for a condition "
               "on the position use an if on index(i) or index(j)", name);
}

static void push_stmt(Parser *p, StmtVec *v, Stmt *s)
{
    if (s)
        vec_push(p->c->arena, v, s);
}

/* A run-time offset along axis: K only (anything else is reported and read
 * as offset 0). */
static Offset dyn_offset(Parser *p, int axis, KdynMode mode, Expr *e, YYLTYPE l)
{
    Offset o = {axis, 0, at(p, l), KDYN_NONE, NULL};
    if (axis != AXIS_K) {
        diag_error(&p->c->diag, o.loc, "only 'k' takes a run-time offset; an offset along '%c' "
                   "is a compile-time integer, like '%c+1'", "ijk"[axis], "ijk"[axis]);
        return o;
    }
    o.dyn_mode = mode;
    o.dyn = e;
    return o;
}

/* Adds an offset to an access, unless its axis is already there. */
static void add_offset(Parser *p, Expr *e, Offset o)
{
    for (int i = 0; i < e->access.noffsets; i++) {
        if (e->access.offsets[i].axis == o.axis) {
            diag_error(&p->c->diag, o.loc, "axis '%c' appears twice in this offset; each axis "
                       "may be given once", "ijk"[o.axis]);
            diag_note(&p->c->diag, e->access.offsets[i].loc, "'%c' first given here",
                      "ijk"[o.axis]);
            return;
        }
    }
    e->access.offsets[e->access.noffsets++] = o;
}

/* AXES of a field type: IJK, IJ, IK, JK, I, J or K. */
static unsigned parse_axes(Parser *p, const char *name, YYLTYPE l)
{
    unsigned axes = 0;
    bool bad = false, dup = false;
    for (const char *s = name; *s; s++) {
        int a = *s == 'I' ? AXIS_I : *s == 'J' ? AXIS_J : *s == 'K' ? AXIS_K : -1;
        if (a < 0 || s - name >= 3) {
            bad = true;
            break;
        }
        if (axes & (1u << a))
            dup = true;
        axes |= 1u << a;
    }
    const char *canon = axes_name(axes);
    if (bad || dup || axes == 0) {
        diag_error(&p->c->diag, at(p, l), "unknown axes '%.40s%s'; expected IJK, IJ, IK, JK, "
                   "I, J or K", name, strlen(name) > 40 ? "..." : "");
        return AXES_IJK;
    }
    if (strcmp(canon, name) != 0)
        diag_error(&p->c->diag, at(p, l), "axes are written in the order I, J, K: '%s', "
                   "not '%s'", canon, name);
    return axes;
}

static void add_item(Parser *p, BodyItem item)
{
    vec_push(p->c->arena, &p->st->body, item);
}

/* A statement at the top of a stencil body goes into the open implicit
 * computation, or opens one. */
static void add_toplevel_stmt(Parser *p, Stmt *s, YYLTYPE l)
{
    if (!s)
        return;
    if (!p->implicit) {
        Computation *comp = arena_alloc(p->c->arena, sizeof *comp);
        comp->loc = at(p, l);
        comp->order = ORDER_PARALLEL;
        comp->implicit = true;
        Interval *in = arena_alloc(p->c->arena, sizeof *in);
        in->loc = comp->loc;
        in->lo = (Level){false, 0};
        in->hi = (Level){true, 0};
        in->lo_loc = in->hi_loc = comp->loc;
        vec_push(p->c->arena, &comp->intervals, in);
        add_item(p, (BodyItem){.kind = ITEM_COMPUTATION, .computation = comp});
        p->implicit = comp;
    }
    vec_push(p->c->arena, &p->implicit->intervals.items[0]->stmts, s);
}

/* --------------------------------------------------------- error messages */

/* How a grammar symbol is named in messages: 'if', identifier, expression... */
static const char *symbol_text(Parser *p, yysymbol_kind_t sym)
{
    switch (sym) {
    case YYSYMBOL_YYEOF: return "end of file";
    case YYSYMBOL_NAME: return "identifier";
    case YYSYMBOL_STRING: return "string literal";
    case YYSYMBOL_INTLIT: return "integer literal";
    case YYSYMBOL_FLOATLIT: return "floating literal";
    case YYSYMBOL_INVALID: return "invalid character";
    default: break;
    }
    /* Aliases of punctuation and keywords: show "if" as 'if'. */
    return arena_printf(p->c->arena, "'%s'", yysymbol_name(sym));
}

/* The lookahead as "saw ..." shows it. */
static const char *saw_text(Parser *p, yysymbol_kind_t la)
{
    if (la == YYSYMBOL_YYEOF)
        return "end of file";
    if (la == YYSYMBOL_YYEMPTY || la == YYSYMBOL_YYerror || la == YYSYMBOL_YYUNDEF)
        return "this";
    if (p->tok == TOK_SEMI && p->tok_text[0] == '}')
        return "'}'";
    char clean[sizeof p->tok_text];
    size_t n = 0;
    for (const char *s = p->tok_text; *s && n + 1 < sizeof clean; s++)
        clean[n++] = (unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f ? '?' : *s;
    clean[n] = '\0';
    return arena_printf(p->c->arena, "'%.40s%s'", clean, p->tok_len > 40 ? "..." : "");
}

static bool is_keyword(yysymbol_kind_t sym)
{
    return sym >= YYSYMBOL_STENCIL && sym <= YYSYMBOL_WHILE;
}

static bool ends_expression(int tok)
{
    return tok == TOK_NAME || tok == TOK_INTLIT || tok == TOK_FLOATLIT || tok == TOK_TRUE
        || tok == TOK_FALSE || tok == TOK_RPAREN || tok == TOK_RBRACKET || tok == TOK_STRING;
}

/* The message for an invalid character (the INVALID token). */
static void report_invalid(Parser *p, Loc loc)
{
    const unsigned char *s = (const unsigned char *)p->tok_text;
    Diag *d = &p->c->diag;
    if (p->tok_len == 0 || s[0] == 0) {
        diag_error(d, loc, "stray null byte in program");
    } else if (s[0] >= 0xc0 && p->tok_len >= 2) {
        unsigned cp = s[0] & (s[0] >= 0xf0 ? 0x07 : s[0] >= 0xe0 ? 0x0f : 0x1f);
        for (size_t i = 1; i < p->tok_len && i < 4; i++)
            cp = cp << 6 | (s[i] & 0x3f);
        diag_error(d, loc, "invalid character U+%04X in program; names and operators are ASCII",
                   cp);
    } else if (s[0] >= 0x80 || s[0] < 0x20 || s[0] == 0x7f) {
        diag_error(d, loc, "stray byte 0x%02x in program", s[0]);
    } else {
        const char *hint = "";
        switch (s[0]) {
        case '&': hint = "; did you mean '&&'?"; break;
        case '|': hint = "; did you mean '||'?"; break;
        case '#': hint = "; comments start with '//'"; break;
        case '\'': hint = "; the only strings are import paths, in '\"'"; break;
        case '.':
            hint = p->nbrackets > 0 && p->brackets[p->nbrackets - 1].tok == TOK_LPAREN
                    && p->brackets[p->nbrackets - 1].after == TOK_INTERVAL
                ? "; the whole column is 'interval(0, end)' (GT4Py's 'interval(...)')"
                : "; there are no structure members";
            break;
        default: break;
        }
        diag_error(d, loc, "invalid character '%c' in program%s", s[0], hint);
    }
}

enum { MAX_LISTED = 5 };

static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, Parser *p)
{
    (void)scanner;
    yysymbol_kind_t la = yypcontext_token(ctx);
    Loc loc = at(p, *yypcontext_location(ctx));
    if (la == YYSYMBOL_YYEOF && p->prev_end.file)
        loc = p->prev_end;   /* just after the last token, not on a line of its own */
    Diag *d = &p->c->diag;
    /* Nothing to add after a limit, or right after a token the scanner
     * already reported (an unterminated comment or string). */
    if (p->fatal || p->tok_bad || p->prev_bad) {
        lex_begin_skip(p);
        return 0;
    }
    if (la == YYSYMBOL_INVALID) {
        report_invalid(p, loc);
        lex_begin_skip(p);
        return 0;
    }

    yysymbol_kind_t exp[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
    bool has[YYNTOKENS] = {false};
    for (int i = 0; i < n; i++)
        has[exp[i]] = true;
    /* Where a name is declared every keyword is accepted too (see `name`):
     * only the name is worth mentioning. */
    if (has[YYSYMBOL_NAME] && has[YYSYMBOL_STENCIL] && has[YYSYMBOL_INDEX]) {
        int kept = 0;
        for (int i = 0; i < n; i++)
            if (!is_keyword(exp[i]))
                exp[kept++] = exp[i];
            else
                has[exp[i]] = false;
        n = kept;
    }
    const char *saw = saw_text(p, la);
    const char *hint = "";

    /* The innermost open bracket. The lookahead, if it opens a bracket, is already on the
     * stack; if it closes one, that one is off it (closed_after). */
    int inner = p->nbrackets - 1
        - (la == YYSYMBOL_LPAREN || la == YYSYMBOL_LBRACKET || la == YYSYMBOL_LBRACE);

    /* Right inside 'region(': the grammar takes any axis there and sema
     * refuses k, so the list names only i and j. */
    int opened_after = la == YYSYMBOL_RPAREN ? p->closed_after
        : inner >= 0 && p->brackets[inner].tok == TOK_LPAREN ? p->brackets[inner].after : 0;
    bool in_region = opened_after == TOK_REGION && has[YYSYMBOL_AXIS_I] && has[YYSYMBOL_AXIS_K];
    if (in_region) {
        int kept = 0;
        for (int i = 0; i < n; i++)
            if (exp[i] != YYSYMBOL_AXIS_K)
                exp[kept++] = exp[i];
        n = kept;
        has[YYSYMBOL_AXIS_K] = false;
    }

    /* Hints for common slips. */
    if (in_region)
        hint = "; a region restricts i and j, as in 'region(i(0, 2), j(end-1, end))'";
    else if (la == YYSYMBOL_MOD_ASSIGN)
        hint = "; there is no '%=': write 'x = x % y'";
    else if (la == YYSYMBOL_ELSE)
        hint = "; 'else' without a matching 'if'";
    else if (la == YYSYMBOL_ASSIGN && has[YYSYMBOL_EQ])
        hint = "; did you mean '=='?";
    else if ((la == YYSYMBOL_AXIS_I || la == YYSYMBOL_AXIS_J || la == YYSYMBOL_AXIS_K)
             && has[YYSYMBOL_FLOATLIT])
        hint = arena_printf(p->c->arena, "; '%s' names an axis: write 'index(%s)' for the "
                            "position along it", p->tok_text, p->tok_text);
    else if (is_keyword(la) && has[YYSYMBOL_NAME] && !has[YYSYMBOL_IF])
        hint = arena_printf(p->c->arena, "; '%s' is a keyword and cannot be a name",
                            p->tok_text);
    else if (la == YYSYMBOL_COMPUTATION && p->prev_tok == TOK_NAME
             && strcmp(p->last_name, "with") == 0)
        hint = "; there is no 'with': write 'computation(parallel) interval(0, end) { ... }'";
    else if (la == YYSYMBOL_NAME && has[YYSYMBOL_FUNCTION] && has[YYSYMBOL_STENCIL]
             && strcmp(p->tok_text, "def") == 0)
        hint = "; write 'function NAME(PARAMS) { ... }', or 'stencil NAME(PARAMS) { ... }' for "
               "a stencil";
    else if (la == YYSYMBOL_COMMA && has[YYSYMBOL_INTERVAL])
        hint = "; no ',' between them: write 'computation(parallel) interval(0, end) { ... }'";
    else if (la == YYSYMBOL_INTERVAL && has[YYSYMBOL_IF])
        hint = "; 'interval' goes inside 'computation(...)'";
    else if (has[YYSYMBOL_INTERVAL] && !has[YYSYMBOL_IF] && la != YYSYMBOL_RBRACE)
        hint = "; the statements of a computation go inside 'interval(LO, HI) { ... }'";
    else if (la == YYSYMBOL_LPAREN && p->prev_tok == TOK_NAME && has[YYSYMBOL_ASSIGN]
             && strcmp(p->last_name, "for") == 0)
        hint = "; there are no for loops: the K loop is 'computation(forward)' or "
               "'computation(backward)', I and J are implicit, and a loop at each point is "
               "'while (cond) { ... }'";
    else if (la == YYSYMBOL_INTLIT && has[YYSYMBOL_AXIS_I] && !has[YYSYMBOL_INTLIT])
        hint = "; an offset is written like 'i+1' or 'k-1'";
    else if (la == YYSYMBOL_NAME && has[YYSYMBOL_INTLIT] && has[YYSYMBOL_LPAREN]
             && !has[YYSYMBOL_FLOATLIT] && !has[YYSYMBOL_NAME])
        hint = "; an offset is an integer literal, not a name (not a const either); only K "
               "takes one computed at run time, written 'k + (EXPR)'";
    /* Python's spellings, as a GT4Py stencil has them */
    else if (la == YYSYMBOL_STAR && p->prev_tok == TOK_STAR && has[YYSYMBOL_FLOATLIT]
             && p->prev_end.line == loc.line && p->prev_end.col == loc.col)   /* '**', not '* *' */
        hint = "; there is no '**': write 'pow(a, b)'";
    else if (la == YYSYMBOL_LPAREN && p->prev_tok == TOK_NAME && has[YYSYMBOL_ASSIGN]
             && strcmp(p->last_name, "elif") == 0)
        hint = "; write 'else if'";
    else if (la == YYSYMBOL_NAME && !has[YYSYMBOL_NAME]
             && (strcmp(p->tok_text, "and") == 0 || strcmp(p->tok_text, "or") == 0))
        hint = arena_printf(p->c->arena, "; write '%s' for '%s'",
                            p->tok_text[0] == 'a' ? "&&" : "||", p->tok_text);
    else if (p->prev_tok == TOK_NAME && strcmp(p->last_name, "not") == 0
             && !has[YYSYMBOL_FLOATLIT])
        hint = "; write '!' for 'not'";
    else if (la == YYSYMBOL_IF && has[YYSYMBOL_QUESTION])
        hint = "; a conditional expression is written 'c ? a : b'";

    /* expected ';' after expression: point just after the expression. */
    if (has[YYSYMBOL_SEMI] && !has[YYSYMBOL_COMMA] && !has[YYSYMBOL_RPAREN]
        && !has[YYSYMBOL_RBRACKET]) {
        Loc after = p->prev_end.file ? p->prev_end : loc;
        if (ends_expression(p->prev_tok) && !(la == YYSYMBOL_EQ && has[YYSYMBOL_ASSIGN]))
            diag_error(d, after, "expected ';' after %s, saw %s%s",
                       p->prev_tok == TOK_STRING ? "import path" : "expression", saw, hint);
        else
            diag_error(d, after, "expected ';', saw %s%s", saw, hint);
        if (p->tok_loc.line > p->prev_end.line)
            lex_insert_semi(p);
        else
            lex_begin_skip(p);
        return 0;
    }

    /* The closing bracket that would match the innermost open one: named
     * last, with where it was opened. A '{' is named only at the end of the
     * file (elsewhere a missing '}' is rarely the mistake). */
    yysymbol_kind_t want = YYSYMBOL_YYEMPTY;
    const char *closing = "";
    if (inner >= 0) {
        int top = p->brackets[inner].tok;
        want = top == TOK_LPAREN ? YYSYMBOL_RPAREN
             : top == TOK_LBRACKET ? YYSYMBOL_RBRACKET : YYSYMBOL_RBRACE;
        Loc open = p->brackets[inner].loc;
        if (!has[want] || la == want || (top == TOK_LBRACE && la != YYSYMBOL_YYEOF)) {
            want = YYSYMBOL_YYEMPTY;
        } else {
            const char *o = top == TOK_LPAREN ? "(" : top == TOK_LBRACKET ? "[" : "{";
            closing = open.line == loc.line
                ? arena_printf(p->c->arena, " to close '%s'", o)
                : arena_printf(p->c->arena, " to close '%s' at line %d", o, open.line);
        }
    }

    /* Name what was expected, with classes for long lists. */
    const char *items[YYNTOKENS + 1];
    int nitems = 0;
    bool expr_class = has[YYSYMBOL_INTLIT] && has[YYSYMBOL_FLOATLIT];
    bool stmt_class = has[YYSYMBOL_IF];
    bool type_class = has[YYSYMBOL_DOUBLE] && has[YYSYMBOL_BOOL];
    bool level_class = has[YYSYMBOL_END] && has[YYSYMBOL_INTLIT] && !has[YYSYMBOL_FLOATLIT];
    bool after_name = p->prev_tok == TOK_NAME;
    if (stmt_class)
        items[nitems++] = "statement";
    else if (expr_class)
        items[nitems++] = "expression";
    else if (type_class)
        items[nitems++] = "type";
    else if (level_class)
        items[nitems++] = "level (an integer, 'end' or 'end - N')";
    for (int i = 0; i < n; i++) {
        yysymbol_kind_t s = exp[i];
        bool binop = s == YYSYMBOL_QUESTION || (s >= YYSYMBOL_PLUS && s <= YYSYMBOL_OR);
        bool starter = s == YYSYMBOL_INTLIT || s == YYSYMBOL_FLOATLIT || s == YYSYMBOL_TRUE
            || s == YYSYMBOL_FALSE || s == YYSYMBOL_NAME || s == YYSYMBOL_INDEX
            || s == YYSYMBOL_LPAREN || s == YYSYMBOL_MINUS || s == YYSYMBOL_PLUS
            || s == YYSYMBOL_NOT;
        bool type = s == YYSYMBOL_DOUBLE || s == YYSYMBOL_FLOAT || s == YYSYMBOL_INT
            || s == YYSYMBOL_BOOL;
        bool stmt_start = type || s == YYSYMBOL_IF || s == YYSYMBOL_REGION || s == YYSYMBOL_FIELD
            || s == YYSYMBOL_WHILE
            || s == YYSYMBOL_NAME || s == YYSYMBOL_COMPUTATION || s == YYSYMBOL_BOUNDARY
            || s == YYSYMBOL_RETURN;
        bool compound = s >= YYSYMBOL_ADD_ASSIGN && s <= YYSYMBOL_DIV_ASSIGN;
        if ((stmt_class && stmt_start) || (expr_class && starter) || (type_class && type)
            || level_class)
            continue;
        bool axis = s == YYSYMBOL_AXIS_I || s == YYSYMBOL_AXIS_J || s == YYSYMBOL_AXIS_K;
        if (expr_class && axis)
            continue;   /* `sum(e, k)`: not worth naming where any expression goes */
        if (binop && has[YYSYMBOL_PLUS] && (n > MAX_LISTED || has[YYSYMBOL_RPAREN]
                      || has[YYSYMBOL_RBRACKET] || has[YYSYMBOL_COMMA] || has[YYSYMBOL_COLON]))
            continue;   /* the expression could go on: not worth listing */
        if ((s == YYSYMBOL_LPAREN || s == YYSYMBOL_LBRACKET) && after_name && !expr_class)
            continue;   /* a call or an access could go on */
        if ((compound || s == YYSYMBOL_COMMA) && has[YYSYMBOL_ASSIGN] && has[YYSYMBOL_ADD_ASSIGN])
            continue;   /* '=' stands for all assignments, multiple ones too */
        if (s == want || (s == YYSYMBOL_YYEOF && n > 1))
            continue;   /* named last; the end of file is no advice */
        items[nitems++] = symbol_text(p, s);
    }
    if (want != YYSYMBOL_YYEMPTY)
        items[nitems++] = arena_printf(p->c->arena, "%s%s", symbol_text(p, want), closing);

    if (nitems == 0 || nitems > MAX_LISTED) {
        diag_error(d, loc, "unexpected %s%s", saw, hint);
    } else {
        char list[1024] = "";
        size_t len = 0;
        for (int i = 0; i < nitems && len < sizeof list; i++) {
            const char *sep = i == 0 ? "" : i == nitems - 1 ? " or " : ", ";
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", sep, items[i]);
        }
        diag_error(d, loc, "expected %s, saw %s%s", list, saw, hint);
    }
    lex_begin_skip(p);
    return 0;
}

/* Called by Bison only when its stack is exhausted (syntax errors go through
 * yyreport_syntax_error). */
static void yyerror(const YYLTYPE *loc, yyscan_t scanner, Parser *p, const char *msg)
{
    (void)scanner;
    (void)msg;
    if (!p->fatal)
        diag_error(&p->c->diag, at(p, *loc), "program nested too deeply for the parser "
                   "(the limit is %d levels)", YYMAXDEPTH);
    p->fatal = true;
}

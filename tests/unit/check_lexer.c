/* check_lexer.c: the scanner (grammar/stencil.l) on its own: token kinds,
 * values, locations, and the diagnostics for malformed tokens. Each test
 * scans a string through yylex, as the parser would, with diagnostics going
 * to a memory buffer. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"
#include "parser.h"
#include "lexer.h"

enum { MAX_TOKENS = 64 };

typedef struct {
    Compiler *c;
    char *diag;               /* everything the scanner reported */
    size_t diag_len;
    FILE *diag_out;
    int n;
    int kind[MAX_TOKENS];
    YYSTYPE val[MAX_TOKENS];
    YYLTYPE loc[MAX_TOKENS];
} Scan;

/* Scans text (len bytes) to the end of input or MAX_TOKENS tokens. */
static void scan_bytes(Scan *s, const char *text, size_t len)
{
    memset(s, 0, sizeof *s);
    s->diag_out = open_memstream(&s->diag, &s->diag_len);
    s->c = compiler_new(s->diag_out);
    SourceFile *src = arena_alloc(s->c->arena, sizeof *src);
    src->path = "t.stn";
    src->text = arena_strndup(s->c->arena, text, len);
    src->len = len;
    vec_push(s->c->arena, &s->c->diag.sources, src);

    Parser *p = arena_alloc(s->c->arena, sizeof *p);
    p->c = s->c;
    p->file = "t.stn";
    p->line = p->col = 1;
    yyscan_t scanner;
    ck_assert_int_eq(yylex_init_extra(p, &scanner), 0);
    YY_BUFFER_STATE buf = yy_scan_bytes(text, (int)len, scanner);
    while (s->n < MAX_TOKENS) {
        int k = yylex(&s->val[s->n], &s->loc[s->n], scanner);
        s->kind[s->n++] = k;
        if (k == TOK_YYEOF)
            break;
    }
    yy_delete_buffer(buf, scanner);
    yylex_destroy(scanner);
    fflush(s->diag_out);
}

static void scan(Scan *s, const char *text)
{
    scan_bytes(s, text, strlen(text));
}

static void done(Scan *s)
{
    compiler_free(s->c);
    fclose(s->diag_out);
    free(s->diag);
}

START_TEST(test_keywords_and_names)
{
    Scan s;
    scan(&s, "stencil function const import return if else computation interval parallel "
             "forward backward end boundary periodic dirichlet neumann mirror field out "
             "double float int bool true false i j k index");
    static const int want[] = {
        TOK_STENCIL, TOK_FUNCTION, TOK_CONST, TOK_IMPORT, TOK_RETURN, TOK_IF, TOK_ELSE,
        TOK_COMPUTATION, TOK_INTERVAL, TOK_PARALLEL, TOK_FORWARD, TOK_BACKWARD, TOK_END,
        TOK_BOUNDARY, TOK_PERIODIC, TOK_DIRICHLET, TOK_NEUMANN, TOK_MIRROR, TOK_FIELD, TOK_OUT,
        TOK_DOUBLE, TOK_FLOAT, TOK_INT, TOK_BOOL, TOK_TRUE, TOK_FALSE, TOK_AXIS_I, TOK_AXIS_J,
        TOK_AXIS_K, TOK_INDEX, TOK_YYEOF};
    ck_assert_int_eq(s.n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < s.n; i++)
        ck_assert_int_eq(s.kind[i], want[i]);
    done(&s);

    scan(&s, "indexes ij _k K end_ sum out_u");
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(s.kind[i], TOK_NAME);
    ck_assert_str_eq(s.val[0].name, "indexes");
    ck_assert_str_eq(s.val[6].name, "out_u");
    ck_assert_int_eq(s.kind[7], TOK_YYEOF);
    done(&s);
}
END_TEST

START_TEST(test_operators)
{
    Scan s;
    scan(&s, "( ) { } [ ] ; , : ? = += -= *= /= + - * / % < <= > >= == != && || !");
    static const int want[] = {
        TOK_LPAREN, TOK_RPAREN, TOK_LBRACE, TOK_RBRACE, TOK_LBRACKET, TOK_RBRACKET, TOK_SEMI,
        TOK_COMMA, TOK_COLON, TOK_QUESTION, TOK_ASSIGN, TOK_ADD_ASSIGN, TOK_SUB_ASSIGN,
        TOK_MUL_ASSIGN, TOK_DIV_ASSIGN, TOK_PLUS, TOK_MINUS, TOK_STAR, TOK_SLASH, TOK_PERCENT,
        TOK_LT, TOK_LE, TOK_GT, TOK_GE, TOK_EQ, TOK_NE, TOK_AND, TOK_OR, TOK_NOT, TOK_YYEOF};
    ck_assert_int_eq(s.n, (int)(sizeof want / sizeof want[0]));
    for (int i = 0; i < s.n; i++)
        ck_assert_int_eq(s.kind[i], want[i]);
    ck_assert_uint_eq(s.diag_len, 0);
    done(&s);

    /* Longest match: "a<=b" is three tokens, "--x" two minus signs. */
    scan(&s, "a<=b--x");
    ck_assert_int_eq(s.kind[1], TOK_LE);
    ck_assert_int_eq(s.kind[3], TOK_MINUS);
    ck_assert_int_eq(s.kind[4], TOK_MINUS);
    done(&s);
}
END_TEST

START_TEST(test_numbers)
{
    Scan s;
    scan(&s, "0 42 9223372036854775807 1.0 .5 2. 1e-3 6.02E23 1E+2");
    ck_assert_int_eq(s.kind[0], TOK_INTLIT);
    ck_assert_int_eq(s.val[0].ival, 0);
    ck_assert_int_eq(s.val[1].ival, 42);
    ck_assert_int_eq(s.val[2].ival, INT64_MAX);
    for (int i = 3; i < 9; i++)
        ck_assert_int_eq(s.kind[i], TOK_FLOATLIT);
    ck_assert_double_eq(s.val[3].flit.value, 1.0);
    ck_assert_double_eq(s.val[4].flit.value, 0.5);
    ck_assert_double_eq(s.val[5].flit.value, 2.0);
    ck_assert_double_eq_tol(s.val[6].flit.value, 1e-3, 1e-18);
    ck_assert_double_eq_tol(s.val[7].flit.value, 6.02e23, 1e8);
    ck_assert_str_eq(s.val[6].flit.text, "1e-3");
    ck_assert_str_eq(s.val[7].flit.text, "6.02E23");
    ck_assert_uint_eq(s.diag_len, 0);
    done(&s);
}
END_TEST

/* Each bad literal: one error naming it, and a token that keeps the parse going. */
static const struct {
    const char *text;
    const char *message;
} bad_numbers[] = {
    {"9223372036854775808", "integer literal '9223372036854775808' is too large"},
    {"99999999999999999999999", "is too large (the largest is 9223372036854775807)"},
    {"1e999", "floating literal '1e999' is too large for double"},
    {"1e", "invalid floating literal '1e': the exponent has no digits"},
    {"2.5e+", "invalid floating literal '2.5e+': the exponent has no digits"},
    {"0x10", "invalid numeric literal '0x10': only decimal literals exist"},
    {"007", "invalid integer literal '007': leading zeros are not allowed"},
    {"1.5f", "invalid numeric literal '1.5f': literals take no suffix"},
    {"1.2.3", "invalid numeric literal '1.2.3': a number has at most one '.'"},
    {"3abc", "invalid numeric literal '3abc'"},
};

START_TEST(test_bad_numbers)
{
    Scan s;
    scan(&s, bad_numbers[_i].text);
    ck_assert(s.kind[0] == TOK_INTLIT || s.kind[0] == TOK_FLOATLIT);
    ck_assert_int_eq(s.kind[1], TOK_YYEOF);
    ck_assert_int_eq(s.c->diag.errors, 1);
    ck_assert_msg(strstr(s.diag, bad_numbers[_i].message), "got: %s", s.diag);
    ck_assert_msg(strncmp(s.diag, "t.stn:1:1: error: ", 18) == 0, "got: %s", s.diag);
    done(&s);
}
END_TEST

START_TEST(test_locations)
{
    Scan s;
    scan(&s, "a  b\n\tc /* x\n y */ d // e\n\n  f");
    ck_assert_int_eq(s.loc[0].first_line, 1);
    ck_assert_int_eq(s.loc[0].first_column, 1);
    ck_assert_int_eq(s.loc[1].first_column, 4);
    ck_assert_int_eq(s.loc[2].first_line, 2);
    ck_assert_int_eq(s.loc[2].first_column, 2);   /* a tab is one byte */
    ck_assert_int_eq(s.loc[3].first_line, 3);
    ck_assert_int_eq(s.loc[3].first_column, 7);
    ck_assert_int_eq(s.loc[4].first_line, 5);
    ck_assert_int_eq(s.loc[4].first_column, 3);
    ck_assert_int_eq(s.kind[5], TOK_YYEOF);
    done(&s);
}
END_TEST

/* A lone CR ends a line as LF and CR LF do (GCC takes all three): a "//"
 * comment stops at it, and a message quotes the right line. Before, a file of
 * lone CRs was one line, and its first "//" comment hid the rest of it. */
START_TEST(test_line_endings)
{
    Scan s;
    scan(&s, "a // one\rb /* two\r\n */ c\r\n\rd \"e\rf");
    static const int want_kind[] = {TOK_NAME, TOK_NAME, TOK_NAME, TOK_NAME, TOK_STRING,
                                    TOK_NAME, TOK_YYEOF};
    static const int want_line[] = {1, 2, 3, 5, 5, 6};
    static const int want_col[] = {1, 1, 5, 1, 3, 1};
    ck_assert_int_eq(s.n, 7);
    for (int i = 0; i < 7; i++)
        ck_assert_int_eq(s.kind[i], want_kind[i]);
    for (int i = 0; i < 6; i++) {
        ck_assert_int_eq(s.loc[i].first_line, want_line[i]);
        ck_assert_int_eq(s.loc[i].first_column, want_col[i]);
    }
    ck_assert_str_eq(s.val[1].name, "b");
    ck_assert_str_eq(s.val[4].name, "e");   /* a string ends at a lone CR too */
    ck_assert_msg(strstr(s.diag, "t.stn:5:3: error: missing terminating '\"' character\n"
                                 " d \"e\n   ^\n"), "got: %s", s.diag);
    done(&s);
}
END_TEST

START_TEST(test_comments_and_strings)
{
    Scan s;
    scan(&s, "import \"lib/a b.stn\"; /* multi\nline * / */ x // end");
    ck_assert_int_eq(s.kind[1], TOK_STRING);
    ck_assert_str_eq(s.val[1].name, "lib/a b.stn");
    ck_assert_int_eq(s.kind[3], TOK_NAME);
    ck_assert_int_eq(s.kind[4], TOK_YYEOF);
    ck_assert_uint_eq(s.diag_len, 0);
    done(&s);

    scan(&s, "x /* never\nclosed");
    ck_assert_int_eq(s.kind[1], TOK_YYEOF);
    ck_assert_msg(strstr(s.diag, "t.stn:1:3: error: unterminated comment"), "got: %s", s.diag);
    done(&s);

    scan(&s, "import \"lib.stn;\nx");
    ck_assert_int_eq(s.kind[1], TOK_STRING);
    ck_assert_int_eq(s.kind[2], TOK_NAME);
    ck_assert_msg(strstr(s.diag, "t.stn:1:8: error: missing terminating '\"' character"),
                  "got: %s", s.diag);
    done(&s);
}
END_TEST

START_TEST(test_invalid_bytes)
{
    Scan s;
    /* '@', a two-byte UTF-8 character, a NUL, a lone 0xff byte. */
    scan_bytes(&s, "a @ \xc3\xa9 \0 \xff b", 12);
    ck_assert_int_eq(s.kind[0], TOK_NAME);
    ck_assert_int_eq(s.kind[1], TOK_INVALID);
    ck_assert_int_eq(s.kind[2], TOK_INVALID);
    ck_assert_int_eq(s.loc[3].first_column, 8);
    ck_assert_int_eq(s.kind[3], TOK_INVALID);
    ck_assert_int_eq(s.kind[4], TOK_INVALID);
    ck_assert_int_eq(s.kind[5], TOK_NAME);
    ck_assert_int_eq(s.kind[6], TOK_YYEOF);
    ck_assert_int_eq(s.c->diag.errors, 0);   /* the parser names them */
    done(&s);
}
END_TEST

START_TEST(test_long_identifier)
{
    enum { N = 100000 };
    char *text = malloc(N + 3);
    memset(text, 'a', N);
    strcpy(text + N, " b");
    Scan s;
    scan(&s, text);
    ck_assert_int_eq(s.kind[0], TOK_NAME);
    ck_assert_uint_eq(strlen(s.val[0].name), N);
    ck_assert_int_eq(s.kind[1], TOK_NAME);
    ck_assert_int_eq(s.loc[1].first_column, N + 2);
    done(&s);
    free(text);
}
END_TEST

START_TEST(test_nesting_limit)
{
    enum { DEPTH = PARSE_MAX_NESTING + 5 };
    char text[DEPTH + 1];
    memset(text, '(', DEPTH);
    text[DEPTH] = '\0';
    Scan s;
    scan(&s, text);   /* stops at MAX_TOKENS: the limit is far away */
    ck_assert_int_eq(s.c->diag.errors, 0);
    done(&s);

    /* Through the parser: one error at the first bracket too many, then silence. */
    static const char head[] = "stencil s(field<double> u, field<double> v) { v = ";
    char *prog = malloc(sizeof head + DEPTH);
    strcpy(prog, head);
    strcat(prog, text);
    char *diag;
    size_t len;
    FILE *out = open_memstream(&diag, &len);
    Compiler *c = compiler_new(out);
    parse_string(c, "t.stn", prog);
    fflush(out);
    ck_assert_int_eq(c->diag.errors, 1);
    /* '{' is the first open bracket: the 1000th '(' is one too many. */
    char want[128];
    snprintf(want, sizeof want, "t.stn:1:%d: error: brackets nested too deeply (the limit "
             "is 1000 levels)", (int)sizeof head - 1 + 1000);
    ck_assert_msg(strstr(diag, want), "got: %s", diag);
    free(prog);
    compiler_free(c);
    fclose(out);
    free(diag);
}
END_TEST

START_TEST(test_empty)
{
    Scan s;
    scan(&s, "");
    ck_assert_int_eq(s.n, 1);
    ck_assert_int_eq(s.kind[0], TOK_YYEOF);
    done(&s);
    scan(&s, "  \n // only a comment");
    ck_assert_int_eq(s.n, 1);
    done(&s);
}
END_TEST

Suite *suite_lexer(void);
Suite *suite_lexer(void)
{
    Suite *s = suite_create("lexer");
    TCase *tc = tcase_create("tokens");
    tcase_add_test(tc, test_keywords_and_names);
    tcase_add_test(tc, test_operators);
    tcase_add_test(tc, test_numbers);
    tcase_add_loop_test(tc, test_bad_numbers, 0, (int)(sizeof bad_numbers / sizeof bad_numbers[0]));
    tcase_add_test(tc, test_locations);
    tcase_add_test(tc, test_line_endings);
    tcase_add_test(tc, test_comments_and_strings);
    tcase_add_test(tc, test_invalid_bytes);
    tcase_add_test(tc, test_long_identifier);
    tcase_add_test(tc, test_nesting_limit);
    tcase_add_test(tc, test_empty);
    suite_add_tcase(s, tc);
    return s;
}

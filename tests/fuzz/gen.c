/* gen.c: the input generator of the robustness test (tests/fuzz/run.sh).
 *
 *     gen OUTDIR COUNT SEED SEEDFILE...
 *
 * writes OUTDIR/case_NNNNN.stn (case_NNNNN-o.stn for those that run.sh
 * also compiles to C with -o), COUNT files in all, deterministic for a
 * given SEED and list of seed files: the pathological cases first (empty
 * file, a 100000-character identifier, 20000 nested parentheses, a
 * 200000-term sum, ...), then programs made by mutating the seed files (byte
 * flips, insertions and deletions, token deletions, duplications, swaps and
 * insertions, truncations, splices of two files), random token soups and
 * pure random bytes. Built by run.sh with $CC; no dependency on gtcc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ randomness */

static uint64_t rng_state;

static uint64_t rng(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static size_t below(size_t n)
{
    return n ? (size_t)(rng() % n) : 0;
}

/* ------------------------------------------------------------ buffers */

typedef struct {
    char *data;
    size_t len, cap;
} Buf;

static void reserve(Buf *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return;
    b->cap = (b->len + more + 1) * 2;
    b->data = realloc(b->data, b->cap);
    if (!b->data) {
        perror("gen");
        exit(1);
    }
}

static void put(Buf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

static void puts_(Buf *b, const char *s)
{
    put(b, s, strlen(s));
}

static void repeat(Buf *b, const char *s, size_t times)
{
    for (size_t i = 0; i < times; i++)
        puts_(b, s);
}

/* ------------------------------------------------------------ seeds */

static const char *const builtin_seeds[] = {
    "function lap(f) { return 4.0 * f - (f[i-1] + f[i+1] + f[j-1] + f[j+1]); }\n"
    "stencil hdiff(field<double> u, field<double> coeff, field<double> out_u) {\n"
    "  double l   = lap(u);\n"
    "  double flx = l[i+1] - l;\n"
    "  if (flx * (u[i+1] - u) > 0.0) flx = 0.0;\n"
    "  double fly = l[j+1] - l;\n"
    "  if (fly * (u[j+1] - u) > 0.0) fly = 0.0;\n"
    "  out_u = u - coeff * (flx - flx[i-1] + fly - fly[j-1]);\n"
    "}\n",
    "stencil tridiagonal(field<double> a, field<double> b, field<double> c,\n"
    "                    field<double> d, field<double> x) {\n"
    "  computation(forward) {\n"
    "    interval(0, 1)   { c = c / b; d = d / b; }\n"
    "    interval(1, end) { double m = 1.0 / (b - a * c[k-1]);\n"
    "                       c = c * m; d = (d - a * d[k-1]) * m; }\n"
    "  }\n"
    "  computation(backward) {\n"
    "    interval(end-1, end) { x = d; }\n"
    "    interval(0, end-1)   { x = d - c * x[k+1]; }\n"
    "  }\n"
    "}\n",
    "const double ALPHA = 0.5;\n"
    "stencil heat(field<double> u, field<double> unew, double alpha) {\n"
    "  boundary u: periodic;\n"
    "  boundary u(k): dirichlet(1.5);\n"
    "  unew = u + alpha * ALPHA * (u[i-1] + u[i+1] + u[j-1] + u[j+1] - 4.0 * u);\n"
    "}\n",
    "stencil pressure(field<double, IJ> ps, field<double, K> ak, field<double, K> bk,\n"
    "                 field<double> p, out double pmax, field<double, IJ> col) {\n"
    "  p = ak + bk * ps;\n"
    "  pmax = max(p);\n"
    "  col = sum(p * p, k) + index(i) * 1.0;\n"
    "  field<float, IJ> t = col;\n"
    "  if (t > 1.0 && !(t < 0.5) || t == 2.0) { col += 1.0; } else if (t != 3.0) col -= 2.0;\n"
    "  else { col *= 2.0; col /= 3.0; }\n"
    "  int n = 3 % 2;\n"
    "  col = n > 0 ? sqrt(abs(col)) : pow(col, 2.0);\n"
    "}\n",
};

typedef struct {
    char *data;
    size_t len;
} Seed;

static Seed *seeds;
static size_t nseeds;

static void add_seed(const char *data, size_t len)
{
    seeds = realloc(seeds, (nseeds + 1) * sizeof *seeds);
    seeds[nseeds].data = malloc(len + 1);
    memcpy(seeds[nseeds].data, data, len);
    seeds[nseeds].data[len] = '\0';
    seeds[nseeds].len = len;
    nseeds++;
}

static void load_seed(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    Buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (1u << 20))
        put(&b, chunk, n);
    fclose(f);
    if (b.len > 0 && b.len < (1u << 20))
        add_seed(b.data, b.len);
    free(b.data);
}

/* ------------------------------------------------------------ tokens */

static const char *const dictionary[] = {
    "stencil", "function", "const", "import", "return", "if", "else", "computation",
    "interval", "parallel", "forward", "backward", "end", "boundary", "periodic", "dirichlet",
    "neumann", "mirror", "field", "out", "double", "float", "int", "bool", "true", "false",
    "i", "j", "k", "index", "sum", "min", "max", "sqrt", "u", "v", "x", "IJ", "K", "IJK",
    "(", ")", "{", "}", "[", "]", ";", ",", ":", "?", "=", "+=", "-=", "*=", "/=", "+", "-",
    "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||", "!", "0", "1", "42", "1.5",
    ".5", "1e-3", "\"a.stn\"", "/*", "*/", "//", "\n", " ", "@", "\xc3\xa9", "99999999999999999999",
    "end-1", "i+1", "k-1",
};
enum { NDICT = sizeof dictionary / sizeof dictionary[0] };

/* Token boundaries of a text: a crude split into names, numbers, blanks and
 * single punctuation bytes, enough to delete or move whole tokens. */
static size_t split(const char *s, size_t len, size_t *starts, size_t max)
{
    size_t n = 0, i = 0;
    while (i < len && n < max) {
        starts[n++] = i;
        unsigned char c = (unsigned char)s[i];
        size_t j = i + 1;
        if (c == '_' || (c | 32) - 'a' < 26u || c - '0' < 10u || c == '.') {
            while (j < len && (s[j] == '_' || s[j] == '.' || ((unsigned char)s[j] | 32) - 'a' < 26u
                               || (unsigned char)s[j] - '0' < 10u))
                j++;
        } else if (c == ' ' || c == '\n' || c == '\t') {
            while (j < len && (s[j] == ' ' || s[j] == '\n' || s[j] == '\t'))
                j++;
        }
        i = j;
    }
    return n;
}

/* One token-level mutation of b. */
static void mutate_tokens(Buf *b)
{
    enum { MAXTOK = 1 << 16 };
    static size_t starts[MAXTOK + 1];
    size_t n = split(b->data, b->len, starts, MAXTOK);
    if (n == 0)
        return;
    starts[n] = b->len;
    size_t t = below(n), u = below(n);
    size_t a0 = starts[t], a1 = starts[t + 1];
    Buf out = {0};
    switch (below(4)) {
    case 0:   /* delete */
        put(&out, b->data, a0);
        put(&out, b->data + a1, b->len - a1);
        break;
    case 1:   /* duplicate */
        put(&out, b->data, a1);
        put(&out, b->data + a0, b->len - a0);
        break;
    case 2: { /* swap two tokens */
        if (u < t) {
            size_t x = t;
            t = u;
            u = x;
        }
        size_t b0 = starts[u], b1 = starts[u + 1];
        a0 = starts[t];
        a1 = starts[t + 1];
        if (t == u) {
            put(&out, b->data, b->len);
            break;
        }
        put(&out, b->data, a0);
        put(&out, b->data + b0, b1 - b0);
        put(&out, b->data + a1, b0 - a1);
        put(&out, b->data + a0, a1 - a0);
        put(&out, b->data + b1, b->len - b1);
        break;
    }
    default: { /* insert a dictionary token */
        const char *w = dictionary[below(NDICT)];
        put(&out, b->data, a0);
        puts_(&out, w);
        put(&out, b->data + a0, b->len - a0);
        break;
    }
    }
    free(b->data);
    *b = out;
}

static void mutate_bytes(Buf *b)
{
    if (b->len == 0) {
        char c = (char)below(256);
        put(b, &c, 1);
        return;
    }
    size_t at = below(b->len);
    switch (below(5)) {
    case 0:   /* flip bits */
        b->data[at] ^= (char)(1u << below(8));
        break;
    case 1:   /* random byte */
        b->data[at] = (char)below(256);
        break;
    case 2: { /* insert a byte */
        reserve(b, 1);
        memmove(b->data + at + 1, b->data + at, b->len - at + 1);
        b->data[at] = (char)(below(4) == 0 ? below(256) : " ;{}()[]"[below(8)]);
        b->len++;
        break;
    }
    case 3: { /* delete a range */
        size_t n = 1 + below(b->len - at < 16 ? b->len - at : 16);
        memmove(b->data + at, b->data + at + n, b->len - at - n + 1);
        b->len -= n;
        break;
    }
    default:  /* truncate */
        b->len = at;
        b->data[at] = '\0';
        break;
    }
}

/* ------------------------------------------------------------ cases */

/* The pathological cases, in order; false past the last one. */
enum { PATHOLOGICAL = 18 };
static int pathological(Buf *b, size_t index)
{
    static const char head[] = "stencil s(field<double> u, field<double> v) {\n  v = ";
    switch (index) {
    case 0: /* empty file */
        break;
    case 1:
        puts_(b, head);
        repeat(b, "a", 100000);
        puts_(b, ";\n}\n");
        break;
    case 2:
        puts_(b, head);
        repeat(b, "(", 20000);
        puts_(b, "u");
        repeat(b, ")", 20000);
        puts_(b, ";\n}\n");
        break;
    case 3: /* a legal flat sum of 200000 terms */
        puts_(b, head);
        puts_(b, "u");
        repeat(b, " + u", 199999);
        puts_(b, ";\n}\n");
        break;
    case 4:
        puts_(b, head);
        repeat(b, "-", 150000);
        puts_(b, "u;\n}\n");
        break;
    case 5:
        puts_(b, head);
        repeat(b, "u > 0.0 ? u : ", 20000);
        puts_(b, "u;\n}\n");
        break;
    case 6:
        puts_(b, "stencil s(field<double> u, field<double> v) {\n");
        repeat(b, "if (u > 0.0) {\n", 3000);
        puts_(b, "v = u;\n");
        repeat(b, "}\n", 3000);
        puts_(b, "}\n");
        break;
    case 7: /* 5000 statements (20000 take seconds in fuse_plan, which is quadratic) */
        puts_(b, "stencil s(field<double> u, field<double> v) {\n");
        repeat(b, "  v = v + u[i+1] * 0.5;\n", 5000);
        puts_(b, "}\n");
        break;
    case 8: /* only NUL bytes */
        for (int i = 0; i < 1000; i++)
            put(b, "", 1);
        break;
    case 9: /* a 1 MB comment that never ends */
        puts_(b, "stencil s(field<double> u, field<double> v) { v = u; }\n/*");
        repeat(b, "xxxxxxxxxxxxxxx*", 65536);
        break;
    case 10: /* thousands of errors */
        puts_(b, "stencil s(field<double> u, field<double> v) {\n");
        repeat(b, "  v = u +;\n  v = (u;\n  v[i] = ;\n", 3000);
        puts_(b, "}\n");
        break;
    case 11:
        puts_(b, head);
        repeat(b, "9", 5000);
        puts_(b, " + 1e99999 + 0x");
        repeat(b, "f", 1000);
        puts_(b, ";\n}\n");
        break;
    case 12: /* an import path too long for the system */
        puts_(b, "import \"");
        repeat(b, "d/", 3000);
        puts_(b, "x.stn\";\n");
        break;
    case 13: /* a 200000-term sum of calls and offsets */
        puts_(b, "function f(x) { return x[i+1] - x; }\n");
        puts_(b, head);
        puts_(b, "f(u)");
        repeat(b, " * f(u[j-1])", 20000);
        puts_(b, ";\n}\n");
        break;
    case 14: /* many stencils and functions */
        for (int i = 0; i < 2000; i++) {
            char line[160];
            snprintf(line, sizeof line, "function f%d(a) { return a * %d.0; }\n"
                     "stencil s%d(field<double> u, field<double> v) { v = f%d(u); }\n", i, i, i, i);
            puts_(b, line);
        }
        break;
    case 15: /* unbalanced closers */
        repeat(b, "}", 5000);
        repeat(b, ")]", 5000);
        break;
    case 16: /* 5000 nested blocks without conditions */
        puts_(b, "stencil s(field<double> u, field<double> v) {\n");
        repeat(b, "{", 5000);
        break;
    case 17: /* a long line, far from the error */
        puts_(b, head);
        repeat(b, "u + ", 50000);
        puts_(b, "@;\n}\n");
        break;
    default:
        return 0;
    }
    return 1;
}

static void generated(Buf *b)
{
    size_t kind = below(100);
    if (kind < 8) {         /* random bytes */
        size_t n = below(2000);
        for (size_t i = 0; i < n; i++) {
            char c = (char)below(256);
            put(b, &c, 1);
        }
        return;
    }
    if (kind < 16) {        /* token soup */
        size_t n = 1 + below(400);
        for (size_t i = 0; i < n; i++) {
            puts_(b, dictionary[below(NDICT)]);
            puts_(b, below(3) ? " " : "");
        }
        return;
    }
    const Seed *s = &seeds[below(nseeds)];
    put(b, s->data, s->len);
    if (kind < 22) {        /* splice with another seed */
        const Seed *t = &seeds[below(nseeds)];
        size_t cut = below(b->len + 1), from = below(t->len + 1);
        b->len = cut;
        put(b, t->data + from, t->len - from);
    }
    size_t nmut = 1 + below(below(2) ? 2 : 6);
    for (size_t m = 0; m < nmut; m++) {
        if (below(2))
            mutate_tokens(b);
        else
            mutate_bytes(b);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: gen OUTDIR COUNT SEED SEEDFILE...\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t count = strtoul(argv[2], NULL, 10);
    rng_state = strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < sizeof builtin_seeds / sizeof builtin_seeds[0]; i++)
        add_seed(builtin_seeds[i], strlen(builtin_seeds[i]));
    for (int i = 4; i < argc; i++)
        load_seed(argv[i]);

    for (size_t i = 0; i < count; i++) {
        Buf b = {0};
        reserve(&b, 0);
        b.data[0] = '\0';
        if (!pathological(&b, i))
            generated(&b);
        char path[4096];
        /* Every fourth case, and the pathological ones, also go through -o. */
        int with_output = i % 4 == 0 || i < PATHOLOGICAL;
        snprintf(path, sizeof path, "%s/case_%05zu%s.stn", dir, i, with_output ? "-o" : "");
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b.data, 1, b.len, f) != b.len || fclose(f) != 0) {
            perror(path);
            return 1;
        }
        free(b.data);
    }
    return 0;
}

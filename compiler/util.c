/* util.c: the small utilities every part of the compiler uses.
 *
 * The arena is a list of chunks; every allocation of one compilation comes
 * from it and arena_free releases all of them at once (Check tests compile
 * many programs in one process, so nothing may outlive the arena). Vectors
 * (VEC in gtcc.h) grow inside the arena: the old block is simply abandoned,
 * which costs at most as much again as the final size. The name tables of the
 * common enumerations are generated from the X-macro lists of gtcc.h.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gtcc.h"

/* ------------------------------------------------------------------ arena */

enum { CHUNK_SIZE = 64 * 1024 };

typedef struct Chunk Chunk;
struct Chunk {
    Chunk *next;        /* the chunk allocated before this one */
    size_t size;        /* usable bytes after the header */
    size_t used;        /* bytes handed out */
    _Alignas(max_align_t) unsigned char data[];
};

struct Arena {
    Chunk *head;        /* the chunk allocations come from; NULL before the first */
};

Arena *arena_new(void)
{
    Arena *arena = calloc(1, sizeof *arena);
    if (!arena)
        gtcc_die("out of memory");
    return arena;
}

void arena_free(Arena *arena)
{
    if (!arena)
        return;
    for (Chunk *ch = arena->head, *next; ch; ch = next) {
        next = ch->next;
        free(ch);
    }
    free(arena);
}

void *arena_alloc(Arena *arena, size_t size)
{
    const size_t align = _Alignof(max_align_t);
    if (size > SIZE_MAX / 2)
        gtcc_die("out of memory (asked for %zu bytes)", size);
    size = (size + align - 1) & ~(align - 1);
    if (size == 0)
        size = align;
    Chunk *ch = arena->head;
    if (!ch || ch->size - ch->used < size) {
        /* Big blocks get a chunk of their own, placed behind the current one
         * so that the current chunk's free space is not wasted. */
        size_t cap = size > CHUNK_SIZE / 4 ? size : CHUNK_SIZE;
        Chunk *fresh = malloc(sizeof *fresh + cap);
        if (!fresh)
            gtcc_die("out of memory (asked for %zu bytes)", size);
        fresh->size = cap;
        fresh->used = 0;
        if (ch && cap == size) {
            fresh->next = ch->next;
            ch->next = fresh;
        } else {
            fresh->next = ch;
            arena->head = fresh;
        }
        ch = fresh;
    }
    void *p = ch->data + ch->used;
    ch->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *arena, const char *s, size_t n)
{
    char *p = arena_alloc(arena, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(Arena *arena, const char *s)
{
    return arena_strndup(arena, s, strlen(s));
}

char *arena_printf(Arena *arena, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        gtcc_die("bad format '%s'", fmt);
    char *p = arena_alloc(arena, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

const char *path_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void real_literal(char buf[REAL_LITERAL_SIZE], double v, bool single)
{
    for (int prec = 1; prec <= 17; prec++) {  /* 17 digits always read back */
        snprintf(buf, REAL_LITERAL_SIZE, "%.*g", prec, v);
        if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    /* %g writes 20 as 2e+01 (one digit): a whole number below 1e6 reads as 20 */
    double mag = fabs(v);
    if (strchr(buf, 'e') && mag >= 1.0 && mag < 1e6)
        snprintf(buf, REAL_LITERAL_SIZE, "%.6g", v);
    size_t n = strlen(buf);
    snprintf(buf + n, REAL_LITERAL_SIZE - n, "%s%s", strpbrk(buf, ".e") ? "" : ".0",
             single ? "f" : "");
}

void vec_grow_(Arena *arena, void **items, int *cap, size_t elem_size)
{
    if (*cap > INT32_MAX / 2)
        gtcc_die("vector too large");
    int ncap = *cap ? *cap * 2 : 8;
    void *fresh = arena_alloc(arena, (size_t)ncap * elem_size);
    if (*cap)
        memcpy(fresh, *items, (size_t)*cap * elem_size);
    *items = fresh;
    *cap = ncap;
}

/* ------------------------------------------------------------ internal bugs */

_Noreturn void gtcc_die_(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fprintf(stderr, "gtcc: internal error at %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ------------------------------------------------------------- name tables */

const char *const type_names[] = {
#define X(id, name, size) [id] = name,
    SCALAR_TYPES(X)
#undef X
};

const int type_sizes[] = {
#define X(id, name, size) [id] = size,
    SCALAR_TYPES(X)
#undef X
};

const char *const op_spellings[] = {
#define X(id, spelling, prec) [id] = spelling,
    OPERATORS(X)
#undef X
};

const int op_precedence[] = {
#define X(id, spelling, prec) [id] = prec,
    OPERATORS(X)
#undef X
};

/* The names of a list X(ID, NAME): table[ID] = NAME. */
#define NAME_ENTRY(id, name) [id] = name,
const char *const iter_order_names[] = {ITER_ORDERS(NAME_ENTRY)};
const char *const bc_kind_names[] = {BC_KINDS(NAME_ENTRY)};
const char *const red_op_names[] = {RED_OPS(NAME_ENTRY)};
const char *const ir_temp_class_names[] = {IR_TEMP_CLASSES(NAME_ENTRY)};
#undef NAME_ENTRY

const char *const builtin_names[] = {
#define X(id, name, nargs) [id] = name,
    BUILTINS(X)
#undef X
};

const int builtin_nargs[] = {
#define X(id, name, nargs) [id] = nargs,
    BUILTINS(X)
#undef X
};

const char *axes_name(unsigned axes)
{
    static const char *const names[8] = {"", "I", "J", "IJ", "K", "IK", "JK", "IJK"};
    return names[axes & 7];
}

/* ============================================================= name maps */

typedef struct MapEntry MapEntry;
struct MapEntry {
    const char *key;
    void *value;
    MapEntry *next;
};

struct NameMap {
    Arena *arena;
    MapEntry **buckets;
    int nbuckets;             /* a power of two */
    int count;
};

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

NameMap *map_new(Arena *a)
{
    NameMap *m = arena_alloc(a, sizeof *m);
    m->arena = a;
    m->nbuckets = 16;
    m->buckets = arena_alloc(a, sizeof(MapEntry *) * (size_t)m->nbuckets);
    return m;
}

static MapEntry **map_slot(const NameMap *m, const char *key)
{
    MapEntry **p = &m->buckets[hash_name(key) & (uint32_t)(m->nbuckets - 1)];
    while (*p && strcmp((*p)->key, key) != 0)
        p = &(*p)->next;
    return p;
}

void *map_get(const NameMap *m, const char *key)
{
    MapEntry *e = *map_slot(m, key);
    return e ? e->value : NULL;
}

static void map_grow(NameMap *m)
{
    int n = m->nbuckets * 2;
    MapEntry **buckets = arena_alloc(m->arena, sizeof(MapEntry *) * (size_t)n);
    for (int i = 0; i < m->nbuckets; i++) {
        for (MapEntry *e = m->buckets[i], *next; e; e = next) {
            next = e->next;
            MapEntry **b = &buckets[hash_name(e->key) & (uint32_t)(n - 1)];
            e->next = *b;
            *b = e;
        }
    }
    m->buckets = buckets;
    m->nbuckets = n;
}

void map_put(NameMap *m, const char *key, void *value)
{
    MapEntry **p = map_slot(m, key);
    if (*p) {
        (*p)->value = value;
        return;
    }
    MapEntry *e = arena_alloc(m->arena, sizeof *e);
    e->key = key;
    e->value = value;
    *p = e;
    if (++m->count > 2 * m->nbuckets)
        map_grow(m);
}

void map_del(NameMap *m, const char *key)
{
    MapEntry **p = map_slot(m, key);
    if (*p) {
        *p = (*p)->next;
        m->count--;
    }
}

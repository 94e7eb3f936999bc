/* numeric.h: what the numeric test drivers share (tests/numeric/README in run.sh).
 *
 * A driver calls a stencil that gtcc generated with the naive backend and compares its
 * outputs with a reference written by hand from language.md: plain loops over plain arrays
 * (Arr), never generated code. Fields are storages of any layout, axis order and halo
 * (Fld); every element, halo included, starts with random data from a fixed seed, and every
 * element outside the compute domain must come back unchanged.
 *
 * Results are lines "PASS name" or "FAIL name: why" that run.sh counts. */
#ifndef NUMERIC_H
#define NUMERIC_H

#include <stdbool.h>
#include <stdint.h>

#include <gt/gt.h>

/* A dense copy of a field, halo included, indexed from the interior origin:
 * A(a, i, j, k) is element (i, j, k), with i from -halo[0][0] to n[0] + halo[0][1] - 1;
 * axes the field lacks have n = 1 and index 0 (any index is clamped to 0 there). */
typedef struct {
    double *v;
    const char *axes;      /* "IJK", "IJ", "K", ... (always named in IJK order here) */
    int64_t n[3];          /* interior size along I, J, K (1 along missing axes) */
    int64_t halo[3][2];
    int64_t stride[3];
} Arr;

double *arr_at(const Arr *a, int64_t i, int64_t j, int64_t k);
#define A(a, i, j, k) (*arr_at(&(a), (i), (j), (k)))

/* A field: a storage plus what the test knows about it. */
typedef struct {
    gt_storage *s;
    gt_dtype dtype;
    const char *axes;      /* the storage's own axis order, e.g. "KJI" */
    int64_t n[3];          /* interior size along I, J, K (by name; 1 along missing axes) */
    int64_t halo[3][2];    /* by name */
    Arr before;            /* every element as filled */
} Fld;

/* Layout presets: "C", "F" or an explicit layout for the storage's axes. */
typedef struct {
    const char *axes;      /* storage axes in their order: "IJK", "KJI", "IJ", ... */
    const char *layout;    /* NULL: defaults below */
    const char *defaults;  /* "C", "F", NULL */
} Layout;

/* The alignment (in elements) of the storages fld_new creates from now on; 0: none. With an
 * alignment the contiguous axis is padded, so strides differ from the dense ones. */
extern int64_t fld_alignment;

/* Creates a field of dtype with interior n (by name I, J, K) and halo h (by name), fills
 * every element with random values from the test's generator (ints in [-50, 50], bools,
 * reals in [-1, 1], or [lo, hi] with fld_range), and keeps a copy in f->before. */
Fld fld_new(gt_dtype dtype, Layout lay, const int64_t n[3], int64_t h[3][2]);
Fld fld_new_range(gt_dtype dtype, Layout lay, const int64_t n[3], int64_t h[3][2],
                  double lo, double hi);
void fld_free(Fld *f);
/* The element (i, j, k) from the interior origin, as a double (read now, from the storage). */
double fld_get(const Fld *f, int64_t i, int64_t j, int64_t k);
/* Sets element (i, j, k) to v, in the storage and in f->before (a value a test needs). */
void fld_set(Fld *f, int64_t i, int64_t j, int64_t k, double v);
/* A dense copy of the field as it is now. */
Arr fld_now(const Fld *f);
/* An empty Arr shaped like f (for a reference result): a copy of f->before. */
Arr arr_like(const Fld *f);
void arr_free(Arr *a);

/* The seed of the random generator (splitmix64). */
void rng_seed(uint64_t seed);
double rng_uniform(double lo, double hi);

/* Compares field f (now) with expected values: inside the domain d (from the interior
 * origin, sizes d[3]) to within rel/abs tolerance tol (0: exact), outside it equal to
 * f->before bit for bit. Prints PASS/FAIL with name; returns true on pass. */
bool check_field(const char *name, const Fld *f, const Arr *expected, const int64_t d[3],
                 double tol);
/* f entirely unchanged (inputs, and outputs after a failed call). */
bool check_unchanged(const char *name, const Fld *f);
/* PASS/FAIL for a condition, with a message. */
bool check(const char *name, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A call returned code want and gt_last_error() contains every string of needles
   (NULL-terminated). */
bool check_error(const char *name, int got, int want, const char *const *needles);

/* How many FAIL lines so far: the driver's exit status. */
int failures(void);

#endif /* NUMERIC_H */

/* gt_error.h: error codes and the per-thread message of the last failure.
 *
 * Every runtime function that can fail returns an int (0 or a negative GT_E... code) or a
 * pointer (NULL on failure). The message of the last failure on the calling thread names
 * the function, the storage or field, the axis and the numbers involved. Messages and codes
 * are thread-local and persist until the next failure on the same thread: a success does not
 * clear them. */
#ifndef GT_ERROR_H
#define GT_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(NAME, VALUE, DESCRIPTION): the one list of error codes (an X-macro, so the enum and
   gt_strerror cannot disagree). */
#define GT_ERROR_LIST(X)                                                       \
    X(GT_EINVAL,  -1, "invalid argument")                                      \
    X(GT_ENOMEM,  -2, "out of memory")                                         \
    X(GT_EDTYPE,  -3, "element type mismatch")                                 \
    X(GT_EAXES,   -4, "axes mismatch")                                         \
    X(GT_ESHAPE,  -5, "domain does not fit")                                   \
    X(GT_EHALO,   -6, "halo too small")                                        \
    X(GT_EALIAS,  -7, "forbidden aliasing between arguments")                  \
    X(GT_EDEVICE, -8, "device missing or device error")                        \
    X(GT_EMPI,    -9, "MPI error")

#define GT_ERROR_ENUM_(name, value, text) name = value,
typedef enum {
    GT_ERROR_LIST(GT_ERROR_ENUM_) /* each entry ends in a comma, so success comes last (a */
    GT_OK = 0                     /* trailing comma is not C89 or C++98) */
} gt_error;
#undef GT_ERROR_ENUM_

/* Message of the last failure on the calling thread ("" if none yet). The pointer stays
   valid until the next runtime call on this thread. */
const char *gt_last_error(void);

/* Code of the last failure on the calling thread (0 if none yet): the way to learn why a
   pointer-returning function gave NULL (gt_empty, gt_mpi_decompose, gt_mpi_empty, ...).
   Part of the documented API (docs/runtime.md, sections 1 and 13: an addition to the
   spec's runtime.md). */
int gt_last_error_code(void);

/* Static description of a code ("invalid argument", ...; "success" for 0, "unknown error"
   for anything else). Not part of runtime.md; an addition. */
const char *gt_strerror(int code);

/* Records a failure (code, msg: the text gt_last_error() then returns) for callers that
   cannot call a variadic function (the Fortran module gtrt); returns code. */
int gt_error_flat(int code, const char *msg);

#ifdef __cplusplus
}
#endif

#endif /* GT_ERROR_H */

/* handfused.h: the hand-fused OpenMP versions of the bench stencils
 * (handfused_stencils.c). Pointers are at the compute-domain origin; all fields
 * of one call share the strides sj, sk (I is contiguous) unless said otherwise. */
#ifndef HANDFUSED_H
#define HANDFUSED_H

#include <stdint.h>

void hand_hdiff(const double *u, const double *coeff, double *out, int64_t ni, int64_t nj,
                int64_t nk, int64_t sj, int64_t sk);
void hand_laplacian(const double *u, double *lap, int64_t ni, int64_t nj, int64_t nk, int64_t sj,
                    int64_t sk);
void hand_jacobi3d(const double *u, const double *f, double *unew, double h2, int64_t ni,
                   int64_t nj, int64_t nk, int64_t sj, int64_t sk);
void hand_box27(const double *u, double *out, int64_t ni, int64_t nj, int64_t nk, int64_t sj,
                int64_t sk);
void hand_tridiagonal(const double *a, const double *b, double *c, double *d, double *x,
                      int64_t ni, int64_t nj, int64_t nk, int64_t sj, int64_t sk);
/* K contiguous (all fields share the strides si, sj): one column at a time. */
void hand_tridiagonal_kfirst(const double *a, const double *b, double *c, double *d, double *x,
                             int64_t ni, int64_t nj, int64_t nk, int64_t si, int64_t sj);
void hand_heat2d(const double *u, double *unew, double alpha, int64_t ni, int64_t nj, int64_t sj);

#endif

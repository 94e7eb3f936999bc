/* handfused_stencils.c: the bench stencils fused and parallelized by hand in
 * plain OpenMP C, the yardstick of bench_stencils.c for the openmp backend.
 *
 * Every function takes pointers to the compute-domain origin of fields that
 * share one layout: I contiguous, strides sj (J) and sk (K) in elements, and
 * the halo the stencil reads. They are what a careful programmer writes for
 * one layout and one stencil: one loop nest, the contiguous axis innermost
 * under `omp simd`, OpenMP threads over the outer axes, hdiff with a per-thread
 * row buffer of the Laplacian and the fluxes recomputed at each point. */
#include <stdint.h>
#include <stdlib.h>

#include "handfused.h"

#define AT(p, i, j, k) (p)[(i) + (j) * sj + (k) * sk]

void hand_laplacian(const double *restrict u, double *restrict lap, int64_t ni, int64_t nj,
                    int64_t nk, int64_t sj, int64_t sk)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t k = 0; k < nk; k++)
        for (int64_t j = 0; j < nj; j++)
#pragma omp simd
            for (int64_t i = 0; i < ni; i++)
                AT(lap, i, j, k) = 4.0 * AT(u, i, j, k) - (AT(u, i - 1, j, k) + AT(u, i + 1, j, k) +
                                                           AT(u, i, j - 1, k) + AT(u, i, j + 1, k));
}

void hand_jacobi3d(const double *restrict u, const double *restrict f, double *restrict unew,
                   double h2, int64_t ni, int64_t nj, int64_t nk, int64_t sj, int64_t sk)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t k = 0; k < nk; k++)
        for (int64_t j = 0; j < nj; j++)
#pragma omp simd
            for (int64_t i = 0; i < ni; i++)
                AT(unew, i, j, k) = (AT(u, i - 1, j, k) + AT(u, i + 1, j, k) + AT(u, i, j - 1, k) +
                                     AT(u, i, j + 1, k) + AT(u, i, j, k - 1) + AT(u, i, j, k + 1) +
                                     h2 * AT(f, i, j, k)) / 6.0;
}

void hand_box27(const double *restrict u, double *restrict out, int64_t ni, int64_t nj,
                int64_t nk, int64_t sj, int64_t sk)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t k = 0; k < nk; k++)
        for (int64_t j = 0; j < nj; j++)
#pragma omp simd
            for (int64_t i = 0; i < ni; i++) {
                double s = 0.0;
                for (int dk = -1; dk <= 1; dk++)
                    for (int dj = -1; dj <= 1; dj++)
                        s += AT(u, i - 1, j + dj, k + dk) + AT(u, i, j + dj, k + dk) +
                             AT(u, i + 1, j + dj, k + dk);
                AT(out, i, j, k) = s * (1.0 / 27.0);
            }
}

enum { HAND_BJ = 8 };

void hand_hdiff(const double *restrict u, const double *restrict coeff, double *restrict out,
                int64_t ni, int64_t nj, int64_t nk, int64_t sj, int64_t sk)
{
    const int64_t w = (ni + 2 + 8 + 7) / 8 * 8;   /* row of the Laplacian, i from -8 */
#pragma omp parallel
    {
        double *lap = aligned_alloc(64, (size_t)w * (HAND_BJ + 2) * sizeof(double));
#pragma omp for collapse(2) schedule(static)
        for (int64_t k = 0; k < nk; k++)
            for (int64_t jb = 0; jb < nj; jb += HAND_BJ) {
                const int64_t je = jb + HAND_BJ < nj ? jb + HAND_BJ : nj;
#define L(i, j) lap[(i) + 8 + ((j) - jb + 1) * w]
                for (int64_t j = jb - 1; j < je + 1; j++)
#pragma omp simd
                    for (int64_t i = -1; i < ni + 1; i++)
                        L(i, j) = 4.0 * AT(u, i, j, k) - (AT(u, i - 1, j, k) + AT(u, i + 1, j, k) +
                                                          AT(u, i, j - 1, k) + AT(u, i, j + 1, k));
                for (int64_t j = jb; j < je; j++)
#pragma omp simd
                    for (int64_t i = 0; i < ni; i++) {
                        double fx1 = L(i + 1, j) - L(i, j);
                        if (fx1 * (AT(u, i + 1, j, k) - AT(u, i, j, k)) > 0.0)
                            fx1 = 0.0;
                        double fx0 = L(i, j) - L(i - 1, j);
                        if (fx0 * (AT(u, i, j, k) - AT(u, i - 1, j, k)) > 0.0)
                            fx0 = 0.0;
                        double fy1 = L(i, j + 1) - L(i, j);
                        if (fy1 * (AT(u, i, j + 1, k) - AT(u, i, j, k)) > 0.0)
                            fy1 = 0.0;
                        double fy0 = L(i, j) - L(i, j - 1);
                        if (fy0 * (AT(u, i, j, k) - AT(u, i, j - 1, k)) > 0.0)
                            fy0 = 0.0;
                        AT(out, i, j, k) =
                            AT(u, i, j, k) - AT(coeff, i, j, k) * (fx1 - fx0 + fy1 - fy0);
                    }
#undef L
            }
        free(lap);
    }
}

void hand_tridiagonal(const double *restrict a, const double *restrict b, double *restrict c,
                      double *restrict d, double *restrict x, int64_t ni, int64_t nj, int64_t nk,
                      int64_t sj, int64_t sk)
{
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < nj; j++) {
#pragma omp simd
        for (int64_t i = 0; i < ni; i++) {
            AT(c, i, j, 0) = AT(c, i, j, 0) / AT(b, i, j, 0);
            AT(d, i, j, 0) = AT(d, i, j, 0) / AT(b, i, j, 0);
        }
        for (int64_t k = 1; k < nk; k++)
#pragma omp simd
            for (int64_t i = 0; i < ni; i++) {
                double m = 1.0 / (AT(b, i, j, k) - AT(a, i, j, k) * AT(c, i, j, k - 1));
                AT(c, i, j, k) = AT(c, i, j, k) * m;
                AT(d, i, j, k) = (AT(d, i, j, k) - AT(a, i, j, k) * AT(d, i, j, k - 1)) * m;
            }
#pragma omp simd
        for (int64_t i = 0; i < ni; i++)
            AT(x, i, j, nk - 1) = AT(d, i, j, nk - 1);
        for (int64_t k = nk - 2; k >= 0; k--)
#pragma omp simd
            for (int64_t i = 0; i < ni; i++)
                AT(x, i, j, k) = AT(d, i, j, k) - AT(c, i, j, k) * AT(x, i, j, k + 1);
    }
}

void hand_tridiagonal_kfirst(const double *a, const double *b, double *c, double *d, double *x,
                             int64_t ni, int64_t nj, int64_t nk, int64_t si, int64_t sj)
{
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t j = 0; j < nj; j++)
        for (int64_t i = 0; i < ni; i++) {
            const int64_t o = i * si + j * sj;
            const double *restrict ca = a + o, *restrict cb = b + o;
            double *restrict cc = c + o, *restrict cd = d + o, *restrict cx = x + o;
            cc[0] = cc[0] / cb[0];
            cd[0] = cd[0] / cb[0];
            for (int64_t k = 1; k < nk; k++) {
                double m = 1.0 / (cb[k] - ca[k] * cc[k - 1]);
                cc[k] = cc[k] * m;
                cd[k] = (cd[k] - ca[k] * cd[k - 1]) * m;
            }
            cx[nk - 1] = cd[nk - 1];
            for (int64_t k = nk - 2; k >= 0; k--)
                cx[k] = cd[k] - cc[k] * cx[k + 1];
        }
}

void hand_heat2d(const double *restrict u, double *restrict unew, double alpha, int64_t ni,
                 int64_t nj, int64_t sj)
{
    const int64_t sk = 0;
    (void)sk;
#pragma omp parallel for schedule(static)
    for (int64_t j = 0; j < nj; j++) {
        const int64_t jm = j == 0 ? nj - 1 : j - 1, jp = j == nj - 1 ? 0 : j + 1;
        const double *r = u + j * sj, *rm = u + jm * sj, *rp = u + jp * sj;
        double *o = unew + j * sj;
        o[0] = r[0] + alpha * (r[ni - 1] + r[1] + rm[0] + rp[0] - 4.0 * r[0]);
#pragma omp simd
        for (int64_t i = 1; i < ni - 1; i++)
            o[i] = r[i] + alpha * (r[i - 1] + r[i + 1] + rm[i] + rp[i] - 4.0 * r[i]);
        o[ni - 1] = r[ni - 1] + alpha * (r[ni - 2] + r[0] + rm[ni - 1] + rp[ni - 1] - 4.0 * r[ni - 1]);
    }
}

/* gtcc_worker.c: gtcc's side of make bench-peers (bench/peers/peers.py drives it).
 *
 * Reads one command a line from stdin and answers one line on stdout:
 *   copy    the bandwidth of an OpenMP copy b = a of 2^26 doubles, bytes per second counted
 *           as STREAM does (16 per element)
 *   hdiff   seconds per call of hdiff on f64 256x256x64 (8 calls back to back)
 *   lap7    seconds per step of lap7 on f32 384^3 (16 steps, the buffers swapped)
 *   lap5    seconds per step of lap5 on f32 8192^2 (64 steps, the buffers swapped)
 *   lap7s   seconds per step of lap7s_steps(16) on the storages of lap7 (time-tiled S_steps)
 *   lap5s   seconds per step of lap5s_steps(64) on the storages of lap5
 *   quit
 * The storages are made once, with random contents; then it says "ready". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gt/gt.h>

#include "bench.h"
#include "hdiff.h"
#include "probes.h"

static gt_storage *make(gt_dtype t, const char *axes, const int64_t *n, int64_t halo)
{
    gt_storage_opts o = {0};
    int64_t shape[3] = {0, 0, 0};
    int nd = (int)strlen(axes);
    for (int d = 0; d < nd; d++) {
        o.halo[d][0] = o.halo[d][1] = halo;
        shape[d] = n[d] + 2 * halo;
    }
    gt_storage *s = gt_empty(t, axes, shape, &o);
    if (!s) {
        fprintf(stderr, "gtcc_worker: %s\n", gt_last_error());
        exit(1);
    }
    bench_fill(s);
    return s;
}

static void check(int rc)
{
    if (rc != 0) {
        fprintf(stderr, "gtcc_worker: %s\n", gt_last_error());
        exit(1);
    }
}

int main(void)
{
    const int64_t h3[3] = {256, 256, 64}, l7[3] = {384, 384, 384}, l5[2] = {8192, 8192};
    gt_storage *hu = make(GT_FLOAT64, "IJK", h3, 2), *hc = make(GT_FLOAT64, "IJK", h3, 2),
               *ho = make(GT_FLOAT64, "IJK", h3, 2);
    gt_storage *u7[2] = {make(GT_FLOAT32, "IJK", l7, 1), make(GT_FLOAT32, "IJK", l7, 1)};
    gt_storage *u5[2] = {make(GT_FLOAT32, "IJ", l5, 1), make(GT_FLOAT32, "IJ", l5, 1)};
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        double r;
        if (!strcmp(line, "copy")) {
            r = bench_stream_copy();
        } else if (!strcmp(line, "hdiff")) {
            double t0 = now();
            for (int c = 0; c < 8; c++)
                check(hdiff(hu, hc, ho, NULL));
            r = (now() - t0) / 8;
        } else if (!strcmp(line, "lap7")) {
            double t0 = now();
            for (int s = 0; s < 16; s++)
                check(lap7(u7[s & 1], u7[!(s & 1)], 0.1f, NULL));
            r = (now() - t0) / 16;
        } else if (!strcmp(line, "lap5")) {
            double t0 = now();
            for (int s = 0; s < 64; s++)
                check(lap5(u5[s & 1], u5[!(s & 1)], 0.1f, NULL));
            r = (now() - t0) / 64;
        } else if (!strcmp(line, "lap7s")) {
            double t0 = now();
            check(lap7s_steps(u7[0], u7[1], 0.1f, 16, NULL));
            r = (now() - t0) / 16;
        } else if (!strcmp(line, "lap5s")) {
            double t0 = now();
            check(lap5s_steps(u5[0], u5[1], 0.1f, 64, NULL));
            r = (now() - t0) / 64;
        } else if (!strcmp(line, "quit")) {
            break;
        } else {
            fprintf(stderr, "gtcc_worker: unknown command '%s'\n", line);
            return 1;
        }
        printf("%.9g\n", r);
        fflush(stdout);
    }
    return 0;
}

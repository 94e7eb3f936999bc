/* simt.cc: the SIMT emulator (gt_simt.h says what it does). One launch: for each block, a
 * fiber per thread on its own stack; rounds in which every fiber not waiting runs, in a
 * fresh shuffled order, until it reaches __syncthreads or a warp shuffle (or ends). After a
 * round, a warp whose threads all wait at a shuffle goes on; when every thread left waits
 * at __syncthreads, the block goes on; the block is done when every fiber has ended. The
 * shuffle of the order (a fixed xorshift sequence) makes a kernel that depends on the order
 * of its threads between two barriers give wrong numbers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "gt_simt.h"

dim3 threadIdx, blockIdx, blockDim, gridDim;
long gt_simt_launches, gt_simt_threads, gt_simt_variants[4];

static unsigned grid_y_max(void)
{
    const char *s = getenv("GT_SIMT_GRID_Y_MAX");
    unsigned long v = s ? strtoul(s, NULL, 10) : 0;
    return v >= 1 && v <= 65535 ? (unsigned)v : 65535u;
}
unsigned gt_simt_grid_y_max = grid_y_max();
long gt_simt_loads, gt_simt_stores, gt_simt_block_loads, gt_simt_block_stores;

/* Given by the program hosting the emulator (the differential driver's fake device):
   whether [p, p + n) lies inside one device allocation. */
extern "C" int gt_device_contains(const void *p, size_t n) __attribute__((weak));

namespace {

struct Fiber {
    ucontext_t ctx;
    dim3 tid;
    bool done;
    bool at_barrier;      /* waits at __syncthreads */
    bool at_warp;         /* waits at a warp shuffle */
};

enum { STACK_BYTES = 64 * 1024 };

ucontext_t scheduler;
Fiber *current;
const std::function<void()> *body;
uint64_t rng = 0x9e3779b97f4a7c15ull;

uint64_t next_random()
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

void fiber_main()
{
    (*body)();
    current->done = true;   /* returns to the scheduler through uc_link */
}

/* A fiber at the start of the kernel, on stack (getcontext in a function of its own:
   no local of the launch is live across it). */
void start_fiber(Fiber *f, char *stack)
{
    getcontext(&f->ctx);
    f->ctx.uc_stack.ss_sp = stack;
    f->ctx.uc_stack.ss_size = STACK_BYTES;
    f->ctx.uc_link = &scheduler;
    makecontext(&f->ctx, fiber_main, 0);
    f->done = f->at_barrier = f->at_warp = false;
}

/* the values the threads of the block leave at a shuffle (8 bytes each at most) */
std::vector<unsigned char> shuffle_slots;

/* the distinct elements the current block loads and stores */
std::unordered_set<uintptr_t> block_loaded, block_stored;

/* the current block's shared elements: who stored and who loaded each since
   which barrier (epoch: barriers the block has passed) */
struct Cell {
    long writer, wepoch;
    long reader, repoch;
    bool readers;             /* several threads loaded it in repoch */
};
std::unordered_map<uintptr_t, Cell> shared_cells;
long epoch;

long thread_number()
{
    return (long)threadIdx.x + (long)blockDim.x * ((long)threadIdx.y + (long)blockDim.y * threadIdx.z);
}

[[noreturn]] void race(const void *p, bool store, const char *what, long other)
{
    fprintf(stderr, "gt_simt: shared memory race: thread %ld of block (%u,%u,%u) %s %p, %s by "
            "thread %ld since the last __syncthreads\n", thread_number(), blockIdx.x, blockIdx.y,
            blockIdx.z, store ? "stores" : "loads", p, what, other);
    abort();
}

} // namespace

void gt_simt_shared_access(const void *p, bool store)
{
    long me = thread_number();
    auto found = shared_cells.find((uintptr_t)p);
    if (found == shared_cells.end())
        found = shared_cells.emplace((uintptr_t)p, Cell{-1, -1, -1, -1, false}).first;
    Cell &c = found->second;
    if (c.wepoch == epoch && c.writer != me)
        race(p, store, "stored", c.writer);
    if (store) {
        if (c.repoch == epoch && (c.readers || c.reader != me))
            race(p, store, "loaded", c.reader);
        c.writer = me;
        c.wepoch = epoch;
    } else if (c.repoch != epoch) {
        c.reader = me;
        c.repoch = epoch;
        c.readers = false;
    } else if (c.reader != me) {
        c.readers = true;
    }
}

void gt_simt_access(const void *p, size_t size, bool store)
{
    if (gt_device_contains && !gt_device_contains(p, size)) {
        fprintf(stderr, "gt_simt: thread (%u,%u,%u) of block (%u,%u,%u) %s %zu bytes at %p, "
                "outside every device allocation\n", threadIdx.x, threadIdx.y, threadIdx.z,
                blockIdx.x, blockIdx.y, blockIdx.z, store ? "stores" : "loads", size, p);
        abort();
    }
    (store ? gt_simt_stores : gt_simt_loads)++;
    (store ? block_stored : block_loaded).insert((uintptr_t)p);
}

/* Waits until every thread of the current thread's warp waits here too. */
static void warp_barrier()
{
    current->at_warp = true;
    swapcontext(&current->ctx, &scheduler);
}

void gt_simt_shuffle(unsigned mask, const void *value, void *out, size_t size, unsigned delta)
{
    long me = thread_number();
    size_t n = (size_t)blockDim.x * blockDim.y * blockDim.z;
    if (!current || mask != 0xffffffffu || size > 8 || n % 32 != 0) {
        fprintf(stderr, "gt_simt: thread %ld: a warp shuffle %s (mask %#x, %zu bytes, block of "
                "%zu threads)\n", me, current ? "this emulator does not model" : "outside a kernel",
                mask, size, n);
        abort();
    }
    memcpy(&shuffle_slots[(size_t)me * 8], value, size);
    warp_barrier();
    long lane = me % 32, from = lane + (long)delta < 32 ? me + (long)delta : me;
    memcpy(out, &shuffle_slots[(size_t)from * 8], size);
    warp_barrier();   /* no lane overwrites its slot before every lane has read */
}

void __syncthreads(void)
{
    if (!current) {
        fprintf(stderr, "gt_simt: __syncthreads outside a kernel\n");
        abort();
    }
    current->at_barrier = true;
    swapcontext(&current->ctx, &scheduler);
}

void gt_simt_launch(dim3 grid, dim3 block, const std::function<void()> &kernel,
                    const char *name)
{
    if (strncmp(name, "gt_a", 4) == 0)
        gt_simt_variants[3]++;
    else if (strncmp(name, "gt_s", 4) == 0)
        gt_simt_variants[0]++;
    else if (strstr(name, "<int32_t>"))
        gt_simt_variants[1]++;
    else if (strstr(name, "<int64_t>"))
        gt_simt_variants[2]++;
    size_t n = (size_t)block.x * block.y * block.z;
    /* CUDA's limits (every architecture): 1024 threads a block, 2^31 - 1 blocks along x,
       65535 along y (here gt_simt_grid_y_max) and z; a launch beyond them fails there */
    if (n == 0 || n > 1024 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.x > 2147483647u || grid.y > gt_simt_grid_y_max || grid.z > 65535) {
        fprintf(stderr, "gt_simt: invalid launch: grid (%u,%u,%u), block (%u,%u,%u)\n", grid.x,
                grid.y, grid.z, block.x, block.y, block.z);
        abort();
    }
    std::vector<Fiber> fibers(n);
    std::vector<char> stacks(n * STACK_BYTES);
    std::vector<size_t> order(n);
    gridDim = grid;
    blockDim = block;
    body = &kernel;
    gt_simt_launches++;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                blockIdx = dim3(bx, by, bz);
                for (size_t t = 0; t < n; t++) {
                    start_fiber(&fibers[t], &stacks[t * STACK_BYTES]);
                    fibers[t].tid = dim3((unsigned)(t % block.x),
                                         (unsigned)(t / block.x % block.y),
                                         (unsigned)(t / ((size_t)block.x * block.y)));
                    order[t] = t;
                }
                gt_simt_threads += (long)n;
                shared_cells.clear();
                shuffle_slots.assign(n * 8, 0);
                epoch = 0;
                for (;;) {
                    for (size_t t = n - 1; t > 0; t--) {
                        size_t r = (size_t)(next_random() % (t + 1));
                        size_t x = order[t];
                        order[t] = order[r];
                        order[r] = x;
                    }
                    for (size_t t = 0; t < n; t++) {
                        Fiber &f = fibers[order[t]];
                        if (f.done || f.at_barrier || f.at_warp)
                            continue;
                        current = &f;
                        threadIdx = f.tid;
                        swapcontext(&scheduler, &f.ctx);
                        current = nullptr;
                    }
                    /* warps whose threads all wait at a shuffle go on */
                    bool moved = false;
                    for (size_t w = 0; w < n; w += 32) {
                        size_t at = 0, end = w + 32 < n ? w + 32 : n;
                        for (size_t t = w; t < end; t++)
                            at += fibers[t].at_warp;
                        if (at == 0)
                            continue;
                        if (at != end - w) {
                            fprintf(stderr, "gt_simt: block (%u,%u,%u): a warp shuffle reached "
                                    "by %zu threads of warp %zu while the others %s\n", bx, by,
                                    bz, at, w / 32, "have ended or wait at __syncthreads");
                            abort();
                        }
                        for (size_t t = w; t < end; t++)
                            fibers[t].at_warp = false;
                        moved = true;
                    }
                    if (moved)
                        continue;
                    size_t done = 0, waiting = 0;
                    for (size_t t = 0; t < n; t++) {
                        done += fibers[t].done;
                        waiting += fibers[t].at_barrier && !fibers[t].done;
                    }
                    if (done == n) {
                        gt_simt_block_loads += (long)block_loaded.size();
                        gt_simt_block_stores += (long)block_stored.size();
                        block_loaded.clear();
                        block_stored.clear();
                        break;
                    }
                    epoch++;   /* every thread left is at the barrier */
                    for (size_t t = 0; t < n; t++)
                        fibers[t].at_barrier = false;
                    if (done > 0) {
                        fprintf(stderr, "gt_simt: block (%u,%u,%u): __syncthreads reached by %zu "
                                "threads while %zu have ended\n", bx, by, bz, waiting, done);
                        abort();
                    }
                }
            }
    body = nullptr;
}

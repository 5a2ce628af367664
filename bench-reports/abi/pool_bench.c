/* What a C caller gets from the pool through the ABI, against what a C programmer writes by hand:
   bk_pool_acquire + bk_pool_release against malloc + free of the same size, touched once (one
   byte written, as a caller would), in alternating rounds; medians in ns per pair. The cases:
   one thread; two threads at once, and eight on the machine's two cores, each with its own pairs
   (wall time per pair of one thread); and cross-thread release, one thread acquiring and another
   releasing through a ring of 256.
   ALLOCATOR names the malloc in the table (run under LD_PRELOAD for mimalloc or jemalloc).

   Build: gcc -O2 -I include bench-reports/abi/pool_bench.c LIBDIR/libbufkit.a \
            -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o pool_bench
   Run:   ./pool_bench [ROUNDS]   (prints a Markdown table) */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "bufkit.h"
#include "preloaded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define PAIRS 200000

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static volatile unsigned char sink;

static double round_pool(bk_pool *pool, size_t size) {
  bk_lease lease;
  double start = now_ns();
  for (int i = 0; i < PAIRS; i++) {
    if (bk_pool_acquire(pool, size, &lease) != BK_STATUS_OK) abort();
    lease.data[i & 63] = (unsigned char)i;
    sink = lease.data[0];
    if (bk_pool_release(pool, &lease) != BK_STATUS_OK) abort();
  }
  return (now_ns() - start) / PAIRS;
}

static double round_malloc(size_t size) {
  double start = now_ns();
  for (int i = 0; i < PAIRS; i++) {
    unsigned char *p = malloc(size);
    if (!p) abort();
    p[i & 63] = (unsigned char)i;
    sink = p[0];
    free(p);
  }
  return (now_ns() - start) / PAIRS;
}

/* ---- several threads at once: each runs a round of its own; the wall time per pair is reported ---- */

struct job {
  bk_pool *pool; /* NULL: malloc */
  size_t size;
  double ns;
};

static void *run_job(void *arg) {
  struct job *j = arg;
  j->ns = j->pool ? round_pool(j->pool, j->size) : round_malloc(j->size);
  return NULL;
}

static double round_threads(bk_pool *pool, size_t size, int threads) {
  pthread_t t[8];
  struct job jobs[8];
  double start = now_ns();
  for (int i = 0; i < threads; i++) {
    jobs[i] = (struct job){pool, size, 0};
    if (pthread_create(&t[i], NULL, run_job, &jobs[i]) != 0) abort();
  }
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  return (now_ns() - start) / PAIRS; /* wall per pair of one thread: threads run side by side */
}

/* ---- cross-thread release: one thread acquires, another releases, through a ring ---- */

enum { RING = 256 };
struct ring {
  _Atomic unsigned long head, tail;
  bk_lease leases[RING];
  void *blocks[RING];
  bk_pool *pool;
};

static void *release_side(void *arg) {
  struct ring *r = arg;
  for (unsigned long n = 0; n < PAIRS; n++) {
    while (atomic_load_explicit(&r->head, memory_order_acquire) == n) sched_yield();
    if (r->pool) {
      if (bk_pool_release(r->pool, &r->leases[n % RING]) != BK_STATUS_OK) abort();
    } else {
      free(r->blocks[n % RING]);
    }
    atomic_store_explicit(&r->tail, n + 1, memory_order_release);
  }
  return NULL;
}

static double round_cross(bk_pool *pool, size_t size) {
  static struct ring r;
  pthread_t t;
  atomic_store(&r.head, 0);
  atomic_store(&r.tail, 0);
  r.pool = pool;
  double start = now_ns();
  if (pthread_create(&t, NULL, release_side, &r) != 0) abort();
  for (unsigned long n = 0; n < PAIRS; n++) {
    while (n - atomic_load_explicit(&r.tail, memory_order_acquire) >= RING) sched_yield();
    if (pool) {
      if (bk_pool_acquire(pool, size, &r.leases[n % RING]) != BK_STATUS_OK) abort();
      r.leases[n % RING].data[n & 63] = 1;
    } else {
      unsigned char *p = malloc(size);
      if (!p) abort();
      p[n & 63] = 1;
      r.blocks[n % RING] = p;
    }
    atomic_store_explicit(&r.head, n + 1, memory_order_release);
  }
  pthread_join(t, NULL);
  return (now_ns() - start) / PAIRS;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 11;
  const char *allocator = allocator_name();
  size_t sizes[3] = {4096, 65536, 1 << 20};
  bk_pool *pool = NULL;
  if (rounds < 1 || rounds > 1000 || bk_pool_new(NULL, &pool) != BK_STATUS_OK) return 1;
  printf("| case | size | bk_pool | malloc+free (%s) | pool / malloc |\n|---|---:|---:|---:|---:|\n", allocator);
  /* Mode 4 is mode 0 again, once the process has started threads: glibc takes a lock-free path
     while a process has never had a second thread, which a JVM or a BEAM never is. */
  for (int mode = 0; mode < 5; mode++) {
    const char *name = mode == 0   ? "1 thread"
                       : mode == 1 ? "2 threads, each its own pairs"
                       : mode == 2 ? "8 threads on 2 cores, each its own pairs"
                       : mode == 3 ? "cross-thread: acquire on one, release on another"
                                   : "1 thread, in a process that has started threads";
    for (int s = 0; s < 3; s++) {
      double pooled[1000], plain[1000];
      for (int r = -1; r < rounds; r++) { /* round -1 warms both */
        int single = mode == 0 || mode == 4, threads = mode == 1 ? 2 : 8;
        double p = single      ? round_pool(pool, sizes[s])
                   : mode == 3 ? round_cross(pool, sizes[s])
                               : round_threads(pool, sizes[s], threads);
        double m = single      ? round_malloc(sizes[s])
                   : mode == 3 ? round_cross(NULL, sizes[s])
                               : round_threads(NULL, sizes[s], threads);
        if (r >= 0) pooled[r] = p, plain[r] = m;
      }
      double p = median(pooled, rounds), m = median(plain, rounds);
      printf("| %s | %zu KiB | %.1f ns | %.1f ns | %.2f× |\n", name, sizes[s] >> 10, p, m, p / m);
    }
  }
  return bk_pool_free(pool) == BK_STATUS_OK ? 0 : 1;
}

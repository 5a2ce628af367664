/* What a C caller gets from the pool through the ABI, against what a C programmer writes by hand:
   bk_pool_acquire + bk_pool_release against malloc + free of the same size, touched once (one
   byte written, as a caller would), one thread, in alternating rounds; medians in ns per pair.

   Build: gcc -O2 -I include bench-reports/abi/pool_bench.c LIBDIR/libbufkit.a \
            -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o pool_bench
   Run:   ./pool_bench [ROUNDS]   (prints a Markdown table) */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 11;
  size_t sizes[3] = {4096, 65536, 1 << 20};
  bk_pool *pool = NULL;
  if (rounds < 1 || rounds > 1000 || bk_pool_new(NULL, &pool) != BK_STATUS_OK) return 1;
  printf("| size | bk_pool acquire+release | malloc+free (glibc) | pool / malloc |\n|---:|---:|---:|---:|\n");
  for (int s = 0; s < 3; s++) {
    double pooled[1000], plain[1000];
    round_pool(pool, sizes[s]); /* warm: the pool holds a buffer, glibc has moved its threshold */
    round_malloc(sizes[s]);
    for (int r = 0; r < rounds; r++) {
      pooled[r] = round_pool(pool, sizes[s]);
      plain[r] = round_malloc(sizes[s]);
    }
    double p = median(pooled, rounds), m = median(plain, rounds);
    printf("| %zu KiB | %.1f ns | %.1f ns | %.2f× |\n", sizes[s] >> 10, p, m, p / m);
  }
  return bk_pool_free(pool) == BK_STATUS_OK ? 0 : 1;
}

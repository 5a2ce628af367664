/* Growth where a C caller stands: a 1 MB message built from pieces of 20-30 bytes (the seed's
   workload) through bk_buffer_append into a fresh geometric buffer, against what a C programmer
   writes by hand (a realloc-doubling buffer, the pieces memcpy'd in), and against the floor, one
   memcpy of the whole message into freshly mapped memory; and the same appends into a buffer kept
   from the previous message and cleared. Every variant frees its memory inside
   the timed region. Alternating rounds, medians in microseconds.
   Build: gcc -O2 -I include bench-reports/abi/growth_bench.c target/release/libbufkit.a \
            -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o growth_bench
   Run:   ./growth_bench [MB] [ROUNDS] */
#define _DEFAULT_SOURCE
#include "bufkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static volatile unsigned char sink;

int main(int argc, char **argv) {
  size_t total = (size_t)((argc > 1 ? atof(argv[1]) : 1.0) * 1000000);
  int rounds = argc > 2 ? atoi(argv[2]) : 41;
  unsigned char *source = malloc(total + 64), *lens = malloc(total / 20 + 1);
  size_t pieces = 0;
  for (size_t i = 0; i < total + 64; i++) source[i] = (unsigned char)(i * 31 + i / 7);
  for (size_t at = 0, x = 12345; at < total; pieces++) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    lens[pieces] = (unsigned char)(20 + (x >> 33) % 11);
    at += lens[pieces];
  }
  double *t_abi = calloc((size_t)rounds, sizeof(double)), *t_realloc = calloc((size_t)rounds, sizeof(double)),
         *t_memcpy = calloc((size_t)rounds, sizeof(double)), *t_kept = calloc((size_t)rounds, sizeof(double));
  bk_buffer *kept = NULL; /* a program encoding message after message keeps its buffer */
  if (bk_buffer_new(NULL, &kept) != BK_STATUS_OK) abort();
  for (int r = -3; r < rounds; r++) {
    /* through the ABI */
    double t0 = now_us();
    bk_buffer *buffer = NULL;
    if (bk_buffer_new(NULL, &buffer) != BK_STATUS_OK) abort();
    size_t at = 0;
    for (size_t p = 0; p < pieces; p++) {
      if (bk_buffer_append(buffer, source + at, lens[p]) != BK_STATUS_OK) abort();
      at += lens[p];
    }
    const uint8_t *data;
    size_t len;
    if (bk_buffer_data(buffer, &data, &len) != BK_STATUS_OK || len != at) abort();
    sink = data[len / 2];
    bk_buffer_free(buffer);
    double abi = now_us() - t0;
    /* by hand: realloc doubling */
    t0 = now_us();
    size_t cap = 64, used = 0;
    unsigned char *buf = malloc(cap);
    at = 0;
    for (size_t p = 0; p < pieces; p++) {
      if (used + lens[p] > cap) {
        cap *= 2;
        buf = realloc(buf, cap);
        if (!buf) abort();
      }
      memcpy(buf + used, source + at, lens[p]);
      used += lens[p];
      at += lens[p];
    }
    sink = buf[used / 2];
    free(buf);
    double by_hand = now_us() - t0;
    /* the floor: one memcpy into fresh pages */
    t0 = now_us();
    unsigned char *fresh = mmap(NULL, at, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fresh == MAP_FAILED) abort();
    memcpy(fresh, source, at);
    sink = fresh[at / 2];
    munmap(fresh, at);
    double floor = now_us() - t0;
    /* through the ABI, the buffer kept from the last message and cleared */
    t0 = now_us();
    if (bk_buffer_clear(kept) != BK_STATUS_OK) abort();
    at = 0;
    for (size_t p = 0; p < pieces; p++) {
      if (bk_buffer_append(kept, source + at, lens[p]) != BK_STATUS_OK) abort();
      at += lens[p];
    }
    double again = now_us() - t0;
    if (r >= 0) t_abi[r] = abi, t_realloc[r] = by_hand, t_memcpy[r] = floor, t_kept[r] = again;
  }
  qsort(t_abi, (size_t)rounds, sizeof(double), cmp);
  qsort(t_realloc, (size_t)rounds, sizeof(double), cmp);
  qsort(t_memcpy, (size_t)rounds, sizeof(double), cmp);
  qsort(t_kept, (size_t)rounds, sizeof(double), cmp);
  double a = t_abi[rounds / 2], h = t_realloc[rounds / 2], m = t_memcpy[rounds / 2], k = t_kept[rounds / 2];
  bk_buffer_free(kept);
  printf(
      "{\"bytes\":%zu,\"pieces\":%zu,\"abi_geometric_us\":%.1f,\"realloc_doubling_us\":%.1f,\"memcpy_fresh_us\":%.1f,"
      "\"abi_vs_memcpy\":%.2f,\"abi_vs_realloc\":%.2f,\"ns_per_append\":%.1f,\"abi_kept_us\":%.1f,\"kept_ns_per_"
      "append\":%.1f}\n",
      total, pieces, a, h, m, a / m, a / h, a * 1e3 / (double)pieces, k, k * 1e3 / (double)pieces);
  return 0;
}

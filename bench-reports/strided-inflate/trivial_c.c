/* The call-overhead baseline: one trivial zlib stream ("hello", 13 bytes) inflated over and over
 * through the C ABI, per call and in batches of 1,024, the same loops InflateBench.java runs from
 * Java. Prints ns per stream (median of 7 rounds).
 * Build: gcc -O2 -Iinclude bench-reports/strided-inflate/trivial_c.c target/release/libbufkit.a -lz -lpthread -ldl -lm
 */
#include <bufkit.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(void) {
  static unsigned char in[64], out[5 * 1024];
  static bk_inflate_request req[1024];
  static bk_inflate_result res[1024];
  uLongf clen = sizeof in;
  const int calls = 2000000, rounds = 7;
  double per_call[7], batched[7];
  bk_inflater *inf;
  size_t consumed, ok, sum = 0;
  if (compress2(in, &clen, (const Bytef *)"hello", 5, 6) != Z_OK ||
      bk_inflater_new(BK_FORMAT_ZLIB, &inf) != BK_STATUS_OK)
    return 1;
  for (int i = 0; i < 1024; i++) req[i] = (bk_inflate_request){.offset = 0, .expected_len = 5};
  for (int r = 0; r < rounds + 2; r++) {
    double t = now_ns();
    for (int i = 0; i < calls; i++) {
      if (bk_inflate_at(inf, in, sizeof in, 0, out, 5, &consumed) != BK_STATUS_OK) return 1;
      sum += consumed;
    }
    double a = now_ns() - t;
    t = now_ns();
    for (int i = 0; i < calls; i += 1024)
      if (bk_inflate_batch(inf, in, sizeof in, req, 1024, out, sizeof out, res, &ok) != BK_STATUS_OK || ok != 1024)
        return 1;
    double b = now_ns() - t;
    if (r >= 2) {
      per_call[r - 2] = a / calls;
      batched[r - 2] = b / ((calls + 1023) / 1024 * 1024.0);
    }
  }
  qsort(per_call, rounds, sizeof per_call[0], by_value);
  qsort(batched, rounds, sizeof batched[0], by_value);
  printf("{\"engine\":\"c-trivial-per-call\",\"ns_per_object\":%.1f,\"check\":%zu}\n", per_call[rounds / 2], sum);
  printf("{\"engine\":\"c-trivial-batch-1024\",\"ns_per_object\":%.1f}\n", batched[rounds / 2]);
  bk_inflater_free(inf);
  return 0;
}

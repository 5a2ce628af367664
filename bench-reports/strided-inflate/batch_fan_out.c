/* bk_inflate_batch spread over the cores, from C: every object of a pack inflated by one
   bk_inflate_at per object (the loop), against bk_inflate_batch in batches of N (the whole pack
   when N is larger), wall and CPU time, 5 alternating rounds.
   Build: gcc -O2 -Iinclude bench-reports/strided-inflate/batch_fan_out.c target/release/libbufkit.a -lpthread -ldl -lm
   -o /tmp/batch_fan_out Run:   /tmp/batch_fan_out PACK TABLE N   (TABLE from pack_bench: 16-byte offset, size records)
 */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static double cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}
static unsigned char *slurp(const char *p, size_t *n) {
  FILE *f = fopen(p, "rb");
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  rewind(f);
  unsigned char *b = malloc(*n);
  if (fread(b, 1, *n, f) != *n) abort();
  fclose(f);
  return b;
}
int main(int argc, char **argv) {
  size_t plen, tlen;
  unsigned char *pack = slurp(argv[1], &plen);
  unsigned char *tab = slurp(argv[2], &tlen);
  size_t n = tlen / 16, batch = (size_t)atoi(argv[3]);
  bk_inflate_request *req = malloc(n * sizeof *req);
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t o, s;
    memcpy(&o, tab + 16 * i, 8);
    memcpy(&s, tab + 16 * i + 8, 8);
    req[i].offset = o;
    req[i].expected_len = s;
    total += s;
  }
  unsigned char *out = malloc(total + 1);
  bk_inflate_result *res = malloc(n * sizeof *res);
  bk_inflater *inf;
  bk_inflater_new(BK_FORMAT_ZLIB, &inf);
  for (int r = 0; r < 5; r++) {
    double t0 = now(), c0 = cpu();
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
      size_t c;
      if (bk_inflate_at(inf, pack, plen, req[i].offset, out + at, req[i].expected_len, &c)) abort();
      at += req[i].expected_len;
    }
    double loop = now() - t0, loopc = cpu() - c0;
    t0 = now();
    c0 = cpu();
    at = 0;
    for (size_t i = 0; i < n; i += batch) {
      size_t k = n - i < batch ? n - i : batch, ok, sz = 0;
      for (size_t j = 0; j < k; j++) sz += req[i + j].expected_len;
      if (bk_inflate_batch(inf, pack, plen, req + i, k, out + at, sz, res + i, &ok) || ok != k) abort();
      at += sz;
    }
    double b = now() - t0, bc = cpu() - c0;
    printf("loop %.1f ms (cpu %.1f) | batch of %zu: %.1f ms (cpu %.1f) | %.2fx, efficiency %.2f\n", loop * 1e3,
           loopc * 1e3, batch, b * 1e3, bc * 1e3, loop / b, bc / (2 * b));
  }
  return 0;
}

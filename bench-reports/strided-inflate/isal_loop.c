/*
 * ISA-L's inflate (Debian's libisal-dev) over the objects of a pack, for comparison only: one
 * inflate_state, isal_inflate_init per object, zlib framing, output of the known size. ISA-L reads
 * input ahead into its own bit buffer, so its "consumed" counts run past the stream's end: it could
 * not walk a pack by itself. Usage: isal_loop PACK TABLE REPS (TABLE as for git_loop.c); prints the
 * median CPU seconds of one pass. Build: gcc -O2 -o isal_loop bench-reports/strided-inflate/isal_loop.c -lisal
 */
#define _POSIX_C_SOURCE 200809L
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(*len ? *len : 1);
  if (fread(buf, 1, *len, f) != *len) exit(2);
  fclose(f);
  return buf;
}
static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
int main(int argc, char **argv) {
  size_t pack_len, table_len, max = 0;
  unsigned char *pack = slurp(argv[1], &pack_len);
  uint64_t *table = (uint64_t *)slurp(argv[2], &table_len);
  size_t n = table_len / 16;
  int reps = atoi(argv[3]);
  for (size_t i = 0; i < n; i++)
    if (table[2 * i + 1] > max) max = table[2 * i + 1];
  unsigned char *out = malloc(max + 1);
  double times[64];
  unsigned long sum = 0;
  struct inflate_state *st = malloc(sizeof *st);
  for (int r = 0; r < reps; r++) {
    double start = cpu_now();
    sum = 0;
    for (size_t i = 0; i < n; i++) {
      size_t off = table[2 * i], size = table[2 * i + 1];
      isal_inflate_init(st);
      st->crc_flag = ISAL_ZLIB;
      st->next_in = pack + off;
      st->avail_in = (uint32_t)(pack_len - off > 0xffffffffu ? 0xffffffffu : pack_len - off);
      st->next_out = out;
      st->avail_out = (uint32_t)size;
      int rc = isal_inflate(st);
      if (rc != ISAL_DECOMP_OK || st->block_state != ISAL_BLOCK_FINISH || st->total_out != size) {
        fprintf(stderr, "object %zu: %d state %d out %u\n", i, rc, st->block_state, st->total_out);
        return 1;
      }
      sum += (pack_len - off) - st->avail_in;
    }
    times[r] = cpu_now() - start;
  }
  qsort(times, reps, sizeof(double), cmp);
  printf("{\"engine\":\"isa-l\",\"seconds\":%.6f,\"objects\":%zu,\"consumed\":%lu}\n", times[reps / 2], n, sum);
  return 0;
}

/*
 * git's per-object inflate loop, as unpack_compressed_entry does it: inflateInit / inflate /
 * inflateEnd for every object, with the system zlib, the input being the rest of the pack.
 * Usage: git_loop PACK TABLE REPS  (TABLE: pairs of little-endian u64 stream offset, size, written
 * by `pack_bench`). Prints the median CPU seconds of one pass over all objects.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc(*len ? *len : 1);
  if (fread(buf, 1, *len, f) != *len) {
    perror(path);
    exit(2);
  }
  fclose(f);
  return buf;
}

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  size_t pack_len, table_len, max = 0;
  if (argc != 4) {
    fprintf(stderr, "usage: git_loop PACK TABLE REPS\n");
    return 2;
  }
  unsigned char *pack = slurp(argv[1], &pack_len);
  uint64_t *table = (uint64_t *)slurp(argv[2], &table_len);
  size_t n = table_len / 16;
  int reps = atoi(argv[3]);
  for (size_t i = 0; i < n; i++)
    if (table[2 * i + 1] > max) max = table[2 * i + 1];
  unsigned char *out = malloc(max ? max : 1);
  double *times = malloc(sizeof(double) * (size_t)reps);
  unsigned long checksum = 0;
  for (int r = 0; r < reps; r++) {
    double start = cpu_now();
    for (size_t i = 0; i < n; i++) {
      size_t off = table[2 * i], size = table[2 * i + 1];
      z_stream z;
      memset(&z, 0, sizeof z);
      z.next_in = pack + off;
      z.avail_in = (uInt)(pack_len - off > 0xffffffffu ? 0xffffffffu : pack_len - off);
      z.next_out = out;
      z.avail_out = (uInt)size;
      if (inflateInit(&z) != Z_OK) {
        fprintf(stderr, "inflateInit failed\n");
        return 1;
      }
      int st = inflate(&z, Z_FINISH);
      if (st != Z_STREAM_END || z.total_out != size) {
        fprintf(stderr, "object %zu: inflate %d\n", i, st);
        return 1;
      }
      checksum += z.total_in;
      inflateEnd(&z);
    }
    times[r] = cpu_now() - start;
  }
  qsort(times, (size_t)reps, sizeof(double), cmp);
  printf("{\"engine\":\"git-zlib-loop\",\"seconds\":%.6f,\"objects\":%zu,\"consumed\":%lu}\n", times[reps / 2], n,
         checksum / (unsigned long)reps);
  return 0;
}

/* Random 4 KiB slices of a stored entry of 64 MiB, read with bk_archive_read_at from the file
   (BK_ARCHIVE_READ): median and p99 over READS reads, after the first (which checks the entry).
   Usage: stored_slices ARCHIVE READS   (ARCHIVE holds raw.bin, stored, 64 MiB: see
   bench-reports/assets-in-place.md for the command that makes it). */
#include "bufkit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
  bk_archive *archive = NULL;
  size_t index = 0, n = 0;
  static unsigned char buf[4096];
  int reads = atoi(argv[2]);
  if (bk_archive_open(argv[1], NULL, &archive) || bk_archive_find(archive, "raw.bin", 7, &index)) return 1;
  if (bk_archive_read_at(archive, index, 0, buf, sizeof buf, &n)) return 2;
  double *t = malloc(sizeof(double) * reads);
  unsigned long long x = 88172645463325252ull;
  for (int i = 0; i < reads; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    unsigned long long off = x % ((64u << 20) - 4096);
    double s = now();
    if (bk_archive_read_at(archive, index, off, buf, sizeof buf, &n) || n != 4096) return 3;
    t[i] = now() - s;
  }
  qsort(t, reads, sizeof *t, cmp);
  printf("median %.2f us, p99 %.2f us\n", t[reads / 2] * 1e6, t[reads * 99 / 100] * 1e6);
  bk_archive_free(archive);
  return 0;
}

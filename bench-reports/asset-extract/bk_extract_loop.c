// The floor under the bindings' extraction numbers: bk_extract called from C in a loop, each
// round into a fresh directory (removed outside the clock), the median printed in ms.
// Build: cc -O2 -I include -o /tmp/bk_extract_loop bench-reports/asset-extract/bk_extract_loop.c
//          target/release/libbufkit.a -lpthread -ldl -lm   (one line)
// Usage: bk_extract_loop ARCHIVE DEST_PARENT ROUNDS   (DEST_PARENT: an existing directory on
//        tmpfs, e.g. /dev/shm)
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "bufkit.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s ARCHIVE DEST_PARENT ROUNDS\n", argv[0]);
    return 2;
  }
  int rounds = atoi(argv[3]);
  if (rounds < 1) return 2;
  double *ms = calloc((size_t)rounds, sizeof *ms);
  char dest[4096], cmd[8192], detail[512];
  for (int i = -1; i < rounds; i++) {  // round -1 warms up
    snprintf(dest, sizeof dest, "%s/round", argv[2]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dest);
    if (system(cmd) != 0) return 1;
    bk_extract_report report = {.size = sizeof report};
    double start = now_ms();
    bk_status status = bk_extract(argv[1], dest, NULL, &report, NULL, 0, detail, sizeof detail);
    double took = now_ms() - start;
    if (status != BK_STATUS_OK) {
      fprintf(stderr, "bk_extract: %d %s\n", (int)status, detail);
      return 1;
    }
    if (i >= 0) ms[i] = took;
  }
  qsort(ms, (size_t)rounds, sizeof *ms, by_value);
  printf("{\"bk_extract_median_ms\":%.2f,\"min_ms\":%.2f,\"max_ms\":%.2f}\n", ms[rounds / 2], ms[0], ms[rounds - 1]);
  return 0;
}

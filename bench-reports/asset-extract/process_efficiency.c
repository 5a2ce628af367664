// Whole-process parallel efficiency of `bufkit extract`: each round spawns every given binary
// once, in turn (alternating, so the machine's drift hits all alike), as
// `BINARY extract ARCHIVE DEST --threads THREADS`, with no shell in between, into a fresh
// destination on tmpfs that is removed outside the timing. Wall time is taken around
// posix_spawn .. wait4, CPU time (user + system, all threads) from wait4's rusage of that child
// alone. Prints the medians and the efficiency CPU / (THREADS x wall) per binary.
//
// Build: cc -O2 -o /tmp/process_efficiency bench-reports/asset-extract/process_efficiency.c
// Usage: /tmp/process_efficiency ROUNDS THREADS ARCHIVE NAME=BINARY[:EXTRA_ARG] [NAME=BINARY...]
// (e.g. mapped=target/release/bufkit:--map-archive)
#define _GNU_SOURCE
#include "timed_spawn.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, by_value);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: %s ROUNDS THREADS ARCHIVE NAME=BINARY...\n", argv[0]);
    return 2;
  }
  int rounds = atoi(argv[1]), tools = argc - 4;
  const char *threads = argv[2], *archive = argv[3];
  if (rounds < 1) return 2;
  char dest[128];
  snprintf(dest, sizeof dest, "/dev/shm/bufkit-process-efficiency-%d", (int)getpid());
  double *wall = calloc((size_t)rounds * tools, sizeof *wall), *cpu = calloc((size_t)rounds * tools, sizeof *cpu);
  if (!wall || !cpu) return 1;
  for (int r = 0; r < rounds; r++) {
    for (int t = 0; t < tools; t++) {
      static char spec[4096];
      snprintf(spec, sizeof spec, "%s", argv[4 + t]);
      char *binary = strchr(spec, '=');
      if (!binary) return 2;
      char *extra = strchr(binary, ':');
      if (extra) *extra++ = '\0';
      char *args[] = {binary + 1, "extract", (char *)archive, dest, "--threads", (char *)threads, extra, NULL};
      nftw(dest, remove_one, 16, FTW_DEPTH | FTW_PHYS);
      struct rusage use;
      if (timed_spawn(args, &wall[t * rounds + r], &use) != 0) {
        fprintf(stderr, "%s failed\n", argv[4 + t]);
        return 1;
      }
      cpu[t * rounds + r] =
          use.ru_utime.tv_sec + use.ru_utime.tv_usec * 1e-6 + use.ru_stime.tv_sec + use.ru_stime.tv_usec * 1e-6;
    }
  }
  nftw(dest, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  printf("%-12s %10s %10s %10s\n", "binary", "wall ms", "CPU ms", "efficiency");
  for (int t = 0; t < tools; t++) {
    double w = median(wall + t * rounds, rounds), c = median(cpu + t * rounds, rounds);
    int name_len = (int)(strchr(argv[4 + t], '=') - argv[4 + t]);
    printf("%-12.*s %10.2f %10.2f %10.2f\n", name_len, argv[4 + t], w * 1e3, c * 1e3, c / (atof(threads) * w));
  }
  return 0;
}

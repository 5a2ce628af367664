/* Random reads inside one large deflated entry through the C ABI (issue 28): what a C caller
   gets from bk_archive_read_at, against one full inflate of the entry (bk_archive_read) and
   against inflating from the entry's start for every read (checkpoints off).

   Build: gcc -O2 -I include bench-reports/assets-in-place/read_at_bench.c target/release/libbufkit.a \
            -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o /tmp/read_at_bench
   Run:   /tmp/read_at_bench ARCHIVE ENTRY [READS] [SLICE]   (bench-reports/assets-in-place/read_at.py makes
          the archive: one 256 MiB entry of log lines, deflated at level 6)
   Prints one JSON object. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bufkit.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void ok(bk_status s, const char *what) {
  if (s != BK_STATUS_OK) {
    fprintf(stderr, "%s: %s\n", what, bk_status_message(s));
    exit(1);
  }
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static bk_archive *open_entry(const char *path, const char *name, size_t *index, uint64_t *size) {
  bk_archive *archive = NULL;
  ok(bk_archive_open(path, NULL, &archive), "bk_archive_open");
  ok(bk_archive_find(archive, name, strlen(name), index), "bk_archive_find");
  ok(bk_archive_entry_size(archive, *index, size), "bk_archive_entry_size");
  return archive;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : NULL, *name = argc > 2 ? argv[2] : NULL;
  int reads = argc > 3 ? atoi(argv[3]) : 1000;
  size_t slice = argc > 4 ? (size_t)atol(argv[4]) : 4096, index = 0, written = 0;
  uint64_t size = 0, memory = 0, state = 12345;
  double t, full_best = 1e9, first, *lat, from_start_total = 0;
  int from_start_reads = 5;
  unsigned char *whole, *buf;
  struct rusage usage;
  bk_archive *archive;
  if (!path || !name || reads < 1) {
    fprintf(stderr, "usage: read_at_bench ARCHIVE ENTRY [READS] [SLICE]\n");
    return 2;
  }
  archive = open_entry(path, name, &index, &size);
  whole = malloc(size);
  buf = malloc(slice);
  lat = malloc(sizeof *lat * (size_t)reads);
  if (!whole || !buf || !lat) return 1;
  /* One full inflate of the entry (libdeflate into one buffer), best of 3. */
  for (int i = 0; i < 3; i++) {
    t = now();
    ok(bk_archive_read(archive, index, whole, size, &written), "bk_archive_read");
    t = now() - t;
    if (t < full_best) full_best = t;
  }
  bk_archive_free(archive);
  /* A fresh open: the first slice builds the checkpoints. */
  archive = open_entry(path, name, &index, &size);
  t = now();
  ok(bk_archive_read_at(archive, index, size / 3, buf, slice, &written), "first bk_archive_read_at");
  first = now() - t;
  if (memcmp(buf, whole + size / 3, written) != 0) return 3;
  ok(bk_archive_checkpoint_memory(archive, &memory), "bk_archive_checkpoint_memory");
  for (int i = 0; i < reads; i++) {
    uint64_t offset;
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    offset = (state >> 16) % (size - slice);
    t = now();
    ok(bk_archive_read_at(archive, index, offset, buf, slice, &written), "bk_archive_read_at");
    lat[i] = now() - t;
    if (written != slice || memcmp(buf, whole + offset, slice) != 0) {
      fprintf(stderr, "wrong bytes at %llu\n", (unsigned long long)offset);
      return 3;
    }
  }
  qsort(lat, (size_t)reads, sizeof *lat, by_value);
  /* Without checkpoints: every read inflates from the entry's start. */
  ok(bk_archive_set_checkpoint_limits(archive, 1 << 20, 0), "bk_archive_set_checkpoint_limits");
  for (int i = 0; i < from_start_reads; i++) {
    uint64_t offset;
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    offset = (state >> 16) % (size - slice);
    t = now();
    ok(bk_archive_read_at(archive, index, offset, buf, slice, &written), "bk_archive_read_at from the start");
    from_start_total += now() - t;
    if (memcmp(buf, whole + offset, slice) != 0) return 3;
  }
  getrusage(RUSAGE_SELF, &usage);
  printf(
      "{\"entry_bytes\": %llu, \"slice\": %zu, \"reads\": %d, \"full_inflate_ms\": %.2f, \"first_read_ms\": %.2f, "
      "\"first_over_full\": %.2f, \"median_ms\": %.3f, \"p99_ms\": %.3f, \"max_ms\": %.3f, \"checkpoint_bytes\": %llu, "
      "\"from_start_mean_ms\": %.2f, \"from_start_over_median\": %.0f, \"max_rss_mib\": %.1f}\n",
      (unsigned long long)size, slice, reads, full_best * 1e3, first * 1e3, first / full_best, lat[reads / 2] * 1e3,
      lat[(reads * 99) / 100] * 1e3, lat[reads - 1] * 1e3, (unsigned long long)memory,
      from_start_total / from_start_reads * 1e3, from_start_total / from_start_reads / lat[reads / 2],
      usage.ru_maxrss / 1024.0);
  bk_archive_free(archive);
  free(whole);
  free(buf);
  free(lat);
  return 0;
}

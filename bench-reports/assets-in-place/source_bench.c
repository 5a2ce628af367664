/* A caller's source (bk_archive_open_source with a read_at callback doing pread) against the
 * built-in file source (bk_archive_open, BK_ARCHIVE_READ) on the same archive: the first start
 * (open, every file read once) and every file read again on an open archive, in alternating
 * rounds. Prints one JSON line of medians and ratios (source over file; 1.00 is the same).
 * Usage: source_bench ARCHIVE LABEL   (ROUNDS set at compile time, default 21) */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef ROUNDS
#define ROUNDS 21
#endif

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

static void die(const char *what, int code) {
  fprintf(stderr, "%s failed: %d\n", what, code);
  exit(1);
}

/* What a host writes: its archive's bytes by pread on a descriptor it holds. */
static int64_t pread_at(void *ctx, uint64_t offset, uint8_t *buf, size_t len) {
  ssize_t n = pread(*(int *)ctx, buf, len, (off_t)offset);
  return n < 0 ? -errno : (int64_t)n;
}

static bk_archive *open_archive(const char *path, int *fd, int with_source) {
  bk_archive *a = NULL;
  if (!with_source) {
    if (bk_archive_open(path, NULL, &a) != BK_STATUS_OK) die("bk_archive_open", 0);
    return a;
  }
  struct stat st;
  if (fstat(*fd, &st) != 0) die("fstat", errno);
  bk_source source = {.length = (uint64_t)st.st_size, .read_at = pread_at, .release = NULL, .ctx = fd};
  if (bk_archive_open_source(&source, NULL, &a) != BK_STATUS_OK) die("bk_archive_open_source", 0);
  return a;
}

static void read_every_file(const bk_archive *a, unsigned char *buf, size_t cap) {
  size_t count = 0, written;
  bk_archive_entry_count(a, &count);
  for (size_t i = 0; i < count; i++) {
    bk_archive_entry info;
    bk_archive_entry_info(a, i, &info);
    if (info.is_directory) continue;
    if (bk_archive_read(a, i, buf, cap, &written) != BK_STATUS_OK) die("bk_archive_read", (int)i);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ARCHIVE LABEL\n", argv[0]);
    return 2;
  }
  const char *path = argv[1], *label = argv[2];
  int fd = open(path, O_RDONLY);
  if (fd < 0) die("open", errno);
  double start[2][ROUNDS], again[2][ROUNDS];
  size_t biggest = 1, count = 0;
  bk_archive *a = open_archive(path, &fd, 0);
  bk_archive_entry_count(a, &count);
  for (size_t i = 0; i < count; i++) {
    bk_archive_entry info;
    bk_archive_entry_info(a, i, &info);
    if (info.size > biggest) biggest = (size_t)info.size;
  }
  bk_archive_free(a);
  unsigned char *buf = malloc(biggest);
  for (int r = 0; r < ROUNDS; r++) {
    for (int k = 0; k < 2; k++) {
      int with_source = (r + k) % 2; /* alternate which goes first */
      double t0 = now();
      a = open_archive(path, &fd, with_source);
      read_every_file(a, buf, biggest);
      start[with_source][r] = now() - t0;
      t0 = now();
      read_every_file(a, buf, biggest);
      again[with_source][r] = now() - t0;
      bk_archive_free(a);
    }
  }
  double fs = median(start[0], ROUNDS), ss = median(start[1], ROUNDS);
  double fa = median(again[0], ROUNDS), sa = median(again[1], ROUNDS);
  printf(
      "{\"archive\":\"%s\",\"entries\":%zu,\"rounds\":%d,"
      "\"first_start_file_ms\":%.3f,\"first_start_source_ms\":%.3f,\"first_start_ratio\":%.3f,"
      "\"read_all_file_ms\":%.3f,\"read_all_source_ms\":%.3f,\"read_all_ratio\":%.3f}\n",
      label, count, ROUNDS, fs * 1e3, ss * 1e3, ss / fs, fa * 1e3, sa * 1e3, sa / fa);
  free(buf);
  close(fd);
  return 0;
}

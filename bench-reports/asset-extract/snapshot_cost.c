// What reading an archive into fresh memory costs, by the kind of memory (the choice behind
// asset-extract's src/snapshot.rs). Each run is one fresh process, as a `bufkit extract` is, so
// every page is faulted for the first time. MODE:
//   4k     anonymous 4 KiB pages, populated with MADV_POPULATE_WRITE, then one pread
//   huge   anonymous memory aligned and sized to 2 MiB, advised MADV_HUGEPAGE, populated, pread
//   split  4 KiB pages, two threads each populating and reading half (thread start included)
//   nopop  4 KiB pages faulted by the pread itself
//   map    the file mapped MAP_POPULATE (no copy, but a SIGBUS if the file shrinks)
// Prints MODE and microseconds to have the bytes in memory, then to unmap them.
// Build: cc -O2 -pthread -o /tmp/snapshot_cost bench-reports/asset-extract/snapshot_cost.c
// Run:   for i in $(seq 6); do for m in 4k huge split; do /tmp/snapshot_cost ARCHIVE $m; done; done
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int fd;
static char *base;
static size_t half, len;

static void *read_second_half(void *unused) {
  (void)unused;
  madvise(base + half, len - half, MADV_POPULATE_WRITE);
  if (pread(fd, base + half, len - half, (off_t)half) != (ssize_t)(len - half)) abort();
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ARCHIVE 4k|huge|split|nopop|map\n", argv[0]);
    return 2;
  }
  fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0) return 1;
  len = (size_t)st.st_size;
  const char *mode = argv[2];
  size_t mapped = len;
  char *unmap_at;
  double start = now_us();
  if (!strcmp(mode, "huge")) {
    size_t huge = 2u << 20;
    mapped = (len + huge - 1) / huge * huge;
    char *raw = mmap(NULL, mapped + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) return 1;
    base = (char *)(((size_t)raw + huge - 1) / huge * huge);
    madvise(base, mapped, MADV_HUGEPAGE);
    madvise(base, len, MADV_POPULATE_WRITE);
    if (pread(fd, base, len, 0) != (ssize_t)len) abort();
    unmap_at = raw, mapped += huge;
  } else if (!strcmp(mode, "map")) {
    base = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (base == MAP_FAILED) return 1;
    unmap_at = base;
  } else {
    base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return 1;
    unmap_at = base;
    if (!strcmp(mode, "split")) {
      half = (len / 2) & ~(size_t)4095;
      pthread_t second;
      pthread_create(&second, NULL, read_second_half, NULL);
      madvise(base, half, MADV_POPULATE_WRITE);
      if (pread(fd, base, half, 0) != (ssize_t)half) abort();
      pthread_join(second, NULL);
    } else {
      if (!strcmp(mode, "4k")) madvise(base, len, MADV_POPULATE_WRITE);
      if (pread(fd, base, len, 0) != (ssize_t)len) abort();
    }
  }
  double in_memory = now_us();
  volatile char sink = base[len - 1];
  (void)sink;
  munmap(unmap_at, mapped);
  printf("%-5s %8.0f us in memory %6.0f us unmapped\n", mode, in_memory - start, now_us() - in_memory);
  return 0;
}

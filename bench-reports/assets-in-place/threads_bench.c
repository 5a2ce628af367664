/* Two threads reading one archive against one: every file of the archive read whole, ROUNDS
   times, by each thread, from one shared bk_archive handle (read holding, the default), each
   thread with its own output buffer. Prints the throughput of 1 and 2 threads and their ratio,
   with CPU time and parallel efficiency (CPU / (threads x wall)). Median of 7 alternating runs.
   Build: gcc -O2 -std=c11 -Iinclude bench-reports/assets-in-place/threads_bench.c target/release/libbufkit.a -lpthread
   -ldl -lm */
#define _POSIX_C_SOURCE 200809L
#include <bufkit.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 20

static bk_archive *archive;
static size_t count, biggest;

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *reader(void *arg) {
  unsigned char *buf = malloc(biggest);
  size_t written, *total = arg;
  for (int r = 0; r < ROUNDS; r++)
    for (size_t i = 0; i < count; i++) {
      bk_archive_entry info;
      bk_archive_entry_info(archive, i, &info);
      if (info.is_directory) continue;
      if (bk_archive_read(archive, i, buf, biggest, &written) != BK_STATUS_OK) abort();
      *total += written;
    }
  free(buf);
  return NULL;
}

/* Wall seconds, and CPU seconds in *cpu, for `threads` readers at once. */
static double run(int threads, double *cpu) {
  pthread_t t[2];
  size_t totals[2] = {0, 0};
  double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = clock_s(CLOCK_MONOTONIC);
  for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, reader, &totals[i]);
  for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
  *cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  return clock_s(CLOCK_MONOTONIC) - w0;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 2 || bk_archive_open(argv[1], NULL, &archive) != BK_STATUS_OK) return 2;
  bk_archive_entry_count(archive, &count);
  for (size_t i = 0; i < count; i++) {
    bk_archive_entry info;
    bk_archive_entry_info(archive, i, &info);
    if (info.size > biggest) biggest = (size_t)info.size;
  }
  double one[7], two[7], cpu1[7], cpu2[7];
  for (int k = 0; k < 7; k++) {
    one[k] = run(1, &cpu1[k]);
    two[k] = run(2, &cpu2[k]);
  }
  qsort(one, 7, sizeof *one, cmp), qsort(two, 7, sizeof *two, cmp), qsort(cpu1, 7, sizeof *cpu1, cmp),
      qsort(cpu2, 7, sizeof *cpu2, cmp);
  /* Two threads do twice the work: throughput ratio = 2 x one / two. */
  printf(
      "{\"one_thread_s\":%.4f,\"two_threads_s\":%.4f,\"throughput_ratio\":%.2f,\"efficiency_one\":%.2f,\"efficiency_"
      "two\":%.2f}\n",
      one[3], two[3], 2.0 * one[3] / two[3], cpu1[3] / one[3], cpu2[3] / (2.0 * two[3]));
  bk_archive_free(archive);
  return 0;
}

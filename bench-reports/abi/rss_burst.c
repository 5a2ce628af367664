/* Memory after a burst, where a C caller stands: a server takes a burst of requests, each holding
   buffers of mixed sizes (4 KiB to 1 MiB) while a few small long-lived allocations are made in
   between (as a real program does), then everything but those is given back. Resident memory
   (RSS, from /proc/self/statm) is read before, at the peak, right after, and after waiting one
   decay period, for bufkit's pool (retained bytes capped) and for the C allocator (glibc malloc,
   or whatever LD_PRELOAD puts in its place), each in a process of its own.

   Build: gcc -O2 -I include bench-reports/abi/rss_burst.c LIBDIR/libbufkit.a \
            -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc -o rss_burst
   Run:   ./rss_burst pool CAP_MIB DECAY_MS   and   ./rss_burst malloc 0 DECAY_MS
   (prints one JSON line: MiB resident at each point) */
#define _GNU_SOURCE /* RTLD_DEFAULT, in preloaded.h */
#include "bufkit.h"
#include "preloaded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BUFFERS = 600, KEPT = 64 };

static double resident_mib(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2) abort();
  fclose(f);
  return (double)resident * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Sizes of 4 KiB to 1 MiB, the same sequence in both processes. */
static size_t size_of(unsigned i) {
  unsigned x = i * 2654435761u;
  return (size_t)4096 << (x % 9); /* 4 KiB .. 1 MiB */
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s pool|malloc CAP_MIB DECAY_MS\n", argv[0]);
    return 2;
  }
  int use_pool = strcmp(argv[1], "pool") == 0;
  size_t cap = (size_t)atol(argv[2]) << 20;
  long decay_ms = atol(argv[3]);
  static bk_lease leases[BUFFERS];
  static unsigned char *blocks[BUFFERS];
  static char *kept[KEPT];
  bk_pool *pool = NULL;
  size_t total = 0;
  if (use_pool) {
    bk_pool_config config;
    bk_pool_config_default(&config);
    config.max_class_size = 1 << 20;
    config.max_retained_bytes = cap;
    config.decay_after_ms = (uint64_t)decay_ms;
    if (bk_pool_new(&config, &pool) != BK_STATUS_OK) abort();
  }
  double before = resident_mib();
  for (unsigned i = 0; i < BUFFERS; i++) {
    size_t size = size_of(i);
    unsigned char *p;
    if (use_pool) {
      if (bk_pool_acquire(pool, size, &leases[i]) != BK_STATUS_OK) abort();
      p = leases[i].data;
    } else {
      blocks[i] = p = malloc(size);
      if (!p) abort();
    }
    memset(p, (int)i, size); /* the request fills its buffer */
    total += size;
    if (i % (BUFFERS / KEPT) == 0 && i / (BUFFERS / KEPT) < KEPT) {
      kept[i / (BUFFERS / KEPT)] = malloc(200); /* small, long-lived: a connection's state, a log line */
      memset(kept[i / (BUFFERS / KEPT)], 1, 200);
    }
  }
  double peak = resident_mib();
  for (unsigned i = 0; i < BUFFERS; i++) {
    if (use_pool) {
      if (bk_pool_release(pool, &leases[i]) != BK_STATUS_OK) abort();
    } else {
      free(blocks[i]);
    }
  }
  double after = resident_mib();
  bk_pool_stats st_after, st_decayed;
  memset(&st_after, 0, sizeof st_after);
  memset(&st_decayed, 0, sizeof st_decayed);
  if (use_pool) bk_pool_get_stats(pool, &st_after);
  sleep_ms(decay_ms + decay_ms / 2);
  if (use_pool) { /* the decay runs at the pool's next call: a quiet server's next request */
    bk_lease one;
    if (bk_pool_acquire(pool, 4096, &one) != BK_STATUS_OK || bk_pool_release(pool, &one) != BK_STATUS_OK) abort();
  } else {
    free(malloc(4096));
  }
  double decayed = resident_mib();
  if (use_pool) bk_pool_get_stats(pool, &st_decayed);
  if (use_pool) bk_pool_trim(pool);
  double trimmed = resident_mib();
  printf(
      "{\"allocator\":\"%s\",\"burst_mib\":%.1f,\"cap_mib\":%.1f,\"before_mib\":%.1f,\"peak_mib\":%.1f,\"after_release_"
      "mib\":%.1f,"
      "\"after_decay_mib\":%.1f,\"after_trim_mib\":%.1f,\"retained_after_release_mib\":%.1f,\"retained_after_decay_"
      "mib\":%.1f,"
      "\"decayed_buffers\":%llu}\n",
      use_pool ? "bufkit pool" : allocator_name(), (double)total / (1 << 20), (double)cap / (1 << 20), before, peak,
      after, decayed, trimmed, (double)st_after.retained_bytes / (1 << 20),
      (double)st_decayed.retained_bytes / (1 << 20), (unsigned long long)st_decayed.decayed);
  for (unsigned k = 0; k < KEPT; k++) free(kept[k]);
  if (use_pool) bk_pool_free(pool);
  return 0;
}

/* Concurrency stress of the C ABI, as a C host would use it: many threads per object, misuse
   mixed in, every result checked against what the header promises. One scenario per object:
   the pool, buffers, inflate, extraction (one destination replaced by many runs, sibling
   destinations, merge then incremental, cancellation), archives (one shared by every thread,
   and one file truncated and rewritten under the readers), caller sources (one shared source
   and sources of each thread's own answering short, too much, failing or changed at any place,
   lying lengths, release exactly once) and streams (reads that fail, end early, say too much or
   trickle three bytes a call; feed misused).

   Usage: stress SECONDS_PER_SCENARIO WORKDIR (WORKDIR is created, and removed at the end).
   Prints one line per scenario and "N passed, N failed" last. ffi-tests/stress/run.sh builds it
   plain and under ASan+UBSan; `ffi-tests/stress/run.sh 60` is the long run. */
#define _GNU_SOURCE
#include "archives.h"
#include "bufkit.h"
#include "streams.h"
#include "zips.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define THREADS 8

static double seconds;
static char workdir[128];
static atomic_long failures;
static atomic_long operations;

#define EXPECT(cond, ...)                                            \
  do {                                                               \
    if (!(cond)) {                                                   \
      if (atomic_fetch_add(&failures, 1) < 20) {                     \
        fprintf(stderr, "  %s:%d: %s: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__);                                \
        fputc('\n', stderr);                                         \
      }                                                              \
    }                                                                \
  } while (0)

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* xorshift: each thread its own sequence. */
static uint64_t next_random(uint64_t *state) {
  uint64_t x = *state;
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return *state = x;
}

static void run_threads(void *(*body)(void *), void *args, size_t arg_size, int n) {
  pthread_t threads[THREADS * 2];
  for (int i = 0; i < n; i++)
    if (pthread_create(&threads[i], NULL, body, (char *)args + (size_t)i * arg_size) != 0) abort();
  for (int i = 0; i < n; i++) pthread_join(threads[i], NULL);
}

/* ---- the pool: one pool, every thread acquiring and releasing, with misuse ---------------- */

struct pool_arg {
  bk_pool *pool, *other;
  uint64_t seed;
};

static void *pool_worker(void *p) {
  struct pool_arg *a = p;
  double end = now() + seconds;
  uint8_t tag = (uint8_t)(a->seed & 0xff);
  long ops = 0;
  while (now() < end) {
    bk_lease lease, copy;
    size_t size = 1 + next_random(&a->seed) % (1 << 21);
    bk_status s = bk_pool_acquire(a->pool, size, &lease);
    EXPECT(s == BK_STATUS_OK, "acquire %zu: %u", size, s);
    if (s != BK_STATUS_OK) continue;
    EXPECT(lease.len >= size, "lease of %zu for %zu", lease.len, size);
    /* Every byte is ours while we hold it: another thread writing it would show here. */
    memset(lease.data, tag, lease.len);
    if (ops % 61 == 0) sched_yield();
    for (size_t i = 0; i < lease.len; i += 4093) EXPECT(lease.data[i] == tag, "a leased byte changed under us");
    copy = lease;
    switch (ops % 97) {
      case 1: /* a forged lease: another address in it */
        copy.data += 64;
        EXPECT(bk_pool_release(a->pool, &copy) != BK_STATUS_OK, "a forged lease was taken back");
        break;
      case 2: /* the wrong pool */
        EXPECT(bk_pool_release(a->other, &copy) == BK_STATUS_WRONG_POOL, "another pool took our lease");
        break;
      case 3:
        EXPECT(bk_pool_acquire(a->pool, 64, NULL) == BK_STATUS_NULL_POINTER, "NULL out accepted");
        break;
      default:
        break;
    }
    EXPECT(bk_pool_release(a->pool, &lease) == BK_STATUS_OK, "release");
    if (ops % 89 == 0) EXPECT(bk_pool_release(a->pool, &lease) == BK_STATUS_LEASE_INVALID, "a lease released twice");
    ops++;
  }
  atomic_fetch_add(&operations, ops);
  return NULL;
}

struct cacher {
  bk_pool *pool;
  pthread_barrier_t *cached, *freed;
};

static void *cache_then_wait(void *p) {
  struct cacher *c = p;
  bk_lease lease;
  if (bk_pool_acquire(c->pool, 1 << 20, &lease) == BK_STATUS_OK) bk_pool_release(c->pool, &lease);
  pthread_barrier_wait(c->cached);
  pthread_barrier_wait(c->freed); /* alive while the pool is freed */
  return NULL;
}

static void scenario_pool(void) {
  bk_pool_config config;
  bk_pool *pool = NULL, *other = NULL;
  struct pool_arg args[THREADS];
  bk_pool_stats stats;
  bk_pool_config_default(&config);
  config.max_retained_bytes = 16 << 20;
  if (bk_pool_new(&config, &pool) != BK_STATUS_OK || bk_pool_new(NULL, &other) != BK_STATUS_OK) abort();
  for (int i = 0; i < THREADS; i++) args[i] = (struct pool_arg){pool, other, 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)};
  run_threads(pool_worker, args, sizeof args[0], THREADS);
  EXPECT(bk_pool_get_stats(pool, &stats) == BK_STATUS_OK, "stats");
  EXPECT(stats.retained_bytes <= config.max_retained_bytes, "retained %zu past the cap", stats.retained_bytes);
  EXPECT(bk_pool_free(pool) == BK_STATUS_OK, "free after the run");
  EXPECT(bk_pool_free(other) == BK_STATUS_OK, "free the other pool");

  /* Freeing a pool while the threads that cache its buffers live on (issue 29, 2). */
  for (int round = 0; round < 20; round++) {
    pthread_barrier_t cached, freed;
    struct cacher c[THREADS];
    pthread_t threads[THREADS];
    if (bk_pool_new(NULL, &pool) != BK_STATUS_OK) abort();
    pthread_barrier_init(&cached, NULL, THREADS + 1);
    pthread_barrier_init(&freed, NULL, THREADS + 1);
    for (int i = 0; i < THREADS; i++) {
      c[i] = (struct cacher){pool, &cached, &freed};
      if (pthread_create(&threads[i], NULL, cache_then_wait, &c[i]) != 0) abort();
    }
    pthread_barrier_wait(&cached);
    EXPECT(bk_pool_free(pool) == BK_STATUS_OK, "free while threads cache its buffers");
    pthread_barrier_wait(&freed);
    for (int i = 0; i < THREADS; i++) pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&cached);
    pthread_barrier_destroy(&freed);
  }
}

/* ---- buffers: one per thread (they are not shared), created and freed all the time, so the
   mapping one thread's freed buffer leaves is taken by another's; every result against a model -- */

struct buffer_arg {
  uint64_t seed;
};

static void *buffer_worker(void *p) {
  struct buffer_arg *a = p;
  double end = now() + seconds;
  long ops = 0;
  uint8_t *model = malloc(1 << 21), *chunk = malloc(1 << 17), *back = malloc(1 << 21);
  while (now() < end) {
    bk_buffer_config config;
    bk_buffer *buffer = NULL;
    size_t len = 0, limit;
    bk_buffer_config_default(&config);
    config.growth = (uint32_t)(next_random(&a->seed) % 4);
    config.chunk_size = 4096;
    limit = next_random(&a->seed) % 3 == 0 ? (1 << 21) : 1000 + next_random(&a->seed) % 300000;
    config.max_capacity = limit;
    EXPECT(bk_buffer_new(&config, &buffer) == BK_STATUS_OK, "new");
    if (!buffer) continue;
    for (int k = 0; k < 40; k++, ops++) {
      size_t n = next_random(&a->seed) % (1 << 17), copied = 0;
      bk_buffer_stats stats;
      bk_status s;
      memset(chunk, (int)(ops & 0xff), n);
      switch (next_random(&a->seed) % 8) {
        case 0:
          s = bk_buffer_reserve(buffer, n);
          EXPECT(s == (len + n <= limit ? BK_STATUS_OK : BK_STATUS_CAPACITY_EXCEEDED), "reserve %zu at %zu of %zu: %u",
                 n, len, limit, s);
          break;
        case 1:
          if (len > 0) {
            size_t to = next_random(&a->seed) % len;
            EXPECT(bk_buffer_truncate(buffer, to) == BK_STATUS_OK, "truncate");
            len = to;
          }
          break;
        case 2:
          EXPECT(bk_buffer_flatten(buffer) == BK_STATUS_OK, "flatten");
          break;
        case 3: /* misuse */
          EXPECT(bk_buffer_append(buffer, chunk, SIZE_MAX) == BK_STATUS_LENGTH_OVERFLOW, "SIZE_MAX append");
          EXPECT(bk_buffer_reserve(buffer, SIZE_MAX - len) == BK_STATUS_LENGTH_OVERFLOW, "reserve past PTRDIFF_MAX");
          EXPECT(bk_buffer_append(buffer, NULL, 5) == BK_STATUS_NULL_POINTER, "NULL data");
          break;
        default:
          s = bk_buffer_append(buffer, chunk, n);
          if (len + n <= limit) {
            EXPECT(s == BK_STATUS_OK, "append %zu at %zu of %zu: %u", n, len, limit, s);
            if (s == BK_STATUS_OK) memcpy(model + len, chunk, n), len += n;
          } else {
            EXPECT(s == BK_STATUS_CAPACITY_EXCEEDED, "append %zu at %zu past %zu: %u", n, len, limit, s);
          }
      }
      EXPECT(bk_buffer_get_stats(buffer, &stats) == BK_STATUS_OK, "stats");
      EXPECT(stats.len == len, "len %zu, model %zu", stats.len, len);
      EXPECT(config.growth == BK_GROWTH_SEGMENTED || stats.capacity <= limit, "capacity %zu past the limit %zu",
             stats.capacity, limit);
      if (k % 8 == 7 || k == 39) {
        EXPECT(bk_buffer_copy_out(buffer, 0, back, 1 << 21, &copied) == BK_STATUS_OK && copied == len, "copy out");
        EXPECT(memcmp(back, model, len) == 0, "the bytes differ from the model");
      }
    }
    bk_buffer_free(buffer);
  }
  free(model), free(chunk), free(back);
  atomic_fetch_add(&operations, ops);
  return NULL;
}

static void scenario_buffers(void) {
  struct buffer_arg args[THREADS];
  for (int i = 0; i < THREADS; i++) args[i] = (struct buffer_arg){0x2545f4914f6cdd1dull * (uint64_t)(i + 3)};
  run_threads(buffer_worker, args, sizeof args[0], THREADS);
}

/* ---- inflate: an inflater and a stream per thread; good, truncated and damaged input ------ */

struct inflate_arg {
  uint64_t seed;
};

static int is_inflate_failure(bk_status s) {
  return s == BK_STATUS_TRUNCATED || s == BK_STATUS_CHECKSUM || s == BK_STATUS_SIZE_MISMATCH || s == BK_STATUS_CORRUPT;
}

static void *inflate_worker(void *p) {
  struct inflate_arg *a = p;
  double end = now() + seconds;
  long ops = 0;
  uint8_t out[TEXT_LEN], expected[TEXT_LEN], damaged[sizeof stream_text];
  bk_inflater *inflater = NULL;
  bk_inflate_stream *stream = NULL;
  for (int i = 0; i < TEXT_LEN; i++) expected[i] = TEXT(i);
  if (bk_inflater_new(BK_FORMAT_ZLIB, &inflater) != BK_STATUS_OK) abort();
  if (bk_inflate_stream_new(BK_FORMAT_ZLIB, 0, &stream) != BK_STATUS_OK) abort();
  while (now() < end) {
    size_t consumed = 0, cut = next_random(&a->seed) % sizeof stream_text;
    bk_status s = bk_inflate_at(inflater, stream_text, sizeof stream_text, 0, out, TEXT_LEN, &consumed);
    EXPECT(s == BK_STATUS_OK && consumed == sizeof stream_text && memcmp(out, expected, TEXT_LEN) == 0, "whole: %u", s);
    s = bk_inflate_at(inflater, stream_text, cut, 0, out, TEXT_LEN, &consumed);
    EXPECT(s == BK_STATUS_TRUNCATED && consumed == 0, "cut at %zu: %u", cut, s);
    memcpy(damaged, stream_text, sizeof damaged);
    damaged[2 + next_random(&a->seed) % (sizeof damaged - 2)] ^= (uint8_t)(1 + next_random(&a->seed) % 255);
    s = bk_inflate_at(inflater, damaged, sizeof damaged, 0, out, TEXT_LEN, &consumed);
    EXPECT(s == BK_STATUS_OK ? memcmp(out, expected, TEXT_LEN) == 0 : is_inflate_failure(s), "damaged: %u", s);
    /* The same through the stream, in random strides; a failure stays until the reset. */
    {
      size_t fed = 0, used = 0, done = 0;
      const uint8_t *input = ops % 2 ? damaged : stream_text;
      bk_status first = BK_STATUS_OK;
      bk_inflate_stream_reset(stream, 0);
      while (done == 0 && fed < sizeof stream_text) {
        size_t n = 1 + next_random(&a->seed) % 64;
        if (n > sizeof stream_text - fed) n = sizeof stream_text - fed;
        s = bk_inflate_stream_feed(stream, input + fed, n, out, TEXT_LEN, &used, &done);
        if (s != BK_STATUS_OK) {
          first = s;
          break;
        }
        fed += used;
      }
      if (first == BK_STATUS_OK) {
        EXPECT(done == sizeof stream_text && memcmp(out, expected, TEXT_LEN) == 0, "stream of %s input",
               ops % 2 ? "damaged" : "good");
      } else {
        EXPECT(is_inflate_failure(first), "stream: %u", first);
        EXPECT(bk_inflate_stream_feed(stream, stream_text, 8, out, TEXT_LEN, &used, &done) == first && used == 0,
               "a failed stream went on");
      }
    }
    EXPECT(bk_inflate_at(inflater, stream_text, sizeof stream_text, sizeof stream_text + 1, out, TEXT_LEN, &consumed) ==
               BK_STATUS_OUT_OF_RANGE,
           "offset past the end");
    ops++;
  }
  bk_inflater_free(inflater);
  bk_inflate_stream_free(stream);
  atomic_fetch_add(&operations, ops);
  return NULL;
}

static void scenario_inflate(void) {
  struct inflate_arg args[THREADS];
  for (int i = 0; i < THREADS; i++) args[i] = (struct inflate_arg){0x853c49e6748fea9bull * (uint64_t)(i + 5)};
  run_threads(inflate_worker, args, sizeof args[0], THREADS);
}

/* ---- extraction ---------------------------------------------------------------------------- */

#define FILES 4
#define FILE_SIZE 3000

static char archive_a[300], archive_b[300];

/* Whether the tree at `dir` is one archive's, whole: every file there, each all of one fill
   byte, all from A (0..3) or all from B (100..103). Read through one directory handle, which
   stays the tree it opened even if a run swaps another in meanwhile (then files may vanish
   from it, as it is removed: that is not a mixed tree, and 1 is returned, unsure). */
static int one_archive_whole(const char *dir, int *from_b) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY), found = 0, kind = -1;
  unsigned char buf[FILE_SIZE + 1];
  if (fd < 0) return 0;
  for (int i = 0; i < FILES; i++) {
    char name[24];
    snprintf(name, sizeof name, "f%02d.bin", i);
    int f = openat(fd, name, O_RDONLY);
    if (f < 0) {
      close(fd);
      return errno == ENOENT ? 1 : 0; /* being removed: unsure, not wrong */
    }
    ssize_t n = read(f, buf, sizeof buf);
    close(f);
    if (n != FILE_SIZE) {
      close(fd);
      return 0;
    }
    int b = buf[0] >= 100;
    if (kind < 0) kind = b;
    if (b != kind || buf[0] != (b ? 100 : 0) + i || memchr(buf, buf[0] ^ 1, FILE_SIZE) != NULL) {
      close(fd);
      return 0;
    }
    found++;
  }
  close(fd);
  if (from_b) *from_b = kind;
  return found == FILES;
}

struct extract_arg {
  int role, index;
  uint64_t seed;
};

/* One bk_extract; a status other than `expected` is described on stderr. */
static bk_status extract_with(const char *archive, const char *dest, uint32_t mode, int incremental,
                              const bk_cancel *cancel, bk_status expected) {
  bk_extract_options opts = {.size = sizeof opts};
  bk_extract_report report = {.size = sizeof report};
  char detail[256] = "";
  bk_status s;
  opts.mode = mode;
  opts.incremental = (uint32_t)incremental;
  opts.threads = 1 + (uint32_t)(mode == BK_EXTRACT_CREATE);
  if (cancel) opts.cancel = cancel;
  s = bk_extract(archive, dest, &opts, &report, NULL, 0, detail, sizeof detail);
  if (s != expected && atomic_load(&failures) < 20)
    fprintf(stderr, "  extract %s -> %s: %s: %s\n", archive, dest, bk_status_message(s), detail);
  return s;
}

static void *extract_worker(void *p) {
  struct extract_arg *a = p;
  double end = now() + seconds;
  long ops = 0;
  char same[300], mine[300], merged[300];
  snprintf(same, sizeof same, "%s/same", workdir);
  snprintf(merged, sizeof merged, "%s/merged-%d", workdir, a->index);
  while (now() < end) {
    int from_b = 0;
    switch (a->role) {
      case 0: /* replace the one shared destination, with A or B */
        EXPECT(extract_with(next_random(&a->seed) & 1 ? archive_b : archive_a, same, BK_EXTRACT_REPLACE, 0, NULL,
                            BK_STATUS_OK) == BK_STATUS_OK,
               "replace");
        EXPECT(one_archive_whole(same, NULL), "the shared destination is not one archive's, whole");
        break;
      case 1: /* a fresh sibling destination, created, checked, removed */
        snprintf(mine, sizeof mine, "%s/sibling-%d-%ld", workdir, a->index, ops);
        EXPECT(extract_with(archive_a, mine, BK_EXTRACT_CREATE, 0, NULL, BK_STATUS_OK) == BK_STATUS_OK,
               "create a sibling");
        EXPECT(one_archive_whole(mine, &from_b) && !from_b, "a sibling is not A, whole");
        EXPECT(extract_with(archive_b, mine, BK_EXTRACT_CREATE, 0, NULL, BK_STATUS_DESTINATION_REFUSED) ==
                   BK_STATUS_DESTINATION_REFUSED,
               "create over a full destination");
        {
          char cmd[700];
          snprintf(cmd, sizeof cmd, "rm -rf '%s'", mine);
          if (system(cmd) != 0) abort();
        }
        break;
      case 2: /* incremental, then a merge, then incremental again: A's bytes, never B's (issue 29, 3) */
        EXPECT(extract_with(archive_a, merged, BK_EXTRACT_REPLACE, 1, NULL, BK_STATUS_OK) == BK_STATUS_OK,
               "incremental");
        EXPECT(extract_with(archive_b, merged, BK_EXTRACT_MERGE, 0, NULL, BK_STATUS_OK) == BK_STATUS_OK, "merge");
        EXPECT(one_archive_whole(merged, &from_b) && from_b, "after the merge: not B, whole");
        EXPECT(extract_with(archive_a, merged, BK_EXTRACT_REPLACE, 1, NULL, BK_STATUS_OK) == BK_STATUS_OK,
               "incremental after merge");
        EXPECT(one_archive_whole(merged, &from_b) && !from_b, "incremental after a merge kept B's files");
        break;
      default: { /* cancelled before it starts: nothing at all is left */
        bk_cancel *cancel = NULL;
        struct stat st;
        snprintf(mine, sizeof mine, "%s/cancelled-%d", workdir, a->index);
        if (bk_cancel_new(&cancel) != BK_STATUS_OK) abort();
        bk_cancel_request(cancel);
        EXPECT(extract_with(archive_a, mine, BK_EXTRACT_CREATE, 0, cancel, BK_STATUS_CANCELLED) == BK_STATUS_CANCELLED,
               "cancelled");
        EXPECT(stat(mine, &st) != 0, "a cancelled run left its destination");
        bk_cancel_free(cancel);
      }
    }
    ops++;
  }
  atomic_fetch_add(&operations, ops);
  return NULL;
}

static int nothing_stray(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int clean = 1;
  if (!d) return 0;
  while ((e = readdir(d)))
    if (strstr(e->d_name, "bufkit-tmp")) {
      fprintf(stderr, "  left behind: %s\n", e->d_name);
      clean = 0;
    }
  closedir(d);
  return clean;
}

static void scenario_extraction(void) {
  static unsigned char zip[FILES * (FILE_SIZE + 100) + 400];
  struct extract_arg args[THREADS];
  snprintf(archive_a, sizeof archive_a, "%s/a.zip", workdir);
  snprintf(archive_b, sizeof archive_b, "%s/b.zip", workdir);
  write_file(archive_a, zip, stored_zip(zip, FILES, FILE_SIZE));
  write_file(archive_b, zip, stored_zip_filled(zip, FILES, FILE_SIZE, 100));
  {
    char same[300];
    snprintf(same, sizeof same, "%s/same", workdir);
    EXPECT(extract_with(archive_a, same, BK_EXTRACT_CREATE, 0, NULL, BK_STATUS_OK) == BK_STATUS_OK,
           "the shared destination");
  }
  for (int i = 0; i < THREADS; i++) {
    int role = i < 4 ? 0 : i < 6 ? 1 : i < 7 ? 2 : 3;
    args[i] = (struct extract_arg){role, i, 0xda942042e4dd58b5ull * (uint64_t)(i + 7)};
  }
  run_threads(extract_worker, args, sizeof args[0], THREADS);
  EXPECT(nothing_stray(workdir), "staging left beside the destinations");
}

/* ---- archives: one shared by every thread; one file cut and rewritten under its readers ---- */

struct archive_arg {
  const bk_archive *archive;
  const char *path;
  const uint8_t *expected;
  size_t expected_len, index;
  uint64_t seed;
  int cutter;
};

static int archive_failure_ok(bk_status s) {
  return s == BK_STATUS_IO_ERROR || s == BK_STATUS_ARCHIVE_MALFORMED || s == BK_STATUS_CRC_MISMATCH ||
         s == BK_STATUS_TRUNCATED || s == BK_STATUS_CORRUPT || s == BK_STATUS_SIZE_MISMATCH || s == BK_STATUS_CHECKSUM;
}

static void *archive_worker(void *p) {
  struct archive_arg *a = p;
  double end = now() + seconds;
  long ops = 0;
  uint8_t out[8192];
  while (now() < end) {
    if (a->cutter) { /* cut the file short, then put it back, again and again */
      if (truncate(a->path, (off_t)(next_random(&a->seed) % sizeof zip_good)) != 0) abort();
      write_file(a->path, zip_good, sizeof zip_good);
      ops++;
      continue;
    }
    size_t written = 0, total = 0, n = 0;
    bk_status s = bk_archive_read(a->archive, a->index, out, sizeof out, &written);
    EXPECT(s == BK_STATUS_OK ? written == a->expected_len && memcmp(out, a->expected, written) == 0
                             : archive_failure_ok(s),
           "read: %u", s);
    bk_archive_reader *reader = NULL;
    if (bk_archive_reader_open(a->archive, a->index, &reader) == BK_STATUS_OK) {
      size_t stride = 1 + next_random(&a->seed) % 700;
      while ((s = bk_archive_reader_read(reader, out + total, stride < sizeof out - total ? stride : sizeof out - total,
                                         &n)) == BK_STATUS_OK &&
             n > 0)
        total += n;
      EXPECT(
          s == BK_STATUS_OK ? total == a->expected_len && memcmp(out, a->expected, total) == 0 : archive_failure_ok(s),
          "stream: %u", s);
      EXPECT(bk_archive_reader_read(reader, out, 0, &n) == BK_STATUS_INVALID_ARGUMENT, "zero-length read");
      bk_archive_reader_free(reader);
    }
    EXPECT(bk_archive_read(a->archive, 999, out, sizeof out, &written) == BK_STATUS_OUT_OF_RANGE, "index past the end");
    { /* a slice, while other threads read slices and change the checkpoint limits under them */
      uint64_t offset = next_random(&a->seed) % (a->expected_len + 2);
      size_t want = 1 + next_random(&a->seed) % 2000;
      s = bk_archive_read_at(a->archive, a->index, offset, out, want, &n);
      if (offset > a->expected_len) {
        EXPECT(s == BK_STATUS_OUT_OF_RANGE || archive_failure_ok(s), "slice past the end: %u", s);
      } else if (s == BK_STATUS_OK) {
        size_t end = offset + want < a->expected_len ? (size_t)offset + want : a->expected_len;
        EXPECT(n == end - offset && memcmp(out, a->expected + offset, n) == 0, "slice at %llu",
               (unsigned long long)offset);
      } else {
        EXPECT(archive_failure_ok(s), "slice: %u", s);
      }
      if (next_random(&a->seed) % 16 == 0)
        EXPECT(bk_archive_set_checkpoint_limits(a->archive, 32768, next_random(&a->seed) % 2 ? 0 : 1 << 20) ==
                   BK_STATUS_OK,
               "limits");
    }
    ops++;
  }
  atomic_fetch_add(&operations, ops);
  return NULL;
}

static void scenario_archives(void) {
  char steady[300], cut[300];
  bk_archive_options options;
  bk_archive *shared = NULL, *shaky = NULL;
  static uint8_t expected[8192];
  size_t index = 0, expected_len = 0;
  struct archive_arg args[THREADS + 1];
  snprintf(steady, sizeof steady, "%s/steady.zip", workdir);
  snprintf(cut, sizeof cut, "%s/cut.zip", workdir);
  write_file(steady, zip_good, sizeof zip_good);
  write_file(cut, zip_good, sizeof zip_good);
  bk_archive_options_default(&options);
  if (bk_archive_open(steady, &options, &shared) != BK_STATUS_OK) abort();
  if (bk_archive_open(cut, &options, &shaky) != BK_STATUS_OK) abort();
  if (bk_archive_find(shared, "assets/app.js", 13, &index) != BK_STATUS_OK) abort();
  if (bk_archive_read(shared, index, expected, sizeof expected, &expected_len) != BK_STATUS_OK) abort();
  for (int i = 0; i < THREADS; i++)
    args[i] = (struct archive_arg){i < THREADS / 2 ? shared : shaky,          cut, expected, expected_len, index,
                                   0x94d049bb133111ebull * (uint64_t)(i + 9), 0};
  args[THREADS] = (struct archive_arg){shaky, cut, expected, expected_len, index, 77, 1};
  run_threads(archive_worker, args, sizeof args[0], THREADS + 1);
  bk_archive_free(shared);
  bk_archive_free(shaky);
}

/* ---- caller sources: answers of every kind, from many threads (issue 51) ------------------ */

/* A source serving `bytes` that, once `bad` is set, answers each call in one way of many: right,
   short, more than asked, a failure, or right but with one byte changed at any place of it. */
struct chaos {
  const uint8_t *bytes;
  size_t len;
  atomic_int bad;
  atomic_ulong calls;
  atomic_int released;
};

static int64_t chaos_read_at(void *ctx, uint64_t offset, uint8_t *buf, size_t len) {
  struct chaos *c = ctx;
  uint64_t r = (atomic_fetch_add(&c->calls, 1) + 1) * 0x9e3779b97f4a7c15ull;
  r ^= r >> 29;
  if (offset >= c->len) return 0;
  size_t n = len < c->len - offset ? len : c->len - (size_t)offset;
  memcpy(buf, c->bytes + offset, n);
  if (!atomic_load(&c->bad)) return (int64_t)n;
  switch (r % 8) {
    case 0:
      return n > 1 ? (int64_t)(1 + (r >> 8) % (n - 1)) : (int64_t)n; /* short */
    case 1:
      return (int64_t)len + 1; /* more than asked */
    case 2:
      return -EIO; /* a failure */
    case 3:        /* changed somewhere */
      if (n) buf[(r >> 8) % n] ^= (uint8_t)(1 + (r >> 40) % 255);
      return (int64_t)n;
    default:
      return (int64_t)n;
  }
}

static void chaos_release(void *ctx) { atomic_fetch_add(&((struct chaos *)ctx)->released, 1); }

static bk_source chaos_source(struct chaos *c, uint64_t length) {
  return (bk_source){.length = length, .read_at = chaos_read_at, .release = chaos_release, .ctx = c};
}

/* What a source that misbehaves may give: a status about the archive, its data or the I/O. */
static int source_failure_ok(bk_status s) {
  return s == BK_STATUS_IO_ERROR || (s >= BK_STATUS_TRUNCATED && s <= BK_STATUS_CORRUPT) ||
         (s >= BK_STATUS_ARCHIVE_MALFORMED && s <= BK_STATUS_LIMIT_EXCEEDED) || s == BK_STATUS_ARCHIVE_AMBIGUOUS;
}

/* readme.txt and assets/app.js of zip_good, whole. */
static uint8_t app_js[4096];
static size_t app_js_len;

/* zip_good's tree at `dest` (its readme.txt whole) if `whole`, else nothing there: after an
   extraction over this thread's last tree, which a failure leaves as it was. */
static void expect_tree(const char *dest, int whole) {
  char file[340];
  uint8_t out[64];
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  if (whole) {
    FILE *f = fopen(file, "rb");
    size_t got = f ? fread(out, 1, sizeof out, f) : 0;
    if (f) fclose(f);
    EXPECT(got == 17 && memcmp(out, "hello from a zip\n", 17) == 0, "the tree at %s", dest);
  } else {
    EXPECT(access(dest, F_OK) != 0, "a failed first extraction left %s", dest);
  }
}

struct source_arg {
  bk_archive *shared;
  size_t index;
  int thread;
  uint64_t seed;
};

static void *source_worker(void *p) {
  struct source_arg *a = p;
  double end = now() + seconds;
  long ops = 0;
  uint8_t out[4096];
  char dest[300], file[340];
  snprintf(dest, sizeof dest, "%s/source-%d", workdir, a->thread);
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  while (now() < end) {
    size_t n = 0;
    /* The shared archive, whose source misbehaves in every way, read whole and by slices. */
    bk_status s = bk_archive_read(a->shared, a->index, out, sizeof out, &n);
    EXPECT(s == BK_STATUS_OK ? n == app_js_len && memcmp(out, app_js, n) == 0 : source_failure_ok(s), "read: %u", s);
    uint64_t offset = next_random(&a->seed) % app_js_len;
    size_t want = 1 + next_random(&a->seed) % 900;
    s = bk_archive_read_at(a->shared, a->index, offset, out, want, &n);
    if (s == BK_STATUS_OK) {
      size_t stop = offset + want < app_js_len ? (size_t)offset + want : app_js_len;
      EXPECT(n == stop - offset && memcmp(out, app_js + offset, n) == 0, "slice at %llu", (unsigned long long)offset);
    } else {
      EXPECT(source_failure_ok(s), "slice: %u", s);
    }
    /* A source of its own, misbehaving from its first answer: opened, read through a reader that
       outlives the archive, released exactly once on every path. */
    struct chaos own = {.bytes = zip_good, .len = sizeof zip_good, .bad = 1, .calls = next_random(&a->seed) % 8};
    bk_source source = chaos_source(&own, sizeof zip_good);
    bk_archive *archive = NULL;
    s = bk_archive_open_source(&source, NULL, &archive);
    if (s == BK_STATUS_OK) {
      bk_archive_reader *reader = NULL;
      size_t index = 0;
      if (bk_archive_find(archive, "assets/app.js", 13, &index) == BK_STATUS_OK &&
          bk_archive_reader_open(archive, index, &reader) == BK_STATUS_OK) {
        bk_archive_free(archive);
        archive = NULL;
        EXPECT(atomic_load(&own.released) == 0, "released while a reader reads");
        size_t total = 0;
        while ((s = bk_archive_reader_read(reader, out + total, sizeof out - total, &n)) == BK_STATUS_OK && n > 0)
          total += n;
        EXPECT(s == BK_STATUS_OK ? total == app_js_len && memcmp(out, app_js, total) == 0 : source_failure_ok(s),
               "reader: %u", s);
        bk_archive_reader_free(reader);
      }
      bk_archive_free(archive);
    } else {
      EXPECT(source_failure_ok(s) && archive == NULL, "open: %u", s);
    }
    EXPECT(atomic_load(&own.released) == 1, "released %d times after open", atomic_load(&own.released));
    /* Extraction from a misbehaving source, over this thread's last tree: the new tree whole, or
       the status and the last tree untouched. */
    struct chaos extracting = {.bytes = zip_good, .len = sizeof zip_good, .bad = 1, .calls = next_random(&a->seed) % 8};
    source = chaos_source(&extracting, sizeof zip_good);
    bk_extract_options opts = {.size = sizeof opts, .mode = BK_EXTRACT_REPLACE, .threads = 1};
    int existed = access(file, F_OK) == 0;
    s = bk_extract_source(&source, dest, &opts, NULL, NULL);
    EXPECT(s == BK_STATUS_OK || source_failure_ok(s), "extract: %u", s);
    EXPECT(atomic_load(&extracting.released) == 1, "released %d times by extraction",
           atomic_load(&extracting.released));
    expect_tree(dest, s == BK_STATUS_OK || existed);
    /* Lengths that lie, longer and shorter: a status, released once. */
    struct chaos lying = {.bytes = zip_good, .len = sizeof zip_good};
    source = chaos_source(&lying, sizeof zip_good + (next_random(&a->seed) % 2 ? 100 : -10));
    archive = NULL;
    s = bk_archive_open_source(&source, NULL, &archive);
    EXPECT(s != BK_STATUS_OK && source_failure_ok(s) && archive == NULL, "a lying length: %u", s);
    EXPECT(atomic_load(&lying.released) == 1, "released %d times after a lying length", atomic_load(&lying.released));
    ops += 4;
  }
  atomic_fetch_add(&operations, ops);
  return NULL;
}

static void scenario_sources(void) {
  struct chaos shared_bytes = {.bytes = zip_good, .len = sizeof zip_good};
  bk_source source = chaos_source(&shared_bytes, sizeof zip_good);
  bk_archive *shared = NULL;
  size_t index = 0;
  struct source_arg args[THREADS];
  if (bk_archive_open_source(&source, NULL, &shared) != BK_STATUS_OK) abort();
  if (bk_archive_find(shared, "assets/app.js", 13, &index) != BK_STATUS_OK) abort();
  if (bk_archive_read(shared, index, app_js, sizeof app_js, &app_js_len) != BK_STATUS_OK) abort();
  atomic_store(&shared_bytes.bad, 1);
  for (int i = 0; i < THREADS; i++)
    args[i] = (struct source_arg){shared, index, i, 0x2545f4914f6cdd1dull * (uint64_t)(i + 3)};
  run_threads(source_worker, args, sizeof args[0], THREADS);
  EXPECT(atomic_load(&shared_bytes.released) == 0, "released while open");
  bk_archive_free(shared);
  EXPECT(atomic_load(&shared_bytes.released) == 1, "released %d times", atomic_load(&shared_bytes.released));
}

/* ---- streams: reads that fail, end early, say too much or trickle; feed misused ------------ */

enum stream_way { TRICKLE, FAILS, ENDS_EARLY, TOO_MUCH, WAYS };

struct piped {
  const uint8_t *bytes;
  size_t len, at, cut;
  int way;
};

static int64_t piped_read(void *ctx, uint8_t *buf, size_t len) {
  struct piped *p = ctx;
  if (p->way != TRICKLE && p->at >= p->cut) {
    if (p->way == FAILS) return -EIO;
    if (p->way == ENDS_EARLY) return 0;
    return (int64_t)len + 1; /* TOO_MUCH */
  }
  size_t stop = p->way == TRICKLE ? p->len : p->cut; /* the misbehaviour starts at `cut` exactly */
  size_t n = stop - p->at < 3 ? stop - p->at : 3;
  if (n > len) n = len;
  memcpy(buf, p->bytes + p->at, n);
  p->at += n;
  return (int64_t)n;
}

struct stream_arg {
  int thread;
  uint64_t seed;
};

static void *stream_worker(void *p) {
  struct stream_arg *a = p;
  double end = now() + seconds;
  long ops = 0;
  char dest[300], file[340];
  snprintf(dest, sizeof dest, "%s/stream-%d", workdir, a->thread);
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  static const bk_status expected[WAYS] = {BK_STATUS_OK, BK_STATUS_IO_ERROR, BK_STATUS_ARCHIVE_MALFORMED,
                                           BK_STATUS_IO_ERROR};
  while (now() < end) {
    struct piped piped = {.bytes = zip_good, .len = sizeof zip_good, .way = (int)(next_random(&a->seed) % WAYS)};
    piped.cut = next_random(&a->seed) % sizeof zip_good;
    bk_extract_options opts = {.size = sizeof opts, .mode = BK_EXTRACT_REPLACE, .threads = 1};
    bk_extract_failure failure;
    int existed = access(file, F_OK) == 0;
    bk_status s = bk_extract_stream(piped_read, &piped, dest, &opts, NULL, &failure);
    EXPECT(s == expected[piped.way], "stream way %d cut at %zu: %u", piped.way, piped.cut, s);
    expect_tree(dest, s == BK_STATUS_OK || existed);
    /* Fed by hand, in pieces of every size (empty ones included), then misused. */
    bk_stream *stream = NULL;
    char fed_dest[320];
    snprintf(fed_dest, sizeof fed_dest, "%s-fed", dest);
    EXPECT(bk_stream_new(fed_dest, &stream) == BK_STATUS_OK && stream, "new");
    if (!stream) continue;
    for (size_t at = 0; at < sizeof zip_good;) {
      size_t n = next_random(&a->seed) % 40;
      if (n > sizeof zip_good - at) n = sizeof zip_good - at;
      EXPECT(bk_stream_feed(stream, n ? zip_good + at : NULL, n) == BK_STATUS_OK, "feed");
      at += n;
    }
    EXPECT(bk_stream_feed(stream, NULL, 5) == BK_STATUS_NULL_POINTER, "feed NULL bytes");
    s = bk_stream_extract(stream, fed_dest, &opts, NULL, NULL);
    EXPECT(s == BK_STATUS_OK, "fed: %u", s);
    EXPECT(bk_stream_feed(stream, zip_good, 1) == BK_STATUS_INVALID_ARGUMENT, "feed after extract");
    EXPECT(bk_stream_extract(stream, fed_dest, &opts, NULL, NULL) == BK_STATUS_INVALID_ARGUMENT, "extract twice");
    bk_stream_free(stream);
    EXPECT(bk_stream_feed(NULL, zip_good, 1) == BK_STATUS_NULL_POINTER, "feed NULL stream");
    bk_stream_free(NULL);
    ops += 2;
  }
  atomic_fetch_add(&operations, ops);
  return NULL;
}

static void scenario_streams(void) {
  struct stream_arg args[THREADS];
  for (int i = 0; i < THREADS; i++) args[i] = (struct stream_arg){i, 0xbf58476d1ce4e5b9ull * (uint64_t)(i + 5)};
  run_threads(stream_worker, args, sizeof args[0], THREADS);
}

int main(int argc, char **argv) {
  struct {
    const char *name;
    void (*run)(void);
  } scenarios[] = {{"pool", scenario_pool},         {"buffers", scenario_buffers},
                   {"inflate", scenario_inflate},   {"extraction", scenario_extraction},
                   {"archives", scenario_archives}, {"sources", scenario_sources},
                   {"streams", scenario_streams}};
  int passed = 0, failed = 0;
  char cmd[700];
  if (argc != 3 || (seconds = atof(argv[1])) <= 0) {
    fprintf(stderr, "usage: stress SECONDS_PER_SCENARIO WORKDIR\n");
    return 2;
  }
  snprintf(workdir, sizeof workdir, "%s", argv[2]);
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", workdir, workdir);
  if (system(cmd) != 0) return 2;
  for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
    long before = atomic_load(&failures);
    double start = now();
    atomic_store(&operations, 0);
    scenarios[i].run();
    long now_failed = atomic_load(&failures) - before;
    printf("%s %-10s %8ld operations in %.1f s%s\n", now_failed ? "FAIL" : "ok  ", scenarios[i].name,
           atomic_load(&operations), now() - start, now_failed ? " (see above)" : "");
    fflush(stdout);
    if (now_failed)
      failed++;
    else
      passed++;
  }
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", workdir);
  if (system(cmd) != 0) failed++;
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

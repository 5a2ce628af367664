/* The bk_pool C ABI: leases, every cap, bad leases, freeing with leases out, threads. */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include "check.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bk_pool *new_pool(size_t max_retained, size_t thread_cache) {
  bk_pool_config config;
  bk_pool *pool = NULL;
  if (bk_pool_config_default(&config) != BK_STATUS_OK) return NULL;
  if (max_retained) config.max_retained_bytes = max_retained;
  config.thread_cache_buffers = thread_cache;
  if (bk_pool_new(&config, &pool) != BK_STATUS_OK) return NULL;
  return pool;
}

static void test_leases_are_reused_warm_and_dirty(void) {
  bk_pool *pool = NULL;
  bk_lease a, b;
  bk_pool_stats s;
  CHECK_STATUS(bk_pool_new(NULL, &pool), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_acquire(pool, 1000, &a), BK_STATUS_OK);
  CHECK(a.len == 4096 && a.data != NULL && ((uintptr_t)a.data % 64) == 0 && a.pool == pool);
  memcpy(a.data, "dirty", 5);
  CHECK_STATUS(bk_pool_release(pool, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_acquire(pool, 4096, &b), BK_STATUS_OK);
  CHECK(b.data == a.data && memcmp(b.data, "dirty", 5) == 0);
  CHECK_STATUS(bk_pool_release(pool, &b), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_get_stats(pool, &s), BK_STATUS_OK);
  CHECK(s.hits == 1 && s.misses == 1 && s.returns == 2 && s.outstanding_leases == 0 && s.class_count == 11);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
}

static void test_zeroing_on_request(void) {
  bk_pool_config config;
  bk_pool *pool = NULL;
  bk_lease a;
  int all_zero = 1;
  bk_pool_config_default(&config);
  config.zero_on_acquire = 1;
  CHECK_STATUS(bk_pool_new(&config, &pool), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_acquire(pool, 64, &a), BK_STATUS_OK);
  memset(a.data, 0xAB, a.len);
  CHECK_STATUS(bk_pool_release(pool, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_acquire(pool, 64, &a), BK_STATUS_OK);
  for (size_t i = 0; i < a.len; i++) all_zero &= a.data[i] == 0;
  CHECK(all_zero);
  CHECK_STATUS(bk_pool_release(pool, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
}

static void test_sizes_zero_and_oversize(void) {
  bk_pool *pool = new_pool(0, 4);
  bk_lease a;
  bk_pool_stats s;
  CHECK_STATUS(bk_pool_acquire(pool, 0, &a), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_pool_acquire(pool, ((size_t)4 << 20) + 1, &a), BK_STATUS_OK);
  CHECK(a.len == ((size_t)4 << 20) + 1);
  a.data[a.len - 1] = 1;
  CHECK_STATUS(bk_pool_release(pool, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_acquire(pool, SIZE_MAX, &a), BK_STATUS_LENGTH_OVERFLOW);
  CHECK_STATUS(bk_pool_acquire(pool, (size_t)1 << 47, &a), BK_STATUS_ALLOC_FAILED); /* the whole address space */
  CHECK_STATUS(bk_pool_get_stats(pool, &s), BK_STATUS_OK);
  CHECK(s.oversize_allocations >= 1 && s.retained_bytes == 0 && s.outstanding_leases == 0);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
}

static void test_bad_leases_touch_nothing(void) {
  bk_pool *pool = new_pool(0, 4), *other = new_pool(0, 4);
  bk_lease a, forged;
  CHECK_STATUS(bk_pool_acquire(pool, 100, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_release(other, &a), BK_STATUS_WRONG_POOL);
  forged = a;
  forged.id ^= (uint64_t)1 << 32; /* a generation that was never lent */
  CHECK_STATUS(bk_pool_release(pool, &forged), BK_STATUS_LEASE_INVALID);
  forged.id = 12345;
  CHECK_STATUS(bk_pool_release(pool, &forged), BK_STATUS_LEASE_INVALID);
  CHECK_STATUS(bk_pool_release(pool, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_pool_release(NULL, &a), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_pool_acquire(NULL, 10, &a), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_pool_acquire(pool, 10, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_pool_release(pool, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_release(pool, &a), BK_STATUS_LEASE_INVALID); /* twice */
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_free(other), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_free(NULL), BK_STATUS_OK);
}

static void test_freeing_with_leases_out_is_refused(void) {
  bk_pool *pool = new_pool(0, 4);
  bk_lease a;
  CHECK_STATUS(bk_pool_acquire(pool, 100, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_LEASES_OUTSTANDING);
  memcpy(a.data, "still mine", 10); /* the lease is still valid */
  CHECK_STATUS(bk_pool_release(pool, &a), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
}

static void test_the_retained_cap_and_trim(void) {
  bk_pool *pool = new_pool(8192, 4);
  bk_lease l[4];
  bk_pool_stats s;
  bk_pool_class_stats c;
  for (int i = 0; i < 4; i++) CHECK_STATUS(bk_pool_acquire(pool, 4096, &l[i]), BK_STATUS_OK);
  for (int i = 0; i < 4; i++) CHECK_STATUS(bk_pool_release(pool, &l[i]), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_get_stats(pool, &s), BK_STATUS_OK);
  CHECK(s.returns == 2 && s.drops_over_cap == 2 && s.retained_bytes == 8192);
  CHECK_STATUS(bk_pool_get_class_stats(pool, 0, &c), BK_STATUS_OK);
  CHECK(c.size == 4096 && c.returns == 2 && c.drops_over_cap == 2);
  CHECK_STATUS(bk_pool_get_class_stats(pool, 11, &c), BK_STATUS_OUT_OF_RANGE);
  CHECK_STATUS(bk_pool_trim(pool), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_get_stats(pool, &s), BK_STATUS_OK);
  CHECK(s.retained_bytes == 0);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
}

static void test_invalid_configs_are_refused(void) {
  bk_pool_config config;
  bk_pool *pool = (bk_pool *)&config;
  bk_pool_config_default(&config);
  config.min_class_size = 1000;
  CHECK_STATUS(bk_pool_new(&config, &pool), BK_STATUS_INVALID_ARGUMENT);
  CHECK(pool == NULL);
  bk_pool_config_default(&config);
  config.thread_cache_buffers = 17;
  CHECK_STATUS(bk_pool_new(&config, &pool), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_pool_new(NULL, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_pool_config_default(NULL), BK_STATUS_NULL_POINTER);
}

enum { THREADS = 4, ROUNDS = 5000 };
static bk_pool *shared_pool;
static int thread_failures;

static void *worker(void *arg) {
  size_t seed = (size_t)(uintptr_t)arg;
  bk_lease held[3];
  for (int i = 0; i < ROUNDS; i++) {
    for (int j = 0; j < 3; j++) {
      size_t size = (size_t)4096 << ((seed + (size_t)i + (size_t)j) % 5);
      if (bk_pool_acquire(shared_pool, size, &held[j]) != BK_STATUS_OK)
        __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
      held[j].data[0] = (uint8_t)j;
    }
    for (int j = 0; j < 3; j++)
      if (bk_pool_release(shared_pool, &held[j]) != BK_STATUS_OK)
        __atomic_add_fetch(&thread_failures, 1, __ATOMIC_RELAXED);
  }
  return NULL;
}

static void test_threads_share_one_pool(void) {
  pthread_t t[THREADS];
  bk_pool_stats s;
  shared_pool = new_pool(256 << 10, 4);
  for (size_t i = 0; i < THREADS; i++) CHECK(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i) == 0);
  for (size_t i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  CHECK(thread_failures == 0);
  CHECK_STATUS(bk_pool_get_stats(shared_pool, &s), BK_STATUS_OK);
  CHECK(s.outstanding_leases == 0 && s.retained_bytes <= (256 << 10));
  CHECK(s.hits + s.misses == (uint64_t)THREADS * ROUNDS * 3);
  CHECK_STATUS(bk_pool_free(shared_pool), BK_STATUS_OK);
}

/* A lease is checked by its data and length too: a made-up lease carrying a live id (ids were
   once 0, 1, 2... in acquire order) releases nothing, and the owner's release still works. */
static void test_a_forged_lease_with_a_live_id_releases_nothing(void) {
  bk_pool *pool = new_pool(0, 4);
  bk_lease live, forged;
  bk_pool_stats st;
  CHECK_STATUS(bk_pool_acquire(pool, 100, &live), BK_STATUS_OK);
  forged = live;
  forged.data = NULL;
  forged.len = 0;
  CHECK_STATUS(bk_pool_release(pool, &forged), BK_STATUS_LEASE_INVALID);
  forged = live;
  forged.len += 1;
  CHECK_STATUS(bk_pool_release(pool, &forged), BK_STATUS_LEASE_INVALID);
  forged = live;
  forged.data += 64;
  CHECK_STATUS(bk_pool_release(pool, &forged), BK_STATUS_LEASE_INVALID);
  forged = live;
  forged.id = 0; /* the first id of a fresh pool, once */
  if (live.id != 0) CHECK_STATUS(bk_pool_release(pool, &forged), BK_STATUS_LEASE_INVALID);
  CHECK_STATUS(bk_pool_get_stats(pool, &st), BK_STATUS_OK);
  CHECK(st.outstanding_leases == 1);
  CHECK_STATUS(bk_pool_release(pool, &live), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
}

/* Ids do not follow from the order of acquires: two fresh pools do not lend the same first id. */
static void test_lease_ids_are_not_predictable(void) {
  int same = 0;
  for (int round = 0; round < 4; round++) {
    bk_pool *a = new_pool(0, 4), *b = new_pool(0, 4);
    bk_lease la, lb;
    CHECK_STATUS(bk_pool_acquire(a, 100, &la), BK_STATUS_OK);
    CHECK_STATUS(bk_pool_acquire(b, 100, &lb), BK_STATUS_OK);
    same += la.id == lb.id;
    CHECK_STATUS(bk_pool_release(a, &la), BK_STATUS_OK);
    CHECK_STATUS(bk_pool_release(b, &lb), BK_STATUS_OK);
    CHECK_STATUS(bk_pool_free(a), BK_STATUS_OK);
    CHECK_STATUS(bk_pool_free(b), BK_STATUS_OK);
  }
  CHECK(same < 4);
}

#ifdef _WIN32
#include <windows.h>
/* Whether `addr` lies in committed memory of this process (a 1 MiB block is a region of its own,
   released when freed). */
static int mapped_at(uintptr_t addr) {
  MEMORY_BASIC_INFORMATION region;
  if (VirtualQuery((const void *)addr, &region, sizeof region) != sizeof region) return -1;
  return region.State == MEM_COMMIT;
}
#else
/* Whether `addr` lies in a mapping of this process (/proc/self/maps; adjacent mappings may be
   merged into one line, so a range, not a start, is looked for). */
static int mapped_at(uintptr_t addr) {
  char line[512];
  int found = 0;
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps) return -1;
  while (fgets(line, sizeof line, maps)) {
    char *dash;
    uintptr_t start = (uintptr_t)strtoull(line, &dash, 16);
    uintptr_t end = (uintptr_t)strtoull(dash + 1, NULL, 16);
    if (addr >= start && addr < end) found = 1;
  }
  fclose(maps);
  return found;
}
#endif

struct cacher {
  bk_pool *pool;
  uintptr_t addr;
  pthread_mutex_t lock;
  pthread_cond_t changed;
  int cached, looked;
};

/* Caches a 1 MiB buffer in this thread's cache, then stays alive until the main thread looked. */
static void *cache_and_wait(void *arg) {
  struct cacher *c = arg;
  bk_lease lease;
  if (bk_pool_acquire(c->pool, 1 << 20, &lease) != BK_STATUS_OK) abort();
  c->addr = (uintptr_t)lease.data;
  if (bk_pool_release(c->pool, &lease) != BK_STATUS_OK) abort();
  pthread_mutex_lock(&c->lock);
  c->cached = 1;
  pthread_cond_broadcast(&c->changed);
  while (!c->looked) pthread_cond_wait(&c->changed, &c->lock);
  pthread_mutex_unlock(&c->lock);
  return NULL;
}

/* Issue 29, 2: bk_pool_free returned OK while another live thread still cached the pool's idle
   buffer, and 1 MiB stayed mapped until that thread exited (a JVM's or BEAM's never do). */
static void test_freeing_a_pool_frees_what_live_threads_cache(void) {
  struct cacher c = {new_pool(0, 4), 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  pthread_t thread;
  CHECK(c.pool != NULL);
  CHECK(pthread_create(&thread, NULL, cache_and_wait, &c) == 0);
  pthread_mutex_lock(&c.lock);
  while (!c.cached) pthread_cond_wait(&c.changed, &c.lock);
  pthread_mutex_unlock(&c.lock);
  CHECK(mapped_at(c.addr) == 1);
  CHECK_STATUS(bk_pool_free(c.pool), BK_STATUS_OK);
  CHECK(mapped_at(c.addr) == 0);
  pthread_mutex_lock(&c.lock);
  c.looked = 1;
  pthread_cond_broadcast(&c.changed);
  pthread_mutex_unlock(&c.lock);
  pthread_join(thread, NULL);
}

int main(void) {
  RUN(test_leases_are_reused_warm_and_dirty);
  RUN(test_zeroing_on_request);
  RUN(test_sizes_zero_and_oversize);
  RUN(test_bad_leases_touch_nothing);
  RUN(test_freeing_with_leases_out_is_refused);
  RUN(test_the_retained_cap_and_trim);
  RUN(test_invalid_configs_are_refused);
  RUN(test_threads_share_one_pool);
  RUN(test_a_forged_lease_with_a_live_id_releases_nothing);
  RUN(test_lease_ids_are_not_predictable);
  RUN(test_freeing_a_pool_frees_what_live_threads_cache);
  return REPORT();
}

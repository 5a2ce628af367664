/* Reading in place allocates nothing: every allocation the program or libbufkit.a makes goes
   through the counting wrappers below (linked with -Wl,--wrap=malloc,...; see ffi-tests/c/run.sh),
   and a read into a caller's buffer, a pooled read from a warm pool, a stored entry's view and a
   lookup leave the count unchanged. */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include "archives.h"
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t allocations;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
int __real_posix_memalign(void **ptr, size_t align, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);
void *__wrap_malloc(size_t size) {
  allocations++;
  return __real_malloc(size);
}
void *__wrap_calloc(size_t count, size_t size) {
  allocations++;
  return __real_calloc(count, size);
}
void *__wrap_realloc(void *ptr, size_t size) {
  allocations++;
  return __real_realloc(ptr, size);
}
int __wrap_posix_memalign(void **ptr, size_t align, size_t size) {
  allocations++;
  return __real_posix_memalign(ptr, align, size);
}
void *__wrap_aligned_alloc(size_t align, size_t size) {
  allocations++;
  return __real_aligned_alloc(align, size);
}

static char workdir[64];
static char good_path[128], stored_path[128];

static void write_file(const char *path, const unsigned char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) abort();
}

static uint32_t crc32_of(const unsigned char *p, size_t n) {
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static unsigned char *put16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
  return p + 2;
}
static unsigned char *put32(unsigned char *p, uint32_t v) {
  p = put16(p, v & 0xffffu);
  return put16(p, v >> 16);
}

/* A zip of two stored files, "icon.png" (4,000 bytes) and "table.bin" (300 bytes). */
static size_t stored_zip(unsigned char *out) {
  static unsigned char data[2][4000];
  const char *names[2] = {"icon.png", "table.bin"};
  size_t sizes[2] = {4000, 300}, offsets[2];
  unsigned char *p = out;
  for (int i = 0; i < 2; i++) {
    for (size_t b = 0; b < sizes[i]; b++) data[i][b] = (unsigned char)(b * 7 + (size_t)i);
    offsets[i] = (size_t)(p - out);
    size_t name_len = strlen(names[i]);
    p = put32(p, 0x04034b50u);
    p = put16(p, 20);
    p = put16(p, 0x800);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put16(p, 0x21);
    p = put32(p, crc32_of(data[i], sizes[i]));
    p = put32(p, (uint32_t)sizes[i]);
    p = put32(p, (uint32_t)sizes[i]);
    p = put16(p, (unsigned)name_len);
    p = put16(p, 0);
    memcpy(p, names[i], name_len);
    p += name_len;
    memcpy(p, data[i], sizes[i]);
    p += sizes[i];
  }
  unsigned char *central = p;
  for (int i = 0; i < 2; i++) {
    size_t name_len = strlen(names[i]);
    p = put32(p, 0x02014b50u);
    p = put16(p, 3u << 8 | 20);
    p = put16(p, 20);
    p = put16(p, 0x800);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put16(p, 0x21);
    p = put32(p, crc32_of(data[i], sizes[i]));
    p = put32(p, (uint32_t)sizes[i]);
    p = put32(p, (uint32_t)sizes[i]);
    p = put16(p, (unsigned)name_len);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put16(p, 0);
    p = put32(p, 0100644u << 16);
    p = put32(p, (uint32_t)offsets[i]);
    memcpy(p, names[i], name_len);
    p += name_len;
  }
  size_t central_size = (size_t)(p - central);
  p = put32(p, 0x06054b50u);
  p = put16(p, 0);
  p = put16(p, 0);
  p = put16(p, 2);
  p = put16(p, 2);
  p = put32(p, (uint32_t)central_size);
  p = put32(p, (uint32_t)(central - out));
  p = put16(p, 0);
  return (size_t)(p - out);
}

/* Reads every file of the archive into `out` (at least as large as the largest), `rounds` times. */
static void read_every_file(const bk_archive *archive, unsigned char *out, size_t cap, int rounds) {
  size_t count = 0, written = 0;
  CHECK_STATUS(bk_archive_entry_count(archive, &count), BK_STATUS_OK);
  for (int round = 0; round < rounds; round++) {
    for (size_t i = 0; i < count; i++) {
      bk_archive_entry info;
      CHECK_STATUS(bk_archive_entry_info(archive, i, &info), BK_STATUS_OK);
      if (info.is_directory) continue;
      CHECK_STATUS(bk_archive_read(archive, i, out, cap, &written), BK_STATUS_OK);
      CHECK(written == info.size);
    }
  }
}

static void test_reads_into_a_callers_buffer_allocate_nothing(void) {
  static unsigned char out[8192];
  const char *paths[2] = {good_path, stored_path};
  for (int holding = 0; holding < 2; holding++) {
    for (int which = 0; which < 2; which++) {
      bk_archive *archive = NULL;
      bk_archive_options options;
      CHECK_STATUS(bk_archive_options_default(&options), BK_STATUS_OK);
      options.holding = holding ? BK_ARCHIVE_MAP : BK_ARCHIVE_READ;
      CHECK_STATUS(bk_archive_open(paths[which], &options, &archive), BK_STATUS_OK);
      read_every_file(archive, out, sizeof out, 1); /* this thread's decoder and scratch buffer */
      size_t before = allocations;
      read_every_file(archive, out, sizeof out, 5);
      if (allocations != before)
        fprintf(stderr, "  %zu allocations in 5 rounds (holding %d, archive %d)\n", allocations - before, holding,
                which);
      CHECK(allocations == before);
      bk_archive_free(archive);
    }
  }
}

static void test_pooled_reads_from_a_warm_pool_allocate_nothing(void) {
  bk_archive *archive = NULL;
  bk_pool *pool = NULL;
  CHECK_STATUS(bk_archive_open(good_path, NULL, &archive), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_new(NULL, &pool), BK_STATUS_OK);
  size_t index = 0, written = 0, before = 0;
  CHECK_STATUS(bk_archive_find(archive, "assets/app.js", 13, &index), BK_STATUS_OK);
  for (int round = 0; round < 6; round++) {
    bk_lease lease;
    if (round == 1) before = allocations; /* the first round warms the pool */
    CHECK_STATUS(bk_archive_read_pooled(archive, index, pool, &lease, &written), BK_STATUS_OK);
    CHECK(written == 3100);
    CHECK_STATUS(bk_pool_release(pool, &lease), BK_STATUS_OK);
  }
  if (allocations != before) fprintf(stderr, "  %zu allocations in 5 pooled reads\n", allocations - before);
  CHECK(allocations == before);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
  bk_archive_free(archive);
}

static void test_views_and_lookups_allocate_nothing(void) {
  bk_archive *archive = NULL;
  bk_archive_options options;
  CHECK_STATUS(bk_archive_options_default(&options), BK_STATUS_OK);
  options.holding = BK_ARCHIVE_MAP;
  CHECK_STATUS(bk_archive_open(stored_path, &options, &archive), BK_STATUS_OK);
  size_t index = 0, len = 0, before = allocations;
  const unsigned char *data = NULL;
  for (int round = 0; round < 5; round++) {
    CHECK_STATUS(bk_archive_find(archive, "icon.png", 8, &index), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_view(archive, index, &data, &len), BK_STATUS_OK);
    CHECK(len == 4000 && data[1] == 7);
    CHECK_STATUS(bk_archive_find(archive, "missing.png", 11, &index), BK_STATUS_NOT_FOUND);
  }
  if (allocations != before)
    fprintf(stderr, "  %zu allocations in 5 rounds of lookups and views\n", allocations - before);
  CHECK(allocations == before);
  bk_archive_free(archive);
}

/* The counter counts: opening an archive allocates (its index), so a wrapper that missed the
   library's allocations would fail here. */
static void test_the_counter_sees_the_librarys_allocations(void) {
  bk_archive *archive = NULL;
  size_t before = allocations;
  CHECK_STATUS(bk_archive_open(good_path, NULL, &archive), BK_STATUS_OK);
  CHECK(allocations > before);
  bk_archive_free(archive);
}

int main(void) {
  static unsigned char zip[8192];
  snprintf(workdir, sizeof workdir, "%s/bufkit-c-alloc-XXXXXX", temp_root());
  if (!mkdtemp(workdir)) return 2;
  snprintf(good_path, sizeof good_path, "%s/good.zip", workdir);
  snprintf(stored_path, sizeof stored_path, "%s/stored.zip", workdir);
  write_file(good_path, zip_good, sizeof zip_good);
  write_file(stored_path, zip, stored_zip(zip));
  RUN(test_the_counter_sees_the_librarys_allocations);
  RUN(test_reads_into_a_callers_buffer_allocate_nothing);
  RUN(test_pooled_reads_from_a_warm_pool_allocate_nothing);
  RUN(test_views_and_lookups_allocate_nothing);
  unlink(good_path);
  unlink(stored_path);
  rmdir(workdir);
  return REPORT();
}

/* The bk_archive C ABI: an archive opened once, entries found by name and read in place. */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include "archives.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char workdir[64];

static void write_file(const char *path, const unsigned char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) abort();
}

static void test_entries_are_found_and_read(void) {
  char path[128];
  bk_archive *archive = NULL;
  bk_archive_options options;
  bk_archive_entry info;
  size_t count = 0, index = 99, name_len = 0;
  const char *name = NULL;
  snprintf(path, sizeof path, "%s/good.zip", workdir);
  write_file(path, zip_good, sizeof zip_good);
  CHECK_STATUS(bk_archive_options_default(&options), BK_STATUS_OK);
  CHECK(options.holding == BK_ARCHIVE_READ);
  for (int holding = 0; holding < 2; holding++) {
    options.holding = holding ? BK_ARCHIVE_MAP : BK_ARCHIVE_READ;
    CHECK_STATUS(bk_archive_open(path, &options, &archive), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_entry_count(archive, &count), BK_STATUS_OK);
    CHECK(count == 3);
    CHECK_STATUS(bk_archive_find(archive, "readme.txt", 10, &index), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_entry_info(archive, index, &info), BK_STATUS_OK);
    CHECK(info.size == 17 && info.method == 8 && !info.is_directory);
    CHECK_STATUS(bk_archive_entry_name(archive, index, &name, &name_len), BK_STATUS_OK);
    CHECK(name_len == 10 && memcmp(name, "readme.txt", 10) == 0);
    {
      unsigned char *out = malloc(17); /* uninitialised, as callers' memory often is */
      CHECK_STATUS(bk_archive_read(archive, index, out, 17), BK_STATUS_OK);
      CHECK(memcmp(out, "hello from a zip\n", 17) == 0);
      CHECK_STATUS(bk_archive_read(archive, index, out, 16), BK_STATUS_SIZE_MISMATCH);
      free(out);
    }
    CHECK_STATUS(bk_archive_find(archive, "assets", 6, &index), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_entry_info(archive, index, &info), BK_STATUS_OK);
    CHECK(info.is_directory);
    CHECK_STATUS(bk_archive_read(archive, index, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(bk_archive_find(archive, "nothing.txt", 11, &index), BK_STATUS_NOT_FOUND);
    CHECK_STATUS(bk_archive_entry_info(archive, 3, &info), BK_STATUS_OUT_OF_RANGE);
    {
      const unsigned char *data = NULL;
      size_t len = 0;
      CHECK_STATUS(bk_archive_find(archive, "readme.txt", 10, &index), BK_STATUS_OK);
      CHECK_STATUS(bk_archive_view(archive, index, &data, &len), BK_STATUS_INVALID_ARGUMENT); /* deflated */
    }
    bk_archive_free(archive);
  }
  bk_archive_free(NULL);
}

static void test_bad_input_is_refused(void) {
  char path[128];
  bk_archive *archive = (bk_archive *)&path;
  bk_archive_options options = {7};
  size_t index;
  snprintf(path, sizeof path, "%s/evil.zip", workdir);
  write_file(path, zip_evil, sizeof zip_evil);
  CHECK_STATUS(bk_archive_open(path, NULL, &archive), BK_STATUS_UNSAFE_NAME);
  CHECK(archive == NULL);
  CHECK_STATUS(bk_archive_open("/nonexistent/a.zip", NULL, &archive), BK_STATUS_IO_ERROR);
  CHECK_STATUS(bk_archive_open(path, &options, &archive), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_archive_open(NULL, NULL, &archive), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_open(path, NULL, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_find(NULL, "x", 1, &index), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_entry_count(NULL, &index), BK_STATUS_NULL_POINTER);
}

int main(void) {
  char cmd[128];
  int rc;
  snprintf(workdir, sizeof workdir, "/tmp/bufkit-c-archive-XXXXXX");
  if (!mkdtemp(workdir)) return 1;
  RUN(test_entries_are_found_and_read);
  RUN(test_bad_input_is_refused);
  rc = REPORT();
  snprintf(cmd, sizeof cmd, "rm -rf %s", workdir);
  if (system(cmd) != 0) return 1;
  return rc;
}

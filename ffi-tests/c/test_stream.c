/* bk_stream and bk_extract_stream: an archive that arrives as a stream extracts as its file
 * would, with every check; a stream that ends early, fails or is cancelled leaves nothing. */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include "archives.h"
#include "check.h"
#include "posix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char workdir[64];

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

/* A stream over bytes in memory, handed out `step` bytes at a time; fails with -EIO after
   `fail_after` calls (never if negative). */
typedef struct {
  const unsigned char *bytes;
  size_t len, at, step;
  int calls, fail_after;
} piped;

static int64_t piped_read(void *ctx, uint8_t *buf, size_t len) {
  piped *p = ctx;
  size_t n = p->len - p->at;
  if (p->fail_after >= 0 && p->calls++ >= p->fail_after) return -EIO;
  if (n > len) n = len;
  if (n > p->step) n = p->step;
  memcpy(buf, p->bytes + p->at, n);
  p->at += n;
  return (int64_t)n;
}

static void test_an_archive_fed_in_pieces_extracts_as_its_file(void) {
  char dest[160], file[200];
  bk_stream *stream = NULL;
  bk_extract_report report = {.size = sizeof report};
  bk_extract_failure failure;
  snprintf(dest, sizeof dest, "%s/fed", workdir);
  CHECK_STATUS(bk_stream_new(dest, &stream), BK_STATUS_OK);
  if (!stream) return;
  for (size_t at = 0; at < sizeof zip_good; at += 7) {
    size_t n = sizeof zip_good - at < 7 ? sizeof zip_good - at : 7;
    CHECK_STATUS(bk_stream_feed(stream, zip_good + at, n), BK_STATUS_OK);
  }
  CHECK_STATUS(bk_stream_feed(stream, NULL, 0), BK_STATUS_OK);
  /* No report wanted: NULL, as for failure_out. */
  CHECK_STATUS(bk_stream_extract(stream, dest, NULL, NULL, &failure), BK_STATUS_OK);
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  CHECK(exists(file));
  /* Spent. */
  CHECK_STATUS(bk_stream_feed(stream, zip_good, 1), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_stream_extract(stream, dest, NULL, &report, NULL), BK_STATUS_INVALID_ARGUMENT);
  bk_stream_free(stream);
  bk_stream_free(NULL);
}

static void test_a_stream_cut_short_leaves_nothing(void) {
  char dest[160];
  bk_stream *stream = NULL;
  bk_extract_report report = {.size = sizeof report};
  bk_extract_failure failure;
  snprintf(dest, sizeof dest, "%s/cut", workdir);
  CHECK_STATUS(bk_stream_new(dest, &stream), BK_STATUS_OK);
  if (!stream) return;
  CHECK_STATUS(bk_stream_feed(stream, zip_good, sizeof zip_good - 10), BK_STATUS_OK);
  CHECK_STATUS(bk_stream_extract(stream, dest, NULL, &report, &failure), BK_STATUS_ARCHIVE_MALFORMED);
  CHECK(failure.detail[0] != 0 && !exists(dest));
  bk_stream_free(stream);
  /* An archive of names that escape: refused as from a file. */
  CHECK_STATUS(bk_stream_new(dest, &stream), BK_STATUS_OK);
  if (!stream) return;
  CHECK_STATUS(bk_stream_feed(stream, zip_evil, sizeof zip_evil), BK_STATUS_OK);
  CHECK_STATUS(bk_stream_extract(stream, dest, NULL, &report, NULL), BK_STATUS_UNSAFE_NAME);
  CHECK(!exists(dest));
  bk_stream_free(stream);
}

static void test_a_read_callback_stream(void) {
  char dest[160];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_failure failure;
  piped good = {.bytes = zip_good, .len = sizeof zip_good, .step = 5, .fail_after = -1};
  snprintf(dest, sizeof dest, "%s/pulled", workdir);
  CHECK_STATUS(bk_extract_stream(piped_read, &good, dest, NULL, &report, &failure), BK_STATUS_OK);
  CHECK(report.files == 2 && good.at == sizeof zip_good);
  /* A read that fails midway: the status, the failure named, nothing at DEST. */
  piped failing = {.bytes = zip_good, .len = sizeof zip_good, .step = 5, .fail_after = 10};
  snprintf(dest, sizeof dest, "%s/failed", workdir);
  CHECK_STATUS(bk_extract_stream(piped_read, &failing, dest, NULL, &report, &failure), BK_STATUS_IO_ERROR);
  CHECK(failure.os_error == EIO && failure.detail[0] != 0 && !exists(dest));
  /* Cancelled before it starts: nothing read. */
  bk_cancel *cancel = NULL;
  CHECK_STATUS(bk_cancel_new(&cancel), BK_STATUS_OK);
  CHECK_STATUS(bk_cancel_request(cancel), BK_STATUS_OK);
  bk_extract_options options = {.size = sizeof options, .cancel = cancel};
  piped unread = {.bytes = zip_good, .len = sizeof zip_good, .step = 5, .fail_after = -1};
  CHECK_STATUS(bk_extract_stream(piped_read, &unread, dest, &options, &report, NULL), BK_STATUS_CANCELLED);
  CHECK(unread.at == 0 && !exists(dest));
  bk_cancel_free(cancel);
  /* NULLs. */
  memset(&failure, 0xff, sizeof failure);
  CHECK_STATUS(bk_extract_stream(NULL, NULL, dest, NULL, NULL, &failure), BK_STATUS_NULL_POINTER);
  CHECK(failure.os_error == 0 && failure.detail[0] == 0);
  CHECK_STATUS(bk_extract_stream(piped_read, &good, NULL, NULL, NULL, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_stream_new(NULL, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_stream_extract(NULL, dest, NULL, NULL, NULL), BK_STATUS_NULL_POINTER);
}

static void test_a_large_archive_through_a_stream(void) {
  static unsigned char chunk[1 << 16];
  char dest[160];
  bk_stream *stream = NULL;
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options options = {.size = sizeof options, .threads = 2, .parallel_inflate = BK_PARALLEL_INFLATE_ALWAYS};
  FILE *f = fopen(BUFKIT_BIG_ZIP, "rb");
  size_t n;
  CHECK(f != NULL);
  if (!f) return;
  snprintf(dest, sizeof dest, "%s/big", workdir);
  CHECK_STATUS(bk_stream_new(dest, &stream), BK_STATUS_OK);
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) CHECK_STATUS(bk_stream_feed(stream, chunk, n), BK_STATUS_OK);
  fclose(f);
  CHECK_STATUS(bk_stream_extract(stream, dest, &options, &report, NULL), BK_STATUS_OK);
  CHECK(report.files == 2 && report.bytes > (4 << 20));
  bk_stream_free(stream);
}

int main(void) {
  int rc;
  snprintf(workdir, sizeof workdir, "%s/bufkit-c-stream-XXXXXX", temp_root());
  if (!mkdtemp(workdir)) return 1;
  RUN(test_an_archive_fed_in_pieces_extracts_as_its_file);
  RUN(test_a_stream_cut_short_leaves_nothing);
  RUN(test_a_read_callback_stream);
  RUN(test_a_large_archive_through_a_stream);
  rc = REPORT();
  if (remove_tree(workdir) != 0) return 1;
  return rc;
}

/* The bk_archive C ABI: an archive opened once, entries found by name and read in place. */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include "archives.h"
#include "check.h"
#include "posix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
      size_t written = 99;
      uint64_t size = 0;
      CHECK_STATUS(bk_archive_entry_size(archive, index, &size), BK_STATUS_OK);
      CHECK(size == 17);
      CHECK_STATUS(bk_archive_read(archive, index, out, 17, &written), BK_STATUS_OK);
      CHECK(written == 17 && memcmp(out, "hello from a zip\n", 17) == 0);
      CHECK_STATUS(bk_archive_read(archive, index, out, 16, &written), BK_STATUS_SIZE_MISMATCH);
      CHECK(written == 0);
      CHECK_STATUS(bk_archive_read(archive, index, out, 17, NULL), BK_STATUS_NULL_POINTER);
      free(out);
      out = malloc(64); /* room to spare: the bytes past the entry are left alone */
      memset(out, '#', 64);
      CHECK_STATUS(bk_archive_read(archive, index, out, 64, &written), BK_STATUS_OK);
      CHECK(written == 17 && memcmp(out, "hello from a zip\n", 17) == 0 && out[17] == '#' && out[63] == '#');
      free(out);
    }
    CHECK_STATUS(bk_archive_find(archive, "assets", 6, &index), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_entry_info(archive, index, &info), BK_STATUS_OK);
    CHECK(info.is_directory);
    {
      size_t written = 0;
      CHECK_STATUS(bk_archive_read(archive, index, NULL, 0, &written), BK_STATUS_INVALID_ARGUMENT);
    }
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
  bk_archive_options options = {7, 0};
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

#ifndef _WIN32 /* Windows has no FIFOs in its file system, nor alarm */
/* A FIFO given as the archive is refused at once: a plain open(2) of it would wait for a writer
 * forever, and the caller's thread with it (issue 29). The alarm turns a hang into a failure. */
static void test_a_fifo_is_refused_without_waiting_for_a_writer(void) {
  char fifo[128], dest[128];
  bk_archive *archive = NULL;
  struct bk_extract_report report = {.size = sizeof report};
  snprintf(fifo, sizeof fifo, "%s/pipe.zip", workdir);
  snprintf(dest, sizeof dest, "%s/fifo-out", workdir);
  CHECK(mkfifo(fifo, 0600) == 0);
  alarm(20);
  CHECK_STATUS(bk_archive_open(fifo, NULL, &archive), BK_STATUS_IO_ERROR);
  CHECK(archive == NULL);
  CHECK_STATUS(bk_extract(fifo, dest, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_IO_ERROR);
  alarm(0);
  CHECK(access(dest, F_OK) != 0);
  unlink(fifo);
}
#endif

static bk_archive *open_bytes(const char *file, const unsigned char *zip, size_t len) {
  char path[128];
  bk_archive *archive = NULL;
  snprintf(path, sizeof path, "%s/%s", workdir, file);
  write_file(path, zip, len);
  CHECK_STATUS(bk_archive_open(path, NULL, &archive), BK_STATUS_OK);
  return archive;
}

/* Pooled reads: the entry in a lent buffer that goes back to the pool; failures lend nothing. */
static void test_pooled_reads(void) {
  bk_archive *archive = open_bytes("pooled.zip", zip_good, sizeof zip_good);
  bk_pool *pool = NULL;
  bk_pool_stats st;
  bk_lease lease;
  size_t index = 0, written = 0;
  CHECK_STATUS(bk_pool_new(NULL, &pool), BK_STATUS_OK);
  for (int round = 0; round < 3; round++) {
    CHECK_STATUS(bk_archive_find(archive, "assets/app.js", 13, &index), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_read_pooled(archive, index, pool, &lease, &written), BK_STATUS_OK);
    CHECK(written == 3100 && lease.len >= 3100 && memcmp(lease.data, "function main", 13) == 0);
    CHECK_STATUS(bk_pool_release(pool, &lease), BK_STATUS_OK);
  }
  CHECK_STATUS(bk_archive_find(archive, "assets", 6, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_read_pooled(archive, index, pool, &lease, &written), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_archive_read_pooled(archive, 99, pool, &lease, &written), BK_STATUS_OUT_OF_RANGE);
  CHECK_STATUS(bk_archive_read_pooled(archive, 0, NULL, &lease, &written), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_read_pooled(archive, 0, pool, NULL, &written), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_pool_get_stats(pool, &st), BK_STATUS_OK);
  CHECK(st.outstanding_leases == 0);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
  bk_archive_free(archive);
}

/* Reads the whole entry through a reader in `stride`-byte calls; returns the last status. */
static bk_status read_through(bk_archive_reader *reader, size_t stride, unsigned char *out, size_t cap, size_t *total) {
  unsigned char *buf = malloc(stride);
  bk_status status;
  size_t n = 0;
  *total = 0;
  while ((status = bk_archive_reader_read(reader, buf, stride, &n)) == BK_STATUS_OK && n > 0) {
    if (*total + n <= cap) memcpy(out + *total, buf, n);
    *total += n;
  }
  free(buf);
  return status;
}

/* Streaming readers: any stride, the end only after the checks, a reader outliving its archive. */
static void test_readers(void) {
  bk_archive *archive = open_bytes("reader.zip", zip_good, sizeof zip_good);
  bk_archive_reader *reader = NULL;
  static unsigned char whole[3100], streamed[3100];
  size_t index = 0, written = 0, total = 0, n = 0;
  const size_t strides[] = {1, 7, 1000, 65536};
  CHECK_STATUS(bk_archive_find(archive, "assets/app.js", 13, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_read(archive, index, whole, sizeof whole, &written), BK_STATUS_OK);
  for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
    CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
    CHECK_STATUS(read_through(reader, strides[i], streamed, sizeof streamed, &total), BK_STATUS_OK);
    CHECK(total == 3100 && memcmp(whole, streamed, 3100) == 0);
    CHECK_STATUS(bk_archive_reader_read(reader, streamed, 16, &n), BK_STATUS_OK);
    CHECK(n == 0); /* stays at its end */
    bk_archive_reader_free(reader);
  }
  /* The reader keeps what it reads alive: free the archive first. */
  CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
  bk_archive_free(archive);
  CHECK_STATUS(read_through(reader, 333, streamed, sizeof streamed, &total), BK_STATUS_OK);
  CHECK(total == 3100 && memcmp(whole, streamed, 3100) == 0);
  bk_archive_reader_free(reader);
  bk_archive_reader_free(NULL);
  archive = open_bytes("reader2.zip", zip_good, sizeof zip_good);
  CHECK_STATUS(bk_archive_find(archive, "assets", 6, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_INVALID_ARGUMENT);
  CHECK(reader == NULL);
  CHECK_STATUS(bk_archive_reader_open(archive, 99, &reader), BK_STATUS_OUT_OF_RANGE);
  CHECK_STATUS(bk_archive_reader_open(archive, 0, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_reader_read(NULL, streamed, 1, &n), BK_STATUS_NULL_POINTER);
  /* Issue 29, unclear point: a zero-length read before the end returned OK with 0, which means
     the end. It is refused, and the reader goes on from where it was. */
  CHECK_STATUS(bk_archive_find(archive, "assets/app.js", 13, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_read(reader, streamed, 10, &n), BK_STATUS_OK);
  CHECK(n == 10);
  n = 77;
  CHECK_STATUS(bk_archive_reader_read(reader, streamed, 0, &n), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_archive_reader_read(reader, NULL, 0, &n), BK_STATUS_INVALID_ARGUMENT);
  CHECK(n == 0);
  CHECK_STATUS(read_through(reader, 100, streamed + 10, sizeof streamed - 10, &total), BK_STATUS_OK);
  CHECK(total == 3090 && memcmp(whole, streamed, 3100) == 0);
  bk_archive_reader_free(reader);
  bk_archive_free(archive);
}

/* A wrong CRC (the same in both headers): a reader hands the bytes out, then the call that would
   end the entry says CRC_MISMATCH, and every call after it; a whole read says it at once. */
static void test_a_reader_reports_a_bad_crc_at_the_end(void) {
  unsigned char zip[sizeof zip_good];
  unsigned char out[17];
  size_t total = 0, n = 0, index = 0, written = 0;
  int patched = 0;
  bk_archive_reader *reader = NULL;
  memcpy(zip, zip_good, sizeof zip);
  for (size_t at = 46; at + 10 <= sizeof zip; at++) {
    if (memcmp(zip + at, "readme.txt", 10) != 0) continue;
    /* A local header's name follows 30 bytes of header (CRC at 14), a central one's 46 (CRC at 16). */
    if (memcmp(zip + at - 30, "PK\x03\x04", 4) == 0)
      zip[at - 30 + 14] ^= 0xff, patched++;
    else if (memcmp(zip + at - 46, "PK\x01\x02", 4) == 0)
      zip[at - 46 + 16] ^= 0xff, patched++;
  }
  CHECK(patched == 2);
  bk_archive *archive = open_bytes("badcrc.zip", zip, sizeof zip);
  CHECK_STATUS(bk_archive_find(archive, "readme.txt", 10, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
  CHECK_STATUS(read_through(reader, 5, out, sizeof out, &total), BK_STATUS_CRC_MISMATCH);
  CHECK(total == 17 && memcmp(out, "hello from a zip\n", 17) == 0);
  /* And so does every later call, with the same status. */
  CHECK_STATUS(bk_archive_reader_read(reader, out, sizeof out, &n), BK_STATUS_CRC_MISMATCH);
  CHECK(n == 0);
  bk_archive_reader_free(reader);
  CHECK_STATUS(bk_archive_read(archive, index, out, sizeof out, &written), BK_STATUS_CRC_MISMATCH);
  bk_archive_free(archive);
}

/* Listing: every entry with NULL, or those a pattern matches; two calls size the output. */
static void test_listing(void) {
  bk_archive *archive = open_bytes("list.zip", zip_good, sizeof zip_good);
  size_t indexes[8], count = 99;
  const char *name;
  size_t len;
  CHECK_STATUS(bk_archive_list(archive, NULL, 0, NULL, 0, &count), BK_STATUS_OK);
  CHECK(count == 3);
  CHECK_STATUS(bk_archive_list(archive, "*.js", 4, indexes, 8, &count), BK_STATUS_OK);
  CHECK(count == 1);
  CHECK_STATUS(bk_archive_entry_name(archive, indexes[0], &name, &len), BK_STATUS_OK);
  CHECK(len == 13 && memcmp(name, "assets/app.js", 13) == 0);
  CHECK_STATUS(bk_archive_list(archive, "assets/", 7, indexes, 1, &count), BK_STATUS_OK);
  CHECK(count == 2); /* the directory and its file; room for one */
  CHECK_STATUS(bk_archive_list(archive, "nothing*", 8, indexes, 8, &count), BK_STATUS_OK);
  CHECK(count == 0);
  CHECK_STATUS(bk_archive_list(archive, "\xff", 1, indexes, 8, &count), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_archive_list(archive, NULL, 0, NULL, 8, &count), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_list(archive, NULL, 0, indexes, 8, NULL), BK_STATUS_NULL_POINTER);
  bk_archive_free(archive);
}

/* A local header that disagrees with its central record: refused at open by default, as
   bk_extract refuses it; with BK_LOCAL_HEADERS_ON_FIRST_READ, the archive opens and that entry's
   reads fail, every time, and no other's. */
static void test_local_headers_at_open_or_on_first_read(void) {
  unsigned char zip[sizeof zip_good];
  char path[128];
  bk_archive *archive = NULL;
  bk_archive_options options;
  size_t index = 0, written = 0;
  unsigned char out[3100];
  memcpy(zip, zip_good, sizeof zip);
  for (size_t at = 30; at + 10 <= sizeof zip; at++) {
    if (memcmp(zip + at, "readme.txt", 10) == 0 && memcmp(zip + at - 30, "PK\x03\x04", 4) == 0) {
      zip[at] = 'R'; /* the local name only */
      break;
    }
  }
  snprintf(path, sizeof path, "%s/local.zip", workdir);
  write_file(path, zip, sizeof zip);
  for (int holding = 0; holding < 2; holding++) {
    CHECK_STATUS(bk_archive_options_default(&options), BK_STATUS_OK);
    CHECK(options.local_headers == BK_LOCAL_HEADERS_AT_OPEN);
    options.holding = holding ? BK_ARCHIVE_MAP : BK_ARCHIVE_READ;
    CHECK_STATUS(bk_archive_open(path, &options, &archive), BK_STATUS_ARCHIVE_MALFORMED);
    CHECK(archive == NULL);
    options.local_headers = BK_LOCAL_HEADERS_ON_FIRST_READ;
    CHECK_STATUS(bk_archive_open(path, &options, &archive), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_find(archive, "readme.txt", 10, &index), BK_STATUS_OK);
    for (int twice = 0; twice < 2; twice++)
      CHECK_STATUS(bk_archive_read(archive, index, out, sizeof out, &written), BK_STATUS_ARCHIVE_MALFORMED);
    CHECK_STATUS(bk_archive_find(archive, "assets/app.js", 13, &index), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_read(archive, index, out, sizeof out, &written), BK_STATUS_OK);
    CHECK(written == 3100);
    bk_archive_free(archive);
    options.local_headers = 9;
    CHECK_STATUS(bk_archive_open(path, &options, &archive), BK_STATUS_INVALID_ARGUMENT);
  }
}

/* Issue 26: bk_archive_verify checks every entry, writing nothing: OK on a good archive; on one
   with a damaged entry, that entry's status and index, and the count of failures. */
static void test_verify_checks_every_entry(void) {
  static unsigned char damaged[sizeof zip_good];
  bk_archive *archive = open_bytes("verify.zip", zip_good, sizeof zip_good);
  size_t failed = 99, first = 99, cd = 0;
  for (uint32_t threads = 0; threads < 3; threads++) {
    CHECK_STATUS(bk_archive_verify(archive, threads, &failed, &first), BK_STATUS_OK);
    CHECK(failed == 0 && first == SIZE_MAX);
  }
  CHECK_STATUS(bk_archive_verify(NULL, 0, &failed, &first), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_verify(archive, 0, NULL, &first), BK_STATUS_NULL_POINTER);
  bk_archive_free(archive);
  /* The first entry's CRC, wrong in both headers: the bytes are intact, the check fails. */
  memcpy(damaged, zip_good, sizeof damaged);
  cd = (size_t)damaged[sizeof damaged - 6] | (size_t)damaged[sizeof damaged - 5] << 8;
  damaged[14] ^= 0xff, damaged[cd + 16] ^= 0xff;
  archive = open_bytes("verify-damaged.zip", damaged, sizeof damaged);
  CHECK_STATUS(bk_archive_verify(archive, 2, &failed, &first), BK_STATUS_CRC_MISMATCH);
  CHECK(failed == 1 && first == 0);
  bk_archive_free(archive);
}

/* Every compression method bufkit reads (Deflate64, bzip2, LZMA, Zstandard, XZ), from the
   fixture the Rust tests check too: the same text once per method, read whole, streamed,
   verified and extracted, each equal to the others. */
static void test_every_compression_method(void) {
  static const struct {
    const char *name;
    uint32_t method;
  } files[] = {{"deflate64.txt", 9}, {"bzip2.txt", 12}, {"lzma.txt", 14}, {"zstd.txt", 93}, {"xz.txt", 95}};
  static unsigned char first[20000], whole[20000], streamed[20000], extracted[20000];
  bk_archive *archive = NULL;
  bk_archive_reader *reader = NULL;
  bk_archive_entry info;
  bk_extract_report report = {.size = sizeof report};
  size_t index = 0, written = 0, total = 0, failed = 1, first_failed = 0, first_len = 0;
  char dest[128], path[256], detail[256];
  CHECK_STATUS(bk_archive_open(BUFKIT_METHODS_ZIP, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  snprintf(dest, sizeof dest, "%s/methods", workdir);
  CHECK_STATUS(bk_extract(BUFKIT_METHODS_ZIP, dest, NULL, &report, NULL, 0, detail, sizeof detail), BK_STATUS_OK);
  CHECK(report.files == 5);
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    CHECK_STATUS(bk_archive_find(archive, files[i].name, strlen(files[i].name), &index), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_entry_info(archive, index, &info), BK_STATUS_OK);
    CHECK(info.method == files[i].method && info.size == 19744);
    CHECK_STATUS(bk_archive_read(archive, index, whole, info.size, &written), BK_STATUS_OK);
    CHECK(written == info.size);
    CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
    CHECK_STATUS(read_through(reader, 1000, streamed, sizeof streamed, &total), BK_STATUS_OK);
    bk_archive_reader_free(reader);
    CHECK(total == info.size && memcmp(whole, streamed, total) == 0);
    snprintf(path, sizeof path, "%s/%s", dest, files[i].name);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) {
      CHECK(fread(extracted, 1, sizeof extracted, f) == info.size && memcmp(whole, extracted, info.size) == 0);
      fclose(f);
    }
    if (i == 0) {
      memcpy(first, whole, written);
      first_len = written;
    }
    CHECK(written == first_len && memcmp(first, whole, written) == 0);
  }
  CHECK_STATUS(bk_archive_verify(archive, 2, &failed, &first_failed), BK_STATUS_OK);
  CHECK(failed == 0);
  bk_archive_free(archive);
}

/* A cut entry of every method (its stream half its length, both headers saying so): every read
   path gives one status for it, the one bk_archive_read gives, and never IO_ERROR (no system call
   failed); a reader that failed fails every later call with the same status. */
static void test_a_cut_entry_gives_one_status_whatever_reads_it(void) {
  static unsigned char whole[20000], slice[4096];
  bk_archive *archive = NULL;
  bk_archive_reader *reader = NULL;
  size_t count = 0, written = 0, total = 0, n = 0;
  CHECK_STATUS(bk_archive_open(BUFKIT_CUT_ZIP, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  CHECK_STATUS(bk_archive_entry_count(archive, &count), BK_STATUS_OK);
  CHECK(count == 6);
  for (size_t i = 0; i < count; i++) {
    bk_status read = bk_archive_read(archive, i, whole, sizeof whole, &written);
    CHECK(read != BK_STATUS_OK && read != BK_STATUS_IO_ERROR);
    /* A slice at the start and one past where the stream is cut. */
    CHECK_STATUS(bk_archive_read_at(archive, i, 0, slice, sizeof slice, &written), read);
    CHECK_STATUS(bk_archive_read_at(archive, i, 12000, slice, sizeof slice, &written), read);
    CHECK_STATUS(bk_archive_reader_open(archive, i, &reader), BK_STATUS_OK);
    bk_status first = read_through(reader, 1000, whole, sizeof whole, &total);
    CHECK(first != BK_STATUS_OK && first != BK_STATUS_IO_ERROR);
    CHECK_STATUS(bk_archive_reader_read(reader, slice, sizeof slice, &n), first);
    CHECK_STATUS(bk_archive_reader_read(reader, slice, sizeof slice, &n), first);
    CHECK(n == 0);
    bk_archive_reader_free(reader);
    reader = NULL;
  }
  bk_archive_free(archive);
}

/* Bytes after an entry's stream, inside its compressed size, in every method (junk.zip: 128 bytes
   after each stream of methods.zip): read past by every read path, as unzip and Python read them,
   and by extraction; refused by strict extraction, which leaves nothing at the destination. */
static void test_bytes_after_a_stream_follow_one_rule(void) {
  static unsigned char whole[20000], streamed[20000], slice[1000];
  bk_archive *archive = NULL;
  bk_archive_reader *reader = NULL;
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options strict = {.size = sizeof strict, .strict = 1};
  size_t count = 0, written = 0, total = 0, failed = 1, first_failed = 0;
  char dest[128], detail[256];
  struct stat st;
  CHECK_STATUS(bk_archive_open(BUFKIT_JUNK_ZIP, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  CHECK_STATUS(bk_archive_entry_count(archive, &count), BK_STATUS_OK);
  CHECK(count == 5);
  for (size_t i = 0; i < count; i++) {
    CHECK_STATUS(bk_archive_read(archive, i, whole, sizeof whole, &written), BK_STATUS_OK);
    CHECK(written == 19744);
    CHECK_STATUS(bk_archive_reader_open(archive, i, &reader), BK_STATUS_OK);
    CHECK_STATUS(read_through(reader, 1000, streamed, sizeof streamed, &total), BK_STATUS_OK);
    bk_archive_reader_free(reader);
    reader = NULL;
    CHECK(total == written && memcmp(whole, streamed, total) == 0);
    CHECK_STATUS(bk_archive_read_at(archive, i, 19000, slice, sizeof slice, &total), BK_STATUS_OK);
    CHECK(total == 744 && memcmp(slice, whole + 19000, total) == 0);
  }
  CHECK_STATUS(bk_archive_verify(archive, 2, &failed, &first_failed), BK_STATUS_OK);
  CHECK(failed == 0);
  bk_archive_free(archive);
  snprintf(dest, sizeof dest, "%s/junk", workdir);
  CHECK_STATUS(bk_extract(BUFKIT_JUNK_ZIP, dest, NULL, &report, NULL, 0, detail, sizeof detail), BK_STATUS_OK);
  CHECK(report.files == 5);
  snprintf(dest, sizeof dest, "%s/junk-strict", workdir);
  CHECK_STATUS(bk_extract(BUFKIT_JUNK_ZIP, dest, &strict, &report, NULL, 0, detail, sizeof detail),
               BK_STATUS_ARCHIVE_MALFORMED);
  CHECK(strstr(detail, "bytes follow") != NULL && strstr(detail, "strict") != NULL);
  CHECK(stat(dest, &st) != 0);
}

/* bk_archive_read_at: every slice equals the same bytes of the whole entry (read by
   bk_archive_read, another decoder); the end reads short, past it is OUT_OF_RANGE; checkpoints
   export and import into another open, and are refused for another entry or when altered. */
static void test_slices_of_any_entry(void) {
  static unsigned char whole[5 << 20], slice[70000];
  bk_archive *archive = NULL, *again = NULL;
  bk_buffer *exported = NULL;
  const uint8_t *bytes = NULL;
  size_t len = 0, written = 1, index = 0, stored = 0, size = 0;
  uint64_t state = 1;
  CHECK_STATUS(bk_archive_open(BUFKIT_BIG_ZIP, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  CHECK_STATUS(bk_archive_find(archive, "log.txt", 7, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_find(archive, "raw.bin", 7, &stored), BK_STATUS_OK);
  for (int which = 0; which < 2; which++) {
    size_t e = which == 0 ? index : stored;
    CHECK_STATUS(bk_archive_read(archive, e, whole, sizeof whole, &size), BK_STATUS_OK);
    for (int i = 0; i < 40; i++) {
      uint64_t offset;
      size_t want = (size_t[]){1, 100, 4096, 70000}[i % 4];
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      offset = i == 0 ? 0 : i == 1 ? size - 5 : (state >> 20) % size;
      CHECK_STATUS(bk_archive_read_at(archive, e, offset, slice, want, &written), BK_STATUS_OK);
      CHECK(written == (offset + want <= size ? want : size - offset));
      CHECK(memcmp(slice, whole + offset, written) == 0);
    }
    CHECK_STATUS(bk_archive_read_at(archive, e, size, slice, 10, &written), BK_STATUS_OK);
    CHECK(written == 0);
    CHECK_STATUS(bk_archive_read_at(archive, e, (uint64_t)size + 1, slice, 10, &written), BK_STATUS_OUT_OF_RANGE);
    CHECK(written == 0);
  }
  CHECK_STATUS(bk_archive_read_at(archive, 99, 0, slice, 10, &written), BK_STATUS_OUT_OF_RANGE);
  CHECK_STATUS(bk_archive_read_at(archive, index, 0, NULL, 10, &written), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_read_at(NULL, index, 0, slice, 10, &written), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_set_checkpoint_limits(archive, 64 << 10, 16 << 20), BK_STATUS_OK);
  /* Export, import into a second open, read there. */
  CHECK_STATUS(bk_buffer_new(NULL, &exported), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_checkpoints_export(archive, index, exported), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_checkpoints_export(archive, stored, exported), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_buffer_data(exported, &bytes, &len), BK_STATUS_OK);
  CHECK(len > 32768);
  CHECK_STATUS(bk_archive_open(BUFKIT_BIG_ZIP, NULL, &again), BK_STATUS_OK);
  if (again && bytes) {
    CHECK_STATUS(bk_archive_checkpoints_import(again, stored, bytes, len), BK_STATUS_CHECKPOINTS_REFUSED);
    CHECK_STATUS(bk_archive_checkpoints_import(again, index, bytes, len - 1), BK_STATUS_CHECKPOINTS_REFUSED);
    CHECK_STATUS(bk_archive_checkpoints_import(again, index, bytes, len), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_read(again, index, whole, sizeof whole, &size), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_read_at(again, index, size / 2, slice, 4096, &written), BK_STATUS_OK);
    CHECK(written == 4096 && memcmp(slice, whole + size / 2, 4096) == 0);
  }
  bk_archive_free(again);
  again = NULL;
  /* Imported into twin.zip (the same data, sizes and CRC-32, compressed otherwise): accepted on
     their face, then every slice is right or CHECKPOINTS_REFUSED, never other bytes with OK; a
     refusal drops them, and the reads after it build the entry's own. */
  CHECK_STATUS(bk_archive_open(BUFKIT_TWIN_ZIP, NULL, &again), BK_STATUS_OK);
  if (again && bytes) {
    int refused = 0;
    CHECK_STATUS(bk_archive_read(again, 0, whole, sizeof whole, &size), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_checkpoints_import(again, 0, bytes, len), BK_STATUS_OK);
    for (int i = 0; i < 40; i++) {
      uint64_t offset = (uint64_t)size / 40 * (uint64_t)i + 777;
      bk_status status = bk_archive_read_at(again, 0, offset, slice, 4096, &written);
      if (status == BK_STATUS_CHECKPOINTS_REFUSED) {
        refused++;
        continue;
      }
      CHECK_STATUS(status, BK_STATUS_OK);
      CHECK(written == 4096 && memcmp(slice, whole + offset, 4096) == 0);
    }
    CHECK(refused == 1);
  }
  bk_buffer_free(exported);
  bk_archive_free(again);
  bk_archive_free(archive);
}

/* Inflating on several cores changes nothing but the time: big.zip's log (two chunks) and every
   entry of cut.zip read whole and streamed with BK_PARALLEL_INFLATE_ALWAYS as with NEVER, bytes
   and statuses; extraction likewise. An unknown mode is refused. */
static void test_parallel_inflate_changes_nothing_but_the_time(void) {
  static unsigned char serial[5 << 20], parallel[5 << 20], streamed[5 << 20];
  bk_archive *archive = NULL;
  bk_archive_reader *reader = NULL;
  size_t index = 0, size = 0, again = 0, total = 0, cores = 0, count = 0;
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options options = {.size = sizeof options, .parallel_inflate = BK_PARALLEL_INFLATE_ALWAYS};
  char dest[128], detail[256];
  CHECK_STATUS(bk_archive_open(BUFKIT_BIG_ZIP, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  CHECK_STATUS(bk_archive_set_parallel_inflate(archive, 3), BK_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(bk_archive_set_parallel_inflate(NULL, BK_PARALLEL_INFLATE_ALWAYS), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_find(archive, "log.txt", 7, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_set_parallel_inflate(archive, BK_PARALLEL_INFLATE_NEVER), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_read(archive, index, serial, sizeof serial, &size), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_cores(reader, &cores), BK_STATUS_OK);
  CHECK(cores == 1);
  CHECK_STATUS(bk_archive_reader_wait(reader), BK_STATUS_OK); /* at once: nothing to wait for */
  bk_archive_reader_free(reader);
  CHECK_STATUS(bk_archive_set_parallel_inflate(archive, BK_PARALLEL_INFLATE_ALWAYS), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_read(archive, index, parallel, sizeof parallel, &again), BK_STATUS_OK);
  CHECK(again == size && size > (4 << 20) && memcmp(serial, parallel, size) == 0);
  CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_cores(reader, &cores), BK_STATUS_OK);
  CHECK(cores >= 1);
  CHECK_STATUS(bk_archive_reader_cores(reader, NULL), BK_STATUS_NULL_POINTER);
  /* Waiting first, as a binding that reads in a critical region does, and not. */
  total = 0;
  for (size_t n = 1; n > 0; total += n) {
    if (total % 2 == 0) CHECK_STATUS(bk_archive_reader_wait(reader), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_reader_read(reader, streamed + total,
                                        total + 99991 < sizeof streamed ? 99991 : sizeof streamed - total, &n),
                 BK_STATUS_OK);
  }
  CHECK(total == size && memcmp(serial, streamed, size) == 0);
  CHECK_STATUS(bk_archive_reader_wait(reader), BK_STATUS_OK); /* at its end: nothing to wait for */
  bk_archive_reader_free(reader);
  bk_archive_free(archive);

  CHECK_STATUS(bk_archive_open(BUFKIT_CUT_ZIP, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  CHECK_STATUS(bk_archive_entry_count(archive, &count), BK_STATUS_OK);
  for (size_t i = 0; i < count; i++) {
    bk_status one, several, stream_one, stream_several;
    CHECK_STATUS(bk_archive_set_parallel_inflate(archive, BK_PARALLEL_INFLATE_NEVER), BK_STATUS_OK);
    one = bk_archive_read(archive, i, serial, sizeof serial, &size);
    CHECK_STATUS(bk_archive_reader_open(archive, i, &reader), BK_STATUS_OK);
    stream_one = read_through(reader, 1000, streamed, sizeof streamed, &total);
    bk_archive_reader_free(reader);
    CHECK_STATUS(bk_archive_set_parallel_inflate(archive, BK_PARALLEL_INFLATE_ALWAYS), BK_STATUS_OK);
    several = bk_archive_read(archive, i, parallel, sizeof parallel, &size);
    CHECK_STATUS(bk_archive_reader_open(archive, i, &reader), BK_STATUS_OK);
    stream_several = read_through(reader, 1000, streamed, sizeof streamed, &total);
    /* The failure sticks, and a wait says it too. */
    CHECK_STATUS(bk_archive_reader_wait(reader), stream_several);
    bk_archive_reader_free(reader);
    CHECK(one != BK_STATUS_OK && one == several);
    CHECK(stream_one == stream_several);
  }
  bk_archive_free(archive);

  snprintf(dest, sizeof dest, "%s/parallel", workdir);
  CHECK_STATUS(bk_extract(BUFKIT_BIG_ZIP, dest, &options, &report, NULL, 0, detail, sizeof detail), BK_STATUS_OK);
  CHECK(report.files == 2);
  snprintf(dest, sizeof dest, "%s/parallel-junk", workdir);
  options.strict = 1;
  CHECK_STATUS(bk_extract(BUFKIT_JUNK_ZIP, dest, &options, &report, NULL, 0, detail, sizeof detail),
               BK_STATUS_ARCHIVE_MALFORMED);
  snprintf(dest, sizeof dest, "%s/parallel-bad", workdir);
  options.strict = 0;
  options.parallel_inflate = 3;
  CHECK_STATUS(bk_extract(BUFKIT_BIG_ZIP, dest, &options, &report, NULL, 0, detail, sizeof detail),
               BK_STATUS_INVALID_ARGUMENT);
}

int main(void) {
  int rc;
  snprintf(workdir, sizeof workdir, "%s/bufkit-c-archive-XXXXXX", temp_root());
  if (!mkdtemp(workdir)) return 1;
  RUN(test_entries_are_found_and_read);
  RUN(test_bad_input_is_refused);
#ifndef _WIN32
  RUN(test_a_fifo_is_refused_without_waiting_for_a_writer);
#endif
  RUN(test_pooled_reads);
  RUN(test_readers);
  RUN(test_listing);
  RUN(test_local_headers_at_open_or_on_first_read);
  RUN(test_a_reader_reports_a_bad_crc_at_the_end);
  RUN(test_verify_checks_every_entry);
  RUN(test_every_compression_method);
  RUN(test_slices_of_any_entry);
  RUN(test_a_cut_entry_gives_one_status_whatever_reads_it);
  RUN(test_bytes_after_a_stream_follow_one_rule);
  RUN(test_parallel_inflate_changes_nothing_but_the_time);
  rc = REPORT();
  if (remove_tree(workdir) != 0) return 1;
  return rc;
}

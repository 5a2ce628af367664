/* bk_source: an archive's bytes served by the caller, read as a file's are, every check and
 * refusal the same; a source that fails, answers short, lies or changes its answers gives a
 * status, and its release is called exactly once. */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include "archives.h"
#include "check.h"
#include "posix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char workdir[64];

/* How a served archive misbehaves. */
enum misbehaviour {
  HONEST,
  FAILING,      /* every read fails with -EIO */
  FAILING_BARE, /* every read fails with a negative value that is no errno */
  DRIBBLING,    /* at most 7 bytes a call */
  BOASTING,     /* says it read one byte more than asked */
  FICKLE,       /* every byte flipped: the archive's answers change from one call to the next */
  ALTERED,      /* the byte at `altered_at` flipped: the archive changed after it was checked */
};

/* An archive served from memory or from a file descriptor (pread). */
typedef struct {
  const unsigned char *bytes;
  int fd;
  uint64_t real_length;
  _Atomic int misbehaving; /* an enum misbehaviour, switched by the test after opening */
  uint64_t altered_at;
  atomic_long calls;
  atomic_int released;
} served;

static int64_t served_read_at(void *ctx, uint64_t offset, uint8_t *buf, size_t len) {
  served *s = ctx;
  int64_t n;
  atomic_fetch_add(&s->calls, 1);
  switch (atomic_load(&s->misbehaving)) {
    case FAILING:
      return -EIO;
    case FAILING_BARE:
      return -1000000;
    case DRIBBLING:
      if (len > 7) len = 7;
      break;
    default:
      break;
  }
  if (offset >= s->real_length) return 0;
  if (len > s->real_length - offset) len = (size_t)(s->real_length - offset);
  if (s->bytes) {
    memcpy(buf, s->bytes + offset, len);
    n = (int64_t)len;
  } else {
    ssize_t got = pread(s->fd, buf, len, (off_t)offset);
    if (got < 0) return -errno;
    n = got;
  }
  if (atomic_load(&s->misbehaving) == FICKLE)
    for (int64_t i = 0; i < n; i++) buf[i] ^= 0x5a;
  if (atomic_load(&s->misbehaving) == ALTERED && s->altered_at >= offset && s->altered_at - offset < (uint64_t)n)
    buf[s->altered_at - offset] ^= 0x20;
  if (atomic_load(&s->misbehaving) == BOASTING) return n + 1;
  return n;
}

static void served_release(void *ctx) { atomic_fetch_add(&((served *)ctx)->released, 1); }

static bk_source source_of(served *s) {
  bk_source source = {.length = s->real_length, .read_at = served_read_at, .release = served_release, .ctx = s};
  return source;
}

static served in_memory(const unsigned char *bytes, size_t len) {
  served s = {.bytes = bytes, .fd = -1, .real_length = len};
  return s;
}

/* Reads entry `name` of `archive` whole into `out` (room for `cap`); its status. */
static bk_status read_named(bk_archive *archive, const char *name, unsigned char *out, size_t cap, size_t *len) {
  size_t index = 0;
  bk_status status = bk_archive_find(archive, name, strlen(name), &index);
  if (status != BK_STATUS_OK) return status;
  return bk_archive_read(archive, index, out, cap, len);
}

static void test_a_source_reads_as_the_file_does(void) {
  static unsigned char from_file[5 << 20], from_source[5 << 20];
  size_t a = 0, b = 0;
  bk_archive *file = NULL, *archive = NULL;
  served s = {.fd = open(BUFKIT_BIG_ZIP, O_RDONLY)};
  struct stat st;
  CHECK(s.fd >= 0 && fstat(s.fd, &st) == 0);
  s.real_length = (uint64_t)st.st_size;
  bk_source source = source_of(&s);
  CHECK_STATUS(bk_archive_open(BUFKIT_BIG_ZIP, NULL, &file), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_open_source(&source, NULL, &archive), BK_STATUS_OK);
  if (!file || !archive) return;
  CHECK_STATUS(read_named(file, "log.txt", from_file, sizeof from_file, &a), BK_STATUS_OK);
  CHECK_STATUS(read_named(archive, "log.txt", from_source, sizeof from_source, &b), BK_STATUS_OK);
  CHECK(a == b && a > (4 << 20) && memcmp(from_file, from_source, a) == 0);
  /* On several cores too: the source is read from the decoder's threads. */
  CHECK_STATUS(bk_archive_set_parallel_inflate(archive, BK_PARALLEL_INFLATE_ALWAYS), BK_STATUS_OK);
  memset(from_source, 0, sizeof from_source);
  CHECK_STATUS(read_named(archive, "log.txt", from_source, sizeof from_source, &b), BK_STATUS_OK);
  CHECK(a == b && memcmp(from_file, from_source, a) == 0);
  CHECK(atomic_load(&s.released) == 0);
  bk_archive_free(archive);
  CHECK(atomic_load(&s.released) == 1);
  bk_archive_free(file);
  close(s.fd);
}

static void test_a_reader_keeps_the_source_until_it_is_freed(void) {
  served s = in_memory(zip_good, sizeof zip_good);
  bk_source source = source_of(&s);
  bk_archive *archive = NULL;
  bk_archive_reader *reader = NULL;
  size_t index = 0, got = 0;
  unsigned char out[64];
  CHECK_STATUS(bk_archive_open_source(&source, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  CHECK_STATUS(bk_archive_find(archive, "readme.txt", 10, &index), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_reader_open(archive, index, &reader), BK_STATUS_OK);
  bk_archive_free(archive);
  CHECK(atomic_load(&s.released) == 0);
  CHECK_STATUS(bk_archive_reader_read(reader, out, sizeof out, &got), BK_STATUS_OK);
  CHECK(got == 17 && memcmp(out, "hello from a zip\n", 17) == 0);
  bk_archive_reader_free(reader);
  CHECK(atomic_load(&s.released) == 1);
}

static void test_answers_a_byte_at_a_time_are_read_on(void) {
  served s = in_memory(zip_good, sizeof zip_good);
  bk_source source = source_of(&s);
  bk_archive *archive = NULL;
  unsigned char out[64];
  size_t got = 0;
  atomic_store(&s.misbehaving, DRIBBLING);
  CHECK_STATUS(bk_archive_open_source(&source, NULL, &archive), BK_STATUS_OK);
  if (!archive) return;
  CHECK_STATUS(read_named(archive, "readme.txt", out, sizeof out, &got), BK_STATUS_OK);
  CHECK(got == 17 && memcmp(out, "hello from a zip\n", 17) == 0);
  bk_archive_free(archive);
  CHECK(atomic_load(&s.released) == 1);
}

static void test_a_misbehaving_source_gives_a_status(void) {
  static const struct {
    int misbehaviour;
    bk_status at_open, on_read;
  } cases[] = {
      {FAILING, BK_STATUS_IO_ERROR, BK_STATUS_IO_ERROR},
      {FAILING_BARE, BK_STATUS_IO_ERROR, BK_STATUS_IO_ERROR},
      {BOASTING, BK_STATUS_IO_ERROR, BK_STATUS_IO_ERROR},
      {FICKLE, BK_STATUS_ARCHIVE_MALFORMED, BK_STATUS_ARCHIVE_MALFORMED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    unsigned char out[64];
    size_t got = 99;
    bk_archive *archive = (bk_archive *)1;
    /* From the first read: the open fails, and the source is released before it returns. */
    served s = in_memory(zip_good, sizeof zip_good);
    bk_source source = source_of(&s);
    atomic_store(&s.misbehaving, cases[i].misbehaviour);
    CHECK_STATUS(bk_archive_open_source(&source, NULL, &archive), cases[i].at_open);
    CHECK(archive == NULL && atomic_load(&s.released) == 1);
    /* After a good open (local headers checked on first read): the entry's read fails. */
    served t = in_memory(zip_good, sizeof zip_good);
    bk_source later = source_of(&t);
    bk_archive_options options;
    CHECK_STATUS(bk_archive_options_default(&options), BK_STATUS_OK);
    options.local_headers = BK_LOCAL_HEADERS_ON_FIRST_READ;
    CHECK_STATUS(bk_archive_open_source(&later, &options, &archive), BK_STATUS_OK);
    if (!archive) continue;
    atomic_store(&t.misbehaving, cases[i].misbehaviour);
    CHECK_STATUS(read_named(archive, "readme.txt", out, sizeof out, &got), cases[i].on_read);
    CHECK(got == 0);
    bk_archive_free(archive);
    CHECK(atomic_load(&t.released) == 1);
  }
}

/* bk_read_at_fn's contract for slices: a source whose bytes change after an entry was checked
 * gives a status from bk_archive_read_at, or the entry's own bytes where the change lies outside
 * what the slice reads; never other bytes with BK_STATUS_OK (issue 51). */
static void test_slices_of_a_source_that_changed_are_a_status_never_other_bytes(void) {
  static unsigned char whole[5 << 20];
  unsigned char slice[4096];
  size_t len = 0, index = 0, written = 0;
  int refused = 0, read = 0;
  struct stat st;
  int fd = open(BUFKIT_BIG_ZIP, O_RDONLY);
  CHECK(fd >= 0 && fstat(fd, &st) == 0);
  for (int k = 1; k < 8; k++) {
    served s = {.fd = fd, .real_length = (uint64_t)st.st_size, .altered_at = (uint64_t)st.st_size * (uint64_t)k / 9};
    bk_source source = source_of(&s);
    bk_archive *archive = NULL;
    CHECK_STATUS(bk_archive_open_source(&source, NULL, &archive), BK_STATUS_OK);
    if (!archive) break;
    CHECK_STATUS(read_named(archive, "log.txt", whole, sizeof whole, &len), BK_STATUS_OK);
    CHECK_STATUS(bk_archive_find(archive, "log.txt", 7, &index), BK_STATUS_OK);
    /* The first slice builds the checkpoints from the bytes as they are. */
    CHECK_STATUS(bk_archive_read_at(archive, index, 0, slice, sizeof slice, &written), BK_STATUS_OK);
    atomic_store(&s.misbehaving, ALTERED);
    for (uint64_t offset = 17; offset + sizeof slice <= len; offset += len / 29) {
      bk_status status = bk_archive_read_at(archive, index, offset, slice, sizeof slice, &written);
      if (status == BK_STATUS_OK) {
        CHECK(written == sizeof slice && memcmp(slice, whole + offset, sizeof slice) == 0);
        read++;
      } else {
        CHECK(status == BK_STATUS_CRC_MISMATCH || status == BK_STATUS_CORRUPT || status == BK_STATUS_TRUNCATED ||
              status == BK_STATUS_SIZE_MISMATCH);
        refused++;
      }
    }
    bk_archive_free(archive);
  }
  CHECK(refused > 0 && read > 0);
  close(fd);
}

static void test_a_length_that_lies_is_refused(void) {
  unsigned char longer[sizeof zip_good + 100];
  bk_archive *archive = NULL;
  /* Longer than the bytes served: the source ends before its length, a failure of the source. */
  served s = in_memory(zip_good, sizeof zip_good);
  bk_source source = source_of(&s);
  source.length = sizeof zip_good + 100;
  CHECK_STATUS(bk_archive_open_source(&source, NULL, &archive), BK_STATUS_IO_ERROR);
  CHECK(archive == NULL && atomic_load(&s.released) == 1);
  /* Shorter: the end record is cut. */
  served t = in_memory(zip_good, sizeof zip_good);
  bk_source shorter = source_of(&t);
  shorter.length = sizeof zip_good - 1;
  CHECK_STATUS(bk_archive_open_source(&shorter, NULL, &archive), BK_STATUS_ARCHIVE_MALFORMED);
  CHECK(archive == NULL && atomic_load(&t.released) == 1);
  /* Zero, and as long as the largest offset: refused, never a crash. */
  served u = in_memory(zip_good, sizeof zip_good);
  bk_source huge = source_of(&u);
  huge.length = UINT64_MAX;
  CHECK(bk_archive_open_source(&huge, NULL, &archive) != BK_STATUS_OK && archive == NULL);
  huge.length = 0;
  CHECK(bk_archive_open_source(&huge, NULL, &archive) != BK_STATUS_OK && archive == NULL);
  CHECK(atomic_load(&u.released) == 2);
  /* The same bytes followed by 100 zeros, served whole: an archive with data after it. */
  memcpy(longer, zip_good, sizeof zip_good);
  memset(longer + sizeof zip_good, 0, 100);
  served v = in_memory(longer, sizeof longer);
  bk_source padded = source_of(&v);
  CHECK(bk_archive_open_source(&padded, NULL, &archive) != BK_STATUS_PANIC);
  bk_archive_free(archive);
  CHECK(atomic_load(&v.released) == 1);
}

static void test_bad_arguments(void) {
  served s = in_memory(zip_good, sizeof zip_good);
  bk_source source = source_of(&s);
  bk_archive *archive = NULL;
  bk_archive_options options;
  CHECK_STATUS(bk_archive_open_source(NULL, NULL, &archive), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_archive_open_source(&source, NULL, NULL), BK_STATUS_NULL_POINTER);
  CHECK(atomic_load(&s.released) == 0); /* refused before the source was taken */
  CHECK_STATUS(bk_archive_options_default(&options), BK_STATUS_OK);
  options.holding = BK_ARCHIVE_MAP;
  CHECK_STATUS(bk_archive_open_source(&source, &options, &archive), BK_STATUS_INVALID_ARGUMENT);
  CHECK(atomic_load(&s.released) == 1);
  source.read_at = NULL;
  CHECK_STATUS(bk_archive_open_source(&source, NULL, &archive), BK_STATUS_INVALID_ARGUMENT);
  CHECK(archive == NULL && atomic_load(&s.released) == 2);
}

static int exists(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0;
}

static void test_extraction_from_a_source(void) {
  char dest[160], file[200];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_failure failure;
  bk_extract_options options = {.size = sizeof options, .threads = 2};
  served s = in_memory(zip_good, sizeof zip_good);
  bk_source source = source_of(&s);
  snprintf(dest, sizeof dest, "%s/out", workdir);
  CHECK_STATUS(bk_extract_source(&source, dest, &options, &report, &failure), BK_STATUS_OK);
  CHECK(report.files == 2 && atomic_load(&s.released) == 1);
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  CHECK(exists(file));
  /* A source that fails midway: a status, the failure described, nothing at DEST. */
  for (int m = FAILING; m <= FICKLE; m++) {
    served t = in_memory(zip_good, sizeof zip_good);
    bk_source bad = source_of(&t);
    atomic_store(&t.misbehaving, m);
    snprintf(dest, sizeof dest, "%s/bad%d", workdir, m);
    bk_status status = bk_extract_source(&bad, dest, &options, &report, &failure);
    if (m == DRIBBLING) {
      CHECK_STATUS(status, BK_STATUS_OK);
      continue;
    }
    CHECK(status == BK_STATUS_IO_ERROR || status == BK_STATUS_ARCHIVE_MALFORMED);
    CHECK(failure.detail[0] != 0);
    CHECK(!exists(dest) && atomic_load(&t.released) == 1);
  }
  /* The whole of big.zip, its large entry on several cores, from a pread source. */
  {
    served p = {.fd = open(BUFKIT_BIG_ZIP, O_RDONLY)};
    struct stat st;
    CHECK(p.fd >= 0 && fstat(p.fd, &st) == 0);
    p.real_length = (uint64_t)st.st_size;
    bk_source big = source_of(&p);
    bk_extract_options always = {.size = sizeof always, .threads = 2, .parallel_inflate = BK_PARALLEL_INFLATE_ALWAYS};
    snprintf(dest, sizeof dest, "%s/big", workdir);
    CHECK_STATUS(bk_extract_source(&big, dest, &always, &report, &failure), BK_STATUS_OK);
    CHECK(report.files == 2 && report.bytes > (4 << 20) && atomic_load(&p.released) == 1);
    close(p.fd);
  }
  /* NULL: refused, the failure zeroed; a source given with a NULL destination is released. */
  memset(&failure, 0xff, sizeof failure);
  CHECK_STATUS(bk_extract_source(NULL, dest, NULL, NULL, &failure), BK_STATUS_NULL_POINTER);
  CHECK(failure.os_error == 0 && failure.detail[0] == 0);
  served u = in_memory(zip_good, sizeof zip_good);
  bk_source unused = source_of(&u);
  CHECK_STATUS(bk_extract_source(&unused, NULL, NULL, NULL, NULL), BK_STATUS_NULL_POINTER);
  CHECK(atomic_load(&u.released) == 1);
}

int main(void) {
  int rc;
  snprintf(workdir, sizeof workdir, "%s/bufkit-c-source-XXXXXX", temp_root());
  if (!mkdtemp(workdir)) return 1;
  RUN(test_a_source_reads_as_the_file_does);
  RUN(test_a_reader_keeps_the_source_until_it_is_freed);
  RUN(test_answers_a_byte_at_a_time_are_read_on);
  RUN(test_a_misbehaving_source_gives_a_status);
  RUN(test_slices_of_a_source_that_changed_are_a_status_never_other_bytes);
  RUN(test_a_length_that_lies_is_refused);
  RUN(test_bad_arguments);
  RUN(test_extraction_from_a_source);
  rc = REPORT();
  if (remove_tree(workdir) != 0) return 1;
  return rc;
}

/* The bk_extract C ABI: a valid archive, a hostile one (nothing left behind), options, progress,
 * cancellation, bad arguments. */
#define _POSIX_C_SOURCE 200809L
#include "archives.h"
#include "bufkit.h"
#include "check.h"
#include "posix.h"
#include "zips.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char workdir[256];

static int count_entries(const char *dir) {
  int n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  if (!d) return -1;
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

static unsigned long progress_calls;
static void on_progress(void *user, uint64_t done, uint64_t total, uint64_t bytes, uint64_t bytes_total) {
  (void)done;
  (void)total;
  (void)bytes;
  (void)bytes_total;
  __atomic_add_fetch((unsigned long *)user, 1, __ATOMIC_RELAXED);
}

/* The last report seen, and how many came after a report of every entry done. */
static uint64_t last_done, last_total;
static unsigned long calls_after_last;
static void on_progress_record(void *user, uint64_t done, uint64_t total, uint64_t bytes, uint64_t bytes_total) {
  (void)bytes;
  (void)bytes_total;
  if (last_total && last_done == last_total) calls_after_last++;
  last_done = done, last_total = total;
  (*(unsigned long *)user)++; /* calls never overlap once an interval is set */
}

/* With an interval, progress is the first report, at most one per interval, and the last one,
   which nothing follows. */
static void test_progress_at_an_interval(void) {
  enum { COUNT = 16 };
  char archive[300], dest[300];
  unsigned char *zip = malloc(COUNT * (1024 + 128) + 4096);
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  unsigned long calls = 0;
  snprintf(archive, sizeof archive, "%s/sixteen.zip", workdir);
  snprintf(dest, sizeof dest, "%s/sixteen", workdir);
  write_file(archive, zip, stored_zip(zip, COUNT, 1024));
  opts.threads = 2;
  opts.progress = on_progress_record, opts.progress_user_data = &calls;
  opts.progress_interval_ms = 3600 * 1000;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == COUNT);
  CHECK(calls >= 1 && calls <= 2 && last_done == COUNT && last_total == COUNT && calls_after_last == 0);
  free(zip);
}

static void test_a_valid_archive_extracts(void) {
  char archive[300], dest[300], file[400];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  const char *assets[] = {"assets/"};
  struct stat st;
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/out", workdir);
  write_file(archive, zip_good, sizeof zip_good);
  opts.threads = 2;
  opts.progress = on_progress, opts.progress_user_data = &progress_calls;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 2 && report.directories == 1 && report.skipped == 0);
  CHECK(progress_calls == 2);
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  CHECK(stat(file, &st) == 0 && st.st_size == 17);
  /* only: the assets directory, replacing the first extraction */
  opts.only = assets, opts.only_len = 1;
  opts.mode = BK_EXTRACT_REPLACE;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 1 && report.skipped == 1);
  CHECK(stat(file, &st) != 0); /* the destination was replaced as a whole */
}

/* A thread count far above what any machine has (UINT32_MAX) is a bound, not an order: replacing
   an existing tree with it returns promptly with OK (the header caps threads at 256), rather than
   trying to start four billion removers. */
static void test_a_huge_thread_count_replaces_promptly(void) {
  char archive[300], dest[300];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  unsigned char *zip = malloc(16 * (1024 + 128) + 4096);
  struct timespec t0, t1;
  snprintf(archive, sizeof archive, "%s/threads.zip", workdir);
  snprintf(dest, sizeof dest, "%s/threads", workdir);
  write_file(archive, zip, stored_zip(zip, 16, 1024));
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  opts.mode = BK_EXTRACT_REPLACE;
  opts.threads = UINT32_MAX;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  CHECK(report.files == 16);
  /* Not a timing test: a bound so loose only a hang (or billions of threads) crosses it. */
  CHECK(t1.tv_sec - t0.tv_sec < 20);
  free(zip);
}

/* bk_extract_options is size-first: an older program's smaller struct is refused below the
   minimum, a newer program's larger one is accepted when what this library does not know is
   zero, and refused when it is not (an option asked for is never silently dropped). */
static void test_options_are_size_first(void) {
  char archive[300], dest[300];
  bk_extract_report report = {.size = sizeof report};
  struct {
    bk_extract_options known;
    uint64_t newer[2];
  } grown = {.known = {.size = sizeof grown, .threads = 1}};
  bk_extract_options opts = {.size = BK_EXTRACT_OPTIONS_MIN_SIZE - 8};
  const char *patterns[] = {"readme.txt", NULL};
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/sized", workdir);
  /* Two fields (parallel_inflate, portable_names) past the minimum: a program built before them
     passes the minimum. */
  CHECK(sizeof(bk_extract_options) == BK_EXTRACT_OPTIONS_MIN_SIZE + 16);
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
  {
    bk_extract_options older = {.size = BK_EXTRACT_OPTIONS_MIN_SIZE, .threads = 1};
    char older_dest[320];
    older.parallel_inflate = 7; /* past the caller's size: never read */
    snprintf(older_dest, sizeof older_dest, "%s-older", dest);
    CHECK_STATUS(bk_extract(archive, older_dest, &older, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
    CHECK(report.files == 2);
  }
  grown.newer[1] = 1;
  CHECK_STATUS(bk_extract(archive, dest, &grown.known, &report, NULL, 0, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
  CHECK(access(dest, F_OK) != 0);
  opts = (bk_extract_options){.size = sizeof opts, .only = patterns, .only_len = 2};
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_NULL_POINTER);
  opts.only = NULL;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_NULL_POINTER);
  opts.max_ratio = 1.0 / 0.0;
  opts.only_len = 0;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
  CHECK(access(dest, F_OK) != 0);
  grown.newer[1] = 0;
  CHECK_STATUS(bk_extract(archive, dest, &grown.known, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 2);
}

/* portable_names: a name Windows reads as a device is refused, naming it; without the option it
   extracts (not on Windows, which refuses it always). zip_evil with "../evil.txt" renamed
   "aux/con.txt" (as long: every offset stays). */
static void test_portable_names_refuses_what_windows_reads_otherwise(void) {
  char archive[300], dest[300], entry[64];
  unsigned char zip[sizeof zip_evil];
  bk_extract_options opts = {.size = sizeof opts};
  bk_extract_report report = {.size = sizeof report};
  memcpy(zip, zip_evil, sizeof zip);
  for (size_t at = 0; at + 11 <= sizeof zip; at++)
    if (memcmp(zip + at, "../evil.txt", 11) == 0) memcpy(zip + at, "aux/con.txt", 11);
  snprintf(archive, sizeof archive, "%s/device.zip", workdir);
  snprintf(dest, sizeof dest, "%s/device-out", workdir);
  write_file(archive, zip, sizeof zip);
  opts.portable_names = 1;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, entry, sizeof entry, NULL, 0), BK_STATUS_UNSAFE_NAME);
  CHECK(strcmp(entry, "aux/con.txt") == 0);
  CHECK(access(dest, F_OK) != 0);
  opts.portable_names = 0;
#ifdef _WIN32
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, entry, sizeof entry, NULL, 0), BK_STATUS_UNSAFE_NAME);
  CHECK(access(dest, F_OK) != 0);
#else
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 2);
#endif
  remove_tree(dest);
  remove(archive);
}

static void test_a_hostile_archive_leaves_nothing(void) {
  char archive[300], dest[300], entry[64], detail[256];
  bk_extract_report report = {.size = sizeof report};
  snprintf(archive, sizeof archive, "%s/evil.zip", workdir);
  snprintf(dest, sizeof dest, "%s/evil-out", workdir);
  write_file(archive, zip_evil, sizeof zip_evil);
  CHECK_STATUS(bk_extract(archive, dest, NULL, &report, entry, sizeof entry, detail, sizeof detail),
               BK_STATUS_UNSAFE_NAME);
  CHECK(strcmp(entry, "../evil.txt") == 0);
  CHECK(strstr(detail, "evil.txt") != NULL);
  CHECK(access(dest, F_OK) != 0);
  CHECK(count_entries(workdir) == 3); /* good.zip, out, evil.zip: no staging left */
  /* a tiny entry buffer truncates, still NUL-terminated */
  CHECK_STATUS(bk_extract(archive, dest, NULL, &report, entry, 4, NULL, 0), BK_STATUS_UNSAFE_NAME);
  CHECK(strcmp(entry, "../") == 0);
  /* a call refused before any entry is read leaves both texts empty, never stale */
  memset(entry, 'x', sizeof entry);
  memset(detail, 'x', sizeof detail);
  CHECK_STATUS(bk_extract(NULL, dest, NULL, &report, entry, sizeof entry, detail, sizeof detail),
               BK_STATUS_NULL_POINTER);
  CHECK(entry[0] == 0 && detail[0] == 0);
}

static void test_missing_and_truncated_archives(void) {
  char archive[300], dest[300];
  bk_extract_report report = {.size = sizeof report};
  snprintf(archive, sizeof archive, "%s/cut.zip", workdir);
  snprintf(dest, sizeof dest, "%s/cut-out", workdir);
  write_file(archive, zip_good, sizeof zip_good / 2);
  CHECK_STATUS(bk_extract(archive, dest, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_ARCHIVE_MALFORMED);
  CHECK_STATUS(bk_extract("/nonexistent/archive.zip", dest, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_IO_ERROR);
  CHECK(access(dest, F_OK) != 0);
  unlink(archive);
}

static void test_limits_and_cancellation(void) {
  char archive[300], dest[300];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  bk_cancel *cancel = NULL;
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/limited", workdir);
  opts.quota = 100;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_LIMIT_EXCEEDED);
  opts.quota = 0;
  opts.max_ratio = -1.0;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
  opts.max_ratio = 2.0;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_LIMIT_EXCEEDED);
  opts.max_ratio = 0;
  CHECK_STATUS(bk_cancel_new(&cancel), BK_STATUS_OK);
  opts.cancel = cancel;
  CHECK_STATUS(bk_cancel_request(cancel), BK_STATUS_OK);
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_CANCELLED);
  CHECK(access(dest, F_OK) != 0);
  bk_cancel_free(cancel);
  bk_cancel_free(NULL);
}

static void test_incremental(void) {
  char archive[300], dest[300];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/inc", workdir);
  opts.incremental = 1;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 2 && report.reused == 0);
  /* The second run replaces the first: create mode (the default) refuses, untouched. */
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_DESTINATION_REFUSED);
  opts.mode = BK_EXTRACT_REPLACE;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 2 && report.reused == 2);
}

/* Issue 29, 3: extract A into D (incremental), merge B into D (same names and sizes, other
   bytes), replace D with A (incremental). The merge changed the files the manifest describes: the
   last run must write A's bytes, not keep B's as "reused". */
static void test_incremental_after_a_merge_keeps_nothing_the_merge_replaced(void) {
  static unsigned char zip[3 * 1200 + 400];
  char a[300], b[300], dest[300], file[320];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  unsigned char byte = 0xff;
  snprintf(a, sizeof a, "%s/merge-a.zip", workdir);
  snprintf(b, sizeof b, "%s/merge-b.zip", workdir);
  snprintf(dest, sizeof dest, "%s/merged", workdir);
  write_file(a, zip, stored_zip_filled(zip, 3, 1000, 0));
  write_file(b, zip, stored_zip_filled(zip, 3, 1000, 100));
  opts.incremental = 1;
  CHECK_STATUS(bk_extract(a, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 3 && report.reused == 0);
  opts.incremental = 0;
  opts.mode = BK_EXTRACT_MERGE;
  CHECK_STATUS(bk_extract(b, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  opts.incremental = 1;
  opts.mode = BK_EXTRACT_REPLACE;
  CHECK_STATUS(bk_extract(a, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 3 && report.reused == 0);
  for (int i = 0; i < 3; i++) {
    FILE *f;
    snprintf(file, sizeof file, "%s/f%02d.bin", dest, i);
    f = fopen(file, "rb");
    CHECK(f != NULL);
    if (!f) continue;
    CHECK(fseek(f, 999, SEEK_SET) == 0 && fread(&byte, 1, 1, f) == 1 && byte == i);
    fclose(f);
  }
  /* And the run after that, with nothing merged in between, keeps all three again. */
  CHECK_STATUS(bk_extract(a, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 3 && report.reused == 3);
}

struct racer {
  const char *archive, *dest;
  int runs, failures;
  bk_status last;
  char detail[256];
};

static void *extract_repeatedly(void *arg) {
  struct racer *r = arg;
  bk_extract_options opts = {.size = sizeof opts};
  bk_extract_report report = {.size = sizeof report};
  opts.mode = BK_EXTRACT_REPLACE;
  opts.threads = 1;
  for (int i = 0; i < r->runs; i++) {
    bk_status s = bk_extract(r->archive, r->dest, &opts, &report, NULL, 0, r->detail, sizeof r->detail);
    if (s != BK_STATUS_OK) r->failures++, r->last = s;
  }
  return NULL;
}

/* Issue 29, 6: concurrent extractions replacing one destination. One run's sweep could take
   another live run's lock file between its creation and its flock, and that run failed with
   BK_STATUS_IO_ERROR. Every run must succeed, and the tree be the archive's, whole. */
static void test_concurrent_extractions_into_one_destination_all_succeed(void) {
  static unsigned char zip[4 * 300 + 400];
  char archive[300], dest[300];
  struct racer racers[6];
  pthread_t threads[6];
  snprintf(archive, sizeof archive, "%s/race.zip", workdir);
  snprintf(dest, sizeof dest, "%s/race", workdir);
  write_file(archive, zip, stored_zip(zip, 4, 200));
  /* The destination exists first (runs racing to create it are refused but one, as documented). */
  racers[0] = (struct racer){archive, dest, 1, 0, BK_STATUS_OK, ""};
  extract_repeatedly(&racers[0]);
  CHECK(racers[0].failures == 0);
  for (int t = 0; t < 6; t++) {
    racers[t] = (struct racer){archive, dest, 100, 0, BK_STATUS_OK, ""};
    CHECK(pthread_create(&threads[t], NULL, extract_repeatedly, &racers[t]) == 0);
  }
  for (int t = 0; t < 6; t++) {
    pthread_join(threads[t], NULL);
#ifdef _WIN32
    /* Windows cannot swap two directories in one step: a run that meets the destination moved
       aside by another is refused, and loses nothing; the next run sweeps what it left. */
    CHECK(racers[t].failures == 0 || racers[t].last == BK_STATUS_IO_ERROR ||
          racers[t].last == BK_STATUS_DESTINATION_REFUSED);
#else
    CHECK(racers[t].failures == 0);
    if (racers[t].failures)
      fprintf(stderr, "  %d runs failed, the last with %s: %s\n", racers[t].failures, bk_status_message(racers[t].last),
              racers[t].detail);
#endif
  }
#ifdef _WIN32
  racers[0] = (struct racer){archive, dest, 1, 0, BK_STATUS_OK, ""};
  extract_repeatedly(&racers[0]);
  CHECK(racers[0].failures == 0);
#endif
  CHECK(count_entries(dest) == 4);
}

/* Issue 29, 5: an archive with a symlink entry. bk_archive_open (local headers checked at open)
   opens it and leaves the link out of its entries; bk_extract refuses it, unless told to skip
   symlinks. The header says so; this pins it. */
static void test_a_symlink_entry_is_left_out_by_archives_and_refused_by_extraction(void) {
  static unsigned char zip[2 * 300 + 400];
  char path[300], dest[300];
  size_t len = stored_zip(zip, 2, 10), count = 0, index = 0;
  size_t cd = (size_t)zip[len - 6] | (size_t)zip[len - 5] << 8 | (size_t)zip[len - 4] << 16;
  unsigned char *external = zip + cd + (46 + 7) + 38; /* the second central record's attributes */
  bk_archive_options aopts;
  bk_archive *archive = NULL;
  bk_extract_options opts = {.size = sizeof opts};
  bk_extract_report report = {.size = sizeof report};
  external[2] = 0xff, external[3] = 0xa1; /* 0120777 << 16: a symlink */
  snprintf(path, sizeof path, "%s/link.zip", workdir);
  snprintf(dest, sizeof dest, "%s/link-out", workdir);
  write_file(path, zip, len);
  CHECK_STATUS(bk_archive_options_default(&aopts), BK_STATUS_OK);
  CHECK(aopts.local_headers == BK_LOCAL_HEADERS_AT_OPEN);
  CHECK_STATUS(bk_archive_open(path, &aopts, &archive), BK_STATUS_OK);
  CHECK_STATUS(bk_archive_entry_count(archive, &count), BK_STATUS_OK);
  CHECK(count == 1);
  CHECK_STATUS(bk_archive_find(archive, "f01.bin", 7, &index), BK_STATUS_NOT_FOUND);
  bk_archive_free(archive);
  CHECK_STATUS(bk_extract(path, dest, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_UNSUPPORTED_ENTRY);
  CHECK(access(dest, F_OK) != 0);
  opts.skip_symlinks = 1;
  CHECK_STATUS(bk_extract(path, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 1 && report.symlinks_skipped == 1);
}

/* Issue 27: the report starts with its size, so it can grow. A size below the first sized
   report's is refused before anything is done; a caller with a larger struct (built against a
   newer header) gets every field this library knows, and the rest stays as it set it. The report
   says how much other data lay before and after the zip part. */
static void test_the_report_carries_its_size(void) {
  static unsigned char zip[3 * 300 + 400], framed[4 + sizeof zip + 9];
  char path[300], dest[300];
  size_t len = stored_zip(zip, 3, 10);
  struct {
    bk_extract_report report;
    uint64_t later; /* a field a newer header might add */
  } newer = {.report = {.size = sizeof newer}, .later = 0xab};
  bk_extract_report report = {.size = 0};
  memcpy(framed, "JMOD", 4);
  memcpy(framed + 4, zip, len);
  memcpy(framed + 4 + len, "TRAILING!", 9);
  snprintf(path, sizeof path, "%s/framed.zip", workdir);
  snprintf(dest, sizeof dest, "%s/framed-out", workdir);
  write_file(path, framed, 4 + len + 9);
  CHECK_STATUS(bk_extract(path, dest, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
  report.size = BK_EXTRACT_REPORT_MIN_SIZE - 8;
  CHECK_STATUS(bk_extract(path, dest, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
  CHECK(access(dest, F_OK) != 0);
  CHECK_STATUS(bk_extract(path, dest, NULL, &newer.report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(newer.report.size == sizeof newer && newer.later == 0xab);
  CHECK(newer.report.files == 3 && newer.report.prepended == 4 && newer.report.appended == 9);
  CHECK(newer.report.symlinks_skipped == 0 && newer.report.reused == 0);
}

/* Issue 26: two end records, the second in the first's comment, describing different central
   directories. Readers that take the last end record and readers that take the first would see
   different files: refused as ambiguous by extraction and by archives alike, nothing written. */
static void test_two_end_records_that_disagree_are_ambiguous(void) {
  static unsigned char zip[2 * 300 + 400], other[3 * 300 + 400];
  char path[300], dest[300], detail[512] = "";
  size_t len = stored_zip(zip, 1, 10), other_len = stored_zip(other, 1, 1); /* its directory fits before its record */
  bk_extract_report report = {.size = sizeof report};
  bk_archive *archive = NULL;
  zip[len - 2] = 22, zip[len - 1] = 0; /* a 22-byte comment: the other archive's end record */
  memcpy(zip + len, other + other_len - 22, 22);
  len += 22;
  snprintf(path, sizeof path, "%s/ambiguous.zip", workdir);
  snprintf(dest, sizeof dest, "%s/ambiguous-out", workdir);
  write_file(path, zip, len);
  CHECK_STATUS(bk_extract(path, dest, NULL, &report, NULL, 0, detail, sizeof detail), BK_STATUS_ARCHIVE_AMBIGUOUS);
  CHECK(strstr(detail, "end record at byte") != NULL);
  CHECK(access(dest, F_OK) != 0);
  CHECK_STATUS(bk_archive_open(path, NULL, &archive), BK_STATUS_ARCHIVE_AMBIGUOUS);
  CHECK(archive == NULL);
}

/* Issue 26: modification times. The test archives carry only a DOS date (1980-01-01 00:00, read
   as local time, as unzip does): restored by default; with no_mtime, the time of the extraction. */
static void test_modification_times_are_restored_unless_told_not_to(void) {
  static unsigned char zip[2 * 300 + 400];
  char path[300], dest[300], file[340];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  struct stat st;
  struct tm tm = {0};
  time_t dos;
  tm.tm_year = 80, tm.tm_mon = 0, tm.tm_mday = 1, tm.tm_isdst = -1;
  dos = mktime(&tm);
  snprintf(path, sizeof path, "%s/mtime.zip", workdir);
  write_file(path, zip, stored_zip(zip, 2, 10));
  snprintf(dest, sizeof dest, "%s/mtime-restored", workdir);
  CHECK_STATUS(bk_extract(path, dest, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  snprintf(file, sizeof file, "%s/f01.bin", dest);
  CHECK(stat(file, &st) == 0 && st.st_mtime == dos);
  opts.no_mtime = 1;
  snprintf(dest, sizeof dest, "%s/mtime-now", workdir);
  CHECK_STATUS(bk_extract(path, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  snprintf(file, sizeof file, "%s/f01.bin", dest);
  CHECK(stat(file, &st) == 0 && st.st_mtime > time(NULL) - 60);
}

/* Sets the DOS date of every local and central header in `zip` to `date`. */
static void set_dos_dates(unsigned char *zip, size_t len, uint16_t date) {
  for (size_t at = 0; at + 16 <= len; at++) {
    size_t field = !memcmp(zip + at, "PK\x03\x04", 4) ? 12 : !memcmp(zip + at, "PK\x01\x02", 4) ? 14 : 0;
    if (field) zip[at + field] = (unsigned char)date, zip[at + field + 1] = (unsigned char)(date >> 8);
  }
}

/* The modification time of `dir`/`name`, or -1. */
static time_t mtime_of(const char *dir, const char *name) {
  char path[400];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 ? st.st_mtime : (time_t)-1;
}

/* An incremental replace keeps a file from the last extraction only where its time is the one the
   archive now records: the same bytes with a new time are written again, with the new time. */
static void test_an_incremental_replace_gives_kept_files_the_archives_time(void) {
  static unsigned char zip[2 * 300 + 400];
  size_t len = stored_zip(zip, 2, 10);
  char a[300], b[300], dest[300], plain[300];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  snprintf(a, sizeof a, "%s/times-a.zip", workdir);
  snprintf(b, sizeof b, "%s/times-b.zip", workdir);
  snprintf(dest, sizeof dest, "%s/times", workdir);
  snprintf(plain, sizeof plain, "%s/times-plain", workdir);
  write_file(a, zip, len);
  set_dos_dates(zip, len, (2010 - 1980) << 9 | 3 << 5 | 24);
  write_file(b, zip, len);
  CHECK_STATUS(bk_extract(b, plain, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  opts.incremental = 1;
  CHECK_STATUS(bk_extract(a, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(mtime_of(dest, "f01.bin") != mtime_of(plain, "f01.bin"));
  opts.mode = BK_EXTRACT_REPLACE;
  CHECK_STATUS(bk_extract(b, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 2 && report.reused == 0);
  CHECK(mtime_of(dest, "f01.bin") == mtime_of(plain, "f01.bin"));
  /* The same archive again: nothing changed, both kept. */
  CHECK_STATUS(bk_extract(b, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.reused == 2 && mtime_of(dest, "f01.bin") == mtime_of(plain, "f01.bin"));
}

/* A merge gives a directory the archive has an entry for the time the archive records, as a
   plain extraction does, whether the merge made the directory or found it there. */
static void test_a_merge_gives_directories_the_archives_time(void) {
  char archive[300], dest[300], plain[300], made[300];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/merge-times", workdir);
  snprintf(plain, sizeof plain, "%s/merge-times-plain", workdir);
  snprintf(made, sizeof made, "%s/merge-times/assets", workdir);
  write_file(archive, zip_good, sizeof zip_good);
  CHECK_STATUS(bk_extract(archive, plain, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(mkdir(dest, 0755) == 0 && mkdir(made, 0755) == 0);
  opts.mode = BK_EXTRACT_MERGE;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(mtime_of(dest, "assets") == mtime_of(plain, "assets") && mtime_of(plain, "assets") < time(NULL) - 86400);
}

/* A destination is never destroyed unless the caller says so: create refuses a non-empty
   directory and a file, replace refuses `.` spellings, patterns that match nothing are refused. */
static void test_destination_modes(void) {
  char archive[300], dest[300], file[300], keep[300], dot[300], entry[64], detail[512];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_options opts = {.size = sizeof opts};
  const char *nothing[] = {"*.nothing"};
  FILE *f;
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/modes", workdir);
  snprintf(keep, sizeof keep, "%s/modes/mine.txt", workdir);
  snprintf(file, sizeof file, "%s/a-file", workdir);
  snprintf(dot, sizeof dot, "%s/modes/.", workdir);
  CHECK(mkdir(dest, 0755) == 0);
  f = fopen(keep, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  f = fopen(file, "w");
  CHECK(f != NULL);
  if (f) fclose(f);
  CHECK_STATUS(bk_extract(archive, dest, NULL, &report, entry, sizeof entry, detail, sizeof detail),
               BK_STATUS_DESTINATION_REFUSED);
  CHECK(strstr(detail, "not empty") != NULL);
  CHECK_STATUS(bk_extract(archive, file, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_DESTINATION_REFUSED);
  CHECK(access(keep, F_OK) == 0);
  opts.mode = 3;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_INVALID_ARGUMENT);
  opts.mode = BK_EXTRACT_REPLACE;
  CHECK_STATUS(bk_extract(archive, dot, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_DESTINATION_REFUSED);
  opts.only = nothing, opts.only_len = 1;
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_NOTHING_SELECTED);
  CHECK(access(keep, F_OK) == 0);
  opts = (bk_extract_options){.size = sizeof opts, .mode = BK_EXTRACT_MERGE};
  CHECK_STATUS(bk_extract(archive, dest, &opts, &report, NULL, 0, NULL, 0), BK_STATUS_OK);
  CHECK(report.files == 2 && access(keep, F_OK) == 0);
}

struct cutter {
  const char *path;
  long delay_us;
};

static void *cut_archive(void *arg) {
  const struct cutter *c = arg;
  struct timespec pause = {0, c->delay_us * 1000};
  nanosleep(&pause, NULL);
  if (truncate(c->path, 1000) != 0) abort();
  return NULL;
}

/* Truncating the archive while bk_extract runs: a clean status or the archive as it was, never
   a SIGBUS in the host (the archive was memory-mapped; it is read now), nothing left behind. A
   truncation that races the read is IO_ERROR (the size is checked again after reading), never
   wrong bytes reported as a CRC failure. */
static void test_an_archive_truncated_during_extraction_never_crashes_the_host(void) {
  enum { COUNT = 8, SIZE = 256 << 10 };
  char archive[300], dest[300];
  unsigned char *zip = malloc(COUNT * (SIZE + 128) + 4096);
  size_t len = stored_zip(zip, COUNT, SIZE);
  snprintf(archive, sizeof archive, "%s/cut-during.zip", workdir);
  for (int round = 0; round < 10; round++) {
    pthread_t thread;
    struct cutter c = {archive, 50L * round};
    bk_extract_report report = {.size = sizeof report};
    write_file(archive, zip, len);
    snprintf(dest, sizeof dest, "%s/cut-during-%d", workdir, round);
    CHECK(pthread_create(&thread, NULL, cut_archive, &c) == 0);
    bk_status s = bk_extract(archive, dest, NULL, &report, NULL, 0, NULL, 0);
    pthread_join(thread, NULL);
    CHECK(s == BK_STATUS_OK || s == BK_STATUS_IO_ERROR || s == BK_STATUS_ARCHIVE_MALFORMED);
    CHECK(s == BK_STATUS_OK ? report.files == COUNT : access(dest, F_OK) != 0);
    if (s != BK_STATUS_OK && s != BK_STATUS_IO_ERROR && s != BK_STATUS_ARCHIVE_MALFORMED)
      fprintf(stderr, "  round %d (cut after %ld us): %s\n", round, c.delay_us, bk_status_message(s));
  }
  free(zip);
}

/* bk_extract_detailed: the errno and the path of a failed system call, the path of a refused
   destination, as bindings need them for {error, {enoent, Path}} or NoSuchFileException. */
static void test_failures_carry_the_os_error_and_the_path(void) {
  char archive[300], dest[300];
  bk_extract_report report = {.size = sizeof report};
  bk_extract_failure *failure = malloc(sizeof *failure);
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/detailed", workdir);
  CHECK_STATUS(bk_extract_detailed("/nonexistent/archive.zip", dest, NULL, &report, failure), BK_STATUS_IO_ERROR);
  CHECK(failure->os_error == ENOENT && strcmp(failure->path, "/nonexistent/archive.zip") == 0);
#ifndef _WIN32 /* Windows words it otherwise ("The system cannot find the path specified.") */
  CHECK(strstr(failure->detail, "No such file") != NULL);
#endif
  CHECK_STATUS(bk_extract_detailed(archive, workdir, NULL, &report, failure), BK_STATUS_DESTINATION_REFUSED);
  CHECK(failure->os_error == 0 && strcmp(failure->path, workdir) == 0);
  CHECK_STATUS(bk_extract_detailed(archive, dest, NULL, &report, failure), BK_STATUS_OK);
  CHECK(failure->os_error == 0 && failure->path[0] == 0 && report.files == 2);
  CHECK_STATUS(bk_extract_detailed(archive, dest, NULL, &report, NULL), BK_STATUS_DESTINATION_REFUSED);
  free(failure);
}

static void test_null_arguments(void) {
  bk_extract_report report = {.size = sizeof report};
  CHECK_STATUS(bk_extract(NULL, "x", NULL, &report, NULL, 0, NULL, 0), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_extract("x", NULL, NULL, &report, NULL, 0, NULL, 0), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_cancel_request(NULL), BK_STATUS_NULL_POINTER);
}

/* report_out may be NULL, as failure_out may: a caller that wants no report gets the extraction. */
static void test_a_null_report_asks_for_none(void) {
  char archive[300], dest[300], file[320];
  bk_extract_failure failure;
  snprintf(archive, sizeof archive, "%s/good.zip", workdir);
  snprintf(dest, sizeof dest, "%s/no-report", workdir);
  CHECK_STATUS(bk_extract(archive, dest, NULL, NULL, NULL, 0, NULL, 0), BK_STATUS_OK);
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  CHECK(access(file, F_OK) == 0);
  snprintf(dest, sizeof dest, "%s/no-report-detailed", workdir);
  CHECK_STATUS(bk_extract_detailed(archive, dest, NULL, NULL, &failure), BK_STATUS_OK);
  snprintf(file, sizeof file, "%s/readme.txt", dest);
  CHECK(access(file, F_OK) == 0);
  /* A failure still fails, with its status, and leaves nothing. */
  snprintf(archive, sizeof archive, "%s/evil.zip", workdir);
  snprintf(dest, sizeof dest, "%s/no-report-evil", workdir);
  CHECK_STATUS(bk_extract_detailed(archive, dest, NULL, NULL, &failure), BK_STATUS_UNSAFE_NAME);
  CHECK(access(dest, F_OK) != 0);
}

int main(void) {
  int rc;
  snprintf(workdir, sizeof workdir, "%s/bufkit-c-extract-XXXXXX", temp_root());
  if (!mkdtemp(workdir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN(test_a_valid_archive_extracts);
  RUN(test_a_hostile_archive_leaves_nothing);
  RUN(test_portable_names_refuses_what_windows_reads_otherwise);
  RUN(test_options_are_size_first);
  RUN(test_a_huge_thread_count_replaces_promptly);
  RUN(test_missing_and_truncated_archives);
  RUN(test_limits_and_cancellation);
  RUN(test_incremental);
  RUN(test_incremental_after_a_merge_keeps_nothing_the_merge_replaced);
  RUN(test_concurrent_extractions_into_one_destination_all_succeed);
  RUN(test_a_symlink_entry_is_left_out_by_archives_and_refused_by_extraction);
  RUN(test_two_end_records_that_disagree_are_ambiguous);
  RUN(test_modification_times_are_restored_unless_told_not_to);
  RUN(test_an_incremental_replace_gives_kept_files_the_archives_time);
  RUN(test_a_merge_gives_directories_the_archives_time);
  RUN(test_destination_modes);
  RUN(test_an_archive_truncated_during_extraction_never_crashes_the_host);
  RUN(test_failures_carry_the_os_error_and_the_path);
  RUN(test_null_arguments);
  RUN(test_a_null_report_asks_for_none);
  RUN(test_the_report_carries_its_size);
  RUN(test_progress_at_an_interval); /* last: it adds to the work directory others count */
  rc = REPORT();
  if (remove_tree(workdir) != 0) return 1;
  return rc;
}

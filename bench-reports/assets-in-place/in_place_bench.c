/* Assets in place from C, where a C caller stands: bufkit's bk_archive_* against libzip, the
   library a C programmer would reach for, on one archive, in one process, alternating rounds.
   Prints one JSON object per measurement (medians over the rounds).

   Build and run: see bench-reports/assets-in-place/run.sh. */
#define _POSIX_C_SOURCE 200809L
#include <bufkit.h>
#include <zip.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return v[n / 2];
}

static void die(const char *what, int code) {
  fprintf(stderr, "%s failed: %d\n", what, code);
  exit(1);
}

#ifndef ROUNDS
#define ROUNDS 21
#endif

/* The first start: open, then threads share the handle and take the next entry from a counter,
   each reading it whole into its own buffer. */
struct start_job {
  const bk_archive *archive;
  atomic_size_t *next;
  size_t count, biggest;
};

static void *read_files(void *arg) {
  struct start_job *job = arg;
  unsigned char *buf = malloc(job->biggest);
  const bk_archive *a = job->archive;
  for (size_t i; (i = atomic_fetch_add_explicit(job->next, 1, memory_order_relaxed)) < job->count;) {
    bk_archive_entry info;
    size_t written;
    bk_archive_entry_info(a, i, &info);
    if (info.is_directory) continue;
    if (bk_archive_read(a, i, buf, job->biggest, &written) != BK_STATUS_OK) die("bk_archive_read", (int)i);
  }
  free(buf);
  return NULL;
}

/* Opens (holding as asked) and reads every file with `threads` threads sharing the handle. */
static void first_start(const char *path, int holding, int threads, size_t count, size_t biggest) {
  bk_archive_options options;
  bk_archive *a = NULL;
  pthread_t tid[2];
  atomic_size_t next = 0;
  struct start_job job;
  bk_archive_options_default(&options);
  options.holding = (uint32_t)holding;
  if (bk_archive_open(path, &options, &a) != BK_STATUS_OK) die("bk_archive_open", 0);
  job = (struct start_job){a, &next, count, biggest};
  for (int t = 1; t < threads; t++) pthread_create(&tid[t], NULL, read_files, &job);
  read_files(&job);
  for (int t = 1; t < threads; t++) pthread_join(tid[t], NULL);
  bk_archive_free(a);
}

/* What a C programmer writes with libzip: every file opened by index and read whole into `buf`. */
static void libzip_read_every_file(zip_t *z, unsigned char *buf) {
  zip_int64_t count = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < count; i++) {
    zip_stat_t st;
    zip_stat_index(z, (zip_uint64_t)i, 0, &st);
    if (st.name[strlen(st.name) - 1] == '/') continue;
    zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)i, 0);
    if (!f || zip_fread(f, buf, st.size) != (zip_int64_t)st.size) die("zip_fread", (int)i);
    zip_fclose(f);
  }
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: %s ARCHIVE LABEL [EXTRACT_DIR]\n", argv[0]);
    return 2;
  }
  const char *path = argv[1], *label = argv[2], *extract_dir = argc == 4 ? argv[3] : NULL;
  double t_open_read[ROUNDS], t_open_map[ROUNDS], t_open_libzip[ROUNDS], t_open_read_lazy[ROUNDS],
      t_open_map_lazy[ROUNDS];
  double t_find[ROUNDS], t_locate[ROUNDS], t_view[ROUNDS], t_fread_stored[ROUNDS];
  double t_read_all[ROUNDS], t_read_all_libzip[ROUNDS];
  double t_start_read[ROUNDS], t_start_map[ROUNDS], t_start_map_2t[ROUNDS], t_start_libzip[ROUNDS], t_extract[ROUNDS];
  double cpu_start_map_2t[ROUNDS], t_start_read_2t[ROUNDS];
  bk_archive_options options;
  bk_archive_options_default(&options);

  /* Names, sizes and one stored entry, from a first open. */
  bk_archive *a = NULL;
  int err = 0;
  if (bk_archive_open(path, NULL, &a) != BK_STATUS_OK) die("bk_archive_open", 0);
  size_t count = 0, files = 0, stored = SIZE_MAX, biggest = 1;
  bk_archive_entry_count(a, &count);
  char **names = calloc(count, sizeof *names);
  size_t *lens = calloc(count, sizeof *lens);
  for (size_t i = 0; i < count; i++) {
    const char *name;
    bk_archive_entry info;
    bk_archive_entry_name(a, i, &name, &lens[i]);
    names[i] = malloc(lens[i] + 2);
    memcpy(names[i], name, lens[i]);
    names[i][lens[i]] = 0;
    bk_archive_entry_info(a, i, &info);
    if (!info.is_directory) files++;
    if (info.size > biggest) biggest = (size_t)info.size;
    if (!info.is_directory && info.method == 0 && info.size > 0 && stored == SIZE_MAX) stored = i;
  }
  bk_archive_free(a);
  unsigned char *buf = malloc(biggest);
  /* libzip reads under the archive's names, which keep a directory's trailing '/'. */
  zip_t *z = zip_open(path, ZIP_RDONLY, &err);
  if (!z) die("zip_open", err);
  zip_int64_t zcount = zip_get_num_entries(z, 0);
  zip_close(z);

  for (int r = 0; r < ROUNDS; r++) {
    double t0;
    /* Open and index. */
    t0 = now();
    if (bk_archive_open(path, NULL, &a) != BK_STATUS_OK) die("bk_archive_open", 0);
    t_open_read[r] = now() - t0;
    bk_archive_free(a);
    options.holding = BK_ARCHIVE_MAP;
    t0 = now();
    if (bk_archive_open(path, &options, &a) != BK_STATUS_OK) die("bk_archive_open map", 0);
    t_open_map[r] = now() - t0;
    bk_archive_free(a);
    /* The same, each local header left to its entry's first read. */
    options.local_headers = BK_LOCAL_HEADERS_ON_FIRST_READ;
    t0 = now();
    if (bk_archive_open(path, &options, &a) != BK_STATUS_OK) die("bk_archive_open map lazy", 0);
    t_open_map_lazy[r] = now() - t0;
    bk_archive_free(a);
    options.holding = BK_ARCHIVE_READ;
    t0 = now();
    if (bk_archive_open(path, &options, &a) != BK_STATUS_OK) die("bk_archive_open read lazy", 0);
    t_open_read_lazy[r] = now() - t0;
    bk_archive_free(a);
    options.holding = BK_ARCHIVE_MAP;
    options.local_headers = BK_LOCAL_HEADERS_AT_OPEN;
    if (bk_archive_open(path, &options, &a) != BK_STATUS_OK) die("bk_archive_open map", 0);
    t0 = now();
    z = zip_open(path, ZIP_RDONLY, &err);
    if (!z) die("zip_open", err);
    t_open_libzip[r] = now() - t0;

    /* Lookups: every name, 20 times over. */
    size_t found = 0, index;
    t0 = now();
    for (int k = 0; k < 20; k++)
      for (size_t i = 0; i < count; i++) found += bk_archive_find(a, names[i], lens[i], &index) == BK_STATUS_OK;
    t_find[r] = (now() - t0) / (20.0 * (double)count);
    if (found != 20 * count) die("bk_archive_find", (int)found);
    zip_int64_t located = 0;
    t0 = now();
    for (int k = 0; k < 20; k++)
      for (zip_int64_t i = 0; i < zcount; i++) {
        const char *zname = zip_get_name(z, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
        located += zip_name_locate(z, zname, ZIP_FL_ENC_RAW) >= 0;
      }
    t_locate[r] = (now() - t0) / (20.0 * (double)zcount);
    if (located != 20 * zcount) die("zip_name_locate", (int)located);

    /* A stored entry: bufkit's view (its CRC checked on the first) against reading it with libzip. */
    if (stored != SIZE_MAX) {
      const uint8_t *data;
      size_t len;
      if (bk_archive_view(a, stored, &data, &len) != BK_STATUS_OK) die("bk_archive_view", 0);
      t0 = now();
      for (int k = 0; k < 1000; k++) bk_archive_view(a, stored, &data, &len);
      t_view[r] = (now() - t0) / 1000.0;
      zip_int64_t zi = zip_name_locate(z, names[stored], ZIP_FL_ENC_RAW);
      t0 = now();
      for (int k = 0; k < 100; k++) {
        zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)zi, 0);
        if (!f || zip_fread(f, buf, len) != (zip_int64_t)len) die("zip_fread", 0);
        zip_fclose(f);
      }
      t_fread_stored[r] = (now() - t0) / 100.0;
    }

    /* Every file, whole, into one reused buffer. bufkit checks each CRC on the first read of the
       archive handle; libzip checks it on every read. So open both afresh for the pass. */
    bk_archive_free(a);
    zip_close(z);
    if (bk_archive_open(path, NULL, &a) != BK_STATUS_OK) die("bk_archive_open", 0);
    t0 = now();
    for (size_t i = 0; i < count; i++) {
      bk_archive_entry info;
      size_t written;
      bk_archive_entry_info(a, i, &info);
      if (info.is_directory) continue;
      if (bk_archive_read(a, i, buf, biggest, &written) != BK_STATUS_OK) die("bk_archive_read", (int)i);
    }
    t_read_all[r] = now() - t0;
    bk_archive_free(a);
    z = zip_open(path, ZIP_RDONLY, &err);
    t0 = now();
    libzip_read_every_file(z, buf);
    t_read_all_libzip[r] = now() - t0;
    zip_close(z);

    /* The first start, open included: in place (read and mapped, 1 and 2 threads), libzip, and
       `bufkit extract` (bk_extract with its defaults: every core) to tmpfs. */
    t0 = now();
    first_start(path, BK_ARCHIVE_READ, 1, count, biggest);
    t_start_read[r] = now() - t0;
    t0 = now();
    first_start(path, BK_ARCHIVE_MAP, 1, count, biggest);
    t_start_map[r] = now() - t0;
    t0 = now();
    first_start(path, BK_ARCHIVE_READ, 2, count, biggest);
    t_start_read_2t[r] = now() - t0;
    double c0 = cpu_now();
    t0 = now();
    first_start(path, BK_ARCHIVE_MAP, 2, count, biggest);
    t_start_map_2t[r] = now() - t0;
    cpu_start_map_2t[r] = (cpu_now() - c0) / (2.0 * t_start_map_2t[r]);
    t0 = now();
    z = zip_open(path, ZIP_RDONLY, &err);
    libzip_read_every_file(z, buf);
    zip_close(z);
    t_start_libzip[r] = now() - t0;
    if (extract_dir) {
      char dest[600], cmd[700];
      bk_extract_report report = {.size = sizeof report};
      snprintf(dest, sizeof dest, "%s/out", extract_dir);
      t0 = now();
      if (bk_extract(path, dest, NULL, &report, NULL, 0, NULL, 0) != BK_STATUS_OK) die("bk_extract", 0);
      t_extract[r] = now() - t0;
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", dest);
      if (system(cmd) != 0) die("rm", 0);
    }
  }
  printf("{\"archive\":\"%s\",\"entries\":%zu,\"files\":%zu,", label, count, files);
  printf(
      "\"open_read_us\":%.1f,\"open_map_us\":%.1f,\"open_read_first_read_us\":%.1f,\"open_map_first_read_us\":%.1f,"
      "\"open_libzip_us\":%.1f,",
      median(t_open_read, ROUNDS) * 1e6, median(t_open_map, ROUNDS) * 1e6, median(t_open_read_lazy, ROUNDS) * 1e6,
      median(t_open_map_lazy, ROUNDS) * 1e6, median(t_open_libzip, ROUNDS) * 1e6);
  printf("\"find_ns\":%.1f,\"libzip_locate_ns\":%.1f,", median(t_find, ROUNDS) * 1e9, median(t_locate, ROUNDS) * 1e9);
  if (stored != SIZE_MAX)
    printf("\"view_ns\":%.1f,\"libzip_read_stored_ns\":%.1f,", median(t_view, ROUNDS) * 1e9,
           median(t_fread_stored, ROUNDS) * 1e9);
  printf("\"read_all_ms\":%.2f,\"libzip_read_all_ms\":%.2f,", median(t_read_all, ROUNDS) * 1e3,
         median(t_read_all_libzip, ROUNDS) * 1e3);
  printf("\"first_start_read_2_threads_ms\":%.2f,", median(t_start_read_2t, ROUNDS) * 1e3);
  printf(
      "\"first_start_read_ms\":%.2f,\"first_start_map_ms\":%.2f,\"first_start_map_2_threads_ms\":%.2f,"
      "\"first_start_map_2_threads_efficiency\":%.2f,\"first_start_libzip_ms\":%.2f",
      median(t_start_read, ROUNDS) * 1e3, median(t_start_map, ROUNDS) * 1e3, median(t_start_map_2t, ROUNDS) * 1e3,
      median(cpu_start_map_2t, ROUNDS), median(t_start_libzip, ROUNDS) * 1e3);
  if (extract_dir) printf(",\"bufkit_extract_tmpfs_ms\":%.2f", median(t_extract, ROUNDS) * 1e3);
  printf("}\n");
  return 0;
}

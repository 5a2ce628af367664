/* Assets in place from C, where a C caller stands: bufkit's bk_archive_* against libzip, the
   library a C programmer would reach for, on one archive, in one process, alternating rounds.
   Prints one JSON object per measurement (medians over the rounds).

   Build and run: see bench-reports/assets/run.sh. */
#define _POSIX_C_SOURCE 200809L
#include <bufkit.h>
#include <zip.h>

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

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s ARCHIVE LABEL\n", argv[0]);
    return 2;
  }
  const char *path = argv[1], *label = argv[2];
  double t_open_read[ROUNDS], t_open_map[ROUNDS], t_open_libzip[ROUNDS], t_open_read_lazy[ROUNDS], t_open_map_lazy[ROUNDS];
  double t_find[ROUNDS], t_locate[ROUNDS], t_view[ROUNDS], t_fread_stored[ROUNDS];
  double t_read_all[ROUNDS], t_read_all_libzip[ROUNDS];
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
    for (zip_int64_t i = 0; i < zcount; i++) {
      zip_stat_t st;
      zip_stat_index(z, (zip_uint64_t)i, 0, &st);
      if (st.name[strlen(st.name) - 1] == '/') continue;
      zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)i, 0);
      if (!f || zip_fread(f, buf, st.size) != (zip_int64_t)st.size) die("zip_fread", (int)i);
      zip_fclose(f);
    }
    t_read_all_libzip[r] = now() - t0;
    zip_close(z);
  }
  printf("{\"archive\":\"%s\",\"entries\":%zu,\"files\":%zu,", label, count, files);
  printf("\"open_read_us\":%.1f,\"open_map_us\":%.1f,\"open_read_first_read_us\":%.1f,\"open_map_first_read_us\":%.1f,"
         "\"open_libzip_us\":%.1f,",
         median(t_open_read, ROUNDS) * 1e6, median(t_open_map, ROUNDS) * 1e6, median(t_open_read_lazy, ROUNDS) * 1e6,
         median(t_open_map_lazy, ROUNDS) * 1e6, median(t_open_libzip, ROUNDS) * 1e6);
  printf("\"find_ns\":%.1f,\"libzip_locate_ns\":%.1f,", median(t_find, ROUNDS) * 1e9, median(t_locate, ROUNDS) * 1e9);
  if (stored != SIZE_MAX)
    printf("\"view_ns\":%.1f,\"libzip_read_stored_ns\":%.1f,", median(t_view, ROUNDS) * 1e9,
           median(t_fread_stored, ROUNDS) * 1e9);
  printf("\"read_all_ms\":%.2f,\"libzip_read_all_ms\":%.2f}\n", median(t_read_all, ROUNDS) * 1e3,
         median(t_read_all_libzip, ROUNDS) * 1e3);
  return 0;
}

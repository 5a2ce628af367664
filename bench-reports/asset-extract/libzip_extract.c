/* A plain libzip extractor, as a C program would write one: zip_open, then per entry
 * zip_fopen_index / zip_fread into a 64 KiB buffer / write; with PREFIX, only the entries whose
 * names start with it (the name filter of an app that extracts its assets/).
 * Usage: libzip_extract ARCHIVE DEST [PREFIX] */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zip.h>

static int mkdirs(char *path) { /* mkdir -p of path's directories (path is modified and restored) */
  for (char *p = path + 1; *p; p++) {
    if (*p == '/') {
      *p = 0;
      if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  int err = 0;
  static char buf[65536], path[8192];
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: libzip_extract ARCHIVE DEST [PREFIX]\n");
    return 2;
  }
  const char *prefix = argc == 4 ? argv[3] : "";
  zip_t *z = zip_open(argv[1], ZIP_RDONLY, &err);
  if (!z) {
    fprintf(stderr, "zip_open failed: %d\n", err);
    return 1;
  }
  mkdir(argv[2], 0755);
  zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; i++) {
    const char *name = zip_get_name(z, (zip_uint64_t)i, 0);
    if (strncmp(name, prefix, strlen(prefix)) != 0) continue;
    snprintf(path, sizeof path, "%s/%s", argv[2], name);
    if (mkdirs(path) != 0) {
      perror(path);
      return 1;
    }
    size_t len = strlen(name);
    if (len && name[len - 1] == '/') continue;
    zip_file_t *f = zip_fopen_index(z, (zip_uint64_t)i, 0);
    if (!f) {
      fprintf(stderr, "%s: %s\n", name, zip_strerror(z));
      return 1;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
      perror(path);
      return 1;
    }
    zip_int64_t got;
    while ((got = zip_fread(f, buf, sizeof buf)) > 0)
      if (write(fd, buf, (size_t)got) != got) {
        perror(path);
        return 1;
      }
    if (got < 0) {
      fprintf(stderr, "%s: %s\n", name, zip_file_strerror(f));
      return 1;
    }
    close(fd);
    zip_fclose(f);
  }
  zip_close(z);
  return 0;
}

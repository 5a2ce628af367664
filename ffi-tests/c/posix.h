/* The few POSIX calls the C tests make, and their Windows (mingw-w64) stand-ins, so that the same
   tests run against bufkit.dll under wine: mkdir with a mode, mkdtemp, lstat, pread, truncate,
   and removing a test's own work directory. What has no
   stand-in (FIFOs, alarm, /proc) is left out of the tests on Windows, each place saying so. */
#ifndef BUFKIT_POSIX_H
#define BUFKIT_POSIX_H
#include <sys/stat.h>
#include <sys/types.h>
#ifdef _WIN32
#include <direct.h>
#include <fcntl.h>
#include <io.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

static inline int bk_test_mkdir(const char *path, int mode) {
  (void)mode; /* Windows has no permission bits */
  return _mkdir(path);
}
#define mkdir(path, mode) bk_test_mkdir(path, mode)

/* Replaces the template's trailing XXXXXX and makes the directory, trying other names if taken. */
static inline char *mkdtemp(char *template_path) {
  size_t len = strlen(template_path);
  if (len < 6 || strcmp(template_path + len - 6, "XXXXXX") != 0) return NULL;
  for (unsigned attempt = 0; attempt < 1000; attempt++) {
    unsigned value = (unsigned)GetCurrentProcessId() * 7919u + attempt * 104729u + (unsigned)GetTickCount();
    for (size_t i = len - 6; i < len; i++, value /= 26) template_path[i] = (char)('a' + value % 26);
    if (_mkdir(template_path) == 0) return template_path;
  }
  return NULL;
}

/* Windows has no symlinks the tests make: stat is lstat. */
#define lstat stat

static inline ssize_t pread(int fd, void *buf, size_t len, off_t offset) {
  HANDLE file = (HANDLE)_get_osfhandle(fd);
  OVERLAPPED at;
  DWORD got = 0;
  memset(&at, 0, sizeof at);
  at.Offset = (DWORD)((uint64_t)offset & 0xffffffffu);
  at.OffsetHigh = (DWORD)((uint64_t)offset >> 32);
  if (file == INVALID_HANDLE_VALUE) return -1;
  if (!ReadFile(file, buf, (DWORD)len, &got, &at)) return GetLastError() == ERROR_HANDLE_EOF ? 0 : -1;
  return (ssize_t)got;
}
static inline int truncate(const char *path, off_t len) {
  int fd = _open(path, _O_RDWR | _O_BINARY), failed;
  if (fd < 0) return -1;
  failed = _chsize_s(fd, (long long)len) != 0;
  _close(fd);
  return failed ? -1 : 0;
}

/* Removes the directory `path` and everything in it (`rmdir /s /q`); 0 if done. */
static inline int remove_tree(const char *path) {
  char cmd[400];
  size_t at;
  snprintf(cmd, sizeof cmd, "rmdir /s /q \"%s\"", path);
  for (at = 0; cmd[at]; at++)
    if (cmd[at] == '/' && at > 5) cmd[at] = '\\'; /* cmd.exe reads '/' as a switch */
  return system(cmd);
}
#else
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Removes the directory `path` and everything in it (`rm -rf`); 0 if done. */
static inline int remove_tree(const char *path) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
  return system(cmd);
}
#endif
#endif

/* Zips written by hand for the C tests and the stress suite: stored entries, little-endian fields,
   CRC-32 bit by bit. Static inline, so a program that uses only some of it still builds under
   -Wall -Werror. */
#ifndef BUFKIT_ZIPS_H
#define BUFKIT_ZIPS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes `len` bytes to `path`; aborts if it cannot (a test that cannot write its input stops). */
static inline void write_file(const char *path, const unsigned char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) abort();
}

static inline uint32_t crc32_of(const unsigned char *p, size_t n) {
  uint32_t c = 0xffffffffu;
  for (size_t i = 0; i < n; i++) {
    c ^= p[i];
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

/* `v` as `bytes` little-endian bytes at `at`; returns the byte after them. */
static inline unsigned char *put(unsigned char *at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) *at++ = (unsigned char)(v >> (8 * i));
  return at;
}

/* A zip of `count` (at most 16) stored files f00.bin... of `size` bytes each, file i filled with
   the byte i + fill, dated 1980-01-01 00:00 (DOS); returns its length. */
static inline size_t stored_zip_filled(unsigned char *out, int count, size_t size, int fill) {
  unsigned char *at = out, *data = malloc(size);
  uint32_t crcs[16];
  size_t offsets[16];
  char name[24];
  for (int i = 0; i < count; i++) {
    memset(data, i + fill, size);
    crcs[i] = crc32_of(data, size);
    offsets[i] = (size_t)(at - out);
    snprintf(name, sizeof name, "f%02d.bin", i);
    at = put(at, 0x04034b50, 4), at = put(at, 20, 2), at = put(at, 0, 2), at = put(at, 0, 2);
    at = put(at, 0, 2), at = put(at, 0x21, 2), at = put(at, crcs[i], 4), at = put(at, size, 4), at = put(at, size, 4);
    at = put(at, strlen(name), 2), at = put(at, 0, 2);
    memcpy(at, name, strlen(name)), at += strlen(name);
    memcpy(at, data, size), at += size;
  }
  size_t cd = (size_t)(at - out);
  for (int i = 0; i < count; i++) {
    snprintf(name, sizeof name, "f%02d.bin", i);
    at = put(at, 0x02014b50, 4), at = put(at, (3 << 8) | 30, 2), at = put(at, 20, 2), at = put(at, 0, 2);
    at = put(at, 0, 2), at = put(at, 0, 2), at = put(at, 0x21, 2), at = put(at, crcs[i], 4);
    at = put(at, size, 4), at = put(at, size, 4), at = put(at, strlen(name), 2), at = put(at, 0, 2);
    at = put(at, 0, 2), at = put(at, 0, 2), at = put(at, 0, 2), at = put(at, (uint64_t)0100644 << 16, 4);
    at = put(at, offsets[i], 4);
    memcpy(at, name, strlen(name)), at += strlen(name);
  }
  size_t cd_len = (size_t)(at - out) - cd;
  at = put(at, 0x06054b50, 4), at = put(at, 0, 2), at = put(at, 0, 2), at = put(at, count, 2), at = put(at, count, 2);
  at = put(at, cd_len, 4), at = put(at, cd, 4), at = put(at, 0, 2);
  free(data);
  return (size_t)(at - out);
}

/* The same, file i filled with the byte i. */
static inline size_t stored_zip(unsigned char *out, int count, size_t size) {
  return stored_zip_filled(out, count, size, 0);
}

#endif

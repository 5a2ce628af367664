/* The bk_inflate C ABI: streams at offsets, exact consumed counts, batches, strides, every failure. */
#define _POSIX_C_SOURCE 200809L
#include "bufkit.h"
#include "check.h"
#include "streams.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *concat3(const uint8_t *a, size_t al, const uint8_t *b, size_t bl, const uint8_t *c, size_t cl) {
  uint8_t *p = malloc(al + bl + cl + 1);
  memcpy(p, a, al);
  memcpy(p + al, b, bl);
  memcpy(p + al + bl, c, cl);
  return p;
}

static void test_chained_streams_and_exact_consumed(void) {
  bk_inflater *inf = NULL;
  uint8_t *input =
      concat3(stream_hello, sizeof stream_hello, stream_world, sizeof stream_world, (const uint8_t *)"JUNK", 4);
  size_t len = sizeof stream_hello + sizeof stream_world + 4, consumed = 99;
  uint8_t out[6];
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at(inf, input, len, 0, out, 5, &consumed), BK_STATUS_OK);
  CHECK(consumed == sizeof stream_hello && memcmp(out, "hello", 5) == 0);
  CHECK_STATUS(bk_inflate_at(inf, input, len, consumed, out, 6, &consumed), BK_STATUS_OK);
  CHECK(consumed == sizeof stream_world && memcmp(out, "world!", 6) == 0);
  bk_inflater_free(inf);
  bk_inflater_free(NULL);
  free(input);
}

static void test_every_failure_has_its_status(void) {
  bk_inflater *inf = NULL;
  uint8_t out[TEXT_LEN + 1], bad[sizeof stream_text];
  size_t consumed = 7;
  int zeroed = 1;
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at(inf, stream_text, sizeof stream_text - 3, 0, out, TEXT_LEN, &consumed),
               BK_STATUS_TRUNCATED);
  CHECK(consumed == 0);
  memcpy(bad, stream_text, sizeof bad);
  bad[sizeof bad - 1] ^= 0x5a;
  memset(out, 0xEE, sizeof out);
  CHECK_STATUS(bk_inflate_at(inf, bad, sizeof bad, 0, out, TEXT_LEN, &consumed), BK_STATUS_CHECKSUM);
  for (size_t i = 0; i < TEXT_LEN; i++) zeroed &= out[i] == 0;
  CHECK(zeroed); /* nothing handed out before the checksum verifies */
  CHECK_STATUS(bk_inflate_at(inf, stream_text, sizeof stream_text, 0, out, TEXT_LEN - 1, &consumed),
               BK_STATUS_SIZE_MISMATCH);
  CHECK_STATUS(bk_inflate_at(inf, stream_text, sizeof stream_text, 0, out, TEXT_LEN + 1, &consumed),
               BK_STATUS_SIZE_MISMATCH);
  CHECK_STATUS(bk_inflate_at(inf, stream_text, sizeof stream_text, sizeof stream_text + 1, out, 1, &consumed),
               BK_STATUS_OUT_OF_RANGE);
  bad[0] = 0x79;
  CHECK_STATUS(bk_inflate_at(inf, bad, sizeof bad, 0, out, TEXT_LEN, &consumed), BK_STATUS_CORRUPT);
  CHECK_STATUS(bk_inflate_at(inf, stream_text, sizeof stream_text, 0, out, TEXT_LEN, &consumed), BK_STATUS_OK);
  for (int i = 0; i < TEXT_LEN; i++) CHECK(out[i] == TEXT(i));
  CHECK(consumed == sizeof stream_text);
  bk_inflater_free(inf);
}

static void test_null_and_bad_arguments(void) {
  bk_inflater *inf = NULL;
  uint8_t out[5];
  size_t consumed;
  CHECK_STATUS(bk_inflater_new(7, &inf), BK_STATUS_INVALID_ARGUMENT);
  CHECK(inf == NULL);
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at(NULL, stream_hello, sizeof stream_hello, 0, out, 5, &consumed), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_inflate_at(inf, NULL, 10, 0, out, 5, &consumed), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_inflate_at(inf, stream_hello, sizeof stream_hello, 0, NULL, 5, &consumed), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_inflate_at(inf, stream_hello, sizeof stream_hello, 0, out, 5, NULL), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_inflate_at(inf, stream_hello, SIZE_MAX, 0, out, 5, &consumed), BK_STATUS_LENGTH_OVERFLOW);
  bk_inflater_free(inf);
}

static void test_raw_deflate(void) {
  bk_inflater *inf = NULL;
  uint8_t out[5];
  size_t consumed = 0;
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_RAW, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at(inf, stream_raw_hello, sizeof stream_raw_hello, 0, out, 5, &consumed), BK_STATUS_OK);
  CHECK(consumed == sizeof stream_raw_hello && memcmp(out, "hello", 5) == 0);
  bk_inflater_free(inf);
}

static void test_batch(void) {
  bk_inflater *inf = NULL;
  uint8_t *input =
      concat3(stream_hello, sizeof stream_hello, stream_world, sizeof stream_world, (const uint8_t *)"JUNK", 4);
  size_t len = sizeof stream_hello + sizeof stream_world + 4, ok = 0;
  bk_inflate_request req[3] = {{0, 5}, {sizeof stream_hello, 6}, {len + 5, 1}};
  bk_inflate_result res[3];
  uint8_t out[12];
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_batch(inf, input, len, req, 3, out, sizeof out, res, &ok), BK_STATUS_OK);
  CHECK(ok == 2 && memcmp(out, "helloworld!", 11) == 0);
  CHECK(res[0].status == BK_STATUS_OK && res[0].consumed == sizeof stream_hello);
  CHECK(res[1].status == BK_STATUS_OK && res[1].consumed == sizeof stream_world);
  CHECK(res[2].status == BK_STATUS_OUT_OF_RANGE && res[2].consumed == 0);
  CHECK_STATUS(bk_inflate_batch(inf, input, len, req, 3, out, 5, res, &ok), BK_STATUS_SIZE_MISMATCH);
  CHECK_STATUS(bk_inflate_batch(inf, input, len, NULL, 3, out, sizeof out, res, &ok), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_inflate_batch(inf, input, len, NULL, 0, NULL, 0, NULL, &ok), BK_STATUS_OK);
  CHECK(ok == 0);
  bk_inflater_free(inf);
  free(input);
}

/* A batch large enough to be spread over the cores (5,000 streams, 15 MB out): every output and
   result as on one thread, in uninitialised memory, a bad request among them failing alone. */
static void test_a_large_batch_across_threads(void) {
  enum { N = 5000, BAD = 1234 };
  bk_inflater *inf = NULL;
  bk_inflate_request *req = malloc(N * sizeof *req);
  bk_inflate_result *res = malloc(N * sizeof *res); /* uninitialised, as callers' memory often is */
  uint8_t *out = malloc((size_t)N * TEXT_LEN), *expected = malloc(TEXT_LEN);
  size_t ok = 0, good = 1;
  for (size_t i = 0; i < TEXT_LEN; i++) expected[i] = TEXT(i);
  for (size_t i = 0; i < N; i++) req[i] = (bk_inflate_request){0, TEXT_LEN};
  req[BAD].offset = 1; /* not a stream */
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_batch(inf, stream_text, sizeof stream_text, req, N, out, (size_t)N * TEXT_LEN, res, &ok),
               BK_STATUS_OK);
  CHECK(ok == N - 1);
  for (size_t i = 0; i < N; i++) {
    if (i == BAD) continue;
    good &= res[i].status == BK_STATUS_OK && res[i].consumed == sizeof stream_text &&
            memcmp(out + i * TEXT_LEN, expected, TEXT_LEN) == 0;
  }
  CHECK(good);
  CHECK(res[BAD].status != BK_STATUS_OK && res[BAD].consumed == 0);
  bk_inflater_free(inf);
  free(req);
  free(res);
  free(out);
  free(expected);
}

static void test_strides(void) {
  bk_inflate_stream *s = NULL;
  uint8_t out[TEXT_LEN];
  size_t strides[4] = {1, 7, 512, 100000};
  for (int k = 0; k < 4; k++) {
    size_t fed = 0, used = 0, consumed = 0;
    CHECK_STATUS(bk_inflate_stream_new(BK_FORMAT_ZLIB, 0, &s), BK_STATUS_OK);
    while (consumed == 0) {
      size_t n = strides[k];
      if (fed + n > sizeof stream_text) n = sizeof stream_text - fed;
      if (bk_inflate_stream_feed(s, stream_text + fed, n, out, TEXT_LEN, &used, &consumed) != BK_STATUS_OK) break;
      fed += used;
    }
    CHECK(consumed == sizeof stream_text && fed == sizeof stream_text);
    CHECK(out[0] == TEXT(0) && out[TEXT_LEN - 1] == TEXT(TEXT_LEN - 1));
    bk_inflate_stream_free(s);
  }
  CHECK_STATUS(bk_inflate_stream_new(BK_FORMAT_ZLIB, 42, &s), BK_STATUS_OK);
  {
    size_t used, consumed;
    CHECK_STATUS(bk_inflate_stream_feed(s, stream_text, 20, out, TEXT_LEN, &used, &consumed), BK_STATUS_OK);
    CHECK_STATUS(bk_inflate_stream_feed(s, NULL, 0, out, TEXT_LEN, &used, &consumed), BK_STATUS_TRUNCATED);
    /* Issue 29, unclear point: a failed stream stays failed, using no input, until reset. */
    used = 99;
    CHECK_STATUS(bk_inflate_stream_feed(s, stream_text + 20, sizeof stream_text - 20, out, TEXT_LEN, &used, &consumed),
                 BK_STATUS_TRUNCATED);
    CHECK(used == 0 && consumed == 0);
    CHECK_STATUS(bk_inflate_stream_reset(s, 0), BK_STATUS_OK);
    CHECK_STATUS(bk_inflate_stream_feed(s, stream_text, sizeof stream_text, out, TEXT_LEN, &used, &consumed),
                 BK_STATUS_OK);
    CHECK(consumed == sizeof stream_text);
  }
  bk_inflate_stream_free(s);
  bk_inflate_stream_free(NULL);
}

static void test_pooled_output(void) {
  bk_inflater *inf = NULL;
  bk_pool *pool = NULL;
  bk_lease lease;
  size_t consumed = 0;
  bk_pool_stats st;
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_new(NULL, &pool), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at_pooled(inf, pool, stream_text, sizeof stream_text, 0, TEXT_LEN, &lease, &consumed),
               BK_STATUS_OK);
  CHECK(lease.len >= TEXT_LEN && lease.data[5] == TEXT(5) && consumed == sizeof stream_text);
  CHECK_STATUS(bk_pool_release(pool, &lease), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at_pooled(inf, pool, stream_text, sizeof stream_text - 2, 0, TEXT_LEN, &lease, &consumed),
               BK_STATUS_TRUNCATED);
  CHECK_STATUS(bk_inflate_at_pooled(inf, pool, stream_text, sizeof stream_text, 0, SIZE_MAX, &lease, &consumed),
               BK_STATUS_SIZE_MISMATCH);
  CHECK_STATUS(bk_pool_get_stats(pool, &st), BK_STATUS_OK);
  CHECK(st.outstanding_leases == 0); /* a failed inflate lends nothing */
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
  bk_inflater_free(inf);
}

/* The pooled call answers as bk_inflate_at does when the input cannot reach the size: the first
   4 bytes of a zlib stream of 100,000 zeros are a truncated stream, not a size mismatch. */
static void test_pooled_and_plain_agree_on_a_truncated_prefix(void) {
  static const uint8_t prefix[4] = {0x78, 0x9c, 0xed, 0xc1}; /* zlib.compress(bytes(100000))[:4] */
  static uint8_t out[100000];
  bk_inflater *inf = NULL;
  bk_pool *pool = NULL;
  bk_lease lease;
  size_t consumed = 99;
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_ZLIB, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_new(NULL, &pool), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at(inf, prefix, sizeof prefix, 0, out, sizeof out, &consumed), BK_STATUS_TRUNCATED);
  CHECK(consumed == 0);
  consumed = 99;
  CHECK_STATUS(bk_inflate_at_pooled(inf, pool, prefix, sizeof prefix, 0, sizeof out, &lease, &consumed),
               BK_STATUS_TRUNCATED);
  CHECK(consumed == 0);
  consumed = 99;
  CHECK_STATUS(bk_inflate_at_pooled(inf, pool, prefix, sizeof prefix, 9, 5, &lease, &consumed), BK_STATUS_OUT_OF_RANGE);
  CHECK(consumed == 0);
  /* The check bindings run before allocating says what bk_inflate_at says, from the same bound. */
  CHECK(bk_inflate_max_len(4) < sizeof out && bk_inflate_max_len(4) >= 4 * 1024);
  CHECK(bk_inflate_max_len(SIZE_MAX) == SIZE_MAX);
  CHECK_STATUS(bk_inflate_check_reachable(inf, prefix, sizeof prefix, 0, sizeof out), BK_STATUS_TRUNCATED);
  CHECK_STATUS(bk_inflate_check_reachable(inf, prefix, sizeof prefix, 0, 1000), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_check_reachable(inf, prefix, sizeof prefix, 9, 5), BK_STATUS_OUT_OF_RANGE);
  CHECK_STATUS(bk_inflate_check_reachable(NULL, prefix, sizeof prefix, 0, 5), BK_STATUS_NULL_POINTER);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
  bk_inflater_free(inf);
}

/* A complete raw stream of 819 bytes fed to a 755-byte output is a size mismatch, in one stride
   or many; never TRUNCATED, which would send the caller looking for input that does not exist. */
static void test_feeding_a_stream_longer_than_the_output_is_a_size_mismatch(void) {
  static const uint8_t raw[] = {0x9b, 0x3a, 0x75, 0x04, 0x03, 0xa7, 0x11, 0x01, 0x02,
                                0xe9, 0x08, 0xf2, 0xf1, 0x80, 0xb6, 0x61, 0x02, 0x00};
  uint8_t out[819];
  bk_inflater *inf = NULL;
  size_t used = 0, consumed = 0;
  size_t strides[3] = {sizeof raw, 1, 5};
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_RAW, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_inflate_at(inf, raw, sizeof raw, 0, out, 755, &consumed), BK_STATUS_SIZE_MISMATCH);
  CHECK_STATUS(bk_inflate_at(inf, raw, sizeof raw, 0, out, 819, &consumed), BK_STATUS_OK);
  bk_inflater_free(inf);
  for (int k = 0; k < 3; k++) {
    bk_inflate_stream *s = NULL;
    bk_status last = BK_STATUS_OK;
    size_t fed = 0;
    CHECK_STATUS(bk_inflate_stream_new(BK_FORMAT_RAW, 0, &s), BK_STATUS_OK);
    while (last == BK_STATUS_OK && fed < sizeof raw) {
      size_t n = strides[k] < sizeof raw - fed ? strides[k] : sizeof raw - fed;
      last = bk_inflate_stream_feed(s, raw + fed, n, out, 755, &used, &consumed);
      fed += used;
      if (last == BK_STATUS_OK) CHECK(used == n); /* the stream has not ended: every byte is its */
    }
    CHECK(last == BK_STATUS_SIZE_MISMATCH);
    bk_inflate_stream_free(s);
  }
}

/* Raw streams RFC 1951 and zlib call invalid, which upstream libdeflate decodes into garbage:
   every path says CORRUPT, at the length upstream would have produced. Made by hand (see
   crates/strided-inflate/tests/strict_codes.rs, whose seeds these are). */
typedef struct {
  const char *what;
  const uint8_t *bytes;
  size_t len, out_len;
} invalid_stream;

static void test_invalid_codes_are_corrupt_on_every_path(void) {
  /* The report's stream: a static block using length symbol 286. */
  static const uint8_t litlen_286[] = {0xbb, 0x71, 0x03, 0x06, 0xde, 0x8d, 0x61, 0x58, 0x08,
                                       0xc4, 0x8e, 0x58, 0x30, 0x7b, 0xa8, 0x03, 0x00};
  /* Dynamic headers declaring 287 litlen codes, then 31 distance codes ("a", end of block). */
  static const uint8_t hlit_287[] = {0xf5, 0xe0, 0x01, 0x09, 0x00, 0x00, 0x00, 0x80,
                                     0x20, 0x6c, 0xf5, 0xff, 0x09, 0x9f, 0x28};
  static const uint8_t hdist_31[] = {0x05, 0xfe, 0x01, 0x09, 0x00, 0x00, 0x00, 0x80,
                                     0x20, 0x6c, 0xf5, 0xff, 0x09, 0x7d, 0x22};
  /* A one-codeword distance code, then a match sending the unused codeword '1'. */
  static const uint8_t unused_codeword[] = {0x0d, 0xe0, 0x01, 0x09, 0x00, 0x00, 0x00, 0x80,
                                            0x20, 0x6c, 0xf5, 0xff, 0x89, 0xd2, 0x03};
  /* 30,000 stored bytes, then a static block whose match uses distance symbol 30. */
  static uint8_t distance_30[5 + 30000 + 5];
  memcpy(distance_30, "\x00\x30\x75\xcf\x8a", 5);
  memset(distance_30 + 5, 'x', 30000);
  memcpy(distance_30 + 30005, "\x03\x3e\x00\x00\x00", 5);
  const invalid_stream streams[] = {
      {"litlen 286", litlen_286, sizeof litlen_286, 720},
      {"287 litlen codes", hlit_287, sizeof hlit_287, 1},
      {"31 distance codes", hdist_31, sizeof hdist_31, 1},
      {"unused codeword", unused_codeword, sizeof unused_codeword, 4},
      {"distance 30", distance_30, sizeof distance_30, 30003},
  };
  static uint8_t out[30003 + 4];
  bk_inflater *inf = NULL;
  bk_pool *pool = NULL;
  bk_pool_stats st;
  CHECK_STATUS(bk_inflater_new(BK_FORMAT_RAW, &inf), BK_STATUS_OK);
  CHECK_STATUS(bk_pool_new(NULL, &pool), BK_STATUS_OK);
  for (size_t i = 0; i < sizeof streams / sizeof streams[0]; i++) {
    const invalid_stream *t = &streams[i];
    size_t consumed = 99, used = 0, ok = 99;
    CHECK_STATUS(bk_inflate_at(inf, t->bytes, t->len, 0, out, t->out_len, &consumed), BK_STATUS_CORRUPT);
    CHECK(consumed == 0);
    bk_lease lease;
    CHECK_STATUS(bk_inflate_at_pooled(inf, pool, t->bytes, t->len, 0, t->out_len, &lease, &consumed),
                 BK_STATUS_CORRUPT);
    /* In a batch, beside a valid stream (the twin of `unused_codeword`, sending '0': "aaaa"). */
    uint8_t *input = concat3(t->bytes, t->len, unused_codeword, sizeof unused_codeword, (const uint8_t *)"", 0);
    input[t->len + sizeof unused_codeword - 2] = 0xd2;
    input[t->len + sizeof unused_codeword - 1] = 0x02;
    bk_inflate_request req[2] = {{0, t->out_len}, {t->len, 4}};
    bk_inflate_result res[2];
    CHECK_STATUS(bk_inflate_batch(inf, input, t->len + sizeof unused_codeword, req, 2, out, t->out_len + 4, res, &ok),
                 BK_STATUS_OK);
    CHECK(ok == 1 && res[0].status == BK_STATUS_CORRUPT && res[1].status == BK_STATUS_OK);
    CHECK(memcmp(out + t->out_len, "aaaa", 4) == 0);
    free(input);
    /* Fed whole and in 3-byte strides. */
    for (size_t stride = t->len; stride >= 3; stride = stride == 3 ? 0 : 3) {
      bk_inflate_stream *s = NULL;
      bk_status last = BK_STATUS_OK;
      size_t fed = 0;
      CHECK_STATUS(bk_inflate_stream_new(BK_FORMAT_RAW, 0, &s), BK_STATUS_OK);
      while (last == BK_STATUS_OK && fed < t->len) {
        size_t n = stride < t->len - fed ? stride : t->len - fed;
        last = bk_inflate_stream_feed(s, t->bytes + fed, n, out, t->out_len, &used, &consumed);
        fed += used;
      }
      if (last != BK_STATUS_CORRUPT) fprintf(stderr, "  %s, stride %zu: status %d\n", t->what, stride, (int)last);
      CHECK(last == BK_STATUS_CORRUPT);
      bk_inflate_stream_free(s);
    }
  }
  CHECK_STATUS(bk_pool_get_stats(pool, &st), BK_STATUS_OK);
  CHECK(st.outstanding_leases == 0);
  CHECK_STATUS(bk_pool_free(pool), BK_STATUS_OK);
  bk_inflater_free(inf);
}

int main(void) {
  RUN(test_chained_streams_and_exact_consumed);
  RUN(test_every_failure_has_its_status);
  RUN(test_null_and_bad_arguments);
  RUN(test_raw_deflate);
  RUN(test_batch);
  RUN(test_a_large_batch_across_threads);
  RUN(test_strides);
  RUN(test_pooled_output);
  RUN(test_pooled_and_plain_agree_on_a_truncated_prefix);
  RUN(test_feeding_a_stream_longer_than_the_output_is_a_size_mismatch);
  RUN(test_invalid_codes_are_corrupt_on_every_path);
  return REPORT();
}

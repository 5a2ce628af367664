/* A tiny test harness: CHECK records a failure and carries on; RUN counts each test function once. */
#ifndef BUFKIT_CHECK_H
#define BUFKIT_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where a test makes its own directory: $TMPDIR, else /tmp (also when $TMPDIR is longer than the
   tests' path buffers allow for); on Windows %TEMP%, else the current directory. */
static inline const char *temp_root(void) {
#ifdef _WIN32
  const char *dir = getenv("TEMP");
  return dir && *dir && strlen(dir) <= 32 ? dir : ".";
#else
  const char *dir = getenv("TMPDIR");
  return dir && *dir && strlen(dir) <= 32 ? dir : "/tmp";
#endif
}

static int checks_failed_in_test;
static int tests_passed, tests_failed;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (!(cond)) {                                                               \
      fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      checks_failed_in_test++;                                                   \
    }                                                                            \
  } while (0)

#define CHECK_STATUS(call, expected)                                                                            \
  do {                                                                                                          \
    bk_status got_ = (call);                                                                                    \
    if (got_ != (expected)) {                                                                                   \
      fprintf(stderr, "  %s:%d: %s returned %u (%s), expected %s\n", __FILE__, __LINE__, #call, (unsigned)got_, \
              bk_status_message(got_), #expected);                                                              \
      checks_failed_in_test++;                                                                                  \
    }                                                                                                           \
  } while (0)

#define RUN(test)                          \
  do {                                     \
    checks_failed_in_test = 0;             \
    test();                                \
    if (checks_failed_in_test) {           \
      tests_failed++;                      \
      fprintf(stderr, "FAIL %s\n", #test); \
    } else {                               \
      tests_passed++;                      \
      fprintf(stderr, "ok   %s\n", #test); \
    }                                      \
  } while (0)

#define REPORT() (printf("%d passed, %d failed\n", tests_passed, tests_failed), tests_failed ? 1 : 0)

#endif

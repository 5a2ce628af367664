/* Two builds of libbufkit.so in one process, alternating: bk_pool_acquire + bk_pool_release pairs
   (one byte written per lease) through each, 21 rounds of 1,000,000 pairs per size, medians, and
   the second build's time over the first's. Loaded with RTLD_LOCAL, so the two never share a
   symbol; the machine's drift between processes (up to 2x here) cancels out within the run.
   Build: gcc -O2 -I include bench-reports/abi/pool_ab.c -ldl -o /tmp/pool_ab
   Run:   /tmp/pool_ab OLD/libbufkit.so NEW/libbufkit.so */
#define _GNU_SOURCE
#include <bufkit.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
typedef bk_status (*new_fn)(const bk_pool_config *, bk_pool **);
typedef bk_status (*acq_fn)(const bk_pool *, size_t, bk_lease *);
typedef bk_status (*rel_fn)(const bk_pool *, const bk_lease *);
struct lib {
  new_fn n;
  acq_fn a;
  rel_fn r;
  bk_pool *p;
};
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(double *)a, y = *(double *)b;
  return x < y ? -1 : x > y;
}
int main(int argc, char **argv) {
  struct lib L[2];
  if (argc < 3) {
    fprintf(stderr, "usage: %s FIRST/libbufkit.so SECOND/libbufkit.so\n", argv[0]);
    return 1;
  }
  for (int i = 0; i < 2; i++) {
    void *h = dlopen(argv[1 + i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      fprintf(stderr, "%s\n", dlerror());
      return 1;
    }
    L[i].n = (new_fn)dlsym(h, "bk_pool_new");
    L[i].a = (acq_fn)dlsym(h, "bk_pool_acquire");
    L[i].r = (rel_fn)dlsym(h, "bk_pool_release");
    if (L[i].n(NULL, &L[i].p)) return 2;
  }
  size_t sizes[] = {4096, 65536, 1 << 20};
  int rounds = 21;
  long pairs = 1000000;
  for (int s = 0; s < 3; s++) {
    double t[2][64];
    for (int r = 0; r < rounds; r++)
      for (int i = 0; i < 2; i++) {
        bk_lease l;
        double t0 = now();
        for (long k = 0; k < pairs; k++) {
          if (L[i].a(L[i].p, sizes[s], &l)) return 3;
          ((volatile char *)l.data)[0] = 1;
          if (L[i].r(L[i].p, &l)) return 4;
        }
        t[i][r] = (now() - t0) / pairs;
      }
    qsort(t[0], rounds, sizeof(double), cmp);
    qsort(t[1], rounds, sizeof(double), cmp);
    printf("%7zu B: A %.2f ns  B %.2f ns  B/A %.3f\n", sizes[s], t[0][rounds / 2], t[1][rounds / 2],
           t[1][rounds / 2] / t[0][rounds / 2]);
  }
  return 0;
}

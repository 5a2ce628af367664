/* One lease of SIZE bytes acquired, written and released N times, for callgrind
   (bench-reports/abi.md): ./pairs N SIZE. */
#include <stdlib.h>
#include "bufkit.h"
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  size_t size = argc > 2 ? atol(argv[2]) : 65536;
  bk_pool *pool;
  if (bk_pool_new(NULL, &pool)) return 3;
  bk_lease l;
  for (long i = 0; i < n; i++) {
    if (bk_pool_acquire(pool, size, &l)) return 1;
    l.data[0] = (unsigned char)i;
    if (bk_pool_release(pool, &l)) return 2;
  }
  bk_pool_free(pool);
  return 0;
}

/* malloc, write one byte, free, N times: glibc's side of pairs.c under callgrind
   (bench-reports/abi.md): ./mallocpairs N SIZE. */
#include <stdlib.h>
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  size_t size = argc > 2 ? atol(argv[2]) : 65536;
  for (long i = 0; i < n; i++) {
    unsigned char *volatile p = malloc(size);
    if (!p) return 1;
    p[0] = (unsigned char)i;
    free(p);
  }
  return 0;
}

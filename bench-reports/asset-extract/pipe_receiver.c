/* The least a reader of a pipe does, for stream.py's floor: `discard` reads standard input to its
 * end and keeps nothing; `spool DIR` moves it into an unnamed file in DIR with splice(2), one copy
 * in the kernel, as a reader that keeps the bytes on the destination's file system must. Both
 * widen the pipe to 1 MiB first, as `bufkit extract -` does. Linux only.
 *
 * Usage: pipe_receiver discard < PIPE
 *        pipe_receiver spool DIR < PIPE */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PIECE = 1 << 20 };

int main(int argc, char **argv) {
  if (argc < 2 || (strcmp(argv[1], "discard") != 0 && (strcmp(argv[1], "spool") != 0 || argc < 3))) {
    fprintf(stderr, "usage: pipe_receiver discard | spool DIR\n");
    return 2;
  }
  fcntl(0, F_SETPIPE_SZ, PIECE); /* refused above pipe-max-size: the default size then */
  long long total = 0;
  ssize_t n;
  if (strcmp(argv[1], "discard") == 0) {
    char *buf = malloc(PIECE);
    if (buf == NULL) return 1;
    while ((n = read(0, buf, PIECE)) > 0) total += n;
  } else {
    int spool = open(argv[2], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (spool < 0) {
      perror("pipe_receiver: an unnamed file");
      return 1;
    }
    while ((n = splice(0, NULL, spool, NULL, PIECE, 0)) > 0) total += n;
  }
  if (n < 0) {
    perror("pipe_receiver: reading");
    return 1;
  }
  fprintf(stderr, "%lld bytes\n", total);
  return 0;
}

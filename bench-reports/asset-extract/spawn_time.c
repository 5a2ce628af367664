// Runs one command and prints its wall time and peak RSS, measuring only the command
// (timed_spawn.h: posix_spawn to wait4, with no shell, no GNU time and no Python in between).
// run.py used to time `/usr/bin/time TOOL` around Python's subprocess.run, which added 2-3 ms to
// every tool's run (a fork of Python, an exec of time, time's own fork): a constant that makes a
// 12 ms run look 1.25x slower while barely touching a 100 ms one, so it shrank every ratio
// against the fastest tool.
//
// Build: cc -O2 -o spawn_time bench-reports/asset-extract/spawn_time.c
// Usage: spawn_time COMMAND [ARG...]   prints "WALL_SECONDS MAXRSS_KIB"; exits 1 if the command
//        fails (why, on stderr)
#define _GNU_SOURCE
#include "timed_spawn.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]);
    return 2;
  }
  double wall;
  struct rusage use;
  if (timed_spawn(argv + 1, &wall, &use) != 0) return 1;
  printf("%.6f %ld\n", wall, use.ru_maxrss);
  return 0;
}

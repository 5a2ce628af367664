// Runs one command as a child of this process and times only it: the clock starts just before
// posix_spawnp and stops when wait4 returns, with no shell in between. The child's stdout goes to
// /dev/null; its rusage (CPU time, peak RSS: its own, since this process is small) comes from
// wait4. Shared by process_efficiency.c and spawn_time.c. Needs _GNU_SOURCE before any #include.
#ifndef BUFKIT_BENCH_TIMED_SPAWN_H
#define BUFKIT_BENCH_TIMED_SPAWN_H

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Returns 0 when the command ran and exited 0, with its wall time and rusage; otherwise says why
// on stderr and returns -1.
static int timed_spawn(char *const argv[], double *wall_s, struct rusage *use) {
  posix_spawn_file_actions_t quiet;
  posix_spawn_file_actions_init(&quiet);
  posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int status;
  double start = now_s();
  int spawned = posix_spawnp(&pid, argv[0], &quiet, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&quiet);
  if (spawned != 0) {
    fprintf(stderr, "%s: cannot start it\n", argv[0]);
    return -1;
  }
  if (wait4(pid, &status, 0, use) != pid) {
    perror("wait4");
    return -1;
  }
  *wall_s = now_s() - start;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "%s: exit status %d\n", argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
  }
  return 0;
}

#endif

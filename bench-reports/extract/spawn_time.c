// Runs one command and prints its wall time and peak RSS, measuring only the command: the clock
// starts just before posix_spawn and stops when wait4 returns, with no shell, no GNU time and no
// Python in between. run.py used to time `/usr/bin/time TOOL` around Python's subprocess.run,
// which added 2-3 ms to every tool's run (a fork of Python, an exec of time, time's own fork):
// a constant that makes a 12 ms run look 1.25x slower while barely touching a 100 ms one, so it
// shrank every ratio against the fastest tool.
//
// The command's stdout goes to /dev/null. Peak RSS is wait4's ru_maxrss of the child: posix_spawn
// starts it from this small process, so the figure is the tool's own.
//
// Build: cc -O2 -o spawn_time bench-reports/extract/spawn_time.c
// Usage: spawn_time COMMAND [ARG...]   prints "WALL_SECONDS MAXRSS_KIB"; exits 1 if the command
//        fails (its status on stderr)
#define _GNU_SOURCE
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

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    posix_spawn_file_actions_t quiet;
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int status;
    struct rusage use;
    double start = now_s();
    if (posix_spawnp(&pid, argv[1], &quiet, NULL, argv + 1, environ) != 0) {
        perror(argv[1]);
        return 1;
    }
    if (wait4(pid, &status, 0, &use) != pid) {
        perror("wait4");
        return 1;
    }
    double wall = now_s() - start;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "%s: exit status %d\n", argv[1], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return 1;
    }
    printf("%.6f %ld\n", wall, use.ru_maxrss);
    return 0;
}

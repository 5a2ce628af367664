/* The benches here label malloc's numbers with ALLOCATOR (glibc unless set). A preload that
   failed leaves glibc in place with only a warning from ld.so on stderr, so a bench calls
   allocator_name() first: it exits when ALLOCATOR names mimalloc or jemalloc and that
   allocator's own symbol is not loaded, instead of printing glibc's numbers under its name.
   Needs _GNU_SOURCE (RTLD_DEFAULT) before the first #include, and -ldl. */
#ifndef BUFKIT_BENCH_PRELOADED_H
#define BUFKIT_BENCH_PRELOADED_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *allocator_name(void) {
  const char *name = getenv("ALLOCATOR");
  if (!name) return "glibc";
  const char *marker = !strcmp(name, "mimalloc") ? "mi_malloc" : !strcmp(name, "jemalloc") ? "mallctl" : NULL;
  if (marker && !dlsym(RTLD_DEFAULT, marker)) {
    fprintf(stderr, "ALLOCATOR=%s but its %s is not loaded: is it installed, and in LD_PRELOAD?\n", name, marker);
    exit(2);
  }
  return name;
}

#endif

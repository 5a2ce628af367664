/* The floor of any NIF that walks an iolist: per element, the calls the NIF API leaves no way
   around (enif_get_list_cell for each cell, enif_inspect_binary for a binary's bytes), and
   nothing else: no copy, no string fast path, the byte count summed. bufkit's append
   (bindings/erlang/c_src/bufkit_nif.c, walk_iolist) makes at least these calls and copies the
   bytes, so it cannot be faster than this on an iolist of binaries. iolist_floor_bench.erl times
   it beside erlang:iolist_size/1 (the VM's own walk), iolist_to_binary/1 and bufkit's append.
   Built by iolist_floor_bench.sh; runs on a dirty scheduler, like bufkit's append of a long
   iolist. */
#include <erl_nif.h>
#include <stdint.h>

/* Asks for a binary first, then a list, then a byte: for an iolist made mostly of binaries (the
   bench's), the fewest calls per element (two per binary: the cell and the inspection), one
   fewer than learning the type first. */
static ERL_NIF_TERM walk(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ERL_NIF_TERM stack[256], head, tail, first, rest, t = argv[0];
  size_t depth = 0;
  uint64_t bytes = 0;
  ErlNifBinary bin;
  int byte;
  (void)argc;
  for (;;) {
    if (enif_get_list_cell(env, t, &head, &tail)) {
    element:
      if (enif_inspect_binary(env, head, &bin)) {
        bytes += bin.size;
      } else if (enif_get_list_cell(env, head, &first, &rest)) {
        if (depth == sizeof stack / sizeof *stack) return enif_make_badarg(env);
        stack[depth++] = tail;
        head = first, tail = rest; /* the cell just read is not read again */
        goto element;
      } else if (enif_get_int(env, head, &byte)) {
        bytes += 1;
      } else if (!enif_is_empty_list(env, head)) {
        return enif_make_badarg(env);
      }
      t = tail;
    } else if (enif_is_empty_list(env, t)) {
      if (depth == 0) break;
      t = stack[--depth];
    } else {
      return enif_make_badarg(env);
    }
  }
  return enif_make_uint64(env, bytes);
}

static ErlNifFunc funcs[] = {{"walk", 1, walk, ERL_NIF_DIRTY_JOB_CPU_BOUND}};
ERL_NIF_INIT(walk_floor, funcs, NULL, NULL, NULL, NULL)

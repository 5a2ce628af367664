/* The floor of any NIF that walks an iolist: per element, the calls the NIF API leaves no way
   around (enif_get_list_cell, enif_term_type, and enif_inspect_binary for a binary's bytes),
   and nothing else: no copy, no checks beyond the type, the byte count summed. bufkit's append
   (bindings/erlang/c_src/bufkit_nif.c, walk_iolist) makes these calls and copies the bytes, so
   it cannot be faster than this. iolist_floor_bench.erl times it beside erlang:iolist_size/1
   (the VM's own walk), iolist_to_binary/1 and bufkit's append. Built by iolist_floor_bench.sh;
   runs on a dirty scheduler, like bufkit's append of a long iolist. */
#include <erl_nif.h>
#include <stdint.h>

static ERL_NIF_TERM walk(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ERL_NIF_TERM stack[256], head, tail, t = argv[0];
  size_t depth = 0;
  uint64_t bytes = 0;
  ErlNifBinary bin;
  int byte;
  (void)argc;
  for (;;) {
    if (enif_get_list_cell(env, t, &head, &tail)) {
      switch (enif_term_type(env, head)) {
      case ERL_NIF_TERM_TYPE_INTEGER:
        if (!enif_get_int(env, head, &byte)) return enif_make_badarg(env);
        bytes += 1;
        break;
      case ERL_NIF_TERM_TYPE_BITSTRING:
        if (!enif_inspect_binary(env, head, &bin)) return enif_make_badarg(env);
        bytes += bin.size;
        break;
      case ERL_NIF_TERM_TYPE_LIST:
        if (depth == sizeof stack / sizeof *stack) return enif_make_badarg(env);
        stack[depth++] = tail;
        t = head;
        continue;
      default:
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

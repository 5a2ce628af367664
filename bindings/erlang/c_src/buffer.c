/* The bufkit NIF's buffers: a resource holding a bk_buffer and a mutex (processes may share
 * it). Work on large data runs on a dirty CPU scheduler: a call decides by the bytes it will
 * touch, and a call that finds the buffer busy also moves to a dirty scheduler instead of blocking
 * a normal one. */
#include "nif.h"
#include "enum_atoms.gen.h"
#include "records.gen.h"

/* Appends of at least this many bytes, and copies out of at least DIRTY_COPY, run dirty. */
#define DIRTY_APPEND ((size_t)64 * 1024)
#define DIRTY_COPY ((size_t)1024 * 1024)

typedef struct {
  ErlNifMutex *lock;
  bk_buffer *buffer; /* NULL once freed */
} buffer_res;

void buffer_dtor(ErlNifEnv *env, void *obj) {
  buffer_res *res = obj;
  (void)env;
  bk_buffer_free(res->buffer);
  res->buffer = NULL;
  if (res->lock) enif_mutex_destroy(res->lock);
}

/* nif buffer_new(Options) */
ERL_NIF_TERM buffer_new_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  bk_buffer_config config;
  ERL_NIF_TERM value;
  buffer_res *res;
  bk_status status;
  (void)argc;
  if (!enif_is_map(env, argv[0])) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  bk_buffer_config_default(&config);
  if (enif_get_map_value(env, argv[0], enif_make_atom(env, "growth"), &value) &&
      !bk_growth_from_atom(env, value, &config.growth))
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  if (enif_get_map_value(env, argv[0], enif_make_atom(env, "factor"), &value)) {
    ErlNifSInt64 whole;
    if (enif_get_int64(env, value, &whole))
      config.factor = (double)whole;
    else if (!enif_get_double(env, value, &config.factor))
      return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  }
  if (!size_option(env, argv[0], "step", &config.step) ||
      !size_option(env, argv[0], "chunk_size", &config.chunk_size) ||
      !size_option(env, argv[0], "max_capacity", &config.max_capacity) ||
      !size_option(env, argv[0], "initial_capacity", &config.initial_capacity))
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);

  res = enif_alloc_resource(buffer_type, sizeof *res);
  if (!res) return error_term(env, BK_STATUS_ALLOC_FAILED);
  res->buffer = NULL;
  res->lock = enif_mutex_create("bufkit_buffer");
  if (!res->lock) {
    enif_release_resource(res);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  status = bk_buffer_new(&config, &res->buffer);
  if (status != BK_STATUS_OK) {
    enif_release_resource(res);
    return error_term(env, status);
  }
  return ok_resource(env, res);
}

/* ---- operations on a locked, live buffer ------------------------------------------------ */

typedef ERL_NIF_TERM (*buffer_op)(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]);
/* Bytes an operation will touch, to decide whether it belongs on a dirty scheduler. */
typedef size_t (*work_estimate)(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]);
typedef ERL_NIF_TERM (*nif_fn)(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]);

static size_t no_work(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  (void)env;
  (void)res;
  (void)argv;
  return 0;
}

static size_t binary_arg_work(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  ErlNifBinary bin;
  (void)res;
  return enif_inspect_binary(env, argv[1], &bin) ? bin.size : 0;
}

static size_t buffer_len_work(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  size_t len = 0;
  (void)env;
  (void)argv;
  bk_buffer_len(res->buffer, &len);
  return len;
}

static size_t reserve_work(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  ErlNifUInt64 n = 0;
  (void)res;
  enif_get_uint64(env, argv[1], &n);
  return n > SIZE_MAX ? SIZE_MAX : (size_t)n;
}

/* Locks the buffer and runs op, moving to a dirty scheduler when the work is large or the lock is
 * busy. `dirty_self` is the dirty entry of the same operation. */
static ERL_NIF_TERM run_locked(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[], buffer_op op, work_estimate work,
                               size_t threshold, nif_fn dirty_self, int on_dirty) {
  buffer_res *res;
  ERL_NIF_TERM result;
  if (!enif_get_resource(env, argv[0], buffer_type, (void **)&res)) return enif_make_badarg(env);
  if (on_dirty) {
    enif_mutex_lock(res->lock);
  } else if (enif_mutex_trylock(res->lock) != 0) {
    return enif_schedule_nif(env, "bufkit_buffer_dirty", ERL_NIF_DIRTY_JOB_CPU_BOUND, dirty_self, argc, argv);
  }
  if (!res->buffer) {
    enif_mutex_unlock(res->lock);
    return enif_make_tuple2(env, atom_error, atom_closed);
  }
  if (!on_dirty && work(env, res, argv) >= threshold) {
    enif_mutex_unlock(res->lock);
    return enif_schedule_nif(env, "bufkit_buffer_dirty", ERL_NIF_DIRTY_JOB_CPU_BOUND, dirty_self, argc, argv);
  }
  result = op(env, res, argv);
  enif_mutex_unlock(res->lock);
  return result;
}

#define BUFFER_NIF(name, work, threshold)                                                 \
  static ERL_NIF_TERM name##_dirty(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) { \
    return run_locked(env, argc, argv, op_##name, work, threshold, name##_dirty, 1);      \
  }                                                                                       \
  ERL_NIF_TERM name##_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {          \
    return run_locked(env, argc, argv, op_##name, work, threshold, name##_dirty, 0);      \
  }

static ERL_NIF_TERM op_buffer_append(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  ErlNifBinary bin;
  if (!enif_inspect_binary(env, argv[1], &bin)) return enif_make_badarg(env);
  return ok_or_error(env, bk_buffer_append(res->buffer, bin.data, bin.size));
}
/* nif buffer_append(Buffer, Binary) */
BUFFER_NIF(buffer_append, binary_arg_work, DIRTY_APPEND)

/* ---- appending an iolist without flattening it first ---- */

/* Lists of fewer elements than this (and fewer bytes than DIRTY_APPEND) are walked on the calling
   scheduler; longer ones on a dirty one. */
#define IOLIST_ELEMENTS_ON_SCHEDULER 4096
/* Bytes of small binaries and integers gathered before one bk_buffer_append. */
#define IOLIST_STAGING 4096

typedef struct {
  bk_buffer *buffer; /* NULL: only count the bytes */
  uint8_t staging[IOLIST_STAGING];
  size_t staged, counted;
  bk_status status;
} iolist_sink;

static int sink_flush(iolist_sink *sink) {
  if (sink->staged == 0) return 0;
  sink->status = bk_buffer_append(sink->buffer, sink->staging, sink->staged);
  sink->staged = 0;
  return sink->status != BK_STATUS_OK;
}

static int sink_bytes(iolist_sink *sink, const uint8_t *data, size_t len) {
  if (!sink->buffer) {
    sink->counted += len;
    return 0;
  }
  if (len <= IOLIST_STAGING / 4) {
    if (len > IOLIST_STAGING - sink->staged && sink_flush(sink)) return 1;
    memcpy(sink->staging + sink->staged, data, len);
    sink->staged += len;
    return 0;
  }
  if (sink_flush(sink)) return 1;
  sink->status = bk_buffer_append(sink->buffer, data, len);
  return sink->status != BK_STATUS_OK;
}

/* A string (a proper list of integers 0..255) handed to the sink in one call into the VM's own
   loop (enif_get_string), instead of one enif_get_list_cell and one enif_get_int per character:
   what a list of character lists (the seed's JInterface strings) is mostly made of. Returns 1 when
   `list` was a string and its bytes went to the sink (or the sink failed: its status says so), 0
   when it is not one (nothing was taken: walk it element by element). Only for a sink that
   appends: a counting sink walks elements, to stop at its limit. */
static int sink_string(ErlNifEnv *env, ERL_NIF_TERM list, iolist_sink *sink) {
  unsigned room = (unsigned)(IOLIST_STAGING - sink->staged);
  int n;
  unsigned length;
  char *long_string;
  if (room < 2) {
    if (sink_flush(sink)) return 1;
    room = IOLIST_STAGING;
  }
  /* Writes the characters and a NUL into the staging's free room; the NUL is not kept. */
  n = enif_get_string(env, list, (char *)sink->staging + sink->staged, room, ERL_NIF_LATIN1);
  if (n > 0) {
    sink->staged += (size_t)n - 1;
    return 1;
  }
  if (n == 0) return 0; /* not a string of bytes */
  /* Longer than the room: measure it, then take it into the emptied staging if it fits there,
     else whole into memory of its own. */
  if (!enif_get_list_length(env, list, &length) || length >= INT_MAX) return 0;
  if (length < IOLIST_STAGING) {
    if (sink_flush(sink)) return 1;
    n = enif_get_string(env, list, (char *)sink->staging, IOLIST_STAGING, ERL_NIF_LATIN1);
    if (n <= 0) return 0;
    sink->staged = (size_t)n - 1;
    return 1;
  }
  long_string = enif_alloc((size_t)length + 1);
  if (!long_string) {
    sink->status = BK_STATUS_ALLOC_FAILED;
    return 1;
  }
  n = enif_get_string(env, list, long_string, length + 1, ERL_NIF_LATIN1);
  if (n == (int)length + 1) sink_bytes(sink, (const uint8_t *)long_string, length);
  enif_free(long_string);
  return n == (int)length + 1;
}

/* Walks an iolist depth first, in order, with an explicit stack of the tails still to walk, handing
   each integer and binary to `sink`. Returns 0 when done or when the sink failed (its status says
   why), 1 for a term that is not an iolist, 2 once more than `max_elements` elements are seen, 3
   when out of memory. */
static int walk_iolist(ErlNifEnv *env, ERL_NIF_TERM list, iolist_sink *sink, size_t max_elements) {
  ERL_NIF_TERM small[64], *stack = small, head, tail, t = list;
  size_t depth = 0, cap = 64, elements = 0;
  int result = 0;
  if (sink->buffer && sink_string(env, list, sink)) return 0; /* the whole list is a string */
  for (;;) {
    ErlNifBinary bin;
    ErlNifTermType type;
    int byte;
    if (enif_get_list_cell(env, t, &head, &tail)) {
      /* One call to learn the element's type, then the one call that reads it: asking in turn
         (integer? binary? list?) cost a failed call or two per binary and per list. */
      type = enif_term_type(env, head);
    element:
      if (++elements > max_elements) {
        result = 2;
        break;
      }
      if (type == ERL_NIF_TERM_TYPE_INTEGER) {
        if (!enif_get_int(env, head, &byte) || byte < 0 || byte > 255) {
          result = 1;
          break;
        }
        if (sink->buffer && sink->staged < IOLIST_STAGING) {
          sink->staging[sink->staged++] = (uint8_t)byte;
        } else {
          uint8_t b = (uint8_t)byte;
          if (sink_bytes(sink, &b, 1)) break;
        }
      } else if (type == ERL_NIF_TERM_TYPE_BITSTRING) {
        if (!enif_inspect_binary(env, head, &bin)) { /* a bitstring that is not whole bytes */
          result = 1;
          break;
        }
        if (sink_bytes(sink, bin.data, bin.size)) break;
      } else if (type == ERL_NIF_TERM_TYPE_LIST) {
        /* A nested list's first cell is read once: only a list that starts with an integer can
           be a string, and otherwise the walk goes on from that cell without reading it again. */
        ERL_NIF_TERM first, rest;
        int nonempty = enif_get_list_cell(env, head, &first, &rest);
        ErlNifTermType first_type = nonempty ? enif_term_type(env, first) : ERL_NIF_TERM_TYPE_LIST;
        if (nonempty && first_type == ERL_NIF_TERM_TYPE_INTEGER && sink->buffer && sink_string(env, head, sink)) {
          if (sink->status != BK_STATUS_OK) break;
          t = tail;
          continue;
        }
        if (depth == cap) {
          ERL_NIF_TERM *bigger = enif_alloc(2 * cap * sizeof *bigger);
          if (!bigger) {
            result = 3;
            break;
          }
          memcpy(bigger, stack, depth * sizeof *stack);
          if (stack != small) enif_free(stack);
          stack = bigger, cap *= 2;
        }
        stack[depth++] = tail;
        if (!nonempty) { /* [], which the loop steps over */
          t = head;
          continue;
        }
        head = first, tail = rest, type = first_type;
        goto element;
      } else {
        result = 1;
        break;
      }
      t = tail;
    } else if (enif_is_empty_list(env, t)) {
      if (depth == 0) break;
      t = stack[--depth];
    } else if (enif_inspect_binary(env, t, &bin)) { /* an improper tail */
      if (sink_bytes(sink, bin.data, bin.size)) break;
      if (depth == 0) break;
      t = stack[--depth];
    } else {
      result = 1;
      break;
    }
  }
  if (stack != small) enif_free(stack);
  return result;
}

/* The iolist's bytes, counted on the calling scheduler up to IOLIST_ELEMENTS_ON_SCHEDULER
   elements; a longer list counts as DIRTY_APPEND, so that it is walked on a dirty scheduler. */
static size_t iolist_work(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  iolist_sink counter;
  (void)res;
  counter.buffer = NULL, counter.counted = 0;
  if (walk_iolist(env, argv[1], &counter, IOLIST_ELEMENTS_ON_SCHEDULER) == 2) return DIRTY_APPEND;
  return counter.counted;
}

/* One walk, each piece appended as it comes (small ones gathered first); a term that turns out
   not to be an iolist, or a buffer that fills, truncates the buffer back to what it held before,
   so nothing is appended. */
static ERL_NIF_TERM op_buffer_append_iolist(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  iolist_sink *sink;
  size_t before = 0;
  bk_status status;
  int walked;
  bk_buffer_len(res->buffer, &before);
  sink = enif_alloc(sizeof *sink);
  if (!sink) return error_term(env, BK_STATUS_ALLOC_FAILED);
  sink->buffer = res->buffer, sink->staged = 0, sink->counted = 0, sink->status = BK_STATUS_OK;
  walked = walk_iolist(env, argv[1], sink, SIZE_MAX);
  if (walked == 0 && sink->status == BK_STATUS_OK) sink_flush(sink);
  status = walked == 3 ? BK_STATUS_ALLOC_FAILED : sink->status;
  enif_free(sink);
  if (walked == 1 || status != BK_STATUS_OK) bk_buffer_truncate(res->buffer, before);
  if (walked == 1) return enif_make_badarg(env);
  return ok_or_error(env, status);
}
/* nif buffer_append_iolist(Buffer, IoList) */
BUFFER_NIF(buffer_append_iolist, iolist_work, DIRTY_APPEND)

static ERL_NIF_TERM op_buffer_reserve(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  ErlNifUInt64 n;
  if (!enif_get_uint64(env, argv[1], &n)) return enif_make_badarg(env);
  if (n > (ErlNifUInt64)SIZE_MAX) return error_term(env, BK_STATUS_LENGTH_OVERFLOW);
  return ok_or_error(env, bk_buffer_reserve(res->buffer, (size_t)n));
}
/* nif buffer_reserve(Buffer, Additional) */
BUFFER_NIF(buffer_reserve, reserve_work, DIRTY_COPY)

static ERL_NIF_TERM op_buffer_clear(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  (void)argv;
  return ok_or_error(env, bk_buffer_clear(res->buffer));
}
/* nif buffer_clear(Buffer) */
BUFFER_NIF(buffer_clear, no_work, 1)

static ERL_NIF_TERM op_buffer_stats(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  bk_buffer_stats s;
  bk_status status = bk_buffer_get_stats(res->buffer, &s);
  (void)argv;
  if (status != BK_STATUS_OK) return error_term(env, status);
  return enif_make_tuple2(env, atom_ok, buffer_stats_to_map(env, &s));
}
/* nif buffer_stats(Buffer) */
BUFFER_NIF(buffer_stats, no_work, 1)

static ERL_NIF_TERM op_buffer_to_binary(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  size_t len = 0, copied = 0;
  ErlNifBinary bin;
  bk_status status;
  (void)argv;
  if ((status = bk_buffer_len(res->buffer, &len)) != BK_STATUS_OK) return error_term(env, status);
  if (!enif_alloc_binary(len, &bin)) return error_term(env, BK_STATUS_ALLOC_FAILED);
  status = bk_buffer_copy_out(res->buffer, 0, bin.data, bin.size, &copied);
  if (status != BK_STATUS_OK || copied != len) {
    enif_release_binary(&bin);
    return error_term(env, status != BK_STATUS_OK ? status : BK_STATUS_OUT_OF_RANGE);
  }
  return enif_make_tuple2(env, atom_ok, enif_make_binary(env, &bin));
}
/* nif buffer_to_binary(Buffer) */
BUFFER_NIF(buffer_to_binary, buffer_len_work, DIRTY_COPY)

static ERL_NIF_TERM op_buffer_flatten(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  (void)argv;
  return ok_or_error(env, bk_buffer_flatten(res->buffer));
}
/* nif buffer_flatten(Buffer) */
BUFFER_NIF(buffer_flatten, buffer_len_work, DIRTY_COPY)

/* nif buffer_free(Buffer) dirty_cpu */
ERL_NIF_TERM buffer_free_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  buffer_res *res;
  (void)argc;
  if (!enif_get_resource(env, argv[0], buffer_type, (void **)&res)) return enif_make_badarg(env);
  enif_mutex_lock(res->lock); /* free is quick; only a running dirty op can hold the lock long */
  bk_buffer_free(res->buffer);
  res->buffer = NULL;
  enif_mutex_unlock(res->lock);
  return atom_ok;
}

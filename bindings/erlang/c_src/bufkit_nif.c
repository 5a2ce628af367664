/*
 * The bufkit NIF: thin C over include/bufkit.h, statically linked with libbufkit.a.
 *
 * A buffer is a resource holding a bk_buffer and a mutex (processes may share it). Work on large
 * data runs on a dirty CPU scheduler: a call decides by the bytes it will touch, and a call that
 * finds the buffer busy also moves to a dirty scheduler instead of blocking a normal one.
 */
#define _GNU_SOURCE /* clock_gettime, pthread_cond_timedwait, strerrorname_np under -std=c11 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <erl_nif.h>

#include "bufkit.h"

/* Appends of at least this many bytes, and copies out of at least DIRTY_COPY, run dirty. */
#define DIRTY_APPEND ((size_t)64 * 1024)
#define DIRTY_COPY ((size_t)1024 * 1024)

typedef struct {
  ErlNifMutex *lock;
  bk_buffer *buffer; /* NULL once freed */
} buffer_res;

static ErlNifResourceType *buffer_type, *pool_type, *lease_type, *archive_type, *stream_type;
static ERL_NIF_TERM atom_ok, atom_error, atom_closed, atom_len, atom_capacity, atom_grows, atom_moves, atom_bytes_copied;

/* Each status's atom, made once at load (and again at upgrade): the names are the header's
   BK_STATUS_* in lower case, which the conformance suite checks against the header. */
static struct {
  bk_status status;
  const char *name;
  ERL_NIF_TERM atom;
} status_atoms[] = {
    {BK_STATUS_NULL_POINTER, "null_pointer", 0},
    {BK_STATUS_INVALID_ARGUMENT, "invalid_argument", 0},
    {BK_STATUS_LENGTH_OVERFLOW, "length_overflow", 0},
    {BK_STATUS_OUT_OF_RANGE, "out_of_range", 0},
    {BK_STATUS_ALLOC_FAILED, "alloc_failed", 0},
    {BK_STATUS_IO_ERROR, "io_error", 0},
    {BK_STATUS_NOT_FOUND, "not_found", 0},
    {BK_STATUS_PANIC, "panic", 0},
    {BK_STATUS_CAPACITY_EXCEEDED, "capacity_exceeded", 0},
    {BK_STATUS_NOT_CONTIGUOUS, "not_contiguous", 0},
    {BK_STATUS_LEASE_INVALID, "lease_invalid", 0},
    {BK_STATUS_WRONG_POOL, "wrong_pool", 0},
    {BK_STATUS_LEASES_OUTSTANDING, "leases_outstanding", 0},
    {BK_STATUS_TRUNCATED, "truncated", 0},
    {BK_STATUS_CHECKSUM, "checksum", 0},
    {BK_STATUS_SIZE_MISMATCH, "size_mismatch", 0},
    {BK_STATUS_CORRUPT, "corrupt", 0},
    {BK_STATUS_ARCHIVE_MALFORMED, "archive_malformed", 0},
    {BK_STATUS_UNSAFE_NAME, "unsafe_name", 0},
    {BK_STATUS_UNSUPPORTED_ENTRY, "unsupported_entry", 0},
    {BK_STATUS_ENCRYPTED, "encrypted", 0},
    {BK_STATUS_CRC_MISMATCH, "crc_mismatch", 0},
    {BK_STATUS_LIMIT_EXCEEDED, "limit_exceeded", 0},
    {BK_STATUS_CANCELLED, "cancelled", 0},
    {BK_STATUS_DESTINATION_REFUSED, "destination_refused", 0},
    {BK_STATUS_NOTHING_SELECTED, "nothing_selected", 0},
    {BK_STATUS_ARCHIVE_AMBIGUOUS, "archive_ambiguous", 0},
};

static void make_status_atoms(ErlNifEnv *env) {
  for (size_t i = 0; i < sizeof status_atoms / sizeof status_atoms[0]; i++)
    status_atoms[i].atom = enif_make_atom(env, status_atoms[i].name);
}

static ERL_NIF_TERM status_atom(ErlNifEnv *env, bk_status status) {
  for (size_t i = 0; i < sizeof status_atoms / sizeof status_atoms[0]; i++)
    if (status_atoms[i].status == status) return status_atoms[i].atom;
  return enif_make_tuple2(env, enif_make_atom(env, "unknown_status"), enif_make_uint(env, status));
}

static ERL_NIF_TERM error_term(ErlNifEnv *env, bk_status status) {
  return enif_make_tuple2(env, atom_error, status_atom(env, status));
}

/* {ok, Resource}: the term takes over our reference to the resource. */
static ERL_NIF_TERM ok_resource(ErlNifEnv *env, void *res) {
  ERL_NIF_TERM term = enif_make_resource(env, res);
  enif_release_resource(res);
  return enif_make_tuple2(env, atom_ok, term);
}

static ERL_NIF_TERM ok_or_error(ErlNifEnv *env, bk_status status) {
  return status == BK_STATUS_OK ? atom_ok : error_term(env, status);
}

static void buffer_dtor(ErlNifEnv *env, void *obj) {
  buffer_res *res = obj;
  (void)env;
  bk_buffer_free(res->buffer);
  res->buffer = NULL;
  if (res->lock) enif_mutex_destroy(res->lock);
}

/* ---- pools: a pool resource owns a bk_pool; each lease resource keeps its pool alive, so the
 * pool is freed only after every lease is gone (a lease dropped unreleased is released then).
 * A lease's memory is reached from Erlang by copy (lease_write, lease_read) or, once, as a binary
 * over it (lease_view): binaries are immutable, so a viewed lease takes no more writes, and its
 * memory goes back to the pool only when the lease and every view are garbage, whatever
 * pool_release says meanwhile. A copy in progress holds `busy`; pool_release waits for it, so the
 * memory is never returned under a copy from another process. */

typedef struct {
  bk_pool *pool;
} pool_res;

typedef struct {
  pool_res *owner; /* kept alive with enif_keep_resource */
  bk_lease lease;
  int released; /* pool_release was called (once); accessed atomically, as are the others */
  int returned; /* bk_pool_release was called (once) */
  int viewed;   /* a binary over the memory exists: no writes, return at garbage collection */
  int busy;     /* copies in progress */
} lease_res;

/* Gives the memory back to the pool, once. */
static void lease_return(lease_res *res) {
  if (!__atomic_exchange_n(&res->returned, 1, __ATOMIC_SEQ_CST)) bk_pool_release(res->owner->pool, &res->lease);
}

static void pool_dtor(ErlNifEnv *env, void *obj) {
  pool_res *res = obj;
  (void)env;
  bk_pool_free(res->pool); /* every lease is gone by now: they kept this resource alive */
  res->pool = NULL;
}

static void lease_dtor(ErlNifEnv *env, void *obj) {
  lease_res *res = obj;
  (void)env;
  lease_return(res); /* nothing refers to it any more: no view, no copy */
  enif_release_resource(res->owner);
}

/* ---- archives read in place: a resource owns a bk_archive (thread-safe: any process reads).
   archive_close/1 frees it before the garbage collector would, without ever waiting: each call
   counts itself in `users` while it uses the archive; closing sets `closed`, and whoever sees
   the count at zero once it is closed (the closer, or the last call to finish) frees it, once.
   Zero-copy binaries of stored entries (views, `map` holding) point into the archive: once one
   has been made, the archive is freed only when the resource is (after the last binary). */

typedef struct {
  bk_archive *archive;
  atomic_int users;       /* calls using `archive` now */
  atomic_int closed;      /* archive_close/1 was called */
  atomic_int freed;       /* `archive` was freed (by close, or by the last call after it) */
  atomic_int views_made;  /* a binary points into `archive`: only the destructor frees it */
} archive_res;

static void archive_free_once(archive_res *res) {
  int expected = 0;
  if (atomic_load(&res->views_made)) return;
  if (atomic_compare_exchange_strong(&res->freed, &expected, 1)) bk_archive_free(res->archive);
}

/* Ends one call's use of the archive; the last one after a close frees it. */
static void archive_release(archive_res *res) {
  if (atomic_fetch_sub(&res->users, 1) == 1 && atomic_load(&res->closed)) archive_free_once(res);
}

/* The archive resource `term` names, counted as in use until archive_release: 1; 0 if `term` is
   not an archive (badarg); -1 if it was closed. */
static int archive_acquire(ErlNifEnv *env, ERL_NIF_TERM term, archive_res **res_out) {
  archive_res *res;
  if (!enif_get_resource(env, term, archive_type, (void **)&res)) return 0;
  atomic_fetch_add(&res->users, 1);
  if (atomic_load(&res->closed)) {
    archive_release(res);
    return -1;
  }
  *res_out = res;
  return 1;
}

/* What a call answers when archive_acquire did not give it the archive. */
static ERL_NIF_TERM archive_refused(ErlNifEnv *env, int acquired) {
  return acquired == 0 ? enif_make_badarg(env) : enif_make_tuple2(env, atom_error, atom_closed);
}

static void archive_dtor(ErlNifEnv *env, void *obj) {
  archive_res *res = obj;
  (void)env;
  if (!atomic_load(&res->freed)) bk_archive_free(res->archive);
}

/* ---- a stream inflated from input fed in pieces: a resource owns the bk_inflate_stream and the
   output binary, until the stream ends and the binary is handed over. One process at a time
   (a lock, so a shared stream is never unsafe). */

typedef struct {
  ErlNifMutex *lock;
  bk_inflate_stream *stream;
  ErlNifBinary out;
  int has_out;     /* out is allocated and ours */
  size_t consumed; /* the stream's total once it has ended, else 0 */
} stream_res;

static void stream_dtor(ErlNifEnv *env, void *obj) {
  stream_res *res = obj;
  (void)env;
  bk_inflate_stream_free(res->stream);
  if (res->has_out) enif_release_binary(&res->out);
  if (res->lock) enif_mutex_destroy(res->lock);
}

/* The resource types and atoms, made at load (ERL_NIF_RT_CREATE) or taken over from the library
   being replaced at upgrade (ERL_NIF_RT_TAKEOVER: resources that live on get the new code's
   destructors). */
static int open_types(ErlNifEnv *env, ErlNifResourceFlags flags) {
  if (bk_abi_version() != BK_ABI_VERSION) return 1;
  buffer_type = enif_open_resource_type(env, NULL, "bufkit_buffer", buffer_dtor, flags, NULL);
  pool_type = enif_open_resource_type(env, NULL, "bufkit_pool", pool_dtor, flags, NULL);
  lease_type = enif_open_resource_type(env, NULL, "bufkit_lease", lease_dtor, flags, NULL);
  archive_type = enif_open_resource_type(env, NULL, "bufkit_archive", archive_dtor, flags, NULL);
  stream_type = enif_open_resource_type(env, NULL, "bufkit_inflate_stream", stream_dtor, flags, NULL);
  if (!buffer_type || !pool_type || !lease_type || !archive_type || !stream_type) return 1;
  atom_ok = enif_make_atom(env, "ok");
  atom_error = enif_make_atom(env, "error");
  atom_closed = enif_make_atom(env, "closed");
  atom_len = enif_make_atom(env, "len");
  atom_capacity = enif_make_atom(env, "capacity");
  atom_grows = enif_make_atom(env, "grows");
  atom_moves = enif_make_atom(env, "moves");
  atom_bytes_copied = enif_make_atom(env, "bytes_copied");
  make_status_atoms(env);
  return 0;
}

static int load(ErlNifEnv *env, void **priv, ERL_NIF_TERM info) {
  (void)priv;
  (void)info;
  return open_types(env, ERL_NIF_RT_CREATE);
}

static int upgrade(ErlNifEnv *env, void **priv, void **old_priv, ERL_NIF_TERM info) {
  (void)priv;
  (void)old_priv;
  (void)info;
  return open_types(env, ERL_NIF_RT_CREATE | ERL_NIF_RT_TAKEOVER);
}

static ERL_NIF_TERM version_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary bin;
  const char *v = bk_version();
  (void)argc;
  (void)argv;
  if (!enif_alloc_binary(strlen(v), &bin)) return enif_raise_exception(env, enif_make_atom(env, "enomem"));
  memcpy(bin.data, v, bin.size);
  return enif_make_binary(env, &bin);
}

static ERL_NIF_TERM abi_version_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  (void)argc;
  (void)argv;
  return enif_make_uint(env, bk_abi_version());
}

static ERL_NIF_TERM test_panic_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  (void)argc;
  (void)argv;
  return ok_or_error(env, bk_test_panic());
}

/* Reads an optional non-negative integer option; 0 if the key is there but not a size. */
static int size_option(ErlNifEnv *env, ERL_NIF_TERM map, const char *key, size_t *out) {
  ERL_NIF_TERM value;
  ErlNifUInt64 n;
  if (!enif_get_map_value(env, map, enif_make_atom(env, key), &value)) return 1;
  if (!enif_get_uint64(env, value, &n) || n > (ErlNifUInt64)SIZE_MAX) return 0;
  *out = (size_t)n;
  return 1;
}

static ERL_NIF_TERM buffer_new_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  bk_buffer_config config;
  ERL_NIF_TERM value;
  buffer_res *res;
  bk_status status;
  (void)argc;
  if (!enif_is_map(env, argv[0])) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  bk_buffer_config_default(&config);
  if (enif_get_map_value(env, argv[0], enif_make_atom(env, "growth"), &value)) {
    char name[16];
    if (!enif_get_atom(env, value, name, sizeof name, ERL_NIF_LATIN1)) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
    if (!strcmp(name, "geometric")) config.growth = BK_GROWTH_GEOMETRIC;
    else if (!strcmp(name, "linear")) config.growth = BK_GROWTH_LINEAR;
    else if (!strcmp(name, "exact")) config.growth = BK_GROWTH_EXACT;
    else if (!strcmp(name, "segmented")) config.growth = BK_GROWTH_SEGMENTED;
    else return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  }
  if (enif_get_map_value(env, argv[0], enif_make_atom(env, "factor"), &value)) {
    ErlNifSInt64 whole;
    if (enif_get_int64(env, value, &whole)) config.factor = (double)whole;
    else if (!enif_get_double(env, value, &config.factor)) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  }
  if (!size_option(env, argv[0], "step", &config.step) || !size_option(env, argv[0], "chunk_size", &config.chunk_size) ||
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

#define BUFFER_NIF(name, work, threshold)                                                          \
  static ERL_NIF_TERM name##_dirty(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {          \
    return run_locked(env, argc, argv, op_##name, work, threshold, name##_dirty, 1);               \
  }                                                                                                \
  static ERL_NIF_TERM name##_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {            \
    return run_locked(env, argc, argv, op_##name, work, threshold, name##_dirty, 0);               \
  }

static ERL_NIF_TERM op_append(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  ErlNifBinary bin;
  if (!enif_inspect_binary(env, argv[1], &bin)) return enif_make_badarg(env);
  return ok_or_error(env, bk_buffer_append(res->buffer, bin.data, bin.size));
}
BUFFER_NIF(append, binary_arg_work, DIRTY_APPEND)

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
static ERL_NIF_TERM op_append_iolist(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
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
BUFFER_NIF(append_iolist, iolist_work, DIRTY_APPEND)

static ERL_NIF_TERM op_reserve(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  ErlNifUInt64 n;
  if (!enif_get_uint64(env, argv[1], &n)) return enif_make_badarg(env);
  if (n > (ErlNifUInt64)SIZE_MAX) return error_term(env, BK_STATUS_LENGTH_OVERFLOW);
  return ok_or_error(env, bk_buffer_reserve(res->buffer, (size_t)n));
}
BUFFER_NIF(reserve, reserve_work, DIRTY_COPY)

static ERL_NIF_TERM op_clear(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  (void)argv;
  return ok_or_error(env, bk_buffer_clear(res->buffer));
}
BUFFER_NIF(clear, no_work, 1)

static ERL_NIF_TERM op_stats(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  bk_buffer_stats s;
  ERL_NIF_TERM keys[5], values[5], map;
  bk_status status = bk_buffer_get_stats(res->buffer, &s);
  (void)argv;
  if (status != BK_STATUS_OK) return error_term(env, status);
  keys[0] = atom_len, values[0] = enif_make_uint64(env, s.len);
  keys[1] = atom_capacity, values[1] = enif_make_uint64(env, s.capacity);
  keys[2] = atom_grows, values[2] = enif_make_uint64(env, s.grows);
  keys[3] = atom_moves, values[3] = enif_make_uint64(env, s.moves);
  keys[4] = atom_bytes_copied, values[4] = enif_make_uint64(env, s.bytes_copied);
  if (!enif_make_map_from_arrays(env, keys, values, 5, &map)) return enif_make_badarg(env);
  return enif_make_tuple2(env, atom_ok, map);
}
BUFFER_NIF(stats, no_work, 1)

static ERL_NIF_TERM op_to_binary(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
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
BUFFER_NIF(to_binary, buffer_len_work, DIRTY_COPY)

static ERL_NIF_TERM op_flatten(ErlNifEnv *env, buffer_res *res, const ERL_NIF_TERM argv[]) {
  (void)argv;
  return ok_or_error(env, bk_buffer_flatten(res->buffer));
}
BUFFER_NIF(flatten, buffer_len_work, DIRTY_COPY)

static ERL_NIF_TERM buffer_free_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  buffer_res *res;
  (void)argc;
  if (!enif_get_resource(env, argv[0], buffer_type, (void **)&res)) return enif_make_badarg(env);
  enif_mutex_lock(res->lock); /* free is quick; only a running dirty op can hold the lock long */
  bk_buffer_free(res->buffer);
  res->buffer = NULL;
  enif_mutex_unlock(res->lock);
  return atom_ok;
}

static ERL_NIF_TERM pool_new_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  bk_pool_config config;
  ERL_NIF_TERM value;
  pool_res *res;
  bk_status status;
  size_t n = 0;
  (void)argc;
  if (!enif_is_map(env, argv[0])) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  bk_pool_config_default(&config);
  if (!size_option(env, argv[0], "min_class_size", &config.min_class_size) ||
      !size_option(env, argv[0], "max_class_size", &config.max_class_size) ||
      !size_option(env, argv[0], "max_retained_bytes", &config.max_retained_bytes) ||
      !size_option(env, argv[0], "max_buffers_per_class", &config.max_buffers_per_class) ||
      !size_option(env, argv[0], "thread_cache_buffers", &config.thread_cache_buffers))
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  n = (size_t)config.decay_after_ms;
  if (!size_option(env, argv[0], "decay_after_ms", &n)) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  config.decay_after_ms = n;
  if (enif_get_map_value(env, argv[0], enif_make_atom(env, "zero_on_acquire"), &value)) {
    char flag[8];
    if (!enif_get_atom(env, value, flag, sizeof flag, ERL_NIF_LATIN1)) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
    if (!strcmp(flag, "true")) config.zero_on_acquire = 1;
    else if (!strcmp(flag, "false")) config.zero_on_acquire = 0;
    else return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  }
  res = enif_alloc_resource(pool_type, sizeof *res);
  if (!res) return error_term(env, BK_STATUS_ALLOC_FAILED);
  res->pool = NULL;
  status = bk_pool_new(&config, &res->pool);
  if (status != BK_STATUS_OK) {
    enif_release_resource(res); /* dtor: bk_pool_free(NULL) is a no-op */
    return error_term(env, status);
  }
  return ok_resource(env, res);
}

static ERL_NIF_TERM pool_acquire_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  pool_res *pool;
  lease_res *res;
  ErlNifUInt64 size;
  bk_lease lease;
  bk_status status;
  (void)argc;
  if (!enif_get_resource(env, argv[0], pool_type, (void **)&pool) || !enif_get_uint64(env, argv[1], &size))
    return enif_make_badarg(env);
  if (size > (ErlNifUInt64)SIZE_MAX) return error_term(env, BK_STATUS_LENGTH_OVERFLOW);
  status = bk_pool_acquire(pool->pool, (size_t)size, &lease);
  if (status != BK_STATUS_OK) return error_term(env, status);
  res = enif_alloc_resource(lease_type, sizeof *res);
  if (!res) {
    bk_pool_release(pool->pool, &lease);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  enif_keep_resource(pool);
  res->owner = pool;
  res->lease = lease;
  res->released = res->returned = res->viewed = res->busy = 0;
  return ok_resource(env, res);
}

/* pool_release(Pool, Lease): the lease must come from Pool (else wrong_pool) and be out (else
 * lease_invalid). */
static ERL_NIF_TERM pool_release_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  pool_res *pool;
  lease_res *res;
  (void)argc;
  if (!enif_get_resource(env, argv[0], pool_type, (void **)&pool) ||
      !enif_get_resource(env, argv[1], lease_type, (void **)&res))
    return enif_make_badarg(env);
  if (res->owner != pool) return error_term(env, BK_STATUS_WRONG_POOL);
  if (__atomic_exchange_n(&res->released, 1, __ATOMIC_SEQ_CST)) return error_term(env, BK_STATUS_LEASE_INVALID);
  if (__atomic_load_n(&res->viewed, __ATOMIC_SEQ_CST)) return atom_ok; /* returned when the views are garbage */
  while (__atomic_load_n(&res->busy, __ATOMIC_SEQ_CST)) sched_yield(); /* a copy from another process */
  lease_return(res);
  return atom_ok;
}

/* Starts a copy: 0 if the lease was released (or, for writing, viewed). */
static int lease_enter(lease_res *res, int writing) {
  __atomic_add_fetch(&res->busy, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&res->released, __ATOMIC_SEQ_CST) || (writing && __atomic_load_n(&res->viewed, __ATOMIC_SEQ_CST))) {
    __atomic_sub_fetch(&res->busy, 1, __ATOMIC_SEQ_CST);
    return 0;
  }
  return 1;
}

static void lease_leave(lease_res *res) { __atomic_sub_fetch(&res->busy, 1, __ATOMIC_SEQ_CST); }

/* lease_write(Lease, Offset, IoData): copies the bytes into the lease at Offset. */
static ERL_NIF_TERM lease_write_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  lease_res *res;
  ErlNifUInt64 offset;
  ErlNifBinary data;
  (void)argc;
  if (!enif_get_resource(env, argv[0], lease_type, (void **)&res) || !enif_get_uint64(env, argv[1], &offset) ||
      !enif_inspect_iolist_as_binary(env, argv[2], &data))
    return enif_make_badarg(env);
  if (offset > res->lease.len || data.size > res->lease.len - offset) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if (!lease_enter(res, 1))
    return enif_make_tuple2(env, atom_error, enif_make_atom(env, __atomic_load_n(&res->released, __ATOMIC_SEQ_CST) ? "lease_invalid" : "viewed"));
  memcpy(res->lease.data + offset, data.data, data.size);
  lease_leave(res);
  return atom_ok;
}

/* lease_read(Lease, Offset, Length): a copy of those bytes as a fresh binary. */
static ERL_NIF_TERM lease_read_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  lease_res *res;
  ErlNifUInt64 offset, length;
  ERL_NIF_TERM bin;
  unsigned char *out;
  (void)argc;
  if (!enif_get_resource(env, argv[0], lease_type, (void **)&res) || !enif_get_uint64(env, argv[1], &offset) ||
      !enif_get_uint64(env, argv[2], &length))
    return enif_make_badarg(env);
  if (offset > res->lease.len || length > res->lease.len - offset) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if (!lease_enter(res, 0)) return error_term(env, BK_STATUS_LEASE_INVALID);
  out = enif_make_new_binary(env, (size_t)length, &bin);
  if (out) memcpy(out, res->lease.data + offset, (size_t)length);
  lease_leave(res);
  return out ? enif_make_tuple2(env, atom_ok, bin) : error_term(env, BK_STATUS_ALLOC_FAILED);
}

/* lease_view(Lease): the whole lease as a binary over its memory, no copy. From then on the lease
 * takes no writes, and its memory goes back to the pool when the lease and the binary (and every
 * sub-binary of it) are garbage. */
static ERL_NIF_TERM lease_view_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  lease_res *res;
  (void)argc;
  if (!enif_get_resource(env, argv[0], lease_type, (void **)&res)) return enif_make_badarg(env);
  __atomic_store_n(&res->viewed, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&res->released, __ATOMIC_SEQ_CST) || __atomic_load_n(&res->returned, __ATOMIC_SEQ_CST))
    return error_term(env, BK_STATUS_LEASE_INVALID);
  while (__atomic_load_n(&res->busy, __ATOMIC_SEQ_CST)) sched_yield(); /* a write finishing elsewhere */
  /* The binary keeps the resource (and so the memory) alive. */
  return enif_make_tuple2(env, atom_ok, enif_make_resource_binary(env, res, res->lease.data, res->lease.len));
}

static ERL_NIF_TERM lease_size_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  lease_res *res;
  (void)argc;
  if (!enif_get_resource(env, argv[0], lease_type, (void **)&res)) return enif_make_badarg(env);
  if (__atomic_load_n(&res->released, __ATOMIC_ACQUIRE)) return error_term(env, BK_STATUS_LEASE_INVALID);
  return enif_make_tuple2(env, atom_ok, enif_make_uint64(env, res->lease.len));
}

static ERL_NIF_TERM pool_trim_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  pool_res *pool;
  (void)argc;
  if (!enif_get_resource(env, argv[0], pool_type, (void **)&pool)) return enif_make_badarg(env);
  return ok_or_error(env, bk_pool_trim(pool->pool));
}

static ERL_NIF_TERM pool_stats_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  pool_res *pool;
  bk_pool_stats s;
  bk_status status;
  ERL_NIF_TERM keys[9], values[9], map;
  const char *names[9] = {"hits", "misses", "returns", "drops_over_cap", "oversize_allocations",
                          "decayed", "retained_bytes", "outstanding_leases", "class_count"};
  (void)argc;
  if (!enif_get_resource(env, argv[0], pool_type, (void **)&pool)) return enif_make_badarg(env);
  status = bk_pool_get_stats(pool->pool, &s);
  if (status != BK_STATUS_OK) return error_term(env, status);
  values[0] = enif_make_uint64(env, s.hits);
  values[1] = enif_make_uint64(env, s.misses);
  values[2] = enif_make_uint64(env, s.returns);
  values[3] = enif_make_uint64(env, s.drops_over_cap);
  values[4] = enif_make_uint64(env, s.oversize_allocations);
  values[5] = enif_make_uint64(env, s.decayed);
  values[6] = enif_make_uint64(env, s.retained_bytes);
  values[7] = enif_make_uint64(env, s.outstanding_leases);
  values[8] = enif_make_uint64(env, s.class_count);
  for (int i = 0; i < 9; i++) keys[i] = enif_make_atom(env, names[i]);
  if (!enif_make_map_from_arrays(env, keys, values, 9, &map)) return enif_make_badarg(env);
  return enif_make_tuple2(env, atom_ok, map);
}

/* ---- inflate: one decoder per scheduler thread (created on first use, reused for every call on
 * that thread; decoders are not thread-safe, scheduler threads never share one). */

/* Streams inflating to at least this many bytes run on a dirty scheduler (~0.5 ms of work). */
#define DIRTY_INFLATE ((size_t)256 * 1024)

static __thread bk_inflater *thread_inflater;

static bk_inflater *inflater(void) {
  if (!thread_inflater && bk_inflater_new(BK_FORMAT_ZLIB, &thread_inflater) != BK_STATUS_OK) thread_inflater = NULL;
  return thread_inflater;
}

/* Inflates one stream of `input` into a fresh binary: {ok, Data, Consumed} | {error, Reason}. The
 * input binary is read in place (no copy); the output is written straight into the result binary. */
static ERL_NIF_TERM inflate_one(ErlNifEnv *env, const ErlNifBinary *input, ErlNifUInt64 offset, ErlNifUInt64 size) {
  ErlNifBinary out;
  size_t consumed = 0;
  bk_inflater *inf = inflater();
  bk_status status;
  if (!inf) return error_term(env, BK_STATUS_ALLOC_FAILED);
  if (offset > input->size || size > (ErlNifUInt64)SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  /* refuse a size the input cannot reach before allocating it, as bk_inflate_at would */
  status = bk_inflate_check_reachable(inf, input->data, input->size, (size_t)offset, (size_t)size);
  if (status != BK_STATUS_OK) return error_term(env, status);
  if (!enif_alloc_binary((size_t)size, &out)) return error_term(env, BK_STATUS_ALLOC_FAILED);
  status = bk_inflate_at(inf, input->data, input->size, (size_t)offset, out.data, out.size, &consumed);
  if (status != BK_STATUS_OK) {
    enif_release_binary(&out);
    return error_term(env, status);
  }
  return enif_make_tuple3(env, atom_ok, enif_make_binary(env, &out), enif_make_uint64(env, consumed));
}

static int inflate_args(ErlNifEnv *env, const ERL_NIF_TERM argv[], ErlNifBinary *input, ErlNifUInt64 *offset,
                        ErlNifUInt64 *size) {
  return enif_inspect_binary(env, argv[0], input) && enif_get_uint64(env, argv[1], offset) &&
         enif_get_uint64(env, argv[2], size);
}

static ERL_NIF_TERM inflate_at_dirty(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary input;
  ErlNifUInt64 offset, size;
  (void)argc;
  if (!inflate_args(env, argv, &input, &offset, &size)) return enif_make_badarg(env);
  return inflate_one(env, &input, offset, size);
}

static ERL_NIF_TERM inflate_at_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary input;
  ErlNifUInt64 offset, size;
  if (!inflate_args(env, argv, &input, &offset, &size)) return enif_make_badarg(env);
  if (size >= DIRTY_INFLATE)
    return enif_schedule_nif(env, "bufkit_inflate_dirty", ERL_NIF_DIRTY_JOB_CPU_BOUND, inflate_at_dirty, argc, argv);
  return inflate_one(env, &input, offset, size);
}

/* inflate_stream_new(Format, Origin, Size) -> {ok, Stream}: Format 0 zlib, 1 raw; the output
   binary of Size bytes is allocated now. */
static ERL_NIF_TERM inflate_stream_new_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  unsigned format;
  ErlNifUInt64 origin, size;
  stream_res *res;
  bk_status status;
  (void)argc;
  if (!enif_get_uint(env, argv[0], &format) || !enif_get_uint64(env, argv[1], &origin) || !enif_get_uint64(env, argv[2], &size))
    return enif_make_badarg(env);
  if (origin > (ErlNifUInt64)SIZE_MAX || size > (ErlNifUInt64)SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  res = enif_alloc_resource(stream_type, sizeof *res);
  if (!res) return error_term(env, BK_STATUS_ALLOC_FAILED);
  memset(res, 0, sizeof *res);
  res->lock = enif_mutex_create("bufkit_inflate_stream");
  status = res->lock ? bk_inflate_stream_new(format, (size_t)origin, &res->stream) : BK_STATUS_ALLOC_FAILED;
  if (status == BK_STATUS_OK && !(res->has_out = enif_alloc_binary((size_t)size, &res->out))) status = BK_STATUS_ALLOC_FAILED;
  if (status != BK_STATUS_OK) {
    enif_release_resource(res); /* the destructor frees what was made */
    return error_term(env, status);
  }
  return ok_resource(env, res);
}

/* inflate_stream_reset(Stream, Origin, Size): ready for the next stream, with a new output. */
static ERL_NIF_TERM inflate_stream_reset_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  stream_res *res;
  ErlNifUInt64 origin, size;
  bk_status status;
  (void)argc;
  if (!enif_get_resource(env, argv[0], stream_type, (void **)&res) || !enif_get_uint64(env, argv[1], &origin) ||
      !enif_get_uint64(env, argv[2], &size))
    return enif_make_badarg(env);
  if (origin > (ErlNifUInt64)SIZE_MAX || size > (ErlNifUInt64)SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  enif_mutex_lock(res->lock);
  status = bk_inflate_stream_reset(res->stream, (size_t)origin);
  if (status == BK_STATUS_OK) {
    if (res->has_out) enif_release_binary(&res->out);
    res->has_out = enif_alloc_binary((size_t)size, &res->out);
    res->consumed = 0;
    if (!res->has_out) status = BK_STATUS_ALLOC_FAILED;
  }
  enif_mutex_unlock(res->lock);
  return ok_or_error(env, status);
}

/* inflate_stream_feed(Stream, Binary) -> {more, Used} | {done, Used, Consumed, Output} | {error, R}.
   An empty binary says the input has ended. Once done, the output binary is handed over (no
   copy); feeding again is {error, invalid_argument} until a reset. */
static ERL_NIF_TERM stream_feed(ErlNifEnv *env, const ERL_NIF_TERM argv[]) {
  static const uint8_t none = 0;
  stream_res *res;
  ErlNifBinary input;
  size_t used = 0, consumed = 0;
  bk_status status;
  ERL_NIF_TERM result;
  if (!enif_get_resource(env, argv[0], stream_type, (void **)&res) || !enif_inspect_binary(env, argv[1], &input))
    return enif_make_badarg(env);
  enif_mutex_lock(res->lock);
  if (!res->has_out) {
    enif_mutex_unlock(res->lock);
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  }
  status = bk_inflate_stream_feed(res->stream, input.size ? input.data : &none, input.size, res->out.data, res->out.size, &used,
                                  &consumed);
  if (status != BK_STATUS_OK) {
    result = error_term(env, status);
  } else if (consumed == 0) {
    result = enif_make_tuple2(env, enif_make_atom(env, "more"), enif_make_uint64(env, used));
  } else {
    res->has_out = 0;
    res->consumed = consumed;
    result = enif_make_tuple4(env, enif_make_atom(env, "done"), enif_make_uint64(env, used), enif_make_uint64(env, consumed),
                              enif_make_binary(env, &res->out));
  }
  enif_mutex_unlock(res->lock);
  return result;
}

static ERL_NIF_TERM inflate_stream_feed_dirty(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  (void)argc;
  return stream_feed(env, argv);
}

/* Large pieces (DIRTY_INFLATE and up) are fed on a dirty scheduler. */
static ERL_NIF_TERM inflate_stream_feed_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary input;
  if (enif_inspect_binary(env, argv[1], &input) && input.size >= DIRTY_INFLATE)
    return enif_schedule_nif(env, "bufkit_inflate_stream_dirty", ERL_NIF_DIRTY_JOB_CPU_BOUND, inflate_stream_feed_dirty, argc,
                             argv);
  return stream_feed(env, argv);
}

/* inflate_batch(Binary, [{Offset, Size}]) -> [Result]: registered dirty, since a batch exists to do
 * a lot of work in one call. */
static ERL_NIF_TERM inflate_batch_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary input, out;
  ERL_NIF_TERM list = argv[1], head, result, whole;
  unsigned length, runs = 0;
  bk_inflate_request *requests;
  bk_inflate_result *results;
  bk_status *refused, status;
  size_t *at, total = 0, succeeded = 0;
  bk_inflater *inf = inflater();
  (void)argc;
  if (!enif_inspect_binary(env, argv[0], &input) || !enif_get_list_length(env, list, &length)) return enif_make_badarg(env);
  if (!inf) return error_term(env, BK_STATUS_ALLOC_FAILED);
  /* One block for the requests that run, their results, where each request's output starts and
     its refusal (or OK). */
  requests = enif_alloc((size_t)length * (sizeof *requests + sizeof *results + sizeof *at + sizeof *refused) + 1);
  if (!requests) return error_term(env, BK_STATUS_ALLOC_FAILED);
  results = (bk_inflate_result *)(requests + length); /* each part aligned for the next: 16, 16, 8, 4 bytes */
  at = (size_t *)(results + length);
  refused = (bk_status *)(at + length);
  for (unsigned i = 0; enif_get_list_cell(env, list, &head, &list); i++) {
    const ERL_NIF_TERM *pair;
    int arity;
    ErlNifUInt64 offset, size;
    if (!enif_get_tuple(env, head, &arity, &pair) || arity != 2 || !enif_get_uint64(env, pair[0], &offset) ||
        !enif_get_uint64(env, pair[1], &size)) {
      enif_free(requests);
      return enif_make_badarg(env);
    }
    /* A size the input cannot reach is refused before any memory is set aside for it. */
    refused[i] = offset > input.size || size > (ErlNifUInt64)SIZE_MAX - total
                     ? BK_STATUS_OUT_OF_RANGE
                     : bk_inflate_check_reachable(inf, input.data, input.size, (size_t)offset, (size_t)size);
    if (refused[i] != BK_STATUS_OK) continue;
    requests[runs].offset = (size_t)offset, requests[runs].expected_len = (size_t)size;
    at[i] = total;
    total += (size_t)size;
    runs++;
  }
  /* Every output in one binary, each stream's a sub-binary of it: one allocation per batch. */
  if (!enif_alloc_binary(total, &out)) {
    enif_free(requests);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  status = bk_inflate_batch(inf, input.data, input.size, requests, runs, out.data, out.size, results, &succeeded);
  if (status != BK_STATUS_OK) {
    enif_release_binary(&out);
    enif_free(requests);
    return error_term(env, status);
  }
  whole = enif_make_binary(env, &out);
  result = enif_make_list(env, 0);
  for (unsigned i = length, run = runs; i-- > 0;) { /* from the end: the list is built in order */
    ERL_NIF_TERM one;
    if (refused[i] != BK_STATUS_OK) {
      one = error_term(env, refused[i]);
    } else {
      const bk_inflate_result *r = &results[--run];
      one = r->status == BK_STATUS_OK
                ? enif_make_tuple3(env, atom_ok, enif_make_sub_binary(env, whole, at[i], requests[run].expected_len),
                                   enif_make_uint64(env, r->consumed))
                : error_term(env, (bk_status)r->status);
    }
    result = enif_make_list_cell(env, one, result);
  }
  enif_free(requests);
  return result;
}

/* ---- extract: runs on a dirty I/O scheduler; progress, if asked, goes to a pid as messages
 * {bufkit_extract_progress, EntriesDone, EntriesTotal, BytesDone, BytesTotal}, sent from the
 * extraction's worker threads (enif_send with no caller env is allowed from any thread). */

typedef struct {
  ErlNifPid pid;
} progress_target;

static void send_progress(void *user, uint64_t done, uint64_t total, uint64_t bytes, uint64_t bytes_total) {
  progress_target *target = user;
  ErlNifEnv *msg_env = enif_alloc_env();
  ERL_NIF_TERM msg;
  if (!msg_env) return;
  msg = enif_make_tuple5(msg_env, enif_make_atom(msg_env, "bufkit_extract_progress"), enif_make_uint64(msg_env, done),
                         enif_make_uint64(msg_env, total), enif_make_uint64(msg_env, bytes),
                         enif_make_uint64(msg_env, bytes_total));
  enif_send(NULL, &target->pid, msg_env, msg);
  enif_free_env(msg_env);
}

/* A NUL-terminated copy of a binary path, or NULL. The caller frees it with enif_free. */
static char *path_arg(ErlNifEnv *env, ERL_NIF_TERM term) {
  ErlNifBinary bin;
  char *path;
  if (!enif_inspect_binary(env, term, &bin) || memchr(bin.data, 0, bin.size)) return NULL;
  path = enif_alloc(bin.size + 1);
  if (!path) return NULL;
  memcpy(path, bin.data, bin.size);
  path[bin.size] = 0;
  return path;
}

/* The atom Erlang's file module uses for an errno: enoent, eacces, enospc... */
static ERL_NIF_TERM posix_atom(ErlNifEnv *env, int os_error) {
  const char *name = strerrorname_np(os_error);
  char lower[32];
  size_t i = 0;
  if (!name) return enif_make_tuple2(env, enif_make_atom(env, "os_error"), enif_make_int(env, os_error));
  for (; name[i] && i < sizeof lower - 1; i++) lower[i] = (char)tolower((unsigned char)name[i]);
  lower[i] = 0;
  return enif_make_atom(env, lower);
}

/* One extraction on a thread of its own, so that the dirty scheduler waiting for it can notice
 * that the calling process died (enif_is_current_process_alive) and cancel: a killed caller
 * must not have its destination replaced seconds later. */
typedef struct {
  const char *archive, *dest;
  const bk_extract_options *opts;
  bk_extract_report report;
  bk_extract_failure failure;
  bk_status status;
  int done;
  pthread_mutex_t lock;
  pthread_cond_t finished;
} extract_job;

static void *run_extract_job(void *arg) {
  extract_job *job = arg;
  bk_status status = bk_extract_detailed(job->archive, job->dest, job->opts, &job->report, &job->failure);
  pthread_mutex_lock(&job->lock);
  job->status = status;
  job->done = 1;
  pthread_cond_signal(&job->finished);
  pthread_mutex_unlock(&job->lock);
  return NULL;
}

/* Runs the job and waits for it, checking every 10 ms that the caller still lives. */
static bk_status extract_watching_caller(ErlNifEnv *env, extract_job *job, bk_cancel *cancel) {
  pthread_t thread;
  int requested = 0;
  pthread_mutex_init(&job->lock, NULL);
  pthread_cond_init(&job->finished, NULL);
  if (pthread_create(&thread, NULL, run_extract_job, job) != 0) {
    job->status = BK_STATUS_ALLOC_FAILED;
  } else {
    pthread_mutex_lock(&job->lock);
    while (!job->done) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += 10 * 1000 * 1000;
      if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
      if (pthread_cond_timedwait(&job->finished, &job->lock, &until) == ETIMEDOUT && !requested &&
          !enif_is_current_process_alive(env)) {
        bk_cancel_request(cancel);
        requested = 1;
      }
    }
    pthread_mutex_unlock(&job->lock);
    pthread_join(thread, NULL);
  }
  pthread_cond_destroy(&job->finished);
  pthread_mutex_destroy(&job->lock);
  return job->status;
}

static ERL_NIF_TERM extract_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  char *archive = path_arg(env, argv[0]), *dest = path_arg(env, argv[1]);
  bk_extract_options *opts = NULL;
  bk_cancel *cancel = NULL;
  progress_target target;
  extract_job *job = enif_alloc(sizeof *job);
  ERL_NIF_TERM value, result, list, head, keys[8], values[8], map;
  bk_status status = BK_STATUS_INVALID_ARGUMENT;
  (void)argc;
  if (!job) {
    enif_free(archive);
    enif_free(dest);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  memset(job, 0, sizeof *job);
  if (!archive || !dest || !enif_is_map(env, argv[2]) || bk_extract_options_new(&opts) != BK_STATUS_OK) goto done;
  {
    size_t n = 0;
    if (!size_option(env, argv[2], "threads", &n) || n > 1024) goto done;
    bk_extract_options_set_threads(opts, (uint32_t)n);
    n = 0;
    if (!size_option(env, argv[2], "quota", &n)) goto done;
    bk_extract_options_set_quota(opts, n);
  }
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "max_ratio"), &value)) {
    double ratio;
    ErlNifSInt64 whole;
    if (enif_get_int64(env, value, &whole)) ratio = (double)whole;
    else if (!enif_get_double(env, value, &ratio)) goto done;
    if (bk_extract_options_set_max_ratio(opts, ratio) != BK_STATUS_OK) goto done;
  }
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "mode"), &value)) {
    uint32_t mode;
    if (enif_is_identical(value, enif_make_atom(env, "create"))) mode = BK_EXTRACT_CREATE;
    else if (enif_is_identical(value, enif_make_atom(env, "replace"))) mode = BK_EXTRACT_REPLACE;
    else if (enif_is_identical(value, enif_make_atom(env, "merge"))) mode = BK_EXTRACT_MERGE;
    else goto done;
    if (bk_extract_options_set_mode(opts, mode) != BK_STATUS_OK) goto done;
  }
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "strict"), &value))
    bk_extract_options_set_strict(opts, enif_is_identical(value, enif_make_atom(env, "true")) ? 1 : 0);
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "skip_symlinks"), &value))
    bk_extract_options_set_skip_symlinks(opts, enif_is_identical(value, enif_make_atom(env, "true")) ? 1 : 0);
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "durable"), &value))
    bk_extract_options_set_durable(opts, enif_is_identical(value, enif_make_atom(env, "true")) ? 1 : 0);
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "no_mtime"), &value))
    bk_extract_options_set_no_mtime(opts, enif_is_identical(value, enif_make_atom(env, "true")) ? 1 : 0);
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "incremental"), &value))
    bk_extract_options_set_incremental(opts, enif_is_identical(value, enif_make_atom(env, "true")) ? 1 : 0);
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "fold_case"), &value))
    bk_extract_options_set_fold_case(opts, enif_is_identical(value, enif_make_atom(env, "true")) ? 1 : 0);
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "only"), &list)) {
    while (enif_get_list_cell(env, list, &head, &list)) {
      char *pattern = path_arg(env, head);
      if (!pattern) goto done;
      status = bk_extract_options_add_only(opts, pattern);
      enif_free(pattern);
      if (status != BK_STATUS_OK) goto done;
    }
    status = BK_STATUS_INVALID_ARGUMENT;
  }
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "progress"), &value)) {
    unsigned interval_ms = 50; /* a message per entry floods the mailbox: 15,224 for a JDK src.zip */
    ERL_NIF_TERM interval;
    if (!enif_get_local_pid(env, value, &target.pid)) goto done;
    if (enif_get_map_value(env, argv[2], enif_make_atom(env, "progress_interval_ms"), &interval) &&
        !enif_get_uint(env, interval, &interval_ms))
      goto done;
    bk_extract_options_set_progress(opts, send_progress, &target);
    bk_extract_options_set_progress_interval(opts, interval_ms);
  }
  if ((status = bk_cancel_new(&cancel)) != BK_STATUS_OK || (status = bk_extract_options_set_cancel(opts, cancel)) != BK_STATUS_OK)
    goto done;
  job->archive = archive, job->dest = dest, job->opts = opts;
  job->report.size = sizeof job->report;
  status = extract_watching_caller(env, job, cancel);
done:
  enif_free(archive);
  enif_free(dest);
  bk_extract_options_free(opts);
  bk_cancel_free(cancel);
  if (status != BK_STATUS_OK) {
    ErlNifBinary name;
    ERL_NIF_TERM reason = status_atom(env, status);
    size_t len = strlen(job->failure.path);
    if (status == BK_STATUS_IO_ERROR && job->failure.os_error != 0) reason = posix_atom(env, job->failure.os_error);
    if (!enif_alloc_binary(len, &name)) {
      enif_free(job);
      return error_term(env, BK_STATUS_ALLOC_FAILED);
    }
    memcpy(name.data, job->failure.path, len);
    enif_free(job);
    return enif_make_tuple2(env, atom_error, enif_make_tuple2(env, reason, enif_make_binary(env, &name)));
  }
  keys[0] = enif_make_atom(env, "files"), values[0] = enif_make_uint64(env, job->report.files);
  keys[1] = enif_make_atom(env, "directories"), values[1] = enif_make_uint64(env, job->report.directories);
  keys[2] = enif_make_atom(env, "bytes"), values[2] = enif_make_uint64(env, job->report.bytes);
  keys[3] = enif_make_atom(env, "skipped"), values[3] = enif_make_uint64(env, job->report.skipped);
  keys[4] = enif_make_atom(env, "reused"), values[4] = enif_make_uint64(env, job->report.reused);
  keys[5] = enif_make_atom(env, "prepended"), values[5] = enif_make_uint64(env, job->report.prepended);
  keys[6] = enif_make_atom(env, "appended"), values[6] = enif_make_uint64(env, job->report.appended);
  keys[7] = enif_make_atom(env, "symlinks_skipped"), values[7] = enif_make_uint64(env, job->report.symlinks_skipped);
  enif_free(job);
  if (!enif_make_map_from_arrays(env, keys, values, 8, &map)) return enif_make_badarg(env);
  result = enif_make_tuple2(env, atom_ok, map);
  return result;
}

/* archive_open(Path, Holding, LocalHeaders): Holding is read | map, LocalHeaders at_open |
 * on_first_read. Reads and validates the archive: registered on a dirty I/O scheduler. */
static ERL_NIF_TERM archive_open_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary path;
  char holding[8], local_headers[16], *cpath;
  bk_archive_options options;
  bk_archive *archive = NULL;
  archive_res *res;
  bk_status status;
  (void)argc;
  if (!enif_inspect_binary(env, argv[0], &path) || !enif_get_atom(env, argv[1], holding, sizeof holding, ERL_NIF_LATIN1) ||
      !enif_get_atom(env, argv[2], local_headers, sizeof local_headers, ERL_NIF_LATIN1))
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  bk_archive_options_default(&options);
  if (strcmp(holding, "map") == 0) options.holding = BK_ARCHIVE_MAP;
  else if (strcmp(holding, "read") != 0) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  if (strcmp(local_headers, "on_first_read") == 0) options.local_headers = BK_LOCAL_HEADERS_ON_FIRST_READ;
  else if (strcmp(local_headers, "at_open") != 0) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  if (memchr(path.data, 0, path.size) || !(cpath = enif_alloc(path.size + 1))) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  memcpy(cpath, path.data, path.size);
  cpath[path.size] = 0;
  status = bk_archive_open(cpath, &options, &archive);
  enif_free(cpath);
  if (status != BK_STATUS_OK) return error_term(env, status);
  if (!(res = enif_alloc_resource(archive_type, sizeof *res))) {
    bk_archive_free(archive);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  res->archive = archive;
  atomic_init(&res->users, 0);
  atomic_init(&res->closed, 0);
  atomic_init(&res->freed, 0);
  atomic_init(&res->views_made, 0);
  return ok_resource(env, res);
}

/* archive_close(Archive) -> ok: no call may use it after this ({error, closed}); freed now, or
   when the calls using it end, or (after zero-copy views) when the last view is collected. */
static ERL_NIF_TERM archive_close_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  int expected = 0;
  (void)argc;
  if (!enif_get_resource(env, argv[0], archive_type, (void **)&res)) return enif_make_badarg(env);
  if (!atomic_compare_exchange_strong(&res->closed, &expected, 1)) return atom_ok; /* closed before */
  if (atomic_load(&res->users) == 0) archive_free_once(res);
  return atom_ok;
}

/* archive_find(Archive, Name) -> {ok, Index} | {error, not_found}. */
static ERL_NIF_TERM archive_find_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifBinary name;
  size_t index;
  bk_status status;
  (void)argc;
  int acquired;
  if (!enif_inspect_binary(env, argv[1], &name)) return enif_make_badarg(env);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_find(res->archive, (const char *)name.data, name.size, &index);
  archive_release(res);
  if (status != BK_STATUS_OK) return error_term(env, status);
  return enif_make_tuple2(env, atom_ok, enif_make_uint64(env, index));
}

/* archive_verify(Archive, Threads) -> ok | {error, {Status, Failed, FirstIndex}}: every entry
   checked as a read would, nothing written; long, so on a dirty I/O scheduler. */
static ERL_NIF_TERM archive_verify_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  unsigned threads;
  size_t failed = 0, first = SIZE_MAX;
  bk_status status;
  (void)argc;
  int acquired;
  if (!enif_get_uint(env, argv[1], &threads)) return enif_make_badarg(env);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_verify(res->archive, threads, &failed, &first);
  archive_release(res);
  if (status == BK_STATUS_OK) return atom_ok;
  return enif_make_tuple2(env, atom_error,
                          enif_make_tuple3(env, status_atom(env, status), enif_make_uint64(env, failed),
                                           enif_make_uint64(env, first)));
}

/* archive_entries(Archive) -> [{Index, Name, Size, file | directory}] in archive order (Index is
 * what archive_read/2 takes). */
static ERL_NIF_TERM archive_entries_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  size_t count = 0;
  ERL_NIF_TERM list;
  int acquired;
  (void)argc;
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  if (bk_archive_entry_count(res->archive, &count) != BK_STATUS_OK) {
    archive_release(res);
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  }
  list = enif_make_list(env, 0);
  for (size_t i = count; i-- > 0;) {
    const char *name;
    size_t len;
    bk_archive_entry info;
    ERL_NIF_TERM bin;
    unsigned char *p;
    if (bk_archive_entry_name(res->archive, i, &name, &len) != BK_STATUS_OK ||
        bk_archive_entry_info(res->archive, i, &info) != BK_STATUS_OK || !(p = enif_make_new_binary(env, len, &bin))) {
      archive_release(res);
      return error_term(env, BK_STATUS_ALLOC_FAILED);
    }
    memcpy(p, name, len);
    list = enif_make_list_cell(env,
                               enif_make_tuple4(env, enif_make_uint64(env, i), bin, enif_make_uint64(env, info.size),
                                                enif_make_atom(env, info.is_directory ? "directory" : "file")),
                               list);
  }
  archive_release(res);
  return list;
}

/* archive_list(Archive, Pattern | all) -> [Name] of the entries matching (bk_archive_list's
 * patterns), in archive order. */
static ERL_NIF_TERM archive_list_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifBinary pattern;
  const char *p = NULL;
  size_t p_len = 0, count = 0, *indexes;
  bk_status status;
  ERL_NIF_TERM list;
  (void)argc;
  int acquired;
  if (enif_inspect_binary(env, argv[1], &pattern)) p = (const char *)pattern.data, p_len = pattern.size;
  else if (!enif_is_identical(argv[1], enif_make_atom(env, "all"))) return enif_make_badarg(env);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_list(res->archive, p ? p : NULL, p_len, NULL, 0, &count);
  if (status != BK_STATUS_OK) {
    archive_release(res);
    return error_term(env, status);
  }
  if (!(indexes = enif_alloc((count ? count : 1) * sizeof *indexes))) {
    archive_release(res);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  status = bk_archive_list(res->archive, p, p_len, indexes, count, &count);
  list = enif_make_list(env, 0);
  for (size_t i = count; status == BK_STATUS_OK && i-- > 0;) {
    const char *name;
    size_t len;
    ERL_NIF_TERM bin;
    unsigned char *dst;
    if (bk_archive_entry_name(res->archive, indexes[i], &name, &len) != BK_STATUS_OK || !(dst = enif_make_new_binary(env, len, &bin))) {
      status = BK_STATUS_ALLOC_FAILED;
      break;
    }
    memcpy(dst, name, len);
    list = enif_make_list_cell(env, bin, list);
  }
  archive_release(res);
  enif_free(indexes);
  return status == BK_STATUS_OK ? list : error_term(env, status);
}

static ERL_NIF_TERM archive_read_one(ErlNifEnv *env, archive_res *res, size_t index) {
  bk_archive_entry info;
  size_t written = 0;
  ErlNifBinary out;
  const uint8_t *view;
  size_t view_len;
  bk_status status = bk_archive_entry_info(res->archive, index, &info);
  if (status != BK_STATUS_OK) return error_term(env, status);
  if (info.is_directory) return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  /* A stored entry: a binary over the archive's own bytes, no copy, that keeps the archive alive
     while it lives (its CRC is checked on the first view). */
  if (info.method == 0) {
    status = bk_archive_view(res->archive, index, &view, &view_len);
    if (status == BK_STATUS_OK) {
      atomic_store(&res->views_made, 1); /* set before this call's release can free the archive */
      return enif_make_tuple2(env, atom_ok, enif_make_resource_binary(env, res, view, view_len));
    }
    if (status != BK_STATUS_INVALID_ARGUMENT) return error_term(env, status);
  }
  if (info.size > SIZE_MAX || !enif_alloc_binary((size_t)info.size, &out)) return error_term(env, BK_STATUS_ALLOC_FAILED);
  status = bk_archive_read(res->archive, index, out.data, out.size, &written);
  if (status != BK_STATUS_OK) {
    enif_release_binary(&out);
    return error_term(env, status);
  }
  return enif_make_tuple2(env, atom_ok, enif_make_binary(env, &out));
}

static ERL_NIF_TERM archive_read_dirty(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index;
  ERL_NIF_TERM result;
  int acquired;
  (void)argc;
  if (!enif_get_uint64(env, argv[1], &index)) return enif_make_badarg(env);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  result = archive_read_one(env, res, (size_t)index);
  archive_release(res);
  return result;
}

/* archive_read(Archive, Index) -> {ok, Binary}: the whole entry, inflated straight into the new
 * binary; entries of DIRTY_INFLATE bytes or more are read on a dirty CPU scheduler. */
static ERL_NIF_TERM archive_read_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index;
  bk_archive_entry info;
  ERL_NIF_TERM result;
  int acquired;
  if (!enif_get_uint64(env, argv[1], &index)) return enif_make_badarg(env);
  if (index > SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  if (bk_archive_entry_info(res->archive, (size_t)index, &info) == BK_STATUS_OK && info.size >= DIRTY_INFLATE) {
    archive_release(res);
    return enif_schedule_nif(env, "bufkit_archive_read_dirty", ERL_NIF_DIRTY_JOB_CPU_BOUND, archive_read_dirty, argc, argv);
  }
  result = archive_read_one(env, res, (size_t)index);
  archive_release(res);
  return result;
}

static ErlNifFunc nif_funcs[] = {
    {"version", 0, version_nif, 0},
    {"abi_version", 0, abi_version_nif, 0},
    {"test_panic", 0, test_panic_nif, 0},
    {"buffer_new", 1, buffer_new_nif, 0},
    {"buffer_append", 2, append_nif, 0},
    {"buffer_append_iolist", 2, append_iolist_nif, 0},
    {"buffer_reserve", 2, reserve_nif, 0},
    {"buffer_clear", 1, clear_nif, 0},
    {"buffer_stats", 1, stats_nif, 0},
    {"buffer_to_binary", 1, to_binary_nif, 0},
    {"buffer_flatten", 1, flatten_nif, 0},
    {"buffer_free", 1, buffer_free_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"pool_new", 1, pool_new_nif, 0},
    {"pool_acquire", 2, pool_acquire_nif, 0},
    {"pool_release", 2, pool_release_nif, 0},
    {"pool_trim", 1, pool_trim_nif, 0},
    {"pool_stats", 1, pool_stats_nif, 0},
    {"lease_size", 1, lease_size_nif, 0},
    {"lease_write", 3, lease_write_nif, 0},
    {"lease_read", 3, lease_read_nif, 0},
    {"lease_view", 1, lease_view_nif, 0},
    {"inflate_at", 3, inflate_at_nif, 0},
    {"inflate_batch", 2, inflate_batch_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"inflate_stream_new", 3, inflate_stream_new_nif, 0},
    {"inflate_stream_reset", 3, inflate_stream_reset_nif, 0},
    {"inflate_stream_feed", 2, inflate_stream_feed_nif, 0},
    {"extract", 3, extract_nif, ERL_NIF_DIRTY_JOB_IO_BOUND},
    {"archive_open", 3, archive_open_nif, ERL_NIF_DIRTY_JOB_IO_BOUND},
    {"archive_close", 1, archive_close_nif, 0},
    {"archive_find", 2, archive_find_nif, 0},
    {"archive_list", 2, archive_list_nif, 0},
    {"archive_entries", 1, archive_entries_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"archive_verify", 2, archive_verify_nif, ERL_NIF_DIRTY_JOB_IO_BOUND},
    {"archive_read", 2, archive_read_nif, 0},
};

ERL_NIF_INIT(bufkit_nif, nif_funcs, load, NULL, upgrade, NULL)

/* The bufkit NIF's pools and leases. */
#include "nif.h"
#include "records.gen.h"

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

void pool_dtor(ErlNifEnv *env, void *obj) {
  pool_res *res = obj;
  (void)env;
  bk_pool_free(res->pool); /* every lease is gone by now: they kept this resource alive */
  res->pool = NULL;
}

void lease_dtor(ErlNifEnv *env, void *obj) {
  lease_res *res = obj;
  (void)env;
  lease_return(res); /* nothing refers to it any more: no view, no copy */
  enif_release_resource(res->owner);
}

/* nif pool_new(Options) */
ERL_NIF_TERM pool_new_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
    if (!enif_get_atom(env, value, flag, sizeof flag, ERL_NIF_LATIN1))
      return error_term(env, BK_STATUS_INVALID_ARGUMENT);
    if (!strcmp(flag, "true"))
      config.zero_on_acquire = 1;
    else if (!strcmp(flag, "false"))
      config.zero_on_acquire = 0;
    else
      return error_term(env, BK_STATUS_INVALID_ARGUMENT);
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

/* nif pool_acquire(Pool, Size) */
ERL_NIF_TERM pool_acquire_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
/* nif pool_release(Pool, Lease) */
ERL_NIF_TERM pool_release_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
  if (__atomic_load_n(&res->released, __ATOMIC_SEQ_CST) ||
      (writing && __atomic_load_n(&res->viewed, __ATOMIC_SEQ_CST))) {
    __atomic_sub_fetch(&res->busy, 1, __ATOMIC_SEQ_CST);
    return 0;
  }
  return 1;
}

static void lease_leave(lease_res *res) { __atomic_sub_fetch(&res->busy, 1, __ATOMIC_SEQ_CST); }

/* lease_write(Lease, Offset, IoData): copies the bytes into the lease at Offset. */
/* nif lease_write(Lease, Offset, Data) */
ERL_NIF_TERM lease_write_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  lease_res *res;
  ErlNifUInt64 offset;
  ErlNifBinary data;
  (void)argc;
  if (!enif_get_resource(env, argv[0], lease_type, (void **)&res) || !enif_get_uint64(env, argv[1], &offset) ||
      !enif_inspect_iolist_as_binary(env, argv[2], &data))
    return enif_make_badarg(env);
  if (offset > res->lease.len || data.size > res->lease.len - offset) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if (!lease_enter(res, 1))
    return enif_make_tuple2(
        env, atom_error,
        enif_make_atom(env, __atomic_load_n(&res->released, __ATOMIC_SEQ_CST) ? "lease_invalid" : "viewed"));
  memcpy(res->lease.data + offset, data.data, data.size);
  lease_leave(res);
  return atom_ok;
}

/* lease_read(Lease, Offset, Length): a copy of those bytes as a fresh binary. */
/* nif lease_read(Lease, Offset, Length) */
ERL_NIF_TERM lease_read_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
/* nif lease_view(Lease) */
ERL_NIF_TERM lease_view_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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

/* nif lease_size(Lease) */
ERL_NIF_TERM lease_size_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  lease_res *res;
  (void)argc;
  if (!enif_get_resource(env, argv[0], lease_type, (void **)&res)) return enif_make_badarg(env);
  if (__atomic_load_n(&res->released, __ATOMIC_ACQUIRE)) return error_term(env, BK_STATUS_LEASE_INVALID);
  return enif_make_tuple2(env, atom_ok, enif_make_uint64(env, res->lease.len));
}

/* nif pool_trim(Pool) */
ERL_NIF_TERM pool_trim_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  pool_res *pool;
  (void)argc;
  if (!enif_get_resource(env, argv[0], pool_type, (void **)&pool)) return enif_make_badarg(env);
  return ok_or_error(env, bk_pool_trim(pool->pool));
}

/* nif pool_stats(Pool) */
ERL_NIF_TERM pool_stats_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  pool_res *pool;
  bk_pool_stats s;
  bk_status status;
  (void)argc;
  if (!enif_get_resource(env, argv[0], pool_type, (void **)&pool)) return enif_make_badarg(env);
  status = bk_pool_get_stats(pool->pool, &s);
  if (status != BK_STATUS_OK) return error_term(env, status);
  return enif_make_tuple2(env, atom_ok, pool_stats_to_map(env, &s));
}

/* The bufkit NIF's inflate: at offsets, in batches, and streams fed in pieces. */
#include "nif.h"
#include "enum_atoms.gen.h"

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

void stream_dtor(ErlNifEnv *env, void *obj) {
  stream_res *res = obj;
  (void)env;
  bk_inflate_stream_free(res->stream);
  if (res->has_out) enif_release_binary(&res->out);
  if (res->lock) enif_mutex_destroy(res->lock);
}

/* ---- inflate: one decoder per scheduler thread (created on first use, reused for every call on
 * that thread; decoders are not thread-safe, scheduler threads never share one). */

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

/* nif inflate_at(Binary, Offset, Size) */
ERL_NIF_TERM inflate_at_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary input;
  ErlNifUInt64 offset, size;
  if (!inflate_args(env, argv, &input, &offset, &size)) return enif_make_badarg(env);
  if (size >= DIRTY_INFLATE)
    return enif_schedule_nif(env, "bufkit_inflate_dirty", ERL_NIF_DIRTY_JOB_CPU_BOUND, inflate_at_dirty, argc, argv);
  return inflate_one(env, &input, offset, size);
}

/* inflate_stream_new(Format, Origin, Size) -> {ok, Stream}: Format zlib or raw; the output
   binary of Size bytes is allocated now. */
/* nif inflate_stream_new(Format, Origin, Size) */
ERL_NIF_TERM inflate_stream_new_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  uint32_t format;
  ErlNifUInt64 origin, size;
  stream_res *res;
  bk_status status;
  (void)argc;
  if (!bk_format_from_atom(env, argv[0], &format) || !enif_get_uint64(env, argv[1], &origin) ||
      !enif_get_uint64(env, argv[2], &size))
    return enif_make_badarg(env);
  if (origin > (ErlNifUInt64)SIZE_MAX || size > (ErlNifUInt64)SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  res = enif_alloc_resource(stream_type, sizeof *res);
  if (!res) return error_term(env, BK_STATUS_ALLOC_FAILED);
  memset(res, 0, sizeof *res);
  res->lock = enif_mutex_create("bufkit_inflate_stream");
  status = res->lock ? bk_inflate_stream_new(format, (size_t)origin, &res->stream) : BK_STATUS_ALLOC_FAILED;
  if (status == BK_STATUS_OK && !(res->has_out = enif_alloc_binary((size_t)size, &res->out)))
    status = BK_STATUS_ALLOC_FAILED;
  if (status != BK_STATUS_OK) {
    enif_release_resource(res); /* the destructor frees what was made */
    return error_term(env, status);
  }
  return ok_resource(env, res);
}

/* inflate_stream_reset(Stream, Origin, Size): ready for the next stream, with a new output. */
/* nif inflate_stream_reset(Stream, Origin, Size) */
ERL_NIF_TERM inflate_stream_reset_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
  status = bk_inflate_stream_feed(res->stream, input.size ? input.data : &none, input.size, res->out.data,
                                  res->out.size, &used, &consumed);
  if (status != BK_STATUS_OK) {
    result = error_term(env, status);
  } else if (consumed == 0) {
    result = enif_make_tuple2(env, enif_make_atom(env, "more"), enif_make_uint64(env, used));
  } else {
    res->has_out = 0;
    res->consumed = consumed;
    result = enif_make_tuple4(env, enif_make_atom(env, "done"), enif_make_uint64(env, used),
                              enif_make_uint64(env, consumed), enif_make_binary(env, &res->out));
  }
  enif_mutex_unlock(res->lock);
  return result;
}

static ERL_NIF_TERM inflate_stream_feed_dirty(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  (void)argc;
  return stream_feed(env, argv);
}

/* Large pieces (DIRTY_INFLATE and up) are fed on a dirty scheduler. */
/* nif inflate_stream_feed(Stream, Binary) */
ERL_NIF_TERM inflate_stream_feed_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary input;
  if (enif_inspect_binary(env, argv[1], &input) && input.size >= DIRTY_INFLATE)
    return enif_schedule_nif(env, "bufkit_inflate_stream_dirty", ERL_NIF_DIRTY_JOB_CPU_BOUND, inflate_stream_feed_dirty,
                             argc, argv);
  return stream_feed(env, argv);
}

/* inflate_batch(Binary, [{Offset, Size}]) -> [Result]: registered dirty, since a batch exists to do
 * a lot of work in one call. */
/* nif inflate_batch(Binary, Requests) dirty_cpu */
ERL_NIF_TERM inflate_batch_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary input, out;
  ERL_NIF_TERM list = argv[1], head, result, whole;
  unsigned length, runs = 0;
  bk_inflate_request *requests;
  bk_inflate_result *results;
  bk_status *refused, status;
  size_t *at, total = 0, succeeded = 0;
  bk_inflater *inf = inflater();
  (void)argc;
  if (!enif_inspect_binary(env, argv[0], &input) || !enif_get_list_length(env, list, &length))
    return enif_make_badarg(env);
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

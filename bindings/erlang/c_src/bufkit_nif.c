/*
 * The bufkit NIF: thin C over include/bufkit.h, statically linked with libbufkit.a. This file:
 * loading (resource types, atoms), status helpers and the NIF table; each object's NIFs are in a
 * file of their own (buffer.c, pool.c, inflate.c, extract.c, archive.c; nif.h between them).
 * Long work never runs on a normal scheduler: each part says where it runs.
 */
#include "nif.h"

ErlNifResourceType *buffer_type, *pool_type, *lease_type, *archive_type, *stream_type, *reader_type;
ERL_NIF_TERM atom_ok, atom_error, atom_closed, atom_len, atom_capacity, atom_grows, atom_moves, atom_bytes_copied;

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
    {BK_STATUS_CHECKPOINTS_REFUSED, "checkpoints_refused", 0},
};

static void make_status_atoms(ErlNifEnv *env) {
  for (size_t i = 0; i < sizeof status_atoms / sizeof status_atoms[0]; i++)
    status_atoms[i].atom = enif_make_atom(env, status_atoms[i].name);
}

ERL_NIF_TERM status_atom(ErlNifEnv *env, bk_status status) {
  for (size_t i = 0; i < sizeof status_atoms / sizeof status_atoms[0]; i++)
    if (status_atoms[i].status == status) return status_atoms[i].atom;
  return enif_make_tuple2(env, enif_make_atom(env, "unknown_status"), enif_make_uint(env, status));
}

ERL_NIF_TERM error_term(ErlNifEnv *env, bk_status status) {
  return enif_make_tuple2(env, atom_error, status_atom(env, status));
}

/* {ok, Resource}: the term takes over our reference to the resource. */
ERL_NIF_TERM ok_resource(ErlNifEnv *env, void *res) {
  ERL_NIF_TERM term = enif_make_resource(env, res);
  enif_release_resource(res);
  return enif_make_tuple2(env, atom_ok, term);
}

ERL_NIF_TERM ok_or_error(ErlNifEnv *env, bk_status status) {
  return status == BK_STATUS_OK ? atom_ok : error_term(env, status);
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
  reader_type = enif_open_resource_type(env, NULL, "bufkit_archive_reader", reader_dtor, flags, NULL);
  if (!buffer_type || !pool_type || !lease_type || !archive_type || !stream_type || !reader_type) return 1;
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
int size_option(ErlNifEnv *env, ERL_NIF_TERM map, const char *key, size_t *out) {
  ERL_NIF_TERM value;
  ErlNifUInt64 n;
  if (!enif_get_map_value(env, map, enif_make_atom(env, key), &value)) return 1;
  if (!enif_get_uint64(env, value, &n) || n > (ErlNifUInt64)SIZE_MAX) return 0;
  *out = (size_t)n;
  return 1;
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
    {"archive_read_at", 4, archive_read_at_nif, 0},
    {"archive_checkpoints_export", 2, archive_checkpoints_export_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"archive_checkpoints_import", 3, archive_checkpoints_import_nif, 0},
    {"archive_set_checkpoint_limits", 3, archive_set_checkpoint_limits_nif, 0},
    {"archive_reader_open", 2, archive_reader_open_nif, 0},
    {"archive_reader_read", 2, archive_reader_read_nif, 0},
    {"archive_reader_close", 1, archive_reader_close_nif, 0},
};

ERL_NIF_INIT(bufkit_nif, nif_funcs, load, NULL, upgrade, NULL)

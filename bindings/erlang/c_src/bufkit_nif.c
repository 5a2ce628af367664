/*
 * The bufkit NIF: thin C over include/bufkit.h, statically linked with libbufkit.a. This file:
 * loading (resource types, atoms), status helpers and the NIF table; each object's NIFs are in a
 * file of their own (buffer.c, pool.c, inflate.c, extract.c, archive.c; nif.h between them).
 * Long work never runs on a normal scheduler: each part says where it runs.
 */
#include "nif.h"

ErlNifResourceType *buffer_type, *pool_type, *lease_type, *archive_type, *stream_type, *reader_type, *incoming_type;
ERL_NIF_TERM atom_ok, atom_error, atom_closed;

/* Each status's atom, made once at load (and again at upgrade): the header's BK_STATUS_* names
   in lower case (generated, with the statuses). */
#include "status_atoms.gen.h"

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
  incoming_type = enif_open_resource_type(env, NULL, "bufkit_extract_stream", incoming_dtor, flags, NULL);
  if (!buffer_type || !pool_type || !lease_type || !archive_type || !stream_type || !reader_type || !incoming_type)
    return 1;
  atom_ok = enif_make_atom(env, "ok");
  atom_error = enif_make_atom(env, "error");
  atom_closed = enif_make_atom(env, "closed");
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

/* nif version() */
ERL_NIF_TERM version_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary bin;
  const char *v = bk_version();
  (void)argc;
  (void)argv;
  if (!enif_alloc_binary(strlen(v), &bin)) return enif_raise_exception(env, enif_make_atom(env, "enomem"));
  memcpy(bin.data, v, bin.size);
  return enif_make_binary(env, &bin);
}

/* nif abi_version() */
ERL_NIF_TERM abi_version_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  (void)argc;
  (void)argv;
  return enif_make_uint(env, bk_abi_version());
}

/* nif test_panic() */
ERL_NIF_TERM test_panic_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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

/* The NIF table: every "nif NAME(Args)" comment line of c_src/ (generated, with bufkit_nif.erl). */
#include "nif_table.gen.h"

ERL_NIF_INIT(bufkit_nif, nif_funcs, load, NULL, upgrade, NULL)

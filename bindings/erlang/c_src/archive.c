/* The bufkit NIF's archives read in place. */
#include "nif.h"
#include "enum_atoms.gen.h"

/* ---- archives read in place: a resource owns a bk_archive (thread-safe: any process reads).
   archive_close/1 frees it before the garbage collector would, without ever waiting: each call
   counts itself in `users` while it uses the archive; closing sets `closed`, and whoever sees
   the count at zero once it is closed (the closer, or the last call to finish) frees it, once.
   Zero-copy binaries of stored entries (views, `map` holding) point into the archive: once one
   has been made, the archive is freed only when the resource is (after the last binary). */

typedef struct {
  bk_archive *archive;
  atomic_int users;      /* calls using `archive` now */
  atomic_int closed;     /* archive_close/1 was called */
  atomic_int freed;      /* `archive` was freed (by close, or by the last call after it) */
  atomic_int views_made; /* a binary points into `archive`: only the destructor frees it */
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

void archive_dtor(ErlNifEnv *env, void *obj) {
  archive_res *res = obj;
  (void)env;
  if (!atomic_load(&res->freed)) bk_archive_free(res->archive);
}

/* archive_open(Path, Holding, LocalHeaders): Holding is read | map, LocalHeaders at_open |
 * on_first_read. Reads and validates the archive: registered on a dirty I/O scheduler. */
/* nif archive_open(Path, Holding, LocalHeaders) dirty_io */
ERL_NIF_TERM archive_open_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifBinary path;
  char *cpath;
  uint32_t holding, local_headers;
  bk_archive_options options;
  bk_archive *archive = NULL;
  archive_res *res;
  bk_status status;
  (void)argc;
  if (!enif_inspect_binary(env, argv[0], &path) || !bk_archive_holding_from_atom(env, argv[1], &holding) ||
      !bk_archive_local_headers_from_atom(env, argv[2], &local_headers))
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);
  bk_archive_options_default(&options);
  options.holding = holding;
  options.local_headers = local_headers;
  if (memchr(path.data, 0, path.size) || !(cpath = enif_alloc(path.size + 1)))
    return error_term(env, BK_STATUS_INVALID_ARGUMENT);
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
/* nif archive_close(Archive) */
ERL_NIF_TERM archive_close_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  int expected = 0;
  (void)argc;
  if (!enif_get_resource(env, argv[0], archive_type, (void **)&res)) return enif_make_badarg(env);
  if (!atomic_compare_exchange_strong(&res->closed, &expected, 1)) return atom_ok; /* closed before */
  if (atomic_load(&res->users) == 0) archive_free_once(res);
  return atom_ok;
}

/* archive_find(Archive, Name) -> {ok, Index} | {error, not_found}. */
/* nif archive_find(Archive, Name) */
ERL_NIF_TERM archive_find_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifBinary name;
  size_t index;
  bk_status status;
  int acquired;
  (void)argc;
  if (!enif_inspect_binary(env, argv[1], &name)) return enif_make_badarg(env);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_find(res->archive, (const char *)name.data, name.size, &index);
  archive_release(res);
  if (status != BK_STATUS_OK) return error_term(env, status);
  return enif_make_tuple2(env, atom_ok, enif_make_uint64(env, index));
}

/* archive_verify(Archive, Threads) -> ok | {error, {Status, Failed, FirstIndex}}: every entry
   checked as a read would, nothing written; long, so on a dirty I/O scheduler. */
/* nif archive_verify(Archive, Threads) dirty_io */
ERL_NIF_TERM archive_verify_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
  return enif_make_tuple2(
      env, atom_error,
      enif_make_tuple3(env, status_atom(env, status), enif_make_uint64(env, failed), enif_make_uint64(env, first)));
}

/* archive_entries(Archive) -> [{Index, Name, Size, file | directory}] in archive order (Index is
 * what archive_read/2 takes). */
/* nif archive_entries(Archive) dirty_cpu */
ERL_NIF_TERM archive_entries_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
/* nif archive_list(Archive, Pattern) */
ERL_NIF_TERM archive_list_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifBinary pattern;
  const char *p = NULL;
  size_t p_len = 0, count = 0, *indexes;
  bk_status status;
  ERL_NIF_TERM list;
  (void)argc;
  int acquired;
  if (enif_inspect_binary(env, argv[1], &pattern))
    p = (const char *)pattern.data, p_len = pattern.size;
  else if (!enif_is_identical(argv[1], enif_make_atom(env, "all")))
    return enif_make_badarg(env);
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
    if (bk_archive_entry_name(res->archive, indexes[i], &name, &len) != BK_STATUS_OK ||
        !(dst = enif_make_new_binary(env, len, &bin))) {
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
  if (info.size > SIZE_MAX || !enif_alloc_binary((size_t)info.size, &out))
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  status = bk_archive_read(res->archive, index, out.data, out.size, &written);
  if (status != BK_STATUS_OK) {
    enif_release_binary(&out);
    return error_term(env, status);
  }
  return enif_make_tuple2(env, atom_ok, enif_make_binary(env, &out));
}

/* Reads entry Index whole: scheduled on a dirty CPU scheduler for a large entry, called directly
 * for a small one. */
static ERL_NIF_TERM archive_read_here(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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
/* nif archive_read(Archive, Index) */
ERL_NIF_TERM archive_read_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index;
  bk_archive_entry info;
  int dirty;
  int acquired;
  if (!enif_get_uint64(env, argv[1], &index)) return enif_make_badarg(env);
  if (index > SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  dirty = bk_archive_entry_info(res->archive, (size_t)index, &info) == BK_STATUS_OK && info.size >= DIRTY_INFLATE;
  archive_release(res);
  if (dirty)
    return enif_schedule_nif(env, "bufkit_archive_read_here", ERL_NIF_DIRTY_JOB_CPU_BOUND, archive_read_here, argc,
                             argv);
  return archive_read_here(env, argc, argv); /* small: read on this scheduler */
}

/* archive_read_at(Archive, Index, Offset, Length) -> {ok, Binary}: up to Length bytes of entry
 * Index from Offset (shorter where the entry ends; an Offset past the end is out_of_range). A
 * deflated entry's first slice builds its checkpoints in a full pass, and any slice may inflate
 * up to a span: read on a dirty CPU scheduler unless the entry is stored or small. */
static ERL_NIF_TERM archive_read_at_here(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index, offset, length;
  bk_archive_entry info;
  ErlNifBinary out;
  size_t written = 0, want;
  bk_status status;
  int acquired;
  (void)argc;
  if (!enif_get_uint64(env, argv[1], &index) || !enif_get_uint64(env, argv[2], &offset) ||
      !enif_get_uint64(env, argv[3], &length))
    return enif_make_badarg(env);
  if (index > SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_entry_info(res->archive, (size_t)index, &info);
  if (status == BK_STATUS_OK && info.is_directory) status = BK_STATUS_INVALID_ARGUMENT;
  if (status == BK_STATUS_OK && offset > info.size) status = BK_STATUS_OUT_OF_RANGE;
  if (status != BK_STATUS_OK) {
    archive_release(res);
    return error_term(env, status);
  }
  want = (size_t)(length < info.size - offset ? length : info.size - offset);
  if (!enif_alloc_binary(want, &out)) {
    archive_release(res);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  status = bk_archive_read_at(res->archive, (size_t)index, offset, out.data, out.size, &written);
  archive_release(res);
  if (status != BK_STATUS_OK) {
    enif_release_binary(&out);
    return error_term(env, status);
  }
  if (written < out.size && !enif_realloc_binary(&out, written)) {
    enif_release_binary(&out);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  return enif_make_tuple2(env, atom_ok, enif_make_binary(env, &out));
}

/* nif archive_read_at(Archive, Index, Offset, Length) */
ERL_NIF_TERM archive_read_at_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index;
  bk_archive_entry info;
  int dirty, acquired;
  if (!enif_get_uint64(env, argv[1], &index)) return enif_make_badarg(env);
  if (index > SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  dirty = bk_archive_entry_info(res->archive, (size_t)index, &info) == BK_STATUS_OK && info.method != 0 &&
          info.size >= DIRTY_INFLATE;
  archive_release(res);
  if (dirty)
    return enif_schedule_nif(env, "bufkit_archive_read_at_here", ERL_NIF_DIRTY_JOB_CPU_BOUND, archive_read_at_here,
                             argc, argv);
  return archive_read_at_here(env, argc, argv);
}

/* archive_checkpoints_export(Archive, Index) -> {ok, Binary}; on a dirty CPU scheduler (it may
 * build them: a full pass over the entry). */
/* nif archive_checkpoints_export(Archive, Index) dirty_cpu */
ERL_NIF_TERM archive_checkpoints_export_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index;
  bk_buffer *buffer = NULL;
  const uint8_t *bytes = NULL;
  size_t len = 0;
  ErlNifBinary out;
  bk_status status;
  int acquired;
  (void)argc;
  if (!enif_get_uint64(env, argv[1], &index)) return enif_make_badarg(env);
  if (index > SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  if ((status = bk_buffer_new(NULL, &buffer)) == BK_STATUS_OK &&
      (status = bk_archive_checkpoints_export(res->archive, (size_t)index, buffer)) == BK_STATUS_OK)
    status = bk_buffer_data(buffer, &bytes, &len);
  archive_release(res);
  if (status == BK_STATUS_OK && !enif_alloc_binary(len, &out)) status = BK_STATUS_ALLOC_FAILED;
  if (status != BK_STATUS_OK) {
    bk_buffer_free(buffer);
    return error_term(env, status);
  }
  memcpy(out.data, bytes, len);
  bk_buffer_free(buffer);
  return enif_make_tuple2(env, atom_ok, enif_make_binary(env, &out));
}

/* archive_checkpoints_import(Archive, Index, Binary) -> ok | {error, checkpoints_refused}. */
/* nif archive_checkpoints_import(Archive, Index, Bytes) */
ERL_NIF_TERM archive_checkpoints_import_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index;
  ErlNifBinary bytes;
  bk_status status;
  int acquired;
  (void)argc;
  if (!enif_get_uint64(env, argv[1], &index) || !enif_inspect_binary(env, argv[2], &bytes))
    return enif_make_badarg(env);
  if (index > SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_checkpoints_import(res->archive, (size_t)index, bytes.data, bytes.size);
  archive_release(res);
  return status == BK_STATUS_OK ? atom_ok : error_term(env, status);
}

/* archive_set_checkpoint_limits(Archive, Span, Budget) -> ok. */
/* nif archive_set_checkpoint_limits(Archive, Span, Budget) */
ERL_NIF_TERM archive_set_checkpoint_limits_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 span, budget;
  bk_status status;
  int acquired;
  (void)argc;
  if (!enif_get_uint64(env, argv[1], &span) || !enif_get_uint64(env, argv[2], &budget)) return enif_make_badarg(env);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_set_checkpoint_limits(res->archive, span, budget);
  archive_release(res);
  return status == BK_STATUS_OK ? atom_ok : error_term(env, status);
}

/* archive_set_parallel_inflate(Archive, Mode) -> ok. */
/* nif archive_set_parallel_inflate(Archive, Mode) */
ERL_NIF_TERM archive_set_parallel_inflate_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  uint32_t mode;
  bk_status status;
  int acquired;
  (void)argc;
  if (!bk_parallel_inflate_from_atom(env, argv[1], &mode)) return enif_make_badarg(env);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_set_parallel_inflate(res->archive, mode);
  archive_release(res);
  return status == BK_STATUS_OK ? atom_ok : error_term(env, status);
}

/* ---- one entry read as a stream: a resource owns a bk_archive_reader, which keeps its archive
   alive (archive_close/1 may come first). A reader serves one thread at a time: calls on one are
   serialised by its mutex. archive_reader_close/1 frees it at once; the destructor otherwise. */

typedef struct {
  bk_archive_reader *reader; /* NULL once closed */
  ErlNifMutex *lock;
  size_t cores; /* more than 1: inflated ahead by threads of its own, so a read may wait */
} reader_res;

void reader_dtor(ErlNifEnv *env, void *obj) {
  reader_res *res = obj;
  (void)env;
  bk_archive_reader_free(res->reader);
  if (res->lock) enif_mutex_destroy(res->lock);
}

/* archive_reader_open(Archive, Index) -> {ok, Reader}. */
/* nif archive_reader_open(Archive, Index) */
ERL_NIF_TERM archive_reader_open_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  archive_res *res;
  ErlNifUInt64 index;
  bk_archive_reader *reader = NULL;
  reader_res *r;
  bk_status status;
  int acquired;
  (void)argc;
  if (!enif_get_uint64(env, argv[1], &index)) return enif_make_badarg(env);
  if (index > SIZE_MAX) return error_term(env, BK_STATUS_OUT_OF_RANGE);
  if ((acquired = archive_acquire(env, argv[0], &res)) != 1) return archive_refused(env, acquired);
  status = bk_archive_reader_open(res->archive, (size_t)index, &reader);
  archive_release(res);
  if (status != BK_STATUS_OK) return error_term(env, status);
  if (!(r = enif_alloc_resource(reader_type, sizeof *r))) {
    bk_archive_reader_free(reader);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  r->reader = reader;
  r->cores = 1;
  (void)bk_archive_reader_cores(reader, &r->cores);
  if (!(r->lock = enif_mutex_create("bufkit_reader"))) {
    enif_release_resource(r); /* the destructor frees the reader */
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  return ok_resource(env, r);
}

/* Up to Max bytes, filled from as many of the reader's chunks as it takes. */
static ERL_NIF_TERM archive_reader_read_here(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  reader_res *r;
  ErlNifUInt64 max;
  ErlNifBinary out;
  size_t filled = 0, n = 0;
  bk_status status = BK_STATUS_OK;
  (void)argc;
  if (!enif_get_resource(env, argv[0], reader_type, (void **)&r) || !enif_get_uint64(env, argv[1], &max) || max == 0 ||
      max > ((ErlNifUInt64)1 << 30))
    return enif_make_badarg(env);
  if (!enif_alloc_binary((size_t)max, &out)) return error_term(env, BK_STATUS_ALLOC_FAILED);
  enif_mutex_lock(r->lock);
  if (!r->reader) status = BK_STATUS_INVALID_ARGUMENT;
  while (status == BK_STATUS_OK && filled < out.size) {
    status = bk_archive_reader_read(r->reader, out.data + filled, out.size - filled, &n);
    if (status != BK_STATUS_OK || n == 0) break;
    filled += n;
  }
  enif_mutex_unlock(r->lock);
  if (status != BK_STATUS_OK) {
    enif_release_binary(&out);
    return r->reader ? error_term(env, status) : enif_make_tuple2(env, atom_error, atom_closed);
  }
  if (filled == 0) {
    enif_release_binary(&out);
    return enif_make_atom(env, "eof");
  }
  if (filled < out.size && !enif_realloc_binary(&out, filled)) {
    enif_release_binary(&out);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  return enif_make_tuple2(env, atom_ok, enif_make_binary(env, &out));
}

/* archive_reader_read(Reader, Max) -> {ok, Binary} | eof | {error, Reason}: reads of
   DIRTY_INFLATE bytes or more run on a dirty CPU scheduler; every read of a reader on several
   cores on a dirty I/O one (it waits for the reader's threads). */
/* nif archive_reader_read(Reader, Max) */
ERL_NIF_TERM archive_reader_read_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  ErlNifUInt64 max;
  reader_res *r;
  if (!enif_get_resource(env, argv[0], reader_type, (void **)&r) || !enif_get_uint64(env, argv[1], &max))
    return enif_make_badarg(env);
  /* A reader on several cores may wait for its threads: never on a normal scheduler. */
  if (r->cores > 1)
    return enif_schedule_nif(env, "bufkit_archive_reader_read_here", ERL_NIF_DIRTY_JOB_IO_BOUND,
                             archive_reader_read_here, argc, argv);
  if (max >= DIRTY_INFLATE)
    return enif_schedule_nif(env, "bufkit_archive_reader_read_here", ERL_NIF_DIRTY_JOB_CPU_BOUND,
                             archive_reader_read_here, argc, argv);
  return archive_reader_read_here(env, argc, argv);
}

/* archive_reader_close(Reader) -> ok: frees the reader now; later reads are {error, closed}. */
/* nif archive_reader_close(Reader) */
ERL_NIF_TERM archive_reader_close_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
  reader_res *r;
  (void)argc;
  if (!enif_get_resource(env, argv[0], reader_type, (void **)&r)) return enif_make_badarg(env);
  enif_mutex_lock(r->lock);
  bk_archive_reader_free(r->reader);
  r->reader = NULL;
  enif_mutex_unlock(r->lock);
  return atom_ok;
}

/* The bufkit NIF's extraction. */
#include "nif.h"

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

ERL_NIF_TERM extract_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
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

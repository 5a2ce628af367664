/* The bufkit NIF's extraction. */
#include "nif.h"

/* extract/3's plain options and its report map: generated from bk_extract_options and
 * bk_extract_report (crates/bufkit-ffi/tests/bindings.rs). */
#include "extract_structs.gen.h"

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

/* errno's name: glibc 2.32+ has strerrorname_np; elsewhere (musl, bionic, macOS, the BSDs) the
 * errors a file system call gives, and {os_error, N} for the rest. */
static const char *errno_name(int os_error) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32)) && !defined(BUFKIT_PORTABLE_ERRNO_NAMES)
  return strerrorname_np(os_error);
#else
  static const struct {
    int code;
    const char *name;
  } names[] = {
      {EPERM, "EPERM"},   {ENOENT, "ENOENT"},   {EIO, "EIO"},         {EBADF, "EBADF"},
      {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"},   {EBUSY, "EBUSY"},     {EEXIST, "EEXIST"},
      {EXDEV, "EXDEV"},   {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"},   {EINVAL, "EINVAL"},
      {ENFILE, "ENFILE"}, {EMFILE, "EMFILE"},   {EFBIG, "EFBIG"},     {ENOSPC, "ENOSPC"},
      {EROFS, "EROFS"},   {EMLINK, "EMLINK"},   {ELOOP, "ELOOP"},     {ENAMETOOLONG, "ENAMETOOLONG"},
      {ENOTEMPTY, "ENOTEMPTY"}, {EDQUOT, "EDQUOT"}, {ENOSYS, "ENOSYS"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].code == os_error) return names[i].name;
  return NULL;
#endif
}

/* The atom Erlang's file module uses for an errno: enoent, eacces, enospc... */
static ERL_NIF_TERM posix_atom(ErlNifEnv *env, int os_error) {
  const char *name = errno_name(os_error);
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
  bk_extract_options opts;
  char **patterns = NULL;
  unsigned only_len = 0, copied = 0;
  bk_cancel *cancel = NULL;
  progress_target target;
  extract_job *job = enif_alloc(sizeof *job);
  ERL_NIF_TERM value, list, head;
  bk_status status = BK_STATUS_INVALID_ARGUMENT;
  (void)argc;
  if (!job) {
    enif_free(archive);
    enif_free(dest);
    return error_term(env, BK_STATUS_ALLOC_FAILED);
  }
  memset(job, 0, sizeof *job);
  if (!archive || !dest || !enif_is_map(env, argv[2]) || extract_options_from_map(env, argv[2], &opts) != 0) goto done;
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "only"), &list)) {
    if (!enif_get_list_length(env, list, &only_len) || !(patterns = enif_alloc((only_len + 1) * sizeof *patterns))) goto done;
    while (copied < only_len && enif_get_list_cell(env, list, &head, &list) && (patterns[copied] = path_arg(env, head))) copied++;
    if (copied < only_len) goto done;
    opts.only = (const char *const *)patterns, opts.only_len = only_len;
  }
  if (enif_get_map_value(env, argv[2], enif_make_atom(env, "progress"), &value)) {
    if (!enif_get_local_pid(env, value, &target.pid)) goto done;
    /* a message per entry floods the mailbox: 15,224 for a JDK src.zip */
    if (!enif_get_map_value(env, argv[2], enif_make_atom(env, "progress_interval_ms"), &value)) opts.progress_interval_ms = 50;
    opts.progress = send_progress, opts.progress_user_data = &target;
  }
  if ((status = bk_cancel_new(&cancel)) != BK_STATUS_OK) goto done;
  opts.cancel = cancel;
  job->archive = archive, job->dest = dest, job->opts = &opts;
  job->report.size = sizeof job->report;
  status = extract_watching_caller(env, job, cancel);
done:
  enif_free(archive);
  enif_free(dest);
  for (unsigned i = 0; i < copied; i++) enif_free(patterns[i]);
  if (patterns) enif_free(patterns);
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
  value = extract_report_to_map(env, &job->report);
  enif_free(job);
  return enif_make_tuple2(env, atom_ok, value);
}

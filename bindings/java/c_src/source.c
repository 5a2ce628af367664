/* Archives whose bytes a Java channel serves (bk_source over dev.bufkit.ChannelSource). */
#include "glue.h"

#include <errno.h>

/* What read_at and release need: the JVM, the ChannelSource (a global reference) and its method. */
typedef struct {
  JavaVM *vm;
  jobject channel;
  jmethodID read_at; /* long readAt(long, java.nio.ByteBuffer) */
} jni_source;

/* The calling thread's JNIEnv, attaching it (as a daemon) when bufkit calls from a thread of its
   own; *attached says whether to detach after. */
static JNIEnv *env_of(JavaVM *vm, int *attached) {
  JNIEnv *env = NULL;
  *attached = 0;
  if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) == JNI_EDETACHED) {
    if ((*vm)->AttachCurrentThreadAsDaemon(vm, (void **)&env, NULL) != JNI_OK) return NULL;
    *attached = 1;
  }
  return env;
}

/* bk_read_at_fn: ChannelSource.readAt over a direct buffer wrapping bufkit's memory. Never lets
   an exception go on into Rust. */
static int64_t jni_source_read_at(void *ctx, uint64_t offset, uint8_t *buf, size_t len) {
  jni_source *s = ctx;
  int attached;
  int64_t n = -EIO;
  JNIEnv *env = env_of(s->vm, &attached);
  jobject window;
  if (!env) return -EIO;
  if (len > INT32_MAX) len = INT32_MAX;
  if (offset <= INT64_MAX && (window = (*env)->NewDirectByteBuffer(env, buf, (jlong)len)) != NULL) {
    n = (*env)->CallLongMethod(env, s->channel, s->read_at, (jlong)offset, window);
    (*env)->DeleteLocalRef(env, window);
  }
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionClear(env);
    n = -EIO;
  }
  if (attached) (*s->vm)->DetachCurrentThread(s->vm);
  return n;
}

/* bk_release_fn: drops the channel's global reference. */
static void jni_source_release(void *ctx) {
  jni_source *s = ctx;
  int attached;
  JNIEnv *env = env_of(s->vm, &attached);
  if (env) {
    (*env)->DeleteGlobalRef(env, s->channel);
    if (attached) (*s->vm)->DetachCurrentThread(s->vm);
  }
  free(s);
}

/* bk_archive_open_source over `channel` (a dev.bufkit.ChannelSource), `length` bytes long; local
   headers 0 at open, 1 on first read: the handle into `handleOut[0]`. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveOpenSource(JNIEnv *env, jclass cls,
                                                                   jobject /* dev.bufkit.ChannelSource */ channel,
                                                                   jlong length, jint local_headers,
                                                                   jlongArray handle_out) {
  bk_archive_options options;
  bk_archive *archive = NULL;
  bk_source source;
  bk_status status;
  jni_source *s;
  jclass type;
  (void)cls;
  if (!channel) return BK_STATUS_NULL_POINTER;
  if (length < 0) return BK_STATUS_INVALID_ARGUMENT;
  if (!(s = calloc(1, sizeof *s))) return BK_STATUS_ALLOC_FAILED;
  type = (*env)->GetObjectClass(env, channel);
  s->read_at = (*env)->GetMethodID(env, type, "readAt", "(JLjava/nio/ByteBuffer;)J");
  if (!s->read_at || (*env)->GetJavaVM(env, &s->vm) != JNI_OK || !(s->channel = (*env)->NewGlobalRef(env, channel))) {
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
    free(s);
    return BK_STATUS_INVALID_ARGUMENT;
  }
  bk_archive_options_default(&options);
  options.local_headers = (uint32_t)local_headers;
  source.length = (uint64_t)length;
  source.read_at = jni_source_read_at;
  source.release = jni_source_release;
  source.ctx = s;
  status = bk_archive_open_source(&source, &options, &archive); /* released by bufkit on failure */
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, archive, bk_archive_free);
}

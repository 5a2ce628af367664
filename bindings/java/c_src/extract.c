/* Extraction (bk_extract), its progress upcalls and cancellation. */
#include "glue.h"

/* Progress goes to a Java listener from the extraction's worker threads: each call attaches the
 * thread to the JVM if it is not attached, and detaches it again afterwards. */
typedef struct {
  JavaVM *vm;
  jobject listener; /* global reference */
  jmethodID on_progress;
} jni_progress;

static void jni_on_progress(void *user, uint64_t done, uint64_t total, uint64_t bytes, uint64_t bytes_total) {
  jni_progress *p = user;
  JNIEnv *env = NULL;
  int attached_here = 0;
  if ((*p->vm)->GetEnv(p->vm, (void **)&env, JNI_VERSION_1_8) == JNI_EDETACHED) {
    if ((*p->vm)->AttachCurrentThreadAsDaemon(p->vm, (void **)&env, NULL) != JNI_OK) return;
    attached_here = 1;
  }
  (*env)->CallVoidMethod(env, p->listener, p->on_progress, (jlong)done, (jlong)total, (jlong)bytes, (jlong)bytes_total);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env); /* a listener must not throw; never let it unwind into Rust */
  if (attached_here) (*p->vm)->DetachCurrentThread(p->vm);
}

static char *utf8_copy(JNIEnv *env, jstring s) {
  const char *chars;
  char *copy;
  size_t len;
  if (!s) return NULL;
  chars = (*env)->GetStringUTFChars(env, s, NULL);
  if (!chars) return NULL;
  len = strlen(chars);
  copy = malloc(len + 1);
  if (copy) memcpy(copy, chars, len + 1);
  (*env)->ReleaseStringUTFChars(env, s, chars);
  return copy;
}

JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_cancelNew(JNIEnv *env, jclass cls) {
  bk_cancel *cancel = NULL;
  (void)env;
  (void)cls;
  return bk_cancel_new(&cancel) == BK_STATUS_OK ? (jlong)(intptr_t)cancel : 0;
}

JNIEXPORT void JNICALL Java_dev_bufkit_jni_JniNative_cancelRequest(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  bk_cancel_request((const bk_cancel *)(intptr_t)handle);
}

JNIEXPORT void JNICALL Java_dev_bufkit_jni_JniNative_cancelFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  bk_cancel_free((bk_cancel *)(intptr_t)handle);
}

/* The ExtractOptions record's plain fields and the ExtractReport record: generated from
 * bk_extract_options and bk_extract_report (crates/bufkit-ffi/tests/bindings.rs). */
#include "extract_structs.gen.h"

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_extract(JNIEnv *env, jclass cls, jstring archive, jstring dest,
                                                             jobject options, jlong cancel, jobjectArray only,
                                                             jobject listener, jobjectArray report_out,
                                                             jobjectArray error_out, jintArray os_error_out) {
  char *archive_path = utf8_copy(env, archive), *dest_path = utf8_copy(env, dest);
  bk_extract_failure *failure = calloc(1, sizeof *failure); /* 5 KiB: off the JVM thread's stack */
  bk_extract_options opts;
  bk_extract_report report = {.size = sizeof report};
  jni_progress progress = {0};
  jsize only_len = (*env)->GetArrayLength(env, only), copied = 0;
  char **patterns = calloc((size_t)only_len + 1, sizeof *patterns);
  bk_status status = BK_STATUS_ALLOC_FAILED;
  (void)cls;
  if (!failure || !archive_path || !dest_path || !patterns) goto done;
  if (bk_jni_extract_options(env, options, &opts) != 0) {
    status = BK_STATUS_INVALID_ARGUMENT; /* a Java exception is pending: it is what the caller sees */
    goto done;
  }
  opts.cancel = (const bk_cancel *)(intptr_t)cancel;
  for (; copied < only_len; copied++) {
    jstring pattern = (*env)->GetObjectArrayElement(env, only, copied);
    patterns[copied] = utf8_copy(env, pattern);
    (*env)->DeleteLocalRef(env, pattern);
    if (!patterns[copied]) goto done;
  }
  opts.only = (const char *const *)patterns, opts.only_len = (size_t)only_len;
  if (listener) {
    jclass type = (*env)->GetObjectClass(env, listener);
    progress.on_progress = (*env)->GetMethodID(env, type, "onProgress", "(JJJJ)V");
    (*env)->DeleteLocalRef(env, type);
    if (!progress.on_progress || (*env)->GetJavaVM(env, &progress.vm) != JNI_OK) { status = BK_STATUS_INVALID_ARGUMENT; goto done; }
    progress.listener = (*env)->NewGlobalRef(env, listener);
    opts.progress = jni_on_progress, opts.progress_user_data = &progress;
  }
  status = bk_extract_detailed(archive_path, dest_path, &opts, &report, failure);
  if (progress.listener) (*env)->DeleteGlobalRef(env, progress.listener);
done:
  free(archive_path);
  free(dest_path);
  for (jsize i = 0; patterns && i < copied; i++) free(patterns[i]);
  free(patterns);
  if ((*env)->ExceptionCheck(env)) {
    free(failure);
    return (jint)status;
  }
  if (status == BK_STATUS_OK) {
    jobject r = bk_jni_extract_report(env, &report);
    if (r) (*env)->SetObjectArrayElement(env, report_out, 0, r);
  } else if (failure) {
    jint os_error = failure->os_error;
    jstring e = (*env)->NewStringUTF(env, failure->path), d = (*env)->NewStringUTF(env, failure->detail);
    (*env)->SetIntArrayRegion(env, os_error_out, 0, 1, &os_error);
    (*env)->SetObjectArrayElement(env, error_out, 0, e);
    (*env)->SetObjectArrayElement(env, error_out, 1, d);
  }
  free(failure);
  return (jint)status;
}

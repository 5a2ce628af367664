/*
 * The JNI front's glue: thin C over include/bufkit.h, with libbufkit.a linked in statically.
 * Arrays are pinned with GetPrimitiveArrayCritical (no copy) for the length of one bufkit call;
 * only Java_* symbols are exported. Handles are bk_buffer pointers carried in a jlong.
 */
#include <jni.h>
#include <stdint.h>
#include <string.h>

#include "bufkit.h"

#define HANDLE(h) ((bk_buffer *)(intptr_t)(h))

/* Copies `n` values into a Java long[]; 0 if that raised (a null or too short array). */
static int store_longs(JNIEnv *env, jlongArray out, const jlong *values, jsize n) {
  (*env)->SetLongArrayRegion(env, out, 0, n, values);
  return !(*env)->ExceptionCheck(env);
}

/* Hands a new handle to Java in handle_out[0] and returns BK_STATUS_OK; if it cannot be stored
   (a null or empty array), frees it with free_fn so nothing leaks, and returns NULL_POINTER. */
#define GIVE_HANDLE(env, handle_out, ptr, free_fn)                  \
  do {                                                              \
    jlong given_ = (jlong)(intptr_t)(ptr);                          \
    if (!store_longs((env), (handle_out), &given_, 1)) {            \
      free_fn(ptr);                                                 \
      return BK_STATUS_NULL_POINTER;                                \
    }                                                               \
    return BK_STATUS_OK;                                            \
  } while (0)

JNIEXPORT jstring JNICALL Java_dev_bufkit_jni_JniNative_version(JNIEnv *env, jclass cls) {
  (void)cls;
  return (*env)->NewStringUTF(env, bk_version());
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_abiVersion(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)bk_abi_version();
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_testPanic(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)bk_test_panic();
}

JNIEXPORT jstring JNICALL Java_dev_bufkit_jni_JniNative_statusMessage(JNIEnv *env, jclass cls, jint code) {
  (void)cls;
  return (*env)->NewStringUTF(env, bk_status_message((uint32_t)code));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferNew(JNIEnv *env, jclass cls, jint growth, jdouble factor,
                                                               jlong step, jlong chunk_size, jlong max_capacity,
                                                               jlong initial_capacity, jlongArray handle_out) {
  bk_buffer_config config;
  bk_buffer *buffer = NULL;
  bk_status status;
  (void)cls;
  if (step < 0 || chunk_size < 0 || max_capacity < 0 || initial_capacity < 0) return BK_STATUS_INVALID_ARGUMENT;
  bk_buffer_config_default(&config);
  config.growth = (uint32_t)growth;
  config.factor = factor;
  config.step = (size_t)step;
  config.chunk_size = (size_t)chunk_size;
  config.max_capacity = (size_t)max_capacity;
  config.initial_capacity = (size_t)initial_capacity;
  status = bk_buffer_new(&config, &buffer);
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, buffer, bk_buffer_free);
}

JNIEXPORT void JNICALL Java_dev_bufkit_jni_JniNative_bufferFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  bk_buffer_free(HANDLE(handle));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferAppend(JNIEnv *env, jclass cls, jlong handle, jbyteArray data,
                                                                  jint offset, jint length) {
  jbyte *bytes;
  bk_status status;
  (void)cls;
  if (length == 0) return (jint)bk_buffer_append(HANDLE(handle), NULL, 0);
  bytes = (*env)->GetPrimitiveArrayCritical(env, data, NULL);
  if (!bytes) return BK_STATUS_ALLOC_FAILED;
  status = bk_buffer_append(HANDLE(handle), (const uint8_t *)bytes + offset, (size_t)length);
  (*env)->ReleasePrimitiveArrayCritical(env, data, bytes, JNI_ABORT); /* read only: nothing to copy back */
  return (jint)status;
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferAppendDirect(JNIEnv *env, jclass cls, jlong handle,
                                                                        jobject direct, jint offset, jint length) {
  uint8_t *base = (*env)->GetDirectBufferAddress(env, direct);
  jlong capacity = (*env)->GetDirectBufferCapacity(env, direct);
  (void)cls;
  if (!base) return BK_STATUS_NULL_POINTER;
  if (offset < 0 || length < 0 || (jlong)offset + length > capacity) return BK_STATUS_OUT_OF_RANGE;
  return (jint)bk_buffer_append(HANDLE(handle), base + offset, (size_t)length);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferReserve(JNIEnv *env, jclass cls, jlong handle, jlong additional) {
  (void)env;
  (void)cls;
  if (additional < 0) return BK_STATUS_INVALID_ARGUMENT;
  return (jint)bk_buffer_reserve(HANDLE(handle), (size_t)additional);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferClear(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jint)bk_buffer_clear(HANDLE(handle));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferStats(JNIEnv *env, jclass cls, jlong handle, jlongArray out) {
  bk_buffer_stats s;
  jlong values[5];
  bk_status status = bk_buffer_get_stats(HANDLE(handle), &s);
  (void)cls;
  if (status != BK_STATUS_OK) return (jint)status;
  values[0] = (jlong)s.len;
  values[1] = (jlong)s.capacity;
  values[2] = (jlong)s.grows;
  values[3] = (jlong)s.moves;
  values[4] = (jlong)s.bytes_copied;
  return store_longs(env, out, values, 5) ? BK_STATUS_OK : BK_STATUS_OUT_OF_RANGE;
}

/* bk_buffer_copy_out from `offset` into dst[0..length). */
JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferCopyOut(JNIEnv *env, jclass cls, jlong handle, jlong offset,
                                                                   jbyteArray dst, jint length, jlongArray copied_out) {
  size_t copied = 0;
  jbyte *bytes;
  bk_status status;
  jlong n;
  (void)cls;
  if (!dst || !copied_out) return BK_STATUS_NULL_POINTER;
  if (offset < 0 || length < 0 || length > (*env)->GetArrayLength(env, dst)) return BK_STATUS_OUT_OF_RANGE;
  if (length == 0) {
    status = bk_buffer_copy_out(HANDLE(handle), (size_t)offset, NULL, 0, &copied);
  } else {
    bytes = (*env)->GetPrimitiveArrayCritical(env, dst, NULL);
    if (!bytes) return BK_STATUS_ALLOC_FAILED;
    status = bk_buffer_copy_out(HANDLE(handle), (size_t)offset, (uint8_t *)bytes, (size_t)length, &copied);
    (*env)->ReleasePrimitiveArrayCritical(env, dst, bytes, 0);
  }
  n = (jlong)copied;
  (*env)->SetLongArrayRegion(env, copied_out, 0, 1, &n);
  return (jint)status;
}

JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_bufferSegmentCount(JNIEnv *env, jclass cls, jlong handle) {
  size_t count = 0;
  bk_status status;
  (void)env, (void)cls;
  status = bk_buffer_segment_count(HANDLE(handle), &count);
  return status == BK_STATUS_OK ? (jlong)count : -(jlong)status;
}

/* A direct ByteBuffer over segment `index`: valid until the buffer changes, which the Java side
   prevents for as long as it uses it (GrowableBuffer.writeTo holds the buffer's lock). */
JNIEXPORT jobject JNICALL Java_dev_bufkit_jni_JniNative_bufferSegment(JNIEnv *env, jclass cls, jlong handle, jint index) {
  const uint8_t *data = NULL;
  size_t len = 0;
  (void)cls;
  if (index < 0 || bk_buffer_segment(HANDLE(handle), (size_t)index, &data, &len) != BK_STATUS_OK) return NULL;
  return (*env)->NewDirectByteBuffer(env, (void *)(uintptr_t)data, (jlong)len);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_bufferFlatten(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jint)bk_buffer_flatten(HANDLE(handle));
}

/* ---- pools ---------------------------------------------------------------------------------- */

#define POOL(h) ((const bk_pool *)(intptr_t)(h))

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_poolNew(JNIEnv *env, jclass cls, jlong min_class, jlong max_class,
                                                             jlong max_retained, jlong per_class, jlong thread_cache,
                                                             jboolean zero, jlong decay_ms, jlongArray handle_out) {
  bk_pool_config config;
  bk_pool *pool = NULL;
  bk_status status;
  (void)cls;
  if (min_class < 0 || max_class < 0 || max_retained < 0 || per_class < 0 || thread_cache < 0 || decay_ms < 0)
    return BK_STATUS_INVALID_ARGUMENT;
  bk_pool_config_default(&config);
  config.min_class_size = (size_t)min_class;
  config.max_class_size = (size_t)max_class;
  config.max_retained_bytes = (size_t)max_retained;
  config.max_buffers_per_class = (size_t)per_class;
  config.thread_cache_buffers = (size_t)thread_cache;
  config.zero_on_acquire = zero ? 1 : 0;
  config.decay_after_ms = (uint64_t)decay_ms;
  status = bk_pool_new(&config, &pool);
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, pool, bk_pool_free);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_poolFree(JNIEnv *env, jclass cls, jlong pool) {
  (void)env;
  (void)cls;
  return (jint)bk_pool_free((bk_pool *)(intptr_t)pool);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_poolAcquire(JNIEnv *env, jclass cls, jlong pool, jlong size,
                                                                 jlongArray lease_out) {
  bk_lease lease;
  jlong fields[4];
  bk_status status;
  (void)cls;
  if (size <= 0) return BK_STATUS_INVALID_ARGUMENT;
  status = bk_pool_acquire(POOL(pool), (size_t)size, &lease);
  if (status != BK_STATUS_OK) return (jint)status;
  fields[0] = (jlong)(intptr_t)lease.data;
  fields[1] = (jlong)lease.len;
  fields[2] = (jlong)(intptr_t)lease.pool;
  fields[3] = (jlong)lease.id;
  if (!store_longs(env, lease_out, fields, 4)) {
    bk_pool_release(POOL(pool), &lease);
    return BK_STATUS_NULL_POINTER;
  }
  return BK_STATUS_OK;
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_poolRelease(JNIEnv *env, jclass cls, jlong pool, jlongArray lease_in) {
  bk_lease lease;
  jlong fields[4];
  (void)cls;
  (*env)->GetLongArrayRegion(env, lease_in, 0, 4, fields);
  if ((*env)->ExceptionCheck(env)) return BK_STATUS_NULL_POINTER;
  lease.data = (uint8_t *)(intptr_t)fields[0];
  lease.len = (size_t)fields[1];
  lease.pool = (const bk_pool *)(intptr_t)fields[2];
  lease.id = (uint64_t)fields[3];
  return (jint)bk_pool_release(POOL(pool), &lease);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_poolTrim(JNIEnv *env, jclass cls, jlong pool) {
  (void)env;
  (void)cls;
  return (jint)bk_pool_trim(POOL(pool));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_poolStats(JNIEnv *env, jclass cls, jlong pool, jlongArray out) {
  bk_pool_stats s;
  jlong values[9];
  bk_status status = bk_pool_get_stats(POOL(pool), &s);
  (void)cls;
  if (status != BK_STATUS_OK) return (jint)status;
  values[0] = (jlong)s.hits;
  values[1] = (jlong)s.misses;
  values[2] = (jlong)s.returns;
  values[3] = (jlong)s.drops_over_cap;
  values[4] = (jlong)s.oversize_allocations;
  values[5] = (jlong)s.decayed;
  values[6] = (jlong)s.retained_bytes;
  values[7] = (jlong)s.outstanding_leases;
  values[8] = (jlong)s.class_count;
  return store_longs(env, out, values, 9) ? BK_STATUS_OK : BK_STATUS_OUT_OF_RANGE;
}

JNIEXPORT jobject JNICALL Java_dev_bufkit_jni_JniNative_directBuffer(JNIEnv *env, jclass cls, jlong address, jlong length) {
  (void)cls;
  return (*env)->NewDirectByteBuffer(env, (void *)(intptr_t)address, length);
}

/* ---- inflate ---------------------------------------------------------------------------------- */

#include <stdlib.h>

#define INFLATER(h) ((bk_inflater *)(intptr_t)(h))

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_inflaterNew(JNIEnv *env, jclass cls, jint format, jlongArray handle_out) {
  bk_inflater *inf = NULL;
  bk_status status = bk_inflater_new((uint32_t)format, &inf);
  (void)cls;
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, inf, bk_inflater_free);
}

JNIEXPORT void JNICALL Java_dev_bufkit_jni_JniNative_inflaterFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  bk_inflater_free(INFLATER(handle));
}

/* ---- a stream fed in pieces ---- */

#define STREAM(h) ((bk_inflate_stream *)(intptr_t)(h))

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_inflateStreamNew(JNIEnv *env, jclass cls, jint format, jlong origin,
                                                                      jlongArray handle_out) {
  bk_inflate_stream *stream = NULL;
  bk_status status;
  (void)cls;
  if (origin < 0) return BK_STATUS_OUT_OF_RANGE;
  status = bk_inflate_stream_new((uint32_t)format, (size_t)origin, &stream);
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, stream, bk_inflate_stream_free);
}

JNIEXPORT void JNICALL Java_dev_bufkit_jni_JniNative_inflateStreamFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env, (void)cls;
  bk_inflate_stream_free(STREAM(handle));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_inflateStreamReset(JNIEnv *env, jclass cls, jlong handle, jlong origin) {
  (void)env, (void)cls;
  if (origin < 0) return BK_STATUS_OUT_OF_RANGE;
  return (jint)bk_inflate_stream_reset(STREAM(handle), (size_t)origin);
}

/* input[offset..offset+length) into all of out, both pinned for the call: the bytes used, or
   -status; the stream's total into consumed_out[0] once it has ended. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_inflateStreamFeed(JNIEnv *env, jclass cls, jlong handle,
                                                                        jbyteArray input, jint offset, jint length,
                                                                        jbyteArray out, jlongArray consumed_out) {
  static const uint8_t none = 0;
  size_t used = 0, consumed = 0;
  jbyte *in_bytes = NULL, *out_bytes;
  jsize out_len;
  jlong total;
  bk_status status;
  (void)cls;
  if (!input || !out || !consumed_out) return -(jlong)BK_STATUS_NULL_POINTER;
  if (offset < 0 || length < 0 || offset > (*env)->GetArrayLength(env, input) - length) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  out_len = (*env)->GetArrayLength(env, out);
  out_bytes = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!out_bytes) return -(jlong)BK_STATUS_ALLOC_FAILED;
  if (length > 0 && !(in_bytes = (*env)->GetPrimitiveArrayCritical(env, input, NULL))) {
    (*env)->ReleasePrimitiveArrayCritical(env, out, out_bytes, 0);
    return -(jlong)BK_STATUS_ALLOC_FAILED;
  }
  status = bk_inflate_stream_feed(STREAM(handle), length > 0 ? (const uint8_t *)in_bytes + offset : &none, (size_t)length,
                                  (uint8_t *)out_bytes, (size_t)out_len, &used, &consumed);
  if (in_bytes) (*env)->ReleasePrimitiveArrayCritical(env, input, in_bytes, JNI_ABORT);
  (*env)->ReleasePrimitiveArrayCritical(env, out, out_bytes, 0);
  if (status != BK_STATUS_OK) return -(jlong)status;
  total = (jlong)consumed;
  (*env)->SetLongArrayRegion(env, consumed_out, 0, 1, &total);
  return (jlong)used;
}

/* One inflate's outcome in one jlong, so the call needs no out-array: the bytes consumed (>= 0) on
 * success, minus the status on failure (statuses are positive). */
static jlong consumed_or_status(size_t consumed, bk_status status) {
  return status == BK_STATUS_OK ? (jlong)consumed : -(jlong)status;
}

JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_inflateAt(JNIEnv *env, jclass cls, jlong handle, jbyteArray input,
                                                                jlong offset, jbyteArray out, jint out_offset, jint length) {
  jsize in_len = (*env)->GetArrayLength(env, input);
  size_t consumed = 0;
  bk_status status;
  jbyte *in, *dst;
  (void)cls;
  if (offset < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  /* Both arrays pinned, no copy; no JNI calls until both are released. */
  in = (*env)->GetPrimitiveArrayCritical(env, input, NULL);
  if (!in) return -(jlong)BK_STATUS_ALLOC_FAILED;
  dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!dst) {
    (*env)->ReleasePrimitiveArrayCritical(env, input, in, JNI_ABORT);
    return -(jlong)BK_STATUS_ALLOC_FAILED;
  }
  status = bk_inflate_at(INFLATER(handle), (const uint8_t *)in, (size_t)in_len, (size_t)offset,
                         (uint8_t *)dst + out_offset, (size_t)length, &consumed);
  (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
  (*env)->ReleasePrimitiveArrayCritical(env, input, in, JNI_ABORT);
  return consumed_or_status(consumed, status);
}

JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_inflateAtDirect(JNIEnv *env, jclass cls, jlong handle,
                                                                      jobject input, jlong offset, jobject out,
                                                                      jint out_offset, jint length) {
  const uint8_t *in = (*env)->GetDirectBufferAddress(env, input);
  uint8_t *dst = (*env)->GetDirectBufferAddress(env, out);
  jlong in_cap = (*env)->GetDirectBufferCapacity(env, input), out_cap = (*env)->GetDirectBufferCapacity(env, out);
  size_t consumed = 0;
  bk_status status;
  (void)cls;
  if (!in || !dst) return -(jlong)BK_STATUS_NULL_POINTER;
  if (offset < 0 || out_offset < 0 || length < 0 || (jlong)out_offset + length > out_cap)
    return -(jlong)BK_STATUS_OUT_OF_RANGE;
  status = bk_inflate_at(INFLATER(handle), in, (size_t)in_cap, (size_t)offset, dst + out_offset, (size_t)length, &consumed);
  return consumed_or_status(consumed, status);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_inflateBatch(JNIEnv *env, jclass cls, jlong handle, jbyteArray input,
                                                                  jlongArray offsets, jintArray sizes, jint count,
                                                                  jbyteArray out, jlongArray consumed_out,
                                                                  jintArray status_out) {
  /* count: streams to inflate, the first of each array (the Java side checked every array holds them) */
  jsize n = count < 0 ? 0 : count, in_len = (*env)->GetArrayLength(env, input), out_len = (*env)->GetArrayLength(env, out);
  bk_inflate_request *req = malloc(sizeof *req * (size_t)(n ? n : 1));
  bk_inflate_result *res = malloc(sizeof *res * (size_t)(n ? n : 1));
  jlong *offs = malloc(sizeof *offs * (size_t)(n ? n : 1)), *cons = malloc(sizeof *cons * (size_t)(n ? n : 1));
  jint *szs = malloc(sizeof *szs * (size_t)(n ? n : 1)), *sts = malloc(sizeof *sts * (size_t)(n ? n : 1));
  size_t ok = 0;
  bk_status status = BK_STATUS_ALLOC_FAILED;
  jbyte *in, *dst;
  (void)cls;
  if (!req || !res || !offs || !cons || !szs || !sts) goto done;
  (*env)->GetLongArrayRegion(env, offsets, 0, n, offs);
  (*env)->GetIntArrayRegion(env, sizes, 0, n, szs);
  if ((*env)->ExceptionCheck(env)) { status = BK_STATUS_OUT_OF_RANGE; goto done; }
  for (jsize i = 0; i < n; i++) {
    req[i].offset = offs[i] < 0 ? SIZE_MAX : (size_t)offs[i];
    req[i].expected_len = (size_t)szs[i];
  }
  in = (*env)->GetPrimitiveArrayCritical(env, input, NULL);
  if (!in) goto done;
  dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!dst) {
    (*env)->ReleasePrimitiveArrayCritical(env, input, in, JNI_ABORT);
    goto done;
  }
  status = bk_inflate_batch(INFLATER(handle), (const uint8_t *)in, (size_t)in_len, req, (size_t)n, (uint8_t *)dst,
                            (size_t)out_len, res, &ok);
  (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
  (*env)->ReleasePrimitiveArrayCritical(env, input, in, JNI_ABORT);
  if (status == BK_STATUS_OK) {
    for (jsize i = 0; i < n; i++) {
      cons[i] = (jlong)res[i].consumed;
      sts[i] = (jint)res[i].status;
    }
    (*env)->SetLongArrayRegion(env, consumed_out, 0, n, cons);
    (*env)->SetIntArrayRegion(env, status_out, 0, n, sts);
  }
done:
  free(req);
  free(res);
  free(offs);
  free(cons);
  free(szs);
  free(sts);
  return status == BK_STATUS_OK ? (jint)ok : -(jint)status;
}

/* ---- extract ---------------------------------------------------------------------------------- */

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

/* ---- archives read in place ---- */

#define ARCHIVE(h) ((bk_archive *)(intptr_t)(h))

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_archiveOpen(JNIEnv *env, jclass cls, jstring path, jint holding,
                                                                 jint local_headers, jlongArray handle_out) {
  bk_archive_options options;
  bk_archive *archive = NULL;
  const char *cpath;
  bk_status status;
  (void)cls;
  if (!path) return BK_STATUS_NULL_POINTER;
  bk_archive_options_default(&options);
  options.holding = (uint32_t)holding;
  options.local_headers = (uint32_t)local_headers;
  cpath = (*env)->GetStringUTFChars(env, path, NULL);
  if (!cpath) return BK_STATUS_ALLOC_FAILED;
  status = bk_archive_open(cpath, &options, &archive);
  (*env)->ReleaseStringUTFChars(env, path, cpath);
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, archive, bk_archive_free);
}

JNIEXPORT void JNICALL Java_dev_bufkit_jni_JniNative_archiveFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env, (void)cls;
  bk_archive_free(ARCHIVE(handle));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_archiveCount(JNIEnv *env, jclass cls, jlong handle) {
  size_t count = 0;
  (void)env, (void)cls;
  bk_archive_entry_count(ARCHIVE(handle), &count);
  return count > INT32_MAX ? INT32_MAX : (jint)count;
}

/* bk_archive_verify: a long call (every entry inflated, on worker threads), made with no Java
   memory held; the two results go into out[2] after. */
JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_archiveVerify(JNIEnv *env, jclass cls, jlong handle, jint threads,
                                                                  jlongArray out) {
  size_t failed = 0, first = SIZE_MAX;
  jlong values[2];
  bk_status status;
  (void)cls;
  status = bk_archive_verify(ARCHIVE(handle), threads < 0 ? 0 : (uint32_t)threads, &failed, &first);
  values[0] = (jlong)failed;
  values[1] = first == SIZE_MAX ? -1 : (jlong)first;
  (*env)->SetLongArrayRegion(env, out, 0, 2, values);
  return (jint)status;
}

/* bk_archive_find of a Java byte[] name, copied onto the stack when short (as entry names are):
   no allocation, and no pinning that would hold up the garbage collector. */
static bk_status find_by_array(JNIEnv *env, jlong handle, jbyteArray name, size_t *index) {
  char small[512];
  char *bytes = small;
  jsize len;
  bk_status status;
  if (!name) return BK_STATUS_NULL_POINTER;
  len = (*env)->GetArrayLength(env, name);
  if ((size_t)len > sizeof small && !(bytes = malloc((size_t)len))) return BK_STATUS_ALLOC_FAILED;
  (*env)->GetByteArrayRegion(env, name, 0, len, (jbyte *)bytes);
  status = bk_archive_find(ARCHIVE(handle), bytes, (size_t)len, index);
  if (bytes != small) free(bytes);
  return status;
}

JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_archiveFind(JNIEnv *env, jclass cls, jlong handle, jbyteArray name) {
  size_t index = 0;
  bk_status status;
  (void)cls;
  status = find_by_array(env, handle, name, &index);
  return status == BK_STATUS_OK ? (jlong)index : -(jlong)status;
}

/* The entry named `name`, whole, in a new byte[] it is inflated straight into: one call for
   find, size and read. NULL with the status in status_out[0] on failure. */
JNIEXPORT jbyteArray JNICALL Java_dev_bufkit_jni_JniNative_archiveReadAll(JNIEnv *env, jclass cls, jlong handle,
                                                                          jbyteArray name, jintArray status_out) {
  size_t index = 0, written = 0;
  uint64_t size = 0;
  jbyteArray out;
  jbyte *dst;
  jint code;
  bk_status status;
  (void)cls;
  status = find_by_array(env, handle, name, &index);
  if (status == BK_STATUS_OK) status = bk_archive_entry_size(ARCHIVE(handle), index, &size);
  if (status == BK_STATUS_OK && size > (uint64_t)INT32_MAX - 8) status = BK_STATUS_LENGTH_OVERFLOW;
  if (status != BK_STATUS_OK) goto failed;
  out = (*env)->NewByteArray(env, (jsize)size);
  if (!out) return NULL; /* OutOfMemoryError pending */
  dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!dst) {
    status = BK_STATUS_ALLOC_FAILED;
    goto failed;
  }
  status = bk_archive_read(ARCHIVE(handle), index, (uint8_t *)dst, (size_t)size, &written);
  (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
  if (status == BK_STATUS_OK) return out;
failed:
  code = (jint)status;
  if (status_out && (*env)->GetArrayLength(env, status_out) > 0) (*env)->SetIntArrayRegion(env, status_out, 0, 1, &code);
  return NULL;
}

/* A direct ByteBuffer over stored entry `index` in the mapping (bk_archive_view); the Java side
   keeps the archive alive while it is reachable. NULL with the status in status_out[0]. */
JNIEXPORT jobject JNICALL Java_dev_bufkit_jni_JniNative_archiveView(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                    jintArray status_out) {
  const uint8_t *data = NULL;
  size_t len = 0;
  jobject view = NULL;
  jint code;
  bk_status status;
  (void)cls;
  status = index < 0 ? BK_STATUS_OUT_OF_RANGE : bk_archive_view(ARCHIVE(handle), (size_t)index, &data, &len);
  if (status == BK_STATUS_OK) {
    /* Java writes nothing through it: the caller hands out only a read-only wrapper. */
    view = (*env)->NewDirectByteBuffer(env, (void *)(uintptr_t)data, (jlong)len);
    if (view) return view;
    if ((*env)->ExceptionCheck(env)) return NULL;
    status = BK_STATUS_ALLOC_FAILED;
  }
  code = (jint)status;
  if (status_out && (*env)->GetArrayLength(env, status_out) > 0) (*env)->SetIntArrayRegion(env, status_out, 0, 1, &code);
  return NULL;
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_archiveInfo(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                 jlongArray out) {
  bk_archive_entry info;
  jlong values[5];
  bk_status status;
  (void)cls;
  if (index < 0) return BK_STATUS_OUT_OF_RANGE;
  status = bk_archive_entry_info(ARCHIVE(handle), (size_t)index, &info);
  if (status != BK_STATUS_OK) return (jint)status;
  values[0] = (jlong)info.size, values[1] = (jlong)info.compressed_size, values[2] = (jlong)info.crc32;
  values[3] = (jlong)info.method, values[4] = (jlong)info.is_directory;
  return store_longs(env, out, values, 5) ? BK_STATUS_OK : BK_STATUS_NULL_POINTER;
}

JNIEXPORT jbyteArray JNICALL Java_dev_bufkit_jni_JniNative_archiveName(JNIEnv *env, jclass cls, jlong handle, jint index) {
  const char *name;
  size_t len;
  jbyteArray out;
  (void)cls;
  if (index < 0 || bk_archive_entry_name(ARCHIVE(handle), (size_t)index, &name, &len) != BK_STATUS_OK) return NULL;
  out = (*env)->NewByteArray(env, (jsize)len);
  if (out) (*env)->SetByteArrayRegion(env, out, 0, (jsize)len, (const jbyte *)name);
  return out;
}

/* The entry is inflated straight into the pinned array, at out[offset..offset+len): no copy.
   Returns the bytes written (the entry's size), or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_archiveRead(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                  jbyteArray out, jint offset, jint len) {
  size_t written = 0;
  jbyte *dst;
  bk_status status;
  (void)cls;
  if (index < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (!out) return -(jlong)BK_STATUS_NULL_POINTER;
  if (offset < 0 || len < 0 || offset > (*env)->GetArrayLength(env, out) - len) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!dst) return -(jlong)BK_STATUS_ALLOC_FAILED;
  status = bk_archive_read(ARCHIVE(handle), (size_t)index, (uint8_t *)dst + offset, (size_t)len, &written);
  (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
  return status == BK_STATUS_OK ? (jlong)written : -(jlong)status;
}

/* Into a direct buffer's memory at [position, position+len). Returns written, or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_archiveReadDirect(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                        jobject buffer, jint position, jint len) {
  size_t written = 0;
  uint8_t *base;
  bk_status status;
  (void)cls;
  if (index < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (!buffer) return -(jlong)BK_STATUS_NULL_POINTER;
  base = (*env)->GetDirectBufferAddress(env, buffer);
  if (!base) return -(jlong)BK_STATUS_INVALID_ARGUMENT;
  if (position < 0 || len < 0 || (jlong)position + len > (*env)->GetDirectBufferCapacity(env, buffer))
    return -(jlong)BK_STATUS_OUT_OF_RANGE;
  status = bk_archive_read(ARCHIVE(handle), (size_t)index, base + position, (size_t)len, &written);
  return status == BK_STATUS_OK ? (jlong)written : -(jlong)status;
}

/* bk_archive_read_at into a heap array at [offset, offset+len): through native memory, since the
   first slice of an entry may inflate all of it and a critical region must stay short. Returns
   the bytes read, or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_archiveReadAt(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                    jlong at, jbyteArray out, jint offset, jint len) {
  size_t written = 0;
  uint8_t *tmp;
  bk_status status;
  (void)cls;
  if (index < 0 || at < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (!out) return -(jlong)BK_STATUS_NULL_POINTER;
  if (offset < 0 || len < 0 || offset > (*env)->GetArrayLength(env, out) - len) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (!(tmp = malloc(len > 0 ? (size_t)len : 1))) return -(jlong)BK_STATUS_ALLOC_FAILED;
  status = bk_archive_read_at(ARCHIVE(handle), (size_t)index, (uint64_t)at, tmp, (size_t)len, &written);
  if (status == BK_STATUS_OK) (*env)->SetByteArrayRegion(env, out, offset, (jsize)written, (const jbyte *)tmp);
  free(tmp);
  return status == BK_STATUS_OK ? (jlong)written : -(jlong)status;
}

/* bk_archive_read_at into a direct buffer's memory at [position, position+len). */
JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_archiveReadAtDirect(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                          jlong at, jobject buffer, jint position, jint len) {
  size_t written = 0;
  uint8_t *base;
  bk_status status;
  (void)cls;
  if (index < 0 || at < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (!buffer) return -(jlong)BK_STATUS_NULL_POINTER;
  base = (*env)->GetDirectBufferAddress(env, buffer);
  if (!base) return -(jlong)BK_STATUS_INVALID_ARGUMENT;
  if (position < 0 || len < 0 || (jlong)position + len > (*env)->GetDirectBufferCapacity(env, buffer))
    return -(jlong)BK_STATUS_OUT_OF_RANGE;
  status = bk_archive_read_at(ARCHIVE(handle), (size_t)index, (uint64_t)at, base + position, (size_t)len, &written);
  return status == BK_STATUS_OK ? (jlong)written : -(jlong)status;
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_archiveSetCheckpointLimits(JNIEnv *env, jclass cls, jlong handle,
                                                                                jlong span, jlong budget) {
  (void)env, (void)cls;
  if (span < 0 || budget < 0) return BK_STATUS_INVALID_ARGUMENT;
  return (jint)bk_archive_set_checkpoint_limits(ARCHIVE(handle), (uint64_t)span, (uint64_t)budget);
}

/* bk_archive_checkpoints_export as a new byte[], or null with the status in status_out[0]. */
JNIEXPORT jbyteArray JNICALL Java_dev_bufkit_jni_JniNative_archiveCheckpointsExport(JNIEnv *env, jclass cls, jlong handle,
                                                                                    jint index, jintArray status_out) {
  bk_buffer *buffer = NULL;
  const uint8_t *bytes = NULL;
  size_t len = 0;
  jbyteArray out = NULL;
  jint status;
  (void)cls;
  if (index < 0) status = BK_STATUS_OUT_OF_RANGE;
  else if ((status = bk_buffer_new(NULL, &buffer)) == BK_STATUS_OK &&
           (status = bk_archive_checkpoints_export(ARCHIVE(handle), (size_t)index, buffer)) == BK_STATUS_OK &&
           (status = bk_buffer_data(buffer, &bytes, &len)) == BK_STATUS_OK) {
    if (len > INT32_MAX) status = BK_STATUS_LENGTH_OVERFLOW;
    else if ((out = (*env)->NewByteArray(env, (jsize)len)) != NULL)
      (*env)->SetByteArrayRegion(env, out, 0, (jsize)len, (const jbyte *)bytes);
    else status = BK_STATUS_ALLOC_FAILED;
  }
  bk_buffer_free(buffer);
  (*env)->SetIntArrayRegion(env, status_out, 0, 1, &status);
  return status == BK_STATUS_OK ? out : NULL;
}

JNIEXPORT jint JNICALL Java_dev_bufkit_jni_JniNative_archiveCheckpointsImport(JNIEnv *env, jclass cls, jlong handle,
                                                                             jint index, jbyteArray bytes) {
  jsize len;
  jbyte *copy;
  bk_status status;
  (void)cls;
  if (index < 0) return BK_STATUS_OUT_OF_RANGE;
  if (!bytes) return BK_STATUS_NULL_POINTER;
  len = (*env)->GetArrayLength(env, bytes);
  if (!(copy = malloc(len > 0 ? (size_t)len : 1))) return BK_STATUS_ALLOC_FAILED;
  (*env)->GetByteArrayRegion(env, bytes, 0, len, copy);
  status = bk_archive_checkpoints_import(ARCHIVE(handle), (size_t)index, (const uint8_t *)copy, (size_t)len);
  free(copy);
  return (jint)status;
}

/* Streaming readers: the reader's address, or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_archiveReaderOpen(JNIEnv *env, jclass cls, jlong handle, jint index) {
  bk_archive_reader *reader = NULL;
  bk_status status;
  (void)env, (void)cls;
  if (index < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  status = bk_archive_reader_open(ARCHIVE(handle), (size_t)index, &reader);
  return status == BK_STATUS_OK ? (jlong)(intptr_t)reader : -(jlong)status;
}

/* The next bytes into out[offset..offset+len): how many (0 at the end, once checked), or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_jni_JniNative_archiveReaderRead(JNIEnv *env, jclass cls, jlong reader,
                                                                        jbyteArray out, jint offset, jint len) {
  size_t n = 0;
  jbyte *dst;
  bk_status status;
  (void)cls;
  if (!out) return -(jlong)BK_STATUS_NULL_POINTER;
  if (offset < 0 || len < 0 || offset > (*env)->GetArrayLength(env, out) - len) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!dst) return -(jlong)BK_STATUS_ALLOC_FAILED;
  status = bk_archive_reader_read((bk_archive_reader *)(intptr_t)reader, (uint8_t *)dst + offset, (size_t)len, &n);
  (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
  return status == BK_STATUS_OK ? (jlong)n : -(jlong)status;
}

JNIEXPORT void JNICALL Java_dev_bufkit_jni_JniNative_archiveReaderFree(JNIEnv *env, jclass cls, jlong reader) {
  (void)env, (void)cls;
  bk_archive_reader_free((bk_archive_reader *)(intptr_t)reader);
}

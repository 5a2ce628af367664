/* Growable buffers (bk_buffer_*). */
#include "glue.h"

#define HANDLE(h) ((bk_buffer *)(intptr_t)(h))

/* Stores the new handle in `handleOut[0]`. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferNew(JNIEnv *env, jclass cls, jint growth, jdouble factor,
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

JNIEXPORT void JNICALL Java_dev_bufkit_JniNative_bufferFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  bk_buffer_free(HANDLE(handle));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferAppend(JNIEnv *env, jclass cls, jlong handle, jbyteArray data,
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

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferAppendDirect(JNIEnv *env, jclass cls, jlong handle,
                                                                    jobject /* java.nio.ByteBuffer */ direct,
                                                                    jint offset, jint length) {
  uint8_t *base = (*env)->GetDirectBufferAddress(env, direct);
  jlong capacity = (*env)->GetDirectBufferCapacity(env, direct);
  (void)cls;
  if (!base) return BK_STATUS_NULL_POINTER;
  if (offset < 0 || length < 0 || (jlong)offset + length > capacity) return BK_STATUS_OUT_OF_RANGE;
  return (jint)bk_buffer_append(HANDLE(handle), base + offset, (size_t)length);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferReserve(JNIEnv *env, jclass cls, jlong handle,
                                                               jlong additional) {
  (void)env;
  (void)cls;
  if (additional < 0) return BK_STATUS_INVALID_ARGUMENT;
  return (jint)bk_buffer_reserve(HANDLE(handle), (size_t)additional);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferClear(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jint)bk_buffer_clear(HANDLE(handle));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferStats(JNIEnv *env, jclass cls, jlong handle, jlongArray out) {
  bk_buffer_stats s;
  jlong values[BK_JNI_BUFFER_STATS_FIELDS];
  bk_status status = bk_buffer_get_stats(HANDLE(handle), &s);
  (void)cls;
  if (status != BK_STATUS_OK) return (jint)status;
  bk_jni_pack_buffer_stats(values, &s);
  return store_longs(env, out, values, BK_JNI_BUFFER_STATS_FIELDS) ? BK_STATUS_OK : BK_STATUS_OUT_OF_RANGE;
}

/* bk_buffer_copy_out from `offset` into dst[0..length). */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferCopyOut(JNIEnv *env, jclass cls, jlong handle, jlong offset,
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

/* bk_buffer_segment_count: the count, or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_bufferSegmentCount(JNIEnv *env, jclass cls, jlong handle) {
  size_t count = 0;
  bk_status status;
  (void)env, (void)cls;
  status = bk_buffer_segment_count(HANDLE(handle), &count);
  return status == BK_STATUS_OK ? (jlong)count : -(jlong)status;
}

/* A direct ByteBuffer over segment `index`: valid until the buffer changes, which the Java side
   prevents for as long as it uses it (GrowableBuffer.writeTo holds the buffer's lock). */
JNIEXPORT jobject /* java.nio.ByteBuffer */ JNICALL Java_dev_bufkit_JniNative_bufferSegment(JNIEnv *env, jclass cls,
                                                                                            jlong handle, jint index) {
  const uint8_t *data = NULL;
  size_t len = 0;
  (void)cls;
  if (index < 0 || bk_buffer_segment(HANDLE(handle), (size_t)index, &data, &len) != BK_STATUS_OK) return NULL;
  return (*env)->NewDirectByteBuffer(env, (void *)(uintptr_t)data, (jlong)len);
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_bufferFlatten(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  return (jint)bk_buffer_flatten(HANDLE(handle));
}

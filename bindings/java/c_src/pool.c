/* Buffer pools (bk_pool_*), and their leases as direct ByteBuffers. */
#include "glue.h"

#define POOL(h) ((const bk_pool *)(intptr_t)(h))

/* Stores the new pool in `handleOut[0]`. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_poolNew(JNIEnv *env, jclass cls, jlong min_class, jlong max_class,
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

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_poolFree(JNIEnv *env, jclass cls, jlong pool) {
  (void)env;
  (void)cls;
  return (jint)bk_pool_free((bk_pool *)(intptr_t)pool);
}

/* Fills `leaseOut[4]`: data address, length, pool, id. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_poolAcquire(JNIEnv *env, jclass cls, jlong pool, jlong size,
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

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_poolRelease(JNIEnv *env, jclass cls, jlong pool, jlongArray lease_in) {
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

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_poolTrim(JNIEnv *env, jclass cls, jlong pool) {
  (void)env;
  (void)cls;
  return (jint)bk_pool_trim(POOL(pool));
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_poolStats(JNIEnv *env, jclass cls, jlong pool, jlongArray out) {
  bk_pool_stats s;
  jlong values[BK_JNI_POOL_STATS_FIELDS];
  bk_status status = bk_pool_get_stats(POOL(pool), &s);
  (void)cls;
  if (status != BK_STATUS_OK) return (jint)status;
  bk_jni_pack_pool_stats(values, &s);
  return store_longs(env, out, values, BK_JNI_POOL_STATS_FIELDS) ? BK_STATUS_OK : BK_STATUS_OUT_OF_RANGE;
}

/* A direct ByteBuffer over native memory (no copy). */
JNIEXPORT jobject /* java.nio.ByteBuffer */ JNICALL Java_dev_bufkit_JniNative_directBuffer(JNIEnv *env, jclass cls,
                                                                                           jlong address,
                                                                                           jlong length) {
  (void)cls;
  return (*env)->NewDirectByteBuffer(env, (void *)(intptr_t)address, length);
}

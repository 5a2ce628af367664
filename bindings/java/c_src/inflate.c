/* Inflaters at offsets, batches, and streams fed in pieces (bk_inflater_*, bk_inflate_*). */
#include "glue.h"

#define INFLATER(h) ((bk_inflater *)(intptr_t)(h))

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_inflaterNew(JNIEnv *env, jclass cls, jint format,
                                                             jlongArray handle_out) {
  bk_inflater *inf = NULL;
  bk_status status = bk_inflater_new((uint32_t)format, &inf);
  (void)cls;
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, inf, bk_inflater_free);
}

JNIEXPORT void JNICALL Java_dev_bufkit_JniNative_inflaterFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env;
  (void)cls;
  bk_inflater_free(INFLATER(handle));
}

/* ---- a stream fed in pieces ---- */

#define STREAM(h) ((bk_inflate_stream *)(intptr_t)(h))

/* bk_inflate_stream_new: the handle into `handleOut[0]`. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_inflateStreamNew(JNIEnv *env, jclass cls, jint format, jlong origin,
                                                                  jlongArray handle_out) {
  bk_inflate_stream *stream = NULL;
  bk_status status;
  (void)cls;
  if (origin < 0) return BK_STATUS_OUT_OF_RANGE;
  status = bk_inflate_stream_new((uint32_t)format, (size_t)origin, &stream);
  if (status != BK_STATUS_OK) return (jint)status;
  GIVE_HANDLE(env, handle_out, stream, bk_inflate_stream_free);
}

/* bk_inflate_stream_free. */
JNIEXPORT void JNICALL Java_dev_bufkit_JniNative_inflateStreamFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env, (void)cls;
  bk_inflate_stream_free(STREAM(handle));
}

/* bk_inflate_stream_reset. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_inflateStreamReset(JNIEnv *env, jclass cls, jlong handle,
                                                                    jlong origin) {
  (void)env, (void)cls;
  if (origin < 0) return BK_STATUS_OUT_OF_RANGE;
  return (jint)bk_inflate_stream_reset(STREAM(handle), (size_t)origin);
}

/* input[offset..offset+length) into all of out, both pinned for the call: the bytes used, or
   -status; the stream's total into consumed_out[0] once it has ended. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_inflateStreamFeed(JNIEnv *env, jclass cls, jlong handle,
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
  if (offset < 0 || length < 0 || offset > (*env)->GetArrayLength(env, input) - length)
    return -(jlong)BK_STATUS_OUT_OF_RANGE;
  out_len = (*env)->GetArrayLength(env, out);
  out_bytes = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!out_bytes) return -(jlong)BK_STATUS_ALLOC_FAILED;
  if (length > 0 && !(in_bytes = (*env)->GetPrimitiveArrayCritical(env, input, NULL))) {
    (*env)->ReleasePrimitiveArrayCritical(env, out, out_bytes, 0);
    return -(jlong)BK_STATUS_ALLOC_FAILED;
  }
  status = bk_inflate_stream_feed(STREAM(handle), length > 0 ? (const uint8_t *)in_bytes + offset : &none,
                                  (size_t)length, (uint8_t *)out_bytes, (size_t)out_len, &used, &consumed);
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

JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_inflateAt(JNIEnv *env, jclass cls, jlong handle, jbyteArray input,
                                                            jlong offset, jbyteArray out, jint out_offset,
                                                            jint length) {
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

JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_inflateAtDirect(JNIEnv *env, jclass cls, jlong handle,
                                                                  jobject /* java.nio.ByteBuffer */ input, jlong offset,
                                                                  jobject /* java.nio.ByteBuffer */ out,
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
  status =
      bk_inflate_at(INFLATER(handle), in, (size_t)in_cap, (size_t)offset, dst + out_offset, (size_t)length, &consumed);
  return consumed_or_status(consumed, status);
}

/* Returns successes, or -status if the call itself failed. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_inflateBatch(JNIEnv *env, jclass cls, jlong handle, jbyteArray input,
                                                              jlongArray offsets, jintArray sizes, jint count,
                                                              jbyteArray out, jlongArray consumed_out,
                                                              jintArray status_out) {
  /* count: streams to inflate, the first of each array (the Java side checked every array holds them) */
  jsize n = count < 0 ? 0 : count, in_len = (*env)->GetArrayLength(env, input),
        out_len = (*env)->GetArrayLength(env, out);
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
  if ((*env)->ExceptionCheck(env)) {
    status = BK_STATUS_OUT_OF_RANGE;
    goto done;
  }
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

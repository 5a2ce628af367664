/* Archives read in place (bk_archive_*) and their readers. */
#include "glue.h"

#define ARCHIVE(h) ((bk_archive *)(intptr_t)(h))

/* bk_archive_open (holding a bk_archive_holding, localHeaders a bk_archive_local_headers): the handle into
 * `handleOut[0]`. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveOpen(JNIEnv *env, jclass cls, jstring path, jint holding,
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

/* bk_archive_free. */
JNIEXPORT void JNICALL Java_dev_bufkit_JniNative_archiveFree(JNIEnv *env, jclass cls, jlong handle) {
  (void)env, (void)cls;
  bk_archive_free(ARCHIVE(handle));
}

/* bk_archive_entry_count. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveCount(JNIEnv *env, jclass cls, jlong handle) {
  size_t count = 0;
  (void)env, (void)cls;
  bk_archive_entry_count(ARCHIVE(handle), &count);
  return count > INT32_MAX ? INT32_MAX : (jint)count;
}

/* bk_archive_verify: a long call (every entry inflated, on worker threads), made with no Java
   memory held; the two results go into out[2] after. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveVerify(JNIEnv *env, jclass cls, jlong handle, jint threads,
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

/* bk_archive_find: the index, or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveFind(JNIEnv *env, jclass cls, jlong handle, jbyteArray name) {
  size_t index = 0;
  bk_status status;
  (void)cls;
  status = find_by_array(env, handle, name, &index);
  return status == BK_STATUS_OK ? (jlong)index : -(jlong)status;
}

/* bk_archive_list: the indexes of the entries whose names match `pattern` (UTF-8; every entry for
   NULL), in archive order, in a new int[]; NULL with the status in status_out[0] on failure. */
JNIEXPORT jintArray JNICALL Java_dev_bufkit_JniNative_archiveList(JNIEnv *env, jclass cls, jlong handle,
                                                                  jbyteArray pattern, jintArray status_out) {
  jbyte *bytes = NULL;
  jsize len = 0;
  size_t capacity = 0, count = 0, *indexes = NULL;
  jintArray out = NULL;
  jint *dst;
  jint code;
  bk_status status;
  (void)cls;
  if (pattern) {
    len = (*env)->GetArrayLength(env, pattern);
    bytes = (*env)->GetByteArrayElements(env, pattern, NULL);
    if (!bytes) return NULL; /* OutOfMemoryError pending */
  }
  /* One pass over the names, with room for every entry: no more can match. */
  status = bk_archive_entry_count(ARCHIVE(handle), &capacity);
  if (status == BK_STATUS_OK && capacity > 0 && !(indexes = malloc(capacity * sizeof *indexes)))
    status = BK_STATUS_ALLOC_FAILED;
  if (status == BK_STATUS_OK)
    status = bk_archive_list(ARCHIVE(handle), (const char *)bytes, (size_t)len, indexes, capacity, &count);
  if (status == BK_STATUS_OK && count > (size_t)INT32_MAX) status = BK_STATUS_LENGTH_OVERFLOW;
  if (bytes) (*env)->ReleaseByteArrayElements(env, pattern, bytes, JNI_ABORT);
  if (status == BK_STATUS_OK && (out = (*env)->NewIntArray(env, (jsize)count)) != NULL && count > 0) {
    dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
    if (dst) {
      for (size_t i = 0; i < count; i++) dst[i] = (jint)indexes[i];
      (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
    }
  }
  free(indexes);
  if (status != BK_STATUS_OK) {
    code = (jint)status;
    (*env)->SetIntArrayRegion(env, status_out, 0, 1, &code);
  }
  return out;
}

/* The entry named `name`, whole, in a new byte[] it is inflated straight into: one call for
   find, size and read. NULL with the status in status_out[0] on failure. */
JNIEXPORT jbyteArray JNICALL Java_dev_bufkit_JniNative_archiveReadAll(JNIEnv *env, jclass cls, jlong handle,
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
  if (status_out && (*env)->GetArrayLength(env, status_out) > 0)
    (*env)->SetIntArrayRegion(env, status_out, 0, 1, &code);
  return NULL;
}

/* A direct ByteBuffer over stored entry `index` in the mapping (bk_archive_view); the Java side
   keeps the archive alive while it is reachable. NULL with the status in status_out[0]. */
JNIEXPORT jobject /* java.nio.ByteBuffer */ JNICALL Java_dev_bufkit_JniNative_archiveView(JNIEnv *env, jclass cls,
                                                                                          jlong handle, jint index,
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
  if (status_out && (*env)->GetArrayLength(env, status_out) > 0)
    (*env)->SetIntArrayRegion(env, status_out, 0, 1, &code);
  return NULL;
}

/* bk_archive_entry_info into `out[5]`: size, compressed size, CRC-32, method, directory. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveInfo(JNIEnv *env, jclass cls, jlong handle, jint index,
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

/* bk_archive_entry_name: UTF-8 bytes, or null. */
JNIEXPORT jbyteArray JNICALL Java_dev_bufkit_JniNative_archiveName(JNIEnv *env, jclass cls, jlong handle, jint index) {
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
   An archive read from a channel (`calls_back`) calls into Java during the read, which a pinned
   array forbids: it is read into native memory, then copied. Returns the bytes written (the
   entry's size), or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveRead(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                              jbyteArray out, jint offset, jint len,
                                                              jboolean calls_back) {
  size_t written = 0;
  jbyte *dst;
  bk_status status;
  (void)cls;
  if (index < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (!out) return -(jlong)BK_STATUS_NULL_POINTER;
  if (offset < 0 || len < 0 || offset > (*env)->GetArrayLength(env, out) - len) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (calls_back) {
    if (!(dst = malloc(len > 0 ? (size_t)len : 1))) return -(jlong)BK_STATUS_ALLOC_FAILED;
    status = bk_archive_read(ARCHIVE(handle), (size_t)index, (uint8_t *)dst, (size_t)len, &written);
    if (status == BK_STATUS_OK) (*env)->SetByteArrayRegion(env, out, offset, (jsize)written, dst);
    free(dst);
    return status == BK_STATUS_OK ? (jlong)written : -(jlong)status;
  }
  dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!dst) return -(jlong)BK_STATUS_ALLOC_FAILED;
  status = bk_archive_read(ARCHIVE(handle), (size_t)index, (uint8_t *)dst + offset, (size_t)len, &written);
  (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
  return status == BK_STATUS_OK ? (jlong)written : -(jlong)status;
}

/* Into a direct buffer's memory at [position, position+len). Returns written, or -status. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveReadDirect(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                    jobject /* java.nio.ByteBuffer */ buffer,
                                                                    jint position, jint len) {
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
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveReadAt(JNIEnv *env, jclass cls, jlong handle, jint index,
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
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveReadAtDirect(JNIEnv *env, jclass cls, jlong handle, jint index,
                                                                      jlong at,
                                                                      jobject /* java.nio.ByteBuffer */ buffer,
                                                                      jint position, jint len) {
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

/* bk_archive_set_checkpoint_limits. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveSetCheckpointLimits(JNIEnv *env, jclass cls, jlong handle,
                                                                            jlong span, jlong budget) {
  (void)env, (void)cls;
  if (span < 0 || budget < 0) return BK_STATUS_INVALID_ARGUMENT;
  return (jint)bk_archive_set_checkpoint_limits(ARCHIVE(handle), (uint64_t)span, (uint64_t)budget);
}

/* bk_archive_set_parallel_inflate. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveSetParallelInflate(JNIEnv *env, jclass cls, jlong handle,
                                                                           jint mode) {
  (void)env, (void)cls;
  if (mode < 0) return BK_STATUS_INVALID_ARGUMENT;
  return (jint)bk_archive_set_parallel_inflate(ARCHIVE(handle), (uint32_t)mode);
}

/* bk_archive_checkpoints_export as a new byte[], or null with the status in status_out[0]. */
JNIEXPORT jbyteArray JNICALL Java_dev_bufkit_JniNative_archiveCheckpointsExport(JNIEnv *env, jclass cls, jlong handle,
                                                                                jint index, jintArray status_out) {
  bk_buffer *buffer = NULL;
  const uint8_t *bytes = NULL;
  size_t len = 0;
  jbyteArray out = NULL;
  jint status;
  (void)cls;
  if (index < 0)
    status = BK_STATUS_OUT_OF_RANGE;
  else if ((status = bk_buffer_new(NULL, &buffer)) == BK_STATUS_OK &&
           (status = bk_archive_checkpoints_export(ARCHIVE(handle), (size_t)index, buffer)) == BK_STATUS_OK &&
           (status = bk_buffer_data(buffer, &bytes, &len)) == BK_STATUS_OK) {
    if (len > INT32_MAX)
      status = BK_STATUS_LENGTH_OVERFLOW;
    else if ((out = (*env)->NewByteArray(env, (jsize)len)) != NULL)
      (*env)->SetByteArrayRegion(env, out, 0, (jsize)len, (const jbyte *)bytes);
    else
      status = BK_STATUS_ALLOC_FAILED;
  }
  bk_buffer_free(buffer);
  (*env)->SetIntArrayRegion(env, status_out, 0, 1, &status);
  return status == BK_STATUS_OK ? out : NULL;
}

/* bk_archive_checkpoints_import. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveCheckpointsImport(JNIEnv *env, jclass cls, jlong handle,
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
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveReaderOpen(JNIEnv *env, jclass cls, jlong handle, jint index) {
  bk_archive_reader *reader = NULL;
  bk_status status;
  (void)env, (void)cls;
  if (index < 0) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  status = bk_archive_reader_open(ARCHIVE(handle), (size_t)index, &reader);
  return status == BK_STATUS_OK ? (jlong)(intptr_t)reader : -(jlong)status;
}

/* The next bytes into out[offset..offset+len): how many (0 at the end, once checked), or -status.
   Through native memory when the archive is read from a channel (`calls_back`), as archiveRead. */
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveReaderRead(JNIEnv *env, jclass cls, jlong reader,
                                                                    jbyteArray out, jint offset, jint len,
                                                                    jboolean calls_back) {
  size_t n = 0;
  jbyte *dst;
  bk_status status;
  (void)cls;
  if (!out) return -(jlong)BK_STATUS_NULL_POINTER;
  if (offset < 0 || len < 0 || offset > (*env)->GetArrayLength(env, out) - len) return -(jlong)BK_STATUS_OUT_OF_RANGE;
  if (calls_back) {
    if (!(dst = malloc(len > 0 ? (size_t)len : 1))) return -(jlong)BK_STATUS_ALLOC_FAILED;
    status = bk_archive_reader_read((bk_archive_reader *)(intptr_t)reader, (uint8_t *)dst, (size_t)len, &n);
    if (status == BK_STATUS_OK) (*env)->SetByteArrayRegion(env, out, offset, (jsize)n, dst);
    free(dst);
    return status == BK_STATUS_OK ? (jlong)n : -(jlong)status;
  }
  dst = (*env)->GetPrimitiveArrayCritical(env, out, NULL);
  if (!dst) return -(jlong)BK_STATUS_ALLOC_FAILED;
  status = bk_archive_reader_read((bk_archive_reader *)(intptr_t)reader, (uint8_t *)dst + offset, (size_t)len, &n);
  (*env)->ReleasePrimitiveArrayCritical(env, out, dst, 0);
  return status == BK_STATUS_OK ? (jlong)n : -(jlong)status;
}

/* bk_archive_reader_cores: how many cores the reader inflates on (1 on a failure). */
JNIEXPORT jlong JNICALL Java_dev_bufkit_JniNative_archiveReaderCores(JNIEnv *env, jclass cls, jlong reader) {
  size_t cores = 1;
  (void)env, (void)cls;
  if (bk_archive_reader_cores((const bk_archive_reader *)(intptr_t)reader, &cores) != BK_STATUS_OK) return 1;
  return (jlong)cores;
}

/* bk_archive_reader_wait, outside any critical region: its status. */
JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_archiveReaderWait(JNIEnv *env, jclass cls, jlong reader) {
  (void)env, (void)cls;
  return (jint)bk_archive_reader_wait((bk_archive_reader *)(intptr_t)reader);
}

/* bk_archive_reader_free. */
JNIEXPORT void JNICALL Java_dev_bufkit_JniNative_archiveReaderFree(JNIEnv *env, jclass cls, jlong reader) {
  (void)env, (void)cls;
  bk_archive_reader_free((bk_archive_reader *)(intptr_t)reader);
}

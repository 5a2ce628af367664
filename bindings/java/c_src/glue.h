/*
 * What the JNI glue's files share: thin C over include/bufkit.h, with libbufkit.a linked in
 * statically. Arrays are pinned with GetPrimitiveArrayCritical (no copy) for the length of one
 * bufkit call; only Java_* symbols are exported. Handles are bufkit pointers carried in a jlong.
 * One file per object, as the NIF is: library.c, buffer.c, pool.c, inflate.c, extract.c,
 * archive.c.
 */
#ifndef BUFKIT_JNI_GLUE_H
#define BUFKIT_JNI_GLUE_H

#include <jni.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bufkit.h"
#include "records.gen.h"

/* Copies `n` values into a Java long[]; 0 if that raised (a null or too short array). */
static inline int store_longs(JNIEnv *env, jlongArray out, const jlong *values, jsize n) {
  (*env)->SetLongArrayRegion(env, out, 0, n, values);
  return !(*env)->ExceptionCheck(env);
}

/* Hands a new handle to Java in handle_out[0] and returns BK_STATUS_OK; if it cannot be stored
   (a null or empty array), frees it with free_fn so nothing leaks, and returns NULL_POINTER. */
#define GIVE_HANDLE(env, handle_out, ptr, free_fn)       \
  do {                                                   \
    jlong given_ = (jlong)(intptr_t)(ptr);               \
    if (!store_longs((env), (handle_out), &given_, 1)) { \
      free_fn(ptr);                                      \
      return BK_STATUS_NULL_POINTER;                     \
    }                                                    \
    return BK_STATUS_OK;                                 \
  } while (0)

#endif

/* The library as a whole: its version, ABI, status messages and the panic check. */
#include "glue.h"

JNIEXPORT jstring JNICALL Java_dev_bufkit_JniNative_version(JNIEnv *env, jclass cls) {
  (void)cls;
  return (*env)->NewStringUTF(env, bk_version());
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_abiVersion(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)bk_abi_version();
}

JNIEXPORT jint JNICALL Java_dev_bufkit_JniNative_testPanic(JNIEnv *env, jclass cls) {
  (void)env;
  (void)cls;
  return (jint)bk_test_panic();
}

JNIEXPORT jstring JNICALL Java_dev_bufkit_JniNative_statusMessage(JNIEnv *env, jclass cls, jint code) {
  (void)cls;
  return (*env)->NewStringUTF(env, bk_status_message((uint32_t)code));
}

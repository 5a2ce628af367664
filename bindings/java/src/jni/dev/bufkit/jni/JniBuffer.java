package dev.bufkit.jni;

import dev.bufkit.GrowableBuffer;
import java.nio.ByteBuffer;

/** A {@code bk_buffer} held by its address; every call goes through {@link JniNative}. */
final class JniBuffer extends GrowableBuffer {
    private final long handle;

    JniBuffer(long handle) {
        super(() -> JniNative.bufferFree(handle)); // captures the address only, never this
        this.handle = handle;
    }

    @Override
    protected int nativeAppend(byte[] data, int offset, int length) {
        return JniNative.bufferAppend(handle, data, offset, length);
    }

    @Override
    protected int nativeAppendDirect(ByteBuffer direct, int offset, int length) {
        return JniNative.bufferAppendDirect(handle, direct, offset, length);
    }

    @Override
    protected int nativeReserve(long additional) {
        return JniNative.bufferReserve(handle, additional);
    }

    @Override
    protected int nativeClear() {
        return JniNative.bufferClear(handle);
    }

    @Override
    protected int nativeStats(long[] out) {
        return JniNative.bufferStats(handle, out);
    }

    @Override
    protected int nativeCopyOut(byte[] dst, long[] copied) {
        return JniNative.bufferCopyOut(handle, dst, copied);
    }

    @Override
    protected int nativeFlatten() {
        return JniNative.bufferFlatten(handle);
    }

    @Override
    protected String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }
}

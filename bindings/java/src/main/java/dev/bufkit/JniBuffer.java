package dev.bufkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/** A {@code bk_buffer} held by its address; every call goes through {@link JniNative}. */
final class JniBuffer extends GrowableBuffer {
    private final long handle;

    JniBuffer(long handle) {
        super(() -> JniNative.bufferFree(handle)); // captures the address only, never this
        this.handle = handle;
    }

    @Override
    int nativeAppend(byte[] data, int offset, int length) {
        return JniNative.bufferAppend(handle, data, offset, length);
    }

    @Override
    int nativeAppendDirect(ByteBuffer direct, int offset, int length) {
        return JniNative.bufferAppendDirect(handle, direct, offset, length);
    }

    @Override
    int nativeReserve(long additional) {
        return JniNative.bufferReserve(handle, additional);
    }

    @Override
    int nativeClear() {
        return JniNative.bufferClear(handle);
    }

    @Override
    int nativeStats(long[] out) {
        return JniNative.bufferStats(handle, out);
    }

    @Override
    int nativeCopyOut(long offset, byte[] dst, int length, long[] copied) {
        return JniNative.bufferCopyOut(handle, offset, dst, length, copied);
    }

    @Override
    long nativeWriteTo(WritableByteChannel channel) throws IOException {
        long count = JniNative.bufferSegmentCount(handle), written = 0;
        if (count < 0) return count;
        for (int i = 0; i < count; i++) {
            // A direct buffer over the segment: valid while the buffer does not change, which the
            // caller's lock guarantees for the length of this call.
            ByteBuffer segment = JniNative.bufferSegment(handle, i);
            if (segment == null) return -dev.bufkit.Status.OUT_OF_RANGE.code;
            written += writeFully(channel, segment);
        }
        return written;
    }

    @Override
    int nativeFlatten() {
        return JniNative.bufferFlatten(handle);
    }

    @Override
    String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }
}

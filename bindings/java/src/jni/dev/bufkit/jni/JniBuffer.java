package dev.bufkit.jni;

import dev.bufkit.GrowableBuffer;
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
    protected int nativeCopyOut(long offset, byte[] dst, int length, long[] copied) {
        return JniNative.bufferCopyOut(handle, offset, dst, length, copied);
    }

    @Override
    protected long nativeWriteTo(WritableByteChannel channel) throws IOException {
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
    protected int nativeFlatten() {
        return JniNative.bufferFlatten(handle);
    }

    @Override
    protected String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }
}

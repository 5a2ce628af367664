package dev.bufkit;

import java.nio.ByteBuffer;

/** A {@code bk_inflater} held by its address. */
final class JniInflater extends OffsetInflater {
    private final long handle;

    JniInflater(long handle) {
        super(() -> JniNative.inflaterFree(handle)); // captures the address only, never this
        this.handle = handle;
    }

    @Override
    long nativeInflate(byte[] input, long offset, byte[] out, int outOffset, int length) {
        return JniNative.inflateAt(handle, input, offset, out, outOffset, length);
    }

    @Override
    long nativeInflateDirect(ByteBuffer input, long offset, ByteBuffer out, int outOffset, int length) {
        return JniNative.inflateAtDirect(handle, input, offset, out, outOffset, length);
    }

    @Override
    int nativeBatch(byte[] input, long[] offsets, int[] sizes, int n, byte[] out, long[] consumed, int[] status) {
        return JniNative.inflateBatch(handle, input, offsets, sizes, n, out, consumed, status);
    }

    @Override
    String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }
}

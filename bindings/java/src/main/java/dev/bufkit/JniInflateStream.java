package dev.bufkit;


/** The JNI front's {@link InflateStream}: both arrays pinned for each feed. */
final class JniInflateStream extends InflateStream {
    private final long handle;

    JniInflateStream(long handle, byte[] out) {
        super(() -> JniNative.inflateStreamFree(handle), out); // captures the address only, never this
        this.handle = handle;
    }

    @Override
    long nativeFeed(byte[] input, int offset, int length, byte[] out, long[] consumed) {
        return JniNative.inflateStreamFeed(handle, input, offset, length, out, consumed);
    }

    @Override
    int nativeReset(long origin) {
        return JniNative.inflateStreamReset(handle, origin);
    }

    @Override
    String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }
}

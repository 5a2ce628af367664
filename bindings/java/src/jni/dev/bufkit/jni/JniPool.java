package dev.bufkit.jni;

import dev.bufkit.BufferPool;
import dev.bufkit.Lease;
import java.nio.ByteBuffer;

/** A {@code bk_pool} held by its address. */
final class JniPool extends BufferPool {
    private final long handle;

    JniPool(long handle) {
        super(() -> JniNative.poolFree(handle)); // captures the address only, never this
        this.handle = handle;
    }

    @Override
    protected int nativeAcquire(long size, long[] lease) {
        return JniNative.poolAcquire(handle, size, lease);
    }

    @Override
    protected Lease wrap(long[] lease) {
        return new JniLease(this, lease);
    }

    @Override
    protected int nativeRelease(long[] lease) {
        return JniNative.poolRelease(handle, lease);
    }

    @Override
    protected int nativeTrim() {
        return JniNative.poolTrim(handle);
    }

    @Override
    protected int nativeStats(long[] out) {
        return JniNative.poolStats(handle, out);
    }

    @Override
    protected String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }

    /** A lease seen through a direct ByteBuffer over the pooled memory. */
    private static final class JniLease extends Lease {
        private final ByteBuffer buffer;

        JniLease(BufferPool pool, long[] lease) {
            super(pool, lease);
            this.buffer = JniNative.directBuffer(address(), Math.min(length(), Integer.MAX_VALUE));
        }

        @Override
        public ByteBuffer buffer() {
            if (isClosed()) throw new IllegalStateException("lease is closed");
            return buffer.duplicate().clear();
        }
    }
}

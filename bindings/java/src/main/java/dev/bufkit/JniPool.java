package dev.bufkit;

import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;

/** A {@code bk_pool} held by its address. */
final class JniPool extends BufferPool {
    /** Most direct buffers {@link #views} keeps; past it, it starts again empty. */
    private static final int MAX_VIEWS = 1024;

    private final long handle;
    /**
     * A direct ByteBuffer per pooled block, by address, made once and shared by every lease of
     * that block: JNI's NewDirectByteBuffer cost about 400 of a lease's 540 ns, and the pool lends
     * the same warm blocks over and over. Two live leases never share a block, and each lease
     * hands out its own duplicate, so sharing the object shares nothing a caller can see.
     */
    private final ConcurrentHashMap<Long, ByteBuffer> views = new ConcurrentHashMap<>();

    JniPool(long handle) {
        super(() -> JniNative.poolFree(handle)); // captures the address only, never this
        this.handle = handle;
    }

    @Override
    int nativeAcquire(long size, long[] lease) {
        return JniNative.poolAcquire(handle, size, lease);
    }

    @Override
    Lease wrap(long[] lease) {
        return new JniLease(this, lease, view(lease[0], (int) Math.min(lease[1], Integer.MAX_VALUE)));
    }

    /** The direct buffer over {@code length} bytes at {@code address}, made on first use. */
    private ByteBuffer view(long address, int length) {
        ByteBuffer cached = views.get(address);
        if (cached != null && cached.capacity() == length) return cached; // a block the pool freed and mapped again may differ
        ByteBuffer fresh = JniNative.directBuffer(address, length);
        if (views.size() >= MAX_VIEWS) views.clear();
        views.put(address, fresh);
        return fresh;
    }

    @Override
    int nativeRelease(long[] lease) {
        return JniNative.poolRelease(handle, lease);
    }

    @Override
    int nativeTrim() {
        return JniNative.poolTrim(handle);
    }

    @Override
    int nativeStats(long[] out) {
        return JniNative.poolStats(handle, out);
    }

    @Override
    String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }

    /** A lease seen through a direct ByteBuffer over the pooled memory. */
    private static final class JniLease extends Lease {
        private final ByteBuffer buffer;

        JniLease(BufferPool pool, long[] lease, ByteBuffer buffer) {
            super(pool, lease);
            this.buffer = buffer;
        }

        @Override
        public ByteBuffer buffer() {
            if (isClosed()) throw new IllegalStateException("lease is closed");
            return buffer.duplicate().clear();
        }
    }
}

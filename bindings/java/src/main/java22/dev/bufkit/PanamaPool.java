package dev.bufkit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** A {@code bk_pool} held as its address; leases are {@link PanamaLease}s. */
final class PanamaPool extends BufferPool {
    private final MemorySegment handle;

    PanamaPool(MemorySegment handle) {
        super(() -> free(handle)); // captures the address only, never this
        this.handle = handle;
    }

    private static void free(MemorySegment handle) {
        try {
            int ignored = (int) BufkitLibrary.POOL_FREE.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeAcquire(long size, long[] lease) {
        try {
            return (int) BufkitLibrary.POOL_ACQUIRE.invokeExact(handle, size, MemorySegment.ofArray(lease));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    Lease wrap(long[] lease) {
        return new PanamaLease(this, lease);
    }

    @Override
    int nativeRelease(long[] lease) {
        try {
            return (int) BufkitLibrary.POOL_RELEASE.invokeExact(handle, MemorySegment.ofArray(lease));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeTrim() {
        try {
            return (int) BufkitLibrary.POOL_TRIM.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeStats(long[] out) {
        try {
            return (int) BufkitLibrary.POOL_GET_STATS.invokeExact(handle, MemorySegment.ofArray(out));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    String statusMessage(int code) {
        return Failures.message(code);
    }

    /**
     * A lease seen as a {@link MemorySegment} bound to a confined arena that closes when the lease
     * does: any access after close throws instead of touching memory the pool has taken back.
     * Use and close it on the thread that acquired it.
     */
    static final class PanamaLease extends Lease {
        private final Arena arena = Arena.ofConfined();
        private final MemorySegment segment;

        PanamaLease(BufferPool pool, long[] lease) {
            super(pool, lease);
            this.segment = MemorySegment.ofAddress(address()).reinterpret(length(), arena, null);
        }

        /** The pooled memory, valid until {@link #close()}. */
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public ByteBuffer buffer() {
            if (isClosed()) throw new IllegalStateException("lease is closed");
            return segment.asSlice(0, Math.min(length(), Integer.MAX_VALUE)).asByteBuffer();
        }

        @Override
        void beforeRelease() {
            arena.close();
        }
    }
}

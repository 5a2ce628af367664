package dev.bufkit;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;

/**
 * A buffer lent by a {@link BufferPool}: direct memory, no copy. Closing gives it back; closing
 * twice does nothing. The buffer must not be used after close (the Panama front enforces this for
 * its {@code MemorySegment}; a direct {@link ByteBuffer} cannot be revoked).
 */
public abstract class Lease implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaners.CLEANER;

    private final long[] lease;
    private final Cleaner.Cleanable cleanable;
    private boolean closed;

    /** A lease described by {@code lease[4]} (address, length, pool, id) from {@code pool}. A lease
     *  that becomes unreachable unclosed is given back by a cleaner. */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    Lease(BufferPool pool, long[] lease) {
        this.lease = lease;
        this.cleanable = CLEANER.register(this, () -> pool.release(lease)); // captures the pool, never this
    }

    /** Address of the buffer. */
    final long address() {
        return lease[0];
    }

    /** Usable bytes: the request rounded up to its size class. */
    public final long length() {
        return lease[1];
    }

    /** The buffer as a direct ByteBuffer (position 0, limit {@link #length()}, capped at 2 GiB - 1). */
    public abstract ByteBuffer buffer();

    /** Gives the buffer back to its pool. */
    @Override
    public final synchronized void close() {
        if (closed) return;
        closed = true;
        beforeRelease();
        cleanable.clean();
    }

    /** Whether it has been closed. */
    public final synchronized boolean isClosed() {
        return closed;
    }

    /** Hook for a front to revoke its views before the memory goes back. */
    void beforeRelease() {}
}

package dev.bufkit;

import java.lang.ref.Cleaner;

/**
 * A native pool of reusable byte buffers (bufkit.h's {@code bk_pool}), lent as direct memory with
 * no copy. Thread-safe without a lock: the native pool takes none, and acquire and release here
 * only count themselves in and out ({@link CallGate}), which lets {@link #close()} wait for calls
 * in progress before it frees anything. {@link #close()}
 * refuses, with {@link Status#LEASES_OUTSTANDING}, while leases are open, and frees nothing then.
 *
 * <pre>{@code
 * try (BufferPool pool = Bufkit.load().newPool(PoolConfig.defaults());
 *      Lease lease = pool.acquire(64 * 1024)) {
 *     ByteBuffer buf = lease.buffer(); // direct, over the pooled memory
 *     buf.put(bytes);
 * }
 * }</pre>
 */
public abstract class BufferPool implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaners.CLEANER;

    private final Cleaner.Cleanable cleanable;
    private final CallGate gate = new CallGate("pool");

    /** Registers {@code free} ({@code bk_pool_free}) to run once: at a successful close, or when
     *  the pool is unreachable (which open leases prevent: each keeps its pool reachable). */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    BufferPool(Runnable free) {
        this.cleanable = CLEANER.register(this, free);
    }

    /** {@code bk_pool_acquire}: fills {@code lease[4]} with data address, length, pool, id. */
    abstract int nativeAcquire(long size, long[] lease);

    /** Wraps a lent buffer for Java. */
    abstract Lease wrap(long[] lease);

    /** {@code bk_pool_release} of {@code lease[4]}. */
    abstract int nativeRelease(long[] lease);

    /** {@code bk_pool_trim}. */
    abstract int nativeTrim();

    /** {@code bk_pool_get_stats} into {@code out[9]}. */
    abstract int nativeStats(long[] out);

    /** {@code bk_status_message}. */
    abstract String statusMessage(int code);

    /** Lends a buffer of at least {@code size} bytes; close the lease to give it back. */
    public final Lease acquire(long size) {
        if (size <= 0) throw new IllegalArgumentException("size must be positive: " + size);
        long[] lease = new long[4];
        gate.enter();
        try {
            check("bk_pool_acquire", nativeAcquire(size, lease));
        } finally {
            gate.leave();
        }
        return wrap(lease);
    }

    /** Gives a lease's buffer back (called by {@link Lease#close()} and the lease's cleaner). An
     *  open lease keeps the pool open, so this never finds it closed. */
    final void release(long[] lease) {
        gate.enterAlways();
        try {
            check("bk_pool_release", nativeRelease(lease));
        } finally {
            gate.leave();
        }
    }

    /** Frees every idle buffer. */
    public final void trim() {
        gate.enter();
        try {
            check("bk_pool_trim", nativeTrim());
        } finally {
            gate.leave();
        }
    }

    /** The pool's totals. */
    public final PoolStats stats() {
        gate.enter();
        try {
            return nativeStatsRecord();
        } finally {
            gate.leave();
        }
    }

    private PoolStats nativeStatsRecord() {
        long[] s = new long[PoolStats.FIELDS];
        check("bk_pool_get_stats", nativeStats(s));
        return PoolStats.of(s);
    }

    /** Frees the pool; throws {@link BufkitException} ({@link Status#LEASES_OUTSTANDING}) while leases are open. */
    @Override
    public final synchronized void close() {
        if (gate.isClosed()) return;
        gate.close(); // no new acquire gets past enter() from here on
        long open = nativeStatsRecord().outstandingLeases();
        if (open > 0) {
            gate.reopen();
            throw new BufkitException("bk_pool_free", Status.LEASES_OUTSTANDING.code,
                    statusMessage(Status.LEASES_OUTSTANDING.code) + ": " + open + " open");
        }
        cleanable.clean();
    }

    private void check(String function, int code) {
        if (code != Status.OK.code) throw new BufkitException(function, code, statusMessage(code));
    }
}

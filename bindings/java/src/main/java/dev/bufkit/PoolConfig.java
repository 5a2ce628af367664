package dev.bufkit;

/**
 * How to build a {@link BufferPool}; defaults match {@code bk_pool_config_default}.
 *
 * @param minClassSize smallest size class, a power of two ≥ 64
 * @param maxClassSize largest size class; larger requests are served directly and never retained
 * @param maxRetainedBytes hard cap on idle bytes the pool keeps
 * @param maxBuffersPerClass idle buffers per class in the shared pool
 * @param threadCacheBuffers idle buffers per class each native thread caches (at most 16)
 * @param zeroOnAcquire zero every buffer before lending it
 * @param decayAfterMillis free shared buffers idle this long; 0 never
 */
public record PoolConfig(long minClassSize, long maxClassSize, long maxRetainedBytes, long maxBuffersPerClass,
        long threadCacheBuffers, boolean zeroOnAcquire, long decayAfterMillis) {
    /** Checks what Java can check; the library checks the rest. */
    public PoolConfig {
        if (minClassSize < 0 || maxClassSize < 0 || maxRetainedBytes < 0 || maxBuffersPerClass < 0
                || threadCacheBuffers < 0 || decayAfterMillis < 0) {
            throw new IllegalArgumentException("pool sizes must not be negative");
        }
    }

    /** 4 KiB … 4 MiB classes, 64 MiB cap, 64 per class, 4 per thread, dirty buffers, 30 s decay. */
    public static PoolConfig defaults() {
        return new PoolConfig(4096, 4 << 20, 64 << 20, 64, 4, false, 30_000);
    }

    /** With another retained-bytes cap. */
    public PoolConfig withMaxRetainedBytes(long bytes) {
        return new PoolConfig(minClassSize, maxClassSize, bytes, maxBuffersPerClass, threadCacheBuffers, zeroOnAcquire, decayAfterMillis);
    }

    /** With another per-thread cache size. */
    public PoolConfig withThreadCacheBuffers(long n) {
        return new PoolConfig(minClassSize, maxClassSize, maxRetainedBytes, maxBuffersPerClass, n, zeroOnAcquire, decayAfterMillis);
    }

    /** With zeroing on or off. */
    public PoolConfig withZeroOnAcquire(boolean zero) {
        return new PoolConfig(minClassSize, maxClassSize, maxRetainedBytes, maxBuffersPerClass, threadCacheBuffers, zero, decayAfterMillis);
    }

    /** With another smallest class. */
    public PoolConfig withMinClassSize(long size) {
        return new PoolConfig(size, maxClassSize, maxRetainedBytes, maxBuffersPerClass, threadCacheBuffers, zeroOnAcquire, decayAfterMillis);
    }
}

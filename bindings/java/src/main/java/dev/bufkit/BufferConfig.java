package dev.bufkit;

/**
 * How to build a {@link GrowableBuffer}; immutable, with withers. Defaults match
 * {@code bk_buffer_config_default}: geometric ×2, no practical limit, nothing preallocated.
 *
 * <pre>{@code
 * BufferConfig config = BufferConfig.defaults().withGrowth(Growth.SEGMENTED).withMaxCapacity(1 << 30);
 * }</pre>
 */
public record BufferConfig(Growth growth, double factor, long step, long chunkSize, long maxCapacity, long initialCapacity) {
    /** Checks what Java can check; the native side checks the rest (factor range, chunk size). */
    public BufferConfig {
        java.util.Objects.requireNonNull(growth, "growth");
        if (step < 0 || chunkSize < 0 || maxCapacity < 0 || initialCapacity < 0) {
            throw new IllegalArgumentException("sizes must not be negative");
        }
    }

    /** The defaults. */
    public static BufferConfig defaults() {
        return new BufferConfig(Growth.GEOMETRIC, 2.0, 2048, 65536, Long.MAX_VALUE, 0);
    }

    /** With another growth policy. */
    public BufferConfig withGrowth(Growth g) {
        return new BufferConfig(g, factor, step, chunkSize, maxCapacity, initialCapacity);
    }

    /** With another geometric factor (1 &lt; factor ≤ 8). */
    public BufferConfig withFactor(double f) {
        return new BufferConfig(growth, f, step, chunkSize, maxCapacity, initialCapacity);
    }

    /** With another linear step. */
    public BufferConfig withStep(long s) {
        return new BufferConfig(growth, factor, s, chunkSize, maxCapacity, initialCapacity);
    }

    /** With another segment chunk size (≥ 64). */
    public BufferConfig withChunkSize(long c) {
        return new BufferConfig(growth, factor, step, c, maxCapacity, initialCapacity);
    }

    /** With a capacity limit. */
    public BufferConfig withMaxCapacity(long m) {
        return new BufferConfig(growth, factor, step, chunkSize, m, initialCapacity);
    }

    /** With bytes allocated up front. */
    public BufferConfig withInitialCapacity(long i) {
        return new BufferConfig(growth, factor, step, chunkSize, maxCapacity, i);
    }
}

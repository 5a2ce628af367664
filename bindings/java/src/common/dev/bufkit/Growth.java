package dev.bufkit;

/** How a {@link GrowableBuffer} gets more room; the values are {@code bk_growth} from bufkit.h. */
public enum Growth {
    /** Multiply capacity by a factor (default ×2), through realloc/mremap. The default. */
    GEOMETRIC(0),
    /** Add a fixed step by allocate + copy: the quadratic baseline, for measurement only. */
    LINEAR(1),
    /** Grow to exactly what is needed; reserve up front. */
    EXACT(2),
    /** A chain of fixed-size chunks that never copies; not contiguous until flattened. */
    SEGMENTED(3);

    /** The C value. */
    public final int code;

    Growth(int code) {
        this.code = code;
    }
}

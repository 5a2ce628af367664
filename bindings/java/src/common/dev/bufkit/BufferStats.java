package dev.bufkit;

/**
 * A buffer's counters ({@code bk_buffer_stats}).
 *
 * @param len bytes held
 * @param capacity bytes it can hold before growing again
 * @param grows times the capacity increased (segmented: chunks allocated)
 * @param moves times the data changed address
 * @param bytesCopied bytes copied by the CPU to relocate or flatten the data
 */
public record BufferStats(long len, long capacity, long grows, long moves, long bytesCopied) {}

package dev.bufkit;

import java.util.Arrays;
import java.util.Objects;

/**
 * Streams to inflate in one native call, and then their results: a reusable list of (offset, exact
 * inflated size) that {@link OffsetInflater#inflate(byte[], InflateBatch, byte[])} inflates into
 * consecutive ranges of one output array. It keeps its arrays between uses, so a batch that is
 * {@linkplain #clear() cleared} and refilled allocates nothing once it has reached its largest
 * size. Not thread-safe: one batch per thread.
 *
 * <pre>{@code
 * InflateBatch batch = new InflateBatch(1024);
 * for (PackEntry e : entries) batch.add(e.dataOffset(), e.size());
 * byte[] out = new byte[Math.toIntExact(batch.totalSize())];
 * inflater.inflate(pack, batch, out);
 * for (int i = 0; i < batch.size(); i++) {
 *     if (batch.status(i) != Status.OK) throw new IOException("object " + i + ": " + batch.status(i));
 *     use(out, batch.outputOffset(i), batch.outputLength(i));     // next object at offset + batch.consumed(i)
 * }
 * }</pre>
 */
public final class InflateBatch {
    private long[] offsets;
    private int[] sizes;
    private int[] outputOffsets;
    private long[] consumed;
    private int[] status;
    private int count;
    private long totalSize;
    /** Whether the results belong to the streams now in the batch. */
    private boolean inflated;

    /** An empty batch with room for {@code capacity} streams before it grows. */
    public InflateBatch(int capacity) {
        if (capacity < 0) throw new IllegalArgumentException("capacity must not be negative: " + capacity);
        offsets = new long[capacity];
        sizes = new int[capacity];
        outputOffsets = new int[capacity];
        consumed = new long[capacity];
        status = new int[capacity];
    }

    /**
     * Adds the stream at {@code offset} of the input whose inflated size is exactly {@code size};
     * returns its index. Its output goes right after the previous stream's.
     */
    public int add(long offset, int size) {
        if (offset < 0) throw new IllegalArgumentException("offset must not be negative: " + offset);
        if (size < 0) throw new IllegalArgumentException("size must not be negative: " + size);
        if (totalSize + size > Integer.MAX_VALUE) {
            throw new IllegalStateException("the batch's output would pass 2 GiB: inflate it, clear it, then add more");
        }
        if (count == offsets.length) grow();
        offsets[count] = offset;
        sizes[count] = size;
        outputOffsets[count] = (int) totalSize;
        totalSize += size;
        inflated = false;
        return count++;
    }

    /** Empties the batch, keeping its arrays. */
    public void clear() {
        count = 0;
        totalSize = 0;
        inflated = false;
    }

    /** Streams in the batch. */
    public int size() {
        return count;
    }

    /** Bytes the output array must hold: the sum of the streams' sizes. */
    public long totalSize() {
        return totalSize;
    }

    /** Where stream {@code i}'s bytes start in the output array. */
    public int outputOffset(int i) {
        return outputOffsets[Objects.checkIndex(i, count)];
    }

    /** Stream {@code i}'s inflated size, as added. */
    public int outputLength(int i) {
        return sizes[Objects.checkIndex(i, count)];
    }

    /** The input bytes stream {@code i} occupied (0 unless its status is {@link Status#OK}). */
    public long consumed(int i) {
        checkInflated(i);
        return consumed[i];
    }

    /** Stream {@code i}'s outcome: {@link Status#OK}, or why it failed (its output range is zeroed). */
    public Status status(int i) {
        checkInflated(i);
        return Status.of(status[i]);
    }

    /** Called by {@link OffsetInflater} with the batch's own arrays. */
    int inflateWith(OffsetInflater inflater, byte[] input, byte[] out) {
        int ok = inflater.batch(input, offsets, sizes, count, out, consumed, status);
        inflated = true;
        return ok;
    }

    private void checkInflated(int i) {
        Objects.checkIndex(i, count);
        if (!inflated) throw new IllegalStateException("the batch has not been inflated since it last changed");
    }

    private void grow() {
        int n = Math.max(16, offsets.length * 2);
        offsets = Arrays.copyOf(offsets, n);
        sizes = Arrays.copyOf(sizes, n);
        outputOffsets = Arrays.copyOf(outputOffsets, n);
        consumed = Arrays.copyOf(consumed, n);
        status = Arrays.copyOf(status, n);
    }
}

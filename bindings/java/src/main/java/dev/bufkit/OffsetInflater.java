package dev.bufkit;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * Inflates zlib (or raw deflate) streams at an offset of a larger input, reporting exactly how
 * many input bytes each occupied (bufkit.h's {@code bk_inflater}). Arrays are pinned, never
 * copied; bytes after a stream are never read as part of it. Thread-safe (calls are serialised);
 * use one per thread for throughput.
 *
 * <pre>{@code
 * try (OffsetInflater inf = Bufkit.load().newInflater(Format.ZLIB)) {
 *     long consumed = inf.inflateAt(pack, offset, out, 0, objectSize); // next object at offset + consumed
 * }
 * }</pre>
 */
public abstract class OffsetInflater implements AutoCloseable {
    private static final java.lang.ref.Cleaner CLEANER = Cleaners.CLEANER;
    private final java.lang.ref.Cleaner.Cleanable cleanable;
    private boolean closed;

    /** Registers {@code free} to run once: at close, or when unreachable. */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    OffsetInflater(Runnable free) {
        this.cleanable = CLEANER.register(this, free);
    }

    /** {@code bk_inflate_at} over heap arrays (bounds already checked): the bytes consumed, or minus
     *  the status on failure (one return value, so a call allocates nothing). */
    abstract long nativeInflate(byte[] input, long offset, byte[] out, int outOffset, int length);

    /** {@code bk_inflate_at} over direct buffers (bounds already checked); returns as {@link #nativeInflate}. */
    abstract long nativeInflateDirect(ByteBuffer input, long offset, ByteBuffer out, int outOffset, int length);

    /** {@code bk_inflate_batch} of the first {@code n} streams (every array holds at least {@code n}, checked):
     *  results into {@code consumed[i]} and {@code status[i]}; returns successes or -status. */
    abstract int nativeBatch(byte[] input, long[] offsets, int[] sizes, int n, byte[] out, long[] consumed, int[] status);

    /** {@code bk_status_message}. */
    abstract String statusMessage(int code);

    /**
     * Inflates the stream at {@code input[offset]} into {@code out[outOffset, outOffset + length)},
     * {@code length} being its exact inflated size; returns the input bytes it occupied. On
     * failure throws {@link BufkitException} ({@link Status#TRUNCATED}, {@link Status#CHECKSUM},
     * {@link Status#SIZE_MISMATCH}, {@link Status#CORRUPT}, {@link Status#OUT_OF_RANGE}) and the
     * output range is zeroed.
     */
    public final synchronized long inflateAt(byte[] input, long offset, byte[] out, int outOffset, int length) {
        Objects.requireNonNull(input, "input");
        Objects.checkFromIndexSize(outOffset, length, Objects.requireNonNull(out, "out").length);
        if (offset < 0) throw new IllegalArgumentException("offset must not be negative: " + offset);
        ensureOpen();
        return checked(nativeInflate(input, offset, out, outOffset, length));
    }

    /** Like {@link #inflateAt(byte[], long, byte[], int, int)} for direct buffers: the output is
     *  {@code out}'s remaining bytes (its exact size); positions are not moved. */
    public final synchronized long inflateAt(ByteBuffer input, long offset, ByteBuffer out) {
        if (!Objects.requireNonNull(input, "input").isDirect() || !Objects.requireNonNull(out, "out").isDirect()) {
            throw new IllegalArgumentException("direct buffers only (use the byte[] form for heap data)");
        }
        if (offset < 0) throw new IllegalArgumentException("offset must not be negative: " + offset);
        ensureOpen();
        return checked(nativeInflateDirect(input, offset, out, out.position(), out.remaining()));
    }

    /**
     * Inflates stream {@code i} at {@code offsets[i]} (of size {@code sizes[i]}) into consecutive
     * ranges of {@code out}, in one native call; {@code consumed[i]} and {@code status[i]} receive
     * each result ({@link Status#OK} code 0 on success). Returns how many succeeded.
     */
    public final synchronized int inflateBatch(byte[] input, long[] offsets, int[] sizes, byte[] out, long[] consumed, int[] status) {
        if (sizes.length != offsets.length) {
            throw new IllegalArgumentException("offsets, sizes, consumed and status must have one slot per stream");
        }
        return batch(input, offsets, sizes, offsets.length, out, consumed, status);
    }

    /**
     * Inflates the streams of {@code batch} into consecutive ranges of {@code out} (which holds at
     * least {@link InflateBatch#totalSize()} bytes) in one native call; each stream's outcome and
     * consumed count are then in the batch. Returns how many succeeded. A batch reused this way
     * keeps its arrays: no per-batch arrays on the Java heap (JNI allocates nothing there; Panama
     * wraps the arrays in a few small segment objects per call).
     */
    public final int inflate(byte[] input, InflateBatch batch, byte[] out) {
        return Objects.requireNonNull(batch, "batch").inflateWith(this, input, out);
    }

    /** The first {@code n} streams of the arrays (checked here): the one path of both batch forms. */
    final synchronized int batch(byte[] input, long[] offsets, int[] sizes, int n, byte[] out, long[] consumed, int[] status) {
        Objects.requireNonNull(input, "input");
        Objects.requireNonNull(out, "out");
        if (n < 0 || offsets.length < n || sizes.length < n || consumed.length < n || status.length < n) {
            throw new IllegalArgumentException("offsets, sizes, consumed and status must have one slot per stream");
        }
        long total = 0;
        for (int i = 0; i < n; i++) {
            if (sizes[i] < 0) throw new IllegalArgumentException("sizes must not be negative");
            total += sizes[i];
        }
        if (total > out.length) throw new IllegalArgumentException("out holds " + out.length + " bytes, the streams need " + total);
        ensureOpen();
        return (int) checked(nativeBatch(input, offsets, sizes, n, out, consumed, status));
    }

    /** Frees the native decoder. Closing twice does nothing. */
    @Override
    public final synchronized void close() {
        if (!closed) {
            closed = true;
            cleanable.clean();
        }
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("inflater is closed");
    }

    /** {@code result} if it is a count (bytes consumed, streams inflated); throws the status a
     *  negative result encodes. */
    private long checked(long result) {
        if (result < 0) {
            int code = (int) -result;
            throw new BufkitException("bk_inflate_at", code, statusMessage(code));
        }
        return result;
    }
}

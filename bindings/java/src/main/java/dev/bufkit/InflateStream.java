package dev.bufkit;

import java.lang.ref.Cleaner;
import java.util.Objects;

/**
 * One zlib (or raw deflate) stream inflated from input that arrives in pieces, a socket's reads or
 * a file's blocks, into an array of its exact inflated size (bufkit.h's {@code bk_inflate_stream}).
 * Each {@link #feed} says how many of its bytes belong to the stream: fewer than given only on the
 * call where the stream ends, the rest belonging to whatever follows. Once the stream has ended and
 * verified, {@link #consumed()} is the total bytes it occupied. Thread-safe (calls are serialised).
 *
 * <pre>{@code
 * byte[] object = new byte[size];
 * try (InflateStream stream = Bufkit.load().newInflateStream(Format.ZLIB, offset, object)) {
 *     int n;
 *     while (!stream.isFinished() && (n = in.read(chunk)) > 0) stream.feed(chunk, 0, n);
 *     stream.finish(); // TRUNCATED if the input ended first
 * }
 * }</pre>
 */
public abstract class InflateStream implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaners.CLEANER;
    private static final byte[] NONE = new byte[0];

    private final Cleaner.Cleanable cleanable;
    private byte[] out;
    private long consumed;
    private boolean closed;

    /** Registers {@code free} ({@code bk_inflate_stream_free}) to run once: at close, or when unreachable. */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    InflateStream(Runnable free, byte[] out) {
        this.cleanable = CLEANER.register(this, free);
        this.out = out;
    }

    /**
     * {@code bk_inflate_stream_feed} of {@code input[offset, offset + length)} into all of
     * {@code out} (bounds already checked): the input bytes used, or minus the status; the
     * stream's total bytes into {@code consumed[0]} once it has ended (0 before).
     */
    abstract long nativeFeed(byte[] input, int offset, int length, byte[] out, long[] consumed);

    /** {@code bk_inflate_stream_reset}: a status. */
    abstract int nativeReset(long origin);

    /** {@code bk_status_message}. */
    abstract String statusMessage(int code);

    /**
     * Feeds {@code input[offset, offset + length)}; returns how many of these bytes belong to the
     * stream (all of them, unless the stream ended inside them). Failures throw
     * {@link BufkitException}: {@link Status#CHECKSUM}, {@link Status#CORRUPT}, or
     * {@link Status#SIZE_MISMATCH} for a stream that does not fill the array exactly.
     */
    public final synchronized int feed(byte[] input, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, Objects.requireNonNull(input, "input").length);
        ensureOpen();
        if (consumed > 0) return 0; // ended: nothing more belongs to it
        if (length == 0) return 0; // an empty feed would mean the end of the input: that is finish()
        return (int) call(input, offset, length);
    }

    /** Feeds all of {@code input}. */
    public final int feed(byte[] input) {
        return feed(input, 0, Objects.requireNonNull(input, "input").length);
    }

    /** Says the input has ended: {@link Status#TRUNCATED} if the stream has not. */
    public final synchronized void finish() {
        ensureOpen();
        if (consumed == 0) call(NONE, 0, 0);
    }

    private long call(byte[] input, int offset, int length) {
        long[] total = new long[1];
        long used = nativeFeed(input, offset, length, out, total);
        if (used < 0) {
            int code = (int) -used;
            throw new BufkitException("bk_inflate_stream_feed", code, statusMessage(code));
        }
        consumed = total[0];
        return used;
    }

    /** Whether the stream has ended and verified (its output is all of {@link #output()}). */
    public final synchronized boolean isFinished() {
        return consumed > 0;
    }

    /** The input bytes the stream occupied, once it has ended; 0 before. */
    public final synchronized long consumed() {
        return consumed;
    }

    /** The array the stream inflates into. */
    public final synchronized byte[] output() {
        return out;
    }

    /**
     * Starts over, keeping the native allocation, for the next stream: its failures will report
     * {@code origin} as their offset, and it inflates into {@code out}.
     */
    public final synchronized void reset(long origin, byte[] out) {
        Objects.requireNonNull(out, "out");
        if (origin < 0) throw new IllegalArgumentException("origin must not be negative: " + origin);
        ensureOpen();
        int code = nativeReset(origin);
        if (code != Status.OK.code) throw new BufkitException("bk_inflate_stream_reset", code, statusMessage(code));
        this.out = out;
        this.consumed = 0;
    }

    /** Frees the native stream; waits for a call in progress. Closing twice does nothing. */
    @Override
    public final synchronized void close() {
        if (!closed) {
            closed = true;
            cleanable.clean();
        }
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("inflate stream is closed");
    }
}

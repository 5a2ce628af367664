package dev.bufkit;

import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A native growable byte buffer (bufkit.h's {@code bk_buffer}).
 *
 * <p>Thread-safe: calls are serialised on the buffer, and {@link #close()} waits for a call in
 * progress to finish, so a buffer is never freed under a running call. After close every call
 * throws {@link IllegalStateException}. A buffer that is never closed is freed when it becomes
 * unreachable.
 */
public abstract class GrowableBuffer implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Cleaner.Cleanable cleanable;
    private boolean closed;

    /** Registers {@code free} to run exactly once: at close, or when this buffer is unreachable. */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    protected GrowableBuffer(Runnable free) {
        this.cleanable = CLEANER.register(this, free);
    }

    // ---- what each front implements: raw calls returning a bk_status code ----

    /** {@code bk_buffer_append} from a heap array range (already bounds-checked). */
    protected abstract int nativeAppend(byte[] data, int offset, int length);

    /** {@code bk_buffer_append} from a direct buffer range (already bounds-checked). */
    protected abstract int nativeAppendDirect(ByteBuffer direct, int offset, int length);

    /** {@code bk_buffer_reserve}. */
    protected abstract int nativeReserve(long additional);

    /** {@code bk_buffer_clear}. */
    protected abstract int nativeClear();

    /** {@code bk_buffer_get_stats} into {@code out[5]}: len, capacity, grows, moves, bytes copied. */
    protected abstract int nativeStats(long[] out);

    /** {@code bk_buffer_copy_out} of the whole buffer into {@code dst}; {@code copied[0]} receives the count. */
    protected abstract int nativeCopyOut(byte[] dst, long[] copied);

    /** {@code bk_buffer_flatten}. */
    protected abstract int nativeFlatten();

    /** {@code bk_status_message}. */
    protected abstract String statusMessage(int code);

    // ---- the public API ----

    /** Appends all of {@code data}. On failure nothing is appended and nothing held is lost. */
    public final void append(byte[] data) {
        append(data, 0, Objects.requireNonNull(data, "data").length);
    }

    /** Appends {@code data[offset, offset + length)}. */
    public final synchronized void append(byte[] data, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, Objects.requireNonNull(data, "data").length);
        ensureOpen();
        check("bk_buffer_append", nativeAppend(data, offset, length));
    }

    /** Appends the remaining bytes of {@code src} (heap or direct) and advances its position. */
    public final synchronized void append(ByteBuffer src) {
        Objects.requireNonNull(src, "src");
        ensureOpen();
        int length = src.remaining();
        int status = src.isDirect()
                ? nativeAppendDirect(src, src.position(), length)
                : src.hasArray()
                        ? nativeAppend(src.array(), src.arrayOffset() + src.position(), length)
                        : appendCopy(src.duplicate(), length);
        check("bk_buffer_append", status);
        src.position(src.position() + length);
    }

    private int appendCopy(ByteBuffer readOnly, int length) {
        byte[] copy = new byte[length];
        readOnly.get(copy);
        return nativeAppend(copy, 0, length);
    }

    /** Makes room for {@code additional} more bytes. */
    public final synchronized void reserve(long additional) {
        if (additional < 0) throw new IllegalArgumentException("additional must not be negative: " + additional);
        ensureOpen();
        check("bk_buffer_reserve", nativeReserve(additional));
    }

    /** Forgets the bytes; keeps the capacity and counters. */
    public final synchronized void clear() {
        ensureOpen();
        check("bk_buffer_clear", nativeClear());
    }

    /** The counters. */
    public final synchronized BufferStats stats() {
        ensureOpen();
        long[] s = new long[5];
        check("bk_buffer_get_stats", nativeStats(s));
        return new BufferStats(s[0], s[1], s[2], s[3], s[4]);
    }

    /** Bytes held. */
    public final long length() {
        return stats().len();
    }

    /** All bytes, copied once into a new array. */
    public final synchronized byte[] toByteArray() {
        long len = stats().len();
        if (len > Integer.MAX_VALUE - 8) {
            throw new BufkitException("toByteArray", Status.OUT_OF_RANGE.code, len + " bytes do not fit in a Java array");
        }
        byte[] out = new byte[(int) len];
        long[] copied = new long[1];
        check("bk_buffer_copy_out", nativeCopyOut(out, copied));
        if (copied[0] != len) throw new IllegalStateException("copied " + copied[0] + " of " + len + " bytes");
        return out;
    }

    /** Makes a segmented buffer contiguous (one copy, counted in bytesCopied). */
    public final synchronized void flatten() {
        ensureOpen();
        check("bk_buffer_flatten", nativeFlatten());
    }

    /** Frees the native buffer; waits for a call in progress. Closing twice does nothing. */
    @Override
    public final synchronized void close() {
        if (!closed) {
            closed = true;
            cleanable.clean();
        }
    }

    /** Whether {@link #close()} has been called. */
    public final synchronized boolean isClosed() {
        return closed;
    }

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("buffer is closed");
    }

    private void check(String function, int code) {
        if (code != Status.OK.code) throw new BufkitException(function, code, statusMessage(code));
    }
}

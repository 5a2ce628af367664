package dev.bufkit;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;

/**
 * A native growable byte buffer (bufkit.h's {@code bk_buffer}).
 *
 * <p>Thread-safe: calls are serialised on the buffer, and {@link #close()} waits for a call in
 * progress to finish, so a buffer is never freed under a running call. After close every call
 * throws {@link IllegalStateException}. A buffer that is never closed is freed when it becomes
 * unreachable.
 *
 * <p>To fill one from code that writes to streams (an encoder, a serializer), use
 * {@link #outputStream()}, an {@code OutputStream} and a {@code DataOutput}: small writes are staged
 * in a Java array and go down in one native call per 64 KiB. To send the bytes out, {@link #writeTo(WritableByteChannel)} hands each native
 * segment to the channel (a file, a socket) with no copy onto the Java heap.
 *
 * <pre>{@code
 * try (GrowableBuffer buf = Bufkit.load().newBuffer(BufferConfig.defaults());
 *      FileChannel file = FileChannel.open(path, CREATE, WRITE)) {
 *     try (OutputStream out = buf.outputStream()) {
 *         encoder.encodeTo(out);
 *     }
 *     buf.writeTo(file);
 * }
 * }</pre>
 */
public abstract class GrowableBuffer implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaners.CLEANER;

    private final Cleaner.Cleanable cleanable;
    private boolean closed;

    /** Registers {@code free} to run exactly once: at close, or when this buffer is unreachable. */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    GrowableBuffer(Runnable free) {
        this.cleanable = CLEANER.register(this, free);
    }

    // ---- what each front implements: raw calls returning a bk_status code ----

    /** {@code bk_buffer_append} from a heap array range (already bounds-checked). */
    abstract int nativeAppend(byte[] data, int offset, int length);

    /** {@code bk_buffer_append} from a direct buffer range (already bounds-checked). */
    abstract int nativeAppendDirect(ByteBuffer direct, int offset, int length);

    /** {@code bk_buffer_reserve}. */
    abstract int nativeReserve(long additional);

    /** {@code bk_buffer_clear}. */
    abstract int nativeClear();

    /** {@code bk_buffer_get_stats} into {@code out[5]}: len, capacity, grows, moves, bytes copied. */
    abstract int nativeStats(long[] out);

    /** {@code bk_buffer_copy_out} from {@code offset} into {@code dst[0, length)}; {@code copied[0]} receives the count. */
    abstract int nativeCopyOut(long offset, byte[] dst, int length, long[] copied);

    /**
     * Writes every segment ({@code bk_buffer_segment_count}, {@code bk_buffer_segment}) to
     * {@code channel} as direct buffers over the native memory, each valid only during this call,
     * with {@link #writeFully}; returns the bytes written, or minus the status of a failed call.
     */
    abstract long nativeWriteTo(WritableByteChannel channel) throws IOException;

    /** Writes all of {@code src} to {@code channel}, looping on short writes; returns the count. */
    static long writeFully(WritableByteChannel channel, ByteBuffer src) throws IOException {
        long written = 0;
        while (src.hasRemaining()) {
            int n = channel.write(src);
            if (n == 0 && !channel.isOpen()) throw new ClosedChannelException();
            written += n;
        }
        return written;
    }

    /** {@code bk_buffer_flatten}. */
    abstract int nativeFlatten();

    /** {@code bk_status_message}. */
    abstract String statusMessage(int code);

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
        long[] s = new long[BufferStats.FIELDS];
        check("bk_buffer_get_stats", nativeStats(s));
        return BufferStats.of(s);
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
        check("bk_buffer_copy_out", nativeCopyOut(0, out, out.length, copied));
        if (copied[0] != len) throw new IllegalStateException("copied " + copied[0] + " of " + len + " bytes");
        return out;
    }

    /**
     * Writes every byte to {@code channel} (a {@code FileChannel}, a {@code SocketChannel}...):
     * each native segment goes out as a direct buffer over the buffer's own memory, so nothing is
     * copied onto the Java heap. Loops on short writes; returns the bytes written. The buffer is
     * unchanged. A failed write throws, and an unknown prefix may have been written.
     */
    public final synchronized long writeTo(WritableByteChannel channel) throws IOException {
        Objects.requireNonNull(channel, "channel");
        ensureOpen();
        long written = nativeWriteTo(channel);
        if (written < 0) check("bk_buffer_segment", (int) -written);
        return written;
    }

    /**
     * Writes every byte to {@code out}, through one 64 KiB array (a stream takes arrays; prefer
     * {@link #writeTo(WritableByteChannel)}, which copies nothing). Returns the bytes written.
     */
    public final synchronized long writeTo(OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        ensureOpen();
        byte[] chunk = new byte[64 << 10];
        long[] copied = new long[1];
        long offset = 0, len = stats().len();
        while (offset < len) {
            check("bk_buffer_copy_out", nativeCopyOut(offset, chunk, chunk.length, copied));
            out.write(chunk, 0, (int) copied[0]);
            offset += copied[0];
        }
        return offset;
    }

    /** {@link #outputStream(int)} staging 64 KiB. */
    public final BufferOutputStream outputStream() {
        return outputStream(64 << 10);
    }

    /**
     * A stream that appends to this buffer, an {@link OutputStream} and a {@link java.io.DataOutput}
     * (see {@link BufferOutputStream}): writes are copied into a Java array of {@code stagingBytes},
     * which goes down in one native call when it fills, on flush and on close. Flush (or close) the
     * stream before reading the buffer. Closing the stream does not close the buffer.
     */
    public final BufferOutputStream outputStream(int stagingBytes) {
        return new BufferOutputStream(this, stagingBytes);
    }

    /**
     * A {@link WritableByteChannel} that appends to this buffer: each {@code write} is one
     * {@link #append(ByteBuffer)} of all the source's remaining bytes. Closing the channel does
     * not close the buffer.
     */
    public final WritableByteChannel channel() {
        return new WritableByteChannel() {
            private volatile boolean open = true;

            @Override
            public int write(ByteBuffer src) throws IOException {
                if (!open || isClosed()) throw new ClosedChannelException();
                int n = src.remaining();
                try {
                    append(src);
                } catch (BufkitException e) {
                    throw new IOException("appending to the buffer: " + e.getMessage(), e);
                }
                return n;
            }

            @Override
            public boolean isOpen() {
                return open && !isClosed();
            }

            @Override
            public void close() {
                open = false;
            }
        };
    }

    /** Makes a segmented buffer contiguous (one copy, counted in bytesCopied). */
    public final synchronized void flatten() {
        ensureOpen();
        check("bk_buffer_flatten", nativeFlatten());
    }

    /**
     * Frees the native buffer; waits for a call in progress. Closing twice does nothing. On Linux
     * the memory of one freed buffer of 128 KiB to 32 MiB is kept for the next buffer that grows
     * that large (offered back to the kernel with {@code MADV_FREE} until then), as
     * {@code bk_buffer_free} documents.
     */
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

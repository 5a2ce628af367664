package dev.bufkit;

import java.io.DataOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UTFDataFormatException;
import java.util.Objects;

/**
 * The stream of {@link GrowableBuffer#outputStream(int)}: an {@link OutputStream} and a
 * {@link DataOutput} that append to a buffer.
 *
 * <p>Writes are copied into a Java array of the staging size, which goes down in one native call
 * when it fills, on {@link #flush()} and on {@link #close()}; a write at least that large goes down
 * directly. So writing a few bytes at a time costs an array copy, not a native call. Flush (or
 * close) the stream before reading the buffer: staged bytes are not in it yet. Closing the stream
 * does not close the buffer. Not for use by two threads at once, like any stream.
 *
 * <p>The {@link DataOutput} methods write exactly what {@link java.io.DataOutputStream}'s write
 * (big-endian numbers, modified UTF-8), straight into the staging array: {@link #writeBytes(String)}
 * copies a string's low bytes without making a {@code byte[]} of it, which is what an encoder of
 * Latin-1 text (Erlang's {@code STRING_EXT}, for one) spends most of its time on otherwise.
 *
 * <p>A failed append (the buffer's {@code maxCapacity}) throws an {@link IOException} whose cause is
 * the {@link BufkitException}, and keeps the staged bytes.
 *
 * <pre>{@code
 * try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
 *     try (BufferOutputStream out = buf.outputStream()) {
 *         out.writeByte(107);           // STRING_EXT
 *         out.writeShort(name.length());
 *         out.writeBytes(name);         // its Latin-1 bytes, no byte[] made
 *     }
 *     buf.writeTo(channel);
 * }
 * }</pre>
 */
public final class BufferOutputStream extends OutputStream implements DataOutput {
    private final GrowableBuffer buffer;
    private final byte[] staging;
    private int staged;
    private boolean closed;

    BufferOutputStream(GrowableBuffer buffer, int stagingBytes) {
        if (stagingBytes < 1) throw new IllegalArgumentException("stagingBytes must be positive: " + stagingBytes);
        this.buffer = buffer;
        this.staging = new byte[stagingBytes];
    }

    // ---- OutputStream ----

    @Override
    public void write(int b) throws IOException {
        ensureOpen();
        if (staged == staging.length) drain();
        staging[staged++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        if (len > staging.length - staged) {
            drain();
            if (len >= staging.length) {
                append(b, off, len);
                return;
            }
        }
        System.arraycopy(b, off, staging, staged, len);
        staged += len;
    }

    /** Appends the staged bytes to the buffer. */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        drain();
    }

    /** Appends the staged bytes; the stream refuses writes afterwards. Twice does nothing. */
    @Override
    public void close() throws IOException {
        if (closed) return;
        drain();
        closed = true;
    }

    // ---- DataOutput: the bytes of java.io.DataOutputStream ----

    @Override
    public void writeBoolean(boolean v) throws IOException {
        write(v ? 1 : 0);
    }

    @Override
    public void writeByte(int v) throws IOException {
        write(v);
    }

    @Override
    public void writeShort(int v) throws IOException {
        writeBigEndian(v, 2);
    }

    @Override
    public void writeChar(int v) throws IOException {
        writeBigEndian(v, 2);
    }

    @Override
    public void writeInt(int v) throws IOException {
        writeBigEndian(v, 4);
    }

    @Override
    public void writeLong(long v) throws IOException {
        writeBigEndian(v, 8);
    }

    @Override
    public void writeFloat(float v) throws IOException {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(double v) throws IOException {
        writeLong(Double.doubleToLongBits(v));
    }

    /** Each character's low eight bits, as {@link java.io.DataOutputStream#writeBytes} writes them. */
    @Override
    @SuppressWarnings("deprecation") // getBytes(int, int, byte[], int) is exactly "the low eight bits", with no copy of the string
    public void writeBytes(String s) throws IOException {
        ensureOpen();
        int length = s.length();
        for (int from = 0; from < length; ) {
            if (staged == staging.length) drain();
            int n = Math.min(length - from, staging.length - staged);
            s.getBytes(from, from + n, staging, staged);
            staged += n;
            from += n;
        }
    }

    /** Each character as two bytes, high first. */
    @Override
    public void writeChars(String s) throws IOException {
        ensureOpen();
        for (int i = 0, length = s.length(); i < length; i++) writeBigEndian(s.charAt(i), 2);
    }

    /**
     * A two-byte length, then the string in modified UTF-8, as {@link java.io.DataOutputStream#writeUTF}
     * writes it. A string whose encoding is longer than 65,535 bytes is a
     * {@link UTFDataFormatException}, and nothing is written.
     */
    @Override
    public void writeUTF(String s) throws IOException {
        ensureOpen();
        int length = s.length();
        long encoded = length;
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c == 0 || c >= 0x80) encoded += c >= 0x800 ? 2 : 1;
        }
        if (encoded > 0xFFFF) throw new UTFDataFormatException("encoded string too long: " + encoded + " bytes");
        writeBigEndian(encoded, 2);
        for (int i = 0; i < length; i++) {
            char c = s.charAt(i);
            if (c != 0 && c < 0x80) {
                write(c);
            } else if (c < 0x800) {
                write(0xC0 | c >> 6);
                write(0x80 | (c & 0x3F));
            } else {
                write(0xE0 | c >> 12);
                write(0x80 | (c >> 6 & 0x3F));
                write(0x80 | (c & 0x3F));
            }
        }
    }

    // ---- staging ----

    /** The low {@code bytes} bytes of {@code v}, high first. */
    private void writeBigEndian(long v, int bytes) throws IOException {
        if (room(bytes)) {
            for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) staging[staged++] = (byte) (v >>> shift);
        } else {
            for (int shift = 8 * (bytes - 1); shift >= 0; shift -= 8) write((int) (v >>> shift));
        }
    }

    /** Whether {@code n} more bytes fit in the staging array, draining it first if they do not yet. */
    private boolean room(int n) throws IOException {
        ensureOpen();
        if (staging.length - staged >= n) return true;
        drain();
        return staging.length >= n;
    }

    private void ensureOpen() throws IOException {
        if (closed) throw new IOException("stream closed");
    }

    private void drain() throws IOException {
        if (staged == 0) return;
        append(staging, 0, staged);
        staged = 0;
    }

    private void append(byte[] b, int off, int len) throws IOException {
        try {
            buffer.append(b, off, len);
        } catch (BufkitException | IllegalStateException e) {
            throw new IOException("appending to the buffer: " + e.getMessage(), e);
        }
    }
}

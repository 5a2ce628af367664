package dev.bufkit;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.util.Objects;

/**
 * An archive's bytes served by a {@link SeekableByteChannel} the caller owns, for
 * {@link Bufkit#openArchive(SeekableByteChannel, ArchiveOptions)}: the native library reads it at
 * offsets (bufkit.h's {@code bk_source}), from its own threads as well as the caller's. A
 * {@link FileChannel} is read with positional reads, several at once; any other channel one read
 * at a time, under its lock, by {@code position} then {@code read}. The channel is not closed.
 * For the fronts; not a public API.
 */
public final class ChannelSource {
    /** {@code -EIO}: what a failed read returns to the library. */
    static final long FAILED = -5;

    private final SeekableByteChannel channel;
    private final long length;

    /** Serves {@code channel}, its length read now. */
    public ChannelSource(SeekableByteChannel channel) throws IOException {
        this.channel = Objects.requireNonNull(channel, "channel");
        this.length = channel.size();
    }

    /** The archive's length in bytes, as the channel said when opened. */
    public long length() {
        return length;
    }

    /**
     * Reads up to {@code dst.remaining()} bytes at {@code offset} into {@code dst}: how many (0 at
     * or past the end), or a negative value when the channel fails. Never throws: it is called
     * from native code, where an exception cannot go.
     */
    public long readAt(long offset, ByteBuffer dst) {
        try {
            if (offset < 0) return FAILED;
            int n;
            if (channel instanceof FileChannel file) {
                n = file.read(dst, offset);
            } else {
                synchronized (channel) {
                    channel.position(offset);
                    n = channel.read(dst);
                }
            }
            return n < 0 ? 0 : n;
        } catch (Throwable t) {
            // A channel's failure, or a bug of its own: the read fails with a status, the JVM lives.
            return FAILED;
        }
    }
}

package dev.bufkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;

/**
 * One entry as a channel, what {@link AssetArchive#channel} gives: a stream for reads that go on
 * from where the last one ended (or skip a little ahead), {@link AssetArchive#readAt} for the others.
 */
final class EntryChannel implements SeekableByteChannel {
    /** How far ahead of the stream a read may start and still be reached by reading on. */
    private static final long SKIP_AHEAD = 256 << 10;

    private final AssetArchive archive;
    private final int index;
    private final long size;
    private long position;
    private boolean open = true;
    /** The stream, opened by the first read at its position, and how far it has read. */
    private InputStream stream;
    private long streamAt;
    private byte[] staging;

    EntryChannel(AssetArchive archive, int index, long size) {
        this.archive = archive;
        this.index = index;
        this.size = size;
    }

    private void ensureOpen() throws java.nio.channels.ClosedChannelException {
        if (!open) throw new java.nio.channels.ClosedChannelException();
    }

    @Override
    public synchronized int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (position >= size) return dst.hasRemaining() ? -1 : 0;
        if (!dst.hasRemaining()) return 0;
        try {
            if (stream == null && position == 0) {
                stream = archive.open(index);
                streamAt = 0;
            }
            if (stream != null && position >= streamAt && position - streamAt <= SKIP_AHEAD) {
                return readOn(dst);
            }
            int n = archive.readAt(index, position, dst);
            position += n;
            return n;
        } catch (BufkitException e) {
            throw new IOException(e);
        }
    }

    /** Reads on through the stream, from {@code position}. */
    private int readOn(ByteBuffer dst) throws IOException {
        stream.skipNBytes(position - streamAt);
        streamAt = position;
        int n;
        if (dst.hasArray()) {
            n = stream.read(dst.array(), dst.arrayOffset() + dst.position(), dst.remaining());
            if (n > 0) dst.position(dst.position() + n);
        } else {
            if (staging == null) staging = new byte[64 << 10];
            n = stream.read(staging, 0, Math.min(staging.length, dst.remaining()));
            if (n > 0) dst.put(staging, 0, n);
        }
        if (n < 0) {
            // The stream ended (its checks passed) where the entry ends.
            return -1;
        }
        position += n;
        streamAt = position;
        return n;
    }

    @Override
    public int write(ByteBuffer src) {
        throw new java.nio.channels.NonWritableChannelException();
    }

    @Override
    public synchronized long position() throws IOException {
        ensureOpen();
        return position;
    }

    @Override
    public synchronized SeekableByteChannel position(long newPosition) throws IOException {
        ensureOpen();
        if (newPosition < 0) throw new IllegalArgumentException("negative position " + newPosition);
        position = newPosition;
        return this;
    }

    @Override
    public long size() throws IOException {
        ensureOpen();
        return size;
    }

    @Override
    public SeekableByteChannel truncate(long size) {
        throw new java.nio.channels.NonWritableChannelException();
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    @Override
    public synchronized void close() throws IOException {
        open = false;
        if (stream != null) stream.close();
        stream = null;
    }
}

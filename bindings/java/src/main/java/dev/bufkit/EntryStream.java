package dev.bufkit;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.Cleaner;
import java.util.Objects;

/** One entry through {@code bk_archive_reader_*}: what {@link AssetArchive#open(int)} gives. */
final class EntryStream extends InputStream {
    private final AssetArchive archive; // for its native methods and messages
    private final Cleaner.Cleanable cleanable;
    private long reader;
    private final byte[] one = new byte[1];
    /** Inflated ahead by threads of the reader's own: wait for them outside the read. */
    private final boolean decodedAhead;

    EntryStream(AssetArchive archive, long reader) {
        this.archive = archive;
        this.reader = reader;
        this.decodedAhead = archive.nativeReaderCores(reader) > 1;
        long address = reader;
        this.cleanable = Cleaners.CLEANER.register(this, () -> archive.nativeReaderFree(address));
    }

    @Override
    public synchronized int read() throws IOException {
        return read(one, 0, 1) == 1 ? one[0] & 0xff : -1;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        if (reader == 0) throw new IOException("stream closed");
        if (len == 0) return 0;
        // The read pins b (a critical region, where the JVM cannot collect): it must not wait.
        int waited = decodedAhead ? archive.nativeReaderWait(reader) : Status.OK.code;
        long n = waited == Status.OK.code ? archive.nativeReaderRead(reader, b, off, len) : -(long) waited;
        if (n < 0) {
            int code = (int) -n;
            throw new IOException(new BufkitException("bk_archive_reader_read", code, archive.statusMessage(code)));
        }
        return n == 0 ? -1 : (int) n;
    }

    /** Copies the rest of the entry to {@code out} in 64 KiB reads (the reader's chunk): few native calls. */
    @Override
    public synchronized long transferTo(java.io.OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        byte[] buffer = new byte[64 << 10];
        long total = 0;
        for (int n; (n = read(buffer, 0, buffer.length)) > 0; ) {
            out.write(buffer, 0, n);
            total += n;
        }
        return total;
    }

    @Override
    public synchronized void close() {
        if (reader == 0) return;
        reader = 0;
        cleanable.clean();
    }
}

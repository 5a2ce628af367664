package dev.bufkit;

import java.lang.ref.Cleaner;
import java.nio.charset.StandardCharsets;
import java.util.OptionalInt;

/**
 * A zip, APK or JAR opened to read its entries in place (bufkit.h's {@code bk_archive}): validated
 * once, when opened, with the same strict rules as extraction; entries found by name in O(1) and
 * read whole, inflated straight into the caller's array, each entry's CRC-32 checked on its first
 * read. Thread-safe without a lock: any number of threads read at once; {@link #close()} waits
 * for reads in progress.
 *
 * <pre>{@code
 * try (AssetArchive apk = Bufkit.load().openArchive(Path.of("app.apk"), false)) {
 *     byte[] js = apk.read(apk.find("assets/app.js").orElseThrow());
 * }
 * }</pre>
 */
public abstract class AssetArchive implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Cleaner.Cleanable cleanable;
    private final CallGate gate = new CallGate("archive");

    /** Registers {@code free} ({@code bk_archive_free}) to run once: at close, or when unreachable. */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    protected AssetArchive(Runnable free) {
        this.cleanable = CLEANER.register(this, free);
    }

    /** {@code bk_archive_entry_count}. */
    protected abstract int nativeCount();

    /** {@code bk_archive_find}: the index, or minus the status. */
    protected abstract long nativeFind(byte[] utf8Name);

    /** {@code bk_archive_entry_info} into {@code out[5]}: size, compressed size, CRC-32, method, directory. */
    protected abstract int nativeInfo(int index, long[] out);

    /** {@code bk_archive_entry_name}: the name's UTF-8 bytes, or null past the last entry. */
    protected abstract byte[] nativeName(int index);

    /** {@code bk_archive_read} into all of {@code out}. */
    protected abstract int nativeRead(int index, byte[] out);

    /** {@code bk_status_message}. */
    protected abstract String statusMessage(int code);

    /** Number of entries (files and directories), in archive order. */
    public final int size() {
        gate.enter();
        try {
            return nativeCount();
        } finally {
            gate.leave();
        }
    }

    /** The index of the entry named {@code name} (as extraction writes it: {@code /}-separated, a directory without its trailing {@code /}). */
    public final OptionalInt find(String name) {
        gate.enter();
        try {
            long r = nativeFind(name.getBytes(StandardCharsets.UTF_8));
            if (r == -Status.NOT_FOUND.code) return OptionalInt.empty();
            if (r < 0) throw new BufkitException("bk_archive_find", (int) -r, statusMessage((int) -r));
            return OptionalInt.of((int) r);
        } finally {
            gate.leave();
        }
    }

    /** The name of entry {@code index}. */
    public final String name(int index) {
        gate.enter();
        try {
            byte[] name = nativeName(index);
            if (name == null) throw new BufkitException("bk_archive_entry_name", Status.OUT_OF_RANGE.code, statusMessage(Status.OUT_OF_RANGE.code));
            return new String(name, StandardCharsets.UTF_8);
        } finally {
            gate.leave();
        }
    }

    /** The size of entry {@code index} once read (0 for a directory). */
    public final long entrySize(int index) {
        return info(index)[0];
    }

    /** Whether entry {@code index} is a directory. */
    public final boolean isDirectory(int index) {
        return info(index)[4] != 0;
    }

    private long[] info(int index) {
        gate.enter();
        try {
            long[] out = new long[5];
            check("bk_archive_entry_info", nativeInfo(index, out));
            return out;
        } finally {
            gate.leave();
        }
    }

    /** The whole of entry {@code index}, inflated straight into a new array. */
    public final byte[] read(int index) {
        long size = entrySize(index);
        if (size > Integer.MAX_VALUE - 8) throw new BufkitException("bk_archive_read", Status.LENGTH_OVERFLOW.code, "entry larger than a Java array");
        byte[] out = new byte[(int) size];
        gate.enter();
        try {
            check("bk_archive_read", nativeRead(index, out));
        } finally {
            gate.leave();
        }
        return out;
    }

    /** Frees the archive; later calls throw {@link IllegalStateException}. Waits for reads in progress. */
    @Override
    public final synchronized void close() {
        if (gate.isClosed()) return;
        gate.close();
        cleanable.clean();
    }

    private void check(String function, int code) {
        if (code != Status.OK.code) throw new BufkitException(function, code, statusMessage(code));
    }
}

package dev.bufkit;

import java.io.IOException;
import java.io.InputStream;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicReferenceArray;

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
    private static final Cleaner CLEANER = Cleaners.CLEANER;

    private final Holders holders;
    private final Cleaner.Cleanable cleanable;
    private final CallGate gate = new CallGate("archive");

    /**
     * Registers {@code free} ({@code bk_archive_free}) to run once, when nothing holds the native
     * archive any more: this object is closed or unreachable, and every {@link #view} of it is
     * unreachable.
     */
    @SuppressWarnings("this-escape") // the Cleaner only keeps a phantom reference to this
    AssetArchive(Runnable free) {
        this.holders = new Holders(free);
        this.cleanable = CLEANER.register(this, holders::release);
    }

    /** Who still needs the native archive: this object until closed, and each live view. Never captures the archive. */
    private static final class Holders {
        private final Runnable free;
        private int count = 1;

        Holders(Runnable free) {
            this.free = free;
        }

        synchronized void retain() {
            count++;
        }

        void release() {
            boolean last;
            synchronized (this) {
                last = --count == 0;
            }
            if (last) free.run();
        }
    }

    /** {@code bk_archive_entry_count}. */
    abstract int nativeCount();

    /** {@code bk_archive_find}: the index, or minus the status. */
    abstract long nativeFind(byte[] utf8Name);

    /** {@code bk_archive_entry_info} into {@code out[5]}: size, compressed size, CRC-32, method, directory. */
    abstract int nativeInfo(int index, long[] out);

    /**
     * {@code bk_archive_list}: the indexes of the entries whose names match {@code utf8Pattern}
     * (every entry for null), in archive order; or null, with the status in {@code status[0]}.
     */
    abstract int[] nativeList(byte[] utf8Pattern, int[] status);

    /** {@code bk_archive_entry_name}: the name's UTF-8 bytes, or null past the last entry. */
    abstract byte[] nativeName(int index);

    /** {@code bk_archive_read} into {@code out[offset, offset + len)}: the bytes written, or minus the status. */
    abstract long nativeRead(int index, byte[] out, int offset, int len);

    /** {@code bk_archive_read} into a direct buffer at {@code [position, position + len)}: written, or minus the status. */
    abstract long nativeReadDirect(int index, ByteBuffer direct, int position, int len);

    /**
     * {@code bk_archive_find}, {@code bk_archive_entry_size} and {@code bk_archive_read} of the entry
     * named {@code utf8Name} into a new array; on failure null, with the function that failed's
     * status in {@code status[0]} (a front may do it in one native call).
     */
    byte[] nativeReadAll(byte[] utf8Name, int[] status) {
        long index = nativeFind(utf8Name);
        if (index < 0) {
            status[0] = (int) -index;
            return null;
        }
        long[] info = new long[5];
        int code = nativeInfo((int) index, info);
        if (code == Status.OK.code && info[0] > Integer.MAX_VALUE - 8) code = Status.LENGTH_OVERFLOW.code;
        if (code != Status.OK.code) {
            status[0] = code;
            return null;
        }
        byte[] out = new byte[(int) info[0]];
        long written = nativeRead((int) index, out, 0, out.length);
        if (written < 0) {
            status[0] = (int) -written;
            return null;
        }
        return out;
    }

    /**
     * {@code bk_archive_view}: a direct buffer over stored entry {@code index}'s bytes in the mapped
     * file (read-only or not: the caller wraps it read-only), arranged so that {@code whenUnreachable}
     * runs once when it and every buffer derived from it are unreachable (and not before: the
     * native archive is freed then); or null, with the status in {@code status[0]}
     * ({@link Status#INVALID_ARGUMENT} for a deflated entry or an archive that is not mapped).
     */
    abstract ByteBuffer nativeView(int index, int[] status, Runnable whenUnreachable);

    /** Runs {@code action} once {@code referent} is unreachable, on the archives' cleaner thread. */
    static void runWhenUnreachable(Object referent, Runnable action) {
        CLEANER.register(referent, action);
    }

    /** {@code bk_archive_reader_open}: the reader's address, or minus the status. */
    abstract long nativeReaderOpen(int index);

    /** {@code bk_archive_reader_read} into {@code out[offset, offset + len)}: the count (0 at the end), or minus the status. */
    abstract long nativeReaderRead(long reader, byte[] out, int offset, int len);

    /** {@code bk_archive_reader_free}. */
    abstract void nativeReaderFree(long reader);

    /** {@code bk_archive_reader_cores}: how many cores the reader inflates on. */
    abstract long nativeReaderCores(long reader);

    /** {@code bk_archive_reader_wait}: its status. */
    abstract int nativeReaderWait(long reader);

    /** {@code bk_archive_set_parallel_inflate}: its status. */
    abstract int nativeSetParallelInflate(int mode);

    /** {@code bk_status_message}. */
    abstract String statusMessage(int code);

    /** {@code bk_archive_verify} on {@code threads} threads: its status, with failed count and first failed index in {@code out[2]}. */
    abstract int nativeVerify(int threads, long[] out);

    /** {@code bk_archive_read_at} from byte {@code at} into {@code out[offset, offset + len)}: the bytes read, or minus the status. */
    abstract long nativeReadAt(int index, long at, byte[] out, int offset, int len);

    /** {@code bk_archive_read_at} into a direct buffer at {@code [position, position + len)}: the bytes read, or minus the status. */
    abstract long nativeReadAtDirect(int index, long at, ByteBuffer direct, int position, int len);

    /** {@code bk_archive_set_checkpoint_limits}: its status. */
    abstract int nativeSetCheckpointLimits(long span, long budget);

    /** {@code bk_archive_checkpoints_export} as a new array, or null with the status in {@code status[0]}. */
    abstract byte[] nativeCheckpointsExport(int index, int[] status);

    /** {@code bk_archive_checkpoints_import}: its status. */
    abstract int nativeCheckpointsImport(int index, byte[] bytes);

    /**
     * What {@link #verify(int)} found: how many entries failed, the first that failed (its index,
     * or -1) and why.
     */
    public record Verification(int failed, int firstFailed, Status firstStatus) {
        /** Whether every entry verified. */
        public boolean ok() {
            return failed == 0;
        }
    }

    /**
     * Checks every entry as a read would, writing nothing ({@code unzip -t}): each local header,
     * and each file inflated in bounded pieces with its size and CRC-32 checked, on up to
     * {@code threads} threads (0: one per core). Every entry is checked, failing or not.
     */
    public final Verification verify(int threads) {
        if (threads < 0) throw new IllegalArgumentException("threads must be 0 or more");
        gate.enter();
        try {
            long[] out = new long[2];
            int status = nativeVerify(threads, out);
            int first = out[1] < 0 || out[1] > Integer.MAX_VALUE ? -1 : (int) out[1];
            return new Verification((int) Math.min(out[0], Integer.MAX_VALUE), first, Status.of(status));
        } finally {
            gate.leave();
        }
    }

    /** The number of entries, once asked for: it never changes. */
    private volatile int entryCount = -1;

    /** {@code index}, if it names an entry; else {@link IndexOutOfBoundsException}. */
    private int checkIndex(int index) {
        int n = entryCount;
        if (n < 0) entryCount = n = size();
        return Objects.checkIndex(index, n);
    }

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
        Objects.requireNonNull(name, "name");
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
        checkIndex(index);
        gate.enter();
        try {
            byte[] name = nativeName(index);
            if (name == null) throw new BufkitException("bk_archive_entry_name", Status.OUT_OF_RANGE.code, statusMessage(Status.OUT_OF_RANGE.code));
            return new String(name, StandardCharsets.UTF_8);
        } finally {
            gate.leave();
        }
    }

    /**
     * Every entry's name, in archive order: a view whose {@code get(i)} is {@link #name(int)
     * name(i)}, so that the entries can be walked as a {@code java.util.zip.ZipFile}'s are.
     *
     * <pre>{@code
     * for (String name : apk.names()) System.out.println(name);
     * }</pre>
     */
    public final java.util.List<String> names() {
        int n = size();
        return new java.util.AbstractList<>() {
            @Override
            public String get(int index) {
                return name(Objects.checkIndex(index, n));
            }

            @Override
            public int size() {
                return n;
            }
        };
    }

    /**
     * One entry's facts from the central directory, as {@link #entry(int)} and {@link #entries()}
     * give them: what a {@code java.util.zip.ZipEntry} tells.
     *
     * @param index what the reads take
     * @param name as extraction writes it: {@code /}-separated, a directory without its trailing {@code /}
     * @param size the size once read (0 for a directory)
     * @param compressedSize the size in the archive
     * @param crc32 the CRC-32 of the bytes once read, as an unsigned 32-bit value
     * @param method the compression method: 0 stored, 8 deflated (others as the archive names them)
     * @param directory whether the entry is a directory
     */
    public record Entry(int index, String name, long size, long compressedSize, long crc32, int method, boolean directory) {}

    /** Entry {@code index}'s name and central-directory facts. */
    public final Entry entry(int index) {
        long[] info = info(index);
        return new Entry(index, name(index), info[0], info[1], info[2] & 0xFFFF_FFFFL, (int) info[3], info[4] != 0);
    }

    /**
     * Every entry, in archive order: a view whose {@code get(i)} is {@link #entry(int) entry(i)},
     * walked as a {@code java.util.zip.ZipFile}'s entries are.
     *
     * <pre>{@code
     * for (AssetArchive.Entry e : apk.entries())
     *     if (!e.directory()) System.out.println(e.name() + " " + e.size());
     * }</pre>
     */
    public final java.util.List<Entry> entries() {
        int n = size();
        return new java.util.AbstractList<>() {
            @Override
            public Entry get(int index) {
                return entry(Objects.checkIndex(index, n));
            }

            @Override
            public int size() {
                return n;
            }
        };
    }

    /**
     * The indexes of the entries whose names match {@code pattern}, in archive order: {@code *}
     * any run of characters ({@code /} included), {@code ?} one character, a pattern ending in
     * {@code /} a directory and everything under it (the patterns of extraction's {@code only}).
     *
     * <pre>{@code
     * for (int i : apk.list("assets/*.js")) byte[] js = apk.read(i);
     * }</pre>
     */
    public final int[] list(String pattern) {
        Objects.requireNonNull(pattern, "pattern");
        gate.enter();
        try {
            int[] status = new int[1];
            int[] indexes = nativeList(pattern.getBytes(StandardCharsets.UTF_8), status);
            if (indexes == null) throw new BufkitException("bk_archive_list", status[0], statusMessage(status[0]));
            return indexes;
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
        checkIndex(index);
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
            checkCount("bk_archive_read", nativeRead(index, out, 0, out.length));
        } finally {
            gate.leave();
        }
        return out;
    }

    /** The whole of the entry named {@code name}; {@link Status#NOT_FOUND} if there is none. */
    public final byte[] readAllBytes(String name) {
        Objects.requireNonNull(name, "name");
        int[] status = new int[1];
        byte[] out;
        gate.enter();
        try {
            out = nativeReadAll(name.getBytes(StandardCharsets.UTF_8), status);
        } finally {
            gate.leave();
        }
        if (out == null) {
            String message = status[0] == Status.NOT_FOUND.code ? "no entry named " + name : statusMessage(status[0]);
            throw new BufkitException("bk_archive_read", status[0], message);
        }
        return out;
    }

    /**
     * A read-only view of stored (uncompressed) entry {@code index} in the mapped file: no copy,
     * its CRC-32 checked on the first view. Empty for a deflated entry or a directory, and when the
     * archive is not {@link ArchiveOptions#mapped() mapped} (read those with {@link #read(int)}).
     *
     * <p>The view keeps the mapping alive: it stays valid while reachable, even after {@link #close()}
     * (the native archive is freed once the archive is closed and no view is left, as the JDK unmaps
     * a {@code MappedByteBuffer}). Its bytes are those of the file, which must not change while
     * mapped: see {@link ArchiveOptions}. On the Panama front, {@code MemorySegment.ofBuffer(view)}
     * gives the same bytes as a segment.
     *
     * <pre>{@code
     * try (AssetArchive apk = Bufkit.load().openArchive(Path.of("app.apk"), true)) {
     *     ByteBuffer icon = apk.view(apk.find("res/icon.png").orElseThrow()).orElseThrow();
     * }
     * }</pre>
     */
    public final Optional<ByteBuffer> view(int index) {
        checkIndex(index);
        int[] status = new int[1];
        ByteBuffer root;
        gate.enter();
        try {
            AtomicReferenceArray<ByteBuffer> roots = viewRoots();
            root = index >= 0 && index < roots.length() ? roots.get(index) : null;
            if (root == null) {
                holders.retain(); // inside the gate: not closed, so the count is above 1 and cannot reach 0 here
                root = nativeView(index, status, holders::release);
                if (root == null) {
                    holders.release();
                } else if (!roots.compareAndSet(index, null, root)) {
                    root = roots.get(index); // another thread's view won; this one is collected and released
                }
            }
        } finally {
            gate.leave();
        }
        if (root != null) return Optional.of(root.asReadOnlyBuffer());
        if (status[0] == Status.INVALID_ARGUMENT.code) return Optional.empty();
        throw new BufkitException("bk_archive_view", status[0], statusMessage(status[0]));
    }

    /**
     * Each entry's view root, made on its first view and shared by later ones (so a view costs a
     * lookup and a wrapper); dropped at close, after which the views handed out keep them alive.
     */
    private volatile AtomicReferenceArray<ByteBuffer> viewRoots;
    private final Object viewRootsLock = new Object(); // not this: close() holds this while it waits for calls in progress

    private AtomicReferenceArray<ByteBuffer> viewRoots() {
        AtomicReferenceArray<ByteBuffer> roots = viewRoots;
        if (roots == null) {
            synchronized (viewRootsLock) {
                if ((roots = viewRoots) == null) viewRoots = roots = new AtomicReferenceArray<>(nativeCount());
            }
        }
        return roots;
    }

    /** {@link #view(int)} of the entry named {@code name}; {@link Status#NOT_FOUND} if there is none. */
    public final Optional<ByteBuffer> view(String name) {
        return view(indexOf(name));
    }

    /**
     * Reads the whole of entry {@code index} into {@code dst} at its position, inflated straight into
     * its memory (direct) or its array (heap), with no copy through a temporary; advances the position
     * by the entry's size and returns it. {@link Status#SIZE_MISMATCH} if fewer bytes remain, and then
     * nothing is written.
     */
    public final int read(int index, ByteBuffer dst) {
        checkIndex(index);
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) throw new ReadOnlyBufferException();
        int position = dst.position(), len = dst.remaining();
        gate.enter();
        long written;
        try {
            if (dst.isDirect()) {
                written = nativeReadDirect(index, dst, position, len);
            } else {
                written = nativeRead(index, dst.array(), dst.arrayOffset() + position, len);
            }
        } finally {
            gate.leave();
        }
        checkCount("bk_archive_read", written);
        dst.position(position + (int) written);
        return (int) written;
    }

    /** {@link #read(int, ByteBuffer)} of the entry named {@code name}. */
    public final int read(String name, ByteBuffer dst) {
        return read(indexOf(name), dst);
    }

    /**
     * Reads up to {@code dst.remaining()} bytes of entry {@code index}'s data from byte {@code offset}
     * into {@code dst} at its position, advances the position and returns how many: fewer only where
     * the entry ends (0 at its end). An offset past the end throws {@link BufkitException} with
     * {@link Status#OUT_OF_RANGE}. The cost follows the slice, not the entry: a stored entry is read in
     * place; a deflated one inflates from the last checkpoint before {@code offset}, at most about one
     * span (1 MiB unless {@link #setCheckpointLimits} says otherwise). The entry's first slice builds
     * its checkpoints in one full pass that checks its CRC-32, unless {@link #importCheckpoints} gave
     * them. A CRC-32 covers only a whole entry: a slice is as checked as that pass, and is decoded by
     * the strict decoder. Thread-safe.
     */
    public final int readAt(int index, long offset, ByteBuffer dst) {
        checkIndex(index);
        Objects.requireNonNull(dst, "dst");
        if (dst.isReadOnly()) throw new ReadOnlyBufferException();
        if (offset < 0) throw new IllegalArgumentException("negative offset " + offset);
        int position = dst.position(), len = dst.remaining();
        gate.enter();
        long read;
        try {
            if (dst.isDirect()) {
                read = nativeReadAtDirect(index, offset, dst, position, len);
            } else {
                read = nativeReadAt(index, offset, dst.array(), dst.arrayOffset() + position, len);
            }
        } finally {
            gate.leave();
        }
        checkCount("bk_archive_read_at", read);
        dst.position(position + (int) read);
        return (int) read;
    }

    /**
     * Entry {@code index} as a read-only {@link SeekableByteChannel}: {@link SeekableByteChannel#position(long)}
     * then {@code read} gives any slice at the cost of that slice ({@link #readAt}), and reads that move
     * forward from where the last one ended continue one stream ({@link #open}), so a pass front to back
     * costs one inflate of the entry, its checks at its end. Writing or truncating throws
     * {@link java.nio.channels.NonWritableChannelException}. Each channel has its own position; closing
     * it does not close the archive.
     */
    public final SeekableByteChannel channel(int index) {
        long size = entrySize(index);
        if (isDirectory(index)) throw new BufkitException("bk_archive_read_at", Status.INVALID_ARGUMENT.code, "a directory has no data");
        return new EntryChannel(this, index, size);
    }

    /** {@link #channel(int)} of the entry named {@code name}. */
    public final SeekableByteChannel channel(String name) {
        return channel(indexOf(name));
    }

    /**
     * Sets how far apart deflated entries' checkpoints are ({@code span} bytes of output, at least 32
     * KiB; default 1 MiB) and how much memory this archive's checkpoints may take in all ({@code budget}
     * bytes; default 64 MiB). Each checkpoint holds 32 KiB; an entry whose checkpoints would not fit gets
     * a longer span, and those of the entries read longest ago are dropped to make room.
     */
    public final void setCheckpointLimits(long span, long budget) {
        if (span < 0 || budget < 0) throw new IllegalArgumentException("negative span or budget");
        gate.enter();
        try {
            check("bk_archive_set_checkpoint_limits", nativeSetCheckpointLimits(span, budget));
        } finally {
            gate.leave();
        }
    }

    /**
     * Sets when a large deflated entry is inflated on several cores by {@link #open} and the whole
     * reads: by the rule (the default, {@link ParallelInflate#AUTO}: an entry of 20 MiB or more, with 4
     * cores or more), always, or never. The bytes and every check are the same; streams already open
     * keep how they were opened.
     */
    public final void setParallelInflate(ParallelInflate mode) {
        Objects.requireNonNull(mode, "mode");
        gate.enter();
        try {
            check("bk_archive_set_parallel_inflate", nativeSetParallelInflate(mode.code()));
        } finally {
            gate.leave();
        }
    }

    /**
     * Deflated entry {@code index}'s checkpoints as bytes to keep beside the archive (an app's first start
     * computes them once), for {@link #importCheckpoints} in a later run; built now if not held (one full
     * pass, checking the CRC-32).
     */
    public final byte[] exportCheckpoints(int index) {
        checkIndex(index);
        int[] status = new int[1];
        byte[] bytes;
        gate.enter();
        try {
            bytes = nativeCheckpointsExport(index, status);
        } finally {
            gate.leave();
        }
        if (bytes == null) throw new BufkitException("bk_archive_checkpoints_export", status[0], statusMessage(status[0]));
        return bytes;
    }

    /**
     * Gives entry {@code index} the checkpoints {@link #exportCheckpoints} made earlier: kept only if they
     * were made for this entry's data (its sizes and CRC-32) and are whole and unaltered; otherwise
     * {@link BufkitException} with {@link Status#CHECKPOINTS_REFUSED}, and nothing changes. Each is
     * bound to the compressed bytes it describes: the first {@link #readAt} through it checks it, and
     * one made for another archive (the same data compressed otherwise) or damaged fails that read
     * with {@link Status#CHECKPOINTS_REFUSED} and is dropped, so that later reads build their own.
     */
    public final void importCheckpoints(int index, byte[] bytes) {
        checkIndex(index);
        Objects.requireNonNull(bytes, "bytes");
        gate.enter();
        try {
            check("bk_archive_checkpoints_import", nativeCheckpointsImport(index, bytes));
        } finally {
            gate.leave();
        }
    }

    /**
     * Entry {@code index} as a stream in bounded memory, whatever its size (about 100 KiB for stored and
     * deflated entries; for the other methods see {@code bk_archive_reader} in bufkit.h). Bytes come
     * out as they are inflated; the entry's checks (its CRC-32, its sizes) run when its last byte is
     * out: a failure makes the read that would return -1 throw an {@link IOException} instead (its
     * cause the {@link BufkitException}), and every read after it. Read the entry whole when unchecked
     * bytes must not be acted on. The stream keeps what it reads alive: it may outlive this archive.
     * Not for use by two threads at once (like any stream), but never unsafe if it is.
     */
    public final InputStream open(int index) {
        checkIndex(index);
        gate.enter();
        long reader;
        try {
            reader = nativeReaderOpen(index);
        } finally {
            gate.leave();
        }
        checkCount("bk_archive_reader_open", reader);
        return new EntryStream(this, reader);
    }

    /** {@link #open(int)} of the entry named {@code name}. */
    public final InputStream open(String name) {
        return open(indexOf(name));
    }

    private int indexOf(String name) {
        OptionalInt index = find(name);
        if (index.isEmpty()) throw new BufkitException("bk_archive_find", Status.NOT_FOUND.code, "no entry named " + name);
        return index.getAsInt();
    }

    /**
     * Closes the archive; later calls throw {@link IllegalStateException}. Waits for reads in
     * progress. Frees the native archive now, or when the last {@link #view} of it is unreachable.
     */
    @Override
    public final synchronized void close() {
        if (gate.isClosed()) return;
        gate.close();
        viewRoots = null;
        cleanable.clean();
    }

    private void checkCount(String function, long countOrStatus) {
        if (countOrStatus < 0) {
            int code = (int) -countOrStatus;
            throw new BufkitException(function, code, statusMessage(code));
        }
    }

    private void check(String function, int code) {
        if (code != Status.OK.code) throw new BufkitException(function, code, statusMessage(code));
    }
}

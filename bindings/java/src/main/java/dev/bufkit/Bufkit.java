package dev.bufkit;

/**
 * Entry point: one of two fronts over the same C ABI. {@link #load()} picks Panama on JDK 22+ when
 * its classes are present, JNI otherwise (JDK 17, Android).
 *
 * <pre>{@code
 * Bufkit bufkit = Bufkit.load();
 * try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
 *     buf.append("hello".getBytes(StandardCharsets.UTF_8));
 *     byte[] all = buf.toByteArray();
 * }
 * }</pre>
 */
public interface Bufkit {
    /** The ABI version this binding speaks: {@code BK_ABI_VERSION} of the header it was written
     *  against (the conformance suite checks that they agree). A library of another ABI is refused
     *  at load. */
    int BINDING_ABI_VERSION = 3;

    /** The loaded library's version, e.g. "0.1.0". */
    String version();

    /** The loaded library's ABI version. */
    int abiVersion();

    /** A new buffer; the caller closes it. */
    GrowableBuffer newBuffer(BufferConfig config);

    /** A new buffer pool; the caller closes it after closing its leases. */
    BufferPool newPool(PoolConfig config);

    /** A new stream decoder; the caller closes it. */
    OffsetInflater newInflater(Format format);

    /**
     * A new stream inflater for input that arrives in pieces, inflating into {@code out} (the
     * stream's exact inflated size); failures report {@code origin} as their offset. The caller
     * closes it.
     */
    InflateStream newInflateStream(Format format, long origin, byte[] out);

    /** A new cancel token for {@link ExtractOptions#withCancel}. */
    ExtractCancel newCancel();

    /**
     * Extracts the zip/APK/JAR at {@code archive} into {@code dest}, as the options'
     * {@link ExtractMode} allows (by default {@code dest} must not exist or be an empty directory);
     * nothing there changes unless every entry has verified; on failure nothing is left behind and
     * an {@link ExtractException} names the status and the entry.
     */
    ExtractReport extract(java.nio.file.Path archive, java.nio.file.Path dest, ExtractOptions options);

    /**
     * Extracts the zip/APK/JAR at {@code archive} into {@code dest} with the default options:
     * {@code dest} must not exist or be an empty directory, and appears only once every entry has
     * verified.
     *
     * <pre>{@code
     * ExtractReport report = Bufkit.load().extract(Path.of("app.apk"), Path.of("out"));
     * }</pre>
     */
    default ExtractReport extract(java.nio.file.Path archive, java.nio.file.Path dest) {
        return extract(archive, dest, ExtractOptions.defaults());
    }

    /**
     * Extracts the archive read from {@code in} to its end (a download, a socket, a child's
     * output) into {@code dest}, as {@link #extract(java.nio.file.Path, java.nio.file.Path, ExtractOptions)}
     * extracts a file: the same checks, options and exceptions. The bytes are spooled as they
     * arrive (in memory up to 8 MiB, beyond that in an unnamed file on {@code dest}'s file
     * system) and extracted once the stream ends; nothing is left behind on any failure. The
     * stream is read, not closed; its own failure is the {@link java.io.IOException} thrown.
     *
     * <pre>{@code
     * try (InputStream download = connection.getInputStream()) {
     *     Bufkit.load().extract(download, Path.of("update"), ExtractOptions.defaults());
     * }
     * }</pre>
     */
    ExtractReport extract(java.io.InputStream in, java.nio.file.Path dest, ExtractOptions options) throws java.io.IOException;

    /**
     * Opens the zip/APK/JAR at {@code path} to read entries in place, validating its central
     * directory now and each entry's local header when the entry is first read. By default entries
     * are read from the file as asked for, each read checking its CRC: a file changed meanwhile
     * gives an exception, never a crash. {@code mapped}: memory-map it instead (then the file must
     * not change while the archive is open, as for an installed APK). Throws {@link BufkitException} naming the
     * status ({@link Status#ARCHIVE_MALFORMED}, {@link Status#UNSAFE_NAME}, {@link Status#IO_ERROR}...).
     */
    default AssetArchive openArchive(java.nio.file.Path path, boolean mapped) {
        return openArchive(path, ArchiveOptions.defaults().withMapped(mapped));
    }

    /**
     * Opens the zip/APK/JAR at {@code path} to read entries in place, with the default options:
     * read from the file as entries are asked for, every local header checked now.
     *
     * <pre>{@code
     * try (AssetArchive apk = Bufkit.load().openArchive(Path.of("app.apk"))) {
     *     for (int i : apk.list("assets/*.js")) System.out.println(apk.name(i));
     * }
     * }</pre>
     */
    default AssetArchive openArchive(java.nio.file.Path path) {
        return openArchive(path, ArchiveOptions.defaults());
    }

    /** Opens the zip/APK/JAR at {@code path} to read entries in place, held and checked as {@code options} say. */
    AssetArchive openArchive(java.nio.file.Path path, ArchiveOptions options);

    /**
     * Opens the zip/APK/JAR whose bytes {@code channel} serves (a {@link java.nio.channels.FileChannel},
     * or any channel of the caller's: an encrypted store, a cache), checked as {@code options} say,
     * exactly as a file is: only what a request needs is read, at offsets, from the library's
     * threads too. The channel stays the caller's: keep it open until the archive and every stream
     * from it are closed. A channel that fails, ends early or changes its bytes makes the reads
     * concerned fail with a {@link BufkitException}. {@code options} must not ask for mapping.
     *
     * <pre>{@code
     * try (FileChannel ch = FileChannel.open(Path.of("app.apk"));
     *      AssetArchive apk = Bufkit.load().openArchive(ch, ArchiveOptions.defaults())) {
     *     byte[] js = apk.read(apk.find("assets/app.js").orElseThrow());
     * }
     * }</pre>
     */
    AssetArchive openArchive(java.nio.channels.SeekableByteChannel channel, ArchiveOptions options) throws java.io.IOException;

    /** Asks the library to panic inside Rust on purpose; returns the status it came back as. */
    Status testPanic();

    /** The front's name: "panama" or "jni". */
    String front();

    /** The two ways into the one native library. */
    enum Front {
        /** Downcalls through {@code java.lang.foreign}: Java 22+. */
        PANAMA("dev.bufkit.PanamaBufkit"),
        /** JNI glue over the same library: Java 17+ and Android. */
        JNI("dev.bufkit.JniBufkit");

        final String className;

        Front(String className) {
            this.className = className;
        }
    }

    /**
     * The front asked for, whatever the JDK would choose by itself.
     *
     * @throws IllegalStateException when it does not load (the Panama front before Java 22): the
     *     message says why and what to do
     */
    static Bufkit load(Front front) {
        return load(front.className);
    }

    /** The Panama front on JDK 22+ if present, else the JNI front. */
    static Bufkit load() {
        String[] order = Runtime.version().feature() >= 22
                ? new String[] {Front.PANAMA.className, Front.JNI.className}
                : new String[] {Front.JNI.className};
        return load(order);
    }

    /**
     * The first front in {@code classNames} that loads.
     *
     * @throws IllegalStateException when none loads: its message says, front by front, what was
     *     tried and why it failed, and what to do; the first failure is its cause
     */
    static Bufkit load(String... classNames) {
        StringBuilder why = new StringBuilder("no bufkit front could be loaded on Java " + Runtime.version().feature() + ":");
        Throwable first = null;
        java.util.List<Throwable> others = new java.util.ArrayList<>();
        for (String name : classNames) {
            try {
                return (Bufkit) Class.forName(name).getMethod("instance").invoke(null);
            } catch (ReflectiveOperationException | LinkageError e) {
                Throwable cause = e instanceof java.lang.reflect.InvocationTargetException && e.getCause() != null ? e.getCause() : e;
                if (cause instanceof ExceptionInInitializerError && cause.getCause() != null) {
                    cause = cause.getCause();
                }
                why.append("\n  ").append(name).append(": ").append(cause);
                if (first == null) {
                    first = cause;
                } else {
                    others.add(cause);
                }
            }
        }
        why.append("\nThe Panama front needs Java 22+ (and --enable-native-access=ALL-UNNAMED to run without warnings);"
                + " the JNI front runs on Java 17+. The native library comes from the bufkit jar, or from -D"
                + NativeLibrary.PATH_PROPERTY + "=/path/to/" + NativeLibrary.FILE_NAME + ".");
        IllegalStateException failure = new IllegalStateException(why.toString(), first);
        others.forEach(failure::addSuppressed);
        throw failure;
    }
}

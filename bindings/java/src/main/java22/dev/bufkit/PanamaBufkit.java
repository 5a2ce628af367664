package dev.bufkit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The Panama front (JDK 22+): binds libbufkit's C ABI directly, no glue library. */
final class PanamaBufkit implements Bufkit {
    private static final PanamaBufkit INSTANCE = new PanamaBufkit();

    private PanamaBufkit() {}

    /** The front; loads libbufkit on first use. */
    public static PanamaBufkit instance() {
        int abi = INSTANCE.abiVersion();
        if (abi != BINDING_ABI_VERSION) {
            throw new IllegalStateException("libbufkit ABI " + abi + ", binding expects " + BINDING_ABI_VERSION);
        }
        return INSTANCE;
    }

    @Override
    public String version() {
        try {
            return BufkitLibrary.cString((MemorySegment) BufkitLibrary.VERSION.invokeExact());
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public int abiVersion() {
        try {
            return (int) BufkitLibrary.ABI_VERSION.invokeExact();
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public Status testPanic() {
        try {
            return Status.of((int) BufkitLibrary.TEST_PANIC.invokeExact());
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public String front() {
        return "panama";
    }

    /** Receives progress upcalls (from the extraction's worker threads) and never lets one throw. */
    private static void progress(dev.bufkit.ProgressListener listener, MemorySegment user, long done, long total, long bytes, long bytesTotal) {
        try {
            listener.onProgress(done, total, bytes, bytesTotal);
        } catch (Throwable ignored) {
            // A throwing upcall would crash the JVM; a listener's failure must not stop the extraction.
        }
    }

    private static final java.lang.invoke.MethodHandle PROGRESS;

    static {
        try {
            PROGRESS = java.lang.invoke.MethodHandles.lookup().findStatic(PanamaBufkit.class, "progress",
                    java.lang.invoke.MethodType.methodType(void.class, dev.bufkit.ProgressListener.class, MemorySegment.class,
                            long.class, long.class, long.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public ExtractCancel newCancel() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int status = (int) BufkitLibrary.CANCEL_NEW.invokeExact(out);
            if (status != 0) throw new BufkitException("bk_cancel_new", status, Failures.message(status));
            return new ExtractCancel(out.get(ValueLayout.ADDRESS, 0).address(), PanamaBufkit::requestCancel, PanamaBufkit::freeCancel);
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    private static void requestCancel(long handle) {
        try {
            int status = (int) BufkitLibrary.CANCEL_REQUEST.invokeExact(MemorySegment.ofAddress(handle));
            if (status != 0) throw new BufkitException("bk_cancel_request", status, Failures.message(status));
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    private static void freeCancel(long handle) {
        try {
            BufkitLibrary.CANCEL_FREE.invokeExact(MemorySegment.ofAddress(handle));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public ExtractReport extract(java.nio.file.Path archive, java.nio.file.Path dest, ExtractOptions o) {
        ExtractCancel cancel = o.cancel();
        try {
            return extractWith(archive, MemorySegment.NULL, dest, o, cancel);
        } finally {
            java.lang.ref.Reference.reachabilityFence(cancel); // its bk_cancel lives until bk_extract returns
        }
    }

    @Override
    public ExtractReport extract(java.io.InputStream in, java.nio.file.Path dest, ExtractOptions o) throws java.io.IOException {
        ExtractCancel cancel = o.cancel();
        MemorySegment stream;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int status = (int) BufkitLibrary.STREAM_NEW.invokeExact(arena.allocateFrom(dest.toString()), out);
            if (status != 0) throw new ExtractException(status, "", Failures.message(status));
            stream = out.get(ValueLayout.ADDRESS, 0);
        } catch (ExtractException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
        try (Arena arena = Arena.ofConfined()) {
            byte[] chunk = new byte[1 << 16];
            MemorySegment piece = arena.allocate(chunk.length);
            for (int n; (n = in.read(chunk)) >= 0;) {
                if (cancel != null && cancel.isCancelled()) break; // bk_stream_extract then says CANCELLED
                MemorySegment.copy(chunk, 0, piece, ValueLayout.JAVA_BYTE, 0, n);
                int status = (int) BufkitLibrary.STREAM_FEED.invokeExact(stream, piece, (long) n);
                if (status != 0) throw new ExtractException(status, "", Failures.message(status));
            }
            return extractWith(null, stream, dest, o, cancel);
        } catch (ExtractException | java.io.IOException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        } finally {
            java.lang.ref.Reference.reachabilityFence(cancel);
            try {
                BufkitLibrary.STREAM_FREE.invokeExact(stream);
            } catch (Throwable t) {
                throw Failures.rethrow(t);
            }
        }
    }

    /** Extracts the file at {@code archive}, or the archive fed to {@code stream} when it is not NULL. */
    private ExtractReport extractWith(java.nio.file.Path archive, MemorySegment stream, java.nio.file.Path dest, ExtractOptions o,
            ExtractCancel cancel) {
        // A shared arena: the progress stub is called from the extraction's own threads.
        try (Arena arena = Arena.ofShared()) {
            MemorySegment opts = ExtractStructs.options(arena, o);
            if (cancel != null) opts.set(ValueLayout.ADDRESS, ExtractStructs.OPTIONS_CANCEL, MemorySegment.ofAddress(cancel.handle()));
            if (!o.only().isEmpty()) {
                MemorySegment patterns = arena.allocate(ValueLayout.ADDRESS, o.only().size());
                for (int i = 0; i < o.only().size(); i++) patterns.setAtIndex(ValueLayout.ADDRESS, i, arena.allocateFrom(o.only().get(i)));
                opts.set(ValueLayout.ADDRESS, ExtractStructs.OPTIONS_ONLY, patterns);
                opts.set(ValueLayout.JAVA_LONG, ExtractStructs.OPTIONS_ONLY_LEN, o.only().size());
            }
            if (o.progress() != null) {
                opts.set(ValueLayout.ADDRESS, ExtractStructs.OPTIONS_PROGRESS, BufkitLibrary.upcall(PROGRESS.bindTo(o.progress()), BufkitLibrary.PROGRESS_FN, arena));
            }
            MemorySegment report = ExtractStructs.newReport(arena);
            MemorySegment failure = arena.allocate(Layouts.EXTRACT_FAILURE);
            int status = stream.equals(MemorySegment.NULL)
                    ? (int) BufkitLibrary.EXTRACT_DETAILED.invokeExact(arena.allocateFrom(archive.toString()),
                            arena.allocateFrom(dest.toString()), opts, report, failure)
                    : (int) BufkitLibrary.STREAM_EXTRACT.invokeExact(stream, arena.allocateFrom(dest.toString()), opts, report,
                            failure);
            if (status != 0) {
                throw new ExtractException(status, failure.getString(Layouts.offset(Layouts.EXTRACT_FAILURE, "path")),
                        failure.getString(Layouts.offset(Layouts.EXTRACT_FAILURE, "detail")), failure.get(ValueLayout.JAVA_INT, Layouts.offset(Layouts.EXTRACT_FAILURE, "os_error")));
            }
            return ExtractStructs.report(report);
        } catch (ExtractException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }


    @Override
    public dev.bufkit.AssetArchive openArchive(java.nio.file.Path path, dev.bufkit.ArchiveOptions archiveOptions) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment options = arena.allocate(Layouts.ARCHIVE_OPTIONS);
            int status = (int) BufkitLibrary.ARCHIVE_OPTIONS_DEFAULT.invokeExact(options);
            options.set(ValueLayout.JAVA_INT, Layouts.offset(Layouts.ARCHIVE_OPTIONS, "holding"), archiveOptions.holding().code());
            options.set(ValueLayout.JAVA_INT, Layouts.offset(Layouts.ARCHIVE_OPTIONS, "local_headers"),
                    archiveOptions.localHeaders().code());
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            if (status == 0) status = (int) BufkitLibrary.ARCHIVE_OPEN.invokeExact(arena.allocateFrom(path.toString()), options, out);
            if (status != 0) throw new BufkitException("bk_archive_open", status, Failures.message(status) + ": " + path);
            return new PanamaArchive(out.get(ValueLayout.ADDRESS, 0), false);
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public dev.bufkit.AssetArchive openArchive(java.nio.channels.SeekableByteChannel channel, dev.bufkit.ArchiveOptions archiveOptions)
            throws java.io.IOException {
        if (archiveOptions.mapped()) throw new IllegalArgumentException("an archive read from a channel cannot be mapped");
        dev.bufkit.ChannelSource served = new dev.bufkit.ChannelSource(channel);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment options = arena.allocate(Layouts.ARCHIVE_OPTIONS);
            int status = (int) BufkitLibrary.ARCHIVE_OPTIONS_DEFAULT.invokeExact(options);
            options.set(ValueLayout.JAVA_INT, Layouts.offset(Layouts.ARCHIVE_OPTIONS, "local_headers"),
                    archiveOptions.localHeaders().code());
            MemorySegment source = arena.allocate(Layouts.SOURCE);
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            if (status == 0) {
                PanamaSources.fill(source, served);
                status = (int) BufkitLibrary.ARCHIVE_OPEN_SOURCE.invokeExact(source, options, out);
            }
            if (status != 0) throw new BufkitException("bk_archive_open_source", status, Failures.message(status) + ": " + channel);
            return new PanamaArchive(out.get(ValueLayout.ADDRESS, 0), true);
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public OffsetInflater newInflater(Format format) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int status = (int) BufkitLibrary.INFLATER_NEW.invokeExact(format.code(), out);
            if (status != 0) throw new BufkitException("bk_inflater_new", status, Failures.message(status));
            return new PanamaInflater(out.get(ValueLayout.ADDRESS, 0));
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public dev.bufkit.InflateStream newInflateStream(Format format, long origin, byte[] out) {
        java.util.Objects.requireNonNull(out, "out");
        if (origin < 0) throw new BufkitException("bk_inflate_stream_new", dev.bufkit.Status.OUT_OF_RANGE.code, "negative origin");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handle = arena.allocate(ValueLayout.ADDRESS);
            int status = (int) BufkitLibrary.INFLATE_STREAM_NEW.invokeExact(format.code(), origin, handle);
            if (status != 0) throw new BufkitException("bk_inflate_stream_new", status, Failures.message(status));
            return new PanamaInflateStream(handle.get(ValueLayout.ADDRESS, 0), out);
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public BufferPool newPool(PoolConfig c) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment config = arena.allocate(Layouts.POOL_CONFIG);
            int status = (int) BufkitLibrary.POOL_CONFIG_DEFAULT.invokeExact(config);
            if (status == 0) {
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.POOL_CONFIG, "min_class_size"), c.minClassSize());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.POOL_CONFIG, "max_class_size"), c.maxClassSize());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.POOL_CONFIG, "max_retained_bytes"), c.maxRetainedBytes());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.POOL_CONFIG, "max_buffers_per_class"), c.maxBuffersPerClass());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.POOL_CONFIG, "thread_cache_buffers"), c.threadCacheBuffers());
                config.set(ValueLayout.JAVA_INT, Layouts.offset(Layouts.POOL_CONFIG, "zero_on_acquire"), c.zeroOnAcquire() ? 1 : 0);
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.POOL_CONFIG, "decay_after_ms"), c.decayAfterMillis());
                MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
                status = (int) BufkitLibrary.POOL_NEW.invokeExact(config, out);
                if (status == 0) return new PanamaPool(out.get(ValueLayout.ADDRESS, 0));
            }
            throw new BufkitException("bk_pool_new", status, Failures.message(status));
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    public GrowableBuffer newBuffer(BufferConfig c) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment config = arena.allocate(Layouts.BUFFER_CONFIG);
            int status = (int) BufkitLibrary.BUFFER_CONFIG_DEFAULT.invokeExact(config);
            if (status == 0) {
                config.set(ValueLayout.JAVA_INT, Layouts.offset(Layouts.BUFFER_CONFIG, "growth"), c.growth().code());
                config.set(ValueLayout.JAVA_DOUBLE, Layouts.offset(Layouts.BUFFER_CONFIG, "factor"), c.factor());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.BUFFER_CONFIG, "step"), c.step());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.BUFFER_CONFIG, "chunk_size"), c.chunkSize());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.BUFFER_CONFIG, "max_capacity"), c.maxCapacity());
                config.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.BUFFER_CONFIG, "initial_capacity"), c.initialCapacity());
                MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
                status = (int) BufkitLibrary.BUFFER_NEW.invokeExact(config, out);
                if (status == 0) return new PanamaBuffer(out.get(ValueLayout.ADDRESS, 0));
            }
            throw new BufkitException("bk_buffer_new", status, Failures.message(status));
        } catch (BufkitException e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }
}

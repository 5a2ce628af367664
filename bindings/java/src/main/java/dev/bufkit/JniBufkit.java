package dev.bufkit;


/** The JNI front (JDK 17+, Android): C glue over bufkit.h, with libbufkit linked in statically. */
final class JniBufkit implements Bufkit {
    private static final JniBufkit INSTANCE = new JniBufkit();

    private JniBufkit() {}

    /** The front; loads the native glue on first use. */
    public static JniBufkit instance() {
        if (JniNative.abiVersion() != BINDING_ABI_VERSION) {
            throw new IllegalStateException("libbufkit ABI " + JniNative.abiVersion() + ", binding expects " + BINDING_ABI_VERSION);
        }
        return INSTANCE;
    }

    @Override
    public String version() {
        return JniNative.version();
    }

    @Override
    public int abiVersion() {
        return JniNative.abiVersion();
    }

    @Override
    public Status testPanic() {
        return Status.of(JniNative.testPanic());
    }

    @Override
    public String front() {
        return "jni";
    }

    @Override
    public BufferPool newPool(PoolConfig c) {
        long[] handle = new long[1];
        int status = JniNative.poolNew(c.minClassSize(), c.maxClassSize(), c.maxRetainedBytes(), c.maxBuffersPerClass(),
                c.threadCacheBuffers(), c.zeroOnAcquire(), c.decayAfterMillis(), handle);
        if (status != 0) throw new BufkitException("bk_pool_new", status, JniNative.statusMessage(status));
        return new JniPool(handle[0]);
    }

    @Override
    public ExtractCancel newCancel() {
        long handle = JniNative.cancelNew();
        if (handle == 0) throw new BufkitException("bk_cancel_new", Status.ALLOC_FAILED.code, JniNative.statusMessage(Status.ALLOC_FAILED.code));
        return new ExtractCancel(handle, JniNative::cancelRequest, JniNative::cancelFree);
    }

    @Override
    public ExtractReport extract(java.nio.file.Path archive, java.nio.file.Path dest, ExtractOptions o) {
        return extract(archive.toString(), 0, dest, o);
    }

    @Override
    public ExtractReport extract(java.io.InputStream in, java.nio.file.Path dest, ExtractOptions o) throws java.io.IOException {
        long stream = JniNative.streamNew(dest.toString());
        if (stream < 0) {
            throw new ExtractException((int) -stream, "", JniNative.statusMessage((int) -stream));
        }
        try {
            byte[] chunk = new byte[1 << 16];
            for (int n; (n = in.read(chunk)) >= 0;) {
                if (o.cancel() != null && o.cancel().isCancelled()) break; // bk_stream_extract then says CANCELLED
                int status = JniNative.streamFeed(stream, chunk, 0, n);
                if (status != 0) throw new ExtractException(status, "", JniNative.statusMessage(status));
            }
            return extract(null, stream, dest, o);
        } finally {
            JniNative.streamFree(stream);
        }
    }

    /** The file at {@code archive}, or the archive fed to {@code stream} when it is not 0. */
    private ExtractReport extract(String archive, long stream, java.nio.file.Path dest, ExtractOptions o) {
        ExtractReport[] report = new ExtractReport[1];
        String[] error = new String[2];
        int[] osError = new int[1];
        ExtractCancel cancel = o.cancel();
        int status;
        try {
            status = JniNative.extract(archive, stream, dest.toString(), o, cancel == null ? 0 : cancel.handle(),
                    o.only().toArray(new String[0]), o.progress(), report, error, osError);
        } finally {
            java.lang.ref.Reference.reachabilityFence(cancel); // its bk_cancel lives until bk_extract returns
        }
        if (status != 0) {
            throw new ExtractException(status, error[0] == null ? "" : error[0],
                    error[1] == null ? JniNative.statusMessage(status) : error[1], osError[0]);
        }
        return report[0];
    }

    @Override
    public dev.bufkit.AssetArchive openArchive(java.nio.file.Path path, dev.bufkit.ArchiveOptions options) {
        long[] handle = new long[1];
        int status = JniNative.archiveOpen(path.toString(), options.holding().code(), options.localHeaders().code(), handle);
        if (status != 0) throw new BufkitException("bk_archive_open", status, JniNative.statusMessage(status) + ": " + path);
        return new JniArchive(handle[0], false);
    }

    @Override
    public dev.bufkit.AssetArchive openArchive(java.nio.channels.SeekableByteChannel channel, dev.bufkit.ArchiveOptions options)
            throws java.io.IOException {
        if (options.mapped()) throw new IllegalArgumentException("an archive read from a channel cannot be mapped");
        dev.bufkit.ChannelSource served = new dev.bufkit.ChannelSource(channel);
        long[] handle = new long[1];
        int status = JniNative.archiveOpenSource(served, served.length(), options.localHeaders().code(), handle);
        if (status != 0) throw new BufkitException("bk_archive_open_source", status, JniNative.statusMessage(status) + ": " + channel);
        return new JniArchive(handle[0], true);
    }

    @Override
    public OffsetInflater newInflater(Format format) {
        long[] handle = new long[1];
        int status = JniNative.inflaterNew(format.code(), handle);
        if (status != 0) throw new BufkitException("bk_inflater_new", status, JniNative.statusMessage(status));
        return new JniInflater(handle[0]);
    }

    @Override
    public dev.bufkit.InflateStream newInflateStream(Format format, long origin, byte[] out) {
        java.util.Objects.requireNonNull(out, "out");
        long[] handle = new long[1];
        int status = JniNative.inflateStreamNew(format.code(), origin, handle);
        if (status != 0) throw new BufkitException("bk_inflate_stream_new", status, JniNative.statusMessage(status));
        return new JniInflateStream(handle[0], out);
    }

    @Override
    public GrowableBuffer newBuffer(BufferConfig c) {
        long[] handle = new long[1];
        int status = JniNative.bufferNew(c.growth().code(), c.factor(), c.step(), c.chunkSize(), c.maxCapacity(), c.initialCapacity(), handle);
        if (status != 0) throw new BufkitException("bk_buffer_new", status, JniNative.statusMessage(status));
        return new JniBuffer(handle[0]);
    }
}

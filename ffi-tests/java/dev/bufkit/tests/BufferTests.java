package dev.bufkit.tests;

import dev.bufkit.BufferConfig;
import dev.bufkit.BufferPool;
import dev.bufkit.ExtractCancel;
import dev.bufkit.ExtractException;
import dev.bufkit.ExtractMode;
import dev.bufkit.ExtractOptions;
import dev.bufkit.ExtractReport;
import dev.bufkit.Lease;
import dev.bufkit.InflateBatch;
import dev.bufkit.OffsetInflater;
import dev.bufkit.PoolConfig;
import dev.bufkit.PoolStats;
import dev.bufkit.BufferStats;
import dev.bufkit.Bufkit;
import dev.bufkit.BufkitException;
import dev.bufkit.GrowableBuffer;
import dev.bufkit.Growth;
import dev.bufkit.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The same behavioural cases against whichever front is named: {@code java BufferTests jni|panama}.
 * A tiny runner: prints each test, then "N passed, N failed"; exits 1 on any failure or if none ran.
 */
public final class BufferTests {
    public interface Test {
        void run() throws Exception;
    }

    private static Bufkit bufkit;

    public static void main(String[] args) {
        String front = args.length > 0 ? args[0] : "jni";
        bufkit = Bufkit.load(front.equals("panama") ? Bufkit.Front.PANAMA : Bufkit.Front.JNI);
        check(bufkit.front().equals(front), "loaded front " + bufkit.front() + ", asked for " + front);

        List<Object[]> tests = new ArrayList<>();
        tests.add(new Object[] {"version matches the header", (Test) BufferTests::versionMatches});
        tests.add(new Object[] {"every policy keeps the bytes", (Test) BufferTests::everyPolicyRoundTrips});
        tests.add(new Object[] {"linear counters match hand-computed values", (Test) BufferTests::linearCounters});
        tests.add(new Object[] {"segmented copies nothing until flattened", (Test) BufferTests::segmentedCounters});
        tests.add(new Object[] {"capacity limit refuses and keeps data", (Test) BufferTests::capacityLimit});
        tests.add(new Object[] {"invalid configs are refused", (Test) BufferTests::invalidConfigs});
        tests.add(new Object[] {"bad arguments are exceptions", (Test) BufferTests::badArguments});
        tests.add(new Object[] {"impossible sizes are errors", (Test) BufferTests::impossibleSizes});
        tests.add(new Object[] {"closed buffers refuse every call", (Test) BufferTests::useAfterClose});
        tests.add(new Object[] {"byte buffers, heap and direct", (Test) BufferTests::byteBuffers});
        tests.add(new Object[] {"a Rust panic comes back as a status", (Test) BufferTests::panicBoundary});
        tests.add(new Object[] {"concurrent appends are serialised", (Test) BufferTests::concurrentAppends});
        tests.add(new Object[] {"close waits for a call in progress", (Test) BufferTests::closeWhileInUse});
        tests.add(new Object[] {"unclosed buffers are freed by the cleaner", (Test) BufferTests::cleanerFrees});
        tests.add(new Object[] {"pool leases are direct, warm and dirty", (Test) BufferTests::poolLeases});
        tests.add(new Object[] {"pool zeroes when asked", (Test) BufferTests::poolZeroes});
        tests.add(new Object[] {"pool cap and trim", (Test) BufferTests::poolCapAndTrim});
        tests.add(new Object[] {"pool refuses to close with open leases", (Test) BufferTests::poolCloseWithLeases});
        tests.add(new Object[] {"closed leases and pools refuse use", (Test) BufferTests::poolUseAfterClose});
        tests.add(new Object[] {"pool shared by threads", (Test) BufferTests::poolThreads});
        tests.add(new Object[] {"pool close races acquires and releases", (Test) BufferTests::poolCloseRacesCalls});
        tests.add(new Object[] {"unclosed leases are given back by the cleaner", (Test) BufferTests::poolLeaseCleaner});
        tests.add(new Object[] {"inflate: chained streams, exact consumed", (Test) BufferTests::inflateChained});
        tests.add(new Object[] {"inflate: every failure has its status", (Test) BufferTests::inflateFailures});
        tests.add(new Object[] {"inflate: direct buffers", (Test) BufferTests::inflateDirect});
        tests.add(new Object[] {"inflate: batch", (Test) BufferTests::inflateBatch});
        tests.add(new Object[] {"inflate: a reusable InflateBatch", (Test) BufferTests::inflateBatchObject});
        tests.add(new Object[] {"inflate: a stream fed in strides", (Test) BufferTests::inflateStream});
        tests.add(new Object[] {"extract: a valid archive, with progress", (Test) BufferTests::extractValid});
        tests.add(new Object[] {"extract: modification times restored, or not", (Test) BufferTests::extractMtimes});
        tests.add(new Object[] {"fronts chosen by enum; ratio limit and durable withers", (Test) BufferTests::frontsAndWithers});
        tests.add(new Object[] {"extract: a hostile archive leaves nothing", (Test) BufferTests::extractHostile});
        tests.add(new Object[] {"extract: an archive truncated meanwhile never crashes the JVM", (Test) BufferTests::extractTruncatedMeanwhile});
        tests.add(new Object[] {"extract: a cancel token stops it from another thread", (Test) BufferTests::extractCancelled});
        tests.add(new Object[] {"extract: data prepended is read past, unless strict", (Test) BufferTests::extractPrepended});
        tests.add(new Object[] {"extract: progress at an interval", (Test) BufferTests::extractProgressAtAnInterval});
        tests.add(new Object[] {"buffer: an OutputStream view stages writes", (Test) BufferTests::outputStreamView});
        tests.add(new Object[] {"buffer: the view as a DataOutput writes DataOutputStream's bytes", (Test) BufferTests::dataOutputMatchesDataOutputStream});
        tests.add(new Object[] {"buffer: writeTo channels and streams", (Test) BufferTests::writeToChannelsAndStreams});
        tests.add(new Object[] {"archive: entries read in place", (Test) BufferTests::archiveInPlace});
        tests.add(new Object[] {"archive: verify checks every entry, writing nothing", (Test) BufferTests::archiveVerify});
        tests.add(new Object[] {"archive: by name, into buffers, as streams", (Test) BufferTests::archiveBuffersAndStreams});
        tests.add(new Object[] {"archive: views of stored entries outlive close", (Test) BufferTests::archiveViews});
        tests.add(new Object[] {"every compression method: read, streamed, verified, extracted", (Test) BufferTests::everyMethod});
        dev.bufkit.NativeLibraryTests.cases().forEach((name, body) -> tests.add(new Object[] {name, (Test) body::run}));
        tests.add(new Object[] {"one cleaner thread for every kind of object", (Test) BufferTests::oneCleaner});

        if (front.equals("panama")) {
            try { // Panama-only cases live in a file compiled only for that front.
                Class.forName("dev.bufkit.tests.PanamaTests").getMethod("register", List.class, Bufkit.class).invoke(null, tests, bufkit);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("PanamaTests missing", e);
            }
        }

        int passed = 0, failed = 0;
        for (Object[] t : tests) {
            try {
                ((Test) t[1]).run();
                passed++;
                System.out.println("ok   " + t[0]);
            } catch (Throwable e) {
                failed++;
                System.out.println("FAIL " + t[0] + ": " + e);
                e.printStackTrace(System.out);
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 && passed > 0 ? 0 : 1);
    }

    public static void check(boolean cond, String what) {
        if (!cond) throw new AssertionError(what);
    }

    public static <T extends Throwable> T expect(Class<T> type, Test body) {
        try {
            body.run();
        } catch (Throwable e) {
            if (type.isInstance(e)) return type.cast(e);
            throw new AssertionError("expected " + type.getSimpleName() + ", got " + e, e);
        }
        throw new AssertionError("expected " + type.getSimpleName() + ", nothing was thrown");
    }

    static void expectStatus(Status status, Test body) {
        BufkitException e = expect(BufkitException.class, body);
        check(e.status() == status, "expected " + status + ", got " + e.status() + ": " + e.getMessage());
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (i * 7 + i / 251);
        return b;
    }

    static void versionMatches() {
        check(bufkit.version().equals(System.getProperty("bufkit.expectedVersion")), "version " + bufkit.version());
        check(bufkit.abiVersion() == Integer.getInteger("bufkit.expectedAbi", -1), "abi " + bufkit.abiVersion());
    }

    static void everyPolicyRoundTrips() {
        byte[] expected = pattern(100_000);
        for (Growth g : Growth.values()) {
            try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(g).withChunkSize(4096))) {
                int at = 0, piece = 20;
                while (at < expected.length) {
                    int n = Math.min(piece, expected.length - at);
                    buf.append(expected, at, n);
                    at += n;
                    piece = piece == 30 ? 20 : piece + 1;
                }
                check(Arrays.equals(buf.toByteArray(), expected), g + ": bytes differ");
                check(buf.length() == expected.length, g + ": length");
            }
        }
    }

    /** The OutputStream view stages small writes and appends them in one call; a failed append keeps them. */
    static void outputStreamView() throws Exception {
        byte[] expected = pattern(300_000);
        for (Growth g : Growth.values()) {
            try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(g).withChunkSize(4096))) {
                java.io.OutputStream out = buf.outputStream(1000);
                int at = 0;
                for (int piece = 0; at < expected.length - 10; piece++) {
                    int n = Math.min(piece % 7 == 6 ? 2500 : piece % 30, expected.length - 10 - at); // single bytes, pieces, some larger than the staging
                    if (n == 1) out.write(expected[at]); else out.write(expected, at, n);
                    at += n;
                }
                out.write(expected, at, 10); // staged
                check(buf.length() < expected.length, g + ": staged bytes are not in the buffer before a flush");
                out.close();
                check(Arrays.equals(buf.toByteArray(), expected), g + ": bytes after close");
                expect(java.io.IOException.class, () -> out.write(1));
                out.close(); // twice: nothing
                check(!buf.isClosed(), "closing the stream leaves the buffer open");
            }
        }
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withMaxCapacity(256))) {
            java.io.OutputStream out = buf.outputStream(64);
            out.write(pattern(200)); // larger than the staging: appended at once
            out.write(new byte[60]); // staged
            check(buf.length() == 200, "staged, not appended: " + buf.length());
            java.io.IOException full = expect(java.io.IOException.class, out::flush);
            check(full.getCause() instanceof BufkitException b && b.status() == Status.CAPACITY_EXCEEDED, "capacity: " + full.getCause());
            check(buf.length() == 200, "the failed append took nothing: " + buf.length());
            java.io.IOException again = expect(java.io.IOException.class, out::close);
            check(again.getCause() instanceof BufkitException, "the staged bytes are still there, and still do not fit");
            expect(IllegalArgumentException.class, () -> buf.outputStream(0));
        }
    }

    /**
     * The view's DataOutput methods against java.io.DataOutputStream, the reference: the same
     * seeded random calls (numbers, Latin-1 and wider strings, modified UTF-8 with NUL and
     * surrogates, strings longer than the staging) give the same bytes at every staging size,
     * and a writeUTF too long for its length field throws and writes nothing on both.
     */
    static void dataOutputMatchesDataOutputStream() throws Exception {
        String[] texts = {"", "a", "hello, world", "\0nul\u007f\u0080\u07ff\u0800\uffff", "\ud83d\ude00 surrogates",
                "caf\u00e9 na\u00efve \u0100\u4e2d", "x".repeat(5000), "\u00e9".repeat(30_000)};
        String tooLong = "\u4e2d".repeat(30_000); // 90,000 bytes of modified UTF-8
        for (int staging : new int[] {1, 3, 7, 64, 4096, 65536}) {
            java.util.Random random = new java.util.Random(staging);
            java.io.ByteArrayOutputStream reference = new java.io.ByteArrayOutputStream();
            java.io.DataOutputStream expected = new java.io.DataOutputStream(reference);
            try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
                dev.bufkit.BufferOutputStream out = buf.outputStream(staging);
                for (int op = 0; op < 3000; op++) {
                    int kind = random.nextInt(14);
                    long v = random.nextLong();
                    String text = texts[random.nextInt(texts.length)];
                    for (java.io.DataOutput o : new java.io.DataOutput[] {expected, out}) {
                        switch (kind) {
                            case 0 -> o.writeBoolean((v & 1) != 0);
                            case 1 -> o.writeByte((int) v);
                            case 2 -> o.writeShort((int) v);
                            case 3 -> o.writeChar((int) v);
                            case 4 -> o.writeInt((int) v);
                            case 5 -> o.writeLong(v);
                            case 6 -> o.writeFloat(Float.intBitsToFloat((int) v));
                            case 7 -> o.writeDouble(Double.longBitsToDouble(v));
                            case 8 -> o.writeBytes(text);
                            case 9 -> o.writeChars(text);
                            case 10 -> o.writeUTF(text);
                            case 11 -> o.write((int) v);
                            case 12 -> o.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
                            default -> expect(java.io.UTFDataFormatException.class, () -> o.writeUTF(tooLong));
                        }
                    }
                }
                out.close();
                expected.flush();
                byte[] want = reference.toByteArray();
                byte[] got = buf.toByteArray();
                int at = java.util.Arrays.mismatch(want, got);
                check(at < 0, "staging " + staging + ": bytes differ from DataOutputStream's at " + at + " of " + want.length);
                expect(java.io.IOException.class, () -> out.writeInt(1));
                expect(java.io.IOException.class, () -> out.writeBytes("closed"));
            }
        }
    }

    /** writeTo a channel (no heap copy) and a stream, on every policy; short writes are looped; the channel view appends. */
    static void writeToChannelsAndStreams() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-write-to");
        byte[] expected = pattern(250_000);
        for (Growth g : Growth.values()) {
            try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(g).withChunkSize(4096))) {
                for (int at = 0; at < expected.length; at += 25) buf.append(expected, at, Math.min(25, expected.length - at));
                java.nio.file.Path file = dir.resolve(g + ".bin");
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.CREATE,
                        java.nio.file.StandardOpenOption.WRITE)) {
                    check(buf.writeTo(ch) == expected.length, g + ": written");
                }
                check(Arrays.equals(java.nio.file.Files.readAllBytes(file), expected), g + ": the file's bytes");
                java.io.ByteArrayOutputStream sink = new java.io.ByteArrayOutputStream();
                java.nio.channels.WritableByteChannel trickle = new java.nio.channels.WritableByteChannel() {
                    public int write(java.nio.ByteBuffer src) {
                        int n = Math.min(7, src.remaining());
                        for (int i = 0; i < n; i++) sink.write(src.get());
                        return n;
                    }
                    public boolean isOpen() { return true; }
                    public void close() {}
                };
                check(buf.writeTo(trickle) == expected.length && Arrays.equals(sink.toByteArray(), expected), g + ": short writes looped");
                java.io.ByteArrayOutputStream stream = new java.io.ByteArrayOutputStream();
                check(buf.writeTo(stream) == expected.length && Arrays.equals(stream.toByteArray(), expected), g + ": to a stream");
            }
        }
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            java.nio.channels.WritableByteChannel ch = buf.channel();
            check(ch.write(java.nio.ByteBuffer.wrap(pattern(1000))) == 1000, "heap source");
            java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(500).put(pattern(500)).flip();
            check(ch.write(direct) == 500 && !direct.hasRemaining(), "direct source");
            byte[] both = new byte[1500];
            System.arraycopy(pattern(1000), 0, both, 0, 1000);
            System.arraycopy(pattern(500), 0, both, 1000, 500);
            check(Arrays.equals(buf.toByteArray(), both), "the channel's bytes");
            ch.close();
            check(!ch.isOpen() && !buf.isClosed(), "closing the channel leaves the buffer open");
            expect(java.nio.channels.ClosedChannelException.class, () -> ch.write(java.nio.ByteBuffer.allocate(1)));
        }
        GrowableBuffer closed = bufkit.newBuffer(BufferConfig.defaults());
        closed.close();
        expect(IllegalStateException.class, () -> closed.writeTo(new java.io.ByteArrayOutputStream()));
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static void linearCounters() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.LINEAR).withStep(100))) {
            for (int i = 0; i < 5; i++) buf.append(new byte[60]);
            check(buf.stats().equals(new BufferStats(300, 300, 3, 2, 240)), "stats " + buf.stats());
        }
    }

    static void segmentedCounters() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.SEGMENTED).withChunkSize(64))) {
            buf.append(pattern(200));
            check(buf.stats().equals(new BufferStats(200, 256, 4, 0, 0)), "stats " + buf.stats());
            buf.flatten();
            check(buf.stats().bytesCopied() == 200, "flatten copies once");
            check(Arrays.equals(buf.toByteArray(), pattern(200)), "bytes");
        }
    }

    static void capacityLimit() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withMaxCapacity(256))) {
            buf.append(pattern(200));
            expectStatus(Status.CAPACITY_EXCEEDED, () -> buf.append(new byte[100]));
            check(Arrays.equals(buf.toByteArray(), pattern(200)), "data kept");
        }
    }

    static void invalidConfigs() {
        expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newBuffer(BufferConfig.defaults().withFactor(0.5)));
        expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.SEGMENTED).withChunkSize(8)));
        expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.LINEAR).withStep(0)));
        expectStatus(Status.CAPACITY_EXCEEDED, () -> bufkit.newBuffer(BufferConfig.defaults().withMaxCapacity(10).withInitialCapacity(11)));
        expect(IllegalArgumentException.class, () -> BufferConfig.defaults().withMaxCapacity(-1));
        expect(NullPointerException.class, () -> BufferConfig.defaults().withGrowth(null));
    }

    static void badArguments() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            expect(NullPointerException.class, () -> buf.append((byte[]) null));
            expect(NullPointerException.class, () -> buf.append((ByteBuffer) null));
            expect(IndexOutOfBoundsException.class, () -> buf.append(new byte[4], 2, 3));
            expect(IndexOutOfBoundsException.class, () -> buf.append(new byte[4], -1, 1));
            expect(IllegalArgumentException.class, () -> buf.reserve(-1));
            buf.append(new byte[0]);
            check(buf.length() == 0, "empty append");
        }
    }

    static void impossibleSizes() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            buf.append("kept".getBytes());
            expectStatus(Status.ALLOC_FAILED, () -> buf.reserve(1L << 47));
            // Past PTRDIFF_MAX is a length overflow whatever the buffer's limit (issue 29).
            expectStatus(Status.LENGTH_OVERFLOW, () -> buf.reserve(Long.MAX_VALUE));
            check(Arrays.equals(buf.toByteArray(), "kept".getBytes()), "data kept");
        }
    }

    static void useAfterClose() {
        GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults());
        buf.append(new byte[10]);
        buf.close();
        buf.close(); // twice is fine
        check(buf.isClosed(), "closed");
        expect(IllegalStateException.class, () -> buf.append(new byte[1]));
        expect(IllegalStateException.class, buf::toByteArray);
        expect(IllegalStateException.class, buf::stats);
        expect(IllegalStateException.class, buf::flatten);
        expect(IllegalStateException.class, buf::clear);
        expect(IllegalStateException.class, () -> buf.reserve(1));
    }

    static void byteBuffers() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            ByteBuffer direct = ByteBuffer.allocateDirect(64);
            direct.put(pattern(64)).flip().position(10);
            buf.append(direct);
            check(direct.remaining() == 0, "direct buffer consumed");
            ByteBuffer heap = ByteBuffer.wrap(pattern(64), 5, 20).slice();
            buf.append(heap);
            buf.append(ByteBuffer.wrap(pattern(8)).asReadOnlyBuffer());
            byte[] want = new byte[54 + 20 + 8];
            System.arraycopy(pattern(64), 10, want, 0, 54);
            System.arraycopy(pattern(64), 5, want, 54, 20);
            System.arraycopy(pattern(8), 0, want, 74, 8);
            check(Arrays.equals(buf.toByteArray(), want), "bytes");
        }
    }

    static void panicBoundary() {
        check(bufkit.testPanic() == Status.PANIC, "panic status");
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            buf.append("still works".getBytes());
            check(buf.length() == 11, "works after a panic");
        }
    }

    static void concurrentAppends() throws Exception {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.SEGMENTED).withChunkSize(1024))) {
            Thread[] threads = new Thread[8];
            for (int t = 0; t < threads.length; t++) {
                threads[t] = new Thread(() -> {
                    for (int i = 0; i < 5000; i++) buf.append(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
                });
                threads[t].start();
            }
            for (Thread t : threads) t.join();
            check(buf.length() == 8 * 5000 * 10, "length " + buf.length());
        }
    }

    static void closeWhileInUse() throws Exception {
        byte[] big = new byte[64 << 20];
        for (int round = 0; round < 5; round++) {
            GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.LINEAR).withStep(1 << 20));
            CountDownLatch started = new CountDownLatch(1);
            AtomicReference<Throwable> appendFailure = new AtomicReference<>();
            Thread appender = new Thread(() -> {
                started.countDown();
                try {
                    for (int i = 0; i < 4; i++) buf.append(big);
                } catch (Throwable e) {
                    appendFailure.set(e);
                }
            });
            appender.start();
            started.await();
            buf.close(); // must wait for an append in progress, never free under it
            appender.join();
            Throwable e = appendFailure.get();
            check(e == null || e instanceof IllegalStateException, "append after close must be refused cleanly: " + e);
            check(buf.isClosed(), "closed");
        }
    }

    static void poolLeases() {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults())) {
            try (Lease lease = pool.acquire(1000)) {
                check(lease.length() == 4096, "length " + lease.length());
                ByteBuffer buf = lease.buffer();
                check(buf.isDirect() && buf.capacity() == 4096, "direct buffer over the lease");
                buf.put("dirty".getBytes());
            }
            try (Lease again = pool.acquire(4096)) {
                byte[] head = new byte[5];
                ByteBuffer buf = again.buffer();
                check(buf.position() == 0 && buf.limit() == 4096, "a reused block's buffer starts whole: " + buf);
                buf.get(head);
                check(Arrays.equals(head, "dirty".getBytes()), "the warm buffer came back as it was left");
            }
            PoolStats s = pool.stats();
            check(s.hits() == 1 && s.misses() == 1 && s.returns() == 2 && s.outstandingLeases() == 0, "stats " + s);
            // Blocks freed and mapped again, of every class in turn: each lease's buffer has its length.
            for (int round = 0; round < 3; round++) {
                for (long size = 4096; size <= 1 << 20; size *= 4) {
                    try (Lease l = pool.acquire(size)) {
                        check(l.buffer().capacity() == l.length() && l.length() == size, "capacity " + l.buffer().capacity() + " for " + size);
                        l.buffer().put(0, (byte) 1).put((int) size - 1, (byte) 2);
                    }
                }
                pool.trim();
            }
        }
    }

    static void poolZeroes() {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults().withZeroOnAcquire(true))) {
            try (Lease lease = pool.acquire(64)) {
                ByteBuffer b = lease.buffer();
                while (b.hasRemaining()) b.put((byte) 0x5a);
            }
            try (Lease lease = pool.acquire(64)) {
                ByteBuffer b = lease.buffer();
                while (b.hasRemaining()) check(b.get() == 0, "zeroed");
            }
        }
    }

    static void poolCapAndTrim() {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults().withMaxRetainedBytes(8192))) {
            Lease[] leases = new Lease[4];
            for (int i = 0; i < 4; i++) leases[i] = pool.acquire(4096);
            for (Lease l : leases) l.close();
            PoolStats s = pool.stats();
            check(s.returns() == 2 && s.dropsOverCap() == 2 && s.retainedBytes() == 8192, "stats " + s);
            pool.trim();
            check(pool.stats().retainedBytes() == 0, "trimmed");
            expect(IllegalArgumentException.class, () -> pool.acquire(0));
            expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newPool(PoolConfig.defaults().withMinClassSize(1000)));
            expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newPool(PoolConfig.defaults().withThreadCacheBuffers(17)));
        }
    }

    static void poolCloseWithLeases() {
        BufferPool pool = bufkit.newPool(PoolConfig.defaults());
        Lease lease = pool.acquire(100);
        expectStatus(Status.LEASES_OUTSTANDING, pool::close);
        lease.buffer().put(0, (byte) 1); // still valid: nothing was freed
        lease.close();
        lease.close(); // twice is fine
        pool.close();
        pool.close();
    }

    static void poolUseAfterClose() {
        BufferPool pool = bufkit.newPool(PoolConfig.defaults());
        Lease lease = pool.acquire(100);
        lease.close();
        expect(IllegalStateException.class, lease::buffer);
        pool.close();
        expect(IllegalStateException.class, () -> pool.acquire(10));
        expect(IllegalStateException.class, pool::stats);
    }

    static void poolThreads() throws Exception {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults().withMaxRetainedBytes(256 << 10))) {
            Thread[] threads = new Thread[4];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threads.length; t++) {
                final int seed = t;
                threads[t] = new Thread(() -> {
                    try {
                        for (int i = 0; i < 2000; i++) {
                            try (Lease lease = pool.acquire(4096L << ((seed + i) % 5))) {
                                lease.buffer().put(0, (byte) i);
                            }
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                threads[t].start();
            }
            for (Thread t : threads) t.join();
            check(failure.get() == null, "worker failed: " + failure.get());
            PoolStats s = pool.stats();
            check(s.outstandingLeases() == 0 && s.retainedBytes() <= (256 << 10) && s.hits() + s.misses() == 8000, "stats " + s);
        }
    }

    /** The pool takes no lock: close waits for calls in progress, refuses while a lease is open,
     *  and after it succeeds every call is refused, never a use of freed memory. */
    static void poolCloseRacesCalls() throws Exception {
        for (int round = 0; round < 20; round++) {
            BufferPool pool = bufkit.newPool(PoolConfig.defaults());
            Thread[] threads = new Thread[3];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
            for (int t = 0; t < threads.length; t++) {
                threads[t] = new Thread(() -> {
                    try {
                        while (true) {
                            try (Lease lease = pool.acquire(4096)) {
                                lease.buffer().put(0, (byte) 1);
                            }
                        }
                    } catch (IllegalStateException closed) {
                        refused.incrementAndGet();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                threads[t].start();
            }
            Thread.sleep(2);
            boolean done = false;
            while (!done) {
                try {
                    pool.close();
                    done = true;
                } catch (BufkitException e) {
                    check(e.status() == Status.LEASES_OUTSTANDING, "close failed with " + e);
                    Thread.onSpinWait();
                }
            }
            for (Thread t : threads) t.join();
            check(failure.get() == null, "worker failed: " + failure.get());
            check(refused.get() == threads.length, "every worker was refused once the pool closed: " + refused.get());
            try {
                pool.acquire(4096);
                throw new AssertionError("acquire on a closed pool");
            } catch (IllegalStateException expected) {
                // closed
            }
        }
    }

    static void poolLeaseCleaner() throws Exception {
        BufferPool pool = bufkit.newPool(PoolConfig.defaults());
        for (int i = 0; i < 50; i++) pool.acquire(4096); // dropped without close
        for (int i = 0; i < 100 && pool.stats().outstandingLeases() > 0; i++) {
            System.gc();
            Thread.sleep(20);
        }
        check(pool.stats().outstandingLeases() == 0, "cleaner gave leases back: " + pool.stats());
        pool.close();
    }

    static byte[] deflate(byte[] data, boolean raw) {
        java.util.zip.Deflater d = new java.util.zip.Deflater(6, raw);
        d.setInput(data);
        d.finish();
        byte[] buf = new byte[data.length + 64];
        int n = d.deflate(buf);
        d.end();
        return Arrays.copyOf(buf, n);
    }

    /** A stream fed in strides: exact bytes used, the total once ended, nothing taken after it;
     *  truncation, a wrong size and a flipped byte have their statuses; reset reuses it. */
    static void inflateStream() {
        byte[] data = pattern(100_000);
        byte[] stream = deflate(data, false);
        byte[] input = concat(stream, "NEXT OBJECT".getBytes());
        for (int stride : new int[] {1, 7, 4096, 1 << 20}) {
            byte[] out = new byte[data.length];
            try (dev.bufkit.InflateStream s = bufkit.newInflateStream(dev.bufkit.OffsetInflater.Format.ZLIB, 0, out)) {
                int at = 0;
                while (!s.isFinished() && at < input.length) {
                    int n = Math.min(stride, input.length - at);
                    int used = s.feed(input, at, n);
                    check(used == n || s.isFinished(), "all used unless the stream ended: " + used + " of " + n);
                    at += used;
                }
                check(s.isFinished() && s.consumed() == stream.length && at == stream.length, "stride " + stride + ": consumed " + s.consumed());
                check(Arrays.equals(out, data) && s.output() == out, "stride " + stride + ": the bytes");
                check(s.feed(input, at, input.length - at) == 0, "nothing belongs to an ended stream");
                s.finish(); // ended: nothing to say
            }
        }
        try (dev.bufkit.InflateStream s = bufkit.newInflateStream(dev.bufkit.OffsetInflater.Format.ZLIB, 1000, new byte[data.length])) {
            s.feed(stream, 0, stream.length / 2);
            BufkitException truncated = expect(BufkitException.class, s::finish);
            check(truncated.status() == Status.TRUNCATED, "truncated: " + truncated.status());
            s.reset(0, new byte[data.length - 1]); // one byte short
            BufkitException size = expect(BufkitException.class, () -> s.feed(stream));
            check(size.status() == Status.SIZE_MISMATCH, "size: " + size.status());
            byte[] flipped = stream.clone();
            flipped[flipped.length - 2] ^= 1; // inside the Adler-32
            s.reset(0, new byte[data.length]);
            BufkitException sum = expect(BufkitException.class, () -> s.feed(flipped));
            check(sum.status() == Status.CHECKSUM, "checksum: " + sum.status());
            byte[] again = new byte[data.length];
            s.reset(0, again);
            check(s.feed(stream) == stream.length && s.isFinished() && Arrays.equals(again, data), "reset, then a whole stream");
            expect(IndexOutOfBoundsException.class, () -> s.feed(stream, 5, stream.length));
            expect(IllegalArgumentException.class, () -> s.reset(-1, again));
        }
        byte[] raw = deflate(data, true);
        try (dev.bufkit.InflateStream s = bufkit.newInflateStream(dev.bufkit.OffsetInflater.Format.RAW, 0, new byte[data.length])) {
            check(s.feed(concat(raw, new byte[9])) == raw.length && s.consumed() == raw.length, "raw deflate");
        }
        dev.bufkit.InflateStream closed = bufkit.newInflateStream(dev.bufkit.OffsetInflater.Format.ZLIB, 0, new byte[1]);
        closed.close();
        expect(IllegalStateException.class, () -> closed.feed(new byte[1]));
    }

    static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) o.writeBytes(p);
        return o.toByteArray();
    }

    static void inflateChained() {
        byte[][] objects = {"hello".getBytes(), pattern(5000), new byte[0], pattern(70_000)};
        byte[][] streams = new byte[objects.length][];
        for (int i = 0; i < objects.length; i++) streams[i] = deflate(objects[i], false);
        byte[] input = concat(concat(streams), "JUNK AFTER".getBytes());
        try (OffsetInflater inf = bufkit.newInflater(OffsetInflater.Format.ZLIB)) {
            long at = 0;
            for (int i = 0; i < objects.length; i++) {
                byte[] out = new byte[objects[i].length];
                long consumed = inf.inflateAt(input, at, out, 0, out.length);
                check(consumed == streams[i].length, "stream " + i + " consumed " + consumed);
                check(Arrays.equals(out, objects[i]), "stream " + i + " bytes");
                at += consumed;
            }
        }
        try (OffsetInflater raw = bufkit.newInflater(OffsetInflater.Format.RAW)) {
            byte[] out = new byte[5];
            check(raw.inflateAt(deflate("hello".getBytes(), true), 0, out, 0, 5) > 0 && Arrays.equals(out, "hello".getBytes()), "raw");
        }
    }

    static void inflateFailures() {
        byte[] data = pattern(3000);
        byte[] s = deflate(data, false);
        try (OffsetInflater inf = bufkit.newInflater(OffsetInflater.Format.ZLIB)) {
            byte[] out = new byte[3000];
            expectStatus(Status.TRUNCATED, () -> inf.inflateAt(Arrays.copyOf(s, s.length - 3), 0, out, 0, 3000));
            byte[] bad = s.clone();
            bad[bad.length - 1] ^= 1;
            Arrays.fill(out, (byte) 7);
            expectStatus(Status.CHECKSUM, () -> inf.inflateAt(bad, 0, out, 0, 3000));
            for (byte b : out) check(b == 0, "nothing handed out before the checksum verifies");
            expectStatus(Status.SIZE_MISMATCH, () -> inf.inflateAt(s, 0, out, 0, 2999));
            expectStatus(Status.OUT_OF_RANGE, () -> inf.inflateAt(s, s.length + 1, out, 0, 1));
            byte[] corrupt = s.clone();
            corrupt[0] = 0x79;
            expectStatus(Status.CORRUPT, () -> inf.inflateAt(corrupt, 0, out, 0, 3000));
            expect(IndexOutOfBoundsException.class, () -> inf.inflateAt(s, 0, out, 1, 3000));
            expect(IllegalArgumentException.class, () -> inf.inflateAt(s, -1, out, 0, 3000));
            check(inf.inflateAt(s, 0, out, 0, 3000) == s.length && Arrays.equals(out, data), "still works");
        }
        OffsetInflater closed = bufkit.newInflater(OffsetInflater.Format.ZLIB);
        closed.close();
        expect(IllegalStateException.class, () -> closed.inflateAt(s, 0, new byte[3000], 0, 3000));
    }

    static void inflateDirect() {
        byte[] data = pattern(10_000);
        byte[] s = concat(deflate(data, false), "next".getBytes());
        ByteBuffer in = ByteBuffer.allocateDirect(s.length).put(s).flip();
        ByteBuffer out = ByteBuffer.allocateDirect(10_000);
        try (OffsetInflater inf = bufkit.newInflater(OffsetInflater.Format.ZLIB)) {
            long consumed = inf.inflateAt(in, 0, out);
            check(consumed == s.length - 4, "consumed " + consumed);
            byte[] back = new byte[10_000];
            out.get(back);
            check(Arrays.equals(back, data), "bytes");
            expect(IllegalArgumentException.class, () -> inf.inflateAt(ByteBuffer.wrap(s), 0, out));
        }
    }

    static void inflateBatch() {
        byte[] a = deflate("first".getBytes(), false), b = deflate("second!".getBytes(), false);
        byte[] input = concat(a, b);
        try (OffsetInflater inf = bufkit.newInflater(OffsetInflater.Format.ZLIB)) {
            long[] consumed = new long[3];
            int[] status = new int[3];
            byte[] out = new byte[13];
            int ok = inf.inflateBatch(input, new long[] {0, a.length, 999}, new int[] {5, 7, 1}, out, consumed, status);
            check(ok == 2, "ok " + ok);
            check(new String(out, 0, 12).equals("firstsecond!"), "bytes");
            check(consumed[0] == a.length && consumed[1] == b.length && status[0] == 0 && status[1] == 0, "results");
            check(status[2] == Status.OUT_OF_RANGE.code, "status " + status[2]);
            expect(IllegalArgumentException.class, () -> inf.inflateBatch(input, new long[] {0}, new int[] {5}, new byte[4], new long[1], new int[1]));
        }
    }

    /** InflateBatch: results per stream, reuse after clear, a corrupt stream beside good ones, misuse refused. */
    static void inflateBatchObject() {
        byte[] a = deflate("first".getBytes(), false), b = deflate(pattern(20_000), false), c = deflate("third".getBytes(), false);
        byte[] bad = c.clone();
        bad[bad.length - 1] ^= 1; // the Adler-32 trailer
        byte[] input = concat(concat(a, b), concat(c, bad));
        try (OffsetInflater inf = bufkit.newInflater(OffsetInflater.Format.ZLIB)) {
            InflateBatch batch = new InflateBatch(2); // grows past its first capacity
            check(batch.add(0, 5) == 0 && batch.add(a.length, 20_000) == 1, "indexes");
            batch.add(a.length + b.length, 5);
            batch.add(a.length + b.length + c.length, 5);
            batch.add(input.length + 10, 3);
            expect(IllegalStateException.class, () -> batch.status(0));
            byte[] out = new byte[Math.toIntExact(batch.totalSize())];
            check(inf.inflate(input, batch, out) == 3, "three good streams");
            check(batch.status(0) == Status.OK && batch.consumed(0) == a.length, "first");
            check(batch.status(1) == Status.OK && batch.consumed(1) == b.length, "second");
            check(Arrays.equals(Arrays.copyOfRange(out, batch.outputOffset(1), batch.outputOffset(1) + batch.outputLength(1)), pattern(20_000)), "second's bytes");
            check(new String(out, batch.outputOffset(2), 5).equals("third"), "third's bytes");
            check(batch.status(3) == Status.CHECKSUM, "a bad trailer: " + batch.status(3));
            check(batch.status(4) == Status.OUT_OF_RANGE, "past the input: " + batch.status(4));
            for (int i = batch.outputOffset(3); i < batch.outputOffset(3) + 5; i++) check(out[i] == 0, "a failed stream's range is zeroed");
            expect(IndexOutOfBoundsException.class, () -> batch.status(5));
            // Reused: cleared, refilled, inflated again into a smaller array.
            batch.clear();
            batch.add(a.length + b.length, 5);
            check(batch.size() == 1 && batch.totalSize() == 5 && batch.outputOffset(0) == 0, "cleared");
            expect(IllegalStateException.class, () -> batch.consumed(0));
            byte[] small = new byte[5];
            check(inf.inflate(input, batch, small) == 1 && new String(small).equals("third"), "reused");
            expect(IllegalArgumentException.class, () -> inf.inflate(input, batch, new byte[4]));
            expect(IllegalArgumentException.class, () -> batch.add(-1, 5));
            expect(IllegalArgumentException.class, () -> batch.add(0, -5));
            expect(NullPointerException.class, () -> inf.inflate(null, batch, small));
        }
    }

    static java.nio.file.Path zip(java.nio.file.Path dir, String name, String[] names, byte[][] contents) throws Exception {
        java.nio.file.Path p = dir.resolve(name);
        try (java.util.zip.ZipOutputStream z = new java.util.zip.ZipOutputStream(java.nio.file.Files.newOutputStream(p))) {
            for (int i = 0; i < names.length; i++) {
                z.putNextEntry(new java.util.zip.ZipEntry(names[i]));
                z.write(contents[i]);
                z.closeEntry();
            }
        }
        return p;
    }

    /** An archive read in place: found by name, read whole, from threads at once, read and mapped; bad input refused. */
    static void archiveInPlace() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-archive");
        java.nio.file.Path apk = zip(dir, "app.apk", new String[] {"assets/app.js", "assets/ünïcode.txt", "readme.txt"},
                new byte[][] {pattern(300_000), "ü".getBytes(java.nio.charset.StandardCharsets.UTF_8), "hi".getBytes()});
        for (boolean mapped : new boolean[] {false, true}) {
            dev.bufkit.AssetArchive a = bufkit.openArchive(apk, mapped);
            try {
                check(a.size() == 3, "entries " + a.size());
                int js = a.find("assets/app.js").orElseThrow();
                check(Arrays.equals(a.read(js), pattern(300_000)), "the inflated bytes");
                check(a.entrySize(js) == 300_000 && !a.isDirectory(js), "info");
                int u = a.find("assets/ünïcode.txt").orElseThrow();
                check(a.name(u).equals("assets/ünïcode.txt"), "a UTF-8 name: " + a.name(u));
                check(a.find("missing").isEmpty(), "not found is empty");
                expect(BufkitException.class, () -> a.name(3));
                Thread[] threads = new Thread[4];
                java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
                for (int t = 0; t < threads.length; t++) {
                    threads[t] = new Thread(() -> {
                        try {
                            for (int i = 0; i < 200; i++) {
                                if (!Arrays.equals(a.read(a.find("readme.txt").orElseThrow()), "hi".getBytes())) throw new AssertionError("bytes");
                            }
                        } catch (Throwable e) {
                            failure.set(e);
                        }
                    });
                    threads[t].start();
                }
                for (Thread t : threads) t.join();
                check(failure.get() == null, "reader failed: " + failure.get());
            } finally {
                a.close();
            }
            expect(IllegalStateException.class, () -> a.read(0));
            a.close(); // twice: nothing
        }
        java.nio.file.Path evil = zip(dir, "evil.zip", new String[] {"../evil"}, new byte[][] {"x".getBytes()});
        BufkitException refused = expect(BufkitException.class, () -> bufkit.openArchive(evil, false));
        check(refused.status() == Status.UNSAFE_NAME, "hostile: " + refused.status());
        BufkitException missing = expect(BufkitException.class, () -> bufkit.openArchive(dir.resolve("none.apk"), false));
        check(missing.status() == Status.IO_ERROR, "missing: " + missing.status());
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Issue 26: verify, like unzip -t: OK on a good archive; a damaged first entry named by index and status. */
    static void archiveVerify() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-verify");
        java.nio.file.Path apk = zip(dir, "app.apk", new String[] {"assets/app.js", "readme.txt"},
                new byte[][] {pattern(300_000), "hi".getBytes()});
        for (boolean mapped : new boolean[] {false, true}) {
            try (dev.bufkit.AssetArchive a = bufkit.openArchive(apk, mapped)) {
                for (int threads : new int[] {0, 1, 2}) {
                    dev.bufkit.AssetArchive.Verification v = a.verify(threads);
                    check(v.ok() && v.failed() == 0 && v.firstFailed() == -1 && v.firstStatus() == Status.OK, "good: " + v);
                }
                expect(IllegalArgumentException.class, () -> a.verify(-1));
            }
        }
        byte[] bytes = java.nio.file.Files.readAllBytes(apk);
        bytes[30 + "assets/app.js".length() + 100] ^= 0x55; // inside the first entry's deflated data
        java.nio.file.Path damaged = dir.resolve("damaged.apk");
        java.nio.file.Files.write(damaged, bytes);
        try (dev.bufkit.AssetArchive a = bufkit.openArchive(damaged, false)) {
            dev.bufkit.AssetArchive.Verification v = a.verify(2);
            check(!v.ok() && v.failed() == 1 && v.firstFailed() == 0, "damaged: " + v);
            check(v.firstStatus() != Status.OK && v.firstStatus() != Status.UNKNOWN, "its status: " + v.firstStatus());
        }
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Issue 26: Deflate64, bzip2, LZMA, Zstandard and XZ, from the fixture the Rust and C tests read
     *  too (the same text once per method): read whole, streamed, verified and extracted, all equal. */
    static void everyMethod() throws Exception {
        java.nio.file.Path fixture = java.nio.file.Path.of(System.getProperty("bufkit.methodsZip"));
        String[] names = {"deflate64.txt", "bzip2.txt", "lzma.txt", "zstd.txt", "xz.txt"};
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-methods");
        check(bufkit.extract(fixture, dir.resolve("out"), ExtractOptions.defaults()).files() == names.length, "extracted");
        byte[] first = null;
        for (boolean mapped : new boolean[] {false, true}) {
            try (dev.bufkit.AssetArchive a = bufkit.openArchive(fixture, mapped)) {
                for (String name : names) {
                    byte[] whole = a.readAllBytes(name);
                    if (first == null) first = whole;
                    check(whole.length == 19744 && Arrays.equals(whole, first), name + ": read whole");
                    try (java.io.InputStream in = a.open(name)) {
                        check(Arrays.equals(in.readAllBytes(), whole), name + ": streamed");
                    }
                    check(Arrays.equals(java.nio.file.Files.readAllBytes(dir.resolve("out").resolve(name)), whole), name + ": extracted");
                }
                check(a.verify(2).ok(), "verified");
            }
        }
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Reads by name, into heap and direct buffers at their position, and as streams in any stride;
     *  a stream outlives its archive; a wrong CRC surfaces at the stream's end. */
    static void archiveBuffersAndStreams() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-archive-io");
        byte[] js = pattern(300_000);
        java.nio.file.Path apk = zip(dir, "app.apk", new String[] {"assets/app.js", "readme.txt"}, new byte[][] {js, "hi".getBytes()});
        for (boolean mapped : new boolean[] {false, true}) {
            dev.bufkit.AssetArchive a = bufkit.openArchive(apk, mapped);
            java.io.InputStream outliving;
            try {
                check(Arrays.equals(a.readAllBytes("assets/app.js"), js), "readAllBytes");
                BufkitException none = expect(BufkitException.class, () -> a.readAllBytes("missing.js"));
                check(none.status() == Status.NOT_FOUND, "missing: " + none.status());
                for (java.nio.ByteBuffer dst : new java.nio.ByteBuffer[] {
                        java.nio.ByteBuffer.allocate(300_010), java.nio.ByteBuffer.allocateDirect(300_010),
                        java.nio.ByteBuffer.allocate(300_020).position(7).slice()}) {
                    dst.position(5);
                    check(a.read("assets/app.js", dst) == 300_000, "written");
                    check(dst.position() == 300_005, "position advanced: " + dst.position());
                    byte[] back = new byte[300_000];
                    dst.position(5);
                    dst.get(back);
                    check(Arrays.equals(back, js), "bytes in the buffer (direct " + dst.isDirect() + ")");
                    dst.position(dst.capacity() - 100);
                    BufkitException small = expect(BufkitException.class, () -> a.read("assets/app.js", dst));
                    check(small.status() == Status.SIZE_MISMATCH && dst.position() == dst.capacity() - 100, "too small: " + small.status());
                }
                expect(java.nio.ReadOnlyBufferException.class, () -> a.read("readme.txt", java.nio.ByteBuffer.allocate(8).asReadOnlyBuffer()));
                for (int stride : new int[] {1, 7, 4096, 1 << 20}) {
                    if (stride == 1 && mapped) continue; // slow, and the same path
                    try (java.io.InputStream in = a.open("assets/app.js")) {
                        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                        byte[] buf = new byte[stride];
                        for (int n; (n = stride == 1 ? single(in, buf) : in.read(buf)) > 0; ) out.write(buf, 0, n);
                        check(Arrays.equals(out.toByteArray(), js), "streamed in strides of " + stride);
                        check(in.read() == -1, "stays at its end");
                    }
                }
                outliving = a.open("readme.txt");
            } finally {
                a.close();
            }
            check(Arrays.equals(outliving.readAllBytes(), "hi".getBytes()), "a stream outlives its archive");
            outliving.close();
            expect(java.io.IOException.class, () -> outliving.read());
        }
        // The same wrong CRC in both headers: the stream hands out the bytes, then its end throws.
        byte[] zip = java.nio.file.Files.readAllBytes(apk);
        int patched = 0;
        byte[] name = "readme.txt".getBytes();
        for (int at = 46; at + name.length <= zip.length; at++) {
            if (!Arrays.equals(Arrays.copyOfRange(zip, at, at + name.length), name)) continue;
            if (zip[at - 30] == 'P' && zip[at - 29] == 'K' && zip[at - 28] == 3) {
                // ZipOutputStream puts the CRC in a data descriptor after the data (PK 7 8, then the CRC).
                int d = at + name.length;
                while (!(zip[d] == 'P' && zip[d + 1] == 'K' && zip[d + 2] == 7 && zip[d + 3] == 8)) d++;
                zip[d + 4] ^= (byte) 0xff;
                patched++;
            }
            else if (zip[at - 46] == 'P' && zip[at - 45] == 'K' && zip[at - 44] == 1) { zip[at - 46 + 16] ^= (byte) 0xff; patched++; }
        }
        check(patched == 2, "patched " + patched);
        java.nio.file.Path bad = dir.resolve("bad.apk");
        java.nio.file.Files.write(bad, zip);
        // A local name that disagrees with the central one: refused at open by default, or only
        // that entry's reads fail when local headers are checked on first read.
        byte[] misnamed = java.nio.file.Files.readAllBytes(apk);
        for (int at = 30; at + name.length <= misnamed.length; at++) {
            if (Arrays.equals(Arrays.copyOfRange(misnamed, at, at + name.length), name) && misnamed[at - 30] == 'P' && misnamed[at - 28] == 3) {
                misnamed[at] = 'R';
                break;
            }
        }
        java.nio.file.Path local = dir.resolve("local.apk");
        java.nio.file.Files.write(local, misnamed);
        for (boolean mapped : new boolean[] {false, true}) {
            BufkitException atOpen = expect(BufkitException.class, () -> bufkit.openArchive(local, mapped));
            check(atOpen.status() == Status.ARCHIVE_MALFORMED, "refused at open: " + atOpen.status());
            try (dev.bufkit.AssetArchive a = bufkit.openArchive(local, dev.bufkit.ArchiveOptions.defaults().withMapped(mapped).withLocalHeadersOnFirstRead(true))) {
                BufkitException first = expect(BufkitException.class, () -> a.readAllBytes("readme.txt"));
                check(first.status() == Status.ARCHIVE_MALFORMED, "on first read: " + first.status());
                check(Arrays.equals(a.readAllBytes("assets/app.js"), js), "the other entry reads");
            }
        }
        try (dev.bufkit.AssetArchive a = bufkit.openArchive(bad, false); java.io.InputStream in = a.open("readme.txt")) {
            byte[] two = new byte[2];
            check(in.read(two) == 2 && Arrays.equals(two, "hi".getBytes()), "the bytes come out");
            java.io.IOException crc = expect(java.io.IOException.class, () -> in.read(two));
            check(crc.getCause() instanceof BufkitException b && b.status() == Status.CRC_MISMATCH, "CRC at the end: " + crc.getCause());
            BufkitException whole = expect(BufkitException.class, () -> a.readAllBytes("readme.txt"));
            check(whole.status() == Status.CRC_MISMATCH, "a whole read: " + whole.status());
        }
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A stored entry as a read-only view of the mapped file: no view when deflated or not mapped; a
     *  view (or a slice of it) stays valid after close and garbage collection; a bad CRC is refused. */
    static void archiveViews() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-archive-views");
        byte[] icon = pattern(70_000);
        java.nio.file.Path apk = dir.resolve("app.apk");
        try (java.util.zip.ZipOutputStream z = new java.util.zip.ZipOutputStream(java.nio.file.Files.newOutputStream(apk))) {
            java.util.zip.ZipEntry stored = new java.util.zip.ZipEntry("res/icon.png");
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(icon);
            stored.setMethod(java.util.zip.ZipEntry.STORED);
            stored.setSize(icon.length);
            stored.setCompressedSize(icon.length);
            stored.setCrc(crc.getValue());
            z.putNextEntry(stored);
            z.write(icon);
            z.closeEntry();
            z.putNextEntry(new java.util.zip.ZipEntry("assets/app.js"));
            z.write(pattern(1000));
            z.closeEntry();
        }
        try (dev.bufkit.AssetArchive read = bufkit.openArchive(apk, false)) {
            check(read.view("res/icon.png").isEmpty(), "no views when read with pread");
        }
        dev.bufkit.AssetArchive a = bufkit.openArchive(apk, true);
        java.nio.ByteBuffer slice;
        try {
            java.nio.ByteBuffer view = a.view("res/icon.png").orElseThrow();
            check(view.isReadOnly() && view.isDirect() && view.remaining() == icon.length, "a read-only direct view of the whole entry");
            byte[] back = new byte[icon.length];
            view.duplicate().get(back);
            check(Arrays.equals(back, icon), "the view's bytes");
            expect(java.nio.ReadOnlyBufferException.class, () -> view.put(0, (byte) 1));
            check(a.view("assets/app.js").isEmpty(), "no view of a deflated entry");
            BufkitException range = expect(BufkitException.class, () -> a.view(99));
            check(range.status() == Status.OUT_OF_RANGE, "out of range: " + range.status());
            slice = view.slice(60_000, 10_000); // only the slice is kept
        } finally {
            a.close();
        }
        expect(IllegalStateException.class, () -> a.view(0));
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(20);
        }
        byte[] tail = new byte[10_000];
        slice.get(tail);
        check(Arrays.equals(tail, Arrays.copyOfRange(icon, 60_000, 70_000)), "a slice of a view outlives close and collection");
        // A wrong CRC in both headers of the stored entry: its view is refused.
        byte[] zip = java.nio.file.Files.readAllBytes(apk);
        byte[] name = "res/icon.png".getBytes();
        int patched = 0;
        for (int at = 30; at + name.length <= zip.length; at++) {
            if (!Arrays.equals(Arrays.copyOfRange(zip, at, at + name.length), name)) continue;
            if (zip[at - 30] == 'P' && zip[at - 28] == 3) { zip[at - 30 + 14] ^= (byte) 0xff; patched++; }
            else if (at >= 46 && zip[at - 46] == 'P' && zip[at - 44] == 1) { zip[at - 46 + 16] ^= (byte) 0xff; patched++; }
        }
        check(patched == 2, "patched " + patched);
        java.nio.file.Path bad = dir.resolve("bad.apk");
        java.nio.file.Files.write(bad, zip);
        try (dev.bufkit.AssetArchive b = bufkit.openArchive(bad, true)) {
            BufkitException crc = expect(BufkitException.class, () -> b.view("res/icon.png"));
            check(crc.status() == Status.CRC_MISMATCH, "a bad CRC: " + crc.status());
        }
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static int single(java.io.InputStream in, byte[] buf) throws java.io.IOException {
        int b = in.read();
        if (b < 0) return -1;
        buf[0] = (byte) b;
        return 1;
    }

    /** Issue 27: the JNI front chosen by enum on any JDK (Panama only from 22); the withers for maxRatio and durable reach the extraction. */
    static void frontsAndWithers() throws Exception {
        check(Bufkit.load(Bufkit.Front.JNI).front().equals("jni"), "the JNI front by enum");
        if (Runtime.version().feature() >= 22) {
            check(Bufkit.load(Bufkit.Front.PANAMA).front().equals("panama"), "the Panama front by enum");
        } else {
            expect(IllegalStateException.class, () -> Bufkit.load(Bufkit.Front.PANAMA));
        }
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-withers");
        java.nio.file.Path archive = zip(dir, "r.zip", new String[] {"zeros.bin"}, new byte[][] {new byte[1 << 20]});
        ExtractException limited = expect(ExtractException.class,
                () -> bufkit.extract(archive, dir.resolve("limited"), ExtractOptions.defaults().withMaxRatio(10)));
        check(limited.status() == Status.LIMIT_EXCEEDED, "ratio limit: " + limited.status());
        check(!java.nio.file.Files.exists(dir.resolve("limited")), "nothing left");
        ExtractOptions durable = ExtractOptions.defaults().withDurable(true);
        check(durable.durable() && !ExtractOptions.defaults().durable(), "durable wither");
        check(bufkit.extract(archive, dir.resolve("durable"), durable).files() == 1, "durable extraction");
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Issue 26: the archive's modification time (ZipOutputStream writes an extended timestamp) by default; withNoMtime, now. */
    static void extractMtimes() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-mtime");
        java.nio.file.Path archive = dir.resolve("t.zip");
        long then = 1_600_000_000_000L;
        try (java.util.zip.ZipOutputStream out = new java.util.zip.ZipOutputStream(java.nio.file.Files.newOutputStream(archive))) {
            java.util.zip.ZipEntry e = new java.util.zip.ZipEntry("old.txt");
            e.setLastModifiedTime(java.nio.file.attribute.FileTime.fromMillis(then));
            out.putNextEntry(e);
            out.write("old".getBytes());
            out.closeEntry();
        }
        bufkit.extract(archive, dir.resolve("restored"), ExtractOptions.defaults());
        long restored = java.nio.file.Files.getLastModifiedTime(dir.resolve("restored/old.txt")).toMillis();
        check(Math.abs(restored - then) < 2000, "restored: " + restored);
        bufkit.extract(archive, dir.resolve("now"), ExtractOptions.defaults().withNoMtime(true));
        long now = java.nio.file.Files.getLastModifiedTime(dir.resolve("now/old.txt")).toMillis();
        check(Math.abs(now - System.currentTimeMillis()) < 60_000, "no mtime: " + now);
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static void extractValid() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-extract");
        java.nio.file.Path archive = zip(dir, "a.zip", new String[] {"assets/app.js", "readme.txt"}, new byte[][] {pattern(50_000), "hi".getBytes()});
        java.util.concurrent.atomic.AtomicLong calls = new java.util.concurrent.atomic.AtomicLong();
        ExtractReport r = bufkit.extract(archive, dir.resolve("out"),
                ExtractOptions.defaults().withThreads(2).withProgress((d, t, b, bt) -> calls.incrementAndGet()));
        check(r.files() == 2 && r.directories() == 1 && r.bytes() == 50_002, "report " + r);
        check(calls.get() == 2, "progress calls " + calls.get());
        check(Arrays.equals(java.nio.file.Files.readAllBytes(dir.resolve("out/assets/app.js")), pattern(50_000)), "bytes");
        ExtractException refused = expect(ExtractException.class,
                () -> bufkit.extract(archive, dir.resolve("out"), ExtractOptions.defaults().withOnly(java.util.List.of("*.txt"))));
        check(refused.status() == Status.DESTINATION_REFUSED, "create mode refuses a non-empty destination: " + refused.status());
        check(java.nio.file.Files.exists(dir.resolve("out/assets/app.js")), "untouched");
        ExtractException none = expect(ExtractException.class, () -> bufkit.extract(archive, dir.resolve("out"),
                ExtractOptions.defaults().withMode(ExtractMode.REPLACE).withOnly(java.util.List.of("*.png"))));
        check(none.status() == Status.NOTHING_SELECTED, "nothing selected: " + none.status());
        ExtractReport only = bufkit.extract(archive, dir.resolve("out"),
                ExtractOptions.defaults().withMode(ExtractMode.REPLACE).withOnly(java.util.List.of("*.txt")));
        check(only.files() == 1 && only.skipped() == 1, "only " + only);
        check(!java.nio.file.Files.exists(dir.resolve("out/assets")), "replaced as a whole");
        check(bufkit.extract(archive, dir.resolve("out"), ExtractOptions.defaults().withMode(ExtractMode.MERGE)).files() == 2, "merge");
        ExtractOptions inc = ExtractOptions.defaults().withMode(ExtractMode.REPLACE).withIncremental(true);
        check(bufkit.extract(archive, dir.resolve("inc"), inc).reused() == 0, "first");
        check(bufkit.extract(archive, dir.resolve("inc"), inc).reused() == 2, "second keeps both");
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** With an interval, progress is at most the first report and the last, which nothing follows; calls never overlap. */
    static void extractProgressAtAnInterval() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-progress");
        String[] names = new String[500];
        byte[][] data = new byte[500][];
        for (int i = 0; i < names.length; i++) {
            names[i] = "f" + i + ".txt";
            data[i] = Integer.toString(i).getBytes();
        }
        java.nio.file.Path archive = zip(dir, "many.zip", names, data);
        java.util.List<long[]> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicInteger inside = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean overlapped = new java.util.concurrent.atomic.AtomicBoolean();
        ExtractReport r = bufkit.extract(archive, dir.resolve("out"), ExtractOptions.defaults().withThreads(2).withProgressInterval(3_600_000)
                .withProgress((d, t, b, bt) -> {
                    if (inside.incrementAndGet() > 1) overlapped.set(true);
                    seen.add(new long[] {d, t});
                    inside.decrementAndGet();
                }));
        check(r.files() == 500, "report " + r);
        check(!seen.isEmpty() && seen.size() <= 2, "progress calls " + seen.size());
        check(Arrays.equals(seen.get(seen.size() - 1), new long[] {500, 500}), "the last call is the last report");
        check(!overlapped.get(), "calls overlapped");
        expect(IllegalArgumentException.class, () -> ExtractOptions.defaults().withProgressInterval(-1));
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** Truncating the archive during extraction: a clean error or the archive as it was, never a SIGBUS (the archive used to be mapped). */
    static void extractTruncatedMeanwhile() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-truncate");
        String[] names = new String[16];
        byte[][] contents = new byte[16][];
        for (int i = 0; i < 16; i++) {
            names[i] = "f" + i + ".bin";
            contents[i] = pattern(512 * 1024 + i);
        }
        java.nio.file.Path original = zip(dir, "original.zip", names, contents);
        java.nio.file.Path archive = dir.resolve("a.zip");
        for (int round = 0; round < 10; round++) {
            java.nio.file.Files.copy(original, archive, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            java.nio.file.Path dest = dir.resolve("out" + round);
            final int delayMicros = 100 * round;
            Thread cutter = new Thread(() -> {
                try {
                    Thread.sleep(delayMicros / 1000, (delayMicros % 1000) * 1000);
                    try (var channel = java.nio.channels.FileChannel.open(archive, java.nio.file.StandardOpenOption.WRITE)) {
                        channel.truncate(1000);
                    }
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            cutter.start();
            try {
                ExtractReport r = bufkit.extract(archive, dest, ExtractOptions.defaults().withThreads(2));
                check(r.files() == 16, "whole: " + r);
            } catch (ExtractException e) {
                check(e.status() == Status.IO_ERROR || e.status() == Status.ARCHIVE_MALFORMED, "round " + round + ": " + e.status());
                check(!java.nio.file.Files.exists(dest), "nothing left behind");
            }
            cutter.join();
        }
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static void extractCancelled() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-cancel");
        String[] names = new String[5000];
        byte[][] contents = new byte[5000][];
        for (int i = 0; i < names.length; i++) {
            names[i] = "d" + (i % 50) + "/f" + i + ".txt";
            contents[i] = Integer.toString(i).getBytes();
        }
        java.nio.file.Path archive = zip(dir, "many.zip", names, contents);
        ExtractCancel early = bufkit.newCancel();
        early.cancel();
        check(early.isCancelled(), "flag");
        ExtractException before = expect(ExtractException.class,
                () -> bufkit.extract(archive, dir.resolve("early"), ExtractOptions.defaults().withCancel(early)));
        check(before.status() == Status.CANCELLED, "cancelled before it starts: " + before.status());
        ExtractCancel cancel = bufkit.newCancel();
        Thread canceller = new Thread(() -> {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            cancel.cancel();
        });
        canceller.start();
        long start = System.nanoTime();
        ExtractException during = expect(ExtractException.class,
                () -> bufkit.extract(archive, dir.resolve("out"), ExtractOptions.defaults().withThreads(1).withCancel(cancel)));
        canceller.join();
        check(during.status() == Status.CANCELLED, "cancelled during: " + during.status() + " after " + (System.nanoTime() - start) / 1_000_000 + " ms");
        try (var list = java.nio.file.Files.list(dir)) {
            check(list.count() == 1, "nothing left beside the archive");
        }
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static void extractPrepended() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-jmod");
        java.nio.file.Path zip = zip(dir, "plain.zip", new String[] {"a.txt"}, new byte[][] {"in a jmod".getBytes()});
        java.nio.file.Path jmod = dir.resolve("m.jmod");
        byte[] plain = java.nio.file.Files.readAllBytes(zip);
        byte[] withHeader = new byte[plain.length + 4];
        withHeader[0] = 'J';
        withHeader[1] = 'M';
        withHeader[2] = 1;
        System.arraycopy(plain, 0, withHeader, 4, plain.length);
        java.nio.file.Files.write(jmod, withHeader);
        ExtractReport read = bufkit.extract(jmod, dir.resolve("out"), ExtractOptions.defaults());
        check(read.files() == 1 && read.prepended() == 4 && read.appended() == 0 && read.symlinksSkipped() == 0,
                "a jmod extracts, its 4-byte header reported: " + read);
        check(new String(java.nio.file.Files.readAllBytes(dir.resolve("out/a.txt"))).equals("in a jmod"), "bytes");
        ExtractException strict = expect(ExtractException.class,
                () -> bufkit.extract(jmod, dir.resolve("strict"), ExtractOptions.defaults().withStrict(true)));
        check(strict.status() == Status.ARCHIVE_MALFORMED, "strict refuses: " + strict.status());
        // Issue 27: fold_case reaches Java. Names that differ only in case extract on this
        // case-sensitive file system, and are refused when asked to fold case.
        java.nio.file.Path twins = zip(dir, "twins.zip", new String[] {"Readme.txt", "README.txt"},
                new byte[][] {"one".getBytes(), "two".getBytes()});
        check(bufkit.extract(twins, dir.resolve("twins"), ExtractOptions.defaults()).files() == 2, "case twins extract");
        ExtractException folded = expect(ExtractException.class,
                () -> bufkit.extract(twins, dir.resolve("folded"), ExtractOptions.defaults().withFoldCase(true)));
        check(folded.status() == Status.UNSAFE_NAME && !java.nio.file.Files.exists(dir.resolve("folded")),
                "folding case refuses the twins: " + folded.status());
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static void extractHostile() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("bufkit-java-extract");
        // ZipOutputStream refuses nothing: it writes "../evil.txt" as asked.
        java.nio.file.Path archive = zip(dir, "evil.zip", new String[] {"ok.txt", "../evil.txt"}, new byte[][] {"fine".getBytes(), "escape".getBytes()});
        ExtractException e = expect(ExtractException.class, () -> bufkit.extract(archive, dir.resolve("out"), ExtractOptions.defaults()));
        check(e.status() == Status.UNSAFE_NAME && e.entry().equals("../evil.txt"), e.status() + " " + e.entry() + ": " + e.getMessage());
        try (var list = java.nio.file.Files.list(dir)) {
            check(list.count() == 1, "nothing left beside the archive");
        }
        ExtractException quota = expect(ExtractException.class,
                () -> bufkit.extract(zip(dir, "q.zip", new String[] {"big"}, new byte[][] {new byte[10_000]}), dir.resolve("out"), ExtractOptions.defaults().withQuota(100)));
        check(quota.status() == Status.LIMIT_EXCEEDED && quota.entry().equals("big"), "quota: " + quota.getMessage());
        ExtractException missing = expect(ExtractException.class, () -> bufkit.extract(dir.resolve("none.zip"), dir.resolve("out"), ExtractOptions.defaults()));
        check(missing.status() == Status.IO_ERROR, "missing: " + missing.status());
        check(missing.osError() == 2 && missing.entry().equals(dir.resolve("none.zip").toString()), "errno and path: " + missing.osError() + " " + missing.entry());
        check(missing.getCause() instanceof java.nio.file.NoSuchFileException, "cause: " + missing.getCause());
        try (var walk = java.nio.file.Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static void cleanerFrees() throws Exception {
        for (int i = 0; i < 200; i++) {
            bufkit.newBuffer(BufferConfig.defaults()).append(new byte[100_000]); // dropped without close
        }
        System.gc();
        Thread.sleep(50);
    }

    /** Issue 27: every kind of object (used by the tests before this one) registers with one
     *  Cleaner: one "bufkit-cleaner" thread, and no Cleaner of its own per class ("Cleaner-N"). */
    static void oneCleaner() {
        java.util.List<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
        long ours = names.stream().filter("bufkit-cleaner"::equals).count();
        long others = names.stream().filter(n -> n.matches("Cleaner-\\d+")).count();
        check(ours == 1 && others == 0, "cleaner threads: " + names);
    }
}

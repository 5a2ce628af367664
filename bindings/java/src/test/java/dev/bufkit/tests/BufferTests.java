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
import dev.bufkit.Format;
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

import static dev.bufkit.tests.Support.*;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Growable buffers through the loaded front: growth policies, counters, limits, streams and channels, the panic boundary, threads, the cleaner. Run on the front {@link Support} loads, by JUnit. */
final class BufferTests {
    private BufferTests() {}

    @Test
    @DisplayName("version matches the header")
    void versionMatches() {
        check(bufkit.version().equals(System.getProperty("bufkit.expectedVersion")), "version " + bufkit.version());
        check(bufkit.abiVersion() == Integer.getInteger("bufkit.expectedAbi", -1), "abi " + bufkit.abiVersion());
    }

    @Test
    @DisplayName("every policy keeps the bytes")
    void everyPolicyRoundTrips() {
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
    @Test
    @DisplayName("buffer: an OutputStream view stages writes")
    void outputStreamView() throws Exception {
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
    @Test
    @DisplayName("buffer: the view as a DataOutput writes DataOutputStream's bytes")
    void dataOutputMatchesDataOutputStream() throws Exception {
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
    @Test
    @DisplayName("buffer: writeTo channels and streams")
    void writeToChannelsAndStreams(@TempDir java.nio.file.Path dir) throws Exception {
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
    }

    @Test
    @DisplayName("linear counters match hand-computed values")
    void linearCounters() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.LINEAR).withStep(100))) {
            for (int i = 0; i < 5; i++) buf.append(new byte[60]);
            check(buf.stats().equals(new BufferStats(300, 300, 3, 2, 240)), "stats " + buf.stats());
        }
    }

    @Test
    @DisplayName("segmented copies nothing until flattened")
    void segmentedCounters() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.SEGMENTED).withChunkSize(64))) {
            buf.append(pattern(200));
            check(buf.stats().equals(new BufferStats(200, 256, 4, 0, 0)), "stats " + buf.stats());
            buf.flatten();
            check(buf.stats().bytesCopied() == 200, "flatten copies once");
            check(Arrays.equals(buf.toByteArray(), pattern(200)), "bytes");
        }
    }

    @Test
    @DisplayName("capacity limit refuses and keeps data")
    void capacityLimit() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults().withMaxCapacity(256))) {
            buf.append(pattern(200));
            expectStatus(Status.CAPACITY_EXCEEDED, () -> buf.append(new byte[100]));
            check(Arrays.equals(buf.toByteArray(), pattern(200)), "data kept");
        }
    }

    @Test
    @DisplayName("invalid configs are refused")
    void invalidConfigs() {
        expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newBuffer(BufferConfig.defaults().withFactor(0.5)));
        expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.SEGMENTED).withChunkSize(8)));
        expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newBuffer(BufferConfig.defaults().withGrowth(Growth.LINEAR).withStep(0)));
        expectStatus(Status.CAPACITY_EXCEEDED, () -> bufkit.newBuffer(BufferConfig.defaults().withMaxCapacity(10).withInitialCapacity(11)));
        expect(IllegalArgumentException.class, () -> BufferConfig.defaults().withMaxCapacity(-1));
        expect(NullPointerException.class, () -> BufferConfig.defaults().withGrowth(null));
    }

    @Test
    @DisplayName("bad arguments are exceptions")
    void badArguments() {
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

    @Test
    @DisplayName("impossible sizes are errors")
    void impossibleSizes() {
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            buf.append("kept".getBytes());
            expectStatus(Status.ALLOC_FAILED, () -> buf.reserve(1L << 47));
            // Past PTRDIFF_MAX is a length overflow whatever the buffer's limit (issue 29).
            expectStatus(Status.LENGTH_OVERFLOW, () -> buf.reserve(Long.MAX_VALUE));
            check(Arrays.equals(buf.toByteArray(), "kept".getBytes()), "data kept");
        }
    }

    @Test
    @DisplayName("closed buffers refuse every call")
    void useAfterClose() {
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

    @Test
    @DisplayName("byte buffers, heap and direct")
    void byteBuffers() {
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

    @Test
    @DisplayName("a Rust panic comes back as a status")
    void panicBoundary() {
        check(bufkit.testPanic() == Status.PANIC, "panic status");
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            buf.append("still works".getBytes());
            check(buf.length() == 11, "works after a panic");
        }
    }

    @Test
    @DisplayName("concurrent appends are serialised")
    void concurrentAppends() throws Exception {
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

    @Test
    @DisplayName("close waits for a call in progress")
    void closeWhileInUse() throws Exception {
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

    @Test
    @DisplayName("unclosed buffers are freed by the cleaner")
    void cleanerFrees() throws Exception {
        for (int i = 0; i < 200; i++) {
            bufkit.newBuffer(BufferConfig.defaults()).append(new byte[100_000]); // dropped without close
        }
        System.gc();
        Thread.sleep(50);
    }

    /** Issue 27: every kind of object registers with one Cleaner: one "bufkit-cleaner" thread,
     *  and no Cleaner of its own per class ("Cleaner-N"). Makes one of each kind, then looks. */
    @Test
    @DisplayName("one cleaner thread for every kind of object")
    void oneCleaner(@TempDir java.nio.file.Path dir) throws Exception {
        ExtractCancel cancel = bufkit.newCancel();
        cancel.cancel();
        try (GrowableBuffer b = bufkit.newBuffer(BufferConfig.defaults());
                BufferPool p = bufkit.newPool(PoolConfig.defaults());
                Lease l = p.acquire(100);
                OffsetInflater i = bufkit.newInflater(Format.ZLIB);
                dev.bufkit.InflateStream s = bufkit.newInflateStream(Format.ZLIB, 0, new byte[1]);
                dev.bufkit.AssetArchive a = bufkit.openArchive(zip(dir, "one.zip", new String[] {"a"}, new byte[][] {{1}}), false)) {
            check(java.util.stream.Stream.of(b, p, l, i, s, a).allMatch(java.util.Objects::nonNull), "one of each kind");
            java.util.List<String> names = Thread.getAllStackTraces().keySet().stream().map(Thread::getName).toList();
            long ours = names.stream().filter("bufkit-cleaner"::equals).count();
            long others = names.stream().filter(n -> n.matches("Cleaner-\\d+")).count();
            check(ours == 1 && others == 0, "cleaner threads: " + names);
        } finally {
            try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(dir)) {
                for (java.nio.file.Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) java.nio.file.Files.delete(f);
            }
        }
    }
}

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
 * The same behavioural cases against whichever front is named: {@code java Harness jni|panama}.
 * A tiny runner: prints each test, then "N passed, N failed"; exits 1 on any failure or if none ran.
 * The cases live one file per object (BufferTests, PoolTests, InflateTests, ArchiveTests,
 * ExtractTests); the helpers they share are here.
 */
public final class Harness {
    private Harness() {}

    public interface Test {
        void run() throws Exception;
    }

    static Bufkit bufkit;

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
        tests.add(new Object[] {"pool leases are direct, warm and dirty", (Test) PoolTests::poolLeases});
        tests.add(new Object[] {"pool zeroes when asked", (Test) PoolTests::poolZeroes});
        tests.add(new Object[] {"pool cap and trim", (Test) PoolTests::poolCapAndTrim});
        tests.add(new Object[] {"pool refuses to close with open leases", (Test) PoolTests::poolCloseWithLeases});
        tests.add(new Object[] {"closed leases and pools refuse use", (Test) PoolTests::poolUseAfterClose});
        tests.add(new Object[] {"pool shared by threads", (Test) PoolTests::poolThreads});
        tests.add(new Object[] {"pool close races acquires and releases", (Test) PoolTests::poolCloseRacesCalls});
        tests.add(new Object[] {"unclosed leases are given back by the cleaner", (Test) PoolTests::poolLeaseCleaner});
        tests.add(new Object[] {"inflate: chained streams, exact consumed", (Test) InflateTests::inflateChained});
        tests.add(new Object[] {"inflate: every failure has its status", (Test) InflateTests::inflateFailures});
        tests.add(new Object[] {"inflate: direct buffers", (Test) InflateTests::inflateDirect});
        tests.add(new Object[] {"inflate: batch", (Test) InflateTests::inflateBatch});
        tests.add(new Object[] {"inflate: a reusable InflateBatch", (Test) InflateTests::inflateBatchObject});
        tests.add(new Object[] {"inflate: a stream fed in strides", (Test) InflateTests::inflateStream});
        tests.add(new Object[] {"extract: a valid archive, with progress", (Test) ExtractTests::extractValid});
        tests.add(new Object[] {"extract: modification times restored, or not", (Test) ExtractTests::extractMtimes});
        tests.add(new Object[] {"fronts chosen by enum; ratio limit and durable withers", (Test) ExtractTests::frontsAndWithers});
        tests.add(new Object[] {"extract: a hostile archive leaves nothing", (Test) ExtractTests::extractHostile});
        tests.add(new Object[] {"extract: an archive truncated meanwhile never crashes the JVM", (Test) ExtractTests::extractTruncatedMeanwhile});
        tests.add(new Object[] {"extract: a cancel token stops it from another thread", (Test) ExtractTests::extractCancelled});
        tests.add(new Object[] {"extract: data prepended is read past, unless strict", (Test) ExtractTests::extractPrepended});
        tests.add(new Object[] {"extract: progress at an interval", (Test) ExtractTests::extractProgressAtAnInterval});
        tests.add(new Object[] {"buffer: an OutputStream view stages writes", (Test) BufferTests::outputStreamView});
        tests.add(new Object[] {"buffer: the view as a DataOutput writes DataOutputStream's bytes", (Test) BufferTests::dataOutputMatchesDataOutputStream});
        tests.add(new Object[] {"buffer: writeTo channels and streams", (Test) BufferTests::writeToChannelsAndStreams});
        tests.add(new Object[] {"archive: entries read in place", (Test) ArchiveTests::archiveInPlace});
        tests.add(new Object[] {"archive: verify checks every entry, writing nothing", (Test) ArchiveTests::archiveVerify});
        tests.add(new Object[] {"archive: wrong values are exceptions naming them", (Test) ArchiveTests::archiveWrongValues});
        tests.add(new Object[] {"archive: by name, into buffers, as streams", (Test) ArchiveTests::archiveBuffersAndStreams});
        tests.add(new Object[] {"archive: views of stored entries outlive close", (Test) ArchiveTests::archiveViews});
        tests.add(new Object[] {"every compression method: read, streamed, verified, extracted", (Test) ArchiveTests::everyMethod});
        tests.add(new Object[] {"archive: any slice by readAt and a SeekableByteChannel; checkpoints export and import", (Test) ArchiveTests::archiveReadAt});
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

    static byte[] deflate(byte[] data, boolean raw) {
        java.util.zip.Deflater d = new java.util.zip.Deflater(6, raw);
        d.setInput(data);
        d.finish();
        byte[] buf = new byte[data.length + 64];
        int n = d.deflate(buf);
        d.end();
        return Arrays.copyOf(buf, n);
    }

    static byte[] concat(byte[]... parts) {
        java.io.ByteArrayOutputStream o = new java.io.ByteArrayOutputStream();
        for (byte[] p : parts) o.writeBytes(p);
        return o.toByteArray();
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
}

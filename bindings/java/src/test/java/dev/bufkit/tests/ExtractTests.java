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

import static dev.bufkit.tests.Support.*;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.Test;

/** Extraction through the loaded front: reports, options, progress, cancellation, hostile and changing archives. Run on the front {@link Support} loads, by JUnit. */
final class ExtractTests {
    private ExtractTests() {}

    /** Issue 27: the JNI front chosen by enum on any JDK (Panama only from 22); the withers for maxRatio and durable reach the extraction. */
    @Test
    @DisplayName("fronts chosen by enum; ratio limit and durable withers")
    void frontsAndWithers(@TempDir java.nio.file.Path dir) throws Exception {
        check(Bufkit.load(Bufkit.Front.JNI).front().equals("jni"), "the JNI front by enum");
        if (Runtime.version().feature() >= 22) {
            check(Bufkit.load(Bufkit.Front.PANAMA).front().equals("panama"), "the Panama front by enum");
        } else {
            expect(IllegalStateException.class, () -> Bufkit.load(Bufkit.Front.PANAMA));
        }
        java.nio.file.Path archive = zip(dir, "r.zip", new String[] {"zeros.bin"}, new byte[][] {new byte[1 << 20]});
        ExtractException limited = expect(ExtractException.class,
                () -> bufkit.extract(archive, dir.resolve("limited"), ExtractOptions.defaults().withMaxRatio(10)));
        check(limited.status() == Status.LIMIT_EXCEEDED, "ratio limit: " + limited.status());
        check(!java.nio.file.Files.exists(dir.resolve("limited")), "nothing left");
        ExtractOptions durable = ExtractOptions.defaults().withDurable(true);
        check(durable.durable() && !ExtractOptions.defaults().durable(), "durable wither");
        check(bufkit.extract(archive, dir.resolve("durable"), durable).files() == 1, "durable extraction");
        // The record is generated from bk_extract_options: every component has a wither, and the ranges are checked.
        for (var component : ExtractOptions.class.getRecordComponents()) {
            String name = "with" + Character.toUpperCase(component.getName().charAt(0)) + component.getName().substring(1);
            check(ExtractOptions.class.getMethod(name, component.getType()).getReturnType() == ExtractOptions.class, name);
        }
        expect(IllegalArgumentException.class, () -> ExtractOptions.defaults().withThreads(-1));
        expect(IllegalArgumentException.class, () -> ExtractOptions.defaults().withQuota(-1));
        expect(IllegalArgumentException.class, () -> ExtractOptions.defaults().withMaxRatio(Double.NaN));
        expect(IllegalArgumentException.class, () -> ExtractOptions.defaults().withMaxRatio(Double.POSITIVE_INFINITY));
        expect(NullPointerException.class, () -> ExtractOptions.defaults().withMode(null));
        ExtractOptions every = ExtractOptions.defaults().withThreads(1).withQuota(1 << 30).withMaxRatio(2000).withStrict(true)
                .withFoldCase(true).withNoMtime(true).withSkipSymlinks(true).withOnly(java.util.List.of("zeros.bin"));
        check(bufkit.extract(archive, dir.resolve("every"), every).files() == 1, "every option at once");
    }

    /** Issue 26: the archive's modification time (ZipOutputStream writes an extended timestamp) by default; withNoMtime, now. */
    @Test
    @DisplayName("extract: modification times restored, or not")
    void extractMtimes(@TempDir java.nio.file.Path dir) throws Exception {
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
    }

    @Test
    @DisplayName("extract: a valid archive, with progress")
    void extractValid(@TempDir java.nio.file.Path dir) throws Exception {
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
    }

    /** With an interval, progress is at most the first report and the last, which nothing follows; calls never overlap. */
    @Test
    @DisplayName("extract: progress at an interval")
    void extractProgressAtAnInterval(@TempDir java.nio.file.Path dir) throws Exception {
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
        ExtractReport r = bufkit.extract(archive, dir.resolve("out"), ExtractOptions.defaults().withThreads(2).withProgressIntervalMs(3_600_000)
                .withProgress((d, t, b, bt) -> {
                    if (inside.incrementAndGet() > 1) overlapped.set(true);
                    seen.add(new long[] {d, t});
                    inside.decrementAndGet();
                }));
        check(r.files() == 500, "report " + r);
        check(!seen.isEmpty() && seen.size() <= 2, "progress calls " + seen.size());
        check(Arrays.equals(seen.get(seen.size() - 1), new long[] {500, 500}), "the last call is the last report");
        check(!overlapped.get(), "calls overlapped");
        expect(IllegalArgumentException.class, () -> ExtractOptions.defaults().withProgressIntervalMs(-1));
    }

    /** Truncating the archive during extraction: a clean error or the archive as it was, never a SIGBUS (the archive used to be mapped). */
    @Test
    @DisplayName("extract: an archive truncated meanwhile never crashes the JVM")
    void extractTruncatedMeanwhile(@TempDir java.nio.file.Path dir) throws Exception {
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
    }

    @Test
    @DisplayName("extract: a cancel token stops it from another thread")
    void extractCancelled(@TempDir java.nio.file.Path dir) throws Exception {
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
        // The other thread cancels once the extraction has reported its first entry, so surely
        // mid-way (a fixed sleep raced: on a fast run the extraction was done before it woke).
        CountDownLatch started = new CountDownLatch(1);
        Thread canceller = new Thread(() -> {
            try {
                started.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            cancel.cancel();
        });
        canceller.start();
        long start = System.nanoTime();
        ExtractOptions cancellable = ExtractOptions.defaults().withThreads(1).withCancel(cancel)
                .withProgress((done, total, bytes, bytesTotal) -> started.countDown());
        ExtractException during = expect(ExtractException.class,
                () -> bufkit.extract(archive, dir.resolve("out"), cancellable));
        canceller.join();
        check(during.status() == Status.CANCELLED, "cancelled during: " + during.status() + " after " + (System.nanoTime() - start) / 1_000_000 + " ms");
        try (var list = java.nio.file.Files.list(dir)) {
            check(list.count() == 1, "nothing left beside the archive");
        }
    }

    @Test
    @DisplayName("extract: data prepended is read past, unless strict")
    void extractPrepended(@TempDir java.nio.file.Path dir) throws Exception {
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
        // Issue 27: fold_case reaches Java. Names that differ only in case extract on a
        // case-sensitive file system, and are refused when asked to fold case (always on Windows).
        boolean windows = System.getProperty("os.name").startsWith("Windows");
        java.nio.file.Path twins = zip(dir, "twins.zip", new String[] {"Readme.txt", "README.txt"},
                new byte[][] {"one".getBytes(), "two".getBytes()});
        if (!windows) {
            check(bufkit.extract(twins, dir.resolve("twins"), ExtractOptions.defaults()).files() == 2, "case twins extract");
        }
        ExtractException folded = expect(ExtractException.class,
                () -> bufkit.extract(twins, dir.resolve("folded"), ExtractOptions.defaults().withFoldCase(true)));
        check(folded.status() == Status.UNSAFE_NAME && !java.nio.file.Files.exists(dir.resolve("folded")),
                "folding case refuses the twins: " + folded.status());
        // portable_names reaches Java: a name Windows reads as a device is refused, naming it;
        // without the option it extracts here (not on Windows, which refuses it always).
        java.nio.file.Path device = zip(dir, "device.zip", new String[] {"ok.txt", "assets/con.txt"},
                new byte[][] {"fine".getBytes(), "device".getBytes()});
        ExtractException portable = expect(ExtractException.class,
                () -> bufkit.extract(device, dir.resolve("portable"), ExtractOptions.defaults().withPortableNames(true)));
        check(portable.status() == Status.UNSAFE_NAME && portable.entry().equals("assets/con.txt")
                && !java.nio.file.Files.exists(dir.resolve("portable")), "portable names: " + portable.getMessage());
        if (!windows) {
            check(bufkit.extract(device, dir.resolve("device"), ExtractOptions.defaults()).files() == 2, "con.txt here");
        } else {
            ExtractException refused = expect(ExtractException.class, () -> bufkit.extract(device, dir.resolve("device"), ExtractOptions.defaults()));
            check(refused.status() == Status.UNSAFE_NAME && refused.entry().equals("assets/con.txt"), "Windows refuses con.txt: " + refused.getMessage());
        }
    }

    @Test
    @DisplayName("extract: a hostile archive leaves nothing")
    void extractHostile(@TempDir java.nio.file.Path dir) throws Exception {
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
    }

    /** An archive read from an InputStream extracts as its file does; a stream cut short, failing or cancelled leaves nothing. */
    @Test
    @DisplayName("extract: from an InputStream")
    void extractFromStream(@TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path archive = zip(dir, "a.zip", new String[] {"assets/app.js", "readme.txt"}, new byte[][] {pattern(500_000), "hi".getBytes()});
        byte[] bytes = java.nio.file.Files.readAllBytes(archive);
        ExtractReport report = bufkit.extract(new java.io.ByteArrayInputStream(bytes), dir.resolve("out"), ExtractOptions.defaults());
        check(report.files() == 2, "files " + report.files());
        check(Arrays.equals(java.nio.file.Files.readAllBytes(dir.resolve("out/assets/app.js")), pattern(500_000)), "the bytes");
        // Cut short: refused as the file would be, nothing at DEST.
        ExtractException cut = expect(ExtractException.class, () -> bufkit.extract(
                new java.io.ByteArrayInputStream(Arrays.copyOf(bytes, bytes.length - 20)), dir.resolve("cut"), ExtractOptions.defaults()));
        check(cut.status() == Status.ARCHIVE_MALFORMED, "cut: " + cut.status());
        check(!java.nio.file.Files.exists(dir.resolve("cut")), "nothing at DEST");
        // The stream fails midway: its IOException, nothing at DEST.
        java.io.InputStream failing = new java.io.InputStream() {
            private int at;

            @Override
            public int read() throws java.io.IOException {
                if (at >= 1000) throw new java.io.IOException("connection reset");
                return bytes[at++] & 0xff;
            }
        };
        java.io.IOException e = expect(java.io.IOException.class, () -> bufkit.extract(failing, dir.resolve("failed"), ExtractOptions.defaults()));
        check(e.getMessage().contains("connection reset"), e.getMessage());
        check(!java.nio.file.Files.exists(dir.resolve("failed")), "nothing at DEST");
        // Cancelled: nothing at DEST.
        ExtractCancel cancel = bufkit.newCancel();
        cancel.cancel();
        ExtractException cancelled = expect(ExtractException.class, () -> bufkit.extract(new java.io.ByteArrayInputStream(bytes),
                dir.resolve("cancelled"), ExtractOptions.defaults().withCancel(cancel)));
        check(cancelled.status() == Status.CANCELLED, "cancelled: " + cancelled.status());
        check(!java.nio.file.Files.exists(dir.resolve("cancelled")), "nothing at DEST");
    }
}

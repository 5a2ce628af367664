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

/** Archives read in place through the loaded front: by index and name, into buffers, as streams, views, verification, every compression method. Run on the front {@link Support} loads, by JUnit. */
final class ArchiveTests {
    private ArchiveTests() {}

    /** The calls a java.util.zip user reaches for first: open with a path alone, walk the names, list by pattern, extract with defaults. */
    @Test
    @DisplayName("archive: one-argument open, names, list by pattern, two-argument extract")
    void firstCalls(@TempDir java.nio.file.Path dir) throws Exception {
        String[] names = {"assets/", "assets/app.js", "assets/lib/util.js", "assets/style.css", "readme.txt"};
        byte[][] contents = {new byte[0], "let a;".getBytes(), "let b;".getBytes(), "p{}".getBytes(), "hi".getBytes()};
        java.nio.file.Path apk = zip(dir, "app.apk", names, contents);
        try (dev.bufkit.AssetArchive a = bufkit.openArchive(apk)) {
            check(a.names().equals(List.of("assets", "assets/app.js", "assets/lib/util.js", "assets/style.css", "readme.txt")),
                    "names in archive order: " + a.names());
            check(a.names().size() == a.size(), "the view's size");
            expect(IndexOutOfBoundsException.class, () -> a.names().get(5));
            // entries() tells what java.util.zip's ZipEntry tells of the same archive.
            try (java.util.zip.ZipFile jdk = new java.util.zip.ZipFile(apk.toFile())) {
                List<? extends java.util.zip.ZipEntry> expected = java.util.Collections.list(jdk.entries());
                check(a.entries().size() == expected.size(), "entries: " + a.entries().size());
                for (dev.bufkit.AssetArchive.Entry e : a.entries()) {
                    java.util.zip.ZipEntry z = expected.get(e.index());
                    String what = e + " against " + z.getName();
                    check(e.name().equals(z.getName().replaceAll("/$", "")), "name: " + what);
                    check(e.directory() == z.isDirectory(), "directory: " + what);
                    check(e.size() == z.getSize() && e.compressedSize() == z.getCompressedSize(), "sizes: " + what);
                    check(e.crc32() == z.getCrc() && e.method() == z.getMethod(), "CRC-32 and method: " + what);
                    check(e.equals(a.entry(e.index())), "entries().get(i) is entry(i): " + what);
                }
            }
            expect(IndexOutOfBoundsException.class, () -> a.entries().get(5));
            expect(IndexOutOfBoundsException.class, () -> a.entry(-1));
            List<String> js = new ArrayList<>();
            for (int i : a.list("assets/*.js")) js.add(a.name(i));
            check(js.equals(List.of("assets/app.js", "assets/lib/util.js")), "* spans directories: " + js);
            check(a.list("assets/?pp.js").length == 1, "? is one character");
            check(a.list("assets/").length == 4, "a directory and everything under it");
            check(a.list("nothing*").length == 0, "no match is an empty array");
            check(a.list("readme.txt").length == 1 && a.name(a.list("readme.txt")[0]).equals("readme.txt"), "an exact name");
            expect(NullPointerException.class, () -> a.list(null));
        }
        ExtractReport report = bufkit.extract(apk, dir.resolve("out"));
        check(report.files() == 4, "files extracted with the defaults: " + report.files());
        check(java.nio.file.Files.readString(dir.resolve("out/readme.txt")).equals("hi"), "an extracted file");
        expect(ExtractException.class, () -> bufkit.extract(apk, dir.resolve("out")));
    }

    /** An archive read in place: found by name, read whole, from threads at once, read and mapped; bad input refused. */
    @Test
    @DisplayName("archive: entries read in place")
    void archiveInPlace(@TempDir java.nio.file.Path dir) throws Exception {
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
                expect(IndexOutOfBoundsException.class, () -> a.name(3));
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
    }

    /**
     * Issue 38: every wrong value given to an archive's methods is a Java exception that says
     * what was wrong (an index out of range: IndexOutOfBoundsException; any other wrong value:
     * IllegalArgumentException or NullPointerException naming the parameter), with the archive
     * still usable after it; never a status from C, never a crash.
     */
    @Test
    @DisplayName("archive: wrong values are exceptions naming them")
    void archiveWrongValues(@TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path apk = zip(dir, "app.apk", new String[] {"assets/app.js", "readme.txt"},
                new byte[][] {pattern(300_000), "hi".getBytes()});
        try (dev.bufkit.AssetArchive a = bufkit.openArchive(apk, false)) {
            int n = a.size();
            ByteBuffer dst = ByteBuffer.allocate(16);
            for (int bad : new int[] {-1, n, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
                expect(IndexOutOfBoundsException.class, () -> a.name(bad));
                expect(IndexOutOfBoundsException.class, () -> a.entrySize(bad));
                expect(IndexOutOfBoundsException.class, () -> a.isDirectory(bad));
                expect(IndexOutOfBoundsException.class, () -> a.read(bad));
                expect(IndexOutOfBoundsException.class, () -> a.read(bad, dst));
                expect(IndexOutOfBoundsException.class, () -> a.readAt(bad, 0, dst));
                expect(IndexOutOfBoundsException.class, () -> a.view(bad));
                expect(IndexOutOfBoundsException.class, () -> a.open(bad));
                expect(IndexOutOfBoundsException.class, () -> a.channel(bad));
                expect(IndexOutOfBoundsException.class, () -> a.exportCheckpoints(bad));
                expect(IndexOutOfBoundsException.class, () -> a.importCheckpoints(bad, new byte[8]));
            }
            expect(IllegalArgumentException.class, () -> a.readAt(0, -1, dst));
            expect(IllegalArgumentException.class, () -> a.readAt(0, Long.MIN_VALUE, dst));
            expect(NullPointerException.class, () -> a.readAt(0, 0, null));
            expect(NullPointerException.class, () -> a.read(0, (ByteBuffer) null));
            expect(NullPointerException.class, () -> a.importCheckpoints(0, null));
            expect(NullPointerException.class, () -> a.find(null));
            expect(NullPointerException.class, () -> a.open((String) null));
            expect(IllegalArgumentException.class, () -> a.setCheckpointLimits(-1, 1 << 20));
            expect(IllegalArgumentException.class, () -> a.setCheckpointLimits(1 << 20, -1));
            expect(IllegalArgumentException.class, () -> a.verify(-1));
            expect(IllegalArgumentException.class, () -> a.verify(Integer.MIN_VALUE));
            try (java.nio.channels.SeekableByteChannel c = a.channel(0)) {
                expect(IllegalArgumentException.class, () -> c.position(-1));
                expect(NullPointerException.class, () -> c.read(null));
            }
            try (java.io.InputStream in = a.open(0)) {
                byte[] b = new byte[8];
                expect(IndexOutOfBoundsException.class, () -> in.read(b, -1, 4));
                expect(IndexOutOfBoundsException.class, () -> in.read(b, 6, 4));
                expect(NullPointerException.class, () -> in.read(null, 0, 1));
            }
            // Still usable, and right.
            check(a.read(a.find("readme.txt").getAsInt()).length == 2, "the archive works after the wrong values");
        }
        expect(NullPointerException.class, () -> bufkit.openArchive(null, false));
    }

    /** Issue 26: verify, like unzip -t: OK on a good archive; a damaged first entry named by index and status. */
    @Test
    @DisplayName("archive: verify checks every entry, writing nothing")
    void archiveVerify(@TempDir java.nio.file.Path dir) throws Exception {
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
    }

    /** Issue 26: Deflate64, bzip2, LZMA, Zstandard and XZ, from the fixture the Rust and C tests read
     *  too (the same text once per method): read whole, streamed, verified and extracted, all equal. */
    @Test
    @DisplayName("every compression method: read, streamed, verified, extracted")
    void everyMethod(@TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path fixture = java.nio.file.Path.of(System.getProperty("bufkit.methodsZip"));
        String[] names = {"deflate64.txt", "bzip2.txt", "lzma.txt", "zstd.txt", "xz.txt"};
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
    }

    /** Reads by name, into heap and direct buffers at their position, and as streams in any stride;
     *  a stream outlives its archive; a wrong CRC surfaces at the stream's end. */
    @Test
    @DisplayName("archive: by name, into buffers, as streams")
    void archiveBuffersAndStreams(@TempDir java.nio.file.Path dir) throws Exception {
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
    }

    /** A stored entry as a read-only view of the mapped file: no view when deflated or not mapped; a
     *  view (or a slice of it) stays valid after close and garbage collection; a bad CRC is refused. */
    @Test
    @DisplayName("archive: views of stored entries outlive close")
    void archiveViews(@TempDir java.nio.file.Path dir) throws Exception {
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
        java.nio.ByteBuffer slice = sliceOfView(a, icon); // closes a, keeps only the slice
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
        // The slice holds the file mapped. Windows removes a file only once nothing has it open
        // or mapped (deleting it before leaves it pending): once the views are collected.
        slice = null;
        for (int i = 0; i < 100 && java.nio.file.Files.exists(apk); i++) {
            System.gc();
            Thread.sleep(20);
            java.nio.file.Files.deleteIfExists(apk);
        }
        check(!java.nio.file.Files.exists(apk), "the archive can be deleted once its views are collected");
    }

    /** Checks a's view of res/icon.png, closes a and returns a slice of the view (in a frame of
     *  its own, so that the slice is the only reference left to the view). */
    private static java.nio.ByteBuffer sliceOfView(dev.bufkit.AssetArchive a, byte[] icon) {
        try {
            java.nio.ByteBuffer view = a.view("res/icon.png").orElseThrow();
            check(view.isReadOnly() && view.isDirect() && view.remaining() == icon.length, "a read-only direct view of the whole entry");
            byte[] back = new byte[icon.length];
            view.duplicate().get(back);
            check(Arrays.equals(back, icon), "the view's bytes");
            expect(java.nio.ReadOnlyBufferException.class, () -> view.put(0, (byte) 1));
            check(a.view("assets/app.js").isEmpty(), "no view of a deflated entry");
            expect(IndexOutOfBoundsException.class, () -> a.view(99));
            return view.slice(60_000, 10_000);
        } finally {
            a.close();
        }
    }

    private static int single(java.io.InputStream in, byte[] buf) throws java.io.IOException {
        int b = in.read();
        if (b < 0) return -1;
        buf[0] = (byte) b;
        return 1;
    }

    /** Issue 28: any slice by readAt (heap and direct buffers) and through a SeekableByteChannel equals the entry's bytes; checkpoints export and import. */
    @Test
    @DisplayName("archive: any slice by readAt and a SeekableByteChannel; checkpoints export and import")
    void archiveReadAt(@TempDir java.nio.file.Path dir) throws Exception {
        StringBuilder text = new StringBuilder();
        for (int i = 0; text.length() < 3_000_000; i++) text.append("2026-12-02 GET /item/").append(i * 7919 % 5000).append(' ').append(i % 7).append('\n');
        byte[] log = text.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        java.nio.file.Path path = zip(dir, "logs.zip", new String[] {"log.txt"}, new byte[][] {log});
        try (dev.bufkit.AssetArchive a = bufkit.openArchive(path, false)) {
            int index = a.find("log.txt").getAsInt();
            java.util.Random random = new java.util.Random(28);
            for (int i = 0; i < 40; i++) {
                long offset = i == 0 ? 0 : i == 1 ? log.length - 7 : random.nextInt(log.length);
                ByteBuffer dst = (i % 2 == 0) ? ByteBuffer.allocate(5000) : ByteBuffer.allocateDirect(5000);
                dst.position(100);
                int n = a.readAt(index, offset, dst);
                check(n == Math.min(4900, log.length - offset), "read " + n + " at " + offset);
                check(dst.position() == 100 + n, "position advanced");
                byte[] got = new byte[n];
                dst.position(100);
                dst.get(got);
                check(Arrays.equals(got, Arrays.copyOfRange(log, (int) offset, (int) offset + n)), "bytes at " + offset);
            }
            check(a.readAt(index, log.length, ByteBuffer.allocate(8)) == 0, "nothing at the end");
            BufkitException past = expect(BufkitException.class, () -> a.readAt(index, log.length + 1L, ByteBuffer.allocate(8)));
            check(past.status() == Status.OUT_OF_RANGE, "past the end: " + past.status());
            expect(java.nio.ReadOnlyBufferException.class, () -> a.readAt(index, 0, ByteBuffer.allocate(8).asReadOnlyBuffer()));
            try (java.nio.channels.SeekableByteChannel channel = a.channel("log.txt")) {
                check(channel.size() == log.length, "channel size");
                channel.position(2_000_000);
                ByteBuffer dst = ByteBuffer.allocate(3000);
                while (dst.hasRemaining() && channel.read(dst) > 0) {}
                check(Arrays.equals(dst.array(), Arrays.copyOfRange(log, 2_000_000, 2_003_000)), "channel bytes");
                check(channel.position() == 2_003_000, "channel position");
                channel.position(log.length);
                check(channel.read(ByteBuffer.allocate(4)) == -1, "end of channel");
                expect(java.nio.channels.NonWritableChannelException.class, () -> channel.write(ByteBuffer.allocate(1)));
            }
            // Front to back in 64 KiB reads (one stream), heap and direct, with a jump back and a
            // small skip ahead in between: the same bytes as the entry.
            for (boolean direct : new boolean[] {false, true}) {
                try (java.nio.channels.SeekableByteChannel channel = a.channel("log.txt")) {
                    java.io.ByteArrayOutputStream seen = new java.io.ByteArrayOutputStream();
                    ByteBuffer dst = direct ? ByteBuffer.allocateDirect(64 << 10) : ByteBuffer.allocate(64 << 10);
                    for (int n; (n = channel.read(dst.clear())) > 0; ) {
                        byte[] got = new byte[n];
                        dst.flip().get(got);
                        seen.write(got);
                        if (seen.size() == 20 * 65536) { // back to 1 MiB, then on again
                            channel.position(1 << 20);
                            ByteBuffer again = ByteBuffer.allocate(1000);
                            channel.read(again);
                            check(Arrays.equals(again.array(), Arrays.copyOfRange(log, 1 << 20, (1 << 20) + 1000)), "read back");
                            channel.position(seen.size() + 4096);
                            ByteBuffer ahead = ByteBuffer.allocate(100);
                            channel.read(ahead);
                            check(Arrays.equals(ahead.array(), Arrays.copyOfRange(log, seen.size() + 4096, seen.size() + 4196)), "skip ahead");
                            channel.position(seen.size());
                        }
                    }
                    check(Arrays.equals(seen.toByteArray(), log), "channel front to back" + (direct ? " (direct)" : ""));
                }
            }
            java.io.ByteArrayOutputStream transferred = new java.io.ByteArrayOutputStream();
            try (java.io.InputStream in = a.open("log.txt")) {
                check(in.transferTo(transferred) == log.length, "transferTo's count");
            }
            check(Arrays.equals(transferred.toByteArray(), log), "transferTo's bytes");
            a.setCheckpointLimits(64 << 10, 8 << 20);
            byte[] checkpoints = a.exportCheckpoints(index);
            try (dev.bufkit.AssetArchive b = bufkit.openArchive(path, true)) {
                BufkitException bad = expect(BufkitException.class, () -> b.importCheckpoints(index, Arrays.copyOf(checkpoints, checkpoints.length - 1)));
                check(bad.status() == Status.CHECKPOINTS_REFUSED, "altered checkpoints: " + bad.status());
                b.importCheckpoints(index, checkpoints);
                ByteBuffer dst = ByteBuffer.allocate(100);
                b.readAt(index, 1_234_567, dst);
                check(Arrays.equals(dst.array(), Arrays.copyOfRange(log, 1_234_567, 1_234_667)), "bytes through imported checkpoints");
            }
        }
    }
    /** Log lines: about 6 MiB, several chunks for the parallel decoder. */
    private static byte[] logLines(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) b.append(String.format("%08d GET /item/%d %d%n", i, i * 7919 % 5003, i % 7));
        return b.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    }

    /**
     * Inflating on several cores changes nothing but the time: with {@code ParallelInflate.ALWAYS} a
     * stream, a whole read and an extraction give what they give with {@code NEVER}, and a corrupt
     * entry fails the same way.
     */
    @Test
    @DisplayName("archive: inflated on several cores, the same bytes and errors")
    void parallelInflate(@TempDir java.nio.file.Path dir) throws Exception {
        byte[] log = logLines(260_000);
        check(log.length > 6 << 20, "several chunks: " + log.length);
        java.nio.file.Path apk = zip(dir, "logs.zip", new String[] {"log.txt"}, new byte[][] {log});
        try (dev.bufkit.AssetArchive a = bufkit.openArchive(apk, false)) {
            expect(NullPointerException.class, () -> a.setParallelInflate(null));
            for (dev.bufkit.ParallelInflate mode : dev.bufkit.ParallelInflate.values()) {
                a.setParallelInflate(mode);
                check(Arrays.equals(a.read(0), log), "a whole read, " + mode);
                try (java.io.InputStream in = a.open(0)) {
                    check(Arrays.equals(in.readAllBytes(), log), "a stream, " + mode);
                }
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                try (java.io.InputStream in = a.open(0)) {
                    in.transferTo(out);
                }
                check(Arrays.equals(out.toByteArray(), log), "a transfer, " + mode);
            }
        }
        for (dev.bufkit.ParallelInflate mode : dev.bufkit.ParallelInflate.values()) {
            java.nio.file.Path dest = dir.resolve("out-" + mode);
            ExtractReport r = bufkit.extract(apk, dest, ExtractOptions.defaults().withParallelInflate(mode).withThreads(4));
            check(r.files() == 1 && Arrays.equals(java.nio.file.Files.readAllBytes(dest.resolve("log.txt")), log), "extracted, " + mode);
        }
        // A byte flipped in the middle of the compressed data: the same status either way, nothing written.
        byte[] zip = java.nio.file.Files.readAllBytes(apk);
        zip[zip.length / 2] ^= 0x5a;
        java.nio.file.Path bad = dir.resolve("bad.zip");
        java.nio.file.Files.write(bad, zip);
        Status[] seen = new Status[2];
        int i = 0;
        for (dev.bufkit.ParallelInflate mode : new dev.bufkit.ParallelInflate[] {dev.bufkit.ParallelInflate.ALWAYS, dev.bufkit.ParallelInflate.NEVER}) {
            java.nio.file.Path dest = dir.resolve("bad-" + mode);
            ExtractException e = expect(ExtractException.class,
                    () -> bufkit.extract(bad, dest, ExtractOptions.defaults().withParallelInflate(mode)));
            check(!java.nio.file.Files.exists(dest), "nothing left, " + mode);
            seen[i++] = e.status();
            try (dev.bufkit.AssetArchive a = bufkit.openArchive(bad, false)) {
                a.setParallelInflate(mode);
                BufkitException read = expect(BufkitException.class, () -> a.read(0));
                check(read.status() == e.status(), "a whole read fails as extraction does: " + read.status() + ", " + mode);
                java.io.IOException streamed = expect(java.io.IOException.class, () -> {
                    try (java.io.InputStream in = a.open(0)) {
                        in.readAllBytes();
                    }
                });
                check(((BufkitException) streamed.getCause()).status() == e.status(), "a stream fails the same, " + mode);
            }
        }
        check(seen[0] == seen[1], "the same status on several cores: " + Arrays.toString(seen));
    }

    /** A channel over bytes in memory that can fail, throw, or change its bytes once opened: a host's own storage. */
    private static final class MemoryChannel implements java.nio.channels.SeekableByteChannel {
        private final byte[] bytes;
        private long position;
        volatile String misbehaving = "";

        MemoryChannel(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public int read(ByteBuffer dst) throws java.io.IOException {
            switch (misbehaving) {
                case "fail" -> throw new java.io.IOException("the store is gone");
                case "throw" -> throw new IllegalStateException("a bug in the host's channel");
                default -> {}
            }
            if (position >= bytes.length) return -1;
            int n = (int) Math.min(dst.remaining(), bytes.length - position);
            int at = dst.position();
            dst.put(bytes, (int) position, n);
            if (misbehaving.equals("change")) {
                for (int i = 0; i < n; i++) dst.put(at + i, (byte) (dst.get(at + i) ^ 0x5a));
            }
            position += n;
            return n;
        }

        @Override
        public int write(ByteBuffer src) {
            throw new java.nio.channels.NonWritableChannelException();
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public java.nio.channels.SeekableByteChannel position(long newPosition) {
            position = newPosition;
            return this;
        }

        @Override
        public long size() {
            return bytes.length;
        }

        @Override
        public java.nio.channels.SeekableByteChannel truncate(long size) {
            throw new java.nio.channels.NonWritableChannelException();
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {}
    }

    /** An archive served by a channel reads as the file does, by every path; a channel that fails, throws or changes gives a status. */
    @Test
    @DisplayName("archive: read from a channel")
    void archiveFromChannel(@TempDir java.nio.file.Path dir) throws Exception {
        byte[] big = pattern(6_000_000);
        java.nio.file.Path apk = zip(dir, "app.apk", new String[] {"assets/big.bin", "readme.txt"}, new byte[][] {big, "hi".getBytes()});
        byte[] bytes = java.nio.file.Files.readAllBytes(apk);
        dev.bufkit.ArchiveOptions defaults = dev.bufkit.ArchiveOptions.defaults();
        try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(apk)) {
            for (java.nio.channels.SeekableByteChannel channel : new java.nio.channels.SeekableByteChannel[] {file, new MemoryChannel(bytes)}) {
                try (dev.bufkit.AssetArchive a = bufkit.openArchive(channel, defaults)) {
                    int index = a.find("assets/big.bin").orElseThrow();
                    check(Arrays.equals(a.read(index), big), "read whole");
                    check(Arrays.equals(a.readAllBytes("readme.txt"), "hi".getBytes()), "read by name");
                    try (java.io.InputStream in = a.open(index)) {
                        check(Arrays.equals(in.readAllBytes(), big), "streamed");
                    }
                    ByteBuffer slice = ByteBuffer.allocate(4096);
                    check(a.readAt(index, 5_000_000, slice) == 4096, "a slice");
                    check(Arrays.equals(slice.array(), Arrays.copyOfRange(big, 5_000_000, 5_004_096)), "the slice's bytes");
                    ByteBuffer direct = ByteBuffer.allocateDirect(big.length);
                    check(a.read(index, direct) == big.length, "into a direct buffer");
                    // On several cores: the channel is read from the decoder's threads.
                    a.setParallelInflate(dev.bufkit.ParallelInflate.ALWAYS);
                    check(Arrays.equals(a.read(index), big), "read on several cores");
                    check(a.verify(2).ok(), "verified");
                }
            }
        }
        expect(IllegalArgumentException.class, () -> bufkit.openArchive(new MemoryChannel(bytes), defaults.withMapped(true)));
        for (String misbehaviour : new String[] {"fail", "throw", "change"}) {
            Status expected = misbehaviour.equals("change") ? Status.ARCHIVE_MALFORMED : Status.IO_ERROR;
            MemoryChannel broken = new MemoryChannel(bytes);
            broken.misbehaving = misbehaviour;
            expectStatus(expected, () -> bufkit.openArchive(broken, defaults));
            MemoryChannel later = new MemoryChannel(bytes);
            try (dev.bufkit.AssetArchive a = bufkit.openArchive(later, defaults.withLocalHeadersOnFirstRead(true))) {
                later.misbehaving = misbehaviour;
                expectStatus(expected, () -> a.read(a.find("readme.txt").orElseThrow()));
            }
        }
    }
}

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
 * What the behavioural tests share: the front they run against ({@code -Ddev.bufkit.front=jni} or
 * {@code panama}, loaded once), checks, and test data. The cases live one class per object
 * (BufferTests, PoolTests, InflateTests, ArchiveTests, ExtractTests), run by JUnit 5 against each
 * front (bindings/java/run-tests.sh).
 */
final class Support {
    private Support() {}

    /** A test body that may throw. */
    interface Body {
        void run() throws Exception;
    }

    /** The front named by {@code dev.bufkit.front}: JNI unless it says panama. */
    static final Bufkit bufkit = load();

    private static Bufkit load() {
        String front = System.getProperty("dev.bufkit.front", "jni");
        Bufkit loaded = Bufkit.load(front.equals("panama") ? Bufkit.Front.PANAMA : Bufkit.Front.JNI);
        check(loaded.front().equals(front), "loaded front " + loaded.front() + ", asked for " + front);
        return loaded;
    }

    static void check(boolean cond, String what) {
        if (!cond) throw new AssertionError(what);
    }

    static <T extends Throwable> T expect(Class<T> type, Body body) {
        try {
            body.run();
        } catch (Throwable e) {
            if (type.isInstance(e)) return type.cast(e);
            throw new AssertionError("expected " + type.getSimpleName() + ", got " + e, e);
        }
        throw new AssertionError("expected " + type.getSimpleName() + ", nothing was thrown");
    }

    static void expectStatus(Status status, Body body) {
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

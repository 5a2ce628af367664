import dev.bufkit.BufferPool;
import dev.bufkit.Bufkit;
import dev.bufkit.Lease;
import dev.bufkit.PoolConfig;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * What a Java caller gets from bufkit's pool, against what a Java programmer writes by hand, in
 * one JVM, alternating rounds, medians:
 *   1. a 64 KiB buffer per use: pool.acquire + close, against ByteBuffer.allocateDirect (left to
 *      the GC and its Cleaner) and new byte[65536];
 *   2. the seed's asset loop: 200 files of 40-60 KB written to DIR, each through a fresh
 *      new byte[100_000] and a BufferedOutputStream (what the mobile runtime did), against one
 *      pool lease per file written with a FileChannel; with GC cycles counted.
 * Usage: java PoolBench FRONT DIR [ROUNDS]   (DIR: a scratch directory, e.g. on tmpfs)
 */
public final class PoolBench {
    private PoolBench() {}

    static volatile long sink;

    static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) n += Math.max(0, gc.getCollectionCount());
        return n;
    }

    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    static final int USES = 200_000;

    static double poolRound(BufferPool pool) {
        long t = System.nanoTime();
        for (int i = 0; i < USES; i++) {
            try (Lease lease = pool.acquire(65536)) {
                ByteBuffer b = lease.buffer();
                b.put(i & 63, (byte) i);
                sink += b.get(0);
            }
        }
        return (System.nanoTime() - t) / (double) USES;
    }

    static double directRound() {
        long t = System.nanoTime();
        for (int i = 0; i < USES; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(65536);
            b.put(i & 63, (byte) i);
            sink += b.get(0);
        }
        return (System.nanoTime() - t) / (double) USES;
    }

    static double heapRound() {
        long t = System.nanoTime();
        for (int i = 0; i < USES; i++) {
            byte[] b = new byte[65536];
            b[i & 63] = (byte) i;
            sink += b[0];
        }
        return (System.nanoTime() - t) / (double) USES;
    }

    static final int FILES = 200;

    /** The seed's loop: a fresh 100 KB array and a BufferedOutputStream per file. */
    static double[] seedAssets(byte[][] assets, Path dir) throws Exception {
        long gc = gcCount(), t = System.nanoTime();
        for (int i = 0; i < FILES; i++) {
            byte[] buffer = new byte[100_000];
            try (var in = new java.io.ByteArrayInputStream(assets[i]);
                    var out = new java.io.BufferedOutputStream(Files.newOutputStream(dir.resolve("a" + i)))) {
                int n;
                while ((n = in.read(buffer)) > 0) out.write(buffer, 0, n);
            }
        }
        return new double[] {(System.nanoTime() - t) / 1e6, gcCount() - gc};
    }

    /** The same files through one pool lease each and a FileChannel: no Java heap buffer. */
    static double[] leasedAssets(BufferPool pool, byte[][] assets, Path dir) throws Exception {
        long gc = gcCount(), t = System.nanoTime();
        for (int i = 0; i < FILES; i++) {
            try (Lease lease = pool.acquire(assets[i].length);
                    FileChannel out = FileChannel.open(dir.resolve("b" + i), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                            StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer b = lease.buffer();
                b.put(assets[i]).flip();
                while (b.hasRemaining()) out.write(b);
            }
        }
        return new double[] {(System.nanoTime() - t) / 1e6, gcCount() - gc};
    }

    public static void main(String[] args) throws Exception {
        String front = args[0];
        Path dir = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 9;
        Bufkit bufkit = Bufkit.load(front.equals("panama") ? "dev.bufkit.panama.PanamaBufkit" : "dev.bufkit.jni.JniBufkit");
        Files.createDirectories(dir);
        java.util.Random random = new java.util.Random(42);
        byte[][] assets = new byte[FILES][];
        for (int i = 0; i < FILES; i++) {
            assets[i] = new byte[40_000 + random.nextInt(20_000)];
            random.nextBytes(assets[i]);
        }
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults())) {
            double[] p = new double[rounds], d = new double[rounds], h = new double[rounds];
            double[] seedMs = new double[rounds], leaseMs = new double[rounds];
            long seedGc = 0, leaseGc = 0;
            for (int r = -2; r < rounds; r++) { // two warm-up rounds for the JIT
                double pr = poolRound(pool), dr = directRound(), hr = heapRound();
                double[] s = seedAssets(assets, dir), l = leasedAssets(pool, assets, dir);
                if (r < 0) continue;
                p[r] = pr; d[r] = dr; h[r] = hr; seedMs[r] = s[0]; leaseMs[r] = l[0];
                seedGc += (long) s[1]; leaseGc += (long) l[1];
            }
            System.out.printf("| %s (Java %d) | pool lease 64 KiB | %.0f ns | allocateDirect | %.0f ns | %.1fx |%n", front,
                    Runtime.version().feature(), median(p), median(d), median(d) / median(p));
            System.out.printf("| %s (Java %d) | pool lease 64 KiB | %.0f ns | new byte[65536] | %.0f ns | %.1fx |%n", front,
                    Runtime.version().feature(), median(p), median(h), median(h) / median(p));
            System.out.printf("| %s (Java %d) | asset loop, 200 files, leases | %.2f ms, %d GC cycles in %d rounds | new byte[100_000] + BufferedOutputStream | %.2f ms, %d GC cycles | %.2fx |%n",
                    front, Runtime.version().feature(), median(leaseMs), leaseGc, rounds, median(seedMs), seedGc, median(seedMs) / median(leaseMs));
        }
    }
}

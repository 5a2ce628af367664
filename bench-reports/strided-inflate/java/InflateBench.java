import dev.bufkit.Bufkit;
import dev.bufkit.InflateBatch;
import dev.bufkit.Format;
import dev.bufkit.OffsetInflater;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.Inflater;

/**
 * Per-object inflate cost from Java over a real pack: the best java.util.zip.Inflater usage (one
 * reused Inflater, reset per object, setInput over the rest of the array: pinned, not copied, on
 * current JDKs) against bufkit's OffsetInflater one call per object, and in batches.
 * Usage: java InflateBench FRONT PACK TABLE ROUNDS   (TABLE from pack_bench: LE u64 offset, size pairs)
 * Prints one JSON line per engine: median ns per object over ROUNDS passes.
 */
public final class InflateBench {
    public static void main(String[] args) throws Exception {
        String front = args[0];
        byte[] pack = Files.readAllBytes(Path.of(args[1]));
        ByteBuffer t = ByteBuffer.wrap(Files.readAllBytes(Path.of(args[2]))).order(ByteOrder.LITTLE_ENDIAN);
        int rounds = Integer.parseInt(args[3]);
        int n = t.remaining() / 16;
        long[] offsets = new long[n];
        int[] sizes = new int[n];
        int max = 0;
        long totalOut = 0;
        for (int i = 0; i < n; i++) {
            offsets[i] = t.getLong();
            sizes[i] = (int) t.getLong();
            max = Math.max(max, sizes[i]);
            totalOut += sizes[i];
        }
        byte[] out = new byte[max];
        Bufkit bufkit = Bufkit.load(front.equals("panama") ? "dev.bufkit.panama.PanamaBufkit" : "dev.bufkit.jni.JniBufkit");
        long[] inflaterNs = new long[rounds], bufkitNs = new long[rounds], batchNs = new long[rounds], bigBatchNs = new long[rounds];
        long checkA = 0, checkB = 0, checkC = 0, checkD = 0;
        Inflater inflater = new Inflater();
        byte[] batchOut = new byte[(int) Math.min(Integer.MAX_VALUE - 8, totalOut)];
        InflateBatch smallBatch = new InflateBatch(1024), bigBatch = new InflateBatch(16_384);
        try (OffsetInflater inf = bufkit.newInflater(Format.ZLIB)) {
            for (int r = 0; r < rounds + 2; r++) { // two warm-up rounds for the JIT
                long start = System.nanoTime();
                long sum = inflaterPass(inflater, pack, offsets, sizes, out);
                long a = System.nanoTime() - start;
                start = System.nanoTime();
                long sum2 = bufkitPass(inf, pack, offsets, sizes, out);
                long b = System.nanoTime() - start;
                start = System.nanoTime();
                long sum3 = batchPass(inf, pack, offsets, sizes, batchOut, smallBatch, 1024);
                long c = System.nanoTime() - start;
                start = System.nanoTime();
                long sum4 = batchPass(inf, pack, offsets, sizes, batchOut, bigBatch, 16_384);
                long d = System.nanoTime() - start;
                if (r >= 2) {
                    inflaterNs[r - 2] = a;
                    bufkitNs[r - 2] = b;
                    batchNs[r - 2] = c;
                    bigBatchNs[r - 2] = d;
                }
                checkA = sum;
                checkB = sum2;
                checkC = sum3;
                checkD = sum4;
            }
        }
        // Call overhead: the same trivial stream ("hello", 13 bytes of zlib) inflated over and over, per
        // call and in batches; compare with bench-reports/strided-inflate/trivial_c.c, the same loop in C.
        byte[] hello = new byte[64];
        java.util.zip.Deflater deflater = new java.util.zip.Deflater(6);
        deflater.setInput("hello".getBytes());
        deflater.finish();
        deflater.deflate(hello);
        int calls = 2_000_000;
        long[] perCall = new long[rounds], perBatched = new long[rounds];
        long[] helloOffsets = new long[1024];
        int[] helloSizes = new int[1024];
        Arrays.fill(helloSizes, 5);
        byte[] helloOut = new byte[5 * 1024];
        try (OffsetInflater inf = bufkit.newInflater(Format.ZLIB)) {
            for (int r = 0; r < rounds + 2; r++) {
                long start = System.nanoTime();
                long sum = trivialPerCall(inf, hello, out, calls);
                long a = System.nanoTime() - start;
                long[] consumed = new long[1024];
                start = System.nanoTime();
                trivialBatched(inf, hello, helloOffsets, helloSizes, helloOut, consumed, calls);
                long b = System.nanoTime() - start;
                if (sum != 13L * calls || consumed[1023] != 13) throw new IllegalStateException("trivial stream");
                if (r >= 2) {
                    perCall[r - 2] = a;
                    perBatched[r - 2] = b;
                }
            }
        }
        if (checkA != checkB || checkB != checkC || checkC != checkD) {
            throw new IllegalStateException("consumed totals differ: " + checkA + " " + checkB + " " + checkC + " " + checkD);
        }
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"java.util.zip.Inflater\",\"ns_per_object\":%.1f}%n", front, Runtime.version(), median(inflaterNs) / (double) n);
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"bufkit\",\"ns_per_object\":%.1f}%n", front, Runtime.version(), median(bufkitNs) / (double) n);
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"bufkit-batch-1024\",\"ns_per_object\":%.1f,\"check\":%d}%n", front, Runtime.version(), median(batchNs) / (double) n, checkC);
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"bufkit-batch-16384\",\"ns_per_object\":%.1f}%n", front, Runtime.version(), median(bigBatchNs) / (double) n);
        int batches = (calls + 1023) / 1024;
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"bufkit-trivial-per-call\",\"ns_per_object\":%.1f}%n", front, Runtime.version(), median(perCall) / (double) calls);
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"bufkit-trivial-batch-1024\",\"ns_per_object\":%.1f}%n", front, Runtime.version(), median(perBatched) / (double) (batches * 1024L));
    }

    // One method per pass, so the JIT compiles each loop on its own.
    static long inflaterPass(Inflater inflater, byte[] pack, long[] offsets, int[] sizes, byte[] out) throws Exception {
        long sum = 0;
        for (int i = 0; i < offsets.length; i++) {
            inflater.reset();
            inflater.setInput(pack, (int) offsets[i], pack.length - (int) offsets[i]);
            int got = inflater.inflate(out, 0, sizes[i]);
            if (got != sizes[i] || (!inflater.finished() && sizes[i] > 0 && inflater.inflate(out, 0, 0) != 0)) {
                throw new IllegalStateException("object " + i);
            }
            sum += inflater.getBytesRead();
        }
        return sum;
    }

    static long bufkitPass(OffsetInflater inf, byte[] pack, long[] offsets, int[] sizes, byte[] out) {
        long sum = 0;
        for (int i = 0; i < offsets.length; i++) sum += inf.inflateAt(pack, offsets[i], out, 0, sizes[i]);
        return sum;
    }

    /** The objects in batches of {@code per} streams through a reused {@link InflateBatch}. */
    static long batchPass(OffsetInflater inf, byte[] pack, long[] offsets, int[] sizes, byte[] batchOut, InflateBatch batch, int per) {
        int n = offsets.length;
        long sum = 0;
        for (int i = 0; i < n; i += per) {
            int k = Math.min(per, n - i);
            batch.clear();
            for (int j = i; j < i + k; j++) batch.add(offsets[j], sizes[j]);
            if (inf.inflate(pack, batch, batchOut) != k) throw new IllegalStateException("batch at " + i);
            for (int j = 0; j < k; j++) sum += batch.consumed(j);
        }
        return sum;
    }

    static long trivialPerCall(OffsetInflater inf, byte[] stream, byte[] out, int calls) {
        long sum = 0;
        for (int i = 0; i < calls; i++) sum += inf.inflateAt(stream, 0, out, 0, 5);
        return sum;
    }

    static void trivialBatched(OffsetInflater inf, byte[] stream, long[] offsets, int[] sizes, byte[] out, long[] consumed, int calls) {
        int[] status = new int[offsets.length];
        for (int i = 0; i < calls; i += offsets.length) inf.inflateBatch(stream, offsets, sizes, out, consumed, status);
    }

    static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }
}

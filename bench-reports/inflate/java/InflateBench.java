import dev.bufkit.Bufkit;
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
        long[] inflaterNs = new long[rounds], bufkitNs = new long[rounds], batchNs = new long[rounds];
        long checkA = 0, checkB = 0, checkC = 0;
        Inflater inflater = new Inflater();
        byte[] batchOut = new byte[(int) Math.min(Integer.MAX_VALUE - 8, totalOut)];
        try (OffsetInflater inf = bufkit.newInflater(OffsetInflater.Format.ZLIB)) {
            for (int r = 0; r < rounds + 2; r++) { // two warm-up rounds for the JIT
                long start = System.nanoTime();
                long sum = 0;
                for (int i = 0; i < n; i++) {
                    inflater.reset();
                    inflater.setInput(pack, (int) offsets[i], pack.length - (int) offsets[i]);
                    int got = inflater.inflate(out, 0, sizes[i]);
                    if (got != sizes[i] || (!inflater.finished() && sizes[i] > 0 && inflater.inflate(out, 0, 0) != 0)) {
                        throw new IllegalStateException("object " + i);
                    }
                    sum += inflater.getBytesRead();
                }
                long a = System.nanoTime() - start;
                start = System.nanoTime();
                long sum2 = 0;
                for (int i = 0; i < n; i++) sum2 += inf.inflateAt(pack, offsets[i], out, 0, sizes[i]);
                long b = System.nanoTime() - start;
                start = System.nanoTime();
                long sum3 = 0;
                int batch = 1024;
                long[] consumed = new long[batch];
                int[] status = new int[batch];
                for (int i = 0; i < n; i += batch) {
                    int k = Math.min(batch, n - i);
                    long[] o = Arrays.copyOfRange(offsets, i, i + k);
                    int[] s = Arrays.copyOfRange(sizes, i, i + k);
                    if (inf.inflateBatch(pack, o, s, batchOut, k == batch ? consumed : new long[k], k == batch ? status : new int[k]) != k) {
                        throw new IllegalStateException("batch at " + i);
                    }
                    for (int j = 0; j < k && k == batch; j++) sum3 += consumed[j];
                }
                long c = System.nanoTime() - start;
                if (r >= 2) {
                    inflaterNs[r - 2] = a;
                    bufkitNs[r - 2] = b;
                    batchNs[r - 2] = c;
                }
                checkA = sum;
                checkB = sum2;
                checkC = sum3;
            }
        }
        if (checkA != checkB) throw new IllegalStateException("consumed totals differ: " + checkA + " vs " + checkB);
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"java.util.zip.Inflater\",\"ns_per_object\":%.1f}%n", front, Runtime.version(), median(inflaterNs) / (double) n);
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"bufkit\",\"ns_per_object\":%.1f}%n", front, Runtime.version(), median(bufkitNs) / (double) n);
        System.out.printf("{\"front\":\"%s\",\"java\":\"%s\",\"engine\":\"bufkit-batch-1024\",\"ns_per_object\":%.1f,\"check\":%d}%n", front, Runtime.version(), median(batchNs) / (double) n, checkC);
    }

    static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }
}

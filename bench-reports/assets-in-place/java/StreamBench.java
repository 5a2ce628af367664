import dev.bufkit.AssetArchive;
import dev.bufkit.Bufkit;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.ZipFile;

/**
 * One large deflated entry read front to back, as a Java user streams it: ZipFile.getInputStream in
 * 64 KiB reads (the baseline) against AssetArchive.open in 64 KiB reads, its transferTo, and
 * channel() in 64 KiB reads. Alternating, ROUNDS rounds; median wall time and its ratio to ZipFile.
 * Usage: StreamBench jni|panama ARCHIVE ENTRY ROUNDS
 */
public final class StreamBench {
    private static final OutputStream NOWHERE = OutputStream.nullOutputStream();

    public static void main(String[] args) throws Exception {
        Bufkit bufkit = Bufkit.load(args[0].equals("jni") ? Bufkit.Front.JNI : Bufkit.Front.PANAMA);
        Path path = Path.of(args[1]);
        String entry = args[2];
        int rounds = Integer.parseInt(args[3]);
        String[] names = {"ZipFile.getInputStream", "AssetArchive.open", "AssetArchive.open transferTo", "AssetArchive.channel"};
        long[][] times = new long[names.length][rounds];
        long expected = -1;
        try (AssetArchive archive = bufkit.openArchive(path, false); ZipFile zip = new ZipFile(path.toFile())) {
            byte[] buf = new byte[64 << 10];
            for (int r = 0; r < rounds; r++) {
                for (int k = 0; k < names.length; k++) {
                    long start = System.nanoTime();
                    long total = 0;
                    switch (k) {
                        case 0 -> { try (InputStream in = zip.getInputStream(zip.getEntry(entry))) { for (int n; (n = in.read(buf)) > 0; ) total += n; } }
                        case 1 -> { try (InputStream in = archive.open(entry)) { for (int n; (n = in.read(buf)) > 0; ) total += n; } }
                        case 2 -> { try (InputStream in = archive.open(entry)) { total = in.transferTo(NOWHERE); } }
                        default -> {
                            try (SeekableByteChannel ch = archive.channel(entry)) {
                                ByteBuffer dst = ByteBuffer.wrap(buf);
                                for (int n; (n = ch.read(dst.clear())) > 0; ) total += n;
                            }
                        }
                    }
                    times[k][r] = System.nanoTime() - start;
                    if (expected < 0) expected = total;
                    if (total != expected) throw new AssertionError(names[k] + " read " + total + " bytes, not " + expected);
                }
            }
        }
        long[] medians = new long[names.length];
        for (int k = 0; k < names.length; k++) {
            long[] t = times[k].clone();
            Arrays.sort(t);
            medians[k] = t[t.length / 2];
        }
        System.out.printf("%s, %s (%d bytes), %d rounds%n", args[0], entry, expected, rounds);
        for (int k = 0; k < names.length; k++) {
            System.out.printf("  %-30s %8.1f ms  %5.2fx ZipFile%n", names[k], medians[k] / 1e6, medians[k] / (double) medians[0]);
        }
    }
}

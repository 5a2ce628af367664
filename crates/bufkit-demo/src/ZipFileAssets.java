import java.io.InputStream;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The assets demo's java.util.zip row, run by `bufkit-demo assets` when a JDK is found (as a
 * single-file program): open the archive with ZipFile and read every file whole with
 * getInputStream().readAllBytes(), as a JVM runtime reads its assets in place. Three rounds warm
 * the JIT, then the best of ROUNDS is printed as "SECONDS CHECKSUM BYTES", the checksum being the
 * demo's (the sum of every 64th byte), so the demo can check that the same bytes were read.
 * Usage: java ZipFileAssets.java ARCHIVE ROUNDS
 */
public final class ZipFileAssets {
    public static void main(String[] args) throws Exception {
        String archive = args[0];
        int rounds = Integer.parseInt(args[1]);
        double best = Double.MAX_VALUE;
        long[] seen = null;
        for (int round = 0; round < 3 + rounds; round++) {
            long start = System.nanoTime();
            long sum = 0, bytes = 0;
            try (ZipFile zip = new ZipFile(archive)) {
                for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                    ZipEntry entry = e.nextElement();
                    if (entry.isDirectory()) continue;
                    byte[] data;
                    try (InputStream in = zip.getInputStream(entry)) {
                        data = in.readAllBytes();
                    }
                    for (int i = 0; i < data.length; i += 64) sum += data[i] & 0xff;
                    bytes += data.length;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (round >= 3) best = Math.min(best, seconds);
            seen = new long[] {sum, bytes};
        }
        System.out.println(best + " " + seen[0] + " " + seen[1]);
    }
}

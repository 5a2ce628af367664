import dev.bufkit.AssetArchive;
import dev.bufkit.Bufkit;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Random 4 KiB reads inside one large deflated entry from Java (issue 28): bufkit's
 * AssetArchive.readAt against what a Java programmer writes with java.util.zip (getInputStream,
 * skipNBytes to the offset, readNBytes), every slice checked equal between the two.
 *
 * Usage: java -cp bufkit.jar:. ReadAtBench jni|panama ARCHIVE ENTRY [READS]
 * Prints one JSON line.
 */
public final class ReadAtBench {
    public static void main(String[] args) throws Exception {
        Bufkit bufkit = Bufkit.load(args[0].equals("jni") ? Bufkit.Front.JNI : Bufkit.Front.PANAMA);
        Path path = Path.of(args[1]);
        String name = args[2];
        int reads = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        int zipReads = 5;
        java.util.Random random = new java.util.Random(28);
        try (AssetArchive archive = bufkit.openArchive(path, false); ZipFile zip = new ZipFile(path.toFile())) {
            int index = archive.find(name).getAsInt();
            long size = archive.entrySize(index);
            ZipEntry entry = zip.getEntry(name);
            ByteBuffer dst = ByteBuffer.allocateDirect(4096);
            long t = System.nanoTime();
            archive.readAt(index, size / 3, dst); // builds the checkpoints
            double firstMs = (System.nanoTime() - t) / 1e6;
            double[] lat = new double[reads];
            long[] offsets = new long[reads];
            byte[] got = new byte[4096];
            for (int i = 0; i < reads; i++) {
                offsets[i] = (long) (random.nextDouble() * (size - 4096));
                dst.clear();
                t = System.nanoTime();
                archive.readAt(index, offsets[i], dst);
                lat[i] = (System.nanoTime() - t) / 1e6;
            }
            double[] zipLat = new double[zipReads];
            for (int i = 0; i < zipReads; i++) {
                t = System.nanoTime();
                byte[] slice;
                try (InputStream in = zip.getInputStream(entry)) {
                    in.skipNBytes(offsets[i]);
                    slice = in.readNBytes(4096);
                }
                zipLat[i] = (System.nanoTime() - t) / 1e6;
                dst.clear();
                archive.readAt(index, offsets[i], dst);
                dst.flip();
                dst.get(got);
                if (!Arrays.equals(got, slice)) throw new AssertionError("slice at " + offsets[i] + " differs");
            }
            Arrays.sort(lat);
            double zipMean = Arrays.stream(zipLat).average().orElse(0);
            System.out.printf("{\"front\": \"%s\", \"entry_bytes\": %d, \"reads\": %d, \"first_read_ms\": %.1f, \"median_ms\": %.3f, "
                    + "\"p99_ms\": %.3f, \"max_ms\": %.3f, \"zipfile_skip_mean_ms\": %.1f, \"zipfile_over_median\": %.0f}%n",
                    args[0], size, reads, firstMs, lat[reads / 2], lat[reads * 99 / 100], lat[reads - 1], zipMean, zipMean / lat[reads / 2]);
        }
    }
}

import dev.bufkit.ArchiveOptions;
import dev.bufkit.AssetArchive;
import dev.bufkit.Bufkit;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Assets in place from Java: bufkit's AssetArchive against java.util.zip.ZipFile, the way a JVM
 * program reads its resources, on one archive, in one process, alternating within each round.
 * Prints one JSON line of medians. Usage: InPlaceBench FRONT ARCHIVE ROUNDS
 */
public final class InPlaceBench {
    static long sink;
    static byte[] kept;

    public static void main(String[] args) throws Exception {
        String front = args[0];
        Path path = Path.of(args[1]);
        int rounds = Integer.parseInt(args[2]);
        Bufkit bufkit = Bufkit.load();
        List<String> names = new ArrayList<>();
        long biggest = 0;
        try (ZipFile z = new ZipFile(path.toFile())) {
            for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                if (!entry.isDirectory()) {
                    names.add(entry.getName());
                    biggest = Math.max(biggest, entry.getSize());
                }
            }
        }
        ByteBuffer direct = ByteBuffer.allocateDirect((int) biggest);
        String[] keys = {"zipfile_open_us", "bufkit_open_read_us", "bufkit_open_map_us", "zipfile_lookup_ns", "bufkit_find_ns",
                "zipfile_read_all_ms", "bufkit_read_all_ms", "bufkit_read_all_direct_ms", "bufkit_open_read_first_read_us",
                "bufkit_open_map_first_read_us", "bufkit_read_all_mapped_ms", "bufkit_view_stored_ns", "zipfile_read_stored_ns", "bufkit_view_stored_again_ns",
                "new_arrays_only_ms"};
        double[][] t = new double[keys.length][rounds];
        for (int warm = 0; warm < 3; warm++) round(bufkit, path, names, direct, new double[keys.length][1], 0);
        for (int r = 0; r < rounds; r++) round(bufkit, path, names, direct, t, r);
        StringBuilder json = new StringBuilder("{\"front\":\"" + front + "\",\"java\":\"" + System.getProperty("java.version")
                + "\",\"archive\":\"" + path.getFileName() + "\",\"files\":" + names.size());
        for (int k = 0; k < keys.length; k++) {
            Arrays.sort(t[k]);
            json.append(String.format(",\"%s\":%.2f", keys[k], t[k][rounds / 2]));
        }
        System.out.println(json.append('}'));
    }

    static void round(Bufkit bufkit, Path path, List<String> names, ByteBuffer direct, double[][] t, int r) throws Exception {
        long t0 = System.nanoTime();
        ZipFile z = new ZipFile(path.toFile());
        t[0][r] = (System.nanoTime() - t0) / 1e3;
        t0 = System.nanoTime();
        AssetArchive a = bufkit.openArchive(path, false);
        t[1][r] = (System.nanoTime() - t0) / 1e3;
        a.close();
        t0 = System.nanoTime();
        a = bufkit.openArchive(path, true);
        t[2][r] = (System.nanoTime() - t0) / 1e3;
        a.close();
        for (int lazy = 0; lazy < 2; lazy++) {
            t0 = System.nanoTime();
            a = bufkit.openArchive(path, ArchiveOptions.defaults().withMapped(lazy == 1).withLocalHeadersOnFirstRead(true));
            t[8 + lazy][r] = (System.nanoTime() - t0) / 1e3;
            a.close();
        }
        a = bufkit.openArchive(path, false); // fresh: bufkit checks every CRC on this pass (ZipFile checks none)
        try {
            t0 = System.nanoTime();
            for (int k = 0; k < 10; k++) for (String n : names) sink += z.getEntry(n).getSize();
            t[3][r] = (System.nanoTime() - t0) / (10.0 * names.size());
            t0 = System.nanoTime();
            for (int k = 0; k < 10; k++) for (String n : names) sink += a.find(n).getAsInt();
            t[4][r] = (System.nanoTime() - t0) / (10.0 * names.size());
            t0 = System.nanoTime();
            for (String n : names) {
                try (InputStream in = z.getInputStream(z.getEntry(n))) {
                    sink += in.readAllBytes().length;
                }
            }
            t[5][r] = (System.nanoTime() - t0) / 1e6;
            t0 = System.nanoTime();
            for (String n : names) sink += a.readAllBytes(n).length;
            t[6][r] = (System.nanoTime() - t0) / 1e6;
            t0 = System.nanoTime();
            for (String n : names) {
                direct.clear();
                sink += a.read(n, direct);
            }
            t[7][r] = (System.nanoTime() - t0) / 1e6;
        } finally {
            a.close();
        }
        a = bufkit.openArchive(path, true); // mapped, fresh: each CRC checked on this first read
        try {
            t0 = System.nanoTime();
            for (String n : names) sink += a.readAllBytes(n).length;
            t[10][r] = (System.nanoTime() - t0) / 1e6;
            // Stored entries: a view (no copy) against ZipFile's stream, read whole.
            List<String> stored = new ArrayList<>();
            for (String n : names) if (z.getEntry(n).getMethod() == ZipEntry.STORED) stored.add(n);
            if (!stored.isEmpty()) {
                t0 = System.nanoTime();
                for (String n : stored) sink += a.view(n).orElseThrow().remaining();
                t[11][r] = (System.nanoTime() - t0) / (double) stored.size();
                t0 = System.nanoTime();
                for (String n : stored) {
                    try (InputStream in = z.getInputStream(z.getEntry(n))) {
                        sink += in.readAllBytes().length;
                    }
                }
                t[12][r] = (System.nanoTime() - t0) / (double) stored.size();
                t0 = System.nanoTime();
                for (int k = 0; k < 10; k++) for (String n : stored) sink += a.view(n).orElseThrow().remaining();
                t[13][r] = (System.nanoTime() - t0) / (10.0 * stored.size());
            }
            // The floor of any readAllBytes: allocating the same arrays, and nothing else.
            long[] sizes = new long[names.size()];
            for (int i = 0; i < sizes.length; i++) sizes[i] = z.getEntry(names.get(i)).getSize();
            t0 = System.nanoTime();
            for (long size : sizes) {
                kept = new byte[(int) size]; // escapes: the JIT cannot drop the allocation
                sink += kept.length;
            }
            t[14][r] = (System.nanoTime() - t0) / 1e6;
        } finally {
            a.close();
            z.close();
        }
    }
}

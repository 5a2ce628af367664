import dev.bufkit.Bufkit;
import dev.bufkit.ExtractMode;
import dev.bufkit.ExtractOptions;
import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The mobile runtime's loops against bufkit from Java: java.util.zip.ZipFile with a fresh 100 KB
 * buffer and a BufferedOutputStream per file (the original), with one static 4 KiB buffer (the
 * fix), and Bufkit.extract. Each is timed twice per round: into a fresh destination (the first
 * start: the previous output is deleted before the clock starts) and replacing the previous
 * output (an upgrade: deleting it is part of the timed work, for the Java loops as for bufkit).
 * With PREFIX (the APK case: {@code assets/}), only the entries under it are extracted: the Java
 * loops skip the other names, bufkit is asked for {@code --only PREFIX}.
 * Usage: java ExtractBench FRONT ARCHIVE DEST_ROOT ROUNDS [PREFIX]
 */
public final class ExtractBench {
    private static final byte[] STATIC = new byte[4096];

    public static void main(String[] args) throws Exception {
        String front = args[0];
        Path archive = Path.of(args[1]), root = Path.of(args[2]);
        int rounds = Integer.parseInt(args[3]);
        String prefix = args.length > 4 ? args[4] : "";
        ExtractOptions options = ExtractOptions.defaults().withMode(ExtractMode.REPLACE);
        if (!prefix.isEmpty()) options = options.withOnly(java.util.List.of(prefix));
        ExtractOptions bufkitOptions = options;
        Bufkit bufkit = Bufkit.load(front.equals("panama") ? "dev.bufkit.panama.PanamaBufkit" : "dev.bufkit.jni.JniBufkit");
        String[] names = {"original", "fixed", "bufkit"};
        Body[] bodies = {
            () -> javaLoop(archive, root.resolve("original"), true, prefix),
            () -> javaLoop(archive, root.resolve("fixed"), false, prefix),
            () -> bufkit.extract(archive, root.resolve("bufkit"), bufkitOptions),
        };
        long[][] fresh = new long[3][rounds], replace = new long[3][rounds];
        for (int r = 0; r < rounds + 2; r++) { // two warm-up rounds
            for (int t = 0; t < 3; t++) {
                delete(root.resolve(names[t]));
                long f = time(bodies[t]);
                long p = time(bodies[t]);
                if (r >= 2) {
                    fresh[t][r - 2] = f;
                    replace[t][r - 2] = p;
                }
            }
        }
        for (String d : names) delete(root.resolve(d));
        for (int mode = 0; mode < 2; mode++) {
            long[][] m = mode == 0 ? fresh : replace;
            long o = median(m[0]), x = median(m[1]), b = median(m[2]);
            System.out.printf("{\"archive\":\"%s\",\"only\":\"%s\",\"front\":\"%s\",\"java\":\"%s\",\"destination\":\"%s\",\"original_ms\":%.2f,\"fixed_4k_ms\":%.2f,\"bufkit_ms\":%.2f,\"fixed_over_bufkit\":%.2f,\"original_over_bufkit\":%.2f}%n",
                    archive.getFileName(), prefix, front, Runtime.version(), mode == 0 ? "fresh" : "replace", o / 1e6, x / 1e6, b / 1e6,
                    x / (double) b, o / (double) b);
        }
    }

    interface Body {
        void run() throws Exception;
    }

    static long time(Body body) throws Exception {
        long start = System.nanoTime();
        body.run();
        return System.nanoTime() - start;
    }

    /** The seed's loop; like Bufkit.extract, it replaces whatever is at {@code dest}. */
    static void javaLoop(Path archive, Path dest, boolean freshBuffers, String prefix) throws IOException {
        delete(dest);
        try (ZipFile zip = new ZipFile(archive.toFile())) {
            for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                ZipEntry entry = e.nextElement();
                if (!entry.getName().startsWith(prefix)) continue;
                Path out = dest.resolve(entry.getName());
                if (entry.isDirectory()) {
                    Files.createDirectories(out);
                    continue;
                }
                Files.createDirectories(out.getParent());
                try (InputStream in = zip.getInputStream(entry);
                        OutputStream os = freshBuffers ? new BufferedOutputStream(new FileOutputStream(out.toFile())) : new FileOutputStream(out.toFile())) {
                    byte[] buf = freshBuffers ? new byte[100_000] : STATIC;
                    int n;
                    while ((n = in.read(buf)) > 0) os.write(buf, 0, n);
                }
            }
        }
    }

    static void delete(Path p) throws IOException {
        if (!Files.exists(p)) return;
        try (var walk = Files.walk(p)) {
            walk.sorted(Comparator.reverseOrder()).forEach(q -> q.toFile().delete());
        }
    }

    static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }
}

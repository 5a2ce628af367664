import dev.bufkit.BufferConfig;
import dev.bufkit.BufferOutputStream;
import dev.bufkit.BufferPool;
import dev.bufkit.Bufkit;
import dev.bufkit.ExtractOptions;
import dev.bufkit.ExtractReport;
import dev.bufkit.GrowableBuffer;
import dev.bufkit.Lease;
import dev.bufkit.Format;
import dev.bufkit.OffsetInflater;
import dev.bufkit.PoolConfig;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.Deflater;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A Java program that uses bufkit the way a consumer project does: only bufkit-VERSION.jar on the
 * class path, no -D flags. It grows a buffer (by appends and through its stream), leases from a pool, inflates a zlib stream at an
 * offset and extracts an archive; prints which front ran. Usage: java Consumer WORKDIR FRONT
 */
public final class Consumer {
    private Consumer() {}

    public static void main(String[] args) throws IOException {
        Path work = Path.of(args[0]);
        Bufkit bufkit = Bufkit.load();
        if (!bufkit.front().equals(args[1])) {
            throw new IllegalStateException("expected the " + args[1] + " front, got " + bufkit.front());
        }
        long length;
        try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
            for (int i = 0; i < 500; i++) {
                buf.append("twenty-five bytes apiece ".getBytes(StandardCharsets.UTF_8));
            }
            try (BufferOutputStream out = buf.outputStream()) { // an OutputStream and a DataOutput
                for (int i = 0; i < 500; i++) out.writeBytes("twenty-five bytes apiece ");
            }
            length = buf.toByteArray().length;
        }
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults()); Lease lease = pool.acquire(65536)) {
            lease.buffer().put(0, (byte) 7);
        }
        byte[] stream = zlib("hello".getBytes(StandardCharsets.UTF_8));
        byte[] pack = new byte[3 + stream.length];
        System.arraycopy(stream, 0, pack, 3, stream.length);
        byte[] out = new byte[5];
        long consumed;
        try (OffsetInflater inflater = bufkit.newInflater(Format.ZLIB)) {
            consumed = inflater.inflateAt(pack, 3, out, 0, out.length);
        }
        Path archive = work.resolve("app.zip");
        try (ZipOutputStream zip = new ZipOutputStream(Files.newOutputStream(archive))) {
            put(zip, "assets/app.js", "console.log('hello from an archive');\n".repeat(20));
            put(zip, "readme.txt", "hi");
        }
        ExtractReport report = bufkit.extract(archive, work.resolve("out"), ExtractOptions.defaults());
        String readme = Files.readString(work.resolve("out/readme.txt"));
        if (length != 25000 || consumed != stream.length || !Arrays.equals(out, "hello".getBytes(StandardCharsets.UTF_8))
                || report.files() != 2 || !readme.equals("hi")) {
            throw new IllegalStateException("wrong results: " + length + " " + consumed + " " + report);
        }
        System.out.printf("bufkit %s (%s): buffer %d bytes, pool lease, inflated \"hello\" (%d bytes), extracted %d files%n",
                bufkit.version(), bufkit.front(), length, consumed, report.files());
    }

    private static byte[] zlib(byte[] data) {
        Deflater deflater = new Deflater(9);
        deflater.setInput(data);
        deflater.finish();
        byte[] buf = new byte[64];
        int n = deflater.deflate(buf);
        deflater.end();
        return Arrays.copyOf(buf, n);
    }

    private static void put(ZipOutputStream zip, String name, String text) throws IOException {
        zip.putNextEntry(new ZipEntry(name));
        OutputStream o = zip;
        o.write(text.getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
    }
}

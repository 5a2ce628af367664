import com.ericsson.otp.erlang.OtpOutputStream;
import dev.bufkit.BufferConfig;
import dev.bufkit.Bufkit;
import dev.bufkit.GrowableBuffer;
import dev.bufkit.BufferOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;

/**
 * The seed's own workload from Java: JInterface encoding 700,000 strings of 20-30 characters as
 * one external-term list (about 19.6 MB), against the same bytes written to a ByteArrayOutputStream
 * and to bufkit's GrowableBuffer through its OutputStream view (and, for reference, one native
 * append per string). Every variant's bytes are checked to be identical to OtpOutputStream's. Then
 * the result is written to a file: OtpOutputStream.writeTo(FileOutputStream) and
 * ByteArrayOutputStream.writeTo against GrowableBuffer.writeTo(FileChannel), which copies nothing
 * onto the heap. The same bytes again from an encoder written against DataOutput, into
 * DataOutputStream(ByteArrayOutputStream) and into the view (a DataOutput too). One JVM,
 * alternating variants within each round, medians.
 * Usage: java -cp bufkit.jar:OtpErlang.jar:. JInterfaceBench FRONT DIR [ROUNDS]
 */
public final class JInterfaceBench {
    private JInterfaceBench() {}

    static final int STRINGS = 700_000;

    /** The external term format's tags (erl_ext_dist). */
    static final int VERSION = 131, LIST_EXT = 108, STRING_EXT = 107, NIL_EXT = 106;

    /** The list as JInterface writes it. */
    static OtpOutputStream jinterface(String[] strings) {
        OtpOutputStream os = new OtpOutputStream();
        os.write1(VERSION);
        os.write_list_head(strings.length);
        for (String s : strings) os.write_string(s);
        os.write_nil();
        return os;
    }

    /** The list as JInterface writes it, into a stream kept from an earlier message (reset, warm). */
    static void jinterfaceInto(OtpOutputStream os, String[] strings) {
        os.reset();
        os.write1(VERSION);
        os.write_list_head(strings.length);
        for (String s : strings) os.write_string(s);
        os.write_nil();
    }

    /** The same bytes through any OutputStream, as a hand-written encoder would write them. */
    static void encode(String[] strings, OutputStream out) throws IOException {
        out.write(VERSION);
        out.write(LIST_EXT);
        int n = strings.length;
        out.write(n >>> 24);
        out.write(n >>> 16);
        out.write(n >>> 8);
        out.write(n);
        for (String s : strings) {
            byte[] chars = s.getBytes(StandardCharsets.ISO_8859_1);
            out.write(STRING_EXT);
            out.write(chars.length >>> 8);
            out.write(chars.length);
            out.write(chars);
        }
        out.write(NIL_EXT);
    }

    /**
     * The same bytes through any DataOutput: what an encoder written against java.io.DataOutput
     * does. Like write_string, it checks that each string is 8-bit before writing it as STRING_EXT.
     */
    static void encodeData(String[] strings, DataOutput out) throws IOException {
        out.writeByte(VERSION);
        out.writeByte(LIST_EXT);
        out.writeInt(strings.length);
        for (String s : strings) {
            int len = s.length();
            for (int i = 0; i < len; i++) {
                if (s.charAt(i) > 0xFF) throw new IllegalArgumentException("not an 8-bit string: a STRING_EXT takes only Latin-1");
            }
            if (len > 0xFFFF) throw new IllegalArgumentException("longer than a STRING_EXT");
            out.writeByte(STRING_EXT);
            out.writeShort(len);
            out.writeBytes(s);
        }
        out.writeByte(NIL_EXT);
    }

    /** The old way: each string's bytes staged in a small array, then one native append per string. */
    static void appendPerString(String[] strings, GrowableBuffer buf) {
        int n = strings.length;
        buf.append(new byte[] {(byte) VERSION, (byte) LIST_EXT, (byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        byte[] piece = new byte[3 + 65535];
        for (String s : strings) {
            byte[] chars = s.getBytes(StandardCharsets.ISO_8859_1);
            piece[0] = (byte) STRING_EXT;
            piece[1] = (byte) (chars.length >>> 8);
            piece[2] = (byte) chars.length;
            System.arraycopy(chars, 0, piece, 3, chars.length);
            buf.append(piece, 0, 3 + chars.length);
        }
        buf.append(new byte[] {(byte) NIL_EXT});
    }

    /**
     * The floor of any in-memory stream: the same writes copied into one 64 KiB array that wraps
     * around (it never grows, never calls out, never locks). What is left is the encoder's work.
     */
    static final class RingFloor extends OutputStream {
        final byte[] ring = new byte[64 << 10];
        int at;
        long total;

        @Override
        public void write(int b) {
            ring[at] = (byte) b;
            at = (at + 1) & (ring.length - 1);
            total++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            int first = Math.min(len, ring.length - at);
            System.arraycopy(b, off, ring, at, first);
            System.arraycopy(b, off + first, ring, 0, len - first);
            at = (at + len) & (ring.length - 1);
            total += len;
        }
    }

    public static void main(String[] args) throws Exception {
        String front = args[0];
        Path dir = Path.of(args[1]);
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 9;
        Files.createDirectories(dir);
        Bufkit bufkit = Bufkit.load();
        Random random = new Random(42);
        String[] strings = new String[STRINGS];
        char[] alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_".toCharArray();
        for (int i = 0; i < STRINGS; i++) {
            char[] s = new char[20 + random.nextInt(11)];
            for (int c = 0; c < s.length; c++) s[c] = alphabet[random.nextInt(alphabet.length)];
            strings[i] = new String(s);
        }
        byte[] expected = jinterface(strings).toByteArray();
        String[] keys = {"otp_output_stream_ms", "byte_array_output_stream_ms", "bufkit_output_stream_ms", "bufkit_append_per_string_ms",
                "otp_write_file_ms", "baos_write_file_ms", "bufkit_write_channel_ms", "floor_ring_buffer_ms",
                "otp_reused_ms", "bufkit_reused_ms", "data_output_stream_baos_ms", "bufkit_data_output_ms", "bufkit_data_output_reused_ms"};
        double[][] t = new double[keys.length][rounds];
        Path file = dir.resolve("term.bin");
        // A program encoding message after message keeps its stream: reset / clear keep the memory.
        OtpOutputStream otpKept = new OtpOutputStream();
        GrowableBuffer kept = bufkit.newBuffer(BufferConfig.defaults());
        for (int r = -2; r < rounds; r++) {
            boolean measured = r >= 0;
            long t0 = System.nanoTime();
            OtpOutputStream os = jinterface(strings);
            double otp = (System.nanoTime() - t0) / 1e6;
            t0 = System.nanoTime();
            ByteArrayOutputStream baos = new ByteArrayOutputStream();
            encode(strings, baos);
            double baosMs = (System.nanoTime() - t0) / 1e6;
            double viewMs, perString, otpFile, baosFile, channelMs;
            try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
                t0 = System.nanoTime();
                try (OutputStream out = buf.outputStream()) {
                    encode(strings, out);
                }
                viewMs = (System.nanoTime() - t0) / 1e6;
                if (r == -2 && !Arrays.equals(buf.toByteArray(), expected)) throw new AssertionError("the OutputStream view's bytes differ");
                t0 = System.nanoTime();
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                    buf.writeTo(ch);
                }
                channelMs = (System.nanoTime() - t0) / 1e6;
                if (r == -2 && !Arrays.equals(Files.readAllBytes(file), expected)) throw new AssertionError("writeTo's file differs");
            }
            try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
                t0 = System.nanoTime();
                appendPerString(strings, buf);
                perString = (System.nanoTime() - t0) / 1e6;
                if (r == -2 && !Arrays.equals(buf.toByteArray(), expected)) throw new AssertionError("the per-string appends differ");
            }
            if (r == -2 && !Arrays.equals(baos.toByteArray(), expected)) throw new AssertionError("ByteArrayOutputStream's bytes differ");
            t0 = System.nanoTime();
            try (OutputStream out = Files.newOutputStream(file)) {
                os.writeTo(out);
            }
            otpFile = (System.nanoTime() - t0) / 1e6;
            t0 = System.nanoTime();
            try (OutputStream out = Files.newOutputStream(file)) {
                baos.writeTo(out);
            }
            baosFile = (System.nanoTime() - t0) / 1e6;
            RingFloor ring = new RingFloor();
            t0 = System.nanoTime();
            encode(strings, ring);
            double floorMs = (System.nanoTime() - t0) / 1e6;
            if (ring.total != expected.length) throw new AssertionError("the floor wrote " + ring.total);
            t0 = System.nanoTime();
            jinterfaceInto(otpKept, strings);
            double otpReused = (System.nanoTime() - t0) / 1e6;
            t0 = System.nanoTime();
            kept.clear();
            try (OutputStream out = kept.outputStream()) {
                encode(strings, out);
            }
            double bufkitReused = (System.nanoTime() - t0) / 1e6;
            if (r == -2 && !Arrays.equals(kept.toByteArray(), expected)) throw new AssertionError("the reused buffer's bytes differ");
            t0 = System.nanoTime();
            ByteArrayOutputStream dataBaos = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(dataBaos)) {
                encodeData(strings, out);
            }
            double dataBaosMs = (System.nanoTime() - t0) / 1e6;
            if (r == -2 && !Arrays.equals(dataBaos.toByteArray(), expected)) throw new AssertionError("DataOutputStream's bytes differ");
            double dataViewMs;
            try (GrowableBuffer buf = bufkit.newBuffer(BufferConfig.defaults())) {
                t0 = System.nanoTime();
                try (BufferOutputStream out = buf.outputStream()) {
                    encodeData(strings, out);
                }
                dataViewMs = (System.nanoTime() - t0) / 1e6;
                if (r == -2 && !Arrays.equals(buf.toByteArray(), expected)) throw new AssertionError("the DataOutput view's bytes differ");
            }
            t0 = System.nanoTime();
            kept.clear();
            try (BufferOutputStream out = kept.outputStream()) {
                encodeData(strings, out);
            }
            double dataKeptMs = (System.nanoTime() - t0) / 1e6;
            if (r == -2 && !Arrays.equals(kept.toByteArray(), expected)) throw new AssertionError("the reused DataOutput view's bytes differ");
            if (measured) {
                double[] row = {otp, baosMs, viewMs, perString, otpFile, baosFile, channelMs, floorMs, otpReused, bufkitReused,
                        dataBaosMs, dataViewMs, dataKeptMs};
                for (int k = 0; k < keys.length; k++) t[k][r] = row[k];
            }
        }
        Files.deleteIfExists(file);
        kept.close();
        StringBuilder json = new StringBuilder("{\"front\":\"" + front + "\",\"java\":\"" + System.getProperty("java.version")
                + "\",\"strings\":" + STRINGS + ",\"bytes\":" + expected.length);
        for (int k = 0; k < keys.length; k++) {
            Arrays.sort(t[k]);
            json.append(String.format(",\"%s\":%.2f", keys[k], t[k][rounds / 2]));
        }
        System.out.println(json.append('}'));
    }
}

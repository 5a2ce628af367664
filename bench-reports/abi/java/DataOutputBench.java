import dev.bufkit.BufferConfig;
import dev.bufkit.BufferOutputStream;
import dev.bufkit.Bufkit;
import dev.bufkit.GrowableBuffer;
import java.io.DataOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Random;

/**
 * The three encoders of the JInterface workload alone in one JVM, into one kept GrowableBuffer
 * through its view, alternating, medians of 15 rounds after 5 warm-up rounds: the DataOutput
 * encoder with the 8-bit check (as JInterfaceBench's encodeData), without it, and the generic
 * OutputStream encoder (a byte[] per string). Here no other stream type shares the encoders'
 * call sites, unlike in JInterfaceBench.
 * Usage: java -cp bufkit.jar:. DataOutputBench
 */
public final class DataOutputBench {
    static void withCheck(String[] strings, DataOutput out) throws IOException {
        out.writeByte(131); out.writeByte(108); out.writeInt(strings.length);
        for (String s : strings) {
            int len = s.length();
            for (int i = 0; i < len; i++) if (s.charAt(i) > 0xFF) throw new IllegalArgumentException();
            out.writeByte(107); out.writeShort(len); out.writeBytes(s);
        }
        out.writeByte(106);
    }
    static void noCheck(String[] strings, DataOutput out) throws IOException {
        out.writeByte(131); out.writeByte(108); out.writeInt(strings.length);
        for (String s : strings) {
            int len = s.length();
            out.writeByte(107); out.writeShort(len); out.writeBytes(s);
        }
        out.writeByte(106);
    }
    static void generic(String[] strings, OutputStream out) throws IOException {
        out.write(131); out.write(108); out.write(0);out.write(0);out.write(0);out.write(0);
        for (String s : strings) {
            byte[] c = s.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            out.write(107); out.write(c.length >>> 8); out.write(c.length); out.write(c);
        }
        out.write(106);
    }
    public static void main(String[] args) throws Exception {
        Bufkit bk = Bufkit.load();
        Random r = new Random(42);
        String[] strings = new String[700000];
        char[] al = "abcdefghijklmnopqrstuvwxyz0123456789_".toCharArray();
        for (int i = 0; i < strings.length; i++) { char[] s = new char[20 + r.nextInt(11)]; for (int c = 0; c < s.length; c++) s[c] = al[r.nextInt(al.length)]; strings[i] = new String(s); }
        GrowableBuffer buf = bk.newBuffer(BufferConfig.defaults());
        double[][] t = new double[3][15];
        for (int round = -5; round < 15; round++) {
            for (int v = 0; v < 3; v++) {
                buf.clear();
                long t0 = System.nanoTime();
                try (BufferOutputStream out = buf.outputStream()) {
                    if (v == 0) withCheck(strings, out); else if (v == 1) noCheck(strings, out); else generic(strings, out);
                }
                if (round >= 0) t[v][round] = (System.nanoTime() - t0) / 1e6;
            }
        }
        for (double[] x : t) Arrays.sort(x);
        System.out.printf("%s check %.2f nocheck %.2f generic %.2f%n", System.getProperty("java.version"), t[0][7], t[1][7], t[2][7]);
    }
}

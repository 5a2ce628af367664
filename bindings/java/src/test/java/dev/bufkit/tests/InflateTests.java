package dev.bufkit.tests;

import dev.bufkit.BufferConfig;
import dev.bufkit.BufferPool;
import dev.bufkit.ExtractCancel;
import dev.bufkit.ExtractException;
import dev.bufkit.ExtractMode;
import dev.bufkit.ExtractOptions;
import dev.bufkit.ExtractReport;
import dev.bufkit.Lease;
import dev.bufkit.InflateBatch;
import dev.bufkit.Format;
import dev.bufkit.OffsetInflater;
import dev.bufkit.PoolConfig;
import dev.bufkit.PoolStats;
import dev.bufkit.BufferStats;
import dev.bufkit.Bufkit;
import dev.bufkit.BufkitException;
import dev.bufkit.GrowableBuffer;
import dev.bufkit.Growth;
import dev.bufkit.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bufkit.tests.Support.*;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Inflating at offsets, in batches, and streams fed in strides, through the loaded front. Run on the front {@link Support} loads, by JUnit. */
final class InflateTests {
    private InflateTests() {}

    /** A stream fed in strides: exact bytes used, the total once ended, nothing taken after it;
     *  truncation, a wrong size and a flipped byte have their statuses; reset reuses it. */
    @Test
    @DisplayName("inflate: a stream fed in strides")
    void inflateStream() {
        byte[] data = pattern(100_000);
        byte[] stream = deflate(data, false);
        byte[] input = concat(stream, "NEXT OBJECT".getBytes());
        for (int stride : new int[] {1, 7, 4096, 1 << 20}) {
            byte[] out = new byte[data.length];
            try (dev.bufkit.InflateStream s = bufkit.newInflateStream(dev.bufkit.Format.ZLIB, 0, out)) {
                int at = 0;
                while (!s.isFinished() && at < input.length) {
                    int n = Math.min(stride, input.length - at);
                    int used = s.feed(input, at, n);
                    check(used == n || s.isFinished(), "all used unless the stream ended: " + used + " of " + n);
                    at += used;
                }
                check(s.isFinished() && s.consumed() == stream.length && at == stream.length, "stride " + stride + ": consumed " + s.consumed());
                check(Arrays.equals(out, data) && s.output() == out, "stride " + stride + ": the bytes");
                check(s.feed(input, at, input.length - at) == 0, "nothing belongs to an ended stream");
                s.finish(); // ended: nothing to say
            }
        }
        try (dev.bufkit.InflateStream s = bufkit.newInflateStream(dev.bufkit.Format.ZLIB, 1000, new byte[data.length])) {
            s.feed(stream, 0, stream.length / 2);
            BufkitException truncated = expect(BufkitException.class, s::finish);
            check(truncated.status() == Status.TRUNCATED, "truncated: " + truncated.status());
            s.reset(0, new byte[data.length - 1]); // one byte short
            BufkitException size = expect(BufkitException.class, () -> s.feed(stream));
            check(size.status() == Status.SIZE_MISMATCH, "size: " + size.status());
            byte[] flipped = stream.clone();
            flipped[flipped.length - 2] ^= 1; // inside the Adler-32
            s.reset(0, new byte[data.length]);
            BufkitException sum = expect(BufkitException.class, () -> s.feed(flipped));
            check(sum.status() == Status.CHECKSUM, "checksum: " + sum.status());
            byte[] again = new byte[data.length];
            s.reset(0, again);
            check(s.feed(stream) == stream.length && s.isFinished() && Arrays.equals(again, data), "reset, then a whole stream");
            expect(IndexOutOfBoundsException.class, () -> s.feed(stream, 5, stream.length));
            expect(IllegalArgumentException.class, () -> s.reset(-1, again));
        }
        byte[] raw = deflate(data, true);
        try (dev.bufkit.InflateStream s = bufkit.newInflateStream(dev.bufkit.Format.RAW, 0, new byte[data.length])) {
            check(s.feed(concat(raw, new byte[9])) == raw.length && s.consumed() == raw.length, "raw deflate");
        }
        dev.bufkit.InflateStream closed = bufkit.newInflateStream(dev.bufkit.Format.ZLIB, 0, new byte[1]);
        closed.close();
        expect(IllegalStateException.class, () -> closed.feed(new byte[1]));
    }

    @Test
    @DisplayName("inflate: chained streams, exact consumed")
    void inflateChained() {
        byte[][] objects = {"hello".getBytes(), pattern(5000), new byte[0], pattern(70_000)};
        byte[][] streams = new byte[objects.length][];
        for (int i = 0; i < objects.length; i++) streams[i] = deflate(objects[i], false);
        byte[] input = concat(concat(streams), "JUNK AFTER".getBytes());
        try (OffsetInflater inf = bufkit.newInflater(Format.ZLIB)) {
            long at = 0;
            for (int i = 0; i < objects.length; i++) {
                byte[] out = new byte[objects[i].length];
                long consumed = inf.inflateAt(input, at, out, 0, out.length);
                check(consumed == streams[i].length, "stream " + i + " consumed " + consumed);
                check(Arrays.equals(out, objects[i]), "stream " + i + " bytes");
                at += consumed;
            }
        }
        try (OffsetInflater raw = bufkit.newInflater(Format.RAW)) {
            byte[] out = new byte[5];
            check(raw.inflateAt(deflate("hello".getBytes(), true), 0, out, 0, 5) > 0 && Arrays.equals(out, "hello".getBytes()), "raw");
        }
    }

    @Test
    @DisplayName("inflate: every failure has its status")
    void inflateFailures() {
        byte[] data = pattern(3000);
        byte[] s = deflate(data, false);
        try (OffsetInflater inf = bufkit.newInflater(Format.ZLIB)) {
            byte[] out = new byte[3000];
            expectStatus(Status.TRUNCATED, () -> inf.inflateAt(Arrays.copyOf(s, s.length - 3), 0, out, 0, 3000));
            byte[] bad = s.clone();
            bad[bad.length - 1] ^= 1;
            Arrays.fill(out, (byte) 7);
            expectStatus(Status.CHECKSUM, () -> inf.inflateAt(bad, 0, out, 0, 3000));
            for (byte b : out) check(b == 0, "nothing handed out before the checksum verifies");
            expectStatus(Status.SIZE_MISMATCH, () -> inf.inflateAt(s, 0, out, 0, 2999));
            expectStatus(Status.OUT_OF_RANGE, () -> inf.inflateAt(s, s.length + 1, out, 0, 1));
            byte[] corrupt = s.clone();
            corrupt[0] = 0x79;
            expectStatus(Status.CORRUPT, () -> inf.inflateAt(corrupt, 0, out, 0, 3000));
            expect(IndexOutOfBoundsException.class, () -> inf.inflateAt(s, 0, out, 1, 3000));
            expect(IllegalArgumentException.class, () -> inf.inflateAt(s, -1, out, 0, 3000));
            check(inf.inflateAt(s, 0, out, 0, 3000) == s.length && Arrays.equals(out, data), "still works");
        }
        OffsetInflater closed = bufkit.newInflater(Format.ZLIB);
        closed.close();
        expect(IllegalStateException.class, () -> closed.inflateAt(s, 0, new byte[3000], 0, 3000));
    }

    @Test
    @DisplayName("inflate: direct buffers")
    void inflateDirect() {
        byte[] data = pattern(10_000);
        byte[] s = concat(deflate(data, false), "next".getBytes());
        ByteBuffer in = ByteBuffer.allocateDirect(s.length).put(s).flip();
        ByteBuffer out = ByteBuffer.allocateDirect(10_000);
        try (OffsetInflater inf = bufkit.newInflater(Format.ZLIB)) {
            long consumed = inf.inflateAt(in, 0, out);
            check(consumed == s.length - 4, "consumed " + consumed);
            byte[] back = new byte[10_000];
            out.get(back);
            check(Arrays.equals(back, data), "bytes");
            expect(IllegalArgumentException.class, () -> inf.inflateAt(ByteBuffer.wrap(s), 0, out));
        }
    }

    @Test
    @DisplayName("inflate: batch")
    void inflateBatch() {
        byte[] a = deflate("first".getBytes(), false), b = deflate("second!".getBytes(), false);
        byte[] input = concat(a, b);
        try (OffsetInflater inf = bufkit.newInflater(Format.ZLIB)) {
            long[] consumed = new long[3];
            int[] status = new int[3];
            byte[] out = new byte[13];
            int ok = inf.inflateBatch(input, new long[] {0, a.length, 999}, new int[] {5, 7, 1}, out, consumed, status);
            check(ok == 2, "ok " + ok);
            check(new String(out, 0, 12).equals("firstsecond!"), "bytes");
            check(consumed[0] == a.length && consumed[1] == b.length && status[0] == 0 && status[1] == 0, "results");
            check(status[2] == Status.OUT_OF_RANGE.code, "status " + status[2]);
            expect(IllegalArgumentException.class, () -> inf.inflateBatch(input, new long[] {0}, new int[] {5}, new byte[4], new long[1], new int[1]));
        }
    }

    /** InflateBatch: results per stream, reuse after clear, a corrupt stream beside good ones, misuse refused. */
    @Test
    @DisplayName("inflate: a reusable InflateBatch")
    void inflateBatchObject() {
        byte[] a = deflate("first".getBytes(), false), b = deflate(pattern(20_000), false), c = deflate("third".getBytes(), false);
        byte[] bad = c.clone();
        bad[bad.length - 1] ^= 1; // the Adler-32 trailer
        byte[] input = concat(concat(a, b), concat(c, bad));
        try (OffsetInflater inf = bufkit.newInflater(Format.ZLIB)) {
            InflateBatch batch = new InflateBatch(2); // grows past its first capacity
            check(batch.add(0, 5) == 0 && batch.add(a.length, 20_000) == 1, "indexes");
            batch.add(a.length + b.length, 5);
            batch.add(a.length + b.length + c.length, 5);
            batch.add(input.length + 10, 3);
            expect(IllegalStateException.class, () -> batch.status(0));
            byte[] out = new byte[Math.toIntExact(batch.totalSize())];
            check(inf.inflate(input, batch, out) == 3, "three good streams");
            check(batch.status(0) == Status.OK && batch.consumed(0) == a.length, "first");
            check(batch.status(1) == Status.OK && batch.consumed(1) == b.length, "second");
            check(Arrays.equals(Arrays.copyOfRange(out, batch.outputOffset(1), batch.outputOffset(1) + batch.outputLength(1)), pattern(20_000)), "second's bytes");
            check(new String(out, batch.outputOffset(2), 5).equals("third"), "third's bytes");
            check(batch.status(3) == Status.CHECKSUM, "a bad trailer: " + batch.status(3));
            check(batch.status(4) == Status.OUT_OF_RANGE, "past the input: " + batch.status(4));
            for (int i = batch.outputOffset(3); i < batch.outputOffset(3) + 5; i++) check(out[i] == 0, "a failed stream's range is zeroed");
            expect(IndexOutOfBoundsException.class, () -> batch.status(5));
            // Reused: cleared, refilled, inflated again into a smaller array.
            batch.clear();
            batch.add(a.length + b.length, 5);
            check(batch.size() == 1 && batch.totalSize() == 5 && batch.outputOffset(0) == 0, "cleared");
            expect(IllegalStateException.class, () -> batch.consumed(0));
            byte[] small = new byte[5];
            check(inf.inflate(input, batch, small) == 1 && new String(small).equals("third"), "reused");
            expect(IllegalArgumentException.class, () -> inf.inflate(input, batch, new byte[4]));
            expect(IllegalArgumentException.class, () -> batch.add(-1, 5));
            expect(IllegalArgumentException.class, () -> batch.add(0, -5));
            expect(NullPointerException.class, () -> inf.inflate(null, batch, small));
        }
    }
}

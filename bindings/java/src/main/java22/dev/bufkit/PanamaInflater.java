package dev.bufkit;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** A {@code bk_inflater} held as its address; also takes {@link MemorySegment}s directly. */
final class PanamaInflater extends OffsetInflater {
    private final MemorySegment handle;
    /** Where bk_inflate_at writes the count, and bk_inflate_batch its success count; used under
     *  this object's monitor only. */
    private final long[] consumedSlot = new long[1];
    /** bk_inflate_batch's request and result arrays (two longs a stream each), kept between
     *  batches so that a reused InflateBatch allocates nothing; used under this object's monitor only. */
    private long[] requests = new long[0], results = new long[0];

    PanamaInflater(MemorySegment handle) {
        super(() -> free(handle)); // captures the address only, never this
        this.handle = handle;
    }

    private static void free(MemorySegment handle) {
        try {
            BufkitLibrary.INFLATER_FREE.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    /** The bytes consumed, or minus the status; the caller holds this object's monitor. */
    private long call(MemorySegment input, long offset, MemorySegment out) {
        int status;
        try {
            status = (int) BufkitLibrary.INFLATE_AT.invokeExact(handle, input, input.byteSize(), offset, out, out.byteSize(),
                    MemorySegment.ofArray(consumedSlot));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
        return status == 0 ? consumedSlot[0] : -(long) status;
    }

    /** Inflates the stream at {@code input[offset]} into all of {@code out} (its exact size);
     *  returns the bytes consumed. Heap or native segments, no copy. */
    public long inflateAt(MemorySegment input, long offset, MemorySegment out) {
        long result;
        synchronized (this) {
            result = call(input, offset, out);
        }
        if (result < 0) {
            int status = (int) -result;
            throw new dev.bufkit.BufkitException("bk_inflate_at", status, Failures.message(status));
        }
        return result;
    }

    @Override
    long nativeInflate(byte[] input, long offset, byte[] out, int outOffset, int length) {
        return call(MemorySegment.ofArray(input), offset, MemorySegment.ofArray(out).asSlice(outOffset, length));
    }

    @Override
    long nativeInflateDirect(ByteBuffer input, long offset, ByteBuffer out, int outOffset, int length) {
        return call(MemorySegment.ofBuffer(input.duplicate().clear()), offset,
                MemorySegment.ofBuffer(out.duplicate().clear()).asSlice(outOffset, length));
    }

    @Override
    int nativeBatch(byte[] input, long[] offsets, int[] sizes, int n, byte[] out, long[] consumed, int[] status) {
        if (requests.length < 2 * n) {
            requests = new long[2 * n];
            results = new long[2 * n];
        }
        long[] requests = this.requests, results = this.results;
        for (int i = 0; i < n; i++) {
            requests[2 * i] = offsets[i] < 0 ? -1L : offsets[i]; // -1 is SIZE_MAX: out of range
            requests[2 * i + 1] = sizes[i];
        }
        long[] ok = consumedSlot;
        int r;
        try {
            r = (int) BufkitLibrary.INFLATE_BATCH.invokeExact(handle, MemorySegment.ofArray(input), (long) input.length,
                    MemorySegment.ofArray(requests), (long) n, MemorySegment.ofArray(out), (long) out.length,
                    MemorySegment.ofArray(results), MemorySegment.ofArray(ok));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
        if (r != 0) return -r;
        for (int i = 0; i < n; i++) {
            status[i] = (int) results[2 * i]; // bk_status in the low 32 bits (x86-64 / aarch64: little-endian)
            consumed[i] = results[2 * i + 1];
        }
        return (int) ok[0];
    }

    @Override
    String statusMessage(int code) {
        return Failures.message(code);
    }
}

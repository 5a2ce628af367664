package dev.bufkit;

import java.lang.foreign.MemorySegment;

/** The Panama front's {@link InflateStream}: one critical downcall per feed, over the heap arrays. */
final class PanamaInflateStream extends InflateStream {
    private static final byte[] ONE = new byte[1];

    private final MemorySegment handle;

    PanamaInflateStream(MemorySegment handle, byte[] out) {
        super(() -> free(handle), out); // captures the address only, never this
        this.handle = handle;
    }

    private static void free(MemorySegment handle) {
        try {
            BufkitLibrary.INFLATE_STREAM_FREE.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    long nativeFeed(byte[] input, int offset, int length, byte[] out, long[] consumed) {
        long[] used = new long[1];
        // An empty feed (the input has ended) still passes a real address.
        MemorySegment in = length == 0 ? MemorySegment.ofArray(ONE).asSlice(0, 0) : MemorySegment.ofArray(input).asSlice(offset, length);
        try {
            int status = (int) BufkitLibrary.INFLATE_STREAM_FEED.invokeExact(handle, in, (long) length, MemorySegment.ofArray(out),
                    (long) out.length, MemorySegment.ofArray(used), MemorySegment.ofArray(consumed));
            return status == 0 ? used[0] : -(long) status;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeReset(long origin) {
        try {
            return (int) BufkitLibrary.INFLATE_STREAM_RESET.invokeExact(handle, origin);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    String statusMessage(int code) {
        return Failures.message(code);
    }
}

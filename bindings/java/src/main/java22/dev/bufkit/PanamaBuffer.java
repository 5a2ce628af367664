package dev.bufkit;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;

/** A {@code bk_buffer} held as its address; every call is one downcall. */
final class PanamaBuffer extends GrowableBuffer {
    private final MemorySegment handle;

    PanamaBuffer(MemorySegment handle) {
        super(() -> free(handle)); // captures the address only, never this
        this.handle = handle;
    }

    private static void free(MemorySegment handle) {
        try {
            BufkitLibrary.BUFFER_FREE.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeAppend(byte[] data, int offset, int length) {
        try {
            return (int) BufkitLibrary.BUFFER_APPEND.invokeExact(handle, MemorySegment.ofArray(data).asSlice(offset, length), (long) length);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeAppendDirect(ByteBuffer direct, int offset, int length) {
        try {
            MemorySegment src = MemorySegment.ofBuffer(direct.duplicate().clear()).asSlice(offset, length);
            return (int) BufkitLibrary.BUFFER_APPEND.invokeExact(handle, src, (long) length);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeReserve(long additional) {
        try {
            return (int) BufkitLibrary.BUFFER_RESERVE.invokeExact(handle, additional);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeClear() {
        try {
            return (int) BufkitLibrary.BUFFER_CLEAR.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeStats(long[] out) {
        try {
            return (int) BufkitLibrary.BUFFER_GET_STATS.invokeExact(handle, MemorySegment.ofArray(out));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeCopyOut(long offset, byte[] dst, int length, long[] copied) {
        try {
            return (int) BufkitLibrary.BUFFER_COPY_OUT.invokeExact(handle, offset, MemorySegment.ofArray(dst).asSlice(0, length), (long) length,
                    MemorySegment.ofArray(copied));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    /** Each segment as a buffer of a confined arena closed on return: unusable after this call. */
    @Override
    long nativeWriteTo(WritableByteChannel channel) throws IOException {
        long[] count = new long[1], data = new long[1], len = new long[1];
        long written = 0;
        try (Arena arena = Arena.ofConfined()) {
            int status = (int) BufkitLibrary.BUFFER_SEGMENT_COUNT.invokeExact(handle, MemorySegment.ofArray(count));
            if (status != 0) return -status;
            for (long i = 0; i < count[0]; i++) {
                status = (int) BufkitLibrary.BUFFER_SEGMENT.invokeExact(handle, i, MemorySegment.ofArray(data), MemorySegment.ofArray(len));
                if (status != 0) return -status;
                written += writeFully(channel, MemorySegment.ofAddress(data[0]).reinterpret(len[0], arena, null).asByteBuffer());
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
        return written;
    }

    @Override
    int nativeFlatten() {
        try {
            return (int) BufkitLibrary.BUFFER_FLATTEN.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    String statusMessage(int code) {
        return Failures.message(code);
    }
}

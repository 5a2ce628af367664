package dev.bufkit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * The Panama front's {@link AssetArchive}: downcalls straight into bufkit.h; reads go into the heap
 * array, pinned, except for an archive read from a channel, whose reads call back into Java: they
 * go through native memory, with plain downcalls.
 */
final class PanamaArchive extends AssetArchive {
    private final MemorySegment handle;
    /** Read from a channel: reads call back (no critical downcalls, nothing pinned). */
    private final boolean callsBack;

    PanamaArchive(MemorySegment handle, boolean callsBack) {
        super(() -> free(handle)); // captures the address only, never this
        this.handle = handle;
        this.callsBack = callsBack;
    }

    private static void free(MemorySegment handle) {
        try {
            BufkitLibrary.ARCHIVE_FREE.invokeExact(handle);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeCount() {
        long[] count = new long[1];
        try {
            int status = (int) BufkitLibrary.ARCHIVE_ENTRY_COUNT.invokeExact(handle, MemorySegment.ofArray(count));
            return status == 0 ? (int) Math.min(count[0], Integer.MAX_VALUE) : 0;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeVerify(int threads, long[] out) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment failed = arena.allocate(ValueLayout.JAVA_LONG), first = arena.allocate(ValueLayout.JAVA_LONG);
            int status = (int) BufkitLibrary.ARCHIVE_VERIFY.invokeExact(handle, threads, failed, first);
            out[0] = failed.get(ValueLayout.JAVA_LONG, 0);
            out[1] = first.get(ValueLayout.JAVA_LONG, 0); // SIZE_MAX reads as -1
            return status;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    long nativeFind(byte[] utf8Name) {
        long[] index = new long[1];
        try {
            int status = (int) BufkitLibrary.ARCHIVE_FIND.invokeExact(handle, MemorySegment.ofArray(utf8Name), (long) utf8Name.length,
                    MemorySegment.ofArray(index));
            return status == 0 ? index[0] : -(long) status;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int[] nativeList(byte[] utf8Pattern, int[] status) {
        // bk_archive_list is bound as an ordinary downcall (a long list may take a while): its
        // arguments are native memory.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pattern = utf8Pattern == null ? MemorySegment.NULL : arena.allocateFrom(ValueLayout.JAVA_BYTE, utf8Pattern);
            long patternLen = utf8Pattern == null ? 0 : utf8Pattern.length;
            MemorySegment count = arena.allocate(ValueLayout.JAVA_LONG);
            // One pass over the names, with room for every entry: no more can match.
            long capacity = nativeCount();
            MemorySegment indexes = arena.allocate(ValueLayout.JAVA_LONG, Math.max(capacity, 1));
            int code = (int) BufkitLibrary.ARCHIVE_LIST.invokeExact(handle, pattern, patternLen, indexes, capacity, count);
            long n = count.get(ValueLayout.JAVA_LONG, 0);
            if (code == 0 && n > Integer.MAX_VALUE - 8) code = Status.LENGTH_OVERFLOW.code;
            if (code != 0) {
                status[0] = code;
                return null;
            }
            int[] out = new int[(int) n];
            for (int i = 0; i < out.length; i++) out[i] = (int) indexes.getAtIndex(ValueLayout.JAVA_LONG, i);
            return out;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    /** bk_archive_entry's fields as indexes into the long[] it is read into (heap memory, pinned for the call). */
    private static final int ENTRY_WORDS = (int) (Layouts.ARCHIVE_ENTRY.byteSize() / 8);
    private static final long[] ENTRY_OFFSETS = java.util.stream.Stream.of("size", "compressed_size", "crc32", "method", "is_directory")
            .mapToLong(field -> Layouts.offset(Layouts.ARCHIVE_ENTRY, field)).toArray();

    @Override
    int nativeInfo(int index, long[] out) {
        long[] words = new long[ENTRY_WORDS];
        MemorySegment info = MemorySegment.ofArray(words);
        try {
            int status = (int) BufkitLibrary.ARCHIVE_ENTRY_INFO.invokeExact(handle, (long) index, info);
            if (status != 0) return status;
            for (int i = 0; i < ENTRY_OFFSETS.length; i++) {
                out[i] = i < 2 ? info.get(ValueLayout.JAVA_LONG_UNALIGNED, ENTRY_OFFSETS[i])
                        : Integer.toUnsignedLong(info.get(ValueLayout.JAVA_INT_UNALIGNED, ENTRY_OFFSETS[i]));
            }
            return 0;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    /** Find, size and read: three downcalls, no native memory allocated. */
    @Override
    byte[] nativeReadAll(byte[] utf8Name, int[] status) {
        if (callsBack) return super.nativeReadAll(utf8Name, status);
        long[] word = new long[1];
        try {
            int code = (int) BufkitLibrary.ARCHIVE_FIND.invokeExact(handle, MemorySegment.ofArray(utf8Name), (long) utf8Name.length,
                    MemorySegment.ofArray(word));
            long index = word[0];
            if (code == 0) code = (int) BufkitLibrary.ARCHIVE_ENTRY_SIZE.invokeExact(handle, index, MemorySegment.ofArray(word));
            if (code == 0 && word[0] > Integer.MAX_VALUE - 8) code = dev.bufkit.Status.LENGTH_OVERFLOW.code;
            if (code != 0) {
                status[0] = code;
                return null;
            }
            byte[] out = new byte[(int) word[0]];
            code = (int) BufkitLibrary.ARCHIVE_READ.invokeExact(handle, index, MemorySegment.ofArray(out), (long) out.length,
                    MemorySegment.ofArray(word));
            if (code != 0) {
                status[0] = code;
                return null;
            }
            return out;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    /**
     * The view's segment belongs to an automatic arena of its own, whose cleanup runs
     * {@code whenUnreachable}: every buffer or segment derived from it refers to that arena's scope.
     */
    @Override
    ByteBuffer nativeView(int index, int[] status, Runnable whenUnreachable) {
        long[] data = new long[1], len = new long[1];
        try {
            int code = (int) BufkitLibrary.ARCHIVE_VIEW.invokeExact(handle, (long) index, MemorySegment.ofArray(data),
                    MemorySegment.ofArray(len));
            if (code != 0) {
                status[0] = code;
                return null;
            }
            return MemorySegment.ofAddress(data[0]).reinterpret(len[0], Arena.ofAuto(), unused -> whenUnreachable.run()).asByteBuffer();
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    byte[] nativeName(int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment len = arena.allocate(ValueLayout.JAVA_LONG);
            int status = (int) BufkitLibrary.ARCHIVE_ENTRY_NAME.invokeExact(handle, (long) index, name, len);
            if (status != 0) return null;
            long n = len.get(ValueLayout.JAVA_LONG, 0);
            return name.get(ValueLayout.ADDRESS, 0).reinterpret(n).toArray(ValueLayout.JAVA_BYTE);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    long nativeRead(int index, byte[] out, int offset, int len) {
        if (callsBack) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment tmp = arena.allocate(Math.max(len, 1)).asSlice(0, len);
                long read = read(index, tmp);
                if (read > 0) MemorySegment.copy(tmp, ValueLayout.JAVA_BYTE, 0, out, offset, (int) read);
                return read;
            }
        }
        return read(index, MemorySegment.ofArray(out).asSlice(offset, len));
    }

    @Override
    long nativeReadDirect(int index, ByteBuffer direct, int position, int len) {
        return read(index, MemorySegment.ofBuffer(direct.duplicate().position(position)).asSlice(0, len));
    }

    /** {@code bk_archive_read} into {@code dst}: native memory when the archive calls back. */
    private long read(int index, MemorySegment dst) {
        try (Arena arena = Arena.ofConfined()) {
            if (callsBack) {
                MemorySegment written = arena.allocate(ValueLayout.JAVA_LONG);
                int status = (int) BufkitLibrary.ARCHIVE_READ_CALLING_BACK.invokeExact(handle, (long) index, dst, dst.byteSize(), written);
                return status == 0 ? written.get(ValueLayout.JAVA_LONG, 0) : -(long) status;
            }
            long[] written = new long[1];
            int status = (int) BufkitLibrary.ARCHIVE_READ.invokeExact(handle, (long) index, dst, dst.byteSize(), MemorySegment.ofArray(written));
            return status == 0 ? written[0] : -(long) status;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    long nativeReaderOpen(int index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int status = (int) BufkitLibrary.ARCHIVE_READER_OPEN.invokeExact(handle, (long) index, out);
            return status == 0 ? out.get(ValueLayout.ADDRESS, 0).address() : -(long) status;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    long nativeReaderRead(long reader, byte[] out, int offset, int len) {
        if (callsBack) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment tmp = arena.allocate(Math.max(len, 1));
                MemorySegment n = arena.allocate(ValueLayout.JAVA_LONG);
                int status = (int) BufkitLibrary.ARCHIVE_READER_READ_CALLING_BACK.invokeExact(MemorySegment.ofAddress(reader),
                        tmp, (long) len, n);
                if (status != 0) return -(long) status;
                long read = n.get(ValueLayout.JAVA_LONG, 0);
                MemorySegment.copy(tmp, ValueLayout.JAVA_BYTE, 0, out, offset, (int) read);
                return read;
            } catch (Throwable t) {
                throw Failures.rethrow(t);
            }
        }
        long[] n = new long[1];
        try {
            int status = (int) BufkitLibrary.ARCHIVE_READER_READ.invokeExact(MemorySegment.ofAddress(reader),
                    MemorySegment.ofArray(out).asSlice(offset, len), (long) len, MemorySegment.ofArray(n));
            return status == 0 ? n[0] : -(long) status;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    void nativeReaderFree(long reader) {
        try {
            BufkitLibrary.ARCHIVE_READER_FREE.invokeExact(MemorySegment.ofAddress(reader));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    long nativeReaderCores(long reader) {
        long[] cores = new long[1];
        try {
            int status = (int) BufkitLibrary.ARCHIVE_READER_CORES.invokeExact(MemorySegment.ofAddress(reader),
                    MemorySegment.ofArray(cores));
            return status == 0 ? cores[0] : 1;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeReaderWait(long reader) {
        try {
            return (int) BufkitLibrary.ARCHIVE_READER_WAIT.invokeExact(MemorySegment.ofAddress(reader));
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeSetParallelInflate(int mode) {
        try {
            return (int) BufkitLibrary.ARCHIVE_SET_PARALLEL_INFLATE.invokeExact(handle, mode);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    String statusMessage(int code) {
        return Failures.message(code);
    }

    @Override
    long nativeReadAt(int index, long at, byte[] out, int offset, int len) {
        // Through native memory: the first slice of an entry may inflate all of it, too long for a
        // critical call that pins the array.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment tmp = arena.allocate(Math.max(len, 1));
            long read = readAt(index, at, tmp.asSlice(0, len), arena);
            if (read > 0) MemorySegment.copy(tmp, ValueLayout.JAVA_BYTE, 0, out, offset, (int) read);
            return read;
        }
    }

    @Override
    long nativeReadAtDirect(int index, long at, ByteBuffer direct, int position, int len) {
        try (Arena arena = Arena.ofConfined()) {
            return readAt(index, at, MemorySegment.ofBuffer(direct.duplicate().position(position)).asSlice(0, len), arena);
        }
    }

    private long readAt(int index, long at, MemorySegment dst, Arena arena) {
        try {
            MemorySegment read = arena.allocate(ValueLayout.JAVA_LONG);
            int status = (int) BufkitLibrary.ARCHIVE_READ_AT.invokeExact(handle, (long) index, at, dst, dst.byteSize(), read);
            return status == 0 ? read.get(ValueLayout.JAVA_LONG, 0) : -(long) status;
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeSetCheckpointLimits(long span, long budget) {
        try {
            return (int) BufkitLibrary.ARCHIVE_SET_CHECKPOINT_LIMITS.invokeExact(handle, span, budget);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    byte[] nativeCheckpointsExport(int index, int[] status) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int code = (int) BufkitLibrary.BUFFER_NEW.invokeExact(MemorySegment.NULL, out);
            if (code != 0) {
                status[0] = code;
                return null;
            }
            MemorySegment buffer = out.get(ValueLayout.ADDRESS, 0);
            try {
                code = (int) BufkitLibrary.ARCHIVE_CHECKPOINTS_EXPORT.invokeExact(handle, (long) index, buffer);
                MemorySegment data = arena.allocate(ValueLayout.ADDRESS), len = arena.allocate(ValueLayout.JAVA_LONG);
                if (code == 0) code = (int) BufkitLibrary.BUFFER_DATA.invokeExact(buffer, data, len);
                if (code == 0 && len.get(ValueLayout.JAVA_LONG, 0) > Integer.MAX_VALUE - 8) code = Status.LENGTH_OVERFLOW.code;
                status[0] = code;
                if (code != 0) return null;
                long n = len.get(ValueLayout.JAVA_LONG, 0);
                return data.get(ValueLayout.ADDRESS, 0).reinterpret(n).toArray(ValueLayout.JAVA_BYTE);
            } finally {
                BufkitLibrary.BUFFER_FREE.invokeExact(buffer);
            }
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }

    @Override
    int nativeCheckpointsImport(int index, byte[] bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment copy = arena.allocate(Math.max(bytes.length, 1));
            MemorySegment.copy(bytes, 0, copy, ValueLayout.JAVA_BYTE, 0, bytes.length);
            return (int) BufkitLibrary.ARCHIVE_CHECKPOINTS_IMPORT.invokeExact(handle, (long) index, copy, (long) bytes.length);
        } catch (Throwable t) {
            throw Failures.rethrow(t);
        }
    }
}

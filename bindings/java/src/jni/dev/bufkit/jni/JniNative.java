package dev.bufkit.jni;

import java.nio.ByteBuffer;

/** The JNI glue's native methods (bindings/java/c_src/, a file per object): one per bufkit.h call. */
final class JniNative {
    private JniNative() {}

    static {
        // The jar's own copy (or -Ddev.bufkit.library): see dev.bufkit.NativeLibrary.
        System.load(dev.bufkit.NativeLibrary.path().toString());
    }

    static native String version();

    static native int abiVersion();

    static native int testPanic();

    static native String statusMessage(int code);

    /** Stores the new handle in {@code handleOut[0]}. */
    static native int bufferNew(int growth, double factor, long step, long chunkSize, long maxCapacity, long initialCapacity, long[] handleOut);

    static native void bufferFree(long handle);

    static native int bufferAppend(long handle, byte[] data, int offset, int length);

    static native int bufferAppendDirect(long handle, ByteBuffer direct, int offset, int length);

    static native int bufferReserve(long handle, long additional);

    static native int bufferClear(long handle);

    static native int bufferStats(long handle, long[] out);

    static native int bufferCopyOut(long handle, long offset, byte[] dst, int length, long[] copiedOut);

    /** bk_buffer_segment_count: the count, or -status. */
    static native long bufferSegmentCount(long handle);

    /** bk_buffer_segment: a direct buffer over segment {@code index} (valid until the buffer changes), or null. */
    static native ByteBuffer bufferSegment(long handle, int index);

    static native int bufferFlatten(long handle);

    /** Stores the new pool in {@code handleOut[0]}. */
    static native int poolNew(long minClass, long maxClass, long maxRetained, long perClass, long threadCache,
            boolean zero, long decayMillis, long[] handleOut);

    static native int poolFree(long pool);

    /** Fills {@code leaseOut[4]}: data address, length, pool, id. */
    static native int poolAcquire(long pool, long size, long[] leaseOut);

    static native int poolRelease(long pool, long[] lease);

    static native int poolTrim(long pool);

    static native int poolStats(long pool, long[] out);

    static native int inflaterNew(int format, long[] handleOut);

    static native void inflaterFree(long handle);

    /** bk_inflate_stream_new: the handle into {@code handleOut[0]}. */
    static native int inflateStreamNew(int format, long origin, long[] handleOut);

    /** bk_inflate_stream_free. */
    static native void inflateStreamFree(long handle);

    /** bk_inflate_stream_reset. */
    static native int inflateStreamReset(long handle, long origin);

    /** bk_inflate_stream_feed: the bytes used, or -status; the total into {@code consumedOut[0]} once ended. */
    static native long inflateStreamFeed(long handle, byte[] input, int offset, int length, byte[] out, long[] consumedOut);

    static native long inflateAt(long handle, byte[] input, long offset, byte[] out, int outOffset, int length);

    static native long inflateAtDirect(long handle, ByteBuffer input, long offset, ByteBuffer out, int outOffset, int length);

    /** Returns successes, or -status if the call itself failed. */
    static native int inflateBatch(long handle, byte[] input, long[] offsets, int[] sizes, int n, byte[] out, long[] consumed, int[] status);

    /** bk_archive_open (holding 0 read, 1 map; local headers 0 at open, 1 on first read): the handle into {@code handleOut[0]}. */
    static native int archiveOpen(String path, int holding, int localHeaders, long[] handleOut);

    /** bk_archive_free. */
    static native void archiveFree(long handle);

    /** bk_archive_entry_count. */
    static native int archiveCount(long handle);

    /** bk_archive_find: the index, or -status. */
    static native long archiveFind(long handle, byte[] utf8Name);

    /** find, entry size and read in one call: the entry in a new array, or null with the status in {@code status[0]}. */
    static native byte[] archiveReadAll(long handle, byte[] utf8Name, int[] status);

    /** bk_archive_view: a direct buffer over the stored entry, or null with the status in {@code status[0]}. */
    static native java.nio.ByteBuffer archiveView(long handle, int index, int[] status);

    /** bk_archive_entry_info into {@code out[5]}: size, compressed size, CRC-32, method, directory. */
    static native int archiveInfo(long handle, int index, long[] out);

    /** bk_archive_verify: the status; failed count and first failed index (-1 if none) in out[2]. */
    static native int archiveVerify(long handle, int threads, long[] out);

    /** bk_archive_entry_name: UTF-8 bytes, or null. */
    static native byte[] archiveName(long handle, int index);

    /** bk_archive_read into {@code out[offset, offset + len)}: the bytes written, or -status. */
    static native long archiveRead(long handle, int index, byte[] out, int offset, int len);

    /** bk_archive_read into a direct buffer at {@code [position, position + len)}: written, or -status. */
    static native long archiveReadDirect(long handle, int index, java.nio.ByteBuffer direct, int position, int len);

    /** bk_archive_reader_open: the reader's address, or -status. */
    static native long archiveReaderOpen(long handle, int index);

    /** bk_archive_reader_read into {@code out[offset, offset + len)}: the count (0 at the end), or -status. */
    static native long archiveReaderRead(long reader, byte[] out, int offset, int len);

    /** bk_archive_reader_free. */
    static native void archiveReaderFree(long reader);

    /** bk_cancel_new: the handle, or 0 on failure. */
    static native long cancelNew();

    /** bk_cancel_request. */
    static native void cancelRequest(long handle);

    /** bk_cancel_free. */
    static native void cancelFree(long handle);

    /** bk_extract_detailed with {@code options}' plain fields (read by the generated glue), the cancel handle,
     *  patterns and listener: the report into {@code reportOut[0]}; on failure the path or entry and the detail
     *  into {@code errorOut[2]}, the errno into {@code osErrorOut[0]}. */
    static native int extract(String archive, String dest, dev.bufkit.ExtractOptions options, long cancel, String[] only,
            Object listener, dev.bufkit.ExtractReport[] reportOut, String[] errorOut, int[] osErrorOut);

    /** bk_archive_read_at into out[offset, offset + len): bytes read, or -status. */
    static native long archiveReadAt(long handle, int index, long at, byte[] out, int offset, int len);

    /** bk_archive_read_at into a direct buffer at [position, position + len): bytes read, or -status. */
    static native long archiveReadAtDirect(long handle, int index, long at, java.nio.ByteBuffer direct, int position, int len);

    /** bk_archive_set_checkpoint_limits. */
    static native int archiveSetCheckpointLimits(long handle, long span, long budget);

    /** bk_archive_checkpoints_export as a new array, or null with the status in status[0]. */
    static native byte[] archiveCheckpointsExport(long handle, int index, int[] status);

    /** bk_archive_checkpoints_import. */
    static native int archiveCheckpointsImport(long handle, int index, byte[] bytes);

    /** A direct ByteBuffer over native memory (no copy). */
    static native ByteBuffer directBuffer(long address, long length);
}

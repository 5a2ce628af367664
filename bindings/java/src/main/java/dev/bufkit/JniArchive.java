package dev.bufkit;

import java.nio.ByteBuffer;

/**
 * The JNI front's {@link AssetArchive}: each call is one native method over bufkit.h. An archive
 * read from a channel calls back into Java during its reads, so they pin nothing.
 */
final class JniArchive extends AssetArchive {
    private final long handle;
    /** Read from a channel: reads call back. */
    private final boolean callsBack;

    JniArchive(long handle, boolean callsBack) {
        super(() -> JniNative.archiveFree(handle)); // captures the address only, never this
        this.handle = handle;
        this.callsBack = callsBack;
    }

    @Override
    int nativeCount() {
        return JniNative.archiveCount(handle);
    }

    @Override
    int nativeVerify(int threads, long[] out) {
        return JniNative.archiveVerify(handle, threads, out);
    }

    @Override
    long nativeFind(byte[] utf8Name) {
        return JniNative.archiveFind(handle, utf8Name);
    }

    @Override
    int nativeInfo(int index, long[] out) {
        return JniNative.archiveInfo(handle, index, out);
    }

    @Override
    byte[] nativeName(int index) {
        return JniNative.archiveName(handle, index);
    }

    @Override
    int[] nativeList(byte[] utf8Pattern, int[] status) {
        return JniNative.archiveList(handle, utf8Pattern, status);
    }

    @Override
    long nativeRead(int index, byte[] out, int offset, int len) {
        return JniNative.archiveRead(handle, index, out, offset, len, callsBack);
    }

    @Override
    long nativeReadDirect(int index, ByteBuffer direct, int position, int len) {
        return JniNative.archiveReadDirect(handle, index, direct, position, len);
    }

    @Override
    byte[] nativeReadAll(byte[] utf8Name, int[] status) {
        if (callsBack) return super.nativeReadAll(utf8Name, status); // find, size, then a read that pins nothing
        return JniNative.archiveReadAll(handle, utf8Name, status);
    }

    @Override
    ByteBuffer nativeView(int index, int[] status, Runnable whenUnreachable) {
        ByteBuffer root = JniNative.archiveView(handle, index, status);
        // A JNI buffer has no attachment, so every buffer derived from it refers to it.
        if (root != null) runWhenUnreachable(root, whenUnreachable);
        return root;
    }

    @Override
    long nativeReaderOpen(int index) {
        return JniNative.archiveReaderOpen(handle, index);
    }

    @Override
    long nativeReaderRead(long reader, byte[] out, int offset, int len) {
        return JniNative.archiveReaderRead(reader, out, offset, len, callsBack);
    }

    @Override
    void nativeReaderFree(long reader) {
        JniNative.archiveReaderFree(reader);
    }

    @Override
    long nativeReaderCores(long reader) {
        return JniNative.archiveReaderCores(reader);
    }

    @Override
    int nativeReaderWait(long reader) {
        return JniNative.archiveReaderWait(reader);
    }

    @Override
    int nativeSetParallelInflate(int mode) {
        return JniNative.archiveSetParallelInflate(handle, mode);
    }

    @Override
    String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }

    @Override
    long nativeReadAt(int index, long at, byte[] out, int offset, int len) {
        return JniNative.archiveReadAt(handle, index, at, out, offset, len);
    }

    @Override
    long nativeReadAtDirect(int index, long at, ByteBuffer direct, int position, int len) {
        return JniNative.archiveReadAtDirect(handle, index, at, direct, position, len);
    }

    @Override
    int nativeSetCheckpointLimits(long span, long budget) {
        return JniNative.archiveSetCheckpointLimits(handle, span, budget);
    }

    @Override
    byte[] nativeCheckpointsExport(int index, int[] status) {
        return JniNative.archiveCheckpointsExport(handle, index, status);
    }

    @Override
    int nativeCheckpointsImport(int index, byte[] bytes) {
        return JniNative.archiveCheckpointsImport(handle, index, bytes);
    }
}

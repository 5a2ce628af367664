package dev.bufkit;

import java.nio.ByteBuffer;

/**
 * The JNI front's {@link AssetArchive}: each call is one native method over bufkit.h. The plain
 * ones are generated ({@link JniArchiveCalls}); those written here do more than pass their
 * arguments on. An archive read from a channel calls back into Java during its reads, so they pin
 * nothing.
 */
final class JniArchive extends JniArchiveCalls {
    JniArchive(long handle, boolean callsBack) {
        super(handle, callsBack, () -> JniNative.archiveFree(handle)); // captures the address only, never this
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
    String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }
}

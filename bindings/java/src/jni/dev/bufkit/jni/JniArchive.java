package dev.bufkit.jni;

import dev.bufkit.AssetArchive;

/** The JNI front's {@link AssetArchive}: each call is one native method over bufkit.h. */
final class JniArchive extends AssetArchive {
    private final long handle;

    JniArchive(long handle) {
        super(() -> JniNative.archiveFree(handle)); // captures the address only, never this
        this.handle = handle;
    }

    @Override
    protected int nativeCount() {
        return JniNative.archiveCount(handle);
    }

    @Override
    protected long nativeFind(byte[] utf8Name) {
        return JniNative.archiveFind(handle, utf8Name);
    }

    @Override
    protected int nativeInfo(int index, long[] out) {
        return JniNative.archiveInfo(handle, index, out);
    }

    @Override
    protected byte[] nativeName(int index) {
        return JniNative.archiveName(handle, index);
    }

    @Override
    protected int nativeRead(int index, byte[] out) {
        return JniNative.archiveRead(handle, index, out);
    }

    @Override
    protected String statusMessage(int code) {
        return JniNative.statusMessage(code);
    }
}

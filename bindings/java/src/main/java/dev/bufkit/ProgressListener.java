package dev.bufkit;

/** Receives extraction progress ({@link ExtractOptions#progress()}). */
@FunctionalInterface
public interface ProgressListener {
    /** An entry finished; called from a worker thread. Must not throw. */
    void onProgress(long entriesDone, long entriesTotal, long bytesDone, long bytesTotal);
}

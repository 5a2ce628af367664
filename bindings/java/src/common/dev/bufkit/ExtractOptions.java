package dev.bufkit;

import java.util.List;
import java.util.Objects;

/**
 * How {@link Bufkit#extract} works: worker threads (0 = one per core), entry patterns to extract
 * ({@code *}, {@code ?}, or {@code dir/}; empty = all), a byte quota (0 = none), a compression-ratio
 * limit (0 = none), whether to fsync, and an optional progress listener.
 *
 * @param threads worker threads, 0 for one per core
 * @param only patterns of entries to extract; empty for all
 * @param quota most bytes to write in all; 0 for no quota
 * @param maxRatio most inflated/compressed ratio per entry; 0 for no limit
 * @param durable fsync every file and directory before the destination is replaced
 * @param incremental keep unchanged files from the previous incremental extraction (a manifest is kept in dest)
 * @param progress called from the extraction's worker threads (possibly several at once); may be null
 * @param mode what may happen to an existing destination (default {@link ExtractMode#CREATE})
 * @param cancel a token whose {@link ExtractCancel#cancel()} stops the extraction; may be null
 * @param strict refuse archives with other data prepended (a self-extractor's stub, a jmod header)
 * @param skipSymlinks skip symlink entries instead of refusing the archive (a link is never created)
 * @param progressIntervalMillis call {@code progress} at most once per this many milliseconds, plus
 *     always the last report (every entry done), which is then the last call and calls never
 *     overlap; 0 (the default) calls it for every entry, from any worker, possibly at once
 * @param noMtime leave files and directories with the time of the extraction; by default they get
 *     the modification time the archive records (extended timestamp or NTFS extra field, else the
 *     DOS time read as local time, as unzip does)
 * @param foldCase treat names that differ only in case as the same path (refusing archives where
 *     two entries collide so), as on a case-insensitive file system; bufkit also does so by itself
 *     when the destination's file system folds case
 */
public record ExtractOptions(int threads, List<String> only, long quota, double maxRatio, boolean durable, boolean incremental,
        ProgressListener progress, ExtractMode mode, ExtractCancel cancel, boolean strict, boolean skipSymlinks,
        int progressIntervalMillis, boolean noMtime, boolean foldCase) {
    /** Checks ranges. */
    public ExtractOptions {
        only = List.copyOf(Objects.requireNonNull(only, "only"));
        Objects.requireNonNull(mode, "mode");
        if (threads < 0 || quota < 0 || !(maxRatio >= 0) || progressIntervalMillis < 0) throw new IllegalArgumentException("negative option");
    }

    /** The defaults. */
    public static ExtractOptions defaults() {
        return new ExtractOptions(0, List.of(), 0, 0, false, false, null, ExtractMode.CREATE, null, false, false, 0, false, false);
    }

    /** With worker threads. */
    public ExtractOptions withThreads(int n) {
        return new ExtractOptions(n, only, quota, maxRatio, durable, incremental, progress, mode, cancel, strict, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** With entry patterns. */
    public ExtractOptions withOnly(List<String> patterns) {
        return new ExtractOptions(threads, patterns, quota, maxRatio, durable, incremental, progress, mode, cancel, strict, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** With a byte quota. */
    public ExtractOptions withQuota(long bytes) {
        return new ExtractOptions(threads, only, bytes, maxRatio, durable, incremental, progress, mode, cancel, strict, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** In incremental mode or not. */
    public ExtractOptions withIncremental(boolean on) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, on, progress, mode, cancel, strict, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** With a destination mode. */
    public ExtractOptions withMode(ExtractMode m) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, progress, m, cancel, strict, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** With a cancel token (null for none). */
    public ExtractOptions withCancel(ExtractCancel token) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, progress, mode, token, strict, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** Refusing data prepended to the archive, or not. */
    public ExtractOptions withStrict(boolean on) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, progress, mode, cancel, on, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** Skipping symlink entries (instead of refusing the archive), or not. */
    public ExtractOptions withSkipSymlinks(boolean on) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, progress, mode, cancel, strict, on, progressIntervalMillis, noMtime, foldCase);
    }

    /** With a progress listener. */
    public ExtractOptions withProgress(ProgressListener listener) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, listener, mode, cancel, strict, skipSymlinks, progressIntervalMillis, noMtime, foldCase);
    }

    /** With progress at most once per {@code millis} milliseconds (and always the last report); 0 for every entry. */
    public ExtractOptions withProgressInterval(int millis) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, progress, mode, cancel, strict, skipSymlinks, millis, noMtime, foldCase);
    }

    /** Receives extraction progress. */
    @FunctionalInterface
    public interface ProgressListener {
        /** An entry finished; called from a worker thread. Must not throw. */
        void onProgress(long entriesDone, long entriesTotal, long bytesDone, long bytesTotal);
    }

    /** Leaving files and directories with the time of the extraction (true), or restoring the archive's (false, the default). */
    public ExtractOptions withNoMtime(boolean on) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, progress, mode, cancel, strict, skipSymlinks,
                progressIntervalMillis, on, foldCase);
    }

    /** With a limit on each entry's inflated/compressed ratio (0: none). */
    public ExtractOptions withMaxRatio(double ratio) {
        return new ExtractOptions(threads, only, quota, ratio, durable, incremental, progress, mode, cancel, strict, skipSymlinks,
                progressIntervalMillis, noMtime, foldCase);
    }

    /** Syncing every file and directory to disk before the destination is replaced (true), or not (false, the default). */
    public ExtractOptions withDurable(boolean on) {
        return new ExtractOptions(threads, only, quota, maxRatio, on, incremental, progress, mode, cancel, strict, skipSymlinks,
                progressIntervalMillis, noMtime, foldCase);
    }

    /** Refusing names that differ only in case (true), as a case-insensitive file system would see
     *  them; by default (false) only when the destination folds case. */
    public ExtractOptions withFoldCase(boolean on) {
        return new ExtractOptions(threads, only, quota, maxRatio, durable, incremental, progress, mode, cancel, strict, skipSymlinks,
                progressIntervalMillis, noMtime, on);
    }
}

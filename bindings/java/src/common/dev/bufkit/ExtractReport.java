package dev.bufkit;

/**
 * What an extraction did.
 *
 * @param files regular files written
 * @param directories directories created
 * @param bytes bytes written
 * @param skipped entries left out by the patterns
 * @param reused files kept from the previous incremental extraction instead of written
 * @param prepended bytes of other data before the zip part (a jmod header, a self-extractor's stub), read past
 * @param appended bytes of other data after the archive's end record and comment, ignored
 * @param symlinksSkipped symlink entries skipped ({@link ExtractOptions#skipSymlinks()})
 */
public record ExtractReport(long files, long directories, long bytes, long skipped, long reused, long prepended, long appended,
        long symlinksSkipped) {}

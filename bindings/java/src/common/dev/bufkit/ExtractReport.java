package dev.bufkit;

/**
 * What an extraction did.
 *
 * @param files regular files written
 * @param directories directories created
 * @param bytes bytes written
 * @param skipped entries left out by the patterns
 * @param reused files kept from the previous incremental extraction instead of written
 */
public record ExtractReport(long files, long directories, long bytes, long skipped, long reused) {}

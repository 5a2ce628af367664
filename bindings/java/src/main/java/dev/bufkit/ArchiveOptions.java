package dev.bufkit;

/**
 * How {@link Bufkit#openArchive(java.nio.file.Path, ArchiveOptions)} holds and checks an archive.
 *
 * @param mapped memory-map the file (stored entries become views of it; the file must not change
 *     while the archive is open, as for an installed APK) instead of reading entries from it as
 *     they are asked for (the default: a file changed meanwhile gives an exception, never a crash)
 * @param localHeadersOnFirstRead check each entry's local header the first time the entry is
 *     read rather than at open: opening reads only the central directory, and an entry whose local
 *     header disagrees fails its reads with {@link Status#ARCHIVE_MALFORMED}. For archives the
 *     program trusts to be whole, such as its own, opened often. By default ({@code false}) an
 *     archive that extraction refuses is refused at open, with the same status.
 */
public record ArchiveOptions(boolean mapped, boolean localHeadersOnFirstRead) {
    /** Read from the file, every local header checked at open. */
    public static ArchiveOptions defaults() {
        return new ArchiveOptions(false, false);
    }

    /** How the archive is held: {@link ArchiveHolding#MAP} when {@code mapped}, else {@link ArchiveHolding#READ}. */
    public ArchiveHolding holding() {
        return mapped ? ArchiveHolding.MAP : ArchiveHolding.READ;
    }

    /** When local headers are checked: {@link LocalHeaders#ON_FIRST_READ} when {@code localHeadersOnFirstRead}, else {@link LocalHeaders#AT_OPEN}. */
    public LocalHeaders localHeaders() {
        return localHeadersOnFirstRead ? LocalHeaders.ON_FIRST_READ : LocalHeaders.AT_OPEN;
    }

    /** With {@code mapped} set. */
    public ArchiveOptions withMapped(boolean mapped) {
        return new ArchiveOptions(mapped, localHeadersOnFirstRead);
    }

    /** With {@code localHeadersOnFirstRead} set. */
    public ArchiveOptions withLocalHeadersOnFirstRead(boolean onFirstRead) {
        return new ArchiveOptions(mapped, onFirstRead);
    }
}

package dev.bufkit;

/**
 * What {@link Bufkit#extract} may do to an existing destination (C: {@code bk_extract_mode}).
 * A refusal is an {@link ExtractException} with {@link Status#DESTINATION_REFUSED}, nothing touched.
 */
public enum ExtractMode {
    /** The destination must not exist, or be an empty directory (the default). */
    CREATE(0),
    /** An existing directory is replaced as a whole once every entry verified; refuses /, mount points, . and .., the working and home directories. */
    REPLACE(1),
    /** Files are added into an existing directory, same-named files replaced; symlinks in it are never followed. */
    MERGE(2);

    private final int code;

    ExtractMode(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }
}

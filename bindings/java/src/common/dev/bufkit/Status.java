package dev.bufkit;

/** The {@code bk_status} codes of bufkit.h; codes never change meaning. */
public enum Status {
    /** Success. */
    OK(0),
    /** A required pointer was NULL. */
    NULL_POINTER(1),
    /** An argument was outside its documented range. */
    INVALID_ARGUMENT(2),
    /** A length does not fit in memory. */
    LENGTH_OVERFLOW(3),
    /** An offset or index past the end. */
    OUT_OF_RANGE(4),
    /** The system refused memory; nothing was changed. */
    ALLOC_FAILED(5),
    /** A system call on a file descriptor failed. */
    IO_ERROR(6),
    /** No entry by that name. */
    NOT_FOUND(7),
    /** Rust panicked inside bufkit; caught at the C boundary. */
    PANIC(99),
    /** The buffer's capacity limit would be exceeded; nothing was changed. */
    CAPACITY_EXCEEDED(100),
    /** The buffer is segmented: flatten it first. */
    NOT_CONTIGUOUS(101),
    /** Not a lease this pool has out. */
    LEASE_INVALID(200),
    /** The lease belongs to another pool. */
    WRONG_POOL(201),
    /** The pool still has leases out and was not freed. */
    LEASES_OUTSTANDING(202),
    /** The input ends before the stream does. */
    TRUNCATED(300),
    /** The stream fails its Adler-32 check; no output was handed out. */
    CHECKSUM(301),
    /** The stream does not inflate to the expected size. */
    SIZE_MISMATCH(302),
    /** Not a valid zlib/deflate stream. */
    CORRUPT(303),
    /** The archive is malformed. */
    ARCHIVE_MALFORMED(400),
    /** An entry name is unsafe or collides. */
    UNSAFE_NAME(401),
    /** An entry is a symlink/device/FIFO/socket or uses an unsupported method. */
    UNSUPPORTED_ENTRY(402),
    /** An entry is encrypted. */
    ENCRYPTED(403),
    /** An entry fails its CRC-32. */
    CRC_MISMATCH(404),
    /** The quota or ratio limit would be exceeded. */
    LIMIT_EXCEEDED(405),
    /** The extraction was cancelled. */
    CANCELLED(406),
    /** The destination cannot be used in the chosen {@link ExtractMode}; it was not touched. */
    DESTINATION_REFUSED(407),
    /** The {@code only} patterns matched no entry; nothing was touched. */
    NOTHING_SELECTED(408),
    /** The archive admits two readings that disagree (two end records, one hidden in the other's comment); nothing was extracted. */
    ARCHIVE_AMBIGUOUS(409),
    /** Checkpoints imported for an entry are not that entry's, or are damaged; they were not kept. */
    CHECKPOINTS_REFUSED(410),
    /** A code this version of the binding does not know. */
    UNKNOWN(-1);

    /** The C value. */
    public final int code;

    /** {@code values()} once: it copies the array on every call, and {@link #of} runs per stream. */
    private static final Status[] ALL = values();

    Status(int code) {
        this.code = code;
    }

    /** The status for a C code ({@link #UNKNOWN} for codes added after this binding). */
    public static Status of(int code) {
        for (Status s : ALL) {
            if (s.code == code) return s;
        }
        return UNKNOWN;
    }
}

package dev.bufkit;

/** An extraction was refused or failed; nothing was left behind. Carries the status and the entry at fault. */
public final class ExtractException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Status status;
    private final int code;
    private final String entry;

    /** For {@code code}, the entry at fault (empty if none) and the library's one-line detail. */
    public ExtractException(int code, String entry, String detail) {
        super(detail + " (bk_status " + code + ")");
        this.status = Status.of(code);
        this.code = code;
        this.entry = entry;
    }

    /** The status. */
    public Status status() {
        return status;
    }

    /** The raw C code. */
    public int code() {
        return code;
    }

    /** The entry at fault, or "" when none. */
    public String entry() {
        return entry;
    }
}

package dev.bufkit;

/** A bufkit call failed; carries the {@code bk_status} code and the library's message. */
public final class BufkitException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final Status status;
    private final int code;

    /** An exception for {@code code} returned by {@code function}, with the library's {@code message}. */
    public BufkitException(String function, int code, String message) {
        super(function + ": " + message + " (bk_status " + code + ")");
        this.status = Status.of(code);
        this.code = code;
    }

    /** The status as an enum ({@link Status#UNKNOWN} for a code this binding does not know). */
    public Status status() {
        return status;
    }

    /** The raw C code. */
    public int code() {
        return code;
    }
}

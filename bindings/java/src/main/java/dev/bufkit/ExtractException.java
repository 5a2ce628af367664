package dev.bufkit;

import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * An extraction was refused or failed; nothing was left behind. Carries the status, the entry at
 * fault, and for a failed system call its {@code errno} and path, with the
 * {@link java.nio.file.FileSystemException} that {@code java.nio.file} would have thrown as its
 * cause ({@link NoSuchFileException}, {@link AccessDeniedException}, ...).
 */
public final class ExtractException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    // Linux errno values of the failures java.nio.file has an exception for.
    private static final int ENOENT = 2, EACCES = 13, EPERM = 1, EEXIST = 17, ENOTDIR = 20, ENOTEMPTY = 39;
    private final Status status;
    private final int code;
    private final String entry;
    private final int osError;

    /** For {@code code}, the entry at fault (empty if none) and the library's one-line detail. */
    public ExtractException(int code, String entry, String detail) {
        this(code, entry, detail, 0);
    }

    /**
     * For {@code code}, the entry or path at fault (empty if none), the library's one-line detail,
     * and the {@code errno} of a failed system call (0 if none).
     */
    public ExtractException(int code, String entry, String detail, int osError) {
        super(detail + " (bk_status " + code + ")", fileSystemException(osError, entry, detail));
        this.status = Status.of(code);
        this.code = code;
        this.entry = entry;
        this.osError = osError;
    }

    private static FileSystemException fileSystemException(int osError, String path, String detail) {
        if (osError == 0) return null;
        return switch (osError) {
            case ENOENT -> new NoSuchFileException(path, null, detail);
            case EACCES, EPERM -> new AccessDeniedException(path, null, detail);
            case EEXIST -> new FileAlreadyExistsException(path, null, detail);
            case ENOTDIR -> new NotDirectoryException(path);
            case ENOTEMPTY -> new DirectoryNotEmptyException(path);
            default -> new FileSystemException(path, null, detail);
        };
    }

    /** The status. */
    public Status status() {
        return status;
    }

    /** The raw C code. */
    public int code() {
        return code;
    }

    /** The entry at fault, or for an I/O failure or a refused destination the path; "" when none. */
    public String entry() {
        return entry;
    }

    /** The {@code errno} of the failed system call ({@code ENOENT} is 2, {@code ENOSPC} 28...), or 0. */
    public int osError() {
        return osError;
    }
}

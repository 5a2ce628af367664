package dev.bufkit;

import java.lang.foreign.MemorySegment;

/** The Panama front's one way of turning what a downcall throws, or the status it returns, into
 *  what the caller sees. Every class of this front calls these, and nothing else does it. */
final class Failures {
    private Failures() {}

    /** What a {@code MethodHandle.invokeExact} threw, as an unchecked exception: runtime exceptions
     *  and errors as they are, anything else (none is expected) wrapped. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    /** {@code bk_status_message(code)}: the library's one-line description of a status. */
    static String message(int code) {
        try {
            return BufkitLibrary.cString((MemorySegment) BufkitLibrary.STATUS_MESSAGE.invokeExact(code));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}

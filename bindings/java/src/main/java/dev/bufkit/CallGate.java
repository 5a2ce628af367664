package dev.bufkit;

import java.util.concurrent.atomic.LongAdder;

/**
 * Lets native calls on a thread-safe handle run at once, without a lock, while close waits for
 * the ones in progress and refuses new ones: each call counts itself in and out (a
 * {@link LongAdder}, so threads do not share a counter); {@link #close()} sets closed, then waits
 * for the count to drain. Used by {@link BufferPool} and {@link AssetArchive}.
 */
final class CallGate {
    /** Set by close before it waits for {@link #inFlight} to drain. */
    private volatile boolean closed;
    /** Native calls in progress. */
    private final LongAdder inFlight = new LongAdder();
    private final String what;

    CallGate(String what) {
        this.what = what;
    }

    /** Counts a call in, unless closed (or closing: the call is then refused). */
    void enter() {
        inFlight.increment();
        if (closed) { // read after the increment: close either sees us counted or we see it closed
            inFlight.decrement();
            throw new IllegalStateException(what + " is closed");
        }
    }

    /** Counts a call in even when closing, for calls that an open resource guarantees (a lease's release). */
    void enterAlways() {
        inFlight.increment();
    }

    /** Counts a call out. */
    void leave() {
        inFlight.decrement();
    }

    /** Refuses new calls and waits for those in progress (native calls of microseconds at most). */
    void close() {
        closed = true;
        while (inFlight.sum() != 0) {
            Thread.onSpinWait();
        }
    }

    /** Lets calls in again after a close that was refused. */
    void reopen() {
        closed = false;
    }

    boolean isClosed() {
        return closed;
    }
}

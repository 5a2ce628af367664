package dev.bufkit;

import java.lang.ref.Cleaner;

/** The one {@link Cleaner} every bufkit object registers with: one daemon thread, named, for the
 *  whole library, however many kinds of native handle it has. */
final class Cleaners {
    static final Cleaner CLEANER = Cleaner.create(task -> {
        Thread thread = new Thread(task, "bufkit-cleaner");
        thread.setDaemon(true);
        return thread;
    });

    private Cleaners() {}
}

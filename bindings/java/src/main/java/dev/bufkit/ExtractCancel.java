package dev.bufkit;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * Stops the extractions that use it: {@link #cancel()} from any thread makes them fail with an
 * {@link ExtractException} of status {@link Status#CANCELLED}, leaving nothing behind (C:
 * {@code bk_cancel}). Made by {@link Bufkit#newCancel()}; one token may serve many extractions. Its
 * native flag is freed when the token becomes unreachable; an extraction keeps its token
 * reachable until it returns.
 *
 * <pre>{@code
 * ExtractCancel cancel = bufkit.newCancel();
 * executor.submit(() -> bufkit.extract(apk, out, ExtractOptions.defaults().withCancel(cancel)));
 * cancel.cancel(); // the extraction throws ExtractException(CANCELLED); out is as it was
 * }</pre>
 */
public final class ExtractCancel {
    private static final Cleaner CLEANER = Cleaners.CLEANER;

    private final long handle;
    private final LongConsumer request;
    private volatile boolean cancelled;

    /**
     * For the fronts: wraps a {@code bk_cancel} that {@code request} sets and {@code free} frees.
     *
     * @param handle the {@code bk_cancel} address, owned from now on
     * @param request calls {@code bk_cancel_request}
     * @param free calls {@code bk_cancel_free}, once, when the token is unreachable
     */
    public ExtractCancel(long handle, LongConsumer request, LongConsumer free) {
        if (handle == 0) throw new IllegalArgumentException("null bk_cancel");
        this.handle = handle;
        this.request = request;
        CLEANER.register(this, () -> free.accept(handle));
    }

    /** Asks every extraction using this token to stop. Idempotent; any thread. */
    public void cancel() {
        cancelled = true;
        request.accept(handle);
    }

    /** Whether {@link #cancel()} was called. */
    public boolean isCancelled() {
        return cancelled;
    }

    /** For the fronts: the {@code bk_cancel} address; valid while this token is reachable. */
    public long handle() {
        return handle;
    }
}

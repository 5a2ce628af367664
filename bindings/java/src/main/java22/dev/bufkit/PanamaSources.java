package dev.bufkit;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Channels served to the library as {@code bk_source}s: one pair of upcall stubs for all of them,
 * living as long as the process, and each channel found by the number carried in {@code ctx}
 * until the library releases it. The stubs are called from the library's threads as well as the
 * caller's, and never throw.
 */
final class PanamaSources {
    private PanamaSources() {}

    /** {@code -EIO}. */
    private static final long FAILED = -5;
    private static final ConcurrentHashMap<Long, ChannelSource> LIVE = new ConcurrentHashMap<>();
    private static final AtomicLong NEXT = new AtomicLong(1);
    private static final MemorySegment READ_AT;
    private static final MemorySegment RELEASE;

    static {
        try {
            var lookup = MethodHandles.lookup();
            READ_AT = BufkitLibrary.upcall(lookup.findStatic(PanamaSources.class, "readAt",
                    MethodType.methodType(long.class, MemorySegment.class, long.class, MemorySegment.class, long.class)),
                    BufkitLibrary.READ_AT_FN, Arena.global());
            RELEASE = BufkitLibrary.upcall(lookup.findStatic(PanamaSources.class, "release",
                    MethodType.methodType(void.class, MemorySegment.class)), BufkitLibrary.RELEASE_FN, Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Fills {@code source} (a {@code bk_source}) to serve {@code channel}. The library releases it
     * once done, including when the call it is passed to fails.
     */
    static void fill(MemorySegment source, ChannelSource channel) {
        long id = NEXT.getAndIncrement();
        LIVE.put(id, channel);
        source.set(ValueLayout.JAVA_LONG, Layouts.offset(Layouts.SOURCE, "length"), channel.length());
        source.set(ValueLayout.ADDRESS, Layouts.offset(Layouts.SOURCE, "read_at"), READ_AT);
        source.set(ValueLayout.ADDRESS, Layouts.offset(Layouts.SOURCE, "release"), RELEASE);
        source.set(ValueLayout.ADDRESS, Layouts.offset(Layouts.SOURCE, "ctx"), MemorySegment.ofAddress(id));
    }

    /** {@code bk_read_at_fn}. */
    private static long readAt(MemorySegment ctx, long offset, MemorySegment buf, long len) {
        try {
            ChannelSource channel = LIVE.get(ctx.address());
            if (channel == null || len < 0) return FAILED;
            return channel.readAt(offset, buf.reinterpret(Math.min(len, Integer.MAX_VALUE)).asByteBuffer());
        } catch (Throwable t) {
            return FAILED; // an exception out of an upcall would take the JVM down
        }
    }

    /** {@code bk_release_fn}. */
    private static void release(MemorySegment ctx) {
        LIVE.remove(ctx.address());
    }
}

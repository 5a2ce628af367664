package dev.bufkit.panama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * Hand-written downcalls for include/bufkit.h (jextract is not used). One handle per C function;
 * calls that take Java arrays are linked {@code critical(true)} so heap segments pass without a copy.
 */
final class BufkitLibrary {
    private BufkitLibrary() {}

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIB = lookup();

    static final StructLayout CONFIG = Layouts.BUFFER_CONFIG;
    static final StructLayout STATS = Layouts.BUFFER_STATS;

    static final MethodHandle VERSION = fn("bk_version", FunctionDescriptor.of(ADDRESS));
    static final MethodHandle ABI_VERSION = fn("bk_abi_version", FunctionDescriptor.of(JAVA_INT));
    static final MethodHandle STATUS_MESSAGE = fn("bk_status_message", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    static final MethodHandle TEST_PANIC = fn("bk_test_panic", FunctionDescriptor.of(JAVA_INT));
    static final MethodHandle CONFIG_DEFAULT = fn("bk_buffer_config_default", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle BUFFER_NEW = fn("bk_buffer_new", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle BUFFER_FREE = fn("bk_buffer_free", FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle BUFFER_APPEND = critical("bk_buffer_append", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    static final MethodHandle BUFFER_RESERVE = fn("bk_buffer_reserve", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle BUFFER_CLEAR = fn("bk_buffer_clear", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle BUFFER_GET_STATS = critical("bk_buffer_get_stats", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle BUFFER_COPY_OUT = critical("bk_buffer_copy_out",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle BUFFER_SEGMENT_COUNT = critical("bk_buffer_segment_count", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle BUFFER_SEGMENT = critical("bk_buffer_segment", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    static final MethodHandle BUFFER_FLATTEN = fn("bk_buffer_flatten", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    static final StructLayout POOL_CONFIG = Layouts.POOL_CONFIG;

    static final MethodHandle POOL_CONFIG_DEFAULT = fn("bk_pool_config_default", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle POOL_NEW = fn("bk_pool_new", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle POOL_FREE = fn("bk_pool_free", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** bk_lease is four 8-byte fields, so a Java long[4] passes as the struct (heap segment, critical). */
    static final MethodHandle POOL_ACQUIRE = critical("bk_pool_acquire", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle POOL_RELEASE = critical("bk_pool_release", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle POOL_TRIM = fn("bk_pool_trim", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle INFLATER_NEW = fn("bk_inflater_new", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle INFLATER_FREE = fn("bk_inflater_free", FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle INFLATE_STREAM_NEW = fn("bk_inflate_stream_new", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
    static final MethodHandle INFLATE_STREAM_FREE = fn("bk_inflate_stream_free", FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle INFLATE_STREAM_RESET = fn("bk_inflate_stream_reset", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle INFLATE_STREAM_FEED = critical("bk_inflate_stream_feed",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    /** Critical: input and output may be heap arrays, pinned for the call. */
    static final MethodHandle INFLATE_AT = critical("bk_inflate_at",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
    /** bk_inflate_request and bk_inflate_result are two 8-byte words each: long[2n] arrays pass as the structs. */
    static final MethodHandle INFLATE_BATCH = critical("bk_inflate_batch",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    static final MethodHandle ARCHIVE_OPTIONS_DEFAULT = fn("bk_archive_options_default", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** Reads and validates the whole archive: a plain downcall. */
    static final MethodHandle ARCHIVE_OPEN = fn("bk_archive_open", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle ARCHIVE_FREE = fn("bk_archive_free", FunctionDescriptor.ofVoid(ADDRESS));
    /** Long (every entry inflated, on worker threads): a plain downcall, native memory only. */
    static final MethodHandle ARCHIVE_READ_AT = fn("bk_archive_read_at", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle ARCHIVE_SET_CHECKPOINT_LIMITS = fn("bk_archive_set_checkpoint_limits", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    static final MethodHandle ARCHIVE_CHECKPOINTS_EXPORT = fn("bk_archive_checkpoints_export", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle ARCHIVE_CHECKPOINTS_IMPORT = fn("bk_archive_checkpoints_import", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
    static final MethodHandle BUFFER_DATA = fn("bk_buffer_data", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    static final MethodHandle ARCHIVE_VERIFY = fn("bk_archive_verify", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle ARCHIVE_ENTRY_COUNT = critical("bk_archive_entry_count", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle ARCHIVE_FIND = critical("bk_archive_find", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle ARCHIVE_ENTRY_INFO = critical("bk_archive_entry_info", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle ARCHIVE_ENTRY_SIZE = critical("bk_archive_entry_size", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle ARCHIVE_VIEW = critical("bk_archive_view", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    static final MethodHandle ARCHIVE_ENTRY_NAME = fn("bk_archive_entry_name", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    /** Critical: the output may be a heap array, pinned for the call. */
    static final MethodHandle ARCHIVE_READ = critical("bk_archive_read", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle ARCHIVE_READER_OPEN = fn("bk_archive_reader_open", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
    /** Critical: reads at most one 64 KiB chunk of inflating per call; the output may be a heap array. */
    static final MethodHandle ARCHIVE_READER_READ = critical("bk_archive_reader_read", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    static final MethodHandle ARCHIVE_READER_FREE = fn("bk_archive_reader_free", FunctionDescriptor.ofVoid(ADDRESS));
    static final MethodHandle CANCEL_NEW = fn("bk_cancel_new", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CANCEL_REQUEST = fn("bk_cancel_request", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    static final MethodHandle CANCEL_FREE = fn("bk_cancel_free", FunctionDescriptor.ofVoid(ADDRESS));
    /** Long-running: a plain (non-critical) downcall, so the JVM can safepoint meanwhile. */
    static final MethodHandle EXTRACT_DETAILED = fn("bk_extract_detailed",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    static final long FAILURE_PATH = Layouts.offset(Layouts.EXTRACT_FAILURE, "path"),
            FAILURE_DETAIL = Layouts.offset(Layouts.EXTRACT_FAILURE, "detail"), FAILURE_OS_ERROR = Layouts.offset(Layouts.EXTRACT_FAILURE, "os_error");
    /** bk_progress_fn: void (*)(void *user_data, uint64_t, uint64_t, uint64_t, uint64_t). */
    static final FunctionDescriptor PROGRESS_FN = FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);

    static MemorySegment upcall(java.lang.invoke.MethodHandle target, Arena arena) {
        return LINKER.upcallStub(target, PROGRESS_FN, arena);
    }

    static final MethodHandle POOL_GET_STATS = critical("bk_pool_get_stats", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    /** The jar's own copy of the library, or the one -Ddev.bufkit.library names: see dev.bufkit.NativeLibrary. */
    private static SymbolLookup lookup() {
        return SymbolLookup.libraryLookup(dev.bufkit.NativeLibrary.path(), Arena.global());
    }

    private static MemorySegment symbol(String name) {
        return LIB.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libbufkit has no symbol " + name));
    }

    private static MethodHandle fn(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor);
    }

    /** Short calls that may take heap segments: no thread-state transition, arrays pinned not copied. */
    private static MethodHandle critical(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor, Linker.Option.critical(true));
    }

    /** Reads a static NUL-terminated C string. */
    static String cString(MemorySegment zeroLength) {
        return zeroLength.reinterpret(Long.MAX_VALUE).getString(0);
    }
}

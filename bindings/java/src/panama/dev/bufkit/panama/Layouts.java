package dev.bufkit.panama;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.util.List;

/**
 * Every struct of bufkit.h as a Panama layout, named as in C, field by field: the one place the
 * Panama front states them. The conformance check (ffi-tests/conformance) compares each with
 * the C compiler's sizes and offsets, so a header change that is not mirrored here fails the
 * tests. size_t is 8 bytes: the platforms the jar carries are 64-bit.
 */
public final class Layouts {
    private Layouts() {}

    /** bk_buffer_config. */
    public static final StructLayout BUFFER_CONFIG = MemoryLayout.structLayout(
            JAVA_INT.withName("growth"),
            MemoryLayout.paddingLayout(4),
            JAVA_DOUBLE.withName("factor"),
            JAVA_LONG.withName("step"),
            JAVA_LONG.withName("chunk_size"),
            JAVA_LONG.withName("max_capacity"),
            JAVA_LONG.withName("initial_capacity")).withName("bk_buffer_config");

    /** bk_buffer_stats; read as a long[5], field i at index i. */
    public static final StructLayout BUFFER_STATS = MemoryLayout.structLayout(
            JAVA_LONG.withName("len"), JAVA_LONG.withName("capacity"), JAVA_LONG.withName("grows"),
            JAVA_LONG.withName("moves"), JAVA_LONG.withName("bytes_copied")).withName("bk_buffer_stats");

    /** bk_extract_report: its size first (set before the call), then the fields ExtractReport holds. */
    public static final StructLayout EXTRACT_REPORT = ExtractStructs.REPORT;

    /** bk_extract_options (generated, in {@link ExtractStructs}). */
    public static final StructLayout EXTRACT_OPTIONS = ExtractStructs.OPTIONS;

    /** bk_extract_failure. */
    public static final StructLayout EXTRACT_FAILURE = MemoryLayout.structLayout(
            JAVA_INT.withName("os_error"),
            MemoryLayout.sequenceLayout(4096, JAVA_BYTE).withName("path"),
            MemoryLayout.sequenceLayout(1024, JAVA_BYTE).withName("detail")).withName("bk_extract_failure");

    /** bk_lease; passed as a long[4], the pointers as their addresses. */
    public static final StructLayout LEASE = MemoryLayout.structLayout(
            ADDRESS.withName("data"), JAVA_LONG.withName("len"), ADDRESS.withName("pool"), JAVA_LONG.withName("id"))
            .withName("bk_lease");

    /** bk_inflate_request; passed as two longs per request. */
    public static final StructLayout INFLATE_REQUEST = MemoryLayout.structLayout(
            JAVA_LONG.withName("offset"), JAVA_LONG.withName("expected_len")).withName("bk_inflate_request");

    /** bk_inflate_result; read as two longs per result, the status in the low 32 bits of the first. */
    public static final StructLayout INFLATE_RESULT = MemoryLayout.structLayout(
            JAVA_INT.withName("status"), MemoryLayout.paddingLayout(4), JAVA_LONG.withName("consumed"))
            .withName("bk_inflate_result");

    /** bk_pool_config. */
    public static final StructLayout POOL_CONFIG = MemoryLayout.structLayout(
            JAVA_LONG.withName("min_class_size"),
            JAVA_LONG.withName("max_class_size"),
            JAVA_LONG.withName("max_retained_bytes"),
            JAVA_LONG.withName("max_buffers_per_class"),
            JAVA_LONG.withName("thread_cache_buffers"),
            JAVA_INT.withName("zero_on_acquire"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("decay_after_ms")).withName("bk_pool_config");

    /** bk_pool_stats; read as a long[9]. */
    public static final StructLayout POOL_STATS = MemoryLayout.structLayout(
            JAVA_LONG.withName("hits"), JAVA_LONG.withName("misses"), JAVA_LONG.withName("returns"),
            JAVA_LONG.withName("drops_over_cap"), JAVA_LONG.withName("oversize_allocations"), JAVA_LONG.withName("decayed"),
            JAVA_LONG.withName("retained_bytes"), JAVA_LONG.withName("outstanding_leases"), JAVA_LONG.withName("class_count"))
            .withName("bk_pool_stats");

    /** bk_pool_class_stats. */
    public static final StructLayout POOL_CLASS_STATS = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"), JAVA_LONG.withName("hits"), JAVA_LONG.withName("misses"),
            JAVA_LONG.withName("returns"), JAVA_LONG.withName("drops_over_cap"), JAVA_LONG.withName("idle_shared"))
            .withName("bk_pool_class_stats");

    /** bk_archive_options (the archive calls are not in the Java fronts yet; the layout is here for them). */
    public static final StructLayout ARCHIVE_OPTIONS = MemoryLayout.structLayout(JAVA_INT.withName("holding"), JAVA_INT.withName("local_headers")).withName("bk_archive_options");

    /** bk_archive_entry. */
    public static final StructLayout ARCHIVE_ENTRY = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"), JAVA_LONG.withName("compressed_size"), JAVA_INT.withName("crc32"),
            JAVA_INT.withName("method"), JAVA_INT.withName("is_directory"), MemoryLayout.paddingLayout(4))
            .withName("bk_archive_entry");

    /** All of them, for the conformance check. */
    public static final List<StructLayout> ALL = List.of(BUFFER_CONFIG, BUFFER_STATS, EXTRACT_REPORT, EXTRACT_OPTIONS, EXTRACT_FAILURE, LEASE,
            INFLATE_REQUEST, INFLATE_RESULT, POOL_CONFIG, POOL_STATS, POOL_CLASS_STATS, ARCHIVE_OPTIONS, ARCHIVE_ENTRY);

    /** The byte offset of {@code field} in {@code layout}. */
    static long offset(StructLayout layout, String field) {
        return layout.byteOffset(PathElement.groupElement(field));
    }

    /** The long[] index of {@code field}, for structs read or passed as arrays of 8-byte words. */
    static int index(StructLayout layout, String field) {
        return (int) (offset(layout, field) / 8);
    }
}

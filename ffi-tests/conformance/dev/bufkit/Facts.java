package dev.bufkit;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.StructLayout;
import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Prints what the Java side believes about bufkit.h, one fact a line, for ffi-tests/conformance/
 * check.py to compare with the header and the C compiler: the Panama layouts, the Status codes,
 * the order of the records the fronts fill from packed long[] arrays, and the constants of the
 * enums named on the command line.
 */
public final class Facts {
    private Facts() {}

    public static void main(String[] args) {
        for (StructLayout layout : Layouts.ALL) {
            String name = layout.name().orElseThrow();
            System.out.println("struct " + name + " " + layout.byteSize());
            long offset = 0;
            for (MemoryLayout member : layout.memberLayouts()) {
                if (!(member instanceof PaddingLayout)) {
                    System.out.println("field " + name + " " + member.name().orElseThrow() + " " + offset + " " + member.byteSize());
                }
                offset += member.byteSize();
            }
        }
        for (Status s : Status.values()) {
            if (s != Status.UNKNOWN) {
                System.out.println("status BK_STATUS_" + s.name() + " " + s.code);
            }
        }
        record(BufferStats.class, "bk_buffer_stats");
        record(PoolStats.class, "bk_pool_stats");
        record(ExtractReport.class, "bk_extract_report");
        System.out.println("abi " + dev.bufkit.Bufkit.BINDING_ABI_VERSION);
        System.out.println("options ExtractOptions " + Arrays.stream(dev.bufkit.ExtractOptions.class.getRecordComponents())
                .map(java.lang.reflect.RecordComponent::getName).collect(Collectors.joining(",")));
        for (String name : args) {
            enumConstants(name);
        }
    }

    /** Each constant of enum dev.bufkit.NAME (one of the C enums the calls take) with its code(). */
    private static void enumConstants(String name) {
        try {
            Class<?> type = Class.forName("dev.bufkit." + name);
            java.lang.reflect.Method code = type.getMethod("code");
            for (Object constant : type.getEnumConstants()) {
                System.out.println("enum " + name + " " + ((Enum<?>) constant).name() + " " + code.invoke(constant));
            }
        } catch (ReflectiveOperationException e) {
            System.out.println("enum " + name + " missing " + e);
        }
    }

    /** A record's components in order, in C's spelling (bytesCopied: bytes_copied). */
    private static void record(Class<? extends Record> type, String struct) {
        String components = Arrays.stream(type.getRecordComponents())
                .map(c -> c.getName().replaceAll("([A-Z])", "_$1").toLowerCase(java.util.Locale.ROOT))
                .collect(Collectors.joining(","));
        System.out.println("record " + struct + " " + type.getSimpleName() + " " + components);
    }

}

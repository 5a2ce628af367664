package dev.bufkit.tests;

import dev.bufkit.BufferPool;
import dev.bufkit.Bufkit;
import dev.bufkit.PoolConfig;
import dev.bufkit.panama.PanamaPool.PanamaLease;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/** Cases only the Panama front has: leases as MemorySegments, revoked on close. */
public final class PanamaTests {
    private PanamaTests() {}

    public static void register(List<Object[]> tests, Bufkit bufkit) {
        tests.add(new Object[] {"panama: a lease is a segment over the pooled memory", (Harness.Test) () -> {
            try (BufferPool pool = bufkit.newPool(PoolConfig.defaults()); PanamaLease lease = (PanamaLease) pool.acquire(5000)) {
                MemorySegment seg = lease.segment();
                Harness.check(seg.byteSize() == 8192, "segment size " + seg.byteSize());
                seg.set(ValueLayout.JAVA_LONG, 8, 0x1122334455667788L);
                Harness.check(lease.buffer().getLong(8) == Long.reverseBytes(0x1122334455667788L)
                        || lease.buffer().order(java.nio.ByteOrder.nativeOrder()).getLong(8) == 0x1122334455667788L, "same memory");
            }
        }});
        tests.add(new Object[] {"panama: a closed lease's segment refuses access", (Harness.Test) () -> {
            try (BufferPool pool = bufkit.newPool(PoolConfig.defaults())) {
                PanamaLease lease = (PanamaLease) pool.acquire(100);
                MemorySegment seg = lease.segment();
                lease.close();
                Harness.expect(IllegalStateException.class, () -> seg.get(ValueLayout.JAVA_BYTE, 0));
            }
        }});
    }
}

package dev.bufkit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.bufkit.PanamaPool.PanamaLease;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Cases only the Panama front has: leases as MemorySegments, revoked on close. Compiled and run for
 * that front alone, in the front's own package: its classes are not part of the API.
 */
final class PanamaTests {
    private final Bufkit bufkit = Bufkit.load(Bufkit.Front.PANAMA);

    @Test
    @DisplayName("panama: a lease is a segment over the pooled memory")
    void leaseIsASegment() throws Exception {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults()); PanamaLease lease = (PanamaLease) pool.acquire(5000)) {
            MemorySegment seg = lease.segment();
            assertTrue(seg.byteSize() == 8192, "segment size " + seg.byteSize());
            seg.set(ValueLayout.JAVA_LONG, 8, 0x1122334455667788L);
            assertTrue(lease.buffer().getLong(8) == Long.reverseBytes(0x1122334455667788L)
                    || lease.buffer().order(java.nio.ByteOrder.nativeOrder()).getLong(8) == 0x1122334455667788L, "same memory");
        }
    }

    @Test
    @DisplayName("panama: a closed lease's segment refuses access")
    void closedLeaseRefuses() throws Exception {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults())) {
            PanamaLease lease = (PanamaLease) pool.acquire(100);
            MemorySegment seg = lease.segment();
            lease.close();
            assertThrows(IllegalStateException.class, () -> seg.get(ValueLayout.JAVA_BYTE, 0));
        }
    }
}

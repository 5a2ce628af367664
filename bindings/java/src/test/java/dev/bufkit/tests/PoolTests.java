package dev.bufkit.tests;

import dev.bufkit.BufferConfig;
import dev.bufkit.BufferPool;
import dev.bufkit.ExtractCancel;
import dev.bufkit.ExtractException;
import dev.bufkit.ExtractMode;
import dev.bufkit.ExtractOptions;
import dev.bufkit.ExtractReport;
import dev.bufkit.Lease;
import dev.bufkit.InflateBatch;
import dev.bufkit.OffsetInflater;
import dev.bufkit.PoolConfig;
import dev.bufkit.PoolStats;
import dev.bufkit.BufferStats;
import dev.bufkit.Bufkit;
import dev.bufkit.BufkitException;
import dev.bufkit.GrowableBuffer;
import dev.bufkit.Growth;
import dev.bufkit.Status;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static dev.bufkit.tests.Support.*;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Buffer pools and their leases through the loaded front. Run on the front {@link Support} loads, by JUnit. */
final class PoolTests {
    private PoolTests() {}

    @Test
    @DisplayName("pool leases are direct, warm and dirty")
    void poolLeases() {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults())) {
            try (Lease lease = pool.acquire(1000)) {
                check(lease.length() == 4096, "length " + lease.length());
                ByteBuffer buf = lease.buffer();
                check(buf.isDirect() && buf.capacity() == 4096, "direct buffer over the lease");
                buf.put("dirty".getBytes());
            }
            try (Lease again = pool.acquire(4096)) {
                byte[] head = new byte[5];
                ByteBuffer buf = again.buffer();
                check(buf.position() == 0 && buf.limit() == 4096, "a reused block's buffer starts whole: " + buf);
                buf.get(head);
                check(Arrays.equals(head, "dirty".getBytes()), "the warm buffer came back as it was left");
            }
            PoolStats s = pool.stats();
            check(s.hits() == 1 && s.misses() == 1 && s.returns() == 2 && s.outstandingLeases() == 0, "stats " + s);
            // Blocks freed and mapped again, of every class in turn: each lease's buffer has its length.
            for (int round = 0; round < 3; round++) {
                for (long size = 4096; size <= 1 << 20; size *= 4) {
                    try (Lease l = pool.acquire(size)) {
                        check(l.buffer().capacity() == l.length() && l.length() == size, "capacity " + l.buffer().capacity() + " for " + size);
                        l.buffer().put(0, (byte) 1).put((int) size - 1, (byte) 2);
                    }
                }
                pool.trim();
            }
        }
    }

    @Test
    @DisplayName("pool zeroes when asked")
    void poolZeroes() {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults().withZeroOnAcquire(true))) {
            try (Lease lease = pool.acquire(64)) {
                ByteBuffer b = lease.buffer();
                while (b.hasRemaining()) b.put((byte) 0x5a);
            }
            try (Lease lease = pool.acquire(64)) {
                ByteBuffer b = lease.buffer();
                while (b.hasRemaining()) check(b.get() == 0, "zeroed");
            }
        }
    }

    @Test
    @DisplayName("pool cap and trim")
    void poolCapAndTrim() {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults().withMaxRetainedBytes(8192))) {
            Lease[] leases = new Lease[4];
            for (int i = 0; i < 4; i++) leases[i] = pool.acquire(4096);
            for (Lease l : leases) l.close();
            PoolStats s = pool.stats();
            check(s.returns() == 2 && s.dropsOverCap() == 2 && s.retainedBytes() == 8192, "stats " + s);
            pool.trim();
            check(pool.stats().retainedBytes() == 0, "trimmed");
            expect(IllegalArgumentException.class, () -> pool.acquire(0));
            expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newPool(PoolConfig.defaults().withMinClassSize(1000)));
            expectStatus(Status.INVALID_ARGUMENT, () -> bufkit.newPool(PoolConfig.defaults().withThreadCacheBuffers(17)));
        }
    }

    @Test
    @DisplayName("pool refuses to close with open leases")
    void poolCloseWithLeases() {
        BufferPool pool = bufkit.newPool(PoolConfig.defaults());
        Lease lease = pool.acquire(100);
        expectStatus(Status.LEASES_OUTSTANDING, pool::close);
        lease.buffer().put(0, (byte) 1); // still valid: nothing was freed
        lease.close();
        lease.close(); // twice is fine
        pool.close();
        pool.close();
    }

    @Test
    @DisplayName("closed leases and pools refuse use")
    void poolUseAfterClose() {
        BufferPool pool = bufkit.newPool(PoolConfig.defaults());
        Lease lease = pool.acquire(100);
        lease.close();
        expect(IllegalStateException.class, lease::buffer);
        pool.close();
        expect(IllegalStateException.class, () -> pool.acquire(10));
        expect(IllegalStateException.class, pool::stats);
    }

    @Test
    @DisplayName("pool shared by threads")
    void poolThreads() throws Exception {
        try (BufferPool pool = bufkit.newPool(PoolConfig.defaults().withMaxRetainedBytes(256 << 10))) {
            Thread[] threads = new Thread[4];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int t = 0; t < threads.length; t++) {
                final int seed = t;
                threads[t] = new Thread(() -> {
                    try {
                        for (int i = 0; i < 2000; i++) {
                            try (Lease lease = pool.acquire(4096L << ((seed + i) % 5))) {
                                lease.buffer().put(0, (byte) i);
                            }
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                threads[t].start();
            }
            for (Thread t : threads) t.join();
            check(failure.get() == null, "worker failed: " + failure.get());
            PoolStats s = pool.stats();
            check(s.outstandingLeases() == 0 && s.retainedBytes() <= (256 << 10) && s.hits() + s.misses() == 8000, "stats " + s);
        }
    }

    /** The pool takes no lock: close waits for calls in progress, refuses while a lease is open,
     *  and after it succeeds every call is refused, never a use of freed memory. */
    @Test
    @DisplayName("pool close races acquires and releases")
    void poolCloseRacesCalls() throws Exception {
        for (int round = 0; round < 20; round++) {
            BufferPool pool = bufkit.newPool(PoolConfig.defaults());
            Thread[] threads = new Thread[3];
            AtomicReference<Throwable> failure = new AtomicReference<>();
            java.util.concurrent.atomic.AtomicInteger refused = new java.util.concurrent.atomic.AtomicInteger();
            for (int t = 0; t < threads.length; t++) {
                threads[t] = new Thread(() -> {
                    try {
                        while (true) {
                            try (Lease lease = pool.acquire(4096)) {
                                lease.buffer().put(0, (byte) 1);
                            }
                        }
                    } catch (IllegalStateException closed) {
                        refused.incrementAndGet();
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                });
                threads[t].start();
            }
            Thread.sleep(2);
            boolean done = false;
            while (!done) {
                try {
                    pool.close();
                    done = true;
                } catch (BufkitException e) {
                    check(e.status() == Status.LEASES_OUTSTANDING, "close failed with " + e);
                    Thread.onSpinWait();
                }
            }
            for (Thread t : threads) t.join();
            check(failure.get() == null, "worker failed: " + failure.get());
            check(refused.get() == threads.length, "every worker was refused once the pool closed: " + refused.get());
            try {
                pool.acquire(4096);
                throw new AssertionError("acquire on a closed pool");
            } catch (IllegalStateException expected) {
                // closed
            }
        }
    }

    @Test
    @DisplayName("unclosed leases are given back by the cleaner")
    void poolLeaseCleaner() throws Exception {
        BufferPool pool = bufkit.newPool(PoolConfig.defaults());
        for (int i = 0; i < 50; i++) pool.acquire(4096); // dropped without close
        for (int i = 0; i < 100 && pool.stats().outstandingLeases() > 0; i++) {
            System.gc();
            Thread.sleep(20);
        }
        check(pool.stats().outstandingLeases() == 0, "cleaner gave leases back: " + pool.stats());
        pool.close();
    }
}

package dev.bufkit;

/**
 * A pool's totals ({@code bk_pool_stats}).
 *
 * @param hits acquires served by a retained buffer
 * @param misses acquires that allocated
 * @param returns buffers taken back for reuse
 * @param dropsOverCap buffers freed on return because a cap was reached
 * @param oversizeAllocations requests above the largest class
 * @param decayed buffers freed by decay
 * @param retainedBytes bytes held in reserve against the cap
 * @param outstandingLeases leases lent and not yet closed
 * @param classCount number of size classes
 */
public record PoolStats(long hits, long misses, long returns, long dropsOverCap, long oversizeAllocations, long decayed,
        long retainedBytes, long outstandingLeases, long classCount) {}

package org.clustersim.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class HeapKernelTest extends SimKernelContractTest {

    @Override
    protected SimKernel newKernel() {
        return new HeapKernel();
    }

    @Test
    void ordersLikeDsolOnARandomSchedule() {
        long[] delays = new java.util.SplittableRandom(7).longs(20_000, 0, 50).toArray();
        assertSameOrderAsDsol((k, log) -> schedule(k, log, delays, new int[] {0}, 0), null);
    }

    @Test
    void ordersLikeDsolWithThousandsOfInstantsPendingAndManyShared() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        // 4,000 events at 1,500 instants spread wide (the table of instants grows, and its probe
        // runs wrap and shift as instants drain), each scheduling a follower half the time
        long[] at = random.longs(4_000, 0, 1_500).map(x -> x * 7919).toArray();
        long[] follow = random.longs(4_000, -3, 5_000).toArray();
        assertSameOrderAsDsol((k, log) -> {
            for (int i = 0; i < at.length; i++) {
                int id = i;
                k.schedule(at[i], () -> {
                    log.add(id);
                    if (follow[id] >= 0) {
                        k.schedule(k.now() + follow[id] % 4 * 7919, () -> log.add(-id - 1));
                    }
                });
            }
        }, 4_000);
    }

    /**
     * Schedules the same actions on a {@code HeapKernel} and a {@code DsolKernel}, runs both and
     * checks they executed as many events, in the same order, ending at the same time, with
     * nothing left pending ({@code pendingBefore}, where given, is what the heap kernel holds
     * before running).
     */
    private static void assertSameOrderAsDsol(java.util.function.BiConsumer<SimKernel, List<Integer>> scheduleAll,
                                              Integer pendingBefore) {
        HeapKernel h = new HeapKernel();
        DsolKernel d = new DsolKernel();
        List<Integer> heap = new ArrayList<>();
        List<Integer> dsol = new ArrayList<>();
        scheduleAll.accept(h, heap);
        scheduleAll.accept(d, dsol);
        if (pendingBefore != null) {
            assertEquals(pendingBefore, h.pending());
        }
        assertEquals(h.run(), d.run());
        assertEquals(dsol, heap);
        assertEquals(0, h.pending());
        assertEquals(d.now(), h.now());
    }

    /** Each action logs its number and, while delays last, schedules two more (some at the same instant). */
    private static void schedule(SimKernel k, List<Integer> log, long[] delays, int[] next, long at) {
        int id = next[0]++;
        k.schedule(at, () -> {
            log.add(id);
            for (int c = 0; c < 2 && next[0] < delays.length; c++) {
                schedule(k, log, delays, next, k.now() + delays[next[0]] % 3 * delays[next[0]]);
            }
        });
    }
}

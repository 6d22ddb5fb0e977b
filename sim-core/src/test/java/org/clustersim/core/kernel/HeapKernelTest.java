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
        java.util.SplittableRandom random = new java.util.SplittableRandom(7);
        List<Integer> heap = new ArrayList<>();
        List<Integer> dsol = new ArrayList<>();
        HeapKernel h = new HeapKernel();
        DsolKernel d = new DsolKernel();
        int[] next = {0, 0};
        long[] delays = random.longs(20_000, 0, 50).toArray();
        schedule(h, heap, delays, next, 0, 0);
        schedule(d, dsol, delays, next, 1, 0);
        assertEquals(h.run(), d.run());
        assertEquals(dsol, heap);
        assertEquals(d.now(), h.now());
    }

    @Test
    void ordersLikeDsolWithThousandsOfInstantsPendingAndManyShared() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        List<Integer> heap = new ArrayList<>();
        List<Integer> dsol = new ArrayList<>();
        HeapKernel h = new HeapKernel();
        DsolKernel d = new DsolKernel();
        // 4,000 events at 1,500 instants spread wide (the table of instants grows, and its probe
        // runs wrap and shift as instants drain), each scheduling a follower half the time
        long[] at = random.longs(4_000, 0, 1_500).map(x -> x * 7919).toArray();
        long[] follow = random.longs(4_000, -3, 5_000).toArray();
        for (SimKernel k : List.of(h, d)) {
            List<Integer> log = k == h ? heap : dsol;
            for (int i = 0; i < at.length; i++) {
                int id = i;
                k.schedule(at[i], () -> {
                    log.add(id);
                    if (follow[id] >= 0) {
                        k.schedule(k.now() + follow[id] % 4 * 7919, () -> log.add(-id - 1));
                    }
                });
            }
        }
        assertEquals(4_000, h.pending());
        assertEquals(h.run(), d.run());
        assertEquals(dsol, heap);
        assertEquals(0, h.pending());
        assertEquals(d.now(), h.now());
    }

    /** Each action logs its number and, while delays last, schedules two more (some at the same instant). */
    private static void schedule(SimKernel k, List<Integer> log, long[] delays, int[] next, int which, long at) {
        int id = next[which]++;
        k.schedule(at, () -> {
            log.add(id);
            for (int c = 0; c < 2 && next[which] < delays.length; c++) {
                schedule(k, log, delays, next, which, k.now() + delays[next[which]] % 3 * delays[next[which]]);
            }
        });
    }
}

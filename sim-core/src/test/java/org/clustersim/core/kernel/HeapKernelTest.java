package org.clustersim.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class HeapKernelTest {

    @Test
    void runsActionsInTimeOrderAndFifoAtTheSameInstant() {
        HeapKernel k = new HeapKernel();
        List<String> log = new ArrayList<>();
        k.schedule(30, () -> log.add("c@" + k.now()));
        k.schedule(10, () -> log.add("a@" + k.now()));
        k.schedule(20, () -> log.add("b1@" + k.now()));
        k.schedule(20, () -> log.add("b2@" + k.now()));
        k.schedule(10, () -> k.schedule(20, () -> log.add("b3@" + k.now())));
        long executed = k.run();
        assertEquals(List.of("a@10", "b1@20", "b2@20", "b3@20", "c@30"), log);
        assertEquals(6, executed);
        assertEquals(30, k.now());
    }

    @Test
    void holdModelExecutesEverySuccessor() {
        HeapKernel k = new HeapKernel();
        long[] count = {0};
        Runnable[] self = new Runnable[1];
        self[0] = () -> {
            if (++count[0] < 1000) {
                k.schedule(k.now() + 7, self[0]);
            }
        };
        k.schedule(0, self[0]);
        assertEquals(1000, k.run());
        assertEquals(999 * 7, k.now());
    }

    @Test
    void exceptionReachesCallerWithSimulatedTime() {
        HeapKernel k = new HeapKernel();
        IllegalStateException boom = new IllegalStateException("boom");
        k.schedule(1234, () -> {
            throw boom;
        });
        SimulationException e = assertThrows(SimulationException.class, k::run);
        assertEquals(1234, e.timeNs());
        assertSame(boom, e.getCause());
        assertTrue(e.getMessage().contains("1.234 us"), e.getMessage());
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
    }

    @Test
    void refusesToScheduleInThePast() {
        HeapKernel k = new HeapKernel();
        List<Throwable> caught = new ArrayList<>();
        k.schedule(100, () -> {
            try {
                k.schedule(50, () -> { });
            } catch (IllegalArgumentException e) {
                caught.add(e);
            }
        });
        k.run();
        assertEquals(1, caught.size());
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

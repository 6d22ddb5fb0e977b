package org.clustersim.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class DsolKernelTest {

    @Test
    void runsActionsInTimeOrderAndFifoAtTheSameInstant() {
        DsolKernel k = new DsolKernel();
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
        DsolKernel k = new DsolKernel();
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
        DsolKernel k = new DsolKernel();
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
        DsolKernel k = new DsolKernel();
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
    void leavesNoSimulatorThreadBehind() throws InterruptedException {
        DsolKernel k = new DsolKernel();
        k.schedule(5, () -> { });
        k.run();
        // DSOL's worker thread is named after the simulator id; cleanUp() must have ended it.
        long deadline = System.currentTimeMillis() + 5000;
        while (System.currentTimeMillis() < deadline && workerAlive()) {
            Thread.sleep(10);
        }
        assertFalse(workerAlive(), "DSOL worker thread still alive after run()");
    }

    private static boolean workerAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("clustersim") && t.isAlive() && !t.isDaemon());
    }
}

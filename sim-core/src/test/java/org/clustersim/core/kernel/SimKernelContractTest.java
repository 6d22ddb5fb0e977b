package org.clustersim.core.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** What every {@link SimKernel} must do: time order, FIFO at one instant, errors with the time, no past. */
abstract class SimKernelContractTest {

    /** A fresh kernel of the implementation under test. */
    protected abstract SimKernel newKernel();

    @Test
    void runsActionsInTimeOrderAndFifoAtTheSameInstant() {
        SimKernel k = newKernel();
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
        SimKernel k = newKernel();
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
        SimKernel k = newKernel();
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
        SimKernel k = newKernel();
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
}

package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.study.scenario.Scenario;

/**
 * A plan's simulations share the heap: a candidate whose graph does not fit beside the ones
 * running waits for them (two large 16K-GPU candidates at once ran out of a 6 GB heap), holds its
 * footprint only while it runs, and is simulated exactly as {@code run} simulates it.
 */
class SimulationHeapTest {
    private static final BaseScenario BASE = BaseScenario.of(null, "gpt3-1.3b", "dgx-h100", 1, 16, 1024);

    private static Scenario candidate() {
        return CandidateTasks.read(new PlanSearch(BASE, null, 1).candidate(0,
                new Layout(2, 2, 1, 1, 2, 2, 2, "none", 1, "interleaved")));
    }

    /** Waits until {@code t} waits (on the heap's monitor) or ends. */
    private static void untilBlockedOrDone(Thread t) throws InterruptedException {
        while (t.isAlive() && t.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
    }

    @Test
    void aCandidateThatDoesNotFitBesideARunningOneWaitsForItAndGivesItsHeapBack() throws Exception {
        Scenario scenario = candidate();
        long footprint = SimulationHeap.footprint(SimulatedStep.build(scenario, scenario.trainingStep()).graph());
        assertTrue(footprint > 0);
        // room for the candidate alone, not beside another holding as much
        SimulationHeap heap = new SimulationHeap(footprint * 3 / 2);
        heap.awaitTurn();
        heap.hold(footprint);
        AtomicReference<StepFigures> figures = new AtomicReference<>();
        Thread second = new Thread(() -> figures.set(CandidateTasks.Simulate.simulate(scenario, heap)));
        second.start();
        untilBlockedOrDone(second);
        assertTrue(second.isAlive(), "the second simulation waits while the first holds the heap");
        assertEquals(footprint, heap.held());
        heap.release(footprint);
        second.join();
        assertEquals(0, heap.held(), "a simulation gives its footprint back when it ends");
        StepFigures alone = SimulatedStep.of(scenario, scenario.trainingStep(), false).figures();
        assertEquals(alone.stepTimeNs(), figures.get().stepTimeNs());
        assertEquals(alone.peakMemoryBytes(), figures.get().peakMemoryBytes());
    }

    @Test
    void aCandidateLargerThanTheLimitRunsAlone() throws Exception {
        Scenario scenario = candidate();
        SimulationHeap heap = new SimulationHeap(1);
        StepFigures f = CandidateTasks.Simulate.simulate(scenario, heap);
        assertTrue(f.stepTimeNs() > 0);
        assertEquals(0, heap.held());
    }

    @Test
    void noGraphIsBuiltWhileTheRunningOnesHoldMoreThanHalf() throws Exception {
        SimulationHeap heap = new SimulationHeap(100);
        heap.awaitTurn();
        heap.hold(60);
        Thread builder = new Thread(() -> {
            try {
                heap.awaitTurn();
                heap.endTurn();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        builder.start();
        untilBlockedOrDone(builder);
        assertTrue(builder.isAlive(), "a turn waits while 60 of 100 are held");
        heap.release(60);
        builder.join();
        assertFalse(builder.isAlive());
        // an interrupted wait ends the turn, so that the next one is not blocked for ever
        heap.awaitTurn();
        heap.hold(40);
        heap.awaitTurn();
        Thread.currentThread().interrupt();
        try {
            heap.hold(70);
        } catch (InterruptedException expected) {
            // the turn ended holding nothing
        }
        assertEquals(40, heap.held());
        heap.release(40);
        heap.awaitTurn();
        heap.endTurn();
    }
}

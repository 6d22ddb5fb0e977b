package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.clustersim.cli.output.StepRun;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.strategies.training.TrainingStep;

/**
 * The two figures a plan trusts without simulating: the lower bound on the step never exceeds the
 * simulated step, and the predicted peak memory never exceeds the simulated peak (so dropping a
 * candidate on it never drops one the simulation would have kept).
 */
class PlanBoundsTest {
    private static final BaseScenario BASE = BaseScenario.of(null, "gpt3-1.3b", "dgx-h100", 1, 16, 1024);

    /** Layouts with and without pipelines, interleaving, zero-bubble and the V shape, TP, CP, recomputation. */
    private static final List<Layout> LAYOUTS = List.of(
            new Layout(1, 1, 1, 1, 1, 8, 1, "selective", 1, "1f1b"),
            new Layout(2, 4, 1, 1, 1, 1, 1, "selective", 1, "1f1b"),
            new Layout(2, 2, 1, 1, 2, 2, 2, "none", 1, "interleaved"),
            new Layout(1, 4, 2, 1, 1, 1, 1, "full", 0, "gpipe"),
            new Layout(2, 2, 1, 1, 1, 2, 1, "selective", 1, "zb-h1"),
            new Layout(1, 2, 1, 1, 2, 4, 1, "selective", 1, "zb-v"),
            new Layout(4, 2, 1, 1, 1, 1, 2, "selective", 3, "1f1b"));

    @Test
    void theBoundNeverExceedsTheSimulatedStepNorThePredictionTheSimulatedPeak() {
        PlanSearch search = new PlanSearch(BASE, null, 1, 1);
        for (Layout l : LAYOUTS) {
            Candidate c = search.candidate(0, l);
            Screening s = new CandidateTasks.Screen().apply(c);
            assertEquals(Screening.Verdict.VALID, s.verdict(), l.label() + ": " + s.reason());
            StepRun run = StepRun.of(CandidateTasks.read(c));
            long step = run.summary().stepTimeNs();
            assertTrue(s.boundNs() > 0 && s.boundNs() <= step, l.label() + ": bound " + s.boundNs() + " > step " + step);
            // a real bound, not a token one: at least the busiest GPU's compute, which is most of a step here
            assertTrue(s.boundNs() >= 0.4 * step, l.label() + ": bound " + s.boundNs() + " vs step " + step);
            long peak = run.summary().peakMemoryBytes();
            assertTrue(s.memory().peakBytes() <= peak, l.label() + ": predicted " + s.memory().peakBytes()
                    + " > simulated " + peak);
            assertTrue(s.memory().peakBytes() >= 0.8 * peak, l.label() + ": predicted " + s.memory().peakBytes()
                    + " vs simulated " + peak);
        }
    }

    @Test
    void theBoundFollowsTheCriticalPathAcrossDevicesNotJustTheBusiestStream() {
        TaskGraph.Builder g = TaskGraph.builder();
        int a = g.device("a", 0);
        int b = g.device("b", 0);
        int ca = g.stream(a, "compute", StreamKind.COMPUTE);
        int cb = g.stream(b, "compute", StreamKind.COMPUTE);
        int net = g.stream(a, "send", StreamKind.COMMUNICATION);
        int recv = g.stream(b, "recv", StreamKind.COMMUNICATION);
        int f0 = g.compute("f0", "forward", ca, 100, 0);
        int send = g.communicate("send", "pp", new int[] {net, recv}, Work.Communication.pointToPoint(a, b, 1 << 20),
                f0);
        g.compute("f1", "forward", cb, 100, 0, send);
        g.compute("other", "forward", ca, 50, 0);
        TaskGraph graph = g.build();
        // a's stream runs 150 ns of compute, but b cannot start before a's first 100 ns: 200 ns at least
        assertEquals(200, StepBound.of(graph));
    }

    @Test
    void oneFOneBHoldsAsManyMicrobatchesOnARankAsStagesFromItToTheEnd() {
        // 1F1B's warm-up: rank p runs pp - p forwards before its first backward (Narayanan et al., 2021)
        Scenario s = CandidateTasks.read(new PlanSearch(BASE, null, 1, 1).candidate(0,
                new Layout(1, 4, 1, 1, 1, 2, 1, "selective", 1, "1f1b")));
        TrainingStep step = s.trainingStep();
        MemoryModel model = new MemoryModel(step);
        for (int p = 0; p < 4; p++) {
            assertEquals((4 - p) * model.activationBytes(p), PeakMemory.activationPeak(step, p), "rank " + p);
        }
        // GPipe keeps every microbatch of the step until the backward starts
        Scenario gpipe = CandidateTasks.read(new PlanSearch(BASE, null, 1, 1).candidate(0,
                new Layout(1, 4, 1, 1, 1, 2, 1, "selective", 1, "gpipe")));
        TrainingStep g = gpipe.trainingStep();
        assertEquals(8 * new MemoryModel(g).activationBytes(0), PeakMemory.activationPeak(g, 0));
    }
}

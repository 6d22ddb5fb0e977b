package org.clustersim.study.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.clustersim.cli.output.StepRun;
import org.clustersim.core.engine.CriticalPath;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.strategies.training.StepWalk;
import org.clustersim.strategies.training.TrainingStep;

/**
 * What a plan trusts without simulating: a layout's step built straight from the probe scenario is
 * the step its own file describes (the same estimate), the estimate is near the simulated step,
 * and the predicted peak memory never exceeds the simulated peak (so dropping a layout on it never
 * drops one the simulation would have kept).
 */
class PlanScreeningTest {
    private static final BaseScenario BASE = BaseScenario.of(null, "gpt3-1.3b", "dgx-h100", 1, 16, 1024);

    /**
     * Layouts with and without pipelines, interleaving, zero-bubble and the V shape, TP, CP,
     * recomputation, and the options a plan searches.
     */
    private static final List<Layout> LAYOUTS = List.of(
            new Layout(1, 1, 1, 1, 1, 8, 1, "selective", 1, "1f1b"),
            new Layout(2, 4, 1, 1, 1, 1, 1, "selective", 1, "1f1b"),
            new Layout(2, 2, 1, 1, 2, 2, 2, "none", 1, "interleaved"),
            new Layout(1, 4, 2, 1, 1, 1, 1, "full", 0, "gpipe"),
            new Layout(2, 2, 1, 1, 1, 2, 1, "selective", 1, "zb-h1"),
            new Layout(1, 2, 1, 1, 2, 4, 1, "selective", 1, "zb-v"),
            new Layout(4, 2, 1, 1, 1, 1, 2, "selective", 3, "1f1b"),
            new Layout(4, 1, 2, 1, 0, 1, 1, 1, "selective", "core_attn+mlp", 1, "", "1f1b", "ring", true, true, 40, 0),
            new Layout(2, 1, 1, 1, 0, 1, 4, 1, "none", "", 3, "fsdp2", "1f1b", "", true, false, 0, 0),
            new Layout(1, 1, 1, 1, 0, 1, 8, 2, "none", "", 2, "", "1f1b", "", false, true, 0, 8),
            new Layout(2, 2, 1, 1, 2, 2, 2, "none", 1, "dualpipev"),
            new Layout(2, 2, 1, 1, 1, 2, 2, "selective", 0, "dualpipe"));

    @Test
    void aLayoutsEstimateDoesNotDependOnWhatWasEstimatedBefore() {
        PlanSearch search = new PlanSearch(BASE, null, 1);
        // two probes: each screening starts from nothing shared
        Candidate first = search.candidate(0, LAYOUTS.get(0));
        Candidate second = search.candidate(1, LAYOUTS.get(1));
        List<Screening> forward = new CandidateTasks.Screen(first.file(), first.scenario(), BASE, BASE.layers())
                .apply(new CandidateTasks.Batch(0, LAYOUTS));
        List<Layout> reversed = new java.util.ArrayList<>(LAYOUTS);
        java.util.Collections.reverse(reversed);
        List<Screening> backward = new CandidateTasks.Screen(second.file(), second.scenario(), BASE, BASE.layers())
                .apply(new CandidateTasks.Batch(0, reversed));
        for (int i = 0; i < LAYOUTS.size(); i++) {
            assertEquals(forward.get(i).estimateNs(), backward.get(LAYOUTS.size() - 1 - i).estimateNs(),
                    LAYOUTS.get(i).label());
        }
    }

    @Test
    void aLayoutsStepFromTheProbeIsItsFilesStepNearTheSimulationWithinItsMemory() {
        PlanSearch search = new PlanSearch(BASE, null, 1);
        Candidate probe = search.candidate(0, LAYOUTS.get(0));
        CandidateTasks.Screen screen = new CandidateTasks.Screen(probe.file(), probe.scenario(), BASE,
                BASE.layers());
        List<Screening> screened = screen.apply(new CandidateTasks.Batch(0, LAYOUTS));
        for (int i = 0; i < LAYOUTS.size(); i++) {
            Layout l = LAYOUTS.get(i);
            Screening s = screened.get(i);
            assertEquals(Screening.Verdict.VALID, s.verdict(), l.label() + ": " + s.reason());
            Scenario own = CandidateTasks.read(search.candidate(i, l));
            TrainingStep step = own.trainingStep();
            // the fast path builds the step the file describes: the same estimate to the nanosecond
            assertEquals(StepWalk.stepNs(step, own.stepSequence(), StepWalk.context()), s.estimateNs(), l.label());
            StepRun run = StepRun.of(own);
            long simulated = run.summary().stepTimeNs();
            double error = Math.abs(s.estimateNs() - simulated) / (double) simulated;
            // ZeRO-3's per-layer gathers are in closed form (the frameworks' copy kernels and prefetch
            // rules are not): a wider margin there, measured -24% on the FSDP2 layout
            assertTrue(error < (l.zero() == 3 ? 0.30 : 0.15), l.label() + ": estimate " + s.estimateNs()
                    + " vs simulated " + simulated);
            long peak = run.summary().peakMemoryBytes();
            assertTrue(s.memory().peakBytes() <= peak, l.label() + ": predicted " + s.memory().peakBytes()
                    + " > simulated " + peak);
            assertTrue(s.memory().peakBytes() >= 0.8 * peak, l.label() + ": predicted " + s.memory().peakBytes()
                    + " vs simulated " + peak);
        }
    }

    @Test
    void theCriticalPathCrossesDevicesAndChargesCommunicationItsTime() {
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
        assertEquals(200, CriticalPath.of(graph, c -> 0).endNs());
        // with the send at 30 ns it lies on the path: 230
        assertEquals(230, CriticalPath.of(graph, c -> 30).endNs());
    }

    @Test
    void oneFOneBHoldsAsManyMicrobatchesOnARankAsStagesFromItToTheEnd() {
        // 1F1B's warm-up: rank p runs pp - p forwards before its first backward (Narayanan et al., 2021)
        Scenario s = CandidateTasks.read(new PlanSearch(BASE, null, 1).candidate(0,
                new Layout(1, 4, 1, 1, 1, 2, 1, "selective", 1, "1f1b")));
        TrainingStep step = s.trainingStep();
        MemoryModel model = new MemoryModel(step);
        for (int p = 0; p < 4; p++) {
            assertEquals((4 - p) * model.activationBytes(p), PeakMemory.activationPeak(step, p), "rank " + p);
        }
        // GPipe keeps every microbatch of the step until the backward starts
        Scenario gpipe = CandidateTasks.read(new PlanSearch(BASE, null, 1).candidate(0,
                new Layout(1, 4, 1, 1, 1, 2, 1, "selective", 1, "gpipe")));
        TrainingStep g = gpipe.trainingStep();
        assertEquals(8 * new MemoryModel(g).activationBytes(0), PeakMemory.activationPeak(g, 0));
    }
}

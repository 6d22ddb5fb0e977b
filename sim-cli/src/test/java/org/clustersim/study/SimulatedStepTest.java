package org.clustersim.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.cli.output.RunSummary;
import org.clustersim.cli.output.StepRun;
import org.clustersim.study.scenario.FaultEvents;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.study.whatif.Outcome;
import org.clustersim.study.whatif.WhatIfStudy;
import org.clustersim.strategies.training.StepSequence;
import org.clustersim.strategies.training.TrainingStep;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One step run and one definition of its figures, whichever command reports them. */
class SimulatedStepTest {
    @TempDir
    Path dir;

    private Scenario scenario(String name, String text) throws IOException {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, text);
        return new ScenarioReader().read(file);
    }

    /** Zero-bubble steps overlap, so the last step's window differs from the whole timeline. */
    private static final String OVERLAPPING_STEPS = """
            cluster: {preset: dgx-h100, gpusPerNode: 4}
            model: {preset: gpt3-1.3b}
            parallelism: {pp: 4}
            schedule: {kind: zb-h1}
            training: {globalBatch: 8, seqLen: 2048}
            simulation: {steps: 3}
            """;

    /** With one step, the gathers of the previous update open the step: a different graph from a bare step. */
    private static final String PREFETCHED_GATHER = """
            cluster: {preset: dgx-h100, nodes: 1}
            model: {preset: gpt3-1.3b}
            parallelism: {dp: 8, zero: 1, overlapParamGather: true}
            training: {globalBatch: 16, seqLen: 2048}
            """;

    @Test
    void aWhatIfBaselineReportsWhatRunReports() throws IOException {
        for (String text : List.of(OVERLAPPING_STEPS, PREFETCHED_GATHER)) {
            Scenario s = scenario("s", text);
            RunSummary run = StepRun.of(s).summary();
            Outcome baseline = new WhatIfStudy(s).run("baseline", "", List.of(), null);
            assertEquals(run.stepTimeNs(), baseline.stepTimeNs(), text);
            assertEquals(run.mfu(), baseline.mfu(), 0.0, text);
            assertEquals(run.idleFraction(), baseline.idleFraction(), 0.0, text);
            assertEquals(run.pipelineBubbleFraction(), baseline.pipelineBubbleFraction(), 0.0, text);
            assertEquals(run.exposedCommFraction(), baseline.exposedCommFraction(), 0.0, text);
            assertEquals(run.otherWaitFraction(), baseline.otherWaitFraction(), 0.0, text);
            Map<String, Long> sum = new TreeMap<>();
            run.devices().forEach(d -> d.exposedByKind().forEach((k, v) -> sum.merge(k, v, Long::sum)));
            sum.replaceAll((k, v) -> v / run.devices().size());
            assertEquals(sum, baseline.exposedByKindNs(), text);
        }
    }

    @Test
    void severalStepsAreMeasuredOverTheLastStepNotTheWholeRun() throws IOException {
        Scenario s = scenario("s", OVERLAPPING_STEPS);
        SimulatedStep run = SimulatedStep.of(s, s.trainingStep(), false);
        StepFigures f = run.figures();
        assertEquals(3, f.steps().size());
        StepFigures.StepSpan last = f.steps().get(2);
        assertEquals(last.durationNs(), f.stepTimeNs());
        assertEquals(f.makespanNs(), last.endNs());
        assertTrue(f.stepTimeNs() < f.makespanNs() / 2, f.stepTimeNs() + " of " + f.makespanNs());
        assertEquals((double) f.tokensPerStep() / (f.stepTimeNs() / 1e9), f.tokensPerSecond(), 1e-9 * f.tokensPerSecond());
    }

    @Test
    void aScenarioStepIsBuiltWithItsStepSequence() throws IOException {
        Scenario s = scenario("s", PREFETCHED_GATHER);
        TrainingStep step = s.trainingStep();
        long scenarioStep = SimulatedStep.of(s, step, false).figures().stepTimeNs();
        long bareStep = SimulatedStep.of(s, step, step.build(StepSequence.ONE), step.topology(), FaultEvents.NONE,
                false).figures().stepTimeNs();
        assertTrue(scenarioStep < bareStep, "gathers ahead of the forward shorten the step: " + scenarioStep
                + " vs " + bareStep);
    }
}

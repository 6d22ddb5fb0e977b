package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.study.SimulatedStep;
import org.clustersim.study.StepFigures;
import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.strategies.training.TrainingStep;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A plan's candidates are built without task names ({@link SimulatedStep#buildUnnamed}): the
 * same tasks, streams and dependencies, and the same figures, as the named build that {@code run}
 * simulates; a task without its name answers its category. Shrunk bundled layouts with tensor-
 * parallel overlap and ring context parallelism (the 405B plan's largest candidates), and the
 * interleaved schedule with the param-gather overlap.
 */
class UnnamedTasksTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            "llama31-70b-2048xh100-tp4-pp4-cp2-dp64 | cluster.nodes=8;parallelism.dp=2;model.layers=20;"
                    + "training.globalBatch=8;parallelism.cpVariant=ring;parallelism.tpCommOverlap=true",
            "llama3-405b-16k-h100 | cluster.nodes=64;parallelism.dp=4;parallelism.accountForEmbeddingInPipelineSplit=;"
                    + "parallelism.accountForLossInPipelineSplit=;schedule.v=2;model.layers=32;training.globalBatch=64;"
                    + "parallelism.zero=1;parallelism.overlapParamGather=true",
    })
    void unnamedCandidatesAreSimulatedAsNamedOnes(String scenario, String overrides) throws IOException {
        Scenario s = new ScenarioReader().read(ScenarioOverrides.write(scenario, overrides, dir.resolve("s.yaml")));
        TrainingStep step = s.trainingStep();
        TrainingStep.Built named = SimulatedStep.build(s, step);
        TrainingStep.Built unnamed = SimulatedStep.buildUnnamed(s, step);
        TaskGraph a = named.graph();
        TaskGraph b = unnamed.graph();
        assertEquals(a.taskCount(), b.taskCount(), "tasks");
        for (int t = 0; t < a.taskCount(); t++) {
            assertTrue(a.named(t), "task " + t + " named");
            assertFalse(b.named(t), "task " + t + " unnamed");
            assertEquals(a.category(t), b.name(t), "task " + t + " answers its category");
            assertEquals(a.tag(t), b.tag(t), "task " + t);
            assertEquals(a.streamCount(t), b.streamCount(t), "task " + t);
            for (int i = 0; i < a.streamCount(t); i++) {
                assertEquals(a.taskStream(t, i), b.taskStream(t, i), "task " + t);
                assertEquals(a.nextOnStream(t, i), b.nextOnStream(t, i), "task " + t);
            }
            assertEquals(a.depCount(t), b.depCount(t), "task " + t);
            for (int i = 0; i < a.depCount(t); i++) {
                assertEquals(a.dep(t, i), b.dep(t, i), "task " + t);
            }
        }
        StepFigures x = SimulatedStep.of(s, step, named, step.topology(), s.faultEvents(step.topology()), false)
                .figures();
        StepFigures y = SimulatedStep.of(s, step, unnamed, step.topology(), s.faultEvents(step.topology()), false)
                .figures();
        assertEquals(x.stepTimeNs(), y.stepTimeNs());
        assertEquals(x.pipelineBubbleFraction(), y.pipelineBubbleFraction());
        assertEquals(x.exposedCommFraction(), y.exposedCommFraction());
        assertEquals(x.exposedByKindNs(), y.exposedByKindNs());
        assertEquals(x.interferenceFraction(), y.interferenceFraction());
        assertEquals(x.peakMemoryBytes(), y.peakMemoryBytes());
    }
}

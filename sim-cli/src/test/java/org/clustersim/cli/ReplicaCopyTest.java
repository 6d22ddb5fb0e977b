package org.clustersim.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.study.scenario.ScenarioReader;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.training.StepBuilder;
import org.clustersim.strategies.training.TrainingStep;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With every replica simulated, replicas after the first are copied from it where that is provably
 * the same ({@code PipelineReplicas}): the graph, task by task and queue by queue, and the
 * pipelines' bookkeeping must be what building every replica makes. Bundled layouts, shrunk, over
 * the schedules, tensor-parallel overlap, ring context parallelism and consecutive steps; and the
 * layouts where a copy is refused (experts exchanging across replicas, ZeRO-3's per-layer
 * gathers) build every replica.
 */
class ReplicaCopyTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
            // scenario | overrides: dotted path=value, ';' between | replicas copied per step
            "gpt3-175b-128xh100-tp8-pp8-dp2 | model.layers=16;training.globalBatch=16 | 1",
            "gpt3-175b-128xh100-tp8-pp8-dp2 | model.layers=16;training.globalBatch=16;schedule.kind=interleaved;"
                    + "schedule.v=2 | 1",
            "gpt3-175b-128xh100-tp8-pp8-dp2 | model.layers=16;training.globalBatch=16;schedule.kind=zb-h1 | 1",
            "gpt3-175b-128xh100-tp8-pp8-dp2 | model.layers=16;training.globalBatch=32;schedule.kind=dualpipe | 1",
            "gpt3-175b-128xh100-tp8-pp8-dp2 | model.layers=16;training.globalBatch=16;"
                    + "parallelism.tpCommOverlap=true | 1",
            "gpt3-175b-128xh100-tp8-pp8-dp2 | model.layers=8;cluster.nodes=32;parallelism.dp=4;"
                    + "training.globalBatch=32;simulation.steps=2 | 3",
            "llama31-70b-2048xh100-tp4-pp4-cp2-dp64 | cluster.nodes=8;parallelism.dp=2;model.layers=20;"
                    + "training.globalBatch=8;parallelism.cpVariant=ring | 1",
            "llama3-405b-16k-h100 | cluster.nodes=64;parallelism.dp=4;parallelism.accountForEmbeddingInPipelineSplit=;"
                    + "parallelism.accountForLossInPipelineSplit=;schedule.v=2;model.layers=32;training.globalBatch=64;"
                    + "parallelism.gradBucketMB=64 | 3",
            "mixtral-8x7b-64xh100-tp2-pp4-ep8 | model.layers=8;training.globalBatch=32 | 0",
            "llama3-70b-512xh100-tp8-pp4-cp2-fsdp | model.layers=8;training.globalBatch=32 | 0",
    })
    void copiedReplicasAreWhatBuildingEachMakes(String scenario, String overrides, int copiedPerStep)
            throws IOException {
        Path file = ScenarioOverrides.write(scenario, overrides + ";simulation.replicas=all", dir.resolve("all.yaml"));
        Scenario s = new ScenarioReader().read(file);
        TrainingStep step = s.trainingStep();

        StepBuilder copying = new StepBuilder(step, s.stepSequence(), true);
        TrainingStep.Built copied = copying.build();
        TrainingStep.Built built = new StepBuilder(step, s.stepSequence(), false).build();
        assertEquals(copiedPerStep * s.stepSequence().steps(), copying.copiedReplicas(), "replicas copied");

        sameGraph(built.graph(), copied.graph());
        Timeline t = Simulation.run(copied.graph(), step.topology());
        assertEquals(built.pipelines().size(), copied.pipelines().size());
        for (int d = 0; d < built.pipelines().size(); d++) {
            PipelineTasks a = built.pipelines().get(d);
            PipelineTasks b = copied.pipelines().get(d);
            for (int r = 0; r < step.pp(); r++) {
                assertEquals(a.peakActivations(t, r), b.peakActivations(t, r), "replica " + d + " rank " + r);
                assertArrayEquals(a.activationBytes(t, r, st -> st + 1)[0], b.activationBytes(t, r, st -> st + 1)[0]);
                for (int stage = 0; stage < step.stages(); stage++) {
                    String at = "replica " + d + " rank " + r + " stage " + stage;
                    assertEquals(a.firstForward(r, stage), b.firstForward(r, stage), at);
                    assertArrayEquals(a.firstForwardInputs(r, stage), b.firstForwardInputs(r, stage), at);
                    assertArrayEquals(a.gradientsReady(r, stage), b.gradientsReady(r, stage), at);
                }
            }
        }
    }

    /** Every task, stream and queue of {@code b} as in {@code a}, work by value. */
    private static void sameGraph(TaskGraph a, TaskGraph b) {
        assertEquals(a.taskCount(), b.taskCount(), "tasks");
        assertEquals(a.streams(), b.streams(), "streams");
        for (int t = 0; t < a.taskCount(); t++) {
            String at = "task " + t + " (" + a.name(t) + ")";
            assertEquals(a.name(t), b.name(t), at);
            assertEquals(a.category(t), b.category(t), at);
            assertEquals(describe(a.work(t)), describe(b.work(t)), at);
            assertEquals(a.streamCount(t), b.streamCount(t), at);
            for (int i = 0; i < a.streamCount(t); i++) {
                assertEquals(a.taskStream(t, i), b.taskStream(t, i), at);
                assertEquals(a.nextOnStream(t, i), b.nextOnStream(t, i), at);
            }
            assertEquals(a.depCount(t), b.depCount(t), at);
            for (int i = 0; i < a.depCount(t); i++) {
                assertEquals(a.dep(t, i), b.dep(t, i), at);
            }
        }
        for (int s = 0; s < a.streams().size(); s++) {
            assertEquals(a.streamLength(s), b.streamLength(s), "stream " + s);
            for (int p = 0; p < a.streamLength(s); p++) {
                assertEquals(a.streamTask(s, p), b.streamTask(s, p), "stream " + s + " position " + p);
            }
        }
    }

    /** A work by value: communication as it is (a record), compute with its op split spelled out. */
    private static Object describe(Work w) {
        if (!(w instanceof Work.Compute c)) {
            return w;
        }
        StringBuilder ops = new StringBuilder();
        for (int i = 0; c.ops() != null && i < c.ops().size(); i++) {
            ops.append(c.ops().op(i)).append('=').append(c.ops().share(i)).append(' ');
        }
        return c.durationNs() + " ns, " + c.flops() + " flops, " + ops;
    }
}

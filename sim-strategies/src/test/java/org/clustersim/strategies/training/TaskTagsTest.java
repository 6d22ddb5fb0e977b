package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.pipeline.PipelineOp;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * Every task of a built step carries the tag of what it is, set where it was created: the
 * compute of each pipeline rank the passes its schedule lists, in its order, with their
 * microbatches and layers; sends the pass and microbatch of what they carry; collectives their
 * traffic kind.
 */
class TaskTagsTest {
    private static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();
    private static final PipelineSchedule ZB_H1 = ScheduleKind.ZB_H1.schedule(1);
    private static final int M = 4;

    /** tp 2, pp 2, dp 2 on one server, zero-bubble H1 (forward, input-gradient and weight-gradient passes). */
    private static TrainingStep step(LayerCostModel.Recompute recompute) {
        return TrainingStep.builder(TrainingStepTest.SMALL, NODE).sizes(2, 1, 2, 2).schedule(ZB_H1)
                .batch(M, 1, 2048).kernels(Precision.BF16, AttentionImpl.CUDNN).recompute(recompute)
                .overlapGradReduce(false).replicas(2).build();
    }

    @Test
    void eachRanksComputeIsTaggedWithThePassesOfItsScheduleInOrder() {
        TrainingStep s = step(LayerCostModel.Recompute.NONE);
        TaskGraph g = s.build().graph();
        for (int p = 0; p < 2; p++) {
            List<String> expected = new ArrayList<>();
            for (PipelineOp op : ZB_H1.program(p, 2, M)) {
                PipelineOp.Action a = (PipelineOp.Action) op;
                expected.add(a.kind().pass() + " " + a.microbatch() + " " + a.chunk());
            }
            List<String> seen = new ArrayList<>();
            int device = s.device(0, 0, p, 0);
            int first = s.split().firstLayer(p);
            int last = first + s.split().layers(p) - 1;
            for (int i = 0; i < g.deviceStreamCount(device); i++) {
                int stream = g.deviceStream(device, i);
                if (!g.isComputeStream(stream)) {
                    continue;
                }
                for (int k = 0; k < g.streamLength(stream); k++) {
                    TaskTag tag = g.tag(g.streamTask(stream, k));
                    if (tag.pass() == TaskTag.Pass.OPTIMIZER) {
                        continue;
                    }
                    String key = tag.pass() + " " + tag.microbatch() + " " + tag.chunk();
                    if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(key)) {
                        seen.add(key);
                    }
                    // embedding and logits belong to no layer; every other task to one of the stage's
                    assertTrue(tag.layer() == -1 || tag.layer() >= first && tag.layer() <= last,
                            "rank " + p + ": " + g.name(g.streamTask(stream, k)) + " tagged " + tag);
                }
            }
            assertEquals(expected, seen, "rank " + p);
        }
    }

    @Test
    void sendsCarryThePassAndMicrobatchOfTheTaskThatProducedTheirData() {
        TaskGraph g = step(LayerCostModel.Recompute.NONE).build().graph();
        int[] perPass = new int[TaskTag.Pass.values().length];
        for (int t = 0; t < g.taskCount(); t++) {
            TaskTag tag = g.tag(t);
            if (tag.traffic() != TaskTag.Traffic.PIPELINE_SEND) {
                continue;
            }
            TaskTag producer = g.tag(g.dep(t, 0));
            assertEquals(producer.pass(), tag.pass(), g.name(t));
            assertEquals(producer.microbatch(), tag.microbatch(), g.name(t));
            assertEquals(producer.chunk(), tag.chunk(), g.name(t));
            assertEquals("pp-p2p", g.category(t));
            perPass[tag.pass().ordinal()]++;
        }
        // each microbatch crosses the one stage boundary once each way, from each of the 2 GPUs of the 2 replicas
        assertEquals(M * 2 * 2, perPass[TaskTag.Pass.FORWARD.ordinal()]);
        assertEquals(M * 2 * 2, perPass[TaskTag.Pass.BACKWARD_INPUT.ordinal()]);
        assertEquals(2 * M * 2 * 2, java.util.Arrays.stream(perPass).sum());
    }

    @Test
    void collectivesCarryTheirTrafficKindAndEveryCategoryIsTheTags() {
        TaskGraph g = step(LayerCostModel.Recompute.NONE).build().graph();
        int tensor = 0;
        int reductions = 0;
        int optimizers = 0;
        for (int t = 0; t < g.taskCount(); t++) {
            TaskTag tag = g.tag(t);
            assertEquals(tag.category(), g.category(t));
            String stream = g.stream(g.taskStream(t, 0)).name();
            if (stream.equals("tp")) {
                tensor++;
                assertEquals(TaskTag.Traffic.TENSOR, tag.traffic(), g.name(t));
                assertTrue(tag.microbatch() >= 0 && tag.microbatch() < M && tag.layer() >= 0, g.name(t) + " " + tag);
            } else if (stream.equals("dp")) {
                reductions++;
                assertEquals(TaskTag.Traffic.GRADIENT_REDUCE, tag.traffic(), g.name(t));
                assertEquals(TaskTag.Pass.NONE, tag.pass());
                assertEquals(-1, tag.microbatch());
            } else if (g.name(t).equals("adam step")) {
                optimizers++;
                assertEquals(TaskTag.Pass.OPTIMIZER, tag.pass());
            }
        }
        assertTrue(tensor > 0 && reductions > 0, tensor + " TP collectives, " + reductions + " reductions");
        assertEquals(8, optimizers, "one optimizer step per GPU");
    }

    @Test
    void fullRecomputationTagsTheReplayedForwardAsRecomputeInsideItsBackward() {
        TaskGraph g = step(LayerCostModel.Recompute.FULL).build().graph();
        int replayed = 0;
        for (int t = 0; t < g.taskCount(); t++) {
            TaskTag tag = g.tag(t);
            boolean named = g.name(t).contains(" recompute");
            assertEquals(named, tag.recompute(), g.name(t));
            if (tag.recompute()) {
                replayed++;
                assertEquals(TaskTag.Pass.BACKWARD_INPUT, tag.pass(), g.name(t));
                assertEquals(tag.traffic() == TaskTag.Traffic.NONE ? "backward-input" : tag.traffic().category(),
                        g.category(t), g.name(t));
            }
        }
        assertTrue(replayed > 0);
    }
}

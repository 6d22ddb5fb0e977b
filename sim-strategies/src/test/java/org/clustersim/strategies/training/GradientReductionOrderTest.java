package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Predicate;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.AttentionImpl;
import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * When each pipeline rank's data-parallel gradient reductions run under an interleaved
 * schedule. A rank's buckets share one communicator, so they run in the order they are issued:
 * with {@code overlapGradReduce} the last chunk's gradients complete first and go first (each
 * rank p launching a chunk's p backward passes after its last, as Megatron-core aligns them), and the
 * tied embedding's sum between the first and the last rank follows both ranks' own buckets
 * (Megatron-core's finalize_model_grads), so the last rank does not wait for the first one's
 * backward before reducing its own gradients.
 */
class GradientReductionOrderTest {
    /** {@link TrainingStepTest#SMALL} with tied embeddings: 8 layers, 4 stages of 2 over 2 ranks. */
    private static final TransformerModel TIED = new TransformerModel("small-tied", 8, 2048, 16, 16, 8192,
            TransformerModel.FfnKind.GELU, 32000, true);

    private static TrainingStep step(boolean overlap) {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        return TrainingStep.builder(TIED, node).kernels(Precision.BF16, AttentionImpl.CUDNN)
                .sizes(1, 1, 2, 4).schedule(ScheduleKind.INTERLEAVED.schedule(2)).batch(4, 1, 2048)
                .blockingSends(true).overlapGradReduce(overlap).build();
    }

    /** Earliest start and latest end of the tasks on {@code device} whose name passes {@code name}. */
    private static long[] span(Timeline timeline, int device, Predicate<String> name) {
        TaskGraph g = timeline.graph();
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        for (int i = 0; i < g.taskCount(); i++) {
            if (!name.test(g.name(i))) {
                continue;
            }
            for (int s = 0; s < g.streamCount(i); s++) {
                if (g.stream(g.taskStream(i, s)).device() == device) {
                    start = Math.min(start, timeline.start(i));
                    end = Math.max(end, timeline.end(i));
                }
            }
        }
        assertTrue(start <= end, "no task on device " + device);
        return new long[] {start, end};
    }

    @Test
    void lastRankReducesItsGradientsBeforeTheFirstRankFinishesItsBackward() {
        for (boolean overlap : new boolean[] {false, true}) {
            TrainingStep step = step(overlap);
            Timeline t = TrainingStepTest.run(step).timeline();
            long firstRankBackward = span(t, step.device(0, 0, 0, 0), n -> n.startsWith("B "))[1];
            long lastRankReductions = span(t, step.device(0, 0, 1, 0), n -> n.startsWith("dp-grad"))[0];
            assertTrue(lastRankReductions < firstRankBackward, "overlap " + overlap + ": the last rank's buckets"
                    + " start at " + lastRankReductions + " ns, after the first rank's backward ends at "
                    + firstRankBackward);
        }
    }

    @Test
    void theLastChunksBucketsHideUnderTheFirstChunksBackward() {
        TrainingStep step = step(true);
        Timeline t = TrainingStepTest.run(step).timeline();
        int rank0 = step.device(0, 0, 0, 0);
        long chunk0Backward = span(t, rank0, n -> n.startsWith("B ") && n.contains(" c0 "))[1];
        // rank 0 holds stages 0 and 2: chunk 1 is stage 2
        long[] chunk1Buckets = span(t, rank0, n -> n.startsWith("dp-grad") && n.contains(" stage2 "));
        assertTrue(chunk1Buckets[1] < chunk0Backward, "chunk 1's buckets end at " + chunk1Buckets[1]
                + " ns, after chunk 0's backward at " + chunk0Backward);
    }

    @Test
    void laterRanksLaunchAChunksReductionOneBackwardPassPerRankAfterItsLast() {
        // Megatron-core's align_grad_reduce: rank 1 launches chunk 1 (stage 3) after the backward
        // pass that follows its last one of chunk 1, when rank 0 finishes chunk 1, not at once
        TrainingStep step = step(true);
        Timeline t = TrainingStepTest.run(step).timeline();
        int rank1 = step.device(0, 0, 1, 0);
        long lastChunk1 = span(t, rank1, n -> n.startsWith("B mb3 c1 "))[1];
        String next = null;
        long nextStart = Long.MAX_VALUE;
        TaskGraph g = t.graph();
        for (int i = 0; i < g.taskCount(); i++) {
            if (g.name(i).startsWith("B ") && g.stream(g.taskStream(i, 0)).device() == rank1
                    && t.start(i) >= lastChunk1 && t.start(i) < nextStart) {
                nextStart = t.start(i);
                String[] words = g.name(i).split(" ");
                next = words[0] + " " + words[1] + " " + words[2] + " ";
            }
        }
        String pass = next;
        long nextEnd = span(t, rank1, n -> n.startsWith(pass))[1];
        long launch = span(t, rank1, n -> n.startsWith("dp-grad") && n.contains(" stage3 "))[0];
        assertTrue(launch >= nextEnd, "chunk 1's buckets start at " + launch + " ns, before the next backward pass ("
                + pass + ") ends at " + nextEnd + " ns; its last backward pass of chunk 1 ended at " + lastChunk1);
    }

    @Test
    void withoutOverlapEveryBucketWaitsForTheRanksWholeBackward() {
        TrainingStep step = step(false);
        Timeline t = TrainingStepTest.run(step).timeline();
        for (int p = 0; p < 2; p++) {
            int device = step.device(0, 0, p, 0);
            long backward = span(t, device, n -> n.startsWith("B "))[1];
            long buckets = span(t, device, n -> n.startsWith("dp-grad"))[0];
            assertTrue(buckets >= backward, "rank " + p + ": a bucket starts at " + buckets
                    + " ns, before the backward ends at " + backward);
        }
    }
}

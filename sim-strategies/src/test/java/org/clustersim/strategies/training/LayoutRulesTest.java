package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.strategies.model.TransformerModel;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * The layout's rules in their one home: each names the field it concerns, and a step built
 * programmatically is refused with the same words the scenario reader reports.
 */
class LayoutRulesTest {
    static final Topology NODE = SwitchedClusterSpec.dgxH100(1).build();
    static final TransformerModel MOE = ExpertParallelTest.moe(ExpertParallelTest.EIGHT_TOP2);

    private static List<String> fields(List<LayoutRules.Violation> broken) {
        return broken.stream().map(LayoutRules.Violation::field).toList();
    }

    @Test
    void tensorParallelOverlapWithoutSequenceParallelismIsRefusedAtItsField() {
        LayoutBuilder b = TrainingStepTest.small(NODE).sizes(8, 1, 1, 1).tpCommOverlap(true);
        List<LayoutRules.Violation> broken = LayoutRules.layout(b);
        assertEquals(List.of("tpCommOverlap"), fields(broken));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, b::build);
        assertEquals(broken.get(0).message(), e.getMessage(), "the step says what the reader says");
        // with sequence parallelism, or without tensor parallelism, there is nothing to overlap wrongly
        assertTrue(LayoutRules.layout(b.sequenceParallel(true)).isEmpty());
        assertTrue(LayoutRules.layout(TrainingStepTest.small(NODE).tpCommOverlap(true)).isEmpty());
    }

    @Test
    void anExpertFoldThatDoesNotFitIsReportedBeforeAMeshCanBeLaidOut() {
        // 8 GPUs per stage; EP 3 divides nothing
        LayoutBuilder b = TrainingStep.builder(MOE, NODE).sizes(1, 1, 1, 8).experts(3, 0);
        assertEquals(List.of("ep"), fields(LayoutRules.layout(b)));
        assertThrows(IllegalArgumentException.class, b::layout);
        assertTrue(LayoutRules.layout(b.experts(4, 0)).isEmpty());
    }

    @Test
    void zeroThreeWithExpertsAndAHybridShardGroupNeedingZeroAreEachNamed() {
        LayoutBuilder b = TrainingStep.builder(MOE, NODE).sizes(1, 1, 1, 8).experts(4, 0).zero(3);
        assertEquals(List.of("ep"), fields(LayoutRules.layout(b)));
        LayoutBuilder hybrid = TrainingStepTest.small(NODE).sizes(1, 1, 1, 8).shardGroup(4);
        assertEquals(List.of("shardGroup"), fields(LayoutRules.layout(hybrid)));
        assertTrue(LayoutRules.layout(hybrid.zero(1)).isEmpty());
        assertEquals(List.of("shardGroup"), fields(LayoutRules.layout(hybrid.shardGroup(3))), "3 does not divide 8");
    }

    @Test
    void theModelAndBatchRulesRefuseAStepWithTheReadersWords() {
        // 8 layers on 3 stages, no split given
        IllegalArgumentException split = assertThrows(IllegalArgumentException.class,
                () -> TrainingStepTest.small(NODE).sizes(1, 1, 3, 1).batch(3, 1, 2048).build());
        assertTrue(split.getMessage().contains("expected the stages to divide model.layers (8)"), split.getMessage());
        IllegalArgumentException cp = assertThrows(IllegalArgumentException.class,
                () -> TrainingStepTest.small(NODE).sizes(1, 4, 1, 1).batch(1, 1, 1002).build());
        assertTrue(cp.getMessage().contains("expected a divisor of training.seqLen (1002)"), cp.getMessage());
        IllegalArgumentException ep = assertThrows(IllegalArgumentException.class,
                () -> TrainingStepTest.small(NODE).sizes(1, 1, 1, 8).experts(2, 0).build());
        assertTrue(ep.getMessage().contains("has no experts"), ep.getMessage());
    }

    @Test
    void aStepCopiedThroughItsBuilderKeepsEverySetting() {
        TrainingStep s = TrainingStep.builder(MOE, NODE).sizes(2, 1, 2, 2).experts(2, 0).zero(1)
                .sequenceParallel(true).tpCommOverlap(true).overlapGradReduce(false).bucketBytes(1 << 20)
                .schedule(ScheduleKind.INTERLEAVED.schedule(2)).batch(4, 2, 1024).blockingSends(true).replicas(1)
                .build();
        TrainingStep copy = s.toBuilder().build();
        assertEquals(s.layout(), copy.layout());
        assertEquals(s.batch(), copy.batch());
        assertEquals(s.numerics(), copy.numerics());
        assertEquals(s.pipelines().replicas(), copy.pipelines().replicas());
        assertEquals(s.split().stages(), copy.split().stages());
        assertEquals(2, copy.withReplicas(2).replicas());
        assertTrue(copy.blockingSends() && copy.tpCommOverlap() && !copy.overlapGradReduce());
    }
}

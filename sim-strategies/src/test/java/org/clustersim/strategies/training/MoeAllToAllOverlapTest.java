package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.cost.KernelCosts;
import org.clustersim.strategies.cost.LayerCostModel;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.device.DeviceProfiles;
import org.clustersim.strategies.pipeline.CombinedOneFOneB;
import org.clustersim.strategies.pipeline.PipelineSchedule;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * Megatron-core's overlap_moe_expert_parallel_comm outside DualPipe: the combined 1F1B schedule
 * pairs microbatch k's forward with microbatch k - 1's backward, and the all-to-alls of each run
 * while the other computes, as the timeline shows.
 */
class MoeAllToAllOverlapTest {
    static final Topology TWO = SwitchedClusterSpec.dgxH100(2).build();

    static TrainingStep step(PipelineSchedule schedule) {
        // pp 1, 16 replicas, EP 8 inside each server: 4 microbatches per replica
        return TrainingStep.builder(ExpertParallelTest.moe(ExpertParallelTest.EIGHT_TOP2), TWO)
                .mesh(new Mesh(1, 1, 1, 16, 8, Mesh.parseOrder("tp-cp-dp-pp"))).zero(1).schedule(schedule)
                .batch(4, 1, 2048).kernels(KernelCosts.of(DeviceProfiles.bundled("h100-sxm"), Precision.BF16))
                .replicas(1).build();
    }

    @Test
    void microbatchOnesAllToAllsRunUnderMicrobatchZerosBackwardCompute() {
        TrainingStep s = step(new CombinedOneFOneB(ScheduleKind.ONE_F_ONE_B.schedule(1)));
        TrainingStep.Built built = s.build();
        TaskGraph g = built.graph();
        Timeline t = TrainingStepTest.run(s).timeline();
        // the pair "F mb1 & B mb0": every dispatch and combine of mb1's forward on GPU 0, and the time
        // mb0's backward computes on GPU 0 while it is in flight
        long a2a = 0;
        long hidden = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            String name = g.task(i).name();
            if (!name.startsWith("ep-a2a ") || !name.contains("F mb1 & B mb0 F L") || !on(g, i, 0)) {
                continue;
            }
            a2a += t.end(i) - t.start(i);
            for (int j = 0; j < g.taskCount(); j++) {
                if (g.task(j).work() instanceof Work.Compute && g.task(j).name().startsWith("F mb1 & B mb0 B L")
                        && on(g, j, 0)) {
                    hidden += Math.max(0, Math.min(t.end(i), t.end(j)) - Math.max(t.start(i), t.start(j)));
                }
            }
        }
        assertTrue(a2a > 0, "mb1's forward exchanges tokens");
        assertTrue(hidden > 0.3 * a2a, hidden + " ns of mb1's " + a2a + " ns of all-to-all under mb0's backward");
        // and the reverse: mb0's backward all-to-alls under mb1's forward compute
        long back = 0;
        for (int i = 0; i < g.taskCount(); i++) {
            String name = g.task(i).name();
            if (name.startsWith("ep-a2a ") && name.contains("F mb1 & B mb0 B L") && on(g, i, 0)) {
                for (int j = 0; j < g.taskCount(); j++) {
                    if (g.task(j).work() instanceof Work.Compute && g.task(j).name().startsWith("F mb1 & B mb0 F L")
                            && on(g, j, 0)) {
                        back += Math.max(0, Math.min(t.end(i), t.end(j)) - Math.max(t.start(i), t.start(j)));
                    }
                }
            }
        }
        assertTrue(back > 0, "mb0's backward all-to-alls run under mb1's forward compute");
    }

    @Test
    void theOverlapHidesAllToAllsThePlainScheduleExposes() {
        Timeline plain = TrainingStepTest.run(step(ScheduleKind.ONE_F_ONE_B.schedule(1))).timeline();
        Timeline combined = TrainingStepTest.run(step(new CombinedOneFOneB(ScheduleKind.ONE_F_ONE_B.schedule(1))))
                .timeline();
        assertTrue(ExpertParallelTest.overlappedEp(combined) > 10 * Math.max(1, ExpertParallelTest.overlappedEp(plain)),
                ExpertParallelTest.overlappedEp(plain) + " ns overlapped plain, "
                        + ExpertParallelTest.overlappedEp(combined) + " combined");
        assertTrue(TrainingStepTest.exposed(combined, "ep-comm") < TrainingStepTest.exposed(plain, "ep-comm"));
        assertTrue(combined.makespan() < plain.makespan());
        // same work: the compute time per GPU does not change (interference off here)
        assertEquals(plain.computeBusy(0), combined.computeBusy(0), 0.001 * plain.computeBusy(0));
    }

    private static boolean on(TaskGraph g, int task, int device) {
        for (int k = 0; k < g.task(task).streamCount(); k++) {
            if (g.streams().get(g.task(task).stream(k)).device() == device) {
                return true;
            }
        }
        return false;
    }
}

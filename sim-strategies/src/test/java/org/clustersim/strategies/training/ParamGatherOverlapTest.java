package org.clustersim.strategies.training;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.RunOptions;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.metrics.StepWindows;
import org.clustersim.strategies.pipeline.InterleavedSchedule;
import org.clustersim.strategies.pipeline.PipelineTasks;
import org.clustersim.strategies.pipeline.ScheduleKind;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;
import org.junit.jupiter.api.Test;

/**
 * The distributed optimizer's all-gather of updated weights, after the optimizer (Megatron-core's
 * default) or overlapped with the next forward bucket by bucket ({@code --overlap-param-gather}).
 * The model (8 layers, hidden 2048, vocabulary 32000) falls into 9 buckets of the default 25 MB
 * (each layer's, and the logits', gradients are bigger than that): one per layer and one for the
 * logits part, gathered in forward order.
 */
class ParamGatherOverlapTest {
    private static final String GATHER = "dp-param all-gather";

    private static TrainingStep step(int pp, int dp) {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        return TrainingStepTest.small(node).sizes(1, 1, pp, dp).zero(1).batch(2, 1, 2048).build();
    }

    private static Timeline run(TrainingStep s, StepSequence sequence) {
        return Simulation.run(s.build(sequence).graph(), s.topology(), RunOptions.DEFAULT.withLinkTracks(false))
                .timeline();
    }

    /** The weight gathers on one device, in start order. */
    private static List<Integer> gathers(Timeline t, int device) {
        TaskGraph g = t.graph();
        List<Integer> out = new ArrayList<>();
        for (Stream s : g.streams()) {
            if (s.device() != device || s.kind() != StreamKind.COMMUNICATION) {
                continue;
            }
            for (int i = 0; i < g.streamLength(s.id()); i++) {
                int task = g.streamTask(s.id(), i);
                if (g.task(task).name().startsWith(GATHER)) {
                    out.add(task);
                }
            }
        }
        out.sort((a, b) -> Long.compare(t.start(a), t.start(b)));
        return out;
    }

    /** Time a device spent gathering weights while its compute stream stood idle. */
    private static long exposedGather(Timeline t, int device) {
        TaskGraph g = t.graph();
        List<long[]> busy = new ArrayList<>();
        for (Stream s : g.streams()) {
            if (s.device() == device && s.kind() == StreamKind.COMPUTE) {
                for (int i = 0; i < g.streamLength(s.id()); i++) {
                    int task = g.streamTask(s.id(), i);
                    busy.add(new long[] {t.start(task), t.end(task)});
                }
            }
        }
        long exposed = 0;
        for (int gather : gathers(t, device)) {
            long covered = 0;
            for (long[] b : busy) {
                covered += Math.max(0, Math.min(b[1], t.end(gather)) - Math.max(b[0], t.start(gather)));
            }
            exposed += t.end(gather) - t.start(gather) - covered;
        }
        return exposed;
    }

    /** How long {@code task} ran while {@code device}'s compute stream was busy. */
    private static long underCompute(Timeline t, int device, int task) {
        TaskGraph g = t.graph();
        long covered = 0;
        for (Stream s : g.streams()) {
            if (s.device() == device && s.kind() == StreamKind.COMPUTE) {
                for (int i = 0; i < g.streamLength(s.id()); i++) {
                    int c = g.streamTask(s.id(), i);
                    covered += Math.max(0, Math.min(t.end(c), t.end(task)) - Math.max(t.start(c), t.start(task)));
                }
            }
        }
        return covered;
    }

    private static long duration(Timeline t, int task) {
        return t.end(task) - t.start(task);
    }

    @Test
    void overlapHidesEveryBucketButTheFirst() {
        TrainingStep s = step(1, 8);
        Timeline after = run(s, StepSequence.ONE);
        Timeline ahead = run(s, new StepSequence(1, true));
        // after the optimizer: one gather of all weights, the step's last task, compute idle all along
        List<Integer> one = gathers(after, 0);
        assertEquals(1, one.size());
        long whole = duration(after, one.get(0));
        assertTrue(whole > 0);
        assertEquals(after.makespan(), after.end(one.get(0)));
        assertEquals(whole, exposedGather(after, 0));
        // ahead of the forward: 9 buckets in forward order; the first is waited for by the embedding,
        // the others are each issued at the start of the previous bucket's layer and take less than that
        // layer's forward, so they end before their own layer needs them
        List<Integer> buckets = gathers(ahead, 0);
        assertEquals(9, buckets.size());
        long first = duration(ahead, buckets.get(0));
        assertEquals(0, ahead.start(buckets.get(0)));
        assertEquals(first, exposedGather(ahead, 0), "only the first bucket is exposed");
        // by hand: the step gets shorter by the whole gather, and longer by the first bucket's
        assertEquals(after.makespan() - whole + first, ahead.makespan());
        assertTrue(first < whole / 5, first + " of " + whole);
    }

    /** When a device's compute stream first runs. */
    private static long firstCompute(Timeline t, int device) {
        TaskGraph g = t.graph();
        long first = Long.MAX_VALUE;
        for (Stream s : g.streams()) {
            if (s.device() == device && s.kind() == StreamKind.COMPUTE && g.streamLength(s.id()) > 0) {
                first = Math.min(first, t.start(g.streamTask(s.id(), 0)));
            }
        }
        return first;
    }

    @Test
    void aLaterStageGathersItsFirstBucketOnceItsActivationsHaveArrived() {
        // pp 2 x dp 4: the schedule receives rank 1's input before running its forward, so the
        // pre-hook that dispatches the first bucket runs only then: the bucket is exposed there too
        TrainingStep s = step(2, 4);
        Timeline after = run(s, StepSequence.ONE);
        Timeline ahead = run(s, new StepSequence(1, true));
        int rank0 = s.device(0, 0, 0);
        int rank1 = s.device(0, 1, 0);
        long firstBucket0 = duration(ahead, gathers(ahead, rank0).get(0));
        assertEquals(firstCompute(after, rank0) + firstBucket0, firstCompute(ahead, rank0));
        // rank 0's delay reaches rank 1 with the activations; rank 1 then gathers, then computes
        int firstOnRank1 = gathers(ahead, rank1).get(0);
        long arrival = firstCompute(after, rank1) + firstBucket0;
        assertEquals(arrival, ahead.start(firstOnRank1));
        assertEquals(arrival + duration(ahead, firstOnRank1), firstCompute(ahead, rank1));
    }

    @Test
    void theSteadyStateRepeatsTheSingleStepThatBeginsWithTheGathers() {
        TrainingStep s = step(1, 8);
        Timeline single = run(s, new StepSequence(1, true));
        TrainingStep.Built built = s.build(new StepSequence(3, true));
        Timeline three = Simulation.run(built.graph(), s.topology(), RunOptions.DEFAULT.withLinkTracks(false))
                .timeline();
        StepWindows w = StepWindows.of(three, built.firstTasks());
        for (int n = 0; n < 3; n++) {
            assertEquals(single.makespan(), w.duration(n), "step " + n);
        }
        // each step gathers once: 9 buckets a step
        assertEquals(27, gathers(three, 0).size());
        // and without the overlap each step ends with one gather of everything
        TrainingStep.Built plain = s.build(new StepSequence(3, false));
        Timeline p = Simulation.run(plain.graph(), s.topology(), RunOptions.DEFAULT.withLinkTracks(false))
                .timeline();
        assertEquals(3, gathers(p, 0).size());
        assertEquals(run(s, StepSequence.ONE).makespan() * 3, p.makespan());
    }
    // ---- Megatron-core's aligned dispatch under the interleaved schedule ----

    /** pp 2 x dp 4, interleaved with 4 chunks of one layer per rank, 4 microbatches. */
    private static TrainingStep interleaved() {
        Topology node = SwitchedClusterSpec.dgxH100(1).build();
        return TrainingStepTest.small(node).sizes(1, 1, 2, 4).zero(1).schedule(new InterleavedSchedule(4))
                .batch(4, 1, 2048).build();
    }

    private static final StepSequence ALIGNED = new StepSequence(3, true, true, false);
    private static final StepSequence NOT_ALIGNED = new StepSequence(3, true, false, false);
    private static final StepSequence WITH_OPTIMIZER = new StepSequence(3, true, true, true);

    private static Timeline simulate(TrainingStep s, TrainingStep.Built built) {
        return Simulation.run(built.graph(), s.topology(), RunOptions.DEFAULT.withLinkTracks(false)).timeline();
    }

    /** The last step's gather of {@code stage}'s dense weights on {@code device}. */
    private static int lastStepGather(Timeline t, TrainingStep.Built built, int device, int stage) {
        int from = built.firstTasks()[built.steps() - 1];
        for (int g : gathers(t, device)) {
            if (g >= from && t.graph().task(g).name().startsWith(GATHER + " stage" + stage + " ")) {
                return g;
            }
        }
        throw new AssertionError("no gather of stage " + stage + " on device " + device);
    }

    /** When the last step's first forward of {@code stage} on pipeline rank {@code rank} has its input. */
    private static long inputArrives(Timeline t, TrainingStep.Built built, int rank, int stage) {
        long at = 0;
        for (int task : built.pipelines().get(0).firstForwardInputs(rank, stage)) {
            at = Math.max(at, t.end(task));
        }
        return at;
    }

    private static long steadyStep(Timeline t, TrainingStep.Built built) {
        return StepWindows.of(t, built.firstTasks()).duration(built.steps() - 1);
    }

    @Test
    void alignedGathersOfALaterRankRunWhileItWaitsForItsFirstInput() {
        // schedules.py dispatches chunks 0 and 1 before the rank receives anything: on rank 1 the
        // gather runs during the pipeline fill; without align the pre-hook dispatches it after the
        // activations arrived (what the simulator did for every schedule before)
        TrainingStep s = interleaved();
        int rank1 = s.device(0, 1, 0);
        int stage = s.schedule().placement(2, 4).stageOfChunk(1, 0);
        TrainingStep.Built built = s.build(ALIGNED);
        Timeline t = simulate(s, built);
        int gather = lastStepGather(t, built, rank1, stage);
        long arrival = inputArrives(t, built, 1, stage);
        assertTrue(t.end(gather) <= arrival, "gather ends " + t.end(gather) + ", input arrives " + arrival);
        TrainingStep.Built late = s.build(NOT_ALIGNED);
        Timeline u = simulate(s, late);
        assertTrue(u.start(lastStepGather(u, late, rank1, stage)) >= inputArrives(u, late, 1, stage));
    }

    @Test
    void laterChunksAreGatheredFromTheForwardSchedulesPyLaunchesThemBeforeAndHidden() {
        // chunk c > 1 is dispatched before rank r's forward number (c - 1) pp - r, after the action
        // queued before it, and arrives before the chunk's first forward needs it
        TrainingStep s = interleaved();
        TrainingStep.Built built = s.build(ALIGNED);
        Timeline t = simulate(s, built);
        PipelineTasks pipeline = built.pipelines().get(0);
        for (int r = 0; r < 2; r++) {
            for (int c = 2; c < 4; c++) {
                int stage = s.schedule().placement(2, 4).stageOfChunk(r, c);
                int gather = lastStepGather(t, built, s.device(0, r, 0), stage);
                int before = pipeline.forwardAfter(r, (c - 1) * 2 - r);
                assertTrue(before >= 0);
                assertTrue(t.start(gather) >= t.end(before), "rank " + r + " chunk " + c);
                assertTrue(t.end(gather) <= t.start(pipeline.firstForward(r, stage)), "rank " + r + " chunk " + c);
                // and runs beside the forwards of the chunk before (an NCCL kernel beside compute)
                long under = underCompute(t, s.device(0, r, 0), gather);
                assertTrue(2 * under >= duration(t, gather), "rank " + r + " chunk " + c + ": " + under + " of "
                        + duration(t, gather) + " ns under compute");
            }
        }
    }

    @Test
    void alignedGathersShortenTheInterleavedSteadyState() {
        TrainingStep s = interleaved();
        TrainingStep.Built plain = s.build(new StepSequence(3, false));
        TrainingStep.Built aligned = s.build(ALIGNED);
        TrainingStep.Built late = s.build(NOT_ALIGNED);
        long after = steadyStep(simulate(s, plain), plain);
        long ahead = steadyStep(simulate(s, aligned), aligned);
        long preHook = steadyStep(simulate(s, late), late);
        assertTrue(ahead < after, ahead + " vs " + after + " gathering after the optimizer");
        assertTrue(ahead < preHook, ahead + " vs " + preHook + " dispatched by the pre-hooks");
    }

    /**
     * tp 2, cp 2, dp 2, pp 2 over two servers (mesh order tp-cp-dp-pp: each replica of a pipeline
     * rank on its own server), interleaved with 4 chunks: every dense gather spans both replicas
     * and both cp ranks, across the network.
     */
    private static TrainingStep replicated(int replicas) {
        Topology two = SwitchedClusterSpec.dgxH100(2).build();
        return TrainingStepTest.small(two).sizes(2, 2, 2, 2)
                .order(List.of(Mesh.Dim.TP, Mesh.Dim.CP, Mesh.Dim.DP, Mesh.Dim.PP)).zero(1)
                .schedule(new InterleavedSchedule(4)).batch(4, 1, 2048).replicas(replicas).build();
    }

    private static final RunOptions ALONE = new RunOptions(Simulation.Fidelity.ANALYTICAL,
            Simulation.Routing.ECMP, List.of(), List.of(), false, RunOptions.DEFAULT.interference(),
            RunOptions.DEFAULT.kernel());

    @Test
    void oneReplicaStandsForBothUnderTheAlignedDispatch() {
        // with replicas: one, replica 0's gathers carry every member's flows and its forwards wait
        // for them: the schedule (dispatch points, Adam dependencies, stream order of the gathers
        // on the other replica's GPUs) must be the all-replica one. Every transfer alone on its
        // route, so the only difference the flow model adds (the other replicas' pipeline sends
        // on the links the gathers cross, which one replica does not simulate) is left out
        for (StepSequence sequence : List.of(ALIGNED, WITH_OPTIMIZER)) {
            long[] steps = new long[2];
            for (int replicas = 1; replicas <= 2; replicas++) {
                TrainingStep s = replicated(replicas);
                TrainingStep.Built built = s.build(sequence);
                Timeline t = Simulation.run(built.graph(), s.topology(), ALONE).timeline();
                steps[replicas - 1] = steadyStep(t, built);
            }
            assertEquals(steps[1], steps[0], "steady step, one replica vs both, withOptimizerStep "
                    + sequence.withOptimizerStep());
        }
    }

    @Test
    void withTheOptimizerStepTheFirstChunkGathersUnderTheOtherChunksAdam() {
        TrainingStep s = interleaved();
        TrainingStep.Built built = s.build(WITH_OPTIMIZER);
        Timeline t = simulate(s, built);
        int rank0 = s.device(0, 0, 0);
        int gather = lastStepGather(t, built, rank0, 0);
        // the previous step's Adam over chunks 1..3 on rank 0
        int rest = -1;
        TaskGraph g = t.graph();
        for (int task = built.firstTasks()[1]; task < built.firstTasks()[2]; task++) {
            if (g.name(task).equals("adam step") && g.streamCount(task) > 0
                    && g.streamDevice(g.taskStream(task, 0)) == rank0) {
                rest = task;
            }
        }
        assertTrue(rest >= 0);
        assertTrue(t.start(gather) < t.end(rest), "the gather starts under the rest of the Adam step");
        TrainingStep.Built aligned = s.build(ALIGNED);
        assertTrue(steadyStep(t, built) < steadyStep(simulate(s, aligned), aligned));
    }
}

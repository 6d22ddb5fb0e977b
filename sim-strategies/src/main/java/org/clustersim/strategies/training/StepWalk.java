package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToLongFunction;

import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.strategies.pipeline.ActionKind;
import org.clustersim.strategies.pipeline.RankPrograms;
import org.clustersim.strategies.pipeline.ScheduleWalk;
import org.clustersim.strategies.pipeline.StagePlacement;

/**
 * A training step's time in microseconds, for screening a plan's whole space: each distinct
 * pipeline action timed once from its real chain ({@link ActionTimes}, shared between layouts
 * through a {@link Context}), the schedule walked directly ({@link ScheduleWalk}) with sends at
 * their estimates, and the data-parallel end of the step in closed form over the same
 * collective plans: each pipeline rank's gradient buckets issued as the last backward completes
 * their gradients and run one after another on its data-parallel communicator, then the Adam step
 * over the rank's shard and, with ZeRO 1 or 2, the all-gather of the updated weights. Under
 * ZeRO-3 each layer's weight gather (and in the backward its gradient reduce-scatter) runs beside
 * the layer's compute, a layer taking whichever is longer. Every communication is at its
 * contention-free estimate ({@link Collectives#estimateNs}).
 *
 * <p>What it leaves out beside the simulation's contention and interference: the tied embedding's
 * gradient sum, bucket alignment across interleaved chunks, hybrid shard groups, and the schedule
 * of an overlapped param gather (charged as one bucket's gather).
 */
public final class StepWalk {
    private StepWalk() {
    }

    /** What estimates of one plan share: action timings and collective estimates (thread-safe). */
    public static final class Context {
        private final ActionTimes.Cache actions = new ActionTimes.Cache();
        private final Map<Object, Long> collectives = new ConcurrentHashMap<>();
        private final Map<Object, Walked> walks = new ConcurrentHashMap<>();
    }

    /** A fresh context for one plan's steps. */
    public static Context context() {
        return new Context();
    }

    /** The estimated time in ns of one step of {@code step}, its weight update as {@code sequence} says. */
    public static long stepNs(TrainingStep step, StepSequence sequence, Context context) {
        int pp = step.pp();
        int m = step.microbatches();
        RankPrograms programs = RankPrograms.of(step.schedule(), pp, m);
        boolean sharded = step.zero() == 3 && step.shardSize() > 1;
        // layouts that differ only past the pipeline (ZeRO 1 or 2, buckets, the param gather) walk alike
        Object key = List.of(ActionTimes.config(step), List.of(java.util.Arrays.stream(step.split().perStage())
                .boxed().toArray()), new SameObject(programs), step.blockingSends(), step.pp(), step.dp(),
                step.mesh().order(), sharded ? List.of(step.zero(), step.sharding(), step.shardSize()) : List.of());
        Walked walked = context.walks.get(key);
        if (walked == null) {
            walked = walk(step, context, programs, sharded);
            if (context.walks.size() > 200_000) {
                context.walks.clear();
            }
            context.walks.put(key, walked);
        }
        ActionTimes times = walked.times();
        ScheduleWalk.Result walk = walked.walk();
        StagePlacement placement = step.schedule().placement(pp, m);
        long end = 0;
        for (int p = 0; p < pp; p++) {
            end = Math.max(end, rankEnd(step, sequence, context, times, placement, walk, p));
        }
        return end;
    }

    /** A pipeline walked: its actions' times and the walk. */
    private record Walked(ActionTimes times, ScheduleWalk.Result walk) {
    }

    private static Walked walk(TrainingStep step, Context context, RankPrograms programs, boolean sharded) {
        Map<Work.Communication, Long> memo = new java.util.IdentityHashMap<>();
        ToLongFunction<Work.Communication> commNs = c -> memo.computeIfAbsent(c,
                k -> Collectives.estimateNs(k.phases(), step.topology()));
        ActionTimes times = new ActionTimes(step, programs, () -> StageParts.alone(step), commNs, context.actions);
        int pp = step.pp();
        StagePlacement placement = step.schedule().placement(pp, step.microbatches());
        int stages = placement.stages();
        long[] zeroF = new long[stages];
        long[] zeroB = new long[stages];
        if (sharded) {
            for (int s = 0; s < stages; s++) {
                double layerParams = step.parameters().stageLayers(s) / Math.max(1, step.split().layers(s));
                long gather = gradientCollective(step, context, CollectiveOp.ALL_GATHER, placement.rank(0, s),
                        Math.round(layerParams * step.weightGatherBytes()));
                long reduce = gradientCollective(step, context, CollectiveOp.REDUCE_SCATTER, placement.rank(0, s),
                        Math.round(layerParams * step.kernels().mainGradBytes()));
                zeroF[s] = gather;
                zeroB[s] = gather + reduce;
            }
        }
        long boundary = step.model().boundaryActivationBytes(step.microBatch(), step.seqLen(),
                TrainingStep.ACTIVATION_BYTES);
        long[][] sends = new long[pp][pp];
        for (long[] row : sends) {
            Arrays.fill(row, -1);
        }
        ScheduleWalk.Costs costs = new ScheduleWalk.Costs() {
            @Override
            public long actionNs(int rank, int stage, ActionKind kind) {
                long ns = times.action(stage, kind).totalNs();
                if (!sharded || kind == ActionKind.BACKWARD_WEIGHT) {
                    return ns;
                }
                int layers = step.split().layers(stage);
                long per = kind == ActionKind.FORWARD ? zeroF[stage] : zeroB[stage];
                return Math.max(ns, layers * per) + (kind == ActionKind.FORWARD ? zeroF[stage] : 0);
            }

            @Override
            public long pairNs(int rank, int forwardStage, int backwardStage) {
                long ns = times.pair(forwardStage, backwardStage);
                if (!sharded) {
                    return ns;
                }
                // the pair's two halves gather (and the backward reduces) layer by layer as alone
                long comm = step.split().layers(forwardStage) * zeroF[forwardStage]
                        + step.split().layers(backwardStage) * zeroB[backwardStage];
                return Math.max(ns, comm) + zeroF[forwardStage];
            }

            @Override
            public long sendNs(int from, int to) {
                if (sends[from][to] < 0) {
                    int a = step.device(0, 0, from, 0);
                    int b = step.device(0, 0, to, 0);
                    sends[from][to] = commNs.applyAsLong(Work.Communication.pointToPoint(a, b,
                            boundary / ((long) step.tp() * step.cp())));
                }
                return sends[from][to];
            }
        };
        return new Walked(times, ScheduleWalk.walk(programs, costs, step.blockingSends()));
    }

    /** When pipeline rank p's step ends: its gradient reductions, its optimizer step, its weight gather. */
    private static long rankEnd(TrainingStep step, StepSequence sequence, Context context, ActionTimes times, StagePlacement placement,
                                ScheduleWalk.Result walk, int p) {
        long backwardEnd = walk.rankEndNs()[p];
        boolean reduces = step.dp() * step.cp() > 1;
        CollectiveOp op = step.zero() == 0 ? CollectiveOp.ALL_REDUCE : CollectiveOp.REDUCE_SCATTER;
        // the rank's chunks in the order their last backward completes
        List<Integer> chunks = new ArrayList<>();
        for (int c = 0; c < placement.chunksPerRank(); c++) {
            chunks.add(c);
        }
        chunks.sort((x, y) -> Long.compare(walk.gradientsEnd()[placement.stageOfChunk(p, x)],
                walk.gradientsEnd()[placement.stageOfChunk(p, y)]));
        double dense = 0;
        double experts = 0;
        long stream = 0;
        for (int c : chunks) {
            int s = placement.stageOfChunk(p, c);
            double params = step.stageParams(s);
            double expertParams = step.separateExperts() ? step.stageExpertParams(s) : 0;
            dense += params - expertParams;
            experts += expertParams;
            double reduced = (step.zero() == 3 ? params - step.parameters().stageLayers(s) : params) - expertParams;
            if (!reduces || reduced < 1) {
                continue;
            }
            double bytes = reduced * step.kernels().mainGradBytes();
            int buckets = (int) Math.max(1, Math.ceil(bytes / step.bucketBytes()));
            long each = gradientCollective(step, context, op, p, Math.round(bytes / buckets));
            long start = walk.gradientsStart()[s];
            long[] offsets = lastBackward(times, s, step);
            for (int k = 0; k < buckets; k++) {
                long ready;
                if (step.overlapGradReduce() && offsets.length > 0) {
                    int at = (int) Math.min(offsets.length - 1, Math.ceil((k + 1.0) / buckets * offsets.length) - 1);
                    ready = start + offsets[Math.max(0, at)];
                } else {
                    ready = backwardEnd;
                }
                stream = Math.max(stream, ready) + each;
            }
        }
        if (experts >= 1 && step.expertShardSize() > 1) {
            int[] members = step.mesh().experts().dataGroups(p).get(0);
            stream = Math.max(stream, backwardEnd) + collective(step, context, op, members,
                    Math.round(experts * step.kernels().mainGradBytes()));
        }
        double denseShare = step.zero() == 0 ? dense : dense / step.shardSize();
        double expertShare = step.zero() == 0 ? experts : experts / Math.max(1, step.expertShardSize());
        long end = Math.max(stream, backwardEnd) + Math.round(OptimizerStep.adamNs(step, denseShare + expertShare));
        if ((step.zero() == 1 || step.zero() == 2) && reduces) {
            long weights = Math.round(dense * step.weightGatherBytes());
            if (sequence.overlapParamGather()) {
                // gathered bucket by bucket ahead of the next forward: the first bucket waits
                int buckets = (int) Math.max(1, Math.ceil(dense * step.kernels().mainGradBytes() / step.bucketBytes()));
                end += gradientCollective(step, context, CollectiveOp.ALL_GATHER, p, weights / buckets);
            } else {
                end += gradientCollective(step, context, CollectiveOp.ALL_GATHER, p, weights);
            }
        }
        return end;
    }

    /** Offsets inside the stage's last gradient-completing action at which its gradients become ready. */
    private static long[] lastBackward(ActionTimes times, int stage, TrainingStep step) {
        ActionTimes.Timing t = times.action(stage, ActionKind.BACKWARD);
        if (t == null) {
            t = times.action(stage, ActionKind.BACKWARD_WEIGHT);
        }
        return t == null ? new long[0] : t.gradOffsets();
    }

    /**
     * A collective's estimate over pipeline rank {@code p}'s gradient group (TP rank 0), keyed by
     * the mesh rather than the group's GPUs: the group is a function of the mesh, and hashing
     * thousands of GPU numbers per rank and layout cost more than the estimate it looked up.
     */
    private static long gradientCollective(TrainingStep step, Context context, CollectiveOp op, int p, long bytes) {
        if (step.dp() * step.cp() < 2 || bytes <= 0) {
            return 0;
        }
        Object key = List.of(op, bytes, step.mesh(), p, new SameObject(step.topology()));
        return context.collectives.computeIfAbsent(key, k -> Collectives.plan("auto", op,
                new CommGroup(step.mesh().gradientGroup(0, p)), bytes, step.topology()).estimateNs());
    }

    /** A data-parallel collective's estimate, planned as the step's collectives are. */
    private static long collective(TrainingStep step, Context context, CollectiveOp op, int[] group, long bytes) {
        if (group.length < 2 || bytes <= 0) {
            return 0;
        }
        Object key = List.of(op, bytes, new GroupKey(group), new SameObject(step.topology()));
        return context.collectives.computeIfAbsent(key,
                k -> Collectives.plan("auto", op, new CommGroup(group), bytes, step.topology()).estimateNs());
    }

    private record GroupKey(int[] devices) {
        @Override
        public boolean equals(Object o) {
            return o instanceof GroupKey g && Arrays.equals(g.devices, devices);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(devices);
        }
    }
}

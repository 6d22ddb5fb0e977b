package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.clustersim.core.engine.CriticalPath;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.pipeline.ActionKind;
import org.clustersim.strategies.pipeline.PipelineOp;
import org.clustersim.strategies.pipeline.RankPrograms;
import org.clustersim.strategies.pipeline.StagePlacement;
import org.clustersim.strategies.pipeline.StageWork;

/**
 * How long each distinct pipeline action of a step takes on its own: every action its schedule
 * runs (a stage's forward, backward, input-gradient or weight-gradient pass, or DualPipe's
 * forward-backward pair) is emitted once by the transformer stage ({@link TransformerStageWork})
 * into a scratch graph, its layers with their TP, CP and EP collectives, and timed along its
 * chain with each communication at its estimate. Actions that look the same to the stage (same
 * layers, same position, same per-layer configuration, GPUs of one route shape) are timed once and
 * may be shared between steps through a {@link Cache}, which is what lets a plan time thousands of
 * layouts; each collective group chooses its algorithm by its own estimate
 * ({@link StageParts#alone}), so a timing never depends on which actions were timed before it.
 */
final class ActionTimes {
    /**
     * One action's time and the offsets inside it that a step needs.
     *
     * @param totalNs      the action's length
     * @param gradOffsets  when each part of the stage's weight gradients is complete
     * @param entryOffsets for a forward, when it enters each module
     * @param entryLayers  those modules (-1: the logits)
     */
    record Timing(long totalNs, long[] gradOffsets, long[] entryOffsets, int[] entryLayers) {
    }

    /** Timings shared between steps, by what decides them, and the route shapes of GPU lists (thread-safe). */
    static final class Cache {
        private final Map<Object, Timing> timings = new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<List<Integer>, RouteShape> shapes = new java.util.concurrent.ConcurrentHashMap<>();
    }

    private record ActionKey(int stage, ActionKind kind) {
    }

    private record PairKey(int forwardStage, int backwardStage) {
    }

    /** What decides a stage action's time besides the step's per-layer configuration. */
    private record Signature(Object config, Object where, int firstLayer, int layers, boolean first,
                             boolean last, ActionKind kind, int pairFirstLayer, int pairLayers, boolean pairFirst,
                             boolean pairLast) {
    }

    /** By stage and action kind. */
    private final Timing[][] actions;
    /** By forward stage x stages + backward stage (DualPipe's pairs), -1 where none. */
    private final long[] pairs;
    private final int stages;

    /**
     * Times every action of {@code step}'s schedule, taking what {@code cache} already holds.
     *
     * @param parts  the step's parts, made when something must be emitted (may return the same each time)
     * @param cache  timings shared with other steps, or null
     */
    ActionTimes(TrainingStep step, RankPrograms programs, java.util.function.Supplier<StageParts> parts,
                ToLongFunction<Work.Communication> commNs, Cache cache) {
        int stages = programs.stages();
        this.stages = stages;
        this.actions = new Timing[stages][ActionKind.values().length];
        boolean paired = programs.distinct().stream().anyMatch(d -> d.backwardStage() >= 0);
        this.pairs = paired ? new long[stages * stages] : new long[0];
        StagePlacement placement = step.schedule().placement(step.pp(), step.microbatches());
        Object config = cache == null ? null : config(step);
        // each distinct action, timed unless the cache knows it
        List<Integer> rankOf = new ArrayList<>();
        List<Object> keys = new ArrayList<>();
        List<PipelineOp> ops = new ArrayList<>();
        for (RankPrograms.Distinct d : programs.distinct()) {
            Object key = d.backwardStage() >= 0 ? new PairKey(d.stage(), d.backwardStage())
                    : new ActionKey(d.stage(), ((PipelineOp.Action) d.op()).kind());
            Signature sig = config == null ? null : signature(step, config, where(step, d.rank(), cache), key, stages);
            Timing known = sig == null ? null : cache.timings.get(sig);
            if (known != null) {
                store(key, known);
                continue;
            }
            rankOf.add(d.rank());
            keys.add(key);
            ops.add(d.op());
        }
        if (keys.isEmpty()) {
            return;
        }
        List<Timing> timed = time(step, parts.get(), commNs, rankOf, keys, ops, placement);
        for (int i = 0; i < keys.size(); i++) {
            store(keys.get(i), timed.get(i));
            if (config != null) {
                cache.timings.putIfAbsent(signature(step, config, where(step, rankOf.get(i), cache), keys.get(i), stages),
                        timed.get(i));
            }
        }
    }

    private void store(Object key, Timing t) {
        if (key instanceof PairKey pk) {
            pairs[pk.forwardStage() * stages + pk.backwardStage()] = t.totalNs();
        } else {
            ActionKey k = (ActionKey) key;
            actions[k.stage()][k.kind().ordinal()] = t;
        }
    }

    /** A stage's action's timing. */
    Timing action(int stage, ActionKind kind) {
        return actions[stage][kind.ordinal()];
    }

    /** An overlapped pair's time. */
    long pair(int forwardStage, int backwardStage) {
        return pairs[forwardStage * stages + backwardStage];
    }

    /**
     * What every action of the step shares: the per-layer configuration. An MoE step's expert
     * groups reach across data-parallel ranks, so its pipeline and data-parallel sizes count too.
     */
    static Object config(TrainingStep step) {
        boolean moe = step.model().experts() != null;
        return List.of(step.tp(), step.cp(), step.ep(), step.etp(), step.microBatch(), step.seqLen(),
                step.recompute(), step.recomputeModules(), step.tpCommOverlap(), step.cpKind(),
                step.sequenceParallel(), step.execution(), step.allToAll(), moe ? step.pp() : 0, moe ? step.dp() : 0,
                new SameObject(step.model()), new SameObject(step.kernels()), new SameObject(step.topology()));
    }

    /**
     * Where pipeline rank {@code p}'s actions are timed, as far as their time can tell: the GPUs
     * of its first data-parallel replica, whose collectives' estimates follow the routes between
     * them (static ECMP hashes the devices). A dense model's rank inside one server of a switched
     * fabric sees only its GPUs' route shape ({@link RouteShape}), the same in every server; a
     * rank across servers, a torus's (whose algorithms follow the coordinates) and a rank with
     * experts (whose groups reach past it) see the GPUs themselves. Without this in the
     * signature, layouts whose ranks sit elsewhere took whichever timing was made first, and a
     * plan's estimates depended on the order it screened its layouts.
     */
    private static Object where(TrainingStep step, int p, Cache cache) {
        Integer[] devices = new Integer[step.tp() * step.cp()];
        for (int c = 0; c < step.cp(); c++) {
            for (int t = 0; t < step.tp(); t++) {
                devices[c * step.tp() + t] = step.device(t, c, p, 0);
            }
        }
        List<Integer> list = List.of(devices);
        boolean torus = step.topology().spec().filter(s -> s instanceof org.clustersim.topology.TorusSpec).isPresent();
        int server = step.topology().device(devices[0]).node();
        boolean oneServer = list.stream().allMatch(d -> step.topology().device(d).node() == server);
        // across servers static ECMP makes nearly every list's shape its own (measured: none of 120
        // tp 4 x cp 4 placements on a SuperPOD shared one), so the GPUs themselves are the cheaper key
        if (torus || !oneServer || step.model().experts() != null) {
            return list;
        }
        return cache.shapes.computeIfAbsent(list,
                l -> RouteShape.of(step.topology(), l.stream().mapToInt(Integer::intValue).toArray()));
    }

    private static Signature signature(TrainingStep step, Object config, Object where, Object key,
                                       int stages) {
        LayerSplit split = step.split();
        if (key instanceof ActionKey k) {
            return new Signature(config, where, split.firstLayer(k.stage()), split.layers(k.stage()),
                    k.stage() == 0, k.stage() == stages - 1, k.kind(), -1, 0, false, false);
        }
        PairKey p = (PairKey) key;
        return new Signature(config, where, split.firstLayer(p.forwardStage()), split.layers(p.forwardStage()),
                p.forwardStage() == 0, p.forwardStage() == stages - 1, null, split.firstLayer(p.backwardStage()),
                split.layers(p.backwardStage()), p.backwardStage() == 0, p.backwardStage() == stages - 1);
    }

    /** Emits the actions into one scratch graph, rank by rank back to back, and times each. */
    private static List<Timing> time(TrainingStep step, StageParts parts, ToLongFunction<Work.Communication> commNs,
                                     List<Integer> rankOf, List<Object> keys, List<PipelineOp> ops,
                                     StagePlacement placement) {
        int pp = step.pp();
        int[][] ranks = new int[pp][];
        int maxDevice = 0;
        for (int p = 0; p < pp; p++) {
            ranks[p] = new int[step.tp() * step.cp()];
            for (int c = 0; c < step.cp(); c++) {
                for (int t = 0; t < step.tp(); t++) {
                    int d = step.device(t, c, p, 0);
                    ranks[p][c * step.tp() + t] = d;
                    maxDevice = Math.max(maxDevice, d);
                }
            }
        }
        // the timing reads works and finish times, never names
        TaskGraph.Builder g = TaskGraph.builder(false);
        for (int d = 0; d <= maxDevice; d++) {
            g.device("gpu", 0);
        }
        int n = keys.size();
        int[][] spans = new int[n][];
        StageWork.Emitted[] emitted = new StageWork.Emitted[n];
        List<List<ForwardEntries.Entry>> entered = new ArrayList<>();
        int[] barrier = new int[pp];
        java.util.Arrays.fill(barrier, -1);
        int[] barrierOf = new int[n];
        for (int i = 0; i < n; i++) {
            int r = rankOf.get(i);
            barrierOf[i] = barrier[r];
            int start = g.taskCount();
            if (keys.get(i) instanceof ActionKey k) {
                PipelineOp.Action a = (PipelineOp.Action) ops.get(i);
                ForwardEntries fe = a.kind() == ActionKind.FORWARD ? new ForwardEntries(placement.stages()) : null;
                emitted[i] = parts.work(step, null, fe).emit(g, ranks[r], r, k.stage(), a, "x");
                entered.add(fe == null ? List.of() : fe.of(ranks[r][0], k.stage()));
            } else {
                PairKey k = (PairKey) keys.get(i);
                emitted[i] = parts.work(step, null, null).emitOverlapped(g, ranks[r], r,
                        (PipelineOp.Overlapped) ops.get(i), k.forwardStage(), k.backwardStage(), "x").backward();
                entered.add(List.of());
            }
            int end = g.taskCount();
            spans[i] = new int[] {r, start, end};
            // every task of the action waits for everything of the rank's previous one (a barrier
            // after it), so that its time does not depend on which actions were timed before it
            if (barrier[r] >= 0) {
                for (int t = start; t < end; t++) {
                    g.addDependency(t, barrier[r]);
                }
            }
            int[] all = new int[end - start];
            for (int t = start; t < end; t++) {
                all[t - start] = t;
            }
            barrier[r] = g.compute("x barrier", "barrier", g.stream(ranks[r][0], "compute",
                    org.clustersim.core.engine.StreamKind.COMPUTE), 0, 0, all);
        }
        TaskGraph graph = g.build();
        CriticalPath path = CriticalPath.of(graph, commNs);
        List<Timing> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int[] span = spans[i];
            long begin = barrierOf[i] < 0 ? 0 : path.finishNs(barrierOf[i]);
            long end = begin;
            for (int t = span[1]; t < span[2]; t++) {
                end = Math.max(end, path.finishNs(t));
            }
            int[] ready = emitted[i].gradReady();
            long[] grads = new long[ready.length];
            for (int k = 0; k < ready.length; k++) {
                grads[k] = path.finishNs(ready[k]) - begin;
            }
            List<ForwardEntries.Entry> in = entered.get(i);
            long[] at = new long[in.size()];
            int[] layers = new int[in.size()];
            for (int k = 0; k < in.size(); k++) {
                int waiter = in.get(k).waiter();
                Work w = graph.work(waiter);
                long ns = w instanceof Work.Compute c ? c.durationNs() : commNs.applyAsLong((Work.Communication) w);
                at[k] = path.finishNs(waiter) - ns - begin;
                layers[k] = in.get(k).layer();
            }
            out.add(new Timing(end - begin, grads, at, layers));
        }
        return out;
    }
}

package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.CommCall;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.topology.Topology;
import org.clustersim.topology.TorusSpec;

/**
 * The collectives over the ranks that hold the same weights: gradient reductions and weight
 * gathers, with or without hybrid sharding. With a shard group smaller than the whole group
 * (HSDP, Zhao et al., "PyTorch FSDP", VLDB 2023, section 3.2.2), a reduce-scatter runs inside
 * each shard group and is followed by an all-reduce of each shard across the groups, and a
 * gather runs inside each shard group only. Shard groups are consecutive runs of the group's
 * members. The algorithm for each operation, size and group size is chosen once (auto) and
 * reused, since the groups have the same shape on the fabric.
 *
 * <p>On TPU slices joined by DCN, where each shard's copies lie in different slices (MaxText's
 * FSDP inside a slice, data parallelism across), the all-reduce across the groups is the
 * cross-slice reduction XLA's Megascale runtime runs through the hosts' NICs: a task of its own
 * (traffic {@code dcn-comm}, named "... across slices (DCN)") on a {@code dcn} stream apart from the
 * ICI collectives, since the hosts move those bytes, not the chips' ICI DMA engines (Google Cloud,
 * "Profiling Multislice environments": send/recv interrupt the host, which DMAs the buffer). With
 * {@link #DataParallelCollectives(TaskGraph.Builder, Topology, double) an in-iteration share} it
 * is cut in two: the share XLA cannot overlap inside the layer's backward iteration first, the rest
 * after it ({@link #takeIterationBarrier}).
 */
final class DataParallelCollectives {
    private static final TaskTag REDUCE = TaskTag.of(TaskTag.Traffic.GRADIENT_REDUCE);
    private static final TaskTag GATHER = TaskTag.of(TaskTag.Traffic.PARAM_GATHER);
    private static final TaskTag DCN_REDUCE = TaskTag.of(TaskTag.Traffic.DCN_GRADIENT_REDUCE);
    private final TaskGraph.Builder graph;
    private final Topology topology;
    private final Map<String, Collectives.Choice> chosen = new HashMap<>();
    /** The plan made per operation, size and groups ({@link #work}). */
    private final Map<PlanKey, Work.Communication> planned = new HashMap<>();
    /** Of a cross-slice reduction, the share that must end before the next layer's backward; 0: none. */
    private final double iterationShare;
    /** The last cross-slice reduction's part the next layer's backward waits for; -1: none. */
    private int barrier = -1;

    DataParallelCollectives(TaskGraph.Builder graph, Topology topology) {
        this(graph, topology, 0);
    }

    /**
     * @param iterationShare of each cross-slice (DCN) reduction, the share that must complete
     *                       before the next layer's backward may start (XLA without its data-parallel
     *                       all-reduce pipelining: the collective stays inside the scan iteration, and
     *                       the gradients the iteration completes last have no compute left to hide
     *                       under); 0 when XLA pipelines them across iterations
     */
    DataParallelCollectives(TaskGraph.Builder graph, Topology topology, double iterationShare) {
        if (!(iterationShare >= 0 && iterationShare <= 1)) {
            throw new IllegalArgumentException("iteration share " + iterationShare + " outside [0, 1]");
        }
        this.graph = graph;
        this.topology = topology;
        this.iterationShare = iterationShare;
    }

    TaskGraph.Builder graph() {
        return graph;
    }

    /**
     * A gradient reduction over {@code group}, sharded over runs of {@code shard} members.
     *
     * @return the task that ends it
     */
    int reduce(String name, CollectiveOp op, int[] group, int shard, long bytes, int[] deps, String stream) {
        barrier = -1;
        if (op != CollectiveOp.REDUCE_SCATTER || shard <= 1 || shard >= group.length) {
            return task(name, REDUCE, op, List.of(group), bytes, deps, stream);
        }
        int rs = task(name, REDUCE, op, shardGroups(group, shard), bytes, deps, stream);
        List<int[]> replicas = replicaGroups(group, shard);
        long shardBytes = Math.max(1, bytes / shard);
        if (!acrossSlices(replicas)) {
            return task(name + " across shards", REDUCE, CollectiveOp.ALL_REDUCE, replicas, shardBytes, new int[] {rs},
                    stream);
        }
        String dcn = name + " across slices (DCN)";
        long first = Math.round(shardBytes * iterationShare);
        if (first < 1) {
            return task(dcn, DCN_REDUCE, CollectiveOp.ALL_REDUCE, replicas, shardBytes, new int[] {rs}, "dcn");
        }
        // The gradients the iteration completes last go first and the next layer's backward waits for
        // them; they start when the gradients exist: the reduce-scatter over ICI ahead of them inside
        // the iteration is taken as hidden, as it is at one slice, so what the hold adds is DCN's.
        first = Math.min(first, shardBytes);
        barrier = task(dcn + (first < shardBytes ? ", in-iteration part" : ""), DCN_REDUCE, CollectiveOp.ALL_REDUCE,
                replicas, first, deps, "dcn");
        if (first == shardBytes) {
            return barrier;
        }
        return task(dcn + ", overlapped part", DCN_REDUCE, CollectiveOp.ALL_REDUCE, replicas, shardBytes - first,
                new int[] {rs}, "dcn");
    }

    /**
     * The part of the last cross-slice reduction ({@link #reduce}) that must end before the next
     * layer's backward starts, once (then -1); -1 when the last reduction did not cross slices or
     * XLA pipelines the reductions across iterations.
     */
    int takeIterationBarrier() {
        int b = barrier;
        barrier = -1;
        return b;
    }

    /** Whether every group has its members in as many different TPU slices (so its all-reduce runs over DCN). */
    private boolean acrossSlices(List<int[]> groups) {
        if (topology.spec().isEmpty() || !(topology.spec().get() instanceof TorusSpec t) || t.slices() < 2) {
            return false;
        }
        for (int[] members : groups) {
            java.util.Set<Integer> slices = new java.util.TreeSet<>();
            for (int d : members) {
                slices.add(t.physical(d) / t.chipsPerSlice());
            }
            if (members.length < 2 || slices.size() != members.length) {
                return false;
            }
        }
        return true;
    }

    /** A weight all-gather inside each shard group (the whole group when not hybrid). */
    int gather(String name, int[] group, int shard, long bytes, int[] deps, String stream) {
        List<int[]> groups = shard <= 1 || shard >= group.length ? List.of(group) : shardGroups(group, shard);
        return task(name, GATHER, CollectiveOp.ALL_GATHER, groups, bytes, deps, stream);
    }

    private static List<int[]> shardGroups(int[] group, int shard) {
        List<int[]> out = new ArrayList<>();
        for (int start = 0; start < group.length; start += shard) {
            out.add(java.util.Arrays.copyOfRange(group, start, start + shard));
        }
        return out;
    }

    /** The members holding the same shard: position i of every shard group. */
    private static List<int[]> replicaGroups(int[] group, int shard) {
        List<int[]> out = new ArrayList<>();
        int copies = group.length / shard;
        for (int i = 0; i < shard; i++) {
            int[] g = new int[copies];
            for (int k = 0; k < copies; k++) {
                g[k] = group[k * shard + i];
            }
            out.add(g);
        }
        return out;
    }

    /** One task running the collective over each of the (disjoint, same-sized) groups at once. */
    private int task(String name, TaskTag tag, CollectiveOp op, List<int[]> groups, long bytes, int[] deps,
                     String streamName) {
        List<Integer> streams = new ArrayList<>();
        for (int[] members : groups) {
            for (int d : members) {
                streams.add(graph.stream(d, streamName, StreamKind.COMMUNICATION));
            }
        }
        return graph.communicate(name, tag, streams.stream().mapToInt(Integer::intValue).toArray(),
                work(op, groups, bytes), deps);
    }

    /**
     * The plan of a collective over these groups at once, made once per operation, size and
     * groups: the same gather or reduction recurs every layer, bucket and microbatch, and tasks
     * that share one plan share its phases, hence the network's routes and flow classes memoised
     * per phase (a fresh plan per task held millions of flows and memos at 16K GPUs).
     */
    Work.Communication work(CollectiveOp op, List<int[]> groups, long bytes) {
        return planned.computeIfAbsent(new PlanKey(op, bytes, groups), k -> {
            List<Work.Communication> parts = new ArrayList<>(groups.size());
            for (int[] members : groups) {
                parts.add(plan(op, members, bytes));
            }
            return Work.Communication.concurrent(parts);
        });
    }

    /** A plan's key: the groups' members compared by value. */
    private record PlanKey(CollectiveOp op, long bytes, int[][] groups) {
        PlanKey(CollectiveOp op, long bytes, List<int[]> groups) {
            this(op, bytes, groups.stream().map(int[]::clone).toArray(int[][]::new));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof PlanKey k && k.bytes == bytes && k.op == op
                    && java.util.Arrays.deepEquals(k.groups, groups);
        }

        @Override
        public int hashCode() {
            return (op.hashCode() * 31 + Long.hashCode(bytes)) * 31 + java.util.Arrays.deepHashCode(groups);
        }
    }

    private Work.Communication plan(CollectiveOp op, int[] members, long bytes) {
        CommGroup group = new CommGroup(members);
        String key = op.name() + "/" + bytes + "/" + members.length;
        Collectives.Choice c = chosen.get(key);
        if (c == null) {
            c = Collectives.plan("auto", op, group, bytes, topology);
            chosen.put(key, c);
            return c.work().as(new CommCall(op.id(), bytes, members));
        }
        return new Work.Communication(c.algorithm().plan(op, group, bytes, c.protocol(), topology))
                .as(new CommCall(op.id(), bytes, members));
    }
}

package org.clustersim.strategies.training;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.TaskTag;
import org.clustersim.core.engine.Work;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.topology.Topology;

/**
 * The collectives over the ranks that hold the same weights: gradient reductions and weight
 * gathers, with or without hybrid sharding. With a shard group smaller than the whole group
 * (HSDP, Zhao et al., "PyTorch FSDP", VLDB 2023, section 3.2.2), a reduce-scatter runs inside
 * each shard group and is followed by an all-reduce of each shard across the groups, and a
 * gather runs inside each shard group only. Shard groups are consecutive runs of the group's
 * members. The algorithm for each operation, size and group size is chosen once (auto) and
 * reused, since the groups have the same shape on the fabric.
 */
final class DataParallelCollectives {
    private static final TaskTag REDUCE = TaskTag.of(TaskTag.Traffic.GRADIENT_REDUCE);
    private static final TaskTag GATHER = TaskTag.of(TaskTag.Traffic.PARAM_GATHER);
    private final TaskGraph.Builder graph;
    private final Topology topology;
    private final Map<String, Collectives.Choice> chosen = new HashMap<>();

    DataParallelCollectives(TaskGraph.Builder graph, Topology topology) {
        this.graph = graph;
        this.topology = topology;
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
        if (op != CollectiveOp.REDUCE_SCATTER || shard <= 1 || shard >= group.length) {
            return task(name, REDUCE, op, List.of(group), bytes, deps, stream);
        }
        int rs = task(name, REDUCE, op, shardGroups(group, shard), bytes, deps, stream);
        return task(name + " across shards", REDUCE, CollectiveOp.ALL_REDUCE, replicaGroups(group, shard),
                Math.max(1, bytes / shard), new int[] {rs}, stream);
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
        List<Work.Communication> parts = new ArrayList<>();
        List<Integer> streams = new ArrayList<>();
        for (int[] members : groups) {
            parts.add(plan(op, members, bytes));
            for (int d : members) {
                streams.add(graph.stream(d, streamName, StreamKind.COMMUNICATION));
            }
        }
        return graph.communicate(name, tag, streams.stream().mapToInt(Integer::intValue).toArray(),
                Work.Communication.concurrent(parts), deps);
    }

    private Work.Communication plan(CollectiveOp op, int[] members, long bytes) {
        CommGroup group = new CommGroup(members);
        String key = op.name() + "/" + bytes + "/" + members.length;
        Collectives.Choice c = chosen.get(key);
        if (c == null) {
            c = Collectives.plan("auto", op, group, bytes, topology);
            chosen.put(key, c);
            return c.work();
        }
        return new Work.Communication(c.algorithm().plan(op, group, bytes, c.protocol(), topology));
    }
}

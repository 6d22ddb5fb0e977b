package org.clustersim.study.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.core.input.InputException;
import org.clustersim.strategies.collective.CollectiveOp;
import org.clustersim.strategies.collective.Collectives;
import org.clustersim.strategies.collective.CommGroup;
import org.clustersim.topology.Topology;

/**
 * Maps a set of rank traces onto a task graph over a cluster: rank i runs on device i. Each
 * node becomes one task named as the node: compute nodes on the rank's {@code compute} stream,
 * timed by {@link ComputeCost}; the same collective on every rank of its process group becomes one
 * collective task over those devices, planned by {@link Collectives#plan} (the k-th collective of
 * a process group on one rank is the k-th on every other; a collective with no {@code pg_name}
 * spans all ranks); a send and its receive (same source, destination and tag, in order) become one
 * point-to-point transfer; memory, metadata and host nodes take no time but keep their place in
 * the dependencies. Control and data dependencies are both kept. Tasks are added in a
 * topological order that follows each rank's file order where the dependencies allow, so each
 * stream runs its nodes in trace order.
 */
public final class EtTaskGraph {
    private static final String COMPUTE = "compute";
    private static final String COLLECTIVE = "comm";
    private static final String P2P = "p2p";
    private static final String UNTIMED = "untimed";

    /**
     * A built graph with what went into it.
     *
     * @param graph       the task graph
     * @param ranks       ranks (devices) it runs on
     * @param computes    compute tasks timed from the trace
     * @param collectives collective tasks (each over its group)
     * @param transfers   point-to-point transfers
     * @param untimed     nodes kept for their dependencies only (memory, metadata, host ops)
     */
    public record Built(TaskGraph graph, int ranks, int computes, int collectives, int transfers, int untimed) {
    }

    private final List<RankTrace> ranks;
    private final Topology topology;
    private final ComputeCost cost;
    private final String algorithm;
    /** Per rank, the unit of each node (by file position). */
    private final int[][] unitOf;
    /** Per rank, node id to file position. */
    private final List<Map<Long, Integer>> position = new ArrayList<>();
    /** Per unit, its members as rank * 2^32 + position, ranks ascending. */
    private final List<long[]> members = new ArrayList<>();

    private EtTaskGraph(List<RankTrace> ranks, Topology topology, ComputeCost cost, String algorithm) {
        this.ranks = ranks;
        this.topology = topology;
        this.cost = cost;
        this.algorithm = algorithm;
        this.unitOf = new int[ranks.size()][];
    }

    /**
     * Builds the task graph of {@code ranks} on {@code topology}.
     *
     * @param algorithm the collective algorithm by name, or {@code auto}
     * @throws InputException naming the file and node where the traces cannot be mapped (more ranks than
     *                        GPUs, a collective or send without its counterpart, a dependency cycle)
     */
    public static Built build(List<RankTrace> ranks, Topology topology, ComputeCost cost, String algorithm) {
        if (ranks.isEmpty()) {
            throw new IllegalArgumentException("no rank traces");
        }
        if (ranks.size() > topology.deviceCount()) {
            throw new InputException(ranks.get(0).file().getParent() + ": " + ranks.size() + " rank traces, but the "
                    + "cluster " + topology.name() + " has " + topology.deviceCount() + " devices; expected a cluster with "
                    + "at least one device per rank");
        }
        return new EtTaskGraph(ranks, topology, cost, algorithm).build();
    }

    private Built build() {
        for (RankTrace t : ranks) {
            Map<Long, Integer> pos = new HashMap<>(t.nodes().size() * 2);
            for (int i = 0; i < t.nodes().size(); i++) {
                pos.put(t.nodes().get(i).id(), i);
            }
            position.add(pos);
            unitOf[t.rank()] = new int[t.nodes().size()];
            Arrays.fill(unitOf[t.rank()], -1);
        }
        Map<Long, long[]> matched = new HashMap<>();
        matchCollectives(matched);
        matchTransfers(matched);
        for (int r = 0; r < ranks.size(); r++) {
            for (int i = 0; i < unitOf[r].length; i++) {
                if (unitOf[r][i] >= 0) {
                    continue;
                }
                long[] group = matched.getOrDefault(key(r, i), new long[] {key(r, i)});
                int unit = members.size();
                members.add(group);
                for (long m : group) {
                    unitOf[rankOf(m)][posOf(m)] = unit;
                }
            }
        }
        return emit(order());
    }

    private static long key(int rank, int pos) {
        return ((long) rank << 32) | pos;
    }

    private static int rankOf(long key) {
        return (int) (key >>> 32);
    }

    private static int posOf(long key) {
        return (int) key;
    }

    private EtNode node(long key) {
        return ranks.get(rankOf(key)).nodes().get(posOf(key));
    }

    private String at(long key) {
        EtNode n = node(key);
        return ranks.get(rankOf(key)).file() + ": node " + n.id() + " (" + n.name() + ")";
    }

    /** The k-th collective of each process group on every rank of the group, as one unit. */
    private void matchCollectives(Map<Long, long[]> matched) {
        TreeMap<String, List<List<Long>>> byGroup = new TreeMap<>();
        for (int r = 0; r < ranks.size(); r++) {
            List<EtNode> nodes = ranks.get(r).nodes();
            for (int i = 0; i < nodes.size(); i++) {
                EtNode n = nodes.get(i);
                if (n.kind() == EtNode.Kind.COLLECTIVE && !n.cpuOp()) {
                    List<List<Long>> perRank = byGroup.computeIfAbsent(n.processGroup(), g -> {
                        List<List<Long>> l = new ArrayList<>();
                        for (int k = 0; k < ranks.size(); k++) {
                            l.add(new ArrayList<>());
                        }
                        return l;
                    });
                    perRank.get(r).add(key(r, i));
                }
            }
        }
        for (Map.Entry<String, List<List<Long>>> g : byGroup.entrySet()) {
            List<List<Long>> perRank = g.getValue();
            List<Integer> inGroup = new ArrayList<>();
            for (int r = 0; r < perRank.size(); r++) {
                if (g.getKey().isEmpty() || !perRank.get(r).isEmpty()) {
                    inGroup.add(r);
                }
            }
            int most = inGroup.stream().mapToInt(r -> perRank.get(r).size()).max().orElse(0);
            for (int r : inGroup) {
                if (perRank.get(r).size() < most) {
                    int longer = inGroup.stream().filter(o -> perRank.get(o).size() == most).findFirst().orElseThrow();
                    long extra = perRank.get(longer).get(perRank.get(r).size());
                    throw new InputException(at(extra) + ": collective number " + (perRank.get(r).size() + 1)
                            + " of process group '" + groupName(g.getKey()) + "' has no counterpart on rank " + r + " ("
                            + ranks.get(r).file().getFileName() + " has " + perRank.get(r).size() + "); expected every "
                            + "rank of the group to issue the same collectives in the same order");
                }
            }
            for (int k = 0; k < most; k++) {
                long[] group = new long[inGroup.size()];
                for (int j = 0; j < group.length; j++) {
                    group[j] = perRank.get(inGroup.get(j)).get(k);
                }
                EtNode first = node(group[0]);
                for (long m : group) {
                    EtNode n = node(m);
                    if (n.commType() != first.commType() || n.commBytes() != first.commBytes()) {
                        throw new InputException(at(m) + ": comm_type " + n.commType() + ", comm_size " + n.commBytes()
                                + " differ from its counterpart on rank " + rankOf(group[0]) + " (node " + first.id()
                                + ": comm_type " + first.commType() + ", comm_size " + first.commBytes()
                                + "); expected the same collective on every rank of process group '"
                                + groupName(g.getKey()) + "'");
                    }
                    matched.put(m, group);
                }
            }
        }
    }

    private static String groupName(String pg) {
        return pg.isEmpty() ? "(none: all ranks)" : pg;
    }

    /** The k-th send from s to d with tag t and the k-th receive on d from s with tag t, as one unit. */
    private void matchTransfers(Map<Long, long[]> matched) {
        Map<List<Long>, List<Long>> sends = new HashMap<>();
        Map<List<Long>, List<Long>> recvs = new HashMap<>();
        List<List<Long>> order = new ArrayList<>();
        for (int r = 0; r < ranks.size(); r++) {
            List<EtNode> nodes = ranks.get(r).nodes();
            for (int i = 0; i < nodes.size(); i++) {
                EtNode n = nodes.get(i);
                if (n.kind() != EtNode.Kind.SEND && n.kind() != EtNode.Kind.RECV) {
                    continue;
                }
                boolean send = n.kind() == EtNode.Kind.SEND;
                int peer = send ? n.commDst() : n.commSrc();
                String attribute = send ? "comm_dst" : "comm_src";
                if (peer < 0 || peer >= ranks.size() || peer == r) {
                    throw new InputException(at(key(r, i)) + ": attribute " + attribute + " is "
                            + (peer < 0 ? "missing" : String.valueOf(peer)) + "; expected another rank from 0 to "
                            + (ranks.size() - 1));
                }
                List<Long> k = List.of((long) (send ? r : peer), (long) (send ? peer : r), n.commTag());
                if (!sends.containsKey(k)) {
                    sends.put(k, new ArrayList<>());
                    recvs.put(k, new ArrayList<>());
                    order.add(k);
                }
                (send ? sends : recvs).get(k).add(key(r, i));
            }
        }
        for (List<Long> k : order) {
            List<Long> s = sends.get(k);
            List<Long> v = recvs.get(k);
            if (s.size() != v.size()) {
                boolean moreSends = s.size() > v.size();
                long extra = moreSends ? s.get(v.size()) : v.get(s.size());
                throw new InputException(at(extra) + ": " + (moreSends ? "send" : "receive") + " from rank " + k.get(0)
                        + " to rank " + k.get(1) + " (comm_tag " + k.get(2) + ") has no matching "
                        + (moreSends ? "receive" : "send") + " (" + s.size() + " sends, " + v.size()
                        + " receives); expected them in pairs");
            }
            for (int i = 0; i < s.size(); i++) {
                long[] pair = {s.get(i), v.get(i)};
                if (node(pair[0]).commBytes() != node(pair[1]).commBytes() && node(pair[1]).commBytes() != 0) {
                    throw new InputException(at(pair[1]) + ": comm_size " + node(pair[1]).commBytes()
                            + " differs from its send's (node " + node(pair[0]).id() + ": " + node(pair[0]).commBytes() + ")");
                }
                matched.put(pair[0], pair);
                matched.put(pair[1], pair);
            }
        }
    }

    /** The units' dependencies (deduplicated) and a topological order, lowest unit first among ready ones. */
    private int[][] depsAndOrder(int[] orderOut) {
        int units = members.size();
        int[][] deps = new int[units][];
        for (int u = 0; u < units; u++) {
            int[] buf = new int[8];
            int count = 0;
            for (long m : members.get(u)) {
                int r = rankOf(m);
                for (long id : node(m).deps()) {
                    int d = unitOf[r][position.get(r).get(id)];
                    if (d != u) {
                        if (count == buf.length) {
                            buf = Arrays.copyOf(buf, count * 2);
                        }
                        buf[count++] = d;
                    }
                }
            }
            deps[u] = Arrays.stream(buf, 0, count).sorted().distinct().toArray();
        }
        int[] waiting = new int[units];
        int[] dependentCount = new int[units];
        for (int u = 0; u < units; u++) {
            waiting[u] = deps[u].length;
            for (int d : deps[u]) {
                dependentCount[d]++;
            }
        }
        int[][] dependents = new int[units][];
        for (int u = 0; u < units; u++) {
            dependents[u] = new int[dependentCount[u]];
            dependentCount[u] = 0;
        }
        for (int u = 0; u < units; u++) {
            for (int d : deps[u]) {
                dependents[d][dependentCount[d]++] = u;
            }
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int u = 0; u < units; u++) {
            if (waiting[u] == 0) {
                ready.add(u);
            }
        }
        int done = 0;
        while (!ready.isEmpty()) {
            int u = ready.poll();
            orderOut[done++] = u;
            for (int v : dependents[u]) {
                if (--waiting[v] == 0) {
                    ready.add(v);
                }
            }
        }
        if (done < units) {
            for (int u = 0; u < units; u++) {
                if (waiting[u] > 0) {
                    throw new InputException(at(members.get(u)[0]) + ": waits, through its dependencies and the "
                            + "collectives and transfers matched across ranks, on itself (a cycle); expected every rank to "
                            + "issue its collectives and sends in an order the others can follow");
                }
            }
        }
        return deps;
    }

    private int[] order() {
        return new int[members.size()];
    }

    private Built emit(int[] order) {
        int[][] deps = depsAndOrder(order);
        TaskGraph.Builder b = TaskGraph.builder();
        for (int r = 0; r < ranks.size(); r++) {
            b.device(topology.device(r).name(), topology.device(r).node());
        }
        int[] taskOf = new int[members.size()];
        int computes = 0;
        int collectives = 0;
        int transfers = 0;
        int untimed = 0;
        for (int u : order) {
            int[] taskDeps = new int[deps[u].length];
            for (int i = 0; i < taskDeps.length; i++) {
                taskDeps[i] = taskOf[deps[u][i]];
            }
            long[] m = members.get(u);
            EtNode n = node(m[0]);
            int r = rankOf(m[0]);
            String name = n.name().isEmpty() ? "node " + n.id() : n.name();
            if (n.kind() == EtNode.Kind.COLLECTIVE && !n.cpuOp() && m.length > 1) {
                int[] streams = new int[m.length];
                int[] devices = new int[m.length];
                for (int i = 0; i < m.length; i++) {
                    devices[i] = rankOf(m[i]);
                    streams[i] = stream(b, m[i], COLLECTIVE, StreamKind.COMMUNICATION);
                }
                taskOf[u] = b.communicate(name, "collective", streams, collective(m[0], devices), taskDeps);
                collectives++;
            } else if ((n.kind() == EtNode.Kind.SEND || n.kind() == EtNode.Kind.RECV) && m.length == 2) {
                int src = rankOf(m[0]);
                int dst = rankOf(m[1]);
                int[] streams = {stream(b, m[0], P2P, StreamKind.COMMUNICATION),
                    stream(b, m[1], P2P, StreamKind.COMMUNICATION)};
                taskOf[u] = b.communicate(name, "p2p", streams,
                        Work.Communication.pointToPoint(src, dst, n.commBytes()), taskDeps);
                transfers++;
            } else if (n.kind() == EtNode.Kind.COMPUTE && !n.cpuOp()) {
                taskOf[u] = b.compute(name, "compute", stream(b, m[0], COMPUTE, StreamKind.COMPUTE), cost.ns(n),
                        n.numOps(), taskDeps);
                computes++;
            } else {
                taskOf[u] = b.compute(name, "untimed", b.stream(r, UNTIMED, StreamKind.COMPUTE), 0, 0, taskDeps);
                untimed++;
            }
        }
        return new Built(b.build(), ranks.size(), computes, collectives, transfers, untimed);
    }

    /**
     * The stream of node {@code key} on its rank: the one its {@code stream} attribute names (as
     * clustersim's writer gives it), else the kind's default; a name already taken by a stream of
     * the other kind falls back to the default.
     */
    private int stream(TaskGraph.Builder b, long key, String fallback, StreamKind kind) {
        String named = node(key).stream();
        if (!named.isEmpty()) {
            try {
                return b.stream(rankOf(key), named, kind);
            } catch (IllegalArgumentException e) {
                // a compute and a communication node naming one stream: each keeps its kind's own
            }
        }
        return b.stream(rankOf(key), fallback, kind);
    }

    private Work.Communication collective(long first, int[] devices) {
        EtNode n = node(first);
        CollectiveOp op = switch (n.commType()) {
            case 0 -> CollectiveOp.ALL_REDUCE;
            case 1 -> CollectiveOp.REDUCE;
            case 2 -> CollectiveOp.ALL_GATHER;
            case 5 -> CollectiveOp.BROADCAST;
            case 6 -> CollectiveOp.ALL_TO_ALL;
            case 7, 8 -> CollectiveOp.REDUCE_SCATTER;
            case 9 -> CollectiveOp.ALL_REDUCE;
            case 3, 4 -> CollectiveOp.ALL_TO_ALL;
            case -1 -> throw new InputException(at(first) + ": attribute comm_type is missing; expected a Chakra "
                    + "CollectiveCommType (0 ALL_REDUCE, 2 ALL_GATHER, 5 BROADCAST, 6 ALL_TO_ALL, 7 REDUCE_SCATTER, ...)");
            default -> throw new InputException(at(first) + ": attribute comm_type " + n.commType()
                    + " is not a Chakra CollectiveCommType; expected 0 ALL_REDUCE, 1 REDUCE, 2 ALL_GATHER, 3 GATHER, "
                    + "4 SCATTER, 5 BROADCAST, 6 ALL_TO_ALL, 7 or 8 REDUCE_SCATTER, 9 BARRIER");
        };
        // a barrier is an all-reduce of one small value, as torch.distributed.barrier runs it under NCCL
        long bytes = n.commType() == 9 ? 8 : Math.max(n.commBytes(), 1);
        try {
            if (n.commType() == 3 || n.commType() == 4) {
                return rooted(n.commType() == 3, devices, bytes);
            }
            return Collectives.plan(algorithm, op, new CommGroup(devices), bytes, topology).work();
        } catch (IllegalArgumentException e) {
            throw new InputException(at(first) + ": cannot plan " + op.id() + " of " + bytes + " bytes over ranks "
                    + Arrays.toString(devices) + ": " + e.getMessage());
        }
    }

    /**
     * A gather to, or a scatter from, the group's lowest rank (Chakra's node names no root) of
     * {@code bytes} in all (the root's buffer, as for all-gather), sent directly: the flows of the
     * direct all-to-all that end (gather) or start (scatter) at the root, each {@code bytes / n},
     * with that phase's latency.
     */
    private Work.Communication rooted(boolean gather, int[] devices, long bytes) {
        int root = devices[0];
        List<org.clustersim.core.engine.Phase> phases = new ArrayList<>();
        for (org.clustersim.core.engine.Phase p : Collectives.plan("direct", CollectiveOp.ALL_TO_ALL,
                new CommGroup(devices), bytes, topology).phases()) {
            List<org.clustersim.core.engine.Flow> kept = new ArrayList<>();
            for (org.clustersim.core.engine.Flow f : p.flows()) {
                if ((gather ? f.dstDevice() : f.srcDevice()) == root) {
                    kept.add(f);
                }
            }
            phases.add(new org.clustersim.core.engine.Phase(kept, p.extraLatencyNs()));
        }
        return new Work.Communication(phases);
    }
}

package org.clustersim.study.workload;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import org.clustersim.core.engine.CommCall;
import org.clustersim.core.engine.Flow;
import org.clustersim.core.engine.Phase;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Work;
import org.clustersim.study.workload.et.EtDef;

/**
 * A simulated step's task graph as Chakra execution traces, one per device (rank), so that a
 * workload described here runs in other Chakra-based tools and reads back through
 * {@link EtTraceReader}. Each task becomes one node on every device it occupies:
 * <ul>
 * <li>compute work: {@code COMP_NODE} with its duration (rounded to whole microseconds, the
 * schema's unit) and {@code num_ops} (its FLOPs, split evenly over its devices) where counted;</li>
 * <li>a communication the step builder described as a collective ({@link CommCall}):
 * {@code COMM_COLL_NODE} with {@code comm_type}, {@code comm_size} (bytes, the planner's size
 * convention, which the reader takes back) and {@code pg_name}, the same name for the same
 * devices on every rank ({@link #processGroups});</li>
 * <li>a point-to-point send: {@code COMM_SEND_NODE} on the source and {@code COMM_RECV_NODE} on
 * the destination with {@code comm_src}, {@code comm_dst}, {@code comm_tag} (one tag per task,
 * the same on both sides) and {@code comm_size}; a communication with no description is written
 * as the sends of its flows, summed per pair of devices ({@link Counts#undescribed}).</li>
 * </ul>
 * A task's dependencies on the same device are {@code data_deps}; the task before it on each of
 * its streams is a {@code ctrl_deps} entry (a stream runs its tasks in order); a dependency on a
 * task with no node on that device cannot be said per rank in Chakra and is left out
 * ({@link Counts#crossDeviceDeps}; a collective or transfer keeps it where its node on another
 * device holds it, as the reader joins them). Every node carries a {@code stream} attribute (the
 * simulated stream's name; the reader places the node on that stream). Nodes are written in one
 * topological order of the whole graph, so every rank lists the collectives of a group in the
 * same order, as Chakra's consumers match them.
 */
public final class EtTraceWriter {
    /** Schema version written into each file's metadata (Chakra's converters write this one). */
    public static final String SCHEMA_VERSION = "0.0.4";

    /**
     * What was written.
     *
     * @param computes        compute nodes
     * @param collectives     collective nodes
     * @param transfers       point-to-point sends (each a send and a receive node)
     * @param undescribed     communication tasks with no collective description, written as sends
     * @param crossDeviceDeps dependencies of a node on a task with no node on its device, left out
     *                        (those of a collective or transfer kept by its node on another device
     *                        are not counted)
     */
    public record Counts(long computes, long collectives, long transfers, long undescribed, long crossDeviceDeps) {
    }

    private final TaskGraph graph;
    private final String generator;
    /** Per device, its nodes so far, serialized length-delimited (a large step's nodes as objects need gigabytes). */
    private final List<java.io.ByteArrayOutputStream> nodes = new ArrayList<>();
    /** Per device, how many nodes it holds (the next node's id). */
    private final int[] nodeCount;
    private final Map<List<Integer>, String> groupNames = new HashMap<>();
    /** Task t's i-th stream is slot slotStart[t] + i. */
    private final int[] slotStart;
    /** Per slot, the id of the task's first node on that slot's device, and how many it has there (0: not yet written). */
    private final long[] firstId;
    private final int[] idCount;
    /** Per slot, the task before it on that stream, or -1. */
    private final int[] previous;
    private long computes;
    private long collectives;
    private long transfers;
    private long undescribed;
    private long crossDeviceDeps;

    private EtTraceWriter(TaskGraph graph, String generator) {
        this.graph = graph;
        this.generator = generator;
        for (int d = 0; d < graph.devices().size(); d++) {
            nodes.add(new java.io.ByteArrayOutputStream());
        }
        nodeCount = new int[graph.devices().size()];
        int n = graph.taskCount();
        slotStart = new int[n + 1];
        for (int t = 0; t < n; t++) {
            slotStart[t + 1] = slotStart[t] + graph.streamCount(t);
        }
        firstId = new long[slotStart[n]];
        idCount = new int[slotStart[n]];
        previous = new int[slotStart[n]];
        java.util.Arrays.fill(previous, -1);
        for (int s = 0; s < graph.streams().size(); s++) {
            for (int p = 1; p < graph.streamLength(s); p++) {
                int t = graph.streamTask(s, p);
                for (int i = 0; i < graph.streamCount(t); i++) {
                    if (graph.taskStream(t, i) == s) {
                        previous[slotStart[t] + i] = graph.streamTask(s, p - 1);
                    }
                }
            }
        }
    }

    /** The ids of task {@code t}'s nodes on device {@code d}: first and count (count 0 if none). */
    private long[] idsOn(int t, int d) {
        for (int i = 0; i < graph.streamCount(t); i++) {
            int slot = slotStart[t] + i;
            if (graph.streamDevice(graph.taskStream(t, i)) == d && idCount[slot] > 0) {
                return new long[] {firstId[slot], idCount[slot]};
            }
        }
        return null;
    }

    /**
     * The traces of {@code graph}, one per device.
     *
     * @param generator what wrote them, stated in each file's metadata
     */
    public static EtTraceWriter of(TaskGraph graph, String generator) {
        long slots = 0;
        long[] perDevice = new long[graph.devices().size()];
        for (int t = 0; t < graph.taskCount(); t++) {
            slots += graph.streamCount(t);
            for (int i = 0; i < graph.streamCount(t); i++) {
                perDevice[graph.streamDevice(graph.taskStream(t, i))]++;
            }
        }
        long most = java.util.Arrays.stream(perDevice).max().orElse(0);
        if (slots > EtTraceReader.MAX_NODES || most > EtTraceReader.MAX_NODES_PER_FILE) {
            throw new IllegalArgumentException("the step holds about " + slots + " nodes over " + perDevice.length
                    + " ranks, up to " + most + " on one; a trace set is read up to " + EtTraceReader.MAX_NODES
                    + " nodes and " + EtTraceReader.MAX_NODES_PER_FILE + " per file");
        }
        EtTraceWriter w = new EtTraceWriter(graph, generator);
        int index = 0;
        for (int t : order(graph)) {
            w.add(t, index++);
        }
        return w;
    }

    /** Number of rank files (the graph's devices). */
    public int ranks() {
        return nodes.size();
    }

    /** What was written. */
    public Counts counts() {
        return new Counts(computes, collectives, transfers, undescribed, crossDeviceDeps);
    }

    /** Writes rank {@code rank}'s file: length-delimited GlobalMetadata, then its nodes. */
    public void write(int rank, OutputStream out) throws IOException {
        EtDef.GlobalMetadata.newBuilder().setVersion(SCHEMA_VERSION)
                .addAttr(EtDef.AttributeProto.newBuilder().setName("generator").setStringVal(generator))
                .build().writeDelimitedTo(out);
        nodes.get(rank).writeTo(out);
    }

    /** Rank {@code rank}'s nodes in file order. */
    public List<EtDef.Node> nodes(int rank) {
        List<EtDef.Node> out = new ArrayList<>(nodeCount[rank]);
        java.io.InputStream in = new java.io.ByteArrayInputStream(nodes.get(rank).toByteArray());
        try {
            for (EtDef.Node n = EtDef.Node.parseDelimitedFrom(in); n != null; n = EtDef.Node.parseDelimitedFrom(in)) {
                out.add(n);
            }
        } catch (IOException e) {
            throw new IllegalStateException("a node written here does not read back", e);
        }
        return out;
    }

    /** The tasks in one topological order over dependencies and stream order, lowest id first among ready ones. */
    private static int[] order(TaskGraph g) {
        int n = g.taskCount();
        int[] waiting = new int[n];
        for (int t = 0; t < n; t++) {
            waiting[t] = g.depCount(t);
        }
        for (int s = 0; s < g.streams().size(); s++) {
            for (int p = 1; p < g.streamLength(s); p++) {
                waiting[g.streamTask(s, p)]++;
            }
        }
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int t = 0; t < n; t++) {
            if (waiting[t] == 0) {
                ready.add(t);
            }
        }
        int[] out = new int[n];
        int done = 0;
        while (!ready.isEmpty()) {
            int t = ready.poll();
            out[done++] = t;
            for (int i = 0; i < g.dependentCount(t); i++) {
                release(g.dependent(t, i), waiting, ready);
            }
            for (int i = 0; i < g.streamCount(t); i++) {
                int next = g.nextOnStream(t, i);
                if (next >= 0) {
                    release(next, waiting, ready);
                }
            }
        }
        if (done < n) {
            throw new IllegalStateException("the task graph has a cycle: " + (n - done) + " tasks never ready");
        }
        return out;
    }

    private static void release(int t, int[] waiting, PriorityQueue<Integer> ready) {
        if (--waiting[t] == 0) {
            ready.add(t);
        }
    }

    /** The nodes of task {@code t} ({@code index}-th in the order) on each of its devices. */
    private void add(int t, int index) {
        Map<Integer, List<Integer>> streamsOn = new LinkedHashMap<>();
        for (int i = 0; i < graph.streamCount(t); i++) {
            int s = graph.taskStream(t, i);
            streamsOn.computeIfAbsent(graph.streamDevice(s), d -> new ArrayList<>()).add(s);
        }
        Work w = graph.work(t);
        for (Map.Entry<Integer, List<Integer>> e : streamsOn.entrySet()) {
            int d = e.getKey();
            List<EtDef.Node.Builder> made = new ArrayList<>();
            String stream = graph.stream(e.getValue().get(0)).name();
            if (w instanceof Work.Compute c) {
                EtDef.Node.Builder b = node(nodeCount[d], t, EtDef.NodeType.COMP_NODE, stream);
                b.setDurationMicros(Math.round(c.durationNs() / 1000.0));
                if (c.flops() > 0) {
                    b.addAttr(attr("num_ops").setInt64Val(Math.round(c.flops() / streamsOn.size())));
                }
                computes++;
                made.add(b);
            } else {
                communication(t, index, d, stream, (Work.Communication) w, made, streamsOn);
            }
            if (made.isEmpty()) {
                // nothing of it runs here (a flow to a device the task does not occupy): a placeholder keeps
                // the dependencies through it, which readers take as taking no time
                made.add(node(nodeCount[d], t, EtDef.NodeType.METADATA_NODE, stream));
            }
            long first = made.get(0).getId();
            for (EtDef.Node.Builder b : made) {
                dependencies(t, d, b);
                try {
                    b.build().writeDelimitedTo(nodes.get(d));
                } catch (IOException impossible) {
                    throw new java.io.UncheckedIOException(impossible);
                }
                nodeCount[d]++;
            }
            for (int i = 0; i < graph.streamCount(t); i++) {
                if (graph.streamDevice(graph.taskStream(t, i)) == d) {
                    firstId[slotStart[t] + i] = first;
                    idCount[slotStart[t] + i] = made.size();
                }
            }
        }
    }

    private EtDef.Node.Builder node(long id, int task, EtDef.NodeType type, String stream) {
        return EtDef.Node.newBuilder().setId(id).setName(graph.name(task)).setType(type)
                .addAttr(attr("is_cpu_op").setBoolVal(false))
                .addAttr(attr("stream").setStringVal(stream));
    }

    private static EtDef.AttributeProto.Builder attr(String name) {
        return EtDef.AttributeProto.newBuilder().setName(name);
    }

    /** The nodes of communication task {@code t} on device {@code d}. */
    private void communication(int t, int index, int d, String stream, Work.Communication w,
                               List<EtDef.Node.Builder> made, Map<Integer, List<Integer>> streamsOn) {
        List<CommCall> calls = new ArrayList<>();
        for (CommCall c : w.calls()) {
            if (c.involves(d) && (c.isSend() || commType(c.op()) >= 0)) {
                calls.add(c);
            }
        }
        if (calls.isEmpty()) {
            if (d == firstDevice(t)) {
                undescribed++;
            }
            calls = flowSends(w, d, streamsOn);
        }
        boolean several = calls.size() > 1;
        for (CommCall c : calls) {
            int[] members = c.devices();
            if (c.isSend()) {
                boolean sends = members[0] == d;
                EtDef.Node.Builder b = reserve(d, t, sends ? EtDef.NodeType.COMM_SEND_NODE : EtDef.NodeType.COMM_RECV_NODE,
                        several ? stream + (sends ? "/send" : "/recv") : stream, made);
                // int32 values, as Chakra's feeder (ASTRA-sim's input) reads these three
                b.addAttr(attr("comm_src").setInt32Val(members[0]))
                        .addAttr(attr("comm_dst").setInt32Val(members[1]))
                        .addAttr(attr("comm_tag").setInt32Val(index))
                        .addAttr(attr("comm_size").setInt64Val(c.bytes()));
                if (sends) {
                    transfers++;
                }
            } else {
                EtDef.Node.Builder b = reserve(d, t, EtDef.NodeType.COMM_COLL_NODE, stream, made);
                b.addAttr(attr("comm_type").setInt64Val(commType(c.op())))
                        .addAttr(attr("comm_size").setInt64Val(c.bytes()))
                        .addAttr(attr("pg_name").setStringVal(groupName(members)));
                if (members[0] == d) {
                    collectives++;
                }
            }
        }
    }

    /** A node for device {@code d} whose id counts the nodes already made for this task there. */
    private EtDef.Node.Builder reserve(int d, int t, EtDef.NodeType type, String stream,
                                       List<EtDef.Node.Builder> made) {
        EtDef.Node.Builder b = node(nodeCount[d] + made.size(), t, type, stream);
        made.add(b);
        return b;
    }

    private int firstDevice(int t) {
        int first = Integer.MAX_VALUE;
        for (int i = 0; i < graph.streamCount(t); i++) {
            first = Math.min(first, graph.streamDevice(graph.taskStream(t, i)));
        }
        return first;
    }

    /**
     * The flows of {@code w} between {@code d} and another device the task occupies, summed per
     * pair, as sends (in the order first met): a flow to a device without a node of the task has
     * no receive to meet.
     */
    private static List<CommCall> flowSends(Work.Communication w, int d, Map<Integer, ?> devices) {
        Map<List<Integer>, Long> bytes = new LinkedHashMap<>();
        for (Phase p : w.phases()) {
            for (Flow f : p.flows()) {
                if ((f.srcDevice() == d || f.dstDevice() == d) && f.srcDevice() != f.dstDevice()
                        && devices.containsKey(f.srcDevice()) && devices.containsKey(f.dstDevice())) {
                    bytes.merge(List.of(f.srcDevice(), f.dstDevice()), f.bytes(), Long::sum);
                }
            }
        }
        List<CommCall> out = new ArrayList<>();
        bytes.forEach((pair, b) -> out.add(CommCall.send(pair.get(0), pair.get(1), b)));
        return out;
    }

    /**
     * The process group's name: its number, from 1, in the order groups are first met, the same
     * on every rank (ASTRA-sim reads a group's name as its number in the communicator-group file).
     */
    private String groupName(int[] members) {
        List<Integer> key = Arrays.stream(members).sorted().boxed().toList();
        return groupNames.computeIfAbsent(key, k -> String.valueOf(groupNames.size() + 1));
    }

    /**
     * Every process group by its {@code pg_name}, with its ranks ascending, in name order: what
     * ASTRA-sim's {@code --comm-group-configuration} file holds.
     */
    public Map<String, List<Integer>> processGroups() {
        Map<String, List<Integer>> out = new java.util.TreeMap<>(java.util.Comparator.comparingInt(Integer::parseInt));
        groupNames.forEach((ranks, name) -> out.put(name, ranks));
        return new LinkedHashMap<>(out);
    }

    /** Chakra's CollectiveCommType of an operation id, or -1. */
    static int commType(String op) {
        return switch (op) {
            case "allreduce" -> EtDef.CollectiveCommType.ALL_REDUCE_VALUE;
            case "reduce" -> EtDef.CollectiveCommType.REDUCE_VALUE;
            case "allgather" -> EtDef.CollectiveCommType.ALL_GATHER_VALUE;
            case "broadcast" -> EtDef.CollectiveCommType.BROADCAST_VALUE;
            case "alltoall" -> EtDef.CollectiveCommType.ALL_TO_ALL_VALUE;
            case "reducescatter" -> EtDef.CollectiveCommType.REDUCE_SCATTER_VALUE;
            default -> -1;
        };
    }

    /** Data deps on the task's dependencies on {@code d}, control deps on the previous task of each of its streams there. */
    private void dependencies(int t, int d, EtDef.Node.Builder b) {
        for (int i = 0; i < graph.depCount(t); i++) {
            int u = graph.dep(t, i);
            long[] ids = idsOn(u, d);
            if (ids == null) {
                if (!joinedElsewhere(t, u)) {
                    crossDeviceDeps++;
                }
                continue;
            }
            for (long id = ids[0]; id < ids[0] + ids[1]; id++) {
                b.addDataDeps(id);
            }
        }
        for (int i = 0; i < graph.streamCount(t); i++) {
            int prev = previous[slotStart[t] + i];
            if (prev >= 0 && graph.streamDevice(graph.taskStream(t, i)) == d) {
                long[] ids = idsOn(prev, d);
                for (long id = ids[0]; id < ids[0] + ids[1]; id++) {
                    b.addCtrlDeps(id);
                }
            }
        }
    }

    /**
     * Whether communication task {@code t} has a node, on another of its devices, that depends on
     * {@code u}: a reader joins the nodes of one collective or transfer into one task with the
     * dependencies of all, so the dependency holds.
     */
    private boolean joinedElsewhere(int t, int u) {
        if (graph.isCompute(t)) {
            return false;
        }
        for (int i = 0; i < graph.streamCount(t); i++) {
            if (idsOn(u, graph.streamDevice(graph.taskStream(t, i))) != null) {
                return true;
            }
        }
        return false;
    }
}

package org.clustersim.core.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one simulated step will run: devices, their streams, and the tasks with their
 * stream order and dependencies. Immutable once built; the engine keeps run state elsewhere.
 *
 * <p>Storage is compact, because a 16,384-GPU step with every replica simulated has millions of
 * tasks: per task one name, one {@link TaskTag} index and one {@link Work} reference (names
 * interned, or none kept where no output shows them, each distinct tag kept once, compute work of
 * identical duration, FLOPs and op split shared), and the streams
 * each task occupies, its dependencies, its dependents and each stream's queue as compressed
 * sparse rows (an offset array and one flat {@code int[]} each). {@link Task} is a view of one
 * row; the engine reads the rows directly.
 *
 * <p>Why this class is long: the rows, their {@link Builder} (appending, resequencing a queue,
 * copying a replica's rows) and the depth renumbering all write the same private arrays with
 * array loops; keeping them in one class keeps those arrays out of any other class's reach.
 */
public final class TaskGraph {
    /** Tasks from which {@link #renumbered} gathers its arrays in parallel (below, threads cost more than they save). */
    private static final int PARALLEL_RENUMBERING = 200_000;
    /** Copied tasks from which {@link Builder#replicate(int, int, List, List)} fills its copies in parallel. */
    private static final int PARALLEL_COPIES = 200_000;
    private final List<DeviceInfo> devices;
    private final List<Stream> streams;
    private final String[] names;
    /** Per task, the index of its tag in {@link #tagTable}. */
    private final int[] tags;
    /** Each distinct tag once. */
    private final TaskTag[] tagTable;
    private final Work[] works;
    /** Per task, whether its work is compute: asked when a task ends, without reading the work object again. */
    private final boolean[] compute;
    /** Task t occupies streams taskStreams[taskStreamStart[t] .. taskStreamStart[t + 1]). */
    private final int[] taskStreamStart;
    private final int[] taskStreams;
    /**
     * Beside each entry of {@link #taskStreams}: the task queued after this one on that stream, or
     * -1. The engine advances a stream by reading it from the finished task's own row, not from the
     * stream's queue (a queue's next entry lies wherever that stream's queue is).
     */
    private final int[] nextOnStream;
    private final int[] depStart;
    private final int[] deps;
    /**
     * Null, or per task id here its row in {@link #depStart}/{@link #deps}, and per id in those
     * rows the id here: a renumbered graph shares its source's dependency rows (the engine reads
     * only their counts, once) and maps them on reading instead of gathering them anew.
     */
    private final int[] depRow;
    private final int[] depIds;
    private final int[] dependentStart;
    private final int[] dependents;
    /** Stream s runs tasks streamTasks[streamTaskStart[s] .. streamTaskStart[s + 1]) in this order. */
    private final int[] streamTaskStart;
    private final int[] streamTasks;
    /**
     * Null, or per task id in {@link #streamTasks} that task's id here: a renumbered graph shares
     * its source's queues (the largest rows after the streams' own) and maps them.
     */
    private final int[] streamTaskIds;
    /** Per stream, its device and whether it is a compute stream. */
    private final int[] streamDevice;
    private final boolean[] streamCompute;
    /** Device d owns streams deviceStreams[deviceStreamStart[d] .. deviceStreamStart[d + 1]), ascending. */
    private final int[] deviceStreamStart;
    private final int[] deviceStreams;

    private TaskGraph(Builder b, int[] depStart, int[] deps, int[] streamTaskStart, int[] streamTasks) {
        this(List.copyOf(b.devices), List.copyOf(b.streams), Arrays.copyOf(b.names, b.taskCount),
                Arrays.copyOf(b.tags, b.taskCount), b.tagTable.toArray(new TaskTag[0]), Arrays.copyOf(b.works, b.taskCount),
                Arrays.copyOf(b.taskStreamStart, b.taskCount + 1), b.taskStreams.toArray(), b.nextOnStream.toArray(),
                depStart, deps, streamTaskStart, streamTasks);
    }

    /** A graph from its rows: the dependents, per-stream and per-device tables are derived here. */
    private TaskGraph(List<DeviceInfo> devices, List<Stream> streams, String[] names, int[] tags, TaskTag[] tagTable,
                      Work[] works, int[] taskStreamStart, int[] taskStreams, int[] nextOnStream, int[] depStart,
                      int[] deps, int[] streamTaskStart, int[] streamTasks) {
        int n = names.length;
        this.devices = devices;
        this.streams = streams;
        this.names = names;
        this.tags = tags;
        this.tagTable = tagTable;
        this.works = works;
        this.compute = new boolean[n];
        for (int t = 0; t < n; t++) {
            compute[t] = works[t] instanceof Work.Compute;
        }
        this.taskStreamStart = taskStreamStart;
        this.taskStreams = taskStreams;
        this.depStart = depStart;
        this.deps = deps;
        this.depRow = null;
        this.depIds = null;
        this.streamTaskStart = streamTaskStart;
        this.streamTasks = streamTasks;
        this.streamTaskIds = null;
        this.nextOnStream = nextOnStream;
        dependentStart = new int[n + 1];
        for (int d : deps) {
            dependentStart[d + 1]++;
        }
        for (int t = 0; t < n; t++) {
            dependentStart[t + 1] += dependentStart[t];
        }
        dependents = new int[deps.length];
        int[] fill = Arrays.copyOf(dependentStart, n);
        for (int t = 0; t < n; t++) {
            for (int i = depStart[t]; i < depStart[t + 1]; i++) {
                dependents[fill[deps[i]]++] = t;
            }
        }
        int s = streams.size();
        streamDevice = new int[s];
        streamCompute = new boolean[s];
        deviceStreamStart = new int[devices.size() + 1];
        for (Stream st : streams) {
            streamDevice[st.id()] = st.device();
            streamCompute[st.id()] = st.kind() == StreamKind.COMPUTE;
            deviceStreamStart[st.device() + 1]++;
        }
        for (int d = 0; d < devices.size(); d++) {
            deviceStreamStart[d + 1] += deviceStreamStart[d];
        }
        deviceStreams = new int[s];
        int[] at = Arrays.copyOf(deviceStreamStart, devices.size());
        for (int id = 0; id < s; id++) {
            deviceStreams[at[streamDevice[id]]++] = id;
        }
    }

    /** A graph of the same devices and streams with every per-task array given. */
    private TaskGraph(TaskGraph same, String[] names, int[] tags, Work[] works, boolean[] compute,
                      int[] taskStreamStart, int[] taskStreams, int[] nextOnStream, int[] depRow, int[] depIds,
                      int[] dependentStart, int[] dependents, int[] streamTasks, int[] streamTaskIds) {
        this.devices = same.devices;
        this.streams = same.streams;
        this.names = names;
        this.tags = tags;
        this.tagTable = same.tagTable;
        this.works = works;
        this.compute = compute;
        this.taskStreamStart = taskStreamStart;
        this.taskStreams = taskStreams;
        this.nextOnStream = nextOnStream;
        this.depStart = same.depStart;
        this.deps = same.deps;
        this.depRow = depRow;
        this.depIds = depIds;
        this.dependentStart = dependentStart;
        this.dependents = dependents;
        this.streamTaskStart = same.streamTaskStart;
        this.streamTasks = streamTasks;
        this.streamTaskIds = streamTaskIds;
        this.streamDevice = same.streamDevice;
        this.streamCompute = same.streamCompute;
        this.deviceStreamStart = same.deviceStreamStart;
        this.deviceStreams = same.deviceStreams;
    }

    /**
     * This graph with its tasks numbered anew: task {@code i} of the result is task
     * {@code ids[i]} of this one ({@code ids} a permutation of all task ids). Every list keeps its
     * order - a task's streams, dependencies and dependents, a stream's queue - so an engine
     * releases tasks in the same order on either graph. The result keeps {@code ids} (its
     * dependency rows are this graph's, read through it): the caller must not change it.
     */
    TaskGraph renumbered(int[] ids) {
        return renumbered(ids, inverse(ids), ids.length >= PARALLEL_RENUMBERING);
    }

    /** As {@link #renumbered(int[])}, gathering the arrays side by side on the common pool if {@code parallel}. */
    TaskGraph renumbered(int[] ids, boolean parallel) {
        return renumbered(ids, inverse(ids), parallel);
    }

    /**
     * As {@link #renumbered(int[])}, with the inverse permutation already known ({@code newId[t]}:
     * the new id of task t, as {@link DepthOrder} finds it), so it is neither found nor checked
     * again; the result keeps both arrays.
     */
    TaskGraph renumbered(int[] ids, int[] newId) {
        return renumbered(ids, newId, ids.length >= PARALLEL_RENUMBERING);
    }

    /** Per task, its position in {@code ids}, checking that {@code ids} numbers every task once. */
    private int[] inverse(int[] ids) {
        int n = names.length;
        if (ids.length != n) {
            throw new IllegalArgumentException(ids.length + " ids for " + n + " tasks");
        }
        int[] newId = new int[n];
        Arrays.fill(newId, -1);
        for (int i = 0; i < n; i++) {
            if (ids[i] < 0 || ids[i] >= n || newId[ids[i]] >= 0) {
                throw new IllegalArgumentException("task " + ids[i] + " numbered twice or not a task");
            }
            newId[ids[i]] = i;
        }
        return newId;
    }

    private TaskGraph renumbered(int[] ids, int[] newId, boolean parallel) {
        int n = names.length;
        String[] nNames = new String[n];
        int[] nTags = new int[n];
        Work[] nWorks = new Work[n];
        boolean[] nCompute = new boolean[n];
        int[] nTaskStreamStart = new int[n + 1];
        int[] nTaskStreams = new int[taskStreams.length];
        int[] nNextOnStream = new int[taskStreams.length];
        int[] nDependentStart = new int[n + 1];
        int[] nDependents = new int[dependents.length];
        // the queues and the dependency rows keep their tasks' old ids, mapped on reading: no
        // second copy of rows the engine reads once or never
        int[] nStreamTaskIds = new int[n];
        for (int t = 0; t < n; t++) {
            nStreamTaskIds[t] = newId[streamTaskIds == null ? t : streamTaskIds[t]];
        }
        int[] nDepRow = depRow == null ? ids : new int[n];
        int[] nDepIds = depIds == null ? newId : new int[depIds.length];
        if (depRow != null) {
            // this graph maps its source's rows already: map the same rows onward
            for (int i = 0; i < n; i++) {
                nDepRow[i] = depRow[ids[i]];
            }
            for (int r = 0; r < depIds.length; r++) {
                nDepIds[r] = newId[depIds[r]];
            }
        }
        // three gathers, each reading the old rows in the new order: on their own they are bound by
        // cache misses, so a large graph's run them side by side on the available cores
        Runnable[] gathers = {
            () -> {
                for (int i = 0; i < n; i++) {
                    int t = ids[i];
                    nNames[i] = names[t];
                    nTags[i] = tags[t];
                    nWorks[i] = works[t];
                    nCompute[i] = compute[t];
                }
            },
            () -> {
                int k = 0;
                for (int i = 0; i < n; i++) {
                    nTaskStreamStart[i] = k;
                    for (int j = taskStreamStart[ids[i]], end = taskStreamStart[ids[i] + 1]; j < end; j++, k++) {
                        nTaskStreams[k] = taskStreams[j];
                        nNextOnStream[k] = nextOnStream[j] < 0 ? -1 : newId[nextOnStream[j]];
                    }
                }
                nTaskStreamStart[n] = k;
            },
            () -> rows(ids, dependentStart, dependents, newId, nDependentStart, nDependents),
        };
        if (parallel) {
            Arrays.stream(gathers).parallel().forEach(Runnable::run);
        } else {
            for (Runnable gather : gathers) {
                gather.run();
            }
        }
        return new TaskGraph(this, nNames, nTags, nWorks, nCompute, nTaskStreamStart, nTaskStreams,
                nNextOnStream, nDepRow, nDepIds, nDependentStart, nDependents, streamTasks, nStreamTaskIds);
    }

    /**
     * Compressed rows {@code start}/{@code values} laid out in the order {@code ids} gives into
     * {@code newStart}/{@code out}, each row's values in their order and mapped through {@code newId}.
     */
    private static void rows(int[] ids, int[] start, int[] values, int[] newId, int[] newStart, int[] out) {
        int k = 0;
        for (int i = 0; i < ids.length; i++) {
            newStart[i] = k;
            for (int j = start[ids[i]], end = start[ids[i] + 1]; j < end; j++) {
                out[k++] = newId[values[j]];
            }
        }
        newStart[ids.length] = k;
    }

    /**
     * Several graphs as one, on one set of devices: the tasks of {@code parts.get(0)} first, then
     * those of the next part, each part's devices moved through its map ({@code deviceMaps.get(p)[d]}
     * is the index in {@code devices} of part p's device d) and every communication's flows with
     * them. Streams, queues, dependencies and each task's lists keep their order within a part, so
     * a part runs on the union as on its own graph wherever it shares nothing. What several jobs
     * placed on one cluster run: their steps on one timeline. Parts must not share a device.
     *
     * @throws IllegalArgumentException when a map's length is not its part's device count, a map
     *         names a device outside {@code devices}, or two parts map onto one device
     */
    public static TaskGraph union(List<DeviceInfo> devices, List<TaskGraph> parts, List<int[]> deviceMaps) {
        if (parts.size() != deviceMaps.size()) {
            throw new IllegalArgumentException(parts.size() + " parts but " + deviceMaps.size() + " device maps");
        }
        boolean[] taken = new boolean[devices.size()];
        int tasks = 0;
        int slots = 0;
        int edges = 0;
        int queued = 0;
        for (int p = 0; p < parts.size(); p++) {
            TaskGraph g = parts.get(p);
            int[] map = deviceMaps.get(p);
            if (map.length != g.devices.size()) {
                throw new IllegalArgumentException("part " + p + " has " + g.devices.size() + " devices but its map "
                        + map.length);
            }
            for (int d : map) {
                if (d < 0 || d >= taken.length || taken[d]) {
                    throw new IllegalArgumentException("part " + p + " maps a device to " + d
                            + (d >= 0 && d < taken.length ? ", which another device already takes" : ", not a device"));
                }
                taken[d] = true;
            }
            tasks += g.names.length;
            slots += g.taskStreams.length;
            edges += g.deps.length;
            queued += g.streamTasks.length;
        }
        List<Stream> streams = new ArrayList<>();
        String[] names = new String[tasks];
        int[] tags = new int[tasks];
        Work[] works = new Work[tasks];
        int[] taskStreamStart = new int[tasks + 1];
        int[] taskStreams = new int[slots];
        int[] nextOnStream = new int[slots];
        int[] depStart = new int[tasks + 1];
        int[] deps = new int[edges];
        List<TaskTag> tagTable = new ArrayList<>();
        Map<TaskTag, Integer> tagIds = new HashMap<>();
        int t0 = 0;
        int k0 = 0;
        int e0 = 0;
        IntList streamTaskStart = new IntList();
        streamTaskStart.add(0);
        int[] streamTasks = new int[queued];
        int q0 = 0;
        for (int p = 0; p < parts.size(); p++) {
            TaskGraph g = parts.get(p);
            int[] map = deviceMaps.get(p);
            int s0 = streams.size();
            for (Stream st : g.streams) {
                streams.add(new Stream(s0 + st.id(), map[st.device()], st.name(), st.kind()));
            }
            int[] tagOf = new int[g.tagTable.length];
            for (int i = 0; i < tagOf.length; i++) {
                tagOf[i] = tagIds.computeIfAbsent(g.tagTable[i], tag -> {
                    tagTable.add(tag);
                    return tagTable.size() - 1;
                });
            }
            Map<Work, Work> moved = new java.util.IdentityHashMap<>();
            int n = g.names.length;
            for (int t = 0; t < n; t++) {
                names[t0 + t] = g.names[t];
                tags[t0 + t] = tagOf[g.tags[t]];
                Work w = g.works[t];
                works[t0 + t] = w instanceof Work.Communication c
                        ? moved.computeIfAbsent(c, x -> c.onDevices(d -> map[d])) : w;
                taskStreamStart[t0 + t + 1] = k0 + g.taskStreamStart[t + 1];
                depStart[t0 + t + 1] = depStart[t0 + t] + g.depCount(t);
            }
            for (int k = 0; k < g.taskStreams.length; k++) {
                taskStreams[k0 + k] = s0 + g.taskStreams[k];
                nextOnStream[k0 + k] = g.nextOnStream[k] < 0 ? -1 : t0 + g.nextOnStream[k];
            }
            for (int t = 0, e = e0; t < n; t++) {
                for (int i = 0, k = g.depCount(t); i < k; i++) {
                    deps[e++] = t0 + g.dep(t, i);
                }
            }
            for (int s = 0; s < g.streams.size(); s++) {
                streamTaskStart.add(q0 + g.streamTaskStart[s + 1]);
            }
            for (int i = 0; i < g.streamTasks.length; i++) {
                streamTasks[q0 + i] = t0 + g.queued(i);
            }
            t0 += n;
            k0 += g.taskStreams.length;
            e0 += g.deps.length;
            q0 += g.streamTasks.length;
        }
        return new TaskGraph(List.copyOf(devices), List.copyOf(streams), names, tags, tagTable.toArray(new TaskTag[0]),
                works, taskStreamStart, taskStreams, nextOnStream, depStart, deps, streamTaskStart.toArray(), streamTasks);
    }

    public static Builder builder() {
        return new Builder(true);
    }

    /**
     * A builder that keeps no task names when {@code taskNames} is false: for a run whose outputs
     * never show them (a plan's candidates), each task saves its name's text and the builder its
     * table of names; {@link #name} then answers the task's category.
     */
    public static Builder builder(boolean taskNames) {
        return new Builder(taskNames);
    }

    public List<DeviceInfo> devices() {
        return devices;
    }

    public List<Stream> streams() {
        return streams;
    }

    public int taskCount() {
        return names.length;
    }

    /** A view of task {@code id}. */
    public Task task(int id) {
        if (id < 0 || id >= names.length) {
            throw new IndexOutOfBoundsException("task " + id + " of " + names.length);
        }
        return new Task(this, id);
    }

    /** Display name of task {@code id}; its category when the graph was built without names. */
    public String name(int id) {
        String name = names[id];
        return name != null ? name : tagTable[tags[id]].category();
    }

    /** Whether task {@code id} kept its own name ({@link #builder(boolean)}). */
    public boolean named(int id) {
        return names[id] != null;
    }

    /** Category of task {@code id}: its tag's display category. */
    public String category(int id) {
        return tagTable[tags[id]].category();
    }

    /** Tag of task {@code id} (one instance per distinct tag: reading it allocates nothing). */
    public TaskTag tag(int id) {
        return tagTable[tags[id]];
    }

    /** Index of task {@code id}'s tag among the graph's distinct tags ({@link #tagAt}). */
    public int tagIndex(int id) {
        return tags[id];
    }

    /** Number of distinct tags. */
    public int tagCount() {
        return tagTable.length;
    }

    /** The distinct tag of index {@code index}. */
    public TaskTag tagAt(int index) {
        return tagTable[index];
    }

    /** Work of task {@code id}. */
    public Work work(int id) {
        return works[id];
    }

    /** Whether task {@code id} computes (else it communicates). */
    public boolean isCompute(int id) {
        return compute[id];
    }

    /** Number of streams task {@code id} occupies. */
    public int streamCount(int id) {
        return taskStreamStart[id + 1] - taskStreamStart[id];
    }

    /** The i-th stream task {@code id} occupies. */
    public int taskStream(int id, int i) {
        return taskStreams[taskStreamStart[id] + i];
    }

    /** The task queued after task {@code id} on its i-th stream, or -1 if it is that stream's last. */
    public int nextOnStream(int id, int i) {
        return nextOnStream[taskStreamStart[id] + i];
    }

    /** Number of tasks task {@code id} waits for. */
    public int depCount(int id) {
        int row = depRow == null ? id : depRow[id];
        return depStart[row + 1] - depStart[row];
    }

    /** The i-th task task {@code id} waits for. */
    public int dep(int id, int i) {
        return depRow == null ? deps[depStart[id] + i] : depIds[deps[depStart[depRow[id]] + i]];
    }

    public Stream stream(int id) {
        return streams.get(id);
    }

    /** Device of stream {@code stream}. */
    public int streamDevice(int stream) {
        return streamDevice[stream];
    }

    /** Whether stream {@code stream} is a compute stream. */
    public boolean isComputeStream(int stream) {
        return streamCompute[stream];
    }

    /** Number of streams device {@code device} owns. */
    public int deviceStreamCount(int device) {
        return deviceStreamStart[device + 1] - deviceStreamStart[device];
    }

    /** The i-th stream of device {@code device}, in ascending stream id. */
    public int deviceStream(int device, int i) {
        return deviceStreams[deviceStreamStart[device] + i];
    }

    /** Number of tasks queued on a stream. */
    public int streamLength(int stream) {
        return streamTaskStart[stream + 1] - streamTaskStart[stream];
    }

    /** The task at position {@code position} of a stream. */
    public int streamTask(int stream, int position) {
        return queued(streamTaskStart[stream] + position);
    }

    /** Entry {@code p} of the stream queues laid end to end: a task id of this graph. */
    private int queued(int p) {
        int t = streamTasks[p];
        return streamTaskIds == null ? t : streamTaskIds[t];
    }

    /** Number of tasks that wait for task {@code id}. */
    public int dependentCount(int id) {
        return dependentStart[id + 1] - dependentStart[id];
    }

    /** The i-th task that waits for task {@code id}. */
    public int dependent(int id, int i) {
        return dependents[dependentStart[id] + i];
    }

    /**
     * Assembles a task graph. A dependency may name a task added later (through
     * {@link #addDependency}); cycles are not rejected here but show up as a deadlock when the
     * engine runs the graph, with a report of what waits for what.
     */
    public static final class Builder {
        private final List<DeviceInfo> devices = new ArrayList<>();
        private final List<Stream> streams = new ArrayList<>();
        /** Per device, its streams by name (a name's hash is kept by the string: no key is built per lookup). */
        private final List<Map<String, Integer>> streamsByDevice = new ArrayList<>();
        private final List<IntList> streamQueues = new ArrayList<>();
        /** Interned names, shared compute work, and each distinct tag's index (labels by their category). */
        private final Map<String, String> strings = new HashMap<>();
        private final Map<TaskTag, Integer> tagIds = new HashMap<>();
        private final Map<String, Integer> labelIds = new HashMap<>();
        private final List<TaskTag> tagTable = new ArrayList<>();
        private final Map<Work.Compute, Work.Compute> computeWork = new HashMap<>();
        /** Whether tasks keep their names; without, each is stored as null. */
        private final boolean taskNames;
        private int taskCount;
        private String[] names = new String[64];
        private int[] tags = new int[64];
        private Work[] works = new Work[64];
        private int[] taskStreamStart = new int[65];
        private final IntList taskStreams = new IntList();
        /** Per stream, the {@link #add} call that last listed it (finds a stream listed twice). */
        private int[] streamStamp = new int[64];
        private int addCalls;
        /**
         * Beside {@link #taskStreams}, the next task in that stream's queue; per stream, its queue's
         * last entry there. Kept as tasks are appended and when {@link #resequence} reorders.
         */
        private final IntList nextOnStream = new IntList();
        private final IntList lastSlot = new IntList();
        /** Dependencies as linked lists in insertion order: per task first and last edge, per edge target and next. */
        private int[] depFirst = new int[64];
        private int[] depLast = new int[64];
        private final IntList edgeTarget = new IntList();
        private final IntList edgeNext = new IntList();

        private Builder(boolean taskNames) {
            this.taskNames = taskNames;
        }

        /** Declares the next device; devices must be declared in index order. */
        public int device(String name, int node) {
            int index = devices.size();
            devices.add(new DeviceInfo(index, name, node));
            streamsByDevice.add(new HashMap<>(8));
            return index;
        }

        /** The stream of that name on that device, created on first use. */
        public int stream(int device, String name, StreamKind kind) {
            if (device < 0 || device >= devices.size()) {
                throw new IllegalArgumentException("unknown device " + device);
            }
            Map<String, Integer> named = streamsByDevice.get(device);
            Integer existing = named.get(name);
            if (existing != null) {
                Stream s = streams.get(existing);
                if (s.kind() != kind) {
                    throw new IllegalArgumentException("stream " + device + "/" + name + " already exists as " + s.kind());
                }
                return existing;
            }
            int id = streams.size();
            streams.add(new Stream(id, device, intern(name), kind));
            streamQueues.add(new IntList());
            lastSlot.add(-1);
            named.put(name, id);
            return id;
        }

        /** Appends a compute task to a stream, untyped, shown under {@code category}. */
        public int compute(String name, String category, int stream, long durationNs, double flops, int... deps) {
            return add(name, label(category), new Work.Compute(durationNs, flops), new int[] {stream}, deps);
        }

        /** Appends a compute task tagged {@code tag} to a stream. */
        public int compute(String name, TaskTag tag, int stream, long durationNs, double flops, int... deps) {
            return add(name, idOf(tag), new Work.Compute(durationNs, flops), new int[] {stream}, deps);
        }

        /**
         * Appends one compute task to several devices' compute streams at once: a tensor-parallel
         * group computing in lockstep, each device busy for the same time.
         */
        public int computeOn(String name, String category, int[] computeStreams, long durationNs,
                                        double flops) {
            return computeOn(name, category, computeStreams, durationNs, flops, null);
        }

        /** As {@link #computeOn(String, String, int[], long, double)}, with the task's split over ops. */
        public int computeOn(String name, String category, int[] computeStreams, long durationNs, double flops,
                             OpBreakdown ops) {
            return add(name, label(category), new Work.Compute(durationNs, flops, ops), computeStreams, new int[0]);
        }

        /** As {@link #computeOn(String, String, int[], long, double)}, tagged {@code tag}. */
        public int computeOn(String name, TaskTag tag, int[] computeStreams, long durationNs, double flops) {
            return computeOn(name, tag, computeStreams, durationNs, flops, null);
        }

        /** As {@link #computeOn(String, String, int[], long, double, OpBreakdown)}, tagged {@code tag}. */
        public int computeOn(String name, TaskTag tag, int[] computeStreams, long durationNs, double flops,
                             OpBreakdown ops) {
            return add(name, idOf(tag), new Work.Compute(durationNs, flops, ops), computeStreams, new int[0]);
        }

        /** Appends a communication task to each of the given streams (one per participating device), untyped. */
        public int communicate(String name, String category, int[] streamIds, Work.Communication comm, int... deps) {
            return add(name, label(category), comm, streamIds, deps);
        }

        /** As {@link #communicate(String, String, int[], Work.Communication, int...)}, tagged {@code tag}. */
        public int communicate(String name, TaskTag tag, int[] streamIds, Work.Communication comm, int... deps) {
            return add(name, idOf(tag), comm, streamIds, deps);
        }

        /** The index of {@code tag} in the tag table, added on first sight. */
        private int idOf(TaskTag tag) {
            if (tag.category() == null) {
                throw new IllegalArgumentException("tag " + tag + " has no category: give a pass, traffic or label");
            }
            Integer id = tagIds.get(tag);
            if (id == null) {
                id = tagTable.size();
                tagTable.add(tag);
                tagIds.put(tag, id);
            }
            return id;
        }

        /** The index of the untyped tag labelled {@code category} (looked up by the string: no tag built per task). */
        private int label(String category) {
            Integer id = labelIds.get(category);
            if (id == null) {
                id = idOf(TaskTag.labelled(category));
                labelIds.put(category, id);
            }
            return id;
        }

        private String intern(String s) {
            String known = strings.putIfAbsent(s, s);
            return known == null ? s : known;
        }

        private int add(String name, int tag, Work work, int[] taskStreamIds, int[] deps) {
            int id = taskCount;
            if (taskStreamIds.length == 0) {
                throw new IllegalArgumentException("task " + name + " occupies no stream");
            }
            // a task spans up to every stream of a collective's group (thousands): checked by
            // stamping each stream with this call's number, not by comparing pairs
            int serial = ++addCalls;
            if (streamStamp.length < streams.size()) {
                streamStamp = Arrays.copyOf(streamStamp, Math.max(streams.size(), streamStamp.length * 2));
            }
            for (int s : taskStreamIds) {
                if (s < 0 || s >= streams.size()) {
                    throw new IllegalArgumentException("task " + name + ": unknown stream " + s);
                }
                if (streamStamp[s] == serial) {
                    throw new IllegalArgumentException("task " + name + " occupies stream " + s + " twice");
                }
                streamStamp[s] = serial;
            }
            growForTask(id);
            if (work instanceof Work.Compute c) {
                Work.Compute shared = computeWork.putIfAbsent(c, c);
                work = shared == null ? c : shared;
            }
            names[id] = taskNames ? intern(name) : null;
            tags[id] = tag;
            works[id] = work;
            depFirst[id] = -1;
            depLast[id] = -1;
            taskCount++;
            for (int s : taskStreamIds) {
                int last = lastSlot.data[s];
                if (last >= 0) {
                    nextOnStream.data[last] = id;
                }
                lastSlot.data[s] = taskStreams.size;
                taskStreams.add(s);
                nextOnStream.add(-1);
                streamQueues.get(s).add(id);
            }
            taskStreamStart[id + 1] = taskStreams.size;
            for (int d : deps) {
                link(id, d);
            }
            return id;
        }

        /** Room in the per-task arrays for task {@code id}, the next one. */
        private void growForTask(int id) {
            if (id == names.length) {
                resizeTasks(id * 2);
            }
        }

        /** Every per-task array resized to room for {@code capacity} tasks. */
        private void resizeTasks(int capacity) {
            names = Arrays.copyOf(names, capacity);
            tags = Arrays.copyOf(tags, capacity);
            works = Arrays.copyOf(works, capacity);
            taskStreamStart = Arrays.copyOf(taskStreamStart, capacity + 1);
            depFirst = Arrays.copyOf(depFirst, capacity);
            depLast = Arrays.copyOf(depLast, capacity);
        }

        /** Streams declared so far. */
        public int streamCount() {
            return streams.size();
        }

        /** Stream {@code id} as declared. */
        public Stream streamAt(int id) {
            return streams.get(id);
        }

        /** The work of task {@code id}. */
        public Work work(int id) {
            if (id < 0 || id >= taskCount) {
                throw new IndexOutOfBoundsException("task " + id + " of " + taskCount);
            }
            return works[id];
        }

        /** The distinct streams tasks {@code first} (inclusive) to {@code end} occupy, in the order first met. */
        public int[] streamsOf(int first, int end) {
            checkRange(first, end);
            boolean[] seen = new boolean[streams.size()];
            IntList out = new IntList();
            for (int k = taskStreamStart[first]; k < taskStreamStart[end]; k++) {
                int s = taskStreams.data[k];
                if (!seen[s]) {
                    seen[s] = true;
                    out.add(s);
                }
            }
            return out.toArray();
        }

        /** Whether every dependency of tasks {@code first} to {@code end} (exclusive) lies among them. */
        public boolean selfContained(int first, int end) {
            checkRange(first, end);
            for (int id = first; id < end; id++) {
                for (int e = depFirst[id]; e >= 0; e = edgeNext.data[e]) {
                    int d = edgeTarget.data[e];
                    if (d < first || d >= end) {
                        return false;
                    }
                }
            }
            return true;
        }

        private void checkRange(int first, int end) {
            if (first < 0 || end > taskCount || first > end) {
                throw new IllegalArgumentException("tasks " + first + ".." + end + " of " + taskCount);
            }
        }

        /**
         * Appends a copy of tasks {@code first} to {@code end} (exclusive): a symmetric replica of
         * them on other streams. Each copy keeps its name, tag and compute work; its streams
         * are mapped through {@code streamMap} (indexed by stream id) and its communication work
         * through {@code workOf}; its dependencies, which must lie in the range
         * ({@link #selfContained}), point at the copies. Each new stream queue takes the copies in
         * the order the original stream's queue holds the originals (a {@link #resequence}
         * included), after whatever it held. The copy is what adding the same tasks one by one on
         * the mapped streams would build, without naming, interning and looking up every task again.
         *
         * @return the id of the copy of task {@code first} minus {@code first}
         * @throws IllegalArgumentException if a dependency leaves the range, a stream is not
         *         mapped, or another task follows the range on one of its streams
         */
        public int replicate(int first, int end, int[] streamMap, java.util.function.UnaryOperator<Work> workOf) {
            return replicate(first, end, List.of(streamMap), List.of(workOf))[0];
        }

        /**
         * Appends one copy of tasks {@code first} to {@code end} per entry of {@code streamMaps}
         * (its communication work through the same entry of {@code workOfs}): the graph
         * {@link #replicate(int, int, int[], java.util.function.UnaryOperator)} called for each in
         * turn would build, task for task and id for id. Each copy's rows lie in a range fixed in
         * advance, so when the copies map onto distinct streams and are many, they are filled side
         * by side on the common pool (a 16,384-GPU step with every replica simulated copies 127
         * replicas of 28,000 tasks, the largest part of its build); each {@code workOfs} entry is
         * called from one thread only.
         *
         * @return each copy's id offset, in order
         * @throws IllegalArgumentException as the single copy does, for any of the maps
         */
        public int[] replicate(int first, int end, List<int[]> streamMaps,
                               List<? extends java.util.function.UnaryOperator<Work>> workOfs) {
            return replicate(first, end, streamMaps, workOfs,
                    (long) streamMaps.size() * Math.max(0, end - first) >= PARALLEL_COPIES);
        }

        /** As {@link #replicate(int, int, List, List)}, filling the copies side by side if {@code parallel}. */
        int[] replicate(int first, int end, List<int[]> streamMaps,
                        List<? extends java.util.function.UnaryOperator<Work>> workOfs, boolean parallel) {
            if (streamMaps.size() != workOfs.size()) {
                throw new IllegalArgumentException(streamMaps.size() + " stream maps but " + workOfs.size()
                        + " work maps");
            }
            Range range = checkedRange(first, end);
            int copies = streamMaps.size();
            // per stream, SOURCE or the last copy that targets it (two copies sharing one queue in turn)
            int[] takenBy = new int[streams.size()];
            Arrays.fill(takenBy, FREE);
            for (int s : range.streams) {
                takenBy[s] = SOURCE;
            }
            boolean distinct = true;
            for (int c = 0; c < copies; c++) {
                int[] streamMap = streamMaps.get(c);
                for (int s : range.streams) {
                    // each stream onto one of its own: neither a source nor another's target
                    int to = s < streamMap.length ? streamMap[s] : -1;
                    if (to < 0 || to >= streams.size() || takenBy[to] == SOURCE || takenBy[to] == c) {
                        throw new IllegalArgumentException("stream " + s + " is not mapped to a stream of its own");
                    }
                    distinct &= takenBy[to] == FREE;
                    takenBy[to] = c;
                }
            }
            int[] queueFrom = new int[range.streams.length];
            int[] lastSourceSlot = new int[range.streams.length];
            for (int i = 0; i < range.streams.length; i++) {
                int s = range.streams[i];
                IntList q = streamQueues.get(s);
                if (q.size > 0 && q.data[q.size - 1] >= end) {
                    throw new IllegalArgumentException("task " + q.data[q.size - 1] + " follows the range on stream " + s);
                }
                int from = q.size;
                while (from > 0 && q.data[from - 1] >= first) {
                    from--;
                }
                queueFrom[i] = from;
                lastSourceSlot[i] = q.size == 0 ? -1 : slotOf(q.data[q.size - 1], s);
            }
            int[] offsets = new int[copies];
            if (!distinct) {
                // a later copy queues after an earlier one on some stream: one at a time, in order
                for (int c = 0; c < copies; c++) {
                    offsets[c] = replicate(first, end, streamMaps.subList(c, c + 1), workOfs.subList(c, c + 1),
                            false)[0];
                }
                return offsets;
            }
            int count = end - first;
            int firstSlot = taskStreamStart[first];
            int slots = taskStreamStart[end] - firstSlot;
            long tasksAfter = taskCount + (long) copies * count;
            long slotsAfter = taskStreams.size + (long) copies * slots;
            long edgesAfter = edgeTarget.size + (long) copies * range.edges;
            if (Math.max(tasksAfter, Math.max(slotsAfter, edgesAfter)) >= Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException(copies + " copies of " + count + " tasks are too many");
            }
            if (names.length < tasksAfter) {
                resizeTasks((int) Math.min(Integer.MAX_VALUE - 8, Math.max(tasksAfter, names.length * 2L)));
            }
            taskStreams.ensureRoom((int) (slotsAfter - taskStreams.size));
            nextOnStream.ensureRoom((int) (slotsAfter - nextOnStream.size));
            edgeTarget.ensureRoom((int) (edgesAfter - edgeTarget.size));
            edgeNext.ensureRoom((int) (edgesAfter - edgeNext.size));
            int taskBase = taskCount;
            int slotBase = taskStreams.size;
            int edgeBase = edgeTarget.size;
            for (int c = 0; c < copies; c++) {
                offsets[c] = taskBase + c * count - first;
            }
            java.util.function.IntConsumer fill = c -> copyRows(first, end, range, streamMaps.get(c), workOfs.get(c),
                    offsets[c], slotBase + c * slots - firstSlot, edgeBase + c * range.edges, queueFrom, lastSourceSlot);
            if (parallel && copies > 1) {
                java.util.stream.IntStream.range(0, copies).parallel().forEach(fill);
            } else {
                for (int c = 0; c < copies; c++) {
                    fill.accept(c);
                }
            }
            taskStreams.size = (int) slotsAfter;
            nextOnStream.size = (int) slotsAfter;
            edgeTarget.size = (int) edgesAfter;
            edgeNext.size = (int) edgesAfter;
            taskCount = (int) tasksAfter;
            return offsets;
        }

        /**
         * Writes one copy of tasks {@code first} to {@code end}: its rows at ids {@code offset}
         * on, slots {@code slotOffset} on and edges from {@code edge}, and its place in each target
         * stream's queue. Touches nothing another copy onto other streams touches.
         */
        private void copyRows(int first, int end, Range range, int[] streamMap, java.util.function.UnaryOperator<Work> workOf,
                              int offset, int slotOffset, int edge, int[] queueFrom, int[] lastSourceSlot) {
            int count = end - first;
            int firstSlot = taskStreamStart[first];
            int slots = taskStreamStart[end] - firstSlot;
            // whole rows at a time: a replica is copied a hundred times and more
            System.arraycopy(names, first, names, first + offset, count);
            System.arraycopy(tags, first, tags, first + offset, count);
            int[] stream = taskStreams.data;
            int[] next = nextOnStream.data;
            for (int k = firstSlot, endSlot = firstSlot + slots; k < endSlot; k++) {
                stream[k + slotOffset] = streamMap[stream[k]];
                // nothing follows the range on its streams, so each original's successor there is
                // another original (or none), and the copy's is that one's copy
                next[k + slotOffset] = next[k] < 0 ? -1 : next[k] + offset;
            }
            int[] target = edgeTarget.data;
            int[] chain = edgeNext.data;
            for (int id = first; id < end; id++) {
                int copy = id + offset;
                works[copy] = works[id] instanceof Work.Compute ? works[id] : workOf.apply(works[id]);
                taskStreamStart[copy + 1] = taskStreamStart[id + 1] + slotOffset;
                int last = -1;
                depFirst[copy] = -1;
                for (int e = depFirst[id]; e >= 0; e = chain[e]) {
                    target[edge] = target[e] + offset;
                    chain[edge] = -1;
                    if (last < 0) {
                        depFirst[copy] = edge;
                    } else {
                        chain[last] = edge;
                    }
                    last = edge++;
                }
                depLast[copy] = last;
            }
            for (int i = 0; i < range.streams.length; i++) {
                int s = range.streams[i];
                IntList q = streamQueues.get(s);
                int to = streamMap[s];
                int last = lastSlot.data[to];
                if (last >= 0) {
                    next[last] = q.data[queueFrom[i]] + offset;
                }
                lastSlot.data[to] = lastSourceSlot[i] + slotOffset;
                IntList copies = streamQueues.get(to);
                // grown once to its length, not doubled up to it from eight entries
                copies.reserve(q.size - queueFrom[i]);
                int[] into = copies.data;
                int at = copies.size;
                for (int p = queueFrom[i]; p < q.size; p++) {
                    into[at++] = q.data[p] + offset;
                }
                copies.size = at;
            }
        }

        /**
         * Makes room for {@code copies} {@link #replicate copies} of tasks {@code first} to
         * {@code end} at once, and an eighth more for tasks added after them. Copying a replica
         * at a time otherwise grows every per-task and per-slot array by doubling, tens of times
         * over for thousands of replicas: a gigabyte of copied arrays for a 16,384-GPU step.
         *
         * @throws IllegalArgumentException as {@link #replicate} does for the range
         */
        public void reserveCopies(int first, int end, int copies) {
            if (copies < 0) {
                throw new IllegalArgumentException(copies + " copies");
            }
            Range range = checkedRange(first, end);
            long tasks = taskCount + (long) copies * (end - first);
            long slots = taskStreams.size + (long) copies * (taskStreamStart[end] - taskStreamStart[first]);
            long edges = edgeTarget.size + (long) copies * range.edges;
            if (Math.max(tasks, Math.max(slots, edges)) * 9 / 8 >= Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException(copies + " copies of " + (end - first) + " tasks are too many");
            }
            int taskRoom = (int) (tasks + tasks / 8);
            if (taskRoom > names.length) {
                resizeTasks(taskRoom);
            }
            taskStreams.reserve((int) (slots + slots / 8) - taskStreams.size);
            nextOnStream.reserve((int) (slots + slots / 8) - nextOnStream.size);
            edgeTarget.reserve((int) (edges + edges / 8) - edgeTarget.size);
            edgeNext.reserve((int) (edges + edges / 8) - edgeNext.size);
        }

        /**
         * Tasks first..end checked for {@link #replicate}: their streams, first met first, and their
         * dependency count. Kept for the next call on the same range (a replica is copied many
         * times); a dependency added to one of its tasks drops it.
         */
        private record Range(int first, int end, int[] streams, int edges) {
        }

        private Range checked;
        /** In {@link #replicate(int, int, List, List)}: a stream no copy targets yet, and one of the range's own. */
        private static final int FREE = -1;
        private static final int SOURCE = -2;

        private Range checkedRange(int first, int end) {
            if (checked != null && checked.first == first && checked.end == end) {
                return checked;
            }
            if (!selfContained(first, end)) {
                throw new IllegalArgumentException("tasks " + first + ".." + end + " wait for tasks outside them");
            }
            int edges = 0;
            for (int id = first; id < end; id++) {
                for (int e = depFirst[id]; e >= 0; e = edgeNext.data[e]) {
                    edges++;
                }
            }
            checked = new Range(first, end, streamsOf(first, end), edges);
            return checked;
        }

        private void link(int task, int dependency) {
            if (checked != null && task >= checked.first && task < checked.end) {
                checked = null;
            }
            int edge = edgeTarget.size;
            edgeTarget.add(dependency);
            edgeNext.add(-1);
            if (depLast[task] < 0) {
                depFirst[task] = edge;
            } else {
                edgeNext.data[depLast[task]] = edge;
            }
            depLast[task] = edge;
        }

        /** Whether task {@code id} is compute work. */
        public boolean isCompute(int id) {
            if (id < 0 || id >= taskCount) {
                throw new IndexOutOfBoundsException("task " + id + " of " + taskCount);
            }
            return works[id] instanceof Work.Compute;
        }

        /**
         * Re-sequences the most recent tasks, {@code first} onwards, on every stream they occupy:
         * they keep their streams and dependencies, but each stream now takes them in the order
         * {@code order} lists them. Applying one order to every stream keeps the graph free of
         * stream deadlocks as long as {@code order} respects the dependencies among these tasks.
         * Used to interleave two independent chains, such as the forward and backward of an
         * overlapped pipeline pair, so that one's communication runs under the other's compute.
         *
         * @param order every task id from {@code first} to the last, each once
         */
        public void resequence(int first, int[] order) {
            int n = taskCount - first;
            if (order.length != n) {
                throw new IllegalArgumentException("expected an order of " + n + " tasks, got " + order.length);
            }
            int[] position = new int[n];
            Arrays.fill(position, -1);
            for (int i = 0; i < n; i++) {
                int id = order[i] - first;
                if (id < 0 || id >= n || position[id] >= 0) {
                    throw new IllegalArgumentException("not a permutation of tasks " + first + ".." + (first + n - 1));
                }
                position[id] = i;
            }
            java.util.Set<Integer> touched = new java.util.TreeSet<>();
            for (int id = first; id < taskCount; id++) {
                for (int k = taskStreamStart[id]; k < taskStreamStart[id + 1]; k++) {
                    touched.add(taskStreams.data[k]);
                }
            }
            for (int stream : touched) {
                IntList list = streamQueues.get(stream);
                int from = list.size;
                while (from > 0 && list.data[from - 1] >= first) {
                    from--;
                }
                // positions are distinct, so sorting them and reading the tasks back from order
                // sorts the tasks by position (a primitive sort: no boxed ids through the shared
                // TimSort, whose compiled code other callers' element types keep deoptimising)
                int[] positions = new int[list.size - from];
                for (int i = 0; i < positions.length; i++) {
                    positions[i] = position[list.data[from + i] - first];
                }
                Arrays.sort(positions);
                for (int i = 0; i < positions.length; i++) {
                    list.data[from + i] = order[positions[i]];
                }
                relinkQueue(stream, list, from);
            }
        }

        /** Points each task of a stream's queue from position {@code from - 1} on at the one after it. */
        private void relinkQueue(int stream, IntList queue, int from) {
            int before = from > 0 ? slotOf(queue.data[from - 1], stream) : -1;
            for (int p = from; p < queue.size; p++) {
                int slot = slotOf(queue.data[p], stream);
                if (before >= 0) {
                    nextOnStream.data[before] = queue.data[p];
                }
                before = slot;
            }
            nextOnStream.data[before] = -1;
            lastSlot.data[stream] = before;
        }

        /** Where {@code stream} stands in the row of streams of {@code task}. */
        private int slotOf(int task, int stream) {
            int k = taskStreamStart[task];
            while (taskStreams.data[k] != stream) {
                k++;
            }
            return k;
        }

        /** Makes {@code task} wait for {@code dependency} as well; either may be any task of the graph. */
        public void addDependency(int task, int dependency) {
            if (task < 0 || task >= taskCount) {
                throw new IllegalArgumentException("unknown task " + task);
            }
            link(task, dependency);
        }

        /**
         * The first task numbered {@code fromTask} or later queued on stream {@code name} of
         * {@code device}; -1 if there is none or no such stream.
         */
        public int firstTaskFrom(int device, String name, int fromTask) {
            Integer stream = device < 0 || device >= streamsByDevice.size() ? null
                    : streamsByDevice.get(device).get(name);
            if (stream == null) {
                return -1;
            }
            IntList list = streamQueues.get(stream);
            for (int i = 0; i < list.size; i++) {
                if (list.data[i] >= fromTask) {
                    return list.data[i];
                }
            }
            return -1;
        }

        /** Number of tasks added so far. */
        public int taskCount() {
            return taskCount;
        }

        public TaskGraph build() {
            int n = taskCount;
            int[] depStart = new int[n + 1];
            int[] deps = new int[edgeTarget.size];
            int k = 0;
            for (int id = 0; id < n; id++) {
                depStart[id] = k;
                for (int e = depFirst[id]; e >= 0; e = edgeNext.data[e]) {
                    int d = edgeTarget.data[e];
                    if (d < 0 || d >= n || d == id) {
                        throw new IllegalArgumentException("task " + (names[id] != null ? names[id]
                                : tagTable.get(tags[id]).category() + " " + id) + " depends on task " + d
                                + ", which is itself or not in the graph");
                    }
                    deps[k++] = d;
                }
            }
            depStart[n] = k;
            int[] streamTaskStart = new int[streamQueues.size() + 1];
            for (int s = 0; s < streamQueues.size(); s++) {
                streamTaskStart[s + 1] = streamTaskStart[s] + streamQueues.get(s).size;
            }
            int[] streamTasks = new int[streamTaskStart[streamQueues.size()]];
            for (int s = 0; s < streamQueues.size(); s++) {
                IntList q = streamQueues.get(s);
                System.arraycopy(q.data, 0, streamTasks, streamTaskStart[s], q.size);
            }
            return new TaskGraph(this, depStart, deps, streamTaskStart, streamTasks);
        }
    }

    /** A growable int array, to keep per-stream task lists unboxed. */
    private static final class IntList {
        private int[] data = new int[8];
        private int size;

        void add(int v) {
            if (size == data.length) {
                data = Arrays.copyOf(data, size * 2);
            }
            data[size++] = v;
        }

        /** Room for {@code more} further values: doubled (or more, if that is short) when it has less. */
        void ensureRoom(int more) {
            if (size + more > data.length) {
                data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 8,
                        Math.max((long) size + more, 2L * data.length)));
            }
        }

        /** Room for at least {@code more} further values: grown to exactly that if it has less. */
        void reserve(int more) {
            if (size + more > data.length) {
                data = Arrays.copyOf(data, size + more);
            }
        }

        int[] toArray() {
            return Arrays.copyOf(data, size);
        }
    }
}

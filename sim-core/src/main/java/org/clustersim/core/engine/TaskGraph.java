package org.clustersim.core.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything one simulated step will run: devices, their streams, and the tasks with their
 * stream order and dependencies. Immutable once built; the engine keeps run state elsewhere.
 */
public final class TaskGraph {
    private final List<DeviceInfo> devices;
    private final List<Stream> streams;
    private final List<Task> tasks;
    private final int[][] streamTasks;
    private final int[][] dependents;

    private TaskGraph(List<DeviceInfo> devices, List<Stream> streams, List<Task> tasks, int[][] streamTasks,
                      int[][] dependents) {
        this.devices = List.copyOf(devices);
        this.streams = List.copyOf(streams);
        this.tasks = List.copyOf(tasks);
        this.streamTasks = streamTasks;
        this.dependents = dependents;
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<DeviceInfo> devices() {
        return devices;
    }

    public List<Stream> streams() {
        return streams;
    }

    public int taskCount() {
        return tasks.size();
    }

    public Task task(int id) {
        return tasks.get(id);
    }

    public Stream stream(int id) {
        return streams.get(id);
    }

    /** Number of tasks queued on a stream. */
    public int streamLength(int stream) {
        return streamTasks[stream].length;
    }

    /** The task at position {@code position} of a stream. */
    public int streamTask(int stream, int position) {
        return streamTasks[stream][position];
    }

    /** Number of tasks that wait for task {@code id}. */
    public int dependentCount(int id) {
        return dependents[id].length;
    }

    /** The i-th task that waits for task {@code id}. */
    public int dependent(int id, int i) {
        return dependents[id][i];
    }

    /**
     * Assembles a task graph. A dependency may name a task added later (through
     * {@link #addDependency}); cycles are not rejected here but show up as a deadlock when the
     * engine runs the graph, with a report of what waits for what.
     */
    public static final class Builder {
        private final List<DeviceInfo> devices = new ArrayList<>();
        private final List<Stream> streams = new ArrayList<>();
        private final Map<String, Integer> streamByKey = new HashMap<>();
        private final List<IntList> streamTasks = new ArrayList<>();
        private final List<IntList> taskDeps = new ArrayList<>();
        private final List<PendingTask> pending = new ArrayList<>();

        private Builder() {
        }

        /** Declares the next device; devices must be declared in index order. */
        public int device(String name, int node) {
            int index = devices.size();
            devices.add(new DeviceInfo(index, name, node));
            return index;
        }

        /** The stream of that name on that device, created on first use. */
        public int stream(int device, String name, StreamKind kind) {
            if (device < 0 || device >= devices.size()) {
                throw new IllegalArgumentException("unknown device " + device);
            }
            String key = device + "/" + name;
            Integer existing = streamByKey.get(key);
            if (existing != null) {
                Stream s = streams.get(existing);
                if (s.kind() != kind) {
                    throw new IllegalArgumentException("stream " + key + " already exists as " + s.kind());
                }
                return existing;
            }
            int id = streams.size();
            streams.add(new Stream(id, device, name, kind));
            streamTasks.add(new IntList());
            streamByKey.put(key, id);
            return id;
        }

        /** Appends a compute task to a stream. */
        public int compute(String name, String category, int stream, long durationNs, double flops, int... deps) {
            return add(name, category, new Work.Compute(durationNs, flops), new int[] {stream}, deps);
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
            return add(name, category, new Work.Compute(durationNs, flops, ops), computeStreams.clone(), new int[0]);
        }

        /** Appends a communication task to each of the given streams (one per participating device). */
        public int communicate(String name, String category, int[] streamIds, Work.Communication comm, int... deps) {
            return add(name, category, comm, streamIds.clone(), deps);
        }

        private int add(String name, String category, Work work, int[] taskStreams, int[] deps) {
            int id = pending.size();
            if (taskStreams.length == 0) {
                throw new IllegalArgumentException("task " + name + " occupies no stream");
            }
            for (int i = 0; i < taskStreams.length; i++) {
                int s = taskStreams[i];
                if (s < 0 || s >= streams.size()) {
                    throw new IllegalArgumentException("task " + name + ": unknown stream " + s);
                }
                for (int j = 0; j < i; j++) {
                    if (taskStreams[j] == s) {
                        throw new IllegalArgumentException("task " + name + " occupies stream " + s + " twice");
                    }
                }
            }
            pending.add(new PendingTask(name, category, work, taskStreams));
            IntList depList = new IntList();
            for (int d : deps) {
                depList.add(d);
            }
            taskDeps.add(depList);
            for (int s : taskStreams) {
                streamTasks.get(s).add(id);
            }
            return id;
        }

        /** Whether task {@code id} is compute work. */
        public boolean isCompute(int id) {
            return pending.get(id).work() instanceof Work.Compute;
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
            int n = pending.size() - first;
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
            for (int id = first; id < pending.size(); id++) {
                for (int stream : pending.get(id).streams()) {
                    touched.add(stream);
                }
            }
            for (int stream : touched) {
                IntList list = streamTasks.get(stream);
                int from = list.size;
                while (from > 0 && list.data[from - 1] >= first) {
                    from--;
                }
                Integer[] tail = new Integer[list.size - from];
                for (int i = 0; i < tail.length; i++) {
                    tail[i] = list.data[from + i];
                }
                Arrays.sort(tail, java.util.Comparator.comparingInt(id -> position[id - first]));
                for (int i = 0; i < tail.length; i++) {
                    list.data[from + i] = tail[i];
                }
            }
        }

        /** Makes {@code task} wait for {@code dependency} as well; either may be any task of the graph. */
        public void addDependency(int task, int dependency) {
            if (task < 0 || task >= pending.size()) {
                throw new IllegalArgumentException("unknown task " + task);
            }
            taskDeps.get(task).add(dependency);
        }

        /**
         * The first task numbered {@code fromTask} or later queued on stream {@code name} of
         * {@code device}; -1 if there is none or no such stream.
         */
        public int firstTaskFrom(int device, String name, int fromTask) {
            Integer stream = streamByKey.get(device + "/" + name);
            if (stream == null) {
                return -1;
            }
            IntList list = streamTasks.get(stream);
            for (int i = 0; i < list.size; i++) {
                if (list.data[i] >= fromTask) {
                    return list.data[i];
                }
            }
            return -1;
        }

        /** Number of tasks added so far. */
        public int taskCount() {
            return pending.size();
        }

        public TaskGraph build() {
            List<Task> tasks = new ArrayList<>(pending.size());
            for (int id = 0; id < pending.size(); id++) {
                PendingTask p = pending.get(id);
                int[] deps = taskDeps.get(id).toArray();
                for (int d : deps) {
                    if (d < 0 || d >= pending.size() || d == id) {
                        throw new IllegalArgumentException("task " + p.name() + " depends on task " + d
                                + ", which is itself or not in the graph");
                    }
                }
                tasks.add(new Task(id, p.name(), p.category(), p.work(), p.streams(), deps));
            }
            int[][] perStream = new int[streamTasks.size()][];
            for (int s = 0; s < perStream.length; s++) {
                perStream[s] = streamTasks.get(s).toArray();
            }
            int[] counts = new int[tasks.size()];
            for (Task t : tasks) {
                for (int i = 0; i < t.depCount(); i++) {
                    counts[t.dep(i)]++;
                }
            }
            int[][] dependents = new int[tasks.size()][];
            for (int i = 0; i < dependents.length; i++) {
                dependents[i] = new int[counts[i]];
            }
            Arrays.fill(counts, 0);
            for (Task t : tasks) {
                for (int i = 0; i < t.depCount(); i++) {
                    int d = t.dep(i);
                    dependents[d][counts[d]++] = t.id();
                }
            }
            return new TaskGraph(devices, streams, tasks, perStream, dependents);
        }
    }

    private record PendingTask(String name, String category, Work work, int[] streams) {
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

        int[] toArray() {
            return Arrays.copyOf(data, size);
        }
    }
}

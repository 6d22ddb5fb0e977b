package org.clustersim.core.engine;

import java.util.Arrays;

import org.clustersim.core.kernel.SimKernel;
import org.clustersim.core.kernel.SimulationException;

/**
 * Executes a {@link TaskGraph} on a {@link SimKernel}: starts each task as soon as it heads
 * all of its streams and its dependencies are done, runs compute for its duration and hands
 * communication phases to the {@link Network}, and records every task's start and end.
 *
 * <p>Starting a task costs no kernel event; each compute task costs one event (its end) and
 * each communication phase as many as the network needs, so the event count is proportional
 * to tasks and flows.
 *
 * <p>With an {@link Interference} other than none, a communication task in flight takes its
 * share of its devices' compute throughput: the compute tasks running there are re-rated when
 * it starts and when it ends (their work left is settled at the old rate, a new end event is
 * scheduled and the old one goes stale), so a kernel overlapped with communication stretches by
 * exactly the time it ran beside it. The time so lost is recorded per compute task.
 */
public final class Engine {
    /** The most compute share all communication together can take: compute keeps a tenth of its rate. */
    static final double MAX_DRAG = 0.9;

    private final TaskGraph graph;
    private final SimKernel kernel;
    private final Network network;
    private final Counters counters;
    private final DeviceSpeeds speeds;
    private final Interference interference;
    /** Per device: the summed compute share of the communication in flight there. */
    private final double[] drag;
    /** Per device: the compute tasks running there (ids), with their count. */
    private final int[][] running;
    private final int[] runningCount;
    /** Per compute task, while interference is on: nominal work left (ns at speed 1), rate, since when, version. */
    private final double[] left;
    private final double[] rate;
    private final double[] base;
    private final long[] since;
    private final int[] version;
    /** Per compute task: ns lost to interference (null while interference is off). */
    private final double[] lost;
    /** Per task: the compute share a communication task took when it started. */
    private final double[] share;
    /** Marks for collecting each affected compute task once per change. */
    private final int[] mark;
    private int epoch;
    private final int[] affected;

    private final int[] missingDeps;
    private final int[] headsReached;
    private final int[] cursor;
    private final long[] start;
    private final long[] end;
    private int finished;

    /**
     * @param counters where the network (and later memory accounting) records counter tracks;
     *                 handed on to the timeline
     */
    public Engine(TaskGraph graph, SimKernel kernel, Network network, Counters counters) {
        this(graph, kernel, network, counters, new DeviceSpeeds(graph.devices().size()));
    }

    /** @param speeds each device's compute speed, read when a compute task starts */
    public Engine(TaskGraph graph, SimKernel kernel, Network network, Counters counters, DeviceSpeeds speeds) {
        this(graph, kernel, network, counters, speeds, Interference.NONE);
    }

    /** @param interference what each communication task takes from its devices' compute while in flight */
    public Engine(TaskGraph graph, SimKernel kernel, Network network, Counters counters, DeviceSpeeds speeds,
                  Interference interference) {
        this.speeds = speeds;
        this.interference = interference;
        this.graph = graph;
        this.kernel = kernel;
        this.network = network;
        this.counters = counters;
        int n = graph.taskCount();
        missingDeps = new int[n];
        headsReached = new int[n];
        cursor = new int[graph.streams().size()];
        start = new long[n];
        end = new long[n];
        Arrays.fill(start, -1);
        Arrays.fill(end, -1);
        for (int t = 0; t < n; t++) {
            missingDeps[t] = graph.task(t).depCount();
        }
        if (interference != Interference.NONE) {
            int devices = graph.devices().size();
            drag = new double[devices];
            running = new int[devices][2];
            runningCount = new int[devices];
            left = new double[n];
            rate = new double[n];
            base = new double[n];
            since = new long[n];
            version = new int[n];
            lost = new double[n];
            share = new double[n];
            mark = new int[n];
            affected = new int[n];
        } else {
            drag = null;
            running = null;
            runningCount = null;
            left = null;
            rate = null;
            base = null;
            since = null;
            version = null;
            lost = null;
            share = null;
            mark = null;
            affected = null;
        }
    }

    /**
     * Runs the whole graph.
     *
     * @return the recorded timeline
     * @throws DeadlockException if the kernel runs dry while tasks remain
     * @throws SimulationException if a task's execution fails
     */
    public Timeline run() {
        for (int s = 0; s < cursor.length; s++) {
            if (graph.streamLength(s) > 0) {
                arrive(graph.streamTask(s, 0));
            }
        }
        long events = kernel.run();
        if (finished < graph.taskCount()) {
            throw DeadlockException.describe(graph, cursor, end, missingDeps, headsReached, kernel.now());
        }
        return new Timeline(graph, start, end, events, counters, lost);
    }

    private void arrive(int task) {
        if (++headsReached[task] == graph.task(task).streamCount() && missingDeps[task] == 0) {
            begin(task);
        }
    }

    private void dependencyDone(int task) {
        if (--missingDeps[task] == 0 && headsReached[task] == graph.task(task).streamCount()) {
            begin(task);
        }
    }

    private void begin(int id) {
        Task task = graph.task(id);
        long now = kernel.now();
        start[id] = now;
        Work work = task.work();
        if (work instanceof Work.Compute c) {
            if (drag == null) {
                kernel.schedule(now + duration(task, c), () -> finish(id));
            } else {
                beginInterfered(id, task, c, now);
            }
        } else if (work instanceof Work.Communication comm) {
            if (drag != null) {
                double s = interference.computeShare(task);
                if (s > 0) {
                    share[id] = s;
                    changeDrag(task, s);
                }
            }
            runPhase(id, comm, 0);
        }
    }

    /** Starts a compute task whose rate may change while it runs. */
    private void beginInterfered(int id, Task task, Work.Compute c, long now) {
        double b = 1.0;
        if (!speeds.allNominal()) {
            b = Double.MAX_VALUE;
            for (int i = 0; i < task.streamCount(); i++) {
                b = Math.min(b, speeds.of(device(task, i)));
            }
        }
        base[id] = b;
        left[id] = c.durationNs();
        since[id] = now;
        rate[id] = b * (1 - dragOn(task));
        for (int i = 0; i < task.streamCount(); i++) {
            int d = device(task, i);
            if (runningCount[d] == running[d].length) {
                running[d] = Arrays.copyOf(running[d], running[d].length * 2);
            }
            running[d][runningCount[d]++] = id;
        }
        long at = rate[id] == b ? now + duration(task, c) : now + (long) Math.ceil(left[id] / rate[id]);
        scheduleEnd(id, at);
    }

    private void scheduleEnd(int id, long at) {
        int v = version[id];
        kernel.schedule(at, () -> {
            if (version[id] == v) {
                finishInterfered(id);
            }
        });
    }

    private void finishInterfered(int id) {
        Task task = graph.task(id);
        long now = kernel.now();
        lost[id] += (now - since[id]) * (1 - rate[id] / base[id]);
        for (int i = 0; i < task.streamCount(); i++) {
            int d = device(task, i);
            int[] list = running[d];
            for (int k = 0; k < runningCount[d]; k++) {
                if (list[k] == id) {
                    list[k] = list[--runningCount[d]];
                    break;
                }
            }
        }
        finish(id);
    }

    /** The compute share taken on a task's most burdened device, capped so compute always progresses. */
    private double dragOn(Task task) {
        double most = 0;
        for (int i = 0; i < task.streamCount(); i++) {
            most = Math.max(most, drag[device(task, i)]);
        }
        return Math.min(most, MAX_DRAG);
    }

    /** Adds {@code delta} to the drag of every device of a communication task and re-rates the compute running there. */
    private void changeDrag(Task comm, double delta) {
        int count = 0;
        epoch++;
        for (int i = 0; i < comm.streamCount(); i++) {
            int d = device(comm, i);
            drag[d] += delta;
            if (Math.abs(drag[d]) < 1e-12) {
                drag[d] = 0;
            }
            for (int k = 0; k < runningCount[d]; k++) {
                int t = running[d][k];
                if (mark[t] != epoch) {
                    mark[t] = epoch;
                    affected[count++] = t;
                }
            }
        }
        long now = kernel.now();
        for (int k = 0; k < count; k++) {
            int t = affected[k];
            double next = base[t] * (1 - dragOn(graph.task(t)));
            if (next == rate[t]) {
                continue;
            }
            left[t] = Math.max(0, left[t] - (now - since[t]) * rate[t]);
            lost[t] += (now - since[t]) * (1 - rate[t] / base[t]);
            since[t] = now;
            rate[t] = next;
            version[t]++;
            scheduleEnd(t, now + (long) Math.ceil(left[t] / next));
        }
    }

    private int device(Task task, int i) {
        return graph.streams().get(task.stream(i)).device();
    }

    /** A compute task's duration at the speed of its slowest device. */
    private long duration(Task task, Work.Compute c) {
        if (speeds.allNominal()) {
            return c.durationNs();
        }
        double slowest = Double.MAX_VALUE;
        for (int i = 0; i < task.streamCount(); i++) {
            slowest = Math.min(slowest, speeds.of(graph.streams().get(task.stream(i)).device()));
        }
        return slowest == 1.0 ? c.durationNs() : (long) Math.ceil(c.durationNs() / slowest);
    }

    private void runPhase(int id, Work.Communication comm, int phase) {
        try {
            network.transfer(graph.task(id).name(), comm.phases().get(phase), () -> {
                if (phase + 1 < comm.phases().size()) {
                    runPhase(id, comm, phase + 1);
                } else {
                    finish(id);
                }
            });
        } catch (SimulationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SimulationException(kernel.now(), "task '" + graph.task(id).name() + "'", e);
        }
    }

    private void finish(int id) {
        end[id] = kernel.now();
        if (share != null && share[id] > 0) {
            changeDrag(graph.task(id), -share[id]);
        }
        finished++;
        Task task = graph.task(id);
        for (int i = 0; i < task.streamCount(); i++) {
            int s = task.stream(i);
            int next = ++cursor[s];
            if (next < graph.streamLength(s)) {
                arrive(graph.streamTask(s, next));
            }
        }
        for (int i = 0, n = graph.dependentCount(id); i < n; i++) {
            dependencyDone(graph.dependent(id, i));
        }
    }
}

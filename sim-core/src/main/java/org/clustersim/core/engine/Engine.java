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
 * exactly the time it ran beside it ({@link ComputeRates}). The time so lost is recorded per
 * compute task.
 */
public final class Engine {
    /** The graph as given: what the timeline reports on. */
    private final TaskGraph given;
    /**
     * The same graph numbered in {@link DepthOrder}, which the run works on: tasks that run
     * together sit together in every per-task array. {@code givenId[i]} is task i's id in
     * {@link #given}; every list keeps its order, so tasks are released exactly as on the given
     * graph.
     */
    private final TaskGraph graph;
    private final int[] givenId;
    private final SimKernel kernel;
    private final Network network;
    private final Counters counters;
    private final DeviceSpeeds speeds;
    private final Interference interference;
    /** The running compute tasks' rates under interference; null while interference is off. */
    private final ComputeRates rates;

    /**
     * Per task, what it still waits for: dependencies not finished plus streams whose head it has
     * not reached. One counter, not two beside the stream count: a task's release reads one array.
     */
    private final int[] waiting;
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
    public Engine(TaskGraph given, SimKernel kernel, Network network, Counters counters, DeviceSpeeds speeds,
                  Interference interference) {
        this.speeds = speeds;
        this.interference = interference;
        this.given = given;
        DepthOrder.Numbering numbering = DepthOrder.numbering(given);
        this.givenId = numbering.order();
        this.graph = given.renumbered(givenId, numbering.newId());
        this.kernel = kernel;
        this.network = network;
        this.counters = counters;
        int n = graph.taskCount();
        waiting = new int[n];
        cursor = new int[graph.streams().size()];
        start = new long[n];
        end = new long[n];
        Arrays.fill(start, -1);
        Arrays.fill(end, -1);
        for (int t = 0; t < n; t++) {
            waiting[t] = graph.depCount(t) + graph.streamCount(t);
        }
        rates = interference == Interference.NONE ? null
                : new ComputeRates(graph, kernel, speeds, this::finish);
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
                release(graph.streamTask(s, 0));
            }
        }
        long events = kernel.run();
        if (finished < graph.taskCount()) {
            throw DeadlockException.describe(graph, cursor, end, kernel.now());
        }
        return new Timeline(given, inGivenOrder(start), inGivenOrder(end), events, counters,
                rates == null ? null : inGivenOrder(rates.lost()));
    }

    private long[] inGivenOrder(long[] values) {
        long[] out = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            out[givenId[i]] = values[i];
        }
        return out;
    }

    private double[] inGivenOrder(double[] values) {
        double[] out = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            out[givenId[i]] = values[i];
        }
        return out;
    }

    /** A task reached the head of one of its streams, or one of its dependencies finished. */
    private void release(int task) {
        if (--waiting[task] == 0) {
            begin(task);
        }
    }

    private void begin(int id) {
        long now = kernel.now();
        start[id] = now;
        Work work = graph.work(id);
        if (work instanceof Work.Compute c) {
            // a copy engine's copy takes no SMs: kernels beside it do not slow it
            if (rates == null || copyEngine(id)) {
                kernel.schedule(now + duration(id, c), () -> finish(id));
            } else {
                rates.begin(id, c, now + duration(id, c));
            }
        } else if (work instanceof Work.Communication comm) {
            double share = 0;
            if (rates != null) {
                share = interference.computeShare(graph.task(id));
                rates.communicationStarts(id, share);
            }
            runPhase(id, comm, 0, share);
        }
    }

    /** Whether compute task {@code id} is a copy engine's copy (no SMs: interference leaves it alone). */
    private boolean copyEngine(int id) {
        return graph.tag(id).transport() == TaskTag.Transport.COPY_ENGINE;
    }

    /** A compute task's duration at the speed of its slowest device. */
    private long duration(int id, Work.Compute c) {
        if (speeds.allNominal()) {
            return c.durationNs();
        }
        double slowest = Double.MAX_VALUE;
        for (int i = 0, n = graph.streamCount(id); i < n; i++) {
            slowest = Math.min(slowest, speeds.of(graph.streamDevice(graph.taskStream(id, i))));
        }
        return slowest == 1.0 ? c.durationNs() : (long) Math.ceil(c.durationNs() / slowest);
    }

    /** @param share the compute share the task took when it started, given back when it ends */
    private void runPhase(int id, Work.Communication comm, int phase, double share) {
        try {
            network.transfer(graph.name(id), comm.phases().get(phase), () -> {
                if (phase + 1 < comm.phases().size()) {
                    runPhase(id, comm, phase + 1, share);
                } else {
                    if (rates != null) {
                        rates.communicationEnds(id, share);
                    }
                    finish(id);
                }
            });
        } catch (SimulationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new SimulationException(kernel.now(), "task '" + graph.name(id) + "'", e);
        }
    }

    /** Task {@code id} has ended (its compute rates, if any, are settled already): release what waits for it. */
    private void finish(int id) {
        end[id] = kernel.now();
        finished++;
        for (int i = 0, n = graph.streamCount(id); i < n; i++) {
            cursor[graph.taskStream(id, i)]++;
            int next = graph.nextOnStream(id, i);
            if (next >= 0) {
                release(next);
            }
        }
        for (int i = 0, n = graph.dependentCount(id); i < n; i++) {
            release(graph.dependent(id, i));
        }
    }
}

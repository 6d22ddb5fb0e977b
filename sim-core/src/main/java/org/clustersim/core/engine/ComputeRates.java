package org.clustersim.core.engine;

import java.util.Arrays;
import java.util.function.IntConsumer;

import org.clustersim.core.kernel.SimKernel;

/**
 * The rates of the compute tasks running on each GPU while communication shares it ({@link
 * Interference}): a compute task runs at its devices' speed times (1 - the summed compute share of
 * the communication in flight on its most burdened device). When a communication task starts or
 * ends, the compute tasks on its devices have their work left settled at the old rate and a new
 * end scheduled; the kernel cannot cancel events, so each end carries a version and a stale one
 * does nothing. The time each compute task loses against running alone is kept.
 */
final class ComputeRates {
    /** The most compute share all communication together can take: compute keeps a tenth of its rate. */
    static final double MAX_DRAG = 0.9;

    private final TaskGraph graph;
    private final SimKernel kernel;
    private final DeviceSpeeds speeds;
    private final IntConsumer onEnd;
    /** Per device: the summed compute share of the communication in flight there. */
    private final double[] drag;
    /** Per device: the compute tasks running there (ids), with their count. */
    private final int[][] running;
    private final int[] runningCount;
    /** Per compute task: nominal work left (ns at speed 1), current and own rate, since when, version. */
    private final double[] left;
    private final double[] rate;
    private final double[] base;
    private final long[] since;
    private final int[] version;
    /** Per compute task: ns lost to communication beside it. */
    private final double[] lost;
    /** Per communication task: the compute share it took when it started. */
    private final double[] share;
    /** Marks for collecting each affected compute task once per change. */
    private final int[] mark;
    private final int[] affected;
    private int epoch;

    /** @param onEnd what to run when a compute task's current end comes */
    ComputeRates(TaskGraph graph, SimKernel kernel, DeviceSpeeds speeds, IntConsumer onEnd) {
        this.graph = graph;
        this.kernel = kernel;
        this.speeds = speeds;
        this.onEnd = onEnd;
        int n = graph.taskCount();
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
    }

    /** Per task, ns lost to communication beside it (0 for communication tasks). */
    double[] lost() {
        return lost;
    }

    /**
     * Starts compute task {@code id} now.
     *
     * @param aloneEnd when it would end at its devices' own speed, undisturbed
     */
    void begin(int id, Work.Compute c, long aloneEnd) {
        int streams = graph.streamCount(id);
        long now = kernel.now();
        double b = 1.0;
        if (!speeds.allNominal()) {
            b = Double.MAX_VALUE;
            for (int i = 0; i < streams; i++) {
                b = Math.min(b, speeds.of(device(id, i)));
            }
        }
        base[id] = b;
        left[id] = c.durationNs();
        since[id] = now;
        rate[id] = b * (1 - dragOn(id));
        for (int i = 0; i < streams; i++) {
            int d = device(id, i);
            if (runningCount[d] == running[d].length) {
                running[d] = Arrays.copyOf(running[d], running[d].length * 2);
            }
            running[d][runningCount[d]++] = id;
        }
        scheduleEnd(id, rate[id] == b ? aloneEnd : now + (long) Math.ceil(left[id] / rate[id]));
    }

    /** Communication task {@code id} starts, taking {@code computeShare} of its devices' compute. */
    void communicationStarts(int id, double computeShare) {
        if (computeShare > 0) {
            share[id] = computeShare;
            changeDrag(id, computeShare);
        }
    }

    /** Task {@code id} has ended: a compute task leaves its devices, a communication task gives its share back. */
    void finished(int id) {
        if (graph.isCompute(id)) {
            lost[id] += (kernel.now() - since[id]) * (1 - rate[id] / base[id]);
            for (int i = 0, n = graph.streamCount(id); i < n; i++) {
                int d = device(id, i);
                int[] list = running[d];
                for (int k = 0; k < runningCount[d]; k++) {
                    if (list[k] == id) {
                        list[k] = list[--runningCount[d]];
                        break;
                    }
                }
            }
        } else if (share[id] > 0) {
            changeDrag(id, -share[id]);
        }
    }

    private void scheduleEnd(int id, long at) {
        int v = version[id];
        kernel.schedule(at, () -> {
            if (version[id] == v) {
                onEnd.accept(id);
            }
        });
    }

    /** The compute share taken on a task's most burdened device, capped so compute always progresses. */
    private double dragOn(int task) {
        double most = 0;
        for (int i = 0, n = graph.streamCount(task); i < n; i++) {
            most = Math.max(most, drag[device(task, i)]);
        }
        return Math.min(most, MAX_DRAG);
    }

    /** Adds {@code delta} to the drag of every device of a communication task and re-rates the compute there. */
    private void changeDrag(int comm, double delta) {
        int count = 0;
        epoch++;
        for (int i = 0, n = graph.streamCount(comm); i < n; i++) {
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
            double next = base[t] * (1 - dragOn(t));
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

    private int device(int task, int i) {
        return graph.streamDevice(graph.taskStream(task, i));
    }
}

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
 *
 * <p>A communication task's share comes back with its end ({@link #communicationEnds}) and a
 * compute task's end event knows its slot: nothing here is read per task when a task ends (a
 * per-task array read at every end was a cache miss each on the largest runs). For the same
 * reason a running task's slot keeps its devices: a communication's start or end re-rates the
 * compute beside it from the slot alone, not from the task graph's per-task rows.
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
    /**
     * Per device d, at {@code d * (width + 1)}: how many compute tasks run there, then their slots
     * ({@code width} places, widened for every device when one needs more). One flat table, not
     * a list object per device: a communication's start or end reads the lists of all its GPUs,
     * and a server's eight lists then share two cache lines instead of missing eight times.
     */
    private int[] running;
    private int width = 2;
    /**
     * Per slot, a running compute task: its id, nominal work left (ns at speed 1), current and own
     * rate, since when, and the version its end event must carry. A few tasks run per device at
     * a time, so this state is kept per slot (reused) rather than per task: on a 16,384-GPU step
     * with every replica, per-task arrays were 200 MB touched at random.
     */
    private int[] task = new int[64];
    private double[] left = new double[64];
    private double[] rate = new double[64];
    private double[] base = new double[64];
    private long[] since = new long[64];
    private long[] version = new long[64];
    /** Per slot, its task's devices in stream order ({@link #deviceCount} of them; the arrays are reused). */
    private int[][] devices = new int[64][];
    private int[] deviceCount = new int[64];
    /** Per slot, ns its task has lost so far (written to {@link #lost} when it ends). */
    private double[] lostSoFar = new double[64];
    /** Per slot, whether it was collected for the change being applied (the change's number). */
    private int[] mark = new int[64];
    private int[] affected = new int[64];
    private int[] free = new int[64];
    private int freeCount;
    private int slots;
    /** Versions handed out: unique, so an end scheduled for a slot's earlier task never matches. */
    private long versions;
    private int epoch;
    /** Per task: ns lost to communication beside it. */
    private final double[] lost;

    /** @param onEnd what to run when a compute task's current end comes */
    ComputeRates(TaskGraph graph, SimKernel kernel, DeviceSpeeds speeds, IntConsumer onEnd) {
        this.graph = graph;
        this.kernel = kernel;
        this.speeds = speeds;
        this.onEnd = onEnd;
        int devices = graph.devices().size();
        drag = new double[devices];
        running = new int[devices * (width + 1)];
        lost = new double[graph.taskCount()];
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
        int slot = takeSlot();
        task[slot] = id;
        base[slot] = b;
        left[slot] = c.durationNs();
        since[slot] = now;
        lostSoFar[slot] = 0;
        int[] on = devices[slot];
        if (on == null || on.length < streams) {
            on = new int[Math.max(streams, 2)];
            devices[slot] = on;
        }
        for (int i = 0; i < streams; i++) {
            on[i] = device(id, i);
        }
        deviceCount[slot] = streams;
        rate[slot] = b * (1 - dragOn(slot));
        for (int i = 0; i < streams; i++) {
            int d = on[i];
            int at = d * (width + 1);
            if (running[at] == width) {
                widen();
                at = d * (width + 1);
            }
            running[at + 1 + running[at]++] = slot;
        }
        version[slot] = ++versions;
        scheduleEnd(slot, rate[slot] == b ? aloneEnd : now + (long) Math.ceil(left[slot] / rate[slot]));
    }

    /** Communication task {@code id} starts, taking {@code computeShare} of its devices' compute. */
    void communicationStarts(int id, double computeShare) {
        if (computeShare > 0) {
            changeDrag(id, computeShare);
        }
    }

    /** Communication task {@code id} ends, giving back the {@code computeShare} it took when it started. */
    void communicationEnds(int id, double computeShare) {
        if (computeShare > 0) {
            changeDrag(id, -computeShare);
        }
    }

    /** The compute task in {@code slot} has ended: it leaves its devices and its slot is free. */
    private void computeEnds(int slot) {
        int id = task[slot];
        int[] on = devices[slot];
        for (int i = 0, n = deviceCount[slot]; i < n; i++) {
            int d = on[i];
            int at = d * (width + 1);
            for (int k = at + 1, end = k + running[at]; k < end; k++) {
                if (running[k] == slot) {
                    running[k] = running[at + running[at]--];
                    break;
                }
            }
        }
        lost[id] = lostSoFar[slot] + (kernel.now() - since[slot]) * (1 - rate[slot] / base[slot]);
        version[slot] = 0;
        free[freeCount++] = slot;
    }

    /** Doubles every device's room in {@link #running}, each list keeping its order. */
    private void widen() {
        int devices = running.length / (width + 1);
        int wider = width * 2;
        int[] next = new int[devices * (wider + 1)];
        for (int d = 0; d < devices; d++) {
            System.arraycopy(running, d * (width + 1), next, d * (wider + 1), running[d * (width + 1)] + 1);
        }
        running = next;
        width = wider;
    }

    private int takeSlot() {
        if (freeCount > 0) {
            return free[--freeCount];
        }
        if (slots == task.length) {
            int n = slots * 2;
            task = Arrays.copyOf(task, n);
            left = Arrays.copyOf(left, n);
            rate = Arrays.copyOf(rate, n);
            base = Arrays.copyOf(base, n);
            since = Arrays.copyOf(since, n);
            version = Arrays.copyOf(version, n);
            devices = Arrays.copyOf(devices, n);
            deviceCount = Arrays.copyOf(deviceCount, n);
            lostSoFar = Arrays.copyOf(lostSoFar, n);
            mark = Arrays.copyOf(mark, n);
            affected = Arrays.copyOf(affected, n);
            free = Arrays.copyOf(free, n);
        }
        return slots++;
    }

    /** Schedules the end of the task in {@code slot} at {@code at}; an end from an earlier version does nothing. */
    private void scheduleEnd(int slot, long at) {
        long v = version[slot];
        int id = task[slot];
        kernel.schedule(at, () -> {
            if (version[slot] == v) {
                computeEnds(slot);
                onEnd.accept(id);
            }
        });
    }

    /** The compute share taken on the most burdened device of the task in {@code slot}, capped so compute always progresses. */
    private double dragOn(int slot) {
        double most = 0;
        int[] on = devices[slot];
        for (int i = 0, n = deviceCount[slot]; i < n; i++) {
            most = Math.max(most, drag[on[i]]);
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
            int at = d * (width + 1);
            for (int k = at + 1, end = k + running[at]; k < end; k++) {
                int slot = running[k];
                if (mark[slot] != epoch) {
                    mark[slot] = epoch;
                    affected[count++] = slot;
                }
            }
        }
        long now = kernel.now();
        for (int k = 0; k < count; k++) {
            int slot = affected[k];
            double next = base[slot] * (1 - dragOn(slot));
            if (next == rate[slot]) {
                continue;
            }
            left[slot] = Math.max(0, left[slot] - (now - since[slot]) * rate[slot]);
            lostSoFar[slot] += (now - since[slot]) * (1 - rate[slot] / base[slot]);
            since[slot] = now;
            rate[slot] = next;
            version[slot] = ++versions;
            scheduleEnd(slot, now + (long) Math.ceil(left[slot] / next));
        }
    }

    private int device(int taskId, int i) {
        return graph.streamDevice(graph.taskStream(taskId, i));
    }
}

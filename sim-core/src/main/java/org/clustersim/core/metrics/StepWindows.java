package org.clustersim.core.metrics;

import java.util.Arrays;

import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;

/**
 * Consecutive training steps in one timeline, and the window of time that counts as one step
 * on each device, so that step time, idle time and exposed communication of a step in the
 * steady state are measured from the timeline.
 *
 * <p>The graph's tasks are numbered step by step: step n owns the tasks from
 * {@code firstTasks[n]} up to the next step's first task. Definitions:
 * <ul>
 * <li>the <b>end</b> of step n is the end of its last task anywhere; its <b>start</b> is the end
 *     of step n - 1 (0 for the first step), and its <b>duration</b>, the step time, is the
 *     difference: in the steady state, the period at which steps complete;</li>
 * <li>a device's <b>window</b> of step n is one step time long and starts when that device
 *     finished its own work (tasks on any of its streams) of step n - 1 (at 0 for the first step).
 *     Where consecutive steps overlap, as zero-bubble schedules intend, a late pipeline rank's
 *     window starts late too, so what it does while the next step fills the pipeline is
 *     measured as the step's work rather than as idle time.</li>
 * </ul>
 * With one step the window of every device is the whole run, [0, makespan]: the single-step
 * figures are unchanged.
 */
public final class StepWindows {
    private final Timeline timeline;
    private final int[] firstTasks;
    private final long[] ends;
    /** Per step but the last, per device: end of the device's own tasks of that step (0 where it has none). */
    private final long[][] deviceEnds;

    private StepWindows(Timeline timeline, int[] firstTasks) {
        this.timeline = timeline;
        this.firstTasks = firstTasks.clone();
        TaskGraph g = timeline.graph();
        int devices = g.devices().size();
        int steps = firstTasks.length;
        ends = new long[steps];
        // a step's device ends start the next step's windows: the last step's are never read,
        // so its tasks (all of them in a one-step run) are not walked stream by stream
        deviceEnds = new long[steps - 1][devices];
        int step = 0;
        for (int t = 0; t < g.taskCount(); t++) {
            while (step + 1 < steps && t >= firstTasks[step + 1]) {
                step++;
            }
            long end = timeline.end(t);
            ends[step] = Math.max(ends[step], end);
            if (step + 1 < steps) {
                for (int i = 0, k = g.streamCount(t); i < k; i++) {
                    int d = g.streamDevice(g.taskStream(t, i));
                    deviceEnds[step][d] = Math.max(deviceEnds[step][d], end);
                }
            }
        }
    }

    /**
     * The steps of a run.
     *
     * @param firstTasks the id of each step's first task, ascending, the first 0
     * @throws IllegalArgumentException if the ids are not ascending from 0 within the graph
     */
    public static StepWindows of(Timeline timeline, int[] firstTasks) {
        if (firstTasks.length == 0 || firstTasks[0] != 0) {
            throw new IllegalArgumentException("the first step starts at task 0: " + Arrays.toString(firstTasks));
        }
        for (int n = 1; n < firstTasks.length; n++) {
            if (firstTasks[n] <= firstTasks[n - 1] || firstTasks[n] >= timeline.graph().taskCount()) {
                throw new IllegalArgumentException("step first tasks must ascend within the graph: "
                        + Arrays.toString(firstTasks));
            }
        }
        return new StepWindows(timeline, firstTasks);
    }

    /** A run of one step. */
    public static StepWindows single(Timeline timeline) {
        return new StepWindows(timeline, new int[] {0});
    }

    public Timeline timeline() {
        return timeline;
    }

    /** Steps in the run. */
    public int count() {
        return firstTasks.length;
    }

    /** The last step, the one a summary reports. */
    public int last() {
        return firstTasks.length - 1;
    }

    /** The step task {@code id} belongs to. */
    public int stepOf(int id) {
        int i = Arrays.binarySearch(firstTasks, id);
        return i >= 0 ? i : -i - 2;
    }

    /** Whether task {@code id} belongs to step {@code n}. */
    public boolean inStep(int id, int n) {
        return id >= firstTasks[n] && (n + 1 >= firstTasks.length || id < firstTasks[n + 1]);
    }

    /** End of step {@code n}: the end of its last task, ns. */
    public long end(int n) {
        return ends[n];
    }

    /** Start of step {@code n}: the end of step n - 1, 0 for the first, ns. */
    public long start(int n) {
        return n == 0 ? 0 : ends[n - 1];
    }

    /** The step time of step {@code n}: its end minus its start, ns. */
    public long duration(int n) {
        return end(n) - start(n);
    }

    /** Where device {@code device}'s window of step {@code n} starts, ns. */
    public long windowStart(int device, int n) {
        return n == 0 ? 0 : deviceEnds[n - 1][device];
    }

    /** Where device {@code device}'s window of step {@code n} ends: one step time after its start, ns. */
    public long windowEnd(int device, int n) {
        return windowStart(device, n) + duration(n);
    }

    /**
     * Time each device's compute streams ran tasks (of any step) within its window of step
     * {@code n}, ns, by device index.
     */
    public long[] computeBusy(int n) {
        TaskGraph g = timeline.graph();
        long[] busy = new long[g.devices().size()];
        if (count() == 1) {
            for (int d = 0; d < busy.length; d++) {
                busy[d] = timeline.computeBusy(d);
            }
            return busy;
        }
        for (Stream s : g.streams()) {
            if (s.kind() != StreamKind.COMPUTE) {
                continue;
            }
            int d = s.device();
            long from = windowStart(d, n);
            long to = windowEnd(d, n);
            for (int i = 0, len = g.streamLength(s.id()); i < len; i++) {
                int t = g.streamTask(s.id(), i);
                busy[d] += Math.max(0, Math.min(to, timeline.end(t)) - Math.max(from, timeline.start(t)));
            }
        }
        return busy;
    }
}

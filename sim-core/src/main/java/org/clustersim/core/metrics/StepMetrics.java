package org.clustersim.core.metrics;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.engine.DeviceInfo;
import org.clustersim.core.engine.Timeline;

/**
 * Step-level figures measured from a timeline: the step time and how every device used it.
 * Nothing here comes from a closed-form formula.
 *
 * @param stepTimeNs the makespan of the step
 * @param devices    per-device usage, by device index
 * @param events     kernel events the run executed
 * @param tasks      tasks in the graph
 */
public record StepMetrics(long stepTimeNs, List<DeviceUsage> devices, long events, int tasks) {

    public StepMetrics {
        devices = List.copyOf(devices);
    }

    /** Measures a finished run. */
    public static StepMetrics of(Timeline timeline) {
        long step = timeline.makespan();
        List<DeviceUsage> usage = new ArrayList<>();
        for (DeviceInfo d : timeline.graph().devices()) {
            long busy = timeline.computeBusy(d.index());
            long idle = step - busy;
            usage.add(new DeviceUsage(d.index(), d.name(), busy, idle, step == 0 ? 0 : (double) idle / step));
        }
        return new StepMetrics(step, usage, timeline.events(), timeline.graph().taskCount());
    }

    /**
     * Measures step {@code n} of a run of consecutive steps: its step time, and each device's
     * compute busy and idle time within its window of the step ({@link StepWindows}). For a
     * run of one step the same as {@link #of(Timeline)}.
     */
    public static StepMetrics of(StepWindows steps, int n) {
        Timeline timeline = steps.timeline();
        long step = steps.duration(n);
        long[] busy = steps.computeBusy(n);
        List<DeviceUsage> usage = new ArrayList<>();
        for (DeviceInfo d : timeline.graph().devices()) {
            long idle = step - busy[d.index()];
            usage.add(new DeviceUsage(d.index(), d.name(), busy[d.index()], idle,
                    step == 0 ? 0 : (double) idle / step));
        }
        return new StepMetrics(step, usage, timeline.events(), timeline.graph().taskCount());
    }

    /** Mean bubble fraction over all devices. */
    public double meanBubbleFraction() {
        double sum = 0;
        for (DeviceUsage u : devices) {
            sum += u.bubbleFraction();
        }
        return devices.isEmpty() ? 0 : sum / devices.size();
    }
}

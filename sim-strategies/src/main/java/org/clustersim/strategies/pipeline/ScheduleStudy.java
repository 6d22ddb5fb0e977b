package org.clustersim.strategies.pipeline;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.metrics.StepWindows;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;

/**
 * A bare schedule simulated on its own: p GPUs on one NVSwitch, stage costs in the
 * literature's notation, sends that carry no bytes and cost only the per-hop latency (zero by
 * default). This is what the {@code schedule} and {@code bubbles} commands and the regression
 * suite run; everything reported is measured from the resulting timeline. One step shows the
 * schedule's own bubble; several consecutive steps show what remains once steps overlap as the
 * schedule lets them (the steady state).
 *
 * @param schedule     the schedule
 * @param ranks        pipeline size p
 * @param microbatches microbatches m
 * @param costs        stage costs
 * @param hopLatencyNs latency of each GPU-NVSwitch hop (a send crosses two)
 */
public record ScheduleStudy(PipelineSchedule schedule, int ranks, int microbatches, PipelineCosts costs,
                            long hopLatencyNs) {

    /** Consecutive steps {@link #runSteadyState()} simulates; the last is measured. */
    public static final int STEADY_STEPS = 3;

    /** Simulates one step of the schedule. */
    public Result run() {
        return run(1);
    }

    /** Simulates {@link #STEADY_STEPS} consecutive steps, so that the last one shows the steady state. */
    public Result runSteadyState() {
        return run(STEADY_STEPS);
    }

    /**
     * Simulates {@code steps} consecutive steps. Each rank's programs follow one another on its
     * compute stream, and the first forward of each stage in step n + 1 waits for the last
     * weight-gradient pass of that stage in step n: the weight update, which costs nothing in a
     * bare study and waits for nothing else (no synchronisation across ranks at the optimizer,
     * as the zero-bubble paper's post-validation allows). How far consecutive steps then overlap
     * is whatever the schedule's shape lets happen.
     */
    public Result run(int steps) {
        if (steps < 1) {
            throw new IllegalArgumentException("simulate at least one step, not " + steps);
        }
        Topology topology = new SwitchedClusterSpec("schedule-study", AcceleratorSpec.H100_SXM, 1, ranks, 450e9,
                hopLatencyNs, 50e9, 0, 0).build();
        TaskGraph.Builder b = TaskGraph.builder();
        int[] devices = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            devices[r] = b.device("rank" + r, 0);
        }
        PipelineProgram program = new PipelineProgram(schedule, ranks, microbatches, costs, 0);
        int stages = program.placement().stages();
        int[] firstTasks = new int[steps];
        List<PipelineTasks> all = new ArrayList<>();
        for (int n = 0; n < steps; n++) {
            firstTasks[n] = b.taskCount();
            PipelineTasks tasks = program.addTo(b, devices);
            if (n > 0) {
                PipelineTasks previous = all.get(n - 1);
                for (int r = 0; r < ranks; r++) {
                    for (int k = 0; k < stages; k++) {
                        int first = tasks.firstForward(r, k);
                        int[] updated = previous.gradientsReady(r, k);
                        if (first >= 0 && updated.length > 0) {
                            b.addDependency(first, updated[updated.length - 1]);
                        }
                    }
                }
            }
            all.add(tasks);
        }
        Timeline timeline = Simulation.run(b.build(), topology);
        return new Result(this, timeline, PipelineTasks.acrossSteps(all), StepWindows.of(timeline, firstTasks));
    }

    /**
     * A simulated schedule and what it measured.
     *
     * @param study    what was simulated
     * @param timeline the timeline
     * @param tasks    activation bookkeeping (over all steps)
     * @param steps    the simulated steps
     */
    public record Result(ScheduleStudy study, Timeline timeline, PipelineTasks tasks, StepWindows steps) {

        /** Step time of the last step: the period at which steps complete once they overlap. */
        public long stepTime() {
            return steps.duration(steps.last());
        }

        /**
         * Compute idle time of a rank within its window of the last step ({@link StepWindows}):
         * with several steps simulated, the steady-state bubble, measured.
         */
        public long steadyIdle(int rank) {
            return stepTime() - steps.computeBusy(steps.last())[rank];
        }

        /** Largest steady-state idle time over ranks. */
        public long maxSteadyIdle() {
            long[] busy = steps.computeBusy(steps.last());
            long max = 0;
            for (int r = 0; r < study.ranks(); r++) {
                max = Math.max(max, stepTime() - busy[r]);
            }
            return max;
        }

        public long makespan() {
            return timeline.makespan();
        }

        /** Compute idle time of a rank within the step (from 0 to the makespan). */
        public long idle(int rank) {
            return timeline.computeIdle(rank);
        }

        /** Largest idle time over ranks: the step's bubble. */
        public long maxIdle() {
            long max = 0;
            for (int r = 0; r < study.ranks(); r++) {
                max = Math.max(max, idle(r));
            }
            return max;
        }

        /**
         * Idle time of a rank between its own first start and last end, ignoring the time before
         * its first task and after its last: the bubble a schedule pays when consecutive steps
         * may overlap (no synchronisation at the optimizer step).
         */
        public long spanIdle(int rank) {
            TaskGraph g = timeline.graph();
            long first = Long.MAX_VALUE;
            long last = 0;
            long busy = 0;
            for (Stream s : g.streams()) {
                if (s.device() != rank || s.kind() != StreamKind.COMPUTE) {
                    continue;
                }
                for (int i = 0; i < g.streamLength(s.id()); i++) {
                    int t = g.streamTask(s.id(), i);
                    first = Math.min(first, timeline.start(t));
                    last = Math.max(last, timeline.end(t));
                    busy += timeline.end(t) - timeline.start(t);
                }
            }
            return busy == 0 ? 0 : last - first - busy;
        }

        /** Largest own-span idle time over ranks. */
        public long maxSpanIdle() {
            long max = 0;
            for (int r = 0; r < study.ranks(); r++) {
                max = Math.max(max, spanIdle(r));
            }
            return max;
        }

        /** Peak live activations on a rank, in microbatches of one rank's share of a model copy. */
        public double peakActivations(int rank) {
            return tasks.peakActivations(timeline, rank);
        }

        public double peakActivations() {
            return tasks.peakActivations(timeline);
        }
    }
}

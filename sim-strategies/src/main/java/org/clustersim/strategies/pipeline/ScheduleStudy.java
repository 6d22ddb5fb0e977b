package org.clustersim.strategies.pipeline;

import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.topology.AcceleratorSpec;
import org.clustersim.topology.SwitchedClusterSpec;
import org.clustersim.topology.Topology;

/**
 * A bare schedule simulated on its own: p GPUs on one NVSwitch, stage costs in the
 * literature's notation, sends that carry no bytes and cost only the per-hop latency (zero by
 * default). This is what the {@code schedule} and {@code bubbles} commands and the regression
 * suite run; everything reported is measured from the resulting timeline.
 *
 * @param schedule     the schedule
 * @param ranks        pipeline size p
 * @param microbatches microbatches m
 * @param costs        stage costs
 * @param hopLatencyNs latency of each GPU-NVSwitch hop (a send crosses two)
 */
public record ScheduleStudy(PipelineSchedule schedule, int ranks, int microbatches, PipelineCosts costs,
                            long hopLatencyNs) {

    /** Simulates the schedule. */
    public Result run() {
        Topology topology = new SwitchedClusterSpec("schedule-study", AcceleratorSpec.H100_SXM, 1, ranks, 450e9,
                hopLatencyNs, 50e9, 0, 0).build();
        TaskGraph.Builder b = TaskGraph.builder();
        int[] devices = new int[ranks];
        for (int r = 0; r < ranks; r++) {
            devices[r] = b.device("rank" + r, 0);
        }
        PipelineTasks tasks = new PipelineProgram(schedule, ranks, microbatches, costs, 0).addTo(b, devices);
        Timeline timeline = Simulation.run(b.build(), topology);
        return new Result(this, timeline, tasks);
    }

    /**
     * A simulated schedule and what it measured.
     *
     * @param study    what was simulated
     * @param timeline the timeline
     * @param tasks    activation bookkeeping
     */
    public record Result(ScheduleStudy study, Timeline timeline, PipelineTasks tasks) {

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

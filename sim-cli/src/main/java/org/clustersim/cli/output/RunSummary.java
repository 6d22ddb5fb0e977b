package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.cli.scenario.Scenario;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.core.metrics.DeviceUsage;
import org.clustersim.core.metrics.StepMetrics;
import org.clustersim.strategies.pipeline.PipelineTasks;

/**
 * The figures of one simulated step that the CLI prints and writes as JSON. Every figure is
 * measured from the timeline; the only inputs taken from the scenario are the batch shape
 * (for tokens) and the device count.
 *
 * @param scenario        scenario name
 * @param stepTimeSeconds makespan of the step
 * @param stepTimeNs      makespan in nanoseconds (exact)
 * @param tokensPerStep   globalBatch x seqLen
 * @param tokensPerSecond tokens per step divided by the step time
 * @param flopsExecuted   FLOPs of all compute tasks that ran
 * @param tflopsPerGpu    FLOPs executed / step time / GPUs, in TFLOP/s
 * @param bubbleFraction  mean over devices of compute idle time / step time
 * @param events          kernel events executed
 * @param tasks           tasks in the graph
 * @param weightCopiesPerRank model-copy shares of weights each pipeline rank holds (2 for DualPipe)
 * @param devices         per-device figures, one per pipeline rank
 */
public record RunSummary(String scenario, double stepTimeSeconds, long stepTimeNs, long tokensPerStep,
                         double tokensPerSecond, double flopsExecuted, double tflopsPerGpu, double bubbleFraction,
                         long events, int tasks, double weightCopiesPerRank, List<Device> devices) {

    /**
     * One device's figures.
     *
     * @param device         device index
     * @param name           device name
     * @param pipelineRank   pipeline rank it runs
     * @param computeBusyNs  compute stream busy time
     * @param computeIdleNs  compute stream idle time within the step
     * @param bubbleFraction idle / step time
     * @param peakActivations most microbatch activations alive at once, in microbatches of the
     *                        rank's share of one model copy, measured from the timeline
     */
    public record Device(int device, String name, int pipelineRank, long computeBusyNs, long computeIdleNs,
                         double bubbleFraction, double peakActivations) {
    }

    /** Measures a finished run of {@code scenario}. */
    public static RunSummary of(Scenario scenario, Timeline timeline, PipelineTasks pipeline, double weightCopies) {
        StepMetrics m = StepMetrics.of(timeline);
        TaskGraph graph = timeline.graph();
        double flops = 0;
        for (int t = 0; t < graph.taskCount(); t++) {
            if (graph.task(t).work() instanceof Work.Compute c) {
                flops += c.flops();
            }
        }
        List<Device> devices = new ArrayList<>();
        for (DeviceUsage u : m.devices()) {
            devices.add(new Device(u.device(), u.name(), u.device(), u.computeBusyNs(), u.computeIdleNs(),
                    u.bubbleFraction(), pipeline.peakActivations(timeline, u.device())));
        }
        double seconds = m.stepTimeNs() / 1e9;
        long tokens = (long) scenario.training().globalBatch() * scenario.training().seqLen();
        int gpus = m.devices().size();
        return new RunSummary(scenario.name(), seconds, m.stepTimeNs(), tokens, tokens / seconds, flops,
                flops / seconds / gpus / 1e12, m.meanBubbleFraction(), m.events(), m.tasks(), weightCopies, devices);
    }
}

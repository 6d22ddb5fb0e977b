package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.List;

import org.clustersim.cli.scenario.Scenario;
import org.clustersim.core.Simulation;
import org.clustersim.core.network.LinkUsage;
import org.clustersim.topology.Link;
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
 * @param links           every link that carried traffic, busiest first
 */
public record RunSummary(String scenario, double stepTimeSeconds, long stepTimeNs, long tokensPerStep,
                         double tokensPerSecond, double flopsExecuted, double tflopsPerGpu, double bubbleFraction,
                         long events, int tasks, double weightCopiesPerRank, List<Device> devices,
                         List<LinkTraffic> links) {

    /**
     * What one link carried.
     *
     * @param link         link name
     * @param kind         link class
     * @param bytes        bytes carried
     * @param busyNs       time it carried at least one flow
     * @param busyFraction busy time over the step time
     */
    public record LinkTraffic(String link, String kind, long bytes, long busyNs, double busyFraction) {
    }

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
    public static RunSummary of(Scenario scenario, Simulation.Result run, PipelineTasks pipeline,
                                double weightCopies) {
        Timeline timeline = run.timeline();
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
        List<LinkTraffic> links = new ArrayList<>();
        LinkUsage usage = run.links();
        for (Link l : usage.topology().links()) {
            if (usage.bytes(l.id()) > 0) {
                links.add(new LinkTraffic(l.name(), l.kind().name(), usage.bytes(l.id()), usage.busyNs(l.id()),
                        m.stepTimeNs() == 0 ? 0 : (double) usage.busyNs(l.id()) / m.stepTimeNs()));
            }
        }
        links.sort((a, b) -> a.busyNs() != b.busyNs() ? Long.compare(b.busyNs(), a.busyNs())
                : a.link().compareTo(b.link()));
        double seconds = m.stepTimeNs() / 1e9;
        long tokens = (long) scenario.training().globalBatch() * scenario.training().seqLen();
        int gpus = m.devices().size();
        return new RunSummary(scenario.name(), seconds, m.stepTimeNs(), tokens, tokens / seconds, flops,
                flops / seconds / gpus / 1e12, m.meanBubbleFraction(), m.events(), m.tasks(), weightCopies, devices, links);
    }
}

package org.clustersim.cli.output;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;

import org.clustersim.cli.scenario.Scenario;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.core.metrics.CommBreakdown;
import org.clustersim.core.metrics.DeviceUsage;
import org.clustersim.core.metrics.StepMetrics;
import org.clustersim.core.metrics.StepWindows;
import org.clustersim.core.network.LinkUsage;
import org.clustersim.strategies.training.TrainingStep;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.topology.Link;

/**
 * The figures of one simulated step that the CLI prints and writes as JSON and CSV. Times,
 * idle, exposed and overlapped communication, executed FLOPs and peak activations are
 * measured from the timeline. Model FLOPs per step are a definition, not a measurement:
 * Megatron-LM's count (Narayanan et al., SC'21, section 5.1) without recomputation,
 * 3 x (forward FLOPs of every layer with the attention core counted in full, plus the
 * logits) per sequence; MFU divides them by the measured step time, the GPU count and the
 * chip's dense bf16 peak, also when the GEMMs run in FP8, as Megatron-core and NeMo report it
 * ({@code mfuFp8Peak} gives the same against the FP8 peak). HFU uses the FLOPs actually
 * executed (recomputation included, causal attention halved) instead.
 *
 * <p>With several steps simulated back to back the figures are those of the last step
 * ({@link StepWindows}): its step time runs from the end of the step before (the end of that
 * step's last task anywhere) to the end of its own last task; each GPU's busy, idle and
 * exposed-communication times are measured within a window one step time long that starts
 * where that GPU finished its own work of the step before; executed FLOPs are the last step's
 * tasks'. Peak memory is the peak over the whole run, links carry the whole run's traffic (their
 * busy fraction is over the whole run), and events and tasks count the whole run. Every step's
 * span is listed in {@code steps}, which is absent for a single step.
 *
 * @param scenario           scenario name
 * @param stepTimeSeconds    makespan of the step
 * @param stepTimeNs         makespan in nanoseconds
 * @param steps              with several steps simulated, each step's span; null (left out) for one
 * @param gpus               GPUs in the layout
 * @param tokensPerStep      globalBatch x seqLen
 * @param tokensPerSecond    tokens per step over step time
 * @param modelFlopsPerStep  model FLOPs of one step (definition above)
 * @param flopsExecuted      FLOPs of all compute tasks that ran
 * @param tflopsPerGpu       model FLOPs / step time / GPUs, TFLOP/s
 * @param mfu                model FLOPs utilisation against the bf16 peak
 * @param mfuFp8Peak         the same against the FP8 peak when training in FP8, else 0
 * @param hfu                hardware FLOPs utilisation
 * @param bubbleFraction     mean over GPUs of compute idle time / step time
 * @param exposedCommFraction mean over GPUs of time with compute idle and communication under way / step time
 * @param interferenceFraction mean over GPUs of compute time lost to communication kernels beside it / step time
 * @param peakMemoryBytes    largest peak memory over GPUs (model states plus live activations)
 * @param events             kernel events executed
 * @param tasks              tasks in the graph
 * @param weightCopiesPerRank model-copy shares of weights each pipeline rank holds (2 for DualPipe)
 * @param groups             each parallel group kind: an example group and what it crosses
 * @param allToAll           with expert parallelism, the groups the MoE all-to-alls run over (left out of
 *                           the JSON without)
 * @param devices            per-GPU figures of the simulated replicas
 * @param links              every link that carried traffic, busiest first
 */
public record RunSummary(String scenario, double stepTimeSeconds, long stepTimeNs,
                         @JsonInclude(JsonInclude.Include.NON_NULL) List<StepSpan> steps, int gpus, long tokensPerStep,
                         double tokensPerSecond, double modelFlopsPerStep, double flopsExecuted, double tflopsPerGpu,
                         double mfu, double mfuFp8Peak, double hfu, double bubbleFraction, double exposedCommFraction,
                         double interferenceFraction, long peakMemoryBytes, long events,
                         int tasks, double weightCopiesPerRank, List<ParallelGroups.Group> groups,
                         @JsonInclude(JsonInclude.Include.NON_NULL) AllToAllGroups allToAll,
                         List<Device> devices, List<LinkTraffic> links) {

    /**
     * One simulated step.
     *
     * @param step       its index, from 0
     * @param startNs    its start: the end of the step before, 0 for the first
     * @param endNs      the end of its last task
     * @param durationNs end minus start: its step time
     */
    public record StepSpan(int step, long startNs, long endNs, long durationNs) {
    }

    /**
     * One GPU's figures.
     *
     * @param device          device index
     * @param name            device name
     * @param tpRank          tensor-parallel rank
     * @param cpRank          context-parallel rank
     * @param pipelineRank    pipeline rank
     * @param dpRank          data-parallel rank
     * @param computeBusyNs   compute stream busy time
     * @param computeIdleNs   compute stream idle time within the step (the bubble, in the broad sense)
     * @param bubbleFraction  idle / step time
     * @param exposedCommNs   idle time during which some communication was under way
     * @param exposedByKind   per traffic kind (tp-comm, pp-p2p, dp-comm), communication time while compute was idle
     * @param overlappedByKind per traffic kind, communication time while compute was busy
     * @param interferenceNs  compute time lost to communication kernels running beside it (how much
     *                        longer the GPU's kernels took than alone)
     * @param peakActivations most microbatch activations alive at once, in microbatches of the rank's share
     * @param memory          peak memory and its parts
     */
    public record Device(int device, String name, int tpRank, int cpRank, int pipelineRank, int dpRank, long computeBusyNs,
                         long computeIdleNs, double bubbleFraction, long exposedCommNs, Map<String, Long> exposedByKind,
                         Map<String, Long> overlappedByKind, long interferenceNs, double peakActivations,
                         Memory memory) {
    }

    /**
     * A GPU's memory at its peak.
     *
     * @param peakBytes        weights + gradients + optimizer state + activations at the peak
     * @param weightBytes      bf16 weights
     * @param gradientBytes    gradients
     * @param optimizerBytes   Adam state
     * @param workspaceBytes   framework reserve and transient buffers (the last stage's logits)
     * @param activationBytes  activations live at the peak
     */
    public record Memory(long peakBytes, long weightBytes, long gradientBytes, long optimizerBytes,
                         long workspaceBytes, long activationBytes) {
    }

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

    private static Memory memory(TrainingStep step, TrainingStep.Built built, Timeline timeline, int replica, int p) {
        org.clustersim.strategies.training.MemoryModel model = new org.clustersim.strategies.training.MemoryModel(step);
        org.clustersim.strategies.training.MemoryModel.States states = model.states(p);
        long[][] live = built.pipelines().get(replica).activationBytes(timeline, p, model::activationBytes);
        long peakActivations = 0;
        for (long v : live[1]) {
            peakActivations = Math.max(peakActivations, v);
        }
        long fixed = Math.round(states.total());
        return new Memory(fixed + peakActivations, Math.round(states.weights()), Math.round(states.gradients()),
                Math.round(states.optimizer()), Math.round(states.workspace()), peakActivations);
    }

    private static double bubble(List<Device> devices) {
        double sum = 0;
        for (Device d : devices) {
            sum += d.bubbleFraction();
        }
        return devices.isEmpty() ? 0 : sum / devices.size();
    }

    /** Measures a finished run of {@code scenario} (only the simulated replicas' GPUs are listed). */
    public static RunSummary of(Scenario scenario, Simulation.Result run, TrainingStep step, TrainingStep.Built built) {
        Timeline timeline = run.timeline();
        StepWindows windows = StepWindows.of(timeline, built.firstTasks());
        int last = windows.last();
        StepMetrics m = StepMetrics.of(windows, last);
        TaskGraph graph = timeline.graph();
        double executed = 0;
        for (int t = 0; t < graph.taskCount(); t++) {
            if (windows.inStep(t, last) && graph.work(t) instanceof Work.Compute c) {
                executed += c.flops();
            }
        }
        List<CommBreakdown> comm = CommBreakdown.of(windows, last);
        List<StepSpan> steps = null;
        if (windows.count() > 1) {
            steps = new ArrayList<>();
            for (int n = 0; n < windows.count(); n++) {
                steps.add(new StepSpan(n, windows.start(n), windows.end(n), windows.duration(n)));
            }
        }
        double[] lost = new double[graph.devices().size()];
        if (timeline.interferenceModelled()) {
            for (org.clustersim.core.engine.Stream st : graph.streams()) {
                if (st.kind() == org.clustersim.core.engine.StreamKind.COMPUTE) {
                    for (int i = 0; i < graph.streamLength(st.id()); i++) {
                        int t = graph.streamTask(st.id(), i);
                        if (windows.inStep(t, last)) {
                            lost[st.device()] += timeline.interferenceNs(t);
                        }
                    }
                }
            }
        }
        double lostSum = 0;
        List<Device> devices = new ArrayList<>();
        java.util.Map<Integer, Memory> memory = new java.util.HashMap<>();
        java.util.Map<Integer, Double> peakActivations = new java.util.HashMap<>();
        double exposedSum = 0;
        for (DeviceUsage u : m.devices()) {
            if (!step.simulated(u.device())) {
                continue;
            }
            org.clustersim.strategies.training.Mesh.Coordinates at = step.coordinates(u.device());
            int d = at.dp();
            int p = at.pp();
            CommBreakdown c = comm.get(u.device());
            exposedSum += m.stepTimeNs() == 0 ? 0 : (double) c.exposedAnyNs() / m.stepTimeNs();
            lostSum += m.stepTimeNs() == 0 ? 0 : lost[u.device()] / m.stepTimeNs();
            // every GPU of a stage's TP x CP group holds the same: measure each (replica, stage) once
            Memory mem = memory.computeIfAbsent(d * step.pp() + p, k -> memory(step, built, timeline, d, p));
            double peakActs = peakActivations.computeIfAbsent(d * step.pp() + p,
                    k -> built.pipelines().get(d).peakActivations(timeline, p));
            devices.add(new Device(u.device(), u.name(), at.tp(), at.cp(), p, d, u.computeBusyNs(), u.computeIdleNs(),
                    u.bubbleFraction(), c.exposedAnyNs(), c.exposedNs(), c.overlappedNs(), Math.round(lost[u.device()]),
                    peakActs, mem));
        }
        List<LinkTraffic> links = new ArrayList<>();
        LinkUsage usage = run.links();
        for (Link l : usage.topology().links()) {
            if (usage.bytes(l.id()) > 0) {
                links.add(new LinkTraffic(l.name(), l.kind().name(), usage.bytes(l.id()), usage.busyNs(l.id()),
                        timeline.makespan() == 0 ? 0 : (double) usage.busyNs(l.id()) / timeline.makespan()));
            }
        }
        links.sort((a, b) -> a.busyNs() != b.busyNs() ? Long.compare(b.busyNs(), a.busyNs())
                : a.link().compareTo(b.link()));
        double seconds = m.stepTimeNs() / 1e9;
        int gpus = step.tp() * step.cp() * step.pp() * step.dp();
        long sequences = scenario.training().globalBatch();
        int s = scenario.training().seqLen();
        double modelFlops = scenario.modelFlopsPerStep();
        double peak = Precision.BF16.peak(scenario.cluster().accelerator());
        double fp8Peak = scenario.training().precision() == Precision.FP8
                ? Precision.FP8.peak(scenario.cluster().accelerator()) : 0;
        long tokens = sequences * s;
        double perGpu = modelFlops / seconds / gpus;
        return new RunSummary(scenario.name(), seconds, m.stepTimeNs(), steps, gpus, tokens, tokens / seconds, modelFlops,
                executed, perGpu / 1e12, perGpu / peak, fp8Peak > 0 ? perGpu / fp8Peak : 0,
                executed * step.dp() / step.replicas() / seconds / gpus / peak, bubble(devices), exposedSum / devices.size(),
                lostSum / devices.size(),
                devices.stream().mapToLong(x -> x.memory().peakBytes()).max().orElse(0), m.events(), m.tasks(),
                step.schedule().weightCopies(step.pp(), step.microbatches()), ParallelGroups.of(step),
                AllToAllGroups.of(step), devices, links);
    }
}

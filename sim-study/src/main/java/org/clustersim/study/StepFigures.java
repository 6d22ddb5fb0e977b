package org.clustersim.study;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.clustersim.study.scenario.Scenario;
import org.clustersim.core.Simulation;
import org.clustersim.core.engine.Stream;
import org.clustersim.core.engine.StreamKind;
import org.clustersim.core.engine.TaskGraph;
import org.clustersim.core.engine.Timeline;
import org.clustersim.core.engine.Work;
import org.clustersim.core.metrics.CommBreakdown;
import org.clustersim.core.metrics.DeviceUsage;
import org.clustersim.core.metrics.IdleBreakdown;
import org.clustersim.core.metrics.StepMetrics;
import org.clustersim.core.metrics.StepWindows;
import org.clustersim.core.network.LinkUsage;
import org.clustersim.strategies.cost.Precision;
import org.clustersim.strategies.training.MemoryModel;
import org.clustersim.strategies.training.Mesh;
import org.clustersim.strategies.training.TrainingStep;

/**
 * Every figure reported of one simulated step, measured in one place, so that {@code run},
 * {@code whatif}, {@code plan}, {@code goodput}, the report and the validation tests report the
 * same step the same way. Times, idle, exposed and overlapped communication, interference,
 * executed FLOPs and peak activations are measured from the timeline; each GPU's idle time is
 * split into pipeline bubble, exposed communication and other waits by what it waited for
 * ({@link IdleBreakdown}, docs/metrics.md), so busy + the three = the step time on every GPU.
 * Model FLOPs per step are a definition, not a measurement: Megatron-LM's count (Narayanan et al., SC'21, section 5.1)
 * without recomputation, 3 x (forward FLOPs of every layer with the attention core counted in
 * full, plus the logits) per sequence; MFU divides them by the measured step time, the GPU count
 * and the chip's dense bf16 peak, also when the GEMMs run in FP8, as Megatron-core and NeMo
 * report it ({@code mfuFp8Peak} gives the same against the FP8 peak when training in FP8, MXFP8
 * included, and {@code mfuFp4Peak} against the FP4 peak when training in NVFP4). HFU uses the FLOPs actually
 * executed (recomputation included, causal attention halved) instead.
 *
 * <p>With several steps simulated back to back the figures are those of the last step
 * ({@link StepWindows}): its step time runs from the end of the step before (the end of that
 * step's last task anywhere) to the end of its own last task; each GPU's busy, idle, exposed
 * communication and interference are measured within a window one step time long that starts
 * where that GPU finished its own work of the step before; executed FLOPs are the last step's
 * tasks'. With one step (the default) the window is the whole timeline. Peak memory is the peak
 * over the whole run, links carry the whole run's traffic, and events and tasks count the whole
 * run. Means over GPUs are over the simulated replicas' GPUs.
 *
 * @param stepTimeNs           the last step's step time
 * @param steps                every simulated step's span, in order (one for a single step)
 * @param gpus                 GPUs in the layout
 * @param tokensPerStep        globalBatch x seqLen
 * @param tokensPerSecond      tokens per step over step time
 * @param modelFlopsPerStep    model FLOPs of one step (definition above)
 * @param flopsExecuted        FLOPs of the last step's compute tasks
 * @param tflopsPerGpu         model FLOPs / step time / GPUs, TFLOP/s
 * @param mfu                  model FLOPs utilisation against the bf16 peak
 * @param mfuFp8Peak           the same against the FP8 peak when training in FP8, else 0
 * @param mfuFp4Peak           the same against the FP4 peak when training in NVFP4, else 0
 * @param hfu                  hardware FLOPs utilisation
 * @param idleFraction         mean over GPUs of compute idle time / step time: the sum of the next three
 * @param pipelineBubbleFraction mean over GPUs of idle time waiting on another pipeline stage / step time
 *                             (docs/metrics.md, "Idle time"; 0 without pipeline parallelism)
 * @param exposedCommFraction  mean over GPUs of idle time waiting on communication / step time
 * @param otherWaitFraction    mean over GPUs of the rest of the idle time / step time
 * @param exposedByKindNs      mean over GPUs of exposed communication per traffic kind (tp-comm, pp-p2p, dp-comm, ...)
 * @param interferenceFraction mean over GPUs of compute time lost to communication kernels beside it / step time
 * @param peakMemoryBytes      largest peak memory over GPUs (model states plus live activations)
 * @param events               kernel events executed
 * @param tasks                tasks in the graph
 * @param makespanNs           the end of the whole run (all steps)
 * @param devices              per-GPU figures of the simulated replicas, by device index
 * @param linkBytes            bytes each link carried over the whole run, by link id
 * @param linkBusyNs           time each link carried at least one flow over the whole run, by link id
 */
public record StepFigures(long stepTimeNs, List<StepSpan> steps, int gpus, long tokensPerStep, double tokensPerSecond,
                          double modelFlopsPerStep, double flopsExecuted, double tflopsPerGpu, double mfu,
                          double mfuFp8Peak, double mfuFp4Peak, double hfu, double idleFraction,
                          double pipelineBubbleFraction, double exposedCommFraction, double otherWaitFraction,
                          TreeMap<String, Long> exposedByKindNs, double interferenceFraction, long peakMemoryBytes,
                          long events, int tasks, long makespanNs, List<Device> devices, long[] linkBytes,
                          long[] linkBusyNs) {

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
     * @param computeIdleNs   compute stream idle time within the step window: the sum of the next three
     * @param pipelineBubbleNs idle time waiting on another pipeline stage's computation
     * @param exposedCommNs   idle time waiting on communication
     * @param otherWaitNs     the rest of the idle time (peers of the same stage, optimizer steps, unexplained)
     * @param exposedByKind   exposed communication per traffic kind: adds up to {@code exposedCommNs}
     * @param overlappedByKind per traffic kind, communication time while compute was busy
     * @param interferenceNs  compute time lost to communication kernels running beside it
     * @param peakActivations most microbatch activations alive at once, in microbatches of the rank's share
     * @param memory          peak memory and its parts
     */
    public record Device(int device, String name, int tpRank, int cpRank, int pipelineRank, int dpRank,
                         long computeBusyNs, long computeIdleNs, long pipelineBubbleNs, long exposedCommNs,
                         long otherWaitNs, Map<String, Long> exposedByKind, Map<String, Long> overlappedByKind,
                         long interferenceNs, double peakActivations, Memory memory) {
    }

    /**
     * A GPU's memory at its peak.
     *
     * @param peakBytes       weights + gradients + optimizer state + activations at the peak
     * @param weightBytes     bf16 weights
     * @param gradientBytes   gradients
     * @param optimizerBytes  Adam state
     * @param workspaceBytes  framework reserve and transient buffers (the last stage's logits)
     * @param activationBytes activations live at the peak
     */
    public record Memory(long peakBytes, long weightBytes, long gradientBytes, long optimizerBytes,
                         long workspaceBytes, long activationBytes) {
    }

    /** Measures a finished run of {@code scenario}'s step ({@code built} from {@code step}). */
    public static StepFigures of(Scenario scenario, TrainingStep step, TrainingStep.Built built,
                                 Simulation.Result run) {
        return of(scenario, step, built, run, -1);
    }

    /**
     * As {@link #of(Scenario, TrainingStep, TrainingStep.Built, Simulation.Result)}, measuring
     * step {@code measured} (from 0; -1: the last) instead of the last: a job of a shared cluster
     * is measured at its last step that ran while every other job still ran.
     */
    public static StepFigures of(Scenario scenario, TrainingStep step, TrainingStep.Built built,
                                 Simulation.Result run, int measured) {
        Timeline timeline = run.timeline();
        StepWindows windows = StepWindows.of(timeline, built.firstTasks());
        int last = measured < 0 ? windows.last() : Math.min(measured, windows.last());
        StepMetrics m = StepMetrics.of(windows, last);
        TaskGraph graph = timeline.graph();
        double executed = 0;
        for (int t = 0; t < graph.taskCount(); t++) {
            if (windows.inStep(t, last) && graph.work(t) instanceof Work.Compute c) {
                executed += c.flops();
            }
        }
        List<Map<String, Long>> overlapped = CommBreakdown.overlapped(windows, last);
        int[] stages = new int[graph.devices().size()];
        for (int dev = 0; dev < stages.length; dev++) {
            stages[dev] = dev < step.mesh().gpus() ? step.coordinates(dev).pp() : -1;
        }
        List<IdleBreakdown> idle = IdleBreakdown.of(windows, last, dev -> stages[dev]);
        List<StepSpan> steps = new ArrayList<>();
        for (int n = 0; n < windows.count(); n++) {
            steps.add(new StepSpan(n, windows.start(n), windows.end(n), windows.duration(n)));
        }
        double[] lost = interference(timeline, windows, last);
        double lostSum = 0;
        double idleSum = 0;
        double bubbleSum = 0;
        double exposedSum = 0;
        double otherSum = 0;
        List<Device> devices = new ArrayList<>();
        Map<Integer, Memory> memory = new HashMap<>();
        Map<Integer, Double> peakActivations = new HashMap<>();
        TreeMap<String, Long> byKind = new TreeMap<>();
        for (DeviceUsage u : m.devices()) {
            if (!step.simulated(u.device())) {
                continue;
            }
            Mesh.Coordinates at = step.coordinates(u.device());
            int d = at.dp();
            int p = at.pp();
            IdleBreakdown w = idle.get(u.device());
            double perStep = m.stepTimeNs() == 0 ? 0 : 1.0 / m.stepTimeNs();
            idleSum += w.idleNs() * perStep;
            bubbleSum += w.pipelineBubbleNs() * perStep;
            exposedSum += w.exposedCommNs() * perStep;
            otherSum += w.otherWaitNs() * perStep;
            lostSum += lost[u.device()] * perStep;
            w.exposedByKind().forEach((k, v) -> byKind.merge(k, v, Long::sum));
            // every GPU of a stage's TP x CP group holds the same: measure each (replica, stage) once
            Memory mem = memory.computeIfAbsent(d * step.pp() + p, k -> memory(step, built, timeline, d, p));
            double peakActs = peakActivations.computeIfAbsent(d * step.pp() + p,
                    k -> built.pipelines().get(d).peakActivations(timeline, p));
            devices.add(new Device(u.device(), u.name(), at.tp(), at.cp(), p, d, u.computeBusyNs(), w.idleNs(),
                    w.pipelineBubbleNs(), w.exposedCommNs(), w.otherWaitNs(), new TreeMap<>(w.exposedByKind()),
                    overlapped.get(u.device()), Math.round(lost[u.device()]), peakActs, mem));
        }
        TreeMap<String, Long> meanByKind = new TreeMap<>();
        int count = Math.max(1, devices.size());
        byKind.forEach((k, v) -> meanByKind.put(k, v / count));
        LinkUsage usage = run.links();
        long[] linkBytes = new long[usage.topology().links().size()];
        long[] linkBusy = new long[linkBytes.length];
        for (int i = 0; i < linkBytes.length; i++) {
            linkBytes[i] = usage.bytes(i);
            linkBusy[i] = usage.busyNs(i);
        }
        double seconds = m.stepTimeNs() / 1e9;
        int gpus = step.tp() * step.cp() * step.pp() * step.dp();
        long sequences = scenario.training().globalBatch();
        int s = scenario.training().seqLen();
        double modelFlops = scenario.modelFlopsPerStep();
        double peak = Precision.BF16.peak(scenario.cluster().accelerator());
        double fp8Peak = scenario.training().precision() == Precision.FP8
                ? Precision.FP8.peak(scenario.cluster().accelerator()) : 0;
        double fp4Peak = scenario.training().precision() == Precision.NVFP4 && scenario.device() != null
                ? Precision.NVFP4.peak(scenario.device().accelerator()) : 0;
        long tokens = sequences * s;
        double perGpu = modelFlops / seconds / gpus;
        return new StepFigures(m.stepTimeNs(), List.copyOf(steps), gpus, tokens, tokens / seconds, modelFlops,
                executed, perGpu / 1e12, perGpu / peak, fp8Peak > 0 ? perGpu / fp8Peak : 0,
                fp4Peak > 0 ? perGpu / fp4Peak : 0,
                executed * step.dp() / step.replicas() / seconds / gpus / peak, idleSum / count,
                bubbleSum / count, exposedSum / count, otherSum / count, meanByKind, lostSum / devices.size(),
                devices.stream().mapToLong(x -> x.memory().peakBytes()).max().orElse(0), m.events(), m.tasks(),
                timeline.makespan(), List.copyOf(devices), linkBytes, linkBusy);
    }

    /** Per device, the compute time the last step's tasks lost to communication kernels beside them. */
    private static double[] interference(Timeline timeline, StepWindows windows, int last) {
        TaskGraph graph = timeline.graph();
        double[] lost = new double[graph.devices().size()];
        if (timeline.interferenceModelled()) {
            for (Stream st : graph.streams()) {
                if (st.kind() == StreamKind.COMPUTE) {
                    for (int i = 0; i < graph.streamLength(st.id()); i++) {
                        int t = graph.streamTask(st.id(), i);
                        if (windows.inStep(t, last)) {
                            lost[st.device()] += timeline.interferenceNs(t);
                        }
                    }
                }
            }
        }
        return lost;
    }

    private static Memory memory(TrainingStep step, TrainingStep.Built built, Timeline timeline, int replica, int p) {
        MemoryModel model = new MemoryModel(step);
        MemoryModel.States states = model.states(p);
        long[][] live = built.pipelines().get(replica).activationBytes(timeline, p, model::keptActivationBytes,
                model::layerTrackedBytes);
        long peakActivations = 0;
        for (long v : live[1]) {
            peakActivations = Math.max(peakActivations, v);
        }
        long fixed = Math.round(states.total());
        return new Memory(fixed + peakActivations, Math.round(states.weights()), Math.round(states.gradients()),
                Math.round(states.optimizer()), Math.round(states.workspace()), peakActivations);
    }
}
